/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Retention of the verdict history (docs/VERIFIER.md 2.4, --keep-verdicts):
 * verdicts older than a number of days are deleted, except a machine's
 * first bad one, at start and then hourly.  Of several verifiers on one
 * database, one prunes at a time (an advisory lock; the others skip).
 */
#ifndef UIE_VERIFIERD_RETENTION_H
#define UIE_VERIFIERD_RETENTION_H

#include <stdint.h>

#include "db.h"

#define VD_RETENTION_PERIOD_S 3600

/* Deletes the verdicts older than days, *n of them.  Return: UIE_OK or UIE_E_IO. */
int vd_retention_prune(struct vd_db *db, unsigned days, uint64_t *n);

struct vd_retention;

/* Prunes every VD_RETENTION_PERIOD_S on a thread of its own until freed.  UIE_OK, UIE_E_NOMEM or UIE_E_SYS. */
int vd_retention_start_alloc(struct vd_db *db, unsigned days, struct vd_retention **out);
/* Stops the thread (after a prune in progress) and frees r. */
void vd_retention_free(struct vd_retention *r);

#endif
