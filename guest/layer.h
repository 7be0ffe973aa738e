/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The file under an overlayfs file (layer.c): what a mapping of the
 * overlay file maps, and what a writer outside the overlay can change.
 */
#ifndef UIE_GUEST_LAYER_H
#define UIE_GUEST_LAYER_H

#include <stddef.h>
#include <sys/stat.h>

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
 * Opens read-only the file of the layer under the overlayfs file fd (st:
 * its fstat) that a mapping of it made now would map, and that writes from
 * outside the overlay change; -1 with errno when it cannot be told (ENOENT:
 * no layer holds its path, ESTALE: the topmost one that does holds another
 * file).  fd's mount must be in our own mount table.
 */
int uie_guest_layer_open(int fd, const struct stat *st);

#endif
