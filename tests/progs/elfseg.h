/* SPDX-License-Identifier: Apache-2.0 */
/* The first executable PT_LOAD of an ELF64 file, for the race programs. */
#ifndef UIE_TEST_ELFSEG_H
#define UIE_TEST_ELFSEG_H

#include <elf.h>
#include <stdint.h>
#include <unistd.h>

static inline int exec_segment(int fd, off_t *off, size_t *len)
{
	Elf64_Ehdr eh;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || eh.e_phentsize != sizeof(Elf64_Phdr))
		return -1;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph))
			return -1;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			*off = (off_t)(ph.p_offset & ~(uint64_t)4095);
			*len = (size_t)(ph.p_offset + ph.p_filesz - (uint64_t)*off);
			return 0;
		}
	}
	return -1;
}

#endif
