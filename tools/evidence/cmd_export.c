/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie evidence export`: relays a verifier's nonce to the monitor over the
 * bridge and saves the AE it answers (and, on request, the log as CEL-JSON
 * and the attestation public key).  Like the paper's UIE-Guest it only
 * relays: nothing here can change the evidence without the verifier
 * noticing.
 */
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
#include "opts.h"
#include "subcmds.h"
#include "uie/bridge.h"
#include "uie/err.h"

#define NONCE_DEFAULT 32
#define CMD "uie evidence export"

static void usage(FILE *f)
{
	fprintf(f, "usage: uie evidence export [--socket PATH] [--nonce HEX | --nonce-file FILE]\n"
		   "                           [--since N] -o FILE [--cel FILE] [--pubkey-out FILE]\n"
		   "Without a nonce, a random one is made and printed on stderr.\n");
}

struct export_opts {
	const char *socket, *out, *cel, *pubkey;
	struct evio_nonce nonce;
	uint64_t since;
};

static int parse(int argc, char **argv, struct export_opts *o)
{
	const struct uie_opt t[] = {
		UIE_OPT_STRING("socket", 0, &o->socket),
		UIE_OPT_CALL("nonce", 0, evio_nonce_hex, &o->nonce),
		UIE_OPT_CALL("nonce-file", 0, evio_nonce_file, &o->nonce),
		UIE_OPT_NUMBER("since", 0, o->since, 0, UINT64_MAX, "needs a record number"),
		UIE_OPT_STRING("output", 'o', &o->out),
		UIE_OPT_STRING("cel", 0, &o->cel),
		UIE_OPT_STRING("pubkey-out", 0, &o->pubkey),
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = CMD, .opt = t, .usage = usage };
	int rc;

	*o = (struct export_opts){ .socket = UIE_BRIDGE_DEFAULT_PATH, .nonce.cmd = CMD };
	if ((rc = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return rc;
	if (!o->out)
		return uie_opts_usage(&spec);
	return UIE_OPTS_GO;
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
	r = uie_file_write_output(path, json, strlen(json), 0644);
	free(json);
	return r;
}

/* Says which output (what, path) could not be written; returns r. */
static int output_err(const char *what, const char *path, int r)
{
	fprintf(stderr, "uie evidence export: %s%s: %s\n", what, path, uie_file_err_str(r));
	return r;
}

/* Writes each output asked for: the AE, the AK's public key, the CEL-JSON. */
static int write_outputs(const struct export_opts *o, const uint8_t *ae, size_t ae_len, const uint8_t *der,
			 size_t der_len)
{
	int r;

	if (o->pubkey && (r = evio_write_pubkey_pem(o->pubkey, der, der_len)) != UIE_OK)
		return output_err("", o->pubkey, r);
	if ((r = uie_file_write_output(o->out, ae, ae_len, 0644)) != UIE_OK)
		return output_err("", o->out, r);
	if (o->cel && (r = write_cel(o->cel, ae, ae_len)) != UIE_OK)
		return output_err("CEL ", o->cel, r);
	return UIE_OK;
}

/* Why the monitor has no records from since: past its last one, or dropped at a checkpoint. */
static void say_range(int fd, const char *sock, uint64_t since)
{
	struct uie_status st;

	if (uie_bridge_status(fd, &st) == UIE_OK && since > st.nrecords)
		fprintf(stderr,
			"uie evidence export: --since %llu: the monitor at %s has only %llu records\n",
			(unsigned long long)since, sock, (unsigned long long)st.nrecords);
	else
		fprintf(stderr,
			"uie evidence export: --since %llu: the monitor at %s no longer holds those records: "
			"a "
			"checkpoint (uie evidence checkpoint) dropped them from its memory; they stay in its "
			"log file\n",
			(unsigned long long)since, sock);
}

int uie_cmd_evidence_export(int argc, char **argv)
{
	struct export_opts o;
	uint8_t *ae = NULL, *der = NULL;
	size_t ae_len = 0, der_len = 0;
	char hex[2 * UIE_NONCE_MAX + 1];
	int fd = -1, r, rc;

	if ((rc = parse(argc, argv, &o)) != UIE_OPTS_GO)
		return rc;
	if (!o.nonce.len) {
		if (RAND_bytes(o.nonce.bytes, NONCE_DEFAULT) != 1) {
			fprintf(stderr, "uie evidence export: no randomness for a nonce\n");
			return UIE_EXIT_FAIL;
		}
		o.nonce.len = NONCE_DEFAULT;
		uie_hex_encode(hex, o.nonce.bytes, o.nonce.len);
		fprintf(stderr, "nonce: %s\n", hex);
	}
	if (uie_tool_connect("uie evidence export", o.socket, &fd) != UIE_OK)
		return UIE_EXIT_FAIL;
	rc = UIE_EXIT_FAIL;
	if ((r = uie_bridge_export_alloc(fd, o.nonce.bytes, o.nonce.len, o.since, &ae, &ae_len)) ==
	    UIE_E_RANGE) {
		say_range(fd, o.socket, o.since);
		goto out;
	}
	if (r != UIE_OK) {
		uie_tool_peer_err("uie evidence export", o.socket, r);
		goto out;
	}
	if (o.pubkey && (r = uie_bridge_pubkey_alloc(fd, &der, &der_len)) != UIE_OK) {
		uie_tool_peer_err("uie evidence export", o.socket, r);
		goto out;
	}
	if (write_outputs(&o, ae, ae_len, der, der_len) == UIE_OK)
		rc = UIE_EXIT_OK;
out:
	free(ae);
	free(der);
	close(fd);
	return rc;
}
