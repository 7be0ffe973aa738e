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

#include "sup.h"

void uie_guest_subject_granted(struct uie_sup *s, const struct stat *st, uint64_t seq)
{
	struct uie_guest_subject *e = NULL;

	for (unsigned i = 0; i < s->nsubjects && !e; i++)
		if (s->subjects[i].dev == (uint64_t)st->st_dev && s->subjects[i].ino == (uint64_t)st->st_ino)
			e = &s->subjects[i];
	if (!e && s->nsubjects < UIE_SUP_SUBJECTS)
		e = &s->subjects[s->nsubjects++];
	if (!e) { /* full: the least recently used goes */
		e = &s->subjects[0];
		for (unsigned i = 1; i < s->nsubjects; i++)
			if (s->subjects[i].used < e->used)
				e = &s->subjects[i];
	}
	*e = (struct uie_guest_subject){ .dev = (uint64_t)st->st_dev,
					 .ino = (uint64_t)st->st_ino,
					 .seq = seq,
					 .used = ++s->subject_tick };
}

uint64_t uie_guest_subject_of(struct uie_sup *s, pid_t pid)
{
	char link[48];
	struct stat exe;

	if (s->nsubjects == 0)
		return 0;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if (stat(link, &exe) != 0)
		return 0;
	for (unsigned i = 0; i < s->nsubjects; i++)
		if (s->subjects[i].dev == (uint64_t)exe.st_dev &&
		    s->subjects[i].ino == (uint64_t)exe.st_ino) {
			s->subjects[i].used = ++s->subject_tick;
			return s->subjects[i].seq;
		}
	return 0;
}

void uie_guest_subjects_forget(struct uie_sup *s)
{
	s->nsubjects = 0;
}
