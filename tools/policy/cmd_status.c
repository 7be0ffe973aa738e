/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie status [--socket PATH] [--json]`: the monitor's STATUS answer
 * (docs/BRIDGE.md), as lines or as one JSON object (numbers as in
 * docs/FORMATS.md 5.6).  Exit 1 when the monitor is unhealthy.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "uie/bridge.h"
#include "uie/err.h"
#include "uie/names.h"

#include "cmd.h"
#include "conn.h"
#include "hex.h"
#include "json.h"
#include "opts.h"
#include "subcmds.h"

static void print_text(const struct uie_status *st)
{
	char vpcr[2 * UIE_PCR_LEN + 1], policy[2 * UIE_SHA256_LEN + 1], boot_id[2 * UIE_BOOT_ID_LEN + 1];

	uie_hex_encode(vpcr, st->vpcr, sizeof(st->vpcr));
	uie_hex_encode(policy, st->policy_id, sizeof(st->policy_id));
	uie_hex_encode(boot_id, st->boot_id, sizeof(st->boot_id));
	printf("mode: %s\nepoch: %llu\nrecords: %llu\nvpcr16: %s\npolicy: %s\nboot: %llu %s\n"
	       "repeats: %llu\nhealth: %s\ntrusted keys: %u\n",
	       uie_mode_name(st->mode), (unsigned long long)st->epoch, (unsigned long long)st->nrecords, vpcr,
	       policy, (unsigned long long)st->boot, boot_id, (unsigned long long)st->repeats,
	       st->health == UIE_OK ? "ok" : uie_err_str(st->health), st->trust_keys);
}

static int print_json(const struct uie_status *st)
{
	char vpcr[2 * UIE_PCR_LEN + 1], policy[2 * UIE_SHA256_LEN + 1], boot_id[2 * UIE_BOOT_ID_LEN + 1];

	uie_hex_encode(vpcr, st->vpcr, sizeof(st->vpcr));
	uie_hex_encode(policy, st->policy_id, sizeof(st->policy_id));
	uie_hex_encode(boot_id, st->boot_id, sizeof(st->boot_id));
	return uie_json_print(json_pack(
		"{s:s, s:o, s:o, s:s, s:s, s:o, s:s, s:o, s:s, s:i}", "mode", uie_mode_name(st->mode),
		"epoch", uie_json_u64(st->epoch), "records", uie_json_u64(st->nrecords), "vpcr16", vpcr,
		"policy", policy, "boot", uie_json_u64(st->boot), "boot_id", boot_id, "repeats",
		uie_json_u64(st->repeats), "health", st->health == UIE_OK ? "ok" : uie_err_str(st->health),
		"trusted_keys", (int)st->trust_keys));
}

static void usage(FILE *f)
{
	fprintf(f, "usage: uie status [--socket PATH] [--json]\n");
}

int uie_cmd_status(int argc, char **argv)
{
	const char *sock = UIE_BRIDGE_DEFAULT_PATH;
	bool json = false;
	const struct uie_opt t[] = {
		UIE_OPT_STRING("socket", 's', &sock),
		UIE_OPT_FLAG("json", 0, UIE_OPTK_SET, &json),
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = "uie status", .opt = t, .usage = usage };
	struct uie_status st;
	int fd, r;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	if (uie_tool_connect("uie status", sock, &fd) != UIE_OK)
		return UIE_EXIT_FAIL;
	r = uie_bridge_status(fd, &st);
	close(fd);
	if (r != UIE_OK) {
		uie_tool_peer_err("uie status", sock, r);
		return UIE_EXIT_FAIL;
	}
	if (json && print_json(&st) != UIE_OK)
		return UIE_EXIT_FAIL;
	if (!json)
		print_text(&st);
	if (!st.trust_keys)
		fprintf(stderr,
			"uie status: WARNING: the monitor at %s has no trusted policy key "
			"(--trust-key): it can never leave bootstrap, and every program runs\n",
			sock);
	if (st.health != UIE_OK) {
		fprintf(stderr,
			"uie status: monitor at %s is unhealthy: %s (grants fail closed; "
			"see its diagnostics log)\n",
			sock, uie_err_str(st.health));
		return UIE_EXIT_FAIL;
	}
	return UIE_EXIT_OK;
}
