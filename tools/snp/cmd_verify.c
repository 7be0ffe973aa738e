/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie snp verify REPORT --vcek FILE`: an SEV-SNP attestation report
 * verified and appraised (uie-snp-verify(1)).  Exit 0 only when the
 * signature, the chain and the appraisal hold; 1 when it is refused or
 * cannot be read; 2 for a bad command line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/pem.h>

#include "uie/err.h"

#include "cmd.h"
#include "fileio.h"
#include "hex.h"
#include "json.h"
#include "opts.h"
#include "snp_cmds.h"
#include "snp_json.h"
#include "snp_tsm.h"
#include "snp_verify.h"

#define PROG "uie snp verify"
#define MAX_MEASUREMENTS 64

struct args {
	const char *vcek, *ask, *ark, *crl, *product, *min_abi, *min_tcb, *report_data;
	const char *configfs, *nonce, *ek_out;
	uint8_t nonce_bytes[UIE_SNP_NONCE_LEN];
	const char *meas[MAX_MEASUREMENTS];
	unsigned nmeas;
	bool json, simulated;
	uint8_t allow[MAX_MEASUREMENTS][UIE_SNP_MEASUREMENT_LEN];
	uint8_t data[UIE_SNP_REPORT_DATA_LEN];
	struct uie_snp_policy pol;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: uie snp verify REPORT --vcek FILE [--ask FILE --ark FILE [--simulated]]\n"
		   "       uie snp verify --configfs DIR --nonce HEX128 [--ek-out FILE] [--vcek FILE] ...\n"
		   "         [--product milan|genoa|turin] [--crl FILE] [--json]\n"
		   "         [--allow-debug] [--allow-migration-agent] [--vmpl N] [--min-abi MAJOR.MINOR]\n"
		   "         [--min-tcb HEX16] [--measurement HEX96]... [--report-data HEX128]\n"
		   "  verifies an SEV-SNP attestation report: its VCEK chained to AMD's pinned roots,\n"
		   "  its signature, the VCEK's hwID and TCB against it, then the appraisal\n");
}

/* "MAJOR.MINOR", each 0 to 255. */
static int abi_of(const char *s, uint8_t *major, uint8_t *minor)
{
	const char *dot = strchr(s, '.');
	size_t n = dot ? (size_t)(dot - s) : SIZE_MAX;
	uint64_t hi, lo;
	char head[4];

	if (n >= sizeof(head))
		return UIE_E_FORMAT;
	memcpy(head, s, n);
	head[n] = '\0';
	if (uie_parse_u64(head, &hi) != UIE_OK || uie_parse_u64(dot + 1, &lo) != UIE_OK || hi > 255 ||
	    lo > 255)
		return UIE_E_FORMAT;
	*major = (uint8_t)hi;
	*minor = (uint8_t)lo;
	return UIE_OK;
}

/* The tenant's options into a->pol; the exit status on a bad one, or UIE_OPTS_GO. */
static int policy_of(struct args *a)
{
	uint8_t tcb[8];

	if (a->min_abi && abi_of(a->min_abi, &a->pol.min_abi_major, &a->pol.min_abi_minor) != UIE_OK) {
		fprintf(stderr, PROG ": --min-abi '%s': want MAJOR.MINOR, each 0 to 255\n", a->min_abi);
		return UIE_OPTS_EXIT_USAGE;
	}
	if (a->min_tcb) {
		if (uie_hex_decode(a->min_tcb, strlen(a->min_tcb), tcb, sizeof(tcb)) != UIE_OK) {
			fprintf(stderr,
				PROG ": --min-tcb: want the 16 hex digits of a TCB_VERSION as the report "
				     "holds it\n");
			return UIE_OPTS_EXIT_USAGE;
		}
		a->pol.check_min_tcb = true;
		a->pol.min_tcb = uie_le64(tcb);
	}
	for (unsigned i = 0; i < a->nmeas; i++)
		if (uie_hex_decode(a->meas[i], strlen(a->meas[i]), a->allow[i], UIE_SNP_MEASUREMENT_LEN) !=
		    UIE_OK) {
			fprintf(stderr, PROG ": --measurement '%s': want 96 hex digits\n", a->meas[i]);
			return UIE_OPTS_EXIT_USAGE;
		}
	a->pol.measurements = (const uint8_t(*)[UIE_SNP_MEASUREMENT_LEN])a->allow;
	a->pol.nmeasurements = a->nmeas;
	if (a->report_data) {
		if (uie_hex_decode(a->report_data, strlen(a->report_data), a->data, sizeof(a->data)) !=
		    UIE_OK) {
			fprintf(stderr, PROG ": --report-data: want 128 hex digits\n");
			return UIE_OPTS_EXIT_USAGE;
		}
		a->pol.report_data = a->data;
	}
	return UIE_OPTS_GO;
}

static int product_of(const char *name, enum uie_snp_product *p)
{
	for (int i = 0; i < UIE_SNP_PRODUCT__MAX; i++)
		if (!strcasecmp(name, uie_snp_product_name((enum uie_snp_product)i))) {
			*p = (enum uie_snp_product)i;
			return UIE_OK;
		}
	fprintf(stderr, PROG ": --product '%s': want milan, genoa or turin\n", name);
	return UIE_E_INVAL;
}

/* One certificate file (or none when path is NULL); says which on error. */
static int cert(const char *path, X509 **out)
{
	int r;

	*out = NULL;
	if (path && (r = uie_snp_cert_read_alloc(path, out)) != UIE_OK) {
		fprintf(stderr, PROG ": %s: %s\n", path,
			r == UIE_E_FORMAT ? "not an X.509 certificate (PEM or DER)" : uie_file_err_str(r));
		return r;
	}
	return UIE_OK;
}

static int crl_of(const char *path, X509_CRL **out)
{
	uint8_t *buf = NULL;
	const unsigned char *q;
	size_t len;
	BIO *bio;
	int r;

	*out = NULL;
	if (!path)
		return UIE_OK;
	if ((r = uie_file_read_alloc(path, UIE_SNP_CERT_FILE_MAX, &buf, &len)) != UIE_OK) {
		fprintf(stderr, PROG ": %s: %s\n", path, uie_file_err_str(r));
		return r;
	}
	if ((bio = BIO_new_mem_buf(buf, (int)len)) != NULL) {
		*out = PEM_read_bio_X509_CRL(bio, NULL, NULL, NULL);
		BIO_free(bio);
	}
	q = buf;
	if (!*out)
		*out = d2i_X509_CRL(NULL, &q, (long)len);
	free(buf);
	if (!*out)
		fprintf(stderr, PROG ": %s: not a CRL (PEM or DER)\n", path);
	return *out ? UIE_OK : UIE_E_FORMAT;
}

/* The verdict on stdout (JSON, with the vTPM's EK when bound) or in words; the exit status. */
static int report(const struct args *a, const char *path, const struct uie_snp_verdict *v, const uint8_t *ek,
		  size_t ek_len)
{
	char *hex = ek ? malloc(2 * ek_len + 1) : NULL;
	json_t *j = a->json ? uie_snp_verdict_json(v) : NULL;

	if (hex)
		uie_hex_encode(hex, ek, ek_len);
	if (a->json && (!j || (hex && json_object_set_new(j, "vtpm_ek", json_string(hex)) != 0) ||
			uie_json_print(j) != UIE_OK)) {
		free(hex);
		fprintf(stderr, PROG ": out of memory\n");
		return UIE_EXIT_FAIL;
	}
	free(hex);
	if (v->err == UIE_OK) {
		if (!a->json)
			printf("%s: %s%s\n", path, v->why.msg, ek ? ", bound to the vTPM's EK" : "");
		return UIE_EXIT_OK;
	}
	fprintf(stderr, PROG ": %s: %srefused: %s (%s)\n", path, v->simulated ? "SIMULATED root, " : "",
		v->why.msg, uie_err_str(v->err));
	return UIE_EXIT_FAIL;
}

/* What is verified, and where it came from. */
struct input {
	const char *name; /* the report's file or the configfs directory */
	uint8_t *report;  /* a report file's bytes (malloc'ed) */
	struct uie_snp_tsm tsm;
	struct uie_snp_cert_table aux;
	struct uie_snp_evidence ev;
	struct uie_snp_roots builtin;
};

/* A certificate of the auxblob's table into *out, when the table has it and *out is not set. */
static int aux_cert(const struct input *in, enum uie_snp_cert_kind k, X509 **out)
{
	if (*out || !in->aux.der[k])
		return UIE_OK;
	if (uie_snp_cert_parse_alloc(in->aux.der[k], in->aux.len[k], out) != UIE_OK) {
		fprintf(stderr, PROG ": %s/auxblob: a certificate is not X.509 DER\n", in->name);
		return UIE_E_FORMAT;
	}
	return UIE_OK;
}

/* The configfs-tsm directory: report, manifest, certificates (VCEK or VLEK, ASK and ARK together). */
static int from_configfs(const struct args *a, struct input *in)
{
	struct uie_snp_why why;
	X509 *ask = NULL, *ark = NULL;
	int r;

	if ((r = uie_snp_tsm_read(a->configfs, &in->tsm, &why)) != UIE_OK ||
	    (in->tsm.aux &&
	     (r = uie_snp_cert_table_parse(in->tsm.aux, in->tsm.aux_len, &in->aux, &why)) != UIE_OK)) {
		fprintf(stderr, PROG ": %s\n", why.msg);
		return r;
	}
	in->ev.report = in->tsm.report;
	in->ev.report_len = in->tsm.report_len;
	/* --vcek, when given, is the one: cert() reads it next. */
	if (!a->vcek && ((r = aux_cert(in, UIE_SNP_CERT_VCEK, &in->ev.vcek)) != UIE_OK ||
			 (r = aux_cert(in, UIE_SNP_CERT_VLEK, &in->ev.vcek)) != UIE_OK))
		return r;
	if (a->ark || a->product)
		return UIE_OK;
	/* AMD's roots as the host supplied them: still pinned (never simulated: that needs --ark). */
	if ((r = aux_cert(in, UIE_SNP_CERT_ASK, &ask)) == UIE_OK &&
	    (r = aux_cert(in, UIE_SNP_CERT_ARK, &ark)) == UIE_OK && ask && ark) {
		in->ev.ask = ask;
		in->ev.ark = ark;
		return UIE_OK;
	}
	X509_free(ask);
	X509_free(ark);
	return r;
}

static int gather(const struct args *a, struct input *in)
{
	enum uie_snp_product p;
	int r;

	if (a->configfs && (r = from_configfs(a, in)) != UIE_OK)
		return r;
	if (!a->configfs) {
		if ((r = uie_file_read_alloc(in->name, UIE_SNP_REPORT_LEN + 1, &in->report,
					     &in->ev.report_len)) != UIE_OK) {
			fprintf(stderr, PROG ": %s: %s\n", in->name, uie_file_err_str(r));
			return r;
		}
		in->ev.report = in->report;
	}
	if (!in->ev.vcek && !a->vcek) {
		fprintf(stderr, PROG ": %s: no VCEK: give --vcek\n", in->name);
		return UIE_E_NOTFOUND;
	}
	if ((!in->ev.vcek && (r = cert(a->vcek, &in->ev.vcek)) != UIE_OK) ||
	    (a->ark &&
	     ((r = cert(a->ask, &in->ev.ask)) != UIE_OK || (r = cert(a->ark, &in->ev.ark)) != UIE_OK)) ||
	    (r = crl_of(a->crl, &in->ev.crl)) != UIE_OK)
		return r;
	if (a->product && ((r = product_of(a->product, &p)) != UIE_OK ||
			   (r = uie_snp_roots_builtin(p, &in->builtin)) != UIE_OK))
		return r;
	if (a->product) {
		in->ev.ask = in->builtin.ask;
		in->ev.ark = in->builtin.ark;
	}
	return UIE_OK;
}

static void input_free(struct input *in)
{
	if (in->ev.ark != in->builtin.ark) {
		X509_free(in->ev.ask);
		X509_free(in->ev.ark);
	}
	uie_snp_roots_free(&in->builtin);
	X509_free(in->ev.vcek);
	X509_CRL_free(in->ev.crl);
	uie_snp_tsm_free(&in->tsm);
	free(in->report);
}

/*
 * --ek-out: the EK as a TPM2B_PUBLIC, the form `uie ek show --ek-out` writes
 * and `uie credential make --ek` reads (the manifest holds its TPMT_PUBLIC).
 */
static int write_tpm2b(const char *path, const uint8_t *tpmt, size_t n)
{
	uint8_t *p;
	int r;

	if (n > UINT16_MAX)
		return UIE_E_LIMIT;
	if (!(p = malloc(n + 2)))
		return UIE_E_NOMEM;
	p[0] = (uint8_t)(n >> 8);
	p[1] = (uint8_t)n;
	memcpy(p + 2, tpmt, n);
	r = uie_file_write_output(path, p, n + 2, 0644);
	free(p);
	return r;
}

/* The vTPM's EK the report binds, after it verified; into --ek-out when asked. */
static int bind_ek(const struct args *a, struct input *in, struct uie_snp_verdict *v, const uint8_t **ek,
		   size_t *ek_len)
{
	int r;

	if (v->err != UIE_OK)
		return v->err;
	if ((v->err = uie_snp_vtpm_ek(&v->report, a->nonce_bytes, in->tsm.manifest, in->tsm.manifest_len,
				      in->tsm.single, ek, ek_len, &v->why)) != UIE_OK)
		return v->err;
	if (!a->ek_out)
		return UIE_OK;
	if ((r = write_tpm2b(a->ek_out, *ek, *ek_len)) != UIE_OK)
		fprintf(stderr, PROG ": %s: %s\n", a->ek_out, uie_file_err_str(r));
	return r;
}

static int run(struct args *a, const char *name)
{
	struct input in = { .name = name, .ev = { .simulated_root = a->simulated } };
	const uint8_t *ek = NULL;
	struct uie_snp_verdict v;
	size_t ek_len = 0;
	int rc = UIE_EXIT_FAIL;

	if (gather(a, &in) == UIE_OK) {
		uie_snp_verify(&in.ev, &a->pol, &v);
		if (!a->configfs || bind_ek(a, &in, &v, &ek, &ek_len) == UIE_OK || v.err != UIE_OK)
			rc = report(a, name, &v, ek, ek_len);
	}
	input_free(&in);
	return rc;
}

int uie_cmd_snp_verify(int argc, char **argv)
{
	static struct args a;
	const struct uie_opt t[] = {
		UIE_OPT_STRING("vcek", 0, &a.vcek),
		UIE_OPT_STRING("ask", 0, &a.ask),
		UIE_OPT_STRING("ark", 0, &a.ark),
		UIE_OPT_FLAG("simulated", 0, UIE_OPTK_SET, &a.simulated),
		UIE_OPT_STRING("product", 0, &a.product),
		UIE_OPT_STRING("crl", 0, &a.crl),
		UIE_OPT_FLAG("json", 0, UIE_OPTK_SET, &a.json),
		UIE_OPT_FLAG("allow-debug", 0, UIE_OPTK_SET, &a.pol.allow_debug),
		UIE_OPT_FLAG("allow-migration-agent", 0, UIE_OPTK_SET, &a.pol.allow_migration_agent),
		UIE_OPT_NUMBER("vmpl", 0, a.pol.vmpl, 0, 3, "wants 0 to 3"),
		UIE_OPT_STRING("min-abi", 0, &a.min_abi),
		UIE_OPT_STRING("min-tcb", 0, &a.min_tcb),
		UIE_OPT_LIST("measurement", 0, a.meas, &a.nmeas, MAX_MEASUREMENTS),
		UIE_OPT_STRING("report-data", 0, &a.report_data),
		UIE_OPT_STRING("configfs", 0, &a.configfs),
		UIE_OPT_STRING("nonce", 0, &a.nonce),
		UIE_OPT_STRING("ek-out", 0, &a.ek_out),
		UIE_OPT_HELP,
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = PROG, .opt = t, .usage = usage, .min_operands = 0, .max_operands = 1
	};
	int r;

	memset(&a, 0, sizeof(a));
	a.pol.vmpl = UINT32_MAX;
	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	a.pol.check_vmpl = a.pol.vmpl != UINT32_MAX;
	if ((optind < argc) == !!a.configfs || !a.configfs != !a.nonce || (a.ek_out && !a.configfs) ||
	    (!a.configfs && !a.vcek) || !a.ask != !a.ark || (a.simulated && !a.ark) || (a.product && a.ark)) {
		fprintf(stderr,
			PROG ": give REPORT --vcek, or --configfs DIR --nonce HEX; --ask and --ark together "
			     "(--simulated only with them), or --product\n");
		return uie_opts_usage(&spec);
	}
	if (a.nonce &&
	    uie_hex_decode(a.nonce, strlen(a.nonce), a.nonce_bytes, sizeof(a.nonce_bytes)) != UIE_OK) {
		fprintf(stderr, PROG ": --nonce: want the 128 hex digits of the 64-byte nonce\n");
		return UIE_OPTS_EXIT_USAGE;
	}
	if ((r = policy_of(&a)) != UIE_OPTS_GO)
		return r;
	return run(&a, a.configfs ? a.configfs : argv[optind]);
}
