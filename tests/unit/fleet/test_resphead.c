/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The relay's reading of libmicrohttpd's responses (verifierd/resphead.c):
 * the library's own refusals (as libmicrohttpd 0.9.75 sends them, the
 * duplicated status line included) replaced with the documented JSON of
 * the same status; our responses on a kept-alive connection passed
 * unchanged however they are split; a HEAD's answer with Connection: close
 * ends the parsing; heads too long, unfinished, or without room wait or are
 * replaced; every replacement reads back as one JSON error; the reply
 * printed in docs/VERIFIER.md section 5 is the one made here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "resphead.h"
#include "tcommon.h"
#include "uie/err.h"

#define CAP (VD_RESP_HEAD_MAX + VD_RESP_REPLY_MAX)

/* What libmicrohttpd 0.9.75 answered to a request with "Content-Length: abc". */
static const char mhd_400[] =
	"HTTP/1.1 400 Bad Request\r\nDate: Fri, 04 Dec 2026 09:26:47 GMT\r\nConnection: close\r\n"
	"Content-Length: 138\r\n\r\nHTTP/1.1 400 Bad Request\r\nDate: Fri, 04 Dec 2026 09:26:47 GMT\r\n"
	"Connection: close\r\nContent-Length: 138\r\n\r\n<html><head><title>Request malformed</title></head>"
	"<body>Your HTTP request has wrong value for <b>Content-Length</b> header.</body></html>";
static const char mhd_505[] =
	"HTTP/1.1 505 HTTP Version Not Supported\r\nDate: Fri, 04 Dec 2026 09:26:50 GMT\r\nConnection: "
	"close\r\n"
	"Content-Length: 133\r\n\r\n<html><head><title>Requested HTTP version is not supported</title></head>"
	"<body>Requested HTTP version is not supported.</body></html>";
static const char mhd_431[] = "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: "
			      "close\r\nContent-Length: 5\r\n\r\n<html>";

/* Ours, kept alive: a 100 Continue, a JSON answer, a 204, another. */
static const char ours[] =
	"HTTP/1.1 100 Continue\r\n\r\n"
	"HTTP/1.1 400 Bad Request\r\nDate: x\r\nContent-Type: application/json\r\n"
	"Content-Length: 17\r\n\r\n{\"error\":\"x\",\"r\"}"
	"HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n"
	"HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}";

/* Feeds text in pieces of step bytes into out (drained into got) until all is taken or nothing moves. */
static size_t feed(struct vd_resp_stream *s, const char *text, size_t len, size_t step, uint8_t *got,
		   size_t cap)
{
	uint8_t mem[CAP];
	struct uie_wbuf out;
	struct uie_rbuf in;
	size_t have = 0, off = 0, ngot = 0;

	while (off < len || have) {
		size_t add = len - off < step ? len - off : step;

		uie_rbuf_init(&in, text + off - have, have + add);
		uie_wbuf_init(&out, mem, sizeof(mem));
		vd_resp_feed(s, &in, &out);
		assert_int_equal(out.err, UIE_OK);
		assert_true(ngot + out.len <= cap);
		memcpy(got + ngot, mem, out.len);
		ngot += out.len;
		have = have + add - in.off;
		off += add;
		if (!add && !in.off)
			break; /* an unfinished head */
	}
	return ngot;
}

/* got holds exactly one JSON error reply of status; its code. */
static const char *one_error(const uint8_t *got, size_t n, unsigned status)
{
	static char code[64];
	const uint8_t *end = memmem(got, n, "\r\n\r\n", 4);
	struct vd_resp_head h;
	json_t *j;
	size_t hn;

	assert_non_null(end);
	hn = (size_t)(end - got) + 4;
	assert_int_equal(vd_resp_head_parse(got, hn, &h), UIE_OK);
	assert_int_equal(h.status, status);
	assert_true(h.json && h.close && h.framed);
	assert_int_equal(h.length, n - hn);
	j = json_loadb((const char *)got + hn, n - hn, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_string(json_object_get(j, "reason")));
	assert_true(json_is_string(json_object_get(j, "error")));
	snprintf(code, sizeof(code), "%s", json_string_value(json_object_get(j, "error")));
	assert_int_equal(json_object_size(j), 2);
	json_decref(j);
	return code;
}

