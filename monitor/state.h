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

#include "logfile.h"

struct uie_monitor;

struct uie_mon_state {
	char *dir;
	uint64_t boot;
	struct uie_logfile log;
	int lock_fd;      /* DIR/lock, flock'ed for the monitor's life: one monitor per directory */
	int pkg_fd;       /* packages.<boot>, appended to at every accepted install */
	uint64_t pkg_len; /* its length, all entries whole */
	int err;          /* persisting an accepted package failed: a restart would refuse to start */
	uint8_t log_sync; /* enum uie_log_sync */
};

/*
 * Opens (creating it 0700 if missing) the state directory and starts the
 * monitor's core over it: restart record and restored policy when a
 * previous run left a log.  Called by uie_monitor_init_opts in place of
 * uie_core_init.  Every refusal is explained on m->diag.
 * Return: UIE_OK, or the error that stopped the start.
 */
int uie_mon_state_start(struct uie_monitor *m, const char *dir, uint8_t log_sync);

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
