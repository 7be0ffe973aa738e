/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Load generator of the fleet verifier (bench/fleet/run): N simulated
 * machines, each a log of the real monitor core quoted by its own
 * built-in vTPM (tests/e2e/fleet/fleetsim.c), so every AE is genuine and
 * answers a fresh nonce.  Each machine adds records and attests once per
 * period; rounds are spread evenly over the period and served by worker
 * threads.  Machine i goes to verifier i % (number of URLs); a round whose
 * verifier is unreachable is done again at the next one (failover).  At
 * the end every machine's stored state is compared with its log.
 *
 *   loadgen --url URL [--url URL] --machines N --period S --duration S
 *           [--workers W] [--prefix P] [--admin-token FILE] [--records K]
 * (FILE: the first verifier's administrator's token, which enrolment
 * needs when it runs with --admin-token; K: records each machine adds per
 * round, so that every post carries K, default 1)
 * prints one JSON object with the results on stdout.
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fileio.h"
#include "fleetsim.h"
#include "opts.h"
#include "uie/err.h"

#define URLS_MAX 2
#define WORKERS_MAX 64

struct machine {
	struct fsim_machine sim;
	pthread_mutex_t lock; /* one round at a time per machine */
};

struct run {
	const char *url[URLS_MAX];
	unsigned nurl, workers, per_round; /* per_round: records added before each round */
	unsigned long nmachines;
	double period, duration, t0;
	const char *prefix;
	char *admin_token; /* or NULL */
	struct machine *m;
	atomic_ulong next; /* round counter: round k is machine k % N at t0 + k * period / N */
	atomic_ulong accepted, rejected, failovers, errors, records;
};

struct worker {
	struct run *run;
	struct uie_http *h[URLS_MAX];
	double *lat; /* seconds per accepted post */
	size_t nlat, cap;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	double d = t - now();
	struct timespec ts;

	if (d <= 0)
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static void add_latency(struct worker *w, double s)
{
	if (w->nlat == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 4096;
		double *n = realloc(w->lat, cap * sizeof(*n));

		if (!n)
			return;
		w->lat = n;
		w->cap = cap;
	}
	w->lat[w->nlat++] = s;
}

/* One round of machine i: nonce, export, post, at verifier v or (unreachable) the next. */
static void round_of(struct worker *w, unsigned long i)
{
	struct run *r = w->run;
	struct machine *m = &r->m[i];
	json_t *reply = NULL;
	long status = 0;
	int rc = UIE_E_PEER;
	double t;

	pthread_mutex_lock(&m->lock);
	for (unsigned j = 0; j < r->per_round; j++)
		if (ev_log_mmap(&m->sim.log, 'C') == UIE_OK)
			atomic_fetch_add(&r->records, 1);
	for (unsigned k = 0; k < r->nurl && rc == UIE_E_PEER; k++) {
		t = now();
		rc = fsim_round(w->h[(i + k) % r->nurl], &m->sim, &status, &reply);
		if (rc == UIE_E_PEER)
			atomic_fetch_add(&r->failovers, 1);
	}
	t = now() - t;
	if (rc == UIE_OK && status == 200 && json_is_true(json_object_get(reply, "accepted"))) {
		atomic_fetch_add(&r->accepted, 1);
		add_latency(w, t);
	} else if (rc == UIE_OK && status == 200) {
		atomic_fetch_add(&r->rejected, 1);
	} else {
		atomic_fetch_add(&r->errors, 1);
	}
	json_decref(reply);
	pthread_mutex_unlock(&m->lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *r = w->run;

	for (;;) {
		unsigned long k = atomic_fetch_add(&r->next, 1);
		double due = r->t0 + (double)k * r->period / (double)r->nmachines;

		if (due > r->t0 + r->duration)
			break;
		sleep_until(due);
		round_of(w, k % r->nmachines);
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: loadgen --url URL [--url URL] --machines N --period S --duration S "
		   "[--workers W] [--prefix P] [--admin-token FILE] [--records K]\n");
}

/* A duration in seconds, more than 0, into the double at ctx. */
static int seconds(void *ctx, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v > 0)) {
		fprintf(stderr, "loadgen: '%s': not a number of seconds\n", arg);
		return UIE_OPTS_EXIT_USAGE;
	}
	*(double *)ctx = v;
	return UIE_OPTS_GO;
}

