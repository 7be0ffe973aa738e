/* SPDX-License-Identifier: Apache-2.0 */
#include "db.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "uie/err.h"

struct vd_db {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	unsigned n;
	struct vd_conn c[];
};

void vd_db_free(struct vd_db *db)
{
	if (!db)
		return;
	for (unsigned i = 0; i < db->n; i++) {
		PQfinish(db->c[i].pg);
		uie_host_platform_fini(&db->c[i].hp);
	}
	pthread_mutex_destroy(&db->lock);
	pthread_cond_destroy(&db->freed);
	free(db);
}

int vd_db_open_alloc(const char *conninfo, unsigned n, struct vd_db **out, char why[VD_DB_WHY_LEN])
{
	struct vd_db *db = calloc(1, sizeof(*db) + n * sizeof(db->c[0]));

	*out = NULL;
	if (!db)
		return UIE_E_NOMEM;
	pthread_mutex_init(&db->lock, NULL);
	pthread_cond_init(&db->freed, NULL);
	for (; db->n < n; db->n++) {
		struct vd_conn *c = &db->c[db->n];

		if (uie_host_platform_init(&c->hp) != UIE_OK) {
			vd_db_free(db);
			snprintf(why, VD_DB_WHY_LEN, "crypto provider failed");
			return UIE_E_CRYPTO;
		}
		c->pg = PQconnectdb(conninfo);
		if (PQstatus(c->pg) != CONNECTION_OK) {
			snprintf(why, VD_DB_WHY_LEN, "%s", PQerrorMessage(c->pg));
			db->n++;
			vd_db_free(db);
			return UIE_E_IO;
		}
	}
	*out = db;
	return UIE_OK;
}

struct vd_conn *vd_db_acquire(struct vd_db *db)
{
	struct vd_conn *c = NULL;

	pthread_mutex_lock(&db->lock);
	while (!c) {
		for (unsigned i = 0; i < db->n && !c; i++)
			if (!db->c[i].busy)
				c = &db->c[i];
		if (!c)
			pthread_cond_wait(&db->freed, &db->lock);
	}
	c->busy = true;
	pthread_mutex_unlock(&db->lock);
	if (PQstatus(c->pg) != CONNECTION_OK) {
		PQreset(c->pg);
		c->nprepared = 0; /* a new session knows none of them */
	}
	return c;
}

void vd_db_release(struct vd_db *db, struct vd_conn *c)
{
	/* A connection left inside a transaction (a failed handler) starts clean. */
	if (PQtransactionStatus(c->pg) != PQTRANS_IDLE)
		PQclear(PQexec(c->pg, "ROLLBACK"));
	pthread_mutex_lock(&db->lock);
	c->busy = false;
	pthread_cond_signal(&db->freed);
	pthread_mutex_unlock(&db->lock);
}

static void param(struct vd_params *p, const char *v, int len, int fmt)
{
	if (p->n == VD_PARAMS_MAX)
		abort(); /* a programming error: every query has a fixed parameter count */
	p->v[p->n] = v;
	p->len[p->n] = len;
	p->fmt[p->n] = fmt;
	p->n++;
}

void vd_param_text(struct vd_params *p, const char *s)
{
	param(p, s, 0, 0);
}

void vd_param_u64(struct vd_params *p, uint64_t v)
{
	if (p->n == VD_PARAMS_MAX)
		abort();
	snprintf(p->num[p->n], sizeof(p->num[0]), "%llu", (unsigned long long)v);
	param(p, p->num[p->n], 0, 0);
}

void vd_param_bytes(struct vd_params *p, const uint8_t *b, size_t n)
{
	param(p, (const char *)b, (int)n, 1);
}

/*
 * sql with p as a statement prepared on this connection (on first use:
 * the server parses and plans it once); unprepared when the cache is full.
 */
static PGresult *exec_prepared(struct vd_conn *c, const char *sql, const struct vd_params *p)
{
	char name[16];
	unsigned i = 0;
	PGresult *res;

	while (i < c->nprepared && c->prepared[i] != sql)
		i++;
	if (i == VD_PREPARED_MAX)
		return PQexecParams(c->pg, sql, p->n, NULL, p->v, p->len, p->fmt, 0);
	snprintf(name, sizeof(name), "s%u", i);
	if (i == c->nprepared) {
		res = PQprepare(c->pg, name, sql, p->n, NULL);
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
			return res;
		PQclear(res);
		c->prepared[c->nprepared++] = sql;
	}
	return PQexecPrepared(c->pg, name, p->n, p->v, p->len, p->fmt, 0);
}

PGresult *vd_db_query(struct vd_conn *c, const char *what, const char *sql, const struct vd_params *p)
{
	PGresult *res = p ? exec_prepared(c, sql, p) : PQexec(c->pg, sql);
	ExecStatusType st = PQresultStatus(res);

	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
		return res;
	fprintf(stderr, "uie-verifierd: database, %s: %s", what,
		res ? PQresultErrorMessage(res) : PQerrorMessage(c->pg));
	PQclear(res);
	return NULL;
}

PGresult *vd_db_query_key(struct vd_conn *c, const char *what, const char *sql, const char *key)
{
	struct vd_params p = { 0 };

	vd_param_text(&p, key);
	return vd_db_query(c, what, sql, &p);
}

int vd_db_exec(struct vd_conn *c, const char *what, const char *sql, const struct vd_params *p)
{
	PGresult *res = vd_db_query(c, what, sql, p);

	PQclear(res);
	return res ? UIE_OK : UIE_E_IO;
}

int vd_db_row(struct vd_conn *c, const char *what, const char *sql, const struct vd_params *p, bool *row)
{
	PGresult *res = vd_db_query(c, what, sql, p);

	*row = res && PQntuples(res) == 1;
	PQclear(res);
	return res ? UIE_OK : UIE_E_IO;
}

int vd_db_bytea(const PGresult *res, int row, int col, uint8_t *out, size_t n)
{
	const char *s = PQgetvalue(res, row, col);
	size_t len = (size_t)PQgetlength(res, row, col);

	if (len < 2 || s[0] != '\\' || s[1] != 'x')
		return UIE_E_FORMAT;
	return uie_hex_decode(s + 2, len - 2, out, n);
}

int vd_db_bytea_alloc(const PGresult *res, int row, int col, uint8_t **out, size_t *n)
{
	size_t len = (size_t)PQgetlength(res, row, col);
	int r;

	*out = NULL;
	*n = 0;
	if (len < 2 || len % 2)
		return UIE_E_FORMAT;
	if (!(*out = malloc(len / 2)))
		return UIE_E_NOMEM;
	if ((r = vd_db_bytea(res, row, col, *out, len / 2 - 1)) != UIE_OK) {
		free(*out);
		*out = NULL;
		return r;
	}
	*n = len / 2 - 1;
	return UIE_OK;
}

uint64_t vd_db_u64(const PGresult *res, int row, int col)
{
	uint64_t v = 0;

	if (!PQgetisnull(res, row, col) && uie_parse_u64(PQgetvalue(res, row, col), &v) != UIE_OK)
		v = 0;
	return v;
}
