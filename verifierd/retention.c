/* SPDX-License-Identifier: Apache-2.0 */
#include "retention.h"

#include <stdio.h>
#include <stdlib.h>

#include "hex.h"
#include "ticker.h"
#include "uie/err.h"

#define BATCH 10000 /* rows per statement: a connection of the pool is not held for long */
#define STR(x) #x
#define XSTR(x) STR(x)

/* One batch under the pruning lock; *n the rows deleted, *busy when another verifier prunes. */
static int prune_batch(struct vd_conn *c, unsigned days, uint64_t *n, bool *busy)
{
	struct vd_params p = { 0 };
	PGresult *res;

	*n = 0;
	if (vd_db_exec(c, "pruning verdicts", "BEGIN", NULL) != UIE_OK ||
	    !(res = vd_db_query(c, "pruning verdicts",
				"SELECT pg_try_advisory_xact_lock(1969845874)" /* 0x75697672 */, NULL)))
		return UIE_E_IO;
	*busy = PQgetvalue(res, 0, 0)[0] != 't';
	PQclear(res);
	if (*busy)
		return vd_db_exec(c, "pruning verdicts", "COMMIT", NULL);
	vd_param_u64(&p, days);
	if (!(res = vd_db_query(c, "pruning verdicts",
				"DELETE FROM verdicts WHERE id IN (SELECT v.id FROM verdicts v "
				"WHERE v.at < now() - make_interval(days => $1::int) AND NOT EXISTS "
				"(SELECT 1 FROM machines m WHERE m.first_bad = v.id) LIMIT " XSTR(BATCH) ")",
				&p)))
		return UIE_E_IO;
	if (uie_parse_u64(PQcmdTuples(res), n) != UIE_OK)
		*n = 0;
	PQclear(res);
	return vd_db_exec(c, "pruning verdicts", "COMMIT", NULL);
}

int vd_retention_prune(struct vd_db *db, unsigned days, uint64_t *n)
{
	uint64_t batch = BATCH;
	bool busy = false;
	int r = UIE_OK;

	*n = 0;
	while (r == UIE_OK && batch == BATCH && !busy) {
		struct vd_conn *c = vd_db_acquire(db);

		r = prune_batch(c, days, &batch, &busy);
		vd_db_release(db, c);
		*n += batch;
	}
	if (*n) {
		printf("pruned %llu verdicts older than %u days\n", (unsigned long long)*n, days);
		fflush(stdout);
	}
	return r;
}

struct vd_retention {
	struct vd_db *db;
	unsigned days;
	struct vd_ticker t;
};

/* Every hour, without the lock: a failure is on stderr, and the next hour tries again. */
static void run(void *arg)
{
	struct vd_retention *r = arg;
	uint64_t n;

	vd_retention_prune(r->db, r->days, &n);
}

int vd_retention_start_alloc(struct vd_db *db, unsigned days, struct vd_retention **out)
{
	struct vd_retention *r = calloc(1, sizeof(*r));
	int e;

	*out = NULL;
	if (!r)
		return UIE_E_NOMEM;
	r->db = db;
	r->days = days;
	r->t = (struct vd_ticker){ .period = VD_RETENTION_PERIOD_S, .unlocked = true, .tick = run, .arg = r };
	if ((e = vd_ticker_start_or_free(&r->t)) == UIE_OK)
		*out = r;
	return e;
}

void vd_retention_free(struct vd_retention *r)
{
	if (r)
		vd_ticker_stop_free(&r->t);
}
