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
	FD_IF_OBJECT,       /* VIOLATION_VM_REQ: when it names a file (object_size > 0) */
	FD_IF_BLOB,         /* EXPORT/HINT answers: a non-empty blob on success */
	FD_IF_OK,           /* GEN_ANS: on success */
};

/*
 * Each message body below is three functions side by side: put writes it,
 * get reads it (the read buffer latches the first error, so a get reads
 * every field and returns uie_rbuf_err), ok checks the meaning of its
 * fields for encoder and decoder alike.  The layouts are docs/BRIDGE.md's.
 */

static bool status_ok(int32_t s)
{
	return s <= 0 && s > UIE_E__MIN;
}

static void put_digest(struct uie_wbuf *w, const struct uie_digest *d)
{
	uie_wbuf_bytes(w, d->bytes, UIE_DIGEST_MAX);
}

static void get_digest(struct uie_rbuf *r, struct uie_digest *d, uint16_t alg, uint8_t len)
{
	d->alg = alg;
	d->len = len;
	(void)uie_rbuf_bytes(r, d->bytes, UIE_DIGEST_MAX);
}

/* The request's flags are canonical and its fields agree as the core requires (uie_req_valid). */
static bool req_ok(const struct uie_msg_measure_req *q, uint8_t flags)
{
	struct uie_req req;

	if (q->role == UIE_ROLE_ANON && flags != 0 && flags != UIE_BRIDGE_REQ_PROGRAM)
		return false;
	if (q->role != UIE_ROLE_ANON && flags != (UIE_BRIDGE_REQ_COND(UIE_BRIDGE_COND_OF(flags)) |
						  UIE_BRIDGE_REQ_FS(UIE_BRIDGE_FS_OF(flags))))
		return false;
	uie_bridge_req_of(q, &req);
	req.cond = q->role == UIE_ROLE_ANON ? 0 : UIE_BRIDGE_COND_OF(flags);
	req.fs = q->role == UIE_ROLE_ANON ? 0 : UIE_BRIDGE_FS_OF(flags);
	return uie_req_valid(&req);
}

/* The fields MEASURE_REQ and MEASURE_VM_REQ share. */
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

static void get_measure_req(struct uie_rbuf *r, struct uie_msg_measure_req *q)
{
	(void)uie_rbuf_u16(r, &q->event);
	(void)uie_rbuf_u8(r, &q->role);
	(void)uie_rbuf_u8(r, &q->flags);
	(void)uie_rbuf_u32(r, &q->pid);
	(void)uie_rbuf_u64(r, &q->vaddr);
	(void)uie_rbuf_u64(r, &q->length);
	(void)uie_rbuf_u64(r, &q->file_offset);
}

/* MEASURE_REQ: the request and its subject (the program's EXECVE grant, 0: none). */
static void measure_req_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	put_measure_req(w, &m->u.measure_req);
	uie_wbuf_u64(w, m->u.measure_req.subject_seq);
}

static int measure_req_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	get_measure_req(r, &m->u.measure_req);
	return uie_rbuf_u64(r, &m->u.measure_req.subject_seq);
}

static bool measure_req_ok(const struct uie_wire_msg *m)
{
	const struct uie_msg_measure_req *q = &m->u.measure_req;

	return req_ok(q, q->flags);
}

/* MEASURE_VM_REQ: MEASURE_REQ's fields and the object size. */
static void measure_vm_req_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	put_measure_req(w, &m->u.measure_vm_req.r);
	uie_wbuf_u64(w, m->u.measure_vm_req.object_size);
}

static int measure_vm_req_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	get_measure_req(r, &m->u.measure_vm_req.r);
	return uie_rbuf_u64(r, &m->u.measure_vm_req.object_size);
}

/* Frames, object size and flags of a VM-mode request agree (docs/BRIDGE.md section 12). */
static bool measure_vm_req_ok(const struct uie_wire_msg *m)
{
	const struct uie_msg_measure_vm_req *q = &m->u.measure_vm_req;

	if (!req_ok(&q->r, q->r.flags & ~UIE_VM_FLAG_FILELESS) || q->r.role == UIE_ROLE_ANON ||
	    q->r.subject_seq != 0) /* no subject in VM mode */
		return false;
	if (q->r.flags & UIE_VM_FLAG_FILELESS)
		return q->object_size == 0;
	if (q->r.event == UIE_EV_MPROTECT_EXEC && /* a range of pages, named page by page */
	    (q->r.vaddr % UIE_VM_FRAME != 0 || q->r.file_offset % UIE_VM_FRAME != 0 || q->r.length == 0 ||
	     q->r.length > (uint64_t)UIE_VM_MAX_FRAMES * UIE_VM_FRAME))
		return false;
	return q->object_size >= 1 && q->object_size <= (uint64_t)UIE_VM_MAX_FRAMES * UIE_VM_FRAME;
}

