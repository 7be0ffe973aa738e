/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Vocabulary shared by the monitor core, the bridge, the tools and the
 * verifier.  Numeric values are wire values (docs/FORMATS.md): never
 * renumber, only append before the __MAX sentinel.  Freestanding.
 */
#ifndef UIE_TYPES_H
#define UIE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Execute-permission grant events: the `op=` of a policy rule. */
enum uie_event {
	UIE_EV_EXECVE = 1,        /* execve/execveat: main executable or interpreter */
	UIE_EV_MMAP_EXEC = 2,     /* mmap with PROT_EXEC */
	UIE_EV_MPROTECT_EXEC = 3, /* mprotect/pkey_mprotect NX->X */
	UIE_EV__MAX
};

/* Role of the object whose memory becomes executable. */
enum uie_role {
	UIE_ROLE_NONE = 0,   /* records that concern no object (policy events) */
	UIE_ROLE_MAIN = 1,   /* main executable of an execve */
	UIE_ROLE_INTERP = 2, /* PT_INTERP program interpreter (ld.so) */
	UIE_ROLE_DSO = 3,    /* file-backed ELF object mapped after exec */
	UIE_ROLE_FILE = 4,   /* file-backed range that is not a measurable ELF object */
	UIE_ROLE_ANON = 5,   /* anonymous or fileless memory; in rules: JIT of a named program */
	UIE_ROLE_SCRIPT = 6, /* a directly executed "#!" script (whole-file digest) */
	UIE_ROLE__MAX
};

enum uie_decision {
	UIE_DENY = 0, /* zero so that a cleared answer never allows */
	UIE_ALLOW = 1,
	UIE_DECISION__MAX
};

enum uie_mode {
	UIE_MODE_BOOTSTRAP = 0, /* no policy installed yet: measure and log, never block */
	UIE_MODE_MEASURE = 1,   /* policy evaluated and logged, never blocks */
	UIE_MODE_ENFORCE = 2,   /* policy decision is final */
	UIE_MODE__MAX
};

/* Digest algorithms: values are the TPM 2.0 TPM_ALG_ID numbers. */
enum uie_hash_alg {
	UIE_HASH_SHA256 = 0x000B,
	UIE_HASH_SHA384 = 0x000C,
};

#define UIE_SHA256_LEN 32
#define UIE_SHA384_LEN 48
#define UIE_DIGEST_MAX 48

/*
 * Sizes several formats share, defined once: the random id of a monitor
 * run (STATUS, the log file header, the guest's check of a reconnection)
 * and the longest verifier nonce (bridge EXPORT_REQ, AE, the quote's
 * extraData, the tools' --nonce).
 */
#define UIE_BOOT_ID_LEN 16
#define UIE_NONCE_MAX 64

/* An event and role a request (or a rule) can name: role NONE never names an object. */
static inline bool uie_event_role_valid(uint16_t event, uint8_t role)
{
	return event >= UIE_EV_EXECVE && event < UIE_EV__MAX && role > UIE_ROLE_NONE && role < UIE_ROLE__MAX;
}

/* Length of a digest of the given algorithm, or 0 if unknown. */
static inline size_t uie_hash_len(uint16_t alg)
{
	return alg == UIE_HASH_SHA256 ? UIE_SHA256_LEN : alg == UIE_HASH_SHA384 ? UIE_SHA384_LEN : 0;
}

struct uie_digest {
	uint16_t alg; /* enum uie_hash_alg; 0 = no digest */
	uint8_t len;
	uint8_t bytes[UIE_DIGEST_MAX];
};

/* A digest of a known algorithm, of that algorithm's length. */
static inline bool uie_digest_valid(const struct uie_digest *d)
{
	size_t n = uie_hash_len(d->alg);

	return n != 0 && d->len == n;
}

/* Every byte of d from from on is zero (encoded digests are canonical). */
static inline bool uie_digest_tail_zero(const struct uie_digest *d, size_t from)
{
	for (size_t i = from; i < UIE_DIGEST_MAX; i++)
		if (d->bytes[i])
			return false;
	return true;
}

/*
 * A canonical digest: valid with zero bytes past its length or, when not
 * required, absent (algorithm 0, length 0, all zero).  The one rule the
 * core and the bridge codec apply.
 */
static inline bool uie_digest_ok(const struct uie_digest *d, bool required)
{
	if (d->alg == 0 && d->len == 0 && !required)
		return uie_digest_tail_zero(d, 0);
	return uie_digest_valid(d) && uie_digest_tail_zero(d, d->len);
}

/*
 * Orders digests by algorithm, length, then bytes (the first len only), so
 * unused bytes and padding never take part.  Return: <0, 0 or >0.
 */
