/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uie-monitord: the integrity authority.  Sets up as root (vTPM, trusted
 * policy keys, socket), drops to its own user, locks itself down, and
 * serves the bridge until SIGTERM or SIGINT.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "fileio.h"
#include "hex.h"
#include "vmram.h"
#include "host_platform.h"
#include "monitor.h"
#include "opts.h"
#include "sandbox.h"
#include "server.h"
#include "state.h"
#include "uie/err.h"
#include "snp.h"
#include "vmserver.h"
#include "vtpm.h"
#include "workers.h"

#define DEFAULT_VTPM "builtin:/var/lib/uie/ak.pem"
#define DEFAULT_USER "uie-monitor"
#define DEFAULT_STATE_DIR "/var/lib/uie/state"
#define MAX_TRUST_KEYS UIE_HOST_MAX_KEYS

struct opts {
	const char *socket, *vtpm, *user, *group, *log_file, *syslog;
	struct uie_mon_opts mon;
	const char *vm_socket, *guest_ram; /* VM mode: both, or neither */
	const char *keys[MAX_TRUST_KEYS];
	unsigned nkeys;
	bool foreground;
	int ready_fd;
	int cpu; /* -1: no pinning */
	struct uie_server_limits conn;
	struct uie_mon_limits req;
	unsigned workers;
	bool timing;
	const char *snp_sim, *snp_measurement; /* --snp-sim DIR: answer SNP_REPORT with its chain */
	uint8_t snp_meas[UIE_SNP_MEASUREMENT_LEN];
};

static volatile sig_atomic_t stop_flag;

/* --log-sync names, indexed by enum uie_log_sync. */
static const char *const log_sync_names[] = {
	[UIE_LOG_SYNC_POLICY] = "policy",
	[UIE_LOG_SYNC_ALWAYS] = "always",
	[UIE_LOG_SYNC_NONE] = "none",
};

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
		"                    " UIE_DENYLOG_DEFAULT_PATH
		", where journald or a syslog daemon reads; none: off)\n"
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
		"  --timing          when stopping, say where MEASURE requests spent their time\n"
		"                    (medians: measure, decide, log, extend; docs/PERFORMANCE.md)\n"
		"  --snp-sim DIR     stand for an SVSM: answer attestation requests with SEV-SNP\n"
		"                    reports signed by the SIMULATED chain in DIR (uie snp sim-chain;\n"
		"                    docs/ATTESTATION.md)\n"
		"  --snp-measurement HEX96  the launch MEASUREMENT those reports carry (default zero)\n"
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

/* --log-sync MODE into the uint8_t enum uie_log_sync at ctx. */
static int log_sync_option(void *log_sync, const char *arg)
{
	for (unsigned i = 0; i < sizeof(log_sync_names) / sizeof(log_sync_names[0]); i++)
		if (!strcmp(arg, log_sync_names[i])) {
			*(uint8_t *)log_sync = (uint8_t)i;
			return UIE_OPTS_GO;
		}
	fprintf(stderr, "uie-monitord: --log-sync is policy, always or none\n");
	return UIE_OPTS_EXIT_USAGE;
}

