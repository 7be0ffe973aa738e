/* SPDX-License-Identifier: Apache-2.0 */
/* An SEV-SNP report checked as the tenant asks (snp_check.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/pem.h>

#include "uie/err.h"

#include "fileio.h"
#include "hex.h"
#include "opts.h"
#include "snp_check.h"

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
static int policy_of(struct snp_check *a)
{
	uint8_t tcb[8];

	if (a->min_abi && abi_of(a->min_abi, &a->pol.min_abi_major, &a->pol.min_abi_minor) != UIE_OK) {
		fprintf(stderr, "%s: --min-abi '%s': want MAJOR.MINOR, each 0 to 255\n", a->prog, a->min_abi);
		return UIE_OPTS_EXIT_USAGE;
	}
	if (a->min_tcb) {
		if (uie_hex_decode(a->min_tcb, strlen(a->min_tcb), tcb, sizeof(tcb)) != UIE_OK) {
			fprintf(stderr,
				"%s: --min-tcb: want the 16 hex digits of a TCB_VERSION as the report holds "
				"it\n",
				a->prog);
			return UIE_OPTS_EXIT_USAGE;
		}
		a->pol.check_min_tcb = true;
		a->pol.min_tcb = uie_le64(tcb);
	}
	for (unsigned i = 0; i < a->nmeas; i++)
		if (uie_hex_decode(a->meas[i], strlen(a->meas[i]), a->allow[i], UIE_SNP_MEASUREMENT_LEN) !=
		    UIE_OK) {
			fprintf(stderr, "%s: --measurement '%s': want 96 hex digits\n", a->prog, a->meas[i]);
			return UIE_OPTS_EXIT_USAGE;
		}
	a->pol.measurements = (const uint8_t(*)[UIE_SNP_MEASUREMENT_LEN])a->allow;
	a->pol.nmeasurements = a->nmeas;
	if (a->report_data) {
		if (uie_hex_decode(a->report_data, strlen(a->report_data), a->data, sizeof(a->data)) !=
		    UIE_OK) {
			fprintf(stderr, "%s: --report-data: want 128 hex digits\n", a->prog);
			return UIE_OPTS_EXIT_USAGE;
		}
		a->pol.report_data = a->data;
	}
	return UIE_OPTS_GO;
}

void snp_check_init(struct snp_check *a, const char *prog)
{
	memset(a, 0, sizeof(*a));
	a->prog = prog;
	a->pol.vmpl = UINT32_MAX;
}

int snp_check_finish(struct snp_check *a)
{
	a->pol.check_vmpl = a->pol.vmpl != UINT32_MAX;
	if (!a->ask != !a->ark || (a->simulated && !a->ark) || (a->product && a->ark)) {
		fprintf(stderr, "%s: --ask and --ark together (--simulated only with them), or --product\n",
			a->prog);
		return UIE_OPTS_EXIT_USAGE;
	}
	return policy_of(a);
}

static int product_of(const char *prog, const char *name, enum uie_snp_product *p)
{
	for (int i = 0; i < UIE_SNP_PRODUCT__MAX; i++)
		if (!strcasecmp(name, uie_snp_product_name((enum uie_snp_product)i))) {
			*p = (enum uie_snp_product)i;
			return UIE_OK;
		}
	fprintf(stderr, "%s: --product '%s': want milan, genoa or turin\n", prog, name);
	return UIE_E_INVAL;
}

/* One certificate file (or none when path is NULL); says which on error. */
static int cert(const char *prog, const char *path, X509 **out)
{
	int r;

	*out = NULL;
	if (path && (r = uie_snp_cert_read_alloc(path, out)) != UIE_OK) {
		fprintf(stderr, "%s: %s: %s\n", prog, path,
			r == UIE_E_FORMAT ? "not an X.509 certificate (PEM or DER)" : uie_file_err_str(r));
		return r;
	}
	return UIE_OK;
}

