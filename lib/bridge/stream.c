/* SPDX-License-Identifier: Apache-2.0 */
/* Bridge framing over a byte stream; the format is docs/BRIDGE.md section 11. */
#include "stream.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "uie/bridge.h"
#include "uie/buf.h"
#include "uie/err.h"
#include "uie/sys.h"

static bool lens_ok(const struct uie_stream_hdr *h)
{
	return h->msg_len >= 16 && h->msg_len <= UIE_BRIDGE_MAX_MSG &&
	       h->payload_len <= UIE_STREAM_MAX_PAYLOAD;
}

int uie_stream_hdr_encode(const struct uie_stream_hdr *h, uint8_t out[UIE_STREAM_HDR_LEN])
{
	struct uie_wbuf w;

	if (!lens_ok(h))
		return UIE_E_INVAL;
	uie_wbuf_init(&w, out, UIE_STREAM_HDR_LEN);
	uie_wbuf_u32(&w, UIE_STREAM_MAGIC);
	uie_wbuf_u32(&w, h->msg_len);
	uie_wbuf_u32(&w, h->payload_len);
	return w.err;
}

int uie_stream_hdr_decode(const uint8_t in[UIE_STREAM_HDR_LEN], struct uie_stream_hdr *h)
{
	struct uie_rbuf r;
	uint32_t magic = 0;
	int e;

	h->msg_len = h->payload_len = 0;
	uie_rbuf_init(&r, in, UIE_STREAM_HDR_LEN);
	if ((e = uie_rbuf_u32(&r, &magic)) != UIE_OK || (e = uie_rbuf_u32(&r, &h->msg_len)) != UIE_OK ||
	    (e = uie_rbuf_u32(&r, &h->payload_len)) != UIE_OK)
		return e;
	e = magic != UIE_STREAM_MAGIC ? UIE_E_FORMAT : lens_ok(h) ? UIE_OK : UIE_E_LIMIT;
	if (e != UIE_OK)
		h->msg_len = h->payload_len = 0;
	return e;
}

int uie_stream_frame_split(const uint8_t *p, size_t n, struct uie_stream_hdr *h, const uint8_t **msg,
			   const uint8_t **payload, size_t *used)
{
	const uint8_t *hdr;
	struct uie_rbuf r;
	int e;

	*msg = *payload = NULL;
	*used = 0;
	h->msg_len = h->payload_len = 0;
	uie_rbuf_init(&r, p, n);
	if ((e = uie_rbuf_view(&r, &hdr, UIE_STREAM_HDR_LEN)) != UIE_OK ||
	    (e = uie_stream_hdr_decode(hdr, h)) != UIE_OK ||
	    (e = uie_rbuf_view(&r, msg, h->msg_len)) != UIE_OK ||
	    (e = uie_rbuf_view(&r, payload, h->payload_len)) != UIE_OK) {
		*msg = *payload = NULL;
		return e;
	}
	*used = r.off;
	return UIE_OK;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			if (poll(&pfd, 1, UIE_STREAM_FRAME_MS) <= 0)
				return UIE_E_PEER;
			continue;
		}
		if (w <= 0)
			return UIE_E_PEER;
		p += w;
		n -= (size_t)w;
	}
	return UIE_OK;
}

int uie_stream_send(int fd, const uint8_t *msg, size_t len, int payload_fd)
{
	struct uie_stream_hdr h = { .msg_len = (uint32_t)len };
	uint8_t hdr[UIE_STREAM_HDR_LEN], *payload = NULL;
	struct stat st;
	int r;

	if (len > UIE_BRIDGE_MAX_MSG)
		return UIE_E_INVAL;
	if (payload_fd >= 0) {
		if (fstat(payload_fd, &st) != 0)
			return UIE_E_IO;
		if (st.st_size <= 0 || (uint64_t)st.st_size > UIE_STREAM_MAX_PAYLOAD)
			return UIE_E_LIMIT;
		h.payload_len = (uint32_t)st.st_size;
		if ((r = uie_memfd_read_alloc(payload_fd, h.payload_len, UIE_STREAM_MAX_PAYLOAD, &payload)) !=
		    UIE_OK)
			return r;
	}
	if ((r = uie_stream_hdr_encode(&h, hdr)) == UIE_OK &&
	    (r = write_all(fd, hdr, sizeof(hdr))) == UIE_OK && (r = write_all(fd, msg, len)) == UIE_OK &&
	    payload)
		r = write_all(fd, payload, h.payload_len);
	free(payload);
	return r;
}

/* Reads exactly n bytes, giving up at deadline (ms, -1: never). */
static int read_all(int fd, uint8_t *p, size_t n, int64_t deadline)
{
	while (n > 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline < 0 ? -1 : deadline - (int64_t)uie_now_ms();
		ssize_t got;
		int pr;

		if (deadline >= 0 && left < 0)
			left = 0; /* past the deadline: take only what is there already */
		pr = poll(&pfd, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return UIE_E_SYS;
		if (pr == 0)
			return UIE_E_PEER;
		got = read(fd, p, n);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			return UIE_E_PEER;
		p += got;
		n -= (size_t)got;
	}
	return UIE_OK;
}

int uie_stream_recv(int fd, uint8_t *buf, size_t *len, int *payload_fd, int timeout_ms)
{
	uint8_t hdr[UIE_STREAM_HDR_LEN], *payload = NULL;
	struct uie_stream_hdr h;
	int64_t deadline;
	int r;

	*len = 0;
	*payload_fd = -1;
	if ((r = read_all(fd, hdr, 1, timeout_ms < 0 ? -1 : (int64_t)uie_now_ms() + timeout_ms)) != UIE_OK)
		return r;
	deadline = (int64_t)uie_now_ms() + UIE_STREAM_FRAME_MS;
	if ((r = read_all(fd, hdr + 1, sizeof(hdr) - 1, deadline)) != UIE_OK ||
	    (r = uie_stream_hdr_decode(hdr, &h)) != UIE_OK ||
	    (r = read_all(fd, buf, h.msg_len, deadline)) != UIE_OK)
		return r;
	if (h.payload_len > 0) {
		if (!(payload = malloc(h.payload_len)))
			return UIE_E_NOMEM;
		if ((r = read_all(fd, payload, h.payload_len, deadline)) == UIE_OK)
			r = uie_memfd_create_sealed("uie-payload", payload, h.payload_len, payload_fd);
		free(payload);
		if (r != UIE_OK)
			return r;
	}
	*len = h.msg_len;
	return UIE_OK;
}
