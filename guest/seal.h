/* SPDX-License-Identifier: Apache-2.0 */
/* Read leases on granted files (seal.c): writes announced before they happen. */
#ifndef UIE_GUEST_SEAL_H
#define UIE_GUEST_SEAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define UIE_SEALS_MAX 1024    /* granted files sealed at once */
#define UIE_SEAL_GRANTEES 128 /* grants of one file whose calls may be unfinished */
#define UIE_SEAL_LAYERS 4     /* layer files under one overlayfs file (a copy-up adds one) */

/* Granted files sealed with a read lease, compact. */
struct uie_seals {
	struct uie_seal {
		uint64_t dev, ino; /* the file */
		int fd;            /* our read-only open holding the lease */
		bool unsealed;     /* no lease could be taken: only its grantees are kept */
		unsigned nlayers;
		struct uie_layer {
			uint64_t dev, ino; /* as /proc/PID/maps name it before Linux 6.8 */
			int fd;            /* our read-only open holding its lease */
			void *page;        /* its first page mapped by us (NULL: none), read per grant */
		} layer[UIE_SEAL_LAYERS];  /* of an overlayfs file: the files its grants mapped */
		unsigned ngrantees;
		struct uie_grantee {
			pid_t tid;            /* a thread granted the file */
			uint32_t call;        /* its granting call (uie_guest_call_key), 0: any */
		} grantee[UIE_SEAL_GRANTEES]; /* calls maybe unfinished */
	} e[UIE_SEALS_MAX];
	uint64_t swept_ms; /* of the latest sweep */
	unsigned n;
	int pagemap; /* /proc/self/pagemap, opened at the first overlay file's grant; -1: not yet */
};

enum {
	UIE_SEAL_HELD,    /* sealed (now or before), or immutable */
	UIE_SEAL_WRITERS, /* open for writing now (a descriptor, a shared writable mapping) */
	UIE_SEAL_NONE,    /* no lease possible (no CAP_LEASE and not the owner, no leases here) */
	UIE_SEAL_CROWDED, /* UIE_SEAL_GRANTEES grants of the file may be unfinished */
};

struct uie_sup;
/* The realtime signal a lease break raises (read from the loop's signalfd). */
int uie_guest_seal_signal(void);
/*
 * Seals objfd's file (st) for a grant to pid (a thread) in its call (a
 * uie_guest_call_key, 0: any of its calls); *fresh when the lease was taken
 * by this call.  On overlayfs (overlay) the layer's file that the grant
 * maps is sealed too.
 */
int uie_guest_seal(struct uie_sup *s, int objfd, const struct stat *st, bool overlay, pid_t pid,
		   uint32_t call, bool *fresh);
/*
 * The process of a grant of the unsealed file (dev, ino) whose call may be
 * unfinished (its mapping maybe not in the maps yet), or 0: for the write
 * watch, which sees writes to such files only after they happened.
 */
pid_t uie_guest_seal_unfinished(struct uie_sup *s, uint64_t dev, uint64_t ino);
/*
 * Adds the layers' files sealed under the overlayfs file (dev, ino) to the
 * granted files (what the maps name for it before Linux 6.8); false when
 * it has none.
 */
bool uie_guest_seal_remember_layers(struct uie_sup *s, uint64_t dev, uint64_t ino);
/* Drops the seal of (dev, ino), taken for a grant that did not happen. */
void uie_guest_unseal(struct uie_seals *sl, uint64_t dev, uint64_t ino);
/*
 * The lease on fd broke (a writer waits; fd -1: look at every seal): logs
 * the violation if the file is mapped executable, kills the tree's mappers
 * in ENFORCE, then releases.
 */
void uie_guest_seal_broken(struct uie_sup *s, int fd);
/* Drops every seal (the tree is gone), closes pagemap. */
void uie_guest_seals_release(struct uie_seals *sl);
/* Poll timeout (ms) until seals are due for a sweep; -1: none held. */
int uie_guest_seal_idle_ms(const struct uie_seals *sl);
/* Drops the seals of files no process maps executable any more (when due). */
void uie_guest_seal_sweep(struct uie_sup *s);

#endif
