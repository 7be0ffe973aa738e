/* SPDX-License-Identifier: Apache-2.0 */
/* Whole-file reading and atomic file replacement for the host tools. */
#ifndef UIE_HOST_FILEIO_H
#define UIE_HOST_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * A whole regular file of at most max bytes; *buf is malloc'ed (caller
 * frees).  UIE_E_IO when it cannot be opened, is not a regular file, fails
 * to read or grows while being read; UIE_E_LIMIT; UIE_E_NOMEM.
 */
int uie_file_read_alloc(const char *path, size_t max, uint8_t **buf, size_t *len);

/* Everything up to end of file from fd (a pipe or stdin), at most max bytes; fd stays open. */
int uie_fd_read_alloc(int fd, size_t max, uint8_t **buf, size_t *len);

/* The project error for an errno from file I/O (ENOSPC: UIE_E_NOSPACE, EACCES: UIE_E_ACCESS, ...). */
int uie_err_from_errno(int e);

/* All of buf to fd, retrying short writes; the error names the cause (uie_err_from_errno). */
int uie_fd_write_all(int fd, const void *buf, size_t len);

/*
 * Replaces path by len bytes: a temporary file next to it with the given
 * mode, written, fsync'ed, then renamed over path.  On error path is
 * unchanged and the temporary file is removed.  UIE_E_IO or UIE_E_NOMEM.
 */
int uie_file_write_atomic(const char *path, const void *buf, size_t len, mode_t mode);

#endif
