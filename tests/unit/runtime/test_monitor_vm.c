/* SPDX-License-Identifier: Apache-2.0 */
/*
 * VM mode of the monitor (docs/BRIDGE.md section 12): objects named by
 * guest-physical frames in a guest-RAM file.  A real ELF scattered over
 * frames of a fake RAM file measures to the digest process mode gives the
 * same file; frames outside RAM are refused with nothing logged; content
 * changed in place is measured again (no cache); the stream server ends a
 * connection on a malformed frame without changing state.  MPROTECT_EXEC
 * is measured as the process holds the range (its frames where present):
 * changed pages are execmod whatever the guest's flags say.  A write
 * violation named by frames is logged with the digest of those bytes.
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
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "denylog.h"
#include "fdpass.h"
#include "logstore.h"
#include "vmram.h"
#include "mon_fixture.h"
#include "stream.h"
#include "uie/buf.h"
#include "uie/err.h"
#include "uie/measure.h"
#include "uie/policy.h"
#include "uie/slog.h"
#include "vmserver.h"
#include "tcommon.h"

#define RAM_SIZE (16u << 20)
#define SLOTS 3000 /* frames available from 2 MiB up; 37 is prime to it */

struct fixture {
	struct mon_fixture mf;
	struct uie_vmram ram;
	char ram_path[128];
	int ram_wfd;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	mon_fixture_start(&f->mf, "/tmp/uie-monitor-vm-XXXXXX");
	snprintf(f->ram_path, sizeof(f->ram_path), "%s/ram", f->mf.dir);
	f->ram_wfd = open(f->ram_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(f->ram_wfd >= 0);
	assert_int_equal(ftruncate(f->ram_wfd, RAM_SIZE), 0);
	assert_int_equal(uie_vmram_open(f->ram_path, &f->ram), UIE_OK);
	assert_int_equal(f->ram.size, RAM_SIZE);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	uie_vmram_close(&f->ram);
	close(f->ram_wfd);
	mon_fixture_stop(&f->mf);
	free(f);
	return 0;
}

static uint64_t slot_gpa(size_t i, size_t salt)
{
	return (2ull << 20) + (uint64_t)(((i + salt) * 37) % SLOTS) * UIE_VM_FRAME;
}

/* Copies the file at path into scattered frames of the RAM file; returns its size. */
static uint64_t scatter(struct fixture *f, const char *path, size_t salt, uint64_t *frames, size_t cap,
			size_t *n)
{
	uint8_t page[UIE_VM_FRAME];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	*n = (size_t)uie_bridge_vm_nframes((uint64_t)st.st_size);
	assert_true(*n <= cap && *n <= SLOTS);
	for (size_t i = 0; i < *n; i++) {
		ssize_t got = pread(fd, page, sizeof(page), (off_t)(i * UIE_VM_FRAME));

		assert_true(got > 0);
		/* the rest of the last frame holds whatever the guest had there */
		memset(page + got, 0xa5, sizeof(page) - (size_t)got);
		frames[i] = slot_gpa(i, salt);
		assert_int_equal(pwrite(f->ram_wfd, page, sizeof(page), (off_t)frames[i]),
				 (ssize_t)sizeof(page));
	}
	close(fd);
	return (uint64_t)st.st_size;
}

/* Sends q (with fd) through the monitor; returns the decoded answer. */
static struct uie_wire_msg call(struct fixture *f, struct uie_wire_msg *q, int fd)
{
	return mon_fixture_call(&f->mf.m, q, fd, NULL);
}

/* A sealed memfd of the n u64 in v. */
static int list_memfd(const uint64_t *v, size_t n)
{
	uint8_t *list = malloc(n * 8 + 1);
	int mfd;

	assert_non_null(list);
	for (size_t i = 0; i < n; i++)
		uie_put_le64(list + i * 8, v[i]);
	assert_int_equal(uie_memfd_create_sealed("frames", list, n * 8, &mfd), UIE_OK);
	free(list);
	return mfd;
}

static struct uie_wire_msg measure_vm(struct fixture *f, uint16_t event, uint8_t role, uint64_t off,
				      uint64_t len, uint64_t size, const uint64_t *frames, size_t n)
{
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_VM_REQ };

	q.u.measure_vm_req.r = (struct uie_msg_measure_req){ event, role, 0, 1234, 0x400000, len, off, 0 };
	q.u.measure_vm_req.object_size = size;
	return call(f, &q, list_memfd(frames, n));
}

