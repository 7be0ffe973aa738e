/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A grant's call told by its number and arguments (guest/tmem.c,
 * uie_guest_call_key and uie_guest_maybe_in_call), against a real thread
 * blocked in a known call: /proc/TID/syscall must show the arguments a
 * seccomp notification of that call carries, and only they match.  And a
 * running process stopped for a look (guest/freeze.c,
 * uie_guest_in_calls_looked), as a lease break does with a grantee /proc
 * shows running: in a call, it stops at its end and still shows it; in
 * user space, it shows none.  Many that are slow to stop (a look serves
 * nothing meanwhile) cost one deadline, not one each.
 */
#include <fcntl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "freeze.h"
#include "tmem.h"
#include "uie/err.h"
#include "uie/sys.h"

#define LOOK_MS 200u     /* as a lease break looks */
#define SLOW_SPINNERS 8u /* one look each would take up to 8 deadlines */
#define SLOW_SHOWN 3u    /* of them slow to stop: one after the other they would take 3 deadlines */

/* Six arguments the thread's read(2) passes; the last three are unused by read but still in registers. */
struct blocked {
	int pipe[2];
	char buf[17];
	_Atomic pid_t tid; /* set by the thread */
};

static void *reader(void *arg)
{
	struct blocked *b = arg;

	b->tid = (pid_t)syscall(SYS_gettid);
	syscall(SYS_read, b->pipe[0], b->buf, sizeof(b->buf), 0x1111, 0x2222, 0x3333);
	return NULL;
}

/* The notification the kernel would give for the thread's read, with arg changed to value. */
static struct seccomp_notif notif_of(const struct blocked *b, unsigned arg, uint64_t value)
{
	struct seccomp_notif n = { .pid = (uint32_t)b->tid };

	n.data.nr = SYS_read;
	n.data.args[0] = (uint64_t)b->pipe[0];
	n.data.args[1] = (uint64_t)(uintptr_t)b->buf;
	n.data.args[2] = sizeof(b->buf);
	n.data.args[3] = 0x1111;
	n.data.args[4] = 0x2222;
	n.data.args[5] = 0x3333;
	n.data.args[arg] = value;
	return n;
}

/* Waits until /proc shows the thread blocked in its read. */
static void wait_blocked(const struct blocked *b)
{
	char buf[256];

	for (int i = 0; i < 5000; i++) {
		if (b->tid > 0 && uie_guest_proc_read(b->tid, "syscall", buf, sizeof(buf)) > 0 &&
		    strtol(buf, NULL, 10) == SYS_read)
			return;
		usleep(1000);
	}
	fail_msg("the thread did not block in read(2)");
}

static void test_call_told_by_arguments(void **state)
{
	static const long reads[] = { SYS_read }, mmaps[] = { SYS_mmap };
	struct blocked b = { .tid = 0 };
	struct seccomp_notif same, n;
	pthread_t t;

	(void)state;
	assert_int_equal(pipe(b.pipe), 0);
	assert_int_equal(pthread_create(&t, NULL, reader, &b), 0);
	wait_blocked(&b);
	same = notif_of(&b, 2, sizeof(b.buf));
	assert_int_not_equal(uie_guest_call_key(&same), 0);
	assert_true(uie_guest_maybe_in_call(b.tid, reads, 1, uie_guest_call_key(&same)));
	assert_true(uie_guest_maybe_in_call(b.tid, reads, 1, 0)); /* 0: any call of the list */
	assert_false(uie_guest_maybe_in_call(b.tid, mmaps, 1, 0));
	assert_false(uie_guest_maybe_in_call(b.tid, mmaps, 1, uie_guest_call_key(&same)));
	for (unsigned a = 0; a < 6; a++) {
		n = notif_of(&b, a, same.data.args[a] + 8);
		assert_false(uie_guest_maybe_in_call(b.tid, reads, 1, uie_guest_call_key(&n)));
	}
	n = same;
	n.data.nr = SYS_mmap; /* the same arguments in another call */
	assert_int_not_equal(uie_guest_call_key(&n), uie_guest_call_key(&same));
	assert_int_equal(write(b.pipe[1], "x", 1), 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* The thread is gone: in no call. */
	assert_false(uie_guest_maybe_in_call(b.tid, reads, 1, uie_guest_call_key(&same)));
	close(b.pipe[0]);
	close(b.pipe[1]);
}

#define ZERO_CHUNK (64u << 20)

/*
 * A child that reads zero (/dev/zero) into buf for ever (in the kernel
 * almost all the time), or (zero -1) spins; returned once it is at it:
 * for a reader, once its first read has filled buf (shared, set to 0xff
 * first), so that it is in its loop and not, say, preempted on its way out
 * of the write that said it started.
 */
static pid_t start_running(int zero, char *buf)
{
	int ready[2];
	pid_t c;
	char x;

	assert_int_equal(pipe(ready), 0);
	c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* not left running when an assertion fails */
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			if (zero >= 0)
				syscall(SYS_read, zero, buf, ZERO_CHUNK, 0x1111, 0x2222, 0x3333);
	}
	assert_int_equal(read(ready[0], &x, 1), 1);
	close(ready[0]);
	close(ready[1]);
	for (int i = 0; zero >= 0 && i < 10000 && *(volatile char *)&buf[ZERO_CHUNK - 1] != 0; i++)
		usleep(1000);
	assert_true(zero < 0 || buf[ZERO_CHUNK - 1] == 0);
	return c;
}

