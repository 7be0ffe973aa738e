/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bridge over a byte stream (docs/BRIDGE.md sections 11 and 12): frame
 * header codec, frame splitting, send/receive over a stream socket with the
 * payload turned back into a sealed memfd, malformed frames ending the
 * stream, the MEASURE_VM_REQ message and the documents' vectors.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "fdpass.h"
#include "stream.h"
#include "tcommon.h"
#include "uie/buf.h"
#include "uie/err.h"
#include "wire.h"

static const char *vec_status_frame = "5549454610000000000000005549454201000a001000000001000000";
static const char *vec_measure_vm_req =
	"5549454201001400380000004433221101000100921000000000400000000000012000000000000000000000"
	"000000000120000000000000";
static const char *vec_measure_vm_frame =
	"5549454638000000180000005549454201001400380000004433221101000100921000000000400000000000"
	"012000000000000000000000000000000120000000000000004023010000000000500000000000000000f03f"
	"00000000";

static const char *vec_mprotect_vm_req =
	"5549454201001400380000004433221103000300921000000010400000000000002000000000000000100000"
	"000000000120000000000000";
static const char *vec_mprotect_vm_frame =
	"5549454638000000280000005549454201001400380000004433221103000300921000000010400000000000"
	"002000000000000000100000000000000120000000000000004023010000000000500000000000000000f03f"
	"0000000000a0070000000000ffffffffffffffff";
static const char *vec_violation_vm_req = "55494542010018002000000044332211f7100000010000000120000000000000";
static const char *vec_violation_vm_frame =
	"55494546200000001800000055494542010018002000000044332211f71000000100000001200000000000000040"
	"23010000000000500000000000000000f03f00000000";

static struct uie_wire_msg vm_req(void)
{
	struct uie_wire_msg m = { .type = UIE_MSG_MEASURE_VM_REQ, .request_id = 0x11223344 };

	m.u.measure_vm_req.r = (struct uie_msg_measure_req){ .event = UIE_EV_EXECVE,
							     .role = UIE_ROLE_MAIN,
							     .pid = 4242,
							     .vaddr = 0x400000,
							     .length = 0x2001 };
	m.u.measure_vm_req.object_size = 0x2001;
	return m;
}

static void test_hdr(void **state)
{
	struct uie_stream_hdr h = { 16, 0 }, back;
	uint8_t b[UIE_STREAM_HDR_LEN], want[64];

	(void)state;
	assert_int_equal(uie_stream_hdr_encode(&h, b), UIE_OK);
	tc_hex(vec_status_frame, want, sizeof(want));
	assert_memory_equal(b, want, sizeof(b));
	assert_int_equal(uie_stream_hdr_decode(b, &back), UIE_OK);
	assert_int_equal(back.msg_len, 16);
	assert_int_equal(back.payload_len, 0);
	/* lengths out of range, both ways */
	h.msg_len = 15;
	assert_int_equal(uie_stream_hdr_encode(&h, b), UIE_E_INVAL);
	h = (struct uie_stream_hdr){ UIE_BRIDGE_MAX_MSG + 1, 0 };
	assert_int_equal(uie_stream_hdr_encode(&h, b), UIE_E_INVAL);
	h = (struct uie_stream_hdr){ 16, UIE_STREAM_MAX_PAYLOAD + 1 };
	assert_int_equal(uie_stream_hdr_encode(&h, b), UIE_E_INVAL);
	memcpy(b, want, sizeof(b));
	b[4] = 15;
	assert_int_equal(uie_stream_hdr_decode(b, &back), UIE_E_LIMIT);
	assert_int_equal(back.msg_len, 0);
	memcpy(b, want, sizeof(b));
	b[5] = 0x10; /* 4112 */
	assert_int_equal(uie_stream_hdr_decode(b, &back), UIE_E_LIMIT);
	memcpy(b, want, sizeof(b));
	b[11] = 0x04; /* payload 64 MiB + ... */
	b[8] = 1;
	assert_int_equal(uie_stream_hdr_decode(b, &back), UIE_E_LIMIT);
	memcpy(b, want, sizeof(b));
	b[3] = 0x42; /* a bridge header where a frame header belongs */
	assert_int_equal(uie_stream_hdr_decode(b, &back), UIE_E_FORMAT);
}

