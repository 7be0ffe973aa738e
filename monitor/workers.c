/* SPDX-License-Identifier: Apache-2.0 */
#include "workers.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host_platform.h"
#include "uie/err.h"
#include "uie/sys.h"

/*
 * An object whose reads fail with UIE_E_LIMIT once the request's hashing
 * time is used up (the core reads in chunks of 16 KiB, so the check costs
 * one clock read per chunk).
 */
struct timed_object {
	struct uie_object obj;
	const struct uie_object *inner;
	uint64_t deadline_ms;
	bool expired;
};

static int timed_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct timed_object *t = ctx;

	if (uie_now_ms() > t->deadline_ms) {
		t->expired = true;
		return UIE_E_LIMIT;
	}
	return t->inner->read(t->inner->ctx, off, buf, len);
}

static bool id_eq(const struct uie_file_id *a, const struct uie_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns &&
	       a->ctime_ns == b->ctime_ns;
}

void uie_job_measure(struct uie_job *job)
{
	struct uie_measurement *ms = &job->ms;
	struct uie_host_object ho, again;
	struct timed_object t = { 0 };
	const struct uie_object *obj;
	struct uie_file_id id2;
	int r;

	job->expired = false;
	*ms = (struct uie_measurement){ .scope = UIE_SCOPE_NONE };
	if ((r = uie_host_object_open(&ho, job->fd, false, &id2)) != UIE_OK) {
		ms->err = r;
		return;
	}
	obj = &ho.obj;
	if (!id_eq(&id2, &job->req.id)) { /* changed since the check: no version to name */
		uie_host_object_close(&ho);
		ms->err = UIE_E_IO;
		return;
	}
	if (job->max_hash_ms) {
		t.inner = &ho.obj;
		t.deadline_ms = uie_now_ms() + job->max_hash_ms;
		t.obj = (struct uie_object){ .ctx = &t, .size = ho.obj.size, .read = timed_read };
		obj = &t.obj;
	}
	r = uie_measure_object(job->pl, job->alg, &job->req, obj, &ms->digest, &ms->scope);
	uie_host_object_close(&ho);
	if (t.expired)
		r = UIE_E_LIMIT;
	/* The file changed while it was read: the digest names no version of it. */
	if (r == UIE_OK) {
		if (uie_host_object_open(&again, job->fd, false, &id2) != UIE_OK ||
		    !id_eq(&id2, &job->req.id))
			r = UIE_E_IO;
		uie_host_object_close(&again);
	}
	if (r != UIE_OK)
		*ms = (struct uie_measurement){ .scope = UIE_SCOPE_NONE };
	job->expired = t.expired;
	ms->err = r;
}

void uie_job_free(struct uie_job *job)
{
	if (!job)
		return;
	if (job->fd >= 0)
		close(job->fd);
	free(job);
}

struct worker_arg {
	struct uie_workers *w;
	struct uie_host_platform hp;
};

static void *worker_main(void *p)
{
	struct worker_arg *a = p;
	struct uie_workers *w = a->w;

	/* A new thread's start-up (rseq, robust list) needs calls the filter will refuse. */
	pthread_mutex_lock(&w->mu);
	w->running++;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	for (;;) {
		struct uie_job *job;
		char b = 1;

		pthread_mutex_lock(&w->mu);
		while (!w->todo && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->stop) {
			pthread_mutex_unlock(&w->mu);
			break;
		}
		job = w->todo;
		w->todo = job->next;
		if (!w->todo)
			w->todo_tail = NULL;
		pthread_mutex_unlock(&w->mu);

		job->pl = &a->hp.pl;
		uie_job_measure(job);

		pthread_mutex_lock(&w->mu);
		job->next = w->done;
		w->done = job;
		pthread_mutex_unlock(&w->mu);
		/* The pipe holds far more bytes than jobs can be in flight; a full pipe still wakes. */
		while (write(w->wake[1], &b, 1) < 0 && errno == EINTR)
			;
	}
	uie_host_platform_fini(&a->hp);
	free(a);
	return NULL;
}

int uie_workers_start(struct uie_workers *w, unsigned n)
{
	sigset_t all, old;
	int r = UIE_OK;

	memset(w, 0, sizeof(*w));
	w->wake[0] = w->wake[1] = -1;
	if (n == 0 || n > UIE_WORKERS_MAX)
		return UIE_E_INVAL;
	if (pipe2(w->wake, O_CLOEXEC | O_NONBLOCK) != 0)
		return UIE_E_SYS;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	/* Workers inherit a full signal mask: SIGTERM and SIGINT interrupt the loop's poll(). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned i = 0; i < n && r == UIE_OK; i++) {
		struct worker_arg *a = calloc(1, sizeof(*a));

		if (!a) {
			r = UIE_E_NOMEM;
			break;
		}
		a->w = w;
		if ((r = uie_host_platform_init(&a->hp)) != UIE_OK) {
			free(a);
			break;
		}
		if (pthread_create(&w->t[i], NULL, worker_main, a) != 0) {
			uie_host_platform_fini(&a->hp);
			free(a);
			r = UIE_E_SYS;
			break;
		}
		w->n++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_mutex_lock(&w->mu);
	while (w->running < w->n)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	if (r != UIE_OK)
		uie_workers_stop(w);
	return r;
}

void uie_workers_stop(struct uie_workers *w)
{
	struct uie_job *j, *next;

	if (w->wake[0] < 0)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	for (unsigned i = 0; i < w->n; i++)
		pthread_join(w->t[i], NULL);
	for (j = w->todo; j; j = next) {
		next = j->next;
		uie_job_free(j);
	}
	for (j = w->done; j; j = next) {
		next = j->next;
		uie_job_free(j);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	close(w->wake[0]);
	close(w->wake[1]);
	memset(w, 0, sizeof(*w));
	w->wake[0] = w->wake[1] = -1;
}

void uie_workers_submit(struct uie_workers *w, struct uie_job *job)
{
	job->next = NULL;
	pthread_mutex_lock(&w->mu);
	if (w->todo_tail)
		w->todo_tail->next = job;
	else
		w->todo = job;
	w->todo_tail = job;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

struct uie_job *uie_workers_collect(struct uie_workers *w)
{
	struct uie_job *list;
	char buf[256];

	while (read(w->wake[0], buf, sizeof(buf)) > 0)
		;
	pthread_mutex_lock(&w->mu);
	list = w->done;
	w->done = NULL;
	pthread_mutex_unlock(&w->mu);
	return list;
}
