/* SPDX-License-Identifier: Apache-2.0 */
#include "fleetsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "hex.h"
#include "uie/err.h"
#include "vtpm_impl.h"

static char *ak_pem_alloc(struct fsim_machine *m)
{
	char *path = ev_path(m->dir, "ak.pub");
	uint8_t *der = NULL, *pem = NULL;
	size_t len = 0;

	if (path && uie_vtpm_pubkey_alloc(m->tpm, &der, &len) == UIE_OK &&
	    ev_write_pubkey_pem(path, der, len) == UIE_OK)
		pem = ev_read_file(path, &len);
	free(der);
	free(path);
	return (char *)pem;
}

int fsim_init(struct fsim_machine *m, const char *id)
{
	int r;

	memset(m, 0, sizeof(*m));
	snprintf(m->id, sizeof(m->id), "%s", id);
	if (!(m->dir = ev_mkdtemp()) || asprintf(&m->keyspec, "%s/ak.key", m->dir) < 0)
		return UIE_E_NOMEM;
	if ((r = uie_vtpm_builtin_open(m->keyspec, &m->tpm)) != UIE_OK ||
	    (r = ev_log_init(&m->log, m->tpm)) != UIE_OK || (r = ev_log_scenario(&m->log)) != UIE_OK)
		return r;
	return (m->ak_pem = ak_pem_alloc(m)) ? UIE_OK : UIE_E_IO;
}

void fsim_fini(struct fsim_machine *m)
{
	ev_log_fini(&m->log);
	uie_vtpm_free(m->tpm);
	free(m->ak_pem);
	free(m->keyspec);
	ev_rmdir(m->dir);
	memset(m, 0, sizeof(*m));
}

int fsim_restart(struct fsim_machine *m)
{
	struct uie_core_prev prev = { .boot = 1, .nrecords = m->log.n };
	struct uie_vtpm *tpm;
	int r;

	memcpy(prev.pcr, m->log.core.vpcr, UIE_PCR_LEN);
	if ((r = uie_vtpm_builtin_open(m->keyspec, &tpm)) != UIE_OK)
		return r;
	ev_log_fini(&m->log);
	uie_vtpm_free(m->tpm);
	m->tpm = tpm;
	if ((r = ev_log_init_restart(&m->log, tpm, &prev)) != UIE_OK)
		return r;
	return ev_log_mmap(&m->log, 'C');
}

json_t *fsim_enrol_body(const struct fsim_machine *m, unsigned interval, const char *ref_letters)
{
	char *ref = ref_letters ? ev_manifest(ref_letters) : NULL;
	json_t *j = json_pack("{s:s, s:s, s:i, s:s*}", "id", m->id, "ak_pub", m->ak_pem, "interval",
			      (int)interval, "reference", ref);

	free(ref);
	return j;
}

int fsim_nonce(struct uie_http *h, const char *id, uint8_t nonce[FSIM_NONCE_LEN], uint64_t *since,
	       long *status)
{
	char path[128];
	json_t *reply = NULL, *n;
	int r;

	snprintf(path, sizeof(path), "/v1/machines/%s/nonce", id);
	if ((r = uie_http_json(h, "POST", path, NULL, status, &reply)) != UIE_OK)
		return r;
	n = json_object_get(reply, "nonce");
	if (*status == 201 &&
	    (uie_hex_decode(json_string_value(n), json_string_length(n), nonce, FSIM_NONCE_LEN) != UIE_OK ||
	     !json_is_integer(json_object_get(reply, "since"))))
		r = UIE_E_PEER;
	else if (*status == 201)
		*since = (uint64_t)json_integer_value(json_object_get(reply, "since"));
	json_decref(reply);
	return r;
}

int fsim_post(struct uie_http *h, const char *id, const uint8_t nonce[FSIM_NONCE_LEN], const uint8_t *ae,
	      size_t len, long *status, json_t **reply)
{
	char path[128], hex[2 * FSIM_NONCE_LEN + 1], *b64 = uie_b64_encode_alloc(ae, len);
	json_t *body;
	int r;

	*reply = NULL;
	uie_hex_encode(hex, nonce, FSIM_NONCE_LEN);
	body = b64 ? json_pack("{s:s, s:s}", "nonce", hex, "evidence", b64) : NULL;
	free(b64);
	if (!body)
		return UIE_E_NOMEM;
	snprintf(path, sizeof(path), "/v1/machines/%s/attestations", id);
	r = uie_http_json(h, "POST", path, body, status, reply);
	json_decref(body);
	return r;
}

int fsim_round(struct uie_http *h, struct fsim_machine *m, long *status, json_t **reply)
{
	uint8_t nonce[FSIM_NONCE_LEN], *ae = NULL;
	uint64_t since = 0;
	size_t len = 0;
	int r;

	*reply = NULL;
	if ((r = fsim_nonce(h, m->id, nonce, &since, status)) != UIE_OK || *status != 201)
		return r;
	if ((r = ev_export(&m->log, m->tpm, nonce, sizeof(nonce), since, &ae, &len)) != UIE_OK)
		return r;
	r = fsim_post(h, m->id, nonce, ae, len, status, reply);
	free(ae);
	return r;
}
