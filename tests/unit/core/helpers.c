/* SPDX-License-Identifier: Apache-2.0 */
#include "helpers.h"

#include <stdarg.h>
#include <setjmp.h>
#include <string.h>

#include <cmocka.h>

#include "uie/err.h"

const char th_tiny_elf_hex[] = "7f454c4602010100000000000000000002003e0001000000b000400000000000"
			       "4000000000000000000000000000000000000000400038000200000000000000"
			       "0100000005000000b000000000000000b000400000000000b000400000000000"
			       "1000000000000000100000000000000000100000000000000300000004000000"
			       "c000000000000000c000400000000000c0004000000000000b00000000000000"
			       "0b000000000000000100000000000000b83c00000031ff0f0590909090909090"
			       "2f6c69622f6c642e736f000000000000";

struct uie_host_platform th_hp;

int th_platform_setup(void **state)
{
	(void)state;
	return uie_host_platform_init(&th_hp) == UIE_OK ? 0 : -1;
}

int th_platform_teardown(void **state)
{
	(void)state;
	uie_host_platform_fini(&th_hp);
	return 0;
}

static int obj_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct th_obj *o = ctx;

	if (o->fail_read)
		return UIE_E_IO;
	memcpy(buf, o->data + off, len);
	return UIE_OK;
}

void th_obj_init(struct th_obj *o, const void *data, size_t len, bool map)
{
	memset(o, 0, sizeof(*o));
	o->data = data;
	o->obj.ctx = o;
	o->obj.size = len;
	o->obj.map = map ? data : NULL;
	o->obj.read = obj_read;
}

static int sink_append(void *ctx, const uint8_t rec[UIE_LOG_RECORD_LEN], const uint8_t lrh[UIE_PCR_LEN])
{
	struct th_sink *s = ctx;

	if (s->fail)
		return s->fail;
	assert_true(s->n < TH_SINK_MAX);
	assert_memory_equal(rec + UIE_LOG_BODY_LEN, lrh, UIE_PCR_LEN);
	memcpy(s->recs[s->n++], rec, UIE_LOG_RECORD_LEN);
	return UIE_OK;
}

struct uie_log_sink th_sink_of(struct th_sink *s)
{
	struct uie_log_sink k = { .ctx = s, .append = sink_append };

	return k;
}
