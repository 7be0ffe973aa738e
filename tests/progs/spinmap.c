/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `spinmap LIB [thread]`: maps LIB's code executable, unmaps it, and then
 * computes (a loop without a system call) while a child opens LIB for
 * writing and writes the payload over its code.  With `thread` all of that
 * is done by a second thread while the first waits for it.  Not an attack:
 * a thread whose grant of LIB is over, and which is on a CPU (or waiting
 * for one) when LIB is written, maps nothing and must not be taken for a
 * mapper of LIB.
 *
 * Exit: 0 and "outlived the write" when the write was made and the process
 * lived through it; 1 when the write could not be made; 2 when the set-up
 * failed.  A process killed for the write ends with SIGKILL.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>

#include "attempt.h"
#include "elfseg.h"
#include "payload_code.h"

#define SPIN_LIMIT_S 30

static const char *lib;
static atomic_int *written; /* shared with the writer: 0 waiting, 1 written, -1 failed */

/* The child: waits a little, so that the parent is computing, then rewrites LIB's code. */
static void writer(off_t off)
{
	int fd;

	usleep(200000);
	fd = open(lib, O_RDWR | O_CLOEXEC);
	if (fd < 0 || pwrite(fd, payload_code, sizeof(payload_code), off) != sizeof(payload_code)) {
		atomic_store(written, -1);
		_exit(1);
	}
	atomic_store(written, 1);
	_exit(0);
}

static void *map_unmap_spin(void *arg)
{
	int *result = arg, fd = open(lib, O_RDONLY | O_CLOEXEC);
	double end = attempt_now_s() + SPIN_LIMIT_S;
	size_t len;
	off_t off;
	void *code;
	pid_t w;

	if (fd < 0 || exec_segment(fd, &off, &len) != 0) {
		*result = setup_failed("open");
		return NULL;
	}
	code = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
	close(fd);
	if (code == MAP_FAILED) {
		*result = setup_failed("mmap (the code must be allowed)");
		return NULL;
	}
	munmap(code, len);
	if ((w = fork()) < 0) {
		*result = setup_failed("fork");
		return NULL;
	}
	if (w == 0)
		writer(off);
	while (atomic_load(written) == 0 && attempt_now_s() < end)
		;
	waitpid(w, NULL, 0);
	if (atomic_load(written) != 1) {
		fprintf(stderr, "spinmap: the write was not made\n");
		*result = 1;
		return NULL;
	}
	printf("outlived the write\n");
	*result = 0;
	return NULL;
}

int main(int argc, char **argv)
{
	int result = ATTEMPT_SETUP;
	pthread_t t;

	if (argc < 2)
		return ATTEMPT_SETUP;
	lib = argv[1];
	written = mmap(NULL, sizeof(*written), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (written == MAP_FAILED)
		return setup_failed("mmap");
	if (argc > 2 && strcmp(argv[2], "thread") == 0) {
		if (pthread_create(&t, NULL, map_unmap_spin, &result) != 0 || pthread_join(t, NULL) != 0)
			return setup_failed("pthread");
	} else {
		map_unmap_spin(&result);
	}
	return result;
}
