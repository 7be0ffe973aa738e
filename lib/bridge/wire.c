/* SPDX-License-Identifier: Apache-2.0 */
/* Bridge wire codec; the byte layout of every body is in docs/BRIDGE.md. */
#include "wire.h"

#include <string.h>

#include "genpage.h"
#include "uie/buf.h"
#include "uie/err.h"
#include "uie/package.h"

/* When a message carries a descriptor (uie_bridge_fd_rule). */
enum fd_when {
	FD_NEVER = 0,
	FD_ALWAYS,
	FD_UNLESS_ANON,     /* MEASURE_REQ: an object, or the program of anonymous memory */
	FD_UNLESS_FILELESS, /* MEASURE_VM_REQ: unless the VM flag says fileless */
	FD_IF_BLOB,         /* EXPORT/HINT answers: a non-empty blob on success */
	FD_IF_OK,           /* GEN_ANS: on success */
};

/*
 * One row per message type (docs/BRIDGE.md): the body length of its full
 * (status 0) form, -1 when variable, and when it carries a descriptor.
 * Types without a row are unknown.
 */
struct msg_row {
	bool known;
	int16_t body_len;
	enum fd_when fd;
};

static const struct msg_row msg_rows[UIE_MSG__MAX] = {
	[UIE_MSG_ERROR_ANS] = { true, 4, FD_NEVER },
	[UIE_MSG_MEASURE_REQ] = { true, 40, FD_UNLESS_ANON },
	[UIE_MSG_MEASURE_ANS] = { true, 72, FD_NEVER },
	[UIE_MSG_INSTALL_REQ] = { true, 8, FD_ALWAYS },
	[UIE_MSG_INSTALL_ANS] = { true, 20, FD_NEVER },
	[UIE_MSG_EXPORT_REQ] = { true, 80, FD_NEVER },
	[UIE_MSG_EXPORT_ANS] = { true, 24, FD_IF_BLOB },
	[UIE_MSG_HINT_REQ] = { true, 0, FD_NEVER },
	[UIE_MSG_HINT_ANS] = { true, 24, FD_IF_BLOB },
	[UIE_MSG_STATUS_REQ] = { true, 0, FD_NEVER },
	[UIE_MSG_STATUS_ANS] = { true, 128, FD_NEVER },
	[UIE_MSG_FASTPATH_REQ] = { true, 16, FD_ALWAYS },
	[UIE_MSG_FASTPATH_ANS] = { true, 16, FD_NEVER },
	[UIE_MSG_PUBKEY_REQ] = { true, 0, FD_NEVER },
	[UIE_MSG_PUBKEY_ANS] = { true, -1, FD_NEVER },
	[UIE_MSG_GEN_REQ] = { true, 0, FD_NEVER },
	[UIE_MSG_GEN_ANS] = { true, 24, FD_IF_OK },
	[UIE_MSG_CHECKPOINT_REQ] = { true, 40, FD_NEVER },
	[UIE_MSG_CHECKPOINT_ANS] = { true, 16, FD_NEVER },
	[UIE_MSG_MEASURE_VM_REQ] = { true, 40, FD_UNLESS_FILELESS },
	[UIE_MSG_MEASURE_VM_ANS] = { true, 72, FD_NEVER },
	[UIE_MSG_VIOLATION_REQ] = { true, 8, FD_ALWAYS },
	[UIE_MSG_VIOLATION_ANS] = { true, 16, FD_NEVER },
};

/* The row of type, or NULL when the type is unknown. */
static const struct msg_row *msg_row(uint16_t type)
{
	return type < UIE_MSG__MAX && msg_rows[type].known ? &msg_rows[type] : NULL;
}

/* Body length of the full (status 0) form of each type; -1 = variable, -2 = unknown type. */
static int body_len(uint16_t type)
{
	const struct msg_row *row = msg_row(type);

	return row ? row->body_len : -2;
}

bool uie_bridge_is_request(uint16_t type)
{
	return type % 2 == 0 && body_len(type) >= 0;
}

static bool is_answer(uint16_t type)
{
	return type % 2 == 1 && body_len(type) != -2;
}

enum uie_bridge_fd_rule uie_bridge_fd_rule(const struct uie_wire_msg *m)
{
	const struct msg_row *row = msg_row(m->type);
	bool fd = false;

