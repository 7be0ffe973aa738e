/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Guest RAM as the monitor sees it in VM mode: the file QEMU backs the
 * guest's memory with (`-object memory-backend-file,...,share=on`).  For
 * the pc machine with at most 2 GiB of RAM, guest-physical address A is
 * file offset A; the legacy VGA/BIOS window [0xA0000, 0x100000) is not RAM
 * the guest can hold a file's pages in, so frames there are refused too.
 * An object is named by the list of its 4 KiB frames; it is read through
 * the core's object callback, frame by frame, with pread (a guest that
 * changes a frame while it is read changes the digest, never the monitor).
 */
#ifndef UIE_MONITOR_VMRAM_H
#define UIE_MONITOR_VMRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uie/platform.h"

#define UIE_GUEST_RAM_MAX (2ull << 30) /* pc low RAM only: GPA == file offset */
#define UIE_GUEST_RAM_HOLE_START 0xA0000ull
#define UIE_GUEST_RAM_HOLE_END 0x100000ull

struct uie_vmram {
	int fd;        /* owned; -1 when closed */
	uint64_t size; /* bytes of guest RAM = size of the file */
};

/*
 * Opens the RAM file read-only; its size is the guest's RAM size.
 * Return: UIE_OK, UIE_E_SYS (open, fstat), UIE_E_FORMAT (not a regular
 * file, or not a multiple of 4 KiB), UIE_E_LIMIT (larger than
 * UIE_GUEST_RAM_MAX or empty).
 */
int uie_vmram_open(const char *path, struct uie_vmram *g);
void uie_vmram_close(struct uie_vmram *g);

/* Reads len bytes of guest RAM at gpa (pread, EINTR retried).  UIE_E_IO when they cannot all be read. */
int uie_vmram_read(const struct uie_vmram *g, uint64_t gpa, void *buf, size_t len);

/* True when the 4 KiB frame at gpa is page-aligned guest RAM (not the legacy hole). */
bool uie_vmram_frame_ok(const struct uie_vmram *g, uint64_t gpa);

/* An object of `size` bytes lying in frames[0..n) of guest RAM. */
struct uie_vmram_object {
	struct uie_object obj;
	const struct uie_vmram *ram; /* borrowed */
	const uint64_t *frames;      /* borrowed */
	size_t nframes;
};

/*
 * Checks every frame (UIE_E_RANGE on the first outside guest RAM) and that
 * n frames hold exactly size bytes (UIE_E_FORMAT); then fills *go, whose
 * obj reads through pread on the RAM file.
 */
int uie_vmram_object_init(struct uie_vmram_object *go, const struct uie_vmram *g, const uint64_t *frames,
			  size_t n, uint64_t size);

#endif
