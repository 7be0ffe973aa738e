/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The policy generation page (docs/FORMATS.md section 4.6): one page in a
 * memfd that only the monitor can write.  It holds the epoch of the policy
 * in force, updated after every successful install, so that an
 * interceptor can tell before each fast-path use whether the Bloom hint it
 * holds is still the installed package's.  The monitor keeps the shared
 * writable mapping it made before sealing; F_SEAL_FUTURE_WRITE forbids
 * every later writable mapping and write(2), including the receivers'.
 */
#ifndef UIE_BRIDGE_GENPAGE_H
#define UIE_BRIDGE_GENPAGE_H

#include <fcntl.h>
#include <stdint.h>

#define UIE_GENPAGE_MAGIC "UIEGEN01" /* 8 bytes */
#define UIE_GENPAGE_VERSION 1
#define UIE_GENPAGE_LEN 4096u
#define UIE_GENPAGE_GEN_OFF 16 /* u64 generation, naturally aligned */
#define UIE_GENPAGE_SEALS (F_SEAL_FUTURE_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

/* The monitor's side: the memfd and its writable mapping. */
struct uie_genpage {
	int fd;       /* -1 when none */
	uint8_t *map; /* UIE_GENPAGE_LEN bytes, MAP_SHARED, writable */
};

/*
 * Creates the page holding generation gen, maps it writable and seals it
 * with UIE_GENPAGE_SEALS; clears *g first (fd -1).
 * Return: UIE_OK, UIE_E_SYS, UIE_E_IO.
 */
int uie_genpage_create(struct uie_genpage *g, uint64_t gen);

/* Publishes gen with a release store (no-op without a page). */
void uie_genpage_set(struct uie_genpage *g, uint64_t gen);

/* Unmaps and closes; safe on a cleared or destroyed page. */
void uie_genpage_destroy(struct uie_genpage *g);

/*
 * The reader's side: checks that fd carries every seal of
 * UIE_GENPAGE_SEALS, that its size is exactly len == UIE_GENPAGE_LEN and
 * that it starts with the magic and version, then maps it PROT_READ
 * (*map cleared first; the fd may be closed afterwards).
 * Return: UIE_OK, UIE_E_INVAL, UIE_E_STATE (seal missing), UIE_E_RANGE
 * (size), UIE_E_FORMAT (magic or reserved bytes), UIE_E_VERSION, UIE_E_SYS.
 */
int uie_genpage_map(int fd, uint64_t len, const uint8_t **map);

/* Generation read with an acquire load from a mapping of uie_genpage_map. */
uint64_t uie_genpage_load(const uint8_t *map);

/* Unmaps a mapping of uie_genpage_map (NULL is fine). */
void uie_genpage_unmap(const uint8_t *map);

#endif
