/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A grant's call told by its number and arguments (guest/tmem.c,
 * uie_guest_call_key and uie_guest_maybe_in_call), against a real thread
 * blocked in a known call: /proc/TID/syscall must show the arguments a
 * seccomp notification of that call carries, and only they match.
 */
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "tmem.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_told_by_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
