/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whole-request deadlines: a connection must deliver each request whole
 * within a number of seconds of its start (or of the end of its previous
 * request), however slowly it trickles; the idle timeout alone lets a
 * client that sends a byte now and then stay connected for ever.  A
 * watcher thread shuts down libmicrohttpd's socket of a connection past its
 * deadline (its end of the relay's socket pair, relay.h): the HTTP server
 * closes it as it would a client that went away, and the relay then closes
 * the client's connection.
 */
#ifndef UIE_VERIFIERD_DEADLINE_H
#define UIE_VERIFIERD_DEADLINE_H

struct vd_deadlines;
struct vd_deadline; /* one connection's */

/* The watcher for deadlines of seconds; NULL: no memory or no thread. */
struct vd_deadlines *vd_deadlines_start(unsigned seconds);
/* Stops the watcher; every connection must have been forgotten (vd_deadline_end). */
void vd_deadlines_stop(struct vd_deadlines *d);

/* A connection on socket fd begins: its deadline runs from now; NULL when all slots are taken. */
struct vd_deadline *vd_deadline_begin(struct vd_deadlines *d, int fd);
/* Its request was answered: the next one has the whole time again. */
void vd_deadline_renew(struct vd_deadlines *d, struct vd_deadline *c);
/* The connection is closed (its socket still open): forgotten. */
void vd_deadline_end(struct vd_deadlines *d, struct vd_deadline *c);

#endif
