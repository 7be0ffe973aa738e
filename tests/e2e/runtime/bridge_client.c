/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test helper: talks to a live uie-monitord through the client stubs, or
 * sends it hostile raw messages, and prints what came back as key=value
 * lines for the tests/e2e/runtime scripts.
 *
 *   bridge_client SOCKET status
 *   bridge_client SOCKET measure execve|mmap|mprotect main|interp|dso|file|anon PATH|- [OFF LEN]
 *   bridge_client SOCKET install PACKAGE
 *   bridge_client SOCKET export NONCE_HEX SINCE OUTFILE
 *   bridge_client SOCKET pubkey OUTFILE
 *   bridge_client SOCKET hint
 *   bridge_client SOCKET hostile random|truncated|version|magic|unknown|oversized|fds|answer|empty
 *   bridge_client SOCKET fastpath N        reports N made-up fast-path refusals (a forger)
 *   bridge_client SOCKET hold N SECONDS    holds N idle connections, prints how many the
 *                                          monitor kept, and sleeps before exiting
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "uie/bridge.h"
#include "uie/err.h"
#include "wire.h"

static void hex(const char *key, const uint8_t *p, size_t n)
{
	printf("%s=", key);
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

static int lookup(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (names[i] && strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static int write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(p, 1, n, f) == n;

	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : 1;
}

static int cmd_measure(int s, int argc, char **argv)
{
	static const char *const events[] = { NULL, "execve", "mmap", "mprotect" };
	static const char *const roles[] = { NULL, "main", "interp", "dso", "file", "anon" };
	struct uie_req req = { .pid = (uint32_t)getpid() };
	struct uie_verdict v;
	int ev, role, fd = -1, r;

	if (argc < 3)
		return 2;
	ev = lookup(argv[0], events, 4);
	role = lookup(argv[1], roles, 6);
	if (ev < 0 || role < 0)
		return 2;
	req.event = (uint16_t)ev;
	req.role = (uint8_t)role;
	if (argc >= 5) {
		req.file_offset = strtoull(argv[3], NULL, 0);
		req.length = strtoull(argv[4], NULL, 0);
	}
	if (strcmp(argv[2], "-") != 0 && (fd = open(argv[2], O_RDONLY | O_CLOEXEC)) < 0) {
		perror(argv[2]);
		return 1;
	}
	r = uie_bridge_measure(s, &req, fd, &v);
	printf("status=%d\ndecision=%u\npolicy_decision=%u\nreason=%u\nscope=%u\nseq=%llu\n", r, v.decision,
	       v.policy_decision, v.reason, v.scope, (unsigned long long)v.seq);
	hex("digest", v.digest.bytes, v.digest.len);
	return 0;
}

static int cmd_install(int s, const char *path)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r, merr = 0;

	if (fd < 0 || fstat(fd, &st) != 0 || !(buf = malloc((size_t)st.st_size + 1)) ||
	    read(fd, buf, (size_t)st.st_size) != st.st_size) {
		perror(path);
		return 1;
	}
	close(fd);
	r = uie_bridge_install(s, buf, (size_t)st.st_size, &merr);
	printf("status=%d\nresult=%d\n", r, merr);
	free(buf);
	return 0;
}

static int cmd_export(int s, const char *nonce_hex, const char *since, const char *out)
{
	uint8_t nonce[64], *ae = NULL;
	size_t n = 0, len = 0;
	int r;

	for (; nonce_hex[0] && nonce_hex[1] && n < sizeof(nonce); nonce_hex += 2) {
		unsigned v;

		if (sscanf(nonce_hex, "%2x", &v) != 1)
			return 2;
		nonce[n++] = (uint8_t)v;
	}
	r = uie_bridge_export_alloc(s, nonce, n, strtoull(since, NULL, 0), &ae, &len);
	printf("status=%d\nlen=%zu\n", r, len);
	if (r == UIE_OK && write_file(out, ae, len) != 0)
		return 1;
	free(ae);
	return 0;
}

static int cmd_status(int s)
{
	struct uie_status st;
	int r = uie_bridge_status(s, &st);

	printf("status=%d\nmode=%u\nepoch=%llu\nnrecords=%llu\n", r, st.mode, (unsigned long long)st.epoch,
	       (unsigned long long)st.nrecords);
	hex("vpcr", st.vpcr, sizeof(st.vpcr));
	hex("policy_id", st.policy_id, sizeof(st.policy_id));
	return 0;
}

/* Sends raw bytes (with nfds descriptors of /dev/null) and prints the answer's header and status. */
static int send_raw(int s, const uint8_t *p, size_t n, int nfds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)p, .iov_len = n };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	uint8_t ans[UIE_BRIDGE_MAX_MSG];
	struct uie_wire_msg a;
	size_t len;
	int fd, r;

	if (nfds) {
		struct cmsghdr *c;
		int fds[4];

		for (int i = 0; i < nfds; i++)
			fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	if (sendmsg(s, &mh, MSG_NOSIGNAL) != (ssize_t)n) {
		perror("sendmsg");
		return 1;
	}
	r = uie_bridge_recv(s, ans, &len, &fd, 10000);
	if (r != UIE_OK) {
		printf("recv=%d\n", r);
		return 1;
	}
	r = uie_bridge_decode(ans, len, &a);
	printf("decode=%d\ntype=%u\nrequest_id=%u\nstatus=%d\nlen=%zu\nfd=%d\n", r, a.type, a.request_id,
	       a.status, len, fd);
	return 0;
}

