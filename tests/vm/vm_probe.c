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
 *
 * With --tree it is guest root inside the supervised tree (uie-init as
 * PID 1, docs/THREAT-MODEL.md "VM mode"), trying to reach the channel:
 *   - SOCK_SEQPACKET works in the tree as udev uses it (a bound, listening
 *     socket and a connection to it; a socket pair), but no SOCK_SEQPACKET
 *     socket in the guest reaches the monitor: uie-init hands the
 *     interceptor its connection, so the relay listens on no bridge path
 *     (connecting to the default one fails: ENOENT);
 *   - the port itself while the relay holds it: EBUSY;
 *   - the relay's control socket: STATUS answers; a forged fast-path
 *     report, MEASURE_VM_REQ and CHECKPOINT_REQ are refused (-28 ACCESS)
 *     and the record count does not move;
 *   - after killing the relay (RELAY_PID): the port is still EBUSY
 *     (uie-init keeps it open), so nothing can be sent on it.
 * usage: vm_probe --tree PORT CONTROL RELAY_PID
 *
 * With --execmod it is the channel's far end as a hostile guest uses it,
 * run on the host after boot 2 (a policy in force, no guest running): it
 * connects to the monitor's VM socket and writes LIB's pages into unused
 * frames of the guest-RAM file.  MPROTECT_EXEC of LIB's code with the
 * range's pages absent, and present with the file's bytes: allowed; with
 * a page holding other bytes while the flags claim no EXECMOD: refused
 * with reason EXECMOD, and logged (the monitor does not take the guest's
 * word for what the process holds).
 * usage: vm_probe --execmod SOCKET RAM_FILE LIB
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfseg.h"
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
	    (r = uie_memfd_create_sealed("probe",
					 "\x7f"
					 "ELF-chosen-by-guest",
					 20, &mfd)) != UIE_OK)
		return r;
	r = uie_stream_send(port, msg, len, mfd);
	close(mfd);
	if (r == UIE_OK)
		r = uie_stream_recv(port, ans, &alen, &afd, 10000);
	if (r == UIE_OK)
		r = uie_bridge_decode(ans, alen, &a);
	return r == UIE_OK ? a.status : r;
}

/* Opens the port directly; the errno (0: it opened, and was closed at once: nothing sent). */
static int open_port(const char *port)
{
	int fd = open(port, O_RDWR | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * A well-formed request of the given type on the control socket, with a
 * payload where the type takes one (8 bytes: frame 0x200000, or a report
 * the forger made up): the answer's status.
 */
static int forge(int ctl, uint16_t type)
{
	static const uint8_t payload[8] = { 0x00, 0x00, 0x20 };
	struct uie_wire_msg q = { .type = type, .request_id = 0x7100u + type }, a;
	struct uie_msg_measure_req mq = { .event = UIE_EV_EXECVE, .role = UIE_ROLE_MAIN, .pid = 1 };
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t len, alen;
	int pfd = -1, afd = -1, r;

	if (type == UIE_MSG_MEASURE_REQ)
		q.u.measure_req = mq;
	if (type == UIE_MSG_MEASURE_VM_REQ) {
		q.u.measure_vm_req.r = mq;
		q.u.measure_vm_req.object_size = UIE_VM_FRAME;
	}
	if (type == UIE_MSG_FASTPATH_REQ)
		q.u.fastpath_req.count = 1;
	if (type == UIE_MSG_VIOLATION_REQ)
		q.u.violation_req.kind = 1;
	if ((r = uie_bridge_encode(&q, msg, sizeof(msg), &len)) != UIE_OK)
		return r;
	if (uie_bridge_fd_rule(&q) == UIE_FD_ONE &&
	    (r = uie_memfd_create_sealed("forged", payload, sizeof(payload), &pfd)) != UIE_OK)
		return r;
	r = uie_stream_send(ctl, msg, len, pfd);
	if (pfd >= 0)
		close(pfd);
	if (r != UIE_OK || (r = uie_stream_recv(ctl, ans, &alen, &afd, 10000)) != UIE_OK ||
	    (r = uie_bridge_decode(ans, alen, &a)) != UIE_OK)
		return r;
	if (afd >= 0)
		close(afd);
	return a.status;
}

/* errno of a SOCK_SEQPACKET connect to path (0: it connected). */
static int connect_errno(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), e;

	if (s < 0)
		return errno;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	e = connect(s, (struct sockaddr *)&a, sizeof(a)) == 0 ? 0 : errno;
	close(s);
	return e;
}

/* A listening SOCK_SEQPACKET socket, a connection to it, one message; and a pair. */
static int seqpacket_works(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX, .sun_path = "/tmp/vm_probe.ctl" };
	int l, c = -1, p[2], ok = 0;
	char b[4];

	unlink(a.sun_path);
	if ((l = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) < 0)
		return UIE_E_SYS;
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(l, 1) == 0 &&
	    (c = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) >= 0 &&
	    connect(c, (struct sockaddr *)&a, sizeof(a)) == 0) {
		int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);

		ok = s >= 0 && write(c, "udev", 4) == 4 && read(s, b, sizeof(b)) == 4;
		if (s >= 0)
			close(s);
	}
	if (c >= 0)
		close(c);
	close(l);
	unlink(a.sun_path);
	if (!ok || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p) != 0)
		return UIE_E_SYS;
	close(p[0]);
	close(p[1]);
	return UIE_OK;
}

