/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The granted set (granted.c): file identities (dev, ino) the monitor
 * allowed, the key reconciliation (reconcile.c) compares executable
 * mappings against.
 */
#ifndef UIE_GUEST_GRANTED_H
#define UIE_GUEST_GRANTED_H

#include <stdbool.h>
#include <stdint.h>

#define UIE_GRANTED_SLOTS 4096 /* power of two */

/* An open-addressing table; no allocation. */
struct uie_granted {
	uint64_t slot[UIE_GRANTED_SLOTS][2]; /* (dev, ino); (0, 0) free */
	unsigned n;                          /* slots used */
};

bool uie_guest_approved(const struct uie_granted *g, uint64_t dev, uint64_t ino);
/* Withdraws the approval of (dev, ino): the next grant of it asks the monitor. */
void uie_guest_forget(struct uie_granted *g, uint64_t dev, uint64_t ino);
/*
 * Remembers an allowed file (true when it was not yet); when the table is
 * full it forgets everything (reconciliation then asks the monitor again:
 * slower, never weaker).
 */
bool uie_guest_remember(struct uie_granted *g, uint64_t dev, uint64_t ino);

#endif
