/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing code through /proc/self/mem (the kernel writes read-only code
 * pages through it), directly (`procmem direct`) and through a symlink
 * whose name does not say "mem" (`procmem symlink DIR`).  The patched
 * function would return 43 instead of 42.
 */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "attempt.h"

__attribute__((noinline)) static int answer(void)
{
	__asm__ volatile("");
	return 42;
}

int main(int argc, char **argv)
{
	static const unsigned char patch[] = { 0xb8, 43, 0, 0, 0, 0xc3 };
	char link[4096];
	const char *path = "/proc/self/mem";
	int fd;

	if (argc > 2 && !strcmp(argv[1], "symlink")) {
		snprintf(link, sizeof(link), "%s/innocent", argv[2]);
		unlink(link);
		if (symlink("/proc/self/mem", link) != 0)
			return setup_failed("symlink");
		path = link;
	}
	fd = open(path, O_RDWR);
	if (fd < 0)
		return refused("open(/proc/self/mem, O_RDWR)", errno);
	if (pwrite(fd, patch, sizeof(patch), (off_t)(uintptr_t)answer) != (ssize_t)sizeof(patch))
		return refused("write to code through /proc/self/mem", errno);
	return answer() == 43 ? gained("code patched through /proc/self/mem") : ATTEMPT_SETUP;
}
