/* SPDX-License-Identifier: Apache-2.0 */
/* An SEV-SNP verdict and its decoded report as JSON (docs/FORMATS.md section 7.4). */
#ifndef UIE_HOST_SNP_JSON_H
#define UIE_HOST_SNP_JSON_H

#include <jansson.h>

#include "snp_verify.h"

/* A new reference, or NULL on ENOMEM. */
json_t *uie_snp_verdict_json(const struct uie_snp_verdict *v);

#endif
