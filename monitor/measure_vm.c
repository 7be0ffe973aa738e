/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MEASURE_VM and VIOLATION_VM handlers (docs/BRIDGE.md section 12): the
 * guest names the object by the guest-physical frames it lies in; the
 * monitor checks every frame against guest RAM and measures the bytes
 * there with the same core as in process mode, so the digest is the
 * process-mode digest.  Nothing is cached: the frame list and the object
 * size come from the guest and identify nothing the monitor verified, so
 * every request is measured.  For MPROTECT_EXEC the object is measured as
 * the process holds it (vmexec.h).
 */
#include <stdlib.h>
#include <string.h>

#include "fdpass.h"
#include "vmram.h"
#include "monitor.h"
#include "uie/buf.h"
#include "uie/err.h"
#include "vmexec.h"

/* Reads the count u64 of a payload from its sealed memfd; *list is malloc'ed. */
static int list_read_alloc(int fd, uint64_t count, uint64_t **list)
{
	uint8_t *raw = NULL;
	uint64_t *f;
	int r;

	*list = NULL;
	if ((r = uie_memfd_read_alloc(fd, count * 8, 2ull * UIE_VM_MAX_FRAMES * 8, &raw)) != UIE_OK)
		return r;
	f = malloc((size_t)count * sizeof(*f));
	if (!f) {
		free(raw);
		return UIE_E_NOMEM;
	}
	for (uint64_t i = 0; i < count; i++)
		f[i] = uie_le64(raw + i * 8);
	free(raw);
	*list = f;
	return UIE_OK;
}

/*
 * The object of size bytes whose frames begin the count-entry payload in
 * fd: *go reads it from guest RAM through *list (malloc'ed, borrowed by *go).
 */
static int list_object(const struct uie_monitor *m, int fd, uint64_t count, uint64_t size,
		       struct uie_vmram_object *go, uint64_t **list)
{
	int r;

	if ((r = list_read_alloc(fd, count, list)) != UIE_OK ||
	    (r = uie_vmram_object_init(go, m->ram, *list, (size_t)uie_bridge_vm_nframes(size), size)) !=
		    UIE_OK) {
		free(*list);
		*list = NULL;
	}
	return r;
}

/*
 * The object of q in guest RAM as its process will execute it: *list
 * (malloc'ed) holds its frames; *execmod: an MPROTECT_EXEC range holds
 * other bytes than the file's.
 */
static int vm_object(const struct uie_monitor *m, const struct uie_msg_measure_vm_req *mq, int fd,
		     struct uie_vmram_object *go, uint64_t **list, bool *execmod)
{
	uint64_t nobj = uie_bridge_vm_nframes(mq->object_size), total = uie_bridge_vm_list_len(mq);
	int r;

	*execmod = false;
	if ((r = list_object(m, fd, total, mq->object_size, go, list)) != UIE_OK)
		return r;
	/* the range's present frames take the file's places (go borrows the list) */
	if (total > nobj && (r = uie_vmexec_apply(m->ram, *list, (size_t)nobj, mq->r.file_offset,
						  *list + nobj, (size_t)(total - nobj), execmod)) != UIE_OK) {
		free(*list);
		*list = NULL;
	}
	return r;
}

int uie_mon_measure_vm(struct uie_monitor *m, struct uie_mon_call *c)
{
	const struct uie_msg_measure_vm_req *mq = &c->q->u.measure_vm_req;
	struct uie_req req;
	struct uie_measurement ms = { .scope = UIE_SCOPE_NONE };
	struct uie_vmram_object go;
	uint64_t *frames = NULL;
	bool execmod = false;
	int r;

	uie_bridge_req_of(&mq->r, &req);
	req.id.size = mq->object_size; /* the only identity VM mode has */
	if ((r = uie_mon_quota_take(m, c->client, 1)) != UIE_OK)
		return r;
	if (!(mq->r.flags & UIE_VM_FLAG_FILELESS)) {
		/* A frame list that is malformed or leaves guest RAM is refused, not logged. */
		if ((r = vm_object(m, mq, c->fd, &go, &frames, &execmod)) != UIE_OK) {
			uie_mon_diag(m, "measure-vm pid %u: frame list refused: %s", req.pid, uie_err_str(r));
			return r;
		}
		if (execmod) {
			uie_mon_diag(m,
				     "measure-vm pid %u: range at 0x%llx holds other bytes than the file "
				     "(execmod%s)",
				     req.pid, (unsigned long long)req.vaddr,
				     req.cond & UIE_COND_EXECMOD ? "" : "; the guest's flags did not say so");
			req.cond |= UIE_COND_EXECMOD;
		}
		ms.err = uie_core_measure(&m->core, &req, &go.obj, &ms.digest, &ms.scope);
		free(frames);
	}
	/* The guest names no object the monitor could check: the record's digest is its name. */
	return uie_mon_decide(m, c->client, &req, &ms, -1, &c->a->u.measure_ans);
}

/*
 * Logs a write violation whose file the guest names by its frames, with
 * the digest of the bytes there (the relay pinned them while the
 * interceptor's read lease still held the writer back: the approved
 * ones).  Object size 0: the guest could not name the file; logged
 * without a digest, as process mode logs a file it cannot measure.
 */
int uie_mon_violation_vm(struct uie_monitor *m, struct uie_mon_call *c)
{
	const struct uie_msg_violation_vm_req *vq = &c->q->u.violation_vm_req;
	struct uie_req req = { .event = UIE_EV_EXECVE,
			       .role = UIE_ROLE_DSO,
			       .pid = vq->v.pid,
			       .length = vq->object_size,
			       .id = { .size = vq->object_size } };
	struct uie_measurement ms = { .err = UIE_E_FORMAT, .scope = UIE_SCOPE_NONE };
	struct uie_vmram_object go;
	uint64_t *frames = NULL;
	int r;

	if ((r = uie_mon_quota_take(m, c->client, 1)) != UIE_OK)
		return r;
	if (vq->object_size > 0 && (r = list_object(m, c->fd, uie_bridge_vm_nframes(vq->object_size),
						    vq->object_size, &go, &frames)) != UIE_OK) {
		uie_mon_diag(m, "violation-vm pid %u: frame list refused: %s", req.pid, uie_err_str(r));
		return r;
	}
	if (vq->object_size > 0)
		ms.err = uie_core_measure(&m->core, &req, &go.obj, &ms.digest, &ms.scope);
	free(frames);
	if (ms.err != UIE_OK) {
		uie_mon_diag(m, "write violation (pid %u, VM): not measured: %s", req.pid,
			     uie_err_str(ms.err));
		ms.scope = UIE_SCOPE_NONE;
	}
	r = uie_core_log_violation(&m->core, req.pid, &req.id, ms.scope == UIE_SCOPE_NONE ? NULL : &ms.digest,
				   ms.scope, &c->a->u.violation_ans_seq);
	if (r == UIE_OK)
		uie_mon_diag(
			m,
			"write violation: a file of %llu bytes written by pid %u while mapped executable "
			"(VM, record %llu)",
			(unsigned long long)vq->object_size, req.pid,
			(unsigned long long)c->a->u.violation_ans_seq);
	return r;
}
