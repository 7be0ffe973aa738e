/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writes to the files of approved executable mappings (root, with the
 * fanotify group of fan.c).  The kernel lets anyone with write access
 * rewrite a shared object while it is mapped, and the mapping then runs
 * the new bytes: the monitor's measurement no longer names what runs.
 * Like IMA's "open-writers"/ToMToU violations this is detected and logged,
 * not refused: fanotify cannot tell a write open from a read open before
 * 6.14, and a writer may have opened the file before it was approved.
 *
 * Every file the monitor allows gets an inode mark for FAN_MODIFY, which
 * the kernel raises for every write, truncate and fallocate, whoever the
 * writer is and whenever it opened the file.  On an event we check that
 * some process still maps the file executable, or may be about to (a
 * grant of it whose call is unfinished, seal.h); if so, the monitor logs a
 * WRITE_VIOLATION record (the file as it is now) and the verifier refuses
 * the evidence.  Either way the mark is removed and the approval
 * forgotten, so that one event is handled per approval and the next grant
 * of the file is measured, approved and watched again.  Not seen: stores
 * through a shared writable mapping of the file (no fsnotify event), and
 * files on file systems that refuse marks (docs/THREAT-MODEL.md).  A
 * sealed file (seal.c) is reported before the write, when its lease
 * breaks; this watch remains for files MEASURE grants unsealed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "connection.h"
#include "describe.h"
#include "granted.h"
#include "hex.h"
#include "maps.h"
#include "seal.h"
#include "sup.h"
#include "uie/bridge.h"
#include "uie/err.h"
#include "writewatch.h"

void uie_guest_watch_add(struct uie_fan *f, int objfd)
{
	if (f->fd < 0 || fanotify_mark(f->fd, FAN_MARK_ADD, FAN_MODIFY, objfd, NULL) == 0)
		return;
	/* Out of marks (fs.fanotify.max_user_marks), or a file system without fsnotify. */
	if (!f->watch_warned)
		fprintf(stderr,
			"uie: cannot watch an approved file for writes (%s); writes to it "
			"go unseen\n",
			strerror(errno));
	f->watch_warned = true;
}

struct live {
	dev_t dev;
	ino_t ino;
	pid_t pid; /* a process mapping it executable, 0: none found */
};

static int find_exec(void *ctx, const struct uie_map *m)
{
	struct live *l = ctx;

	if (m->x && !m->special && m->ino == (uint64_t)l->ino &&
	    makedev(m->dev_major, m->dev_minor) == l->dev)
		return UIE_E_STATE; /* found: stop the walk */
	return UIE_OK;
}

static int find_exec_in(void *ctx, pid_t pid)
{
	struct live *l = ctx;

	if (uie_guest_maps_each(pid, find_exec, l) != UIE_E_STATE)
		return UIE_OK;
	l->pid = pid;
	return UIE_E_STATE; /* found: stop the walk */
}

/* A process that maps (dev, ino) executable now, or 0. */
static pid_t live_mapper(dev_t dev, ino_t ino)
{
	struct live l = { .dev = dev, .ino = ino };

	uie_guest_each_process(find_exec_in, &l);
	return l.pid;
}

void uie_guest_watch_event(struct uie_sup *s, const struct fanotify_event_metadata *m)
{
	struct stat st;
	pid_t mapper;

	if (m->fd < 0 || fstat(m->fd, &st) != 0)
		return;
	fanotify_mark(s->fan.fd, FAN_MARK_REMOVE, FAN_MODIFY, m->fd, NULL);
	if (!uie_guest_approved(&s->granted, st.st_dev, st.st_ino))
		return;
	uie_guest_forget(&s->granted, st.st_dev, st.st_ino);
	mapper = live_mapper(st.st_dev, st.st_ino);
	if (mapper == 0) /* a grant of it whose mapping may not be in the maps yet */
		mapper = uie_guest_seal_unfinished(s, st.st_dev, st.st_ino);
	if (mapper == 0)
		return; /* no longer mapped: the next grant measures the new bytes */
	uie_guest_report_violation(s, m->pid, m->fd, mapper);
}

int uie_guest_report_violation(struct uie_sup *s, pid_t writer, int fd, pid_t mapper)
{
	char name[512];
	uint64_t seq = 0;
	int r;

	uie_guest_connect(s);
	r = s->conn.fd < 0
		    ? UIE_E_PEER
		    : uie_bridge_violation(s->conn.fd, (uint32_t)writer, UIE_VIOLATION_WRITE, fd, &seq);
	if (r == UIE_E_PEER || r == UIE_E_SYS)
		uie_guest_disconnect(s);
	if (r == UIE_OK)
		fprintf(stderr,
			"uie: violation: %s, mapped executable by pid %d, was written by pid %d "
			"(record %llu)\n",
			uie_guest_describe(NULL, fd, name, sizeof(name)), (int)mapper, (int)writer,
			(unsigned long long)seq);
	else
		fprintf(stderr,
			"uie: violation: %s, mapped executable by pid %d, was written by pid %d; "
			"the monitor could not log it: %s\n",
			uie_guest_describe(NULL, fd, name, sizeof(name)), (int)mapper, (int)writer,
			uie_err_str(r));
	return r;
}
