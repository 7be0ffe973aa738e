/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor's request handling, driven through uie_mon_handle as the
 * daemon drives it: the measurement cache (hashes counted through the
 * platform), hostile messages (error answer, no state change, descriptors
 * closed), objects that cannot be measured, and evidence export.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "credential.h"
#include "evidence.h"
#include "fdpass.h"
#include "mon_fixture.h"
#include "uie/err.h"
#include "vtpm.h"
#include "tcommon.h"

struct fixture {
	struct mon_fixture mf;        /* first: the counting platform's ctx is the fixture */
	struct uie_platform counting; /* mf.hp.pl with hash_begin counted */
};

static unsigned hash_begins;

static int counting_begin(void *pctx, uint16_t alg, void **h)
{
	struct fixture *f = pctx;

	hash_begins++;
	return f->mf.hp.pl.hash.begin(&f->mf.hp, alg, h);
}

static int counting_update(void *pctx, void *h, const void *p, size_t n)
{
	struct fixture *f = pctx;

	return f->mf.hp.pl.hash.update(&f->mf.hp, h, p, n);
}

static int counting_end(void *pctx, void *h, uint8_t *out)
{
	struct fixture *f = pctx;

	return f->mf.hp.pl.hash.end(&f->mf.hp, h, out);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	mon_fixture_open(&f->mf, "/tmp/uie-monitor-test-XXXXXX");
	f->counting = f->mf.hp.pl;
	f->counting.ctx = f;
	f->counting.hash = (struct uie_hash_ops){ counting_begin, counting_update, counting_end };
	assert_int_equal(uie_mon_init(&f->mf.m, &f->counting, f->mf.tpm, NULL), UIE_OK);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	mon_fixture_stop(&f->mf);
	free(f);
	return 0;
}

/* Sends q (with fd) through the monitor; returns the decoded answer and its fd. */
static struct uie_wire_msg decode_ans(const uint8_t *ans, size_t alen)
{
	struct uie_wire_msg a;

	assert_int_equal(uie_bridge_decode(ans, alen, &a), UIE_OK);
	return a;
}

static struct uie_wire_msg call(struct fixture *f, struct uie_wire_msg *q, int fd, int *ansfd)
{
	return mon_fixture_call(&f->mf.m, q, fd, ansfd);
}

static struct uie_verdict measure(struct fixture *f, uint16_t event, uint8_t role, int fd, uint64_t off,
				  uint64_t len)
{
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_REQ }, a;

	q.u.measure_req = (struct uie_msg_measure_req){ event, role, 0, 1234, 0x400000, len, off, 0 };
	a = call(f, &q, fd, NULL);
	assert_int_equal(a.status, UIE_OK);
	return a.u.measure_ans;
}

static int open_copy(struct fixture *f, const char *name, const char *src, char *path)
{
	char cmd[256];

	snprintf(path, 128, "%s/%s", f->mf.dir, name);
	snprintf(cmd, sizeof(cmd), "cp %s %s", src, path);
	assert_int_equal(system(cmd), 0);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void test_elf_hashed_once(void **state)
{
	struct fixture *f = *state;
	struct uie_verdict v1, v2, v3;
	char path[128];
	unsigned first;
	int fd = open_copy(f, "true", "/bin/true", path);

	assert_true(fd >= 0);
	hash_begins = 0;
	v1 = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, dup(fd), 0, 0);
	first = hash_begins;
	assert_true(first > 2); /* the object digest, plus the record's LRH and extend */
	assert_int_equal(v1.scope, UIE_SCOPE_ELF);
	assert_int_equal(v1.reason, UIE_R_BOOTSTRAP);
	assert_int_equal(v1.decision, UIE_ALLOW);
	/* same file, another descriptor: no object hashing, only the new record's hashes */
	hash_begins = 0;
	v2 = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, open(path, O_RDONLY | O_CLOEXEC), 0, 0);
	assert_true(hash_begins < first);
	assert_memory_equal(&v2.digest, &v1.digest, sizeof(v1.digest));
	assert_int_equal(v2.seq, v1.seq + 1);
	/* a DSO-style request on the same file is a different range class */
	hash_begins = 0;
	v3 = measure(f, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, dup(fd), 0, 4096);
	assert_true(hash_begins > 2);
	(void)v3;
	assert_true(f->mf.m.cache->hits >= 1);
	close(fd);
}

