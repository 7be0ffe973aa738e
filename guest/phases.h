/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where `uie run` spends its own time (`uie run --timing`): the set-up
 * steps, the monitor connection, the monitor round trips summed, and the
 * teardown, each on the monotonic clock; what remains of the run is the
 * program itself and the kernel's exec and exit.  Off, every call is a
 * test of one flag.
 */
#ifndef UIE_GUEST_PHASES_H
#define UIE_GUEST_PHASES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum uie_phase {
	UIE_PHASE_FANOTIFY, /* fanotify group and its mount marks */
	UIE_PHASE_PROBE,    /* kernel feature probe */
	UIE_PHASE_SPAWN,    /* fork, Landlock, seccomp filter, listener handed over */
	UIE_PHASE_CONNECT,  /* monitor connection, STATUS, fast-path page and hint */
	UIE_PHASE_ASK,      /* MEASURE round trips to the monitor */
	UIE_PHASE_TEARDOWN, /* fanotify release, reports, disconnect */
	UIE_PHASE__MAX
};

struct uie_phases {
	bool on;
	uint64_t start_ns;              /* uie_guest_run entered */
	uint64_t ns[UIE_PHASE__MAX];    /* time spent in each phase */
	unsigned count[UIE_PHASE__MAX]; /* times each phase ran */
};

/* A phase's start: 0 when timing is off. */
uint64_t uie_phase_begin(const struct uie_phases *p);
/* Adds the time since begun (from uie_phase_begin) to phase ph. */
void uie_phase_end(struct uie_phases *p, enum uie_phase ph, uint64_t begun);
/* One line "uie: timing: ..." (microseconds) on f, the whole run included. */
void uie_phases_print(const struct uie_phases *p, FILE *f);

#endif
