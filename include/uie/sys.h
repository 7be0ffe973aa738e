/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hosted code's one home for small operating-system rules used by the
 * monitor, the bridge, the host library, the interceptor and the tools
 * (lib/sys): the clock, file identity, sealed memfds, kinds of file system.
 */
#ifndef UIE_SYS_H
#define UIE_SYS_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "uie/types.h"

/* CLOCK_MONOTONIC in milliseconds and nanoseconds: for deadlines and ages, never dates. */
uint64_t uie_now_ms(void);
uint64_t uie_now_ns(void);

/* A file's identity as requests and records carry it (struct uie_file_id), from its fstat. */
struct uie_file_id uie_file_id_of(const struct stat *st);

/* Seals that make a memfd's content final: no write, no shrinking, no growing. */
#define UIE_SEALS_FINAL (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW)
/*
 * True when fd's file has no name (memfd, O_TMPFILE, deleted; st is its
 * fstat) and its content can still change: not sealed UIE_SEALS_FINAL.
 * A memfd so sealed is measured by digest like a file.
 */
bool uie_sys_fileless(int fd, const struct stat *st);
/*
 * Checks that fd carries every seal of seals (sealed first, then sized:
 * after the seals the size can no longer change) and is a regular file of
 * exactly len bytes.  Return: UIE_OK, UIE_E_SYS (cannot be asked),
 * UIE_E_STATE (a seal missing), UIE_E_RANGE (not a regular file of len bytes).
 */
int uie_sealed_check(int fd, uint64_t len, int seals);
/*
 * uie_sealed_check, then maps the len bytes read-only and shared into
 * *map (NULL on error; the caller unmaps).  Return: as uie_sealed_check;
 * UIE_E_INVAL for fd < 0 or len 0.
 */
int uie_sealed_map(int fd, size_t len, int seals, void **map);

/*
 * The name /proc gives fd's file (a path; "/memfd:x (deleted)" for a
 * memfd), NUL-terminated in buf (cap bytes, "" on error).  Return: its
 * length, or -1 (errno set: EBADF for fd < 0, EINVAL for cap 0) when
 * it cannot be read.
 */
ssize_t uie_sys_fd_name(int fd, char *buf, size_t cap);
/*
 * A new read-only open of fd's file (which may be an O_PATH descriptor),
 * through /proc: an open description of our own (a lease is per open
 * description), that never blocks on a FIFO nor takes a terminal.
 * Return: the descriptor, or -1 (errno set).
 */
int uie_sys_reopen_read(int fd);

/*
 * The kind of file system (enum uie_fs_kind) by fstatfs's f_type, and by
 * a mount's type as mountinfo names it ("virtiofs", "fuse.sshfs", "nfs4",
 * ...); UIE_FS_LOCAL for every other.  Only the type tells virtiofs from
 * FUSE, whose magic it shares.
 */
uint8_t uie_sys_fs_kind_of_magic(uint64_t magic);
uint8_t uie_sys_fs_kind_of_type(const char *type);
/*
 * The kind the monitor records for a file whose file system has magic,
 * when the guest stated the kind `stated`: what the magic says, except
 * that a FUSE file system may be stated to be virtiofs.
 */
uint8_t uie_sys_fs_kind_confirm(uint8_t stated, uint64_t magic);

#endif