/* MEASURE_ANS and MEASURE_VM_ANS: a verdict. */
static void verdict_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	const struct uie_verdict *v = &m->u.measure_ans;

	uie_wbuf_u8(w, v->decision);
	uie_wbuf_u8(w, v->policy_decision);
	uie_wbuf_u16(w, v->reason);
	uie_wbuf_u8(w, v->scope);
	uie_wbuf_u8(w, v->digest.len);
	uie_wbuf_u16(w, v->digest.alg);
	uie_wbuf_zero(w, 4);
	uie_wbuf_u64(w, v->seq);
	put_digest(w, &v->digest);
}

static int verdict_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	struct uie_verdict *v = &m->u.measure_ans;
	uint16_t alg = 0;
	uint8_t dlen = 0;

	(void)uie_rbuf_u8(r, &v->decision);
	(void)uie_rbuf_u8(r, &v->policy_decision);
	(void)uie_rbuf_u16(r, &v->reason);
	(void)uie_rbuf_u8(r, &v->scope);
	(void)uie_rbuf_u8(r, &dlen);
	(void)uie_rbuf_u16(r, &alg);
	(void)uie_rbuf_zero(r, 4);
	(void)uie_rbuf_u64(r, &v->seq);
	get_digest(r, &v->digest, alg, dlen);
	return uie_rbuf_err(r);
}

static bool verdict_ok(const struct uie_wire_msg *m)
{
	const struct uie_verdict *v = &m->u.measure_ans;

	return v->decision < UIE_DECISION__MAX && v->policy_decision < UIE_DECISION__MAX &&
	       v->reason < UIE_R__MAX && v->scope < UIE_SCOPE__MAX && uie_digest_ok(&v->digest, false);
}

/* INSTALL_REQ: the package length; the package is in the memfd. */
static void install_req_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_u64(w, m->u.install_req_len);
}

static int install_req_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	return uie_rbuf_u64(r, &m->u.install_req_len);
}

static bool install_req_ok(const struct uie_wire_msg *m)
{
	return m->u.install_req_len > 0 && m->u.install_req_len <= UIE_PACKAGE_MAX_LEN;
}

static void install_ans_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_u32(w, (uint32_t)m->u.install_ans.result);
	uie_wbuf_u8(w, m->u.install_ans.mode);
	uie_wbuf_zero(w, 3);
	uie_wbuf_u64(w, m->u.install_ans.epoch);
}

static int install_ans_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	uint32_t result = 0;

	(void)uie_rbuf_u32(r, &result);
	(void)uie_rbuf_u8(r, &m->u.install_ans.mode);
	(void)uie_rbuf_zero(r, 3);
	(void)uie_rbuf_u64(r, &m->u.install_ans.epoch);
	m->u.install_ans.result = (int32_t)result;
	return uie_rbuf_err(r);
}

static bool install_ans_ok(const struct uie_wire_msg *m)
{
	return status_ok(m->u.install_ans.result) && m->u.install_ans.mode < UIE_MODE__MAX;
}

static void export_req_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_u64(w, m->u.export_req.since_seq);
	uie_wbuf_u8(w, m->u.export_req.nonce_len);
	uie_wbuf_zero(w, 7);
	uie_wbuf_bytes(w, m->u.export_req.nonce, UIE_NONCE_MAX);
}

static int export_req_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	(void)uie_rbuf_u64(r, &m->u.export_req.since_seq);
	(void)uie_rbuf_u8(r, &m->u.export_req.nonce_len);
	(void)uie_rbuf_zero(r, 7);
	(void)uie_rbuf_bytes(r, m->u.export_req.nonce, UIE_NONCE_MAX);
	return uie_rbuf_err(r);
}

/* n bytes of a field of cap, at least 1, and zero after them. */
static bool padded_ok(const uint8_t *p, size_t n, size_t cap)
{
	if (n < 1 || n > cap)
		return false;
	for (size_t i = n; i < cap; i++)
		if (p[i])
			return false;
	return true;
}

/* A nonce of 1..64 bytes, zero-padded. */
static bool export_req_ok(const struct uie_wire_msg *m)
{
	return padded_ok(m->u.export_req.nonce, m->u.export_req.nonce_len, UIE_NONCE_MAX);
}

/* EXPORT_ANS, HINT_ANS and GEN_ANS: the payload is in the memfd. */
static void blob_ans_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_zero(w, 4);
	uie_wbuf_u64(w, m->u.blob_ans.len);
	uie_wbuf_u64(w, m->u.blob_ans.epoch);
}

static int blob_ans_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	(void)uie_rbuf_zero(r, 4);
	(void)uie_rbuf_u64(r, &m->u.blob_ans.len);
	(void)uie_rbuf_u64(r, &m->u.blob_ans.epoch);
	return uie_rbuf_err(r);
}

