/* SPDX-License-Identifier: Apache-2.0 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uie/err.h"

/*
 * Reads fd to its end into a buffer grown as needed.  Reading stops one
 * byte past max so that a larger input is noticed rather than cut short.
 */
static int read_to_end(int fd, size_t max, size_t hint, uint8_t **buf, size_t *len)
{
	size_t cap = hint < max ? hint + 1 : max + 1, n = 0;
	uint8_t *b = malloc(cap), *nb;

	if (!b)
		return UIE_E_NOMEM;
	for (;;) {
		ssize_t got;

		if (n == cap) {
			size_t ncap = cap > (max + 1) / 2 ? max + 1 : 2 * cap;

			if (!(nb = realloc(b, ncap))) {
				free(b);
				return UIE_E_NOMEM;
			}
			b = nb;
			cap = ncap;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(b);
			return UIE_E_IO;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > max) {
			free(b);
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
	if (fd < 0 || max >= SIZE_MAX / 2)
		return UIE_E_INVAL;
	return read_to_end(fd, max, 1 << 16, buf, len);
}

int uie_file_read_alloc(const char *path, size_t max, uint8_t **buf, size_t *len)
{
	struct stat st;
	int fd, r;

	*buf = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return UIE_E_IO;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return UIE_E_IO;
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return UIE_E_LIMIT;
	}
	/* A regular file that grows while being read is an error, not a larger buffer. */
	r = read_to_end(fd, (size_t)st.st_size, (size_t)st.st_size, buf, len);
	close(fd);
	return r == UIE_E_LIMIT ? UIE_E_IO : r;
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

int uie_file_write_atomic(const char *path, const void *buf, size_t len, mode_t mode)
{
	char *tmp;
	int fd, r;

	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0)
		return UIE_E_NOMEM;
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		free(tmp);
		return UIE_E_IO;
	}
	r = fchmod(fd, mode) == 0 ? uie_fd_write_all(fd, buf, len) : UIE_E_IO;
	if (r == UIE_OK && fsync(fd) != 0)
		r = UIE_E_IO;
	if (close(fd) != 0)
		r = UIE_E_IO;
	if (r == UIE_OK && rename(tmp, path) != 0)
		r = UIE_E_IO;
	if (r != UIE_OK)
		unlink(tmp);
	free(tmp);
	return r;
}