/* A script exec'd as MAIN is measured whole: content changes show in the digest. */
static void test_change_forces_remeasure(void **state)
{
	struct fixture *f = *state;
	struct uie_verdict base, v;
	struct timespec keep[2];
	struct stat st;
	char path[128];
	unsigned cold, warm;
	int fd;

	snprintf(path, sizeof(path), "%s/script", f->mf.dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\necho one\n", 19), 19);
	hash_begins = 0;
	base = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, dup(fd), 0, 0);
	cold = hash_begins;
	assert_int_equal(base.scope, UIE_SCOPE_RANGE);
	hash_begins = 0;
	v = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, dup(fd), 0, 0);
	warm = hash_begins;
	assert_true(warm < cold);
	assert_memory_equal(&v.digest, &base.digest, sizeof(v.digest));

	/* same size, one byte changed, mtime put back: ctime still moves */
	assert_int_equal(fstat(fd, &st), 0);
	keep[0] = st.st_atim;
	keep[1] = st.st_mtim;
	assert_int_equal(pwrite(fd, "two", 3, 15), 3);
	assert_int_equal(futimens(fd, keep), 0);
	hash_begins = 0;
	v = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, dup(fd), 0, 0);
	assert_int_equal(hash_begins, cold);
	assert_memory_not_equal(v.digest.bytes, base.digest.bytes, UIE_SHA256_LEN);

	/* metadata only: chmod moves ctime, touching mtime moves both */
	hash_begins = 0;
	assert_int_equal(fchmod(fd, 0700), 0);
	(void)measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, dup(fd), 0, 0);
	assert_int_equal(hash_begins, cold);
	hash_begins = 0;
	assert_int_equal(futimens(fd, NULL), 0);
	(void)measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, dup(fd), 0, 0);
	assert_int_equal(hash_begins, cold);
	/* unchanged again: warm */
	hash_begins = 0;
	(void)measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, dup(fd), 0, 0);
	assert_int_equal(hash_begins, warm);
	close(fd);
}

static void test_cache_bounded(void **state)
{
	struct uie_cache *c = malloc(sizeof(*c));
	struct uie_file_id id = { 1, 0, 100, 5, 6 };
	struct uie_digest d = { UIE_HASH_SHA256, 32, { 0 } }, out;
	struct uie_cache_key k;
	unsigned hits = 0;
	uint8_t scope;

	(void)state;
	assert_non_null(c);
	uie_cache_init(c);
	for (uint64_t i = 0; i < 16384; i++) {
		id.ino = i;
		uie_cache_key_make(&k, &id, UIE_HASH_SHA256, UIE_EV_EXECVE, 0, 0);
		uie_cache_put(c, &k, &d, UIE_SCOPE_ELF);
	}
	for (uint64_t i = 0; i < 16384; i++) {
		id.ino = i;
		uie_cache_key_make(&k, &id, UIE_HASH_SHA256, UIE_EV_EXECVE, 0, 0);
		hits += uie_cache_get(c, &k, &out, &scope);
	}
	assert_true(hits <= UIE_CACHE_SETS * UIE_CACHE_WAYS);
	assert_true(uie_cache_get(c, &k, &out, &scope)); /* the latest entry survives */
	/* any field of the identity, the algorithm or the range class misses */
	id.ino = 16383;
	uie_cache_key_make(&k, &id, UIE_HASH_SHA384, UIE_EV_EXECVE, 0, 0);
	assert_false(uie_cache_get(c, &k, &out, &scope));
	uie_cache_key_make(&k, &id, UIE_HASH_SHA256, UIE_EV_MMAP_EXEC, 0, 0);
	assert_false(uie_cache_get(c, &k, &out, &scope));
	id.ctime_ns++;
	uie_cache_key_make(&k, &id, UIE_HASH_SHA256, UIE_EV_EXECVE, 0, 0);
	assert_false(uie_cache_get(c, &k, &out, &scope));
	free(c);
}

/*
 * A file with fs-verity is keyed by its fs-verity digest: another file
 * (other identity) with that digest and size hits; another digest, size,
 * algorithm or range misses.
 */
