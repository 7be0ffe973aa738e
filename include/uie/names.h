/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The names of the enums of types.h, in one table each, for every part
 * that prints or parses them: NAME (upper case) as the policy language,
 * JSON and `uie status` spell it, key (lower case) as log and journal lines
 * do.  Each returns NULL for a value outside its enum.  Freestanding.
 */
#ifndef UIE_NAMES_H
#define UIE_NAMES_H

const char *uie_event_name(unsigned event);  /* EXECVE, MMAP_EXEC, MPROTECT_EXEC */
const char *uie_event_key(unsigned event);   /* execve, mmap, mprotect */
const char *uie_role_name(unsigned role);    /* MAIN, INTERP, DSO, FILE, ANON, SCRIPT */
const char *uie_role_key(unsigned role);     /* main, interp, ... */
const char *uie_mode_name(unsigned mode);    /* BOOTSTRAP, MEASURE, ENFORCE */
const char *uie_mode_key(unsigned mode);     /* bootstrap, measure, enforce */
const char *uie_reason_key(unsigned reason); /* allow-rule, default, anon-exec, ... (lib/core/reason.c) */
/* fuse, virtiofs, nfs, cifs, 9p, ceph, afs, cluster, remote; NULL for LOCAL */
const char *uie_fs_name(unsigned kind);

#endif
