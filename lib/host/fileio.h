/* SPDX-License-Identifier: Apache-2.0 */
/* Whole-file reading and atomic file replacement for the host tools. */
#ifndef UIE_HOST_FILEIO_H
#define UIE_HOST_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Every function here leaves errno set to the system error when it fails
 * (EISDIR for a directory, EFBIG for a file above max, EAGAIN for one that
 * grew while read), so that the caller can name it: uie_file_err_str().
 */

/*
 * A whole regular file of at most max bytes; *buf is malloc'ed (caller
 * frees).  The error of the failing call (uie_err_from_errno: UIE_E_NOTFOUND,
 * UIE_E_ACCESS, UIE_E_IO, ...) when it cannot be opened, is not a regular
 * file, fails to read or grows while being read; UIE_E_LIMIT; UIE_E_NOMEM.
 */
int uie_file_read_alloc(const char *path, size_t max, uint8_t **buf, size_t *len);

/* Everything up to end of file from fd (a pipe or stdin), at most max bytes; fd stays open. */
int uie_fd_read_alloc(int fd, size_t max, uint8_t **buf, size_t *len);

/*
 * What to print for r, an error of a function here, right after it failed:
 * the system error (strerror(errno)) for a failed file operation, else
 * uie_err_str(r).  Never NULL.
 */
const char *uie_file_err_str(int r);

/* The project error for an errno from file I/O (ENOSPC: UIE_E_NOSPACE, EACCES: UIE_E_ACCESS, ...). */
int uie_err_from_errno(int e);

/* All of buf to fd, retrying short writes; the error names the cause (uie_err_from_errno). */
int uie_fd_write_all(int fd, const void *buf, size_t len);

/* All len bytes of fd at offset off into buf, retrying short reads; UIE_E_IO on an error or the end. */
int uie_fd_pread_all(int fd, void *buf, size_t len, uint64_t off);

/*
 * Replaces path by len bytes: a temporary file next to it with the given
 * mode, written, fsync'ed, then renamed over path.  On error path is
 * unchanged and the temporary file is removed.  A symlink is followed (the
 * file it names is replaced, the link stays; a dangling one is ENOENT), and
 * an existing file that is neither regular nor a directory (a FIFO, a
 * device) is written through, never replaced.  The error of the failing
 * call (uie_err_from_errno) or UIE_E_NOMEM.
 */
int uie_file_write_atomic(const char *path, const void *buf, size_t len, mode_t mode);

/* An output a user named (-o FILE): "-" is standard output, else uie_file_write_atomic. */
int uie_file_write_output(const char *path, const void *buf, size_t len, mode_t mode);

#endif
