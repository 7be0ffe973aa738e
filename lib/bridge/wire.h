/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bridge wire codec: every message of docs/BRIDGE.md as a host struct, one
 * encoder and one decoder for all of them.  Decoding checks the header, the
 * exact body length of the type, every enum range and every reserved byte;
 * nothing is trusted because it came from "our" side.
 */
#ifndef UIE_BRIDGE_WIRE_H
#define UIE_BRIDGE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uie/bridge.h"
#include "uie/core.h"

#define UIE_BRIDGE_HDR_LEN 16
#define UIE_BRIDGE_PUBKEY_MAX 1024
#define UIE_BRIDGE_ERROR_ANS_LEN (UIE_BRIDGE_HDR_LEN + 4)
/* Largest payload passed in a memfd (evidence of a long log, packages). */
#define UIE_BRIDGE_MAX_BLOB (1ull << 32)

/* MEASURE_REQ flag: the descriptor is the process's main program (role ANON: JIT rules). */
#define UIE_BRIDGE_REQ_PROGRAM 0x01
/*
 * MEASURE_REQ and MEASURE_VM_REQ flags 0x02 EXECMOD, 0x04 UNSEALED and 0x08
 * IMMUTABLE: the request's conditions (uie_req.cond); bits 4-7: the kind of
 * file system (uie_req.fs); files only (docs/BRIDGE.md section 3).
 */
#define UIE_BRIDGE_REQ_COND(cond) ((uint8_t)((cond) << 1))
#define UIE_BRIDGE_COND_OF(flags) ((uint8_t)(((flags) >> 1) & UIE_COND_ALL))
#define UIE_BRIDGE_REQ_FS(fs) ((uint8_t)((fs) << 4))
#define UIE_BRIDGE_FS_OF(flags) ((uint8_t)((flags) >> 4))
/* Both: the flags of a file request (role not ANON). */
#define UIE_BRIDGE_REQ_FILE(req) ((uint8_t)(UIE_BRIDGE_REQ_COND((req)->cond) | UIE_BRIDGE_REQ_FS((req)->fs)))

struct uie_msg_measure_req {
	uint16_t event;
	uint8_t role;
	uint8_t flags; /* UIE_BRIDGE_REQ_PROGRAM with role ANON; else UIE_BRIDGE_REQ_COND */
	uint32_t pid;
	uint64_t vaddr, length, file_offset;
	/* MEASURE_REQ only: the EXECVE record that granted the process's program (0: unknown) */
	uint64_t subject_seq;
};

struct uie_msg_measure_vm_req {
	struct uie_msg_measure_req r;
	uint64_t object_size;
};

struct uie_msg_install_ans {
	int32_t result; /* the monitor's verdict on the package */
	uint8_t mode;   /* mode and epoch after the attempt */
	uint64_t epoch;
};

struct uie_msg_export_req {
	uint64_t since_seq;
	uint8_t nonce_len;
	uint8_t nonce[UIE_NONCE_MAX];
};

/* Answers whose payload is in a memfd (EXPORT_ANS, HINT_ANS, GEN_ANS). */
struct uie_msg_blob_ans {
	uint64_t len;   /* payload bytes in the memfd; 0 = no memfd */
	uint64_t epoch; /* HINT_ANS: epoch of the package the hint came from; GEN_ANS: generation */
};

/* FASTPATH_REQ: count entries of UIE_BRIDGE_FASTPATH_ENTRY_LEN bytes in the sealed memfd. */
struct uie_msg_fastpath_req {
	uint32_t count;
	uint64_t epoch; /* of the hint every entry was refused with */
};
struct uie_msg_fastpath_ans {
	uint32_t count;     /* entries logged */
	uint64_t first_seq; /* record number of the first */
};

struct uie_msg_checkpoint_req {
	uint64_t seq;
	uint8_t pcr[UIE_PCR_LEN];
};

struct uie_msg_violation_req {
	uint32_t pid; /* the writer, 0: unknown */
	uint8_t kind; /* enum uie_violation_kind */
};

