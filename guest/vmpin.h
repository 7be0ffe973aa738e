/* SPDX-License-Identifier: Apache-2.0 */
/*
 * VM mode, guest side: names an open file by the guest-physical frames its
 * page-cache pages occupy (docs/BRIDGE.md section 12).  The file is mapped
 * read-only and shared in this process, so the pages are the very page-cache
 * pages every process executing the file maps; they are faulted in
 * (MAP_POPULATE) and locked (mlock) so that they stay where the monitor will
 * read them until the answer came, and their frame numbers are read from
 * /proc/self/pagemap, which shows them only to CAP_SYS_ADMIN.  (Under
 * ASan mlock does nothing; MAP_POPULATE still makes the pages present.)
 */
#ifndef UIE_GUEST_VMPIN_H
#define UIE_GUEST_VMPIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uie_vmpin {
	void *map;
	size_t map_len;
	uint64_t size;    /* object bytes */
	uint64_t *frames; /* owned; guest-physical addresses, one per 4 KiB page */
	size_t nframes;
	bool fileless; /* the file has no name left: nothing pinned, no frames */
};

/*
 * Pins the file behind objfd (borrowed) and reads its frames through
 * pagemap_fd (/proc/self/pagemap, opened by the caller).  Clears *p first.
 * Return: UIE_OK; UIE_E_FORMAT (not a regular file), UIE_E_RANGE (empty),
 * UIE_E_LIMIT (over UIE_VM_MAX_FRAMES pages), UIE_E_IO (cannot be mapped
 * for reading), UIE_E_SYS (mlock, pagemap; frame numbers hidden: not
 * root), UIE_E_NOMEM.
 */
int uie_vmpin_object(int pagemap_fd, int objfd, struct uie_vmpin *p);

/*
 * MPROTECT_EXEC: the frames process pid holds for the n pages from vaddr,
 * read from /proc/PID/pagemap: a present page's guest-physical address,
 * UIE_VM_PAGE_ABSENT for one not present (it will fault in from the
 * file).  Nothing is locked: the caller's process is stopped while its
 * request is decided, and a page the kernel moves meanwhile makes the
 * monitor read other bytes, a refusal at worst.  Return: UIE_OK;
 * UIE_E_INVAL (vaddr not page aligned); UIE_E_SYS (pagemap unreadable, a
 * page swapped out, a frame number hidden: the relay refuses).
 */
int uie_vmpin_range(uint32_t pid, uint64_t vaddr, uint64_t *frames, size_t n);

/* Unlocks and unmaps; safe on a cleared or released pin. */
void uie_vmpin_release(struct uie_vmpin *p);

#endif
