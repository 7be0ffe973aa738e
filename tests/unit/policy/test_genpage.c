/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The policy generation page and hint freshness: only the monitor's
 * mapping can write the page, a page that is not sealed or not the format
 * is refused (no fast path), and a hint whose epoch is not the page's
 * generation never refuses anything; the interceptor fetches the current
 * hint when the generation moves.  The "monitor" here is a forked peer
 * that answers GEN_REQ and HINT_REQ like uie-monitord does.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "uie/bridge.h"
#include "uie/err.h"

#include "bloom.h"
#include "fastpath.h"
#include "fdpass.h"
#include "genpage.h"
#include "tcommon.h"
#include "wire.h"

/* docs/FORMATS.md section 4.6, V-G1: the first 24 bytes for generation 2. */
static const char vg1[] = "55494547454e303101000000000000000200000000000000";

static const uint8_t in_v1[32] = { 0xa1 };   /* allowed by epochs 1 and 2 */
static const uint8_t in_v2[32] = { 0xb2 };   /* added by epoch 2 */
static const uint8_t nowhere[32] = { 0xc3 }; /* never allowed */

static struct uie_digest dig(const uint8_t d[32])
{
	struct uie_digest x = { .alg = UIE_HASH_SHA256, .len = 32 };

	memcpy(x.bytes, d, 32);
	return x;
}

/* A sealed hint memfd of epoch over n digests. */
static int hint_fd(uint64_t epoch, const uint8_t *const *d, uint32_t n, size_t *len)
{
	uint64_t salt[2] = { 7, 9 };
	uint32_t nbits;
	uint8_t k, *h;
	int fd;

	uie_bloom_params(n, 0, &nbits, &k);
	*len = uie_bloom_encoded_len(nbits);
	h = malloc(*len);
	assert_non_null(h);
	assert_int_equal(uie_bloom_init(h, *len, UIE_HASH_SHA256, k, epoch, salt, nbits), UIE_OK);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(uie_bloom_add(h, *len, d[i], 32), UIE_OK);
	assert_int_equal(uie_memfd_create_sealed("hint", h, *len, &fd), UIE_OK);
	free(h);
	return fd;
}

static void test_layout_and_seals(void **state)
{
	struct uie_genpage g;
	uint8_t page[UIE_GENPAGE_LEN], want[24];
	const uint8_t *ro;
	void *w;
	FILE *f;
	char *doc;
	size_t n;

	(void)state;
	assert_int_equal(uie_genpage_create(&g, 2), UIE_OK);
	assert_int_equal(pread(g.fd, page, sizeof(page), 0), (ssize_t)sizeof(page));
	for (size_t i = 0; i < sizeof(want); i++)
		assert_int_equal(sscanf(vg1 + 2 * i, "%2hhx", &want[i]), 1);
	assert_memory_equal(page, want, sizeof(want));
	for (size_t i = sizeof(want); i < sizeof(page); i++)
		assert_int_equal(page[i], 0);
	/* The vector is the one printed in docs/FORMATS.md. */
	f = fopen(UIE_SRCDIR "/docs/FORMATS.md", "r");
	assert_non_null(f);
	doc = calloc(1, 1 << 20);
	n = fread(doc, 1, (1 << 20) - 1, f);
	fclose(f);
	assert_true(n > 0);
	assert_non_null(strstr(doc, vg1));
	free(doc);

	/* Sealed: nobody writes it any more, except through the monitor's old mapping. */
	assert_int_equal(fcntl(g.fd, F_GET_SEALS) & UIE_GENPAGE_SEALS, UIE_GENPAGE_SEALS);
	errno = 0;
	assert_int_equal(pwrite(g.fd, "x", 1, 16), -1);
	assert_int_equal(errno, EPERM);
	assert_true(mmap(NULL, UIE_GENPAGE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, g.fd, 0) == MAP_FAILED);
	assert_int_equal(ftruncate(g.fd, 2 * UIE_GENPAGE_LEN), -1);
	assert_int_equal(fcntl(g.fd, F_ADD_SEALS, F_SEAL_WRITE), -1);
	assert_int_equal(uie_genpage_map(g.fd, UIE_GENPAGE_LEN, &ro), UIE_OK);
	assert_int_equal(mprotect((void *)(uintptr_t)ro, UIE_GENPAGE_LEN, PROT_READ | PROT_WRITE), -1);
	/* A private copy may be written, but that changes only the copy. */
	w = mmap(NULL, UIE_GENPAGE_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, g.fd, 0);
	assert_true(w != MAP_FAILED);
	((uint8_t *)w)[16] = 0x77;
	munmap(w, UIE_GENPAGE_LEN);
	assert_int_equal(uie_genpage_load(ro), 2);
	uie_genpage_set(&g, 5);
	assert_int_equal(uie_genpage_load(ro), 5);
	uie_genpage_unmap(ro);
	uie_genpage_destroy(&g);
	uie_genpage_destroy(&g);
}