static inline int uie_digest_cmp(const struct uie_digest *a, const struct uie_digest *b)
{
	if (a->alg != b->alg)
		return a->alg < b->alg ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	for (unsigned i = 0; i < a->len && i < UIE_DIGEST_MAX; i++)
		if (a->bytes[i] != b->bytes[i])
			return a->bytes[i] < b->bytes[i] ? -1 : 1;
	return 0;
}

/*
 * What the measured digest covers (log field "digest scope").
 */
enum uie_scope {
	UIE_SCOPE_NONE = 0,    /* nothing measured (anonymous memory, policy records) */
	UIE_SCOPE_ELF = 1,     /* object digest over executable PT_LOAD segments */
	UIE_SCOPE_RANGE = 2,   /* raw file range (non-ELF, or range outside ELF code) */
	UIE_SCOPE_PACKAGE = 3, /* hash of a policy package */
	UIE_SCOPE_CHAIN = 4,   /* a vPCR16 value: the end of a previous monitor's log */
	UIE_SCOPE__MAX
};

/*
 * Reason codes, recorded in every log record and returned with decisions.
 */
enum uie_reason {
	UIE_R_RULE_ALLOW = 1,    /* an allow rule matched */
	UIE_R_RULE_DENY = 2,     /* a deny rule matched */
	UIE_R_DEFAULT = 3,       /* no rule matched; default action applied */
	UIE_R_BOOTSTRAP = 4,     /* no policy yet: measured only */
	UIE_R_ANON_EXEC = 5,     /* anonymous memory going executable */
	UIE_R_FILELESS = 6,      /* executable from memfd or other fileless source */
	UIE_R_MEASURE_FAIL = 7,  /* object could not be measured (malformed ELF, I/O) */
	UIE_R_UNSUPPORTED = 8,   /* path denied outright (shmat SHM_EXEC, foreign ABI, ...) */
	UIE_R_FASTPATH_MISS = 9, /* rejected by the guest's Bloom hint, reported later */
	UIE_R_POLICY_INSTALLED = 10,
	UIE_R_POLICY_REJECTED = 11,
	UIE_R_MONITOR_START = 12,
	UIE_R_RACE = 13,            /* check-then-use race detected */
	UIE_R_POLICY_RESTORED = 14, /* policy of the previous monitor run, re-checked at start */
	UIE_R_WRITE_VIOLATION = 15, /* the file of a live approved executable mapping was written */
	UIE_R_REPEAT_COUNT = 16,    /* first-seen mode: how many requests a logged record stands for */
	UIE_R_SUBJECT = 17,         /* first-seen mode: the program a grant record was made for */
	UIE_R_EXECMOD = 18,         /* a file range with copied pages, or writable and executable (execmod) */
	UIE_R_UNSEALED = 19,        /* the file could not be sealed against writes while mapped */
	UIE_R_REMOTE_FS = 20,       /* the file is on a file system that changes without a local write */
	UIE_R_MUTABLE = 21,         /* the policy requires immutable sources; this file is not one */
	UIE_R__MAX
};

/*
 * Kinds of file system whose files can change without a write through this
 * kernel (docs/FORMATS.md 2.1): the server, the daemon or another client
 * refills the page cache.  0 is every other (local) file system.  A policy
 * trusts kinds by bit (uie_policy.trusted_fs); at most 15 (4 bits on the
 * bridge).
 */
enum uie_fs_kind {
	UIE_FS_LOCAL = 0,
	UIE_FS_FUSE = 1,     /* fuse, fuseblk, fuse.* */
	UIE_FS_VIRTIOFS = 2, /* virtiofs (FUSE's magic, told apart by the mount's type) */
	UIE_FS_NFS = 3,      /* nfs, nfs4 */
	UIE_FS_CIFS = 4,     /* cifs, smb3 */
	UIE_FS_9P = 5,
	UIE_FS_CEPH = 6,
	UIE_FS_AFS = 7,     /* afs (kAFS), OpenAFS */
	UIE_FS_CLUSTER = 8, /* gfs2, ocfs2: shared block devices */
	UIE_FS_REMOTE = 9,  /* another network file system (coda, lustre, orangefs, ...) */
	UIE_FS__MAX
};

/* Short static description of a reason code; never NULL. */
const char *uie_reason_str(uint16_t reason);

/*
 * Identity of a file as seen by the kernel at the time of the request.
 * Any change of content changes at least one of these on Linux (ctime
 * moves on every write, chmod, rename or xattr change and cannot be set
 * from user space), so they key the monitor's measurement cache.
 */
struct uie_file_id {
	uint64_t dev;
	uint64_t ino;
	uint64_t size;
	int64_t mtime_ns;
	int64_t ctime_ns;
};

#endif
