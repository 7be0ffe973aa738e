/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The API's handlers (docs/VERIFIER.md 3), one file each.  A handler gets
 * the request, a database connection of its own and the reply to fill;
 * it runs its own transaction.
 */
#ifndef UIE_VERIFIERD_HANDLERS_H
#define UIE_VERIFIERD_HANDLERS_H

#include <stdbool.h>
#include <stddef.h>

#include "body.h"
#include "db.h"
#include "reply.h"
#include "vd.h"

struct vd_request {
	const char *id;   /* the machine (or fleet) of the path, or NULL */
	const char *body; /* NULL when there was none */
	size_t body_len;
	const char *limit; /* the ?limit= argument, or NULL */
};

/*
 * The request's body read by kind k (body.h) into out; false with the 400
 * (bad_json, bad_field), or the 500 of no memory, in rep.
 */
bool vd_request_body(const struct vd_body_kind *k, struct vd_conn *c, const struct vd_request *req, void *out,
		     struct vd_reply *rep);

typedef void vd_handler(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
			struct vd_reply *rep);

vd_handler vd_h_enrol, vd_h_list, vd_h_machine, vd_h_delete, vd_h_rekey, vd_h_nonce, vd_h_attest,
	vd_h_verdicts, vd_h_fleet, vd_h_enrol_nonce, vd_h_enrol_evidence, vd_h_enrol_activate;

#endif