static bool blob_ans_ok(const struct uie_wire_msg *m)
{
	return m->u.blob_ans.len <= UIE_BRIDGE_MAX_BLOB;
}

static bool gen_ans_ok(const struct uie_wire_msg *m)
{
	return m->u.blob_ans.len == UIE_GENPAGE_LEN;
}

/* docs/BRIDGE.md fixes these fields: boot_id[16] @88 of STATUS_ANS, nonce[64] in EXPORT_REQ. */
_Static_assert(UIE_BOOT_ID_LEN == 16, "STATUS_ANS boot_id is 16 bytes");
_Static_assert(UIE_NONCE_MAX == 64, "EXPORT_REQ carries a 64-byte nonce field");

static void status_ans_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	const struct uie_status *st = &m->u.status_ans;

	uie_wbuf_u8(w, st->mode);
	uie_wbuf_u8(w, st->trust_keys);
	uie_wbuf_zero(w, 2);
	uie_wbuf_u64(w, st->epoch);
	uie_wbuf_u64(w, st->nrecords);
	uie_wbuf_bytes(w, st->vpcr, UIE_PCR_LEN);
	uie_wbuf_bytes(w, st->policy_id, UIE_SHA256_LEN);
	uie_wbuf_bytes(w, st->boot_id, UIE_BOOT_ID_LEN);
	uie_wbuf_u64(w, st->boot);
	uie_wbuf_u32(w, (uint32_t)st->health);
	uie_wbuf_zero(w, 4);
	uie_wbuf_u64(w, st->repeats);
}

static int status_ans_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	struct uie_status *st = &m->u.status_ans;
	uint32_t health = 0;

	(void)uie_rbuf_u8(r, &st->mode);
	(void)uie_rbuf_u8(r, &st->trust_keys);
	(void)uie_rbuf_zero(r, 2);
	(void)uie_rbuf_u64(r, &st->epoch);
	(void)uie_rbuf_u64(r, &st->nrecords);
	(void)uie_rbuf_bytes(r, st->vpcr, UIE_PCR_LEN);
	(void)uie_rbuf_bytes(r, st->policy_id, UIE_SHA256_LEN);
	(void)uie_rbuf_bytes(r, st->boot_id, UIE_BOOT_ID_LEN);
	(void)uie_rbuf_u64(r, &st->boot);
	(void)uie_rbuf_u32(r, &health);
	(void)uie_rbuf_zero(r, 4);
	(void)uie_rbuf_u64(r, &st->repeats);
	st->health = (int32_t)health;
	return uie_rbuf_err(r);
}

static bool status_ans_ok(const struct uie_wire_msg *m)
{
	return m->u.status_ans.mode < UIE_MODE__MAX && status_ok(m->u.status_ans.health);
}

static void fastpath_req_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_u32(w, m->u.fastpath_req.count);
	uie_wbuf_zero(w, 4);
	uie_wbuf_u64(w, m->u.fastpath_req.epoch);
}

static int fastpath_req_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	(void)uie_rbuf_u32(r, &m->u.fastpath_req.count);
	(void)uie_rbuf_zero(r, 4);
	(void)uie_rbuf_u64(r, &m->u.fastpath_req.epoch);
	return uie_rbuf_err(r);
}

static bool fastpath_req_ok(const struct uie_wire_msg *m)
{
	return m->u.fastpath_req.count >= 1 && m->u.fastpath_req.count <= UIE_BRIDGE_FASTPATH_MAX;
}

static void fastpath_ans_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_u32(w, m->u.fastpath_ans.count);
	uie_wbuf_u64(w, m->u.fastpath_ans.first_seq);
}

static int fastpath_ans_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	(void)uie_rbuf_u32(r, &m->u.fastpath_ans.count);
	(void)uie_rbuf_u64(r, &m->u.fastpath_ans.first_seq);
	return uie_rbuf_err(r);
}

static bool fastpath_ans_ok(const struct uie_wire_msg *m)
{
	return m->u.fastpath_ans.count >= 1 && m->u.fastpath_ans.count <= UIE_BRIDGE_FASTPATH_MAX;
}

static void pubkey_ans_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_u16(w, m->u.pubkey_ans.len);
	uie_wbuf_zero(w, 2);
	uie_wbuf_bytes(w, m->u.pubkey_ans.der, m->u.pubkey_ans.len);
}

/* A variable-length body: its length field must name exactly the bytes left. */
static int pubkey_ans_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	int e;

	(void)uie_rbuf_u16(r, &m->u.pubkey_ans.len);
	if ((e = uie_rbuf_zero(r, 2)) != UIE_OK)
		return e;
	if (m->u.pubkey_ans.len > UIE_BRIDGE_PUBKEY_MAX || m->u.pubkey_ans.len != uie_rbuf_left(r))
		return UIE_E_FORMAT;
	return uie_rbuf_bytes(r, m->u.pubkey_ans.der, m->u.pubkey_ans.len);
}

