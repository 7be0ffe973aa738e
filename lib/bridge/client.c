/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Client stubs of include/uie/bridge.h: one function per request, in the
 * manner of OpenSSH's monitor_wrap.c.  Each sends one request, waits at
 * most UIE_BRIDGE_TIMEOUT_MS for the answer with the same request id, and
 * turns every failure into an error (and, for measure, a DENY).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "stream.h"
#include "uie/bridge.h"
#include "uie/buf.h"
#include "uie/err.h"
#include "wire.h"
#include "uie/sys.h"

#define UIE_BRIDGE_TIMEOUT_MS 10000

static _Atomic uint32_t next_request_id = 1;

/* Socket of type connected to sa, or -1 with errno set and *made false when socket() failed. */
static int connect_type(const struct sockaddr_un *sa, int type, bool *made)
{
	int s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0), e;

	*made = s >= 0;
	if (s >= 0 && connect(s, (const struct sockaddr *)sa, sizeof(*sa)) != 0) {
		e = errno;
		close(s);
		errno = e;
		s = -1;
	}
	return s;
}

int uie_bridge_connect(const char *path, int *fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	bool made, made_stream;
	int s, e;

	*fd = -1;
	if (!path)
		return UIE_E_INVAL;
	/* A character device is a virtio-serial port: the byte-stream transport. */
	if (stat(path, &st) == 0 && S_ISCHR(st.st_mode)) {
		s = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
		if (s < 0)
			return errno == EBUSY ? UIE_E_STATE : UIE_E_PEER;
		*fd = s;
		return UIE_OK;
	}
	if (strlen(path) >= sizeof(sa.sun_path))
		return UIE_E_INVAL;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	s = connect_type(&sa, SOCK_SEQPACKET, &made);
	if (s < 0) {
		/*
		 * Inside a supervised tree SOCK_SEQPACKET cannot be created
		 * (EACCES); a stream socket is the VM relay's control socket
		 * (framed, docs/BRIDGE.md section 11), never the monitor's.
		 */
		e = errno;
		if (e == EACCES || e == EPROTOTYPE)
			s = connect_type(&sa, SOCK_STREAM, &made_stream);
		errno = e; /* the caller sees why SOCK_SEQPACKET failed */
		if (s < 0 && !made)
			return UIE_E_SYS; /* the socket could not be made */
		if (s < 0) {
			return e == ENOENT || e == ECONNREFUSED ? UIE_E_PEER
			       : e == EACCES || e == EPERM      ? UIE_E_ACCESS
								: UIE_E_SYS;
		}
	}
	*fd = s;
	return UIE_OK;
}

/* SOCK_SEQPACKET carries messages and descriptors; anything else is a byte stream. */
static bool is_stream(int sock)
{
	socklen_t l = sizeof(int);
	int type = 0;

	if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &l) != 0)
		return errno == ENOTSOCK;
	return type != SOCK_SEQPACKET;
}

/* Sends req (with sendfd unless -1) under a fresh request id (req->request_id). */
static int call_send(int sock, bool stream, struct uie_wire_msg *req, int sendfd)
{
	uint8_t buf[UIE_BRIDGE_MAX_MSG];
	size_t len;
	int r;

	req->request_id = atomic_fetch_add(&next_request_id, 1);
	if ((r = uie_bridge_encode(req, buf, sizeof(buf), &len)) != UIE_OK)
		return r;
	return stream ? uie_stream_send(sock, buf, len, sendfd) : uie_bridge_send(sock, buf, len, sendfd);
}

/*
 * Waits for the answer to req, sent by call_send.  Answers to earlier
 * requests (one that timed out, or one sent before req and read by nobody)
 * are skipped.  On UIE_OK the answer is in *ans (its status may still be an
 * error) and its descriptor, if any, in *ansfd (owned by the caller),
 * already checked against the fd rule.
 */
