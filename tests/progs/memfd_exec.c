/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fileless execution: copies PROGRAM into a memfd and executes it with
 * `memfd_exec fexecve PROGRAM` (execveat AT_EMPTY_PATH) or
 * `memfd_exec procfd PROGRAM` (execve of /proc/self/fd/N); also
 * `memfd_exec mmap PROGRAM` maps the memfd PROT_EXEC, and
 * `memfd_exec interp PROGRAM SCRIPT` runs the memfd as the interpreter of
 * SCRIPT, whose first line the caller wrote: "#!/proc/self/fd/9" (the
 * memfd is descriptor 9 here).  `sealed-fexecve`
 * and `sealed-mmap` first seal the memfd against writes, shrinking and
 * growing: its content is then fixed and measured by digest.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attempt.h"

#define INTERP_FD 9 /* "#!/proc/self/fd/9" */

extern char **environ;

int main(int argc, char **argv)
{
	char *args[] = { argv[argc > 2 ? 2 : 0], NULL };
	char path[64];
	struct stat st;
	int in, mfd;
	bool sealed;

	if (argc < 3)
		return ATTEMPT_SETUP;
	sealed = !strncmp(argv[1], "sealed-", 7);
	in = open(argv[2], O_RDONLY);
	mfd = memfd_create("payload", MFD_ALLOW_SEALING);
	if (in < 0 || mfd < 0 || fstat(in, &st) != 0 ||
	    sendfile(mfd, in, NULL, (size_t)st.st_size) != st.st_size)
		return setup_failed("memfd copy");
	if (sealed && fcntl(mfd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
		return setup_failed("memfd seals");
	if (!strcmp(argv[1] + (sealed ? 7 : 0), "mmap")) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, mfd, 0);

		return p == MAP_FAILED ? refused("mmap(PROT_EXEC) of a memfd", errno)
				       : gained("memfd mapped executable");
	}
	if (!strcmp(argv[1], "interp")) {
		char *sargs[] = { argv[argc > 3 ? 3 : 0], NULL };

		if (argc < 4 || dup2(mfd, INTERP_FD) != INTERP_FD)
			return setup_failed("memfd as descriptor 9");
		execve(argv[3], sargs, environ);
		return refused("a script run by a memfd", errno);
	}
	if (!strcmp(argv[1], "procfd")) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
		execve(path, args, environ);
	} else {
		syscall(SYS_execveat, mfd, "", args, environ, AT_EMPTY_PATH);
	}
	return refused("execution of a memfd", errno);
}
