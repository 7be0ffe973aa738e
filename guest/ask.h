/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Asking the monitor about one grant of execute permission (ask.c), in
 * three steps: uie_guest_ask (seal the file, ask, read the verdict), then
 * either uie_guest_commit (an ALLOW is applied: remember what was granted)
 * or uie_guest_refuse (say why, drop what was taken for it).
 * uie_guest_grant runs all three; a caller that must check something
 * between the verdict and its answer (mapping.c) runs them itself.
 */
#ifndef UIE_GUEST_ASK_H
#define UIE_GUEST_ASK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "uie/core.h"

struct uie_grant {
	/* Filled in by the caller. */
	struct stat st;   /* objfd's fstat (not for role ANON) */
	const char *what; /* what diagnostics name; NULL: objfd's path */
	uint64_t vaddr, length, offset;
	pid_t pid;      /* the thread the grant is for */
	uint32_t call;  /* its call (uie_guest_call_key); 0: not known, any of its calls */
	int objfd;      /* the open object; not for role ANON */
	uint16_t event; /* UIE_EV_* */
	uint8_t role;   /* UIE_ROLE_*; ANON: anonymous or fileless memory, no object */
	uint8_t cond;   /* UIE_COND_* (files only) */
	/* Set by uie_guest_examine or uie_guest_ask. */
	struct stat exe; /* the caller's main program (/proc/PID/exe), when exe_known > 0 */
	int exe_known;   /* 0: not looked at yet; -1: could not be */
	bool fresh_seal; /* the file's seal was taken for this grant: dropped on refusal */
	bool overlay;    /* the file may be on overlayfs (struct uie_fs_source) */
	bool quiet;      /* a refusal that is counted, not named on stderr */
	int seal;        /* UIE_SEAL_* */
	struct uie_req req;
	struct uie_verdict v;
	char why[256]; /* why uie_guest_ask refused */
};

struct uie_sup;
/*
 * Step 1: asks the monitor about g.  A file is sealed (seal.c) before the
 * monitor is asked, so that no write can come between its measurement and
 * its use unannounced; one that cannot be sealed is asked about as
 * UNSEALED.  True only for a monitor ALLOW that can be applied; else
 * g->why says why not (or g->quiet is set).  Either way the caller then
 * calls uie_guest_commit or uie_guest_refuse.
 */
bool uie_guest_ask(struct uie_sup *s, struct uie_grant *g);
/*
 * uie_guest_ask for g[0..n) (n <= UIE_ASK_MAX) in one exchange with the
 * monitor: every request is sent before the first verdict is read.  Returns
 * how many leading grants may happen; g[result], when < n, has why (or
 * quiet).  The caller commits those and refuses the rest (each may hold a
 * fresh seal).
 */
#define UIE_ASK_MAX 5 /* an execve: the program and its interpreters (the kernel allows 5 levels) */
unsigned uie_guest_ask_all(struct uie_sup *s, struct uie_grant *g, unsigned n);
/* Step 2, after an ALLOW that is applied: remembers the grant (granted set, subject, write watch). */
void uie_guest_commit(struct uie_sup *s, const struct uie_grant *g);
/* Step 2, for a grant that does not happen: says why on stderr (unless quiet), drops its seal. */
void uie_guest_refuse(struct uie_sup *s, struct uie_grant *g, const char *why);
/*
 * The three steps.  Returns true only for a monitor ALLOW; prints a
 * diagnostic naming g->what (NULL: the object's path) for every refusal
 * and failure.
 */
bool uie_guest_grant(struct uie_sup *s, struct uie_grant *g);

/*
 * Fills in g->st and g->role for the open object g->objfd found in the
 * target (a mapped file): g->role, an ELF role on entry, stays for ELF
 * files (MAIN instead of DSO for the target's own program); FILE for
 * others; ANON for fileless objects (memfd, deleted, O_TMPFILE;
 * uie_sys_fileless), then named g->what or "fileless memory".  False,
 * after a diagnostic, when the object cannot be examined.
 */
bool uie_guest_examine(struct uie_grant *g);
/* Role of a file run by execve: SCRIPT when it starts with "#!", else role. */
uint8_t uie_guest_exec_role(int fd, uint8_t role);
/* The same from its first len bytes, already read. */
uint8_t uie_guest_head_role(const uint8_t *head, size_t len, uint8_t role);

#endif