static int call_recv(int sock, bool stream, const struct uie_wire_msg *req, struct uie_wire_msg *ans,
		     int *ansfd)
{
	uint8_t buf[UIE_BRIDGE_MAX_MSG];
	int64_t deadline = (int64_t)uie_now_ms() + UIE_BRIDGE_TIMEOUT_MS;
	size_t len;
	int r, fd;

	*ansfd = -1;
	memset(ans, 0, sizeof(*ans));
	errno = 0; /* EPROTO below tells a broken answer from a closed connection */
	for (;;) {
		int64_t left = deadline - (int64_t)uie_now_ms();

		if (left <= 0)
			return UIE_E_TIMEOUT;
		r = stream ? uie_stream_recv(sock, buf, &len, &fd, (int)left)
			   : uie_bridge_recv(sock, buf, &len, &fd, (int)left);
		if (r != UIE_OK)
			return r;
		r = uie_bridge_decode(buf, len, ans);
		if (r == UIE_OK && ans->request_id != req->request_id) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (r == UIE_OK && ans->type != req->type + 1 && ans->type != UIE_MSG_ERROR_ANS)
			r = UIE_E_PEER;
		if (r == UIE_OK && (uie_bridge_fd_rule(ans) == UIE_FD_ONE) != (fd >= 0))
			r = UIE_E_PEER;
		if (r != UIE_OK) {
			if (fd >= 0)
				close(fd);
			memset(ans, 0, sizeof(*ans));
			errno = EPROTO;
			return UIE_E_PEER; /* the monitor answered out of protocol */
		}
		*ansfd = fd;
		return UIE_OK;
	}
}

/* Sends req and waits for its answer (call_recv). */
static int call(int sock, struct uie_wire_msg *req, int sendfd, struct uie_wire_msg *ans, int *ansfd)
{
	bool stream = is_stream(sock);
	int r = call_send(sock, stream, req, sendfd);

	if (r != UIE_OK) {
		*ansfd = -1;
		memset(ans, 0, sizeof(*ans));
		return r;
	}
	return call_recv(sock, stream, req, ans, ansfd);
}

/* call, with an error answer's status as the result (an error answer carries no descriptor). */
static int call_ok(int sock, struct uie_wire_msg *req, int sendfd, struct uie_wire_msg *ans, int *ansfd)
{
	int r = call(sock, req, sendfd, ans, ansfd);

	return r != UIE_OK ? r : ans->status;
}

/* MEASURE_REQ for req, whose object (or, for ANON, program) is objfd. */
static int measure_msg(const struct uie_req *req, int objfd, struct uie_wire_msg *q)
{
	if (!req || (req->role != UIE_ROLE_ANON && objfd < 0))
		return UIE_E_INVAL;
	*q = (struct uie_wire_msg){ .type = UIE_MSG_MEASURE_REQ };
	q->u.measure_req = (struct uie_msg_measure_req){
		.event = req->event,
		.role = req->role,
		.pid = req->pid,
		.flags = req->role == UIE_ROLE_ANON ? (objfd >= 0 ? UIE_BRIDGE_REQ_PROGRAM : 0)
						    : UIE_BRIDGE_REQ_FILE(req),
		.vaddr = req->vaddr,
		.length = req->length,
		.file_offset = req->file_offset,
		.subject_seq = req->subject_seq,
	};
	return UIE_OK;
}

int uie_bridge_measure_all(int fd, const struct uie_req *const *req, const int *objfd, unsigned n,
			   struct uie_verdict *out, unsigned *answered)
{
	uint32_t id[UIE_BRIDGE_MEASURE_MAX];
	bool stream;
	unsigned sent = 0;
	int r = UIE_OK;

	*answered = 0;
	for (unsigned i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].decision = UIE_DENY;
	}
	if (n == 0 || n > UIE_BRIDGE_MEASURE_MAX)
		return UIE_E_INVAL;
	stream = is_stream(fd);
	for (; sent < n && r == UIE_OK; sent++) {
		struct uie_wire_msg q;

		if ((r = measure_msg(req[sent], objfd[sent], &q)) == UIE_OK &&
		    (r = call_send(fd, stream, &q, objfd[sent])) == UIE_OK)
			id[sent] = q.request_id;
		else
			break;
	}
	/* The answers to what was sent, in order; r: the first failure (a send's or an answer's). */
	for (unsigned i = 0; i < sent; i++) {
		const struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_REQ, .request_id = id[i] };
		struct uie_wire_msg a;
		int ar, afd;

		if ((ar = call_recv(fd, stream, &q, &a, &afd)) == UIE_OK)
			ar = a.status;
		if (ar != UIE_OK)
			return ar;
		out[i] = a.u.measure_ans;
		(*answered)++;
	}
	return r;
}

int uie_bridge_measure(int fd, const struct uie_req *req, int objfd, struct uie_verdict *out)
{
	unsigned answered;

	return uie_bridge_measure_all(fd, &req, &objfd, 1, out, &answered);
}