static void test_cache_verity(void **state)
{
	struct uie_cache *c = malloc(sizeof(*c));
	struct uie_file_id id = { 1, 2, 100, 5, 6 };
	struct uie_verity v = { .alg = 1, .len = 32 };
	struct uie_digest d = { UIE_HASH_SHA256, 32, { 7 } }, out;
	struct uie_cache_key k;
	uint8_t scope;

	(void)state;
	assert_non_null(c);
	uie_cache_init(c);
	memset(v.digest, 0x5a, 32);
	uie_cache_key_make(&k, &id, UIE_HASH_SHA256, UIE_EV_EXECVE, 0, 0);
	uie_cache_key_verity(&k, &v);
	uie_cache_put(c, &k, &d, UIE_SCOPE_ELF);
	id = (struct uie_file_id){ 9, 99, 100, 55, 66 }; /* a copy elsewhere, written later */
	uie_cache_key_make(&k, &id, UIE_HASH_SHA256, UIE_EV_EXECVE, 0, 0);
	assert_false(uie_cache_get(c, &k, &out, &scope)); /* by identity: not the same file */
	uie_cache_key_verity(&k, &v);
	assert_true(uie_cache_get(c, &k, &out, &scope));
	assert_memory_equal(&out, &d, sizeof(d));
	v.digest[31] ^= 1;
	uie_cache_key_make(&k, &id, UIE_HASH_SHA256, UIE_EV_EXECVE, 0, 0);
	uie_cache_key_verity(&k, &v);
	assert_false(uie_cache_get(c, &k, &out, &scope));
	v.digest[31] ^= 1;
	id.size = 101;
	uie_cache_key_make(&k, &id, UIE_HASH_SHA256, UIE_EV_EXECVE, 0, 0);
	uie_cache_key_verity(&k, &v);
	assert_false(uie_cache_get(c, &k, &out, &scope));
	id.size = 100;
	uie_cache_key_make(&k, &id, UIE_HASH_SHA256, UIE_EV_MMAP_EXEC, 0, 4096);
	uie_cache_key_verity(&k, &v);
	assert_false(uie_cache_get(c, &k, &out, &scope));
	free(c);
}

static void test_unmeasurable_objects(void **state)
{
	struct fixture *f = *state;
	struct uie_verdict v;
	int p[2], mfd, d;
	char path[128];

	/* anonymous memory: no descriptor, reason ANON_EXEC */
	v = measure(f, UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON, -1, 0, 4096);
	assert_int_equal(v.policy_decision, UIE_DENY);
	assert_int_equal(v.reason, UIE_R_ANON_EXEC);
	/* a memfd is fileless */
	mfd = tc_memfd("payload", "\177ELF", 4, 0);
	v = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, mfd, 0, 0);
	assert_int_equal(v.reason, UIE_R_FILELESS);
	assert_int_equal(v.policy_decision, UIE_DENY);
	assert_int_equal(v.scope, UIE_SCOPE_NONE);
	/* a pipe, a directory, an O_PATH and a write-only descriptor cannot be measured */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	v = measure(f, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, p[0], 0, 4096);
	assert_int_equal(v.reason, UIE_R_MEASURE_FAIL);
	close(p[1]);
	v = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, open(f->mf.dir, O_RDONLY | O_DIRECTORY), 0, 0);
	assert_int_equal(v.reason, UIE_R_MEASURE_FAIL);
	d = open_copy(f, "t2", "/bin/true", path);
	close(d);
	v = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, open(path, O_PATH | O_CLOEXEC), 0, 0);
	assert_int_equal(v.reason, UIE_R_MEASURE_FAIL);
	v = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, open(path, O_WRONLY | O_CLOEXEC), 0, 0);
	assert_int_equal(v.reason, UIE_R_MEASURE_FAIL);
	/* a malformed ELF */
	d = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	assert_int_equal(write(d,
			       "\x7f"
			       "ELF\x02\x01\x01",
			       7),
			 7);
	close(d);
	v = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, open(path, O_RDONLY | O_CLOEXEC), 0, 0);
	assert_int_equal(v.reason, UIE_R_MEASURE_FAIL);
	assert_int_equal(v.policy_decision, UIE_DENY);
}

static struct uie_verdict measure_anon(struct fixture *f, int progfd, uint64_t len)
{
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_REQ }, a;

	q.u.measure_req = (struct uie_msg_measure_req){
		UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON, UIE_BRIDGE_REQ_PROGRAM, 1234, 0x7f0000000000, len, 0, 0
	};
	a = call(f, &q, progfd, NULL);
	assert_int_equal(a.status, UIE_OK);
	return a.u.measure_ans;
}

/*
 * Anonymous memory with its process's program: the program's object digest
 * is recorded (one cache entry whatever range is asked about, shared with
 * the program's exec), a program that is not ELF or not measurable names
 * none, and bootstrap still denies (JIT rules need a policy).
 */
