/* SPDX-License-Identifier: Apache-2.0 */
#include "ticker.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "uie/err.h"

static void *run(void *arg)
{
	struct vd_ticker *t = arg;
	struct timespec until;
	int e;

	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += t->period;
		for (e = 0; !t->stop && e != ETIMEDOUT;)
			e = pthread_cond_timedwait(&t->wake, &t->lock, &until);
		if (t->stop)
			break;
		if (t->unlocked)
			pthread_mutex_unlock(&t->lock);
		t->tick(t->arg);
		if (t->unlocked)
			pthread_mutex_lock(&t->lock);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

int vd_ticker_start_or_free(struct vd_ticker *t)
{
	pthread_condattr_t ca;

	t->stop = false;
	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&t->thread, NULL, run, t) == 0)
		return UIE_OK;
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	free(t->arg);
	return UIE_E_SYS;
}

void vd_ticker_stop_free(struct vd_ticker *t)
{
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	free(t->arg);
}
