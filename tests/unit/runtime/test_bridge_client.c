/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Client stubs against a real in-process monitor and against peers that
 * misbehave: every failure is an error and measure always leaves DENY.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fdpass.h"
#include "host_platform.h"
#include "monitor.h"
#include "uie/bridge.h"
#include "uie/err.h"
#include "wire.h"

enum peer {
	P_MONITOR,
	P_CLOSE,
	P_GARBAGE,
	P_STALE_THEN_GOOD,
	P_STALE_THEN_CLOSE,
	P_WRONG_TYPE,
	P_ANSWER_FD,
	P_ERROR
};

/* Receives one request and answers it the way `how` says; returns false at EOF. */
static bool fake_answer(int s, enum peer how)
{
	uint8_t buf[UIE_BRIDGE_MAX_MSG], out[UIE_BRIDGE_MAX_MSG];
	struct uie_wire_msg q, a = { 0 };
	size_t len, olen;
	int fd, extra = -1;

	if (uie_bridge_recv(s, buf, &len, &fd, -1) != UIE_OK)
		return false;
	if (fd >= 0)
		close(fd);
	if (how == P_CLOSE)
		return false;
	if (how == P_GARBAGE) {
		memset(out, 0xee, 64);
		uie_bridge_send(s, out, 64, -1);
		return true;
	}
	uie_bridge_decode(buf, len, &q);
	a.type = how == P_WRONG_TYPE ? UIE_MSG_STATUS_ANS : q.type + 1;
	a.request_id = q.request_id;
	a.u.measure_ans.decision = UIE_ALLOW;
	a.u.measure_ans.policy_decision = UIE_ALLOW;
	a.u.measure_ans.reason = UIE_R_RULE_ALLOW;
	if (how == P_ERROR) {
		a.type = UIE_MSG_ERROR_ANS;
		a.status = UIE_E_STATE;
	}
	if (how == P_STALE_THEN_GOOD || how == P_STALE_THEN_CLOSE) {
		a.request_id += 1000;
		uie_bridge_encode(&a, out, sizeof(out), &olen);
		uie_bridge_send(s, out, olen, -1);
		if (how == P_STALE_THEN_CLOSE)
			return false;
		a.request_id -= 1000;
	}
	if (how == P_ANSWER_FD)
		extra = open("/dev/null", O_RDONLY | O_CLOEXEC);
	uie_bridge_encode(&a, out, sizeof(out), &olen);
	uie_bridge_send(s, out, olen, extra);
	return true;
}

static void serve_monitor(int s)
{
	struct uie_host_platform hp;
	struct uie_monitor m;
	uint8_t buf[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t len, alen;
	int fd, afd;

	if (uie_host_platform_init(&hp) != UIE_OK || uie_mon_init(&m, &hp.pl, NULL, NULL) != UIE_OK)
		_exit(1);
	while (uie_bridge_recv(s, buf, &len, &fd, -1) == UIE_OK) {
		uie_mon_handle(&m, buf, len, fd, ans, &alen, &afd);
		uie_bridge_send(s, ans, alen, afd);
		if (afd >= 0)
			close(afd);
	}
	uie_mon_fini(&m);
	uie_host_platform_fini(&hp);
}

/* Starts a peer behaving as `how` on one end of a socketpair; returns the other end. */
static int start_peer(enum peer how, pid_t *pid)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		close(sv[0]);
		if (how == P_MONITOR)
			serve_monitor(sv[1]);
		else
			while (fake_answer(sv[1], how))
				;
		_exit(0);
	}
	close(sv[1]);
	return sv[0];
}

static void stop_peer(int s, pid_t pid)
{
	int st;

	close(s);
	assert_int_equal(waitpid(pid, &st, 0), pid);
}

static const struct uie_req anon = { .event = UIE_EV_MPROTECT_EXEC, .role = UIE_ROLE_ANON, .pid = 1 };