static int crl_of(const char *prog, const char *path, X509_CRL **out)
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
		fprintf(stderr, "%s: %s: %s\n", prog, path, uie_file_err_str(r));
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
		fprintf(stderr, "%s: %s: not a CRL (PEM or DER)\n", prog, path);
	return *out ? UIE_OK : UIE_E_FORMAT;
}

/* A certificate of the auxblob's table into *out, when the table has it and *out is not set. */
static int aux_cert(const struct snp_input *in, enum uie_snp_cert_kind k, X509 **out)
{
	if (*out || !in->aux.der[k])
		return UIE_OK;
	if (uie_snp_cert_parse_alloc(in->aux.der[k], in->aux.len[k], out) != UIE_OK) {
		fprintf(stderr, "%s: %s/auxblob: a certificate is not X.509 DER\n", in->prog, in->name);
		return UIE_E_FORMAT;
	}
	return UIE_OK;
}

/* The configfs-tsm directory: report, manifest, certificates (VCEK or VLEK, ASK and ARK together). */
static int from_configfs(const struct snp_check *a, struct snp_input *in)
{
	struct uie_snp_why why;
	X509 *ask = NULL, *ark = NULL;
	int r;

	if ((r = uie_snp_tsm_read(in->name, &in->tsm, &why)) != UIE_OK ||
	    (in->tsm.aux &&
	     (r = uie_snp_cert_table_parse(in->tsm.aux, in->tsm.aux_len, &in->aux, &why)) != UIE_OK)) {
		fprintf(stderr, "%s: %s\n", in->prog, why.msg);
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

int snp_check_gather(const struct snp_check *a, bool configfs, struct snp_input *in)
{
	enum uie_snp_product p;
	int r;

	if (configfs && (r = from_configfs(a, in)) != UIE_OK)
		return r;
	if (!configfs) {
		if ((r = uie_file_read_alloc(in->name, UIE_SNP_REPORT_LEN + 1, &in->report,
					     &in->ev.report_len)) != UIE_OK) {
			fprintf(stderr, "%s: %s: %s\n", in->prog, in->name, uie_file_err_str(r));
			return r;
		}
		in->ev.report = in->report;
	}
	if (!in->ev.vcek && !a->vcek) {
		fprintf(stderr, "%s: %s: no VCEK: give --vcek\n", in->prog, in->name);
		return UIE_E_NOTFOUND;
	}
	if ((!in->ev.vcek && (r = cert(in->prog, a->vcek, &in->ev.vcek)) != UIE_OK) ||
	    (a->ark && ((r = cert(in->prog, a->ask, &in->ev.ask)) != UIE_OK ||
			(r = cert(in->prog, a->ark, &in->ev.ark)) != UIE_OK)) ||
	    (r = crl_of(in->prog, a->crl, &in->ev.crl)) != UIE_OK)
		return r;
	if (a->product && ((r = product_of(in->prog, a->product, &p)) != UIE_OK ||
			   (r = uie_snp_roots_builtin(p, &in->builtin)) != UIE_OK))
		return r;
	if (a->product) {
		in->ev.ask = in->builtin.ask;
		in->ev.ark = in->builtin.ark;
	}
	return UIE_OK;
}

void snp_check_input_free(struct snp_input *in)
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

int snp_check_configfs(const struct snp_check *a, const char *dir, const uint8_t nonce[UIE_SNP_NONCE_LEN],
		       struct snp_input *in, struct uie_snp_verdict *v, const uint8_t **ek, size_t *ek_len)
{
	int r;

	*in = (struct snp_input){ .prog = a->prog, .name = dir, .ev = { .simulated_root = a->simulated } };
	*ek = NULL;
	*ek_len = 0;
	if ((r = snp_check_gather(a, true, in)) != UIE_OK)
		return r; /* said on stderr */
	if (uie_snp_verify(&in->ev, &a->pol, v) == UIE_OK)
		v->err = uie_snp_vtpm_ek(&v->report, nonce, in->tsm.manifest, in->tsm.manifest_len,
					 in->tsm.single, ek, ek_len, &v->why);
	return UIE_OK;
}
