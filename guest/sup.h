/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal state and module interfaces of the interceptor.  One
 * supervisor process handles one notification at a time; no call it makes
 * on behalf of a target blocks on another target.
 */
#ifndef UIE_GUEST_SUP_H
#define UIE_GUEST_SUP_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "phases.h"
#include "fastpath.h"
#include "guest.h"
#include "host_platform.h"
#include "uie/bridge.h"
#include "uie/core.h"
#include "uie/sys.h"

#define UIE_SUP_MAX_FAN_DEVS 64
#define UIE_SUP_MAX_PENDING 64
#define UIE_SUP_MAX_ANON 64
#define UIE_SUP_MAX_LEFT 256
#define UIE_SUP_NEST 3              /* nesting of notifications answered during a freeze */
#define UIE_SUP_APPROVED_SLOTS 4096 /* power of two */
#define UIE_SUP_MAX_FP_REPORTS 1024 /* fast-path refusals waiting to be reported */
#define UIE_SUP_SUBJECTS 256        /* programs named as subjects (fewer than the monitor keeps) */
#define UIE_SUP_MAX_SEALS 1024      /* granted files sealed at once (seal.c) */
/*
 * Fast-path refusals are reported once the tree has made no request for
 * UIE_SUP_FP_QUIET_MS, or at the latest UIE_SUP_FP_MAX_DELAY_MS after the
 * oldest one (or when the queue is full), pipelined: reporting each one at
 * once made the monitor's logging compete with the refused program for the
 * CPU.
 */
#define UIE_SUP_FP_QUIET_MS 1
#define UIE_SUP_FP_MAX_DELAY_MS 100
/* Fast-path refusals of one batch named on stderr; the rest are counted (all are logged). */
#define UIE_SUP_FP_SHOWN 8

/* Threads stopped around a grant (freeze.c). */
#define UIE_FREEZE_MAX 1024
struct uie_frozen {
	pid_t tid;
	bool stopped, gone;
	int sig; /* signal that arrived while stopped, delivered at detach */
};
struct uie_freeze {
	pid_t tgid, caller;
	unsigned n;
	struct uie_frozen t[UIE_FREEZE_MAX];
};
/* Objects of one execve the monitor allowed by path (exec.c), by identity. */
#define UIE_EXEC_IDS 6
struct uie_exec_ids {
	struct uie_file_id id[UIE_EXEC_IDS];
	unsigned n;
};

/* An execve waiting for its FAN_OPEN_EXEC_PERM events (fanotify mode). */
struct uie_pending_exec {
	pid_t tid;      /* 0: free slot */
	unsigned opens; /* exec opens seen: the first is MAIN, later ones INTERP */
	uint64_t stamp; /* CLOCK_MONOTONIC ms of the registration */
	struct uie_exec_ids allowed;
};

/* Kernel features with fallbacks, probed once at start-up (kernel.c). */
struct uie_kernel {
	bool pidfd_thread;   /* PIDFD_THREAD, Linux 6.9 */
	bool sync_wake_up;   /* SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, Linux 6.6 (tried on the listener) */
	bool procmap_query;  /* PROCMAP_QUERY, Linux 6.11 */
	bool pidfd_get_info; /* PIDFD_GET_INFO, Linux 6.13 */
	int landlock_abi;    /* 1 (Linux 5.13) or more; 2 (5.19) adds LANDLOCK_ACCESS_FS_REFER */
};

