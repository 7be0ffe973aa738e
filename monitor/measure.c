/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MEASURE, FASTPATH and STATUS handlers.  The monitor measures the file
 * behind the descriptor it received, never a path: fstat gives the file
 * identity, pread the bytes (no mapping, so a guest that truncates the
 * file cannot crash the monitor with SIGBUS).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdpass.h"
#include "host_platform.h"
#include "monitor.h"
#include "uie/err.h"

/*
 * Checks that fd can be measured: a regular file opened for reading; id
 * receives its identity (as uie_host_object_open gives it).  *fileless is
 * set for files with no name left (memfd, O_TMPFILE, deleted) whose
 * content can change; a memfd sealed against writes, shrinking and
 * growing is measured like a file (seals cannot be removed).
 */
static int object_check(int fd, struct uie_file_id *id, bool *fileless)
{
	struct stat st;
	int fl;

	*fileless = false;
	memset(id, 0, sizeof(*id));
	if (fstat(fd, &st) != 0)
		return UIE_E_IO;
	if (!S_ISREG(st.st_mode))
		return UIE_E_FORMAT;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_PATH) || (fl & O_ACCMODE) == O_WRONLY)
		return UIE_E_IO;
	if (st.st_nlink == 0) {
		int need = F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW, seals = fcntl(fd, F_GET_SEALS);

		*fileless = seals < 0 || (seals & need) != need;
	}
	*id = (struct uie_file_id){
		.dev = (uint64_t)st.st_dev, .ino = (uint64_t)st.st_ino, .size = (uint64_t)st.st_size,
		.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
		.ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec,
	};
	return UIE_OK;
}

static bool id_eq(const struct uie_file_id *a, const struct uie_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns;
}

/*
 * Measures the object for req (filling req->id), through the cache.
 * Returns the measurement result that uie_core_decide expects; *scope
 * stays NONE for fileless objects.  A cache hit costs one fstat: the
 * identity taken before anything is read is the one the digest must
 * belong to, and a miss checks after reading that it still is.
 */
static int measure_fd(struct uie_monitor *m, struct uie_req *req, int fd, struct uie_digest *digest,
		      uint8_t *scope)
{
	struct uie_host_object ho, again;
	struct uie_cache_key key;
	struct uie_file_id id2;
	bool fileless;
	int r;

	if ((r = object_check(fd, &req->id, &fileless)) != UIE_OK || fileless)
		return r;
	/* A program (role ANON) has one digest whatever range is asked about: its exec's. */
	if (req->role == UIE_ROLE_ANON)
		uie_cache_key_make(&key, &req->id, uie_core_obj_alg(&m->core), UIE_EV_EXECVE, 0,
				   req->id.size);
	else
		uie_cache_key_make(&key, &req->id, uie_core_obj_alg(&m->core), req->event,
				   req->file_offset, req->length);
	if (uie_cache_get(m->cache, &key, digest, scope)) {
		/* The entry may come from another role's request: keep uie_core_measure's rules. */
		if ((req->role == UIE_ROLE_ANON && *scope != UIE_SCOPE_ELF) ||
		    (req->role == UIE_ROLE_SCRIPT && *scope != UIE_SCOPE_RANGE)) {
			memset(digest, 0, sizeof(*digest));
			*scope = UIE_SCOPE_NONE;
			return UIE_E_FORMAT; /* not an ELF program, or not a script */
		}
		return UIE_OK;
	}
	if ((r = uie_host_object_open(&ho, fd, false, &id2)) != UIE_OK)
		return r;
	if (!id_eq(&id2, &req->id)) { /* changed since the check: no version to name */
		uie_host_object_close(&ho);
		return UIE_E_IO;
	}
	r = uie_core_measure(&m->core, req, &ho.obj, digest, scope);
	uie_host_object_close(&ho);
	if (r != UIE_OK)
		return r;
	/* The file changed while it was read: the digest names no version of it. */
	if (uie_host_object_open(&again, fd, false, &id2) != UIE_OK || !id_eq(&id2, &req->id)) {
		uie_host_object_close(&again);
		memset(digest, 0, sizeof(*digest));
		*scope = UIE_SCOPE_NONE;
		return UIE_E_IO;
	}
	uie_host_object_close(&again);
	uie_cache_put(m->cache, &key, digest, *scope);
	return UIE_OK;
}

/*
 * The name of the object behind fd, for the system log (NULL when it has
 * none).  A deleted or fileless object's name says so: "/memfd:x (deleted)".
 */
static const char *object_name(int fd, char *buf, size_t size)
{
	char link[32];
	ssize_t n;

	if (fd < 0)
		return NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, size - 1);
	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