static void test_anon_with_program(void **state)
{
	struct fixture *f = *state;
	struct uie_verdict exec, v;
	char path[128];
	unsigned first;
	int fd = open_copy(f, "prog", "/bin/true", path), s;

	assert_true(fd >= 0);
	exec = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, dup(fd), 0, (uint64_t)lseek(fd, 0, SEEK_END));
	hash_begins = 0;
	v = measure_anon(f, dup(fd), 4096);
	first = hash_begins;
	assert_int_equal(v.scope, UIE_SCOPE_ELF);
	assert_memory_equal(&v.digest, &exec.digest, sizeof(v.digest));
	assert_int_equal(v.reason, UIE_R_ANON_EXEC);
	assert_int_equal(v.policy_decision, UIE_DENY);
	hash_begins = 0;
	v = measure_anon(f, dup(fd), 1 << 20); /* another range: the same entry */
	assert_int_equal(hash_begins, first);
	assert_memory_equal(&v.digest, &exec.digest, sizeof(v.digest));
	/* the cached ELF digest is not a script's */
	v = measure(f, UIE_EV_EXECVE, UIE_ROLE_SCRIPT, dup(fd), 0, (uint64_t)lseek(fd, 0, SEEK_END));
	assert_int_equal(v.reason, UIE_R_MEASURE_FAIL);
	assert_int_equal(v.scope, UIE_SCOPE_NONE);
	close(fd);
	/* a script as the program: nothing measured, still ANON_EXEC (never MEASURE_FAIL) */
	s = open_copy(f, "script", "/usr/bin/ldd", path);
	v = measure(f, UIE_EV_EXECVE, UIE_ROLE_SCRIPT, dup(s), 0, (uint64_t)lseek(s, 0, SEEK_END));
	assert_int_equal(v.scope, UIE_SCOPE_RANGE);
	v = measure_anon(f, s, 4096);
	assert_int_equal(v.scope, UIE_SCOPE_NONE);
	assert_int_equal(v.reason, UIE_R_ANON_EXEC);
	/* PROGRAM without a descriptor is out of protocol */
	{
		struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_REQ }, a;

		q.u.measure_req = (struct uie_msg_measure_req){
			UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON, UIE_BRIDGE_REQ_PROGRAM, 1, 0, 4096, 0, 0
		};
		a = call(f, &q, -1, NULL);
		assert_true(a.status < 0);
	}
}

/* A memfd sealed against writes, shrinking and growing is measured like a file. */
static void test_sealed_memfd(void **state)
{
	struct fixture *f = *state;
	struct uie_verdict v, file;
	char path[128];
	int fd = open_copy(f, "t3", "/bin/true", path), mfd;
	off_t size = lseek(fd, 0, SEEK_END);

	file = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, dup(fd), 0, (uint64_t)size);
	mfd = memfd_create("sealed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(mfd >= 0);
	assert_int_equal(sendfile(mfd, fd, &(off_t){ 0 }, (size_t)size), size);
	close(fd);
	/* write and shrink sealed, growing still possible: fileless */
	assert_int_equal(fcntl(mfd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK), 0);
	v = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, dup(mfd), 0, (uint64_t)size);
	assert_int_equal(v.reason, UIE_R_FILELESS);
	assert_int_equal(fcntl(mfd, F_ADD_SEALS, F_SEAL_GROW), 0);
	v = measure(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, mfd, 0, (uint64_t)size);
	assert_int_equal(v.scope, UIE_SCOPE_ELF);
	assert_memory_equal(&v.digest, &file.digest, sizeof(v.digest));
}

struct snapshot {
	uint64_t seq, nlog;
	uint8_t vpcr[UIE_PCR_LEN];
	uint8_t mode;
	uint64_t epoch;
};

static struct snapshot snap(const struct fixture *f)
{
	struct snapshot s;

	memset(&s, 0, sizeof(s)); /* padding too: snapshots are compared bytewise */
	s.seq = f->mf.m.core.next_seq;
	s.nlog = uie_logstore_count(&f->mf.m.log);
	s.mode = f->mf.m.core.mode;
	s.epoch = f->mf.m.core.epoch;
	memcpy(s.vpcr, f->mf.m.core.vpcr, UIE_PCR_LEN);
	return s;
}

/* Raw bytes through the monitor: an error answer, and nothing else changes. */
static int raw(struct fixture *f, const uint8_t *msg, size_t len, int fd, uint16_t *type)
{
	uint8_t ans[UIE_BRIDGE_MAX_MSG];
	struct snapshot before = snap(f), after;
	struct uie_wire_msg a;
	size_t alen;
	int afd;

	uie_mon_handle(&f->mf.m, msg, len, fd, ans, &alen, &afd);
	assert_int_equal(afd, -1);
	assert_int_equal(uie_bridge_decode(ans, alen, &a), UIE_OK);
	assert_int_equal(alen, UIE_BRIDGE_ERROR_ANS_LEN);
	after = snap(f);
	assert_memory_equal(&before, &after, sizeof(before));
	*type = a.type;
	return a.status;
}

