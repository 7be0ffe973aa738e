/* SPDX-License-Identifier: Apache-2.0 */
#ifndef UIE_GUEST_DESCRIBE_H
#define UIE_GUEST_DESCRIBE_H

#include <stddef.h>

/*
 * What a diagnostic names (describe.c): what when not NULL, else objfd's
 * path (read into buf of cap bytes), else "an unnamed object".
 */
const char *uie_guest_describe(const char *what, int objfd, char *buf, size_t cap);

#endif
