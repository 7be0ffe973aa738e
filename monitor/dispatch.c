/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor's door: the table of every message a guest or tool can send,
 * and the one path each takes (uie_mon_serve): decode, look up, check
 * the descriptor rule, run the handler, encode the answer.  Like OpenSSH's
 * mon_table, anything not in the table is refused.  The table says how
 * each message is served: answered at once, or (by the process-mode
 * server, which passes a uie_mon_later) a MEASURE handed to a measurement
 * worker or an EXPORT streamed in pieces; those are answered later by
 * uie_mon_measure_finish and uie_mon_export_step, without being
 * decoded again.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor.h"
#include "subjects.h"
#include "uie/err.h"
#include "uie/sys.h"

/* How a message is served. */
enum mon_serve {
	SERVE_INLINE, /* answered before the next message is read */
	SERVE_WORKER, /* a cache miss is hashed by a measurement worker (later->job) */
	SERVE_STREAM, /* written out in pieces between other messages (later->export) */
};

struct mon_entry {
	uint16_t type;
	enum mon_serve how;
	const char *name;
	uie_mon_handler fn;
};

static const struct mon_entry mon_table[] = {
	{ UIE_MSG_MEASURE_REQ, SERVE_WORKER, "measure", uie_mon_measure },                /* measure.c */
	{ UIE_MSG_MEASURE_VM_REQ, SERVE_INLINE, "measure-vm", uie_mon_measure_vm },       /* measure_vm.c */
	{ UIE_MSG_VIOLATION_REQ, SERVE_INLINE, "violation", uie_mon_violation },          /* measure.c */
	{ UIE_MSG_VIOLATION_VM_REQ, SERVE_INLINE, "violation-vm", uie_mon_violation_vm }, /* measure_vm.c */
	{ UIE_MSG_FASTPATH_REQ, SERVE_INLINE, "fastpath", uie_mon_fastpath },             /* measure.c */
	{ UIE_MSG_STATUS_REQ, SERVE_INLINE, "status", uie_mon_status },                   /* measure.c */
	{ UIE_MSG_INSTALL_REQ, SERVE_INLINE, "install", uie_mon_install },                /* install.c */
	{ UIE_MSG_HINT_REQ, SERVE_INLINE, "hint", uie_mon_hint },                         /* install.c */
	{ UIE_MSG_GEN_REQ, SERVE_INLINE, "generation", uie_mon_gen },                     /* install.c */
	{ UIE_MSG_EXPORT_REQ, SERVE_STREAM, "export", uie_mon_export },                   /* export.c */
	{ UIE_MSG_PUBKEY_REQ, SERVE_INLINE, "pubkey", uie_mon_pubkey },                   /* export.c */
	{ UIE_MSG_CHECKPOINT_REQ, SERVE_INLINE, "checkpoint", uie_mon_checkpoint },       /* export.c */
	{ UIE_MSG_TPM_KEYS_REQ, SERVE_INLINE, "tpm-keys", uie_mon_tpm_keys },             /* credential.c */
	{ UIE_MSG_ACTIVATE_REQ, SERVE_INLINE, "activate", uie_mon_activate },             /* credential.c */
	{ UIE_MSG_SNP_REPORT_REQ, SERVE_INLINE, "snp-report", uie_mon_snp_report },       /* snp.c */
};

