/* SPDX-License-Identifier: Apache-2.0 */
#include "route.h"

#include <string.h>

#define M "/v1/machines"
#define F "/v1/fleets"

#define METHODS_MAX 2 /* the most methods one path takes */

/* Each path (a prefix, then "/ID" or not, then a suffix) with the methods it takes. */
static const struct {
	const char *prefix;
	bool with_id;
	const char *suffix; /* after "/ID", "" for none */
	struct {
		const char *name; /* NULL: no more methods */
		vd_handler *fn;
		enum vd_access access;
	} method[METHODS_MAX];
} routes[] = {
	{ M, false, "", { { "POST", vd_h_enrol, VD_ADMIN_IF_ON }, { "GET", vd_h_list, VD_ANYONE } } },
	{ M, true, "", { { "GET", vd_h_machine, VD_ANYONE }, { "DELETE", vd_h_delete, VD_ADMIN } } },
	{ M, true, "/ak", { { "PUT", vd_h_rekey, VD_ADMIN } } },
	{ M, true, "/nonce", { { "POST", vd_h_nonce, VD_ANYONE } } },
	{ M, true, "/attestations", { { "POST", vd_h_attest, VD_ANYONE } } },
	{ M, true, "/verdicts", { { "GET", vd_h_verdicts, VD_ANYONE } } },
	{ M, true, "/enrolment/nonce", { { "POST", vd_h_enrol_nonce, VD_ANYONE } } },
	{ M, true, "/enrolment/evidence", { { "POST", vd_h_enrol_evidence, VD_ANYONE } } },
	{ M, true, "/enrolment/activate", { { "POST", vd_h_enrol_activate, VD_ANYONE } } },
	{ F, true, "", { { "PUT", vd_h_fleet, VD_ADMIN } } },
};

/* The prefix url starts with (followed by nothing or "/"), or NULL. */
static const char *prefix_of(const char *url)
{
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		size_t n = strlen(routes[i].prefix);

		if (strncmp(url, routes[i].prefix, n) == 0 && (!url[n] || url[n] == '/'))
			return routes[i].prefix;
	}
	return NULL;
}

vd_handler *vd_route(const char *method, const char *url, char id[VD_ID_MAX + 1], enum vd_access *access,
		     struct vd_reply *rep)
{
	const char *rest, *suffix = "", *prefix = prefix_of(url);
	bool with_id = false;
	size_t n;

	id[0] = '\0';
	if (!prefix)
		goto not_found;
	rest = url + strlen(prefix);
	if (*rest) {
		rest++;
		n = strcspn(rest, "/");
		if (n == 0 || n > VD_ID_MAX)
			goto not_found;
		memcpy(id, rest, n);
		id[n] = '\0';
		if (!uie_machine_id_ok(id))
			goto not_found;
		with_id = true;
		suffix = rest + n;
	}
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		if (routes[i].prefix != prefix || routes[i].with_id != with_id ||
		    strcmp(routes[i].suffix, suffix) != 0)
			continue;
		for (size_t k = 0; k < METHODS_MAX && routes[i].method[k].name; k++)
			if (strcmp(routes[i].method[k].name, method) == 0) {
				*access = routes[i].method[k].access;
				return routes[i].method[k].fn;
			}
		vd_reply_error(rep, 405, "method", "%s is not allowed on %s", method, url);
		return NULL;
	}
not_found:
	vd_reply_error(rep, 404, "not_found", "no such path: %.200s", url);
	return NULL;
}