static bool pubkey_ans_ok(const struct uie_wire_msg *m)
{
	return m->u.pubkey_ans.len >= 1 && m->u.pubkey_ans.len <= UIE_BRIDGE_PUBKEY_MAX;
}

static void checkpoint_req_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_u64(w, m->u.checkpoint_req.seq);
	uie_wbuf_bytes(w, m->u.checkpoint_req.pcr, UIE_PCR_LEN);
}

static int checkpoint_req_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	(void)uie_rbuf_u64(r, &m->u.checkpoint_req.seq);
	(void)uie_rbuf_bytes(r, m->u.checkpoint_req.pcr, UIE_PCR_LEN);
	return uie_rbuf_err(r);
}

/* CHECKPOINT_ANS: the record number the monitor's memory now starts at. */
static void checkpoint_ans_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_zero(w, 4);
	uie_wbuf_u64(w, m->u.checkpoint_base);
}

static int checkpoint_ans_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	(void)uie_rbuf_zero(r, 4);
	return uie_rbuf_u64(r, &m->u.checkpoint_base);
}

static void violation_req_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_u32(w, m->u.violation_req.pid);
	uie_wbuf_u8(w, m->u.violation_req.kind);
	uie_wbuf_zero(w, 3);
}

static int violation_req_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	(void)uie_rbuf_u32(r, &m->u.violation_req.pid);
	(void)uie_rbuf_u8(r, &m->u.violation_req.kind);
	(void)uie_rbuf_zero(r, 3);
	return uie_rbuf_err(r);
}

static bool violation_req_ok(const struct uie_wire_msg *m)
{
	return m->u.violation_req.kind >= 1 && m->u.violation_req.kind < UIE_VIOLATION__MAX;
}

/* VIOLATION_VM_REQ: VIOLATION_REQ's fields and the file's size. */
static void violation_vm_req_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	violation_req_put(w, m);
	uie_wbuf_u64(w, m->u.violation_vm_req.object_size);
}

static int violation_vm_req_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	(void)violation_req_get(r, m);
	return uie_rbuf_u64(r, &m->u.violation_vm_req.object_size);
}

static bool violation_vm_req_ok(const struct uie_wire_msg *m)
{
	return violation_req_ok(m) &&
	       m->u.violation_vm_req.object_size <= (uint64_t)UIE_VM_MAX_FRAMES * UIE_VM_FRAME;
}

/* VIOLATION_ANS and VIOLATION_VM_ANS: the number of the WRITE_VIOLATION record. */
static void violation_ans_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_zero(w, 4);
	uie_wbuf_u64(w, m->u.violation_ans_seq);
}

static int violation_ans_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	(void)uie_rbuf_zero(r, 4);
	return uie_rbuf_u64(r, &m->u.violation_ans_seq);
}

/* TPM_KEYS_ANS: u16 ek_len, u16 ak_len, then the two public areas; the lengths name exactly the rest. */
static void tpm_keys_ans_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	const struct uie_msg_tpm_keys_ans *k = &m->u.tpm_keys_ans;

	uie_wbuf_u16(w, k->ek_len);
	uie_wbuf_u16(w, k->ak_len);
	uie_wbuf_bytes(w, k->ek, k->ek_len);
	uie_wbuf_bytes(w, k->ak, k->ak_len);
}

static int tpm_keys_ans_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	struct uie_msg_tpm_keys_ans *k = &m->u.tpm_keys_ans;

	(void)uie_rbuf_u16(r, &k->ek_len);
	(void)uie_rbuf_u16(r, &k->ak_len);
	if (uie_rbuf_err(r) != UIE_OK)
		return uie_rbuf_err(r);
	if (k->ek_len > UIE_BRIDGE_TPM_PUBLIC_MAX || k->ak_len > UIE_BRIDGE_TPM_PUBLIC_MAX ||
	    (size_t)k->ek_len + k->ak_len != uie_rbuf_left(r))
		return UIE_E_FORMAT;
	(void)uie_rbuf_bytes(r, k->ek, k->ek_len);
	return uie_rbuf_bytes(r, k->ak, k->ak_len);
}

static bool tpm_keys_ans_ok(const struct uie_wire_msg *m)
{
	const struct uie_msg_tpm_keys_ans *k = &m->u.tpm_keys_ans;

	return k->ek_len >= 1 && k->ek_len <= UIE_BRIDGE_TPM_PUBLIC_MAX && k->ak_len >= 1 &&
	       k->ak_len <= UIE_BRIDGE_TPM_PUBLIC_MAX;
}

