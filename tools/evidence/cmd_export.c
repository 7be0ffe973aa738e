/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie evidence export`: relays a verifier's nonce to the monitor over the
 * bridge and saves the AE it answers (and, on request, the log as CEL-JSON
 * and the attestation public key).  Like the paper's UIE-Guest it only
 * relays: nothing here can change the evidence without the verifier
 * noticing.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "cel.h"
#include "cmd.h"
#include "conn.h"
#include "evidence.h"
#include "evio.h"
#include "fileio.h"
#include "hex.h"
#include "evidence_cmds.h"
#include "uie/bridge.h"
#include "uie/err.h"

#define NONCE_DEFAULT 32

static void usage(FILE *f)
{
	fprintf(f, "usage: uie evidence export [--socket PATH] [--nonce HEX | --nonce-file FILE]\n"
		   "                           [--since N] -o FILE [--cel FILE] [--pubkey-out FILE]\n"
		   "Without a nonce, a random one is made and printed on stderr.\n");
}

struct export_opts {
	const char *socket, *out, *cel, *pubkey;
	uint8_t nonce[UIE_NONCE_MAX];
	size_t nonce_len;
	uint64_t since;
};

static int parse(int argc, char **argv, struct export_opts *o)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ "nonce", required_argument, NULL, 'n' },
		{ "nonce-file", required_argument, NULL, 'N' },
		{ "since", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "cel", required_argument, NULL, 'c' },
		{ "pubkey-out", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->socket = UIE_BRIDGE_DEFAULT_PATH;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'S': o->socket = optarg; break;
		case 'o': o->out = optarg; break;
		case 'c': o->cel = optarg; break;
		case 'p': o->pubkey = optarg; break;
		case 's':
			if (uie_parse_u64(optarg, &o->since) != UIE_OK) {
				fprintf(stderr, "uie evidence export: --since needs a record number\n");
				return UIE_EXIT_USAGE;
			}
			break;
		case 'n':
		case 'N':
			if (evio_nonce_option("uie evidence export", c == 'N', optarg, o->nonce,
					      &o->nonce_len) != UIE_OK)
				return UIE_EXIT_USAGE;
			break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return UIE_EXIT_USAGE;
		}
	}
	if (optind != argc || !o->out) {
		usage(stderr);
		return UIE_EXIT_USAGE;
	}
	return UIE_EXIT_OK;
}

/* Writes the CEL-JSON of the AE's records. */
static int write_cel(const char *path, const uint8_t *ae, size_t len)
{
	struct uie_ae a;
	char *json = NULL;
	int r;

	if ((r = uie_ae_parse(ae, len, &a)) != UIE_OK ||
	    (r = uie_cel_json_alloc(a.records, a.first_seq, a.nrecords, &json)) != UIE_OK)
		return r;
	r = evio_write(path, json, strlen(json));
	free(json);
	return r;
}

int uie_cmd_evidence_export(int argc, char **argv)
{
	struct export_opts o;
	uint8_t *ae = NULL, *der = NULL;
	size_t ae_len = 0, der_len = 0;
	char hex[2 * UIE_NONCE_MAX + 1];
	int fd = -1, r, rc;

	if ((rc = parse(argc, argv, &o)) != UIE_EXIT_OK)
		return rc < 0 ? UIE_EXIT_OK : rc;
	if (!o.nonce_len) {
		if (RAND_bytes(o.nonce, NONCE_DEFAULT) != 1) {
			fprintf(stderr, "uie evidence export: no randomness for a nonce\n");
			return UIE_EXIT_FAIL;
		}
		o.nonce_len = NONCE_DEFAULT;
		uie_hex_encode(hex, o.nonce, o.nonce_len);
		fprintf(stderr, "nonce: %s\n", hex);
	}
	if (uie_tool_connect("uie evidence export", o.socket, &fd) != UIE_OK)
		return UIE_EXIT_FAIL;
	rc = UIE_EXIT_FAIL;
	if ((r = uie_bridge_export_alloc(fd, o.nonce, o.nonce_len, o.since, &ae, &ae_len)) != UIE_OK) {
		uie_tool_peer_err("uie evidence export", o.socket, r);
		goto out;
	}
	if (o.pubkey && (r = uie_bridge_pubkey_alloc(fd, &der, &der_len)) != UIE_OK) {
		uie_tool_peer_err("uie evidence export", o.socket, r);
		goto out;
	}
	if (o.pubkey && (r = evio_write_pubkey_pem(o.pubkey, der, der_len)) != UIE_OK) {
		fprintf(stderr, "uie evidence export: %s: %s\n", o.pubkey, uie_file_err_str(r));
		goto out;
	}
	if ((r = evio_write(o.out, ae, ae_len)) != UIE_OK) {
		fprintf(stderr, "uie evidence export: %s: %s\n", o.out, uie_file_err_str(r));
		goto out;
	}
	if (o.cel && (r = write_cel(o.cel, ae, ae_len)) != UIE_OK) {
		fprintf(stderr, "uie evidence export: CEL %s: %s\n", o.cel, uie_file_err_str(r));
		goto out;
	}
	rc = UIE_EXIT_OK;
out:
	free(ae);
	free(der);
	close(fd);
	return rc;
}
