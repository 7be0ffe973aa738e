/* SPDX-License-Identifier: Apache-2.0 */
/* The monitor's log store: the chain it keeps, its vTPM extends, its refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_platform.h"
#include "logstore.h"
#include "uie/err.h"
#include "vtpm.h"
#include "tcommon.h"

static void make_rec(const struct uie_platform *pl, uint64_t seq, uint8_t out[UIE_LOG_RECORD_LEN])
{
	struct uie_log_record rec = {
		.seq = seq,
		.pcr_index = UIE_LOG_PCR_INDEX,
		.event_type = UIE_LOG_EXECVE,
		.role = UIE_ROLE_MAIN,
		.pid = (uint32_t)(100 + seq),
		.mode = UIE_MODE_BOOTSTRAP,
		.decision = UIE_ALLOW,
		.reason = UIE_R_BOOTSTRAP,
		.scope = UIE_SCOPE_ELF,
	};

	rec.digest.alg = UIE_HASH_SHA256;
	rec.digest.len = UIE_SHA256_LEN;
	memset(rec.digest.bytes, (int)seq, UIE_SHA256_LEN);
	assert_int_equal(uie_log_encode(pl, &rec, out), UIE_OK);
}

static void test_chain_and_pcr_at(void **state)
{
	struct uie_host_platform hp;
	struct uie_logstore ls;
	uint8_t rec[UIE_LOG_RECORD_LEN], pcr[UIE_PCR_LEN], want[UIE_PCR_LEN] = { 0 };
	uint64_t n;

	(void)state;
	assert_int_equal(uie_host_platform_init(&hp), UIE_OK);
	uie_logstore_init(&ls, &hp.pl, NULL, 0);
	assert_int_equal(uie_logstore_pcr_at(&ls, 0, pcr), UIE_OK);
	assert_memory_equal(pcr, want, UIE_PCR_LEN);
	for (uint64_t i = 0; i < 3000; i++) { /* crosses several growths */
		make_rec(&hp.pl, i, rec);
		assert_int_equal(uie_logstore_append(&ls, rec, rec + UIE_LOG_BODY_LEN), UIE_OK);
		assert_int_equal(uie_pcr_extend(&hp.pl, want, rec + UIE_LOG_BODY_LEN), UIE_OK);
		assert_int_equal(uie_logstore_pcr_at(&ls, i + 1, pcr), UIE_OK);
		assert_memory_equal(pcr, want, UIE_PCR_LEN);
	}
	assert_int_equal(uie_logstore_count(&ls), 3000);
	assert_int_equal(uie_logstore_pcr_at(&ls, 3001, pcr), UIE_E_RANGE);
	/* the stored bytes replay to the same value */
	{
		const uint8_t *recs = uie_logstore_records(&ls, 0, &n);
		uint8_t replay[UIE_PCR_LEN] = { 0 };
		uint64_t bad = 0;

		assert_int_equal(n, 3000);
		assert_int_equal(uie_log_replay(&hp.pl, recs, n * UIE_LOG_RECORD_LEN, 0, replay, &bad),
				 UIE_OK);
		assert_memory_equal(replay, want, UIE_PCR_LEN);
		assert_non_null(uie_logstore_records(&ls, 2999, &n));
		assert_int_equal(n, 1);
		assert_null(uie_logstore_records(&ls, 3000, &n));
		assert_int_equal(n, 0);
	}
	uie_logstore_fini(&ls);
	uie_host_platform_fini(&hp);
}

static void test_refusals_change_nothing(void **state)
{
	struct uie_host_platform hp;
	struct uie_logstore ls;
	uint8_t rec[UIE_LOG_RECORD_LEN], lrh[UIE_PCR_LEN], before[UIE_PCR_LEN], after[UIE_PCR_LEN];

	(void)state;
	assert_int_equal(uie_host_platform_init(&hp), UIE_OK);
	uie_logstore_init(&ls, &hp.pl, NULL, 2);
	make_rec(&hp.pl, 0, rec);
	assert_int_equal(uie_logstore_append(&ls, rec, rec + UIE_LOG_BODY_LEN), UIE_OK);
	assert_int_equal(uie_logstore_pcr_at(&ls, 1, before), UIE_OK);
	/* an LRH that is not the record's */
	make_rec(&hp.pl, 1, rec);
	memcpy(lrh, rec + UIE_LOG_BODY_LEN, UIE_PCR_LEN);
	lrh[0] ^= 1;
	assert_int_equal(uie_logstore_append(&ls, rec, lrh), UIE_E_INVAL);
	/* a record whose body was altered after its LRH was computed */
	rec[30] ^= 1;
	assert_int_equal(uie_logstore_append(&ls, rec, rec + UIE_LOG_BODY_LEN), UIE_E_INVAL);
	rec[30] ^= 1;
	assert_int_equal(uie_logstore_count(&ls), 1);
	assert_int_equal(uie_logstore_append(&ls, rec, rec + UIE_LOG_BODY_LEN), UIE_OK);
	/* the bound */
	make_rec(&hp.pl, 2, rec);
	assert_int_equal(uie_logstore_pcr_at(&ls, 2, before), UIE_OK);
	assert_int_equal(uie_logstore_append(&ls, rec, rec + UIE_LOG_BODY_LEN), UIE_E_LIMIT);
	assert_int_equal(uie_logstore_count(&ls), 2);
	assert_int_equal(uie_logstore_pcr_at(&ls, 2, after), UIE_OK);
	assert_memory_equal(before, after, UIE_PCR_LEN);
	uie_logstore_fini(&ls);
	uie_host_platform_fini(&hp);
}

/* With a real (built-in) vTPM, its PCR 16 follows the store, starting with the core's first record. */
static void test_vtpm_follows(void **state)
{
	char dir[] = "/tmp/uie-logstore-XXXXXX", spec[128], key[96];
	struct uie_host_platform hp;
	struct uie_logstore ls;
	struct uie_log_sink sink;
	struct uie_core core;
	struct uie_vtpm *tpm = NULL;
	uint8_t rec[UIE_LOG_RECORD_LEN], mine[UIE_PCR_LEN], tpms[UIE_PCR_LEN];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(key, sizeof(key), "%s/ak.pem", dir);
	snprintf(spec, sizeof(spec), "builtin:%s", key);
	assert_int_equal(uie_host_platform_init(&hp), UIE_OK);
	assert_int_equal(uie_vtpm_open(spec, &tpm), UIE_OK);
	uie_logstore_init(&ls, &hp.pl, tpm, 0);
	sink = uie_logstore_sink(&ls);
	assert_int_equal(uie_core_init(&core, &hp.pl, &sink, UIE_HASH_SHA256), UIE_OK);
	assert_int_equal(uie_logstore_count(&ls), 1);
	for (uint64_t i = 1; i < 5; i++) {
		make_rec(&hp.pl, i, rec);
		assert_int_equal(uie_logstore_append(&ls, rec, rec + UIE_LOG_BODY_LEN), UIE_OK);
	}
	assert_int_equal(uie_logstore_pcr_at(&ls, 5, mine), UIE_OK);
	assert_int_equal(uie_vtpm_read_pcr16(tpm, tpms), UIE_OK);
	assert_memory_equal(mine, tpms, UIE_PCR_LEN);
	uie_logstore_fini(&ls);
	uie_vtpm_free(tpm);
	uie_host_platform_fini(&hp);
	unlink(key);
	rmdir(dir);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_chain_and_pcr_at), cmocka_unit_test(test_refusals_change_nothing),
	cmocka_unit_test(test_vtpm_follows))
