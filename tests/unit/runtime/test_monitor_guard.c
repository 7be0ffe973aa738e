/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor's limits and the paths added with them (issue 11): the
 * per-client record quota, the object size limit, measurement on worker
 * threads (same digest and record as in the loop, and the cache),
 * VIOLATION_REQ, and subjects in first-seen mode.
 */
#include <fcntl.h>
#include <poll.h>
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
#include "monitor.h"
#include "uie/err.h"
#include "workers.h"
#include "tcommon.h"

struct fixture {
	struct uie_host_platform hp;
	struct uie_monitor m;
	char path[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int fd;

	assert_non_null(f);
	assert_int_equal(uie_host_platform_init(&f->hp), UIE_OK);
	assert_int_equal(uie_mon_init(&f->m, &f->hp.pl, NULL, NULL), UIE_OK);
	/* A non-ELF file of 64 KiB: measured as a range. */
	strcpy(f->path, "/tmp/uie-guard-test-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	for (int i = 0; i < 64; i++) {
		char b[1024];

		memset(b, 'a' + i % 26, sizeof(b));
		assert_int_equal(write(fd, b, sizeof(b)), (ssize_t)sizeof(b));
	}
	close(fd);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	uie_mon_fini(&f->m);
	uie_host_platform_fini(&f->hp);
	unlink(f->path);
	free(f);
	return 0;
}

static int open_obj(const struct fixture *f)
{
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static size_t encode_measure(uint8_t *msg, uint32_t id)
{
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_REQ, .request_id = id };
	size_t len;

	q.u.measure_req = (struct uie_msg_measure_req){
		.event = UIE_EV_MMAP_EXEC, .role = UIE_ROLE_FILE, .pid = 42, .length = 65536
	};
	assert_int_equal(uie_bridge_encode(&q, msg, UIE_BRIDGE_MAX_MSG, &len), UIE_OK);
	return len;
}

static struct uie_wire_msg decode(const uint8_t *ans, size_t alen)
{
	struct uie_wire_msg a;

	assert_int_equal(uie_bridge_decode(ans, alen, &a), UIE_OK);
	return a;
}

/* Measures through the door (uie_mon_serve) on behalf of client c, answered at once. */
static struct uie_wire_msg measure_for(struct fixture *f, struct uie_mon_client *c)
{
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t len = encode_measure(msg, 5), alen;
	int afd;

	uie_mon_serve(&f->m, c, NULL, msg, len, open_obj(f), ans, &alen, &afd);
	assert_int_equal(afd, -1);
	return decode(ans, alen);
}

static void test_quota(void **state)
{
	struct fixture *f = *state;
	struct uie_mon_client c;
	struct uie_wire_msg a;
	uint64_t before;

	f->m.limits.quota = 3;
	uie_mon_client_init(&f->m, &c);
	for (int i = 0; i < 3; i++)
		assert_int_equal(measure_for(f, &c).status, UIE_OK);
	before = f->m.core.next_seq;
	a = measure_for(f, &c);
	assert_int_equal(a.status, UIE_E_QUOTA);
	assert_int_equal(f->m.core.next_seq, before); /* refused: nothing logged */
	/* Another client, and the daemon's tools without one, are not charged. */
	uie_mon_client_init(&f->m, &c);
	assert_int_equal(measure_for(f, &c).status, UIE_OK);
	assert_int_equal(measure_for(f, NULL).status, UIE_OK);
	/* The bucket refills: a second later the first client is served again. */
	sleep(1);
	assert_int_equal(measure_for(f, &c).status, UIE_OK);
}

static void test_object_size(void **state)
{
	struct fixture *f = *state;
	struct uie_wire_msg a;

	f->m.limits.max_object = 65535;
	a = measure_for(f, NULL);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(a.u.measure_ans.reason, UIE_R_MEASURE_FAIL);
	assert_int_equal(a.u.measure_ans.policy_decision, UIE_DENY);
	f->m.limits.max_object = 65536;
	a = measure_for(f, NULL);
	assert_int_equal(a.u.measure_ans.reason, UIE_R_BOOTSTRAP);
}

/* Waits (at most 30 s) for the workers' finished jobs. */
static struct uie_job *collect(struct uie_workers *w)
{
	struct pollfd p = { .fd = w->wake[0], .events = POLLIN };
	struct uie_job *job = NULL;

