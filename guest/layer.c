/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The layer file under an overlayfs file (docs/THREAT-MODEL.md, "Writes to
 * code").  A mapping of an overlay file maps the file of the layer below
 * it (the upper layer's copy, or a lower layer's file), and the layer
 * directories are ordinary directories: a writer that opens the layer's
 * file there changes the mapped bytes without opening the overlay file, so
 * a lease on the overlay file does not see it.  The kernel hands out no
 * descriptor of that file (since Linux 6.8 /proc/PID/map_files opens the
 * overlay's), so it is found as overlayfs finds it: the mount's layer
 * directories from our mount table, the file's path inside the overlay,
 * and the layers' files at that path, topmost first.  One is taken only if
 * it is the file a mapping of the overlay file maps, told by the page cache:
 * both show the same page (a file put beside the overlay's with the same
 * bytes, size and times does not).  Without such a file (a redirected
 * layout, data-only layers, a layer directory named as another mount
 * namespace sees it, an empty file, no CAP_SYS_ADMIN for the page frames)
 * there is no answer, and the grant is refused as unsealable.
 */
#include "layer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "fstrust.h"
#include "mountinfo.h"
#include "uie/buf.h"
#include "uie/err.h"
#include "uie/sys.h"

#define STACK_MAX 2 /* overlayfs stacks at most this deep (FILESYSTEM_MAX_STACK_DEPTH) */

struct layers {
	struct uie_wbuf w;
	const char **dir;
	unsigned max, n;
};

/* Ends the directory being written in l->w and adds it; empty ones are not layers. */
static int add_dir(struct layers *l, size_t start)
{
	if (l->w.len == start)
		return UIE_OK;
	uie_wbuf_u8(&l->w, '\0');
	if (l->w.err != UIE_OK || l->n == l->max)
		return UIE_E_LIMIT;
	l->dir[l->n++] = (const char *)l->w.p + start;
	return UIE_OK;
}

/*
 * Adds the directories of one option's value (decoded), in order: a
 * lowerdir= list is split on ':' (a backslash escapes the next character)
 * and ends at its data-only layers ("::"); anything else is one path.
 */
static int add_value(struct layers *l, const char *v, bool list)
{
	size_t start = l->w.len;

	for (const char *p = v; *p; p++) {
		if (list && p[0] == ':') {
			int r = add_dir(l, start);

			if (r != UIE_OK || p[1] == ':')
				return r; /* "::": data-only layers follow */
			start = l->w.len;
			continue;
		}
		if (list && p[0] == '\\' && p[1])
			p++;
		uie_wbuf_u8(&l->w, (uint8_t)*p);
	}
	return add_dir(l, start);
}

/* Adds the layers of every option named name (upper: "upperdir"; lower: "lowerdir", "lowerdir+"). */
static int add_options(struct layers *l, const char *opts, size_t n, bool upper)
{
	struct uie_rbuf r;

	uie_rbuf_init(&r, opts, n);
	while (uie_rbuf_left(&r) > 0) {
		const char *o = (const char *)uie_rbuf_cur(&r), *eq, *end = memchr(o, ',', uie_rbuf_left(&r));
		size_t len = end ? (size_t)(end - o) : uie_rbuf_left(&r);
		bool list = false;
		char *value;
		int rc;

		uie_rbuf_skip(&r, end ? len + 1 : len);
		eq = memchr(o, '=', len);
		if (!eq)
			continue;
		if (upper ? (size_t)(eq - o) == 8 && !strncmp(o, "upperdir", 8)
			  : ((list = (size_t)(eq - o) == 8 && !strncmp(o, "lowerdir", 8)) ||
			     ((size_t)(eq - o) == 9 && !strncmp(o, "lowerdir+", 9)))) {
			size_t vlen = len - (size_t)(eq + 1 - o);

			if (!(value = malloc(vlen + 1)))
				return UIE_E_NOMEM;
			rc = uie_guest_mountinfo_unescape(eq + 1, vlen, value, vlen + 1);
			if (rc == UIE_OK)
				rc = add_value(l, value, list);
			free(value);
			if (rc != UIE_OK)
				return rc;
		}
	}
	return UIE_OK;
}

int uie_guest_overlay_layers(const char *opts, size_t n, char *out, size_t cap, const char **dir,
			     unsigned max, unsigned *ndirs)
{
	struct layers l = { .dir = dir, .max = max };
	int r;

	*ndirs = 0;
	uie_wbuf_init(&l.w, out, cap);
	if ((r = add_options(&l, opts, n, true)) != UIE_OK || (r = add_options(&l, opts, n, false)) != UIE_OK)
		return r;
	if (l.n == 0)
		return UIE_E_FORMAT;
	*ndirs = l.n;
	return UIE_OK;
}

void *uie_guest_first_page_map(int fd)
{
	/* Populated by the kernel, not touched: a page past the end (an empty or truncated file)
	 * stays absent instead of raising SIGBUS.  Private and never written: the cache's page. */
	void *p = mmap(NULL, 1, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

uint64_t uie_guest_frame_at(int pagemap, const void *p)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t e = 0;

	if (pread(pagemap, &e, sizeof(e), (off_t)((uintptr_t)p / (uintptr_t)psz * sizeof(e))) != sizeof(e) ||
	    !(e >> 63)) /* not present */
		return 0;
	return e & ((UINT64_C(1) << 55) - 1);
}

uint64_t uie_guest_first_frame(int pagemap, int fd)
{
	void *p = uie_guest_first_page_map(fd);
	uint64_t frame = p ? uie_guest_frame_at(pagemap, p) : 0;

	if (p)
		munmap(p, 1);
	return frame;
}

/*
 * fd's path inside its overlay (the mount's root, then the path below its
 * mount point; with a leading '/') and the overlay's layers, from the line
 * of fd's mount in our mount table.  Allocated in *mem, which the caller
 * frees.
 */
static int overlay_path(struct uie_mounts *mc, int fd, char **mem, char **inner, const char **dir,
			unsigned *ndirs)
{
	char path[PATH_MAX], root[PATH_MAX], point[PATH_MAX], *at;
	const char *line;
	const char *f;
	struct statx sx;
	size_t n, plen, cap;

	*mem = NULL;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) != 0)
		return -1;
	if (!(sx.stx_mask & STATX_MNT_ID) || uie_sys_fd_name(fd, path, sizeof(path)) <= 0) {
		errno = ENOENT;
		return -1;
	}
	if (!(line = uie_guest_own_mount_line(mc, sx.stx_mnt_id)))
		return -1;
	if (uie_guest_mountinfo_field(line, UIE_MI_ROOT, &f, &n) != UIE_OK ||
	    uie_guest_mountinfo_unescape(f, n, root, sizeof(root)) != UIE_OK ||
	    uie_guest_mountinfo_field(line, UIE_MI_POINT, &f, &n) != UIE_OK ||
	    uie_guest_mountinfo_unescape(f, n, point, sizeof(point)) != UIE_OK ||
	    uie_guest_mountinfo_field(line, UIE_MI_SUPER, &f, &n) != UIE_OK)
		goto unknown;
	plen = strcmp(point, "/") ? strlen(point) : 0;
	if (strncmp(path, point, plen) != 0 || path[plen] != '/')
		goto unknown; /* not below its mount point as we see it */
	cap = n + UIE_OVL_LAYERS_MAX + strlen(root) + strlen(path) + 2;
	if (!(*mem = malloc(cap)))
		goto unknown;
	*inner = *mem;
	at = *mem + snprintf(*mem, cap, "%s%s", strcmp(root, "/") ? root : "", path + plen) + 1;
	if (uie_guest_overlay_layers(f, n, at, cap - (size_t)(at - *mem), dir, UIE_OVL_LAYERS_MAX, ndirs) !=
	    UIE_OK)
		goto unknown;
	return 0;
unknown:
	free(*mem);
	*mem = NULL;
	errno = ENOENT;
	return -1;
}

/* A read-only open of path if it is a regular file (no other kind is opened), or -1. */
static int reopen_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC), rfd = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		rfd = uie_sys_reopen_read(fd);
	close(fd);
	return rfd;
}

