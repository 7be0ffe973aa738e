/* SPDX-License-Identifier: Apache-2.0 */
/* Machines as the API shows them (docs/VERIFIER.md 3.5): status, silence, state, first bad verdict. */
#ifndef UIE_VERIFIERD_STATUS_H
#define UIE_VERIFIERD_STATUS_H

#include <jansson.h>

#include "db.h"
#include "vd.h"

/*
 * The machine id (NULL: every machine) as a JSON array of objects, *n of
 * them; NULL after a database failure or without memory (*n is then 0).
 */
json_t *vd_status_alloc(const struct vd_ctx *ctx, struct vd_conn *c, const char *id, int *n);

#endif
