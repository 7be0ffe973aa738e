/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The granted set: file identities (dev, ino) the monitor allowed, the key
 * reconciliation (reconcile.c) compares executable mappings against.  An
 * open-addressing table (struct uie_granted); no allocation.
 */
#include <string.h>

#include "granted.h"

static unsigned slot_of(uint64_t dev, uint64_t ino)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino * 0xc2b2ae3d27d4eb4full);

	return (unsigned)(h >> 40) & (UIE_GRANTED_SLOTS - 1);
}

bool uie_guest_approved(const struct uie_granted *g, uint64_t dev, uint64_t ino)
{
	for (unsigned i = 0, k = slot_of(dev, ino); i < UIE_GRANTED_SLOTS;
	     i++, k = (k + 1) & (UIE_GRANTED_SLOTS - 1)) {
		if (g->slot[k][0] == 0 && g->slot[k][1] == 0)
			return false;
		if (g->slot[k][0] == dev && g->slot[k][1] == ino)
			return true;
	}
	return false;
}

/* A slot whose approval was withdrawn: lookups probe past it, inserts do not reuse it. */
#define FORGOTTEN UINT64_MAX

void uie_guest_forget(struct uie_granted *g, uint64_t dev, uint64_t ino)
{
	for (unsigned i = 0, k = slot_of(dev, ino); i < UIE_GRANTED_SLOTS;
	     i++, k = (k + 1) & (UIE_GRANTED_SLOTS - 1)) {
		if (g->slot[k][0] == 0 && g->slot[k][1] == 0)
			return;
		if (g->slot[k][0] == dev && g->slot[k][1] == ino) {
			g->slot[k][0] = g->slot[k][1] = FORGOTTEN;
			return;
		}
	}
}

/* Remembers an allowed file (true when it was not yet); when the table is full it forgets
 * everything (reconciliation then asks the monitor again: slower, never weaker). */
bool uie_guest_remember(struct uie_granted *g, uint64_t dev, uint64_t ino)
{
	unsigned k;

	if (uie_guest_approved(g, dev, ino))
		return false;
	if (g->n >= UIE_GRANTED_SLOTS / 2) {
		memset(g->slot, 0, sizeof(g->slot));
		g->n = 0;
	}
	for (k = slot_of(dev, ino); g->slot[k][0] || g->slot[k][1]; k = (k + 1) & (UIE_GRANTED_SLOTS - 1))
		;
	g->slot[k][0] = dev;
	g->slot[k][1] = ino;
	g->n++;
	return true;
}
