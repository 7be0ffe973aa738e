/* SPDX-License-Identifier: Apache-2.0 */
/* Execmod (pages.c): whether a private file mapping still holds the file's pages. */
#ifndef UIE_GUEST_PAGES_H
#define UIE_GUEST_PAGES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Whether a page of pid's [lo, hi) (a private file mapping) is a copy a write made. */
int uie_guest_pages_copied(pid_t pid, uint64_t lo, uint64_t hi, bool *copied);

#endif
