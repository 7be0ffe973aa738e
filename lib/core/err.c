/* SPDX-License-Identifier: Apache-2.0 */
#include "uie/err.h"

static const char *const err_names[] = {
	[0] = "success",
	[-UIE_E_INVAL] = "invalid argument",
	[-UIE_E_TRUNCATED] = "input truncated",
	[-UIE_E_OVERFLOW] = "buffer too small or arithmetic overflow",
	[-UIE_E_FORMAT] = "malformed input",
	[-UIE_E_VERSION] = "unsupported version",
	[-UIE_E_ALG] = "unsupported algorithm",
	[-UIE_E_RANGE] = "offset or size out of range",
	[-UIE_E_LIMIT] = "limit exceeded",
	[-UIE_E_ORDER] = "entries out of order or duplicated",
	[-UIE_E_ELF] = "malformed ELF object",
	[-UIE_E_IO] = "I/O error",
	[-UIE_E_CRYPTO] = "crypto provider error",
	[-UIE_E_SIGNATURE] = "signature does not verify",
	[-UIE_E_KEY] = "unknown or unusable key",
	[-UIE_E_EPOCH] = "policy epoch not newer (rollback)",
	[-UIE_E_BINDING] = "vPCR16 binding does not hold",
	[-UIE_E_STATE] = "not permitted in current state",
	[-UIE_E_NOMEM] = "out of memory",
	[-UIE_E_PEER] = "peer failed or broke protocol",
	[-UIE_E_DENIED] = "denied",
	[-UIE_E_TPM] = "TPM error",
	[-UIE_E_NOTFOUND] = "not found",
	[-UIE_E_SYS] = "system call failed",
	[-UIE_E_REPLAY] = "log replay diverged",
	[-UIE_E_NONCE] = "nonce mismatch",
	[-UIE_E_NOSPACE] = "no space left on device",
	[-UIE_E_TIMEOUT] = "timed out",
	[-UIE_E_ACCESS] = "permission denied",
	[-UIE_E_QUOTA] = "client quota exceeded",
};

const char *uie_err_str(int err)
{
	if (err > 0 || err <= UIE_E__MIN || !err_names[-err])
		return "unknown error";
	return err_names[-err];
}