static int tree_main(const char *port, const char *control, pid_t relay)
{
	uint64_t n0 = 0, n = 0;
	int ctl, r;

	check("SOCK_SEQPACKET as udev uses it, in the tree", seqpacket_works(), UIE_OK);
	check("no SOCK_SEQPACKET path to the monitor (" UIE_BRIDGE_DEFAULT_PATH ")",
	      connect_errno(UIE_BRIDGE_DEFAULT_PATH) == ENOENT ? UIE_OK : UIE_E_STATE, UIE_OK);
	check("opening the port while the relay holds it", open_port(port) == EBUSY ? UIE_OK : UIE_E_STATE,
	      UIE_OK);
	if ((r = uie_bridge_connect(control, &ctl)) != UIE_OK) {
		check("connecting to the control socket", r, UIE_OK);
		return 1;
	}
	check("status on the control socket", status(ctl, &n0), UIE_OK);
	check("forged fast-path report", forge(ctl, UIE_MSG_FASTPATH_REQ), UIE_E_ACCESS);
	check("forged MEASURE_VM_REQ", forge(ctl, UIE_MSG_MEASURE_VM_REQ), UIE_E_ACCESS);
	check("forged MEASURE_REQ", forge(ctl, UIE_MSG_MEASURE_REQ), UIE_E_ACCESS);
	check("forged violation report", forge(ctl, UIE_MSG_VIOLATION_REQ), UIE_E_ACCESS);
	check("CHECKPOINT_REQ", forge(ctl, UIE_MSG_CHECKPOINT_REQ), UIE_E_ACCESS);
	check("status after", status(ctl, &n), UIE_OK);
	check("nothing logged by the forged requests", n == n0 ? UIE_OK : UIE_E_STATE, UIE_OK);
	close(ctl);
	if (kill(relay, SIGKILL) != 0) {
		check("killing the relay", UIE_E_SYS, UIE_OK);
		return 1;
	}
	for (int i = 0; i < 100 && kill(relay, 0) == 0; i++)
		usleep(100000); /* a zombie until uie-init reaps it */
	r = open_port(port);
	printf("vm_probe: port after the relay died: %s\n", r ? strerror(r) : "opened");
	check("opening the port after the relay died", r == EBUSY ? UIE_OK : UIE_E_STATE, UIE_OK);
	printf("vm_probe: %s\n", failures ? "FAILED" : "the tree cannot reach the channel");
	return failures ? 1 : 0;
}

#define EXECMOD_BASE (256ull << 20) /* frames of the RAM file no check below uses */
#define EXECMOD_MAX 2048            /* pages of LIB and of its code */

/* Writes page i of the file at fd to the RAM file's frame gpa (flip: one byte changed). */
static int put_page(int fd, int ram, uint64_t i, uint64_t gpa, bool flip)
{
	uint8_t page[UIE_VM_FRAME] = { 0 };

	if (pread(fd, page, sizeof(page), (off_t)(i * UIE_VM_FRAME)) < 0)
		return UIE_E_IO;
	page[100] ^= flip ? 0x5a : 0;
	return pwrite(ram, page, sizeof(page), (off_t)gpa) == (ssize_t)sizeof(page) ? UIE_OK : UIE_E_IO;
}

/* The verdict on LIB's code [off, off + len): list holds its frames, then the range's. */
static int mprotect_vm(int port, uint64_t size, const uint64_t *list, uint64_t off, uint64_t len,
		       struct uie_verdict *v)
{
	struct uie_req req = { .event = UIE_EV_MPROTECT_EXEC,
			       .role = UIE_ROLE_DSO,
			       .pid = 1,
			       .vaddr = 0x7f0000000000ull + off,
			       .length = len,
			       .file_offset = off };

