/* SPDX-License-Identifier: Apache-2.0 */
#include "subjects.h"

#include <stdlib.h>

#include "uie/err.h"

struct subject {
	uint64_t seq;
	uint64_t used; /* tick of its last put or get */
	struct uie_digest digest;
};

struct uie_mon_subjects {
	uint32_t n, cap;
	uint64_t tick;
	struct subject *e;
};

static struct subject *find(struct uie_mon_subjects *t, uint64_t seq)
{
	for (uint32_t i = 0; t && i < t->n; i++)
		if (t->e[i].seq == seq)
			return &t->e[i];
	return NULL;
}

/* A free entry: a new one while there is room, else the least recently used. */
static struct subject *slot(struct uie_mon_subjects *t)
{
	struct subject *old;

	if (t->n < t->cap)
		return &t->e[t->n++];
	if (t->cap < UIE_MON_SUBJECTS_MAX) {
		uint32_t ncap = t->cap ? t->cap * 2 : 16;
		struct subject *ne = realloc(t->e, (size_t)ncap * sizeof(*ne));

		if (!ne)
			return NULL;
		t->e = ne;
		t->cap = ncap;
		return &t->e[t->n++];
	}
	old = &t->e[0];
	for (uint32_t i = 1; i < t->n; i++)
		if (t->e[i].used < old->used)
			old = &t->e[i];
	return old;
}

int uie_mon_subjects_put(struct uie_mon_subjects **t, uint64_t seq, const struct uie_digest *d)
{
	struct subject *s;

	if (!*t && !(*t = calloc(1, sizeof(**t))))
		return UIE_E_NOMEM;
	if (!(s = find(*t, seq)) && !(s = slot(*t)))
		return UIE_E_NOMEM;
	s->seq = seq;
	s->digest = *d;
	s->used = ++(*t)->tick;
	return UIE_OK;
}

int uie_mon_subjects_get(struct uie_mon_subjects *t, uint64_t seq, struct uie_digest *d)
{
	struct subject *s = find(t, seq);

	if (!s)
		return UIE_E_NOTFOUND;
	s->used = ++t->tick;
	*d = s->digest;
	return UIE_OK;
}

void uie_mon_subjects_free(struct uie_mon_subjects *t)
{
	if (t)
		free(t->e);
	free(t);
}
