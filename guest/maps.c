/* SPDX-License-Identifier: Apache-2.0 */
/*
 * /proc/PID/maps, line by line: "start-end perms offset major:minor inode
 * [path]".  Each field is parsed with explicit bounds; a line that does
 * not parse fails the whole walk (UIE_E_FORMAT), and callers fail closed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sup.h"
#include "uie/err.h"

#define MAPS_BUF 65536

struct cursor {
	const char *p, *end;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A number in base 16 or 10 up to the delimiter (or the end of the line when delim is 0). */
static int number(struct cursor *c, unsigned base, char delim, uint64_t *v)
{
	unsigned digits = 0;

	*v = 0;
	while (c->p < c->end && *c->p != delim) {
		int d = base == 16 ? hexval(*c->p) : (*c->p >= '0' && *c->p <= '9' ? *c->p - '0' : -1);

		if (d < 0 || (unsigned)d >= base || ++digits > 20 || *v > (UINT64_MAX - (unsigned)d) / base)
			return UIE_E_FORMAT;
		*v = *v * base + (unsigned)d;
		c->p++;
	}
	if (digits == 0 || (c->p >= c->end && delim != 0))
		return UIE_E_FORMAT;
	if (c->p < c->end)
		c->p++; /* the delimiter */
	return UIE_OK;
}

static int parse_line(const char *line, size_t len, struct uie_map *m)
{
	struct cursor c = { line, line + len };
	uint64_t maj, min;
	int r;

	memset(m, 0, sizeof(*m));
	if ((r = number(&c, 16, '-', &m->start)) != UIE_OK || (r = number(&c, 16, ' ', &m->end)) != UIE_OK)
		return r;
	if (c.end - c.p < 5 || c.p[4] != ' ')
		return UIE_E_FORMAT;
	m->r = c.p[0] == 'r';
	m->w = c.p[1] == 'w';
	m->x = c.p[2] == 'x';
	c.p += 5;
	if ((r = number(&c, 16, ' ', &m->off)) != UIE_OK || (r = number(&c, 16, ':', &maj)) != UIE_OK ||
	    (r = number(&c, 16, ' ', &min)) != UIE_OK)
		return r;
	/* The inode ends the line when there is no path. */
	if ((r = number(&c, 10, memchr(c.p, ' ', (size_t)(c.end - c.p)) ? ' ' : 0, &m->ino)) != UIE_OK)
		return r;
	while (c.p < c.end && *c.p == ' ')
		c.p++;
	m->special = c.p < c.end && *c.p == '[';
	if (maj > 0xfff || min > 0xfffff || m->end <= m->start)
		return UIE_E_FORMAT;
	m->dev_major = (unsigned)maj;
	m->dev_minor = (unsigned)min;
	return UIE_OK;
}

int uie_guest_maps_each(pid_t tgid, uie_map_fn fn, void *ctx)
{
	static char buf[MAPS_BUF]; /* the supervisor is single-threaded */
	char path[64];
	size_t have = 0;
	int fd, r = UIE_OK;
	bool eof = false;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return UIE_E_SYS;
	while (r == UIE_OK && (!eof || have > 0)) {
		char *nl;

		if (!eof && have < sizeof(buf)) {
			ssize_t n = read(fd, buf + have, sizeof(buf) - have);

			if (n < 0) {
				r = UIE_E_SYS;
				break;
			}
			eof = n == 0;
			have += (size_t)n;
		}
		nl = memchr(buf, '\n', have);
		if (!nl) {
			if (eof && have > 0)
				r = UIE_E_FORMAT; /* a line without its newline */
			else if (have == sizeof(buf))
				r = UIE_E_LIMIT;
			if (eof)
				break;
			continue;
		}
		{
			struct uie_map m;
			size_t len = (size_t)(nl - buf);

			if ((r = parse_line(buf, len, &m)) == UIE_OK)
				r = fn(ctx, &m);
			memmove(buf, nl + 1, have - len - 1);
			have -= len + 1;
		}
	}
	close(fd);
	return r;
}

int uie_guest_map_open(pid_t tgid, const struct uie_map *m, int *fd)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)tgid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	return *fd >= 0 ? UIE_OK : UIE_E_SYS;
}
