/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Relaying one grant to the monitor and reading its verdict.  Any failure
 * on the way (no monitor, broken bridge, timeout, a file that cannot be
 * examined) is a refusal with a diagnostic on stderr; only the monitor's
 * ALLOW lets a call continue.  The fast path (guest/fastpath.h) can only
 * refuse earlier: a definite miss of the monitor's current Bloom hint.
 * The steps (ask.h): uie_guest_ask, then uie_guest_commit for a grant
 * that happens or uie_guest_refuse for one that does not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ask.h"
#include "connection.h"
#include "describe.h"
#include "fstrust.h"
#include "granted.h"
#include "maps.h"
#include "reports.h"
#include "seal.h"
#include "subject.h"
#include "sup.h"
#include "uie/bridge.h"
#include "uie/err.h"
#include "uie/names.h"
#include "uie/sys.h"
#include "writewatch.h"

static const char *event_name(uint16_t ev)
{
	return uie_event_key(ev) ? uie_event_key(ev) : "grant";
}

/* The stat of pid's main program (/proc/PID/exe) in g, once per grant. */
static bool program_stat(struct uie_grant *g)
{
	char link[48];

	if (!g->exe_known) {
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)g->pid);
		g->exe_known = stat(link, &g->exe) == 0 ? 1 : -1;
	}
	return g->exe_known > 0;
}

/*
 * Role of an open object: FILE unless it starts with the ELF magic; ANON
 * if fileless.  An ELF object mapped as a DSO by the process that runs it
 * as its program (node maps parts of its own binary) is its MAIN.
 */
static uint8_t role_of(struct uie_grant *g)
{
	unsigned char m[4];

	if (uie_sys_fileless(g->objfd, &g->st))
		return UIE_ROLE_ANON;
	if (pread(g->objfd, m, sizeof(m), 0) != (ssize_t)sizeof(m) || memcmp(m, "\177ELF", 4) != 0)
		return UIE_ROLE_FILE;
	if (g->role == UIE_ROLE_DSO && program_stat(g) && g->exe.st_dev == g->st.st_dev &&
	    g->exe.st_ino == g->st.st_ino)
		return UIE_ROLE_MAIN;
	return g->role;
}

uint8_t uie_guest_head_role(const uint8_t *head, size_t len, uint8_t role)
{
	return len >= 2 && head[0] == '#' && head[1] == '!' ? UIE_ROLE_SCRIPT : role;
}

uint8_t uie_guest_exec_role(int fd, uint8_t role)
{
	uint8_t m[2];
	ssize_t n = pread(fd, m, sizeof(m), 0);

	return uie_guest_head_role(m, n > 0 ? (size_t)n : 0, role);
}

/*
 * The main program of pid, for a request about its anonymous memory (JIT
 * rules name it): the file /proc/PID/exe opens, when it is a program the
 * monitor granted at an execve of the tree (docs/SYSCALLS.md, "Program
 * identity").  Else -1, and no JIT rule can match (refused): for execve
 * (the program is being replaced), a file that cannot be opened, or one
 * never granted as a program.
 */
