/* SPDX-License-Identifier: Apache-2.0 */
/*
 * execve and execveat.  The path is read from the target and the file
 * opened as the target names it; the main executable and its interpreter
 * chain (#! line, PT_INTERP) are asked about here, so that a refusal fails
 * the call with EACCES.  Fileless objects (memfd, O_TMPFILE, deleted
 * files: no name in any file system) are asked about as anonymous memory.
 * A concurrent rename can race this check by path; under the fanotify
 * exec watch the authoritative check is the FAN_OPEN_EXEC_PERM event on
 * the files the kernel really opens (fan.c), which asks the monitor again
 * about anything that is not one of the files allowed here, unchanged.
 * docs/THREAT-MODEL.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "answer.h"
#include "ask.h"
#include "fan.h"
#include "host_object.h"
#include "sup.h"
#include "tmem.h"
#include "uie/err.h"
#include "uie/measure.h"
#include "uie/sys.h"

#define MAX_INTERP_DEPTH (UIE_ASK_MAX - 1) /* the kernel allows 5 levels of binfmt rewriting */
#define HEAD_MAX 4096                      /* ELF headers and PT_INTERP of an executable mostly fit */
#define SHEBANG_MAX 255 /* of a "#!" line, as before: the kernel reads 256 bytes (BINPRM_BUF_SIZE) */

/* The objects of one execve: the program, then its interpreters. */
struct uie_exec_chain {
	struct uie_grant g[UIE_ASK_MAX];
	char what[UIE_ASK_MAX][PATH_MAX + 32];
	unsigned n;
	/* The first bytes of the last object added, read once for its role and its interpreter. */
	uint8_t head[HEAD_MAX];
	size_t head_len;
	int head_err;
	struct stat head_st; /* that object's */
	int root;            /* the caller's root directory, opened once for the chain (-1: not yet) */
};

/*
 * The interpreter named by the "#!" line or PT_INTERP of ch's last object,
 * from its first bytes (ch->head); name[0] == 0 when none.
 */
static int interp_of(const struct uie_exec_chain *ch, char *name, size_t cap)
{
	const char *head = (const char *)ch->head;
	size_t n = ch->head_len;
	struct uie_host_object ho;
	struct uie_elf_info info;
	int r;

	name[0] = '\0';
	if (ch->head_err != UIE_OK)
		return ch->head_err;
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		size_t i = 2, j = 0;

		if (n > SHEBANG_MAX)
			n = SHEBANG_MAX; /* what the kernel reads of it */
		while (i < n && (head[i] == ' ' || head[i] == '\t'))
			i++;
		while (i < n && head[i] && head[i] != ' ' && head[i] != '\t' && head[i] != '\n' &&
		       j + 1 < cap)
			name[j++] = head[i++];
		name[j] = '\0';
		return j > 0 ? UIE_OK : UIE_E_FORMAT;
	}
	if (n < 4 || memcmp(head, "\177ELF", 4) != 0)
		return UIE_E_FORMAT; /* neither: the kernel answers ENOEXEC */
	uie_host_object_over(&ho, ch->g[ch->n - 1].objfd, &ch->head_st, ch->head, n);
	r = uie_elf_parse(&ho.obj, &info);
	if (r == UIE_OK && info.has_interp) {
		if (info.interp_len == 0 || info.interp_len >= cap)
			r = UIE_E_LIMIT;
		else if ((r = uie_object_read(&ho.obj, info.interp_off, name, info.interp_len)) == UIE_OK)
			name[info.interp_len] = '\0'; /* the parser's range may stop before the NUL */
	}
	uie_host_object_close(&ho);
	return r;
}

/*
 * The grant for one object of the execve call, fd opened here (owned by the
 * chain from now on): a file, or a fileless object asked about as
 * anonymous memory.  False (fd closed) when it is neither a regular file
 * nor fileless.
 */
static bool add_object(struct uie_exec_chain *ch, const struct seccomp_notif *call, int fd, uint8_t role,
		       const char *what)
{
	struct uie_grant *g = &ch->g[ch->n];
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	snprintf(ch->what[ch->n], sizeof(ch->what[ch->n]), "%s", what);
	n = pread(fd, ch->head, sizeof(ch->head), 0);
	ch->head_len = n > 0 ? (size_t)n : 0;
	ch->head_err = n < 0 ? UIE_E_IO : UIE_OK;
	ch->head_st = st;
	if (uie_sys_fileless(fd, &st))
		*g = (struct uie_grant){ .event = UIE_EV_EXECVE, .role = UIE_ROLE_ANON };
	else
		*g = (struct uie_grant){ .event = UIE_EV_EXECVE,
					 .role = uie_guest_head_role(ch->head, ch->head_len, role),
					 .st = st,
					 .length = (uint64_t)st.st_size };
	g->pid = call->pid;
	g->call = uie_guest_call_key(call);
	g->objfd = fd;
	g->what = ch->what[ch->n];
	ch->n++;
	return true;
}

/*
 * The interpreter chain of the main program ch->g[0] (#! lines, PT_INTERP)
 * added to ch; returns 0 or the errno to fail the call with once the
 * objects found so far have been asked about (as before, when each object
 * was asked about before the next was looked for, so the monitor logs at
 * least what it logged then).
 */
