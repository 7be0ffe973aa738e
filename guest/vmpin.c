/* SPDX-License-Identifier: Apache-2.0 */
#include "vmpin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uie/bridge.h"
#include "uie/err.h"
#include "wire.h"

#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
#define PM_PFN_MASK ((1ull << 55) - 1)

/* Reads the raw pagemap entries of the n pages from page number first. */
static int read_entries(int pagemap_fd, uint64_t first, uint64_t *frames, size_t n)
{
	size_t want = n * sizeof(uint64_t), off = 0;

	while (off < want) {
		ssize_t got = pread(pagemap_fd, (uint8_t *)frames + off, want - off,
				    (off_t)(first * sizeof(uint64_t) + off));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return UIE_E_SYS;
		off += (size_t)got;
	}
	return UIE_OK;
}

/* Reads the pagemap entries of [map, map + n pages) into frames. */
static int read_frames(int pagemap_fd, const void *map, uint64_t *frames, size_t n)
{
	int r = read_entries(pagemap_fd, (uint64_t)(uintptr_t)map / UIE_VM_FRAME, frames, n);

	if (r != UIE_OK)
		return r;
	for (size_t i = 0; i < n; i++) {
		uint64_t pfn = frames[i] & PM_PFN_MASK;

		/* Not present, or the PFN hidden (0): no frame to name. */
		if (!(frames[i] & PM_PRESENT) || pfn == 0)
			return UIE_E_SYS;
		frames[i] = pfn * UIE_VM_FRAME;
	}
	return UIE_OK;
}

int uie_vmpin_object(int pagemap_fd, int objfd, struct uie_vmpin *p)
{
	struct stat st;
	int r;

	memset(p, 0, sizeof(*p));
	if (fstat(objfd, &st) != 0)
		return UIE_E_IO;
	if (!S_ISREG(st.st_mode))
		return UIE_E_FORMAT;
	if (st.st_nlink == 0) {
		p->fileless = true;
		return UIE_OK;
	}
	if (st.st_size <= 0)
		return UIE_E_RANGE;
	p->size = (uint64_t)st.st_size;
	p->nframes = (size_t)uie_bridge_vm_nframes(p->size);
	if (p->nframes > UIE_VM_MAX_FRAMES)
		return UIE_E_LIMIT;
	p->map_len = p->nframes * UIE_VM_FRAME;
	/*
	 * MAP_POPULATE faults the pages in without touching them: a file
	 * truncated meanwhile leaves pages absent, which pagemap shows,
	 * instead of raising SIGBUS in the relay.
	 */
	p->map = mmap(NULL, p->map_len, PROT_READ, MAP_SHARED | MAP_POPULATE, objfd, 0);
	if (p->map == MAP_FAILED) {
		p->map = NULL;
		return UIE_E_IO;
	}
	/* Locked: the pages stay where the monitor will read them until the answer came. */
	if (mlock(p->map, p->map_len) != 0) {
		uie_vmpin_release(p);
		return UIE_E_SYS;
	}
	p->frames = malloc(p->nframes * sizeof(uint64_t));
	if (!p->frames) {
		uie_vmpin_release(p);
		return UIE_E_NOMEM;
	}
	if ((r = read_frames(pagemap_fd, p->map, p->frames, p->nframes)) != UIE_OK) {
		uie_vmpin_release(p);
		return r;
	}
	return UIE_OK;
}

void uie_vmpin_release(struct uie_vmpin *p)
{
	if (p->map) {
		munlock(p->map, p->map_len);
		munmap(p->map, p->map_len);
	}
	free(p->frames);
	memset(p, 0, sizeof(*p));
}

int uie_vmpin_range(uint32_t pid, uint64_t vaddr, uint64_t *frames, size_t n)
{
	char path[48];
	int fd, r;

	if (vaddr % UIE_VM_FRAME != 0)
		return UIE_E_INVAL;
	snprintf(path, sizeof(path), "/proc/%u/pagemap", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return UIE_E_SYS;
	r = read_entries(fd, vaddr / UIE_VM_FRAME, frames, n);
	close(fd);
	for (size_t i = 0; r == UIE_OK && i < n; i++) {
		uint64_t pfn = frames[i] & PM_PFN_MASK;

		if (frames[i] & PM_SWAPPED)
			r = UIE_E_SYS; /* its bytes are in no frame the monitor could read */
		else if (!(frames[i] & PM_PRESENT))
			frames[i] = UIE_VM_PAGE_ABSENT;
		else if (pfn == 0)
			r = UIE_E_SYS; /* the frame number hidden */
		else
			frames[i] = pfn * UIE_VM_FRAME;
	}
	return r;
}
