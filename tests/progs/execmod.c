/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Execmod: new bytes in a private mapping of an approved file, then
 * executable.  The file (and its digest) never changes; the pages do.
 * `execmod MODE LIB [SECONDS]`, LIB an approved shared object:
 *   copy    map LIB's code read-write (private), write the payload, mprotect R+X
 *   wx      mmap LIB's code read-write-execute (private), write the payload
 *   wxprot  map LIB's code read-only, mprotect R+W+X, write the payload
 *   race    one thread keeps reading the payload into a fresh read-write
 *           mapping of LIB's code while another makes it R+X (SECONDS):
 *           GAINED when a range granted executable ever holds other bytes
 *           than the file's (a write that came between check and grant)
 * GAINED when the payload ran (copy, wx, wxprot) or was granted (race).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "attempt.h"
#include "elfseg.h"
#include "payload_code.h"

static unsigned char *at;
static size_t len;
static int src; /* the payload, read into the mapping with pread(2) */
static atomic_int stop;

/* Writes through read(2), so that a range no longer writable fails with EFAULT, not SIGSEGV. */
static void *writer(void *arg)
{
	while (!atomic_load(&stop))
		for (size_t o = 0; o + sizeof(payload_code) <= len && !atomic_load(&stop); o += 4096)
			if (pread(src, at + o, sizeof(payload_code), 0) < 0)
				continue;
	return arg;
}

static int race(int fd, off_t off, int seconds)
{
	unsigned long grants = 0, refusals = 0;
	unsigned char *file = malloc(len);
	pthread_t t;
	time_t end = time(NULL) + seconds;
	int gained_once = 0;

	src = memfd_create("payload", MFD_CLOEXEC);
	if (!file || src < 0 || write(src, payload_code, sizeof(payload_code)) != sizeof(payload_code) ||
	    pread(fd, file, len, off) != (ssize_t)len)
		return setup_failed("payload");
	at = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, off);
	if (at == MAP_FAILED || pthread_create(&t, NULL, writer, NULL) != 0)
		return setup_failed("mmap/pthread_create");
	while (time(NULL) < end && !gained_once) {
		if (mmap(at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, off) == MAP_FAILED)
			break;
		if (mprotect(at, len, PROT_READ | PROT_EXEC) != 0) {
			refusals++;
			continue;
		}
		grants++;
		/* Not writable now: what it holds is what was made executable. */
		gained_once = memcmp(at, file, len) != 0;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("granted %lu times, refused %lu times\n", grants, refusals);
	if (gained_once)
		return gained("bytes a write copied in were made executable");
	return refused("no copied page was made executable", EACCES);
}

int main(int argc, char **argv)
{
	unsigned char *p;
	size_t seg;
	off_t off;
	int fd;

	if (argc < 3)
		return ATTEMPT_SETUP;
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || exec_segment(fd, &off, &seg) != 0)
		return setup_failed("open");
	len = (seg + 4095) & ~(size_t)4095;
	if (!strcmp(argv[1], "race"))
		return race(fd, off, argc > 3 ? atoi(argv[3]) : 3);
	if (!strcmp(argv[1], "wx")) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE, fd, off);
		if (p == MAP_FAILED)
			return refused("mmap read-write-execute", errno);
		memcpy(p, payload_code, sizeof(payload_code));
	} else if (!strcmp(argv[1], "wxprot")) {
		p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, off);
		if (p == MAP_FAILED)
			return setup_failed("mmap");
		if (mprotect(p, len, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
			return refused("mprotect read-write-execute", errno);
		memcpy(p, payload_code, sizeof(payload_code));
	} else if (!strcmp(argv[1], "copy")) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, off);
		if (p == MAP_FAILED)
			return setup_failed("mmap");
		memcpy(p, payload_code, sizeof(payload_code));
		if (mprotect(p, len, PROT_READ | PROT_EXEC) != 0)
			return refused("mprotect of copied pages", errno);
	} else {
		return ATTEMPT_SETUP;
	}
	if (payload_ran(p))
		return gained("unmeasured bytes in an approved file's mapping ran");
	return setup_failed("the payload did not run");
}
