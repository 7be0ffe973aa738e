/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fixture the monitor's unit tests share: a monitor started in-process
 * on the host platform and a builtin vTPM whose key lives in a fresh
 * temporary directory, and a call through uie_mon_handle as the daemon
 * makes it.  Every function fails the running test on error.
 */
#ifndef UIE_TEST_MON_FIXTURE_H
#define UIE_TEST_MON_FIXTURE_H

#include "host_platform.h"
#include "monitor.h"
#include "vtpm.h"

struct mon_fixture {
	struct uie_host_platform hp; /* first: a platform whose ctx is the fixture reaches hp */
	struct uie_vtpm *tpm;
	struct uie_monitor m;
	char dir[64];
};

/*
 * Makes mf->dir from tmpl (a path ending in XXXXXX), the host platform and
 * the vTPM (key mf->dir/ak.pem); the caller starts the monitor itself, on a
 * platform of its own.
 */
void mon_fixture_open(struct mon_fixture *mf, const char *tmpl);

/* mon_fixture_open, then the monitor on the host platform. */
void mon_fixture_start(struct mon_fixture *mf, const char *tmpl);

/* Stops the monitor and the vTPM and removes mf->dir with all in it. */
void mon_fixture_stop(struct mon_fixture *mf);

/*
 * Sends q (with descriptor fd, which the monitor takes) through m under
 * request id 77 and returns the decoded answer, checked to be q's answer.
 * The answer's descriptor goes to *ansfd (the caller closes it); with ansfd
 * NULL the answer must carry none.
 */
struct uie_wire_msg mon_fixture_call(struct uie_monitor *m, struct uie_wire_msg *q, int fd, int *ansfd);

#endif
