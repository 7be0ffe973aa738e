/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie policy sign --key PRIV.pem --epoch N --bind-seq S --bind-pcr HEX
 *  [--bloom] [--bloom-bits B] TABLE -o PACKAGE`: the TTP endorses a
 * compiled table, bound to the vPCR16 value after the first S records of
 * the monitor's log.  `--bind-from STATE` takes S and that value from the
 * state file `uie verify --state` wrote (the log prefix the TTP verified),
 * and the epoch, unless given, as the verified one plus one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uie/err.h"
#include "uie/package.h"

#include "bloom.h"
#include "cmd.h"
#include "keys.h"
#include "opts.h"
#include "fileio.h"
#include "hex.h"
#include "pkgbuild.h"
#include "subcmds.h"
#include "verify.h"

#define HINT_BITS_MIN 4u
#define HINT_BITS_MAX 1024u

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uie policy sign --key PRIV.pem --epoch N --bind-seq S --bind-pcr HEX "
		"[--bloom] [--bloom-bits B] TABLE -o PACKAGE\n"
		"       uie policy sign --key PRIV.pem --bind-from STATE [--epoch N] ... TABLE -o PACKAGE\n"
		"  --bind-from STATE: bind to the log prefix `uie verify --state STATE` accepted;\n"
		"                  the epoch defaults to the verified epoch + 1\n"
		"  --bloom-bits B: bits per ALLOW digest in the hint, %u..%u (default %u, about\n"
		"                  0.8 %% false positives; 20 gives about 0.02 %%); implies --bloom\n",
		HINT_BITS_MIN, HINT_BITS_MAX, UIE_BLOOM_BITS_PER_ITEM);
}

/* --bind-pcr HEX into the pcr of struct bind_pcr. */
struct bind_pcr {
	uint8_t *pcr;
	bool given;
};

static int bind_pcr_option(void *ctx, const char *arg)
{
	struct bind_pcr *b = ctx;

	if (uie_hex_decode(arg, strlen(arg), b->pcr, UIE_PCR_LEN) != UIE_OK) {
		fprintf(stderr, "uie policy sign: --bind-pcr must be 64 hex digits\n");
		return UIE_EXIT_USAGE;
	}
	b->given = true;
	return UIE_OPTS_GO;
}

int uie_cmd_policy_sign(int argc, char **argv)
{
	struct pkg_params pp = { 0 };
	struct bind_pcr pcr = { pp.bind_pcr, false };
	const char *key = NULL, *out = NULL, *from = NULL;
	const struct uie_opt t[] = {
		UIE_OPT_STRING("key", 'k', &key),
		UIE_OPT_NUMBER("epoch", 'e', pp.epoch, 1, UIE_EPOCH_MAX, NULL),
		UIE_OPT_NUMBER("bind-seq", 's', pp.bind_seq, 1, UINT64_MAX, "must be a record count >= 1"),
		UIE_OPT_CALL("bind-pcr", 'p', bind_pcr_option, &pcr),
		UIE_OPT_FLAG("bloom", 'b', UIE_OPTK_SET, &pp.hint),
		UIE_OPT_NUMBER("bloom-bits", 'B', pp.hint_bits, HINT_BITS_MIN, HINT_BITS_MAX, NULL),
		UIE_OPT_STRING("output", 'o', &out),
		UIE_OPT_STRING("bind-from", 0, &from),
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = "uie policy sign", .opt = t, .usage = usage, .min_operands = 1, .max_operands = 1
	};
	struct uie_verify_state st;
	int r, have;
	uint8_t *table = NULL, *pkg = NULL;
	size_t tlen, plen;
	EVP_PKEY *pk = NULL;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	/* Given ones are not 0 (their ranges start at 1); --bloom-bits implies --bloom. */
	have = (pp.epoch ? 1 : 0) | (pp.bind_seq ? 2 : 0) | (pcr.given ? 4 : 0);
	pp.hint = pp.hint || pp.hint_bits;
	if (from && (have & 6)) {
		fprintf(stderr, "uie policy sign: --bind-from replaces --bind-seq and --bind-pcr\n");
		return UIE_EXIT_USAGE;
	}
	if (from) {
		if ((r = uie_verify_state_load(from, &st)) != UIE_OK || !st.valid || st.next_seq == 0) {
			fprintf(stderr, "uie policy sign: %s: %s\n", from,
				r != UIE_OK ? uie_err_str(r)
					    : "no verified state (run uie verify --state first)");
			return UIE_EXIT_FAIL;
		}
		pp.bind_seq = st.next_seq;
		memcpy(pp.bind_pcr, st.pcr, UIE_PCR_LEN);
		if (!(have & 1) && st.epoch >= UIE_EPOCH_MAX) {
			fprintf(stderr, "uie policy sign: %s: the verified epoch is the highest there is\n",
				from);
			return UIE_EXIT_FAIL;
		}
		if (!(have & 1))
			pp.epoch = st.epoch + 1;
		have |= 7;
	}
	if (!key || !out || have != 7)
		return uie_opts_usage(&spec);
	if ((r = keys_load_private(key, &pk)) != UIE_OK) {
		fprintf(stderr, "uie policy sign: %s: %s\n", key,
			r == UIE_E_KEY ? "need an ECDSA P-256 PEM private key" : uie_file_err_str(r));
		return UIE_EXIT_FAIL;
	}
	if ((r = uie_file_read_alloc(argv[optind], UIE_PACKAGE_MAX_LEN, &table, &tlen)) != UIE_OK)
		fprintf(stderr, "uie policy sign: %s: %s\n", argv[optind], uie_file_err_str(r));
	else if ((r = pkg_build_alloc(pk, table, tlen, &pp, &pkg, &plen)) == UIE_E_STATE)
		fprintf(stderr, "uie policy sign: --bloom needs an ENFORCE policy with DEFAULT "
				"action=DENY (a miss proves nothing otherwise)\n");
	else if (r != UIE_OK)
		fprintf(stderr, "uie policy sign: %s: %s\n", argv[optind], uie_err_str(r));
	else if ((r = uie_file_write_output(out, pkg, plen, 0644)) != UIE_OK)
		fprintf(stderr, "uie policy sign: %s: %s\n", out, uie_file_err_str(r));
	EVP_PKEY_free(pk);
	free(table);
	free(pkg);
	if (r != UIE_OK)
		return UIE_EXIT_FAIL;
	fprintf(stderr, "signed %s: epoch %llu, bound to %llu records, %zu bytes\n", out,
		(unsigned long long)pp.epoch, (unsigned long long)pp.bind_seq, plen);
	return UIE_EXIT_OK;
}
