/* SPDX-License-Identifier: Apache-2.0 */
/*
 * INSTALL, HINT and GEN handlers.  An accepted package is kept whole in
 * monitor memory (the installed policy table points into it) until the
 * next one replaces it; its Bloom hint is published as a sealed memfd and
 * its epoch in the policy generation page.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "fdpass.h"
#include "monitor.h"
#include "state.h"
#include "uie/err.h"
#include "uie/names.h"
#include "uie/package.h"

void uie_mon_publish_hint(struct uie_monitor *m)
{
	const uint8_t *hint;
	size_t hlen;
	int r, fd;

	if (m->hint_fd >= 0)
		close(m->hint_fd);
	m->hint_fd = -1;
	m->hint_len = 0;
	r = uie_package_hint(&m->core, m->pkg, m->pkg_len, &hint, &hlen);
	if (r == UIE_OK && hlen)
		r = uie_memfd_create_sealed("uie-hint", hint, hlen, &fd);
	if (r != UIE_OK || !hlen) {
		/* Without a hint the guest asks the monitor every time: only speed is lost. */
		if (r != UIE_E_NOTFOUND)
			uie_mon_diag(m, "no fast-path hint published: %s", uie_err_str(r));
		return;
	}
	m->hint_fd = fd;
	m->hint_len = hlen;
	m->hint_epoch = m->core.epoch;
}

int uie_mon_install(struct uie_monitor *m, struct uie_mon_call *c)
{
	uint64_t len = c->q->u.install_req_len;
	uint8_t *buf;
	int r, res;

	if ((r = uie_memfd_read_alloc(c->fd, len, UIE_PACKAGE_MAX_LEN, &buf)) != UIE_OK)
		return r;
	res = uie_package_install(&m->core, buf, (size_t)len, uie_logstore_pcr_at, &m->log);
	if (res == UIE_OK && m->state && (r = uie_mon_state_sync_policy(m->state)) != UIE_OK)
		uie_mon_diag(m, "log not synced after the install: %s", uie_err_str(r));
	if (res == UIE_OK && m->state && (r = uie_mon_state_persist(m->state, buf, (size_t)len)) != UIE_OK)
		/* In force now, but a restart would refuse to start: status reports it. */
		uie_mon_diag(m,
			     "installed package not persisted: %s; a restart will refuse to start "
			     "until it is installed again",
			     uie_err_str(r));
	if (res == UIE_OK) {
		free(m->pkg); /* the core no longer references the old table */
		m->pkg = buf;
		m->pkg_len = (size_t)len;
		uie_mon_publish_hint(m);
		/* Last: a guest that sees the new generation finds the new hint. */
		uie_genpage_set(&m->gen, m->core.epoch);
	} else {
		free(buf);
	}
	uie_mon_diag(m, "install of %llu-byte package: %s (epoch %llu, mode %s)", (unsigned long long)len,
		     uie_err_str(res), (unsigned long long)m->core.epoch, uie_mode_name(m->core.mode));
	c->a->u.install_ans.result = res;
	c->a->u.install_ans.mode = m->core.mode;
	c->a->u.install_ans.epoch = m->core.epoch;
	return UIE_OK;
}

int uie_mon_hint(struct uie_monitor *m, struct uie_mon_call *c)
{
	if (m->hint_fd < 0)
		return UIE_OK; /* len 0: no hint */
	*c->afd = fcntl(m->hint_fd, F_DUPFD_CLOEXEC, 0);
	if (*c->afd < 0)
		return UIE_E_SYS;
	c->a->u.blob_ans.len = m->hint_len;
	c->a->u.blob_ans.epoch = m->hint_epoch;
	return UIE_OK;
}

int uie_mon_gen(struct uie_monitor *m, struct uie_mon_call *c)
{
	/* Process mode only (the dispatch table): in VM mode a copy of the page would not follow installs. */
	if (m->gen.fd < 0)
		return UIE_E_NOTFOUND;
	*c->afd = fcntl(m->gen.fd, F_DUPFD_CLOEXEC, 0);
	if (*c->afd < 0)
		return UIE_E_SYS;
	c->a->u.blob_ans.len = UIE_GENPAGE_LEN;
	c->a->u.blob_ans.epoch = uie_genpage_load(m->gen.map);
	return UIE_OK;
}
