/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Durations kept for their median (lib/sys/samples.c): odd and even
 * counts, order of arrival, clamping, and the bound (only the last
 * UIE_SAMPLES_CAP samples count), and a full array's median taken under a
 * filter that kills sysinfo, as the monitor's does (glibc's qsort calls it).
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "uie/samples.h"
#include "uie/seccomp.h"
#include "tcommon.h"

static void test_empty(void **state)
{
	static struct uie_samples s;

	(void)state;
	assert_int_equal(uie_samples_median(&s), 0);
}

static void test_odd_even_unordered(void **state)
{
	static struct uie_samples s;
	static const uint64_t in[] = { 900, 100, 500, 300, 700 };

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		uie_samples_add(&s, in[i]);
	assert_int_equal(uie_samples_median(&s), 500);
	uie_samples_add(&s, 1100);
	assert_int_equal(uie_samples_median(&s), 600); /* (500 + 700) / 2 */
	assert_int_equal(s.n, 6);
}

static void test_clamped(void **state)
{
	static struct uie_samples s;

	(void)state;
	uie_samples_add(&s, 1ull << 40);
	assert_int_equal(uie_samples_median(&s), UINT32_MAX);
}

static void test_last_ones_count(void **state)
{
	static struct uie_samples s;

	(void)state;
	for (unsigned i = 0; i < UIE_SAMPLES_CAP; i++)
		uie_samples_add(&s, 1000000);
	for (unsigned i = 0; i < UIE_SAMPLES_CAP / 2 + 1; i++)
		uie_samples_add(&s, 10);
	/* more than half of the kept samples are the newer ones */
	assert_int_equal(uie_samples_median(&s), 10);
	assert_int_equal(s.n, UIE_SAMPLES_CAP + UIE_SAMPLES_CAP / 2 + 1);
}

/*
 * A full array's median in a child whose filter kills sysinfo, as
 * uie-monitord's does.  glibc's qsort asks sysinfo once per process and
 * keeps the answer, so this test runs first, before anything in this
 * process could have sorted (with the old qsort it then fails).
 */
static void test_full_under_filter(void **state)
{
	static struct uie_samples s;
	struct sock_filter f[] = {
		UIE_BPF_X86_64_NR(SECCOMP_RET_ALLOW),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sysinfo, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	int st = 0;
	pid_t pid;

	(void)state;
	for (unsigned i = 0; i < UIE_SAMPLES_CAP; i++)
		uie_samples_add(&s, (uint64_t)((i * 7919u) % UIE_SAMPLES_CAP)); /* 0..CAP-1, shuffled */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
			_exit(2);
		_exit(uie_samples_median(&s) == (UIE_SAMPLES_CAP - 1) / 2 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st)); /* not killed by SIGSYS */
	assert_int_equal(WEXITSTATUS(st), 0);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_full_under_filter), cmocka_unit_test(test_empty),
	cmocka_unit_test(test_odd_even_unordered), cmocka_unit_test(test_clamped),
	cmocka_unit_test(test_last_ones_count))