/* The command line into *o: UIE_OPTS_GO, or the exit status (0 after --help or --version). */
static int parse(int argc, char **argv, struct opts *o)
{
	const struct uie_opt t[] = {
		UIE_OPT_STRING("socket", 0, &o->socket),
		UIE_OPT_STRING("vtpm", 0, &o->vtpm),
		UIE_OPT_LIST("trust-key", 0, o->keys, &o->nkeys, MAX_TRUST_KEYS),
		UIE_OPT_STRING("user", 0, &o->user),
		UIE_OPT_STRING("group", 0, &o->group),
		UIE_OPT_FLAG("foreground", 0, UIE_OPTK_SET, &o->foreground),
		UIE_OPT_NUMBER("ready-fd", 0, o->ready_fd, 3, 1024, NULL),
		UIE_OPT_STRING("log-file", 0, &o->log_file),
		UIE_OPT_NUMBER("cpu", 0, o->cpu, 0, CPU_SETSIZE - 1, NULL),
		UIE_OPT_VERSION,
		UIE_OPT_STRING("state-dir", 0, &o->mon.state_dir),
		UIE_OPT_CALL("log-sync", 0, log_sync_option, &o->mon.log_sync),
		UIE_OPT_FLAG("first-seen", 0, UIE_OPTK_SET, &o->mon.first_seen),
		UIE_OPT_STRING("vm-socket", 0, &o->vm_socket),
		UIE_OPT_STRING("guest-ram", 0, &o->guest_ram),
		UIE_OPT_STRING("syslog", 0, &o->syslog),
		UIE_OPT_FLAG("timing", 0, UIE_OPTK_SET, &o->timing),
		UIE_OPT_STRING("snp-sim", 0, &o->snp_sim),
		UIE_OPT_STRING("snp-measurement", 0, &o->snp_measurement),
		/* The limits (docs/DESIGN.md, "Fair service"). */
		UIE_OPT_NUMBER("max-clients", 0, o->conn.max_clients, 1, UIE_SERVER_CLIENTS_CAP, NULL),
		UIE_OPT_NUMBER("max-clients-per-process", 0, o->conn.max_per_process, 1,
			       UIE_SERVER_CLIENTS_CAP, NULL),
		UIE_OPT_LIMIT("max-object-size", o->req.max_object, 4096, UINT64_MAX),
		UIE_OPT_LIMIT("max-hash-ms", o->req.max_hash_ms, 1, 3600000),
		/* A full fast-path batch must fit in the bucket. */
		UIE_OPT_LIMIT("client-quota", o->req.quota, UIE_BRIDGE_FASTPATH_MAX, UINT32_MAX),
		UIE_OPT_NUMBER("measure-workers", 0, o->workers, 0, UIE_WORKERS_MAX, NULL),
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = "uie-monitord", .opt = t, .usage = usage, .version = UIE_VERSION
	};
	int rc;

	*o = (struct opts){ .socket = UIE_BRIDGE_DEFAULT_PATH,
			    .vtpm = DEFAULT_VTPM,
			    .ready_fd = -1,
			    .cpu = -1,
			    .syslog = UIE_DENYLOG_DEFAULT_PATH,
			    .mon = { .state_dir = DEFAULT_STATE_DIR },
			    .conn = { UIE_SERVER_DEFAULT_MAX_CLIENTS, UIE_SERVER_DEFAULT_PER_PROCESS },
			    .req = { UIE_MON_DEFAULT_MAX_OBJECT, UIE_MON_DEFAULT_MAX_HASH_MS,
				     UIE_MON_DEFAULT_QUOTA },
			    .workers = UIE_WORKERS_DEFAULT };
	if ((rc = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return rc;
	if (!o->vm_socket != !o->guest_ram) {
		fprintf(stderr, "uie-monitord: --vm-socket and --guest-ram go together\n");
		return UIE_OPTS_EXIT_USAGE;
	}
	if (o->snp_measurement &&
	    (!o->snp_sim || uie_hex_decode(o->snp_measurement, strlen(o->snp_measurement), o->snp_meas,
					   sizeof(o->snp_meas)) != UIE_OK)) {
		fprintf(stderr, "uie-monitord: --snp-measurement: 96 hex digits, with --snp-sim\n");
		return UIE_OPTS_EXIT_USAGE;
	}
	/* "none" turns these off. */
	if (o->syslog && !strcmp(o->syslog, "none"))
		o->syslog = NULL;
	if (!strcmp(o->mon.state_dir, "none"))
		o->mon.state_dir = NULL;
	return UIE_OPTS_GO;
}

/* The directory a path is in must exist (levels up: 2 when the server makes the last one). */
static bool dir_exists(const char *opt, const char *path, int levels)
{
	char dir[PATH_MAX];
	const char *why;
	struct stat st;
	char *slash;

	if (strlen(path) >= sizeof(dir) || path[0] != '/') {
		fprintf(stderr, "uie-monitord: %s %s: an absolute path is needed\n", opt, path);
		return false;
	}
	memcpy(dir, path, strlen(path) + 1);
	while (levels-- > 0 && (slash = strrchr(dir, '/')))
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (stat(dir, &st) != 0)
		why = strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		why = "not a directory";
	else
		return true;
	fprintf(stderr, "uie-monitord: %s %s: %s: %s\n", opt, path, dir, why);
	return false;
}

/*
 * What can be checked before anything is written (the log file, the
 * vTPM key, the socket, the state directory): a bad argument changes
 * nothing.  0, or the exit status 2.
 */
static int check_args(const struct opts *o)
{
	int fl;

	if (o->ready_fd >= 0 && ((fl = fcntl(o->ready_fd, F_GETFL)) < 0 || (fl & O_ACCMODE) == O_RDONLY)) {
		fprintf(stderr, "uie-monitord: --ready-fd %d: %s\n", o->ready_fd,
			fl < 0 ? strerror(errno) : "not open for writing");
		return 2;
	}
	if (o->vm_socket ? !dir_exists("--vm-socket", o->vm_socket, 1)
			 : !dir_exists("--socket", o->socket, 2))
		return 2;
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

/* Says what failed (with the system error when a call failed) and returns the exit status 1. */
static int fail(FILE *diag, const char *what, int r)
{
	fprintf(diag, "uie-monitord: %s: %s\n", what, uie_file_err_str(r));
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

/* Resolves the user and group to run as (root only); 0, or the exit status 1 after saying why. */
static int identities(const struct opts *o, FILE *diag, uid_t *uid, gid_t *gid, gid_t *sock_gid)
{
	const char *user = o->user ? o->user : DEFAULT_USER;
	int r;

	*sock_gid = 0;
	if (o->group) {
		struct group *g = getgrnam(o->group);

		if (!g) {
			fprintf(diag, "uie-monitord: --group %s: no such group\n", o->group);
			return 1;
		}
		*sock_gid = g->gr_gid;
	}
	if (geteuid() != 0) {
		*uid = geteuid();
		*gid = getegid();
		if (o->user)
			fprintf(diag, "uie-monitord: --user %s: only root can switch users\n", o->user);
		return o->user ? 1 : 0;
	}
	if ((r = uie_sandbox_user(user, !o->user, uid, gid)) == UIE_OK)
		return 0;
	fprintf(diag, "uie-monitord: %s %s: %s\n", o->user ? "--user" : "user", user,
		r == UIE_E_NOTFOUND ? "no such user" : uie_file_err_str(r));
	return 1;
}

/* The process: not dumpable, no core, on its CPU, private files; who it will run as. */
static int setup_process(const struct opts *o, FILE *diag, uid_t *uid, gid_t *gid, gid_t *sock_gid)
{
	struct rlimit nocore = { 0, 0 };

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
	return identities(o, diag, uid, gid, sock_gid);
}

/* The trusted keys and the vTPM, warmed up: what quoting needs is loaded before the filter. */
static int setup_trust(const struct opts *o, FILE *diag, struct uie_host_platform *hp, struct uie_vtpm **tpm)
{
	uint8_t *der = NULL, *att = NULL, *sig = NULL;
	size_t dl, al, sl;
	int r;

	for (unsigned i = 0; i < o->nkeys; i++)
		if ((r = uie_host_platform_add_key_file(hp, o->keys[i], NULL)) != UIE_OK)
			return fail(diag, o->keys[i], r);
	make_key_dir(o->vtpm);
	if ((r = uie_vtpm_open(o->vtpm, tpm)) != UIE_OK)
		return fail(diag, o->vtpm, r);
	r = uie_vtpm_pubkey_alloc(*tpm, &der, &dl);
	if (r == UIE_OK)
		r = uie_vtpm_quote_alloc(*tpm, (const uint8_t *)"warm-up", 7, &att, &al, &sig, &sl);
	free(der);
	free(att);
	free(sig);
	return r == UIE_OK ? 0 : fail(diag, "vTPM warm-up", r);
}

/* VM mode: one guest, reached only through its port; objects read from its RAM. */
static int setup_vm(const struct opts *o, FILE *diag, struct uie_vmram *ram, int *lfd)
{
	int r;

	if ((r = uie_vmram_open(o->guest_ram, ram)) != UIE_OK)
		return fail(diag, o->guest_ram, r);
	if ((r = uie_vmserver_listen(o->vm_socket, lfd)) != UIE_OK)
		return fail(diag, o->vm_socket, r);
	return 0;
}

/* The socket (or VM mode's port and guest RAM): 0, or the exit status 1 after saying why. */
static int setup_serving(const struct opts *o, FILE *diag, gid_t gid, struct uie_vmram *ram, int *lfd)
{
	int r;

	if (o->vm_socket)
		return setup_vm(o, diag, ram, lfd);
	if ((r = uie_server_listen(o->socket, gid, lfd)) == UIE_OK)
		return 0;
	fprintf(diag, "uie-monitord: --socket %s: %s\n", o->socket,
		r != UIE_E_STATE      ? uie_file_err_str(r)
		: errno == EADDRINUSE ? "a running monitor serves it"
		: errno == EISDIR     ? "is a directory"
		: errno == ENOTSOCK   ? "something other than a socket is there"
		: errno == ENOTDIR
			? "its directory is not a directory"
			: "its directory is not ours alone (another owner, or writable by others)");
	return 1;
}

/* A start that failed after the socket was made removes it again; returns status. */
static int unlisten(const struct opts *o, int status)
{
	unlink(o->vm_socket ? o->vm_socket : o->socket);
	return status;
}

/* A monitor that trusts no key can never install a policy: said where it is seen. */
static void warn_no_keys(FILE *diag)
{
	static const char msg[] = "uie-monitord: WARNING: no --trust-key: no policy can ever be "
				  "installed, so this monitor stays in bootstrap (measure only: "
				  "every program runs)\n";

	fputs(msg, diag);
	fflush(diag);
	if (diag != stderr)
		fputs(msg, stderr);
}

/* --timing: the samples, in static storage (a fixed size, one monitor per process). */
static struct uie_mon_timing timing;

/* --snp-sim: the simulated chain, loaded before anything is created (one monitor per process). */
static struct uie_mon_snp snp;

static int setup_snp(const struct opts *o, FILE *diag)
{
	struct uie_snp_why why;

	if (!o->snp_sim)
		return 0;
	if (uie_mon_snp_load(o->snp_sim, o->snp_measurement ? o->snp_meas : NULL, &snp, &why) == UIE_OK)
		return 0;
	fprintf(diag, "uie-monitord: --snp-sim %s\n", why.msg);
	return 1;
}

static int run(const struct opts *o, FILE *diag)
{
	struct uie_host_platform hp;
	struct uie_monitor m;
	struct uie_server_limits conn = o->conn;
	struct uie_workers workers = { .wake = { -1, -1 } };
	struct uie_denylog denylog;
	struct uie_vtpm *tpm = NULL;
	struct uie_vmram ram = { .fd = -1 };
	struct uie_mon_opts mo = o->mon;
	uid_t uid = 0;
	gid_t gid = 0, sock_gid = 0;
	int lfd = -1, r;

	if ((r = setup_process(o, diag, &uid, &gid, &sock_gid)) != 0 || (r = setup_snp(o, diag)) != 0)
		return r;
	if ((r = uie_host_platform_init(&hp)) != UIE_OK)
		return fail(diag, "platform", r);
	/*
	 * The state directory first, locked and checked: a monitor refused there (another one
	 * runs over it, or it is damaged) creates no vTPM key, changes no clock file and leaves
	 * no socket.
	 */
	if (mo.state_dir && uie_mon_state_claim(mo.state_dir, &hp.pl, mo.log_sync, diag, &mo.state) != UIE_OK)
		return 1; /* said on diag */
	if ((r = setup_trust(o, diag, &hp, &tpm)) != 0 ||
	    (r = setup_serving(o, diag, sock_gid, &ram, &lfd)) != 0) {
		uie_mon_state_free(mo.state);
		return r;
	}
	if (!o->nkeys)
		warn_no_keys(diag);
	mo.limits = &o->req;
	mo.ram = o->vm_socket ? &ram : NULL;
	mo.denylog = &denylog;
	mo.trust_keys = o->nkeys;
	if ((r = uie_denylog_open(&denylog, o->syslog)) != UIE_OK) {
		uie_mon_state_free(mo.state);
		return unlisten(o, fail(diag, "--syslog", r));
	}
	if ((r = uie_mon_init_opts(&m, &hp.pl, tpm, diag, &mo)) != UIE_OK)
		return unlisten(o, fail(diag, mo.state_dir ? mo.state_dir : "monitor core", r));
	if ((r = uie_server_limits_apply(&conn, &m)) != UIE_OK)
		return unlisten(o, fail(diag, "connection limits", r));
	if (o->timing) {
		m.timing = &timing;
		m.log.timed = true;
	}
	if (o->snp_sim) {
		m.snp = &snp;
		uie_mon_diag(&m, "SNP reports from the SIMULATED chain %s (not AMD's)", o->snp_sim);
	}
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
		uie_mon_diag(&m, "VM mode: guest RAM %s (%llu MiB)", o->guest_ram,
			     (unsigned long long)(ram.size >> 20));
	uie_mon_diag(&m, "serving %s as uid %u (vTPM %s, %u trusted keys)",
		     o->vm_socket ? o->vm_socket : o->socket, (unsigned)uid, o->vtpm, o->nkeys);
	if (o->ready_fd >= 0) {
		if (write(o->ready_fd, "READY\n", 6) != 6)
			return fail(diag, "--ready-fd", UIE_E_SYS);
		close(o->ready_fd);
	}
	r = o->vm_socket ? uie_vmserver_run(&m, lfd, &stop_flag) : uie_server_run(&m, &conn, lfd, &stop_flag);
	uie_mon_diag(&m, "stopping: %s (%llu denials sent to %s, %llu dropped)", uie_err_str(r),
		     (unsigned long long)denylog.sent, o->syslog ? o->syslog : "no system log",
		     (unsigned long long)denylog.dropped);
	uie_mon_timing_print(&m);
	uie_denylog_close(&denylog);
	/*
	 * The workers are not joined: they wait idle and end with the process.  A thread's
	 * exit makes calls the filter refuses in sanitizer builds (sigaltstack).
	 */
	m.workers = NULL;
	close(lfd);
	uie_vmram_close(&ram);
	uie_mon_fini(&m);
	uie_vtpm_free(tpm);
	uie_mon_snp_free(&snp);
	uie_host_platform_fini(&hp);
	return r == UIE_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct opts o;
	FILE *diag = stderr;
	int r;

	if ((r = parse(argc, argv, &o)) != UIE_OPTS_GO)
		return r;
	if ((r = check_args(&o)) != 0)
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
