/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uie-monitord: the integrity authority.  Sets up as root (vTPM, trusted
 * policy keys, socket), drops to its own user, locks itself down, and
 * serves the bridge until SIGTERM or SIGINT.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guestram.h"
#include "host_platform.h"
#include "monitor.h"
#include "sandbox.h"
#include "server.h"
#include "uie/err.h"
#include "vmserver.h"
#include "vtpm.h"
#include "workers.h"

#define DEFAULT_VTPM "builtin:/var/lib/uie/ak.pem"
#define DEFAULT_USER "uie-monitor"
#define DEFAULT_STATE_DIR "/var/lib/uie/state"
#define MAX_TRUST_KEYS UIE_HOST_MAX_KEYS

struct opts {
	const char *socket, *vtpm, *user, *group, *log_file, *syslog;
	struct uie_monitor_opts mon;
	const char *vm_socket, *guest_ram; /* VM mode: both, or neither */
	const char *keys[MAX_TRUST_KEYS];
	unsigned nkeys;
	bool foreground;
	int ready_fd;
	int cpu; /* -1: no pinning */
	struct uie_server_limits conn;
	struct uie_mon_limits req;
	unsigned workers;
};

static volatile sig_atomic_t stop_flag;

#if defined(__SANITIZE_ADDRESS__)
#define UIE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UIE_ASAN 1
#endif
#endif
#ifdef UIE_ASAN
/*
 * Sanitizer builds: LeakSanitizer's exit-time scan needs clone, ptrace and
 * /proc, which the monitor's own seccomp filter forbids (and must).  The
 * handlers' leaks are checked in-process by tests/unit/runtime instead.
 */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return 1;
}
#endif

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uie-monitord [options]\n"
		"  --socket PATH     bridge socket (default " UIE_BRIDGE_DEFAULT_PATH ")\n"
		"  --vtpm SPEC       builtin:KEYFILE | swtpm:HOST:PORT | swtpm:/PATH | device:PATH\n"
		"                    (default " DEFAULT_VTPM ")\n"
		"  --trust-key PEM   policy signing public key (repeatable, up to %d)\n"
		"  --user NAME       user to run as when started as root (default " DEFAULT_USER
		", created if missing)\n"
		"  --group NAME      group owning the socket (default root)\n"
		"  --foreground      do not detach\n"
		"  --ready-fd N      write \"READY\\n\" to fd N once serving\n"
		"  --log-file PATH   diagnostics (default stderr)\n"
		"  --syslog PATH     datagram socket that gets one line per denial (default\n"
		"                    " UIE_DENYLOG_DEFAULT_PATH ", where journald or a syslog daemon reads; none: off)\n"
		"  --cpu N           run on CPU N only; interceptors follow the monitor to it, so\n"
		"                    a request does not wake an idle CPU (see docs/PERFORMANCE.md)\n"
		"  --state-dir DIR   write-ahead log and installed packages; a restart restores the\n"
		"                    policy in force (default " DEFAULT_STATE_DIR "; \"none\": memory\n"
		"                    only, a restart comes back in bootstrap)\n"
		"  --log-sync MODE   every record is written before its answer; it reaches the device\n"
		"                    policy: at start and with each policy install (default; a\n"
		"                    monitor crash loses nothing, a power loss the grants since)\n"
		"                    always: with every record (power-loss safe; one fdatasync per\n"
		"                    grant)   none: never\n"
		"  --first-seen      log each (epoch, mode, event, role, digest, decision, reason)\n"
		"                    once and count repeats (bounded log; docs/FORMATS.md 3.7)\n"
		"  --vm-socket PATH  VM mode: serve one guest over the stream socket its QEMU\n"
		"                    virtio-serial chardev connects to (docs/BRIDGE.md section 11)\n"
		"  --guest-ram FILE  VM mode: the guest's shared RAM file (memory-backend-file)\n"
		"limits (docs/DESIGN.md, \"Fair service\"; 0 = none where marked *):\n"
		"  --max-clients N              connections at once (default %u)\n"
		"  --max-clients-per-process N  connections of one process (default %u)\n"
		"  --max-object-size BYTES      * largest object measured (default %llu)\n"
		"  --max-hash-ms MS             * measuring time of one request (default %u)\n"
		"  --client-quota N             * records one connection may cause per second,\n"
		"                               at least %u (default %u)\n"
		"  --measure-workers N          threads hashing objects, so that a large object\n"
		"                               does not hold up other clients; 0 = none (default %u)\n",
		MAX_TRUST_KEYS, UIE_SERVER_DEFAULT_MAX_CLIENTS, UIE_SERVER_DEFAULT_PER_PROCESS,
		UIE_MON_DEFAULT_MAX_OBJECT, UIE_MON_DEFAULT_MAX_HASH_MS, UIE_BRIDGE_FASTPATH_MAX,
		UIE_MON_DEFAULT_QUOTA, UIE_WORKERS_DEFAULT);
}

