/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Objects read through file descriptors, the platform's struct uie_object
 * over an open file.  Plain system calls only: the interceptor (`uie run`)
 * uses it and links no cryptographic library.
 */
#include "host_object.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "uie/err.h"
#include "uie/sys.h"

static int ho_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct uie_host_object *ho = ctx;

	if (off <= ho->head_len && len <= ho->head_len - off) {
		memcpy(buf, ho->head + off, len);
		return UIE_OK;
	}
	return uie_fd_pread_all(ho->fd, buf, len, off);
}

int uie_host_object_open(struct uie_host_object *ho, int fd, bool map, struct uie_file_id *id)
{
	struct stat st;

	memset(ho, 0, sizeof(*ho));
	ho->fd = fd;
	if (fstat(fd, &st) != 0)
		return UIE_E_IO;
	if (!S_ISREG(st.st_mode))
		return UIE_E_IO;
	if (id)
		*id = uie_file_id_of(&st);
	ho->obj.ctx = ho;
	ho->obj.size = (uint64_t)st.st_size;
	ho->obj.read = ho_read;
	if (map && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m != MAP_FAILED) {
			ho->mapping = m;
			ho->map_len = (size_t)st.st_size;
			ho->obj.map = m;
		}
	}
	return UIE_OK;
}

void uie_host_object_over(struct uie_host_object *ho, int fd, const struct stat *st, const void *head,
			  size_t head_len)
{
	*ho = (struct uie_host_object){ .fd = fd, .head = head, .head_len = head_len };
	ho->obj.ctx = ho;
	ho->obj.size = (uint64_t)st->st_size;
	ho->obj.read = ho_read;
}

void uie_host_object_close(struct uie_host_object *ho)
{
	if (ho->mapping)
		munmap(ho->mapping, ho->map_len);
	memset(ho, 0, sizeof(*ho));
	ho->fd = -1;
}
