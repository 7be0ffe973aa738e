/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the relay's reading of libmicrohttpd's responses
 * (verifierd/resphead.c).  The first byte sets the size of the pieces the
 * rest arrives in; the rest is what the library sends.  What goes out is
 * the same however the input is split, never more than the input and one
 * replacement, and is left as it is when read again: every response that
 * goes out is either passed (ours) or the one JSON replacement, after which
 * nothing goes out.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "resphead.h"
#include "uie/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROOM (VD_RESP_HEAD_MAX + VD_RESP_REPLY_MAX)

/* Feeds p[0..n) in pieces of step bytes; what goes out into out (room for n + ROOM + VD_RESP_REPLY_MAX). */
static size_t run(const uint8_t *p, size_t n, size_t step, uint8_t *out, size_t cap)
{
	struct vd_resp_stream s = { 0 };
	struct uie_wbuf w;
	struct uie_rbuf in;
	size_t taken = 0, avail = 0;

	uie_wbuf_init(&w, out, cap);
	while (avail < n) {
		avail = n - avail < step ? n : avail + step;
		uie_rbuf_init(&in, p + taken, avail - taken);
		vd_resp_feed(&s, &in, &w);
		taken += in.off;
	}
	if (w.err != UIE_OK || w.len > n + VD_RESP_REPLY_MAX || (s.state == VD_RESP_DONE && taken != n))
		abort();
	return w.len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cap, n1, n2, n3, step;
	uint8_t *a, *b, *c;

	if (size < 1)
		return 0;
	step = (size_t)data[0] * 17 + 1;
	data++;
	size--;
	cap = size + ROOM + VD_RESP_REPLY_MAX;
	a = malloc(cap);
	b = malloc(cap);
	c = malloc(cap + VD_RESP_REPLY_MAX);
	if (!a || !b || !c)
		abort();
	n1 = run(data, size, size ? size : 1, a, cap);
	n2 = run(data, size, step, b, cap);
	if (n1 != n2 || memcmp(a, b, n1) != 0)
		abort(); /* the split changed what went out */
	n3 = run(a, n1, size ? size : 1, c, cap + VD_RESP_REPLY_MAX);
	if (n3 != n1 || memcmp(a, c, n1) != 0)
		abort(); /* what went out would be read differently */
	free(a);
	free(b);
	free(c);
	return 0;
}
