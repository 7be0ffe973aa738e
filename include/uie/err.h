/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One error type for the whole project.  Every fallible function returns
 * UIE_OK (0) or one of these negative codes; callers chain them as
 * `if ((r = a()) != UIE_OK || (r = b()) != UIE_OK) ...`.
 * Freestanding: no libc.
 */
#ifndef UIE_ERR_H
#define UIE_ERR_H

typedef enum uie_err {
	UIE_OK = 0,
	UIE_E_INVAL = -1,      /* bad argument from the caller (a programming error) */
	UIE_E_TRUNCATED = -2,  /* input ended before a field it announced */
	UIE_E_OVERFLOW = -3,   /* output buffer too small, or arithmetic overflow */
	UIE_E_FORMAT = -4,     /* input is not in the expected format (magic, field value) */
	UIE_E_VERSION = -5,    /* unknown format or protocol version */
	UIE_E_ALG = -6,        /* unknown or unsupported algorithm */
	UIE_E_RANGE = -7,      /* offset or size outside the object it refers to */
	UIE_E_LIMIT = -8,      /* a count or size exceeds a fixed limit */
	UIE_E_ORDER = -9,      /* entries out of canonical order, or duplicated */
	UIE_E_ELF = -10,       /* malformed ELF object */
	UIE_E_IO = -11,        /* reading an object or file failed */
	UIE_E_CRYPTO = -12,    /* the crypto provider failed */
	UIE_E_SIGNATURE = -13, /* signature does not verify */
	UIE_E_KEY = -14,       /* unknown or unusable key */
	UIE_E_EPOCH = -15,     /* policy epoch not strictly greater (rollback) */
	UIE_E_BINDING = -16,   /* expected vPCR16 binding does not hold */
	UIE_E_STATE = -17,     /* request not permitted in the current state */
	UIE_E_NOMEM = -18,     /* allocation failed */
	UIE_E_PEER = -19,      /* peer died, closed, or answered out of protocol */
	UIE_E_DENIED = -20,    /* the authority denied the request */
	UIE_E_TPM = -21,       /* the TPM backend failed */
	UIE_E_NOTFOUND = -22,  /* no such object */
	UIE_E_SYS = -23,       /* an operating-system call failed (see errno where hosted) */
	UIE_E_REPLAY = -24,    /* log replay diverged from the quoted state */
	UIE_E_NONCE = -25,     /* nonce mismatch (stale or replayed evidence) */
	UIE_E_NOSPACE = -26,   /* no space left on the device (ENOSPC, EDQUOT) */
	UIE_E_TIMEOUT = -27,   /* the peer did not answer in time */
	UIE_E_ACCESS = -28,    /* permission denied (EACCES, EPERM) */
	UIE_E_QUOTA = -29,     /* a client's quota is used up (records per second); try later */
	UIE_E__MIN = -30       /* sentinel: one below the lowest code */
} uie_err;

/* Short static description of an error code; never NULL. */
const char *uie_err_str(int err);

#endif