/* Parses a limit option's decimal value in [min, max] (0 always passes when zero_ok). */
static bool parse_limit(const char *name, const char *arg, unsigned long long min,
			unsigned long long max, bool zero_ok, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' ||
	    ((*out < min || *out > max) && !(zero_ok && *out == 0))) {
		fprintf(stderr, "uie-monitord: bad --%s '%s' (%llu to %llu%s)\n", name, arg, min, max,
			zero_ok ? ", or 0 for no limit" : "");
		return false;
	}
	return true;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 's' },  { "vtpm", required_argument, NULL, 'v' },
		{ "trust-key", required_argument, NULL, 'k' }, { "user", required_argument, NULL, 'u' },
		{ "group", required_argument, NULL, 'g' },   { "foreground", no_argument, NULL, 'f' },
		{ "ready-fd", required_argument, NULL, 'r' }, { "log-file", required_argument, NULL, 'l' },
		{ "cpu", required_argument, NULL, 'c' },     { "help", no_argument, NULL, 'h' },
		{ "state-dir", required_argument, NULL, 'S' }, { "log-sync", required_argument, NULL, 'Y' },
		{ "first-seen", no_argument, NULL, 'F' },
		{ "vm-socket", required_argument, NULL, 'V' }, { "guest-ram", required_argument, NULL, 'R' },
		{ "syslog", required_argument, NULL, 'L' },
		{ "max-clients", required_argument, NULL, 'M' },
		{ "max-clients-per-process", required_argument, NULL, 'P' },
		{ "max-object-size", required_argument, NULL, 'O' },
		{ "max-hash-ms", required_argument, NULL, 'T' },
		{ "client-quota", required_argument, NULL, 'Q' },
		{ "measure-workers", required_argument, NULL, 'W' },
		{ 0 },
	};
	unsigned long long u;
	char *end;
	long v;
	int c;

	*o = (struct opts){ .socket = UIE_BRIDGE_DEFAULT_PATH, .vtpm = DEFAULT_VTPM, .ready_fd = -1,
			    .cpu = -1, .syslog = UIE_DENYLOG_DEFAULT_PATH,
			    .mon = { .state_dir = DEFAULT_STATE_DIR },
			    .conn = { UIE_SERVER_DEFAULT_MAX_CLIENTS, UIE_SERVER_DEFAULT_PER_PROCESS },
			    .req = { UIE_MON_DEFAULT_MAX_OBJECT, UIE_MON_DEFAULT_MAX_HASH_MS,
				     UIE_MON_DEFAULT_QUOTA },
			    .workers = UIE_WORKERS_DEFAULT };
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': o->socket = optarg; break;
		case 'v': o->vtpm = optarg; break;
		case 'u': o->user = optarg; break;
		case 'g': o->group = optarg; break;
		case 'f': o->foreground = true; break;
		case 'l': o->log_file = optarg; break;
		case 'V': o->vm_socket = optarg; break;
		case 'R': o->guest_ram = optarg; break;
		case 'L': o->syslog = strcmp(optarg, "none") ? optarg : NULL; break;
		case 'k':
			if (o->nkeys >= MAX_TRUST_KEYS) {
				fprintf(stderr, "uie-monitord: too many --trust-key\n");
				return 2;
			}
			o->keys[o->nkeys++] = optarg;
			break;
		case 'r':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < 3 || v > 1024) {
				fprintf(stderr, "uie-monitord: bad --ready-fd '%s'\n", optarg);
				return 2;
			}
			o->ready_fd = (int)v;
			break;
		case 'c':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || v < 0 || v >= CPU_SETSIZE) {
				fprintf(stderr, "uie-monitord: bad --cpu '%s'\n", optarg);
				return 2;
			}
			o->cpu = (int)v;
			break;
		case 'S': o->mon.state_dir = strcmp(optarg, "none") ? optarg : NULL; break;
		case 'F': o->mon.first_seen = true; break;
		case 'Y':
			if (!strcmp(optarg, "policy"))
				o->mon.log_sync = UIE_LOG_SYNC_POLICY;
			else if (!strcmp(optarg, "always"))
				o->mon.log_sync = UIE_LOG_SYNC_ALWAYS;
			else if (!strcmp(optarg, "none"))
				o->mon.log_sync = UIE_LOG_SYNC_NONE;
			else {
				fprintf(stderr, "uie-monitord: --log-sync is policy, always or none\n");
				return 2;
			}
			break;
		case 'M':
			if (!parse_limit("max-clients", optarg, 1, UIE_SERVER_CLIENTS_CAP, false, &u))
				return 2;
			o->conn.max_clients = (unsigned)u;
			break;
		case 'P':
			if (!parse_limit("max-clients-per-process", optarg, 1, UIE_SERVER_CLIENTS_CAP,
					 false, &u))
				return 2;
			o->conn.max_per_process = (unsigned)u;
			break;
		case 'O':
			if (!parse_limit("max-object-size", optarg, 4096, UINT64_MAX, true, &u))
				return 2;
			o->req.max_object = u;
			break;
		case 'T':
			if (!parse_limit("max-hash-ms", optarg, 1, 3600000, true, &u))
				return 2;
			o->req.max_hash_ms = (uint32_t)u;
			break;
		case 'Q': /* a full fast-path batch must fit in the bucket */
			if (!parse_limit("client-quota", optarg, UIE_BRIDGE_FASTPATH_MAX, UINT32_MAX, true,
					 &u))
				return 2;
			o->req.quota = (uint32_t)u;
			break;
		case 'W':
			if (!parse_limit("measure-workers", optarg, 0, UIE_WORKERS_MAX, false, &u))
				return 2;
			o->workers = (unsigned)u;
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (!o->vm_socket != !o->guest_ram) {
		fprintf(stderr, "uie-monitord: --vm-socket and --guest-ram go together\n");
		return 2;
	}
	return 0;
}