static struct uie_wire_msg measure_fd(struct fixture *f, uint16_t event, uint8_t role, uint64_t off,
				      uint64_t len, const char *path)
{
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_REQ };

	q.u.measure_req = (struct uie_msg_measure_req){ event, role, 0, 1234, 0x400000, len, off, 0 };
	return call(f, &q, open(path, O_RDONLY | O_CLOEXEC));
}

/* An executable segment's range of the ELF at path, as the measurer sees it. */
static void exec_range(struct fixture *f, const char *path, uint64_t *off, uint64_t *len)
{
	struct uie_host_object ho;
	struct uie_elf_info info;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_int_equal(uie_host_object_open(&ho, fd, false, NULL), UIE_OK);
	assert_int_equal(uie_elf_parse(&ho.obj, &info), UIE_OK);
	assert_true(info.nexec >= 1);
	*off = info.exec[0].range_off;
	*len = info.exec[0].range_len;
	uie_host_object_close(&ho);
	close(fd);
	(void)f;
}

static void same_digest(struct fixture *f, uint16_t event, uint8_t role, const char *path, uint64_t off,
			uint64_t len, size_t salt)
{
	static uint64_t frames[SLOTS];
	struct uie_wire_msg p, v;
	uint64_t size;
	size_t n;

	f->mf.m.ram = NULL;
	p = measure_fd(f, event, role, off, len, path);
	assert_int_equal(p.status, UIE_OK);
	f->mf.m.ram = &f->ram;
	size = scatter(f, path, salt, frames, SLOTS, &n);
	v = measure_vm(f, event, role, off, len, size, frames, n);
	assert_int_equal(v.status, UIE_OK);
	assert_int_equal(v.u.measure_ans.scope, p.u.measure_ans.scope);
	assert_int_equal(v.u.measure_ans.reason, p.u.measure_ans.reason);
	assert_int_equal(v.u.measure_ans.decision, p.u.measure_ans.decision);
	assert_int_equal(v.u.measure_ans.digest.len, UIE_SHA256_LEN);
	assert_memory_equal(&v.u.measure_ans.digest, &p.u.measure_ans.digest, sizeof(v.u.measure_ans.digest));
	assert_int_equal(v.u.measure_ans.seq, p.u.measure_ans.seq + 1);
}

static void test_digest_equals_process_mode(void **state)
{
	struct fixture *f = *state;
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	uint64_t off, len;

	same_digest(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, "/bin/ls", 0, 0, 0);
	exec_range(f, libc, &off, &len);
	same_digest(f, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, libc, off, len, 11);
	/* a script: the whole file as a raw range */
	same_digest(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, "/bin/gunzip", 0, 0, 5);
}

static void test_frames_outside_ram_refused(void **state)
{
	struct fixture *f = *state;
	static uint64_t frames[SLOTS];
	uint64_t size, seq;
	struct uie_wire_msg a;
	size_t n;
	const uint64_t bad[] = { RAM_SIZE, RAM_SIZE - 2048,     0xA0000,
				 0xFF000,  0x7ffff000ull << 20, slot_gpa(0, 0) + 8 };

	f->mf.m.ram = &f->ram;
	size = scatter(f, "/bin/true", 0, frames, SLOTS, &n);
	seq = f->mf.m.core.next_seq;
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		uint64_t keep = frames[n / 2];

		frames[n / 2] = bad[k];
		a = measure_vm(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, 0, 0, size, frames, n);
		assert_int_equal(a.status, UIE_E_RANGE);
		frames[n / 2] = keep;
	}
	/* a list shorter or longer than object_size implies */
	a = measure_vm(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, 0, 0, size, frames, n - 1);
	assert_int_equal(a.status, UIE_E_FORMAT);
	a = measure_vm(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, 0, 0, size + UIE_VM_FRAME, frames, n);
	assert_int_equal(a.status, UIE_E_FORMAT);
	assert_int_equal(f->mf.m.core.next_seq, seq); /* nothing logged */
	/* the frames in RAM are fine */
	a = measure_vm(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, 0, 0, size, frames, n);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(f->mf.m.core.next_seq, seq + 1);
}