static void activate_req_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	const struct uie_msg_activate_req *q = &m->u.activate_req;

	uie_wbuf_u16(w, q->blob_len);
	uie_wbuf_u16(w, q->secret_len);
	uie_wbuf_zero(w, 4);
	uie_wbuf_bytes(w, q->blob, UIE_BRIDGE_CRED_BLOB_MAX);
	uie_wbuf_bytes(w, q->secret, UIE_BRIDGE_CRED_SECRET_MAX);
}

static int activate_req_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	struct uie_msg_activate_req *q = &m->u.activate_req;

	(void)uie_rbuf_u16(r, &q->blob_len);
	(void)uie_rbuf_u16(r, &q->secret_len);
	(void)uie_rbuf_zero(r, 4);
	(void)uie_rbuf_bytes(r, q->blob, UIE_BRIDGE_CRED_BLOB_MAX);
	(void)uie_rbuf_bytes(r, q->secret, UIE_BRIDGE_CRED_SECRET_MAX);
	return uie_rbuf_err(r);
}

static bool activate_req_ok(const struct uie_wire_msg *m)
{
	const struct uie_msg_activate_req *q = &m->u.activate_req;

	return padded_ok(q->blob, q->blob_len, UIE_BRIDGE_CRED_BLOB_MAX) &&
	       padded_ok(q->secret, q->secret_len, UIE_BRIDGE_CRED_SECRET_MAX);
}

static void activate_ans_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_u8(w, m->u.activate_ans.len);
	uie_wbuf_zero(w, 3);
	uie_wbuf_bytes(w, m->u.activate_ans.cred, UIE_BRIDGE_CRED_MAX);
}

static int activate_ans_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	(void)uie_rbuf_u8(r, &m->u.activate_ans.len);
	(void)uie_rbuf_zero(r, 3);
	(void)uie_rbuf_bytes(r, m->u.activate_ans.cred, UIE_BRIDGE_CRED_MAX);
	return uie_rbuf_err(r);
}

static bool activate_ans_ok(const struct uie_wire_msg *m)
{
	return padded_ok(m->u.activate_ans.cred, m->u.activate_ans.len, UIE_BRIDGE_CRED_MAX);
}

static void snp_report_req_put(struct uie_wbuf *w, const struct uie_wire_msg *m)
{
	uie_wbuf_bytes(w, m->u.snp_report_req.nonce, sizeof(m->u.snp_report_req.nonce));
	uie_wbuf_u8(w, m->u.snp_report_req.flags);
	uie_wbuf_zero(w, 7);
}

static int snp_report_req_get(struct uie_rbuf *r, struct uie_wire_msg *m)
{
	(void)uie_rbuf_bytes(r, m->u.snp_report_req.nonce, sizeof(m->u.snp_report_req.nonce));
	(void)uie_rbuf_u8(r, &m->u.snp_report_req.flags);
	return uie_rbuf_zero(r, 7);
}

static bool snp_report_req_ok(const struct uie_wire_msg *m)
{
	return (m->u.snp_report_req.flags & ~UIE_BRIDGE_SNP_SINGLE) == 0;
}

/* ERROR_ANS exists only as an error (status != 0). */
static bool never_ok(const struct uie_wire_msg *m)
{
	(void)m;
	return false;
}

/*
 * One row per message type (docs/BRIDGE.md): the body length of its full
 * (status 0) form, -1 when variable; when it carries a descriptor; and its
 * body's codec (NULL put/get: an empty body, NULL ok: no field to check).
 * Types without a row are unknown.
 */
struct msg_row {
	bool known;
	int16_t body_len;
	enum fd_when fd;
	uint8_t from;  /* requests: UIE_FROM_* bits, who may send it */
	uint8_t modes; /* requests: UIE_IN_* bits, where the monitor serves it */
	void (*put)(struct uie_wbuf *w, const struct uie_wire_msg *m);
	int (*get)(struct uie_rbuf *r, struct uie_wire_msg *m);
	bool (*ok)(const struct uie_wire_msg *m);
};

