/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Bloom-hint fast path of the interceptor.  Whatever the hint says,
 * the only outcome it can produce is an earlier DENY; an unusable hint
 * makes every query answer "not a definite miss", i.e. ask the monitor.
 * So does a hint whose epoch is not the generation the monitor publishes.
 */
#include "fastpath.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uie/bridge.h"
#include "uie/err.h"

#include "genpage.h"
#include "uie/sys.h"

#define HINT_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

/* Checks and maps a hint memfd into *map / *b (both cleared on failure). */
static int map_hint(int fd, size_t len, void **map, struct uie_bloom *b)
{
	int r;

	memset(b, 0, sizeof(*b));
	if ((r = uie_sealed_map(fd, len, HINT_SEALS, map)) != UIE_OK)
		return r;
	if ((r = uie_bloom_parse(*map, len, b)) != UIE_OK) {
		munmap(*map, len);
		*map = NULL;
		memset(b, 0, sizeof(*b));
		return r;
	}
	return UIE_OK;
}

static void drop_hint(struct uie_fastpath *fp)
{
	if (fp->map)
		munmap(fp->map, fp->len);
	fp->map = NULL;
	fp->len = 0;
	memset(&fp->bloom, 0, sizeof(fp->bloom));
}

int uie_fastpath_open(struct uie_fastpath *fp, int fd, size_t len)
{
	int r;

	if (!fp)
		return UIE_E_INVAL;
	memset(fp, 0, sizeof(*fp));
	if ((r = map_hint(fd, len, &fp->map, &fp->bloom)) == UIE_OK)
		fp->len = len;
	return r;
}

int uie_fastpath_open_gen(struct uie_fastpath *fp, int fd, size_t len)
{
	if (!fp)
		return UIE_E_INVAL;
	uie_genpage_unmap(fp->gen);
	fp->gen = NULL;
	return uie_genpage_map(fd, len, &fp->gen);
}

/* Replaces the hint with the monitor's current one, fetched at generation g. */
static void fetch_hint(struct uie_fastpath *fp, int bridge_fd, uint64_t g)
{
	size_t len;
	int hfd;

	drop_hint(fp);
	fp->fetched = false;
	if (uie_bridge_hint(bridge_fd, &hfd, &len) != UIE_OK)
		return; /* tried again at the next use */
	/* An answer, even "none" or a hint that does not parse, stands until g moves. */
	fp->fetched = true;
	fp->fetched_gen = g;
	if (hfd < 0)
		return;
	if (map_hint(hfd, len, &fp->map, &fp->bloom) == UIE_OK)
		fp->len = len;
	close(hfd);
}

int uie_fastpath_fetch(struct uie_fastpath *fp, int bridge_fd)
{
	size_t len;
	uint64_t g;
	int r, gfd;

	if (!fp)
		return UIE_E_INVAL;
	memset(fp, 0, sizeof(*fp));
	if ((r = uie_bridge_generation(bridge_fd, &gfd, &len, &g)) != UIE_OK)
		return r;
	r = uie_fastpath_open_gen(fp, gfd, len);
	close(gfd);
	if (r != UIE_OK)
		return r;
	fetch_hint(fp, bridge_fd, uie_genpage_load(fp->gen));
	return UIE_OK;
}

bool uie_fastpath_refresh(struct uie_fastpath *fp, int bridge_fd)
{
	uint64_t g;

	if (!fp || !fp->gen)
		return false;
	g = uie_genpage_load(fp->gen);
	if (!fp->fetched || g != fp->fetched_gen)
		fetch_hint(fp, bridge_fd, g);
	return fp->map && fp->bloom.epoch == g;
}

void uie_fastpath_close(struct uie_fastpath *fp)
{
	if (!fp)
		return;
	if (fp->map)
		munmap(fp->map, fp->len);
	uie_genpage_unmap(fp->gen);
	memset(fp, 0, sizeof(*fp));
}

uint64_t uie_fastpath_epoch(const struct uie_fastpath *fp)
{
	return fp && fp->map ? fp->bloom.epoch : 0;
}

bool uie_fastpath_definite_miss(const struct uie_fastpath *fp, const struct uie_digest *digest)
{
	if (!fp || !fp->map || !fp->gen || !digest || digest->alg != fp->bloom.hash_alg ||
	    !uie_digest_valid(digest))
		return false;
	/* A hint of another policy than the one in force proves nothing. */
	if (uie_genpage_load(fp->gen) != fp->bloom.epoch)
		return false;
	return !uie_bloom_maybe_contains(&fp->bloom, digest->bytes, digest->len);
}

static size_t memo_index(const struct uie_req *req)
{
	uint64_t h = req->id.ino * 0x9e3779b97f4a7c15ull ^ req->id.dev ^ req->file_offset ^
		     (uint64_t)req->event << 56;

	return (size_t)(h >> 32) & (UIE_FASTPATH_CACHE - 1);
}

static bool memo_matches(const struct uie_fastpath_memo *m, const struct uie_req *req, uint16_t alg)
{
	return m->valid && m->event == req->event && m->role == req->role &&
	       m->file_offset == req->file_offset && m->length == req->length && m->digest.alg == alg &&
	       memcmp(&m->id, &req->id, sizeof(m->id)) == 0;
}

void uie_fastpath_learn(struct uie_fastpath *fp, const struct uie_req *req, const struct uie_digest *digest)
{
	struct uie_fastpath_memo *m;

	if (!fp || !fp->map || !req || !digest || req->role == UIE_ROLE_ANON ||
	    digest->alg != fp->bloom.hash_alg || !uie_digest_valid(digest))
		return;
	m = &fp->memo[memo_index(req)];
	*m = (struct uie_fastpath_memo){
		.valid = true,
		.event = req->event,
		.role = req->role,
		.id = req->id,
		.file_offset = req->file_offset,
		.length = req->length,
		.digest = *digest,
	};
}

bool uie_fastpath_check_known(const struct uie_fastpath *fp, const struct uie_req *req,
			      struct uie_digest *digest)
{
	const struct uie_fastpath_memo *m;

	if (digest)
		memset(digest, 0, sizeof(*digest));
	if (!fp || !fp->map || !req || !digest || req->role == UIE_ROLE_ANON)
		return false;
	m = &fp->memo[memo_index(req)];
	if (!memo_matches(m, req, fp->bloom.hash_alg))
		return false;
	*digest = m->digest;
	return uie_fastpath_definite_miss(fp, digest);
}
