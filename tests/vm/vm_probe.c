/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Hostile guest root on the VM-mode channel (vm/test-vm-mode): opens the
 * virtio-serial port itself and sends what the relay never would.  Prints
 * one line per check and exits 0 only when every refusal happened and the
 * monitor's record count did not move:
 *   - MEASURE_VM_REQ naming frames past guest RAM, in the legacy hole, not
 *     page aligned: refused (-7 RANGE), nothing logged;
 *   - MEASURE_REQ carrying bytes as its "descriptor" (the content the guest
 *     chose): refused (-17 STATE), nothing logged;
 *   - a frame that does not parse: the monitor ends the connection; once
 *     QEMU reconnects the monitor answers again, with nothing logged.
 * usage: vm_probe PORT RAM_MIB
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdpass.h"
#include "stream.h"
#include "uie/bridge.h"
#include "uie/err.h"
#include "wire.h"

static int failures;

static void check(const char *what, int got, int want)
{
	printf("vm_probe: %-52s %s (%s)\n", what, got == want ? "ok" : "FAILED", uie_err_str(got));
	if (got != want)
		failures++;
}

static int status(int port, uint64_t *n)
{
	struct uie_status st;
	int r = uie_bridge_status(port, &st);

	*n = st.nrecords;
	return r;
}

static int measure_frames(int port, uint64_t frame)
{
	struct uie_req req = { .event = UIE_EV_EXECVE, .role = UIE_ROLE_MAIN, .pid = 1 };
	uint64_t frames[2] = { 0x200000, frame };
	struct uie_verdict v;

	return uie_bridge_measure_vm(port, &req, 0, 2 * UIE_VM_FRAME, frames, 2, &v);
}

/* MEASURE_REQ with a payload: on the stream, the guest's own bytes in place of a file. */
static int measure_with_bytes(int port)
{
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_REQ, .request_id = 0x7000 }, a;
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t len, alen;
	int mfd, afd, r;

	q.u.measure_req = (struct uie_msg_measure_req){ .event = UIE_EV_EXECVE, .role = UIE_ROLE_MAIN };
	if ((r = uie_bridge_encode(&q, msg, sizeof(msg), &len)) != UIE_OK ||
	    (r = uie_memfd_create_sealed("probe", "\x7f" "ELF-chosen-by-guest", 20, &mfd)) != UIE_OK)
		return r;
	r = uie_stream_send(port, msg, len, mfd);
	close(mfd);
	if (r == UIE_OK)
		r = uie_stream_recv(port, ans, &alen, &afd, 10000);
	if (r == UIE_OK)
		r = uie_bridge_decode(ans, alen, &a);
	return r == UIE_OK ? a.status : r;
}

int main(int argc, char **argv)
{
	uint64_t n0 = 0, n = 0, ram;
	int port, r;

	if (argc != 3) {
		fprintf(stderr, "usage: vm_probe PORT RAM_MIB\n");
		return 2;
	}
	ram = strtoull(argv[2], NULL, 10) << 20;
	if ((r = uie_bridge_connect(argv[1], &port)) != UIE_OK) {
		fprintf(stderr, "vm_probe: %s: %s\n", argv[1], uie_err_str(r));
		return 2;
	}
	check("status before", status(port, &n0), UIE_OK);
	check("frame at the end of guest RAM", measure_frames(port, ram), UIE_E_RANGE);
	check("frame far past guest RAM", measure_frames(port, 1ull << 40), UIE_E_RANGE);
	check("frame in the legacy VGA/BIOS hole", measure_frames(port, 0xC0000), UIE_E_RANGE);
	check("frame not page aligned", measure_frames(port, 0x300010), UIE_E_RANGE);
	check("MEASURE_REQ with guest-chosen bytes", measure_with_bytes(port), UIE_E_STATE);
	check("status after", status(port, &n), UIE_OK);
	check("nothing logged by the refused requests", n == n0 ? UIE_OK : UIE_E_STATE, UIE_OK);
	/* A frame that does not parse: the monitor drops the connection; QEMU reconnects. */
	if (write(port, "this is not a frame at all", 26) != 26)
		failures++;
	r = UIE_E_PEER;
	for (int i = 0; i < 6 && r != UIE_OK; i++) { /* each try waits up to 10 s for its answer */
		sleep(1);
		r = status(port, &n);
	}
	check("monitor answers again after a malformed frame", r, UIE_OK);
	check("the malformed frame logged nothing", n == n0 ? UIE_OK : UIE_E_STATE, UIE_OK);
	close(port);
	printf("vm_probe: %s\n", failures ? "FAILED" : "all refusals as expected");
	return failures ? 1 : 0;
}
