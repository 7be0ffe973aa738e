/* SPDX-License-Identifier: Apache-2.0 */
/* An object (struct uie_object) over an open file descriptor. */
#ifndef UIE_HOST_OBJECT_H
#define UIE_HOST_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "uie/platform.h"
#include "uie/sys.h"

/* An object backed by an open file descriptor (mapped read-only when possible). */
struct uie_host_object {
	struct uie_object obj;
	int fd;        /* borrowed */
	void *mapping; /* owned when not NULL */
	size_t map_len;
	const uint8_t *head; /* borrowed: the first head_len bytes, already read (uie_host_object_over) */
	size_t head_len;
};

/*
 * Opens obj over fd (borrowed); fills *id from fstat when id is not NULL.
 * With map, the bytes are hashed straight from a read-only mapping (fast,
 * but a concurrent truncation raises SIGBUS); without, through pread, which
 * is what the monitor uses on files a guest can still modify.
 */
int uie_host_object_open(struct uie_host_object *ho, int fd, bool map, struct uie_file_id *id);
/*
 * obj over fd (borrowed) of size st->st_size, read through pread, whose
 * first head_len bytes the caller has read into head (borrowed too): reads
 * within them take no system call (the ELF header, program headers and
 * PT_INTERP string of an executable are in its first page).
 */
void uie_host_object_over(struct uie_host_object *ho, int fd, const struct stat *st, const void *head,
			  size_t head_len);
void uie_host_object_close(struct uie_host_object *ho);

#endif