	switch (row ? row->fd : FD_NEVER) {
	case FD_NEVER: fd = false; break;
	case FD_ALWAYS: fd = true; break;
	case FD_UNLESS_ANON:
		fd = m->u.measure_req.role != UIE_ROLE_ANON ||
		     (m->u.measure_req.flags & UIE_BRIDGE_REQ_PROGRAM);
		break;
	case FD_UNLESS_FILELESS: fd = !(m->u.measure_vm_req.r.flags & UIE_VM_FLAG_FILELESS); break;
	case FD_IF_BLOB: fd = m->status == UIE_OK && m->u.blob_ans.len; break;
	case FD_IF_OK: fd = m->status == UIE_OK; break;
	}
	return fd ? UIE_FD_ONE : UIE_FD_NONE;
}

static bool status_ok(int32_t s)
{
	return s <= 0 && s > UIE_E__MIN;
}

/* An optional digest may be absent (algorithm 0, length 0); either way it is canonical. */
static bool digest_ok(const struct uie_digest *d, bool required)
{
	if (d->alg == 0 && d->len == 0 && !required)
		return uie_digest_tail_zero(d, 0);
	return uie_digest_valid(d) && uie_digest_tail_zero(d, d->len);
}

static bool req_ok(uint16_t event, uint8_t role, uint8_t flags)
{
	return uie_event_role_valid(event, role) &&
	       (flags == 0 || (flags == UIE_BRIDGE_REQ_PROGRAM && role == UIE_ROLE_ANON));
}

/* Frames, object size and flags of a VM-mode request agree (docs/BRIDGE.md section 12). */
static bool measure_vm_ok(const struct uie_msg_measure_vm_req *q)
{
	if (!req_ok(q->r.event, q->r.role, q->r.flags & ~UIE_VM_FLAG_FILELESS) ||
	    q->r.role == UIE_ROLE_ANON || q->r.subject_seq != 0) /* no subject in VM mode */
		return false;
	if (q->r.flags & UIE_VM_FLAG_FILELESS)
		return q->object_size == 0;
	return q->object_size >= 1 && q->object_size <= (uint64_t)UIE_VM_MAX_FRAMES * UIE_VM_FRAME;
}

uint64_t uie_bridge_vm_nframes(uint64_t object_size)
{
	return object_size / UIE_VM_FRAME + (object_size % UIE_VM_FRAME != 0);
}

static bool fastpath_entry_ok(const struct uie_req *req, const struct uie_digest *digest)
{
	return req_ok(req->event, req->role, 0) && req->role != UIE_ROLE_ANON &&
	       digest_ok(digest, true);
}

/* Checks the meaning of a message's fields (shared by encoder and decoder). */
static bool fields_ok(const struct uie_wire_msg *m)
{
	const struct uie_verdict *v = &m->u.measure_ans;

	if (m->type % 2 == 1 && m->status != UIE_OK)
		return true;
	switch (m->type) {
	case UIE_MSG_MEASURE_REQ:
		return req_ok(m->u.measure_req.event, m->u.measure_req.role, m->u.measure_req.flags);
	case UIE_MSG_MEASURE_VM_REQ:
		return measure_vm_ok(&m->u.measure_vm_req);
	case UIE_MSG_MEASURE_ANS:
	case UIE_MSG_MEASURE_VM_ANS:
		return v->decision < UIE_DECISION__MAX && v->policy_decision < UIE_DECISION__MAX &&
		       v->reason < UIE_R__MAX && v->scope < UIE_SCOPE__MAX && digest_ok(&v->digest, false);
	case UIE_MSG_INSTALL_REQ:
		return m->u.install_req_len > 0 && m->u.install_req_len <= UIE_PACKAGE_MAX_LEN;
	case UIE_MSG_INSTALL_ANS:
		return status_ok(m->u.install_ans.result) && m->u.install_ans.mode < UIE_MODE__MAX;
	case UIE_MSG_EXPORT_REQ:
		if (m->u.export_req.nonce_len < 1 || m->u.export_req.nonce_len > UIE_BRIDGE_NONCE_MAX)
			return false;
		for (size_t i = m->u.export_req.nonce_len; i < UIE_BRIDGE_NONCE_MAX; i++)
			if (m->u.export_req.nonce[i])
				return false;
		return true;
	case UIE_MSG_EXPORT_ANS:
	case UIE_MSG_HINT_ANS:
		return m->u.blob_ans.len <= UIE_BRIDGE_MAX_BLOB;
	case UIE_MSG_GEN_ANS:
		return m->u.blob_ans.len == UIE_GENPAGE_LEN;
	case UIE_MSG_STATUS_ANS:
		return m->u.status_ans.mode < UIE_MODE__MAX && status_ok(m->u.status_ans.health);
	case UIE_MSG_FASTPATH_REQ:
		return m->u.fastpath_req.count >= 1 && m->u.fastpath_req.count <= UIE_BRIDGE_FASTPATH_MAX;
	case UIE_MSG_FASTPATH_ANS:
		return m->u.fastpath_ans.count >= 1 && m->u.fastpath_ans.count <= UIE_BRIDGE_FASTPATH_MAX;
	case UIE_MSG_PUBKEY_ANS:
		return m->u.pubkey_ans.len >= 1 && m->u.pubkey_ans.len <= UIE_BRIDGE_PUBKEY_MAX;
	case UIE_MSG_VIOLATION_REQ:
		return m->u.violation_req.kind >= 1 && m->u.violation_req.kind < UIE_VIOLATION__MAX;
	case UIE_MSG_ERROR_ANS:
		return false; /* only ever an error (status != 0) */
	default:
		return true;
	}
}

