/* SPDX-License-Identifier: Apache-2.0 */
/* Loading the whole-boot guard (guard.h) with libbpf, from the object's bytes built into uie-init. */
#include "guard.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.bpf.h"
#include "uie/err.h"

#define GUARD_PROGS 4 /* the programs of guard.bpf.c */

struct uie_guard {
	struct bpf_object *obj;
	struct bpf_map *tree;
	struct bpf_link *links[GUARD_PROGS];
};

int uie_guard_join(struct uie_guard *g)
{
	uint8_t one = 1;
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	int r;

	if (pidfd < 0)
		return UIE_E_SYS;
	r = bpf_map__update_elem(g->tree, &pidfd, sizeof(pidfd), &one, sizeof(one), BPF_ANY);
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

/* Attaches every program that was loaded. */
static int attach(struct uie_guard *g)
{
	struct bpf_program *p;
	int n = 0;

	bpf_object__for_each_program(p, g->obj)
	{
		if (!bpf_program__autoload(p))
			continue;
		if (n == GUARD_PROGS || !(g->links[n] = bpf_program__attach(p)))
			return n == GUARD_PROGS ? -E2BIG : -errno;
		n++;
	}
	return 0;
}

static void drop(struct uie_guard *g)
{
	for (int i = 0; i < GUARD_PROGS; i++)
		bpf_link__destroy(g->links[i]);
	bpf_object__close(g->obj);
	free(g);
}

int uie_guard_start(bool allow_userns, struct uie_guard **out, const char **step)
{
	struct bpf_object_open_opts oo = { .sz = sizeof(oo), .object_name = "uie_guard" };
	struct uie_guard *g = calloc(1, sizeof(*g));
	struct bpf_program *userns;
	int r = -ENOMEM;

	*step = "allocated";
	if (!g)
		goto fail;
	*step = "opened";
	if (!(g->obj = bpf_object__open_mem(uie_guard_obj, sizeof(uie_guard_obj), &oo)) ||
	    !(g->tree = bpf_object__find_map_by_name(g->obj, "tree"))) {
		r = -errno;
		goto fail;
	}
	/* --allow-userns: the user namespace hook is left out. */
	if (!(userns = bpf_object__find_program_by_name(g->obj, "tree_userns"))) {
		r = -ENOENT;
		goto fail;
	}
	if (allow_userns && (r = bpf_program__set_autoload(userns, false)) != 0)
		goto fail;
	*step = "loaded (libbpf says why above)";
	if ((r = bpf_object__load(g->obj)) != 0)
		goto fail;
	*step = "attached";
	if ((r = attach(g)) != 0)
		goto fail;
	*step = "checked (a write open of /proc/self/mem or core_pattern in the tree was not refused)";
	if (!works(g)) {
		r = -EPERM;
		goto fail;
	}
	*out = g;
	return UIE_OK;
fail:
	if (g)
		drop(g);
	errno = -r;
	return UIE_E_SYS;
}
