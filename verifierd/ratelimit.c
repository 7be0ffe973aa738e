/* SPDX-License-Identifier: Apache-2.0 */
#include "ratelimit.h"

#include <pthread.h>
#include <stdlib.h>

#include <openssl/rand.h>

#define NS_PER_S 1000000000ull
#define PROBE 8 /* slots an address may take: its hash and the next ones */

struct slot {
	uint64_t addr;
	uint64_t tat; /* theoretical arrival time (ns); 0: a free slot */
};

struct vd_rate {
	pthread_mutex_t lock;
	uint64_t interval_ns;  /* one request's worth of refill */
	uint64_t tolerance_ns; /* (burst - 1) intervals: how far ahead tat may run */
	uint64_t seed;         /* addresses are hashed with a secret, so no client picks its slots */
	struct slot slots[VD_RATE_SLOTS];
};

struct vd_rate *vd_rate_alloc(uint32_t per_s, uint32_t burst)
{
	struct vd_rate *r;

	if (!per_s || !burst || !(r = calloc(1, sizeof(*r))))
		return NULL;
	if (RAND_bytes((unsigned char *)&r->seed, sizeof(r->seed)) != 1) {
		free(r);
		return NULL;
	}
	pthread_mutex_init(&r->lock, NULL);
	r->interval_ns = NS_PER_S / per_s;
	r->tolerance_ns = (uint64_t)(burst - 1) * r->interval_ns;
	return r;
}

void vd_rate_free(struct vd_rate *r)
{
	if (!r)
		return;
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* The slot of addr: its own, else a free or full one in its window, else the nearest to full. */
static struct slot *slot_of(struct vd_rate *r, uint64_t addr, uint64_t now)
{
	size_t h = (size_t)(((addr ^ r->seed) * 0x9e3779b97f4a7c15ull) >> 32);
	struct slot *reuse = NULL;

	for (size_t i = 0; i < PROBE; i++) {
		struct slot *s = &r->slots[(h + i) % VD_RATE_SLOTS];

		if (s->tat && s->addr == addr)
			return s;
		if (!reuse || (reuse->tat > now && s->tat < reuse->tat))
			reuse = s;
	}
	reuse->addr = addr;
	reuse->tat = 0;
	return reuse;
}

bool vd_rate_take(struct vd_rate *r, uint64_t addr, uint64_t now_ns, unsigned *retry_after_s)
{
	struct slot *s;
	uint64_t tat, wait;
	bool ok;

	pthread_mutex_lock(&r->lock);
	s = slot_of(r, addr, now_ns);
	tat = s->tat > now_ns ? s->tat : now_ns;
	ok = tat - now_ns <= r->tolerance_ns;
	if (ok) {
		s->tat = tat + r->interval_ns;
	} else {
		wait = tat - now_ns - r->tolerance_ns;
		*retry_after_s = (unsigned)((wait + NS_PER_S - 1) / NS_PER_S);
	}
	pthread_mutex_unlock(&r->lock);
	return ok;
}
