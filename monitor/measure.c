/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MEASURE, FASTPATH and STATUS handlers.  The monitor measures the file
 * behind the descriptor it received, never a path: fstat gives the file
 * identity, pread the bytes (no mapping, so a guest that truncates the
 * file cannot crash the monitor with SIGBUS).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fdpass.h"
#include "host_platform.h"
#include "monitor.h"
#include "uie/err.h"

/*
 * Checks that fd can be measured: a regular file opened for reading; id
 * receives its identity (as uie_host_object_open gives it).  *fileless is
 * set for files with no name left (memfd, O_TMPFILE, deleted).
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
	*fileless = st.st_nlink == 0;
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

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * An object whose reads fail with UIE_E_LIMIT once the request's hashing
 * time is used up (the core reads in chunks of 16 KiB, so the check costs
 * one clock read per chunk).
 */
struct timed_object {
	struct uie_object obj;
	const struct uie_object *inner;
	uint64_t deadline_ms;
	bool expired;
};

static int timed_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct timed_object *t = ctx;

	if (now_ms() > t->deadline_ms) {
		t->expired = true;
		return UIE_E_LIMIT;
	}
	return t->inner->read(t->inner->ctx, off, buf, len);
}

/* Measures obj within the hashing time limit (as uie_core_measure). */
static int measure_timed(struct uie_monitor *m, const struct uie_req *req,
			 const struct uie_object *obj, struct uie_digest *digest, uint8_t *scope)
{
	struct timed_object t = { .inner = obj };
	int r;

	if (!m->limits.max_hash_ms || obj->map)
		return uie_core_measure(&m->core, req, obj, digest, scope);
	t.deadline_ms = now_ms() + m->limits.max_hash_ms;
	t.obj = (struct uie_object){ .ctx = &t, .size = obj->size, .read = timed_read };
	r = uie_core_measure(&m->core, req, &t.obj, digest, scope);
	if (t.expired) {
		uie_mon_diag(m, "measuring %llu bytes took over --max-hash-ms %u: refused",
			     (unsigned long long)obj->size, m->limits.max_hash_ms);
		r = UIE_E_LIMIT;
	}
	return r;
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
	if (m->limits.max_object && req->id.size > m->limits.max_object) {
		uie_mon_diag(m, "object of %llu bytes over --max-object-size %llu: refused",
			     (unsigned long long)req->id.size,
			     (unsigned long long)m->limits.max_object);
		return UIE_E_LIMIT;
	}
	uie_cache_key_make(&key, &req->id, uie_core_obj_alg(&m->core), req->event, req->file_offset,
			   req->length);
	if (uie_cache_get(m->cache, &key, digest, scope))
		return UIE_OK;
	if ((r = uie_host_object_open(&ho, fd, false, &id2)) != UIE_OK)
		return r;
	if (!id_eq(&id2, &req->id)) { /* changed since the check: no version to name */
		uie_host_object_close(&ho);
		return UIE_E_IO;
	}
	r = measure_timed(m, req, &ho.obj, digest, scope);
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

	if ((r = uie_mon_quota_take(m, 1)) != UIE_OK) {
		uie_mon_diag(m, "measure pid %u: client quota of %u records/s used up: refused, not logged",
			     req.pid, m->limits.quota);
		return r;
	}
	if (req.role != UIE_ROLE_ANON)
		merr = measure_fd(m, &req, fd, &digest, &scope);
	r = uie_core_decide(&m->core, &req, merr, scope == UIE_SCOPE_NONE ? NULL : &digest, scope,
			    &a->u.measure_ans);
	if (merr != UIE_OK)
		uie_mon_diag(m, "measure pid %u event %u role %u: %s", req.pid, req.event, req.role,
			     uie_err_str(merr));
	return r;
}

/*
 * Logs a write violation reported by an interceptor, with the file's
 * identity and digest as they are now (an ELF object digest, or the range
 * digest of the whole file): the verifier then names what ran instead of
 * what was approved.  A file that cannot be measured is logged without a
 * digest: the violation is recorded all the same.
 */
int uie_mon_violation(struct uie_monitor *m, const struct uie_wire_msg *q, int fd,
		      struct uie_wire_msg *a, int *afd)
{
	struct uie_req req = { .event = UIE_EV_EXECVE, .role = UIE_ROLE_DSO,
			       .pid = q->u.violation_req.pid };
	struct uie_digest digest = { 0 };
	uint8_t scope = UIE_SCOPE_NONE;
	bool fileless;
	int merr, r;

	if ((r = uie_mon_quota_take(m, 1)) != UIE_OK)
		return r;
	if ((r = object_check(fd, &req.id, &fileless)) != UIE_OK)
		return r; /* not a readable regular file: nothing to name */
	req.length = req.id.size;
	merr = fileless ? UIE_E_FORMAT : measure_fd(m, &req, fd, &digest, &scope);
	if (merr != UIE_OK) {
		uie_mon_diag(m, "write violation (pid %u, inode %llu): not measured: %s", req.pid,
			     (unsigned long long)req.id.ino, uie_err_str(merr));
		scope = UIE_SCOPE_NONE;
	}
	r = uie_core_log_violation(&m->core, req.pid, &req.id, scope == UIE_SCOPE_NONE ? NULL : &digest,
				   scope, &a->u.violation_ans_seq);
	if (r == UIE_OK)
		uie_mon_diag(m, "write violation: inode %llu written by pid %u while mapped executable "
			     "(record %llu)", (unsigned long long)req.id.ino, req.pid,
			     (unsigned long long)a->u.violation_ans_seq);
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
	if (r == UIE_OK) /* the whole batch or nothing */
		r = uie_mon_quota_take(m, n);
	a->u.fastpath_ans.first_seq = m->core.next_seq;
	for (uint32_t i = 0; r == UIE_OK && i < n; i++)
		r = uie_core_log_fastpath(&m->core, &reps[i].req, &reps[i].digest);
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
	return UIE_OK;
}