static int cmd_hostile(int s, const char *kind)
{
	static uint8_t big[UIE_BRIDGE_MAX_MSG + 512];
	struct uie_wire_msg q = { .type = UIE_MSG_STATUS_REQ, .request_id = 4242 };
	uint8_t b[UIE_BRIDGE_MAX_MSG];
	size_t len;

	uie_bridge_encode(&q, b, sizeof(b), &len);
	if (strcmp(kind, "random") == 0) {
		FILE *f = fopen("/dev/urandom", "rb");

		if (!f || fread(b, 1, 300, f) != 300)
			return 1;
		fclose(f);
		b[0] ^= 0xff; /* never the magic by chance */
		return send_raw(s, b, 300, 0);
	}
	if (strcmp(kind, "truncated") == 0)
		return send_raw(s, b, 7, 0);
	if (strcmp(kind, "version") == 0) {
		b[4] = 2;
		return send_raw(s, b, len, 0);
	}
	if (strcmp(kind, "magic") == 0) {
		b[0] = 'X';
		return send_raw(s, b, len, 0);
	}
	if (strcmp(kind, "unknown") == 0) {
		b[6] = 0x60;
		return send_raw(s, b, len, 0);
	}
	if (strcmp(kind, "oversized") == 0) {
		memcpy(big, b, len);
		return send_raw(s, big, sizeof(big), 0);
	}
	if (strcmp(kind, "fds") == 0)
		return send_raw(s, b, len, 3);
	if (strcmp(kind, "answer") == 0) {
		q.type = UIE_MSG_FASTPATH_ANS;
		q.u.fastpath_ans = (struct uie_msg_fastpath_ans){ 1, 0 };
		if (uie_bridge_encode(&q, b, sizeof(b), &len) != UIE_OK)
			return 2;
		return send_raw(s, b, len, 0);
	}
	return 2;
}

