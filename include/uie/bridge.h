/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bridge between the guest side (interceptor, tools) and the monitor:
 * versioned fixed-layout messages over AF_UNIX SOCK_SEQPACKET, in the
 * style of SVSM protocol calls; specified in docs/BRIDGE.md.  Requests
 * are even, answers odd.  Large payloads (policy packages, evidence, the
 * Bloom hint) travel in sealed memfds passed with SCM_RIGHTS, so that no
 * message exceeds UIE_BRIDGE_MAX_MSG.
 */
#ifndef UIE_BRIDGE_H
#define UIE_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "uie/core.h"
#include "uie/types.h"

#define UIE_BRIDGE_MAGIC 0x42454955u /* "UIEB" little-endian */
#define UIE_BRIDGE_VERSION 1
#define UIE_BRIDGE_MAX_MSG 4096
#define UIE_BRIDGE_DEFAULT_PATH "/run/uie/monitor.sock"

enum uie_bridge_msg {
	UIE_MSG_ERROR_ANS = 1,   /* answer to a message whose type is unknown or unreadable */
	UIE_MSG_MEASURE_REQ = 2, /* normalized request (+ object fd) -> verdict */
	UIE_MSG_MEASURE_ANS = 3,
	UIE_MSG_INSTALL_REQ = 4, /* package in a memfd -> result */
	UIE_MSG_INSTALL_ANS = 5,
	UIE_MSG_EXPORT_REQ = 6, /* nonce, since_seq -> AE in a memfd */
	UIE_MSG_EXPORT_ANS = 7,
	UIE_MSG_HINT_REQ = 8, /* -> sealed memfd holding the Bloom hint (or none) */
	UIE_MSG_HINT_ANS = 9,
	UIE_MSG_STATUS_REQ = 10, /* -> mode, epoch, record count, vPCR16 */
	UIE_MSG_STATUS_ANS = 11,
	UIE_MSG_FASTPATH_REQ = 12, /* reports of guest fast-path rejections, in a memfd */
	UIE_MSG_FASTPATH_ANS = 13,
	UIE_MSG_PUBKEY_REQ = 14, /* -> attestation public key (DER SPKI) */
	UIE_MSG_PUBKEY_ANS = 15,
	UIE_MSG_GEN_REQ = 16, /* -> the policy generation page (sealed memfd, read-only) */
	UIE_MSG_GEN_ANS = 17,
	UIE_MSG_CHECKPOINT_REQ = 18, /* records [0, seq) verified, ending at pcr: drop them from memory */
	UIE_MSG_CHECKPOINT_ANS = 19,
	UIE_MSG_MEASURE_VM_REQ = 20, /* VM mode: request + guest-physical frame list -> verdict */
	UIE_MSG_MEASURE_VM_ANS = 21,
	UIE_MSG_VIOLATION_REQ = 22, /* the file (fd) of an approved executable mapping was written */
	UIE_MSG_VIOLATION_ANS = 23,
	UIE_MSG_VIOLATION_VM_REQ = 24, /* VM mode: VIOLATION_REQ with the file named by its frames */
	UIE_MSG_VIOLATION_VM_ANS = 25,
	UIE_MSG_TPM_KEYS_REQ = 26, /* -> the vTPM's EK and AK public areas (TPM2B_PUBLIC) */
	UIE_MSG_TPM_KEYS_ANS = 27,
	UIE_MSG_ACTIVATE_REQ = 28, /* credential blob and secret -> TPM2_ActivateCredential's answer */
	UIE_MSG_ACTIVATE_ANS = 29,
	UIE_MSG_SNP_REPORT_REQ = 30, /* nonce -> what an SVSM answers: report, manifest, certificates */
	UIE_MSG_SNP_REPORT_ANS = 31,
	UIE_MSG__MAX
};

struct uie_status {
	uint8_t mode;
	uint64_t epoch;
	uint64_t nrecords;
	uint8_t vpcr[UIE_PCR_LEN];
	uint8_t policy_id[UIE_SHA256_LEN];
	uint8_t boot_id[UIE_BOOT_ID_LEN]; /* random per monitor run */
	uint64_t boot;                    /* run number (1 without a state directory) */
	int32_t health;                   /* UIE_OK, or the log store's or vTPM's failure */
	uint64_t repeats;                 /* grants answered by an earlier record (first-seen mode) */
	uint8_t trust_keys; /* policy-signing keys the monitor trusts (0: it stays in bootstrap) */
};