static void test_bad_pages_refused(void **state)
{
	struct uie_genpage g;
	uint8_t good[UIE_GENPAGE_LEN], bad[2 * UIE_GENPAGE_LEN] = { 0 };
	const uint8_t *ro = (const uint8_t *)1;
	unsigned all = UIE_GENPAGE_SEALS;
	char path[] = "/tmp/uie-gen-XXXXXX";
	int fd;

	(void)state;
	assert_int_equal(uie_genpage_create(&g, 3), UIE_OK);
	assert_int_equal(pread(g.fd, good, sizeof(good), 0), (ssize_t)sizeof(good));
	uie_genpage_destroy(&g);
	/* Not sealed, or one seal missing: someone else could write it. */
	fd = tc_memfd("page", good, sizeof(good), 0);
	assert_int_equal(uie_genpage_map(fd, UIE_GENPAGE_LEN, &ro), UIE_E_STATE);
	assert_null(ro);
	close(fd);
	fd = tc_memfd("page", good, sizeof(good), all & ~(unsigned)F_SEAL_FUTURE_WRITE);
	assert_int_equal(uie_genpage_map(fd, UIE_GENPAGE_LEN, &ro), UIE_E_STATE);
	close(fd);
	fd = tc_memfd("page", good, sizeof(good), all & ~(unsigned)F_SEAL_SEAL);
	assert_int_equal(uie_genpage_map(fd, UIE_GENPAGE_LEN, &ro), UIE_E_STATE);
	close(fd);
	/* A regular file has no seals at all. */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, good, sizeof(good)), (ssize_t)sizeof(good));
	assert_int_not_equal(uie_genpage_map(fd, UIE_GENPAGE_LEN, &ro), UIE_OK);
	assert_null(ro);
	close(fd);
	unlink(path);
	/* Wrong size, announced or real. */
	fd = tc_memfd("page", good, sizeof(good), all);
	assert_int_equal(uie_genpage_map(fd, UIE_GENPAGE_LEN + 1, &ro), UIE_E_RANGE);
	close(fd);
	memcpy(bad, good, sizeof(good));
	fd = tc_memfd("page", bad, sizeof(bad), all);
	assert_int_equal(uie_genpage_map(fd, sizeof(bad), &ro), UIE_E_RANGE);
	assert_int_equal(uie_genpage_map(fd, UIE_GENPAGE_LEN, &ro), UIE_E_RANGE);
	close(fd);
	/* Wrong magic, version, reserved bytes. */
	memcpy(bad, good, sizeof(good));
	bad[7] = '2';
	fd = tc_memfd("page", bad, UIE_GENPAGE_LEN, all);
	assert_int_equal(uie_genpage_map(fd, UIE_GENPAGE_LEN, &ro), UIE_E_FORMAT);
	assert_null(ro);
	close(fd);
	memcpy(bad, good, sizeof(good));
	bad[8] = 2;
	fd = tc_memfd("page", bad, UIE_GENPAGE_LEN, all);
	assert_int_equal(uie_genpage_map(fd, UIE_GENPAGE_LEN, &ro), UIE_E_VERSION);
	close(fd);
	memcpy(bad, good, sizeof(good));
	bad[UIE_GENPAGE_LEN - 1] = 1;
	fd = tc_memfd("page", bad, UIE_GENPAGE_LEN, all);
	assert_int_equal(uie_genpage_map(fd, UIE_GENPAGE_LEN, &ro), UIE_E_FORMAT);
	close(fd);
	assert_int_equal(uie_genpage_map(-1, UIE_GENPAGE_LEN, &ro), UIE_E_INVAL);
}

