/* SPDX-License-Identifier: Apache-2.0 */
#include "ev_helpers.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "uie/err.h"
#include "uie/policy.h"

char *ev_mkdtemp(void)
{
	const char *base = getenv("TMPDIR");
	char *t;

	if (!base || !*base)
		base = "/tmp";
	if (asprintf(&t, "%s/uie-ev-XXXXXX", base) < 0)
		return NULL;
	if (!mkdtemp(t)) {
		free(t);
		return NULL;
	}
	return t;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void ev_rmdir(char *dir)
{
	if (!dir)
		return;
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

char *ev_path(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

int ev_write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return UIE_E_IO;
	ok = fwrite(p, 1, n, f) == n;
	ok = fclose(f) == 0 && ok;
	return ok ? UIE_OK : UIE_E_IO;
}

uint8_t *ev_read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long sz;

	*n = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)sz + 1)) && fread(b, 1, (size_t)sz, f) == (size_t)sz) {
		b[sz] = 0;
		*n = (size_t)sz;
	} else {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

int ev_write_pubkey_pem(const char *path, const uint8_t *der, size_t len)
{
	const unsigned char *p = der;
	EVP_PKEY *pk = d2i_PUBKEY(NULL, &p, (long)len);
	FILE *f;
	int ok;

	if (!pk)
		return UIE_E_KEY;
	if (!(f = fopen(path, "w"))) {
		EVP_PKEY_free(pk);
		return UIE_E_IO;
	}
	ok = PEM_write_PUBKEY(f, pk) == 1;
	ok = fclose(f) == 0 && ok;
	EVP_PKEY_free(pk);
	return ok ? UIE_OK : UIE_E_IO;
}

static int run(char *const argv[], bool verbose, const char *out)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (!verbose) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (out) {
			int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (o < 0)
				_exit(126);
			dup2(o, 1);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int ev_run(char *const argv[], bool verbose)
{
	return run(argv, verbose, NULL);
}

int ev_run_out(char *const argv[], const char *out)
{
	return run(argv, false, out);
}

/* Whether op (bind or connect) succeeds for a TCP socket and 127.0.0.1:port. */
static bool loopback_tcp(int port, int (*op)(int, const struct sockaddr *, socklen_t))
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

	if (fd < 0)
		return false;
	ok = op(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

static bool unix_open(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), ok;

	if (fd < 0 || strlen(path) >= sizeof(a.sun_path)) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	strcpy(a.sun_path, path);
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

static int swtpm_try(const char *dir, bool unix_socket, struct ev_swtpm *s)
{
	char state[4200], server[4200], ctrl[4200];

	memset(s, 0, sizeof(*s));
	if (unix_socket) {
		if (snprintf(s->path, sizeof(s->path), "%s/tpm.sock", dir) >= (int)sizeof(s->path) - 5)
			return UIE_E_LIMIT;
		snprintf(server, sizeof(server), "type=unixio,path=%s", s->path);
		snprintf(ctrl, sizeof(ctrl), "type=unixio,path=%s.ctrl", s->path);
	} else {
		for (int tries = 0; tries < 200 && !s->port; tries++) {
			int p = 20000 + 2 * (rand() % 20000);

			if (loopback_tcp(p, bind) && loopback_tcp(p + 1, bind))
				s->port = p;
		}
		if (!s->port)
			return UIE_E_SYS;
		snprintf(server, sizeof(server), "type=tcp,port=%d,bindaddr=127.0.0.1", s->port);
		snprintf(ctrl, sizeof(ctrl), "type=tcp,port=%d,bindaddr=127.0.0.1", s->port + 1);
	}
	snprintf(state, sizeof(state), "dir=%s", dir);
	s->pid = fork();
	if (s->pid < 0)
		return UIE_E_SYS;
	if (s->pid == 0) {
		char *argv[] = { "swtpm",
				 "socket",
				 "--tpmstate",
				 state,
				 "--tpm2",
				 "--server",
				 server,
				 "--ctrl",
				 ctrl,
				 "--flags",
				 "not-need-init,startup-clear",
				 NULL };
		execvp(argv[0], argv);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		int st;

		if (unix_socket ? unix_open(s->path) : loopback_tcp(s->port, connect))
			return UIE_OK;
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = 0;
			return UIE_E_SYS;
		}
		usleep(10000);
	}
	ev_swtpm_stop(s);
	return UIE_E_SYS;
}

/*
 * A free TCP port can be taken between the check and swtpm's bind (by any
 * process's outgoing connection): a swtpm that exits at once is started
 * again on other ports.
 */
int ev_swtpm_start(const char *dir, bool unix_socket, struct ev_swtpm *s)
{
	int r = UIE_E_SYS;

	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	for (int attempt = 0; attempt < 5; attempt++) {
		r = swtpm_try(dir, unix_socket, s);
		if (r == UIE_OK || unix_socket)
			break;
	}
	return r;
}

void ev_swtpm_stop(struct ev_swtpm *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
	}
	s->pid = 0;
}

void ev_digest(char c, struct uie_digest *d)
{
	char s[32];
	int n = snprintf(s, sizeof(s), "uie-test-object-%c", c);

	memset(d, 0, sizeof(*d));
	d->alg = UIE_HASH_SHA256;
	d->len = 32;
	SHA256((const unsigned char *)s, (size_t)n, d->bytes);
}

static int sink_append(void *ctx, const uint8_t rec[UIE_LOG_RECORD_LEN], const uint8_t lrh[UIE_PCR_LEN])
{
	struct ev_log *l = ctx;
	int r;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		uint8_t *nr = realloc(l->recs, cap * UIE_LOG_RECORD_LEN);

		if (!nr)
			return UIE_E_NOMEM;
		l->recs = nr;
		l->cap = cap;
	}
	if (l->tpm && (r = uie_vtpm_extend(l->tpm, lrh)) != UIE_OK)
		return r;
	memcpy(l->recs + l->n * UIE_LOG_RECORD_LEN, rec, UIE_LOG_RECORD_LEN);
	l->n++;
	return UIE_OK;
}

