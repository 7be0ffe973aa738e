/* SPDX-License-Identifier: Apache-2.0 */
#include "vmram.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "uie/bridge.h"
#include "uie/err.h"

int uie_vmram_open(const char *path, struct uie_vmram *g)
{
	struct stat st;
	int fd;

	g->fd = -1;
	g->size = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return UIE_E_SYS;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return UIE_E_SYS;
	}
	if (!S_ISREG(st.st_mode) || st.st_size % UIE_VM_FRAME != 0) {
		close(fd);
		return UIE_E_FORMAT;
	}
	if (st.st_size == 0 || (uint64_t)st.st_size > UIE_GUEST_RAM_MAX) {
		close(fd);
		return UIE_E_LIMIT;
	}
	g->fd = fd;
	g->size = (uint64_t)st.st_size;
	return UIE_OK;
}

void uie_vmram_close(struct uie_vmram *g)
{
	if (g->fd >= 0)
		close(g->fd);
	*g = (struct uie_vmram){ .fd = -1 };
}

bool uie_vmram_frame_ok(const struct uie_vmram *g, uint64_t gpa)
{
	if (gpa % UIE_VM_FRAME != 0 || gpa >= g->size || g->size - gpa < UIE_VM_FRAME)
		return false;
	return gpa < UIE_GUEST_RAM_HOLE_START || gpa >= UIE_GUEST_RAM_HOLE_END;
}

int uie_vmram_read(const struct uie_vmram *g, uint64_t gpa, void *buf, size_t len)
{
	return uie_fd_pread_all(g->fd, buf, len, gpa);
}

/* Object read callback: [off, off+len) split at frame boundaries. */
static int guest_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct uie_vmram_object *go = ctx;
	uint8_t *out = buf;

	while (len > 0) {
		uint64_t idx = off / UIE_VM_FRAME, in = off % UIE_VM_FRAME;
		size_t n = UIE_VM_FRAME - in < len ? (size_t)(UIE_VM_FRAME - in) : len;
		int r;

		if (idx >= go->nframes)
			return UIE_E_IO;
		if ((r = uie_vmram_read(go->ram, go->frames[idx] + in, out, n)) != UIE_OK)
			return r;
		out += n;
		off += n;
		len -= n;
	}
	return UIE_OK;
}

int uie_vmram_object_init(struct uie_vmram_object *go, const struct uie_vmram *g, const uint64_t *frames,
			  size_t n, uint64_t size)
{
	memset(go, 0, sizeof(*go));
	if (size == 0 || n != size / UIE_VM_FRAME + (size % UIE_VM_FRAME != 0))
		return UIE_E_FORMAT;
	for (size_t i = 0; i < n; i++)
		if (!uie_vmram_frame_ok(g, frames[i]))
			return UIE_E_RANGE;
	go->ram = g;
	go->frames = frames;
	go->nframes = n;
	go->obj = (struct uie_object){ .ctx = go, .size = size, .read = guest_read };
	return UIE_OK;
}