	for (int i = 0; i < 300 && !job; i++) {
		poll(&p, 1, 100);
		job = uie_workers_collect(w);
	}
	assert_non_null(job);
	return job;
}

static void test_workers(void **state)
{
	struct fixture *f = *state;
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	struct uie_wire_msg a, sync;
	struct uie_workers w;
	struct uie_mon_later later;
	struct uie_job *job;
	size_t len = encode_measure(msg, 9), alen;
	int afd;

	assert_int_equal(uie_workers_start(&w, 2), UIE_OK);
	f->m.workers = &w;
	/* A miss goes to a worker: no answer yet, no record yet. */
	uie_mon_serve(&f->m, NULL, &later, msg, len, open_obj(f), ans, &alen, &afd);
	assert_non_null(later.job);
	assert_null(later.export);
	assert_int_equal(f->m.core.next_seq, 1);
	uie_workers_submit(&w, later.job);
	job = collect(&w);
	assert_null(job->next);
	uie_mon_measure_finish(&f->m, NULL, job, ans, &alen);
	uie_job_free(job);
	a = decode(ans, alen);
	assert_int_equal(a.type, UIE_MSG_MEASURE_ANS);
	assert_int_equal(a.request_id, 9);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(a.u.measure_ans.scope, UIE_SCOPE_RANGE);
	assert_int_equal(a.u.measure_ans.seq, 1);
	/* Now cached: answered at once, with the same digest the loop computes. */
	uie_mon_serve(&f->m, NULL, &later, msg, len, open_obj(f), ans, &alen, &afd);
	assert_null(later.job);
	sync = decode(ans, alen);
	assert_memory_equal(&sync.u.measure_ans.digest, &a.u.measure_ans.digest,
			    sizeof(a.u.measure_ans.digest));
	f->m.workers = NULL;
	uie_cache_init(f->m.cache);
	sync = measure_for(f, NULL);
	assert_memory_equal(&sync.u.measure_ans.digest, &a.u.measure_ans.digest,
			    sizeof(a.u.measure_ans.digest));
	/* Other requests never go to a worker. */
	f->m.workers = &w;
	{
		struct uie_wire_msg q = { .type = UIE_MSG_STATUS_REQ, .request_id = 3 };

		assert_int_equal(uie_bridge_encode(&q, msg, sizeof(msg), &len), UIE_OK);
		uie_mon_serve(&f->m, NULL, &later, msg, len, -1, ans, &alen, &afd);
		assert_null(later.job);
		assert_null(later.export);
		assert_int_equal(decode(ans, alen).type, UIE_MSG_STATUS_ANS);
	}
	f->m.workers = NULL;
	uie_workers_stop(&w);
}

static void test_violation(void **state)
{
	struct fixture *f = *state;
	struct uie_wire_msg q = { .type = UIE_MSG_VIOLATION_REQ, .request_id = 4 }, a;
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t len, alen;
	uint64_t seq = f->m.core.next_seq;
	int afd;

	q.u.violation_req = (struct uie_msg_violation_req){ .pid = 4343, .kind = UIE_VIOLATION_WRITE };
	assert_int_equal(uie_bridge_encode(&q, msg, sizeof(msg), &len), UIE_OK);
	uie_mon_handle(&f->m, msg, len, open_obj(f), ans, &alen, &afd);
	a = decode(ans, alen);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(a.u.violation_ans_seq, seq);
	assert_int_equal(f->m.core.next_seq, seq + 1);
	/* Without its descriptor it is malformed, and logs nothing. */
	uie_mon_handle(&f->m, msg, len, -1, ans, &alen, &afd);
	assert_int_equal(decode(ans, alen).status, UIE_E_FORMAT);
	assert_int_equal(f->m.core.next_seq, seq + 1);
}

/* A MEASURE_REQ on behalf of client c: the object at path, for the program of record subj. */
static struct uie_wire_msg ask_for(struct fixture *f, struct uie_mon_client *c, uint16_t ev, uint8_t role,
				   const char *path, uint64_t len, uint64_t subj)
{
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_REQ, .request_id = 8 };
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t mlen, alen;
	int afd, fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	q.u.measure_req = (struct uie_msg_measure_req){
		.event = ev, .role = role, .pid = 42, .length = len, .subject_seq = subj
	};
	assert_int_equal(uie_bridge_encode(&q, msg, sizeof(msg), &mlen), UIE_OK);
	uie_mon_serve(&f->m, c, NULL, msg, mlen, fd, ans, &alen, &afd);
	return decode(ans, alen);
}