/* ---- a peer answering GEN_REQ and HINT_REQ ---- */

struct peer {
	int gen_fd;         /* handed out with GEN_ANS */
	const uint8_t *gen; /* shared mapping: the peer's idea of the epoch in force */
	int hints[8];       /* hint memfd by epoch (-1: none); epoch 3: HINT fails */
};

/*
 * A peer that hands out gen_fd and serves the epoch of g's page (shared
 * with the child: the test plays the installs), with no hints yet.
 */
static void peer_init(struct peer *p, const struct uie_genpage *g, int gen_fd)
{
	p->gen_fd = gen_fd;
	p->gen = g->map;
	for (int i = 0; i < 8; i++)
		p->hints[i] = -1;
}

static void serve(int s, const struct peer *p)
{
	uint8_t buf[UIE_BRIDGE_MAX_MSG], out[UIE_BRIDGE_MAX_MSG];
	struct uie_wire_msg q, a;
	size_t len, olen;
	int fd;

	while (uie_bridge_recv(s, buf, &len, &fd, -1) == UIE_OK) {
		uint64_t e = uie_genpage_load(p->gen);
		int afd = -1;

		if (fd >= 0)
			close(fd);
		if (uie_bridge_decode(buf, len, &q) != UIE_OK)
			break;
		memset(&a, 0, sizeof(a));
		a.type = q.type + 1;
		a.request_id = q.request_id;
		if (q.type == UIE_MSG_GEN_REQ && p->gen_fd < 0) {
			a.type = UIE_MSG_ERROR_ANS; /* what a monitor without the page type says */
			a.status = UIE_E_FORMAT;
		} else if (q.type == UIE_MSG_GEN_REQ) {
			afd = p->gen_fd;
			a.u.blob_ans = (struct uie_msg_blob_ans){ UIE_GENPAGE_LEN, e };
		} else if (q.type == UIE_MSG_HINT_REQ && e == 3) {
			a.status = UIE_E_IO;
		} else if (q.type == UIE_MSG_HINT_REQ && e < 8 && p->hints[e] >= 0) {
			struct stat st;

			assert_int_equal(fstat(p->hints[e], &st), 0);
			afd = p->hints[e];
			a.u.blob_ans = (struct uie_msg_blob_ans){ (uint64_t)st.st_size, e };
		} else if (q.type != UIE_MSG_HINT_REQ) {
			a.status = UIE_E_FORMAT;
		}
		if (uie_bridge_encode(&a, out, sizeof(out), &olen) != UIE_OK ||
		    uie_bridge_send(s, out, olen, a.status == UIE_OK ? afd : -1) != UIE_OK)
			break;
	}
	_exit(0);
}

static pid_t start_peer(const struct peer *p, int *sock)
{
	int sv[2];
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		serve(sv[1], p);
	}
	close(sv[1]);
	*sock = sv[0];
	return pid;
}

static void stop_peer(pid_t pid, int sock)
{
	int st;

	close(sock);
	assert_int_equal(waitpid(pid, &st, 0), pid);
}

/* A fast path to fill (calloc'ed, freed by the test) and a generation page at epoch 1 in *g. */
static struct uie_fastpath *fastpath_and_page(struct uie_genpage *g)
{
	struct uie_fastpath *fp = calloc(1, sizeof(*fp));

	assert_non_null(fp);
	assert_int_equal(uie_genpage_create(g, 1), UIE_OK);
	return fp;
}

