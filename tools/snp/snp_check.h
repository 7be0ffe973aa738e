/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An SEV-SNP attestation checked as the tenant asks: the options of `uie
 * snp verify` (roots, CRL, appraisal) in one place, shared with `uie
 * verify`, which takes the same attestation as a machine's enrolment
 * (docs/ATTESTATION.md).  Errors are said on stderr under the command's
 * name.
 */
#ifndef UIE_TOOLS_SNP_CHECK_H
#define UIE_TOOLS_SNP_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "snp_roots.h"
#include "snp_tsm.h"
#include "snp_verify.h"

#define SNP_CHECK_MAX_MEASUREMENTS 64

/* The tenant's options. */
struct snp_check {
	const char *prog;
	const char *vcek, *ask, *ark, *crl, *product, *min_abi, *min_tcb, *report_data;
	const char *meas[SNP_CHECK_MAX_MEASUREMENTS];
	unsigned nmeas;
	bool simulated;
	uint8_t allow[SNP_CHECK_MAX_MEASUREMENTS][UIE_SNP_MEASUREMENT_LEN];
	uint8_t data[UIE_SNP_REPORT_DATA_LEN];
	struct uie_snp_policy pol;
};

/* The options' rows for a command's table (struct uie_opt), into *a. */
#define SNP_CHECK_OPTS(a)                                                                                 \
	UIE_OPT_STRING("vcek", 0, &(a)->vcek), UIE_OPT_STRING("ask", 0, &(a)->ask),                       \
		UIE_OPT_STRING("ark", 0, &(a)->ark),                                                      \
		UIE_OPT_FLAG("simulated", 0, UIE_OPTK_SET, &(a)->simulated),                              \
		UIE_OPT_STRING("product", 0, &(a)->product), UIE_OPT_STRING("crl", 0, &(a)->crl),         \
		UIE_OPT_FLAG("allow-debug", 0, UIE_OPTK_SET, &(a)->pol.allow_debug),                      \
		UIE_OPT_FLAG("allow-migration-agent", 0, UIE_OPTK_SET, &(a)->pol.allow_migration_agent),  \
		UIE_OPT_NUMBER("vmpl", 0, (a)->pol.vmpl, 0, 3, "wants 0 to 3"),                           \
		UIE_OPT_STRING("min-abi", 0, &(a)->min_abi), UIE_OPT_STRING("min-tcb", 0, &(a)->min_tcb), \
		UIE_OPT_LIST("measurement", 0, (a)->meas, &(a)->nmeas, SNP_CHECK_MAX_MEASUREMENTS),       \
		UIE_OPT_STRING("report-data", 0, &(a)->report_data)

/* Before parsing: no option given, for command prog. */
void snp_check_init(struct snp_check *a, const char *prog);

/* After parsing: the options checked and decoded; UIE_OPTS_GO or the exit status (said). */
int snp_check_finish(struct snp_check *a);

/* What is verified, and where it came from. */
struct snp_input {
	const char *prog;
	const char *name; /* the report's file or the configfs directory */
	uint8_t *report;  /* a report file's bytes (malloc'ed) */
	struct uie_snp_tsm tsm;
	struct uie_snp_cert_table aux;
	struct uie_snp_evidence ev;
	struct uie_snp_roots builtin;
};

/*
 * The report (a file when !configfs, else configfs-tsm's directory) and its
 * certificates into *in, whose prog and name the caller set; the error, said.
 */
int snp_check_gather(const struct snp_check *a, bool configfs, struct snp_input *in);

void snp_check_input_free(struct snp_input *in);

/*
 * configfs-tsm's directory dir verified and appraised, then bound to nonce:
 * UIE_OK with the verdict in v (v->err UIE_OK when everything holds, *ek
 * then the vTPM's EK, a TPMT_PUBLIC pointing into in, that the report
 * vouches for), or the error that kept the inputs from being read (said;
 * v unset).  Free in with snp_check_input_free either way.
 */
int snp_check_configfs(const struct snp_check *a, const char *dir, const uint8_t nonce[UIE_SNP_NONCE_LEN],
		       struct snp_input *in, struct uie_snp_verdict *v, const uint8_t **ek, size_t *ek_len);

#endif
