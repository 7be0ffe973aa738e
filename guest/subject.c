/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Subjects: the program each request is made for.  A process's program is
 * its /proc/PID/exe; the interceptor remembers, by file identity, the
 * EXECVE record that granted each program on the current connection and
 * names that record in its requests (MEASURE_REQ subject_seq).  Keyed by
 * the file, not the pid: threads and forks without exec run the same
 * program, and a pid changes nothing when it execs.  A program this
 * interceptor never granted (the first of the tree, started before it
 * supervised anything) or one it forgot is "unknown" (0).
 */
#include <stdio.h>
#include <sys/stat.h>

#include "subject.h"

void uie_guest_subject_granted(struct uie_subjects *sj, const struct stat *st, uint64_t seq)
{
	struct uie_subject *e = NULL;

	for (unsigned i = 0; i < sj->n && !e; i++)
		if (sj->e[i].dev == (uint64_t)st->st_dev && sj->e[i].ino == (uint64_t)st->st_ino)
			e = &sj->e[i];
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

uint64_t uie_guest_subject_of(struct uie_subjects *sj, pid_t pid)
{
	char link[48];
	struct stat exe;

	if (sj->n == 0)
		return 0;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if (stat(link, &exe) != 0)
		return 0;
	for (unsigned i = 0; i < sj->n; i++)
		if (sj->e[i].dev == (uint64_t)exe.st_dev && sj->e[i].ino == (uint64_t)exe.st_ino) {
			sj->e[i].used = ++sj->tick;
			return sj->e[i].seq;
		}
	return 0;
}

void uie_guest_subjects_forget(struct uie_subjects *sj)
{
	sj->n = 0;
}
