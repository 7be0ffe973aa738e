/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie policy sign --key PRIV.pem --epoch N --bind-seq S --bind-pcr HEX
 *  [--bloom] [--bloom-bits B] TABLE -o PACKAGE`: the TTP endorses a
 * compiled table, bound to the vPCR16 value after the first S records of
 * the monitor's log.  `--bind-from STATE` takes S and that value from the
 * state file `uie verify --state` wrote (the log prefix the TTP verified),
 * and the epoch, unless given, as the verified one plus one.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uie/err.h"
#include "uie/package.h"

#include "bloom.h"
#include "cmd.h"
#include "keys.h"
#include "fileio.h"
#include "hex.h"
#include "pkgbuild.h"
#include "policy_cmds.h"
#include "verify.h"

#define HINT_BITS_MIN 4u
#define HINT_BITS_MAX 1024u

static int usage(void)
{
	fprintf(stderr,
		"usage: uie policy sign --key PRIV.pem --epoch N --bind-seq S --bind-pcr HEX "
		"[--bloom] [--bloom-bits B] TABLE -o PACKAGE\n"
		"       uie policy sign --key PRIV.pem --bind-from STATE [--epoch N] ... TABLE -o PACKAGE\n"
		"  --bind-from STATE: bind to the log prefix `uie verify --state STATE` accepted;\n"
		"                  the epoch defaults to the verified epoch + 1\n"
		"  --bloom-bits B: bits per ALLOW digest in the hint, %u..%u (default %u, about\n"
		"                  0.8 %% false positives; 20 gives about 0.02 %%); implies --bloom\n",
		HINT_BITS_MIN, HINT_BITS_MAX, UIE_BLOOM_BITS_PER_ITEM);
	return UIE_EXIT_USAGE;
}

int uie_cmd_policy_sign(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "epoch", required_argument, NULL, 'e' },
		{ "bind-seq", required_argument, NULL, 's' },
		{ "bind-pcr", required_argument, NULL, 'p' },
		{ "bloom", no_argument, NULL, 'b' },
		{ "bloom-bits", required_argument, NULL, 'B' },
		{ "output", required_argument, NULL, 'o' },
		{ "bind-from", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct uie_verify_state st;
	const char *from = NULL;
	struct pkg_params pp = { 0 };
	const char *key = NULL, *out = NULL;
	uint64_t bits;
	int c, r, have = 0;
	uint8_t *table = NULL, *pkg = NULL;
	size_t tlen, plen;
	EVP_PKEY *pk = NULL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "k:e:s:p:bB:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'k': key = optarg; break;
		case 'e':
			if (uie_parse_u64(optarg, &pp.epoch) != UIE_OK || pp.epoch == 0 ||
			    pp.epoch > UIE_EPOCH_MAX) {
				fprintf(stderr, "uie policy sign: --epoch must be 1 to %llu (2^63-1)\n",
					(unsigned long long)UIE_EPOCH_MAX);
				return UIE_EXIT_USAGE;
			}
			have |= 1;
			break;
		case 's':
			if (uie_parse_u64(optarg, &pp.bind_seq) != UIE_OK || pp.bind_seq == 0) {
				fprintf(stderr, "uie policy sign: --bind-seq must be a record count >= 1\n");
				return UIE_EXIT_USAGE;
			}
			have |= 2;
			break;
		case 'p':
			if (uie_hex_decode(optarg, strlen(optarg), pp.bind_pcr, UIE_PCR_LEN) != UIE_OK) {
				fprintf(stderr, "uie policy sign: --bind-pcr must be 64 hex digits\n");
				return UIE_EXIT_USAGE;
			}
			have |= 4;
			break;
		case 'b': pp.hint = true; break;
		case 'B':
			if (uie_parse_u64(optarg, &bits) != UIE_OK || bits < HINT_BITS_MIN ||
			    bits > HINT_BITS_MAX) {
				fprintf(stderr, "uie policy sign: --bloom-bits must be %u..%u\n",
					HINT_BITS_MIN, HINT_BITS_MAX);
				return UIE_EXIT_USAGE;
			}
			pp.hint = true;
			pp.hint_bits = (uint32_t)bits;
			break;
		case 'o': out = optarg; break;
		case 'f': from = optarg; break;
		default: return usage();
		}
	}
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
	if (!key || !out || have != 7 || optind != argc - 1)
		return usage();
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
	else if ((r = uie_file_write_atomic(out, pkg, plen, 0644)) != UIE_OK)
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
