/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Relaying one grant to the monitor and reading its verdict.  Any failure
 * on the way (no monitor, broken bridge, timeout, a file that cannot be
 * examined) is a refusal with a diagnostic on stderr; only the monitor's
 * ALLOW lets a call continue.  The fast path (guest/fastpath.h) can only
 * refuse earlier: a definite miss of the monitor's current Bloom hint.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fstrust.h"
#include "sup.h"
#include "uie/bridge.h"
#include "uie/err.h"
#include "uie/names.h"
#include "uie/sys.h"

static const char *event_name(uint16_t ev)
{
	return uie_event_key(ev) ? uie_event_key(ev) : "grant";
}

/* True when st is the file pid runs as its main program (/proc/PID/exe). */
static bool is_program_of(pid_t pid, const struct stat *st)
{
	char link[48];
	struct stat exe;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	return stat(link, &exe) == 0 && exe.st_dev == st->st_dev && exe.st_ino == st->st_ino;
}

/*
 * Role of an open object: FILE unless it starts with the ELF magic; ANON
 * if fileless.  An ELF object mapped as a DSO by the process that runs it
 * as its program (node maps parts of its own binary) is its MAIN.
 */
static uint8_t role_of(pid_t pid, int fd, const struct stat *st, uint8_t elf_role)
{
	unsigned char m[4];

	if (uie_sys_fileless(fd, st))
		return UIE_ROLE_ANON;
	if (pread(fd, m, sizeof(m), 0) != (ssize_t)sizeof(m) || memcmp(m, "\177ELF", 4) != 0)
		return UIE_ROLE_FILE;
	if (elf_role == UIE_ROLE_DSO && is_program_of(pid, st))
		return UIE_ROLE_MAIN;
	return elf_role;
}

uint8_t uie_guest_exec_role(int fd, uint8_t role)
{
	char m[2];

	return pread(fd, m, sizeof(m), 0) == (ssize_t)sizeof(m) && m[0] == '#' && m[1] == '!'
		       ? UIE_ROLE_SCRIPT
		       : role;
}

/*
 * The main program of pid, for a request about its anonymous memory (JIT
 * rules name it), or -1: none for execve (the program is being replaced),
 * or when it cannot be opened (then no JIT rule can match: refused).
 */
static int program_of(pid_t pid, uint16_t event)
{
	char link[48];

	if (event == UIE_EV_EXECVE)
		return -1;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	return open(link, O_RDONLY | O_CLOEXEC);
}

/*
 * uie_guest_ask with the request's conditions (UIE_COND_*, files only).  A
 * file is sealed (seal.c) before the monitor is asked, so that no write
 * can come between its measurement and its use unannounced; one that
 * cannot be sealed is asked about as UNSEALED.  An immutable one needs no
 * seal; the kind of file system goes with every file (fstrust.h).
 */
