/* SPDX-License-Identifier: Apache-2.0 */
/* The tenant's appraisal of a verified SEV-SNP report (snp_verify.h). */
#include <string.h>

#include <openssl/crypto.h>

#include "snp_verify.h"

/* One component against its minimum. */
static int at_least(uint8_t have, uint8_t min, const char *field, struct uie_snp_why *why)
{
	if (have < min)
		return uie_snp_fail(why, UIE_E_DENIED, "report: REPORTED_TCB.%s %u is below the minimum %u",
				    field, have, min);
	return UIE_OK;
}

static int min_tcb(const struct uie_snp_report *r, uint64_t min, struct uie_snp_why *why)
{
	bool turin = uie_snp_report_turin(r);
	struct uie_snp_tcb have, want;
	int rc;

	uie_snp_tcb_decode(r->reported_tcb, turin, &have);
	uie_snp_tcb_decode(min, turin, &want);
	if ((rc = at_least(have.bootloader, want.bootloader, "BOOT_LOADER", why)) ||
	    (rc = at_least(have.tee, want.tee, "TEE", why)) ||
	    (rc = at_least(have.snp, want.snp, "SNP", why)) ||
	    (rc = at_least(have.ucode, want.ucode, "MICROCODE", why)))
		return rc;
	return turin ? at_least(have.fmc, want.fmc, "FMC", why) : UIE_OK;
}

static bool allowed(const struct uie_snp_report *r, const struct uie_snp_policy *pol)
{
	for (size_t i = 0; i < pol->nmeasurements; i++)
		if (!memcmp(r->measurement, pol->measurements[i], UIE_SNP_MEASUREMENT_LEN))
			return true;
	return pol->nmeasurements == 0;
}

int uie_snp_appraise(const struct uie_snp_report *r, const struct uie_snp_policy *pol,
		     struct uie_snp_why *why)
{
	unsigned have = (unsigned)r->current_major << 8 | r->current_minor;
	unsigned want = (unsigned)pol->min_abi_major << 8 | pol->min_abi_minor;

	if (!pol->allow_debug && (r->policy & UIE_SNP_POLICY_DEBUG))
		return uie_snp_fail(why, UIE_E_DENIED, "report: POLICY.DEBUG is set (debugging allowed)");
	if (!pol->allow_migration_agent && (r->policy & UIE_SNP_POLICY_MIGRATE_MA))
		return uie_snp_fail(why, UIE_E_DENIED,
				    "report: POLICY.MIGRATE_MA is set (a migration agent)");
	if (pol->check_vmpl && r->vmpl != pol->vmpl)
		return uie_snp_fail(why, UIE_E_DENIED, "report: VMPL %u, not %u", r->vmpl, pol->vmpl);
	if (have < want)
		return uie_snp_fail(why, UIE_E_DENIED,
				    "report: firmware CURRENT_MAJOR.CURRENT_MINOR %u.%u is below %u.%u",
				    r->current_major, r->current_minor, pol->min_abi_major,
				    pol->min_abi_minor);
	if (pol->check_min_tcb && min_tcb(r, pol->min_tcb, why) != UIE_OK)
		return UIE_E_DENIED;
	if (!allowed(r, pol))
		return uie_snp_fail(why, UIE_E_DENIED, "report: MEASUREMENT is not in the allow list");
	if (pol->report_data && CRYPTO_memcmp(r->report_data, pol->report_data, UIE_SNP_REPORT_DATA_LEN) != 0)
		return uie_snp_fail(why, UIE_E_NONCE, "report: REPORT_DATA is not the expected binding");
	return UIE_OK;
}
