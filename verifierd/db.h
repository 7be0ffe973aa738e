/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The verifier's PostgreSQL: a fixed pool of connections, one per server
 * thread, each with the host platform its verifications use (the
 * platform's hash slots are not shared between threads); the schema
 * migrations (docs/VERIFIER.md 2.1); parameter and bytea helpers.
 */
#ifndef UIE_VERIFIERD_DB_H
#define UIE_VERIFIERD_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "host_platform.h"

#define VD_DB_WHY_LEN 512

#define VD_PREPARED_MAX 48

struct vd_conn {
	PGconn *pg;
	struct uie_host_platform hp;
	bool busy;
	const char *prepared[VD_PREPARED_MAX]; /* statement i is named "s<i>" */
	unsigned nprepared;
};

struct vd_db;

/*
 * n connections to conninfo.  The caller owns *out (vd_db_free).
 * Return: UIE_OK; UIE_E_IO (why names the server's message), UIE_E_NOMEM, UIE_E_CRYPTO.
 */
int vd_db_open_alloc(const char *conninfo, unsigned n, struct vd_db **out, char why[VD_DB_WHY_LEN]);
void vd_db_free(struct vd_db *db);

/*
 * Applies the files NNN_*.sql of dir that the database lacks, in order,
 * under an advisory lock.  Return: UIE_OK; UIE_E_IO (file or database),
 * UIE_E_VERSION (the database is newer than dir), why filled.
 */
int vd_db_migrate(struct vd_db *db, const char *dir, char why[VD_DB_WHY_LEN]);

/* A free connection (waits for one), reconnected when it broke; give it back with release. */
struct vd_conn *vd_db_acquire(struct vd_db *db);
void vd_db_release(struct vd_db *db, struct vd_conn *c);

/* Query parameters: text, numbers (as text) and binary bytea. */
#define VD_PARAMS_MAX 16
struct vd_params {
	const char *v[VD_PARAMS_MAX];
	int len[VD_PARAMS_MAX], fmt[VD_PARAMS_MAX];
	char num[VD_PARAMS_MAX][24];
	int n;
};
void vd_param_text(struct vd_params *p, const char *s); /* NULL: SQL NULL */
void vd_param_u64(struct vd_params *p, uint64_t v);
void vd_param_bytes(struct vd_params *p, const uint8_t *b, size_t n);

/*
 * Runs sql with p (NULL: none; with p, sql must be a string constant: it
 * is prepared once per connection and known by its address); the result of a statement that succeeded
 * (the caller PQclear's it), or NULL after printing the server's message
 * with what on stderr.
 */
PGresult *vd_db_query(struct vd_conn *c, const char *what, const char *sql, const struct vd_params *p);
/* The same for sql whose one parameter, $1, is key (a machine's id, a fleet's name). */
PGresult *vd_db_query_key(struct vd_conn *c, const char *what, const char *sql, const char *key);
/* The same for a command whose result is not needed; UIE_OK or UIE_E_IO. */
int vd_db_exec(struct vd_conn *c, const char *what, const char *sql, const struct vd_params *p);
/* The same for a statement that returns at most one row: *row whether it returned one. */
int vd_db_row(struct vd_conn *c, const char *what, const char *sql, const struct vd_params *p, bool *row);

/* A bytea column of exactly n bytes (text form \x...): UIE_OK or UIE_E_FORMAT. */
int vd_db_bytea(const PGresult *res, int row, int col, uint8_t *out, size_t n);
/* A bytea column of any length, malloc'ed: UIE_OK, UIE_E_FORMAT or UIE_E_NOMEM. */
int vd_db_bytea_alloc(const PGresult *res, int row, int col, uint8_t **out, size_t *n);
/* An integer column (NULL reads as 0). */
uint64_t vd_db_u64(const PGresult *res, int row, int col);

#endif
