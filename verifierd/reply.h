/* SPDX-License-Identifier: Apache-2.0 */
/* What a handler answers: an HTTP status and a JSON body (docs/VERIFIER.md 5). */
#ifndef UIE_VERIFIERD_REPLY_H
#define UIE_VERIFIERD_REPLY_H

#include <stdbool.h>

#include <jansson.h>

struct vd_reply {
	unsigned status;
	json_t *json;         /* owned; NULL: no body */
	unsigned retry_after; /* seconds: a Retry-After header when not 0 */
	bool close;           /* Connection: close (a body left unread) */
};

/* Sets {"error": code, "reason": ...} with status. */
__attribute__((format(printf, 4, 5))) void vd_reply_error(struct vd_reply *rep, unsigned status,
							  const char *code, const char *fmt, ...);

/* Sets json (reference stolen) with status; a NULL json is a 500 (no memory). */
void vd_reply_json(struct vd_reply *rep, unsigned status, json_t *json);

/* The 404 of a machine id nobody enrolled. */
void vd_reply_unknown(struct vd_reply *rep, const char *id);

/* The 503 of a database failure, naming what was being done. */
void vd_reply_db(struct vd_reply *rep, const char *what);

#endif
