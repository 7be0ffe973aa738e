/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Mappings from a thread that is not the thread-group leader, the case a
 * kernel before 6.9 (no PIDFD_THREAD) makes the interceptor handle through
 * the process: `thread_files GOOD EVIL`.  A second thread maps GOOD's code
 * executable through fd N, which the leader shares: that must work.  Then
 * it takes a descriptor table of its own (unshare(CLONE_FILES)) and puts
 * EVIL (same layout, not allowed) at fd N while the leader keeps GOOD
 * there: GAINED when EVIL's code becomes executable.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include "attempt.h"
#include "elfseg.h"

#define N 100

static const char *evil_path;
static off_t off;
static size_t len;

static void *thread(void *arg)
{
	unsigned char *p, *evil_bytes;
	int evil;

	(void)arg;
	p = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, N, off);
	if (p == MAP_FAILED) {
		printf("thread could not map GOOD: %s\n", strerror(errno));
		return (void *)(long)3;
	}
	printf("MAPPED GOOD from a thread\n");
	munmap(p, len);
	evil = open(evil_path, O_RDONLY);
	if (evil < 0 || unshare(CLONE_FILES) != 0 || dup2(evil, N) != N)
		return (void *)(long)setup_failed("own descriptor table");
	evil_bytes = mmap(NULL, len, PROT_READ, MAP_PRIVATE, evil, off);
	if (evil_bytes == MAP_FAILED)
		return (void *)(long)setup_failed("mmap EVIL readable");
	p = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, N, off);
	if (p != MAP_FAILED)
		return (void *)(long)(memcmp(p, evil_bytes, len)
					      ? setup_failed("mapped something else")
					      : gained("EVIL mapped from a thread's own fd table"));
	return (void *)(long)refused("EVIL from a thread's own fd table", errno);
}

int main(int argc, char **argv)
{
	pthread_t t;
	void *rc;
	int good;

	if (argc < 3)
		return ATTEMPT_SETUP;
	evil_path = argv[2];
	good = open(argv[1], O_RDONLY);
	if (good < 0 || exec_segment(good, &off, &len) != 0 || dup2(good, N) != N)
		return setup_failed("open GOOD");
	if (pthread_create(&t, NULL, thread, NULL) != 0 || pthread_join(t, &rc) != 0)
		return setup_failed("thread");
	return (int)(long)rc;
}
