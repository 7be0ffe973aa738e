/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Setting up and tearing down the monitor's state: log store (in memory,
 * optionally first-seen, optionally over a state directory), core, cache,
 * generation page, and the run's boot id.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "monitor.h"
#include "state.h"
#include "uie/err.h"
#include "vtpm.h"

int uie_mon_init(struct uie_monitor *m, const struct uie_platform *pl, struct uie_vtpm *tpm, FILE *diag)
{
	return uie_mon_init_opts(m, pl, tpm, diag, NULL);
}

int uie_mon_init_opts(struct uie_monitor *m, const struct uie_platform *pl, struct uie_vtpm *tpm, FILE *diag,
		      const struct uie_mon_opts *o)
{
	struct uie_log_sink sink;
	int r;

	memset(m, 0, sizeof(*m));
	m->state = o ? o->state : NULL; /* owned from here: freed by uie_mon_fini */
	m->pl = pl;
	m->tpm = tpm;
	m->diag = diag;
	m->hint_fd = -1;
	m->boot = 1;
	m->limits = (struct uie_mon_limits){ .max_object = UIE_MON_DEFAULT_MAX_OBJECT,
					     .max_hash_ms = UIE_MON_DEFAULT_MAX_HASH_MS,
					     .quota = UIE_MON_DEFAULT_QUOTA };
	if (o && o->limits)
		m->limits = *o->limits;
	if (o) {
		m->ram = o->ram;
		m->denylog = o->denylog;
		m->trust_keys = o->trust_keys;
	}
	if (getrandom(m->boot_id, sizeof(m->boot_id), 0) != (ssize_t)sizeof(m->boot_id)) {
		uie_mon_fini(m);
		return UIE_E_SYS;
	}
	/* Without the page the guests keep no fast path: only speed is lost. */
	if ((r = uie_genpage_create(&m->gen, 0)) != UIE_OK)
		uie_mon_diag(m, "no policy generation page: %s", uie_err_str(r));
	m->cache = malloc(sizeof(*m->cache));
	if (!m->cache) {
		uie_mon_fini(m);
		return UIE_E_NOMEM;
	}
	uie_cache_init(m->cache);
	uie_logstore_init(&m->log, pl, tpm, 0);
	if (o && o->first_seen && (r = uie_logstore_first_seen(&m->log, o->first_seen_max)) != UIE_OK) {
		uie_mon_fini(m);
		return r;
	}
	if (!m->state && o && o->state_dir &&
	    (r = uie_mon_state_claim(o->state_dir, pl, o->log_sync, diag, &m->state)) != UIE_OK) {
		uie_mon_fini(m);
		return r;
	}
	if (m->state) {
		r = uie_mon_state_start(m, m->state);
	} else {
		sink = uie_logstore_sink(&m->log);
		r = uie_core_init(&m->core, pl, &sink, UIE_HASH_SHA256);
	}
	if (r != UIE_OK) {
		uie_mon_fini(m);
		return r;
	}
	if (m->core.have_policy) {
		uie_mon_publish_hint(m);
		uie_genpage_set(&m->gen, m->core.epoch);
	}
	return UIE_OK;
}

void uie_mon_fini(struct uie_monitor *m)
{
	if (m->hint_fd >= 0)
		close(m->hint_fd);
	uie_genpage_destroy(&m->gen);
	free(m->cache);
	free(m->pkg);
	uie_logstore_fini(&m->log);
	uie_mon_state_free(m->state);
	memset(m, 0, sizeof(*m));
	m->hint_fd = -1;
	m->gen.fd = -1;
}

int uie_mon_health(struct uie_monitor *m)
{
	uint8_t pcr[UIE_PCR_LEN];
	int r;

	if ((r = uie_logstore_health(&m->log)) != UIE_OK)
		return r;
	if (m->state && m->state->err != UIE_OK)
		return m->state->err;
	if (!m->tpm)
		return UIE_OK;
	/* A vTPM that went away shows here before the next grant finds it. */
	if ((r = uie_vtpm_read_pcr16(m->tpm, pcr)) != UIE_OK) {
		uie_mon_diag(m, "health: vTPM: %s", uie_err_str(r));
		return r;
	}
	if (memcmp(pcr, m->core.vpcr, UIE_PCR_LEN) != 0) {
		uie_mon_diag(m, "health: vTPM PCR 16 differs from the log's vPCR16");
		return UIE_E_TPM;
	}
	return UIE_OK;
}
