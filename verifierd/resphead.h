/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The responses uie-verifierd's relay (relay.h) passes from libmicrohttpd
 * to a client, read as a stream: each head whole, each body framed by its
 * Content-Length.  A response that is not JSON and has a body or an error
 * status is the library's own (it rejected the request's head before our
 * handler ran): it is replaced with the documented JSON error of the same
 * status (docs/VERIFIER.md 5), and nothing after it goes out: the relay
 * closes the connection.  Pure: no I/O.
 */
#ifndef UIE_VERIFIERD_RESPHEAD_H
#define UIE_VERIFIERD_RESPHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uie/buf.h"

#define VD_RESP_HEAD_MAX 4096u /* a response head with its CRLFCRLF; ours are far smaller */
#define VD_RESP_REPLY_MAX 512u /* a replacement, head and body */

struct vd_resp_head {
	unsigned status;
	bool json;       /* Content-Type: application/json */
	bool close;      /* Connection: close */
	bool framed;     /* a Content-Length and no Transfer-Encoding */
	uint64_t length; /* the Content-Length, when framed */
};

/*
 * Parses the response head in p (len bytes, its CRLFCRLF included).
 * Return: UIE_OK, or UIE_E_FORMAT when it is no response head (h->status
 * is the status line's when that parsed, else 0).
 */
int vd_resp_head_parse(const uint8_t *p, size_t len, struct vd_resp_head *h);

/*
 * Appends the JSON error that replaces the library's answer of status to w
 * (at most VD_RESP_REPLY_MAX bytes): the same status when it is an error
 * (4xx, 5xx), else 500; Content-Type application/json, Content-Length,
 * Connection: close.
 */
void vd_resp_replacement(unsigned status, struct uie_wbuf *w);

enum vd_resp_state {
	VD_RESP_HEAD, /* the next bytes are a response head */
	VD_RESP_BODY, /* left bytes of a body */
	VD_RESP_PASS, /* after a Connection: close (or a body not framed): the rest as it comes */
	VD_RESP_DONE  /* a reply was replaced: nothing more goes out */
};

struct vd_resp_stream {
	enum vd_resp_state state; /* zero: VD_RESP_HEAD, the start of a connection */
	uint64_t left;
};

/*
 * Moves what of in may go to the client into out: a head once it is whole
 * (within VD_RESP_HEAD_MAX bytes; a longer one is replaced with a 500) and
 * out has VD_RESP_HEAD_MAX + VD_RESP_REPLY_MAX bytes of room, body bytes as
 * they come and fit.  Consumes from in what it moved or dropped; leaves an
 * unfinished head and what out has no room for.
 */
void vd_resp_feed(struct vd_resp_stream *s, struct uie_rbuf *in, struct uie_wbuf *out);

#endif