/*
 * Acknowledges that a verifier holds and verified the records before seq,
 * which end at vPCR16 pcr: the monitor checks pcr against its chain and
 * drops them from memory (they stay in its log file).  *base receives the
 * first record still in memory.  UIE_E_BINDING when pcr is not vPCR16
 * after seq records; UIE_E_RANGE when seq is beyond the log or before the
 * current checkpoint.
 */
int uie_bridge_checkpoint(int fd, uint64_t seq, const uint8_t pcr[UIE_PCR_LEN], uint64_t *base);

/* Client stubs: one per request.  Each returns UIE_OK or a negative error. */
int uie_bridge_connect(const char *path, int *fd);

/*
 * Asks for a decision on req; objfd is the object's open file.  For
 * anonymous memory (role ANON) it is the process's main program, whose
 * digest JIT rules name, or -1 when there is none to give.  req->subject_seq
 * (0: unknown) names the EXECVE grant of the requesting process's program
 * (docs/BRIDGE.md, MEASURE_REQ); req->subject is not sent.  Any failure
 * (including a dead monitor) returns an error and leaves out->decision == UIE_DENY.
 */
int uie_bridge_measure(int fd, const struct uie_req *req, int objfd, struct uie_verdict *out);
/*
 * uie_bridge_measure for req[0..n) (objfd[i] each; n <= UIE_BRIDGE_MEASURE_MAX)
 * on one connection: every request is sent before the first answer is read
 * (the monitor answers a connection's requests in the order they came).
 * out[i] for i < *answered is the monitor's verdict; the result is UIE_OK
 * when all n were answered, else the error of request *answered (its out
 * and the later ones say DENY).
 */
#define UIE_BRIDGE_MEASURE_MAX 8
int uie_bridge_measure_all(int fd, const struct uie_req *const *req, const int *objfd, unsigned n,
			   struct uie_verdict *out, unsigned *answered);

/* Installs a package; *monitor_err receives the monitor's verdict code. */
int uie_bridge_install(int fd, const uint8_t *pkg, size_t len, int *monitor_err);

/* Exports evidence answering nonce; *ae is malloc'ed and owned by the caller. */
int uie_bridge_export_alloc(int fd, const uint8_t *nonce, size_t nonce_len, uint64_t since_seq, uint8_t **ae,
			    size_t *ae_len);

/* Gets the Bloom hint memfd (sealed, read-only); *hint_fd = -1 when none. */
int uie_bridge_hint(int fd, int *hint_fd, size_t *len);

/*
 * Gets the policy generation page (docs/FORMATS.md section 4.6): *gen_fd
 * (owned by the caller) and its length; map it with uie_genpage_map, which
 * checks its seals.  *gen receives the generation when the answer was sent.
 */
int uie_bridge_generation(int fd, int *gen_fd, size_t *len, uint64_t *gen);

int uie_bridge_status(int fd, struct uie_status *out);

/* A request the guest refused from the Bloom hint, to be logged; status: the monitor's answer. */
struct uie_fastpath_report {
	struct uie_req req;
	struct uie_digest digest;
	int status;
};

#define UIE_BRIDGE_FASTPATH_MAX 4096 /* reports per FASTPATH_REQ */

/*
 * Reports n fast-path refusals, all made with the hint of policy epoch
 * `epoch`, in as few requests as possible (one per UIE_BRIDGE_FASTPATH_MAX,
 * each a sealed memfd of entries), and sets each reps[i].status to the
 * monitor's answer for its request: UIE_E_STATE when another epoch is in
 * force by then (nothing logged).  Returns UIE_OK once every request is
 * answered, else the first transport error, which is then also the status
 * of every report not answered.
 */
int uie_bridge_fastpath_report_all(int fd, uint64_t epoch, struct uie_fastpath_report *reps, size_t n);