int uie_bridge_install(int fd, const uint8_t *pkg, size_t len, int *monitor_err)
{
	struct uie_wire_msg q = { .type = UIE_MSG_INSTALL_REQ, .u.install_req_len = len }, a;
	int r, afd, mfd;

	*monitor_err = UIE_E_PEER;
	if (!pkg || len == 0)
		return UIE_E_INVAL;
	if ((r = uie_memfd_create_sealed("uie-package", pkg, len, &mfd)) != UIE_OK)
		return r;
	r = call_ok(fd, &q, mfd, &a, &afd);
	close(mfd);
	if (r != UIE_OK)
		return r;
	*monitor_err = a.u.install_ans.result;
	return UIE_OK;
}

/* Reads the memfd of a blob answer; consumes afd. */
static int read_blob(struct uie_wire_msg *a, int afd, uint8_t **out, size_t *len)
{
	int r;

	if (a->u.blob_ans.len == 0)
		return UIE_E_PEER;
	r = uie_memfd_read_alloc(afd, a->u.blob_ans.len, UIE_BRIDGE_MAX_BLOB, out);
	close(afd);
	if (r == UIE_OK)
		*len = (size_t)a->u.blob_ans.len;
	return r;
}

int uie_bridge_export_alloc(int fd, const uint8_t *nonce, size_t nonce_len, uint64_t since_seq, uint8_t **ae,
			    size_t *ae_len)
{
	struct uie_wire_msg q = { .type = UIE_MSG_EXPORT_REQ }, a;
	int r, afd;

	*ae = NULL;
	*ae_len = 0;
	if (!nonce || nonce_len < 1 || nonce_len > UIE_NONCE_MAX)
		return UIE_E_INVAL;
	q.u.export_req.since_seq = since_seq;
	q.u.export_req.nonce_len = (uint8_t)nonce_len;
	memcpy(q.u.export_req.nonce, nonce, nonce_len);
	if ((r = call_ok(fd, &q, -1, &a, &afd)) != UIE_OK)
		return r;
	return read_blob(&a, afd, ae, ae_len);
}

int uie_bridge_hint(int fd, int *hint_fd, size_t *len)
{
	struct uie_wire_msg q = { .type = UIE_MSG_HINT_REQ }, a;
	int r, afd;

	*hint_fd = -1;
	*len = 0;
	if ((r = call_ok(fd, &q, -1, &a, &afd)) != UIE_OK)
		return r;
	if (afd < 0)
		return UIE_OK;
	if ((r = uie_memfd_check(afd, a.u.blob_ans.len)) != UIE_OK) {
		close(afd);
		return r;
	}
	*hint_fd = afd;
	*len = (size_t)a.u.blob_ans.len;
	return UIE_OK;
}

int uie_bridge_generation(int fd, int *gen_fd, size_t *len, uint64_t *gen)
{
	struct uie_wire_msg q = { .type = UIE_MSG_GEN_REQ }, a;
	int r, afd;

	*gen_fd = -1;
	*len = 0;
	*gen = 0;
	if ((r = call_ok(fd, &q, -1, &a, &afd)) != UIE_OK)
		return r;
	/* The seals (not those of a payload memfd) are checked by uie_genpage_map. */
	*gen_fd = afd;
	*len = (size_t)a.u.blob_ans.len;
	*gen = a.u.blob_ans.epoch;
	return UIE_OK;
}

int uie_bridge_status(int fd, struct uie_status *out)
{
	struct uie_wire_msg q = { .type = UIE_MSG_STATUS_REQ }, a;
	int r, afd;

	memset(out, 0, sizeof(*out));
	if ((r = call_ok(fd, &q, -1, &a, &afd)) != UIE_OK)
		return r;
	*out = a.u.status_ans;
	return UIE_OK;
}

int uie_bridge_checkpoint(int fd, uint64_t seq, const uint8_t pcr[UIE_PCR_LEN], uint64_t *base)
{
	struct uie_wire_msg q = { .type = UIE_MSG_CHECKPOINT_REQ }, a;
	int r, afd;

	*base = 0;
	q.u.checkpoint_req.seq = seq;
	memcpy(q.u.checkpoint_req.pcr, pcr, UIE_PCR_LEN);
	if ((r = call_ok(fd, &q, -1, &a, &afd)) != UIE_OK)
		return r;
	*base = a.u.checkpoint_base;
	return UIE_OK;
}

int uie_bridge_violation(int fd, uint32_t pid, uint8_t kind, int objfd, uint64_t *seq)
{
	struct uie_wire_msg q = { .type = UIE_MSG_VIOLATION_REQ }, a;
	int r, afd;

	*seq = 0;
	if (objfd < 0)
		return UIE_E_INVAL;
	q.u.violation_req = (struct uie_msg_violation_req){ .pid = pid, .kind = kind };
	if ((r = call_ok(fd, &q, objfd, &a, &afd)) != UIE_OK)
		return r;
	*seq = a.u.violation_ans_seq;
	return UIE_OK;
}

