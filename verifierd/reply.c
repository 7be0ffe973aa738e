/* SPDX-License-Identifier: Apache-2.0 */
#include "reply.h"

#include <stdarg.h>
#include <stdio.h>

#include "uie/err.h"

void vd_reply_error(struct vd_reply *rep, unsigned status, const char *code, const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	json_decref(rep->json);
	rep->status = status;
	rep->json = json_pack("{s:s, s:s}", "error", code, "reason", reason);
	if (!rep->json) /* a reason quoting bytes that are not UTF-8 */
		rep->json = json_pack("{s:s, s:s}", "error", code, "reason", "(not UTF-8)");
}

void vd_reply_json(struct vd_reply *rep, unsigned status, json_t *json)
{
	json_decref(rep->json);
	rep->json = NULL;
	if (!json) {
		vd_reply_error(rep, 500, "internal", "out of memory building the answer");
		return;
	}
	rep->status = status;
	rep->json = json;
}

void vd_reply_db(struct vd_reply *rep, const char *what)
{
	vd_reply_error(rep, 503, "database", "database failed while %s", what);
}

void vd_reply_unknown(struct vd_reply *rep, const char *id)
{
	vd_reply_error(rep, 404, "unknown_machine", "no machine \"%s\" is enrolled", id);
}