static void test_refusals_replaced(void **state)
{
	static const struct {
		const char *text;
		unsigned status;
		const char *code;
	} cases[] = { { mhd_400, 400, "bad_request" },
		      { mhd_505, 505, "http_version" },
		      { mhd_431, 431, "head_too_large" } };
	uint8_t got[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (size_t step = 1; step <= 4096; step *= 8) {
			struct vd_resp_stream s = { 0 };
			size_t n = feed(&s, cases[i].text, strlen(cases[i].text), step, got, sizeof(got));

			assert_int_equal(s.state, VD_RESP_DONE);
			assert_string_equal(one_error(got, n, cases[i].status), cases[i].code);
		}
}

static void test_ours_passed(void **state)
{
	uint8_t got[4096];

	(void)state;
	for (size_t step = 1; step <= sizeof(ours); step++) {
		struct vd_resp_stream s = { 0 };
		size_t n = feed(&s, ours, strlen(ours), step, got, sizeof(got));

		assert_int_equal(n, strlen(ours));
		assert_memory_equal(got, ours, n);
		assert_int_equal(s.state, VD_RESP_HEAD);
	}
}

/* Our answer to a HEAD announces 65 bytes it does not carry; with Connection: close what follows passes. */
static void test_head_answer_ends_parsing(void **state)
{
	static const char text[] = "HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\n"
				   "Content-Type: application/json\r\nContent-Length: 65\r\n\r\n"
				   "HTTP/1.1 400 Bad Request\r\nContent-Length: 3\r\n\r\nabc";
	struct vd_resp_stream s = { 0 };
	uint8_t got[512];
	size_t n;

	(void)state;
	n = feed(&s, text, strlen(text), 7, got, sizeof(got));
	assert_int_equal(s.state, VD_RESP_PASS);
	assert_int_equal(n, strlen(text));
	assert_memory_equal(got, text, n);
}

static void test_heads_waiting_or_too_long(void **state)
{
	static char longhead[VD_RESP_HEAD_MAX + 64];
	static const char part[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n";
	struct vd_resp_stream s = { 0 };
	uint8_t got[1024], small[CAP - 1];
	struct uie_wbuf out;
	struct uie_rbuf in;
	size_t n;

	(void)state;
	/* Unfinished: nothing taken, nothing sent. */
	assert_int_equal(feed(&s, part, strlen(part), 4096, got, sizeof(got)), 0);
	assert_int_equal(s.state, VD_RESP_HEAD);
	/* Whole, but out has not the room a head may need: it waits. */
	uie_rbuf_init(&in, ours, strlen(ours));
	uie_wbuf_init(&out, small, sizeof(small));
	vd_resp_feed(&s, &in, &out);
	assert_int_equal(in.off, 0);
	assert_int_equal(out.len, 0);
	/* No end within VD_RESP_HEAD_MAX bytes: a 500. */
	memcpy(longhead, "HTTP/1.1 200 OK\r\nX: ", 20);
	memset(longhead + 20, 'a', sizeof(longhead) - 20);
	n = feed(&s, longhead, sizeof(longhead), 4096, got, sizeof(got));
	assert_int_equal(s.state, VD_RESP_DONE);
	assert_string_equal(one_error(got, n, 500), "internal");
}

static void test_parse(void **state)
{
	static const struct {
		const char *head;
		int r;
		bool json, close, framed;
		uint64_t length;
	} cases[] = {
		{ "HTTP/1.1 200 OK\r\nCONTENT-TYPE: Application/JSON\r\ncontent-length:  12 \r\n\r\n", UIE_OK,
		  true, false, true, 12 },
		{ "HTTP/1.0 200\r\nConnection: keep-alive, Close\r\n\r\n", UIE_OK, false, true, false, 0 },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", UIE_OK, false,
		  false, false, 5 },
		{ "HTTP/1.1 200 OK\r\nContent-Type: application/jsonx\r\n\r\n", UIE_OK, false, false, false,
		  0 },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", UIE_E_FORMAT, false,
		  false, false, 0 },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\n", UIE_E_FORMAT, false, false, false, 0 },
		{ "HTTP/1.1 200 OK\r\nHTTP/1.1 200 OK\r\n\r\n", UIE_E_FORMAT, false, false, false, 0 },
		{ "HTTP/1.1 200 OK\r\n: x\r\n\r\n", UIE_E_FORMAT, false, false, false, 0 },
		{ "HTTP/2 200 OK\r\n\r\n", UIE_E_FORMAT, false, false, false, 0 },
		{ "HTTP/1.1 20x OK\r\n\r\n", UIE_E_FORMAT, false, false, false, 0 },
		{ "HTTP/1.1 099 OK\r\n\r\n", UIE_E_FORMAT, false, false, false, 0 },
		{ "HTTP/1.1 200 OK\r\n\r\nx", UIE_E_FORMAT, false, false, false, 0 },
	};
	struct vd_resp_head h;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(
			vd_resp_head_parse((const uint8_t *)cases[i].head, strlen(cases[i].head), &h),
			cases[i].r);
		if (cases[i].r != UIE_OK)
			continue;
		assert_int_equal(h.json, cases[i].json);
		assert_int_equal(h.close, cases[i].close);
		assert_int_equal(h.framed, cases[i].framed);
		if (h.framed)
			assert_int_equal(h.length, cases[i].length);
	}
}

/* Every status's replacement reads back as one JSON error of that status (500 for what is no error). */
static void test_every_replacement(void **state)
{
	uint8_t mem[VD_RESP_REPLY_MAX];
	struct uie_wbuf w;

	(void)state;
	for (unsigned st = 0; st < 1000; st++) {
		uie_wbuf_init(&w, mem, sizeof(mem));
		vd_resp_replacement(st, &w);
		assert_int_equal(w.err, UIE_OK);
		one_error(mem, w.len, st >= 400 && st <= 599 ? st : 500);
	}
}

/* docs/VERIFIER.md section 5 prints the reply to an HTTP/9.9 request (its CRLFs as line ends). */
static const char *doc_path;

static void test_doc_vector(void **state)
{
	static char text[VD_RESP_REPLY_MAX + 1];
	static const char *const vec = text;
	static const char *const *const want[] = { &vec };
	uint8_t mem[VD_RESP_REPLY_MAX];
	struct uie_wbuf w;
	size_t n = 0;

	(void)state;
	uie_wbuf_init(&w, mem, sizeof(mem));
	vd_resp_replacement(505, &w);
	for (size_t i = 0; i < w.len; i++)
		if (mem[i] != '\r' && mem[i] != '\n')
			text[n++] = (char)mem[i];
	text[n] = '\0';
	tc_doc_vectors(doc_path, "## 5. Errors", 0, want, 1);
}

TC_MAIN_ARGS("docs/VERIFIER.md", (&doc_path), NULL, NULL, cmocka_unit_test(test_refusals_replaced),
	     cmocka_unit_test(test_ours_passed), cmocka_unit_test(test_head_answer_ends_parsing),
	     cmocka_unit_test(test_heads_waiting_or_too_long), cmocka_unit_test(test_parse),
	     cmocka_unit_test(test_every_replacement), cmocka_unit_test(test_doc_vector))