static void put_digest(struct uie_wbuf *w, const struct uie_digest *d)
{
	uie_wbuf_bytes(w, d->bytes, UIE_DIGEST_MAX);
}

static void put_file_req(struct uie_wbuf *w, const struct uie_req *r)
{
	uie_wbuf_u16(w, r->event);
	uie_wbuf_u8(w, r->role);
	uie_wbuf_u8(w, 0);
	uie_wbuf_u32(w, r->pid);
	uie_wbuf_u64(w, r->vaddr);
	uie_wbuf_u64(w, r->length);
	uie_wbuf_u64(w, r->file_offset);
	uie_wbuf_u64(w, r->id.dev);
	uie_wbuf_u64(w, r->id.ino);
	uie_wbuf_u64(w, r->id.size);
	uie_wbuf_u64(w, (uint64_t)r->id.mtime_ns);
	uie_wbuf_u64(w, (uint64_t)r->id.ctime_ns);
}

static void put_measure_req(struct uie_wbuf *w, const struct uie_msg_measure_req *q)
{
	uie_wbuf_u16(w, q->event);
	uie_wbuf_u8(w, q->role);
	uie_wbuf_u8(w, q->flags);
	uie_wbuf_u32(w, q->pid);
	uie_wbuf_u64(w, q->vaddr);
	uie_wbuf_u64(w, q->length);
	uie_wbuf_u64(w, q->file_offset);
}