static void test_hostile_messages(void **state)
{
	struct fixture *f = *state;
	struct uie_wire_msg q = { .type = UIE_MSG_STATUS_REQ, .request_id = 5 };
	uint8_t good[UIE_BRIDGE_MAX_MSG], b[UIE_BRIDGE_MAX_MSG];
	size_t len;
	uint16_t type;
	int fd;

	assert_int_equal(uie_bridge_encode(&q, good, sizeof(good), &len), UIE_OK);
	srand(1);
	for (int i = 0; i < 200; i++) {
		size_t n = (size_t)rand() % 200;

		for (size_t j = 0; j < n; j++)
			b[j] = (uint8_t)rand();
		assert_true(raw(f, b, n, -1, &type) < 0);
		assert_int_equal(type, UIE_MSG_ERROR_ANS);
	}
	assert_int_equal(raw(f, good, 10, -1, &type), UIE_E_TRUNCATED);
	memcpy(b, good, len);
	b[4] = 9;
	assert_int_equal(raw(f, b, len, -1, &type), UIE_E_VERSION);
	assert_int_equal(type, UIE_MSG_ERROR_ANS);
	memcpy(b, good, len);
	b[6] = 0x7e; /* unknown type */
	assert_int_equal(raw(f, b, len, -1, &type), UIE_E_FORMAT);
	{
		/* a well-formed answer sent to the monitor */
		struct uie_wire_msg ansmsg = { .type = UIE_MSG_FASTPATH_ANS,
					       .request_id = 3,
					       .u.fastpath_ans = { 1, 0 } };
		size_t alen;

		assert_int_equal(uie_bridge_encode(&ansmsg, b, sizeof(b), &alen), UIE_OK);
		assert_int_equal(raw(f, b, alen, -1, &type), UIE_E_FORMAT);
		assert_int_equal(type, UIE_MSG_ERROR_ANS);
	}

	/* a descriptor where none belongs is closed, and the request refused */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_int_equal(raw(f, good, len, fd, &type), UIE_E_FORMAT);
	assert_int_equal(type, UIE_MSG_STATUS_ANS);
	errno = 0;
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);

	/* a file request without its descriptor, an anonymous one with one */
	q.type = UIE_MSG_MEASURE_REQ;
	q.u.measure_req = (struct uie_msg_measure_req){ UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, 0, 1, 2, 3, 4, 0 };
	assert_int_equal(uie_bridge_encode(&q, b, sizeof(b), &len), UIE_OK);
	assert_int_equal(raw(f, b, len, -1, &type), UIE_E_FORMAT);
	assert_int_equal(type, UIE_MSG_MEASURE_ANS);
	q.u.measure_req.role = UIE_ROLE_ANON;
	assert_int_equal(uie_bridge_encode(&q, b, sizeof(b), &len), UIE_OK);
	assert_int_equal(raw(f, b, len, open("/dev/null", O_RDONLY | O_CLOEXEC), &type), UIE_E_FORMAT);

	/* a message the socket layer found oversized */
	uie_mon_refuse(&f->mf.m, good, len, UIE_E_LIMIT, b, &len);
	{
		struct uie_wire_msg a;

		assert_int_equal(uie_bridge_decode(b, len, &a), UIE_OK);
		assert_int_equal(a.status, UIE_E_LIMIT);
	}
}

static void test_install_bad_packages(void **state)
{
	struct fixture *f = *state;
	struct uie_wire_msg q = { .type = UIE_MSG_INSTALL_REQ }, a;
	static const uint8_t junk[100] = { 'U', 'I', 'E' };
	struct snapshot before = snap(f), after;
	uint16_t type;
	uint8_t msg[UIE_BRIDGE_MAX_MSG];
	size_t len;
	int fd;

	/* unsealed memfd: refused before the package is looked at */
	fd = tc_memfd("pkg", junk, sizeof(junk), 0);
	q.u.install_req_len = sizeof(junk);
	q.request_id = 1;
	assert_int_equal(uie_bridge_encode(&q, msg, sizeof(msg), &len), UIE_OK);
	assert_int_equal(raw(f, msg, len, fd, &type), UIE_E_FORMAT);
	/* sealed, but the announced size is wrong */
	assert_int_equal(uie_memfd_create_sealed("pkg", junk, sizeof(junk), &fd), UIE_OK);
	q.u.install_req_len = sizeof(junk) + 1;
	assert_int_equal(uie_bridge_encode(&q, msg, sizeof(msg), &len), UIE_OK);
	assert_int_equal(raw(f, msg, len, fd, &type), UIE_E_FORMAT);
	/* sealed and sized, but not a package: rejected (and that is logged), mode unchanged */
	assert_int_equal(uie_memfd_create_sealed("pkg", junk, sizeof(junk), &fd), UIE_OK);
	q.u.install_req_len = sizeof(junk);
	a = call(f, &q, fd, NULL);
	assert_int_equal(a.status, UIE_OK);
	assert_true(a.u.install_ans.result < 0);
	assert_int_equal(a.u.install_ans.mode, UIE_MODE_BOOTSTRAP);
	after = snap(f);
	assert_int_equal(after.mode, before.mode);
	assert_int_equal(after.epoch, before.epoch);
	assert_null(f->mf.m.pkg);
	assert_int_equal(uie_genpage_load(f->mf.m.gen.map), 0); /* a rejected package moves nothing */
}

