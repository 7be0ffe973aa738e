/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Denials to the system log (monitor/denylog.c): the line's fields, escaping
 * of hostile object names, the syslog header as sent on a datagram socket,
 * nothing sent for allowed verdicts, and a missing log socket costing only
 * a dropped line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "denylog.h"
#include "uie/names.h"
#include "uie/err.h"
#include "tcommon.h"

static const struct uie_req exec_req = { .event = UIE_EV_EXECVE, .role = UIE_ROLE_MAIN, .pid = 42 };

static struct uie_verdict deny_verdict(void)
{
	struct uie_verdict v = {
		.decision = UIE_DENY, .policy_decision = UIE_DENY, .reason = UIE_R_DEFAULT, .seq = 7
	};

	v.digest.alg = UIE_HASH_SHA256;
	v.digest.len = UIE_SHA256_LEN;
	for (unsigned i = 0; i < UIE_SHA256_LEN; i++)
		v.digest.bytes[i] = (uint8_t)i;
	return v;
}

static void test_format_fields(void **state)
{
	struct uie_verdict v = deny_verdict();
	char line[512];
	size_t n = uie_denylog_format(line, sizeof(line), &exec_req, &v, UIE_MODE_ENFORCE, "/tmp/x");

	assert_int_equal(n, strlen(line));
	assert_string_equal(line, "denied event=execve role=main rule=default digest=sha256:"
				  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f "
				  "object=\"/tmp/x\" pid=42 mode=enforce seq=7");
	v.decision = UIE_ALLOW; /* MEASURE: the policy refused, the guest was not stopped */
	v.reason = UIE_R_ANON_EXEC;
	v.digest.alg = 0;
	uie_denylog_format(line, sizeof(line), &exec_req, &v, UIE_MODE_MEASURE, NULL);
	assert_non_null(strstr(line, "would-deny (measure mode) "));
	assert_non_null(strstr(line, " rule=anon-exec digest=none object=\"\" "));
	assert_non_null(strstr(line, " mode=measure "));
	/* Every refusal of a file for its source or pages has a word of its own. */
	v.reason = UIE_R_REMOTE_FS;
	uie_denylog_format(line, sizeof(line), &exec_req, &v, UIE_MODE_ENFORCE, NULL);
	assert_non_null(strstr(line, " rule=remote-fs "));
	v.reason = UIE_R_MUTABLE;
	uie_denylog_format(line, sizeof(line), &exec_req, &v, UIE_MODE_ENFORCE, NULL);
	assert_non_null(strstr(line, " rule=mutable "));
}

static void test_hostile_name(void **state)
{
	struct uie_verdict v = deny_verdict();
	char line[512];

	uie_denylog_format(line, sizeof(line), &exec_req, &v, UIE_MODE_ENFORCE,
			   "/a b\n<1>uie-monitord: allowed \"x\"\\\xff");
	assert_null(strchr(line, '\n'));
	assert_non_null(strstr(line, "object=\"/a b\\x0a<1>uie-monitord: allowed \\x22x\\x22\\x5c\\xff\" "));
	/* Cut, never overrun: the end of a long line is lost, the buffer stays a string. */
	assert_int_equal(uie_denylog_format(line, 20, &exec_req, &v, UIE_MODE_ENFORCE, "/x"), 19);
	assert_int_equal(strlen(line), 19);
}

static void test_sent_to_socket(void **state)
{
	char dir[] = "/tmp/uie-denylog.XXXXXX", path[64], buf[2048];
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct uie_verdict v = deny_verdict();
	struct uie_req anon = { .event = UIE_EV_MPROTECT_EXEC, .role = UIE_ROLE_ANON, .pid = 9 };
	struct uie_denylog dl;
	ssize_t n;
	int s;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/log", dir);
	strcpy(a.sun_path, path);
	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(s >= 0);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(uie_denylog_open(&dl, path), UIE_OK);

	uie_denylog_denial(&dl, &exec_req, &v, UIE_MODE_ENFORCE, "/usr/bin/evil");
	n = recv(s, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_memory_equal(buf, "<84>", 4); /* LOG_AUTHPRIV | LOG_WARNING */
	assert_non_null(strstr(buf, " uie-monitord["));
	assert_non_null(strstr(buf, "]: denied event=execve role=main rule=default digest=sha256:0001"));
	assert_non_null(strstr(buf, " object=\"/usr/bin/evil\" pid=42 "));

	v.policy_decision = UIE_ALLOW; /* allowed: nothing to report */
	v.decision = UIE_ALLOW;
	uie_denylog_denial(&dl, &anon, &v, UIE_MODE_ENFORCE, NULL);
	assert_true(recv(s, buf, sizeof(buf), MSG_DONTWAIT) < 0);
	assert_int_equal(dl.sent, 1);
	assert_int_equal(dl.dropped, 0);

	close(s);
	unlink(path);
	v = deny_verdict();
	uie_denylog_denial(&dl, &anon, &v, UIE_MODE_ENFORCE, NULL); /* nobody listening */
	assert_int_equal(dl.sent, 1);
	assert_int_equal(dl.dropped, 1);
	uie_denylog_close(&dl);
	rmdir(dir);
}

/* Every reason has its one-word key (uie_reason_key, beside its sentence), none twice. */
static void test_reason_keys(void **state)
{
	(void)state;
	assert_null(uie_reason_key(0));
	assert_null(uie_reason_key(UIE_R__MAX));
	for (unsigned r = 1; r < UIE_R__MAX; r++) {
		const char *k = uie_reason_key(r);

		assert_non_null(k);
		assert_null(strpbrk(k, " =\"\n"));
		assert_string_not_equal(uie_reason_str((uint16_t)r), "unknown reason");
		for (unsigned o = 1; o < r; o++)
			assert_string_not_equal(k, uie_reason_key(o));
	}
}

static void test_open_limits(void **state)
{
	char longpath[200];
	struct uie_denylog dl;
	struct uie_verdict v = deny_verdict();

	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	assert_int_equal(uie_denylog_open(&dl, longpath), UIE_E_INVAL);
	assert_int_equal(uie_denylog_open(&dl, NULL), UIE_OK);
	uie_denylog_denial(&dl, &exec_req, &v, UIE_MODE_ENFORCE, "/x"); /* disabled: no-op */
	uie_denylog_denial(NULL, &exec_req, &v, UIE_MODE_ENFORCE, "/x");
	assert_int_equal(dl.sent + dl.dropped, 0);
	uie_denylog_close(&dl);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_format_fields), cmocka_unit_test(test_hostile_name),
	cmocka_unit_test(test_sent_to_socket), cmocka_unit_test(test_reason_keys),
	cmocka_unit_test(test_open_limits))