/* VM mode (docs/BRIDGE.md section 12): the object is named by its frames. */
#define UIE_VM_FRAME 4096
#define UIE_VM_MAX_FRAMES 65536   /* objects up to 256 MiB */
#define UIE_VM_FLAG_FILELESS 0x01 /* the guest's file has no name: no frames */
/* A page of an MPROTECT_EXEC range that is not present: it faults in from the file. */
#define UIE_VM_PAGE_ABSENT UINT64_MAX

/*
 * Asks for a decision on req whose object (object_size bytes) lies in the
 * guest-physical frames frames[0..ceil(object_size / 4096)) (frame i holds
 * object bytes [i*4096, (i+1)*4096)).  For UIE_EV_MPROTECT_EXEC the list
 * goes on with one entry per page of [req->vaddr, req->vaddr + req->length)
 * of process req->pid: the frame the process holds there, or
 * UIE_VM_PAGE_ABSENT; nframes counts both parts.  With
 * UIE_VM_FLAG_FILELESS, object_size and nframes are 0.  Any failure leaves
 * out->decision == UIE_DENY.
 */
int uie_bridge_measure_vm(int fd, const struct uie_req *req, uint8_t flags, uint64_t object_size,
			  const uint64_t *frames, size_t nframes, struct uie_verdict *out);
/* What a VIOLATION_REQ reports. */
enum uie_violation_kind {
	UIE_VIOLATION_WRITE = 1, /* the file was written (or truncated) while mapped executable */
	UIE_VIOLATION__MAX
};

/*
 * Reports that objfd's file, which backs a live approved executable
 * mapping, was written by process pid (0: unknown).  The monitor measures
 * the file as it is now and logs a WRITE_VIOLATION record, whose number
 * *seq receives.  Return: UIE_OK or the transport's or monitor's error.
 */
int uie_bridge_violation(int fd, uint32_t pid, uint8_t kind, int objfd, uint64_t *seq);

/*
 * VM mode: the same, the file (object_size bytes) named by its frames
 * frames[0..nframes), nframes = ceil(object_size / 4096); object_size 0
 * (no frames): a file the guest could not name, logged without a digest.
 */
int uie_bridge_violation_vm(int fd, uint32_t pid, uint8_t kind, uint64_t object_size, const uint64_t *frames,
			    size_t nframes, uint64_t *seq);

/* Attestation public key as DER SubjectPublicKeyInfo; *der owned by the caller. */
int uie_bridge_pubkey_alloc(int fd, uint8_t **der, size_t *len);

/*
 * The monitor's vTPM's endorsement key and attestation key, each a
 * marshalled TPM2B_PUBLIC (docs/FORMATS.md 5.8); *ek and *ak owned by the
 * caller.
 */
int uie_bridge_tpm_keys_alloc(int fd, uint8_t **ek, size_t *ek_len, uint8_t **ak, size_t *ak_len);

/*
 * TPM2_ActivateCredential by the monitor's vTPM: blob a marshalled
 * TPM2B_ID_OBJECT, secret a marshalled TPM2B_ENCRYPTED_SECRET.  cred
 * (64 bytes) gets *cred_len bytes.  The vTPM's refusal is the error
 * (UIE_E_KEY: another EK; UIE_E_SIGNATURE: another AK).
 */
int uie_bridge_activate(int fd, const uint8_t *blob, size_t blob_len, const uint8_t *secret,
			size_t secret_len, uint8_t *cred, size_t *cred_len);

/* SNP_REPORT_REQ's flags: the manifest is the vTPM service's data alone (configfs-tsm's service_guid). */
#define UIE_BRIDGE_SNP_SINGLE 0x01

/*
 * The SEV-SNP attestation the monitor answers for the 64-byte nonce, as an
 * SVSM with a vTPM would (docs/BRIDGE.md, SNP_REPORT_REQ): *bundle (owned
 * by the caller) holds the report, the services manifest and the
 * certificate table in the layout of docs/FORMATS.md 7.8
 * (uie_snp_tsm_unpack reads it).  UIE_E_NOTFOUND when the monitor has
 * no SEV-SNP report to give (started without --snp-sim).
 */
int uie_bridge_snp_report_alloc(int fd, const uint8_t nonce[64], uint8_t flags, uint8_t **bundle,
				size_t *len);

#endif
