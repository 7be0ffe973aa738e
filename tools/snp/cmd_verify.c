/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie snp verify REPORT --vcek FILE`: an SEV-SNP attestation report
 * verified and appraised (uie-snp-verify(1)).  Exit 0 only when the
 * signature, the chain and the appraisal hold; 1 when it is refused or
 * cannot be read; 2 for a bad command line.
 */
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
#include "snp_verify.h"

#define PROG "uie snp verify"
#define MAX_MEASUREMENTS 64

struct args {
	const char *vcek, *ask, *ark, *crl, *product, *min_abi, *min_tcb, *report_data;
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
		   "         [--product milan|genoa|turin] [--crl FILE] [--json]\n"
		   "         [--allow-debug] [--allow-migration-agent] [--vmpl N] [--min-abi MAJOR.MINOR]\n"
		   "         [--min-tcb HEX16] [--measurement HEX96]... [--report-data HEX128]\n"
		   "  verifies an SEV-SNP attestation report: its VCEK chained to AMD's pinned roots,\n"
		   "  its signature, the VCEK's hwID and TCB against it, then the appraisal\n");
}

/* The tenant's options into a->pol; the exit status on a bad one, or UIE_OPTS_GO. */
static int policy_of(struct args *a)
{
	unsigned major, minor;
	uint8_t tcb[8];
	char end;

	if (a->min_abi) {
		if (sscanf(a->min_abi, "%u.%u%c", &major, &minor, &end) != 2 || major > 255 || minor > 255) {
			fprintf(stderr, PROG ": --min-abi '%s': want MAJOR.MINOR, each 0 to 255\n",
				a->min_abi);
			return UIE_OPTS_EXIT_USAGE;
		}
		a->pol.min_abi_major = (uint8_t)major;
		a->pol.min_abi_minor = (uint8_t)minor;
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

/* The verdict on stdout (JSON) or stderr (words); the exit status. */
static int report(const struct args *a, const char *path, const struct uie_snp_verdict *v)
{
	if (a->json && uie_json_print(uie_snp_verdict_json(v)) != UIE_OK) {
		fprintf(stderr, PROG ": out of memory\n");
		return UIE_EXIT_FAIL;
	}
	if (v->err == UIE_OK) {
		if (!a->json)
			printf("%s: %s\n", path, v->why.msg);
		return UIE_EXIT_OK;
	}
	fprintf(stderr, PROG ": %s: %srefused: %s (%s)\n", path, v->simulated ? "SIMULATED root, " : "",
		v->why.msg, uie_err_str(v->err));
	return UIE_EXIT_FAIL;
}

static int run(struct args *a, const char *path)
{
	struct uie_snp_evidence ev = { .simulated_root = a->simulated };
	struct uie_snp_roots builtin = { 0 };
	enum uie_snp_product p;
	struct uie_snp_verdict v;
	uint8_t *buf = NULL;
	int r, rc = UIE_EXIT_FAIL;

	if ((r = uie_file_read_alloc(path, UIE_SNP_REPORT_LEN + 1, &buf, &ev.report_len)) != UIE_OK) {
		fprintf(stderr, PROG ": %s: %s\n", path, uie_file_err_str(r));
		return UIE_EXIT_FAIL;
	}
	ev.report = buf;
	if (cert(a->vcek, &ev.vcek) == UIE_OK && cert(a->ask, &ev.ask) == UIE_OK &&
	    cert(a->ark, &ev.ark) == UIE_OK && crl_of(a->crl, &ev.crl) == UIE_OK) {
		if (a->product && (r = product_of(a->product, &p)) == UIE_OK &&
		    (r = uie_snp_roots_builtin(p, &builtin)) == UIE_OK) {
			ev.ask = builtin.ask;
			ev.ark = builtin.ark;
		}
		if (!a->product || r == UIE_OK) {
			uie_snp_verify(&ev, &a->pol, &v);
			rc = report(a, path, &v);
		}
	}
	if (!a->product) {
		X509_free(ev.ask);
		X509_free(ev.ark);
	}
	uie_snp_roots_free(&builtin);
	X509_free(ev.vcek);
	X509_CRL_free(ev.crl);
	free(buf);
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
		UIE_OPT_HELP,
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = PROG, .opt = t, .usage = usage, .min_operands = 1, .max_operands = 1
	};
	int r;

	memset(&a, 0, sizeof(a));
	a.pol.vmpl = UINT32_MAX;
	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	a.pol.check_vmpl = a.pol.vmpl != UINT32_MAX;
	if (!a.vcek || !a.ask != !a.ark || (a.simulated && !a.ark) || (a.product && a.ark)) {
		fprintf(stderr, PROG
			": give --vcek; --ask and --ark together (with --simulated only), or --product\n");
		return uie_opts_usage(&spec);
	}
	if ((r = policy_of(&a)) != UIE_OPTS_GO)
		return r;
	return run(&a, argv[optind]);
}
