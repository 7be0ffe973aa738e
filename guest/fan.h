/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fanotify group (root only): the exec watch (fan.c, FAN_OPEN_EXEC_PERM
 * on every file system mounted at start) and the write watch on approved
 * files (writewatch.c, FAN_MODIFY inode marks).
 */
#ifndef UIE_GUEST_FAN_H
#define UIE_GUEST_FAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "uie/types.h"

#define UIE_FAN_MAX_DEVS 64
#define UIE_FAN_MAX_PENDING 64

/* Objects of one execve the monitor allowed by path (exec.c), by identity. */
#define UIE_EXEC_IDS 6
struct uie_exec_ids {
	struct uie_file_id id[UIE_EXEC_IDS];
	unsigned n;
};

/* An execve waiting for its FAN_OPEN_EXEC_PERM events. */
struct uie_pending_exec {
	pid_t tid;      /* 0: free slot */
	unsigned opens; /* exec opens seen: the first is MAIN, later ones INTERP */
	uint64_t stamp; /* CLOCK_MONOTONIC ms of the registration */
	struct uie_exec_ids allowed;
};

/* An interpreter whose exec opens raise no event (fan.c, "Quiet files"). */
struct uie_quiet {
	struct uie_file_id id;
	int fd;      /* the descriptor its ignore mask is set and cleared through */
	bool masked; /* the mask is set */
};

struct uie_fan {
	int fd;                       /* the group, -1 without */
	unsigned ndevs;               /* of devs[] */
	bool watch_warned;            /* a file could not be watched for writes (writewatch.c; said once) */
	dev_t devs[UIE_FAN_MAX_DEVS]; /* file systems with the exec mark */
	struct uie_pending_exec pending[UIE_FAN_MAX_PENDING];
	unsigned nquiet;   /* of quiet[] */
	pid_t quiet_tid;   /* whose main program's event sets their masks (0: none to come) */
	uint64_t quiet_ms; /* CLOCK_MONOTONIC ms when the quiet set was last made */
	struct uie_quiet quiet[UIE_EXEC_IDS];
};

int uie_guest_fan_init(struct uie_fan *f);
/* Closes f->fd (if open) without waiting for the kernel to tear the group down. */
void uie_guest_fan_release(struct uie_fan *f);
bool uie_guest_fan_covers(const struct uie_fan *f, dev_t dev);
/*
 * Registers tid's execve, just before it continues; opens of the files in
 * allowed need no second request.  fds[i] is an open descriptor of
 * allowed->id[i] when that file is sealed or immutable (else -1): while no
 * other execve of the tree is in flight, such files are made quiet.
 */
void uie_guest_fan_expect(struct uie_fan *f, pid_t tid, const struct uie_exec_ids *allowed, const int *fds);
/* tid makes a system call: the execve it made before, if any, is over (its opens are done). */
void uie_guest_fan_retire(struct uie_fan *f, pid_t tid);
/* No file is quiet any more (a seal broke). */
void uie_guest_fan_unquiet(struct uie_fan *f);
/* Ms until the quiet files of an idle tree are due to be dropped (-1: none are quiet). */
int uie_guest_fan_idle_ms(const struct uie_fan *f);
/* Drops them when due (the tree is idle). */
void uie_guest_fan_sweep(struct uie_fan *f);
struct uie_sup;
/* Reads and answers the group's events (exec permission; FAN_MODIFY goes to writewatch.c). */
void uie_guest_fan_handle(struct uie_sup *s);

#endif