/*
 * The layer's file under fd (an overlay's, first page at frame want): the
 * first layer, topmost first, whose file at fd's path shows the same page;
 * under it again when that is an overlay's too.
 */
static int layer_open(struct uie_mounts *mc, int fd, int pagemap, uint64_t want, unsigned depth)
{
	const char *dir[UIE_OVL_LAYERS_MAX];
	char *mem, *inner, cand[PATH_MAX];
	unsigned ndirs;
	int err = ESTALE;

	if (overlay_path(mc, fd, &mem, &inner, dir, &ndirs) != 0)
		return -1;
	for (unsigned i = 0; i < ndirs; i++) {
		struct statfs sfs;
		int lfd;

		if ((size_t)snprintf(cand, sizeof(cand), "%s%s", dir[i], inner) >= sizeof(cand)) {
			err = ENAMETOOLONG;
			break;
		}
		/* Not in this layer, or not a regular file there (a whiteout, a device: not opened). */
		if ((lfd = reopen_regular(cand)) < 0)
			continue;
		if (uie_guest_first_frame(pagemap, lfd) != want) {
			close(lfd);
			continue;
		}
		free(mem);
		if (fstatfs(lfd, &sfs) == 0 && sfs.f_type == OVERLAYFS_SUPER_MAGIC) {
			int under = depth < STACK_MAX ? layer_open(mc, lfd, pagemap, want, depth + 1) : -1;

			err = under < 0 ? (depth < STACK_MAX ? errno : ELOOP) : 0;
			close(lfd);
			errno = err;
			return under;
		}
		return lfd;
	}
	free(mem);
	errno = err;
	return -1;
}

int uie_guest_layer_open(struct uie_mounts *mc, int pagemap, int fd, uint64_t want)
{
	return layer_open(mc, fd, pagemap, want, 1);
}
