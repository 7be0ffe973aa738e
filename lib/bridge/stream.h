/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bridge over a byte stream (a virtio-serial port in the guest, the
 * host end of its QEMU chardev socket): docs/BRIDGE.md section 11.  Every
 * bridge message travels in one frame, followed by the bytes a descriptor
 * would have carried on SOCK_SEQPACKET (the payload), so that no
 * descriptor crosses.  A frame that does not parse cannot be skipped (a
 * byte stream has no boundary to resynchronise on): the receiver ends the
 * connection.
 */
#ifndef UIE_BRIDGE_STREAM_H
#define UIE_BRIDGE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#define UIE_STREAM_MAGIC 0x46454955u /* "UIEF" little-endian */
#define UIE_STREAM_HDR_LEN 12
/* Largest payload: a policy package (UIE_PACKAGE_MAX_LEN), an AE, a frame list. */
#define UIE_STREAM_MAX_PAYLOAD (64u << 20)
/* Once a frame has begun, the rest of it must arrive within this time. */
#define UIE_STREAM_FRAME_MS 10000

struct uie_stream_hdr {
	uint32_t msg_len;     /* bridge message bytes: 16 .. UIE_BRIDGE_MAX_MSG */
	uint32_t payload_len; /* 0 .. UIE_STREAM_MAX_PAYLOAD; 0 = no descriptor */
};

/*
 * Encodes a frame header.
 * Return: UIE_OK, UIE_E_INVAL (a length out of range).
 */
int uie_stream_hdr_encode(const struct uie_stream_hdr *h, uint8_t out[UIE_STREAM_HDR_LEN]);

/*
 * Decodes a frame header; *h is zero unless UIE_OK.
 * Return: UIE_OK, UIE_E_FORMAT (magic), UIE_E_LIMIT (a length out of range).
 */
int uie_stream_hdr_decode(const uint8_t in[UIE_STREAM_HDR_LEN], struct uie_stream_hdr *h);

/*
 * Splits the first whole frame off p (n bytes): *msg and *payload point
 * into p, *used is the frame's size.
 * Return: UIE_OK, UIE_E_TRUNCATED (more bytes needed), or the header's error.
 */
int uie_stream_frame_split(const uint8_t *p, size_t n, struct uie_stream_hdr *h, const uint8_t **msg,
			   const uint8_t **payload, size_t *used);

/*
 * Sends one message as a frame; the payload is the content of payload_fd
 * (a sealed memfd, borrowed; -1 for none), read here so that no descriptor
 * crosses.  Return: UIE_OK, UIE_E_INVAL, UIE_E_LIMIT, UIE_E_IO, UIE_E_PEER.
 */
int uie_stream_send(int fd, const uint8_t *msg, size_t len, int payload_fd);

/*
 * Receives one frame: the message into buf (UIE_BRIDGE_MAX_MSG bytes), the
 * payload into a new sealed memfd *payload_fd (owned by the caller, -1 when
 * the frame has none), as uie_bridge_recv hands them over on
 * SOCK_SEQPACKET.  Waits at most timeout_ms (-1: forever) for the first
 * byte, then UIE_STREAM_FRAME_MS for the rest.
 * Return: UIE_OK; UIE_E_PEER (closed, timed out); UIE_E_FORMAT or
 * UIE_E_LIMIT (a bad header: the stream is lost, end the connection);
 * UIE_E_NOMEM, UIE_E_SYS.
 */
int uie_stream_recv(int fd, uint8_t *buf, size_t *len, int *payload_fd, int timeout_ms);

#endif
