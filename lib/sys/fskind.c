/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kinds of file system whose files can change without a write through
 * this kernel (enum uie_fs_kind): by the magic fstatfs gives, and by the
 * mount's type as mountinfo names it (which alone tells virtiofs from
 * other FUSE file systems: they share FUSE's magic).
 */
#include <linux/magic.h>
#include <string.h>

#include "uie/sys.h"

/* Magics that linux/magic.h does not have (each file system's own headers). */
#define KAFS_MAGIC 0x6B414653u
#define GFS2_MAGIC 0x01161970u
#define ORANGEFS_MAGIC 0x20030528u
#define LUSTRE_MAGIC 0x0BD00BD0u

static const struct {
	uint32_t magic;
	uint8_t kind;
} magics[] = {
	{ FUSE_SUPER_MAGIC, UIE_FS_FUSE },
	{ NFS_SUPER_MAGIC, UIE_FS_NFS },
	{ CIFS_SUPER_MAGIC, UIE_FS_CIFS },
	{ SMB2_SUPER_MAGIC, UIE_FS_CIFS },
	{ SMB_SUPER_MAGIC, UIE_FS_CIFS },
	{ V9FS_MAGIC, UIE_FS_9P },
	{ CEPH_SUPER_MAGIC, UIE_FS_CEPH },
	{ AFS_SUPER_MAGIC, UIE_FS_AFS },
	{ KAFS_MAGIC, UIE_FS_AFS },
	{ GFS2_MAGIC, UIE_FS_CLUSTER },
	{ OCFS2_SUPER_MAGIC, UIE_FS_CLUSTER },
	{ CODA_SUPER_MAGIC, UIE_FS_REMOTE },
	{ ORANGEFS_MAGIC, UIE_FS_REMOTE },
	{ LUSTRE_MAGIC, UIE_FS_REMOTE },
	{ NCP_SUPER_MAGIC, UIE_FS_REMOTE },
};

static const struct {
	const char *type;
	uint8_t kind;
} types[] = {
	{ "virtiofs", UIE_FS_VIRTIOFS }, { "fuse", UIE_FS_FUSE },     { "fuseblk", UIE_FS_FUSE },
	{ "nfs", UIE_FS_NFS },           { "nfs4", UIE_FS_NFS },      { "cifs", UIE_FS_CIFS },
	{ "smb3", UIE_FS_CIFS },         { "9p", UIE_FS_9P },         { "ceph", UIE_FS_CEPH },
	{ "afs", UIE_FS_AFS },           { "gfs2", UIE_FS_CLUSTER },  { "ocfs2", UIE_FS_CLUSTER },
	{ "coda", UIE_FS_REMOTE },       { "lustre", UIE_FS_REMOTE }, { "pvfs2", UIE_FS_REMOTE },
};

uint8_t uie_sys_fs_kind_of_magic(uint64_t magic)
{
	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if (magics[i].magic == magic)
			return magics[i].kind;
	return UIE_FS_LOCAL;
}

uint8_t uie_sys_fs_kind_of_type(const char *type)
{
	if (!strncmp(type, "fuse.", 5)) /* fuse.sshfs, fuse.bindfs, ... */
		return UIE_FS_FUSE;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(type, types[i].type))
			return types[i].kind;
	return UIE_FS_LOCAL;
}

uint8_t uie_sys_fs_kind_confirm(uint8_t stated, uint64_t magic)
{
	uint8_t seen = uie_sys_fs_kind_of_magic(magic);

	return stated == UIE_FS_VIRTIOFS && seen == UIE_FS_FUSE ? stated : seen;
}
