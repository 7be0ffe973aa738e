/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A simulated chain's directory (uie-snp-sim-chain(1)): ark.pem, ask.pem,
 * vcek.pem (certificates) and ark.key, ask.key, vcek.key (private keys,
 * PEM, mode 0600).
 */
#ifndef UIE_HOST_SNP_SIMFILES_H
#define UIE_HOST_SNP_SIMFILES_H

#include "snp_sim.h"

/* s into dir (which exists); the error of the failing write, naming the file in why. */
int uie_snp_simfiles_save(const char *dir, const struct uie_snp_sim *s, struct uie_snp_why *why);

/* dir into *s (uie_snp_sim_free); the error naming the file in why, nothing left in *s. */
int uie_snp_simfiles_load(const char *dir, struct uie_snp_sim *s, struct uie_snp_why *why);

#endif
