/* SPDX-License-Identifier: Apache-2.0 */
#include "resphead.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

/* The replies of the library's refusals (docs/VERIFIER.md 5): what the status says was wrong. */
static const struct {
	unsigned status;
	const char *phrase, *code, *reason;
} refusals[] = {
	{ 400, "Bad Request", "bad_request",
	  "the request's head is malformed: its request line, a header line, Content-Length, "
	  "Transfer-Encoding or the chunk framing of its body" },
	{ 413, "Content Too Large", "too_large",
	  "the request or a chunk of its body is larger than accepted" },
	{ 414, "URI Too Long", "head_too_large", "the request line is longer than the verifier's buffer" },
	{ 431, "Request Header Fields Too Large", "head_too_large",
	  "the request's head is larger than the verifier's buffer" },
	{ 501, "Not Implemented", "not_implemented", "a Transfer-Encoding other than chunked" },
	{ 505, "HTTP Version Not Supported", "http_version",
	  "the HTTP version is not supported: use HTTP/1.1" },
	{ 500, "Internal Server Error", "internal",
	  "the verifier's HTTP library failed (memory) or answered in a form that cannot be read" },
};

/* The next line of b (without its CRLF) in *l, *n; false when none is left. */
static bool take_line(struct uie_rbuf *b, const uint8_t **l, size_t *n)
{
	const uint8_t *p = uie_rbuf_cur(b), *e = memmem(p, uie_rbuf_left(b), "\r\n", 2);

	if (!e)
		return false;
	*n = (size_t)(e - p);
	return uie_rbuf_view(b, l, *n) == UIE_OK && uie_rbuf_skip(b, 2) == UIE_OK;
}

static bool is(const uint8_t *p, size_t n, const char *word)
{
	return n == strlen(word) && strncasecmp((const char *)p, word, n) == 0;
}

/* "HTTP/1.x DDD" and an optional " reason". */
static bool status_line(const uint8_t *l, size_t n, unsigned *status)
{
	if (n < 12 || (memcmp(l, "HTTP/1.1 ", 9) != 0 && memcmp(l, "HTTP/1.0 ", 9) != 0) ||
	    (n > 12 && l[12] != ' '))
		return false;
	*status = 0;
	for (size_t i = 9; i < 12; i++) {
		if (l[i] < '0' || l[i] > '9')
			return false;
		*status = *status * 10 + (unsigned)(l[i] - '0');
	}
	return *status >= 100;
}

static bool length_value(const uint8_t *v, size_t n, uint64_t *len)
{
	if (n == 0 || n > 18)
		return false;
	*len = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		*len = *len * 10 + (uint64_t)(v[i] - '0');
	}
	return true;
}

/* Whether the comma-separated list v (n bytes) has the token "close". */
static bool has_close(const uint8_t *v, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t s, e;

		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		for (s = i; i < n && v[i] != ','; i++)
			;
		for (e = i; e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'); e--)
			;
		if (is(v + s, e - s, "close"))
			return true;
	}
	return false;
}

/* One header line into h; false when it is none or contradicts an earlier one. */
static bool header(const uint8_t *l, size_t n, struct vd_resp_head *h, bool *te)
{
	const uint8_t *colon = memchr(l, ':', n), *v;
	size_t name, vn;
	uint64_t len;

	if (!colon || colon == l)
		return false;
	name = (size_t)(colon - l);
	for (size_t i = 0; i < name; i++)
		if (l[i] <= ' ' || l[i] >= 0x7f)
			return false;
	v = colon + 1;
	vn = n - name - 1;
	while (vn && (*v == ' ' || *v == '\t'))
		v++, vn--;
	while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
		vn--;
	if (is(l, name, "Content-Length")) {
		if (!length_value(v, vn, &len) || (h->framed && len != h->length))
			return false;
		h->framed = true;
		h->length = len;
	} else if (is(l, name, "Content-Type")) {
		h->json = vn >= 16 && strncasecmp((const char *)v, "application/json", 16) == 0 &&
			  (vn == 16 || v[16] == ';' || v[16] == ' ');
	} else if (is(l, name, "Connection")) {
		h->close = h->close || has_close(v, vn);
	} else if (is(l, name, "Transfer-Encoding")) {
		*te = true;
	}
	return true;
}

