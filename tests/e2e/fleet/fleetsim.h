/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Simulated machines for the fleet verifier's tests and load test: each a
 * log made by the real monitor core, quoted by its own built-in vTPM with
 * its own attestation key, so every AE is genuine; and the client side of
 * the API (docs/VERIFIER.md 3).
 */
#ifndef UIE_TEST_FLEETSIM_H
#define UIE_TEST_FLEETSIM_H

#include <stdint.h>

#include <jansson.h>

#include "ev_helpers.h"
#include "http.h"

#define FSIM_NONCE_LEN 32

struct fsim_machine {
	char id[48];
	char *dir; /* its key file, owned */
	char *keyspec;
	struct uie_vtpm *tpm;
	struct ev_log log;
	char *ak_pem; /* owned */
};

/* A machine with the standard scenario logged (ev_log_scenario).  Return: UIE_OK or an error. */
int fsim_init(struct fsim_machine *m, const char *id);
void fsim_fini(struct fsim_machine *m);
/* A monitor restart: a new vTPM boot (resetCount + 1) and a log starting with MONITOR_RESTART. */
int fsim_restart(struct fsim_machine *m);

/* The enrolment body; ref_letters (NULL: none) name the reference digests (ev_digest). */
json_t *fsim_enrol_body(const struct fsim_machine *m, unsigned interval, const char *ref_letters);

/* POST .../nonce: the nonce and since of a 201. */
int fsim_nonce(struct uie_http *h, const char *id, uint8_t nonce[FSIM_NONCE_LEN], uint64_t *since,
	       long *status);
/* POST .../attestations of ae; *reply owned by the caller. */
int fsim_post(struct uie_http *h, const char *id, const uint8_t nonce[FSIM_NONCE_LEN], const uint8_t *ae,
	      size_t len, long *status, json_t **reply);
/* A whole round: nonce, export from since, post; *reply owned by the caller. */
int fsim_round(struct uie_http *h, struct fsim_machine *m, long *status, json_t **reply);

#endif