/* The log's platform and the sink its core appends through; the core is the caller's. */
static int log_setup(struct ev_log *l, struct uie_vtpm *tpm, struct uie_log_sink *sink)
{
	memset(l, 0, sizeof(*l));
	l->tpm = tpm;
	*sink = (struct uie_log_sink){ .ctx = l, .append = sink_append };
	return uie_host_platform_init(&l->hp);
}

int ev_log_init(struct ev_log *l, struct uie_vtpm *tpm)
{
	struct uie_log_sink sink;
	int r = log_setup(l, tpm, &sink);

	return r != UIE_OK ? r : uie_core_init(&l->core, &l->hp.pl, &sink, UIE_HASH_SHA256);
}

int ev_log_init_restart(struct ev_log *l, struct uie_vtpm *tpm, const struct uie_core_prev *prev)
{
	struct uie_log_sink sink;
	int r = log_setup(l, tpm, &sink);

	return r != UIE_OK ? r : uie_core_init_restart(&l->core, &l->hp.pl, &sink, UIE_HASH_SHA256, prev);
}

void ev_log_fini(struct ev_log *l)
{
	free(l->recs);
	free(l->table);
	uie_host_platform_fini(&l->hp);
	memset(l, 0, sizeof(*l));
}

int ev_log_decide(struct ev_log *l, uint16_t ev, uint8_t role, char c)
{
	struct uie_req q = { .event = ev, .role = role, .pid = 42, .vaddr = 0x400000, .length = 4096 };
	struct uie_verdict v;
	struct uie_digest d;

	q.id.ino = (uint64_t)c;
	q.id.size = 4096;
	if (role == UIE_ROLE_ANON)
		return uie_core_decide(&l->core, &q, UIE_OK, NULL, UIE_SCOPE_NONE, &v);
	ev_digest(c, &d);
	return uie_core_decide(&l->core, &q, UIE_OK, &d, UIE_SCOPE_ELF, &v);
}

int ev_log_mmap(struct ev_log *l, char c)
{
	return ev_log_decide(l, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, c);
}

static int install(struct ev_log *l)
{
	struct uie_policy_rule rules[3];
	struct uie_digest d;
	const char names[3] = { 'A', 'B', 'C' };
	const uint8_t ev[3] = { UIE_EV_EXECVE, UIE_EV_EXECVE, UIE_EV_MMAP_EXEC };
	const uint8_t role[3] = { UIE_ROLE_MAIN, UIE_ROLE_INTERP, UIE_ROLE_DSO };
	size_t cap;
	int r;

	memset(rules, 0, sizeof(rules));
	for (int i = 0; i < 3; i++) {
		ev_digest(names[i], &d);
		rules[i].event = ev[i];
		rules[i].role = role[i];
		rules[i].action = UIE_ALLOW;
		memcpy(rules[i].digest, d.bytes, 32);
	}
	/* Canonical order: by digest first. */
	for (int i = 0; i < 3; i++)
		for (int j = i + 1; j < 3; j++)
			if (uie_policy_rule_cmp(&rules[j], &rules[i], 32) < 0) {
				struct uie_policy_rule t = rules[i];

				rules[i] = rules[j];
				rules[j] = t;
			}
	cap = uie_policy_encoded_len(UIE_HASH_SHA256, 3);
	if (!(l->table = malloc(cap)))
		return UIE_E_NOMEM;
	if ((r = uie_policy_encode(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, rules, 3, l->table, cap,
				   &l->table_len)) != UIE_OK)
		return r;
	/* A stand-in package hash: the verifier compares it with the install record. */
	SHA256(l->table, l->table_len, l->pkg_hash);
	l->pol.epoch = 1;
	memcpy(l->pol.package_hash, l->pkg_hash, 32);
	if ((r = uie_policy_load(l->table, l->table_len, &l->pol.table)) != UIE_OK)
		return r;
	return uie_core_install(&l->core, l->table, l->table_len, 1, l->pkg_hash);
}

