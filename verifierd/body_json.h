/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON helpers the request-body parsers share (body.c, body_enrol.c). */
#ifndef UIE_VERIFIERD_BODY_JSON_H
#define UIE_VERIFIERD_BODY_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "body.h"

/* Fills why from fmt and returns err. */
__attribute__((format(printf, 3, 4))) int vd_why(char why[VD_WHY_LEN], int err, const char *fmt, ...);

/*
 * How one kind of body is read: the members it may have (NULL-terminated),
 * the size of the struct it is read into, the function that reads the
 * members from the object into out, and the one that frees what a failed
 * read left in out (NULL: nothing).
 */
struct vd_body_kind {
	const char *const *members;
	size_t size;
	int (*read)(const struct uie_platform *pl, json_t *o, void *out, char why[VD_WHY_LEN]);
	void (*release)(void *out);
};

/*
 * The body as one JSON object of k's members, read by k into out (zeroed
 * first).  Returns as vd_enrol_parse_alloc: a failure leaves out owning
 * nothing.
 */
int vd_body_read(const struct vd_body_kind *k, const struct uie_platform *pl, const char *body, size_t len,
		 void *out, char why[VD_WHY_LEN]);

/* A string member, required or not (*s NULL when absent and optional). */
int vd_get_string(json_t *o, const char *key, bool required, const char **s, size_t *n, char why[VD_WHY_LEN]);

/* An integer member in [lo, hi], required; unit names what it counts in the error ("" for none). */
int vd_get_int(json_t *o, const char *key, json_int_t lo, json_int_t hi, const char *unit, json_int_t *v,
	       char why[VD_WHY_LEN]);

/* The fields every enrolment has: "interval", "reference"?, "policies"? into e. */
int vd_usual_fields(const struct uie_platform *pl, json_t *o, struct vd_enrol *e, char why[VD_WHY_LEN]);

#endif