struct uie_sup {
	const struct uie_guest_opts *o;
	struct uie_kernel kern;
	int bridge;     /* monitor connection, -1 while down */
	int conn_errno; /* why the last connect failed, for the refusal's message */
	/*
	 * The monitor run (STATUS boot_id) this tree started under: a
	 * reconnection that finds another run refuses every later grant
	 * (docs/DESIGN.md, "Restart").
	 */
	bool have_boot, other_boot;
	uint8_t boot_id[UIE_BOOT_ID_LEN];
	int followed; /* connection whose CPU affinity was followed (loop.c) */
	int listener; /* seccomp notification fd */
	int fan;      /* fanotify group, -1 without */
	dev_t fan_devs[UIE_SUP_MAX_FAN_DEVS];
	unsigned nfan_devs;
	struct uie_pending_exec pending[UIE_SUP_MAX_PENDING];
	/* File identities (dev, ino) the monitor allowed: reconciliation key. */
	uint64_t approved[UIE_SUP_APPROVED_SLOTS][2];
	/*
	 * Subjects (subject.c): the programs granted on the current connection,
	 * by file identity, with the EXECVE record that granted each.
	 */
	struct uie_guest_subject {
		uint64_t dev, ino, seq, used;
	} subjects[UIE_SUP_SUBJECTS];
	uint64_t subject_tick;
	unsigned nsubjects;
	unsigned napproved; /* of approved[] */
	/* Processes the monitor allowed anonymous executable memory (MEASURE). */
	pid_t anon_ok[UIE_SUP_MAX_ANON];
	unsigned anon_next;
	struct seccomp_notif_sizes sizes;
	struct uie_phases phases; /* uie run --timing */
	/*
	 * Fast path (ask.c): the hint and generation page fetched on the
	 * current connection (fp_ok), with the digests the monitor reported,
	 * and the refusals to report once their calls are answered.
	 */
	struct uie_fastpath fp;
	struct uie_fastpath_report fp_reports[UIE_SUP_MAX_FP_REPORTS];
	unsigned nfp_reports;
	unsigned nseals;
	uint64_t fp_oldest_ms;        /* CLOCK_MONOTONIC ms when fp_reports[0] was queued */
	uint64_t fp_epoch;            /* epoch of the hint the queued refusals were made with */
	unsigned fp_shown, fp_hidden; /* this batch's refusals named on stderr, and not */
	bool fp_ok;
	bool watch_warned; /* a file could not be watched for writes (said once) */
	bool fd_used;      /* the handed-over connection (o->socket_fd) was taken (conn.c) */
	pid_t root;        /* the tree's first process */
	/* Granted files sealed with a read lease (seal.c), compact. */
	struct uie_seal {
		uint64_t dev, ino;         /* the file */
		uint64_t map_dev, map_ino; /* as /proc/PID/maps names it (overlayfs before 6.8) */
		int fd;                    /* our read-only open holding the lease */
		pid_t grantee;             /* thread that asked for the latest grant */
		uint64_t asked_ms;         /* CLOCK_MONOTONIC ms of that request */
	} seals[UIE_SUP_MAX_SEALS];
	uint64_t seal_swept_ms;
	/*
	 * Anonymous memory refused for want of a JIT rule: not named on stderr
	 * (optional JITs such as PCRE2's fall back to an interpreter), only
	 * counted, and the count shown when the program dies by a signal (ask.c).
	 */
	unsigned anon_quiet;
	/*
	 * Notifications are answered one at a time, except that while threads
	 * are being stopped for one grant, others are answered (nested) so
	 * that a thread waiting on them (vfork, an exec) can stop.
	 */
	unsigned depth;
	/*
	 * Called by freeze.c while it waits for threads to stop: the loop
	 * answers what they may be waiting for (nested, up to UIE_SUP_NEST).
	 * freeze.c never calls the loop itself.
	 */
	void (*serve_waiting)(struct uie_sup *s);
	struct seccomp_notif *nbuf[UIE_SUP_NEST];
	struct seccomp_notif_resp *rbuf[UIE_SUP_NEST];
	struct uie_freeze frz[UIE_SUP_NEST];
	/* Threads that had not stopped when their freeze ended: detached once they do. */
	struct uie_frozen left[UIE_SUP_MAX_LEFT];
	pid_t left_tgid[UIE_SUP_MAX_LEFT];
	unsigned nleft;
};

/* A seccomp notification being answered. */
struct uie_call {
	const struct seccomp_notif *n;
	int pidfd;         /* of the calling thread (PIDFD_THREAD), else of its process */
	bool thread_pidfd; /* pidfd names the thread itself */
	pid_t tgid;        /* its process (grants only; else 0) */
};

