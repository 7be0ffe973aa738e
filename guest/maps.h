/* SPDX-License-Identifier: Apache-2.0 */
/* The target's mappings (maps.c: /proc/PID/maps, PROCMAP_QUERY, map_files). */
#ifndef UIE_GUEST_MAPS_H
#define UIE_GUEST_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct uie_map {
	uint64_t start, end, off, ino;
	unsigned dev_major, dev_minor;
	bool r, w, x;
	bool special; /* [vdso], [stack], ... */
};
typedef int (*uie_map_fn)(void *ctx, const struct uie_map *m);
/* Calls fn for every mapping; stops at the first non-OK return and returns it. */
int uie_guest_maps_each(pid_t tgid, uie_map_fn fn, void *ctx);
/*
 * Calls fn, in address order, for every mapping that overlaps [lo, hi);
 * asks the kernel for just those (PROCMAP_QUERY) when query is set.
 */
int uie_guest_maps_range(pid_t tgid, uint64_t lo, uint64_t hi, bool query, uie_map_fn fn, void *ctx);
/* Whether the kernel has PROCMAP_QUERY (Linux 6.11). */
bool uie_guest_maps_query_works(void);
/*
 * The identity /proc/PID/maps shows for a mapping of the overlayfs file fd
 * when it differs from fstat's (st): before Linux 6.8 the maps name the
 * underlying file.  False for other files, and when they agree.
 */
bool uie_guest_maps_backing_id(bool query, int fd, const struct stat *st, uint64_t *dev, uint64_t *ino);
/*
 * Calls fn(ctx, pid) for every process on the machine but ourselves (the
 * numeric entries of /proc); stops at the first non-OK return and returns it.
 */
int uie_guest_each_process(int (*fn)(void *ctx, pid_t pid), void *ctx);
/* Opens the file behind a mapping via /proc/PID/map_files. */
int uie_guest_map_open(pid_t tgid, const struct uie_map *m, int *fd);

#endif