/* What a look at c says of its read, and that c was let go after it. */
static bool looked_at(pid_t c, int zero, const char *buf)
{
	static const long reads[] = { SYS_read };
	struct seccomp_notif n = { .pid = (uint32_t)c };
	struct uie_freezer z = { .serve_waiting = NULL };
	uint32_t call;
	bool in;
	int i;

	n.data.nr = SYS_read;
	n.data.args[0] = (uint64_t)zero;
	n.data.args[1] = (uint64_t)(uintptr_t)buf;
	n.data.args[2] = ZERO_CHUNK;
	n.data.args[3] = 0x1111;
	n.data.args[4] = 0x2222;
	n.data.args[5] = 0x3333;
	/* /proc alone cannot tell. */
	assert_int_equal(uie_guest_call_state(c, reads, 1, uie_guest_call_key(&n)), UIE_CALL_RUNNING);
	call = uie_guest_call_key(&n);
	uie_guest_in_calls_looked(&z, &c, &call, 1, reads, 1, LOOK_MS, &in);
	/* Let go, it runs again. */
	for (i = 0; i < 5000 && uie_guest_call_state(c, reads, 1, 0) != UIE_CALL_RUNNING; i++)
		usleep(1000);
	assert_true(i < 5000);
	assert_int_equal(z.nleft, 0); /* it stopped in time */
	return in;
}