/* ---- kernel.c: features of the running kernel ---- */
/*
 * Probes once; prints (verbose) what falls back.  Return: UIE_OK, or
 * UIE_E_VERSION after naming on stderr a feature nothing replaces.
 */
int uie_guest_kernel_probe(struct uie_kernel *k, int verbose);

/* ---- filter.c: the BPF program and its installation (in the child) ---- */
/* refuse_seqpacket: a SOCK_SEQPACKET path to the monitor may be in the tree's reach. */
int uie_guest_filter_install(int *listener, bool refuse_seqpacket);

/* ---- landlock.c: no open-for-write below /proc in the tree (child) ---- */
int uie_guest_landlock_apply(int abi);

/* ---- spawn.c: fork the child, receive its listener ---- */
int uie_guest_spawn(char *const argv[], int landlock_abi, const struct uie_guest_opts *o, pid_t *pid,
		    int *pidfd, int *listener);

/* ---- tmem.c: reading the target ---- */
/*
 * Duplicates the caller's descriptor fd (pidfd_getfd); through a process
 * pidfd only when the calling thread's fd names the same open file.
 * Return: the new descriptor, or -1 with errno set.
 */
int uie_guest_call_getfd(const struct uie_call *c, int fd);
/* Reads a NUL-terminated string at addr of tid into buf (cap bytes). */
int uie_guest_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap);
/* Opens path as the caller would see it (dirfd in its table, or AT_FDCWD). */
int uie_guest_open_as(const struct uie_call *c, int dirfd, const char *path, bool nofollow, int *fd);
/*
 * Thread group and number of threads of tid: through its pidfd (-1: none)
 * where the kernel allows, else from /proc/TID/status.
 */
int uie_guest_task_info(pid_t tid, int pidfd, pid_t *tgid, unsigned *threads);
/* Whether the kernel has PIDFD_GET_INFO (Linux 6.13). */
bool uie_guest_pidfd_info_works(void);
/* Opens a path found inside the target's files (PT_INTERP, #!) from its root. */
int uie_guest_open_in_root(pid_t tid, const char *path, int *fd);

/* ---- maps.c: /proc/PID/maps ---- */
struct uie_map {
	uint64_t start, end, off, ino;
	unsigned dev_major, dev_minor;
	bool r, w, x;
	bool special; /* [vdso], [stack], ... */
};
typedef int (*uie_map_fn)(void *ctx, const struct uie_map *m);
/* Calls fn for every mapping; stops at the first non-OK return and returns it. */
int uie_guest_maps_each(pid_t tgid, uie_map_fn fn, void *ctx);
/*
 * Calls fn, in address order, for every mapping that overlaps [lo, hi);
 * asks the kernel for just those (PROCMAP_QUERY) when query is set.
 */
int uie_guest_maps_range(pid_t tgid, uint64_t lo, uint64_t hi, bool query, uie_map_fn fn, void *ctx);
/* Whether the kernel has PROCMAP_QUERY (Linux 6.11). */
bool uie_guest_maps_query_works(void);
/*
 * The identity /proc/PID/maps shows for a mapping of the overlayfs file fd
 * when it differs from fstat's (st): before Linux 6.8 the maps name the
 * underlying file.  False for other files, and when they agree.
 */
bool uie_guest_maps_backing_id(bool query, int fd, const struct stat *st, uint64_t *dev, uint64_t *ino);
/* Opens the file behind a mapping via /proc/PID/map_files. */
int uie_guest_map_open(pid_t tgid, const struct uie_map *m, int *fd);

/* ---- ask.c: requests to the monitor ---- */
/*
 * Asks the monitor about one grant.  objfd -1 means anonymous/fileless
 * (role forced to ANON); otherwise st is objfd's fstat.  Returns true only
 * for a monitor ALLOW; prints a diagnostic naming `what` (NULL: the
 * object's path) for every refusal and failure.
 */
bool uie_guest_ask(struct uie_sup *s, uint16_t event, uint8_t role, pid_t pid, int objfd,
		   const struct stat *st, uint64_t vaddr, uint64_t length, uint64_t off, const char *what);