/* The same frames and size with other bytes in them: another digest, never a cached one. */
static void test_changed_content_measured_again(void **state)
{
	struct fixture *f = *state;
	static uint64_t frames[SLOTS];
	struct uie_wire_msg a, b;
	uint64_t size, off, len;
	uint8_t byte;
	size_t n;

	f->mf.m.ram = &f->ram;
	size = scatter(f, "/bin/true", 3, frames, SLOTS, &n);
	exec_range(f, "/bin/true", &off, &len);
	a = measure_vm(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, 0, 0, size, frames, n);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(pread(f->ram_wfd, &byte, 1,
			       (off_t)(frames[(off + 100) / UIE_VM_FRAME] + (off + 100) % UIE_VM_FRAME)),
			 1);
	byte ^= 0xff;
	assert_int_equal(pwrite(f->ram_wfd, &byte, 1,
				(off_t)(frames[(off + 100) / UIE_VM_FRAME] + (off + 100) % UIE_VM_FRAME)),
			 1);
	b = measure_vm(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, 0, 0, size, frames, n);
	assert_int_equal(b.status, UIE_OK);
	assert_memory_not_equal(b.u.measure_ans.digest.bytes, a.u.measure_ans.digest.bytes, UIE_SHA256_LEN);
}

static void test_mode_rules(void **state)
{
	struct fixture *f = *state;
	struct uie_wire_msg q = { .type = UIE_MSG_GEN_REQ }, a;
	uint64_t frames[1] = { slot_gpa(0, 0) }, seq = f->mf.m.core.next_seq;

	/* process mode has no guest RAM */
	a = measure_vm(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, 0, 0, 100, frames, 1);
	assert_int_equal(a.status, UIE_E_STATE);
	f->mf.m.ram = &f->ram;
	/* VM mode takes no object descriptor, and no generation page leaves */
	a = measure_fd(f, UIE_EV_EXECVE, UIE_ROLE_MAIN, 0, 0, "/bin/true");
	assert_int_equal(a.status, UIE_E_STATE);
	a = call(f, &q, -1);
	assert_int_equal(a.status, UIE_E_STATE); /* the table: GEN is served in process mode only */
	/* VIOLATION_REQ's descriptor would be bytes the guest chose: process mode only */
	q = (struct uie_wire_msg){ .type = UIE_MSG_VIOLATION_REQ };
	q.u.violation_req = (struct uie_msg_violation_req){ .pid = 7, .kind = UIE_VIOLATION_WRITE };
	a = call(f, &q, open("/bin/true", O_RDONLY | O_CLOEXEC));
	assert_int_equal(a.status, UIE_E_STATE);
	assert_int_equal(f->mf.m.core.next_seq, seq);
	q = (struct uie_wire_msg){ .type = UIE_MSG_GEN_REQ };
	/* fileless: decided without reading guest RAM */
	q = (struct uie_wire_msg){ .type = UIE_MSG_MEASURE_VM_REQ };
	q.u.measure_vm_req.r = (struct uie_msg_measure_req){
		UIE_EV_EXECVE, UIE_ROLE_MAIN, UIE_VM_FLAG_FILELESS, 1, 0, 0, 0, 0
	};
	a = call(f, &q, -1);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(a.u.measure_ans.reason, UIE_R_FILELESS);
	assert_int_equal(a.u.measure_ans.policy_decision, UIE_DENY);
	assert_int_equal(a.u.measure_ans.scope, UIE_SCOPE_NONE);
	/* anonymous memory is still asked with MEASURE_REQ and no descriptor */
	q = (struct uie_wire_msg){ .type = UIE_MSG_MEASURE_REQ };
	q.u.measure_req = (struct uie_msg_measure_req){
		UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON, 0, 1, 0x1000, 0x1000, 0, 0
	};
	a = call(f, &q, -1);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(a.u.measure_ans.reason, UIE_R_ANON_EXEC);
}

