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
#include "host_platform.h"
#include "sup.h"
#include "tmem.h"
#include "uie/err.h"
#include "uie/measure.h"
#include "uie/sys.h"

#define MAX_INTERP_DEPTH 4 /* the kernel allows 5 levels of binfmt rewriting */

/* Asks about a fileless object run by execve, as anonymous memory. */
static bool ask_fileless(struct uie_sup *s, pid_t pid, const char *what)
{
	struct uie_grant g = { .event = UIE_EV_EXECVE, .role = UIE_ROLE_ANON, .pid = pid, .what = what };

	return uie_guest_grant(s, &g);
}

/*
 * Asks about one object of the execve; an allowed file's identity goes to
 * ids.  st is fd's fstat (NULL: taken here).  The identity recorded is the
 * one from before the request: if the file changes after it, the exec
 * watch no longer matches it and asks the monitor again (fan.c).
 */
static bool ask_file(struct uie_sup *s, const struct uie_call *c, int fd, const struct stat *st, uint8_t role,
		     const char *what, struct uie_exec_ids *ids)
{
	struct uie_grant g;
	struct stat own;

	if (!st) {
		if (fstat(fd, &own) != 0)
			return false;
		st = &own;
	}
	if (!S_ISREG(st->st_mode))
		return false;
	if (uie_sys_fileless(fd, st))
		return ask_fileless(s, c->n->pid, what);
	g = (struct uie_grant){ .event = UIE_EV_EXECVE,
				.role = uie_guest_exec_role(fd, role),
				.pid = c->n->pid,
				.objfd = fd,
				.st = *st,
				.length = (uint64_t)st->st_size,
				.what = what };
	if (!uie_guest_grant(s, &g))
		return false;
	if (ids->n < UIE_EXEC_IDS)
		ids->id[ids->n++] = uie_file_id_of(st);
	return true;
}

/* The interpreter named by a "#!" line, or by PT_INTERP; *name[0] == 0 when none. */
static int interp_of(int fd, char *name, size_t cap)
{
	struct uie_host_object ho;
	struct uie_elf_info info;
	char head[256];
	ssize_t n;
	int r;

	name[0] = '\0';
	n = pread(fd, head, sizeof(head) - 1, 0);
	if (n < 0)
		return UIE_E_IO;
	head[n] = '\0';
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		size_t i = 2, j = 0;

		while (head[i] == ' ' || head[i] == '\t')
			i++;
		while (head[i] && head[i] != ' ' && head[i] != '\t' && head[i] != '\n' && j + 1 < cap)
			name[j++] = head[i++];
		name[j] = '\0';
		return j > 0 ? UIE_OK : UIE_E_FORMAT;
	}
	if (n < 4 || memcmp(head, "\177ELF", 4) != 0)
		return UIE_E_FORMAT; /* neither: the kernel answers ENOEXEC */
	if ((r = uie_host_object_open(&ho, fd, false, NULL)) != UIE_OK)
		return r;
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

/* Asks about the interpreter chain of fd; returns 0 or the errno to fail the call with. */
static int check_chain(struct uie_sup *s, const struct uie_call *c, int fd, const char *what, bool watched,
		       struct uie_exec_ids *ids)
{
	char name[PATH_MAX];
	int cur = fd, depth, err = 0;

	for (depth = 0; depth < MAX_INTERP_DEPTH; depth++) {
		int next, r = interp_of(cur, name, sizeof(name));

		if (r == UIE_E_FORMAT) {
			/* Neither ELF nor #!: under the watch the kernel's binfmt_misc
			 * handler is checked when opened; without it, refuse like the kernel. */
			err = watched ? 0 : ENOEXEC;
			break;
		}
		if (r != UIE_OK) {
			fprintf(stderr,
				"uie: denied execve of %s (pid %d): cannot read its interpreter (%s)\n", what,
				(int)c->n->pid, uie_err_str(r));
			err = EACCES;
			break;
		}
		if (name[0] == '\0')
			break;
		if (uie_guest_open_as(c, AT_FDCWD, name, false, &next) != UIE_OK) {
			err = errno ? errno : ENOENT;
			break;
		}
		if (cur != fd)
			close(cur);
		cur = next;
		if (!ask_file(s, c, cur, NULL, UIE_ROLE_INTERP, name, ids)) {
			err = EACCES;
			break;
		}
	}
	if (depth == MAX_INTERP_DEPTH)
		err = ELOOP;
	if (cur != fd)
		close(cur);
	return err;
}

void uie_guest_on_exec(struct uie_sup *s, const struct uie_call *c, struct seccomp_notif_resp *r)
{
	const struct seccomp_notif *n = c->n;
	bool at = n->data.nr == __NR_execveat;
	int dirfd = at ? (int)n->data.args[0] : AT_FDCWD;
	int flags = at ? (int)n->data.args[4] : 0;
	char path[PATH_MAX], what[PATH_MAX + 32];
	struct uie_exec_ids ids = { .n = 0 };
	struct stat st;
	bool watched, ok = false;
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
		if (uie_guest_open_as(c, dirfd, path, flags & AT_SYMLINK_NOFOLLOW, &fd) != UIE_OK)
			fd = -1;
		snprintf(what, sizeof(what), "%s", path);
	}
	if (fd < 0) {
		uie_guest_deny(r, errno ? errno : ENOENT); /* what the kernel would say */
		return;
	}
	/* r says EACCES until one of the branches below has the monitor's ALLOW. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		uie_guest_deny(r, EACCES);
		close(fd);
		return;
	}
	watched = uie_guest_fan_covers(&s->fan, st.st_dev);
	if (uie_sys_fileless(fd, &st)) {
		ok = ask_fileless(s, n->pid, what);
	} else if (ask_file(s, c, fd, &st, UIE_ROLE_MAIN, what, &ids)) {
		err = check_chain(s, c, fd, what, watched, &ids);
		ok = err == 0;
	}
	if (ok) {
		/* Under the exec watch the kernel's own opens are checked again (fan.c):
		 * any file other than the ones allowed here is asked about once more. */
		if (s->fan.fd >= 0)
			uie_guest_fan_expect(&s->fan, n->pid, &ids);
		uie_guest_cont(r);
	} else if (err != 0) {
		uie_guest_deny(r, err);
	}
	close(fd);
}
