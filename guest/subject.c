/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Subjects: the program each request is made for.  A process's program is
 * the file the monitor granted at its last execve: in the tree only an
 * exec changes /proc/PID/exe (the filter refuses PR_SET_MM_EXE_FILE and PR_SET_MM_MAP,
 * docs/SYSCALLS.md), and the interceptor accepts what /proc/PID/exe names
 * only when it is one of the programs granted at an execve of this tree
 * (uie_guest_subject_program).  For each it remembers, by file identity,
 * the EXECVE record that granted it on the current connection and names
 * that record in its requests (MEASURE_REQ subject_seq).  Keyed by the
 * file, not the pid: threads and forks without exec run the same program,
 * and a pid changes nothing when it execs.  A program granted on an
 * earlier connection keeps its place with record 0 ("unknown"), as does
 * one this interceptor never granted on any; the least recently used goes
 * when the table is full.
 */
#include <stddef.h>
#include <sys/stat.h>

#include "subject.h"

static struct uie_subject *find(struct uie_subjects *sj, const struct stat *st)
{
	for (unsigned i = 0; i < sj->n; i++)
		if (sj->e[i].dev == (uint64_t)st->st_dev && sj->e[i].ino == (uint64_t)st->st_ino) {
			sj->e[i].used = ++sj->tick;
			return &sj->e[i];
		}
	return NULL;
}

void uie_guest_subject_granted(struct uie_subjects *sj, const struct stat *st, uint64_t seq)
{
	struct uie_subject *e = find(sj, st);

	if (!e && sj->n < UIE_SUBJECTS_MAX)
		e = &sj->e[sj->n++];
	if (!e) { /* full: the least recently used goes */
		e = &sj->e[0];
		for (unsigned i = 1; i < sj->n; i++)
			if (sj->e[i].used < e->used)
				e = &sj->e[i];
	}
	*e = (struct uie_subject){
		.dev = (uint64_t)st->st_dev, .ino = (uint64_t)st->st_ino, .seq = seq, .used = ++sj->tick
	};
}

bool uie_guest_subject_program(struct uie_subjects *sj, const struct stat *st)
{
	return find(sj, st) != NULL;
}

uint64_t uie_guest_subject_of(struct uie_subjects *sj, const struct stat *exe)
{
	const struct uie_subject *e = find(sj, exe);

	return e ? e->seq : 0;
}

void uie_guest_subjects_forget(struct uie_subjects *sj)
{
	for (unsigned i = 0; i < sj->n; i++)
		sj->e[i].seq = 0;
}