/* Role of a file run by execve: SCRIPT when it starts with "#!", else role. */
uint8_t uie_guest_exec_role(int fd, uint8_t role);
/*
 * uie_guest_ask for an open object found in the target (a mapped file):
 * one fstat; role elf_role for ELF files (MAIN instead of DSO for the
 * target's own program), FILE for others, ANON for fileless objects
 * (memfd, deleted, O_TMPFILE; uie_sys_fileless).  cond: UIE_COND_EXECMOD
 * when the pages could be other than the file's (mapping.c).
 */
bool uie_guest_ask_obj(struct uie_sup *s, uint16_t event, uint8_t elf_role, pid_t pid, int fd, uint64_t vaddr,
		       uint64_t length, uint64_t off, const char *what, uint8_t cond);

/* ---- describe.c ---- */
/*
 * What a diagnostic names: what when not NULL, else objfd's path (read into
 * buf of cap bytes), else "an unnamed object".
 */
const char *uie_guest_describe(const char *what, int objfd, char *buf, size_t cap);

/* ---- granted.c: identities the monitor allowed ---- */
bool uie_guest_approved(const struct uie_sup *s, uint64_t dev, uint64_t ino);
/* Withdraws the approval of (dev, ino): the next grant of it asks the monitor. */
void uie_guest_forget(struct uie_sup *s, uint64_t dev, uint64_t ino);
/*
 * Remembers an allowed file (true when it was not yet); when the table is
 * full it forgets everything (reconciliation then asks the monitor again:
 * slower, never weaker).
 */
bool uie_guest_remember(struct uie_sup *s, uint64_t dev, uint64_t ino);

/* ---- subject.c: the program a request is made for (docs/BRIDGE.md, MEASURE_REQ) ---- */
/* Remembers that record seq granted the program file st (an ELF main program or interpreter). */
void uie_guest_subject_granted(struct uie_sup *s, const struct stat *st, uint64_t seq);
/* The record that granted pid's main program on this connection, or 0 (unknown). */
uint64_t uie_guest_subject_of(struct uie_sup *s, pid_t pid);
/* Forgets every subject (the connection they were granted on is gone). */
void uie_guest_subjects_forget(struct uie_sup *s);

/* ---- conn.c: the monitor connection ---- */
/* Connects (when down and the monitor run is still ours), then fetches the fast path. */
void uie_guest_connect(struct uie_sup *s);
/* Closes the monitor connection and what was fetched on it (hint, page). */
void uie_guest_disconnect(struct uie_sup *s);

/* ---- reports.c: fast-path refusals and their report queue ---- */
/*
 * True when the monitor's current hint proves that it would refuse req;
 * the refusal is then queued for the report, digest included.
 */
bool uie_guest_fastpath_refusal(struct uie_sup *s, const struct uie_req *req, int objfd);
/*
 * Sends the monitor the fast-path refusals queued so far (for the log);
 * called only after the refused calls have been answered, so that the
 * callers never wait for it.
 */
void uie_guest_fastpath_flush(struct uie_sup *s);
/* Flushes when the queue is full or its oldest refusal is due (after an answer). */
void uie_guest_fastpath_flush_due(struct uie_sup *s);
/* Poll timeout (ms) until the queued refusals are reported when idle; -1: none queued. */
int uie_guest_fastpath_idle_ms(const struct uie_sup *s);

/* ---- exec.c / mapping.c: handlers; return the seccomp response ---- */
void uie_guest_on_exec(struct uie_sup *s, const struct uie_call *c, struct seccomp_notif_resp *r);
void uie_guest_on_mmap(struct uie_sup *s, const struct uie_call *c, struct seccomp_notif_resp *r);
void uie_guest_on_mprotect(struct uie_sup *s, const struct uie_call *c, struct seccomp_notif_resp *r);

