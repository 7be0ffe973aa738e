/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor standing in for an SVSM's attestation protocol on machines
 * without SEV-SNP (issue 26, docs/ATTESTATION.md section 3): a simulated
 * chain's VCEK signs, for a verifier's nonce, a report in AMD's format
 * whose REPORT_DATA binds the services manifest holding this monitor's
 * vTPM EK.  A verifier accepts it only with the simulated root given
 * explicitly, and then says "simulated".
 */
#ifndef UIE_MONITOR_SNP_H
#define UIE_MONITOR_SNP_H

#include "snp_sim.h"

struct uie_mon_snp {
	struct uie_snp_sim sim;     /* owned */
	struct uie_snp_report tmpl; /* the fields every report repeats (CHIP_ID, TCBs, MEASUREMENT) */
};

/*
 * The chain of dir (uie snp sim-chain's files) and the launch measurement
 * (48 bytes, or NULL: zero) into *s; the error naming the file in why.
 */
int uie_mon_snp_load(const char *dir, const uint8_t *measurement, struct uie_mon_snp *s,
		     struct uie_snp_why *why);

void uie_mon_snp_free(struct uie_mon_snp *s);

#endif
