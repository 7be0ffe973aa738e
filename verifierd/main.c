/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uie-verifierd: the fleet verifier (docs/VERIFIER.md).  Options, the
 * database and its migrations, then the HTTP(S) server until SIGTERM or
 * SIGINT.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fileio.h"
#include "hex.h"
#include "ratelimit.h"
#include "retention.h"
#include "server.h"
#include "uie/err.h"
#include "vd.h"

#define PEM_FILE_MAX (1u << 20)
#define RATE_MAX 1000000u

struct opts {
	const char *listen, *conninfo, *schema_dir, *cert, *key, *client_ca;
	struct vd_config cfg;
	struct vd_server_opts srv;
	unsigned rate, burst; /* requests a second and burst per client address; rate 0: off */
	unsigned keep_days;   /* verdicts kept; 0: all */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: uie-verifierd --listen ADDR:PORT --db CONNINFO --schema-dir DIR\n"
		   "         [--tls-cert PEM --tls-key PEM [--tls-client-ca PEM]] [--name NAME]\n"
		   "         [--threads N] [--max-body BYTES] [--max-per-client N] [--silent-after N]\n"
		   "         [--nonce-ttl S] [--max-nonces N] [--rate N/s|off] [--burst N]\n"
		   "         [--idle-timeout S] [--keep-verdicts DAYS]\n");
}

/* A decimal option value in [min, max]. */
static int number(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *v)
{
	if (uie_parse_u64(arg, v) != UIE_OK || *v < min || *v > max) {
		fprintf(stderr, "uie-verifierd: --%s needs a number %llu..%llu\n", opt,
			(unsigned long long)min, (unsigned long long)max);
		return UIE_E_FORMAT;
	}
	return UIE_OK;
}

/* The numeric options: their letter, name, range and where they go. */
static int number_option(int c, const char *arg, struct opts *o)
{
	const struct {
		int c;
		const char *name;
		uint64_t min, max;
		unsigned *u; /* or */
		size_t *z;
	} t[] = {
		{ 't', "threads", 1, 64, &o->srv.threads, NULL },
		{ 'b', "max-body", 1024, 1u << 30, NULL, &o->cfg.max_body },
		{ 'p', "max-per-client", 1, 1024, &o->srv.per_client, NULL },
		{ 'S', "silent-after", 1, 1000, &o->cfg.silent_after, NULL },
		{ 'T', "nonce-ttl", 1, 3600, &o->cfg.nonce_ttl, NULL },
		{ 'N', "max-nonces", 1, 1000, &o->cfg.max_nonces, NULL },
		{ 'B', "burst", 1, RATE_MAX, &o->burst, NULL },
		{ 'I', "idle-timeout", 1, 3600, &o->srv.idle_timeout, NULL },
		{ 'K', "keep-verdicts", 1, 36500, &o->keep_days, NULL },
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (t[i].c != c)
			continue;
		if (number(t[i].name, arg, t[i].min, t[i].max, &v) != UIE_OK)
			return UIE_E_FORMAT;
		if (t[i].u)
			*t[i].u = (unsigned)v;
		else
			*t[i].z = (size_t)v;
		return UIE_OK;
	}
	return UIE_E_FORMAT;
}

/* --rate N/s (1..RATE_MAX) or off. */
static int rate_option(const char *arg, struct opts *o)
{
	const char *slash = strchr(arg, '/');
	char n[16];
	uint64_t v;

	if (strcmp(arg, "off") == 0) {
		o->rate = 0;
		return UIE_OK;
	}
	if (!slash || strcmp(slash, "/s") != 0 || (size_t)(slash - arg) >= sizeof(n)) {
		fprintf(stderr, "uie-verifierd: --rate needs N/s (requests a second) or off\n");
		return UIE_E_FORMAT;
	}
	memcpy(n, arg, (size_t)(slash - arg));
	n[slash - arg] = '\0';
	if (number("rate", n, 1, RATE_MAX, &v) != UIE_OK)
		return UIE_E_FORMAT;
	o->rate = (unsigned)v;
	return UIE_OK;
}