static void put_body(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	const struct uie_verdict *v = &m->u.measure_ans;
	const struct uie_status *st = &m->u.status_ans;

	switch (m->type) {
	case UIE_MSG_MEASURE_REQ:
		put_measure_req(w, &m->u.measure_req);
		uie_wbuf_u64(w, m->u.measure_req.subject_seq);
		break;
	case UIE_MSG_MEASURE_VM_REQ:
		put_measure_req(w, &m->u.measure_vm_req.r);
		uie_wbuf_u64(w, m->u.measure_vm_req.object_size);
		break;
	case UIE_MSG_MEASURE_ANS:
	case UIE_MSG_MEASURE_VM_ANS:
		uie_wbuf_u8(w, v->decision);
		uie_wbuf_u8(w, v->policy_decision);
		uie_wbuf_u16(w, v->reason);
		uie_wbuf_u8(w, v->scope);
		uie_wbuf_u8(w, v->digest.len);
		uie_wbuf_u16(w, v->digest.alg);
		uie_wbuf_zero(w, 4);
		uie_wbuf_u64(w, v->seq);
		put_digest(w, &v->digest);
		break;
	case UIE_MSG_INSTALL_REQ:
		uie_wbuf_u64(w, m->u.install_req_len);
		break;
	case UIE_MSG_INSTALL_ANS:
		uie_wbuf_u32(w, (uint32_t)m->u.install_ans.result);
		uie_wbuf_u8(w, m->u.install_ans.mode);
		uie_wbuf_zero(w, 3);
		uie_wbuf_u64(w, m->u.install_ans.epoch);
		break;
	case UIE_MSG_EXPORT_REQ:
		uie_wbuf_u64(w, m->u.export_req.since_seq);
		uie_wbuf_u8(w, m->u.export_req.nonce_len);
		uie_wbuf_zero(w, 7);
		uie_wbuf_bytes(w, m->u.export_req.nonce, UIE_BRIDGE_NONCE_MAX);
		break;
	case UIE_MSG_EXPORT_ANS:
	case UIE_MSG_HINT_ANS:
	case UIE_MSG_GEN_ANS:
		uie_wbuf_zero(w, 4);
		uie_wbuf_u64(w, m->u.blob_ans.len);
		uie_wbuf_u64(w, m->u.blob_ans.epoch);
		break;
	case UIE_MSG_STATUS_ANS:
		uie_wbuf_u8(w, st->mode);
		uie_wbuf_zero(w, 3);
		uie_wbuf_u64(w, st->epoch);
		uie_wbuf_u64(w, st->nrecords);
		uie_wbuf_bytes(w, st->vpcr, UIE_PCR_LEN);
		uie_wbuf_bytes(w, st->policy_id, UIE_SHA256_LEN);
		uie_wbuf_bytes(w, st->boot_id, UIE_BRIDGE_BOOT_ID_LEN);
		uie_wbuf_u64(w, st->boot);
		uie_wbuf_u32(w, (uint32_t)st->health);
		uie_wbuf_zero(w, 4);
		uie_wbuf_u64(w, st->repeats);
		break;
	case UIE_MSG_FASTPATH_REQ:
		uie_wbuf_u32(w, m->u.fastpath_req.count);
		uie_wbuf_zero(w, 4);
		uie_wbuf_u64(w, m->u.fastpath_req.epoch);
		break;
	case UIE_MSG_FASTPATH_ANS:
		uie_wbuf_u32(w, m->u.fastpath_ans.count);
		uie_wbuf_u64(w, m->u.fastpath_ans.first_seq);
		break;
	case UIE_MSG_CHECKPOINT_REQ:
		uie_wbuf_u64(w, m->u.checkpoint_req.seq);
		uie_wbuf_bytes(w, m->u.checkpoint_req.pcr, UIE_PCR_LEN);
		break;
	case UIE_MSG_CHECKPOINT_ANS:
		uie_wbuf_zero(w, 4);
		uie_wbuf_u64(w, m->u.checkpoint_base);
		break;
	case UIE_MSG_VIOLATION_REQ:
		uie_wbuf_u32(w, m->u.violation_req.pid);
		uie_wbuf_u8(w, m->u.violation_req.kind);
		uie_wbuf_zero(w, 3);
		break;
	case UIE_MSG_VIOLATION_ANS:
		uie_wbuf_zero(w, 4);
		uie_wbuf_u64(w, m->u.violation_ans_seq);
		break;
	case UIE_MSG_PUBKEY_ANS:
		uie_wbuf_u16(w, m->u.pubkey_ans.len);
		uie_wbuf_zero(w, 2);
		uie_wbuf_bytes(w, m->u.pubkey_ans.der, m->u.pubkey_ans.len);
		break;
	default:
		break;
	}
}

int uie_bridge_encode(const struct uie_wire_msg *m, uint8_t *out, size_t cap, size_t *len)
{
	bool err_form = m->type % 2 == 1 && m->status != UIE_OK;
	struct uie_wbuf w;

	*len = 0;
	if (!uie_bridge_is_request(m->type) && !is_answer(m->type))
		return UIE_E_INVAL;
	if ((m->type % 2 == 1 && !status_ok(m->status)) || !fields_ok(m))
		return UIE_E_INVAL;
	if (cap > UIE_BRIDGE_MAX_MSG)
		cap = UIE_BRIDGE_MAX_MSG;
	uie_wbuf_init(&w, out, cap);
	uie_wbuf_u32(&w, UIE_BRIDGE_MAGIC);
	uie_wbuf_u16(&w, UIE_BRIDGE_VERSION);
	uie_wbuf_u16(&w, m->type);
	uie_wbuf_u32(&w, 0); /* length, patched below */
	uie_wbuf_u32(&w, m->request_id);
	if (m->type % 2 == 1)
		uie_wbuf_u32(&w, (uint32_t)m->status);
	if (!err_form)
		put_body(&w, m);
	if (w.err != UIE_OK)
		return w.err;
	uie_put_le32(out + 8, (uint32_t)w.len);
	*len = w.len;
	return UIE_OK;
}