/* For builtin:KEYFILE, creates the key's directory (0700) so the key can be made. */
static void make_key_dir(const char *spec)
{
	char dir[4096];
	char *slash;

	if (strncmp(spec, "builtin:", 8) != 0 || strlen(spec + 8) >= sizeof(dir))
		return;
	memcpy(dir, spec + 8, strlen(spec + 8) + 1);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0700);
	}
}

static int fail(FILE *diag, const char *what, int r)
{
	fprintf(diag, "uie-monitord: %s: %s\n", what, uie_err_str(r));
	return 1;
}

/* Detaches from the terminal; the parent exits once the child is set up. */
static int daemonize(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return UIE_E_SYS;
	if (pid > 0)
		_exit(0);
	if (setsid() < 0)
		return UIE_E_SYS;
	return UIE_OK;
}

static int setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0 ||
	    signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		return UIE_E_SYS;
	return UIE_OK;
}

/* Resolves the user and group to run as; root only. */
static int identities(const struct opts *o, uid_t *uid, gid_t *gid, gid_t *sock_gid)
{
	int r;

	*sock_gid = 0;
	if (o->group) {
		struct group *g = getgrnam(o->group);

		if (!g)
			return UIE_E_NOTFOUND;
		*sock_gid = g->gr_gid;
	}
	if (geteuid() != 0) {
		*uid = geteuid();
		*gid = getegid();
		return o->user ? UIE_E_STATE : UIE_OK;
	}
	r = uie_sandbox_user(o->user ? o->user : DEFAULT_USER, !o->user, uid, gid);
	return r;
}

