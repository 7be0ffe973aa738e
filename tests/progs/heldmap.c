/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An executable mapping held back after its grant while the file is
 * rewritten: `heldmap LIB SECONDS [decoy | other OTHER]`, as root.
 * `heldmap LIB crowd` holds the mmaps of CROWD processes at once instead
 * (see crowd()).
 *
 * A child (the victim) maps LIB's code executable.  A fanotify group of
 * ours (class PRE_CONTENT) holds the kernel's pre-content event of that
 * mmap (Linux 6.14: FAN_PRE_ACCESS is raised by mmap too), which comes
 * after the interceptor let the call continue, so the grant is made but
 * the mapping is not there yet.  After SECONDS a second child opens LIB
 * for writing and writes the payload over the code; a second later the
 * hold ends and the victim calls what it mapped.  Every other event of the
 * group (the interceptor's and the monitor's reads, the writer's write) is
 * let through at once.  With `decoy`, another child maps the same code while
 * the victim's mmap is held, unmaps it and exits before the wait: the
 * latest grant of the file is then one whose call is over.  With `other
 * OTHER` (a copy of LIB) the victim maps LIB's code, unmaps it, and the
 * mmap held is its next one, of OTHER: not an attack, but a thread whose
 * grant of LIB is over while it is in another mmap, which must not be
 * taken for a mapper of LIB (so the approved code runs).
 *
 * Exit: 10 when the payload ran in the victim; 0 when it did not (the
 * victim killed, or the old code ran); 3 when the kernel has no
 * pre-content events (the attack cannot apply); 2 when the set-up failed.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/fanotify.h>
#include <sys/mman.h>

#include "attempt.h"
#include "elfseg.h"
#include "payload_code.h"

#ifndef FAN_PRE_ACCESS
#define FAN_PRE_ACCESS 0x00100000
#endif
#define CANNOT_APPLY 3

static void answer(int group, int fd)
{
	struct fanotify_response r = { .fd = fd, .response = FAN_ALLOW };

	if (write(group, &r, sizeof(r)) != sizeof(r))
		fprintf(stderr, "heldmap: cannot answer an event: %s\n", strerror(errno));
	close(fd);
}

/*
 * Waits up to 10 ms for the group's events: the first of each pid[i] whose
 * held[i] is -1 is kept there, every other one is let through.  Returns
 * how many were kept, or -1 when no event came.
 */
static int serve_once(int group, const pid_t *pid, int *held, unsigned n)
{
	union {
		struct fanotify_event_metadata m;
		char b[4096];
	} buf;
	struct pollfd p = { .fd = group, .events = POLLIN };
	const struct fanotify_event_metadata *m;
	ssize_t len;
	int kept = 0;

	if (poll(&p, 1, 10) != 1)
		return -1;
	len = read(group, buf.b, sizeof(buf.b));
	for (m = &buf.m; len > 0 && FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len)) {
		unsigned i = 0;

		if (m->fd < 0)
			continue;
		while (i < n && (pid[i] != m->pid || held[i] >= 0))
			i++;
		if (i < n) {
			held[i] = m->fd;
			kept++;
		} else {
			answer(group, m->fd);
		}
	}
	return kept;
}

/*
 * Serves the group for ms, or until child (if > 0) ends, or (until_held)
 * until the victim's first event came: that one is kept in *held, every
 * other one is let through.
 */
static void serve(int group, pid_t victim, int *held, int ms, pid_t child, bool until_held)
{
	int waited = 0;

	while (waited < ms && !(until_held && *held >= 0) &&
	       !(child > 0 && waitpid(child, NULL, WNOHANG) == child))
		if (serve_once(group, &victim, held, 1) < 0)
			waited += 10;
}

