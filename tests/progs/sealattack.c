/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writes to an approved file while it is mapped executable, by a process
 * that does not map it (so that only the victim's mapping is at stake).
 * `sealattack MODE LIB [SECONDS [FILE]]`: the process maps LIB's code
 * executable (a grant), then a child that has unmapped it opens FILE (LIB
 * by default; on overlayfs, LIB's file in a layer directory) and
 *   shared    stores the payload through a shared writable mapping of it
 *             (no write system call: no FAN_MODIFY)
 *   writerun  writes the payload with pwrite, and the parent runs it and
 *             exits at once (within a millisecond of the write)
 *   copyup    as writerun, but the parent first changes LIB's mode (to the
 *             same: on overlayfs that copies a lower layer's file up) and
 *             maps LIB's code again (the copy, on overlayfs: FILE is the
 *             upper layer's)
 *   race      for SECONDS keeps writing the payload, 0.5 ms later the
 *             original back, closing and opening it again, while the parent
 *             keeps mapping the code afresh and calling it (grants racing
 *             writers)
 * and the parent calls the code.  GAINED when the payload ran; a victim
 * killed before the write never says anything (exit 137).  In the race the
 * victim may call the code while a write is half done (the kernel copies the
 * bytes into the page cache while another CPU runs them): it then faults or
 * runs garbage, and that too is bytes written after a grant that ran (GAINED),
 * not a crash of the test.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attempt.h"
#include "elfseg.h"
#include "payload_code.h"

static const char *lib_path, *write_path;
static time_t race_end;
static sigjmp_buf torn; /* where a fault in code being rewritten returns to */

static void on_torn(int sig)
{
	siglongjmp(torn, sig);
}

/* The race's writer: the payload in, the original back, until end. */
static int rewriter(int fd, size_t len, off_t off, time_t end)
{
	unsigned char *orig = malloc(len);

	if (!orig || pread(fd, orig, len, off) != (ssize_t)len)
		return setup_failed("read the original");
	while (time(NULL) < end) {
		if (pwrite(fd, payload_code, sizeof(payload_code), off) != sizeof(payload_code))
			return setup_failed("pwrite");
		usleep(500); /* long enough for a victim that calls the code natively */
		if (pwrite(fd, orig, sizeof(payload_code), off) != sizeof(payload_code))
			return setup_failed("pwrite");
		close(fd);
		usleep(500);
		fd = open(write_path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return setup_failed("open for writing");
	}
	return 0;
}

static int child(const char *mode, void *code, size_t len, off_t off)
{
	unsigned char *w;
	int fd;

	munmap(code, len);
	fd = open(write_path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return setup_failed("open for writing");
	if (!strcmp(mode, "writerun") || !strcmp(mode, "copyup"))
		return pwrite(fd, payload_code, sizeof(payload_code), off) == sizeof(payload_code) ? 0 : 2;
	if (!strcmp(mode, "race"))
		return rewriter(fd, len, off, race_end);
	w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (w == MAP_FAILED)
		return setup_failed("shared writable mapping");
	memcpy(w, payload_code, sizeof(payload_code));
	return 0;
}

/* The race's victim: maps the code afresh and calls it until the writer is done. */
static int race(pid_t writer, void *code, size_t len, off_t off)
{
	volatile unsigned long grants = 0, refusals = 0; /* kept across the fault's siglongjmp */
	int fd = open(lib_path, O_RDONLY | O_CLOEXEC), st;
	struct sigaction sa = { .sa_handler = on_torn };

	munmap(code, len);
	if (sigaction(SIGSEGV, &sa, NULL) != 0 || sigaction(SIGILL, &sa, NULL) != 0 ||
	    sigaction(SIGBUS, &sa, NULL) != 0)
		return setup_failed("fault handlers");
	if (sigsetjmp(torn, 1) != 0) {
		kill(writer, SIGKILL);
		return gained("bytes written after a grant ran (half written: the call faulted)");
	}
	while (fd >= 0 && waitpid(writer, &st, WNOHANG) == 0) {
		code = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
		if (code == MAP_FAILED) {
			refusals++;
			continue;
		}
		grants++;
		if (payload_ran(code)) {
			kill(writer, SIGKILL);
			return gained("bytes written after a grant ran");
		}
		munmap(code, len);
	}
	printf("granted %lu times, refused %lu times\n", grants, refusals);
	return refused("the payload never ran", EACCES);
}

/* Maps LIB's code executable (a grant): NULL when refused. */
static void *map_code(size_t *len, off_t *off)
{
	int fd = open(lib_path, O_RDONLY | O_CLOEXEC);
	void *code;

	if (fd < 0)
		return NULL;
	if (exec_segment(fd, off, len) != 0) {
		close(fd);
		return NULL;
	}
	code = mmap(NULL, *len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, *off);
	close(fd);
	return code == MAP_FAILED ? NULL : code;
}

int main(int argc, char **argv)
{
	struct stat sb;
	void *code;
	size_t len;
	off_t off;
	pid_t pid;
	int st;

	if (argc < 3)
		return ATTEMPT_SETUP;
	lib_path = argv[2];
	write_path = argc > 4 ? argv[4] : lib_path;
	race_end = time(NULL) + (argc > 3 ? atoi(argv[3]) : 3);
	if (!(code = map_code(&len, &off)))
		return setup_failed("the approved mapping was refused");
	if (!strcmp(argv[1], "copyup")) {
		if (stat(lib_path, &sb) != 0 || chmod(lib_path, sb.st_mode & 07777) != 0)
			return setup_failed("chmod");
		munmap(code, len);
		if (!(code = map_code(&len, &off)))
			return setup_failed("the approved mapping of the copy was refused");
	}
	pid = fork();
	if (pid < 0)
		return setup_failed("fork");
	if (pid == 0)
		_exit(child(argv[1], code, len, off));
	if (!strcmp(argv[1], "race"))
		return race(pid, code, len, off);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return setup_failed("the writer failed");
	if (payload_ran(code))
		return gained("bytes written after the grant ran");
	return refused("the approved code did not change", EACCES);
}