static int get_digest(struct uie_rbuf *r, struct uie_digest *d, uint16_t alg, uint8_t len)
{
	d->alg = alg;
	d->len = len;
	return uie_rbuf_bytes(r, d->bytes, UIE_DIGEST_MAX);
}

/* Both read every field and check once: the buffer latches its first error. */
static int get_file_req(struct uie_rbuf *r, struct uie_req *q)
{
	uint64_t mt = 0, ct = 0;

	(void)uie_rbuf_u16(r, &q->event);
	(void)uie_rbuf_u8(r, &q->role);
	(void)uie_rbuf_zero(r, 1);
	(void)uie_rbuf_u32(r, &q->pid);
	(void)uie_rbuf_u64(r, &q->vaddr);
	(void)uie_rbuf_u64(r, &q->length);
	(void)uie_rbuf_u64(r, &q->file_offset);
	(void)uie_rbuf_u64(r, &q->id.dev);
	(void)uie_rbuf_u64(r, &q->id.ino);
	(void)uie_rbuf_u64(r, &q->id.size);
	(void)uie_rbuf_u64(r, &mt);
	(void)uie_rbuf_u64(r, &ct);
	q->id.mtime_ns = (int64_t)mt;
	q->id.ctime_ns = (int64_t)ct;
	return uie_rbuf_err(r);
}

static int get_measure_req(struct uie_rbuf *r, struct uie_msg_measure_req *q)
{
	(void)uie_rbuf_u16(r, &q->event);
	(void)uie_rbuf_u8(r, &q->role);
	(void)uie_rbuf_u8(r, &q->flags);
	(void)uie_rbuf_u32(r, &q->pid);
	(void)uie_rbuf_u64(r, &q->vaddr);
	(void)uie_rbuf_u64(r, &q->length);
	(void)uie_rbuf_u64(r, &q->file_offset);
	return uie_rbuf_err(r);
}