static void test_split(void **state)
{
	uint8_t f[256];
	size_t n = tc_hex(vec_measure_vm_frame, f, sizeof(f)), used;
	const uint8_t *msg, *payload;
	struct uie_stream_hdr h;
	struct uie_wire_msg m;

	(void)state;
	assert_int_equal(uie_stream_frame_split(f, n, &h, &msg, &payload, &used), UIE_OK);
	assert_int_equal(used, n);
	assert_int_equal(h.msg_len, 56);
	assert_int_equal(h.payload_len, 24);
	assert_int_equal(uie_bridge_decode(msg, h.msg_len, &m), UIE_OK);
	assert_int_equal(m.type, UIE_MSG_MEASURE_VM_REQ);
	assert_int_equal(uie_le64(payload + 16), 0x3ff00000);
	/* every proper prefix needs more bytes */
	for (size_t k = 0; k < n; k++)
		assert_int_equal(uie_stream_frame_split(f, k, &h, &msg, &payload, &used), UIE_E_TRUNCATED);
	assert_null(msg);
	assert_int_equal(used, 0);
}

/* want[0..wl) with width bytes at off replaced by v (little-endian) does not decode. */
static void refused_with(const uint8_t *want, size_t wl, size_t off, size_t width, uint64_t v)
{
	uint8_t buf[UIE_BRIDGE_MAX_MSG], le[8];
	struct uie_wire_msg back;

	uie_put_le64(le, v);
	memcpy(buf, want, wl);
	memcpy(buf + off, le, width);
	assert_int_equal(uie_bridge_decode(buf, wl, &back), UIE_E_FORMAT);
}

static void test_measure_vm_msg(void **state)
{
	struct uie_wire_msg m = vm_req(), back;
	uint8_t buf[UIE_BRIDGE_MAX_MSG], want[128];
	size_t len, wl = tc_hex(vec_measure_vm_req, want, sizeof(want));

	(void)state;
	assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_OK);
	assert_int_equal(len, wl);
	assert_memory_equal(buf, want, len);
	assert_int_equal(uie_bridge_decode(want, wl, &back), UIE_OK);
	assert_int_equal(back.u.measure_vm_req.object_size, 0x2001);
	assert_int_equal(uie_bridge_fd_rule(&back), UIE_FD_ONE);
	assert_int_equal(uie_bridge_vm_nframes(0x2001), 3);
	assert_int_equal(uie_bridge_vm_nframes(0x2000), 2);
	/* fileless: no frames, size 0 */
	m.u.measure_vm_req.r.flags = UIE_VM_FLAG_FILELESS;
	assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_E_INVAL);
	m.u.measure_vm_req.object_size = 0;
	assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_OK);
	assert_int_equal(uie_bridge_decode(buf, len, &back), UIE_OK);
	assert_int_equal(uie_bridge_fd_rule(&back), UIE_FD_NONE);
	/* hostile: size 0 with frames, unknown flag, role ANON, object over the frame cap */
	m = vm_req();
	m.u.measure_vm_req.object_size = 0;
	assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_E_INVAL);
	refused_with(want, wl, 19, 1, 0x02);
	refused_with(want, wl, 18, 1, UIE_ROLE_ANON);
	refused_with(want, wl, 48, 8, (uint64_t)UIE_VM_MAX_FRAMES * UIE_VM_FRAME + 1);
	assert_int_equal(uie_bridge_decode(want, wl - 1, &back), UIE_E_TRUNCATED);
}

