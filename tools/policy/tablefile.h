/* SPDX-License-Identifier: Apache-2.0 */
/* A policy table read from a table file or from a package (tools only). */
#ifndef UIE_TOOLS_TABLEFILE_H
#define UIE_TOOLS_TABLEFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "uie/package.h"
#include "uie/policy.h"

/*
 * Reads path, a compiled table or a package (its signature is not checked:
 * these are review tools), into *buf (malloc'ed, owned by the caller);
 * *pol references *buf; *is_pkg says which it was, and then *pkg holds
 * the package's fields (also referencing *buf).
 */
int uie_tablefile_load_alloc(const char *path, uint8_t **buf, struct uie_policy *pol,
			     struct uie_package *pkg, bool *is_pkg);

#endif
