/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A machine's id at the fleet verifier (docs/VERIFIER.md 2.2): the one rule
 * the verifier enforces and its agent checks before it sends a request.
 */
#ifndef UIE_HOST_MACHINE_ID_H
#define UIE_HOST_MACHINE_ID_H

#include <stdbool.h>

#define UIE_MACHINE_ID_MAX 64

/* Whether s is a machine id: 1..UIE_MACHINE_ID_MAX characters of [A-Za-z0-9._-]. */
bool uie_machine_id_ok(const char *s);

#endif
