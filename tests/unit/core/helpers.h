/* SPDX-License-Identifier: Apache-2.0 */
/* Shared fixtures of the core unit tests: a host platform, in-memory objects, a log sink. */
#ifndef UIE_TEST_CORE_HELPERS_H
#define UIE_TEST_CORE_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uie/core.h"
#include "uie/platform.h"

#include "host_platform.h"
#include "tcommon.h"

/* A host platform (th_hp) set up and torn down around a cmocka group. */
extern struct uie_host_platform th_hp;
int th_platform_setup(void **state);
int th_platform_teardown(void **state);

/* An object over caller-owned bytes, read through a mapping or a callback. */
struct th_obj {
	struct uie_object obj;
	const uint8_t *data;
	int fail_read; /* when set, reads fail with UIE_E_IO */
};
void th_obj_init(struct th_obj *o, const void *data, size_t len, bool map);

/* A log sink that keeps records in memory and can be told to fail. */
#define TH_SINK_MAX 64
struct th_sink {
	uint8_t recs[TH_SINK_MAX][UIE_LOG_RECORD_LEN];
	size_t n;
	int fail; /* error returned by append when non-zero */
};
struct uie_log_sink th_sink_of(struct th_sink *s);

/* The 208-byte ELF of docs/FORMATS.md vector V1. */
extern const char th_tiny_elf_hex[];
#define TH_TINY_ELF_LEN 208

#endif