static void test_status_hint_gen(void **state)
{
	struct fixture *f = *state;
	struct uie_wire_msg q = { .type = UIE_MSG_STATUS_REQ }, a;
	uint64_t n;
	int afd;

	a = call(f, &q, -1, NULL);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(a.u.status_ans.mode, UIE_MODE_BOOTSTRAP);
	n = a.u.status_ans.nrecords;
	assert_int_equal(n, uie_logstore_count(&f->mf.m.log));
	assert_memory_equal(a.u.status_ans.vpcr, f->mf.m.core.vpcr, UIE_PCR_LEN);
	q.type = UIE_MSG_HINT_REQ;
	a = call(f, &q, -1, &afd);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(afd, -1);
	assert_int_equal(a.u.blob_ans.len, 0);
	/* The generation page: sealed, one page, generation 0 (the bootstrap epoch). */
	q.type = UIE_MSG_GEN_REQ;
	a = call(f, &q, -1, &afd);
	assert_int_equal(a.status, UIE_OK);
	assert_true(afd >= 0);
	assert_int_equal(a.u.blob_ans.len, UIE_GENPAGE_LEN);
	assert_int_equal(a.u.blob_ans.epoch, 0);
	{
		const uint8_t *page;

		assert_int_equal(uie_genpage_map(afd, a.u.blob_ans.len, &page), UIE_OK);
		close(afd);
		assert_int_equal(uie_genpage_load(page), 0);
		uie_genpage_set(&f->mf.m.gen, 9); /* what an install does: seen through the page */
		assert_int_equal(uie_genpage_load(page), 9);
		uie_genpage_set(&f->mf.m.gen, 0);
		uie_genpage_unmap(page);
	}
}

/* Sends a FASTPATH_REQ announcing count entries with the given memfd contents. */
static struct uie_wire_msg report(struct fixture *f, uint32_t count, const uint8_t *entries, size_t len,
				  bool sealed, uint64_t epoch)
{
	struct uie_wire_msg q = { .type = UIE_MSG_FASTPATH_REQ };
	int fd;

	q.u.fastpath_req = (struct uie_msg_fastpath_req){ .count = count, .epoch = epoch };
	if (sealed) {
		assert_int_equal(uie_memfd_create_sealed("reports", entries, len, &fd), UIE_OK);
	} else {
		fd = tc_memfd("reports", entries, len, 0);
	}
	return call(f, &q, fd, NULL);
}

