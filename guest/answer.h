/* SPDX-License-Identifier: Apache-2.0 */
/* Seccomp answers (answer.c): every response starts as EACCES (loop.c); only a monitor ALLOW continues. */
#ifndef UIE_GUEST_ANSWER_H
#define UIE_GUEST_ANSWER_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>

void uie_guest_deny(struct seccomp_notif_resp *r, int err);
void uie_guest_cont(struct seccomp_notif_resp *r);
/* Whether notification id of listener is still pending (its caller still waits in the call). */
bool uie_guest_id_valid(int listener, uint64_t id);

#endif