/* MPROTECT_EXEC: the payload goes on with the range's pages; vaddr and file_offset page aligned. */
static void test_mprotect_vm_msg(void **state)
{
	struct uie_wire_msg m = vm_req(), back;
	uint8_t buf[UIE_BRIDGE_MAX_MSG], want[128], f[256];
	size_t len, wl = tc_hex(vec_mprotect_vm_req, want, sizeof(want)), fl, used;
	const uint8_t *msg, *payload;
	struct uie_stream_hdr h;

	(void)state;
	m.u.measure_vm_req.r = (struct uie_msg_measure_req){ .event = UIE_EV_MPROTECT_EXEC,
							     .role = UIE_ROLE_DSO,
							     .pid = 4242,
							     .vaddr = 0x401000,
							     .length = 0x2000,
							     .file_offset = 0x1000 };
	assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_OK);
	assert_int_equal(len, wl);
	assert_memory_equal(buf, want, len);
	assert_int_equal(uie_bridge_decode(want, wl, &back), UIE_OK);
	assert_int_equal(uie_bridge_vm_list_len(&back.u.measure_vm_req), 3 + 2);
	assert_int_equal(uie_bridge_fd_rule(&back), UIE_FD_ONE);
	fl = tc_hex(vec_mprotect_vm_frame, f, sizeof(f));
	assert_int_equal(uie_stream_frame_split(f, fl, &h, &msg, &payload, &used), UIE_OK);
	assert_int_equal(h.payload_len, 5 * 8);
	assert_memory_equal(msg, want, wl);
	assert_int_equal(uie_le64(payload + 24), 0x7a000);
	assert_int_equal(uie_le64(payload + 32), UIE_VM_PAGE_ABSENT);
	/* a length not a multiple of pages still names whole pages */
	m.u.measure_vm_req.r.length = 0x2001;
	assert_int_equal(uie_bridge_vm_list_len(&m.u.measure_vm_req), 3 + 3);
	/* vaddr or file_offset not page aligned, an empty range, a range over the cap */
	refused_with(want, wl, 24, 1, 0x10);
	refused_with(want, wl, 40, 1, 0x01);
	refused_with(want, wl, 32, 8, 0);
	uie_put_le64(buf + 32, (uint64_t)UIE_VM_MAX_FRAMES * UIE_VM_FRAME + 1);
	assert_int_equal(uie_bridge_decode(buf, wl, &back), UIE_E_FORMAT);
	/* other events take no range; fileless takes no payload at all */
	m = vm_req();
	assert_int_equal(uie_bridge_vm_list_len(&m.u.measure_vm_req), 3);
	m.u.measure_vm_req.r.flags = UIE_VM_FLAG_FILELESS;
	assert_int_equal(uie_bridge_vm_list_len(&m.u.measure_vm_req), 0);
}

/* VIOLATION_VM_REQ: the written file by its frames, or no frames (size 0). */
static void test_violation_vm_msg(void **state)
{
	struct uie_wire_msg m = { .type = UIE_MSG_VIOLATION_VM_REQ, .request_id = 0x11223344 }, back;
	uint8_t buf[UIE_BRIDGE_MAX_MSG], want[64], f[128];
	size_t len, wl = tc_hex(vec_violation_vm_req, want, sizeof(want)), fl, used;
	const uint8_t *msg, *payload;
	struct uie_stream_hdr h;

	(void)state;
	m.u.violation_vm_req = (struct uie_msg_violation_vm_req){ { 4343, UIE_VIOLATION_WRITE }, 0x2001 };
	assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_OK);
	assert_int_equal(len, wl);
	assert_memory_equal(buf, want, len);
	assert_int_equal(uie_bridge_decode(want, wl, &back), UIE_OK);
	assert_int_equal(back.u.violation_vm_req.object_size, 0x2001);
	assert_int_equal(back.u.violation_vm_req.v.pid, 4343);
	assert_int_equal(uie_bridge_fd_rule(&back), UIE_FD_ONE);
	fl = tc_hex(vec_violation_vm_frame, f, sizeof(f));
	assert_int_equal(uie_stream_frame_split(f, fl, &h, &msg, &payload, &used), UIE_OK);
	assert_int_equal(used, fl);
	assert_int_equal(h.payload_len, 3 * 8);
	assert_memory_equal(msg, want, wl);
	assert_int_equal(uie_le64(payload), 0x1234000);
	/* no frames: no descriptor */
	m.u.violation_vm_req.object_size = 0;
	assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_OK);
	assert_int_equal(uie_bridge_decode(buf, len, &back), UIE_OK);
	assert_int_equal(uie_bridge_fd_rule(&back), UIE_FD_NONE);
	/* an unknown kind, reserved bytes, a file over the frame cap */
	refused_with(want, wl, 20, 1, 0);
	refused_with(want, wl, 21, 1, 1);
	refused_with(want, wl, 24, 8, (uint64_t)UIE_VM_MAX_FRAMES * UIE_VM_FRAME + 1);
	assert_int_equal(uie_bridge_decode(want, wl - 1, &back), UIE_E_TRUNCATED);
}