/* Fast-path reports: a batch is logged whole, in order; a bad batch changes nothing. */
static void test_fastpath_reports(void **state)
{
	struct fixture *f = *state;
	static uint8_t e[3 * UIE_BRIDGE_FASTPATH_ENTRY_LEN];
	struct uie_digest d = { UIE_HASH_SHA256, UIE_SHA256_LEN, { 7 } };
	uint8_t pcr[UIE_PCR_LEN];
	uint64_t n = uie_logstore_count(&f->mf.m.log);
	struct uie_wire_msg a;

	for (unsigned i = 0; i < 3; i++) {
		struct uie_req req = { .event = UIE_EV_MMAP_EXEC,
				       .role = UIE_ROLE_DSO,
				       .pid = 9,
				       .id = { 1, 2, 3, 4, 5 },
				       .vaddr = 0x1000 * (i + 1),
				       .length = 0x1000 };

		assert_int_equal(
			uie_bridge_fastpath_entry_encode(&req, &d, e + i * UIE_BRIDGE_FASTPATH_ENTRY_LEN),
			UIE_OK);
	}
	a = report(f, 3, e, sizeof(e), true, 0);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(a.u.fastpath_ans.count, 3);
	assert_int_equal(a.u.fastpath_ans.first_seq, n);
	assert_int_equal(uie_logstore_count(&f->mf.m.log), n + 3);
	n += 3;
	memcpy(pcr, f->mf.m.core.vpcr, UIE_PCR_LEN);
	/* made with the hint of another epoch than the one in force (bootstrap, 0): not logged */
	assert_int_equal(report(f, 3, e, sizeof(e), true, 1).status, UIE_E_STATE);
	/* the last entry turned into anonymous memory: nothing of the batch is logged */
	e[2 * UIE_BRIDGE_FASTPATH_ENTRY_LEN + 2] = UIE_ROLE_ANON;
	assert_int_equal(report(f, 3, e, sizeof(e), true, 0).status, UIE_E_FORMAT);
	/* a count that is not the memfd's, and an unsealed memfd */
	assert_int_equal(report(f, 2, e, sizeof(e), true, 0).status, UIE_E_FORMAT);
	assert_int_equal(report(f, 2, e, 2 * UIE_BRIDGE_FASTPATH_ENTRY_LEN, false, 0).status, UIE_E_FORMAT);
	assert_int_equal(uie_logstore_count(&f->mf.m.log), n);
	assert_memory_equal(pcr, f->mf.m.core.vpcr, UIE_PCR_LEN);
}

/*
 * Through the door with a uie_mon_later (as the daemon serves it): EXPORT
 * is streamed, not answered at once; a record logged between its pieces is
 * not in it (the snapshot was taken at the request); STATUS, served
 * inline, never leaves anything for later.
 */
static void test_export_streamed(void **state)
{
	struct fixture *f = *state;
	struct uie_wire_msg q = { .type = UIE_MSG_EXPORT_REQ, .request_id = 5 }, a;
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG], *ae;
	struct uie_mon_later later;
	uint64_t total = uie_logstore_count(&f->mf.m.log);
	struct uie_ae parsed;
	size_t len, alen = 0;
	unsigned steps = 0;
	int afd, fd;
	char path[128];

	q.u.export_req.nonce_len = 20;
	assert_int_equal(uie_bridge_encode(&q, msg, sizeof(msg), &len), UIE_OK);
	uie_mon_serve(&f->mf.m, NULL, &later, msg, len, -1, ans, &alen, &afd);
	assert_non_null(later.export);
	assert_null(later.job);
	assert_int_equal(afd, -1);
	fd = open_copy(f, "late", "/bin/true", path);
	measure(f, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, fd, 0, 4096); /* logged meanwhile */
	assert_int_equal(uie_logstore_count(&f->mf.m.log), total + 1);
	while (!uie_mon_export_step(&f->mf.m, later.export, 1, ans, &alen, &afd))
		steps++;
	assert_int_equal(steps + 1, total ? total : 1); /* one record per step, the last answers */
	uie_export_job_free(later.export);
	a = decode_ans(ans, alen);
	assert_int_equal(a.type, UIE_MSG_EXPORT_ANS);
	assert_int_equal(a.request_id, 5);
	assert_int_equal(a.status, UIE_OK);
	assert_true(afd >= 0);
	assert_int_equal(uie_memfd_read_alloc(afd, a.u.blob_ans.len, UIE_BRIDGE_MAX_BLOB, &ae), UIE_OK);
	close(afd);
	assert_int_equal(uie_ae_parse(ae, a.u.blob_ans.len, &parsed), UIE_OK);
	assert_int_equal(parsed.nrecords, total);
	free(ae);

	q = (struct uie_wire_msg){ .type = UIE_MSG_STATUS_REQ, .request_id = 6 };
	assert_int_equal(uie_bridge_encode(&q, msg, sizeof(msg), &len), UIE_OK);
	uie_mon_serve(&f->mf.m, NULL, &later, msg, len, -1, ans, &alen, &afd);
	assert_null(later.export);
	assert_null(later.job);
	assert_int_equal(decode_ans(ans, alen).u.status_ans.nrecords, total + 1);
}

