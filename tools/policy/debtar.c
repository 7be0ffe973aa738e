/* SPDX-License-Identifier: Apache-2.0 */
/* Tar streams as dpkg-deb writes them (debtar.h). */
#include "debtar.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uie/buf.h"
#include "uie/err.h"

#include "fileio.h"

#define BLOCK 512
#define PAX_MAX (64u << 10) /* an extended header larger than this is not dpkg's */

__attribute__((format(printf, 4, 5))) static int why(struct uie_tar *t, int r, uint64_t at, const char *fmt,
						     ...)
{
	va_list ap;
	int n = snprintf(t->why, sizeof(t->why), "offset %llu: ", (unsigned long long)at);

	va_start(ap, fmt);
	vsnprintf(t->why + n, sizeof(t->why) - (size_t)n, fmt, ap);
	va_end(ap);
	return r;
}

void uie_tar_init(struct uie_tar *t, int fd)
{
	memset(t, 0, sizeof(*t));
	t->fd = fd;
}

/* Exactly n bytes, or UIE_E_TRUNCATED at the end of the stream, or UIE_E_IO. */
static int read_full(struct uie_tar *t, void *buf, size_t n)
{
	uint64_t at = t->off;

	for (size_t got = 0; got < n;) {
		ssize_t k = read(t->fd, (char *)buf + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return why(t, UIE_E_IO, t->off, "read: %s", strerror(errno));
		if (k == 0)
			return why(t, UIE_E_TRUNCATED, at, "the archive ends inside a %zu-byte block", n);
		got += (size_t)k;
		t->off += (uint64_t)k;
	}
	return UIE_OK;
}

static int skip(struct uie_tar *t, uint64_t n)
{
	char buf[8192];
	int r = UIE_OK;

	while (n && r == UIE_OK) {
		size_t k = n < sizeof(buf) ? (size_t)n : sizeof(buf);

		r = read_full(t, buf, k);
		n -= k;
	}
	return r;
}

/*
 * A numeric header field: octal digits after optional spaces, ended by a
 * space or NUL (or the field's end); or GNU base-256 (first byte 0x80).
 */
static bool parse_num(const uint8_t *f, size_t n, uint64_t *v)
{
	size_t i = 0;

	*v = 0;
	if (n && f[0] == 0x80) {
		for (i = 1; i < n; i++) {
			if (*v >> 56)
				return false;
			*v = *v << 8 | f[i];
		}
		return *v <= INT64_MAX;
	}
	while (i < n && f[i] == ' ')
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (*v >> 60)
			return false;
		*v = *v << 3 | (uint64_t)(f[i] - '0');
	}
	return i == n || f[i] == ' ' || f[i] == '\0';
}

/* The header's checksum: the sum of its bytes with the field as spaces (unsigned or signed). */
static bool checksum_ok(const uint8_t *h, uint64_t want)
{
	uint64_t u = 0;
	int64_t s = 0;

	for (size_t i = 0; i < BLOCK; i++) {
		uint8_t c = i >= 148 && i < 156 ? ' ' : h[i];

		u += c;
		s += (int8_t)c;
	}
	return u == want || (uint64_t)s == want;
}

/* A NUL-padded name field's length. */
static size_t field_len(const uint8_t *f, size_t n)
{
	const uint8_t *z = memchr(f, '\0', n);

	return z ? (size_t)(z - f) : n;
}

/*
 * t->path from the member name (prefix/name joined, "./" and "/" dropped
 * in front): "/" + the name, no ".." component, no trailing "/".
 */
static int set_path(struct uie_tar *t, uint64_t at, const char *pre, size_t np, const char *name, size_t nn)
{
	char raw[UIE_TAR_NAME_MAX + 2];
	const char *p = raw;
	size_t n;

	if (np + 1 + nn > UIE_TAR_NAME_MAX)
		return why(t, UIE_E_LIMIT, at, "a member name of %zu bytes", np + 1 + nn);
	n = (size_t)snprintf(raw, sizeof(raw), "%.*s%s%.*s", (int)np, pre, np ? "/" : "", (int)nn, name);
	while (*p == '/' || (p[0] == '.' && (p[1] == '/' || p[1] == '\0')))
		p += *p == '/' ? 1 : p[1] ? 2 : 1;
	n -= (size_t)(p - raw);
	while (n && p[n - 1] == '/')
		n--;
	for (size_t i = 0; i < n;) {
		size_t c = strcspn(p + i, "/");

		if (c == 2 && p[i] == '.' && p[i + 1] == '.')
			return why(t, UIE_E_FORMAT, at, "member name '%.*s' leaves the root", (int)n, p);
		i += c + 1;
	}
	snprintf(t->path, sizeof(t->path), "/%.*s", (int)n, p);
	return UIE_OK;
}