static int run(const struct opts *o, FILE *diag)
{
	struct uie_host_platform hp;
	struct uie_monitor m;
	struct uie_server_limits conn;
	struct uie_workers workers = { .wake = { -1, -1 } };
	struct uie_denylog denylog;
	struct uie_vtpm *tpm = NULL;
	struct uie_guest_ram ram = { .fd = -1 };
	struct rlimit nocore = { 0, 0 };
	uid_t uid;
	gid_t gid, sock_gid;
	uint8_t *der = NULL, *att = NULL, *sig = NULL;
	size_t dl, al, sl;
	int lfd = -1, r;

	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	setrlimit(RLIMIT_CORE, &nocore);
	if (o->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0)
			return fail(diag, "--cpu", UIE_E_SYS);
	}
	umask(077);
	if ((r = identities(o, &uid, &gid, &sock_gid)) != UIE_OK)
		return fail(diag, "user or group", r);
	if ((r = uie_host_platform_init(&hp)) != UIE_OK)
		return fail(diag, "platform", r);
	for (unsigned i = 0; i < o->nkeys; i++)
		if ((r = uie_host_platform_add_key_file(&hp, o->keys[i], NULL)) != UIE_OK)
			return fail(diag, o->keys[i], r);
	make_key_dir(o->vtpm);
	if ((r = uie_vtpm_open(o->vtpm, &tpm)) != UIE_OK)
		return fail(diag, o->vtpm, r);
	/* Loads what quoting needs (providers, key) before the filter forbids opening files. */
	if ((r = uie_vtpm_pubkey_alloc(tpm, &der, &dl)) != UIE_OK ||
	    (r = uie_vtpm_quote_alloc(tpm, (const uint8_t *)"warm-up", 7, &att, &al, &sig, &sl)) != UIE_OK)
		return fail(diag, "vTPM warm-up", r);
	free(der);
	free(att);
	free(sig);
	/* The socket first: a monitor that cannot serve leaves the state directory alone. */
	if (o->vm_socket) {
		/* VM mode: one guest, reached only through its port; objects read from its RAM. */
		if ((r = uie_guest_ram_open(o->guest_ram, &ram)) != UIE_OK)
			return fail(diag, o->guest_ram, r);
		if ((r = uie_vmserver_listen(o->vm_socket, &lfd)) != UIE_OK)
			return fail(diag, o->vm_socket, r);
	} else if ((r = uie_server_listen(o->socket, sock_gid, &lfd)) != UIE_OK) {
		return fail(diag, o->socket, r);
	}
	if ((r = uie_monitor_init_opts(&m, &hp.pl, tpm, diag, &o->mon)) != UIE_OK)
		return fail(diag, o->mon.state_dir ? "monitor state (see above)" : "monitor core", r);
	if (o->vm_socket)
		m.ram = &ram;
	m.limits = o->req;
	conn = o->conn;
	if ((r = uie_server_limits_apply(&conn, &m)) != UIE_OK)
		return fail(diag, "connection limits", r);
	if ((r = uie_denylog_open(&denylog, o->syslog)) != UIE_OK)
		return fail(diag, "--syslog", r);
	m.denylog = &denylog;
	/* The state files stay open: the dropped user appends through these descriptors. */
	if (!o->foreground && (r = daemonize()) != UIE_OK)
		return fail(diag, "daemonize", r);
	if ((r = setup_signals()) != UIE_OK)
		return fail(diag, "signals", r);
	if (geteuid() == 0 && (r = uie_sandbox_drop(uid, gid)) != UIE_OK)
		return fail(diag, "dropping privileges", r);
	/* After the drop (setresuid would have to reach every thread), before the filter. */
	if (o->workers && (r = uie_workers_start(&workers, o->workers)) != UIE_OK)
		return fail(diag, "measurement workers", r);
	if (o->workers)
		m.workers = &workers;
	if ((r = uie_sandbox_lock(strncmp(o->vtpm, "swtpm:", 6) == 0)) != UIE_OK)
		return fail(diag, "seccomp", r);
	if (o->vm_socket)
		uie_mon_diag(&m, "VM mode: serving %s, guest RAM %s (%llu MiB), as uid %u (vTPM %s, %u "
			     "trusted keys)", o->vm_socket, o->guest_ram,
			     (unsigned long long)(ram.size >> 20), (unsigned)uid, o->vtpm, o->nkeys);
	else
		uie_mon_diag(&m, "serving %s as uid %u (vTPM %s, %u trusted keys)", o->socket,
			     (unsigned)uid, o->vtpm, o->nkeys);
	if (o->ready_fd >= 0) {
		if (write(o->ready_fd, "READY\n", 6) != 6)
			return fail(diag, "--ready-fd", UIE_E_SYS);
		close(o->ready_fd);
	}
	r = o->vm_socket ? uie_vmserver_run(&m, lfd, &stop_flag)
			 : uie_server_run(&m, &conn, lfd, &stop_flag);
	uie_mon_diag(&m, "stopping: %s (%llu denials sent to %s, %llu dropped)", uie_err_str(r),
		     (unsigned long long)denylog.sent, o->syslog ? o->syslog : "no system log",
		     (unsigned long long)denylog.dropped);
	uie_denylog_close(&denylog);
	/*
	 * The workers are not joined: they wait idle and end with the process.  A thread's
	 * exit makes calls the filter refuses in sanitizer builds (sigaltstack).
	 */
	m.workers = NULL;
	close(lfd);
	uie_guest_ram_close(&ram);
	uie_monitor_fini(&m);
	uie_vtpm_free(tpm);
	uie_host_platform_fini(&hp);
	return r == UIE_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct opts o;
	FILE *diag = stderr;
	int r;

	if ((r = parse(argc, argv, &o)) != 0)
		return r;
	if (o.log_file && !(diag = fopen(o.log_file, "ae"))) {
		fprintf(stderr, "uie-monitord: cannot open %s: %s\n", o.log_file, strerror(errno));
		return 1;
	}
	r = run(&o, diag);
	if (diag != stderr)
		fclose(diag);
	return r;
}
