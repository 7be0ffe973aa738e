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
#include <sys/statfs.h>
#include <unistd.h>

#include "fdpass.h"
#include "host_platform.h"
#include "monitor.h"
#include "subjects.h"
#include "workers.h"
#include "uie/err.h"
#include "uie/sys.h"

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
	*fileless = uie_sys_fileless(fd, &st);
	*id = uie_file_id_of(&st);
	return UIE_OK;
}

/*
 * What the monitor sees itself of a file's source: the kind of file
 * system by its magic (only virtiofs, which shares FUSE's, is the guest's
 * word; one that cannot be asked counts as remote), and fs-verity (*v),
 * which makes it immutable: the kernel checks every page it reads.
 */
static void source_confirm(struct uie_req *req, int fd, struct uie_verity *v)
{
	struct statfs sfs;

	req->fs = fstatfs(fd, &sfs) == 0 ? uie_sys_fs_kind_confirm(req->fs, (uint64_t)sfs.f_type)
					 : UIE_FS_REMOTE;
	if (uie_verity_of(fd, v) && req->fs == UIE_FS_LOCAL)
		req->cond |= UIE_COND_IMMUTABLE;
}

/*
 * The cache key of req measured with alg: a program (role ANON) has one
 * digest whatever range is asked about; a file with fs-verity is keyed by
 * its digest v.
 */
static void cache_key(uint16_t alg, const struct uie_req *req, const struct uie_verity *v,
		      struct uie_cache_key *key)
{
	if (req->role == UIE_ROLE_ANON)
		uie_cache_key_make(key, &req->id, alg, UIE_EV_EXECVE, 0, req->id.size);
	else
		uie_cache_key_make(key, &req->id, alg, req->event, req->file_offset, req->length);
	if (v->alg)
		uie_cache_key_verity(key, v);
}

/*
 * The first half of measuring fd for req (filling req->id, and *v with
 * the file's fs-verity digest, which makes a file request IMMUTABLE):
 * checks, the size limit and the cache.  Returns true when the object
 * must be hashed; otherwise *ms is final (a cache hit, an error, or a
 * fileless object: UIE_OK with scope NONE).
 */
static bool measure_lookup(struct uie_monitor *m, struct uie_req *req, int fd, struct uie_verity *v,
			   struct uie_measurement *ms)
{
	struct uie_cache_key key;
	bool fileless;

	memset(v, 0, sizeof(*v));
	*ms = (struct uie_measurement){ .scope = UIE_SCOPE_NONE };
	if ((ms->err = object_check(fd, &req->id, &fileless)) != UIE_OK || fileless)
		return false;
	if (m->limits.max_object && req->id.size > m->limits.max_object) {
		uie_mon_diag(m, "object of %llu bytes over --max-object-size %llu: refused",
			     (unsigned long long)req->id.size, (unsigned long long)m->limits.max_object);
		ms->err = UIE_E_LIMIT;
		return false;
	}
	if (req->role != UIE_ROLE_ANON)
		source_confirm(req, fd, v);
	cache_key(uie_core_obj_alg(&m->core), req, v, &key);
	if (!uie_cache_get(m->cache, &key, &ms->digest, &ms->scope))
		return true;
	/* The entry may come from another role's request: keep uie_measure_object's rules. */
	if ((req->role == UIE_ROLE_ANON && ms->scope != UIE_SCOPE_ELF) ||
	    (req->role == UIE_ROLE_SCRIPT && ms->scope != UIE_SCOPE_RANGE))
		*ms = (struct uie_measurement){ .err = UIE_E_FORMAT, /* not an ELF program, or not a script */
						.scope = UIE_SCOPE_NONE };
	return false;
}

/* A job measuring fd: on the stack it borrows fd; a job from malloc owns it (uie_job_free). */
static void job_init(const struct uie_monitor *m, struct uie_job *job, const struct uie_req *req, int fd,
		     const struct uie_verity *v)
{
	memset(job, 0, sizeof(*job));
	job->pl = m->core.pl;
	job->alg = uie_core_obj_alg(&m->core);
	job->req = *req;
	job->fd = fd;
	job->verity = *v;
	job->max_hash_ms = m->limits.max_hash_ms;
}

/* The second half, in the loop's thread: caches a digest, says which limit stopped it. */
static struct uie_measurement measure_finish(struct uie_monitor *m, const struct uie_job *job)
{
	struct uie_cache_key key;

	if (job->expired)
		uie_mon_diag(m, "measuring %llu bytes took over --max-hash-ms %u: refused",
			     (unsigned long long)job->req.id.size, job->max_hash_ms);
	if (job->ms.err == UIE_OK) {
		/* Keyed by the algorithm it was measured with, even if a policy came in meanwhile. */
		cache_key(job->alg, &job->req, &job->verity, &key);
		uie_cache_put(m->cache, &key, &job->ms.digest, job->ms.scope);
	}
	return job->ms;
}

/*
 * Measures the object for req (filling req->id) in this thread, through
 * the cache; scope stays NONE for fileless objects.  A cache hit costs one
 * fstat: the identity taken before anything is read is the one the digest
 * must belong to, and a miss checks after reading that it still is.
 */
