/* SPDX-License-Identifier: Apache-2.0 */
/*
 * /proc/PID/maps, line by line: "start-end perms offset major:minor inode
 * [path]".  Each field is parsed with explicit bounds; a line that does
 * not parse fails the whole walk (UIE_E_FORMAT), and callers fail closed.
 * Lookups of one range ask the kernel for just those mappings instead
 * (PROCMAP_QUERY), which saves formatting the whole file per request.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "hex.h"
#include "maps.h"
#include "uie/err.h"

#define MAPS_BUF 65536

/* PROCMAP_QUERY (linux/fs.h of Linux 6.11): one mapping, without formatting the file. */
struct uie_procmap_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define UIE_PROCMAP_QUERY _IOWR('f', 17, struct uie_procmap_query)
#define UIE_PMQ_READ 0x01u
#define UIE_PMQ_WRITE 0x02u
#define UIE_PMQ_EXEC 0x04u
#define UIE_PMQ_COVERING_OR_NEXT 0x10u

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
	char buf[MAPS_BUF]; /* on the stack: a walk's callback may walk again (backing_id) */
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

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)tgid, (unsigned long long)m->start,
		 (unsigned long long)m->end);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	return *fd >= 0 ? UIE_OK : UIE_E_SYS;
}

/*
 * The mappings of [lo, hi) by PROCMAP_QUERY, in address order.  Returns
 * UIE_E_VERSION (and calls nothing) when the kernel lacks the ioctl.
 * Mappings without a file come back with inode 0, as in the text form;
 * `special` stays false (it only matters to walks over all mappings).
 */
static int query_range(int fd, uint64_t lo, uint64_t hi, uie_map_fn fn, void *ctx)
{
	uint64_t at = lo;
	bool first = true;

	while (at < hi) {
		struct uie_procmap_query q = { .size = sizeof(q),
					       .query_addr = at,
					       .query_flags = UIE_PMQ_COVERING_OR_NEXT };
		struct uie_map m;
		int r;

		if (ioctl(fd, UIE_PROCMAP_QUERY, &q) != 0) {
			if (errno == ENOENT)
				return UIE_OK; /* nothing mapped at or above at */
			return first && (errno == ENOTTY || errno == EINVAL) ? UIE_E_VERSION : UIE_E_SYS;
		}
		first = false;
		if (q.vma_end <= q.vma_start || q.vma_end <= at || q.dev_major > 0xfff ||
		    q.dev_minor > 0xfffff)
			return UIE_E_FORMAT;
		if (q.vma_start >= hi)
			return UIE_OK;
		m = (struct uie_map){ .start = q.vma_start,
				      .end = q.vma_end,
				      .off = q.vma_offset,
				      .ino = q.inode,
				      .dev_major = q.dev_major,
				      .dev_minor = q.dev_minor,
				      .r = q.vma_flags & UIE_PMQ_READ,
				      .w = q.vma_flags & UIE_PMQ_WRITE,
				      .x = q.vma_flags & UIE_PMQ_EXEC };
		if ((r = fn(ctx, &m)) != UIE_OK)
			return r;
		at = q.vma_end;
	}
	return UIE_OK;
}

struct range_ctx {
	uint64_t lo, hi;
	uie_map_fn fn;
	void *ctx;
};

static int in_range(void *ctx, const struct uie_map *m)
{
	const struct range_ctx *rc = ctx;

	if (m->end <= rc->lo || m->start >= rc->hi)
		return UIE_OK;
	return rc->fn(rc->ctx, m);
}

int uie_guest_maps_range(pid_t tgid, uint64_t lo, uint64_t hi, bool query, uie_map_fn fn, void *ctx)
{
	struct range_ctx rc = { lo, hi, fn, ctx };
	char path[64];
	int fd, r = UIE_E_VERSION;

	if (query) {
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)tgid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return UIE_E_SYS;
		r = query_range(fd, lo, hi, fn, ctx);
		close(fd);
	}
	if (r == UIE_E_VERSION) /* an older kernel: read the text */
		r = uie_guest_maps_each(tgid, in_range, &rc);
	return r;
}

bool uie_guest_maps_query_works(void)
{
	struct uie_procmap_query q = { .size = sizeof(q), .query_flags = UIE_PMQ_COVERING_OR_NEXT };
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = ioctl(fd, UIE_PROCMAP_QUERY, &q) == 0;
	close(fd);
	return ok;
}

struct found {
	uint64_t dev, ino;
	bool any;
};

static int take(void *ctx, const struct uie_map *m)
{
	struct found *f = ctx;

	if (!f->any) {
		f->dev = makedev(m->dev_major, m->dev_minor);
		f->ino = m->ino;
		f->any = true;
	}
	return UIE_OK;
}

#define OVERLAYFS_MAGIC 0x794c7630

bool uie_guest_maps_backing_id(bool query, int fd, const struct stat *st, uint64_t *dev, uint64_t *ino)
{
	struct found f = { 0, 0, false };
	struct statfs sf;
	void *p;

	if (fstatfs(fd, &sf) != 0 || sf.f_type != OVERLAYFS_MAGIC || st->st_size == 0)
		return false;
	p = mmap(NULL, 1, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return false;
	uie_guest_maps_range(getpid(), (uint64_t)(uintptr_t)p, (uint64_t)(uintptr_t)p + 1, query, take, &f);
	munmap(p, 1);
	if (!f.any || (f.dev == st->st_dev && f.ino == st->st_ino))
		return false;
	*dev = f.dev;
	*ino = f.ino;
	return true;
}

int uie_guest_each_process(int (*fn)(void *ctx, pid_t pid), void *ctx)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	int r = UIE_OK;

	if (!d)
		return UIE_E_SYS;
	while (r == UIE_OK && (de = readdir(d)) != NULL) {
		uint64_t n;

		if (uie_parse_u64(de->d_name, &n) == UIE_OK && n > 0 && n <= INT32_MAX &&
		    (pid_t)n != getpid())
			r = fn(ctx, (pid_t)n);
	}
	closedir(d);
	return r;
}
