/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A reader of tar streams as dpkg-deb writes them (--fsys-tarfile,
 * --ctrl-tarfile: POSIX ustar, GNU long names, pax extended headers), read
 * from a pipe in one pass, for `uie ref scan --deb`.  Every header is
 * checked (checksum, numeric fields, name length) before it is used, and
 * the data of a member is only read as far as the header announced.
 * Hosted (tools only).
 */
#ifndef UIE_TOOLS_DEBTAR_H
#define UIE_TOOLS_DEBTAR_H

#include <stddef.h>
#include <stdint.h>

#define UIE_TAR_NAME_MAX 4096 /* longest member name accepted (a GNU or pax long name) */

enum uie_tar_type {
	UIE_TAR_FILE,     /* a regular file: its data follows */
	UIE_TAR_HARDLINK, /* another name of a file earlier in the archive */
	UIE_TAR_OTHER,    /* directory, symlink, device, fifo: no data */
};

struct uie_tar_entry {
	enum uie_tar_type type;
	/* "/usr/bin/x" for "./usr/bin/x" or "usr/bin/x"; owned by the reader, valid until the next call */
	const char *path;
	uint32_t mode; /* permission bits (07777) */
	uint64_t size; /* bytes of data (UIE_TAR_FILE) */
};

struct uie_tar {
	int fd;
	uint64_t off;  /* bytes of the stream read so far */
	uint64_t data; /* data bytes of the current member not yet read */
	uint64_t pad;  /* then the padding to the next 512-byte block */
	char path[UIE_TAR_NAME_MAX + 2];
	char why[192]; /* after an error: what was wrong and at which offset */
};

void uie_tar_init(struct uie_tar *t, int fd);

/*
 * The next member (skipping what is left of the current one's data):
 * 1 and *e set, 0 at the end of the archive, or UIE_E_TRUNCATED (the
 * stream ended inside a header or member), UIE_E_FORMAT (a corrupt header),
 * UIE_E_LIMIT (a name longer than UIE_TAR_NAME_MAX), UIE_E_IO (read
 * failed, errno set); t->why says what and where.
 */
int uie_tar_next(struct uie_tar *t, struct uie_tar_entry *e);

/* Up to n more bytes of the current member's data into buf: how many (0 at its end), or an error. */
int uie_tar_read(struct uie_tar *t, void *buf, size_t n);

/* The rest of the current member's data written to out_fd; the errors of uie_tar_next. */
int uie_tar_copy(struct uie_tar *t, int out_fd);

#endif