static void test_against_monitor(void **state)
{
	struct uie_req exe = { .event = UIE_EV_EXECVE, .role = UIE_ROLE_MAIN, .pid = 2 };
	struct uie_digest d = { UIE_HASH_SHA256, UIE_SHA256_LEN, { 1 } };
	struct uie_fastpath_report rep;
	struct uie_verdict v;
	struct uie_status st;
	uint8_t *ae, *der;
	size_t len;
	pid_t pid;
	int s = start_peer(P_MONITOR, &pid), fd, merr;
	static const uint8_t junk[32] = { 1 };

	(void)state;
	assert_int_equal(uie_bridge_status(s, &st), UIE_OK);
	assert_int_equal(st.mode, UIE_MODE_BOOTSTRAP);
	assert_int_equal(st.nrecords, 1);
	fd = open("/bin/true", O_RDONLY | O_CLOEXEC);
	assert_int_equal(uie_bridge_measure(s, &exe, fd, &v), UIE_OK);
	close(fd);
	assert_int_equal(v.decision, UIE_ALLOW);
	assert_int_equal(v.scope, UIE_SCOPE_ELF);
	assert_int_equal(v.seq, 1);
	assert_int_equal(uie_bridge_measure(s, &anon, -1, &v), UIE_OK);
	assert_int_equal(v.reason, UIE_R_ANON_EXEC);
	assert_int_equal(v.scope, UIE_SCOPE_NONE);
	/* with its program: the stub sends flag PROGRAM, the monitor measures it */
	{
		struct uie_digest exe_digest;
		struct uie_verdict w;

		fd = open("/bin/true", O_RDONLY | O_CLOEXEC);
		assert_int_equal(uie_bridge_measure(s, &exe, fd, &w), UIE_OK);
		exe_digest = w.digest;
		assert_int_equal(uie_bridge_measure(s, &anon, fd, &v), UIE_OK);
		close(fd);
		assert_int_equal(v.reason, UIE_R_ANON_EXEC);
		assert_int_equal(v.scope, UIE_SCOPE_ELF);
		assert_memory_equal(&v.digest, &exe_digest, sizeof(exe_digest));
	}
	/* the stub refuses a file request without a descriptor before sending */
	assert_int_equal(uie_bridge_measure(s, &exe, -1, &v), UIE_E_INVAL);
	rep = (struct uie_fastpath_report){ .req = exe, .digest = d, .status = UIE_E_STATE };
	assert_int_equal(uie_bridge_fastpath_report_all(s, 0, &rep, 1), UIE_OK);
	assert_int_equal(rep.status, UIE_OK);
	assert_int_equal(uie_bridge_hint(s, &fd, &len), UIE_OK);
	assert_int_equal(fd, -1);
	assert_int_equal(uie_bridge_install(s, junk, sizeof(junk), &merr), UIE_OK);
	assert_true(merr < 0);
	/* this monitor has no vTPM: export and pubkey are refused, cleanly */
	assert_int_equal(uie_bridge_export_alloc(s, junk, 8, 0, &ae, &len), UIE_E_STATE);
	assert_null(ae);
	assert_int_equal(uie_bridge_pubkey_alloc(s, &der, &len), UIE_E_STATE);
	assert_null(der);
	assert_int_equal(uie_bridge_status(s, &st), UIE_OK);
	assert_int_equal(st.nrecords, 7); /* start, 4 decisions, fast-path report, rejected package */
	stop_peer(s, pid);
}

static void expect_deny(enum peer how, int want)
{
	struct uie_verdict v;
	pid_t pid;
	int s = start_peer(how, &pid), r;

	memset(&v, 0xff, sizeof(v));
	v.decision = UIE_ALLOW;
	r = uie_bridge_measure(s, &anon, -1, &v);
	assert_int_equal(r, want);
	if (want != UIE_OK)
		assert_int_equal(v.decision, UIE_DENY);
	stop_peer(s, pid);
}

static void test_misbehaving_peers(void **state)
{
	(void)state;
	expect_deny(P_CLOSE, UIE_E_PEER);
	expect_deny(P_GARBAGE, UIE_E_PEER);
	expect_deny(P_STALE_THEN_CLOSE, UIE_E_PEER);
	expect_deny(P_WRONG_TYPE, UIE_E_PEER);
	expect_deny(P_ANSWER_FD, UIE_E_PEER);
	expect_deny(P_ERROR, UIE_E_STATE);
	expect_deny(P_STALE_THEN_GOOD, UIE_OK); /* late answers are skipped, not taken */
}

#define BURST (UIE_BRIDGE_FASTPATH_MAX + 5)

