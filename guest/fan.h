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
	bool main_first;   /* id[0] is the main program (it is a file, not fileless) */
	bool main_watched; /* the main program's open raises an event (its file system has the mark) */
};

/* An execve waiting for its FAN_OPEN_EXEC_PERM events. */
struct uie_pending_exec {
	pid_t tid;     /* 0: free slot */
	pid_t process; /* tid's process (0: not read yet) */
	int pidfd;     /* the caller's pidfd (uie_call), owned here: tells whether tid is still that thread */
	bool thread_pidfd;         /* pidfd names the thread (Linux 6.9), not its process */
	uint64_t exe_dev, exe_ino; /* tid's program before the execve (ino 0: unknown) */
	uint32_t call;             /* its execve (uie_guest_call_key) */
	unsigned opens;            /* exec opens seen: the first is MAIN, later ones INTERP */
	struct uie_exec_ids allowed;
};

struct uie_fan {
	int fd;                       /* the group, -1 without */
	unsigned ndevs;               /* of devs[] */
	bool watch_warned;            /* a file could not be watched for writes (writewatch.c; said once) */
	dev_t devs[UIE_FAN_MAX_DEVS]; /* file systems with the exec mark */
	struct uie_pending_exec pending[UIE_FAN_MAX_PENDING];
};

int uie_guest_fan_init(struct uie_fan *f);
/* Ends the execves kept; closes f->fd (if open) without waiting for the kernel to tear the group down. */
void uie_guest_fan_release(struct uie_fan *f);
bool uie_guest_fan_covers(const struct uie_fan *f, dev_t dev);
struct uie_call;
/*
 * Registers the execve of c, with or without the exec watch; under it, the
 * main program's open (the first event, when it raises one) of
 * allowed->id[0] and the interpreters' opens of the others need no second
 * request.  Takes c->pidfd (sets it to -1).  false: every entry belongs to
 * a thread that may still be in its execve, so none can be given up; under
 * the watch the execve must be refused.
 */
bool uie_guest_fan_expect(struct uie_fan *f, struct uie_call *c, const struct uie_exec_ids *allowed);
/* tid makes a trapped call: the execve it made before, if any, is over (its opens are done). */
void uie_guest_fan_retire(struct uie_fan *f, pid_t tid);
/*
 * Whether a thread of process tgid may be in an execve we let continue
 * that is not past its opens (uie_guest_fan_expect registers every one,
 * with or without the exec watch).  Such a thread holds its process's
 * cred_guard_mutex and may wait for an answer to its exec event, ours or
 * another fanotify group's: a PTRACE_SEIZE of any thread of tgid would
 * wait for the mutex, and so for that answer, maybe for ever (freeze.c).
 */
bool uie_guest_fan_exec_unfinished(struct uie_fan *f, pid_t tgid);
struct uie_sup;
/* Reads and answers the group's events (exec permission; FAN_MODIFY goes to writewatch.c). */
void uie_guest_fan_handle(struct uie_sup *s);

#endif