/* A refusal in VM mode reaches the system log as in process mode (uie-monitord(8)). */
static void test_refusal_in_system_log(void **state)
{
	struct fixture *f = *state;
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_VM_REQ }, a;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct uie_denylog dl;
	char line[2048];
	ssize_t n;
	int s;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/log", f->mf.dir);
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(s >= 0);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(uie_denylog_open(&dl, sa.sun_path), UIE_OK);
	f->mf.m.denylog = &dl;
	f->mf.m.ram = &f->ram;
	q.u.measure_vm_req.r = (struct uie_msg_measure_req){
		UIE_EV_EXECVE, UIE_ROLE_MAIN, UIE_VM_FLAG_FILELESS, 4711, 0, 0, 0, 0
	};
	a = call(f, &q, -1);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(a.u.measure_ans.policy_decision, UIE_DENY);
	n = recv(s, line, sizeof(line) - 1, MSG_DONTWAIT);
	assert_true(n > 0);
	line[n] = '\0';
	assert_non_null(strstr(line, " event=execve role=main rule=fileless digest=none "));
	assert_non_null(strstr(line, " pid=4711 "));
	assert_int_equal(dl.sent, 1);
	f->mf.m.denylog = NULL;
	uie_denylog_close(&dl);
	close(s);
}

static void test_vmserver_frames(void **state)
{
	struct fixture *f = *state;
	struct uie_wire_msg q = { .type = UIE_MSG_STATUS_REQ, .request_id = 5 }, a;
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t len, alen;
	uint64_t seq = f->mf.m.core.next_seq;
	struct uie_mon_client guest;
	int sv[2], afd;

	f->mf.m.ram = &f->ram;
	uie_mon_client_init(&f->mf.m, &guest);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(uie_bridge_encode(&q, msg, sizeof(msg), &len), UIE_OK);
	assert_int_equal(uie_stream_send(sv[0], msg, len, -1), UIE_OK);
	assert_int_equal(uie_vmserver_serve_one(&f->mf.m, &guest, sv[1]), UIE_OK);
	assert_int_equal(uie_stream_recv(sv[0], ans, &alen, &afd, 5000), UIE_OK);
	assert_int_equal(uie_bridge_decode(ans, alen, &a), UIE_OK);
	assert_int_equal(a.type, UIE_MSG_STATUS_ANS);
	assert_int_equal(a.u.status_ans.nrecords, seq);
	/* a well-framed but malformed message: error answer, the stream goes on */
	msg[4] = 9;
	assert_int_equal(uie_stream_send(sv[0], msg, len, -1), UIE_OK);
	assert_int_equal(uie_vmserver_serve_one(&f->mf.m, &guest, sv[1]), UIE_OK);
	assert_int_equal(uie_stream_recv(sv[0], ans, &alen, &afd, 5000), UIE_OK);
	assert_int_equal(uie_bridge_decode(ans, alen, &a), UIE_OK);
	assert_int_equal(a.status, UIE_E_VERSION);
	/* a frame that does not parse ends the connection, with no answer and no record */
	assert_int_equal(write(sv[0], "garbage-garbage-garbage", 23), 23);
	assert_int_equal(uie_vmserver_serve_one(&f->mf.m, &guest, sv[1]), UIE_E_PEER);
	assert_int_equal(f->mf.m.core.next_seq, seq);
	uie_mon_client_fini(&guest);
	close(sv[0]);
	close(sv[1]);
}

/* The guest is one client: its requests take from its record quota (--client-quota). */
static void test_vmserver_quota(void **state)
{
	struct fixture *f = *state;
	static uint64_t frames[SLOTS];
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_VM_REQ, .request_id = 7 }, a;
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	struct uie_mon_client guest;
	size_t len, alen, n;
	int sv[2], afd;

	f->mf.m.ram = &f->ram;
	f->mf.m.limits.quota = 2;
	uie_mon_client_init(&f->mf.m, &guest);
	q.u.measure_vm_req.r =
		(struct uie_msg_measure_req){ UIE_EV_EXECVE, UIE_ROLE_MAIN, 0, 1234, 0x400000, 0, 0, 0 };
	q.u.measure_vm_req.object_size = scatter(f, "/bin/ls", 3, frames, SLOTS, &n);
	assert_int_equal(uie_bridge_encode(&q, msg, sizeof(msg), &len), UIE_OK);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	for (int i = 0; i < 3; i++) {
		uint64_t seq = f->mf.m.core.next_seq;
		int mfd = list_memfd(frames, n);

		assert_int_equal(uie_stream_send(sv[0], msg, len, mfd), UIE_OK);
		close(mfd);
		assert_int_equal(uie_vmserver_serve_one(&f->mf.m, &guest, sv[1]), UIE_OK);
		assert_int_equal(uie_stream_recv(sv[0], ans, &alen, &afd, 5000), UIE_OK);
		assert_int_equal(uie_bridge_decode(ans, alen, &a), UIE_OK);
		/* the third within the second is refused, and logs nothing */
		assert_int_equal(a.status, i < 2 ? UIE_OK : UIE_E_QUOTA);
		assert_int_equal(f->mf.m.core.next_seq, i < 2 ? seq + 1 : seq);
	}
	uie_mon_client_fini(&guest);
	close(sv[0]);
	close(sv[1]);
}

