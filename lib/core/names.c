/* SPDX-License-Identifier: Apache-2.0 */
#include "uie/names.h"

#include "uie/types.h"

struct name {
	const char *name, *key;
};

static const struct name events[UIE_EV__MAX] = {
	[UIE_EV_EXECVE] = { "EXECVE", "execve" },
	[UIE_EV_MMAP_EXEC] = { "MMAP_EXEC", "mmap" },
	[UIE_EV_MPROTECT_EXEC] = { "MPROTECT_EXEC", "mprotect" },
};

static const struct name roles[UIE_ROLE__MAX] = {
	[UIE_ROLE_MAIN] = { "MAIN", "main" }, [UIE_ROLE_INTERP] = { "INTERP", "interp" },
	[UIE_ROLE_DSO] = { "DSO", "dso" },    [UIE_ROLE_FILE] = { "FILE", "file" },
	[UIE_ROLE_ANON] = { "ANON", "anon" }, [UIE_ROLE_SCRIPT] = { "SCRIPT", "script" },
};

static const struct name modes[UIE_MODE__MAX] = {
	[UIE_MODE_BOOTSTRAP] = { "BOOTSTRAP", "bootstrap" },
	[UIE_MODE_MEASURE] = { "MEASURE", "measure" },
	[UIE_MODE_ENFORCE] = { "ENFORCE", "enforce" },
};

/* As mount(8) and the policy language (trust_fs=) name them. */
static const char *const fs_kinds[UIE_FS__MAX] = {
	[UIE_FS_FUSE] = "fuse",     [UIE_FS_VIRTIOFS] = "virtiofs",
	[UIE_FS_NFS] = "nfs",       [UIE_FS_CIFS] = "cifs",
	[UIE_FS_9P] = "9p",         [UIE_FS_CEPH] = "ceph",
	[UIE_FS_AFS] = "afs",       [UIE_FS_CLUSTER] = "cluster",
	[UIE_FS_REMOTE] = "remote",
};

const char *uie_fs_name(unsigned kind)
{
	return kind < UIE_FS__MAX ? fs_kinds[kind] : 0;
}

/* The name (or key) of value v of a table of n entries, NULL outside it. */
static const char *pick(const struct name *t, unsigned n, unsigned v, int key)
{
	if (v >= n || !t[v].name)
		return 0;
	return key ? t[v].key : t[v].name;
}

/* uie_WHAT_name() and uie_WHAT_key() of one table (uie/names.h). */
#define NAME_AND_KEY(what, table, n)              \
	const char *uie_##what##_name(unsigned v) \
	{                                         \
		return pick(table, n, v, 0);      \
	}                                         \
	const char *uie_##what##_key(unsigned v)  \
	{                                         \
		return pick(table, n, v, 1);      \
	}

NAME_AND_KEY(event, events, UIE_EV__MAX)
NAME_AND_KEY(role, roles, UIE_ROLE__MAX)
NAME_AND_KEY(mode, modes, UIE_MODE__MAX)