static int get_body(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	struct uie_verdict *v = &m->u.measure_ans;
	struct uie_status *st = &m->u.status_ans;
	uint16_t alg = 0;
	uint8_t dlen = 0;
	uint32_t res = 0;
	int e = UIE_OK;

	switch (m->type) {
	case UIE_MSG_MEASURE_REQ:
		if ((e = get_measure_req(r, &m->u.measure_req)) != UIE_OK)
			return e;
		return uie_rbuf_u64(r, &m->u.measure_req.subject_seq);
	case UIE_MSG_MEASURE_VM_REQ:
		if ((e = get_measure_req(r, &m->u.measure_vm_req.r)) != UIE_OK)
			return e;
		return uie_rbuf_u64(r, &m->u.measure_vm_req.object_size);
	case UIE_MSG_MEASURE_ANS:
	case UIE_MSG_MEASURE_VM_ANS:
		(void)((e = uie_rbuf_u8(r, &v->decision)) != UIE_OK ||
		       (e = uie_rbuf_u8(r, &v->policy_decision)) != UIE_OK ||
		       (e = uie_rbuf_u16(r, &v->reason)) != UIE_OK || (e = uie_rbuf_u8(r, &v->scope)) != UIE_OK ||
		       (e = uie_rbuf_u8(r, &dlen)) != UIE_OK || (e = uie_rbuf_u16(r, &alg)) != UIE_OK ||
		       (e = uie_rbuf_zero(r, 4)) != UIE_OK || (e = uie_rbuf_u64(r, &v->seq)) != UIE_OK ||
		       (e = get_digest(r, &v->digest, alg, dlen)) != UIE_OK);
		return e;
	case UIE_MSG_INSTALL_REQ:
		return uie_rbuf_u64(r, &m->u.install_req_len);
	case UIE_MSG_INSTALL_ANS:
		(void)((e = uie_rbuf_u32(r, &res)) != UIE_OK ||
		       (e = uie_rbuf_u8(r, &m->u.install_ans.mode)) != UIE_OK ||
		       (e = uie_rbuf_zero(r, 3)) != UIE_OK ||
		       (e = uie_rbuf_u64(r, &m->u.install_ans.epoch)) != UIE_OK);
		m->u.install_ans.result = (int32_t)res;
		return e;
	case UIE_MSG_EXPORT_REQ:
		(void)((e = uie_rbuf_u64(r, &m->u.export_req.since_seq)) != UIE_OK ||
		       (e = uie_rbuf_u8(r, &m->u.export_req.nonce_len)) != UIE_OK ||
		       (e = uie_rbuf_zero(r, 7)) != UIE_OK ||
		       (e = uie_rbuf_bytes(r, m->u.export_req.nonce, UIE_BRIDGE_NONCE_MAX)) != UIE_OK);
		return e;
	case UIE_MSG_EXPORT_ANS:
	case UIE_MSG_HINT_ANS:
	case UIE_MSG_GEN_ANS:
		(void)((e = uie_rbuf_zero(r, 4)) != UIE_OK ||
		       (e = uie_rbuf_u64(r, &m->u.blob_ans.len)) != UIE_OK ||
		       (e = uie_rbuf_u64(r, &m->u.blob_ans.epoch)) != UIE_OK);
		return e;
	case UIE_MSG_STATUS_ANS:
		(void)((e = uie_rbuf_u8(r, &st->mode)) != UIE_OK || (e = uie_rbuf_zero(r, 3)) != UIE_OK ||
		       (e = uie_rbuf_u64(r, &st->epoch)) != UIE_OK ||
		       (e = uie_rbuf_u64(r, &st->nrecords)) != UIE_OK ||
		       (e = uie_rbuf_bytes(r, st->vpcr, UIE_PCR_LEN)) != UIE_OK ||
		       (e = uie_rbuf_bytes(r, st->policy_id, UIE_SHA256_LEN)) != UIE_OK ||
		       (e = uie_rbuf_bytes(r, st->boot_id, UIE_BRIDGE_BOOT_ID_LEN)) != UIE_OK ||
		       (e = uie_rbuf_u64(r, &st->boot)) != UIE_OK ||
		       (e = uie_rbuf_u32(r, &res)) != UIE_OK || (e = uie_rbuf_zero(r, 4)) != UIE_OK ||
		       (e = uie_rbuf_u64(r, &st->repeats)) != UIE_OK);
		st->health = (int32_t)res;
		return e;
	case UIE_MSG_FASTPATH_REQ:
		(void)((e = uie_rbuf_u32(r, &m->u.fastpath_req.count)) != UIE_OK ||
		       (e = uie_rbuf_zero(r, 4)) != UIE_OK ||
		       (e = uie_rbuf_u64(r, &m->u.fastpath_req.epoch)) != UIE_OK);
		return e;
	case UIE_MSG_FASTPATH_ANS:
		(void)((e = uie_rbuf_u32(r, &m->u.fastpath_ans.count)) != UIE_OK ||
		       (e = uie_rbuf_u64(r, &m->u.fastpath_ans.first_seq)) != UIE_OK);
		return e;
	case UIE_MSG_CHECKPOINT_REQ:
		(void)((e = uie_rbuf_u64(r, &m->u.checkpoint_req.seq)) != UIE_OK ||
		       (e = uie_rbuf_bytes(r, m->u.checkpoint_req.pcr, UIE_PCR_LEN)) != UIE_OK);
		return e;
	case UIE_MSG_CHECKPOINT_ANS:
		(void)((e = uie_rbuf_zero(r, 4)) != UIE_OK ||
		       (e = uie_rbuf_u64(r, &m->u.checkpoint_base)) != UIE_OK);
		return e;
	case UIE_MSG_VIOLATION_REQ:
		(void)((e = uie_rbuf_u32(r, &m->u.violation_req.pid)) != UIE_OK ||
		       (e = uie_rbuf_u8(r, &m->u.violation_req.kind)) != UIE_OK ||
		       (e = uie_rbuf_zero(r, 3)) != UIE_OK);
		return e;
	case UIE_MSG_VIOLATION_ANS:
		(void)((e = uie_rbuf_zero(r, 4)) != UIE_OK ||
		       (e = uie_rbuf_u64(r, &m->u.violation_ans_seq)) != UIE_OK);
		return e;
	case UIE_MSG_PUBKEY_ANS:
		(void)((e = uie_rbuf_u16(r, &m->u.pubkey_ans.len)) != UIE_OK ||
		       (e = uie_rbuf_zero(r, 2)) != UIE_OK);
		if (e != UIE_OK)
			return e;
		if (m->u.pubkey_ans.len > UIE_BRIDGE_PUBKEY_MAX || m->u.pubkey_ans.len != uie_rbuf_left(r))
			return UIE_E_FORMAT;
		return uie_rbuf_bytes(r, m->u.pubkey_ans.der, m->u.pubkey_ans.len);
	default:
		return UIE_OK;
	}
}