/* A message with a payload crosses as bytes and comes out as a sealed memfd. */
static void test_send_recv(void **state)
{
	struct uie_wire_msg m = vm_req();
	uint8_t msg[UIE_BRIDGE_MAX_MSG], got[UIE_BRIDGE_MAX_MSG], frame[256], list[24], back[24];
	size_t len, glen, fl = tc_hex(vec_measure_vm_frame, frame, sizeof(frame));
	int sv[2], mfd, rfd;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memcpy(list, frame + UIE_STREAM_HDR_LEN + 56, sizeof(list));
	assert_int_equal(uie_bridge_encode(&m, msg, sizeof(msg), &len), UIE_OK);
	assert_int_equal(uie_memfd_create_sealed("t", list, sizeof(list), &mfd), UIE_OK);
	assert_int_equal(uie_stream_send(sv[0], msg, len, mfd), UIE_OK);
	close(mfd);
	/* the bytes on the stream are the documented frame */
	assert_int_equal(read(sv[1], got, fl), (ssize_t)fl);
	assert_memory_equal(got, frame, fl);
	assert_int_equal(write(sv[0], frame, fl), (ssize_t)fl);
	assert_int_equal(uie_stream_recv(sv[1], got, &glen, &rfd, 1000), UIE_OK);
	assert_int_equal(glen, len);
	assert_memory_equal(got, msg, len);
	assert_true(rfd >= 0);
	assert_int_equal(uie_memfd_check(rfd, sizeof(list)), UIE_OK);
	assert_int_equal(pread(rfd, back, sizeof(back), 0), (ssize_t)sizeof(back));
	assert_memory_equal(back, list, sizeof(list));
	close(rfd);
	/* no payload: no descriptor */
	assert_int_equal(uie_stream_send(sv[0], msg, len, -1), UIE_OK);
	assert_int_equal(uie_stream_recv(sv[1], got, &glen, &rfd, 1000), UIE_OK);
	assert_int_equal(rfd, -1);
	/* nothing to read within the timeout */
	assert_int_equal(uie_stream_recv(sv[1], got, &glen, &rfd, 10), UIE_E_PEER);
	/* a bad header ends the stream: the receiver reports it, reads no further */
	frame[0] ^= 0xff;
	assert_int_equal(write(sv[0], frame, fl), (ssize_t)fl);
	assert_int_equal(uie_stream_recv(sv[1], got, &glen, &rfd, 1000), UIE_E_FORMAT);
	assert_int_equal(glen, 0);
	assert_int_equal(rfd, -1);
	close(sv[0]);
	close(sv[1]);
	/* a frame cut short by the peer closing */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	frame[0] ^= 0xff;
	assert_int_equal(write(sv[0], frame, fl - 1), (ssize_t)(fl - 1));
	close(sv[0]);
	assert_int_equal(uie_stream_recv(sv[1], got, &glen, &rfd, 1000), UIE_E_PEER);
	assert_int_equal(rfd, -1);
	close(sv[1]);
}

/* The vectors printed in docs/BRIDGE.md sections 11 and 12, in order. */
static const char *doc_path;

static void test_doc_vectors(void **state)
{
	static const char *const *const want[] = { &vec_status_frame,      &vec_measure_vm_req,
						   &vec_measure_vm_frame,  &vec_mprotect_vm_req,
						   &vec_mprotect_vm_frame, &vec_violation_vm_req,
						   &vec_violation_vm_frame };

	(void)state;
	tc_doc_vectors(doc_path, "## 11. ", 1, want, sizeof(want) / sizeof(want[0]));
}

TC_MAIN_ARGS("BRIDGE.md", (&doc_path), NULL, NULL, cmocka_unit_test(test_hdr), cmocka_unit_test(test_split),
	     cmocka_unit_test(test_measure_vm_msg), cmocka_unit_test(test_mprotect_vm_msg),
	     cmocka_unit_test(test_violation_vm_msg), cmocka_unit_test(test_send_recv),
	     cmocka_unit_test(test_doc_vectors))