	return uie_bridge_measure_vm(port, &req, 0, size, list,
				     uie_bridge_vm_nframes(size) + uie_bridge_vm_nframes(len), v);
}

static int execmod_main(const char *sock, const char *ram_path, const char *lib)
{
	static uint64_t frames[2 * EXECMOD_MAX];
	int fd = open(lib, O_RDONLY | O_CLOEXEC), ram = open(ram_path, O_RDWR | O_CLOEXEC), port, r = UIE_OK;
	uint64_t n0 = 0, n1 = 0, size, nobj, nr, *range;
	struct uie_verdict v;
	struct stat st;
	size_t len;
	off_t off;

	if (fd < 0 || ram < 0 || fstat(fd, &st) != 0 || exec_segment(fd, &off, &len) != 0) {
		fprintf(stderr, "vm_probe: %s, %s: cannot read\n", lib, ram_path);
		return 2;
	}
	size = (uint64_t)st.st_size;
	nobj = uie_bridge_vm_nframes(size);
	nr = uie_bridge_vm_nframes(len);
	if (nobj > EXECMOD_MAX || nr > EXECMOD_MAX || nr < 1) {
		fprintf(stderr, "vm_probe: %s: too large\n", lib);
		return 2;
	}
	range = frames + nobj;
	for (uint64_t i = 0; r == UIE_OK && i < nobj; i++)
		r = put_page(fd, ram, i, frames[i] = EXECMOD_BASE + i * UIE_VM_FRAME, false);
	if (r != UIE_OK || (r = uie_bridge_connect(sock, &port)) != UIE_OK) {
		fprintf(stderr, "vm_probe: %s: %s\n", sock, uie_err_str(r));
		return 2;
	}
	check("status before", status(port, &n0), UIE_OK);
	for (uint64_t j = 0; j < nr; j++)
		range[j] = UIE_VM_PAGE_ABSENT;
	r = mprotect_vm(port, size, frames, (uint64_t)off, len, &v);
	check("MPROTECT_EXEC, its pages absent: allowed",
	      r == UIE_OK && v.decision == UIE_ALLOW ? UIE_OK : UIE_E_STATE, UIE_OK);
	/* the process's own copies of the code, the file's bytes */
	for (uint64_t j = 0; r == UIE_OK && j < nr; j++)
		r = put_page(fd, ram, (uint64_t)off / UIE_VM_FRAME + j,
			     range[j] = EXECMOD_BASE + (nobj + j) * UIE_VM_FRAME, false);
	if (r == UIE_OK)
		r = mprotect_vm(port, size, frames, (uint64_t)off, len, &v);
	check("MPROTECT_EXEC, its pages present with the file's bytes: allowed",
	      r == UIE_OK && v.decision == UIE_ALLOW ? UIE_OK : UIE_E_STATE, UIE_OK);
	/* one byte of the code changed in the process's page; the flags say nothing */
	r = put_page(fd, ram, (uint64_t)off / UIE_VM_FRAME + nr / 2, range[nr / 2], true);
	if (r == UIE_OK)
		r = mprotect_vm(port, size, frames, (uint64_t)off, len, &v);
	printf("vm_probe: changed page: decision %u reason %u\n", v.decision, v.reason);
	check("MPROTECT_EXEC, a changed page, no EXECMOD flag: DENY EXECMOD",
	      r == UIE_OK && v.decision == UIE_DENY && v.reason == UIE_R_EXECMOD ? UIE_OK : UIE_E_STATE,
	      UIE_OK);
	check("status after", status(port, &n1), UIE_OK);
	check("the three requests logged", n1 == n0 + 3 ? UIE_OK : UIE_E_STATE, UIE_OK);
	close(port);
	close(ram);
	close(fd);
	printf("vm_probe: %s\n", failures ? "FAILED" : "the monitor measured the process's pages");
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t n0 = 0, n = 0, ram;
	int port, r;

	if (argc == 5 && !strcmp(argv[1], "--tree"))
		return tree_main(argv[2], argv[3], (pid_t)strtol(argv[4], NULL, 10));
	if (argc == 5 && !strcmp(argv[1], "--execmod"))
		return execmod_main(argv[2], argv[3], argv[4]);
	if (argc != 3) {
		fprintf(stderr, "usage: vm_probe PORT RAM_MIB | vm_probe --tree PORT CONTROL RELAY_PID | "
				"vm_probe --execmod SOCKET RAM_FILE LIB\n");
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
