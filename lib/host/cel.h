/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The secure log as TCG Canonical Event Log JSON (CEL-JSON): one record
 * per log record, PCR 16, the LRH as its SHA-256 digest, content type
 * "uie_log_record" whose "body" is the hex of EM || OC || ER (so that
 * digest == SHA-256(body)) next to the decoded fields.  docs/FORMATS.md
 * section 5 describes it.
 */
#ifndef UIE_CEL_H
#define UIE_CEL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Renders n encoded records (the first numbered first_seq) as a JSON
 * array; *out is a malloc'ed NUL-terminated string owned by the caller.
 * Return: UIE_OK, the record's decode error, UIE_E_NOMEM.
 */
int uie_cel_json_alloc(const uint8_t *recs, uint64_t first_seq, uint64_t n, char **out);

#endif
