/* SPDX-License-Identifier: Apache-2.0 */
#include "pio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uie/err.h"

int pio_read_alloc(const char *path, size_t max, uint8_t **buf, size_t *len)
{
	struct stat st;
	uint8_t *p;
	size_t got = 0;
	int fd, r = UIE_OK;

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
	/* One spare byte so that growth while reading is noticed. */
	if (!(p = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return UIE_E_NOMEM;
	}
	for (;;) {
		ssize_t n = read(fd, p + got, (size_t)st.st_size + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = UIE_E_IO;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got > (size_t)st.st_size) {
			r = UIE_E_IO; /* the file grew under us */
			break;
		}
	}
	close(fd);
	if (r != UIE_OK) {
		free(p);
		return r;
	}
	*buf = p;
	*len = got;
	return UIE_OK;
}

int pio_write(const char *path, const void *buf, size_t len, mode_t mode)
{
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 16);
	const uint8_t *p = buf;
	int fd, r = UIE_OK;

	if (!tmp)
		return UIE_E_NOMEM;
	snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
	if ((fd = mkstemp(tmp)) < 0) {
		free(tmp);
		return UIE_E_IO;
	}
	if (fchmod(fd, mode) != 0)
		r = UIE_E_IO;
	while (r == UIE_OK && len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = UIE_E_IO;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (r == UIE_OK && fsync(fd) != 0)
		r = UIE_E_IO;
	if (close(fd) != 0 && r == UIE_OK)
		r = UIE_E_IO;
	if (r == UIE_OK && rename(tmp, path) != 0)
		r = UIE_E_IO;
	if (r != UIE_OK)
		unlink(tmp);
	free(tmp);
	return r;
}

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int pio_hex_decode(const char *hex, uint8_t *out, size_t n)
{
	if (strlen(hex) != 2 * n)
		return UIE_E_FORMAT;
	for (size_t i = 0; i < n; i++) {
		int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return UIE_E_FORMAT;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return UIE_OK;
}

int pio_parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	*v = 0;
	if (!*s)
		return UIE_E_FORMAT;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return UIE_E_FORMAT;
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return UIE_E_OVERFLOW;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return UIE_OK;
}
