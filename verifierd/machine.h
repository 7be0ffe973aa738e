/* SPDX-License-Identifier: Apache-2.0 */
/* An enrolled machine as stored (docs/VERIFIER.md 2.2), with its verifier state and inputs. */
#ifndef UIE_VERIFIERD_MACHINE_H
#define UIE_VERIFIERD_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "body.h"
#include "db.h"
#include "verify.h"

struct vd_machine {
	uint8_t *ak_der; /* owned */
	size_t ak_len;
	uint32_t interval;
	struct uie_verify_state st;
	bool failed;
	bool simulated; /* its AK was enrolled by attestation under a simulated root (3.8) */
	/* The reference values and policies to verify with. */
	bool has_ref;
	struct uie_refset ref;
	uint8_t *pkg[VD_MAX_POLICIES]; /* owned; pols[i].table points into pkg[i] */
	struct uie_verify_policy pols[VD_MAX_POLICIES];
	size_t npol;
};

/*
 * Machine id with its reference values and policies, for a post: its row
 * stays locked (FOR UPDATE) until the caller's transaction ends.  Return:
 * UIE_OK, UIE_E_NOTFOUND, UIE_E_IO (the database), UIE_E_FORMAT (a stored
 * value that does not parse), UIE_E_NOMEM.
 */
int vd_machine_lock_alloc(struct vd_conn *c, const char *id, struct vd_machine *m);
void vd_machine_free(struct vd_machine *m);

#endif