int vd_resp_head_parse(const uint8_t *p, size_t len, struct vd_resp_head *h)
{
	struct uie_rbuf b;
	const uint8_t *l;
	bool te = false;
	size_t n;

	memset(h, 0, sizeof(*h));
	uie_rbuf_init(&b, p, len);
	if (!take_line(&b, &l, &n) || !status_line(l, n, &h->status))
		return UIE_E_FORMAT;
	while (take_line(&b, &l, &n) && n)
		if (!header(l, n, h, &te))
			return UIE_E_FORMAT;
	if (n || uie_rbuf_end(&b) != UIE_OK)
		return UIE_E_FORMAT;
	h->framed = h->framed && !te;
	return UIE_OK;
}

void vd_resp_replacement(unsigned status, struct uie_wbuf *w)
{
	size_t i = 0, nref = sizeof(refusals) / sizeof(refusals[0]);
	char head[256], body[384];
	json_t *j;
	size_t bn = 0;
	int hn;

	if (status < 400 || status > 599)
		status = 500;
	while (i < nref && refusals[i].status != status)
		i++;
	if (i == nref) /* another refusal: the class's */
		for (i = 0; refusals[i].status != (status < 500 ? 400u : 500u); i++)
			;
	j = json_pack("{s:s, s:s}", "error", refusals[i].code, "reason", refusals[i].reason);
	if (j)
		bn = json_dumpb(j, body, sizeof(body), JSON_COMPACT);
	json_decref(j);
	if (!bn || bn > sizeof(body)) {
		bn = 0; /* no memory for the JSON: a 500 without a body */
		status = 500;
	}
	hn = snprintf(head, sizeof(head),
		      "HTTP/1.1 %u %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
		      "Connection: close\r\n\r\n",
		      status, status == refusals[i].status ? refusals[i].phrase : "Error", bn);
	uie_wbuf_bytes(w, head, (size_t)hn);
	uie_wbuf_bytes(w, body, bn);
}

/* A whole head at the front of in (n bytes), into out as it is or replaced. */
static void head(struct vd_resp_stream *s, struct uie_rbuf *in, size_t n, struct uie_wbuf *out)
{
	struct vd_resp_head h;
	const uint8_t *p;
	bool body;
	int r;

	uie_rbuf_view(in, &p, n);
	r = vd_resp_head_parse(p, n, &h);
	body = h.status >= 200 && h.status != 204 && h.status != 304;
	if (r != UIE_OK || (!h.json && (h.status >= 400 || (body && (!h.framed || h.length))))) {
		vd_resp_replacement(h.status, out);
		s->state = VD_RESP_DONE;
		return;
	}
	uie_wbuf_bytes(out, p, n);
	if (h.close || (body && !h.framed))
		s->state = VD_RESP_PASS;
	else if (body && h.length)
		*s = (struct vd_resp_stream){ .state = VD_RESP_BODY, .left = h.length };
}

void vd_resp_feed(struct vd_resp_stream *s, struct uie_rbuf *in, struct uie_wbuf *out)
{
	for (;;) {
		size_t left = uie_rbuf_left(in), room = out->cap - out->len, n = left < room ? left : room;
		const uint8_t *p = uie_rbuf_cur(in), *end;

		switch (s->state) {
		case VD_RESP_DONE: uie_rbuf_skip(in, left); return;
		case VD_RESP_PASS: break;
		case VD_RESP_BODY:
			if (n > s->left)
				n = (size_t)s->left;
			s->left -= n;
			if (!s->left)
				s->state = VD_RESP_HEAD;
			break;
		case VD_RESP_HEAD:
			if (room < VD_RESP_HEAD_MAX + VD_RESP_REPLY_MAX || !left)
				return;
			end = memmem(p, left < VD_RESP_HEAD_MAX ? left : VD_RESP_HEAD_MAX, "\r\n\r\n", 4);
			if (end) {
				head(s, in, (size_t)(end - p) + 4, out);
				continue;
			}
			if (left < VD_RESP_HEAD_MAX)
				return; /* the rest of the head is to come */
			vd_resp_replacement(500, out);
			s->state = VD_RESP_DONE;
			continue;
		}
		if (!n)
			return;
		uie_wbuf_bytes(out, p, n);
		uie_rbuf_skip(in, n);
	}
}
