/* SPDX-License-Identifier: Apache-2.0 */
/* Lines of /proc/PID/mountinfo (mountinfo.h), read through the buffer API. */
#include "mountinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uie/buf.h"
#include "uie/err.h"

static bool octal(uint8_t c)
{
	return c >= '0' && c <= '7';
}

int uie_guest_mountinfo_unescape(const char *in, size_t n, char *out, size_t cap)
{
	struct uie_rbuf r;
	struct uie_wbuf w;
	uint8_t c;

	if (cap == 0)
		return UIE_E_LIMIT;
	uie_rbuf_init(&r, in, n);
	uie_wbuf_init(&w, out, cap - 1);
	while (uie_rbuf_u8(&r, &c) == UIE_OK) {
		const uint8_t *d;

		if (c == '\\' && uie_rbuf_left(&r) >= 3 && (d = uie_rbuf_cur(&r)) && d[0] <= '3' &&
		    octal(d[0]) && octal(d[1]) && octal(d[2])) {
			c = (uint8_t)((d[0] - '0') * 64 + (d[1] - '0') * 8 + (d[2] - '0'));
			uie_rbuf_skip(&r, 3);
		}
		uie_wbuf_u8(&w, c);
	}
	out[w.err == UIE_OK ? w.len : 0] = '\0';
	return w.err == UIE_OK ? UIE_OK : UIE_E_LIMIT;
}

/* The bytes of the next space-separated field of r (none left: UIE_E_FORMAT). */
static int next_field(struct uie_rbuf *r, const uint8_t **f, size_t *n)
{
	const uint8_t *p = uie_rbuf_cur(r);
	size_t left = uie_rbuf_left(r), k = 0;

	if (left == 0)
		return UIE_E_FORMAT;
	while (k < left && p[k] != ' ' && p[k] != '\n')
		k++;
	*f = p;
	*n = k;
	uie_rbuf_skip(r, k < left ? k + 1 : k);
	return UIE_OK;
}

int uie_guest_mountinfo_field(const char *line, enum uie_mi_field f, const char **p, size_t *n)
{
	struct uie_rbuf r;
	const uint8_t *b = NULL;
	unsigned i = 0;
	bool after = false; /* past the "-" that ends the optional fields */

	uie_rbuf_init(&r, line, strlen(line));
	for (;;) {
		if (next_field(&r, &b, n) != UIE_OK)
			return UIE_E_FORMAT;
		if (i > UIE_MI_OPTIONS && !after) { /* optional fields, then "-" */
			after = *n == 1 && b[0] == '-';
			continue;
		}
		if (i == (unsigned)f)
			break;
		i++;
	}
	*p = (const char *)b;
	return UIE_OK;
}

char *uie_guest_mountinfo_line_dup(pid_t pid, uint64_t mnt_id)
{
	char path[40], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/mountinfo");
	if (!(f = fopen(path, "re")))
		return NULL;
	while ((len = getline(&line, &cap, f)) > 0) {
		char *end;

		if (strtoull(line, &end, 10) == mnt_id && end != line && *end == ' ') {
			if (line[len - 1] == '\n')
				line[len - 1] = '\0';
			fclose(f);
			return line;
		}
	}
	free(line);
	fclose(f);
	errno = ENOENT;
	return NULL;
}