static void test_running_looked_at(void **state)
{
	char *buf = mmap(NULL, ZERO_CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	static const long reads[] = { SYS_read };
	struct uie_freezer z = { .serve_waiting = NULL };
	int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	const uint32_t any = 0;
	bool in = false;
	pid_t c;

	(void)state;
	assert_true(buf != MAP_FAILED);
	assert_true(zero >= 0);
	memset(buf, 0xff, ZERO_CHUNK);
	c = start_running(zero, buf);
	/*
	 * Stopped at the end of its read.  Between two reads it is in user space
	 * for a few instructions, where a stop rightly finds no call: a few
	 * looks, one of which must find the read.
	 */
	for (int i = 0; i < 5 && !in; i++)
		in = looked_at(c, zero, buf);
	assert_true(in);
	kill(c, SIGKILL);
	assert_int_equal(waitpid(c, NULL, 0), c);
	c = start_running(-1, buf);
	assert_false(looked_at(c, zero, buf)); /* stopped in user space */
	kill(c, SIGKILL);
	assert_int_equal(waitpid(c, NULL, 0), c);
	in = true;
	uie_guest_in_calls_looked(&z, &c, &any, 1, reads, 1, LOOK_MS, &in);
	assert_false(in); /* gone */
	close(zero);
	munmap(buf, ZERO_CHUNK);
}

/* A child spinning in user space; pinned to cpu at policy (nice for SCHED_OTHER). */
static pid_t spin_on(int cpu, int policy, int nice)
{
	struct sched_param p = { 0 };
	pid_t c = start_running(-1, NULL);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	assert_int_equal(sched_setscheduler(c, policy, &p), 0);
	assert_int_equal(setpriority(PRIO_PROCESS, (id_t)c, nice), 0);
	assert_int_equal(sched_setaffinity(c, sizeof(set), &set), 0);
	return c;
}

/*
 * Kills the hog and the spinners and reaps them, letting go (through z)
 * those a look left our tracees; gives us back our CPUs.
 */
static void end_all(struct uie_freezer *z, pid_t hog, const pid_t *c, const cpu_set_t *mine)
{
	kill(hog, SIGKILL);
	assert_int_equal(waitpid(hog, NULL, 0), hog);
	for (unsigned i = 0; i < SLOW_SPINNERS; i++)
		kill(c[i], SIGKILL);
	for (int i = 0; i < 5000 && z->nleft; i++) {
		uie_guest_thaw_left(z);
		usleep(1000);
	}
	assert_int_equal(z->nleft, 0);
	for (unsigned i = 0; i < SLOW_SPINNERS; i++)
		assert_int_equal(waitpid(c[i], NULL, 0), c[i]);
	assert_int_equal(sched_setaffinity(0, sizeof(*mine), mine), 0);
}

/*
 * SCHED_IDLE spinners sharing one CPU with a nice -20 spinner get seldom a
 * turn on it, so most do not stop for a look in time; a lease break looks
 * at up to 128 grantees, serving nothing meanwhile.  All are asked at once
 * and waited for with one deadline: together they take about one deadline,
 * not one each (those that did not stop count as in their calls).  Needs
 * two CPUs (we look from another) and the right to raise a priority (root);
 * shows nothing when the scheduler lets most of them stop in time.
 */
static void test_slow_to_stop_looked_at_together(void **state)
{
	static const long reads[] = { SYS_read };
	struct uie_freezer z = { .serve_waiting = NULL };
	pid_t hog, c[SLOW_SPINNERS];
	uint32_t any[SLOW_SPINNERS] = { 0 };
	bool in[SLOW_SPINNERS];
	cpu_set_t mine, others;
	uint64_t t0, took;
	unsigned slow = 0;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	others = mine;
	CPU_CLR(0, &others);
	if (!CPU_ISSET(0, &mine) || CPU_COUNT(&others) == 0 || geteuid() != 0) {
		print_message("skipped: needs CPU 0 and another, and root (nice -20)\n");
		skip();
	}
	assert_int_equal(sched_setaffinity(0, sizeof(others), &others), 0);
	hog = spin_on(0, SCHED_OTHER, -20);
	for (unsigned i = 0; i < SLOW_SPINNERS; i++)
		c[i] = spin_on(0, SCHED_IDLE, 0);
	usleep(100000); /* each has had its first turn */
	for (unsigned i = 0; i < SLOW_SPINNERS; i++)
		assert_int_equal(uie_guest_call_state(c[i], reads, 1, 0),
				 UIE_CALL_RUNNING); /* /proc cannot tell */
	t0 = uie_now_ms();
	uie_guest_in_calls_looked(&z, c, any, SLOW_SPINNERS, reads, 1, LOOK_MS, in);
	took = uie_now_ms() - t0;
	for (unsigned i = 0; i < SLOW_SPINNERS; i++)
		slow += in[i]; /* not seen stopped: counts */
	end_all(&z, hog, c, &mine);
	if (slow < SLOW_SHOWN) {
		print_message(
			"skipped: %u of %u spinners stopped in time (this scheduler gave them the CPU)\n",
			SLOW_SPINNERS - slow, SLOW_SPINNERS);
		skip();
	}
	if (took >= 5 * LOOK_MS / 2)
		fail_msg("%u threads, %u slow to stop, took %llu ms to look at (deadline %u ms)",
			 SLOW_SPINNERS, slow, (unsigned long long)took, LOOK_MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_told_by_arguments),
		cmocka_unit_test(test_running_looked_at),
		cmocka_unit_test(test_slow_to_stop_looked_at_together),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
