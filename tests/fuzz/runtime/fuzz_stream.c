/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the byte-stream framing of docs/BRIDGE.md section 11
 * and the VM-mode monitor behind it (section 12).  The input is a stream:
 * frames are split off it until one does not parse (where a receiver ends
 * the connection).  An accepted header must re-encode to the same bytes;
 * every accepted frame's message, with its payload as a sealed memfd as
 * uie_stream_recv hands it over, goes to a monitor in VM mode over a small
 * guest RAM file and must get exactly one answer that decodes.  The input
 * is also read as a frame list for MEASURE_VM_REQ (with a range list for
 * MPROTECT_EXEC) and for VIOLATION_VM_REQ.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdpass.h"
#include "vmram.h"
#include "monitor_serve.h"
#include "stream.h"
#include "uie/err.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RAM_LEN (2u << 20)

/*
 * The input as a list of up to 16 frames naming an object: for
 * MMAP_EXEC; for MPROTECT_EXEC with the input's last entries as the
 * range list (data[1] picks the range's pages and offset); and as the
 * frames of a written file (VIOLATION_VM_REQ).
 */
static void as_frame_list(struct uie_monitor *m, const uint8_t *data, size_t size)
{
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_VM_REQ };
	uint8_t msg[UIE_BRIDGE_MAX_MSG];
	size_t n = size / 8, len, range;
	int fd;

	if (n == 0 || n > 16)
		return;
	range = size > 1 ? 1 + data[1] % n : 1;
	for (int k = 0; k < 3; k++) {
		q = (struct uie_wire_msg){ .type = k == 2 ? UIE_MSG_VIOLATION_VM_REQ
							  : UIE_MSG_MEASURE_VM_REQ };
		if (k == 2) {
			q.u.violation_vm_req = (struct uie_msg_violation_vm_req){
				{ 7, UIE_VIOLATION_WRITE }, n * UIE_VM_FRAME - (data[0] & 0xff)
			};
		} else {
			q.u.measure_vm_req.r = (struct uie_msg_measure_req){
				.event = k ? UIE_EV_MPROTECT_EXEC : UIE_EV_MMAP_EXEC,
				.role = UIE_ROLE_DSO,
				.length = (k ? range : 1) * UIE_VM_FRAME,
				.file_offset = k && size > 2 ? (uint64_t)(data[2] % 4) * UIE_VM_FRAME : 0,
			};
			if (k && n == range)
				continue; /* no frame left for the object */
			q.u.measure_vm_req.object_size = (k ? n - range : n) * UIE_VM_FRAME -
							 (data[0] & 0xff);
		}
		if (uie_bridge_encode(&q, msg, sizeof(msg), &len) != UIE_OK ||
		    uie_memfd_create_sealed("frames", data, n * 8, &fd) != UIE_OK)
			abort();
		fuzz_monitor_serve(m, msg, len, fd);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct uie_host_platform hp;
	static struct uie_monitor m;
	static struct uie_vmram ram;
	static int ready;
	const uint8_t *p = data, *msg, *payload;
	size_t left = size, used;
	struct uie_stream_hdr h;

	if (!ready) {
		char path[] = "/tmp/uie-fuzz-ram-XXXXXX";
		int fd = mkstemp(path);
		uint8_t page[UIE_VM_FRAME];

		if (fd < 0)
			abort();
		fuzz_monitor_start(&hp, &m);
		/* RAM with a little structure: an ELF magic at the start of every page */
		memset(page, 0x90, sizeof(page));
		memcpy(page,
		       "\x7f"
		       "ELF\x02\x01\x01",
		       7);
		for (size_t off = 0; off < RAM_LEN; off += sizeof(page))
			if (pwrite(fd, page, sizeof(page), (off_t)off) != (ssize_t)sizeof(page))
				abort();
		if (uie_vmram_open(path, &ram) != UIE_OK)
			abort();
		close(fd);
		unlink(path);
		m.ram = &ram;
		ready = 1;
	}
	while (uie_stream_frame_split(p, left, &h, &msg, &payload, &used) == UIE_OK) {
		uint8_t again[UIE_STREAM_HDR_LEN];
		int fd = -1;

		if (uie_stream_hdr_encode(&h, again) != UIE_OK || memcmp(again, p, sizeof(again)) != 0)
			abort();
		if (h.payload_len > 0 &&
		    uie_memfd_create_sealed("payload", payload, h.payload_len, &fd) != UIE_OK)
			abort();
		fuzz_monitor_serve(&m, msg, h.msg_len, fd);
		p += used;
		left -= used;
	}
	as_frame_list(&m, data, size);
	return 0;
}
