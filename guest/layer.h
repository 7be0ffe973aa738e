/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The file under an overlayfs file (layer.c): what a mapping of the
 * overlay file maps, and what a writer outside the overlay can change.
 */
#ifndef UIE_GUEST_LAYER_H
#define UIE_GUEST_LAYER_H

#include <stddef.h>
#include <stdint.h>

struct uie_mounts;

#define UIE_OVL_LAYERS_MAX 512 /* overlayfs allows 500 lower layers */

/*
 * The layer directories of an overlay mount whose super options, as
 * mountinfo writes them (escapes not decoded), are opts[0..n), topmost
 * first: upperdir, then the lower layers of lowerdir=A:B (a ':' in a path
 * written "\:") or of one lowerdir+= each.  Data-only layers (after "::",
 * datadir+=) are left out: no path in the overlay names their files.
 * Decoded and NUL-terminated into out (cap bytes; n + UIE_OVL_LAYERS_MAX
 * always suffice), dir[0..*ndirs) pointing into it.  UIE_E_FORMAT when
 * there is no layer, UIE_E_LIMIT for more than max or when out is full.
 */
int uie_guest_overlay_layers(const char *opts, size_t n, char *out, size_t cap, const char **dir,
			     unsigned max, unsigned *ndirs);
/*
 * The page frame of the first page of fd's file in the page cache, 0 when
 * it cannot be told (an empty file; no CAP_SYS_ADMIN, which frame numbers
 * need): read through a mapping of our own, from pagemap (an open
 * /proc/self/pagemap).  A mapping of an overlay file maps the layer's
 * file, so the two show the same frame, and a page belongs to the cache of
 * one file only.
 */
uint64_t uie_guest_first_frame(int pagemap, int fd);
/* fd's first page mapped by us (read-only, private, populated), or NULL; munmap(p, 1) when done. */
void *uie_guest_first_page_map(int fd);
/* The page frame behind our mapping p (uie_guest_first_page_map), 0 when not present now. */
uint64_t uie_guest_frame_at(int pagemap, const void *p);
/*
 * Opens read-only the file of the layer under the overlayfs file fd (its
 * first page at frame want) that a mapping of fd made now maps, and that
 * writes from outside the overlay change; -1 with errno when it cannot be
 * told (ESTALE: no layer's file at fd's path is it; ENOENT: fd's mount is
 * not in our mount table, kept in mc).
 */
int uie_guest_layer_open(struct uie_mounts *mc, int pagemap, int fd, uint64_t want);

#endif