static bool ask(struct uie_sup *s, uint16_t event, uint8_t role, pid_t pid, int objfd, const struct stat *st,
		uint64_t vaddr, uint64_t length, uint64_t off, const char *what, uint8_t cond)
{
	struct uie_req req = { .event = event,
			       .role = objfd < 0 ? UIE_ROLE_ANON : role,
			       .pid = (uint32_t)pid,
			       .vaddr = vaddr,
			       .length = length,
			       .file_offset = off,
			       .cond = objfd < 0 ? 0 : cond };
	struct uie_verdict v;
	char name[512], why[256];
	uint64_t begun;
	int r, progfd = -1, seal = UIE_SEAL_HELD;
	bool fresh = false;

	if (objfd >= 0) {
		struct uie_fs_source src;

		req.id = uie_file_id_of(st);
		uie_guest_fs_source(objfd, st, pid, s->o->allow_mounts, &src);
		req.fs = src.kind;
		if (src.immutable)
			req.cond |= UIE_COND_IMMUTABLE;
		else if ((seal = uie_guest_seal(s, objfd, st, pid, &fresh)) == UIE_SEAL_NONE)
			req.cond |= UIE_COND_UNSEALED;
	}
	uie_guest_connect(s);
	if (s->bridge < 0) {
		if (s->other_boot)
			snprintf(why, sizeof(why), "the monitor restarted since this tree started");
		else
			snprintf(why, sizeof(why), "monitor unreachable at %s: %s", s->o->socket_path,
				 strerror(s->conn_errno));
		goto refused;
	}
	if (uie_guest_fastpath_refusal(s, &req, objfd)) {
		/* The monitor logs every one; stderr names only the first few of a batch. */
		if (s->fp_shown >= UIE_SUP_FP_SHOWN) {
			s->fp_hidden++;
			goto dropped;
		}
		s->fp_shown++;
		snprintf(why, sizeof(why), "fast path: not in the policy (hint of epoch %llu)",
			 (unsigned long long)uie_fastpath_epoch(&s->fp));
		goto refused;
	}
	if (req.role == UIE_ROLE_ANON)
		progfd = program_of(pid, event);
	req.subject_seq = uie_guest_subject_of(s, pid);
	begun = uie_phase_begin(&s->phases);
	r = uie_bridge_measure(s->bridge, &req, req.role == UIE_ROLE_ANON ? progfd : objfd, &v);
	uie_phase_end(&s->phases, UIE_PHASE_ASK, begun);
	if (progfd >= 0)
		close(progfd);
	if (r == UIE_E_PEER || r == UIE_E_SYS || r == UIE_E_TIMEOUT)
		uie_guest_disconnect(s); /* unusable; the next request reconnects */
	if (r != UIE_OK) {
		snprintf(why, sizeof(why), "monitor %s at %s (%s)", r == UIE_E_PEER ? "unreachable" : "error",
			 s->o->socket_path, r == UIE_E_PEER ? "connection lost" : uie_err_str(r));
		goto refused;
	}
	/* Only refusals are worth remembering: an allowed digest is a hint hit anyway. */
	if (s->fp_ok && objfd >= 0 && v.policy_decision != UIE_ALLOW)
		uie_fastpath_learn(&s->fp, &req, &v.digest);
	if (v.decision != UIE_ALLOW) {
		if (req.role == UIE_ROLE_ANON && v.reason == UIE_R_ANON_EXEC && event != UIE_EV_EXECVE &&
		    !s->o->verbose) {
			s->anon_quiet++;
			goto dropped;
		}
		snprintf(why, sizeof(why), "refused by the monitor: %s (record %llu)",
			 uie_reason_str(v.reason), (unsigned long long)v.seq);
		goto refused;
	}
	if (seal == UIE_SEAL_WRITERS) {
		snprintf(why, sizeof(why),
			 "the file is open for writing, so its code could change once "
			 "mapped (the monitor's record %llu stands for a grant that did not happen)",
			 (unsigned long long)v.seq);
		goto refused;
	}
	if (s->o->verbose > 1)
		fprintf(stderr, "uie: allowed %s of %s (pid %d, record %llu)\n", event_name(event),
			uie_guest_describe(what, objfd, name, sizeof(name)), (int)pid,
			(unsigned long long)v.seq);
	if (objfd >= 0 && event == UIE_EV_EXECVE && v.scope == UIE_SCOPE_ELF &&
	    (role == UIE_ROLE_MAIN || role == UIE_ROLE_INTERP))
		uie_guest_subject_granted(s, st, v.seq); /* what its process's requests will name */
	if (objfd >= 0) {
		uint64_t dev, ino;

		if (uie_guest_remember(s, req.id.dev, req.id.ino))
			uie_guest_watch_add(s, objfd);
		/* What reconciliation will see in the maps for this file, if that differs. */
		if (uie_guest_maps_backing_id(s->kern.procmap_query, objfd, st, &dev, &ino))
			uie_guest_remember(s, dev, ino);
	}
	return true;
refused:
	fprintf(stderr, "uie: denied %s of %s (pid %d): %s\n", event_name(event),
		uie_guest_describe(what, objfd, name, sizeof(name)), (int)pid, why);
dropped:
	if (fresh)
		uie_guest_unseal(s, req.id.dev, req.id.ino);
	return false;
}

bool uie_guest_ask(struct uie_sup *s, uint16_t event, uint8_t role, pid_t pid, int objfd,
		   const struct stat *st, uint64_t vaddr, uint64_t length, uint64_t off, const char *what)
{
	return ask(s, event, role, pid, objfd, st, vaddr, length, off, what, 0);
}

bool uie_guest_ask_obj(struct uie_sup *s, uint16_t event, uint8_t elf_role, pid_t pid, int fd, uint64_t vaddr,
		       uint64_t length, uint64_t off, const char *what, uint8_t cond)
{
	char name[512];
	struct stat st;
	uint8_t role;

	if (fstat(fd, &st) != 0) {
		fprintf(stderr, "uie: denied %s of %s (pid %d): cannot examine the file\n", event_name(event),
			uie_guest_describe(what, fd, name, sizeof(name)), (int)pid);
		return false;
	}
	role = role_of(pid, fd, &st, elf_role);
	if (role == UIE_ROLE_ANON)
		return uie_guest_ask(s, event, role, pid, -1, NULL, vaddr, length, off,
				     what ? what : "fileless memory");
	return ask(s, event, role, pid, fd, &st, vaddr, length, off, what, cond);
}
