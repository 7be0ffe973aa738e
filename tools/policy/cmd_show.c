/* SPDX-License-Identifier: Apache-2.0 */
/* `uie policy show TABLE|PACKAGE`: a compiled table (or a package's) as policy text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uie/err.h"
#include "uie/package.h"
#include "uie/policy.h"

#include "cmd.h"
#include "host_platform.h"
#include "lang.h"
#include "fileio.h"
#include "policy_cmds.h"

static void show_package(const struct uie_package *p)
{
	printf("# package: epoch %llu, bound to %llu records, vPCR16 ",
	       (unsigned long long)p->epoch, (unsigned long long)p->bind_seq);
	for (int i = 0; i < UIE_PCR_LEN; i++)
		printf("%02x", p->bind_pcr[i]);
	printf("\n# key id ");
	for (int i = 0; i < UIE_SHA256_LEN; i++)
		printf("%02x", p->key_id[i]);
	printf(", hint %zu bytes, package hash ", p->hint_len);
	for (int i = 0; i < UIE_SHA256_LEN; i++)
		printf("%02x", p->package_hash[i]);
	printf("\n");
}

int uie_cmd_policy_show(int argc, char **argv)
{
	struct uie_host_platform hp;
	struct uie_package pkg = { 0 };
	struct uie_policy pol;
	const uint8_t *table;
	uint8_t *buf;
	size_t len, tlen;
	char name[32];
	int r;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: uie policy show TABLE|PACKAGE\n");
		return UIE_EXIT_USAGE;
	}
	if ((r = uie_file_read_alloc(argv[1], UIE_PACKAGE_MAX_LEN, &buf, &len)) != UIE_OK) {
		fprintf(stderr, "uie policy show: %s: %s\n", argv[1], uie_err_str(r));
		return UIE_EXIT_FAIL;
	}
	table = buf;
	tlen = len;
	if (len >= 8 && !memcmp(buf, UIE_PACKAGE_MAGIC, 8)) {
		if ((r = uie_host_platform_init(&hp)) == UIE_OK) {
			r = uie_package_parse(&hp.pl, buf, len, &pkg);
			uie_host_platform_fini(&hp);
		}
		if (r == UIE_OK) {
			show_package(&pkg);
			table = pkg.table;
			tlen = pkg.table_len;
		}
	}
	if (r == UIE_OK)
		r = uie_policy_load(table, tlen, &pol);
	if (r == UIE_OK) {
		/* Tables store no name: a stable placeholder so the text compiles back. */
		snprintf(name, sizeof(name), "table-%u-rules", pol.nrules);
		r = uie_lang_print(stdout, &pol, name);
	}
	free(buf);
	if (r != UIE_OK) {
		fprintf(stderr, "uie policy show: %s: %s\n", argv[1], uie_err_str(r));
		return UIE_EXIT_FAIL;
	}
	return UIE_EXIT_OK;
}
