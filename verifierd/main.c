/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uie-verifierd: the fleet verifier (docs/VERIFIER.md).  Options, the
 * database and its migrations, then the HTTP(S) server until SIGTERM or
 * SIGINT.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "admin.h"
#include "db.h"
#include "fileio.h"
#include "hex.h"
#include "opts.h"
#include "ratelimit.h"
#include "retention.h"
#include "server.h"
#include "uie/err.h"
#include "vd.h"

#define PEM_FILE_MAX (1u << 20)
#define RATE_MAX 1000000u

struct opts {
	const char *listen, *conninfo, *schema_dir, *cert, *key, *client_ca, *admin_token;
	struct vd_config cfg;
	struct vd_server_opts srv;
	unsigned rate, burst; /* requests a second and burst per client address; rate 0: off */
	unsigned keep_days;   /* verdicts kept; 0: all */
};

static void usage(FILE *f)
{
	fprintf(f, "usage: uie-verifierd --listen ADDR:PORT --db CONNINFO --schema-dir DIR\n"
		   "         [--tls-cert PEM --tls-key PEM [--tls-client-ca PEM]] [--admin-token FILE]\n"
		   "         [--name NAME] [--threads N] [--max-body BYTES] [--max-per-client N]\n"
		   "         [--silent-after N] [--nonce-ttl S] [--max-nonces N] [--rate N/s|off]\n"
		   "         [--burst N] [--idle-timeout S] [--request-timeout S] [--keep-verdicts DAYS]\n");
}

/* --rate N/s (1..RATE_MAX) or off. */
static int rate_option(void *ctx, const char *arg)
{
	unsigned *rate = ctx;
	const char *slash = strchr(arg, '/');
	char n[16];
	uint64_t v;

	if (strcmp(arg, "off") == 0) {
		*rate = 0;
		return UIE_OPTS_GO;
	}
	if (slash && strcmp(slash, "/s") == 0 && (size_t)(slash - arg) < sizeof(n)) {
		memcpy(n, arg, (size_t)(slash - arg));
		n[slash - arg] = '\0';
		if (uie_parse_u64(n, &v) == UIE_OK && v >= 1 && v <= RATE_MAX) {
			*rate = (unsigned)v;
			return UIE_OPTS_GO;
		}
	}
	fprintf(stderr, "uie-verifierd: bad --rate '%s' (N/s, requests a second, 1 to %u; or off)\n", arg,
		(unsigned)RATE_MAX);
	return UIE_OPTS_EXIT_USAGE;
}

static int listen_addr(const char *s, struct vd_server_opts *o)
{
	const char *colon = strrchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : SIZE_MAX;
	char host[64];
	struct in_addr a;
	uint64_t port;

	if (n < sizeof(host)) {
		memcpy(host, s, n);
		host[n] = '\0';
	}
	if (n >= sizeof(host) || uie_parse_u64(colon + 1, &port) != UIE_OK || port > 65535 ||
	    inet_pton(AF_INET, host, &a) != 1) {
		fprintf(stderr, "uie-verifierd: --listen %s: not an IPv4 address and port\n", s);
		return UIE_E_FORMAT;
	}
	o->addr = ntohl(a.s_addr);
	o->port = (uint16_t)port;
	return UIE_OK;
}

