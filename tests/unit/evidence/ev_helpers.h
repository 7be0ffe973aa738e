/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Evidence test helpers: temporary directories, files, child processes,
 * swtpm, and a log generated in-process by the real monitor core.
 */
#ifndef UIE_TEST_EV_HELPERS_H
#define UIE_TEST_EV_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "evidence.h"
#include "host_platform.h"
#include "uie/core.h"
#include "verify.h"
#include "vtpm.h"

/* A fresh directory under $TMPDIR (or /tmp); ev_rmdir removes it recursively. */
char *ev_mkdtemp(void);
void ev_rmdir(char *dir);
/* dir "/" name, malloc'ed. */
char *ev_path(const char *dir, const char *name);
int ev_write_file(const char *path, const void *p, size_t n);
/* Whole file, malloc'ed (NUL-terminated for convenience). */
uint8_t *ev_read_file(const char *path, size_t *n);
/* Writes a DER SubjectPublicKeyInfo as a PEM "PUBLIC KEY" file. */
int ev_write_pubkey_pem(const char *path, const uint8_t *der, size_t len);

/* Runs argv (NULL-terminated), output to /dev/null unless verbose; exit status or -1. */
int ev_run(char *const argv[], bool verbose);
/* Same, with stdout into the file out (stderr to /dev/null). */
int ev_run_out(char *const argv[], const char *out);

/*
 * swtpm with state in dir, on 127.0.0.1:port (control on port+1), or with
 * unix set, on the socket dir/tpm.sock (control dir/tpm.sock.ctrl).
 */
struct ev_swtpm {
	pid_t pid;
	int port;
	char path[4096];
};
int ev_swtpm_start(const char *dir, bool unix_socket, struct ev_swtpm *s);
void ev_swtpm_stop(struct ev_swtpm *s);

/*
 * A log produced by the real core through a memory sink that also extends
 * a vTPM, with a policy installed at epoch 1 (ENFORCE, default DENY).
 */
struct ev_log {
	struct uie_host_platform hp;
	struct uie_core core;
	struct uie_vtpm *tpm; /* borrowed, may be NULL */
	uint8_t *recs;
	size_t n, cap;
	uint8_t *table;
	size_t table_len;
	uint8_t pkg_hash[32];
	struct uie_verify_policy pol;
};

/* Digests named by a letter: SHA-256 of "uie-test-object-<c>". */
void ev_digest(char c, struct uie_digest *d);

int ev_log_init(struct ev_log *l, struct uie_vtpm *tpm);
/* The same for a monitor that restarted after the run prev describes (MONITOR_RESTART first). */
int ev_log_init_restart(struct ev_log *l, struct uie_vtpm *tpm, const struct uie_core_prev *prev);
void ev_log_fini(struct ev_log *l);
/*
 * The standard scenario: bootstrap decisions on A (main) and B (interp),
 * install (allow A, B as execve main/interp, C as mmap dso), then A and
 * C allowed, D denied by default, an anonymous NX->X denied.
 */
int ev_log_scenario(struct ev_log *l);
/* A decision on object `c` (anonymous memory for role ANON). */
int ev_log_decide(struct ev_log *l, uint16_t ev, uint8_t role, char c);
/* One more decision: a mmap of DSO `c`. */
int ev_log_mmap(struct ev_log *l, char c);
/* Manifest text (`uie ref scan` form) listing the given letters' digests. */
char *ev_manifest(const char *letters);

/* Exports records [since, n) like the monitor does, quoted by tpm. */
int ev_export(struct ev_log *l, struct uie_vtpm *tpm, const uint8_t *nonce, size_t nonce_len, uint64_t since,
	      uint8_t **ae, size_t *ae_len);
/* vPCR16 after the first k records. */
int ev_pcr_at(struct ev_log *l, uint64_t k, uint8_t pcr[32]);
/* Whether tpm's AK public key (DER) is the len bytes at der. */
bool ev_same_pubkey(struct uie_vtpm *tpm, const uint8_t *der, size_t len);

#endif