int ev_log_scenario(struct ev_log *l)
{
	int r;

	if ((r = ev_log_decide(l, UIE_EV_EXECVE, UIE_ROLE_MAIN, 'A')) != UIE_OK ||
	    (r = ev_log_decide(l, UIE_EV_EXECVE, UIE_ROLE_INTERP, 'B')) != UIE_OK ||
	    (r = install(l)) != UIE_OK ||
	    (r = ev_log_decide(l, UIE_EV_EXECVE, UIE_ROLE_MAIN, 'A')) != UIE_OK ||
	    (r = ev_log_decide(l, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, 'C')) != UIE_OK ||
	    (r = ev_log_decide(l, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, 'D')) != UIE_OK ||
	    (r = ev_log_decide(l, UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON, 'x')) != UIE_OK)
		return r;
	return UIE_OK;
}

char *ev_manifest(const char *letters)
{
	size_t cap = strlen(letters) * 100 + 64, off;
	char *m = malloc(cap);
	struct uie_digest d;

	if (!m)
		return NULL;
	off = (size_t)snprintf(m, cap, "# uie reference manifest v1\n");
	for (const char *c = letters; *c; c++) {
		ev_digest(*c, &d);
		off += (size_t)snprintf(m + off, cap - off, "role=dso digest=sha256:");
		for (int i = 0; i < 32; i++)
			off += (size_t)snprintf(m + off, cap - off, "%02x", d.bytes[i]);
		off += (size_t)snprintf(m + off, cap - off, " path=/usr/lib/obj-%c\n", *c);
	}
	return m;
}

int ev_pcr_at(struct ev_log *l, uint64_t k, uint8_t pcr[32])
{
	uint64_t bad;

	memset(pcr, 0, 32);
	if (k > l->n)
		return UIE_E_RANGE;
	return uie_log_replay(&l->hp.pl, l->recs, (size_t)k * UIE_LOG_RECORD_LEN, 0, pcr, &bad);
}

int ev_export(struct ev_log *l, struct uie_vtpm *tpm, const uint8_t *nonce, size_t nonce_len, uint64_t since,
	      uint8_t **ae, size_t *ae_len)
{
	struct uie_ae a;
	uint8_t *att = NULL, *sig = NULL;
	int r;

	*ae = NULL;
	*ae_len = 0;
	memset(&a, 0, sizeof(a));
	if (since > l->n)
		return UIE_E_RANGE;
	a.nonce = nonce;
	a.nonce_len = nonce_len;
	a.first_seq = since;
	a.nrecords = l->n - since;
	a.records = l->recs + since * UIE_LOG_RECORD_LEN;
	a.pm.mode = l->core.mode;
	a.pm.epoch = l->core.epoch;
	memcpy(a.pm.policy_id, l->core.policy_id, 32);
	a.pm.total_records = l->n;
	if ((r = ev_pcr_at(l, since, a.start_pcr)) != UIE_OK ||
	    (r = uie_vtpm_read_pcr16(tpm, a.vpcr)) != UIE_OK ||
	    (r = uie_vtpm_quote_alloc(tpm, nonce, nonce_len, &att, &a.attest_len, &sig, &a.sig_len)) !=
		    UIE_OK)
		goto out;
	a.attest = att;
	a.sig = sig;
	r = uie_ae_build_alloc(&a, ae, ae_len);
out:
	free(att);
	free(sig);
	return r;
}

bool ev_same_pubkey(struct uie_vtpm *tpm, const uint8_t *der, size_t len)
{
	uint8_t *d;
	size_t l;
	bool same;

	if (uie_vtpm_pubkey_alloc(tpm, &d, &l) != UIE_OK)
		return false;
	same = l == len && memcmp(d, der, len) == 0;
	free(d);
	return same;
}
