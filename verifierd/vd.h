/* SPDX-License-Identifier: Apache-2.0 */
/* What every handler of uie-verifierd is given: the configuration and the database. */
#ifndef UIE_VERIFIERD_VD_H
#define UIE_VERIFIERD_VD_H

#include <stddef.h>

struct vd_db;

struct vd_config {
	const char *name;      /* this verifier in the verdict history */
	unsigned silent_after; /* intervals without an accepted post before "silent" */
	unsigned nonce_ttl;    /* seconds */
	unsigned max_nonces;   /* unexpired nonces per machine */
	size_t max_body;       /* bytes */
};

struct vd_ctx {
	struct vd_db *db;
	const struct vd_config *cfg;
};

#endif