static int walk_chain(struct uie_exec_chain *ch, const struct uie_call *c, bool watched)
{
	char name[PATH_MAX];

	for (unsigned depth = 0; depth < MAX_INTERP_DEPTH; depth++) {
		int next, r = interp_of(ch, name, sizeof(name));

		if (r == UIE_E_FORMAT)                /* neither ELF nor #!: under the watch the kernel's */
			return watched ? 0 : ENOEXEC; /* binfmt_misc handler is checked when opened */
		if (r != UIE_OK) {
			fprintf(stderr,
				"uie: denied execve of %s (pid %d): cannot read its interpreter (%s)\n",
				ch->g[0].what, (int)c->n->pid, uie_err_str(r));
			return EACCES;
		}
		if (name[0] == '\0')
			return 0;
		if (uie_guest_open_as(c, AT_FDCWD, name, false, &ch->root, &next) != UIE_OK)
			return errno ? errno : ENOENT;
		if (!add_object(ch, c->n, next, UIE_ROLE_INTERP, name))
			return EACCES;
	}
	return ELOOP;
}

/*
 * Asks about the whole chain in one exchange with the monitor (ask.h): the
 * program and its interpreters are sent together, so a warm execve wakes
 * the monitor once, not once per object.  The execve may continue only if
 * every object is allowed; the ones allowed ahead of a refusal are not
 * committed either (they will not run).  A refused program's interpreter
 * is therefore asked about too (one record more than when the interpreter
 * was only looked for after the program's ALLOW), never less.  An allowed
 * file's identity goes to ids as it was before the request: if the file
 * changes after it, the exec watch no longer matches it and asks the
 * monitor again (fan.c).
 */
static bool ask_chain(struct uie_sup *s, struct uie_exec_chain *ch, struct uie_exec_ids *ids)
{
	unsigned ok = uie_guest_ask_all(s, ch->g, ch->n);

	for (unsigned i = 0; i < ch->n; i++) {
		struct uie_grant *g = &ch->g[i];

		if (ok < ch->n) { /* named once, for the object that was refused */
			g->quiet = g->quiet || i != ok;
			uie_guest_refuse(s, g, g->why);
			continue;
		}
		uie_guest_commit(s, g);
		if (g->role != UIE_ROLE_ANON && ids->n < UIE_EXEC_IDS)
			ids->id[ids->n++] = uie_file_id_of(&g->st);
	}
	return ok == ch->n;
}

void uie_guest_on_exec(struct uie_sup *s, struct uie_call *c, struct seccomp_notif_resp *r)
{
	const struct seccomp_notif *n = c->n;
	bool at = n->data.nr == __NR_execveat;
	int dirfd = at ? (int)n->data.args[0] : AT_FDCWD;
	int flags = at ? (int)n->data.args[4] : 0;
	char path[PATH_MAX], what[PATH_MAX + 32];
	struct uie_exec_ids ids = { .n = 0 };
	struct uie_exec_chain ch = { .n = 0, .root = -1 };
	bool asked;
	int fd = -1, err = 0;

	err = uie_guest_read_str(n->pid, at ? n->data.args[1] : n->data.args[0], path, sizeof(path));
	if (err != UIE_OK) {
		/* What the kernel would answer: too long, or not readable. */
		uie_guest_deny(r, err == UIE_E_LIMIT ? ENAMETOOLONG : EFAULT);
		return;
	}
	if (!uie_guest_id_valid(s->listener, n->id))
		return; /* the target is gone; r still refuses */
	if (path[0] == '\0') {
		if (!at || !(flags & AT_EMPTY_PATH)) {
			uie_guest_deny(r, ENOENT);
			return;
		}
		fd = uie_guest_call_getfd(c, dirfd);
		snprintf(what, sizeof(what), "fd %d", dirfd);
	} else {
		if (uie_guest_open_as(c, dirfd, path, flags & AT_SYMLINK_NOFOLLOW, &ch.root, &fd) != UIE_OK)
			fd = -1;
		snprintf(what, sizeof(what), "%s", path);
	}
	if (fd < 0) {
		uie_guest_deny(r, errno ? errno : ENOENT); /* what the kernel would say */
		goto out;
	}
	/* r says EACCES until the monitor has allowed every object of the chain. */
	if (!add_object(&ch, n, fd, UIE_ROLE_MAIN, what)) {
		uie_guest_deny(r, EACCES);
		goto out;
	}
	/* What the exec watch will see first (fan.c): the main program, if its file system is
	 * marked.  ch.head_st is still the main program's: walk_chain has not run yet. */
	ids.main_first = ch.g[0].role != UIE_ROLE_ANON;
	ids.main_watched = uie_guest_fan_covers(&s->fan, ch.head_st.st_dev);
	if (ids.main_first)
		err = walk_chain(&ch, c, ids.main_watched);
	asked = ask_chain(s, &ch, &ids);
	if (asked && err == 0) {
		/* Under the exec watch the kernel's own opens are checked again (fan.c):
		 * any file other than the ones allowed here is asked about once more.
		 * With or without it the entry keeps the freezer off the process while
		 * its execve runs (uie_guest_fan_exec_unfinished), so an execve that
		 * gets no entry does not run. */
		if (uie_guest_fan_expect(&s->fan, c, &ids)) {
			uie_guest_cont(r);
		} else {
			fprintf(stderr,
				"uie: denied execve of %s (pid %d): %s cannot follow it "
				"(%d execves of the tree in flight)\n",
				what, (int)n->pid, s->fan.fd >= 0 ? "the exec watch" : "the freezer",
				UIE_FAN_MAX_PENDING);
			uie_guest_deny(r, EAGAIN);
		}
	} else if (asked) {
		uie_guest_deny(r, err);
	}
	for (unsigned i = 0; i < ch.n; i++)
		close(ch.g[i].objfd);
out:
	if (ch.root >= 0)
		close(ch.root);
}
