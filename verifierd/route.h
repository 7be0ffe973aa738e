/* SPDX-License-Identifier: Apache-2.0 */
/* The API's paths (docs/VERIFIER.md 3): one table row per path, with the methods it takes. */
#ifndef UIE_VERIFIERD_ROUTE_H
#define UIE_VERIFIERD_ROUTE_H

#include "body.h"
#include "handlers.h"

/* Who may make a call (docs/VERIFIER.md 7). */
enum vd_access {
	VD_ANYONE,      /* agents and readers */
	VD_ADMIN_IF_ON, /* the administrator when --admin-token is given; else anyone (enrolment) */
	VD_ADMIN,       /* the administrator only; refused when no --admin-token is given */
};

/*
 * The handler of method on url, with the machine id of the path in id (""
 * when the path has none) and who may call it in *access; NULL with a 404
 * or 405 in rep when there is none.
 */
vd_handler *vd_route(const char *method, const char *url, char id[VD_ID_MAX + 1], enum vd_access *access,
		     struct vd_reply *rep);

#endif
