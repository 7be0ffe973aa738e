/* SPDX-License-Identifier: Apache-2.0 */
#include "uie/types.h"

static const char *const reason_names[UIE_R__MAX] = {
	[UIE_R_RULE_ALLOW] = "an allow rule matched",
	[UIE_R_RULE_DENY] = "a deny rule matched",
	[UIE_R_DEFAULT] = "no rule matched the digest (default action)",
	[UIE_R_BOOTSTRAP] = "bootstrap: measured only",
	[UIE_R_ANON_EXEC] = "anonymous memory may not become executable",
	[UIE_R_FILELESS] = "fileless object",
	[UIE_R_MEASURE_FAIL] = "the object could not be measured",
	[UIE_R_UNSUPPORTED] = "path not supported",
	[UIE_R_FASTPATH_MISS] = "not in the policy's hint",
	[UIE_R_POLICY_INSTALLED] = "policy installed",
	[UIE_R_POLICY_REJECTED] = "policy package rejected",
	[UIE_R_MONITOR_START] = "monitor started",
	[UIE_R_RACE] = "check-then-use race",
	[UIE_R_POLICY_RESTORED] = "policy restored after a monitor restart",
	[UIE_R_WRITE_VIOLATION] = "the file of an approved executable mapping was written",
	[UIE_R_REPEAT_COUNT] = "repeat count of a first-seen record",
	[UIE_R_SUBJECT] = "the program a first-seen record was made for",
	[UIE_R_EXECMOD] = "pages a write copied, or write and execute together (execmod)",
	[UIE_R_UNSEALED] = "the file cannot be sealed against writes while mapped",
	[UIE_R_REMOTE_FS] = "the file is on a file system the policy does not trust (remote, FUSE)",
	[UIE_R_MUTABLE] = "the policy requires immutable sources (fs-verity or a read-only mount)",
};

const char *uie_reason_str(uint16_t reason)
{
	if (reason >= UIE_R__MAX || !reason_names[reason])
		return "unknown reason";
	return reason_names[reason];
}