/* VIOLATION_VM_REQ: VIOLATION_REQ's fields and the size of the file its frames hold (0: none). */
struct uie_msg_violation_vm_req {
	struct uie_msg_violation_req v;
	uint64_t object_size;
};

struct uie_msg_pubkey_ans {
	uint16_t len;
	uint8_t der[UIE_BRIDGE_PUBKEY_MAX];
};

/* TPM_KEYS_ANS: two marshalled TPM2B_PUBLIC. */
#define UIE_BRIDGE_TPM_PUBLIC_MAX 1024
struct uie_msg_tpm_keys_ans {
	uint16_t ek_len, ak_len;
	uint8_t ek[UIE_BRIDGE_TPM_PUBLIC_MAX], ak[UIE_BRIDGE_TPM_PUBLIC_MAX];
};

/* ACTIVATE_REQ: a TPM2B_ID_OBJECT and a TPM2B_ENCRYPTED_SECRET, each zero-padded to its field. */
#define UIE_BRIDGE_CRED_BLOB_MAX 256
#define UIE_BRIDGE_CRED_SECRET_MAX 520
#define UIE_BRIDGE_CRED_MAX 64
struct uie_msg_activate_req {
	uint16_t blob_len, secret_len;
	uint8_t blob[UIE_BRIDGE_CRED_BLOB_MAX], secret[UIE_BRIDGE_CRED_SECRET_MAX];
};
struct uie_msg_activate_ans {
	uint8_t len;
	uint8_t cred[UIE_BRIDGE_CRED_MAX];
};

/* SNP_REPORT_REQ: the verifier's nonce, UIE_BRIDGE_SNP_* flags. */
struct uie_msg_snp_report_req {
	uint8_t nonce[64];
	uint8_t flags;
};

struct uie_wire_msg {
	uint16_t type; /* enum uie_bridge_msg */
	uint32_t request_id;
	int32_t status; /* answers: UIE_OK or a negative uie_err */
	union {
		struct uie_msg_measure_req measure_req;
		struct uie_msg_measure_vm_req measure_vm_req;
		struct uie_verdict measure_ans;
		uint64_t install_req_len;
		struct uie_msg_install_ans install_ans;
		struct uie_msg_export_req export_req;
		struct uie_msg_blob_ans blob_ans;
		struct uie_status status_ans;
		struct uie_msg_fastpath_req fastpath_req;
		struct uie_msg_fastpath_ans fastpath_ans;
		struct uie_msg_pubkey_ans pubkey_ans;
		struct uie_msg_checkpoint_req checkpoint_req;
		uint64_t checkpoint_base; /* CHECKPOINT_ANS */
		struct uie_msg_violation_req violation_req;
		struct uie_msg_violation_vm_req violation_vm_req;
		uint64_t violation_ans_seq; /* VIOLATION_ANS and VIOLATION_VM_ANS */
		struct uie_msg_tpm_keys_ans tpm_keys_ans;
		struct uie_msg_activate_req activate_req;
		struct uie_msg_activate_ans activate_ans;
		struct uie_msg_snp_report_req snp_report_req;
	} u;
};

/*
 * One fast-path report entry (docs/BRIDGE.md, FASTPATH_REQ).  Encoding
 * refuses what decoding refuses: an event or role out of range, role ANON,
 * a digest whose length does not match its algorithm.
 * Return: UIE_OK, UIE_E_INVAL (encode), UIE_E_FORMAT (decode).
 */
#define UIE_BRIDGE_FASTPATH_ENTRY_LEN 128
int uie_bridge_fastpath_entry_encode(const struct uie_req *req, const struct uie_digest *digest,
				     uint8_t out[UIE_BRIDGE_FASTPATH_ENTRY_LEN]);
int uie_bridge_fastpath_entry_decode(const uint8_t in[UIE_BRIDGE_FASTPATH_ENTRY_LEN], struct uie_req *req,
				     struct uie_digest *digest);

