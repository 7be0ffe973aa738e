/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where `uie run` spends its own time (`uie run --timing`): the set-up
 * steps, the monitor connection, the monitor round trips summed, and the
 * teardown, each on the monotonic clock; what remains of the run is the
 * program itself and the kernel's exec and exit; and per notification,
 * where its time went (struct uie_grant_clock), kept for medians without
 * allocating.  Off, every call is a test of one flag or pointer.
 */
#ifndef UIE_GUEST_PHASES_H
#define UIE_GUEST_PHASES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "uie/samples.h"

enum uie_phase {
	UIE_PHASE_FANOTIFY, /* fanotify group and its mount marks */
	UIE_PHASE_PROBE,    /* kernel feature probe */
	UIE_PHASE_SPAWN,    /* fork, Landlock, seccomp filter, listener handed over */
	UIE_PHASE_CONNECT,  /* monitor connection, STATUS, fast-path page and hint */
	UIE_PHASE_ASK,      /* MEASURE round trips to the monitor */
	UIE_PHASE_TEARDOWN, /* fanotify release, reports, disconnect */
	UIE_PHASE__MAX
};

/*
 * Per notification (seccomp, or a fanotify exec event), from its receipt
 * to its answer, in steps that add up to the whole: identifying the
 * caller and the object until the request is being made (for an exec with
 * an interpreter, also the work between its requests), the object's source
 * and seal, and the fast-path check, the monitor round trips, and the
 * answer (commit, NOTIF_SEND).
 */
enum uie_grant_kind {
	UIE_GK_EXECVE,
	UIE_GK_MMAP,
	UIE_GK_MPROTECT,
	UIE_GK_EXEC_EVENT,
	UIE_GK__MAX
};
enum uie_grant_step {
	UIE_GS_IDENTIFY,
	UIE_GS_SEAL,
	UIE_GS_MONITOR,
	UIE_GS_ANSWER,
	UIE_GS_TOTAL,
	UIE_GS__MAX
};

/* The notification being answered: where its time went so far. */
struct uie_grant_clock {
	uint64_t start, mark;       /* receipt, end of the last step */
	uint64_t ns[UIE_GS__MAX];   /* per step */
	unsigned asks;              /* monitor requests (an execve sends its chain in one exchange) */
	struct uie_grant_clock *up; /* the notification this one is answered within, or NULL */
};

/* Notifications that reached the monitor, per kind and step; the others counted. */
struct uie_grant_times {
	struct uie_samples step[UIE_GK__MAX][UIE_GS__MAX];
	uint64_t asks[UIE_GK__MAX];
	uint64_t local[UIE_GK__MAX]; /* answered without a monitor round trip */
};

struct uie_phases {
	bool on;
	uint64_t start_ns;              /* uie_guest_run entered */
	uint64_t ns[UIE_PHASE__MAX];    /* time spent in each phase */
	unsigned count[UIE_PHASE__MAX]; /* times each phase ran */
	unsigned open;                  /* phases begun and not ended */
	uint64_t nested_ns;             /* of ns[], what ran within another phase (set-up during the spawn) */
	struct uie_grant_times *grants; /* allocated once when on */
	struct uie_grant_clock *cur;    /* the notification whose steps are timed, or NULL */
};

/* A phase's start: 0 when timing is off.  Phases may nest (the set-up made while the child confines itself). */
uint64_t uie_phase_begin(struct uie_phases *p);
/* Adds the time since begun (from uie_phase_begin) to phase ph. */
void uie_phase_end(struct uie_phases *p, enum uie_phase ph, uint64_t begun);
/* One line "uie: timing: ..." (microseconds) on f, the whole run included,
 * then a line "uie: grants: KIND ..." of medians per notification of each kind. */
void uie_phases_print(const struct uie_phases *p, FILE *f);

/* Starts timing a notification received now (clk: the caller's, until uie_grant_end). */
void uie_grant_begin(struct uie_phases *p, struct uie_grant_clock *clk);
/* Ends step st of the current notification now. */
void uie_grant_step(struct uie_phases *p, enum uie_grant_step st);
/* Ends its MONITOR step now: an exchange of n requests with the monitor (n asks). */
void uie_grant_asked(struct uie_phases *p, unsigned n);
/* The current notification is answered: ends its ANSWER step and keeps its times. */
void uie_grant_end(struct uie_phases *p, enum uie_grant_kind kind);
/* Back to the notification clk was answered within. */
void uie_grant_resume(struct uie_phases *p, struct uie_grant_clock *clk);

#endif
