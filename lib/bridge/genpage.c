/* SPDX-License-Identifier: Apache-2.0 */
/* The policy generation page: monitor writer, interceptor reader. */
#include "genpage.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uie/err.h"
#include "uie/sys.h"

/* The generation is stored in host order, which the format fixes as little-endian. */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the generation page stores a little-endian u64 with one atomic store"
#endif

static uint64_t *gen_word(const uint8_t *map)
{
	return (uint64_t *)(uintptr_t)(map + UIE_GENPAGE_GEN_OFF);
}

int uie_genpage_create(struct uie_genpage *g, uint64_t gen)
{
	uint8_t page[UIE_GENPAGE_LEN] = { 0 };
	size_t off = 0;
	void *m;
	int fd;

	g->fd = -1;
	g->map = NULL;
	/* NOLINTNEXTLINE(bugprone-not-null-terminated-result): an 8-byte magic, not a string */
	memcpy(page, UIE_GENPAGE_MAGIC, 8);
	page[8] = UIE_GENPAGE_VERSION;
	memcpy(page + UIE_GENPAGE_GEN_OFF, &gen, sizeof(gen));
	fd = memfd_create("uie-generation", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return UIE_E_SYS;
	while (off < sizeof(page)) {
		ssize_t n = write(fd, page + off, sizeof(page) - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return UIE_E_IO;
		}
		off += (size_t)n;
	}
	/* Mapped writable before the seals: the only writable mapping there will ever be. */
	m = mmap(NULL, UIE_GENPAGE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return UIE_E_SYS;
	}
	if (fcntl(fd, F_ADD_SEALS, UIE_GENPAGE_SEALS) != 0) {
		munmap(m, UIE_GENPAGE_LEN);
		close(fd);
		return UIE_E_SYS;
	}
	g->fd = fd;
	g->map = m;
	return UIE_OK;
}

void uie_genpage_set(struct uie_genpage *g, uint64_t gen)
{
	if (g && g->map)
		__atomic_store_n(gen_word(g->map), gen, __ATOMIC_RELEASE);
}

void uie_genpage_destroy(struct uie_genpage *g)
{
	if (!g)
		return;
	if (g->map)
		munmap(g->map, UIE_GENPAGE_LEN);
	if (g->fd >= 0)
		close(g->fd);
	g->map = NULL;
	g->fd = -1;
}

/* Magic, version, and every byte but the generation's zero. */
static int check_layout(const uint8_t *m)
{
	if (memcmp(m, UIE_GENPAGE_MAGIC, 8) != 0)
		return UIE_E_FORMAT;
	if ((m[8] | m[9] << 8) != UIE_GENPAGE_VERSION)
		return UIE_E_VERSION;
	for (size_t i = 10; i < UIE_GENPAGE_LEN; i++)
		if ((i < UIE_GENPAGE_GEN_OFF || i >= UIE_GENPAGE_GEN_OFF + 8) && m[i])
			return UIE_E_FORMAT;
	return UIE_OK;
}

int uie_genpage_map(int fd, uint64_t len, const uint8_t **map)
{
	void *m;
	int r;

	if (map)
		*map = NULL;
	if (!map || fd < 0)
		return UIE_E_INVAL;
	if ((r = uie_sealed_check(fd, len, UIE_GENPAGE_SEALS)) != UIE_OK)
		return r;
	if (len != UIE_GENPAGE_LEN)
		return UIE_E_RANGE;
	m = mmap(NULL, UIE_GENPAGE_LEN, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return UIE_E_SYS;
	if ((r = check_layout(m)) != UIE_OK) {
		munmap(m, UIE_GENPAGE_LEN);
		return r;
	}
	*map = m;
	return UIE_OK;
}

uint64_t uie_genpage_load(const uint8_t *map)
{
	return __atomic_load_n(gen_word(map), __ATOMIC_ACQUIRE);
}

void uie_genpage_unmap(const uint8_t *map)
{
	if (map)
		munmap((void *)(uintptr_t)map, UIE_GENPAGE_LEN);
}