/*
 * First-seen mode: a subject is a program granted on the same connection;
 * the file under two programs is two records, each with a SUBJECT record;
 * any other subject number (unknown, another client's, not a program) is
 * refused and logs nothing.
 */
static void test_subjects(void **state)
{
	struct fixture *f = *state;
	struct uie_mon_opts o = { .first_seen = true };
	struct uie_mon_client c, other;
	struct uie_wire_msg a;
	uint64_t p1, p2, g1, n;
	const uint8_t *recs;
	struct uie_log_record r;

	uie_mon_fini(&f->m);
	assert_int_equal(uie_mon_init_opts(&f->m, &f->hp.pl, NULL, NULL, &o), UIE_OK);
	uie_mon_client_init(&f->m, &c);
	uie_mon_client_init(&f->m, &other);
	p1 = ask_for(f, &c, UIE_EV_EXECVE, UIE_ROLE_MAIN, "/proc/self/exe", 0, 0).u.measure_ans.seq;
	a = ask_for(f, &c, UIE_EV_EXECVE, UIE_ROLE_MAIN, "/bin/true", 0, 0);
	assert_int_equal(a.status, UIE_OK);
	p2 = a.u.measure_ans.seq;
	assert_true(p1 != p2);
	a = ask_for(f, &c, UIE_EV_MMAP_EXEC, UIE_ROLE_FILE, f->path, 65536, p1);
	assert_int_equal(a.status, UIE_OK);
	g1 = a.u.measure_ans.seq;
	a = ask_for(f, &c, UIE_EV_MMAP_EXEC, UIE_ROLE_FILE, f->path, 65536, p2);
	assert_int_equal(a.u.measure_ans.seq, g1 + 2);
	assert_int_equal(f->m.core.next_seq, g1 + 4);
	recs = uie_logstore_records(&f->m.log, g1 + 3, &n);
	assert_int_equal(uie_log_decode(recs, UIE_LOG_RECORD_LEN, &r), UIE_OK);
	assert_int_equal(r.event_type, UIE_LOG_SUBJECT);
	assert_int_equal(r.file_offset, g1 + 2);
	assert_int_equal(r.vaddr, p2);
	/* a repeat under the first program: its record, nothing logged */
	a = ask_for(f, &c, UIE_EV_MMAP_EXEC, UIE_ROLE_FILE, f->path, 65536, p1);
	assert_int_equal(a.u.measure_ans.seq, g1);
	assert_int_equal(f->m.core.next_seq, g1 + 4);
	/* refused, nothing logged: another client's program, an unknown record, a grant of no program */
	assert_int_equal(ask_for(f, &other, UIE_EV_MMAP_EXEC, UIE_ROLE_FILE, f->path, 65536, p1).status,
			 UIE_E_NOTFOUND);
	assert_int_equal(ask_for(f, &c, UIE_EV_MMAP_EXEC, UIE_ROLE_FILE, f->path, 65536, 999).status,
			 UIE_E_NOTFOUND);
	assert_int_equal(ask_for(f, &c, UIE_EV_MMAP_EXEC, UIE_ROLE_FILE, f->path, 65536, g1).status,
			 UIE_E_NOTFOUND);
	assert_int_equal(ask_for(f, NULL, UIE_EV_MMAP_EXEC, UIE_ROLE_FILE, f->path, 65536, p1).status,
			 UIE_E_NOTFOUND);
	assert_int_equal(f->m.core.next_seq, g1 + 4);
	uie_mon_client_fini(&c);
	uie_mon_client_fini(&other);
}

TC_MAIN_EACH(setup, teardown, test_quota, test_object_size, test_workers, test_violation, test_subjects)
