/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie verify`: checks an AE against the nonce we sent, the attestation
 * key, the reference manifest and the policy packages, and remembers the
 * monitor's clock and log prefix in a state file.  The exit code is the
 * class of the first failing check (lib/host/verify.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "subcmds.h"
#include "evidence.h"
#include "attested.h"
#include "evio.h"
#include "fileio.h"
#include "json.h"
#include "opts.h"
#include "uie/names.h"
#include "hex.h"
#include "uie/err.h"
#include "uie/package.h"
#include "host_platform.h"
#include "verify.h"

#define MAX_POLICIES 16

/* The exit status when the attested AK's chain fails (beside the classes of lib/host/verify.h). */
#define EXIT_ATTESTATION 23

struct verify_opts {
	const char *ae, *ak, *ref, *state, *pol[MAX_POLICIES];
	unsigned npol;
	struct evio_nonce nonce;
	bool json;
	struct attested att; /* --snp ...: the AK from an attestation instead of --ak-pub */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uie verify AE --nonce HEX|--nonce-file FILE --ak-pub PEM\n"
		"                  [--reference MANIFEST] [--policy PACKAGE]... [--state FILE] [--json]\n"
		"       uie verify AE --nonce HEX ... --snp DIR --snp-nonce HEX --ak FILE --challenge FILE\n"
		"                  --activated FILE [uie snp verify's roots and appraisal options]\n"
		"exit codes: 0 accepted, 1 error, 2 usage, 10 parse, 11 signature, 12 quote,\n"
		"  13 nonce, 14 pcr-selection, 15 pcr-digest, 16 replay, 17 continuity,\n"
		"  18 metadata, 19 reference, 20 policy, 21 clock, 22 violation, 23 attestation\n");
}

static int parse(int argc, char **argv, struct verify_opts *o)
{
	const struct uie_opt t[] = {
		UIE_OPT_CALL("nonce", 0, evio_nonce_hex, &o->nonce),
		UIE_OPT_CALL("nonce-file", 0, evio_nonce_file, &o->nonce),
		UIE_OPT_STRING("ak-pub", 0, &o->ak),
		UIE_OPT_STRING("reference", 0, &o->ref),
		UIE_OPT_LIST("policy", 0, o->pol, &o->npol, MAX_POLICIES),
		UIE_OPT_STRING("state", 0, &o->state),
		UIE_OPT_FLAG("json", 0, UIE_OPTK_SET, &o->json),
		ATTESTED_OPTS(&o->att),
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = "uie verify", .opt = t, .usage = usage, .min_operands = 1, .max_operands = 1
	};
	int rc;

	*o = (struct verify_opts){ .nonce.cmd = "uie verify" };
	attested_init(&o->att, "uie verify");
	if ((rc = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return rc;
	if (!o->nonce.len || !o->ak == !attested_given(&o->att))
		return uie_opts_usage(&spec);
	if (!o->ak && (rc = attested_finish(&o->att)) != UIE_OPTS_GO)
		return rc;
	o->ae = argv[optind];
	return UIE_OPTS_GO;
}

/* Everything read from files, owned here. */
struct inputs {
	uint8_t *ae, *ak, *pkg[MAX_POLICIES];
	size_t ae_len, ak_len;
	struct uie_refset ref;
	struct uie_verify_policy pols[MAX_POLICIES];
	struct uie_verify_state prev;
};

static void inputs_fini(struct inputs *in)
{
	free(in->ae);
	free(in->ak);
	for (size_t i = 0; i < MAX_POLICIES; i++)
		free(in->pkg[i]);
	uie_refset_fini(&in->ref);
}

static int load_policy(const struct uie_platform *pl, const char *path, uint8_t **buf,
		       struct uie_verify_policy *out)
{
	struct uie_package pkg;
	size_t len;
	int r;

	if ((r = evio_read_alloc(path, buf, &len)) != UIE_OK ||
	    (r = uie_package_parse(pl, *buf, len, &pkg)) != UIE_OK ||
	    (r = uie_policy_load(pkg.table, pkg.table_len, &out->table)) != UIE_OK)
		return r;
	out->epoch = pkg.epoch;
	memcpy(out->package_hash, pkg.package_hash, sizeof(out->package_hash));
	return UIE_OK;
}

/* The AK traced through the attestation (attested.h) into in->ak; EXIT_ATTESTATION when a link fails. */
static int load_attested(struct verify_opts *o, struct inputs *in)
{
	uint8_t *der = NULL;
	size_t len = 0;

	if (attested_ak_alloc(&o->att, &der, &len) != UIE_OK)
		return EXIT_ATTESTATION;
	if ((in->ak = malloc(len)) != NULL) {
		memcpy(in->ak, der, len);
		in->ak_len = len;
	}
	OPENSSL_free(der);
	return in->ak ? UIE_EXIT_OK : UIE_EXIT_FAIL;
}

static int load(const struct uie_platform *pl, const struct verify_opts *o, struct inputs *in)
{
	uint8_t *text;
	size_t len, line = 0;
	int r;

	if ((r = evio_read_alloc(o->ae, &in->ae, &in->ae_len)) != UIE_OK) {
		fprintf(stderr, "uie verify: %s: %s\n", o->ae, uie_file_err_str(r));
		return r;
	}
	if (o->ak && (r = evio_pubkey_der_alloc(o->ak, &in->ak, &in->ak_len)) != UIE_OK) {
		fprintf(stderr, "uie verify: attestation key %s: %s\n", o->ak, uie_file_err_str(r));
		return r;
	}
	if (o->ref) {
		if ((r = evio_read_alloc(o->ref, &text, &len)) == UIE_OK)
			r = uie_refset_parse((const char *)text, len, &in->ref, &line);
		free(text);
		if (r != UIE_OK && line)
			fprintf(stderr, "uie verify: reference manifest %s:%zu: %s\n", o->ref, line,
				uie_file_err_str(r));
		else if (r != UIE_OK)
			fprintf(stderr, "uie verify: reference manifest %s: %s\n", o->ref,
				r == UIE_E_FORMAT ? "JSON without \"manifest\" and \"entries\""
						  : uie_file_err_str(r));
		if (r != UIE_OK)
			return r;
	}
	for (size_t i = 0; i < o->npol; i++) {
		if ((r = load_policy(pl, o->pol[i], &in->pkg[i], &in->pols[i])) != UIE_OK) {
			fprintf(stderr, "uie verify: policy package %s: %s\n", o->pol[i],
				uie_file_err_str(r));
			return r;
		}
		for (size_t k = 0; k < i; k++)
			if (in->pols[k].epoch == in->pols[i].epoch) {
				fprintf(stderr, "uie verify: two policy packages for epoch %llu\n",
					(unsigned long long)in->pols[i].epoch);
				return UIE_E_ORDER;
			}
	}
	if (o->state && (r = uie_verify_state_load(o->state, &in->prev)) != UIE_OK) {
		fprintf(stderr, "uie verify: state %s: %s\n", o->state, uie_file_err_str(r));
		return r;
	}
	return UIE_OK;
}

static void print_human(const struct uie_verify_report *rep, const struct verify_opts *o)
{
	char pcr[2 * UIE_PCR_LEN + 1];

	uie_hex_encode(pcr, rep->vpcr, UIE_PCR_LEN);
	if (rep->cls == UIE_V_OK)
		printf("uie verify: ACCEPTED\n");
	else
		printf("uie verify: REJECTED (%s): %s\n", uie_verify_class_name(rep->cls), rep->reason);
	if (rep->has_seq)
		printf("  first record at fault: %llu\n", (unsigned long long)rep->seq);
	if (rep->cls == UIE_V_PARSE || rep->cls == UIE_V_INTERNAL)
		return;
	if (rep->nrecords)
		printf("  records:   %llu-%llu (%llu in this evidence)\n", (unsigned long long)rep->first_seq,
		       (unsigned long long)(rep->first_seq + rep->nrecords - 1),
		       (unsigned long long)rep->nrecords);
	else
		printf("  records:   none after %llu\n", (unsigned long long)rep->first_seq);
	printf("  vPCR16:    %s\n", pcr);
	printf("  claimed:   mode %s, epoch %llu\n", uie_mode_key(rep->mode), (unsigned long long)rep->epoch);
	if (!o->ak) {
		char m[2 * UIE_SNP_MEASUREMENT_LEN + 1];

		uie_hex_encode(m, o->att.measurement, sizeof(o->att.measurement));
		printf("  AK:        attested: SEV-SNP report%s, launch measurement %s; EK -> AK by "
		       "credential\n",
		       o->att.simulated ? " under a SIMULATED root" : " under AMD's root", m);
	}
	if (rep->cls == UIE_V_SIGNATURE)
		return;
	printf("  clock:     %llu ms, resetCount %u, restartCount %u, safe %u\n",
	       (unsigned long long)rep->clock, rep->reset_count, rep->restart_count, rep->safe);
	if (rep->cls != UIE_V_OK && rep->cls < UIE_V_METADATA)
		return;
	printf("  execute requests: %llu records\n", (unsigned long long)rep->exec_records);
	if (o->ref)
		printf("  reference: %llu digests checked, %llu unknown but denied\n",
		       (unsigned long long)rep->ref_checked, (unsigned long long)rep->unknown_denied);
	else
		printf("  reference: not checked (no --reference)\n");
	printf("  decisions: %llu checked against the policy, %llu in epochs without a --policy\n",
	       (unsigned long long)rep->decisions_checked, (unsigned long long)rep->decisions_unchecked);
	const struct {
		const char *label, *what;
		uint64_t n, first;
	} refused[] = {
		{ "execmod:  ", "requests refused: pages a write had copied, or write and execute together",
		  rep->execmod_records, rep->execmod_first },
		{ "unsealed: ", "grants refused: the file could not be sealed against writes",
		  rep->unsealed_records, rep->unsealed_first },
		{ "remote fs:", "grants refused: the file system is not trusted by the policy",
		  rep->remote_fs_records, rep->remote_fs_first },
		{ "mutable:  ", "grants refused: the policy requires immutable sources", rep->mutable_records,
		  rep->mutable_first },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (refused[i].n)
			printf("  %s %llu %s (first: record %llu)\n", refused[i].label,
			       (unsigned long long)refused[i].n, refused[i].what,
			       (unsigned long long)refused[i].first);
	if (rep->repeat_records)
		printf("  repeats:   %llu repeat count records (first-seen mode), %llu of them for records "
		       "before this evidence\n",
		       (unsigned long long)rep->repeat_records, (unsigned long long)rep->repeat_unresolved);
	if (rep->subject_records)
		printf("  subjects:  %llu subject records (first-seen mode), %llu of them naming a program "
		       "granted before this evidence\n",
		       (unsigned long long)rep->subject_records, (unsigned long long)rep->subject_unresolved);
	if (rep->restarted) {
		uie_hex_encode(pcr, rep->prev_pcr, UIE_PCR_LEN);
		printf("  restart:   this monitor run continues run %llu, whose log ended after %llu "
		       "records at vPCR16 %s\n",
		       (unsigned long long)rep->prev_boot, (unsigned long long)rep->prev_records, pcr);
	}
}

/*
 * The REPEAT_COUNT records of accepted evidence, in log order: record
 * (the first-seen record counted), count (requests it stands for so far)
 * and at (the count record).  A later entry for a record supersedes.
 */
static json_t *repeat_counts(const uint8_t *buf, size_t len, bool accepted)
{
	struct uie_log_record r;
	struct uie_ae ae;
	json_t *a = json_array();

	if (!a || !accepted || uie_ae_parse(buf, len, &ae) != UIE_OK)
		return a;
	for (uint64_t i = 0; i < ae.nrecords; i++)
		if (uie_log_decode(ae.records + i * UIE_LOG_RECORD_LEN, UIE_LOG_RECORD_LEN, &r) == UIE_OK &&
		    r.event_type == UIE_LOG_REPEAT_COUNT &&
		    json_array_append_new(
			    a, json_pack("{s:o, s:o, s:o}", "record", uie_json_u64(r.file_offset), "count",
					 uie_json_u64(r.length), "at", uie_json_u64(r.seq))) != 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/*
 * The SUBJECT records of accepted evidence, in log order: record (the
 * grant), program (the EXECVE record of the program it was made for),
 * digest (that program's, hex) and at (the subject record).
 */
static json_t *subjects(const uint8_t *buf, size_t len, bool accepted)
{
	char hex[2 * UIE_DIGEST_MAX + 1];
	struct uie_log_record r;
	struct uie_ae ae;
	json_t *a = json_array();

	if (!a || !accepted || uie_ae_parse(buf, len, &ae) != UIE_OK)
		return a;
	for (uint64_t i = 0; i < ae.nrecords; i++) {
		if (uie_log_decode(ae.records + i * UIE_LOG_RECORD_LEN, UIE_LOG_RECORD_LEN, &r) != UIE_OK ||
		    r.event_type != UIE_LOG_SUBJECT)
			continue;
		uie_hex_encode(hex, r.digest.bytes, r.digest.len);
		if (json_array_append_new(a,
					  json_pack("{s:I, s:I, s:s, s:I}", "record",
						    (json_int_t)r.file_offset, "program", (json_int_t)r.vaddr,
						    "digest", hex, "at", (json_int_t)r.seq)) != 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* How the AK was traced (--snp ...): under which root, for which launch measurement. */
static json_t *attested_json(const struct attested *a)
{
	char m[2 * UIE_SNP_MEASUREMENT_LEN + 1];

	uie_hex_encode(m, a->measurement, sizeof(a->measurement));
	return json_pack("{s:s, s:b, s:s}", "by", "sev-snp report and credential", "simulated", a->simulated,
			 "measurement", m);
}

static int print_json(const struct uie_verify_report *rep, const struct verify_opts *o, const uint8_t *ae,
		      size_t ae_len)
{
	char pcr[2 * UIE_PCR_LEN + 1];
	json_t *j;

	uie_hex_encode(pcr, rep->vpcr, UIE_PCR_LEN);
	j = json_pack("{s:b, s:s, s:i, s:s, s:o, s:o, s:o, s:s, s:s, s:o, s:{s:o, s:o, s:o, s:i}, "
		      "s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o*, s:o, s:o, s:o*}",
		      "accepted", rep->cls == UIE_V_OK, "result", uie_verify_class_name(rep->cls),
		      "exit_code", rep->cls, "reason", rep->reason, "bad_record",
		      rep->has_seq ? uie_json_u64(rep->seq) : json_null(), "first_seq",
		      uie_json_u64(rep->first_seq), "nrecords", uie_json_u64(rep->nrecords), "vpcr16", pcr,
		      "mode", uie_mode_name(rep->mode), "epoch", uie_json_u64(rep->epoch), "clock", "clock",
		      uie_json_u64(rep->clock), "reset_count", uie_json_u64(rep->reset_count),
		      "restart_count", uie_json_u64(rep->restart_count), "safe", rep->safe, "exec_records",
		      uie_json_u64(rep->exec_records), "reference_checked", o->ref != NULL, "reference_hits",
		      uie_json_u64(rep->ref_checked), "unknown_denied", uie_json_u64(rep->unknown_denied),
		      "decisions_checked", uie_json_u64(rep->decisions_checked), "decisions_unchecked",
		      uie_json_u64(rep->decisions_unchecked), "execmod_records",
		      uie_json_u64(rep->execmod_records), "unsealed_records",
		      uie_json_u64(rep->unsealed_records), "remote_fs_records",
		      uie_json_u64(rep->remote_fs_records), "mutable_records",
		      uie_json_u64(rep->mutable_records), "repeat_records", uie_json_u64(rep->repeat_records),
		      "repeat_unresolved", uie_json_u64(rep->repeat_unresolved), "repeat_counts",
		      repeat_counts(ae, ae_len, rep->cls == UIE_V_OK), "subject_records",
		      uie_json_u64(rep->subject_records), "subject_unresolved",
		      uie_json_u64(rep->subject_unresolved), "subjects",
		      subjects(ae, ae_len, rep->cls == UIE_V_OK));
	if (j && !o->ak && json_object_set_new(j, "ak_attested", attested_json(&o->att)) != 0) {
		json_decref(j);
		j = NULL;
	}
	return uie_json_print(j);
}

int uie_cmd_verify(int argc, char **argv)
{
	struct uie_host_platform hp;
	struct verify_opts o;
	struct inputs in;
	struct uie_verify_input vin;
	struct uie_verify_report rep;
	int rc, r;

	if ((rc = parse(argc, argv, &o)) != UIE_OPTS_GO)
		return rc;
	memset(&in, 0, sizeof(in));
	if (uie_host_platform_init(&hp) != UIE_OK)
		return UIE_EXIT_FAIL;
	if (!o.ak && (rc = load_attested(&o, &in)) != UIE_EXIT_OK)
		goto out;
	rc = UIE_EXIT_FAIL;
	if (load(&hp.pl, &o, &in) != UIE_OK)
		goto out;
	vin = (struct uie_verify_input){
		.ae = in.ae,
		.ae_len = in.ae_len,
		.nonce = o.nonce.bytes,
		.nonce_len = o.nonce.len,
		.ak_der = in.ak,
		.ak_der_len = in.ak_len,
		.ref = o.ref ? &in.ref : NULL,
		.pols = in.pols,
		.npols = o.npol,
		.prev = o.state ? &in.prev : NULL,
	};
	rc = uie_verify_ae(&hp.pl, &vin, &rep);
	/* A package for an epoch the log never reached checked nothing: said, not silently ignored. */
	for (size_t i = 0; rc == UIE_V_OK && i < o.npol; i++)
		if (!(rep.pols_seen & (1ull << i)))
			fprintf(stderr,
				"uie verify: warning: policy package %s is for epoch %llu, which no record "
				"of "
				"the evidence is of: it checked nothing\n",
				o.pol[i], (unsigned long long)in.pols[i].epoch);
	if (rc == UIE_V_OK && o.state && (r = uie_verify_state_save(o.state, &rep.next)) != UIE_OK) {
		fprintf(stderr, "uie verify: saving state %s: %s\n", o.state, uie_file_err_str(r));
		rc = UIE_EXIT_FAIL;
	}
	if (o.json ? print_json(&rep, &o, in.ae, in.ae_len) != UIE_OK : (print_human(&rep, &o), 0))
		rc = UIE_EXIT_FAIL;
out:
	inputs_fini(&in);
	uie_host_platform_fini(&hp);
	return rc;
}
