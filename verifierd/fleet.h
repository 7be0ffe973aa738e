/* SPDX-License-Identifier: Apache-2.0 */
/* A fleet's trust as stored (docs/VERIFIER.md 2.2, 3.8), loaded for an enrolment by attestation. */
#ifndef UIE_VERIFIERD_FLEET_H
#define UIE_VERIFIERD_FLEET_H

#include "db.h"
#include "enrol.h"

struct vd_fleet_trust {
	struct uie_enrol_trust t; /* t.ask, t.ark owned; t.pol = &pol */
	struct uie_snp_policy pol;
	uint8_t *measurements; /* owned: pol.measurements points here */
	bool accepts_none;     /* an empty list and not "any": every report is refused */
};

/*
 * The fleet name into *f.  Return: UIE_OK, UIE_E_NOTFOUND, UIE_E_IO (the
 * database), UIE_E_FORMAT (a stored value that does not parse), UIE_E_NOMEM.
 */
int vd_fleet_load_alloc(struct vd_conn *c, const char *name, struct vd_fleet_trust *f);
void vd_fleet_trust_free(struct vd_fleet_trust *f);

#endif