static void test_export_and_pubkey(void **state)
{
	struct fixture *f = *state;
	struct uie_wire_msg q = { .type = UIE_MSG_EXPORT_REQ }, a;
	uint8_t *ae;
	uint64_t total = uie_logstore_count(&f->mf.m.log);
	struct uie_ae parsed;
	int afd;

	q.u.export_req.nonce_len = 20;
	memset(q.u.export_req.nonce, 0x42, 20);
	a = call(f, &q, -1, &afd);
	assert_int_equal(a.status, UIE_OK);
	assert_true(afd >= 0);
	assert_int_equal(uie_memfd_read_alloc(afd, a.u.blob_ans.len, UIE_BRIDGE_MAX_BLOB, &ae), UIE_OK);
	close(afd);
	assert_int_equal(uie_ae_parse(ae, a.u.blob_ans.len, &parsed), UIE_OK);
	assert_int_equal(parsed.nonce_len, 20);
	assert_int_equal(parsed.first_seq, 0);
	assert_int_equal(parsed.nrecords, total);
	assert_int_equal(parsed.pm.total_records, total);
	assert_memory_equal(parsed.vpcr, f->mf.m.core.vpcr, UIE_PCR_LEN);
	free(ae);
	/* incremental, and past the end */
	q.u.export_req.since_seq = total;
	a = call(f, &q, -1, &afd);
	assert_int_equal(a.status, UIE_OK);
	close(afd);
	q.u.export_req.since_seq = total + 1;
	a = call(f, &q, -1, &afd);
	assert_int_equal(a.status, UIE_E_RANGE);
	assert_int_equal(afd, -1);
	q.type = UIE_MSG_PUBKEY_REQ;
	a = call(f, &q, -1, NULL);
	assert_int_equal(a.status, UIE_OK);
	assert_true(a.u.pubkey_ans.len > 60);
	assert_int_equal(a.u.pubkey_ans.der[0], 0x30);
}

static struct uie_wire_msg activate(struct fixture *f, const uint8_t *blob, size_t bl, const uint8_t *secret,
				    size_t sl)
{
	struct uie_wire_msg q = { .type = UIE_MSG_ACTIVATE_REQ };

	q.u.activate_req.blob_len = (uint16_t)bl;
	q.u.activate_req.secret_len = (uint16_t)sl;
	memcpy(q.u.activate_req.blob, blob, bl);
	memcpy(q.u.activate_req.secret, secret, sl);
	return call(f, &q, -1, NULL);
}

/*
 * The verifier's challenge through the monitor: its vTPM's EK and AK
 * (TPM_KEYS), a credential made for them comes back (ACTIVATE); one made
 * for another TPM's AK is refused with that reason; nothing is logged.
 */
static void test_tpm_keys_and_activate(void **state)
{
	struct fixture *f = *state;
	struct uie_wire_msg q = { .type = UIE_MSG_TPM_KEYS_REQ }, a;
	static const uint8_t cred[20] = "verifier-credential!";
	uint64_t total = uie_logstore_count(&f->mf.m.log);
	struct uie_vtpm *other;
	struct uie_msg_tpm_keys_ans keys;
	uint8_t *blob, *secret, *oak;
	size_t bl, sl, oal;
	char spec[128];

	a = call(f, &q, -1, NULL);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(a.u.tpm_keys_ans.ek_len, 316);
	keys = a.u.tpm_keys_ans;
	assert_int_equal(uie_credential_make(keys.ek, keys.ek_len, keys.ak, keys.ak_len, cred, sizeof(cred),
					     &blob, &bl, &secret, &sl, NULL),
			 UIE_OK);
	a = activate(f, blob, bl, secret, sl);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(a.u.activate_ans.len, sizeof(cred));
	assert_memory_equal(a.u.activate_ans.cred, cred, sizeof(cred));
	free(blob);
	free(secret);

	/* For the AK of another vTPM, sealed to this one's EK. */
	snprintf(spec, sizeof(spec), "builtin:%s/other.pem", f->mf.dir);
	assert_int_equal(uie_vtpm_open(spec, &other), UIE_OK);
	assert_int_equal(uie_vtpm_ak_public_alloc(other, &oak, &oal), UIE_OK);
	assert_int_equal(uie_credential_make(keys.ek, keys.ek_len, oak, oal, cred, sizeof(cred), &blob, &bl,
					     &secret, &sl, NULL),
			 UIE_OK);
	a = activate(f, blob, bl, secret, sl);
	assert_int_equal(a.status, UIE_E_SIGNATURE);
	assert_int_equal(uie_logstore_count(&f->mf.m.log), total);
	free(blob);
	free(secret);
	free(oak);
	uie_vtpm_free(other);
}

TC_MAIN_EACH(setup, teardown, test_elf_hashed_once, test_change_forces_remeasure, test_cache_bounded,
	     test_cache_verity, test_unmeasurable_objects, test_hostile_messages, test_install_bad_packages,
	     test_anon_with_program, test_sealed_memfd, test_fastpath_reports, test_status_hint_gen,
	     test_export_and_pubkey, test_export_streamed, test_tpm_keys_and_activate)
