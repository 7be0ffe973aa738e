/* SPDX-License-Identifier: Apache-2.0 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uie/err.h"

/* Closes fd (unless -1) and returns r with errno set to e. */
static int file_error(int fd, int e, int r)
{
	if (fd >= 0)
		close(fd);
	errno = e;
	return r == UIE_E_IO ? uie_err_from_errno(e) : r;
}

/*
 * Reads fd to its end into a buffer grown as needed.  Reading stops one
 * byte past max so that a larger input is noticed rather than cut short.
 */
static int read_to_end(int fd, size_t max, size_t hint, uint8_t **buf, size_t *len)
{
	size_t cap = hint < max ? hint + 1 : max + 1, n = 0;
	uint8_t *b = malloc(cap), *nb;

	if (!b) {
		errno = ENOMEM;
		return UIE_E_NOMEM;
	}
	for (;;) {
		ssize_t got;

		if (n == cap) {
			size_t ncap = cap > (max + 1) / 2 ? max + 1 : 2 * cap;

			if (!(nb = realloc(b, ncap))) {
				free(b);
				errno = ENOMEM;
				return UIE_E_NOMEM;
			}
			b = nb;
			cap = ncap;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;

			free(b);
			errno = e;
			return uie_err_from_errno(e);
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > max) {
			free(b);
			errno = EFBIG;
			return UIE_E_LIMIT;
		}
	}
	*buf = b;
	*len = n;
	return UIE_OK;
}

int uie_fd_read_alloc(int fd, size_t max, uint8_t **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	if (fd < 0 || max >= SIZE_MAX / 2) {
		errno = EINVAL;
		return UIE_E_INVAL;
	}
	return read_to_end(fd, max, 1 << 16, buf, len);
}

int uie_file_read_alloc(const char *path, size_t max, uint8_t **buf, size_t *len)
{
	struct stat st;
	int fd, r, e;

	*buf = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return file_error(-1, errno, UIE_E_IO);
	if (fstat(fd, &st) != 0)
		return file_error(fd, errno, UIE_E_IO);
	/* Only regular files: a directory or a device is named as such. */
	if (!S_ISREG(st.st_mode))
		return file_error(fd, S_ISDIR(st.st_mode) ? EISDIR : EINVAL, UIE_E_IO);
	if ((uint64_t)st.st_size > max)
		return file_error(fd, EFBIG, UIE_E_LIMIT);
	/* A regular file that grows while being read is an error, not a larger buffer. */
	r = read_to_end(fd, (size_t)st.st_size, (size_t)st.st_size, buf, len);
	e = errno;
	close(fd);
	if (r == UIE_E_LIMIT) {
		e = EAGAIN; /* it changed while being read */
		r = UIE_E_IO;
	}
	errno = e;
	return r;
}

const char *uie_file_err_str(int r)
{
	switch (r) {
	case UIE_E_IO:
	case UIE_E_NOSPACE:
	case UIE_E_ACCESS:
	case UIE_E_NOTFOUND:
	case UIE_E_SYS: return errno ? strerror(errno) : uie_err_str(r);
	default: return uie_err_str(r);
	}
}

int uie_err_from_errno(int e)
{
	switch (e) {
	case ENOSPC:
	case EDQUOT:
	case EFBIG: return UIE_E_NOSPACE;
	case EACCES:
	case EPERM:
	case EROFS: return UIE_E_ACCESS;
	case ETIMEDOUT: return UIE_E_TIMEOUT;
	case EEXIST: return UIE_E_STATE;
	case ENOENT: return UIE_E_NOTFOUND;
	case ENOMEM: return UIE_E_NOMEM;
	default: return UIE_E_IO;
	}
}

int uie_fd_write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return uie_err_from_errno(w < 0 ? errno : ENOSPC);
		p += w;
		len -= (size_t)w;
	}
	return UIE_OK;
}

int uie_fd_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return UIE_E_IO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return UIE_OK;
}

/* All of buf into the existing non-regular file path (a FIFO, a device), never replacing it. */
static int write_through(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC), r, e;

	if (fd < 0)
		return file_error(-1, errno, UIE_E_IO);
	r = uie_fd_write_all(fd, buf, len);
	e = errno;
	if (close(fd) != 0 && r == UIE_OK) {
		e = errno;
		r = uie_err_from_errno(e);
	}
	errno = r == UIE_OK ? 0 : e;
	return r;
}

/* Replaces the regular file (or nothing) at path through a temporary file beside it. */
static int replace(const char *path, const void *buf, size_t len, mode_t mode)
{
	char *tmp;
	int fd, e = 0;

	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		errno = ENOMEM;
		return UIE_E_NOMEM;
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		e = errno;
		free(tmp);
		errno = e;
		return uie_err_from_errno(e);
	}
	/* The first failure's errno is the one reported. */
	if (fchmod(fd, mode) != 0 || uie_fd_write_all(fd, buf, len) != UIE_OK || fsync(fd) != 0)
		e = errno;
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e && rename(tmp, path) != 0)
		e = errno;
	if (e)
		unlink(tmp);
	free(tmp);
	errno = e;
	return e ? uie_err_from_errno(e) : UIE_OK;
}

int uie_file_write_atomic(const char *path, const void *buf, size_t len, mode_t mode)
{
	struct stat st;
	char *real = NULL;
	int r;

	/* A symlink is followed: the file it names is replaced, the link stays. */
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		if (!(real = realpath(path, NULL)))
			return file_error(-1, errno, UIE_E_IO);
		path = real;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		r = write_through(path, buf, len);
	else
		r = replace(path, buf, len, mode);
	free(real);
	return r;
}

int uie_file_write_output(const char *path, const void *buf, size_t len, mode_t mode)
{
	if (!strcmp(path, "-"))
		return uie_fd_write_all(STDOUT_FILENO, buf, len);
	return uie_file_write_atomic(path, buf, len, mode);
}
