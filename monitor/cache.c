/* SPDX-License-Identifier: Apache-2.0 */
#include "cache.h"

#include <string.h>

void uie_cache_key_make(struct uie_cache_key *k, const struct uie_file_id *id, uint16_t alg, uint16_t event,
			uint64_t off, uint64_t len)
{
	memset(k, 0, sizeof(*k));
	k->id = *id;
	k->alg = alg;
	k->whole = event == UIE_EV_EXECVE;
	k->off = k->whole ? 0 : off;
	k->len = k->whole ? 0 : len;
}

void uie_cache_key_verity(struct uie_cache_key *k, const struct uie_verity *v)
{
	k->id = (struct uie_file_id){ .size = k->id.size };
	k->verity = *v;
}

void uie_cache_init(struct uie_cache *c)
{
	memset(c, 0, sizeof(*c));
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ull; /* FNV-1a step over whole words */
	return h ^ (h >> 29);
}

static unsigned set_of(const struct uie_cache_key *k)
{
	uint64_t h = 0xcbf29ce484222325ull, v = 0;

	memcpy(&v, k->verity.digest, sizeof(v));
	h = mix(h, v);

	h = mix(h, k->id.dev);
	h = mix(h, k->id.ino);
	h = mix(h, k->id.size);
	h = mix(h, (uint64_t)k->id.mtime_ns);
	h = mix(h, (uint64_t)k->id.ctime_ns);
	h = mix(h, ((uint64_t)k->alg << 1) | k->whole);
	h = mix(h, k->off);
	h = mix(h, k->len);
	return (unsigned)(h % UIE_CACHE_SETS);
}

static bool key_eq(const struct uie_cache_key *a, const struct uie_cache_key *b)
{
	return a->id.dev == b->id.dev && a->id.ino == b->id.ino && a->id.size == b->id.size &&
	       a->id.mtime_ns == b->id.mtime_ns && a->id.ctime_ns == b->id.ctime_ns && a->alg == b->alg &&
	       a->whole == b->whole && a->off == b->off && a->len == b->len &&
	       a->verity.alg == b->verity.alg && a->verity.len == b->verity.len &&
	       memcmp(a->verity.digest, b->verity.digest, sizeof(a->verity.digest)) == 0;
}

bool uie_cache_get(struct uie_cache *c, const struct uie_cache_key *k, struct uie_digest *digest,
		   uint8_t *scope)
{
	struct uie_cache_entry *s = c->set[set_of(k)];

	for (unsigned i = 0; i < UIE_CACHE_WAYS; i++) {
		if (!s[i].used || !key_eq(&s[i].key, k))
			continue;
		s[i].stamp = ++c->tick;
		*digest = s[i].digest;
		*scope = s[i].scope;
		c->hits++;
		return true;
	}
	c->misses++;
	return false;
}

void uie_cache_put(struct uie_cache *c, const struct uie_cache_key *k, const struct uie_digest *digest,
		   uint8_t scope)
{
	struct uie_cache_entry *s = c->set[set_of(k)], *victim = &s[0];

	for (unsigned i = 0; i < UIE_CACHE_WAYS; i++) {
		if (s[i].used && key_eq(&s[i].key, k)) {
			victim = &s[i];
			break;
		}
		if (!s[i].used || (victim->used && s[i].stamp < victim->stamp))
			victim = &s[i];
	}
	victim->key = *k;
	victim->digest = *digest;
	victim->scope = scope;
	victim->used = true;
	victim->stamp = ++c->tick;
}
