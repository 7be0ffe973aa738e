/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interceptor's fast path (paper section 6.1.2): the monitor publishes
 * the installed package's Bloom hint in a sealed memfd; the interceptor
 * maps it read-only and may refuse a request whose digest is a definite
 * miss without asking the monitor.  It can never allow anything: a hit,
 * a missing hint, a corrupt hint or any error means "ask the monitor".
 * Every refusal must be reported with uie_bridge_fastpath_report so that
 * the evidence still shows it.
 *
 * Freshness: the monitor also publishes the policy generation page (the
 * epoch in force, lib/bridge/genpage.h).  A hint is used only while the
 * page's generation equals the hint's epoch; uie_fastpath_refresh fetches
 * the hint again when they differ.  Without the page, no hint is used.
 */
#ifndef UIE_GUEST_FASTPATH_H
#define UIE_GUEST_FASTPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uie/core.h"
#include "uie/platform.h"
#include "uie/types.h"

#include "bloom.h"

#define UIE_FASTPATH_CACHE 1024 /* refused digests remembered by request (a power of two) */

/* A digest the interceptor computed, keyed by everything it depends on. */
struct uie_fastpath_memo {
	bool valid;
	uint16_t event;
	uint8_t role;
	struct uie_file_id id;
	uint64_t file_offset, length;
	struct uie_digest digest;
};

/* Not thread-safe: one per supervisor thread. */
struct uie_fastpath {
	void *map; /* read-only mapping of the sealed memfd, NULL when none */
	size_t len;
	struct uie_bloom bloom; /* refers into map */
	const uint8_t *gen;     /* read-only mapping of the generation page, NULL when none */
	bool fetched;           /* the hint was fetched while the generation was fetched_gen */
	uint64_t fetched_gen;
	struct uie_fastpath_memo memo[UIE_FASTPATH_CACHE];
};

/*
 * Maps a hint memfd (the fd may be closed afterwards) after checking its
 * seals (F_SEAL_WRITE, F_SEAL_GROW, F_SEAL_SHRINK, F_SEAL_SEAL), its size
 * and the hint format; clears *fp first.  Return: UIE_OK, UIE_E_STATE
 * (not sealed), UIE_E_RANGE (size differs), UIE_E_SYS, or the parse error.
 */
int uie_fastpath_open(struct uie_fastpath *fp, int fd, size_t len);

/*
 * Maps the policy generation page from fd (checked by uie_genpage_map:
 * seals, size, magic) in addition to the open hint, if any.  Return:
 * UIE_OK or uie_genpage_map's error (then no page is attached).
 */
int uie_fastpath_open_gen(struct uie_fastpath *fp, int fd, size_t len);

/*
 * Clears *fp, then asks the monitor for its generation page and its hint.
 * UIE_OK when the page is mapped (a hint may still be missing: the monitor
 * publishes none yet); any error means no fast path on this connection.
 */
int uie_fastpath_fetch(struct uie_fastpath *fp, int bridge_fd);

/*
 * Before every use: true when the hint is open and belongs to the policy
 * in force (generation == hint epoch).  When the generation moved since
 * the last fetch, asks the monitor for the current hint first; a failed
 * fetch drops the hint (false: ask the monitor).  Remembered digests stay.
 */
bool uie_fastpath_refresh(struct uie_fastpath *fp, int bridge_fd);

/* Unmaps hint and page; safe on a cleared or closed *fp. */
void uie_fastpath_close(struct uie_fastpath *fp);

/* Epoch of the package the hint belongs to (0 when none is open). */
uint64_t uie_fastpath_epoch(const struct uie_fastpath *fp);

/*
 * True only when the hint is open and current (a generation page is
 * attached and its generation is the hint's epoch), digest has the hint's
 * algorithm, and the filter proves no ALLOW rule names it.  Everything
 * else is false.
 */
bool uie_fastpath_definite_miss(const struct uie_fastpath *fp, const struct uie_digest *digest);

/*
 * Remembers the digest the monitor reported for req (its verdict's
 * digest), keyed by (file identity, event, role, range).  The interceptor
 * never hashes objects itself: the monitor already measured this exact
 * file version, and any change of the file changes its identity (see
 * struct uie_file_id), so a remembered digest is never stale.  Digests of
 * another algorithm than the hint's, and anonymous memory, are ignored.
 */
void uie_fastpath_learn(struct uie_fastpath *fp, const struct uie_req *req, const struct uie_digest *digest);

/*
 * True only when the monitor's digest for req is remembered and the
 * current hint proves it a definite miss; *digest then receives it for
 * the report.  An object seen for the first time (a cold request) is
 * always the monitor's: the fast path then costs nothing extra, where
 * hashing in the interceptor too would double the cost of a cold request.
 */
bool uie_fastpath_check_known(const struct uie_fastpath *fp, const struct uie_req *req,
			      struct uie_digest *digest);

#endif
