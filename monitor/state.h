/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor's state directory (docs/DESIGN.md "Restart and the durable
 * log"): one write-ahead log file and one packages file per run, named by
 * run number (log.N, packages.N).  At start the newest run's files are
 * checked whole, its end is linked into the new log (MONITOR_RESTART) and
 * the policy that was in force is re-checked and put back
 * (POLICY_RESTORE): a restart never lowers enforcement, and a damaged log
 * stops the start instead of being dropped.
 */
#ifndef UIE_MONITOR_STATE_H
#define UIE_MONITOR_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "logfile.h"

struct uie_monitor;
struct uie_mon_prev;
struct uie_platform;

struct uie_mon_state {
	char *dir;
	uint64_t boot;
	struct uie_logfile log;
	int lock_fd;      /* DIR/lock, flock'ed for the monitor's life: one monitor per directory */
	int pkg_fd;       /* packages.<boot>, appended to at every accepted install */
	uint64_t pkg_len; /* its length, all entries whole */
	int err;          /* persisting an accepted package failed: a restart would refuse to start */
	uint8_t log_sync; /* enum uie_log_sync */
	struct uie_mon_prev *prev; /* what the newest previous run left, until the start */
};

/*
 * Claims the state directory before the monitor creates anything else (its
 * vTPM key, its socket): makes DIR if missing (0700; never a missing
 * parent), checks that it is ours and writable by nobody else, takes its
 * lock (one monitor per directory) and reads and checks what the newest
 * previous run left.  Writes nothing else.  Every refusal is explained on
 * diag.  Return: UIE_OK with *out to free (uie_mon_state_free), or the
 * error that stopped it.
 */
int uie_mon_state_claim(const char *dir, const struct uie_platform *pl, uint8_t log_sync, FILE *diag,
			struct uie_mon_state **out);

/*
 * Starts the monitor's core over the claimed st (owned by m from here on):
 * restart record and restored policy when a previous run left a log.
 * Called by uie_mon_init_opts in place of uie_core_init.  Every
 * refusal is explained on m->diag.
 * Return: UIE_OK, or the error that stopped the start.
 */
int uie_mon_state_start(struct uie_monitor *m, struct uie_mon_state *st);

/*
 * After a policy install: syncs the log unless every record already is
 * (ALWAYS) or none is (NONE).  Return: UIE_OK or the errno-derived error
 * (also kept in st->err).
 */
int uie_mon_state_sync_policy(struct uie_mon_state *st);

/*
 * Appends an accepted package to packages.<boot> and syncs it.
 * Return: UIE_OK or the errno-derived error (also kept in st->err).
 */
int uie_mon_state_persist(struct uie_mon_state *st, const uint8_t *pkg, size_t len);

void uie_mon_state_free(struct uie_mon_state *st);

#endif