/* ---- fan.c: fanotify exec watch ---- */
int uie_guest_fan_init(struct uie_sup *s);
/* Closes s->fan (if open) without waiting for the kernel to tear the group down. */
void uie_guest_fan_release(struct uie_sup *s);
bool uie_guest_fan_covers(const struct uie_sup *s, dev_t dev);
/* Registers tid's execve; opens of the files in allowed need no second request. */
void uie_guest_fan_expect(struct uie_sup *s, pid_t tid, const struct uie_exec_ids *allowed);
void uie_guest_fan_handle(struct uie_sup *s);

/* ---- writewatch.c: writes to approved executable files (fanotify FAN_MODIFY) ---- */
struct fanotify_event_metadata;
/* Watches objfd's file, just approved, for writes (no-op without fanotify). */
void uie_guest_watch_add(struct uie_sup *s, int objfd);
/*
 * Has the monitor log that fd's file, mapped executable by mapper, was
 * written by writer (0: unknown), and says so on stderr.  Return: UIE_OK
 * once the record exists, else the error.
 */
int uie_guest_report_violation(struct uie_sup *s, pid_t writer, int fd, pid_t mapper);

/* ---- seal.c: read leases on granted files (writes announced before they happen) ---- */
enum {
	UIE_SEAL_HELD,    /* sealed (now or before), or immutable */
	UIE_SEAL_WRITERS, /* open for writing now (a descriptor, a shared writable mapping) */
	UIE_SEAL_NONE,    /* no lease possible (no CAP_LEASE and not the owner, no leases here) */
};
/* The realtime signal a lease break raises (read from the loop's signalfd). */
int uie_guest_seal_signal(void);
/*
 * Seals objfd's file (st) for a grant to pid (a thread); *fresh when the
 * lease was taken by this call.
 */
int uie_guest_seal(struct uie_sup *s, int objfd, const struct stat *st, pid_t pid, bool *fresh);
/* Drops the seal of (dev, ino), taken for a grant that did not happen. */
void uie_guest_unseal(struct uie_sup *s, uint64_t dev, uint64_t ino);
/*
 * The lease on fd broke (a writer waits; fd -1: look at every seal): logs
 * the violation if the file is mapped executable, kills the tree's mappers
 * in ENFORCE, then releases.
 */
void uie_guest_seal_broken(struct uie_sup *s, int fd);
/* Poll timeout (ms) until seals are due for a sweep; -1: none held. */
int uie_guest_seal_idle_ms(const struct uie_sup *s);
/* Drops the seals of files no process maps executable any more (when due). */
void uie_guest_seal_sweep(struct uie_sup *s);

/* ---- pages.c ---- */
/* Whether a page of pid's [lo, hi) (a private file mapping) is a copy a write made. */
int uie_guest_pages_copied(pid_t pid, uint64_t lo, uint64_t hi, bool *copied);
/* Handles a FAN_MODIFY event: a violation when the file is still mapped executable. */
void uie_guest_watch_event(struct uie_sup *s, const struct fanotify_event_metadata *m);

/* ---- freeze.c ---- */
/* Stops every thread of tgid but caller, and arms caller to stop after its call. */
int uie_guest_freeze(struct uie_sup *s, struct uie_freeze *f, pid_t tgid, pid_t caller);
/* After the answer was sent: waits until caller has returned from the call. */
int uie_guest_await_caller(struct uie_sup *s, struct uie_freeze *f);
/* Lets every thread go (delivering signals that arrived meanwhile). */
void uie_guest_thaw(struct uie_sup *s, struct uie_freeze *f);
/* Detaches the threads of earlier freezes that have stopped since. */
void uie_guest_thaw_left(struct uie_sup *s);

/* ---- reconcile.c: races after CONTINUE ---- */
/* Kills tgid when it holds an executable mapping the monitor refuses. */
void uie_guest_reconcile(struct uie_sup *s, pid_t tgid);
void uie_guest_anon_allowed(struct uie_sup *s, pid_t tgid);

/* ---- answer.c: every response starts as EACCES (loop.c); only a monitor ALLOW continues ---- */
void uie_guest_deny(struct seccomp_notif_resp *r, int err);
void uie_guest_cont(struct seccomp_notif_resp *r);
bool uie_guest_id_valid(const struct uie_sup *s, uint64_t id);

#endif
