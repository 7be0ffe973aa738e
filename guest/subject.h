/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Subjects (subject.c): the program a request is made for (docs/BRIDGE.md,
 * MEASURE_REQ): the programs granted at an execve of the tree, by file
 * identity, with the EXECVE record that granted each on the current
 * connection (0 for one granted on an earlier connection).
 */
#ifndef UIE_GUEST_SUBJECT_H
#define UIE_GUEST_SUBJECT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define UIE_SUBJECTS_MAX 256 /* programs named as subjects (fewer than the monitor keeps) */

struct uie_subjects {
	struct uie_subject {
		uint64_t dev, ino, seq, used;
	} e[UIE_SUBJECTS_MAX];
	uint64_t tick; /* of the latest use (least recently used goes first) */
	unsigned n;
};

/* Remembers that record seq granted the program file st (an ELF main program or interpreter). */
void uie_guest_subject_granted(struct uie_subjects *sj, const struct stat *st, uint64_t seq);
/* The record that granted the program file exe (a process's /proc/PID/exe) on this
 * connection, or 0 (unknown). */
uint64_t uie_guest_subject_of(struct uie_subjects *sj, const struct stat *exe);
/* True when st is a program granted at an execve (the only programs a request may run as). */
bool uie_guest_subject_program(struct uie_subjects *sj, const struct stat *st);
/* Forgets every subject's record (the connection it was granted on is gone); the programs stay. */
void uie_guest_subjects_forget(struct uie_subjects *sj);

#endif
