/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sending and receiving one bridge message with at most one descriptor
 * (SCM_RIGHTS), and the sealed memfds that carry large payloads.  This is
 * the only place that touches cmsg buffers.
 */
#ifndef UIE_BRIDGE_FDPASS_H
#define UIE_BRIDGE_FDPASS_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Seals every payload memfd must carry before the receiver reads it. */
#define UIE_MEMFD_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

/*
 * Sends one message, with fd attached unless it is -1 (fd stays owned by
 * the caller).  Return: UIE_OK, UIE_E_PEER (peer gone), UIE_E_SYS.
 */
int uie_bridge_send(int sock, const uint8_t *buf, size_t len, int fd);

/* The control buffer of a message that carries one descriptor. */
union uie_fd_ctl {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(int))];
};
/*
 * Attaches fd to mh as its one SCM_RIGHTS descriptor, in ctl: what
 * uie_bridge_send sends.  No system call, so that spawn.c's child (which
 * shares our memory and makes raw system calls only) sends the same.
 */
void uie_bridge_attach_fd(struct msghdr *mh, union uie_fd_ctl *ctl, int fd);

/*
 * Receives one message into buf (UIE_BRIDGE_MAX_MSG bytes), waiting at most
 * timeout_ms (-1: forever).  *fd receives the attached descriptor or -1;
 * the caller owns it.  A message carrying more than one descriptor has all
 * of them closed and fails with UIE_E_FORMAT; a message longer than
 * UIE_BRIDGE_MAX_MSG fails with UIE_E_LIMIT (its descriptors closed).  On
 * those two errors *len still tells how many bytes are in buf, so that the
 * refusal can be addressed to the request id in the header.
 * Return: UIE_OK, UIE_E_PEER (closed), UIE_E_TIMEOUT, UIE_E_FORMAT,
 * UIE_E_LIMIT, UIE_E_SYS.
 */
int uie_bridge_recv(int sock, uint8_t *buf, size_t *len, int *fd, int timeout_ms);

/*
 * Creates a memfd holding len bytes of p, sealed with UIE_MEMFD_SEALS.
 * Return: UIE_OK, UIE_E_SYS, UIE_E_IO.
 */
int uie_memfd_create_sealed(const char *name, const void *p, size_t len, int *fd);

/*
 * The same in pieces, for payloads written over time: a new sealable
 * memfd (*fd owned by the caller), appends, and the seals.
 * Return: UIE_OK, UIE_E_SYS, UIE_E_IO (a short write).
 */
int uie_memfd_open(const char *name, int *fd);
int uie_memfd_append(int fd, const void *p, size_t len);
int uie_memfd_seal(int fd);

/*
 * Checks that fd is a memfd carrying all of UIE_MEMFD_SEALS and exactly
 * len bytes.  Return: UIE_OK, UIE_E_FORMAT (not sealed, wrong size).
 */
int uie_memfd_check(int fd, uint64_t len);

/*
 * Checks fd as above, then reads its len bytes into a malloc'ed buffer the
 * caller owns.  Return: UIE_OK, UIE_E_FORMAT, UIE_E_LIMIT (len > max),
 * UIE_E_NOMEM, UIE_E_IO.
 */
int uie_memfd_read_alloc(int fd, uint64_t len, uint64_t max, uint8_t **out);

#endif