#define TRUE_PAGES 64 /* more than /bin/true's pages */

/* /bin/true scattered over RAM, and the page-aligned range of its code. */
struct exec_case {
	uint64_t list[2 * TRUE_PAGES]; /* the object's frames, then the range's */
	size_t n, nr;
	uint64_t size, off, len;
};

static void exec_case_init(struct fixture *f, struct exec_case *c)
{
	uint64_t off, len;

	f->mf.m.ram = &f->ram;
	c->size = scatter(f, "/bin/true", 7, c->list, TRUE_PAGES, &c->n);
	exec_range(f, "/bin/true", &off, &len);
	c->off = off / UIE_VM_FRAME * UIE_VM_FRAME;
	c->len = (off + len + UIE_VM_FRAME - 1) / UIE_VM_FRAME * UIE_VM_FRAME - c->off;
	c->nr = (size_t)(c->len / UIE_VM_FRAME);
	assert_true(c->nr >= 2 && c->n + c->nr <= 2 * TRUE_PAGES);
	for (size_t j = 0; j < c->nr; j++)
		c->list[c->n + j] = UIE_VM_PAGE_ABSENT;
}

/* The range's page j held by the process in a frame of its own: the file's page, one byte changed by delta. */
static void private_copy(struct fixture *f, struct exec_case *c, size_t j, uint8_t delta)
{
	uint8_t page[UIE_VM_FRAME];
	uint64_t gpa = (RAM_SIZE - UIE_VM_FRAME) - (uint64_t)j * UIE_VM_FRAME; /* above every slot */

	assert_int_equal(pread(f->ram_wfd, page, sizeof(page), (off_t)c->list[c->off / UIE_VM_FRAME + j]),
			 (ssize_t)sizeof(page));
	page[100] ^= delta;
	assert_int_equal(pwrite(f->ram_wfd, page, sizeof(page), (off_t)gpa), (ssize_t)sizeof(page));
	c->list[c->n + j] = gpa;
}

static struct uie_wire_msg mprotect_vm(struct fixture *f, const struct exec_case *c, uint8_t flags, size_t n)
{
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_VM_REQ };

	q.u.measure_vm_req.r = (struct uie_msg_measure_req){ UIE_EV_MPROTECT_EXEC, UIE_ROLE_DSO, flags,  1234,
							     0x7f0000000000ull,    c->len,       c->off, 0 };
	q.u.measure_vm_req.object_size = c->size;
	return call(f, &q, list_memfd(c->list, n));
}

/* ENFORCE, default DENY, one rule: MPROTECT_EXEC of d allowed. */
static void allow_only(struct fixture *f, const struct uie_digest *d)
{
	static uint8_t table[256]; /* the core keeps using the installed table */
	static const uint8_t pkg[UIE_SHA256_LEN] = { 1 };
	struct uie_policy_rule rule = { UIE_EV_MPROTECT_EXEC, UIE_ROLE_DSO, UIE_ALLOW, { 0 } };
	size_t len;

	memcpy(rule.digest, d->bytes, d->len);
	assert_int_equal(
		uie_policy_encode(UIE_MODE_ENFORCE, UIE_DENY, d->alg, &rule, 1, table, sizeof(table), &len),
		UIE_OK);
	assert_int_equal(uie_core_install(&f->mf.m.core, table, len, 1, pkg), UIE_OK);
}

static void assert_verdict(const struct uie_wire_msg *a, uint8_t decision, uint16_t reason,
			   const struct uie_digest *d, bool same)
{
	assert_int_equal(a->status, UIE_OK);
	assert_int_equal(a->u.measure_ans.decision, decision);
	assert_int_equal(a->u.measure_ans.reason, reason);
	if (same)
		assert_memory_equal(&a->u.measure_ans.digest, d, sizeof(*d));
	else
		assert_memory_not_equal(a->u.measure_ans.digest.bytes, d->bytes, d->len);
}

