/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lines of /proc/PID/mountinfo (proc(5)): "ID PARENT MAJ:MIN ROOT POINT
 * OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS", fields separated by
 * single spaces, with space, tab, newline and backslash in a field written
 * as \ooo.
 */
#ifndef UIE_GUEST_MOUNTINFO_H
#define UIE_GUEST_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum uie_mi_field {
	UIE_MI_ID,
	UIE_MI_PARENT,
	UIE_MI_DEVNO,
	UIE_MI_ROOT,    /* the directory of the file system mounted there */
	UIE_MI_POINT,   /* where, in the reader's root */
	UIE_MI_OPTIONS, /* the mount's own */
	UIE_MI_TYPE,    /* after the optional fields and "-" */
	UIE_MI_SOURCE,
	UIE_MI_SUPER, /* the superblock's options */
};

/*
 * Field f of line, as written (escapes not decoded: a list is split on the
 * characters they hide first, as super options on commas), in place: its
 * *n bytes from *p.  UIE_E_FORMAT for a line without the field.
 */
int uie_guest_mountinfo_field(const char *line, enum uie_mi_field f, const char **p, size_t *n);
/*
 * The line of mount mnt_id in pid's mountinfo (0: our own), without its
 * newline, in a buffer the caller frees; NULL with errno (ENOENT: no such
 * mount there).
 */
char *uie_guest_mountinfo_line_dup(pid_t pid, uint64_t mnt_id);
/* Decodes \ooo escapes of in[0..n) into out (cap bytes, NUL-terminated): UIE_OK or UIE_E_LIMIT. */
int uie_guest_mountinfo_unescape(const char *in, size_t n, char *out, size_t cap);

#endif
