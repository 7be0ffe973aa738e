/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uie-verifierd: the fleet verifier (docs/VERIFIER.md).  Options, the
 * database and its migrations, then the HTTP(S) server until SIGTERM or
 * SIGINT.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fileio.h"
#include "hex.h"
#include "opts.h"
#include "server.h"
#include "uie/err.h"
#include "vd.h"

#define PEM_FILE_MAX (1u << 20)

struct opts {
	const char *listen, *conninfo, *schema_dir, *cert, *key, *client_ca;
	struct vd_config cfg;
	struct vd_server_opts srv;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: uie-verifierd --listen ADDR:PORT --db CONNINFO --schema-dir DIR\n"
		   "         [--tls-cert PEM --tls-key PEM [--tls-client-ca PEM]] [--name NAME]\n"
		   "         [--threads N] [--max-body BYTES] [--max-per-client N] [--silent-after N]\n"
		   "         [--nonce-ttl S] [--max-nonces N]\n");
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
		UIE_OPT_STRING("name", 0, &o->cfg.name),
		UIE_OPT_NUMBER("threads", 0, o->srv.threads, 1, 64, NULL),
		UIE_OPT_NUMBER("max-body", 0, o->cfg.max_body, 1024, 1u << 30, NULL),
		UIE_OPT_NUMBER("max-per-client", 0, o->srv.per_client, 1, 1024, NULL),
		UIE_OPT_NUMBER("silent-after", 0, o->cfg.silent_after, 1, 1000, NULL),
		UIE_OPT_NUMBER("nonce-ttl", 0, o->cfg.nonce_ttl, 1, 3600, NULL),
		UIE_OPT_NUMBER("max-nonces", 0, o->cfg.max_nonces, 1, 1000, NULL),
		UIE_OPT_HELP,
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = "uie-verifierd", .opt = t, .usage = usage };
	int rc;

	*o = (struct opts){ .cfg = { .name = "verifierd",
				     .silent_after = 3,
				     .nonce_ttl = 60,
				     .max_nonces = 8,
				     .max_body = 8u << 20 },
			    .srv = { .threads = 4, .per_client = 16 } };
	if ((rc = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return rc;
	if (!o->listen || !o->conninfo || !o->schema_dir || !o->cert != !o->key ||
	    (o->client_ca && !o->cert) || listen_addr(o->listen, &o->srv) != UIE_OK)
		return uie_opts_usage(&spec);
	return UIE_OPTS_GO;
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
	struct vd_db *db = NULL;
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
	pthread_sigmask(SIG_BLOCK, &stop, NULL); /* before the server's threads, which inherit it */
	if ((r = vd_server_start_alloc(&ctx, &o->srv, &srv, &port)) != UIE_OK) {
		fprintf(stderr, "uie-verifierd: cannot serve on %s (address in use, or TLS files)\n",
			o->listen);
		vd_db_free(db);
		return r;
	}
	printf("listening on %u\n", port);
	fflush(stdout);
	sigwait(&stop, &sig);
	vd_server_free(srv);
	vd_db_free(db);
	return UIE_OK;
}

int main(int argc, char **argv)
{
	struct opts o;
	int r;

	if ((r = parse(argc, argv, &o)) != UIE_OPTS_GO)
		return r;
	if ((r = read_pem("--tls-cert", o.cert, &o.srv.tls_cert)) == UIE_OK &&
	    (r = read_pem("--tls-key", o.key, &o.srv.tls_key)) == UIE_OK &&
	    (r = read_pem("--tls-client-ca", o.client_ca, &o.srv.client_ca)) == UIE_OK)
		r = serve(&o);
	free((char *)o.srv.tls_cert);
	free((char *)o.srv.tls_key);
	free((char *)o.srv.client_ca);
	return r == UIE_OK ? 0 : 1;
}
