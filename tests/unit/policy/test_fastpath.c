/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interceptor's fast path: only sealed hints are used, the mapping is
 * read-only, and no hint (valid, stale, corrupted or forged) ever turns a
 * request the monitor denies into an allow.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "uie/err.h"

#include "bloom.h"
#include "fastpath.h"
#include "genpage.h"
#include "ptest.h"
#include "tcommon.h"

#define ALL_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

/* Attaches a generation page saying that the open hint's epoch is in force. */
static void make_current(struct uie_fastpath *fp)
{
	struct uie_genpage g;

	assert_int_equal(uie_genpage_create(&g, fp->bloom.epoch), UIE_OK);
	assert_int_equal(uie_fastpath_open_gen(fp, g.fd, UIE_GENPAGE_LEN), UIE_OK);
	uie_genpage_destroy(&g); /* the reader's mapping keeps the page */
}

/* A hint over digests d[0..n) for epoch 1. */
static uint8_t *hint_of(const uint8_t (*d)[32], uint32_t n, size_t *len)
{
	uint64_t salt[2] = { 0x1111, 0x2222 };
	uint32_t nbits;
	uint8_t k, *h;

	uie_bloom_params(n, 0, &nbits, &k);
	*len = uie_bloom_encoded_len(nbits);
	h = malloc(*len);
	assert_int_equal(uie_bloom_init(h, *len, UIE_HASH_SHA256, k, 1, salt, nbits), UIE_OK);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(uie_bloom_add(h, *len, d[i], 32), UIE_OK);
	return h;
}

static struct uie_digest dig(const uint8_t d[32])
{
	struct uie_digest x = { .alg = UIE_HASH_SHA256, .len = 32 };

	memcpy(x.bytes, d, 32);
	return x;
}

static const uint8_t allowed[1][32] = { { 0xa1 } };
static const uint8_t unlisted[32] = { 0xb2 };

static void test_open_requires_seals(void **state)
{
	size_t len;
	uint8_t *h = hint_of(allowed, 1, &len);
	struct uie_fastpath fp;
	struct uie_digest a = dig(allowed[0]), u = dig(unlisted);
	char path[] = "/tmp/uie-hint-XXXXXX";
	int fd;

	(void)state;
	fd = tc_memfd("hint", h, len, 0);
	assert_int_equal(uie_fastpath_open(&fp, fd, len), UIE_E_STATE);
	assert_null(fp.map);
	assert_false(uie_fastpath_definite_miss(&fp, &u));
	close(fd);
	fd = tc_memfd("hint", h, len, F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL); /* writable */
	assert_int_equal(uie_fastpath_open(&fp, fd, len), UIE_E_STATE);
	close(fd);
	fd = tc_memfd("hint", h, len, ALL_SEALS);
	assert_int_equal(uie_fastpath_open(&fp, fd, len - 1), UIE_E_RANGE);
	assert_int_equal(uie_fastpath_open(&fp, fd, len), UIE_OK);
	/* Without a generation page nobody says the hint is current: never a miss. */
	assert_false(uie_fastpath_definite_miss(&fp, &u));
	make_current(&fp);
	close(fd); /* the mapping outlives the descriptor */
	assert_int_equal(uie_fastpath_epoch(&fp), 1);
	assert_false(uie_fastpath_definite_miss(&fp, &a));
	assert_true(uie_fastpath_definite_miss(&fp, &u));
	/* The mapping cannot be made writable. */
	assert_int_equal(mprotect(fp.map, fp.len, PROT_READ | PROT_WRITE), -1);
	uie_fastpath_close(&fp);
	uie_fastpath_close(&fp);
	assert_false(uie_fastpath_definite_miss(&fp, &u));
	/* A regular file has no seals. */
	fd = mkstemp(path);
	assert_int_equal(write(fd, h, len), (ssize_t)len);
	assert_int_not_equal(uie_fastpath_open(&fp, fd, len), UIE_OK);
	close(fd);
	unlink(path);
	/* A sealed but corrupt hint. */
	h[8] = 7;
	fd = tc_memfd("hint", h, len, ALL_SEALS);
	assert_int_equal(uie_fastpath_open(&fp, fd, len), UIE_E_VERSION);
	assert_null(fp.map);
	close(fd);
	free(h);
}

