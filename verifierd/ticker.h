/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A thread of the daemon's own that runs a task every period seconds
 * until it is stopped (the deadlines' watch, the retention's pruning).
 */
#ifndef UIE_VERIFIERD_TICKER_H
#define UIE_VERIFIERD_TICKER_H

#include <pthread.h>
#include <stdbool.h>

struct vd_ticker {
	pthread_mutex_t lock; /* the owner's too: held while a locked tick runs */
	pthread_cond_t wake;
	pthread_t thread;
	bool stop;
	unsigned period; /* seconds */
	bool unlocked;   /* tick runs without lock (a long task) */
	void (*tick)(void *arg);
	void *arg;
};

/*
 * t is a field of the allocation t->arg (its owner, which the tick is given).
 * Starts t (its fields above stop set by the caller); UIE_OK, or UIE_E_SYS
 * with nothing left running and the owner freed.
 */
int vd_ticker_start_or_free(struct vd_ticker *t);

/* Stops t: the tick in progress finishes, no other starts; t's thread is joined, then its owner freed. */
void vd_ticker_stop_free(struct vd_ticker *t);

#endif