/* The pax extended header's records ("LEN KEY=VALUE\n"): path= and size= matter here. */
static int parse_pax(struct uie_tar *t, uint64_t at, const uint8_t *d, size_t len, bool *have_path,
		     bool *have_size, uint64_t *size)
{
	struct uie_rbuf b;

	uie_rbuf_init(&b, d, len);
	while (uie_rbuf_left(&b)) {
		const uint8_t *rec, *eq;
		size_t rlen = 0, digits = 0, klen;
		uint8_t c = 0;

		while (uie_rbuf_u8(&b, &c) == UIE_OK && c >= '0' && c <= '9' && digits++ < 8)
			rlen = rlen * 10 + (size_t)(c - '0');
		if (c != ' ' || !digits || rlen <= digits + 1 ||
		    uie_rbuf_view(&b, &rec, rlen - digits - 1) != UIE_OK || rec[rlen - digits - 2] != '\n')
			return why(t, UIE_E_FORMAT, at, "a malformed pax extended header record");
		if (!(eq = memchr(rec, '=', rlen - digits - 2)))
			return why(t, UIE_E_FORMAT, at, "a pax record without '='");
		klen = (size_t)(eq - rec);
		const char *val = (const char *)eq + 1;
		size_t vlen = rlen - digits - 2 - klen - 1;

		if (klen == 4 && !memcmp(rec, "path", 4)) {
			if (memchr(val, '\0', vlen))
				return why(t, UIE_E_FORMAT, at, "a pax path with a NUL byte");
			int r = set_path(t, at, "", 0, val, vlen);

			if (r != UIE_OK)
				return r;
			*have_path = true;
		} else if (klen == 4 && !memcmp(rec, "size", 4)) {
			*size = 0;
			for (size_t i = 0; i < vlen; i++) {
				if (val[i] < '0' || val[i] > '9' || *size > (uint64_t)INT64_MAX / 10)
					return why(t, UIE_E_FORMAT, at, "a pax size that is not a number");
				*size = *size * 10 + (uint64_t)(val[i] - '0');
			}
			*have_size = true;
		}
	}
	return UIE_OK;
}

/*
 * The data of a GNU long name ('L') or pax header ('x') member, malloc'ed and
 * NUL-terminated; NULL with *r set on error.
 */
static uint8_t *read_meta(struct uie_tar *t, uint64_t at, uint64_t size, size_t max, int *r)
{
	uint8_t *out;

	if (size > max) {
		*r = why(t, UIE_E_LIMIT, at, "a %llu-byte long name or extended header",
			 (unsigned long long)size);
		return NULL;
	}
	if (!(out = malloc((size_t)size + 1))) {
		*r = why(t, UIE_E_NOMEM, at, "%s", uie_err_str(UIE_E_NOMEM));
		return NULL;
	}
	out[size] = '\0';
	if ((*r = read_full(t, out, (size_t)size)) == UIE_OK)
		*r = skip(t, (BLOCK - size % BLOCK) % BLOCK);
	if (*r != UIE_OK) {
		free(out);
		return NULL;
	}
	return out;
}