/* A burst larger than one request: every report answered and logged, in order. */
static void test_report_burst(void **state)
{
	struct uie_req file = { .event = UIE_EV_MMAP_EXEC, .role = UIE_ROLE_DSO, .pid = 3 };
	static struct uie_fastpath_report reps[BURST];
	struct uie_status st;
	pid_t pid;
	int s = start_peer(P_MONITOR, &pid);

	(void)state;
	for (unsigned i = 0; i < BURST; i++) {
		file.vaddr = 0x1000u * i;
		reps[i] = (struct uie_fastpath_report){
			.req = file,
			.digest = { UIE_HASH_SHA256, UIE_SHA256_LEN, { (uint8_t)i } },
			.status = UIE_E_STATE,
		};
	}
	assert_int_equal(uie_bridge_fastpath_report_all(s, 0, reps, BURST), UIE_OK);
	for (unsigned i = 0; i < BURST; i++)
		assert_int_equal(reps[i].status, UIE_OK);
	assert_int_equal(uie_bridge_status(s, &st), UIE_OK);
	assert_int_equal(st.nrecords, 1 + BURST);
	/* refused with the hint of an epoch not in force: answered, nothing logged */
	assert_int_equal(uie_bridge_fastpath_report_all(s, 1, reps, 2), UIE_OK);
	assert_int_equal(reps[0].status, UIE_E_STATE);
	assert_int_equal(reps[1].status, UIE_E_STATE);
	assert_int_equal(uie_bridge_status(s, &st), UIE_OK);
	assert_int_equal(st.nrecords, 1 + BURST);
	assert_int_equal(uie_bridge_fastpath_report_all(s, 0, reps, 0), UIE_OK);
	assert_int_equal(uie_bridge_fastpath_report_all(s, 0, NULL, 1), UIE_E_INVAL);
	stop_peer(s, pid);
}

/* A peer that fails: the transport error, and no report left looking answered. */
static void report_fails(enum peer how, int want, int first_status)
{
	static struct uie_fastpath_report reps[BURST];
	pid_t pid;
	int s = start_peer(how, &pid);

	memset(reps, 0, sizeof(reps));
	for (unsigned i = 0; i < BURST; i++) {
		reps[i].req = (struct uie_req){ .event = UIE_EV_MMAP_EXEC, .role = UIE_ROLE_DSO };
		reps[i].digest = (struct uie_digest){ UIE_HASH_SHA256, UIE_SHA256_LEN, { 1 } };
		reps[i].status = 12345;
	}
	assert_int_equal(uie_bridge_fastpath_report_all(s, 0, reps, BURST), want);
	assert_int_equal(reps[0].status, first_status);
	assert_int_equal(reps[BURST - 1].status, want == UIE_OK ? first_status : want);
	stop_peer(s, pid);
}

static void test_report_failures(void **state)
{
	(void)state;
	report_fails(P_CLOSE, UIE_E_PEER, UIE_E_PEER);
	report_fails(P_GARBAGE, UIE_E_PEER, UIE_E_PEER);
	report_fails(P_WRONG_TYPE, UIE_E_PEER, UIE_E_PEER);
	report_fails(P_ERROR, UIE_OK, UIE_E_STATE); /* answered, with the monitor's error */
}

static void test_no_monitor(void **state)
{
	int s = 5;

	(void)state;
	assert_int_equal(uie_bridge_connect("/nonexistent/uie.sock", &s), UIE_E_PEER);
	assert_int_equal(s, -1);
}

/* A peer that stays silent is a timeout, not "peer failed"; one that hung up is. */
static void test_timeout_named(void **state)
{
	uint8_t buf[UIE_BRIDGE_MAX_MSG];
	size_t len;
	int sv[2], fd;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_int_equal(uie_bridge_recv(sv[0], buf, &len, &fd, 50), UIE_E_TIMEOUT);
	assert_string_equal(uie_err_str(UIE_E_TIMEOUT), "timed out");
	close(sv[1]);
	assert_int_equal(uie_bridge_recv(sv[0], buf, &len, &fd, 50), UIE_E_PEER);
	close(sv[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_monitor), cmocka_unit_test(test_misbehaving_peers),
		cmocka_unit_test(test_report_burst),    cmocka_unit_test(test_report_failures),
		cmocka_unit_test(test_no_monitor),      cmocka_unit_test(test_timeout_named),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
