/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The guest interceptor (`uie run`): supervises a process tree with a
 * seccomp user-notification filter (and, as root, fanotify exec-permission
 * events), relays every execute-permission grant to uie-monitord through
 * the bridge, and applies the monitor's verdict.  It never decides ALLOW by
 * itself: every error ends in a refusal (EACCES).  docs/THREAT-MODEL.md
 * says what is covered and how.
 */
#ifndef UIE_GUEST_H
#define UIE_GUEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct uie_guest_opts {
	const char *socket_path; /* monitor socket */
	int socket_fd;           /* or: the monitor connection, already open (uie-init), or -1 */
	bool fanotify;           /* use FAN_OPEN_EXEC_PERM when permitted (root) */
	bool fast_path;          /* refuse definite misses of the monitor's Bloom hint early */
	int verbose;             /* 1: setup notes, 2: every grant; refusals are always shown */
	bool timing;             /* print where the run spent its time (phases.h) at the end */
	bool allow_mounts;       /* no Landlock domain (it forbids mount): see spawn.c */
};

/*
 * Runs argv[0] (looked up in PATH) with argv under supervision and waits
 * until it and every process still holding the filter are gone.
 * *status receives the program's exit status (128+signal when killed).
 * Return: UIE_OK, or an error when supervision could not be set up (then
 * the program was not started).
 */
int uie_guest_run(const struct uie_guest_opts *o, char *const argv[], int *status);

#endif