static const struct msg_row msg_rows[UIE_MSG__MAX] = {
	[UIE_MSG_ERROR_ANS] = { true, 4, FD_NEVER, 0, 0, NULL, NULL, never_ok },
	[UIE_MSG_MEASURE_REQ] = { true, 40, FD_UNLESS_ANON, UIE_FROM_INTERCEPTOR, UIE_IN_PROCESS | UIE_IN_VM,
				  measure_req_put, measure_req_get, measure_req_ok },
	[UIE_MSG_MEASURE_ANS] = { true, 72, FD_NEVER, 0, 0, verdict_put, verdict_get, verdict_ok },
	[UIE_MSG_INSTALL_REQ] = { true, 8, FD_ALWAYS, UIE_FROM_TOOL | UIE_FROM_TREE,
				  UIE_IN_PROCESS | UIE_IN_VM, install_req_put, install_req_get,
				  install_req_ok },
	[UIE_MSG_INSTALL_ANS] = { true, 20, FD_NEVER, 0, 0, install_ans_put, install_ans_get,
				  install_ans_ok },
	[UIE_MSG_EXPORT_REQ] = { true, 80, FD_NEVER, UIE_FROM_TOOL | UIE_FROM_TREE,
				 UIE_IN_PROCESS | UIE_IN_VM, export_req_put, export_req_get, export_req_ok },
	[UIE_MSG_EXPORT_ANS] = { true, 24, FD_IF_BLOB, 0, 0, blob_ans_put, blob_ans_get, blob_ans_ok },
	[UIE_MSG_HINT_REQ] = { true, 0, FD_NEVER, UIE_FROM_INTERCEPTOR, UIE_IN_PROCESS | UIE_IN_VM, NULL,
			       NULL, NULL },
	[UIE_MSG_HINT_ANS] = { true, 24, FD_IF_BLOB, 0, 0, blob_ans_put, blob_ans_get, blob_ans_ok },
	[UIE_MSG_STATUS_REQ] = { true, 0, FD_NEVER, UIE_FROM_INTERCEPTOR | UIE_FROM_TOOL | UIE_FROM_TREE,
				 UIE_IN_PROCESS | UIE_IN_VM, NULL, NULL, NULL },
	[UIE_MSG_STATUS_ANS] = { true, 128, FD_NEVER, 0, 0, status_ans_put, status_ans_get, status_ans_ok },
	[UIE_MSG_FASTPATH_REQ] = { true, 16, FD_ALWAYS, UIE_FROM_INTERCEPTOR, UIE_IN_PROCESS | UIE_IN_VM,
				   fastpath_req_put, fastpath_req_get, fastpath_req_ok },
	[UIE_MSG_FASTPATH_ANS] = { true, 16, FD_NEVER, 0, 0, fastpath_ans_put, fastpath_ans_get,
				   fastpath_ans_ok },
	[UIE_MSG_PUBKEY_REQ] = { true, 0, FD_NEVER, UIE_FROM_TOOL | UIE_FROM_TREE, UIE_IN_PROCESS | UIE_IN_VM,
				 NULL, NULL, NULL },
	[UIE_MSG_PUBKEY_ANS] = { true, -1, FD_NEVER, 0, 0, pubkey_ans_put, pubkey_ans_get, pubkey_ans_ok },
	[UIE_MSG_GEN_REQ] = { true, 0, FD_NEVER, UIE_FROM_INTERCEPTOR, UIE_IN_PROCESS, NULL, NULL, NULL },
	[UIE_MSG_GEN_ANS] = { true, 24, FD_IF_OK, 0, 0, blob_ans_put, blob_ans_get, gen_ans_ok },
	[UIE_MSG_CHECKPOINT_REQ] = { true, 40, FD_NEVER, UIE_FROM_TOOL, UIE_IN_PROCESS | UIE_IN_VM,
				     checkpoint_req_put, checkpoint_req_get, NULL },
	[UIE_MSG_CHECKPOINT_ANS] = { true, 16, FD_NEVER, 0, 0, checkpoint_ans_put, checkpoint_ans_get, NULL },
	[UIE_MSG_MEASURE_VM_REQ] = { true, 40, FD_UNLESS_FILELESS, UIE_FROM_RELAY, UIE_IN_VM,
				     measure_vm_req_put, measure_vm_req_get, measure_vm_req_ok },
	[UIE_MSG_MEASURE_VM_ANS] = { true, 72, FD_NEVER, 0, 0, verdict_put, verdict_get, verdict_ok },
	[UIE_MSG_VIOLATION_REQ] = { true, 8, FD_ALWAYS, UIE_FROM_INTERCEPTOR, UIE_IN_PROCESS,
				    violation_req_put, violation_req_get, violation_req_ok },
	[UIE_MSG_VIOLATION_ANS] = { true, 16, FD_NEVER, 0, 0, violation_ans_put, violation_ans_get, NULL },
	[UIE_MSG_VIOLATION_VM_REQ] = { true, 16, FD_IF_OBJECT, UIE_FROM_RELAY, UIE_IN_VM,
				       violation_vm_req_put, violation_vm_req_get, violation_vm_req_ok },
	[UIE_MSG_VIOLATION_VM_ANS] = { true, 16, FD_NEVER, 0, 0, violation_ans_put, violation_ans_get, NULL },
	[UIE_MSG_TPM_KEYS_REQ] = { true, 0, FD_NEVER, UIE_FROM_TOOL | UIE_FROM_TREE,
				   UIE_IN_PROCESS | UIE_IN_VM, NULL, NULL, NULL },
	[UIE_MSG_TPM_KEYS_ANS] = { true, -1, FD_NEVER, 0, 0, tpm_keys_ans_put, tpm_keys_ans_get,
				   tpm_keys_ans_ok },
	[UIE_MSG_ACTIVATE_REQ] = { true, 784, FD_NEVER, UIE_FROM_TOOL | UIE_FROM_TREE,
				   UIE_IN_PROCESS | UIE_IN_VM, activate_req_put, activate_req_get,
				   activate_req_ok },
	[UIE_MSG_ACTIVATE_ANS] = { true, 72, FD_NEVER, 0, 0, activate_ans_put, activate_ans_get,
				   activate_ans_ok },
	[UIE_MSG_SNP_REPORT_REQ] = { true, 72, FD_NEVER, UIE_FROM_TOOL | UIE_FROM_TREE,
				     UIE_IN_PROCESS | UIE_IN_VM, snp_report_req_put, snp_report_req_get,
				     snp_report_req_ok },
	[UIE_MSG_SNP_REPORT_ANS] = { true, 24, FD_IF_BLOB, 0, 0, blob_ans_put, blob_ans_get, blob_ans_ok },
};

