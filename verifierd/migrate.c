/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Schema migrations (docs/VERIFIER.md 2.1): the files NNN_name.sql of a
 * directory, each applied once, in order, in one transaction with its
 * schema_version row, under an advisory lock so that two daemons starting
 * together do not both apply one.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "fileio.h"
#include "uie/err.h"

#define MIGRATIONS_MAX 999
#define MIGRATION_FILE_MAX (1u << 20)

/* The version NNN of a file name NNN_*.sql, or 0 when it is not one. */
static unsigned file_version(const char *name)
{
	size_t n = strlen(name);

	if (n < 9 || name[3] != '_' || strcmp(name + n - 4, ".sql") != 0)
		return 0;
	for (int i = 0; i < 3; i++)
		if (name[i] < '0' || name[i] > '9')
			return 0;
	return (unsigned)((name[0] - '0') * 100 + (name[1] - '0') * 10 + (name[2] - '0'));
}

/* names[v] = the file of version v, for every NNN_*.sql in dir; *top the highest. */
static int scan(const char *dir, char **names, unsigned *top, char why[VD_DB_WHY_LEN])
{
	DIR *d = opendir(dir);
	struct dirent *e;

	*top = 0;
	if (!d) {
		snprintf(why, VD_DB_WHY_LEN, "schema directory %s: %m", dir);
		return UIE_E_IO;
	}
	while ((e = readdir(d))) {
		unsigned v = file_version(e->d_name);

		if (!v)
			continue;
		if (names[v]) {
			snprintf(why, VD_DB_WHY_LEN, "%s: two migrations numbered %03u", dir, v);
			closedir(d);
			return UIE_E_ORDER;
		}
		if (!(names[v] = strdup(e->d_name))) {
			closedir(d);
			return UIE_E_NOMEM;
		}
		if (v > *top)
			*top = v;
	}
	closedir(d);
	return UIE_OK;
}

static int apply(struct vd_conn *c, const char *dir, const char *name, unsigned v, char why[VD_DB_WHY_LEN])
{
	struct vd_params p = { 0 };
	char path[4096];
	uint8_t *bytes;
	char *sql;
	size_t len;
	int r;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((r = uie_file_read_alloc(path, MIGRATION_FILE_MAX, &bytes, &len)) != UIE_OK) {
		snprintf(why, VD_DB_WHY_LEN, "migration %.300s: %s", path, uie_err_str(r));
		return r;
	}
	sql = memchr(bytes, 0, len) ? NULL : strndup((char *)bytes, len);
	free(bytes);
	if (!sql) {
		snprintf(why, VD_DB_WHY_LEN, "migration %.300s: a NUL byte in the file, or no memory", path);
		return UIE_E_FORMAT;
	}
	vd_param_u64(&p, v);
	vd_param_text(&p, name);
	if ((r = vd_db_exec(c, name, sql, NULL)) == UIE_OK)
		r = vd_db_exec(c, "recording a migration",
			       "INSERT INTO schema_version (version, name) VALUES ($1, $2)", &p);
	if (r != UIE_OK)
		snprintf(why, VD_DB_WHY_LEN, "migration %.200s failed: %.250s", path, PQerrorMessage(c->pg));
	free(sql);
	return r;
}

static int migrate(struct vd_conn *c, const char *dir, char **names, char why[VD_DB_WHY_LEN])
{
	PGresult *res;
	unsigned top, have;
	int r;

	if ((r = scan(dir, names, &top, why)) != UIE_OK)
		return r;
	if (vd_db_exec(c, "migration", "BEGIN", NULL) != UIE_OK ||
	    vd_db_exec(c, "migration", "SET LOCAL client_min_messages = warning", NULL) != UIE_OK ||
	    vd_db_exec(c, "migration lock", "SELECT pg_advisory_xact_lock(1969841526)", NULL) != UIE_OK ||
	    vd_db_exec(c, "migration",
		       "CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, "
		       "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
		       NULL) != UIE_OK ||
	    !(res = vd_db_query(c, "migration", "SELECT coalesce(max(version), 0) FROM schema_version",
				NULL))) {
		snprintf(why, VD_DB_WHY_LEN, "reading the schema version: %s", PQerrorMessage(c->pg));
		return UIE_E_IO;
	}
	have = (unsigned)vd_db_u64(res, 0, 0);
	PQclear(res);
	if (have > top) {
		snprintf(why, VD_DB_WHY_LEN, "the database has schema version %u, newer than %s (%u)", have,
			 dir, top);
		return UIE_E_VERSION;
	}
	for (unsigned v = have + 1; v <= top; v++) {
		if (!names[v]) {
			snprintf(why, VD_DB_WHY_LEN, "%s: migration %03u is missing", dir, v);
			return UIE_E_NOTFOUND;
		}
		if ((r = apply(c, dir, names[v], v, why)) != UIE_OK)
			return r;
	}
	if (vd_db_exec(c, "migration", "COMMIT", NULL) != UIE_OK) {
		snprintf(why, VD_DB_WHY_LEN, "committing the migrations: %s", PQerrorMessage(c->pg));
		return UIE_E_IO;
	}
	return UIE_OK;
}

int vd_db_migrate(struct vd_db *db, const char *dir, char why[VD_DB_WHY_LEN])
{
	char **names = calloc(MIGRATIONS_MAX + 1, sizeof(*names));
	struct vd_conn *c;
	int r;

	if (!names)
		return UIE_E_NOMEM;
	c = vd_db_acquire(db);
	r = migrate(c, dir, names, why);
	vd_db_release(db, c); /* rolls back what failed */
	for (unsigned v = 0; v <= MIGRATIONS_MAX; v++)
		free(names[v]);
	free(names);
	return r;
}