void uie_mon_say(FILE *diag, const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	if (!diag)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(diag, "%lld.%03ld uie-monitord: ", (long long)ts.tv_sec, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(diag, fmt, ap);
	va_end(ap);
	fputc('\n', diag);
	fflush(diag);
}

static const struct mon_entry *lookup(uint16_t type)
{
	for (size_t i = 0; i < sizeof(mon_table) / sizeof(mon_table[0]); i++)
		if (mon_table[i].type == type)
			return &mon_table[i];
	return NULL;
}

void uie_mon_answer(const struct uie_wire_msg *q, struct uie_wire_msg *a, uint8_t *ans, size_t *anslen)
{
	a->type = q->type + 1;
	a->request_id = q->request_id;
	if (a->status == UIE_OK && uie_bridge_encode(a, ans, UIE_BRIDGE_MAX_MSG, anslen) == UIE_OK)
		return;
	uie_bridge_error_answer(q, a->status != UIE_OK ? a->status : UIE_E_INVAL, ans, anslen);
}

void uie_mon_refuse(const struct uie_monitor *m, const uint8_t *msg, size_t len, int err, uint8_t *ans,
		    size_t *anslen)
{
	struct uie_wire_msg q;

	uie_bridge_decode(msg, len, &q); /* only for its type and request id */
	uie_mon_diag(m, "refused message (type %u, %zu bytes): %s", q.type, len, uie_err_str(err));
	uie_bridge_error_answer(&q, err, ans, anslen);
}

void uie_mon_client_init(const struct uie_monitor *m, struct uie_mon_client *c)
{
	c->tokens = m->limits.quota;
	c->refilled_ms = uie_now_ms();
	c->subjects = NULL;
}

void uie_mon_client_fini(struct uie_mon_client *c)
{
	uie_mon_subjects_free(c->subjects);
	c->subjects = NULL;
}

int uie_mon_quota_take(const struct uie_monitor *m, struct uie_mon_client *c, uint64_t n)
{
	uint64_t t, add;

	if (!c || !m->limits.quota)
		return UIE_OK;
	t = uie_now_ms();
	if (t > c->refilled_ms) {
		add = (t - c->refilled_ms) * m->limits.quota / 1000;
		if (add) { /* keep the remainder of a partial millisecond's worth for later */
			c->tokens = c->tokens + add > m->limits.quota ? m->limits.quota : c->tokens + add;
			c->refilled_ms = t;
		}
	}
	if (n > c->tokens)
		return UIE_E_QUOTA;
	c->tokens -= n;
	return UIE_OK;
}

void uie_mon_serve(struct uie_monitor *m, struct uie_mon_client *c, struct uie_mon_later *later,
		   const uint8_t *msg, size_t len, int fd, uint8_t *ans, size_t *anslen, int *ansfd)
{
	const struct mon_entry *h = NULL;
	struct uie_wire_msg q, a;
	struct uie_mon_call call = { .client = c, .q = &q, .fd = fd, .a = &a, .afd = ansfd };
	int r;

	*ansfd = -1;
	if (later)
		*later = (struct uie_mon_later){ 0 };
	r = uie_bridge_decode(msg, len, &q);
	if (r == UIE_OK && !(h = lookup(q.type)))
		r = UIE_E_FORMAT; /* an answer type, sent to the monitor */
	if (r == UIE_OK && (uie_bridge_fd_rule(&q) == UIE_FD_ONE) != (fd >= 0))
		r = UIE_E_FORMAT;
	if (r == UIE_OK && !uie_bridge_served_in(q.type, m->ram ? UIE_IN_VM : UIE_IN_PROCESS))
		r = UIE_E_STATE; /* a VM-mode message in process mode, or the reverse */
	if (fd >= 0 && r != UIE_OK)
		close(fd);
	if (r != UIE_OK) {
		uie_mon_refuse(m, msg, len, r, ans, anslen);
		return;
	}
	if (later && h->how != SERVE_INLINE)
		call.later = later;
	memset(&a, 0, sizeof(a));
	a.type = q.type + 1;
	a.request_id = q.request_id;
	a.status = h->fn(m, &call);
	if (call.later && (call.later->job || call.later->export))
		return; /* answered later; a job owns fd (an export has none) */
	if (fd >= 0)
		close(fd);
	if (a.status == UIE_OK && uie_bridge_encode(&a, ans, UIE_BRIDGE_MAX_MSG, anslen) == UIE_OK)
		return;
	/* A failed handler, or an answer that does not encode: refuse, never guess. */
	if (*ansfd >= 0)
		close(*ansfd);
	*ansfd = -1;
	uie_bridge_error_answer(&q, a.status != UIE_OK ? a.status : UIE_E_INVAL, ans, anslen);
}

void uie_mon_handle(struct uie_monitor *m, const uint8_t *msg, size_t len, int fd, uint8_t *ans,
		    size_t *anslen, int *ansfd)
{
	uie_mon_serve(m, NULL, NULL, msg, len, fd, ans, anslen, ansfd);
}