/* Reports n fast-path refusals of a made-up object under the epoch in force. */
static int cmd_fastpath(int s, unsigned n)
{
	struct uie_fastpath_report *reps = calloc(n ? n : 1, sizeof(*reps));
	struct uie_status st;
	struct timespec t0, t1;
	unsigned refused = 0;
	int r;

	if (!reps)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = uie_bridge_status(s, &st);
	for (unsigned i = 0; r == UIE_OK && i < n; i++) {
		reps[i].req = (struct uie_req){ .event = UIE_EV_EXECVE,
						.role = UIE_ROLE_MAIN,
						.pid = (uint32_t)getpid(),
						.id = { .ino = i + 1 } };
		reps[i].digest.alg = UIE_HASH_SHA256;
		reps[i].digest.len = 32;
		memset(reps[i].digest.bytes, 0x5a, 32);
	}
	if (r == UIE_OK)
		r = uie_bridge_fastpath_report_all(s, st.epoch, reps, n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (unsigned i = 0; i < n; i++)
		refused += reps[i].status == UIE_E_QUOTA;
	/* elapsed_ms lets a test bound what a per-second quota may let through. */
	printf("status=%d\nreport_status=%d\nreport_status_last=%d\n", r, n ? reps[0].status : 0,
	       n ? reps[n - 1].status : 0);
	printf("refused_quota=%u\nelapsed_ms=%lld\n", refused,
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
	free(reps);
	return 0;
}

/*
 * Opens n more connections besides s and holds them idle.  A child (another
 * process, so not charged to this one) then asks for the status: the
 * monitor accepts in order, so by its answer each of the n has been kept
 * or closed.
 */
static int cmd_hold(const char *path, unsigned n, unsigned secs)
{
	int *fds = calloc(n ? n : 1, sizeof(int));
	unsigned kept = 0;
	int status, pending = 0;
	pid_t pid;

	if (!fds)
		return 1;
	for (unsigned i = 0; i < n; i++)
		if (uie_bridge_connect(path, &fds[i]) != UIE_OK)
			fds[i] = -1;
	pid = fork();
	if (pid == 0) {
		struct uie_status st;
		int c;

		_exit(uie_bridge_connect(path, &c) == UIE_OK && uie_bridge_status(c, &st) == UIE_OK ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	for (unsigned i = 0; i < n; i++) {
		char b;

		kept += fds[i] >= 0 && recv(fds[i], &b, 1, MSG_PEEK | MSG_DONTWAIT) < 0;
		pending |= fds[i] < 0;
	}
	printf("kept=%u\nconnect_failed=%d\nothers_served=%d\n", kept, pending, WEXITSTATUS(status) == 0);
	fflush(stdout);
	sleep(secs);
	free(fds);
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t *der = NULL;
	size_t len = 0;
	int s, r;

	if (argc < 3) {
		fprintf(stderr, "usage: bridge_client SOCKET COMMAND [ARGS]\n");
		return 2;
	}
	if ((r = uie_bridge_connect(argv[1], &s)) != UIE_OK) {
		printf("connect=%d\nerrno=%d\n", r, errno);
		return 1;
	}
	if (strcmp(argv[2], "status") == 0)
		return cmd_status(s);
	if (strcmp(argv[2], "measure") == 0)
		return cmd_measure(s, argc - 3, argv + 3);
	if (strcmp(argv[2], "install") == 0 && argc == 4)
		return cmd_install(s, argv[3]);
	if (strcmp(argv[2], "export") == 0 && argc == 6)
		return cmd_export(s, argv[3], argv[4], argv[5]);
	if (strcmp(argv[2], "hostile") == 0 && argc == 4)
		return cmd_hostile(s, argv[3]);
	if (strcmp(argv[2], "fastpath") == 0 && argc == 4)
		return cmd_fastpath(s, (unsigned)strtoul(argv[3], NULL, 10));
	if (strcmp(argv[2], "hold") == 0 && argc == 5)
		return cmd_hold(argv[1], (unsigned)strtoul(argv[3], NULL, 10),
				(unsigned)strtoul(argv[4], NULL, 10));
	if (strcmp(argv[2], "hint") == 0) {
		int fd;

		r = uie_bridge_hint(s, &fd, &len);
		printf("status=%d\nhint_fd=%d\nlen=%zu\n", r, fd, len);
		if (fd >= 0) {
			void *w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			void *ro = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

			/* the hint can be read, but neither written nor mapped writable */
			printf("write_blocked=%d\n", pwrite(fd, "x", 1, 0) < 0);
			printf("mmap_write_blocked=%d\n", w == MAP_FAILED);
			printf("mmap_read_ok=%d\n", ro != MAP_FAILED);
		}
		return 0;
	}
	if (strcmp(argv[2], "pubkey") == 0 && argc == 4) {
		r = uie_bridge_pubkey_alloc(s, &der, &len);
		printf("status=%d\nlen=%zu\n", r, len);
		if (r == UIE_OK && write_file(argv[3], der, len) != 0)
			return 1;
		free(der);
		return 0;
	}
	fprintf(stderr, "bridge_client: unknown command %s\n", argv[2]);
	return 2;
}
