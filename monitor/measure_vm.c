/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MEASURE_VM handler (docs/BRIDGE.md section 12): the guest names the
 * object by the guest-physical frames it lies in; the monitor checks every
 * frame against guest RAM and measures the bytes there with the same core
 * as in process mode, so the digest is the process-mode digest.  Nothing
 * is cached: the frame list and the object size come from the guest and
 * identify nothing the monitor verified, so every request is measured.
 */
#include <stdlib.h>
#include <string.h>

#include "fdpass.h"
#include "guestram.h"
#include "monitor.h"
#include "uie/buf.h"
#include "uie/err.h"

/* Reads the frame list of q from its sealed memfd; *frames is malloc'ed. */
static int frames_read_alloc(const struct uie_msg_measure_vm_req *q, int fd, uint64_t **frames, size_t *n)
{
	uint64_t count = uie_bridge_vm_nframes(q->object_size);
	uint8_t *raw = NULL;
	uint64_t *f;
	int r;

	*frames = NULL;
	*n = 0;
	if ((r = uie_memfd_read_alloc(fd, count * 8, (uint64_t)UIE_VM_MAX_FRAMES * 8, &raw)) != UIE_OK)
		return r;
	f = malloc((size_t)count * sizeof(*f));
	if (!f) {
		free(raw);
		return UIE_E_NOMEM;
	}
	for (uint64_t i = 0; i < count; i++)
		f[i] = uie_le64(raw + i * 8);
	free(raw);
	*frames = f;
	*n = (size_t)count;
	return UIE_OK;
}

int uie_mon_measure_vm(struct uie_monitor *m, const struct uie_wire_msg *q, int fd, struct uie_wire_msg *a,
		       int *afd, struct uie_mon_later *later)
{
	const struct uie_msg_measure_vm_req *mq = &q->u.measure_vm_req;
	struct uie_req req = {
		.event = mq->r.event,
		.role = mq->r.role,
		.pid = mq->r.pid,
		.vaddr = mq->r.vaddr,
		.length = mq->r.length,
		.file_offset = mq->r.file_offset,
		.id = { .size = mq->object_size }, /* the only identity VM mode has */
		.cond = UIE_BRIDGE_COND_OF(mq->r.flags),
		.fs = UIE_BRIDGE_FS_OF(mq->r.flags),
	};
	struct uie_digest digest = { 0 };
	struct uie_guest_object go;
	uint8_t scope = UIE_SCOPE_NONE;
	uint64_t *frames = NULL;
	size_t n = 0;
	int merr = UIE_OK, r;

	(void)afd;
	if (!m->ram)
		return UIE_E_STATE; /* process mode has no guest RAM to read */
	if (!(mq->r.flags & UIE_VM_FLAG_FILELESS)) {
		/* A frame list that is malformed or leaves guest RAM is refused, not logged. */
		if ((r = frames_read_alloc(mq, fd, &frames, &n)) != UIE_OK ||
		    (r = uie_guest_object_init(&go, m->ram, frames, n, mq->object_size)) != UIE_OK) {
			uie_mon_diag(m, "measure-vm pid %u: frame list refused: %s", req.pid, uie_err_str(r));
			free(frames);
			return r;
		}
		merr = uie_core_measure(&m->core, &req, &go.obj, &digest, &scope);
		free(frames);
	}
	r = uie_core_decide(&m->core, &req, merr, scope == UIE_SCOPE_NONE ? NULL : &digest, scope,
			    &a->u.measure_ans);
	if (merr != UIE_OK)
		uie_mon_diag(m, "measure-vm pid %u event %u role %u: %s", req.pid, req.event, req.role,
			     uie_err_str(merr));
	return r;
}
