/* SPDX-License-Identifier: Apache-2.0 */
/* Sealed memfds (include/uie/sys.h): the checks every reader of one makes. */
#include <fcntl.h>
#include <sys/mman.h>

#include "uie/err.h"
#include "uie/sys.h"

bool uie_sys_fileless(int fd, const struct stat *st)
{
	int seals;

	if (st->st_nlink != 0)
		return false;
	seals = fcntl(fd, F_GET_SEALS);
	return seals < 0 || (seals & UIE_SEALS_FINAL) != UIE_SEALS_FINAL;
}

int uie_sealed_check(int fd, uint64_t len, int seals)
{
	struct stat st;
	int have = fcntl(fd, F_GET_SEALS);

	if (have < 0)
		return UIE_E_SYS;
	if ((have & seals) != seals)
		return UIE_E_STATE;
	if (fstat(fd, &st) != 0)
		return UIE_E_SYS;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != len)
		return UIE_E_RANGE;
	return UIE_OK;
}

int uie_sealed_map(int fd, size_t len, int seals, void **map)
{
	void *m;
	int r;

	*map = NULL;
	if (fd < 0 || len == 0)
		return UIE_E_INVAL;
	if ((r = uie_sealed_check(fd, len, seals)) != UIE_OK)
		return r;
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return UIE_E_SYS;
	*map = m;
	return UIE_OK;
}