/*
 * MPROTECT_EXEC: absent pages are the file's, present pages are measured
 * from the process's frames; one with other bytes than the file's is
 * execmod although the guest's flags do not say so.
 */
static void test_mprotect_exec_frames(void **state)
{
	struct fixture *f = *state;
	static struct exec_case c;
	struct uie_wire_msg a, p;
	struct uie_digest file;
	size_t total;

	exec_case_init(f, &c);
	total = c.n + c.nr;
	/* every page absent: the file's digest, the digest process mode gives the range */
	a = mprotect_vm(f, &c, 0, total);
	assert_int_equal(a.status, UIE_OK);
	file = a.u.measure_ans.digest;
	assert_int_equal(file.len, UIE_SHA256_LEN);
	f->mf.m.ram = NULL;
	p = measure_fd(f, UIE_EV_MPROTECT_EXEC, UIE_ROLE_DSO, c.off, c.len, "/bin/true");
	f->mf.m.ram = &f->ram;
	assert_memory_equal(&p.u.measure_ans.digest, &file, sizeof(file));
	allow_only(f, &file);
	a = mprotect_vm(f, &c, 0, total);
	assert_verdict(&a, UIE_ALLOW, UIE_R_RULE_ALLOW, &file, true);
	/* present: the page-cache frame itself, and a private copy with the same bytes */
	c.list[c.n] = c.list[c.off / UIE_VM_FRAME];
	private_copy(f, &c, 1, 0);
	a = mprotect_vm(f, &c, 0, total);
	assert_verdict(&a, UIE_ALLOW, UIE_R_RULE_ALLOW, &file, true);
	/* a copy a write changed: execmod, measured as the process holds it */
	private_copy(f, &c, 1, 0x5a);
	a = mprotect_vm(f, &c, 0, total);
	assert_verdict(&a, UIE_DENY, UIE_R_EXECMOD, &file, false);
	/* the same with the range's first page absent */
	c.list[c.n] = UIE_VM_PAGE_ABSENT;
	a = mprotect_vm(f, &c, 0, total);
	assert_verdict(&a, UIE_DENY, UIE_R_EXECMOD, &file, false);
	c.list[c.n + 1] = UIE_VM_PAGE_ABSENT;
	a = mprotect_vm(f, &c, 0, total);
	assert_verdict(&a, UIE_ALLOW, UIE_R_RULE_ALLOW, &file, true);
}

/* A present page past the object's end is execmod too. */
static void test_mprotect_exec_past_end(void **state)
{
	struct fixture *f = *state;
	static struct exec_case c;
	struct uie_wire_msg a;
	struct uie_digest d;

	exec_case_init(f, &c);
	c.off = (c.n - 1) * UIE_VM_FRAME; /* the file's last page and one past it */
	c.len = 2 * UIE_VM_FRAME;
	c.nr = 2;
	c.list[c.n] = UIE_VM_PAGE_ABSENT;
	c.list[c.n + 1] = UIE_VM_PAGE_ABSENT;
	a = mprotect_vm(f, &c, 0, c.n + 2);
	assert_int_equal(a.status, UIE_OK);
	allow_only(f, &a.u.measure_ans.digest);
	d = a.u.measure_ans.digest;
	a = mprotect_vm(f, &c, 0, c.n + 2);
	assert_verdict(&a, UIE_ALLOW, UIE_R_RULE_ALLOW, &d, true);
	c.list[c.n + 1] = slot_gpa(0, 7); /* the bytes do not matter: no file page is there */
	a = mprotect_vm(f, &c, 0, c.n + 2);
	assert_verdict(&a, UIE_DENY, UIE_R_EXECMOD, &d, true);
}

/* Range frames outside guest RAM, and a list of the wrong length: refused, nothing logged. */
static void test_mprotect_exec_refused(void **state)
{
	struct fixture *f = *state;
	static struct exec_case c;
	const uint64_t bad[] = { RAM_SIZE, 0xA0000, slot_gpa(0, 0) + 8, UIE_VM_PAGE_ABSENT - 1 };
	struct uie_wire_msg a;
	uint64_t seq;

	exec_case_init(f, &c);
	seq = f->mf.m.core.next_seq;
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		c.list[c.n + 1] = bad[k];
		a = mprotect_vm(f, &c, 0, c.n + c.nr);
		assert_int_equal(a.status, UIE_E_RANGE);
	}
	c.list[c.n + 1] = UIE_VM_PAGE_ABSENT;
	a = mprotect_vm(f, &c, 0, c.n + c.nr - 1);
	assert_int_equal(a.status, UIE_E_FORMAT);
	a = mprotect_vm(f, &c, 0, c.n + c.nr + 1);
	assert_int_equal(a.status, UIE_E_FORMAT);
	a = mprotect_vm(f, &c, 0, c.n); /* the object's frames only */
	assert_int_equal(a.status, UIE_E_FORMAT);
	assert_int_equal(f->mf.m.core.next_seq, seq);
	a = mprotect_vm(f, &c, 0, c.n + c.nr);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(f->mf.m.core.next_seq, seq + 1);
}

