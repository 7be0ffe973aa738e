/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Denials to the system log: one line per refused (or, in MEASURE mode,
 * would-be refused) request, with the rule, digest and object name in
 * key=value form, so that an administrator finds them with journalctl or
 * in syslog without reading the secure log.
 *
 * Not syslog(3): glibc reopens its socket when a send fails (socket and
 * connect), which the monitor's seccomp filter forbids once locked.  We
 * create one unconnected datagram socket before the lock and address every
 * line to the log socket with sendto, so a syslog daemon or journald that
 * starts (or restarts) later still gets the lines, and a daemon that does
 * not read never blocks the monitor (MSG_DONTWAIT; the line is counted as
 * dropped).  The line is RFC 3164 as journald and rsyslog read it on
 * /dev/log: "<PRI>Mmm dd hh:mm:ss uie-monitord[PID]: MESSAGE".
 */
#ifndef UIE_DENYLOG_H
#define UIE_DENYLOG_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "uie/core.h"

#define UIE_DENYLOG_DEFAULT_PATH "/dev/log"

struct uie_denylog {
	int fd; /* -1: disabled */
	struct sockaddr_un addr;
	socklen_t addrlen;
	uint64_t sent, dropped;
};

/*
 * Prepares sending to the datagram socket at path (NULL: disabled; the
 * socket need not exist yet).  Return: UIE_OK, UIE_E_INVAL (path too
 * long), UIE_E_SYS.
 */
int uie_denylog_open(struct uie_denylog *dl, const char *path);
void uie_denylog_close(struct uie_denylog *dl);

/*
 * Logs the refusal v of req under mode; object is the object's name (NULL
 * when it has none).  Does nothing for a verdict the policy allowed.
 */
void uie_denylog_denial(struct uie_denylog *dl, const struct uie_req *req, const struct uie_verdict *v,
			uint8_t mode, const char *object);

/*
 * Formats the line that uie_denylog_denial sends, without the syslog
 * header, into buf (NUL-terminated, cut at size).  Return: its length.
 */
size_t uie_denylog_format(char *buf, size_t size, const struct uie_req *req, const struct uie_verdict *v,
			  uint8_t mode, const char *object);

#endif