/*
 * The request a MEASURE_REQ (or MEASURE_VM_REQ's request part) names, as
 * the core takes it: conditions and file system kind from its flags (none
 * for anonymous memory); identity and subject are the caller's to fill.
 */
void uie_bridge_req_of(const struct uie_msg_measure_req *mq, struct uie_req *req);

/*
 * Encodes the error answer err to q into ans (UIE_BRIDGE_MAX_MSG bytes):
 * q's answer type, or ERROR_ANS for a type that is no request; an err that
 * is no error code is sent as UIE_E_INVAL.  The one refusal the monitor's
 * door and the guest's relay write.
 */
void uie_bridge_error_answer(const struct uie_wire_msg *q, int err, uint8_t *ans, size_t *anslen);

/* Frames a VM-mode object of object_size bytes lies in: ceil(size / 4096). */
uint64_t uie_bridge_vm_nframes(uint64_t object_size);

/*
 * Entries of a MEASURE_VM_REQ's payload: the object's frames, then for
 * MPROTECT_EXEC one per page of [vaddr, vaddr + length) (docs/BRIDGE.md
 * section 12); 0 when FILELESS.
 */
uint64_t uie_bridge_vm_list_len(const struct uie_msg_measure_vm_req *q);

/* What a message must carry besides its bytes. */
enum uie_bridge_fd_rule {
	UIE_FD_NONE = 0, /* no descriptor allowed */
	UIE_FD_ONE = 1,  /* exactly one descriptor */
};

/* True for the request types of version 1 (even, known). */
bool uie_bridge_is_request(uint16_t type);

/*
 * Who may send a request, and where the monitor serves it: columns of the
 * codec's one row per message type (lib/bridge/wire.c), so that the
 * monitor's door (mode) and the guest's relay (sender) read the same facts
 * (docs/BRIDGE.md 2.1).  In process mode, and on the relay's bridge socket,
 * the interceptor and the tools share one socket: there the sender is only
 * told apart from the relay.
 */
#define UIE_FROM_INTERCEPTOR 0x01 /* the interceptor (uie run, uie-init) */
#define UIE_FROM_TOOL 0x02        /* a `uie` command run by the administrator */
/*
 * A `uie` command inside a supervised tree (the relay's control socket,
 * whole-boot VM mode): nothing that could forge, drop or hide evidence
 */
#define UIE_FROM_TREE 0x04
#define UIE_FROM_RELAY 0x08 /* the guest's relay, VM mode only (frame lists) */
#define UIE_IN_PROCESS 0x01 /* a monitor that receives objects as descriptors */
#define UIE_IN_VM 0x02      /* a monitor outside the guest, reading its RAM */
bool uie_bridge_may_send(uint16_t type, uint8_t from);
bool uie_bridge_served_in(uint16_t type, uint8_t mode);

/* Whether a decoded (or to-be-encoded) message carries a descriptor. */
enum uie_bridge_fd_rule uie_bridge_fd_rule(const struct uie_wire_msg *m);

/*
 * Encodes m into out (cap bytes).  Answers with a nonzero status are
 * encoded as error answers (header + status only).
 * Return: UIE_OK, UIE_E_INVAL (field out of range), UIE_E_OVERFLOW.
 */
int uie_bridge_encode(const struct uie_wire_msg *m, uint8_t *out, size_t cap, size_t *len);

/*
 * Decodes one message; clears *m first.  When the header was readable,
 * m->type and m->request_id hold its values even on error, so that the
 * receiver can address its error answer.
 * Return: UIE_OK, UIE_E_TRUNCATED, UIE_E_FORMAT (magic, length, reserved
 * bytes, field ranges, unknown type), UIE_E_VERSION, UIE_E_LIMIT
 * (longer than UIE_BRIDGE_MAX_MSG).
 */
int uie_bridge_decode(const uint8_t *p, size_t len, struct uie_wire_msg *m);

#endif
