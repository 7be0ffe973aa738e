/* SPDX-License-Identifier: Apache-2.0 */
#include "machine.h"

#include <stdlib.h>
#include <string.h>

#include "uie/err.h"

enum {
	COL_AK,
	COL_REF,
	COL_INTERVAL,
	COL_VALID,
	COL_CLOCK,
	COL_RESET,
	COL_RESTART,
	COL_NEXT,
	COL_PCR,
	COL_EPOCH,
	COL_MODE,
	COL_POLICY_ID,
	COL_STATUS,
	COL_NPOL,
};

#define SELECT_MACHINE                                                                                \
	"SELECT ak_der, reference, interval_s, valid, clock, reset_count, restart_count, next_seq, "  \
	"pcr, epoch, mode, policy_id, status, (SELECT count(*) FROM policies WHERE machine_id = $1) " \
	"FROM machines WHERE id = $1"

static int state_from_row(const PGresult *res, struct vd_machine *m)
{
	struct uie_verify_state *st = &m->st;
	int r;

	if ((r = vd_db_bytea_alloc(res, 0, COL_AK, &m->ak_der, &m->ak_len)) != UIE_OK ||
	    (r = vd_db_bytea(res, 0, COL_PCR, st->pcr, sizeof(st->pcr))) != UIE_OK ||
	    (r = vd_db_bytea(res, 0, COL_POLICY_ID, st->policy_id, sizeof(st->policy_id))) != UIE_OK)
		return r;
	m->interval = (uint32_t)vd_db_u64(res, 0, COL_INTERVAL);
	st->valid = PQgetvalue(res, 0, COL_VALID)[0] == 't';
	st->clock = vd_db_u64(res, 0, COL_CLOCK);
	st->reset_count = (uint32_t)vd_db_u64(res, 0, COL_RESET);
	st->restart_count = (uint32_t)vd_db_u64(res, 0, COL_RESTART);
	st->next_seq = vd_db_u64(res, 0, COL_NEXT);
	st->epoch = vd_db_u64(res, 0, COL_EPOCH);
	st->mode = (uint8_t)vd_db_u64(res, 0, COL_MODE);
	m->failed = strcmp(PQgetvalue(res, 0, COL_STATUS), "failed") == 0;
	return UIE_OK;
}

static int load_reference(const PGresult *res, struct vd_machine *m)
{
	const char *text = PQgetvalue(res, 0, COL_REF);
	size_t line = 0;

	if (PQgetisnull(res, 0, COL_REF))
		return UIE_OK;
	m->has_ref = true;
	return uie_refset_parse(text, strlen(text), &m->ref, &line);
}

static int load_policies(struct vd_conn *c, const char *id, struct vd_machine *m)
{
	struct vd_params p = { 0 };
	PGresult *res;
	int r = UIE_OK;

	vd_param_text(&p, id);
	if (!(res = vd_db_query(c, "loading policies",
				"SELECT package FROM policies WHERE machine_id = $1 "
				"ORDER BY epoch LIMIT 16",
				&p)))
		return UIE_E_IO;
	for (int i = 0; i < PQntuples(res) && r == UIE_OK; i++) {
		size_t len;

		if ((r = vd_db_bytea_alloc(res, i, 0, &m->pkg[i], &len)) != UIE_OK)
			break;
		m->npol++;
		r = vd_policy_parse(&c->hp.pl, m->pkg[i], len, &m->pols[i]);
	}
	PQclear(res);
	return r;
}

int vd_machine_load_alloc(struct vd_conn *c, const char *id, bool lock, bool inputs, struct vd_machine *m)
{
	struct vd_params p = { 0 };
	PGresult *res;
	int r;

	memset(m, 0, sizeof(*m));
	vd_param_text(&p, id);
	if (!(res = vd_db_query(c, "loading a machine", lock ? SELECT_MACHINE " FOR UPDATE" : SELECT_MACHINE,
				&p)))
		return UIE_E_IO;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return UIE_E_NOTFOUND;
	}
	if ((r = state_from_row(res, m)) == UIE_OK && inputs && (r = load_reference(res, m)) == UIE_OK &&
	    vd_db_u64(res, 0, COL_NPOL)) /* most machines: no query for policies */
		r = load_policies(c, id, m);
	PQclear(res);
	if (r != UIE_OK)
		vd_machine_free(m);
	return r;
}

void vd_machine_free(struct vd_machine *m)
{
	free(m->ak_der);
	uie_refset_fini(&m->ref);
	for (size_t i = 0; i < m->npol; i++)
		free(m->pkg[i]);
	memset(m, 0, sizeof(*m));
}