/* The one line of the token file arg, its newline dropped, into the char * at ctx (owned). */
static int token_file(void *ctx, const char *arg)
{
	char **token = ctx;
	uint8_t *b;
	size_t n;
	int r;

	if ((r = uie_file_read_alloc(arg, 4096, &b, &n)) != UIE_OK) {
		fprintf(stderr, "loadgen: --admin-token %s: %s\n", arg, uie_err_str(r));
		return UIE_OPTS_EXIT_USAGE;
	}
	if (n && b[n - 1] == '\n')
		n--;
	free(*token);
	*token = strndup((char *)b, n);
	free(b);
	return *token ? UIE_OPTS_GO : UIE_OPTS_EXIT_USAGE;
}

/* The command line into *r: UIE_OPTS_GO, or the exit status. */
static int parse(int argc, char **argv, struct run *r)
{
	const struct uie_opt t[] = {
		UIE_OPT_LIST("url", 0, r->url, &r->nurl, URLS_MAX),
		UIE_OPT_NUMBER("machines", 0, r->nmachines, 1, ULONG_MAX, NULL),
		UIE_OPT_CALL("period", 0, seconds, &r->period),
		UIE_OPT_CALL("duration", 0, seconds, &r->duration),
		UIE_OPT_NUMBER("workers", 0, r->workers, 1, WORKERS_MAX, NULL),
		UIE_OPT_STRING("prefix", 0, &r->prefix),
		UIE_OPT_CALL("admin-token", 0, token_file, &r->admin_token),
		UIE_OPT_NUMBER("records", 0, r->per_round, 1, 10000, NULL),
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = "loadgen", .opt = t, .usage = usage };
	int rc;

	memset(r, 0, sizeof(*r));
	r->workers = 8;
	r->per_round = 1;
	r->prefix = "sim";
	if ((rc = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return rc;
	if (!r->nurl || !r->nmachines || !(r->period > 0) || !(r->duration > 0))
		return uie_opts_usage(&spec);
	return UIE_OPTS_GO;
}

/* Builds and enrols every machine (at the first verifier). */
static int setup(struct run *r, struct uie_http *h)
{
	if (!(r->m = calloc(r->nmachines, sizeof(*r->m))))
		return UIE_E_NOMEM;
	for (unsigned long i = 0; i < r->nmachines; i++) {
		char id[48];
		json_t *body, *reply = NULL;
		long status = 0;
		int rc;

		snprintf(id, sizeof(id), "%s-%05lu", r->prefix, i);
		pthread_mutex_init(&r->m[i].lock, NULL);
		if ((rc = fsim_init(&r->m[i].sim, id)) != UIE_OK ||
		    !(body = fsim_enrol_body(&r->m[i].sim, 1, "ABCD")))
			return rc != UIE_OK ? rc : UIE_E_NOMEM;
		rc = uie_http_json(h, "POST", "/v1/machines", body, &status, &reply);
		json_decref(body);
		json_decref(reply);
		if (rc != UIE_OK || status != 201) {
			fprintf(stderr, "loadgen: enrolling %s: HTTP %ld\n", id, status);
			return UIE_E_PEER;
		}
	}
	return UIE_OK;
}

/* Machines whose stored next_seq is not their log's length (lost or double-counted records). */
static unsigned long check_states(struct run *r, struct uie_http *h)
{
	unsigned long bad = 0;

	for (unsigned long i = 0; i < r->nmachines; i++) {
		char path[96];
		json_t *reply = NULL;
		long status = 0;

		snprintf(path, sizeof(path), "/v1/machines/%s", r->m[i].sim.id);
		if (uie_http_json(h, "GET", path, NULL, &status, &reply) != UIE_OK || status != 200 ||
		    json_integer_value(json_object_get(reply, "next_seq")) != (json_int_t)r->m[i].sim.log.n)
			bad++;
		json_decref(reply);
	}
	return bad;
}

static void report(struct run *r, struct worker *w, double elapsed, unsigned long bad)
{
	size_t n = 0, k = 0;
	double *all, sum = 0;

	for (unsigned i = 0; i < r->workers; i++)
		n += w[i].nlat;
	all = malloc((n ? n : 1) * sizeof(*all));
	for (unsigned i = 0; all && i < r->workers; i++)
		for (size_t j = 0; j < w[i].nlat; j++)
			sum += all[k++] = w[i].lat[j];
	if (all)
		qsort(all, n, sizeof(*all), cmp_double);
	printf("{\"machines\": %lu, \"verifiers\": %u, \"period_s\": %.3f, \"elapsed_s\": %.1f, "
	       "\"accepted\": %lu, \"rejected\": %lu, \"errors\": %lu, \"failovers\": %lu, "
	       "\"records\": %lu, \"verifications_per_s\": %.1f, \"p50_ms\": %.2f, \"p99_ms\": %.2f, "
	       "\"mean_ms\": %.2f, \"machines_out_of_step\": %lu}\n",
	       r->nmachines, r->nurl, r->period, elapsed, (unsigned long)r->accepted,
	       (unsigned long)r->rejected, (unsigned long)r->errors, (unsigned long)r->failovers,
	       (unsigned long)r->records, (double)r->accepted / elapsed, n && all ? 1e3 * all[n / 2] : 0.0,
	       n && all ? 1e3 * all[(size_t)floor(0.99 * (double)(n - 1))] : 0.0,
	       n ? 1e3 * sum / (double)n : 0.0, bad);
	free(all);
}

int main(int argc, char **argv)
{
	struct worker w[WORKERS_MAX];
	pthread_t t[WORKERS_MAX];
	struct uie_http *h;
	struct run r;
	double elapsed;
	unsigned long bad;
	int rc;

	if ((rc = parse(argc, argv, &r)) != UIE_OPTS_GO)
		return rc;
	if (uie_http_open_alloc(&(struct uie_http_opts){ .base = r.url[0], .bearer = r.admin_token }, &h) !=
		    UIE_OK ||
	    setup(&r, h) != UIE_OK)
		return 1;
	fprintf(stderr, "loadgen: %lu machines enrolled, running %.0f s\n", r.nmachines, r.duration);
	memset(w, 0, sizeof(w));
	r.t0 = now();
	for (unsigned i = 0; i < r.workers; i++) {
		w[i].run = &r;
		for (unsigned k = 0; k < r.nurl; k++)
			if (uie_http_open_alloc(&(struct uie_http_opts){ .base = r.url[k],
									 .timeout_ms = 10000,
									 .quiet = true },
						&w[i].h[k]) != UIE_OK)
				return 1;
		pthread_create(&t[i], NULL, worker_main, &w[i]);
	}
	for (unsigned i = 0; i < r.workers; i++)
		pthread_join(t[i], NULL);
	elapsed = now() - r.t0;
	bad = check_states(&r, h);
	report(&r, w, elapsed, bad);
	for (unsigned i = 0; i < r.workers; i++) {
		for (unsigned k = 0; k < r.nurl; k++)
			uie_http_free(w[i].h[k]);
		free(w[i].lat);
	}
	for (unsigned long i = 0; i < r.nmachines; i++)
		fsim_fini(&r.m[i].sim);
	free(r.m);
	free(r.admin_token);
	uie_http_free(h);
	return bad ? 1 : 0;
}