/* The command line into *o: UIE_OPTS_GO, or the exit status (0 after --help). */
static int parse(int argc, char **argv, struct opts *o)
{
	const struct uie_opt t[] = {
		UIE_OPT_STRING("listen", 0, &o->listen),
		UIE_OPT_STRING("db", 0, &o->conninfo),
		UIE_OPT_STRING("schema-dir", 0, &o->schema_dir),
		UIE_OPT_STRING("tls-cert", 0, &o->cert),
		UIE_OPT_STRING("tls-key", 0, &o->key),
		UIE_OPT_STRING("tls-client-ca", 0, &o->client_ca),
		UIE_OPT_STRING("admin-token", 0, &o->admin_token),
		UIE_OPT_STRING("name", 0, &o->cfg.name),
		UIE_OPT_NUMBER("threads", 0, o->srv.threads, 1, 64, NULL),
		UIE_OPT_NUMBER("max-body", 0, o->cfg.max_body, 1024, 1u << 30, NULL),
		UIE_OPT_NUMBER("max-per-client", 0, o->srv.per_client, 1, 1024, NULL),
		UIE_OPT_NUMBER("silent-after", 0, o->cfg.silent_after, 1, 1000, NULL),
		UIE_OPT_NUMBER("nonce-ttl", 0, o->cfg.nonce_ttl, 1, 3600, NULL),
		UIE_OPT_NUMBER("max-nonces", 0, o->cfg.max_nonces, 1, 1000, NULL),
		UIE_OPT_CALL("rate", 0, rate_option, &o->rate),
		UIE_OPT_NUMBER("burst", 0, o->burst, 1, RATE_MAX, NULL),
		UIE_OPT_NUMBER("idle-timeout", 0, o->srv.idle_timeout, 1, 3600, NULL),
		UIE_OPT_NUMBER("request-timeout", 0, o->srv.request_timeout, 1, 3600, NULL),
		UIE_OPT_NUMBER("keep-verdicts", 0, o->keep_days, 1, 36500, NULL),
		UIE_OPT_VERSION,
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = "uie-verifierd", .opt = t, .usage = usage, .version = UIE_VERSION
	};
	int rc;

	*o = (struct opts){
		.cfg = { .name = "verifierd",
			 .silent_after = 3,
			 .nonce_ttl = 60,
			 .max_nonces = 8,
			 .max_body = 8u << 20 },
		.srv = { .threads = 4, .per_client = 16, .idle_timeout = 30, .request_timeout = 60 },
		.rate = 50,
		.burst = 100
	};
	if ((rc = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return rc;
	if (!o->listen || !o->conninfo || !o->schema_dir)
		return uie_opts_usage(&spec);
	if (!o->cert != !o->key || (o->client_ca && !o->cert)) {
		fprintf(stderr, "uie-verifierd: %s\n",
			!o->cert != !o->key ? "--tls-cert and --tls-key go together"
					    : "--tls-client-ca needs --tls-cert and --tls-key");
		return UIE_OPTS_EXIT_USAGE;
	}
	return listen_addr(o->listen, &o->srv) == UIE_OK ? UIE_OPTS_GO : UIE_OPTS_EXIT_USAGE;
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
		fprintf(stderr, "uie-verifierd: %s %s: %s\n", what, path,
			r == UIE_E_FORMAT ? "holds a NUL byte" : uie_file_err_str(r));
	return r;
}

/* The administrator's token of --admin-token path (NULL: NULL, administrative calls off). */
static int read_admin_token(const char *path, const char **token)
{
	const char *why = NULL;
	struct stat st;
	uint8_t *b;
	size_t n;
	int r;

	*token = NULL;
	if (!path)
		return UIE_OK;
	if ((r = uie_file_read_alloc(path, VD_ADMIN_TOKEN_MAX + 2, &b, &n)) != UIE_OK) {
		fprintf(stderr, "uie-verifierd: --admin-token %s: %s\n", path, uie_file_err_str(r));
		return r;
	}
	r = vd_admin_token_parse_alloc(b, n, (char **)token, &why);
	OPENSSL_cleanse(b, n);
	free(b);
	if (r != UIE_OK)
		fprintf(stderr, "uie-verifierd: --admin-token %s: %s\n", path, why ? why : uie_err_str(r));
	else if (stat(path, &st) == 0 && (st.st_mode & 077))
		fprintf(stderr,
			"uie-verifierd: warning: --admin-token %s is readable or writable by others (mode "
			"%03o): whoever reads it is the administrator\n",
			path, (unsigned)(st.st_mode & 0777));
	return r;
}

static int serve(struct opts *o)
{
	char why[VD_DB_WHY_LEN] = "", swhy[VD_SERVER_WHY_LEN];
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
	else if ((r = vd_server_start_alloc(&ctx, &o->srv, &srv, &port, swhy)) != UIE_OK && r == UIE_E_FORMAT)
		fprintf(stderr, "uie-verifierd: %s\n", swhy);
	else if (r != UIE_OK)
		fprintf(stderr, "uie-verifierd: --listen %s: %s\n", o->listen,
			swhy[0] ? swhy : uie_file_err_str(r));
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

	if ((r = parse(argc, argv, &o)) != UIE_OPTS_GO)
		return r;
	if ((r = read_pem("--tls-cert", o.cert, &o.srv.tls_cert)) == UIE_OK &&
	    (r = read_pem("--tls-key", o.key, &o.srv.tls_key)) == UIE_OK &&
	    (r = read_pem("--tls-client-ca", o.client_ca, &o.srv.client_ca)) == UIE_OK &&
	    (r = read_admin_token(o.admin_token, &o.srv.admin_token)) == UIE_OK)
		r = serve(&o);
	free((char *)o.srv.tls_cert);
	free((char *)o.srv.tls_key);
	free((char *)o.srv.client_ca);
	if (o.srv.admin_token)
		OPENSSL_cleanse((char *)o.srv.admin_token, strlen(o.srv.admin_token));
	free((char *)o.srv.admin_token);
	return r == UIE_OK ? 0 : 1;
}
