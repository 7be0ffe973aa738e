/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mprotect-bench [-w WARMUP] [-s BYTES] N FILE|-: times mprotect(PROT_READ|PROT_EXEC) of
 * a read-only, non-executable mapping: of FILE's executable segment when it
 * is an ELF object (the range a loader would make executable), of the whole
 * file otherwise, or with "-" of BYTES (default 64 KB) of anonymous memory.  Each iteration
 * maps afresh and unmaps afterwards, outside the timed region, so every call
 * is an NX->X upgrade.  Status is 0 when the upgrade succeeded, else its errno.
 */
#include <sys/mman.h>
#include <elf.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

#define ANON_LEN (64 * 1024)
#define PAGE 4096u

/*
 * Page-aligned file range of the first executable PT_LOAD of an ELF64 file;
 * false when fd is not such a file (then the whole file is used).
 */
static bool exec_segment(int fd, off_t size, off_t *off, size_t *len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph))
		return false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		off_t at = (off_t)eh.e_phoff + (off_t)i * (off_t)sizeof(ph);

		if (pread(fd, &ph, sizeof(ph), at) != (ssize_t)sizeof(ph))
			return false;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || ph.p_filesz == 0 ||
		    ph.p_offset > (Elf64_Off)size || ph.p_filesz > (Elf64_Off)size - ph.p_offset)
			continue;
		*off = (off_t)(ph.p_offset & ~(Elf64_Off)(PAGE - 1));
		*len = (size_t)(ph.p_offset + ph.p_filesz - (Elf64_Off)*off);
		return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	unsigned long n, warmup = 1;
	size_t len = ANON_LEN;
	off_t off = 0;
	int opt, fd = -1;

	while ((opt = getopt(argc, argv, "w:s:")) != -1) {
		if (opt == 'w')
			warmup = strcmp(optarg, "0") ? bench_count(optarg, 1000) : 0;
		else if (opt == 's')
			len = bench_count(optarg, 1ul << 30);
		else
			goto usage;
	}
	if (argc - optind != 2)
		goto usage;
	n = bench_count(argv[optind], 100000000);
	if (strcmp(argv[optind + 1], "-")) {
		struct stat st;

		fd = open(argv[optind + 1], O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0) {
			perror(argv[optind + 1]);
			return 1;
		}
		if (!exec_segment(fd, st.st_size, &off, &len))
			len = (size_t)st.st_size;
	}
	for (unsigned long i = 0; i < warmup + n; i++) {
		int flags = fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_PRIVATE;
		void *p = mmap(NULL, len, PROT_READ, flags, fd, off);
		uint64_t t0, t1;
		int status;

		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		t0 = bench_now_ns();
		status = mprotect(p, len, PROT_READ | PROT_EXEC) ? errno : 0;
		t1 = bench_now_ns();
		munmap(p, len);
		if (i >= warmup)
			bench_sample(t1 - t0, status);
	}
	return 0;
usage:
	fprintf(stderr, "usage: mprotect-bench [-w WARMUP] [-s BYTES] N FILE|-\n");
	return 2;
}
