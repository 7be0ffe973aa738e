/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the target (tmem.c): the calling thread, its memory, its files. */
#ifndef UIE_GUEST_TMEM_H
#define UIE_GUEST_TMEM_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A seccomp notification being answered. */
struct uie_call {
	const struct seccomp_notif *n;
	int pidfd;         /* of the calling thread (PIDFD_THREAD), else of its process */
	bool thread_pidfd; /* pidfd names the thread itself */
	pid_t tgid;        /* its process (grants, and every call where pidfd is the process's; else 0) */
	bool settled;      /* no other thread of it runs: it has none, or they are stopped */
};

/*
 * Duplicates the caller's descriptor fd (pidfd_getfd); through a process
 * pidfd only when the calling thread's fd names the same open file.
 * Return: the new descriptor, or -1 with errno set.
 */
int uie_guest_call_getfd(const struct uie_call *c, int fd);
/* Reads a NUL-terminated string at addr of tid into buf (cap bytes). */
int uie_guest_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap);
/*
 * Opens path as the caller would see it (dirfd in its table, or AT_FDCWD).
 * An absolute path is resolved in the caller's root, whose descriptor is
 * kept in *root (-1 on the first call; the caller closes it) for the next.
 */
int uie_guest_open_as(const struct uie_call *c, int dirfd, const char *path, bool nofollow, int *root,
		      int *fd);
/* What the kernel tells of a thread's process. */
struct uie_task {
	pid_t tgid;       /* the process */
	pid_t ppid;       /* its parent (0: none) */
	unsigned threads; /* its number of threads */
};
/*
 * The process of tid: through its pidfd (-1: none) where the kernel
 * allows, else from /proc/TID/status.
 */
int uie_guest_task_info(pid_t tid, int pidfd, struct uie_task *t);
/*
 * Whether tid runs in its parent's address space: a vfork child (the
 * filter refuses CLONE_PARENT with CLONE_VM, so the parent is the process
 * it shares it with), whose parent's other threads run on meanwhile.
 * True also when the kernel cannot say, but for a parent gone or one
 * we may not inspect (tmem.c).
 */
bool uie_guest_shares_parent_mm(pid_t tid, pid_t ppid);
/*
 * Reads /proc/TID/NAME (at most cap - 1 bytes) into buf, NUL-terminated.
 * Return: the bytes read; 0 when none could be read; -1 (errno set) when
 * the file cannot be opened.
 */
ssize_t uie_guest_proc_read(pid_t tid, const char *name, char *buf, size_t cap);
/* The parent of pid (its real parent, whoever traces it), or 0 when it cannot be read. */
pid_t uie_guest_parent_of(pid_t pid);
/* Whether the kernel has PIDFD_GET_INFO (Linux 6.13). */
bool uie_guest_pidfd_info_works(void);
/*
 * The call notification n stopped in, as /proc/TID/syscall shows it
 * while the kernel runs it: a digest of its number and six arguments,
 * never 0.
 */
uint32_t uie_guest_call_key(const struct seccomp_notif *n);
/* What /proc/TID/syscall tells of a thread and one call (uie_guest_call_state). */
enum uie_call_state {
	UIE_CALL_OVER,    /* gone, or blocked in another call or outside any */
	UIE_CALL_MAYBE,   /* blocked in it, or the file cannot be read */
	UIE_CALL_RUNNING, /* on a CPU or waiting for one: in user space or in any call */
};
/*
 * Whether thread tid may be inside one of the system calls nrs[0..n-1],
 * and (call not 0) inside the call whose uie_guest_call_key is call, not
 * a later one with other arguments.  What replaces a time limit on "the
 * kernel has not finished the call we let continue": another fanotify
 * group can hold that call for as long as it likes.
 */
enum uie_call_state uie_guest_call_state(pid_t tid, const long *nrs, unsigned n, uint32_t call);
/* The same, with a running thread taken to be in the call. */
bool uie_guest_maybe_in_call(pid_t tid, const long *nrs, unsigned n, uint32_t call);

#endif
