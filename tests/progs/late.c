/* SPDX-License-Identifier: Apache-2.0 */
/*
 * For the fail-closed tests: `late TRIGGER RESULT LIB PROGRAM` forks a
 * grandchild that outlives this process, waits until the file TRIGGER
 * exists (the test kills the monitor or the interceptor first), then
 * tries mmap(PROT_EXEC) of LIB and execve of PROGRAM, and writes the
 * outcome ("mmap=<errno or OK> exec=<errno>") to RESULT.  A successful
 * execve replaces it, so RESULT then says only "mmap=... exec=RAN".  The
 * grandchild writes "ready" to RESULT.ready once it waits for TRIGGER, so
 * that a test knows the program started before it breaks anything.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attempt.h"

int main(int argc, char **argv)
{
	char buf[256];
	struct stat st;
	const char *m = "OK";
	void *p;
	int fd, out;
	pid_t c;

	if (argc < 5)
		return ATTEMPT_SETUP;
	c = fork();
	if (c != 0)
		return c < 0 ? ATTEMPT_SETUP : 0;
	setsid();
	snprintf(buf, sizeof(buf), "%s.ready", argv[2]);
	out = open(buf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0 || write(out, "ready\n", 6) != 6)
		return ATTEMPT_SETUP;
	close(out);
	while (stat(argv[1], &st) != 0)
		usleep(10000);
	fd = open(argv[3], O_RDONLY);
	p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		m = strerrorname_np(errno);
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	snprintf(buf, sizeof(buf), "mmap=%s exec=RAN\n", m);
	if (write(out, buf, strlen(buf)) < 0)
		return ATTEMPT_SETUP;
	execl(argv[4], argv[4], (char *)NULL);
	snprintf(buf, sizeof(buf), "mmap=%s exec=%s\n", m, strerrorname_np(errno));
	if (pwrite(out, buf, strlen(buf), 0) < 0)
		return ATTEMPT_SETUP;
	return 0;
}