/* One FASTPATH_REQ for n <= UIE_BRIDGE_FASTPATH_MAX reports; their status is its answer. */
static int report_batch(int fd, uint64_t epoch, struct uie_fastpath_report *reps, size_t n)
{
	struct uie_wire_msg q = { .type = UIE_MSG_FASTPATH_REQ }, a;
	uint8_t *entries = malloc(n * UIE_BRIDGE_FASTPATH_ENTRY_LEN);
	int r = entries ? UIE_OK : UIE_E_NOMEM, mfd = -1, afd;

	for (size_t i = 0; r == UIE_OK && i < n; i++)
		r = uie_bridge_fastpath_entry_encode(&reps[i].req, &reps[i].digest,
						     entries + i * UIE_BRIDGE_FASTPATH_ENTRY_LEN);
	if (r == UIE_OK)
		r = uie_memfd_create_sealed("uie-fastpath", entries, n * UIE_BRIDGE_FASTPATH_ENTRY_LEN, &mfd);
	free(entries);
	q.u.fastpath_req = (struct uie_msg_fastpath_req){ .count = (uint32_t)n, .epoch = epoch };
	if (r == UIE_OK)
		r = call(fd, &q, mfd, &a, &afd);
	if (mfd >= 0)
		close(mfd);
	if (r == UIE_OK && a.status == UIE_OK && a.u.fastpath_ans.count != n)
		r = UIE_E_PEER; /* an answer for other reports than these */
	for (size_t i = 0; i < n; i++)
		reps[i].status = r == UIE_OK ? a.status : r;
	return r;
}

int uie_bridge_fastpath_report_all(int fd, uint64_t epoch, struct uie_fastpath_report *reps, size_t n)
{
	int r = UIE_OK;

	if (n && !reps)
		return UIE_E_INVAL;
	for (size_t done = 0; done < n;) {
		size_t k = n - done < UIE_BRIDGE_FASTPATH_MAX ? n - done : UIE_BRIDGE_FASTPATH_MAX;

		if (r != UIE_OK) { /* the transport failed: the rest cannot be sent */
			for (size_t i = 0; i < k; i++)
				reps[done + i].status = r;
		} else if ((r = report_batch(fd, epoch, reps + done, k)) == UIE_E_INVAL) {
			r = UIE_OK; /* a report that cannot be encoded spoils its batch only */
		}
		done += k;
	}
	return r;
}

int uie_bridge_pubkey_alloc(int fd, uint8_t **der, size_t *len)
{
	struct uie_wire_msg q = { .type = UIE_MSG_PUBKEY_REQ }, a;
	int r, afd;

	*der = NULL;
	*len = 0;
	if ((r = call_ok(fd, &q, -1, &a, &afd)) != UIE_OK)
		return r;
	*der = malloc(a.u.pubkey_ans.len);
	if (!*der)
		return UIE_E_NOMEM;
	memcpy(*der, a.u.pubkey_ans.der, a.u.pubkey_ans.len);
	*len = a.u.pubkey_ans.len;
	return UIE_OK;
}

int uie_bridge_tpm_keys_alloc(int fd, uint8_t **ek, size_t *ek_len, uint8_t **ak, size_t *ak_len)
{
	struct uie_wire_msg q = { .type = UIE_MSG_TPM_KEYS_REQ }, a;
	const struct uie_msg_tpm_keys_ans *k = &a.u.tpm_keys_ans;
	int r, afd;

	*ek = *ak = NULL;
	*ek_len = *ak_len = 0;
	if ((r = call_ok(fd, &q, -1, &a, &afd)) != UIE_OK)
		return r;
	if (!(*ek = malloc(k->ek_len)) || !(*ak = malloc(k->ak_len))) {
		free(*ek);
		*ek = NULL;
		return UIE_E_NOMEM;
	}
	memcpy(*ek, k->ek, k->ek_len);
	*ek_len = k->ek_len;
	memcpy(*ak, k->ak, k->ak_len);
	*ak_len = k->ak_len;
	return UIE_OK;
}

