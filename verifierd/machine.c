/* SPDX-License-Identifier: Apache-2.0 */
#include "machine.h"

#include <stdlib.h>
#include <string.h>

#include "uie/err.h"

/*
 * The columns a post reads, in SELECT order: the enum and the query come
 * from this one list, so no position is counted by hand.  The policy
 * count follows them (COL_NPOL).
 */
#define MACHINE_COLUMNS(X)              \
	X(COL_AK, "ak_der")             \
	X(COL_REF, "reference")         \
	X(COL_INTERVAL, "interval_s")   \
	X(COL_VALID, "valid")           \
	X(COL_CLOCK, "clock")           \
	X(COL_RESET, "reset_count")     \
	X(COL_RESTART, "restart_count") \
	X(COL_NEXT, "next_seq")         \
	X(COL_PCR, "pcr")               \
	X(COL_EPOCH, "epoch")           \
	X(COL_MODE, "mode")             \
	X(COL_POLICY_ID, "policy_id")   \
	X(COL_STATUS, "status")         \
	X(COL_SIMULATED, "coalesce(attested_simulated, false)")
#define COLUMN_ENUM(e, name) e,
#define COLUMN_NAME(e, name) name ", "

enum {
	MACHINE_COLUMNS(COLUMN_ENUM) COL_NPOL
};

/* A machine's row, locked until the caller's transaction ends. */
#define SELECT_MACHINE_FOR_UPDATE                                                                       \
	"SELECT " MACHINE_COLUMNS(COLUMN_NAME) "(SELECT count(*) FROM policies WHERE machine_id = $1) " \
					       "FROM machines WHERE id = $1 FOR UPDATE"

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
	m->simulated = PQgetvalue(res, 0, COL_SIMULATED)[0] == 't';
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
	PGresult *res;
	int r = UIE_OK;

	if (!(res = vd_db_query_key(
		      c, "loading policies",
		      "SELECT package FROM policies WHERE machine_id = $1 ORDER BY epoch LIMIT 16", id)))
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

int vd_machine_lock_alloc(struct vd_conn *c, const char *id, struct vd_machine *m)
{
	PGresult *res;
	int r;

	memset(m, 0, sizeof(*m));
	if (!(res = vd_db_query_key(c, "loading a machine", SELECT_MACHINE_FOR_UPDATE, id)))
		return UIE_E_IO;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return UIE_E_NOTFOUND;
	}
	if ((r = state_from_row(res, m)) == UIE_OK && (r = load_reference(res, m)) == UIE_OK &&
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
