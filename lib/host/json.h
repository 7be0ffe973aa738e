/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How the project's JSON outputs carry numbers (docs/FORMATS.md 5.8): a
 * u64 is a JSON integer up to 2^63-1 and a decimal string above, since
 * JSON readers (and jansson's json_int_t) hold signed 64-bit integers and a
 * cast would print 2^64-1 as -1.
 */
#ifndef UIE_HOST_JSON_H
#define UIE_HOST_JSON_H

#include <stdint.h>

#include <jansson.h>

/* A new reference: v as an integer, or its decimal string above INT64_MAX; NULL on ENOMEM. */
json_t *uie_json_u64(uint64_t v);

/*
 * Prints j (may be NULL: a failed json_pack) on stdout, indented, with a
 * newline, and releases it.  UIE_OK, or UIE_E_NOMEM when j is NULL or
 * cannot be written out.
 */
int uie_json_print(json_t *j);

#endif
