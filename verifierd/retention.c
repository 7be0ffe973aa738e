/* SPDX-License-Identifier: Apache-2.0 */
#include "retention.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hex.h"
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
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
};

static void *run(void *arg)
{
	struct vd_retention *r = arg;
	struct timespec until;
	uint64_t n;
	int e;

	pthread_mutex_lock(&r->lock);
	while (!r->stop) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += VD_RETENTION_PERIOD_S;
		for (e = 0; !r->stop && e != ETIMEDOUT;)
			e = pthread_cond_timedwait(&r->wake, &r->lock, &until);
		if (r->stop)
			break;
		pthread_mutex_unlock(&r->lock);
		vd_retention_prune(r->db, r->days,
				   &n); /* a failure is on stderr; the next hour tries again */
		pthread_mutex_lock(&r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int vd_retention_start_alloc(struct vd_db *db, unsigned days, struct vd_retention **out)
{
	struct vd_retention *r = calloc(1, sizeof(*r));
	pthread_condattr_t ca;

	*out = NULL;
	if (!r)
		return UIE_E_NOMEM;
	r->db = db;
	r->days = days;
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&r->thread, NULL, run, r) != 0) {
		pthread_cond_destroy(&r->wake);
		pthread_mutex_destroy(&r->lock);
		free(r);
		return UIE_E_SYS;
	}
	*out = r;
	return UIE_OK;
}

void vd_retention_free(struct vd_retention *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
