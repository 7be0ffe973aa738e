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

/* The body as one JSON object whose members are all in allowed (NULL-terminated). */
int vd_load_object(const char *body, size_t len, const char *const *allowed, json_t **out,
		   char why[VD_WHY_LEN]);

/* A string member, required or not (*s NULL when absent and optional). */
int vd_get_string(json_t *o, const char *key, bool required, const char **s, size_t *n, char why[VD_WHY_LEN]);

/* The fields every enrolment has: "interval", "reference"?, "policies"? into e. */
int vd_usual_fields(const struct uie_platform *pl, json_t *o, struct vd_enrol *e, char why[VD_WHY_LEN]);

#endif
