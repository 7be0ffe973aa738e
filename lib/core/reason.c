/* SPDX-License-Identifier: Apache-2.0 */
#include "uie/names.h"
#include "uie/types.h"

/* Each reason's sentence, and its key: one word for grep and journalctl filters. */
static const struct {
	const char *text, *key;
} reasons[UIE_R__MAX] = {
	[UIE_R_RULE_ALLOW] = { "an allow rule matched", "allow-rule" },
	[UIE_R_RULE_DENY] = { "a deny rule matched", "deny-rule" },
	[UIE_R_DEFAULT] = { "no rule matched the digest (default action)", "default" },
	[UIE_R_BOOTSTRAP] = { "bootstrap: measured only", "bootstrap" },
	[UIE_R_ANON_EXEC] = { "anonymous memory may not become executable", "anon-exec" },
	[UIE_R_FILELESS] = { "fileless object", "fileless" },
	[UIE_R_MEASURE_FAIL] = { "the object could not be measured", "measure-fail" },
	[UIE_R_UNSUPPORTED] = { "path not supported", "unsupported" },
	[UIE_R_FASTPATH_MISS] = { "not in the policy's hint", "fastpath-miss" },
	[UIE_R_POLICY_INSTALLED] = { "policy installed", "policy-installed" },
	[UIE_R_POLICY_REJECTED] = { "policy package rejected", "policy-rejected" },
	[UIE_R_MONITOR_START] = { "monitor started", "monitor-start" },
	[UIE_R_RACE] = { "check-then-use race", "race" },
	[UIE_R_POLICY_RESTORED] = { "policy restored after a monitor restart", "policy-restored" },
	[UIE_R_WRITE_VIOLATION] = { "the file of an approved executable mapping was written",
				    "write-violation" },
	[UIE_R_REPEAT_COUNT] = { "repeat count of a first-seen record", "repeat-count" },
	[UIE_R_SUBJECT] = { "the program a first-seen record was made for", "subject" },
	[UIE_R_EXECMOD] = { "pages a write copied, or write and execute together (execmod)", "execmod" },
	[UIE_R_UNSEALED] = { "the file cannot be sealed against writes while mapped", "unsealed" },
	[UIE_R_REMOTE_FS] = { "the file is on a file system the policy does not trust (remote, FUSE)",
			      "remote-fs" },
	[UIE_R_MUTABLE] = { "the policy requires immutable sources (fs-verity or a read-only mount)",
			    "mutable" },
};

const char *uie_reason_str(uint16_t reason)
{
	if (reason >= UIE_R__MAX || !reasons[reason].text)
		return "unknown reason";
	return reasons[reason].text;
}

const char *uie_reason_key(unsigned reason)
{
	return reason < UIE_R__MAX ? reasons[reason].key : 0;
}
