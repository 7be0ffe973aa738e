/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The per-client-address request rate limit of uie-verifierd
 * (docs/VERIFIER.md 5): a token bucket of `burst` requests refilled at
 * `per_s` requests a second for each address, kept as GCRA does it (one
 * "theoretical arrival time" per address: a bucket that is full is a time
 * in the past, so it holds no information and its slot can be reused).
 * A fixed table: when every slot of an address's probe window is taken,
 * the one nearest to full is given up (that client starts full again).
 * Thread-safe.
 */
#ifndef UIE_VERIFIERD_RATELIMIT_H
#define UIE_VERIFIERD_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#define VD_RATE_SLOTS 4096 /* addresses tracked at once */

struct vd_rate;

/* A limit of per_s requests a second (>= 1), bursts of burst (>= 1); NULL without memory. */
struct vd_rate *vd_rate_alloc(uint32_t per_s, uint32_t burst);
void vd_rate_free(struct vd_rate *r);

/*
 * Whether a request of addr at now_ns (a monotonic clock) is within the
 * limit; it then counts.  A refused request does not count, and
 * *retry_after_s is when the next one would be accepted (>= 1 second).
 */
bool vd_rate_take(struct vd_rate *r, uint64_t addr, uint64_t now_ns, unsigned *retry_after_s);

#endif
