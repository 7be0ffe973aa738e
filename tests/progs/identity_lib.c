/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The identity attack (tests/progs/identity.c; issue 25 item 3): a program
 * unmaps its own image, has the kernel name another program as its
 * /proc/self/exe with prctl(PR_SET_MM, PR_SET_MM_MAP) and an exe_fd ("map",
 * CAP_CHECKPOINT_RESTORE in its user namespace) or PR_SET_MM_EXE_FILE
 * ("exe", CAP_SYS_RESOURCE), and then turns anonymous memory executable
 * the way a JIT does, hoping to be judged by the other program's JIT rule.
 * Exit protocol of attempt.h; a refused prctl is reported on its own line
 * and the mapping still tried.  Runs from this library (the program's image
 * is unmapped) and writes with dprintf: stdio's stdout may live in the
 * program's data (copy relocation).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int uie_take_identity(const char *target, const char *how);

#define MAX_RANGES 16

static const unsigned char code[] = { 0xb8, 42, 0, 0, 0, 0xc3 }; /* mov eax, 42; ret */

static int say(int rc, const char *word, const char *what, int err)
{
	if (err)
		dprintf(1, "%s %s: %s\n", word, what, strerrorname_np(err) ? strerrorname_np(err) : "?");
	else
		dprintf(1, "%s %s\n", word, what);
	return rc;
}

/* The ranges where the program's own file is mapped; -1 on error. */
static int own_ranges(const char *self, unsigned long lo[], unsigned long hi[])
{
	char line[PATH_MAX + 128];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		line[strcspn(line, "\n")] = '\0';
		if (path && !strcmp(path, self) && n < MAX_RANGES &&
		    sscanf(line, "%lx-%lx", &lo[n], &hi[n]) == 2)
			n++;
	}
	fclose(f);
	return n;
}

/* The memory layout prctl(PR_SET_MM_MAP) must be given: the current one (/proc/self/stat). */
static int layout(struct prctl_mm_map *m)
{
	char buf[4096], *p;
	unsigned long long v[52] = { 0 };
	ssize_t len;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field = 3;

	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0 || !(p = strrchr((buf[len] = '\0', buf), ')')))
		return -1;
	for (p = strtok(p + 1, " "); p && field < 52; p = strtok(NULL, " "))
		v[field++] = strtoull(p, NULL, 10);
	if (field < 52)
		return -1;
	*m = (struct prctl_mm_map){ .start_code = v[26],
				    .end_code = v[27],
				    .start_stack = v[28],
				    .start_data = v[45],
				    .end_data = v[46],
				    .start_brk = v[47],
				    .brk = (unsigned long)syscall(SYS_brk, 0),
				    .arg_start = v[48],
				    .arg_end = v[49],
				    .env_start = v[50],
				    .env_end = v[51],
				    .exe_fd = (__u32)-1 };
	return 0;
}

int uie_take_identity(const char *target, const char *how)
{
	char self[PATH_MAX], now[PATH_MAX];
	unsigned long lo[MAX_RANGES], hi[MAX_RANGES];
	struct prctl_mm_map m;
	int fd, n, r;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	void *p;

	if (len <= 0 || (self[len] = '\0', (n = own_ranges(self, lo, hi)) <= 0) || layout(&m) != 0 ||
	    (fd = open(target, O_RDONLY | O_CLOEXEC)) < 0)
		return say(2, "setup failed:", "reading the own image, layout or target", errno);
	/* From here on nothing of the program's own image may be touched. */
	for (int i = 0; i < n; i++)
		munmap((void *)lo[i], hi[i] - lo[i]);
	if (!strcmp(how, "map")) {
		m.exe_fd = (__u32)fd;
		r = prctl(PR_SET_MM, PR_SET_MM_MAP, &m, sizeof(m), 0);
	} else {
		r = prctl(PR_SET_MM, PR_SET_MM_EXE_FILE, fd, 0, 0);
	}
	if (r != 0)
		say(0, "REFUSED", !strcmp(how, "map") ? "PR_SET_MM_MAP" : "PR_SET_MM_EXE_FILE", errno);
	else if ((len = readlink("/proc/self/exe", now, sizeof(now) - 1)) > 0)
		dprintf(1, "IDENTITY %.*s\n", (int)len, now);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(say(2, "setup failed:", "mmap", errno));
	memcpy(p, code, sizeof(code));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0)
		_exit(say(0, "REFUSED", "anonymous mprotect(PROT_EXEC)", errno));
	_exit(((int (*)(void))p)() == 42 ? say(10, "GAINED", "anonymous code ran", 0) : 2);
}