/*
 * What the interceptor does: a definite miss is refused (and reported),
 * everything else is decided by the monitor.
 */
static uint8_t guest_decision(struct pt_core *pc, const struct uie_fastpath *fp, const uint8_t d[32])
{
	struct uie_req req = { .event = UIE_EV_EXECVE, .role = UIE_ROLE_MAIN, .pid = 7 };
	struct uie_digest x = dig(d);
	struct uie_verdict v;

	if (uie_fastpath_definite_miss(fp, &x)) {
		assert_int_equal(uie_core_log_fastpath(&pc->core, &req, &x), UIE_OK);
		return UIE_DENY;
	}
	assert_int_equal(uie_core_decide(&pc->core, &req, UIE_OK, &x, UIE_SCOPE_ELF, &v), UIE_OK);
	return v.decision;
}

static void test_forged_hint_cannot_allow(void **state)
{
	struct pt_core pc;
	EVP_PKEY *key;
	uint8_t table[256], *pkg, *h, denied[32] = { 0xc3 };
	size_t tlen, plen, hlen;
	int forgeries = 0;

	(void)state;
	pt_core_init(&pc);
	key = pt_key(&pc, true);
	tlen = pt_table(table, sizeof(table), UIE_MODE_ENFORCE, UIE_DENY, allowed, 1);
	pkg = pt_package(&pc, key, table, tlen, 1, true, &plen);
	assert_int_equal(uie_package_install(&pc.core, pkg, plen, pt_pcr_at, &pc), UIE_OK);
	h = hint_of(allowed, 1, &hlen);
	for (int kind = 0; kind < 5; kind++) {
		uint8_t *f = malloc(hlen);
		struct uie_fastpath fp;
		int fd, r;

		memcpy(f, h, hlen);
		if (kind == 0)
			memset(f + UIE_BLOOM_HDR_LEN, 0x00, hlen - UIE_BLOOM_HDR_LEN); /* says: miss */
		else if (kind == 1)
			memset(f + UIE_BLOOM_HDR_LEN, 0xff, hlen - UIE_BLOOM_HDR_LEN); /* says: hit */
		else if (kind == 2)
			for (size_t i = UIE_BLOOM_HDR_LEN; i < hlen; i++)
				f[i] = (uint8_t)rand();
		else if (kind == 3)
			f[10] = 0x0c; /* claims SHA-384 keys */
		else
			memset(f, 0x5a, hlen); /* not a hint at all */
		fd = tc_memfd("hint", f, hlen, ALL_SEALS);
		r = uie_fastpath_open(&fp, fd, hlen);
		close(fd);
		if (r == UIE_OK)
			make_current(&fp);
		forgeries += r == UIE_OK;
		/* Whatever the hint says, the unlisted and denied objects never run. */
		assert_int_equal(guest_decision(&pc, &fp, unlisted), UIE_DENY);
		assert_int_equal(guest_decision(&pc, &fp, denied), UIE_DENY);
		/* The allowed one may at worst be refused early (costs availability only). */
		if (kind == 0)
			assert_int_equal(guest_decision(&pc, &fp, allowed[0]), UIE_DENY);
		else if (kind != 2) /* random bits may say either */
			assert_int_equal(guest_decision(&pc, &fp, allowed[0]), UIE_ALLOW);
		uie_fastpath_close(&fp);
		free(f);
	}
	assert_int_equal(forgeries, 4); /* the first four parse; only their bits lie */
	free(h);
	free(pkg);
	EVP_PKEY_free(key);
	pt_core_fini(&pc);
}

