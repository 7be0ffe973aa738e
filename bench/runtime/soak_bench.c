/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Soak benchmark (issue 11): the monitor's resident memory over many
 * grants, driving its request handler in-process (the very code behind
 * the bridge socket) with a built-in vTPM and a state directory.  Each
 * round asks for the three grants of a dynamic /usr/bin/true (main
 * executable, interpreter, libc) from a new pid, on one connection, libc
 * for the program of the first grant (its subject, docs/FORMATS.md 3.7:
 * in first-seen mode a SUBJECT record once, then nothing).  Prints VmRSS after every
 * tenth of the run: in first-seen mode it must stay flat; with
 * --every-record it grows by a record and a vPCR16 per grant.  In
 * first-seen mode every tenth also exports evidence, which logs the three
 * keys' repeat counts (REPEAT_COUNT records, docs/FORMATS.md 3.7): the
 * records column grows by three per tenth.
 *
 *   soak_bench [--grants N] [--every-record] [--log-sync]
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host_platform.h"
#include "monitor.h"
#include "uie/err.h"
#include "vtpm.h"
#include "wire.h"

static long rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * One MEASURE request of client c through the door (uie_mon_serve), for the
 * program of record subj (0: none); exits on anything but ALLOW.
 */
static uint64_t grant(struct uie_monitor *m, struct uie_mon_client *c, uint16_t event, uint8_t role,
		      int objfd, uint32_t pid, uint64_t subj)
{
	struct uie_wire_msg q = { .type = UIE_MSG_MEASURE_REQ, .request_id = pid }, a;
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t len, alen;
	int afd, fd = dup(objfd);

	q.u.measure_req = (struct uie_msg_measure_req){
		.event = event, .role = role, .pid = pid, .length = 4096, .subject_seq = subj
	};
	if (fd < 0 || uie_bridge_encode(&q, msg, sizeof(msg), &len) != UIE_OK)
		exit(1);
	uie_mon_serve(m, c, NULL, msg, len, fd, ans, &alen, &afd);
	if (uie_bridge_decode(ans, alen, &a) != UIE_OK || a.status != UIE_OK ||
	    a.u.measure_ans.decision != UIE_ALLOW) {
		fprintf(stderr, "soak_bench: grant refused: %s\n", uie_err_str(a.status));
		exit(1);
	}
	return a.u.measure_ans.seq;
}

/* An EXPORT of the records from since through uie_mon_handle; exits on an error. */
static void export(struct uie_monitor *m, uint64_t since)
{
	struct uie_wire_msg q = { .type = UIE_MSG_EXPORT_REQ, .request_id = 1 }, a;
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t len, alen;
	int afd = -1;

	q.u.export_req = (struct uie_msg_export_req){ .since_seq = since, .nonce_len = 1 };
	if (uie_bridge_encode(&q, msg, sizeof(msg), &len) != UIE_OK)
		exit(1);
	uie_mon_handle(m, msg, len, -1, ans, &alen, &afd);
	if (uie_bridge_decode(ans, alen, &a) != UIE_OK || a.status != UIE_OK) {
		fprintf(stderr, "soak_bench: export refused: %s\n", uie_err_str(a.status));
		exit(1);
	}
	if (afd >= 0)
		close(afd);
}

static int open_or_die(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct uie_mon_opts o = { .first_seen = true, .log_sync = UIE_LOG_SYNC_POLICY };
	char dir[] = "/tmp/uie-soak-XXXXXX", spec[128], state[128], cmd[160];
	struct uie_host_platform hp;
	struct uie_vtpm *tpm;
	struct uie_monitor m;
	struct uie_mon_client c;
	uint64_t grants = 10000000, step, done = 0;
	int fds[3];
	double t0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--grants") && i + 1 < argc)
			grants = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--every-record"))
			o.first_seen = false;
		else if (!strcmp(argv[i], "--log-sync"))
			o.log_sync = UIE_LOG_SYNC_ALWAYS;
		else {
			fprintf(stderr, "usage: soak_bench [--grants N] [--every-record] [--log-sync]\n");
			return 2;
		}
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(spec, sizeof(spec), "builtin:%s/ak.pem", dir);
	snprintf(state, sizeof(state), "%s/state", dir);
	o.state_dir = state;
	fds[0] = open_or_die("/usr/bin/true");
	fds[1] = open_or_die("/lib64/ld-linux-x86-64.so.2");
	fds[2] = open_or_die("/lib/x86_64-linux-gnu/libc.so.6");
	if (uie_host_platform_init(&hp) != UIE_OK || uie_vtpm_open(spec, &tpm) != UIE_OK ||
	    uie_mon_init_opts(&m, &hp.pl, tpm, NULL, &o) != UIE_OK) {
		fprintf(stderr, "soak_bench: monitor setup failed\n");
		return 1;
	}
	m.limits.quota = 0; /* one client asks for everything, as fast as it can */
	uie_mon_client_init(&m, &c);
	step = grants / 10 ? grants / 10 : 1;
	printf("mode: %s, log sync: %s\n", o.first_seen ? "first-seen" : "every record",
	       o.log_sync == UIE_LOG_SYNC_ALWAYS ? "always" : "policy");
	printf("%12s %10s %12s %10s\n", "grants", "rss_kb", "records", "ns/grant");
	printf("%12" PRIu64 " %10ld %12" PRIu64 " %10s\n", done, rss_kb(), m.core.next_seq, "-");
	t0 = now_s();
	for (uint32_t pid = 1000; done < grants; pid++) {
		uint64_t prog = grant(&m, &c, UIE_EV_EXECVE, UIE_ROLE_MAIN, fds[0], pid, 0);

		grant(&m, &c, UIE_EV_EXECVE, UIE_ROLE_INTERP, fds[1], pid, 0);
		grant(&m, &c, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, fds[2], pid, prog);
		done += 3;
		if ((done % step < 3 || done >= grants) && o.first_seen)
			export(&m, m.core.next_seq);
		if (done % step < 3 || done >= grants)
			printf("%12" PRIu64 " %10ld %12" PRIu64 " %10.0f\n", done, rss_kb(), m.core.next_seq,
			       (now_s() - t0) * 1e9 / (double)done);
	}
	uie_mon_client_fini(&c);
	uie_mon_fini(&m);
	uie_vtpm_free(tpm);
	uie_host_platform_fini(&hp);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : 1;
}