int uie_bridge_activate(int fd, const uint8_t *blob, size_t blob_len, const uint8_t *secret,
			size_t secret_len, uint8_t *cred, size_t *cred_len)
{
	struct uie_wire_msg q = { .type = UIE_MSG_ACTIVATE_REQ }, a;
	int r, afd;

	*cred_len = 0;
	if (blob_len == 0 || blob_len > UIE_BRIDGE_CRED_BLOB_MAX || secret_len == 0 ||
	    secret_len > UIE_BRIDGE_CRED_SECRET_MAX)
		return UIE_E_LIMIT;
	q.u.activate_req.blob_len = (uint16_t)blob_len;
	q.u.activate_req.secret_len = (uint16_t)secret_len;
	memcpy(q.u.activate_req.blob, blob, blob_len);
	memcpy(q.u.activate_req.secret, secret, secret_len);
	if ((r = call_ok(fd, &q, -1, &a, &afd)) != UIE_OK)
		return r;
	memcpy(cred, a.u.activate_ans.cred, a.u.activate_ans.len);
	*cred_len = a.u.activate_ans.len;
	return UIE_OK;
}

/* A sealed memfd of n little-endian u64 (none when n is 0: *mfd -1). */
static int u64_memfd(const char *name, const uint64_t *v, size_t n, int *mfd)
{
	uint8_t *list;
	int r;

	*mfd = -1;
	if (n == 0)
		return UIE_OK;
	if (!(list = malloc(n * 8)))
		return UIE_E_NOMEM;
	for (size_t i = 0; i < n; i++)
		uie_put_le64(list + i * 8, v[i]);
	r = uie_memfd_create_sealed(name, list, n * 8, mfd);
	free(list);
	return r;
}

/* Sends q with the frame list frames (a sealed memfd; none when n is 0) and waits for *a. */
static int call_frames(int fd, struct uie_wire_msg *q, const uint64_t *frames, size_t n,
		       struct uie_wire_msg *a)
{
	int r, afd, mfd;

	if ((r = u64_memfd("uie-frames", frames, n, &mfd)) != UIE_OK)
		return r;
	r = call_ok(fd, q, mfd, a, &afd);
	if (mfd >= 0)
		close(mfd);
	return r;
}

int uie_bridge_measure_vm(int fd, const struct uie_req *req, uint8_t flags, uint64_t object_size,
			  const uint64_t *frames, size_t nframes, struct uie_verdict *out)
{
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_VM_REQ }, a;
	int r;

	memset(out, 0, sizeof(*out));
	out->decision = UIE_DENY;
	if (!req || req->role == UIE_ROLE_ANON)
		return UIE_E_INVAL;
	q.u.measure_vm_req = (struct uie_msg_measure_vm_req){
		.r = { .event = req->event,
		       .role = req->role,
		       .flags = (uint8_t)(flags | UIE_BRIDGE_REQ_FILE(req)),
		       .pid = req->pid,
		       .vaddr = req->vaddr,
		       .length = req->length,
		       .file_offset = req->file_offset },
		.object_size = object_size,
	};
	if (nframes != uie_bridge_vm_list_len(&q.u.measure_vm_req))
		return UIE_E_INVAL;
	if ((r = call_frames(fd, &q, frames, nframes, &a)) != UIE_OK)
		return r;
	*out = a.u.measure_ans;
	return UIE_OK;
}

int uie_bridge_violation_vm(int fd, uint32_t pid, uint8_t kind, uint64_t object_size, const uint64_t *frames,
			    size_t nframes, uint64_t *seq)
{
	struct uie_wire_msg q = { .type = UIE_MSG_VIOLATION_VM_REQ }, a;
	int r;

	*seq = 0;
	if (nframes != uie_bridge_vm_nframes(object_size))
		return UIE_E_INVAL;
	q.u.violation_vm_req = (struct uie_msg_violation_vm_req){ .v = { .pid = pid, .kind = kind },
								  .object_size = object_size };
	if ((r = call_frames(fd, &q, frames, nframes, &a)) != UIE_OK)
		return r;
	*seq = a.u.violation_ans_seq;
	return UIE_OK;
}

int uie_bridge_snp_report_alloc(int fd, const uint8_t nonce[64], uint8_t flags, uint8_t **bundle, size_t *len)
{
	struct uie_wire_msg q = { .type = UIE_MSG_SNP_REPORT_REQ }, a;
	int r, afd;

	*bundle = NULL;
	*len = 0;
	memcpy(q.u.snp_report_req.nonce, nonce, sizeof(q.u.snp_report_req.nonce));
	q.u.snp_report_req.flags = flags;
	if ((r = call_ok(fd, &q, -1, &a, &afd)) != UIE_OK)
		return r;
	return read_blob(&a, afd, bundle, len);
}
