/* SPDX-License-Identifier: Apache-2.0 */
/* AMD's built-in ASK and ARK certificates and the pinned ARK fingerprints (snp_cert.h). */
#ifndef UIE_HOST_SNP_ROOTS_H
#define UIE_HOST_SNP_ROOTS_H

#include <stdint.h>

#include "snp_cert.h"

struct uie_snp_builtin {
	const char *name;       /* "Milan" */
	const char *ask_pem;    /* the ASK certificate, PEM */
	const char *ark_pem;    /* the ARK certificate, PEM */
	const char *ark_sha256; /* SHA-256 of the ARK's DER in hex, as sha256sum prints it: the pin */
};

extern const struct uie_snp_builtin uie_snp_builtin[UIE_SNP_PRODUCT__MAX];

#endif