static struct uie_measurement measure_fd(struct uie_monitor *m, struct uie_req *req, int fd)
{
	struct uie_measurement ms;
	struct uie_verity v;
	struct uie_job job;

	if (!measure_lookup(m, req, fd, &v, &ms))
		return ms;
	job_init(m, &job, req, fd, &v);
	uie_job_measure(&job);
	return measure_finish(m, &job);
}

/* uie_mon_decide of a request measured in the loop, timed (--timing) from clk's start. */
static int timed_decide(struct uie_monitor *m, struct uie_mon_clock *clk, struct uie_mon_client *client,
			const struct uie_req *req, int fd, const struct uie_measurement *ms,
			struct uie_verdict *out)
{
	int r;

	uie_mon_clock_measured(m, clk);
	r = uie_mon_decide(m, client, req, ms, fd, out);
	uie_mon_clock_done(m, clk);
	return r;
}

/*
 * The request's subject (first-seen mode, docs/FORMATS.md 3.7): the record
 * the guest names must be a program granted on this connection; its digest
 * is the one the monitor logged.  Anything else is refused (the guest
 * applies DENY); 0 is "unknown".  Outside first-seen mode it is not used.
 */
static int req_from_msg(struct uie_monitor *m, const struct uie_mon_call *c, struct uie_req *req)
{
	const struct uie_msg_measure_req *mq = &c->q->u.measure_req;

	uie_bridge_req_of(mq, req);
	/* VM mode has no subjects: its EXECVE grants travel as MEASURE_VM_REQ (BRIDGE.md 12). */
	if (!uie_logstore_is_first_seen(&m->log) || m->ram || mq->subject_seq == 0)
		return UIE_OK;
	if (!c->client ||
	    uie_mon_subjects_get(c->client->subjects, mq->subject_seq, &req->subject) != UIE_OK) {
		uie_mon_diag(m,
			     "measure pid %u: subject record %llu is no program granted on this "
			     "connection: refused",
			     mq->pid, (unsigned long long)mq->subject_seq);
		return UIE_E_NOTFOUND;
	}
	req->subject_seq = mq->subject_seq;
	return UIE_OK;
}

static int quota_measure(struct uie_monitor *m, struct uie_mon_client *client, const struct uie_req *req)
{
	int r = uie_mon_quota_take(m, client, 1);

	if (r != UIE_OK)
		uie_mon_diag(m, "measure pid %u: client quota of %u records/s used up: refused, not logged",
			     req->pid, m->limits.quota);
	return r;
}

/*
 * MEASURE, served inline (c->later NULL) or, when later is given and the
 * object must be hashed (a cache miss), handed to a measurement worker:
 * later->job then owns the descriptor and no answer is written yet; the
 * worker's result is decided and answered by uie_mon_measure_finish.
 */
int uie_mon_measure(struct uie_monitor *m, struct uie_mon_call *c)
{
	struct uie_measurement ms = { .scope = UIE_SCOPE_NONE };
	struct uie_req req;
	struct uie_verity v;
	struct uie_job *job;
	struct uie_mon_clock clk;
	int r;

	uie_mon_clock_start(m, &clk);
	if ((r = req_from_msg(m, c, &req)) != UIE_OK)
		return r;
	/* In VM mode a guest's descriptor would be bytes the guest chose, not its memory. */
	if (m->ram && (req.role != UIE_ROLE_ANON || c->fd >= 0))
		return UIE_E_STATE;
	if ((r = quota_measure(m, c->client, &req)) != UIE_OK)
		return r;
	/* Anonymous memory comes with its process's program, or with nothing. */
	if (req.role == UIE_ROLE_ANON && c->fd < 0)
		return timed_decide(m, &clk, c->client, &req, c->fd, &ms, &c->a->u.measure_ans);
	if (!c->later || !m->workers)
		ms = measure_fd(m, &req, c->fd);
	else if (measure_lookup(m, &req, c->fd, &v, &ms)) {
		if ((job = malloc(sizeof(*job))) != NULL) {
			job_init(m, job, &req, c->fd, &v); /* the job owns the descriptor from here */
			job->request_id = c->q->request_id;
			c->later->job = job;
			if (m->timing)
				m->timing->hashed++;
			return UIE_OK;
		}
		ms = measure_fd(m, &req, c->fd); /* no memory for a job: here */
	}
	return timed_decide(m, &clk, c->client, &req, c->fd, &ms, &c->a->u.measure_ans);
}

void uie_mon_measure_finish(struct uie_monitor *m, struct uie_mon_client *client, struct uie_job *job,
			    uint8_t *ans, size_t *anslen)
{
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_REQ, .request_id = job->request_id };
	struct uie_wire_msg a = { 0 };
	struct uie_measurement ms = measure_finish(m, job);

	a.status = uie_mon_decide(m, client, &job->req, &ms, job->fd, &a.u.measure_ans);
	uie_mon_answer(&q, &a, ans, anslen);
}

