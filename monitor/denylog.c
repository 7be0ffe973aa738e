/* SPDX-License-Identifier: Apache-2.0 */
#include "denylog.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "uie/err.h"
#include "uie/names.h"

static const char *known(const char *name)
{
	return name ? name : "unknown";
}

int uie_denylog_open(struct uie_denylog *dl, const char *path)
{
	memset(dl, 0, sizeof(*dl));
	dl->fd = -1;
	if (!path)
		return UIE_OK;
	if (strlen(path) >= sizeof(dl->addr.sun_path))
		return UIE_E_INVAL;
	dl->addr.sun_family = AF_UNIX;
	memcpy(dl->addr.sun_path, path, strlen(path) + 1);
	dl->addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
	dl->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	tzset(); /* the zone is read now: the locked monitor opens no files */
	return dl->fd >= 0 ? UIE_OK : UIE_E_SYS;
}

void uie_denylog_close(struct uie_denylog *dl)
{
	if (dl->fd >= 0)
		close(dl->fd);
	dl->fd = -1;
}

/* Appends to buf at *n (kept NUL-terminated, never past size). */
__attribute__((format(printf, 4, 5))) static void put(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n + 1 >= size)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, size - *n, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n = *n + (size_t)k < size ? *n + (size_t)k : size - 1;
}

/* Object names come from the guest's file system: quoted, anything unusual escaped. */
static void put_quoted(char *buf, size_t size, size_t *n, const char *s)
{
	put(buf, size, n, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			put(buf, size, n, "\\x%02x", c);
		else
			put(buf, size, n, "%c", c);
	}
	put(buf, size, n, "\"");
}

size_t uie_denylog_format(char *buf, size_t size, const struct uie_req *req, const struct uie_verdict *v,
			  uint8_t mode, const char *object)
{
	size_t n = 0;

	if (size == 0)
		return 0;
	buf[0] = '\0';
	put(buf, size, &n, "%s event=%s role=%s rule=%s",
	    v->decision == UIE_DENY ? "denied" : "would-deny (measure mode)",
	    known(uie_event_key(req->event)), known(uie_role_key(req->role)),
	    known(uie_reason_key(v->reason)));
	put(buf, size, &n, " digest=");
	if (v->digest.alg == UIE_HASH_SHA256 || v->digest.alg == UIE_HASH_SHA384) {
		put(buf, size, &n, "%s:", v->digest.alg == UIE_HASH_SHA256 ? "sha256" : "sha384");
		for (unsigned i = 0; i < v->digest.len && i < UIE_DIGEST_MAX; i++)
			put(buf, size, &n, "%02x", v->digest.bytes[i]);
	} else {
		put(buf, size, &n, "none");
	}
	put(buf, size, &n, " object=");
	put_quoted(buf, size, &n, object ? object : "");
	put(buf, size, &n, " pid=%u mode=%s seq=%llu", req->pid, known(uie_mode_key(mode)),
	    (unsigned long long)v->seq);
	return n;
}

void uie_denylog_denial(struct uie_denylog *dl, const struct uie_req *req, const struct uie_verdict *v,
			uint8_t mode, const char *object)
{
	char line[1024];
	size_t n = 0;
	struct tm tm;
	time_t now;

	if (!dl || dl->fd < 0 || v->policy_decision != UIE_DENY)
		return;
	now = time(NULL);
	localtime_r(&now, &tm);
	put(line, sizeof(line), &n, "<%d>", LOG_AUTHPRIV | LOG_WARNING);
	n += strftime(line + n, sizeof(line) - n, "%b %e %H:%M:%S ", &tm);
	put(line, sizeof(line), &n, "uie-monitord[%d]: ", (int)getpid());
	n += uie_denylog_format(line + n, sizeof(line) - n, req, v, mode, object);
	if (sendto(dl->fd, line, n, MSG_DONTWAIT | MSG_NOSIGNAL, (const struct sockaddr *)&dl->addr,
		   dl->addrlen) == (ssize_t)n)
		dl->sent++;
	else
		dl->dropped++;
}