int uie_tar_next(struct uie_tar *t, struct uie_tar_entry *e)
{
	bool have_path = false, have_size = false;
	uint64_t pax_size = 0;
	int r;

	if ((r = skip(t, t->data + t->pad)) != UIE_OK)
		return r;
	t->data = t->pad = 0;
	for (;;) {
		const uint8_t *name, *mode, *size, *sum, *type, *magic, *prefix;
		uint8_t h[BLOCK], *meta;
		uint64_t at = t->off, v_mode, v_size, v_sum;
		struct uie_rbuf b;
		size_t i;

		if ((r = read_full(t, h, BLOCK)) != UIE_OK)
			return r;
		for (i = 0; i < BLOCK && !h[i]; i++)
			;
		if (i == BLOCK)
			return have_path || have_size
				       ? why(t, UIE_E_FORMAT, at, "an extended header before the end")
				       : 0;
		uie_rbuf_init(&b, h, BLOCK);
		uie_rbuf_view(&b, &name, 100);
		uie_rbuf_view(&b, &mode, 8);
		uie_rbuf_skip(&b, 16); /* uid, gid */
		uie_rbuf_view(&b, &size, 12);
		uie_rbuf_skip(&b, 12); /* mtime */
		uie_rbuf_view(&b, &sum, 8);
		uie_rbuf_view(&b, &type, 1);
		uie_rbuf_skip(&b, 100); /* linkname */
		uie_rbuf_view(&b, &magic, 8);
		uie_rbuf_skip(&b, 80); /* uname, gname, devmajor, devminor */
		uie_rbuf_view(&b, &prefix, 155);
		if (uie_rbuf_err(&b) != UIE_OK)
			return why(t, UIE_E_FORMAT, at, "header too short");
		if (!parse_num(sum, 8, &v_sum) || !checksum_ok(h, v_sum))
			return why(t, UIE_E_FORMAT, at,
				   "header checksum does not match (not a tar archive, or corrupt)");
		if (!parse_num(mode, 8, &v_mode) || !parse_num(size, 12, &v_size))
			return why(t, UIE_E_FORMAT, at, "a mode or size field that is not a number");
		if (have_size) {
			v_size = pax_size;
			have_size = false;
		}
		if (*type == 'L' || *type == 'x') {
			meta = read_meta(t, at, v_size, *type == 'L' ? UIE_TAR_NAME_MAX + 1 : PAX_MAX, &r);
			if (meta && *type == 'L') {
				r = set_path(t, at, "", 0, (const char *)meta, strlen((const char *)meta));
				have_path = r == UIE_OK;
			} else if (meta) {
				r = parse_pax(t, at, meta, (size_t)v_size, &have_path, &have_size, &pax_size);
			}
			free(meta);
			if (r != UIE_OK)
				return r;
			continue;
		}
		if (*type == 'g' || *type == 'K') { /* global pax header, GNU long link name: not needed */
			if ((r = skip(t, v_size + (BLOCK - v_size % BLOCK) % BLOCK)) != UIE_OK)
				return r;
			continue;
		}
		if (!have_path) {
			bool ustar = !memcmp(magic, "ustar\0", 6);

			if ((r = set_path(t, at, (const char *)prefix, ustar ? field_len(prefix, 155) : 0,
					  (const char *)name, field_len(name, 100))) != UIE_OK)
				return r;
		}
		if (*type == '0' || *type == '\0' || *type == '7')
			e->type = UIE_TAR_FILE;
		else if (*type == '1')
			e->type = UIE_TAR_HARDLINK;
		else if (*type >= '2' && *type <= '6')
			e->type = UIE_TAR_OTHER;
		else
			return why(t, UIE_E_FORMAT, at, "member %s has the unsupported type '%c'", t->path,
				   *type >= 0x20 && *type < 0x7f ? *type : '?');
		if (e->type == UIE_TAR_FILE && !t->path[1])
			return why(t, UIE_E_FORMAT, at, "a file member without a name");
		e->path = t->path;
		e->mode = (uint32_t)(v_mode & 07777);
		e->size = e->type == UIE_TAR_FILE ? v_size : 0;
		/* Only regular files carry data; the size of any other member is skipped as padding. */
		t->data = v_size;
		t->pad = (BLOCK - v_size % BLOCK) % BLOCK;
		return 1;
	}
}

int uie_tar_read(struct uie_tar *t, void *buf, size_t n)
{
	size_t k = t->data < n ? (size_t)t->data : n;
	int r = read_full(t, buf, k);

	if (r != UIE_OK)
		return r;
	t->data -= k;
	return (int)k;
}

int uie_tar_copy(struct uie_tar *t, int out_fd)
{
	char buf[1 << 16];
	int r;

	while (t->data) {
		size_t k = t->data < sizeof(buf) ? (size_t)t->data : sizeof(buf);

		if ((r = read_full(t, buf, k)) != UIE_OK)
			return r;
		if ((r = uie_fd_write_all(out_fd, buf, k)) != UIE_OK)
			return why(t, r, t->off, "writing a member's data: %s", strerror(errno));
		t->data -= k;
	}
	return UIE_OK;
}