static void test_report_is_logged(void **state)
{
	struct pt_core pc;
	struct uie_fastpath fp;
	struct uie_log_record rec;
	size_t hlen;
	uint8_t *h = hint_of(allowed, 1, &hlen);
	int fd;

	(void)state;
	pt_core_init(&pc);
	fd = tc_memfd("hint", h, hlen, ALL_SEALS);
	assert_int_equal(uie_fastpath_open(&fp, fd, hlen), UIE_OK);
	make_current(&fp);
	close(fd);
	assert_int_equal(guest_decision(&pc, &fp, unlisted), UIE_DENY);
	assert_int_equal(uie_log_decode(pc.recs[pc.n - 1], UIE_LOG_RECORD_LEN, &rec), UIE_OK);
	assert_int_equal(rec.event_type, UIE_LOG_FASTPATH_REJECT);
	assert_int_equal(rec.reason, UIE_R_FASTPATH_MISS);
	assert_memory_equal(rec.digest.bytes, unlisted, 32);
	uie_fastpath_close(&fp);
	free(h);
	pt_core_fini(&pc);
}

/*
 * The fast path decides only on digests the monitor reported for the very
 * same request key; a first sight, a changed file or anonymous memory go
 * to the monitor.
 */
static void test_learns_from_monitor(void **state)
{
	struct uie_fastpath fp;
	struct uie_digest d, bad = dig(unlisted), ok = dig(allowed[0]);
	struct uie_req req = { .event = UIE_EV_MMAP_EXEC,
			       .role = UIE_ROLE_DSO,
			       .length = 4096,
			       .id = { .dev = 8, .ino = 1234, .size = 8192, .mtime_ns = 5, .ctime_ns = 6 } };
	size_t hlen;
	uint8_t *h = hint_of(allowed, 1, &hlen);
	int hfd = tc_memfd("hint", h, hlen, ALL_SEALS);

	(void)state;
	assert_int_equal(uie_fastpath_open(&fp, hfd, hlen), UIE_OK);
	make_current(&fp);
	close(hfd);
	/* Never seen: the monitor's call (and nothing to report). */
	assert_false(uie_fastpath_check_known(&fp, &req, &d));
	assert_int_equal(d.alg, 0);
	/* The monitor reported a digest the hint does not hold: refused from now on. */
	uie_fastpath_learn(&fp, &req, &bad);
	assert_true(uie_fastpath_check_known(&fp, &req, &d));
	assert_memory_equal(d.bytes, unlisted, 32);
	/* The same file with any identity field changed is a new object. */
	req.id.ctime_ns++;
	assert_false(uie_fastpath_check_known(&fp, &req, &d));
	req.id.ctime_ns--;
	req.file_offset = 4096; /* another range of it, too */
	assert_false(uie_fastpath_check_known(&fp, &req, &d));
	req.file_offset = 0;
	/* An allowed digest is a hit: the monitor decides. */
	uie_fastpath_learn(&fp, &req, &ok);
	assert_false(uie_fastpath_check_known(&fp, &req, &d));
	/* A digest of another algorithm than the hint's is not remembered. */
	bad.alg = UIE_HASH_SHA384;
	bad.len = UIE_SHA384_LEN;
	uie_fastpath_learn(&fp, &req, &bad);
	assert_false(uie_fastpath_check_known(&fp, &req, &d));
	/* Anonymous memory is always the monitor's call. */
	req.role = UIE_ROLE_ANON;
	uie_fastpath_learn(&fp, &req, &ok);
	assert_false(uie_fastpath_check_known(&fp, &req, &d));
	uie_fastpath_close(&fp);
	/* Without a hint nothing is remembered or refused. */
	req.role = UIE_ROLE_DSO;
	uie_fastpath_learn(&fp, &req, &ok);
	assert_false(uie_fastpath_check_known(&fp, &req, &d));
	free(h);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_open_requires_seals),
	cmocka_unit_test(test_forged_hint_cannot_allow), cmocka_unit_test(test_report_is_logged),
	cmocka_unit_test(test_learns_from_monitor))
