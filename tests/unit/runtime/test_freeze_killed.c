/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A thread we hold stopped (guest/freeze.c) that its parent kills
 * meanwhile: the SIGKILL wakes it from its ptrace stop, so the detach at
 * thaw fails, and its exit waits for its tracer (us) to reap it before its
 * parent's wait sees it.  The parent must see it (the interceptor's
 * supervised program would wait for ever: tests/progs/execfleet did, in
 * CI), both for a thaw of a freeze and for a thread let go later, and
 * when the list of threads kept for later is full.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "freeze.h"
#include "tmem.h"
#include "uie/err.h"

#define PARENT_WAIT_S 10 /* the parent's wait, bounded: without the fix it never ends */

/*
 * A parent (returned, its child's pid in *child) whose child spins in user
 * space; the parent kills the child when told (a byte on *go), waits for
 * it, and exits 0 once its wait saw the child, 1 if it saw something else.
 */
static pid_t start_parent(pid_t *child, int *go)
{
	int pids[2], tell[2];
	pid_t a;

	assert_int_equal(pipe(pids), 0);
	assert_int_equal(pipe(tell), 0);
	a = fork();
	assert_true(a >= 0);
	if (a == 0) {
		pid_t b;
		char x;
		int st;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(tell[1]);
		b = fork();
		if (b < 0)
			_exit(2);
		if (b == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				__asm__ volatile("pause");
		}
		if (write(pids[1], &b, sizeof(b)) != (ssize_t)sizeof(b) || read(tell[0], &x, 1) != 1)
			_exit(2);
		alarm(PARENT_WAIT_S); /* the default action ends the parent: seen as a signal */
		kill(b, SIGKILL);
		_exit(waitpid(b, &st, 0) == b && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : 1);
	}
	close(tell[0]);
	close(pids[1]);
	assert_int_equal(read(pids[0], child, sizeof(*child)), (ssize_t)sizeof(*child));
	close(pids[0]);
	*go = tell[1];
	return a;
}

/* Waits until the killed child is a zombie (its tracer, we, not having reaped it). */
static void wait_zombie(pid_t c)
{
	char buf[512], *state;

	for (int i = 0; i < 5000; i++) {
		if (uie_guest_proc_read(c, "status", buf, sizeof(buf)) > 0 &&
		    (state = strstr(buf, "State:")) && strchr(state, 'Z') &&
		    strchr(state, 'Z') < strchr(state, '\n'))
			return;
		usleep(1000);
	}
	fail_msg("the killed child %d never became a zombie", (int)c);
}

/* Lets go what thawing kept, as the interceptor's loop does, then reaps the parent. */
static void expect_parent_saw_child(struct uie_freezer *z, pid_t a)
{
	int st = 0;

	for (int i = 0; i < 2000 && z->nleft; i++) {
		uie_guest_thaw_left(z);
		usleep(1000);
	}
	assert_int_equal(z->nleft, 0);
	assert_int_equal(waitpid(a, &st, 0), a);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("the parent's wait for its killed child did not end (status %#x)", (unsigned)st);
}

/*
 * Fills z's list of threads left with ids no process has (above any
 * pid_max): the next thread to keep finds no room.
 */
static void fill_left(struct uie_freezer *z)
{
	for (unsigned i = 0; i < UIE_FREEZE_LEFT; i++) {
		z->left[i] = (struct uie_frozen){ .tid = (pid_t)(INT32_MAX - i) };
		z->left_tgid[i] = (pid_t)(INT32_MAX - i);
	}
	z->nleft = UIE_FREEZE_LEFT;
}

/*
 * A child stopped by a freeze and killed by its parent before the thaw (or
 * after it); left_full: with no room left to keep it for a later reaping.
 */
static void freeze_kill(bool before_thaw, bool left_full)
{
	struct uie_freezer z = { .serve_waiting = NULL };
	static struct uie_freeze f;
	pid_t a, c;
	int go;

	a = start_parent(&c, &go);
	assert_int_equal(uie_guest_freeze(&z, &f, c, c), UIE_OK);
	assert_int_equal(uie_guest_await_caller(&z, &f), UIE_OK); /* stopped */
	if (before_thaw) {
		assert_int_equal(write(go, "k", 1), 1);
		wait_zombie(c);
	}
	if (left_full)
		fill_left(&z);
	uie_guest_thaw(&z, &f);
	if (!before_thaw) {
		assert_int_equal(z.nleft, left_full ? UIE_FREEZE_LEFT : 0); /* the detach did its work */
		assert_int_equal(write(go, "k", 1), 1);
	}
	expect_parent_saw_child(&z, a);
	close(go);
}

static void test_killed_while_frozen(void **state)
{
	(void)state;
	freeze_kill(true, false);
}

static void test_killed_after_thaw(void **state)
{
	(void)state;
	freeze_kill(false, false);
}

static void test_killed_while_frozen_left_full(void **state)
{
	(void)state;
	freeze_kill(true, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_killed_while_frozen),
		cmocka_unit_test(test_killed_after_thaw),
		cmocka_unit_test(test_killed_while_frozen_left_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
