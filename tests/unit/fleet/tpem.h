/* SPDX-License-Identifier: Apache-2.0 */
/* PEM text for the fleet verifier's tests (unit and end to end): keys and certificates as bodies carry them. */
#ifndef UIE_TEST_TPEM_H
#define UIE_TEST_TPEM_H

#include <openssl/x509.h>

/* A new P-256 public key as PEM, malloc'ed; fails the running test on error. */
char *tpem_ec_key(void);

/* c as PEM, malloc'ed; fails the running test on error. */
char *tpem_cert(X509 *c);

#endif