/*
 * Logs a write violation reported by an interceptor, with the file's
 * identity and digest as they are now (an ELF object digest, or the range
 * digest of the whole file): the verifier then names what ran instead of
 * what was approved.  A file that cannot be measured is logged without a
 * digest: the violation is recorded all the same.
 */
int uie_mon_violation(struct uie_monitor *m, struct uie_mon_call *c)
{
	struct uie_req req = { .event = UIE_EV_EXECVE,
			       .role = UIE_ROLE_DSO,
			       .pid = c->q->u.violation_req.pid };
	struct uie_measurement ms = { .err = UIE_E_FORMAT, .scope = UIE_SCOPE_NONE };
	bool fileless;
	int r;

	if ((r = uie_mon_quota_take(m, c->client, 1)) != UIE_OK)
		return r;
	if ((r = object_check(c->fd, &req.id, &fileless)) != UIE_OK)
		return r; /* not a readable regular file: nothing to name */
	req.length = req.id.size;
	if (!fileless)
		ms = measure_fd(m, &req, c->fd);
	if (ms.err != UIE_OK)
		uie_mon_diag(m, "write violation (pid %u, inode %llu): not measured: %s", req.pid,
			     (unsigned long long)req.id.ino, uie_err_str(ms.err));
	r = uie_core_log_violation(&m->core, req.pid, &req.id, ms.scope == UIE_SCOPE_NONE ? NULL : &ms.digest,
				   ms.scope, &c->a->u.violation_ans_seq);
	if (r == UIE_OK)
		uie_mon_diag(m,
			     "write violation: inode %llu written by pid %u while mapped executable "
			     "(record %llu)",
			     (unsigned long long)req.id.ino, req.pid,
			     (unsigned long long)c->a->u.violation_ans_seq);
	return r;
}

/*
 * Logs a guest's batch of fast-path refusals.  Every entry is decoded and
 * checked before the first is logged, so a bad batch changes nothing.  A
 * batch refused with the hint of another epoch than the one in force is
 * not logged: its records would claim the wrong policy.
 */
int uie_mon_fastpath(struct uie_monitor *m, struct uie_mon_call *c)
{
	const struct uie_msg_fastpath_req *fq = &c->q->u.fastpath_req;
	uint32_t n = fq->count;
	struct uie_fastpath_report *reps;
	uint8_t *buf = NULL;
	int r;

	if (fq->epoch != m->core.epoch) {
		uie_mon_diag(m,
			     "fast-path report of %u refusal(s) under epoch %llu, epoch %llu in force: "
			     "not logged",
			     n, (unsigned long long)fq->epoch, (unsigned long long)m->core.epoch);
		return UIE_E_STATE;
	}
	reps = calloc(n, sizeof(*reps));
	r = reps ? UIE_OK : UIE_E_NOMEM;

	if (r == UIE_OK)
		r = uie_memfd_read_alloc(c->fd, (uint64_t)n * UIE_BRIDGE_FASTPATH_ENTRY_LEN,
					 (uint64_t)UIE_BRIDGE_FASTPATH_MAX * UIE_BRIDGE_FASTPATH_ENTRY_LEN,
					 &buf);
	for (uint32_t i = 0; r == UIE_OK && i < n; i++)
		r = uie_bridge_fastpath_entry_decode(buf + (size_t)i * UIE_BRIDGE_FASTPATH_ENTRY_LEN,
						     &reps[i].req, &reps[i].digest);
	if (r == UIE_OK) /* the whole batch or nothing */
		r = uie_mon_quota_take(m, c->client, n);
	c->a->u.fastpath_ans.first_seq = m->core.next_seq;
	for (uint32_t i = 0; r == UIE_OK && i < n; i++) {
		struct uie_verdict v = { .decision = UIE_DENY,
					 .policy_decision = UIE_DENY,
					 .reason = UIE_R_FASTPATH_MISS,
					 .digest = reps[i].digest,
					 .seq = m->core.next_seq };

		r = uie_core_log_fastpath(&m->core, &reps[i].req, &reps[i].digest);
		if (r == UIE_OK) /* the guest refused it without asking: no object to name */
			uie_denylog_denial(m->denylog, &reps[i].req, &v, m->core.mode, NULL);
	}
	if (r == UIE_OK)
		c->a->u.fastpath_ans.count = n;
	else
		uie_mon_diag(m, "fast-path report of %u refusal(s): %s", n, uie_err_str(r));
	free(buf);
	free(reps);
	return r;
}

int uie_mon_status(struct uie_monitor *m, struct uie_mon_call *c)
{
	struct uie_status *s = &c->a->u.status_ans;

	s->mode = m->core.mode;
	s->epoch = m->core.epoch;
	s->nrecords = m->core.next_seq;
	memcpy(s->vpcr, m->core.vpcr, UIE_PCR_LEN);
	memcpy(s->policy_id, m->core.policy_id, UIE_SHA256_LEN);
	memcpy(s->boot_id, m->boot_id, sizeof(s->boot_id));
	s->boot = m->boot;
	s->repeats = m->log.repeats;
	s->health = uie_mon_health(m);
	s->trust_keys = m->trust_keys > UINT8_MAX ? UINT8_MAX : (uint8_t)m->trust_keys;
	return UIE_OK;
}
