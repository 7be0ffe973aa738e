/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The seccomp filter's mremap clause (guest/filter.c): which calls reach
 * the supervisor.  A thread installs the filter (it applies to that thread
 * only) and makes mremap calls at an unaligned address, which the kernel
 * fails with EINVAL without touching anything; a responder thread answers
 * every notification with EXDEV.  So EXDEV means the filter sent the call
 * to the supervisor, EINVAL that it stayed in the kernel.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "confine.h"
#include "uie/err.h"
#include "tcommon.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#define G (1ull << 32)

static const struct {
	uint64_t old_size, new_size, flags;
	int want; /* EXDEV: trapped; EINVAL: the kernel's own answer */
} cases[] = {
	{ 8192, 4096, 0, EINVAL },                            /* shrink in place */
	{ 8192, 4096, MREMAP_MAYMOVE, EINVAL },               /* shrink: never moves */
	{ 4096, 4096, MREMAP_MAYMOVE, EINVAL },               /* same size */
	{ 4096, 8192, 0, EXDEV },                             /* grow in place */
	{ 4096, 8192, MREMAP_MAYMOVE, EXDEV },                /* grow or move */
	{ 0, 4096, MREMAP_MAYMOVE, EXDEV },                   /* duplicate a shared mapping */
	{ 8192, 4096, MREMAP_MAYMOVE | MREMAP_FIXED, EXDEV }, /* move */
	{ 4096, 4096, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, EXDEV },
	{ 4096, 4096, 0x80, EXDEV },      /* a flag the filter does not know */
	{ G + 8192, 4096, 0, EINVAL },    /* high words: old above new */
	{ 4096, G + 4096, 0, EXDEV },     /* high words: new above old */
	{ G + 4096, G + 8192, 0, EXDEV }, /* equal high words, new low word above */
	{ G + 8192, G + 4096, 0, EINVAL },
	{ 2 * G, G + 0xfffff000u, 0, EINVAL }, /* a larger low word under a smaller high word */
};

struct run {
	int listener, install;
	int got[sizeof(cases) / sizeof(cases[0])];
	atomic_int done;
};

static void *caller(void *arg)
{
	struct run *r = arg;

	r->install = uie_guest_filter_install(&r->listener, false);
	for (size_t i = 0; r->install == UIE_OK && i < sizeof(cases) / sizeof(cases[0]); i++)
		r->got[i] = syscall(SYS_mremap, 1ul, cases[i].old_size, cases[i].new_size, cases[i].flags,
				    0) == -1
				    ? errno
				    : 0;
	atomic_store(&r->done, 1);
	return NULL;
}

/* Answers every notification on the listener with EXDEV until the caller is done. */
static void answer_all(struct run *r)
{
	struct seccomp_notif_sizes sz;
	struct seccomp_notif *n;
	struct seccomp_notif_resp *resp;

	assert_int_equal(syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz), 0);
	n = calloc(1, sz.seccomp_notif);
	resp = calloc(1, sz.seccomp_notif_resp);
	assert_non_null(n);
	assert_non_null(resp);
	while (!atomic_load(&r->done)) {
		struct pollfd p = { .fd = r->listener, .events = POLLIN };

		if (r->listener < 0 || poll(&p, 1, 20) != 1)
			continue;
		memset(n, 0, sz.seccomp_notif);
		if (ioctl(r->listener, SECCOMP_IOCTL_NOTIF_RECV, n) != 0)
			continue;
		memset(resp, 0, sz.seccomp_notif_resp);
		resp->id = n->id;
		resp->error = n->data.nr == SYS_mremap ? -EXDEV : -EPERM;
		ioctl(r->listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
	}
	free(n);
	free(resp);
}

static void test_mremap_clause(void **state)
{
	struct run r = { .listener = -1 };
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, caller, &r), 0);
	answer_all(&r);
	pthread_join(t, NULL);
	assert_int_equal(r.install, UIE_OK);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (r.got[i] != cases[i].want)
			print_error("case %zu: old %#llx new %#llx flags %#llx\n", i,
				    (unsigned long long)cases[i].old_size,
				    (unsigned long long)cases[i].new_size,
				    (unsigned long long)cases[i].flags);
		assert_int_equal(r.got[i], cases[i].want);
	}
	close(r.listener);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_mremap_clause))
