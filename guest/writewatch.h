/* SPDX-License-Identifier: Apache-2.0 */
/* Writes to approved executable files (writewatch.c: fanotify FAN_MODIFY) and their report. */
#ifndef UIE_GUEST_WRITEWATCH_H
#define UIE_GUEST_WRITEWATCH_H

#include <sys/types.h>

#include "fan.h"

struct fanotify_event_metadata;
struct uie_sup;

/* Watches objfd's file, just approved, for writes (no-op without fanotify). */
void uie_guest_watch_add(struct uie_fan *f, int objfd);
/* Handles a FAN_MODIFY event: a violation when the file is still mapped executable. */
void uie_guest_watch_event(struct uie_sup *s, const struct fanotify_event_metadata *m);
/*
 * Has the monitor log that fd's file, mapped executable by mapper, was
 * written by writer (0: unknown), and says so on stderr.  Return: UIE_OK
 * once the record exists, else the error.
 */
int uie_guest_report_violation(struct uie_sup *s, pid_t writer, int fd, pid_t mapper);

#endif
