/* SPDX-License-Identifier: Apache-2.0 */
/* Loading the whole-boot guard (guard.h) with libbpf, from the object embedded by its skeleton. */
#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.skel.h"
#include "uie/err.h"

struct uie_guard {
	struct uie_guard_bpf *skel;
};

int uie_guard_join(struct uie_guard *g)
{
	uint8_t one = 1;
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	int r;

	if (pidfd < 0)
		return UIE_E_SYS;
	r = bpf_map__update_elem(g->skel->maps.tree, &pidfd, sizeof(pidfd), &one, sizeof(one), BPF_ANY);
	close(pidfd);
	if (r != 0) {
		errno = -r;
		return UIE_E_SYS;
	}
	return UIE_OK;
}

/* 0 when PATH cannot be opened for writing with EPERM, 1 otherwise. */
static int refused(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd); /* nothing written */
	return fd < 0 && errno == EPERM ? 0 : 1;
}

/* The guard works on a task its first task created: both opens refused. */
static bool works(struct uie_guard *g)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		pid_t child;

		if (uie_guard_join(g) != UIE_OK || (child = fork()) < 0)
			_exit(1);
		if (child == 0)
			_exit(refused("/proc/self/mem") | refused("/proc/sys/kernel/core_pattern"));
		_exit(waitpid(child, &st, 0) == child && WIFEXITED(st) ? WEXITSTATUS(st) : 1);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int uie_guard_start(bool allow_userns, struct uie_guard **out, const char **step)
{
	struct uie_guard *g = calloc(1, sizeof(*g));
	int r = 0;

	*step = "allocated";
	if (!g)
		return UIE_E_SYS;
	*step = "opened";
	if (!(g->skel = uie_guard_bpf__open()))
		goto fail;
	g->skel->rodata->allow_userns = allow_userns;
	*step = "loaded (libbpf says why above)";
	if ((r = uie_guard_bpf__load(g->skel)) != 0)
		goto fail;
	*step = "attached";
	if ((r = uie_guard_bpf__attach(g->skel)) != 0)
		goto fail;
	*step = "checked (a write open of /proc/self/mem or core_pattern in the tree was not refused)";
	if (!works(g)) {
		r = -EPERM;
		goto fail;
	}
	*out = g;
	return UIE_OK;
fail:
	if (r < 0)
		errno = -r;
	uie_guard_bpf__destroy(g->skel);
	free(g);
	return UIE_E_SYS;
}