static int program_of(struct uie_subjects *sj, pid_t pid, uint16_t event)
{
	char link[48];
	struct stat st;
	int fd;

	if (event == UIE_EV_EXECVE)
		return -1;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if ((fd = open(link, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !uie_guest_subject_program(sj, &st)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* What the diagnostics about g name. */
static const char *name_of(const struct uie_grant *g, char *buf, size_t cap)
{
	return uie_guest_describe(g->what, g->role == UIE_ROLE_ANON ? -1 : g->objfd, buf, cap);
}

/* The request for g, its file's source and its seal: what the monitor will be asked. */
static void prepare(struct uie_sup *s, struct uie_grant *g)
{
	bool object = g->role != UIE_ROLE_ANON;

	uie_grant_step(&s->phases, UIE_GS_IDENTIFY);
	g->req = (struct uie_req){ .event = g->event,
				   .role = g->role,
				   .pid = (uint32_t)g->pid,
				   .vaddr = g->vaddr,
				   .length = g->length,
				   .file_offset = g->offset,
				   .cond = object ? g->cond : 0 };
	g->seal = UIE_SEAL_HELD;
	g->fresh_seal = g->quiet = g->overlay = false;
	g->why[0] = '\0';
	if (object) {
		struct uie_fs_source src;

		g->req.id = uie_file_id_of(&g->st);
		uie_guest_fs_source(&s->mounts, g->objfd, &g->st, g->pid, s->o->allow_mounts, &src);
		g->req.fs = src.kind;
		g->overlay = src.overlay;
		if (src.immutable)
			g->req.cond |= UIE_COND_IMMUTABLE;
		else if ((g->seal = uie_guest_seal(s, g->objfd, &g->st, g->overlay, g->pid, g->call,
						   &g->fresh_seal)) == UIE_SEAL_NONE)
			g->req.cond |= UIE_COND_UNSEALED;
	}
}

/* Why a grant cannot be asked: no connection (g->why). */
static bool connected(struct uie_sup *s, struct uie_grant *g)
{
	uie_guest_connect(s);
	if (s->conn.fd >= 0)
		return true;
	if (s->conn.other_boot)
		snprintf(g->why, sizeof(g->why), "the monitor restarted since this tree started");
	else
		snprintf(g->why, sizeof(g->why), "monitor unreachable at %s: %s", s->o->socket_path,
			 strerror(s->conn.err));
	return false;
}

/*
 * The fast path's answers or the monitor's verdicts for g[0..n) in their
 * v, all requests sent before the first answer is read (one exchange with
 * the monitor for the lot; it answers a connection's requests in order).
 * All grants are for one thread of one notification, so its subject is
 * looked up once.  Returns how many leading grants have a verdict; the next
 * one (if any) has its why.  A fast-path refusal stops the requests there:
 * what follows it is not asked, as when they were asked one by one.
 */
static unsigned consult(struct uie_sup *s, struct uie_grant *g, unsigned n)
{
	const struct uie_req *req[UIE_ASK_MAX];
	struct uie_verdict v[UIE_ASK_MAX];
	int fd[UIE_ASK_MAX];
	uint64_t begun, subject;
	unsigned m = 0, got = 0;
	int r;

	if (n == 0 || n > UIE_ASK_MAX || !connected(s, &g[0]))
		return 0;
	/* The program of the process the requests are for: no /proc read before one was granted. */
	subject = s->subjects.n && program_stat(&g[0]) ? uie_guest_subject_of(&s->subjects, &g[0].exe) : 0;
	for (; m < n; m++) {
		struct uie_grant *x = &g[m];
		bool object = x->role != UIE_ROLE_ANON;

		if (uie_guest_fastpath_refusal(s, &x->req, object ? x->objfd : -1, x->why, sizeof(x->why),
					       &x->quiet))
			break;
		x->req.subject_seq = subject;
		req[m] = &x->req;
		fd[m] = object ? x->objfd : program_of(&s->subjects, x->pid, x->event);
	}
	if (m == 0)
		return 0;
	uie_grant_step(&s->phases, UIE_GS_SEAL);
	begun = uie_phase_begin(&s->phases);
	r = uie_bridge_measure_all(s->conn.fd, req, fd, m, v, &got);
	uie_phase_end(&s->phases, UIE_PHASE_ASK, begun);
	uie_grant_asked(&s->phases, m);
	if (r != UIE_OK) {
		if (r == UIE_E_PEER || r == UIE_E_SYS || r == UIE_E_TIMEOUT)
			uie_guest_disconnect(s); /* unusable; the next request reconnects */
		snprintf(g[got].why, sizeof(g[got].why), "monitor %s at %s (%s)",
			 r == UIE_E_PEER ? "unreachable" : "error", s->o->socket_path,
			 r == UIE_E_PEER ? "connection lost" : uie_err_str(r));
	}
	/* After the disconnect above: learning may fetch the fast path on the connection. */
	for (unsigned i = 0; i < m; i++) {
		if (g[i].role == UIE_ROLE_ANON && fd[i] >= 0)
			close(fd[i]);
		g[i].v = v[i];
		if (i < got)
			uie_guest_fastpath_learn(s, &g[i].req, g[i].role != UIE_ROLE_ANON, &g[i].v);
	}
	return got;
}

/* Whether the verdict in g->v lets the grant happen; false with g->why (or quiet) when not. */
static bool interpret(struct uie_sup *s, struct uie_grant *g)
{
	bool object = g->role != UIE_ROLE_ANON;

	if (g->v.decision != UIE_ALLOW) {
		if (!object && g->v.reason == UIE_R_ANON_EXEC && g->event != UIE_EV_EXECVE &&
		    !s->o->verbose) {
			s->anon_quiet++;
			g->quiet = true;
			return false;
		}
		snprintf(g->why, sizeof(g->why), "refused by the monitor: %s (record %llu)",
			 uie_reason_str(g->v.reason), (unsigned long long)g->v.seq);
		return false;
	}
	if (g->seal == UIE_SEAL_WRITERS) {
		snprintf(g->why, sizeof(g->why),
			 "the file is open for writing, so its code could change once "
			 "mapped (the monitor's record %llu stands for a grant that did not happen)",
			 (unsigned long long)g->v.seq);
		return false;
	}
	if (g->seal == UIE_SEAL_CROWDED) {
		snprintf(g->why, sizeof(g->why),
			 "%d grants of the file are in calls not yet finished (the monitor's record "
			 "%llu stands for a grant that did not happen)",
			 UIE_SEAL_GRANTEES, (unsigned long long)g->v.seq);
		return false;
	}
	return true;
}

unsigned uie_guest_ask_all(struct uie_sup *s, struct uie_grant *g, unsigned n)
{
	unsigned k, ok = 0;

	for (unsigned i = 0; i < n; i++)
		prepare(s, &g[i]);
	k = consult(s, g, n);
	while (ok < k && interpret(s, &g[ok]))
		ok++;
	return ok;
}

bool uie_guest_ask(struct uie_sup *s, struct uie_grant *g)
{
	return uie_guest_ask_all(s, g, 1) == 1;
}

void uie_guest_commit(struct uie_sup *s, const struct uie_grant *g)
{
	char name[512];
	uint64_t dev, ino;

	if (s->o->verbose > 1)
		fprintf(stderr, "uie: allowed %s of %s (pid %d, record %llu)\n", event_name(g->event),
			name_of(g, name, sizeof(name)), (int)g->pid, (unsigned long long)g->v.seq);
	if (g->role == UIE_ROLE_ANON)
		return;
	/* What its process's requests will name. */
	if (g->event == UIE_EV_EXECVE && g->v.scope == UIE_SCOPE_ELF &&
	    (g->role == UIE_ROLE_MAIN || g->role == UIE_ROLE_INTERP))
		uie_guest_subject_granted(&s->subjects, &g->st, g->v.seq);
	if (uie_guest_remember(&s->granted, g->req.id.dev, g->req.id.ino))
		uie_guest_watch_add(&s->fan, g->objfd);
	/* What reconciliation will see in the maps for this file, if that differs (overlayfs only:
	 * the file-source check's fstatfs of the same descriptor said whether it is): the layers'
	 * files sealed under it, or, unsealed, what a mapping of our own shows. */
	if (g->overlay && !uie_guest_seal_remember_layers(s, g->req.id.dev, g->req.id.ino) &&
	    uie_guest_maps_backing_id(s->kern.procmap_query, g->objfd, &g->st, &dev, &ino))
		uie_guest_remember(&s->granted, dev, ino);
}

void uie_guest_refuse(struct uie_sup *s, struct uie_grant *g, const char *why)
{
	char name[512];

	if (!g->quiet)
		fprintf(stderr, "uie: denied %s of %s (pid %d): %s\n", event_name(g->event),
			name_of(g, name, sizeof(name)), (int)g->pid, why);
	if (g->fresh_seal)
		uie_guest_unseal(&s->seals, g->req.id.dev, g->req.id.ino);
	g->fresh_seal = false;
}

bool uie_guest_grant(struct uie_sup *s, struct uie_grant *g)
{
	if (!uie_guest_ask(s, g)) {
		uie_guest_refuse(s, g, g->why);
		return false;
	}
	uie_guest_commit(s, g);
	return true;
}

bool uie_guest_examine(struct uie_grant *g)
{
	char name[512];

	if (fstat(g->objfd, &g->st) != 0) {
		fprintf(stderr, "uie: denied %s of %s (pid %d): cannot examine the file\n",
			event_name(g->event), uie_guest_describe(g->what, g->objfd, name, sizeof(name)),
			(int)g->pid);
		return false;
	}
	g->role = role_of(g);
	if (g->role == UIE_ROLE_ANON && !g->what)
		g->what = "fileless memory";
	return true;
}