static int listen_addr(const char *s, struct vd_server_opts *o)
{
	const char *colon = strrchr(s, ':');
	char host[64];
	struct in_addr a;
	uint64_t port;

	if (!colon || (size_t)(colon - s) >= sizeof(host) ||
	    number("listen port", colon + 1, 0, 65535, &port) != UIE_OK)
		return UIE_E_FORMAT;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	if (inet_pton(AF_INET, host, &a) != 1) {
		fprintf(stderr, "uie-verifierd: --listen %s: not an IPv4 address and port\n", s);
		return UIE_E_FORMAT;
	}
	o->addr = ntohl(a.s_addr);
	o->port = (uint16_t)port;
	return UIE_OK;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "db", required_argument, NULL, 'd' },
		{ "schema-dir", required_argument, NULL, 's' },
		{ "tls-cert", required_argument, NULL, 'c' },
		{ "tls-key", required_argument, NULL, 'k' },
		{ "tls-client-ca", required_argument, NULL, 'a' },
		{ "name", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 't' },
		{ "max-body", required_argument, NULL, 'b' },
		{ "max-per-client", required_argument, NULL, 'p' },
		{ "silent-after", required_argument, NULL, 'S' },
		{ "nonce-ttl", required_argument, NULL, 'T' },
		{ "max-nonces", required_argument, NULL, 'N' },
		{ "rate", required_argument, NULL, 'r' },
		{ "burst", required_argument, NULL, 'B' },
		{ "idle-timeout", required_argument, NULL, 'I' },
		{ "keep-verdicts", required_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r = UIE_OK;

	*o = (struct opts){ .cfg = { .name = "verifierd",
				     .silent_after = 3,
				     .nonce_ttl = 60,
				     .max_nonces = 8,
				     .max_body = 8u << 20 },
			    .srv = { .threads = 4, .per_client = 16, .idle_timeout = 30 },
			    .rate = 50,
			    .burst = 100 };
	while (r == UIE_OK && (c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'l': o->listen = optarg; break;
		case 'd': o->conninfo = optarg; break;
		case 's': o->schema_dir = optarg; break;
		case 'c': o->cert = optarg; break;
		case 'k': o->key = optarg; break;
		case 'a': o->client_ca = optarg; break;
		case 'n': o->cfg.name = optarg; break;
		case 't':
		case 'b':
		case 'p':
		case 'S':
		case 'T':
		case 'N':
		case 'B':
		case 'I':
		case 'K': r = number_option(c, optarg, o); break;
		case 'r': r = rate_option(optarg, o); break;
		case 'h': usage(stdout); exit(0);
		default: r = UIE_E_FORMAT;
		}
	}
	if (r == UIE_OK && (optind != argc || !o->listen || !o->conninfo || !o->schema_dir ||
			    !o->cert != !o->key || (o->client_ca && !o->cert)))
		r = UIE_E_FORMAT;
	if (r == UIE_OK)
		r = listen_addr(o->listen, &o->srv);
	if (r != UIE_OK)
		usage(stderr);
	return r;
}

/* A PEM file as a NUL-terminated string in *text (NULL path: NULL). */
static int read_pem(const char *what, const char *path, const char **text)
{
	uint8_t *b;
	size_t n;
	int r;

	*text = NULL;
	if (!path)
		return UIE_OK;
	if ((r = uie_file_read_alloc(path, PEM_FILE_MAX, &b, &n)) == UIE_OK) {
		if (memchr(b, 0, n) || !(*text = strndup((char *)b, n)))
			r = UIE_E_FORMAT; /* a NUL byte (or no memory) */
		free(b);
	}
	if (r != UIE_OK)
		fprintf(stderr, "uie-verifierd: %s %s: %s\n", what, path, uie_err_str(r));
	return r;
}

static int serve(struct opts *o)
{
	char why[VD_DB_WHY_LEN] = "";
	struct vd_server *srv = NULL;
	struct vd_retention *ret = NULL;
	struct vd_db *db = NULL;
	uint64_t pruned;
	struct vd_ctx ctx;
	sigset_t stop;
	uint16_t port;
	int r, sig;

	if ((r = vd_db_open_alloc(o->conninfo, o->srv.threads, &db, why)) != UIE_OK ||
	    (r = vd_db_migrate(db, o->schema_dir, why)) != UIE_OK) {
		fprintf(stderr, "uie-verifierd: database: %s%s\n", why, why[0] ? "" : uie_err_str(r));
		vd_db_free(db);
		return r;
	}
	ctx = (struct vd_ctx){ .db = db, .cfg = &o->cfg };
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, NULL); /* before our threads, which inherit it */
	if (o->keep_days && ((r = vd_retention_prune(db, o->keep_days, &pruned)) != UIE_OK ||
			     (r = vd_retention_start_alloc(db, o->keep_days, &ret)) != UIE_OK))
		fprintf(stderr, "uie-verifierd: pruning the verdicts: %s\n", uie_err_str(r));
	else if (o->rate && !(o->srv.rate = vd_rate_alloc(o->rate, o->burst)))
		fprintf(stderr, "uie-verifierd: rate limit: %s\n", uie_err_str(r = UIE_E_NOMEM));
	else if ((r = vd_server_start_alloc(&ctx, &o->srv, &srv, &port)) != UIE_OK)
		fprintf(stderr, "uie-verifierd: cannot serve on %s (address in use, or TLS files)\n",
			o->listen);
	if (r == UIE_OK) {
		printf("listening on %u\n", port);
		fflush(stdout);
		sigwait(&stop, &sig);
	}
	vd_server_free(srv);
	vd_retention_free(ret);
	vd_rate_free(o->srv.rate);
	vd_db_free(db);
	return r;
}

int main(int argc, char **argv)
{
	struct opts o;
	int r;

	if (parse(argc, argv, &o) != UIE_OK)
		return 2;
	if ((r = read_pem("--tls-cert", o.cert, &o.srv.tls_cert)) == UIE_OK &&
	    (r = read_pem("--tls-key", o.key, &o.srv.tls_key)) == UIE_OK &&
	    (r = read_pem("--tls-client-ca", o.client_ca, &o.srv.client_ca)) == UIE_OK)
		r = serve(&o);
	free((char *)o.srv.tls_cert);
	free((char *)o.srv.tls_key);
	free((char *)o.srv.client_ca);
	return r == UIE_OK ? 0 : 1;
}
