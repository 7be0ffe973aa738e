/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the runtime fuzz targets share: a monitor started in-process, and
 * one request served through it as the daemon serves it.  Both abort on
 * anything a fuzz target must never see, so that libFuzzer reports it.
 */
#ifndef UIE_FUZZ_MONITOR_SERVE_H
#define UIE_FUZZ_MONITOR_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "host_platform.h"
#include "monitor.h"

/* Starts m on hp's platform (no vTPM, no policy), its log capped to keep memory bounded. */
void fuzz_monitor_start(struct uie_host_platform *hp, struct uie_monitor *m);

/*
 * Serves msg (with descriptor fd, which the monitor takes) through m; the
 * one answer must decode as an answer.  Closes the answer's descriptor.
 */
void fuzz_monitor_serve(struct uie_monitor *m, const uint8_t *msg, size_t len, int fd);

#endif