/* LIB's code mapped executable (its descriptor left open); MAP_FAILED if it cannot be. */
static void *map_code(const char *lib, off_t off, size_t len)
{
	int fd = open(lib, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? MAP_FAILED : mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
}

/*
 * Opens LIB once the group watches it (the kernel decides at open whether a
 * file raises pre-content events); with other, LIB mapped and unmapped
 * first, and then other mapped as LIB would be.
 */
static int victim(const char *lib, const char *other, off_t off, size_t len, int go)
{
	char c;
	void *code;

	if (read(go, &c, 1) != 1)
		_exit(ATTEMPT_SETUP);
	if (other) {
		/* LIB's descriptor stays open (map_code): the held mmap names another one. */
		if ((code = map_code(lib, off, len)) == MAP_FAILED)
			_exit(77);
		munmap(code, len);
		lib = other;
	}
	if ((code = map_code(lib, off, len)) == MAP_FAILED)
		_exit(77);
	_exit(payload_ran(code) ? ATTEMPT_GAINED : 0);
}

/* Maps lib's code as the victim does, then leaves nothing mapped. */
static int decoy(const char *lib, off_t off, size_t len)
{
	void *code = map_code(lib, off, len);

	if (code == MAP_FAILED)
		_exit(77);
	munmap(code, len);
	_exit(0);
}

static int writer(const char *lib, off_t off)
{
	int fd = open(lib, O_RDWR | O_CLOEXEC);

	if (fd < 0 || pwrite(fd, payload_code, sizeof(payload_code), off) != sizeof(payload_code))
		_exit(ATTEMPT_SETUP);
	_exit(0);
}

#define CROWD 140

/*
 * CROWD children map LIB's code at once and every mmap that reaches the
 * kernel is held until all have been held or have ended; then all are let
 * go.  Prints how many mmaps were refused (the child saw them fail).
 * Not an attack: what the interceptor does when more grants of one file
 * may be unfinished than it keeps track of.
 */
static int crowd(int group, const char *lib, off_t off, size_t len)
{
	pid_t kid[CROWD];
	int held[CROWD], st;
	unsigned done = 0, refused = 0;

	for (unsigned i = 0; i < CROWD; i++) {
		held[i] = -1;
		if ((kid[i] = fork()) < 0)
			return setup_failed("fork");
		if (kid[i] == 0)
			_exit(map_code(lib, off, len) != MAP_FAILED ? 0 : 77);
	}
	for (int waited = 0, k; done < CROWD && waited < 30000;) {
		if ((k = serve_once(group, kid, held, CROWD)) < 0)
			waited += 10;
		else
			done += (unsigned)k;
		for (unsigned i = 0; i < CROWD; i++)
			if (kid[i] > 0 && held[i] < 0 && waitpid(kid[i], &st, WNOHANG) == kid[i]) {
				refused += WIFEXITED(st) && WEXITSTATUS(st) == 77;
				kid[i] = 0;
				done++;
			}
	}
	for (unsigned i = 0; i < CROWD; i++)
		if (held[i] >= 0)
			answer(group, held[i]);
	close(group);
	for (unsigned i = 0; i < CROWD; i++)
		if (kid[i] > 0 && waitpid(kid[i], &st, 0) == kid[i])
			refused += WIFEXITED(st) && WEXITSTATUS(st) == 77;
	printf("crowd: %u of %d mmaps refused\n", refused, CROWD);
	return 0;
}

int main(int argc, char **argv)
{
	int fd, go[2], group, held = -1, st;
	const char *other = NULL;
	pid_t v, w, d;
	size_t len;
	off_t off;

	if (argc < 3)
		return ATTEMPT_SETUP;
	if (argc > 3 && strcmp(argv[3], "other") == 0) {
		if (argc < 5)
			return ATTEMPT_SETUP;
		other = argv[4];
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || exec_segment(fd, &off, &len) != 0 || pipe(go) != 0)
		return setup_failed("open");
	group = fanotify_init(FAN_CLASS_PRE_CONTENT | FAN_CLOEXEC, O_RDONLY | O_CLOEXEC);
	if (group < 0)
		return setup_failed("fanotify_init (root only)");
	if (fanotify_mark(group, FAN_MARK_ADD, FAN_PRE_ACCESS, AT_FDCWD, other ? other : argv[1]) != 0) {
		printf("CANNOT APPLY: no pre-content events here (Linux 6.14): %s\n", strerror(errno));
		return CANNOT_APPLY;
	}
	if (strcmp(argv[2], "crowd") == 0)
		return crowd(group, argv[1], off, len);
	if ((v = fork()) < 0)
		return setup_failed("fork");
	if (v == 0)
		return victim(argv[1], other, off, len, go[0]);
	if (write(go[1], "g", 1) != 1)
		return setup_failed("go");
	serve(group, v, &held, 10000, -1, true);
	if (held < 0)
		return setup_failed("the victim's mmap raised no event");
	if (argc > 3 && strcmp(argv[3], "decoy") == 0) {
		if ((d = fork()) < 0)
			return setup_failed("fork");
		if (d == 0)
			return decoy(argv[1], off, len);
		serve(group, v, &held, 30000, d, false);
	}
	serve(group, v, &held, atoi(argv[2]) * 1000, -1, false);
	if ((w = fork()) < 0)
		return setup_failed("fork");
	if (w == 0)
		return writer(argv[1], off);
	serve(group, v, &held, 30000, w, false);
	/* A moment more: the write watch of a file that cannot be sealed sees the write
	 * only after it happened (an event, then /proc), and must find the held grant
	 * still unfinished, not a victim that already ran and exited. */
	serve(group, v, &held, 1000, -1, false);
	answer(group, held);
	close(group); /* the kernel lets through whatever comes later */
	if (waitpid(v, &st, 0) != v)
		return setup_failed("waitpid");
	if (WIFEXITED(st) && WEXITSTATUS(st) == ATTEMPT_GAINED)
		return gained("the payload written after the grant ran from the held mapping");
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
		return refused("the victim was killed before the write", EPERM);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return refused("the approved code ran", EACCES);
	fprintf(stderr, "the victim ended otherwise (status %#x)\n", st);
	return ATTEMPT_SETUP;
}
