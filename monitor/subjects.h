/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The programs one connection may name as the subject of a request
 * (first-seen mode, docs/FORMATS.md 3.7): the EXECVE grants the monitor
 * answered on that connection, by record number, with the program's
 * digest.  The guest names a subject by that number only; the digest is
 * always the monitor's own.  Bounded: the least recently used entry goes
 * first (the interceptor remembers fewer, docs/BRIDGE.md MEASURE_REQ).
 */
#ifndef UIE_MON_SUBJECTS_H
#define UIE_MON_SUBJECTS_H

#include <stdint.h>

#include "uie/types.h"

#define UIE_MON_SUBJECTS_MAX 1024u

struct uie_mon_subjects;

/*
 * Remembers that record seq granted a program with digest d (*t is
 * allocated on first use).  Return: UIE_OK, UIE_E_NOMEM (nothing changed:
 * a later request naming seq is refused).
 */
int uie_mon_subjects_put(struct uie_mon_subjects **t, uint64_t seq, const struct uie_digest *d);

/* The digest of the program record seq granted: UIE_OK, or UIE_E_NOTFOUND. */
int uie_mon_subjects_get(struct uie_mon_subjects *t, uint64_t seq, struct uie_digest *d);

void uie_mon_subjects_free(struct uie_mon_subjects *t);

#endif