/* The record numbered seq. */
static struct uie_log_record record(struct fixture *f, uint64_t seq)
{
	struct uie_log_record r;
	uint64_t n = 0;
	const uint8_t *p = uie_logstore_records(&f->mf.m.log, seq, &n);

	assert_non_null(p);
	assert_true(n >= 1);
	assert_int_equal(uie_log_decode(p, UIE_LOG_RECORD_LEN, &r), UIE_OK);
	return r;
}

static struct uie_wire_msg violation_vm(struct fixture *f, uint64_t size, const uint64_t *frames, size_t n)
{
	struct uie_wire_msg q = { .type = UIE_MSG_VIOLATION_VM_REQ };

	q.u.violation_vm_req = (struct uie_msg_violation_vm_req){ { 4343, UIE_VIOLATION_WRITE }, size };
	return call(f, &q, size ? list_memfd(frames, n) : -1);
}

/*
 * A write violation named by frames: logged with the digest of the bytes
 * there, the digest process mode logs for the same file; without frames
 * logged without a digest; frames outside RAM refused, nothing logged.
 */
static void test_violation_vm(void **state)
{
	struct fixture *f = *state;
	static uint64_t frames[SLOTS];
	struct uie_wire_msg q = { .type = UIE_MSG_VIOLATION_REQ }, a;
	struct uie_log_record pr, vr;
	uint64_t size, seq;
	size_t n;

	q.u.violation_req = (struct uie_msg_violation_req){ 4343, UIE_VIOLATION_WRITE };
	a = call(f, &q, open("/bin/true", O_RDONLY | O_CLOEXEC));
	assert_int_equal(a.status, UIE_OK);
	pr = record(f, a.u.violation_ans_seq);
	f->mf.m.ram = &f->ram;
	size = scatter(f, "/bin/true", 2, frames, SLOTS, &n);
	seq = f->mf.m.core.next_seq;
	a = violation_vm(f, size, frames, n);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(a.u.violation_ans_seq, seq);
	vr = record(f, seq);
	assert_int_equal(vr.event_type, UIE_LOG_WRITE_VIOLATION);
	assert_int_equal(vr.reason, UIE_R_WRITE_VIOLATION);
	assert_int_equal(vr.pid, 4343);
	assert_int_equal(vr.id.size, size);
	assert_int_equal(vr.scope, pr.scope);
	assert_memory_equal(&vr.digest, &pr.digest, sizeof(vr.digest));
	/* nothing the guest could name: logged without a digest */
	a = violation_vm(f, 0, NULL, 0);
	assert_int_equal(a.status, UIE_OK);
	assert_int_equal(record(f, a.u.violation_ans_seq).scope, UIE_SCOPE_NONE);
	seq = f->mf.m.core.next_seq;
	frames[1] = RAM_SIZE;
	assert_int_equal(violation_vm(f, size, frames, n).status, UIE_E_RANGE);
	assert_int_equal(violation_vm(f, size, frames, n - 1).status, UIE_E_FORMAT);
	assert_int_equal(f->mf.m.core.next_seq, seq);
	/* process mode has no guest RAM to name frames in */
	f->mf.m.ram = NULL;
	assert_int_equal(violation_vm(f, 0, NULL, 0).status, UIE_E_STATE);
}

TC_MAIN_EACH(setup, teardown, test_digest_equals_process_mode, test_frames_outside_ram_refused,
	     test_changed_content_measured_again, test_mode_rules, test_refusal_in_system_log,
	     test_vmserver_frames, test_vmserver_quota, test_mprotect_exec_frames,
	     test_mprotect_exec_past_end, test_mprotect_exec_refused, test_violation_vm)