int uie_bridge_decode(const uint8_t *p, size_t len, struct uie_wire_msg *m)
{
	uint32_t magic = 0, mlen = 0, st = 0, rid = 0;
	uint16_t version = 0, type = 0;
	struct uie_rbuf r;
	int bl, e;

	memset(m, 0, sizeof(*m));
	if (len > UIE_BRIDGE_MAX_MSG)
		return UIE_E_LIMIT;
	uie_rbuf_init(&r, p, len);
	if ((e = uie_rbuf_u32(&r, &magic)) != UIE_OK || (e = uie_rbuf_u16(&r, &version)) != UIE_OK ||
	    (e = uie_rbuf_u16(&r, &type)) != UIE_OK || (e = uie_rbuf_u32(&r, &mlen)) != UIE_OK ||
	    (e = uie_rbuf_u32(&r, &rid)) != UIE_OK)
		return e;
	if (magic != UIE_BRIDGE_MAGIC)
		return UIE_E_FORMAT;
	if (version != UIE_BRIDGE_VERSION)
		return UIE_E_VERSION; /* another version's header fields mean nothing here */
	m->type = type;
	m->request_id = rid;
	if (mlen != len)
		return mlen > len ? UIE_E_TRUNCATED : UIE_E_FORMAT;
	bl = body_len(type);
	if (bl == -2)
		return UIE_E_FORMAT;
	if (type % 2 == 1) {
		if ((e = uie_rbuf_u32(&r, &st)) != UIE_OK)
			return e;
		m->status = (int32_t)st;
		if (!status_ok(m->status))
			return UIE_E_FORMAT;
		if (m->status != UIE_OK)
			return uie_rbuf_end(&r);
		bl -= bl > 0 ? 4 : 0;
	}
	if (bl >= 0 && uie_rbuf_left(&r) != (size_t)bl)
		return uie_rbuf_left(&r) < (size_t)bl ? UIE_E_TRUNCATED : UIE_E_FORMAT;
	if ((e = get_body(&r, m)) != UIE_OK || (e = uie_rbuf_end(&r)) != UIE_OK)
		return e;
	return fields_ok(m) ? UIE_OK : UIE_E_FORMAT;
}

int uie_bridge_fastpath_entry_encode(const struct uie_req *req, const struct uie_digest *digest,
				     uint8_t out[UIE_BRIDGE_FASTPATH_ENTRY_LEN])
{
	struct uie_wbuf w;

	if (!fastpath_entry_ok(req, digest))
		return UIE_E_INVAL;
	uie_wbuf_init(&w, out, UIE_BRIDGE_FASTPATH_ENTRY_LEN);
	put_file_req(&w, req);
	uie_wbuf_u16(&w, digest->alg);
	uie_wbuf_u8(&w, digest->len);
	uie_wbuf_zero(&w, 5);
	put_digest(&w, digest);
	return w.err;
}

int uie_bridge_fastpath_entry_decode(const uint8_t in[UIE_BRIDGE_FASTPATH_ENTRY_LEN],
				     struct uie_req *req, struct uie_digest *digest)
{
	struct uie_rbuf r;
	uint16_t alg = 0;
	uint8_t dlen = 0;
	int e;

	memset(req, 0, sizeof(*req));
	memset(digest, 0, sizeof(*digest));
	uie_rbuf_init(&r, in, UIE_BRIDGE_FASTPATH_ENTRY_LEN);
	if ((e = get_file_req(&r, req)) != UIE_OK || (e = uie_rbuf_u16(&r, &alg)) != UIE_OK ||
	    (e = uie_rbuf_u8(&r, &dlen)) != UIE_OK || (e = uie_rbuf_zero(&r, 5)) != UIE_OK ||
	    (e = get_digest(&r, digest, alg, dlen)) != UIE_OK || (e = uie_rbuf_end(&r)) != UIE_OK)
		return e;
	return fastpath_entry_ok(req, digest) ? UIE_OK : UIE_E_FORMAT;
}
