/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An exec open held back, then the next file of the execve swapped:
 * `execstall DIR GOOD EVIL SECONDS [CROWD]`, as root.
 *
 * DIR/s is a script whose #! line names "ldswap", a relative name the
 * kernel opens from the caller's working directory (DIR), where ldswap is
 * first a symlink to GOOD.  A fanotify group of ours (class PRE_CONTENT,
 * served before any CONTENT group such as the interceptor's) holds the
 * kernel's exec open of DIR/s for SECONDS; meanwhile ldswap is pointed at
 * EVIL, which the kernel opens as the interpreter once the hold ends.
 * The interceptor checked ldswap = GOOD when the execve was trapped: the
 * exec watch must still know this execve, however long it was held.
 *
 * CROWD, if given: that many other children run DIR/t (also held) while
 * the victim is held, more execves in flight than the interceptor keeps
 * in its table: the victim's must not be the one it forgets.
 *
 * The victim exits 10 if EVIL runs (the payload); natively it always does.
 * With EVIL the same as GOOD nothing is swapped: the run is about the crowd
 * alone, and exits 0 once the victim ran GOOD.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/fanotify.h>
#include <sys/stat.h>

#include "attempt.h"

#define MAX_CROWD 256

static int hold(int group, const char *path)
{
	return fanotify_mark(group, FAN_MARK_ADD, FAN_OPEN_EXEC_PERM, AT_FDCWD, path);
}

static void answer(int group, int fd)
{
	struct fanotify_response r = { .fd = fd, .response = FAN_ALLOW };

	if (write(group, &r, sizeof(r)) != sizeof(r))
		fprintf(stderr, "execstall: cannot answer an event: %s\n", strerror(errno));
	close(fd);
}

/*
 * Reads events, the victim's event fd into *victim_fd and the others' into
 * held[], until none came for ms (or, with until_victim, the victim's came).
 */
static void collect(int group, pid_t victim, int *victim_fd, int *held, unsigned *nheld, int ms,
		    bool until_victim)
{
	union {
		struct fanotify_event_metadata m;
		char b[8192];
	} buf;
	struct pollfd p = { .fd = group, .events = POLLIN };

	while (!(until_victim && *victim_fd >= 0) && poll(&p, 1, ms) == 1) {
		ssize_t len = read(group, buf.b, sizeof(buf.b));
		const struct fanotify_event_metadata *m;

		if (len <= 0)
			return;
		for (m = &buf.m; FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len)) {
			if (m->fd < 0)
				continue;
			if (m->pid == victim && *victim_fd < 0)
				*victim_fd = m->fd;
			else if (*nheld < MAX_CROWD)
				held[(*nheld)++] = m->fd;
			else
				answer(group, m->fd);
		}
	}
}

static pid_t run(const char *dir, const char *script)
{
	pid_t c = fork();

	if (c == 0) {
		if (chdir(dir) != 0)
			_exit(ATTEMPT_SETUP);
		execl(script, script, (char *)NULL);
		_exit(errno == EACCES || errno == EPERM ? 77 : 78);
	}
	return c;
}

int main(int argc, char **argv)
{
	char s[4096], t[4096], swap[4096], tmp[4096];
	int held[MAX_CROWD], victim_fd = -1, group, st;
	unsigned crowd = argc > 5 ? (unsigned)atoi(argv[5]) : 0, nheld = 0, refused_crowd = 0;
	pid_t victim, kids[MAX_CROWD];
	FILE *f;

	if (argc < 5 || crowd > MAX_CROWD)
		return ATTEMPT_SETUP;
	snprintf(s, sizeof(s), "%s/s", argv[1]);
	snprintf(t, sizeof(t), "%s/t", argv[1]);
	snprintf(swap, sizeof(swap), "%s/ldswap", argv[1]);
	snprintf(tmp, sizeof(tmp), "%s/.evil", argv[1]);
	unlink(swap);
	unlink(tmp);
	if (symlink(argv[2], swap) != 0 || symlink(argv[3], tmp) != 0)
		return setup_failed("symlink");
	if (!(f = fopen(s, "w")) || fputs("#!ldswap\n", f) < 0 || fclose(f) != 0 || chmod(s, 0755) != 0)
		return setup_failed(s);
	if (!(f = fopen(t, "w")) || fprintf(f, "#!%s\n", argv[2]) < 0 || fclose(f) != 0 ||
	    chmod(t, 0755) != 0)
		return setup_failed(t);
	group = fanotify_init(FAN_CLASS_PRE_CONTENT | FAN_CLOEXEC, O_RDONLY | O_CLOEXEC);
	if (group < 0)
		return setup_failed("fanotify_init (root only)");
	if (hold(group, s) != 0 || hold(group, t) != 0)
		return setup_failed("fanotify_mark");

	if ((victim = run(argv[1], "./s")) < 0)
		return setup_failed("fork");
	collect(group, victim, &victim_fd, held, &nheld, 10000, true);
	if (victim_fd < 0)
		return setup_failed("the victim's exec open never came");
	for (unsigned i = 0; i < crowd; i++)
		if ((kids[i] = run(argv[1], "./t")) < 0)
			return setup_failed("fork");
	/* Held until every child has come (or was refused), then SECONDS more. */
	collect(group, victim, &victim_fd, held, &nheld, 2000, false);
	sleep((unsigned)atoi(argv[4]));
	if (rename(tmp, swap) != 0)
		return setup_failed("rename");
	for (unsigned i = 0; i < nheld; i++)
		answer(group, held[i]);
	answer(group, victim_fd);
	/* The kernel lets through whatever the group has not answered yet (a child of the crowd
	 * that came late on a slow machine): nobody waits for a hold that nobody serves. */
	close(group);
	for (unsigned i = 0; i < crowd; i++)
		if (waitpid(kids[i], &st, 0) == kids[i] && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			refused_crowd++;
	printf("crowd of %u: %u held, %u failed\n", crowd, nheld, refused_crowd);
	if (waitpid(victim, &st, 0) != victim)
		return setup_failed("waitpid");
	if (strcmp(argv[2], argv[3]) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == ATTEMPT_GAINED)
		return gained("EVIL ran as the interpreter of an exec open held back");
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
		return refused("EVIL as the interpreter after a held exec open", EPERM);
	fprintf(stderr, "the victim ended otherwise (status %#x)\n", st);
	return ATTEMPT_SETUP;
}
