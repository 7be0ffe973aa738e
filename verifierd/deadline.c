/* SPDX-License-Identifier: Apache-2.0 */
#include "deadline.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "ticker.h"
#include "uie/err.h"
#include "uie/sys.h"

/* Slots: the server's connection limit and some connections being refused. */
#define SLOTS 1280

struct vd_deadline {
	int fd;          /* -1: slot free */
	bool cut;        /* shut down: past its deadline */
	uint64_t due_ms; /* uie_now_ms() */
};

struct vd_deadlines {
	struct vd_ticker t; /* t.lock guards the slots */
	unsigned seconds;
	struct vd_deadline slot[SLOTS];
};

/* Once a second, under the lock: connections past their deadline are shut down, once. */
static void watch(void *arg)
{
	struct vd_deadlines *d = arg;
	uint64_t t = uie_now_ms();

	for (size_t i = 0; i < SLOTS; i++)
		if (d->slot[i].fd >= 0 && !d->slot[i].cut && d->slot[i].due_ms <= t) {
			shutdown(d->slot[i].fd, SHUT_RDWR);
			d->slot[i].cut = true;
		}
}

struct vd_deadlines *vd_deadlines_start(unsigned seconds)
{
	struct vd_deadlines *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	for (size_t i = 0; i < SLOTS; i++)
		d->slot[i].fd = -1;
	d->seconds = seconds;
	d->t = (struct vd_ticker){ .period = 1, .tick = watch, .arg = d };
	return vd_ticker_start_or_free(&d->t) == UIE_OK ? d : NULL;
}

void vd_deadlines_stop(struct vd_deadlines *d)
{
	if (d)
		vd_ticker_stop_free(&d->t);
}

struct vd_deadline *vd_deadline_begin(struct vd_deadlines *d, int fd)
{
	struct vd_deadline *c = NULL;

	pthread_mutex_lock(&d->t.lock);
	for (size_t i = 0; i < SLOTS && !c; i++)
		if (d->slot[i].fd < 0) {
			c = &d->slot[i];
			c->fd = fd;
			c->cut = false;
			c->due_ms = uie_now_ms() + (uint64_t)d->seconds * 1000u;
		}
	pthread_mutex_unlock(&d->t.lock);
	return c;
}

void vd_deadline_renew(struct vd_deadlines *d, struct vd_deadline *c)
{
	pthread_mutex_lock(&d->t.lock);
	c->due_ms = uie_now_ms() + (uint64_t)d->seconds * 1000u;
	pthread_mutex_unlock(&d->t.lock);
}

void vd_deadline_end(struct vd_deadlines *d, struct vd_deadline *c)
{
	pthread_mutex_lock(&d->t.lock);
	c->fd = -1;
	pthread_mutex_unlock(&d->t.lock);
}
