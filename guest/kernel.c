/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the running kernel offers, probed once when `uie run` starts.  The
 * interceptor runs on Debian 12's Linux 6.1; features of later kernels are
 * used where present and replaced where not (docs/VM.md, "Kernel
 * features"); a feature nothing can replace is a start-up error naming it
 * and the kernel that has it.
 *
 * Tests force the fallbacks on a newer kernel with UIE_KERNEL_LACKS, a
 * comma-separated list of feature names (or "all", every feature with a
 * fallback); it only ever turns a feature off, and every fallback keeps the
 * same guarantees.  "landlock" (only by name) tests the start-up error.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel.h"
#include "maps.h"
#include "tmem.h"
#include "uie/err.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* True when UIE_KERNEL_LACKS names feature (or says "all" and in_all is set). */
static bool lacks(const char *feature, bool in_all)
{
	const char *v = getenv("UIE_KERNEL_LACKS");
	size_t len = strlen(feature);

	if (!v)
		return false;
	for (const char *p = v; *p;) {
		size_t n = strcspn(p, ",");

		if ((in_all && n == 3 && !strncmp(p, "all", 3)) || (n == len && !strncmp(p, feature, len)))
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

static bool has_pidfd_thread(void)
{
	int fd = (int)syscall(SYS_pidfd_open, getpid(), PIDFD_THREAD);

	if (fd < 0)
		return false; /* EINVAL before 6.9: unknown flag */
	close(fd);
	return true;
}

/* What cannot be replaced: the name, the kernel, and a probe (true: present). */
static int require(bool present, const char *what)
{
	if (present)
		return UIE_OK;
	fprintf(stderr, "uie: this kernel lacks %s; cannot supervise\n", what);
	return UIE_E_VERSION;
}

int uie_guest_kernel_probe(struct uie_kernel *k, int verbose)
{
	long abi;
	int self, dup = -1, r = UIE_OK;

	memset(k, 0, sizeof(*k));
	self = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if ((r = require(self >= 0, "pidfd_open (Linux 5.3)")) != UIE_OK)
		return r;
	dup = (int)syscall(SYS_pidfd_getfd, self, self, 0);
	r = require(dup >= 0, "pidfd_getfd (Linux 5.6)");
	if (r == UIE_OK)
		r = require(syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, self, dup) == 0,
			    "kcmp (CONFIG_KCMP; Debian's kernels have it)");
	if (r == UIE_OK) {
		struct open_how how = { .flags = O_PATH | O_CLOEXEC };
		int root = (int)syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));

		r = require(root >= 0, "openat2 (Linux 5.6)");
		if (root >= 0)
			close(root);
	}
	if (dup >= 0)
		close(dup);
	close(self);
	if (r != UIE_OK)
		return r;
	abi = lacks("landlock", false)
		      ? (errno = ENOSYS, -1)
		      : syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if ((r = require(abi >= 1, abi < 0 && errno == EOPNOTSUPP
					   ? "Landlock: built in but not enabled (add landlock to lsm= on "
					     "the kernel command line)"
					   : "Landlock (Linux 5.13)")) != UIE_OK)
		return r;
	k->landlock_abi = (int)abi;
	if (k->landlock_abi >= 2 && lacks("landlock_refer", true))
		k->landlock_abi = 1;
	k->pidfd_thread = !lacks("pidfd_thread", true) && has_pidfd_thread();
	k->procmap_query = !lacks("procmap_query", true) && uie_guest_maps_query_works();
	k->pidfd_get_info = !lacks("pidfd_get_info", true) && uie_guest_pidfd_info_works();
	k->sync_wake_up = !lacks("sync_wake_up", true); /* tried on the listener (loop.c) */
	if (verbose) {
		if (!k->pidfd_thread)
			fprintf(stderr, "uie: no PIDFD_THREAD (Linux 6.9): thread descriptors are checked "
					"with kcmp\n");
		if (!k->procmap_query)
			fprintf(stderr, "uie: no PROCMAP_QUERY (Linux 6.11): mappings are read from "
					"/proc/PID/maps\n");
		if (!k->pidfd_get_info)
			fprintf(stderr, "uie: no PIDFD_GET_INFO (Linux 6.13): threads are counted in "
					"/proc/PID/status\n");
		if (k->landlock_abi < 2)
			fprintf(stderr, "uie: Landlock ABI %d: no renames or links across directories\n",
				k->landlock_abi);
	}
	return UIE_OK;
}
