/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor's one decide step: every measured request, from a file
 * descriptor or from guest frames, ends here, so every refusal is decided,
 * logged and named in the system log the same way in both modes.
 */
#include "monitor.h"
#include "subjects.h"
#include "uie/err.h"
#include "uie/sys.h"

/*
 * First-seen mode, process mode: a program that now runs (an EXECVE of an
 * ELF main program or interpreter the guest applies as ALLOW) may be named
 * as the subject of this connection's later requests.  A failure to
 * remember only makes those requests fail (closed).  VM mode has no
 * subjects (docs/BRIDGE.md 12).
 */
static void subject_remember(struct uie_monitor *m, struct uie_mon_client *client, const struct uie_req *req,
			     const struct uie_verdict *v)
{
	if (!uie_logstore_is_first_seen(&m->log) || m->ram || !client || req->event != UIE_EV_EXECVE ||
	    (req->role != UIE_ROLE_MAIN && req->role != UIE_ROLE_INTERP) || v->decision != UIE_ALLOW ||
	    v->scope != UIE_SCOPE_ELF)
		return;
	if (uie_mon_subjects_put(&client->subjects, v->seq, &v->digest) != UIE_OK)
		uie_mon_diag(m, "record %llu: no memory to remember it as a subject",
			     (unsigned long long)v->seq);
}

/*
 * The name of the object behind fd, for the system log (NULL when it has
 * none).  A deleted or fileless object's name says so: "/memfd:x (deleted)".
 * Read only for a refusal: a grant's request reads nothing from /proc.
 */
static const char *object_name(int fd, char *buf, size_t size)
{
	return uie_sys_fd_name(fd, buf, size) < 0 ? NULL : buf;
}

int uie_mon_decide(struct uie_monitor *m, struct uie_mon_client *client, const struct uie_req *req,
		   const struct uie_measurement *ms, int objfd, struct uie_verdict *out)
{
	int r = uie_core_decide(&m->core, req, ms->err, ms->scope == UIE_SCOPE_NONE ? NULL : &ms->digest,
				ms->scope, out);
	char name[4096];

	if (r == UIE_OK && out->policy_decision == UIE_DENY)
		uie_denylog_denial(m->denylog, req, out, m->core.mode,
				   object_name(objfd, name, sizeof(name)));
	if (ms->err != UIE_OK)
		uie_mon_diag(m, "measure pid %u event %u role %u%s: %s", req->pid, req->event, req->role,
			     m->ram ? " (VM)" : "", uie_err_str(ms->err));
	if (r == UIE_OK)
		subject_remember(m, client, req, out);
	return r;
}