int uie_mon_measure(struct uie_monitor *m, const struct uie_wire_msg *q, int fd,
		    struct uie_wire_msg *a, int *afd)
{
	const struct uie_msg_measure_req *mq = &q->u.measure_req;
	struct uie_req req = {
		.event = mq->event, .role = mq->role, .pid = mq->pid,
		.vaddr = mq->vaddr, .length = mq->length, .file_offset = mq->file_offset,
	};
	struct uie_digest digest = { 0 };
	uint8_t scope = UIE_SCOPE_NONE;
	int merr = UIE_OK, r;

	/* In VM mode a guest's descriptor would be bytes the guest chose, not its memory. */
	if (m->ram && (req.role != UIE_ROLE_ANON || fd >= 0))
		return UIE_E_STATE;
	/* Anonymous memory comes with its process's program, or with nothing. */
	if (req.role != UIE_ROLE_ANON || fd >= 0)
		merr = measure_fd(m, &req, fd, &digest, &scope);
	r = uie_core_decide(&m->core, &req, merr, scope == UIE_SCOPE_NONE ? NULL : &digest, scope,
			    &a->u.measure_ans);
	if (r == UIE_OK && m->denylog && a->u.measure_ans.policy_decision == UIE_DENY) {
		char name[4096];

		uie_denylog_denial(m->denylog, &req, &a->u.measure_ans, m->core.mode,
				   object_name(fd, name, sizeof(name)));
	}
	if (merr != UIE_OK)
		uie_mon_diag(m, "measure pid %u event %u role %u: %s", req.pid, req.event, req.role,
			     uie_err_str(merr));
	return r;
}

/*
 * Logs a guest's batch of fast-path refusals.  Every entry is decoded and
 * checked before the first is logged, so a bad batch changes nothing.  A
 * batch refused with the hint of another epoch than the one in force is
 * not logged: its records would claim the wrong policy.
 */
int uie_mon_fastpath(struct uie_monitor *m, const struct uie_wire_msg *q, int fd,
		     struct uie_wire_msg *a, int *afd)
{
	uint32_t n = q->u.fastpath_req.count;
	struct uie_fastpath_report *reps;
	uint8_t *buf = NULL;
	int r;

	if (q->u.fastpath_req.epoch != m->core.epoch) {
		uie_mon_diag(m, "fast-path report of %u refusal(s) under epoch %llu, epoch %llu in force: "
			     "not logged", n, (unsigned long long)q->u.fastpath_req.epoch,
			     (unsigned long long)m->core.epoch);
		return UIE_E_STATE;
	}
	reps = calloc(n, sizeof(*reps));
	r = reps ? UIE_OK : UIE_E_NOMEM;

	if (r == UIE_OK)
		r = uie_memfd_read_alloc(fd, (uint64_t)n * UIE_BRIDGE_FASTPATH_ENTRY_LEN,
					 (uint64_t)UIE_BRIDGE_FASTPATH_MAX * UIE_BRIDGE_FASTPATH_ENTRY_LEN,
					 &buf);
	for (uint32_t i = 0; r == UIE_OK && i < n; i++)
		r = uie_bridge_fastpath_entry_decode(buf + (size_t)i * UIE_BRIDGE_FASTPATH_ENTRY_LEN,
						     &reps[i].req, &reps[i].digest);
	a->u.fastpath_ans.first_seq = m->core.next_seq;
	for (uint32_t i = 0; r == UIE_OK && i < n; i++) {
		struct uie_verdict v = { .decision = UIE_DENY, .policy_decision = UIE_DENY,
					 .reason = UIE_R_FASTPATH_MISS, .digest = reps[i].digest,
					 .seq = m->core.next_seq };

		r = uie_core_log_fastpath(&m->core, &reps[i].req, &reps[i].digest);
		if (r == UIE_OK) /* the guest refused it without asking: no object to name */
			uie_denylog_denial(m->denylog, &reps[i].req, &v, m->core.mode, NULL);
	}
	if (r == UIE_OK)
		a->u.fastpath_ans.count = n;
	else
		uie_mon_diag(m, "fast-path report of %u refusal(s): %s", n, uie_err_str(r));
	free(buf);
	free(reps);
	return r;
}

int uie_mon_status(struct uie_monitor *m, const struct uie_wire_msg *q, int fd,
		   struct uie_wire_msg *a, int *afd)
{
	struct uie_status *s = &a->u.status_ans;

	s->mode = m->core.mode;
	s->epoch = m->core.epoch;
	s->nrecords = m->core.next_seq;
	memcpy(s->vpcr, m->core.vpcr, UIE_PCR_LEN);
	memcpy(s->policy_id, m->core.policy_id, UIE_SHA256_LEN);
	memcpy(s->boot_id, m->boot_id, sizeof(s->boot_id));
	s->boot = m->boot;
	s->repeats = m->log.repeats;
	s->health = uie_mon_health(m);
	return UIE_OK;
}