/* The row of type, or NULL when the type is unknown. */
static const struct msg_row *msg_row(uint16_t type)
{
	return type < UIE_MSG__MAX && msg_rows[type].known ? &msg_rows[type] : NULL;
}

static bool is_answer_type(uint16_t type)
{
	return type % 2 == 1;
}

bool uie_bridge_is_request(uint16_t type)
{
	const struct msg_row *row = msg_row(type);

	return !is_answer_type(type) && row && row->body_len >= 0;
}

bool uie_bridge_may_send(uint16_t type, uint8_t from)
{
	const struct msg_row *row = msg_row(type);

	return uie_bridge_is_request(type) && (row->from & from) != 0;
}

bool uie_bridge_served_in(uint16_t type, uint8_t mode)
{
	const struct msg_row *row = msg_row(type);

	return uie_bridge_is_request(type) && (row->modes & mode) != 0;
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
	case FD_IF_OBJECT: fd = m->u.violation_vm_req.object_size > 0; break;
	case FD_IF_BLOB: fd = m->status == UIE_OK && m->u.blob_ans.len; break;
	case FD_IF_OK: fd = m->status == UIE_OK; break;
	}
	return fd ? UIE_FD_ONE : UIE_FD_NONE;
}

/* The meaning of a message's fields (shared by encoder and decoder); an error answer has none. */
static bool fields_ok(const struct msg_row *row, const struct uie_wire_msg *m)
{
	if (is_answer_type(m->type) && m->status != UIE_OK)
		return true;
	return !row->ok || row->ok(m);
}

int uie_bridge_encode(const struct uie_wire_msg *m, uint8_t *out, size_t cap, size_t *len)
{
	const struct msg_row *row = msg_row(m->type);
	bool answer = is_answer_type(m->type);
	struct uie_wbuf w;

	*len = 0;
	if (!row || (!answer && row->body_len < 0))
		return UIE_E_INVAL;
	if ((answer && !status_ok(m->status)) || !fields_ok(row, m))
		return UIE_E_INVAL;
	if (cap > UIE_BRIDGE_MAX_MSG)
		cap = UIE_BRIDGE_MAX_MSG;
	uie_wbuf_init(&w, out, cap);
	uie_wbuf_u32(&w, UIE_BRIDGE_MAGIC);
	uie_wbuf_u16(&w, UIE_BRIDGE_VERSION);
	uie_wbuf_u16(&w, m->type);
	uie_wbuf_u32(&w, 0); /* length, patched below */
	uie_wbuf_u32(&w, m->request_id);
	if (answer)
		uie_wbuf_u32(&w, (uint32_t)m->status);
	if (row->put && (!answer || m->status == UIE_OK))
		row->put(&w, m);
	if (w.err != UIE_OK)
		return w.err;
	uie_put_le32(out + 8, (uint32_t)w.len);
	*len = w.len;
	return UIE_OK;
}