static void test_stale_hint_only_costs_speed(void **state)
{
	const uint8_t *v1[] = { in_v1 }, *v2[] = { in_v1, in_v2 };
	struct uie_digest a = dig(in_v1), b = dig(in_v2), c = dig(nowhere);
	struct uie_genpage g;
	struct uie_fastpath *fp = fastpath_and_page(&g);
	struct peer p;
	size_t len;
	pid_t pid;
	int s;

	(void)state;
	peer_init(&p, &g, g.fd);
	p.hints[1] = hint_fd(1, v1, 1, &len);
	p.hints[2] = hint_fd(2, v2, 2, &len);
	p.hints[5] = hint_fd(4, v2, 2, &len); /* says epoch 4 while 5 is in force */
	pid = start_peer(&p, &s);

	assert_int_equal(uie_fastpath_fetch(fp, s), UIE_OK);
	assert_true(uie_fastpath_refresh(fp, s));
	assert_int_equal(uie_fastpath_epoch(fp), 1);
	assert_false(uie_fastpath_definite_miss(fp, &a));
	assert_true(uie_fastpath_definite_miss(fp, &b));
	assert_true(uie_fastpath_definite_miss(fp, &c));

	/* Epoch 2 adds b: before any refetch, the old hint refuses nothing more. */
	uie_genpage_set(&g, 2);
	assert_false(uie_fastpath_definite_miss(fp, &b));
	assert_false(uie_fastpath_definite_miss(fp, &c));
	assert_true(uie_fastpath_refresh(fp, s));
	assert_int_equal(uie_fastpath_epoch(fp), 2);
	assert_false(uie_fastpath_definite_miss(fp, &b));
	assert_true(uie_fastpath_definite_miss(fp, &c));

	/* The hint cannot be fetched: no fast path until it can. */
	uie_genpage_set(&g, 3);
	assert_false(uie_fastpath_refresh(fp, s));
	assert_false(uie_fastpath_definite_miss(fp, &c));
	/* A package without hint. */
	uie_genpage_set(&g, 4);
	assert_false(uie_fastpath_refresh(fp, s));
	assert_false(uie_fastpath_refresh(fp, s));
	assert_false(uie_fastpath_definite_miss(fp, &c));
	/* A hint whose epoch is not the generation's is not used. */
	uie_genpage_set(&g, 5);
	assert_false(uie_fastpath_refresh(fp, s));
	assert_int_equal(uie_fastpath_epoch(fp), 4);
	assert_false(uie_fastpath_definite_miss(fp, &c));
	/* Back to a usable hint (the test may reuse numbers; the monitor never does). */
	uie_genpage_set(&g, 1);
	assert_true(uie_fastpath_refresh(fp, s));
	assert_true(uie_fastpath_definite_miss(fp, &c));
	/* The monitor goes away: the mapped state stays, but any refetch fails. */
	stop_peer(pid, s);
	uie_genpage_set(&g, 2);
	assert_false(uie_fastpath_refresh(fp, s));
	assert_false(uie_fastpath_definite_miss(fp, &c));
	uie_fastpath_close(fp);
	uie_fastpath_close(fp);
	for (int i = 0; i < 8; i++)
		if (p.hints[i] >= 0)
			close(p.hints[i]);
	uie_genpage_destroy(&g);
	free(fp);
}

/* A monitor handing out a page anyone could write: no fast path at all. */
static void test_unsealed_page_means_no_fast_path(void **state)
{
	const uint8_t *v1[] = { in_v1 };
	struct uie_digest c = dig(nowhere);
	struct uie_genpage g;
	struct uie_fastpath *fp = fastpath_and_page(&g);
	uint8_t page[UIE_GENPAGE_LEN];
	struct peer p;
	size_t len;
	pid_t pid;
	int s;

	(void)state;
	assert_int_equal(pread(g.fd, page, sizeof(page), 0), (ssize_t)sizeof(page));
	peer_init(&p, &g, tc_memfd("page", page, sizeof(page), F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL));
	p.hints[1] = hint_fd(1, v1, 1, &len);
	pid = start_peer(&p, &s);
	assert_int_equal(uie_fastpath_fetch(fp, s), UIE_E_STATE);
	assert_false(uie_fastpath_refresh(fp, s));
	assert_false(uie_fastpath_definite_miss(fp, &c));
	stop_peer(pid, s);
	/* A peer that does not know GEN_REQ (answers an error): the same. */
	close(p.gen_fd);
	p.gen_fd = -1;
	pid = start_peer(&p, &s);
	assert_true(uie_fastpath_fetch(fp, s) < 0);
	assert_false(uie_fastpath_refresh(fp, s));
	stop_peer(pid, s);
	close(p.hints[1]);
	uie_genpage_destroy(&g);
	free(fp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_and_seals),
		cmocka_unit_test(test_bad_pages_refused),
		cmocka_unit_test(test_stale_hint_only_costs_speed),
		cmocka_unit_test(test_unsealed_page_means_no_fast_path),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
