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

#endif
