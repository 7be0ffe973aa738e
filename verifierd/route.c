/* SPDX-License-Identifier: Apache-2.0 */
#include "route.h"

#include <string.h>

#define PREFIX "/v1/machines"

static const struct {
	const char *method;
	const char *suffix; /* after "/ID", "" for none */
	vd_handler *fn;
	enum vd_access access;
	bool with_id;
} routes[] = {
	{ "POST", "", vd_h_enrol, VD_ADMIN_IF_ON, false },
	{ "GET", "", vd_h_list, VD_ANYONE, false },
	{ "GET", "", vd_h_machine, VD_ANYONE, true },
	{ "DELETE", "", vd_h_delete, VD_ADMIN, true },
	{ "PUT", "/ak", vd_h_rekey, VD_ADMIN, true },
	{ "POST", "/nonce", vd_h_nonce, VD_ANYONE, true },
	{ "POST", "/attestations", vd_h_attest, VD_ANYONE, true },
	{ "GET", "/verdicts", vd_h_verdicts, VD_ANYONE, true },
};

vd_handler *vd_route(const char *method, const char *url, char id[VD_ID_MAX + 1], enum vd_access *access,
		     struct vd_reply *rep)
{
	const char *rest, *suffix = "";
	bool with_id = false, path_known = false;
	size_t n;

	id[0] = '\0';
	if (strncmp(url, PREFIX, strlen(PREFIX)) != 0 || (url[strlen(PREFIX)] && url[strlen(PREFIX)] != '/'))
		goto not_found;
	rest = url + strlen(PREFIX);
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
		if (routes[i].with_id != with_id || strcmp(routes[i].suffix, suffix) != 0)
			continue;
		path_known = true;
		if (strcmp(routes[i].method, method) == 0) {
			*access = routes[i].access;
			return routes[i].fn;
		}
	}
	if (path_known) {
		vd_reply_error(rep, 405, "method", "%s is not allowed on %s", method, url);
		return NULL;
	}
not_found:
	vd_reply_error(rep, 404, "not_found", "no such path: %.200s", url);
	return NULL;
}
