/* SPDX-License-Identifier: Apache-2.0 */
/* The monitor tests' shared fixture (see mon_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mon_fixture.h"
#include "tcommon.h"
#include "uie/err.h"

void mon_fixture_open(struct mon_fixture *mf, const char *tmpl)
{
	char spec[128];

	assert_true(strlen(tmpl) < sizeof(mf->dir));
	strcpy(mf->dir, tmpl);
	tc_mkdtemp(mf->dir);
	assert_int_equal(uie_host_platform_init(&mf->hp), UIE_OK);
	snprintf(spec, sizeof(spec), "builtin:%s/ak.pem", mf->dir);
	assert_int_equal(uie_vtpm_open(spec, &mf->tpm), UIE_OK);
}

void mon_fixture_start(struct mon_fixture *mf, const char *tmpl)
{
	mon_fixture_open(mf, tmpl);
	assert_int_equal(uie_mon_init(&mf->m, &mf->hp.pl, mf->tpm, NULL), UIE_OK);
}

void mon_fixture_stop(struct mon_fixture *mf)
{
	uie_mon_fini(&mf->m);
	uie_vtpm_free(mf->tpm);
	uie_host_platform_fini(&mf->hp);
	tc_rmtree(mf->dir);
}

struct uie_wire_msg mon_fixture_call(struct uie_monitor *m, struct uie_wire_msg *q, int fd, int *ansfd)
{
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	struct uie_wire_msg a;
	size_t len, alen;
	int afd;

	q->request_id = 77;
	assert_int_equal(uie_bridge_encode(q, msg, sizeof(msg), &len), UIE_OK);
	uie_mon_handle(m, msg, len, fd, ans, &alen, &afd);
	assert_int_equal(uie_bridge_decode(ans, alen, &a), UIE_OK);
	assert_int_equal(a.request_id, 77);
	assert_int_equal(a.type, q->type + 1);
	if (ansfd)
		*ansfd = afd;
	else
		assert_int_equal(afd, -1);
	return a;
}