int uie_bridge_decode(const uint8_t *p, size_t len, struct uie_wire_msg *m)
{
	uint32_t magic = 0, mlen = 0, st = 0, rid = 0;
	uint16_t version = 0, type = 0;
	const struct msg_row *row;
	struct uie_rbuf r;
	int bl, e;

	memset(m, 0, sizeof(*m));
	if (len > UIE_BRIDGE_MAX_MSG)
		return UIE_E_LIMIT;
	uie_rbuf_init(&r, p, len);
	(void)uie_rbuf_u32(&r, &magic);
	(void)uie_rbuf_u16(&r, &version);
	(void)uie_rbuf_u16(&r, &type);
	(void)uie_rbuf_u32(&r, &mlen);
	if ((e = uie_rbuf_u32(&r, &rid)) != UIE_OK)
		return e;
	if (magic != UIE_BRIDGE_MAGIC)
		return UIE_E_FORMAT;
	if (version != UIE_BRIDGE_VERSION)
		return UIE_E_VERSION; /* another version's header fields mean nothing here */
	m->type = type;
	m->request_id = rid;
	if (mlen != len)
		return mlen > len ? UIE_E_TRUNCATED : UIE_E_FORMAT;
	if (!(row = msg_row(type)))
		return UIE_E_FORMAT;
	bl = row->body_len;
	if (is_answer_type(type)) {
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
	if ((row->get && (e = row->get(&r, m)) != UIE_OK) || (e = uie_rbuf_end(&r)) != UIE_OK)
		return e;
	return fields_ok(row, m) ? UIE_OK : UIE_E_FORMAT;
}

/* A fast-path entry's request: the file-request layout of docs/BRIDGE.md. */
static void put_file_req(struct uie_wbuf *w, const struct uie_req *r)
{
	uie_wbuf_u16(w, r->event);
	uie_wbuf_u8(w, r->role);
	uie_wbuf_u8(w, 0);
	uie_wbuf_u32(w, r->pid);
	uie_wbuf_u64(w, r->vaddr);
	uie_wbuf_u64(w, r->length);
	uie_wbuf_u64(w, r->file_offset);
	uie_wbuf_file_id(w, &r->id);
}

static void get_file_req(struct uie_rbuf *r, struct uie_req *q)
{
	(void)uie_rbuf_u16(r, &q->event);
	(void)uie_rbuf_u8(r, &q->role);
	(void)uie_rbuf_zero(r, 1);
	(void)uie_rbuf_u32(r, &q->pid);
	(void)uie_rbuf_u64(r, &q->vaddr);
	(void)uie_rbuf_u64(r, &q->length);
	(void)uie_rbuf_u64(r, &q->file_offset);
	(void)uie_rbuf_file_id(r, &q->id);
}

static bool fastpath_entry_ok(const struct uie_req *req, const struct uie_digest *digest)
{
	const struct uie_req entry = { .event = req->event, .role = req->role }; /* no flags travel */

	return uie_req_valid(&entry) && req->role != UIE_ROLE_ANON && uie_digest_ok(digest, true);
}

void uie_bridge_req_of(const struct uie_msg_measure_req *mq, struct uie_req *req)
{
	*req = (struct uie_req){
		.event = mq->event,
		.role = mq->role,
		.pid = mq->pid,
		.vaddr = mq->vaddr,
		.length = mq->length,
		.file_offset = mq->file_offset,
		.cond = mq->role == UIE_ROLE_ANON ? 0 : UIE_BRIDGE_COND_OF(mq->flags),
		.fs = mq->role == UIE_ROLE_ANON ? 0 : UIE_BRIDGE_FS_OF(mq->flags),
	};
}

void uie_bridge_error_answer(const struct uie_wire_msg *q, int err, uint8_t *ans, size_t *anslen)
{
	struct uie_wire_msg a = { .request_id = q->request_id,
				  .status = err != UIE_OK && status_ok(err) ? err : UIE_E_INVAL };

	a.type = uie_bridge_is_request(q->type) ? q->type + 1 : UIE_MSG_ERROR_ANS;
	if (uie_bridge_encode(&a, ans, UIE_BRIDGE_MAX_MSG, anslen) != UIE_OK) {
		a.type = UIE_MSG_ERROR_ANS;
		a.status = UIE_E_INVAL;
		uie_bridge_encode(&a, ans, UIE_BRIDGE_MAX_MSG, anslen);
	}
}

uint64_t uie_bridge_vm_nframes(uint64_t object_size)
{
	return object_size / UIE_VM_FRAME + (object_size % UIE_VM_FRAME != 0);
}

uint64_t uie_bridge_vm_list_len(const struct uie_msg_measure_vm_req *q)
{
	uint64_t n = uie_bridge_vm_nframes(q->object_size);

	if (q->r.flags & UIE_VM_FLAG_FILELESS)
		return 0;
	return q->r.event == UIE_EV_MPROTECT_EXEC ? n + uie_bridge_vm_nframes(q->r.length) : n;
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

int uie_bridge_fastpath_entry_decode(const uint8_t in[UIE_BRIDGE_FASTPATH_ENTRY_LEN], struct uie_req *req,
				     struct uie_digest *digest)
{
	struct uie_rbuf r;
	uint16_t alg = 0;
	uint8_t dlen = 0;
	int e;

	memset(req, 0, sizeof(*req));
	memset(digest, 0, sizeof(*digest));
	uie_rbuf_init(&r, in, UIE_BRIDGE_FASTPATH_ENTRY_LEN);
	get_file_req(&r, req);
	(void)uie_rbuf_u16(&r, &alg);
	(void)uie_rbuf_u8(&r, &dlen);
	(void)uie_rbuf_zero(&r, 5);
	get_digest(&r, digest, alg, dlen);
	if ((e = uie_rbuf_end(&r)) != UIE_OK)
		return e;
	return fastpath_entry_ok(req, digest) ? UIE_OK : UIE_E_FORMAT;
}
