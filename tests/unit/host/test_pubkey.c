/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lib/host pubkey.c: one key read from a PEM file, a DER file and a pipe
 * gives one key id, the SHA-256 of its DER SubjectPublicKeyInfo; what is
 * not a public key is UIE_E_KEY, a missing file UIE_E_IO; the monitor's
 * trusted keys (uie_host_platform_add_key_file) get the same id.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "fileio.h"
#include "host_platform.h"
#include "pubkey.h"
#include "tcommon.h"
#include "uie/err.h"

/* The id of the key in the file at path, read through uie_pubkey_read_alloc. */
static void id_of_file(const char *path, uint8_t id[32])
{
	EVP_PKEY *pk;

	assert_int_equal(uie_pubkey_read_alloc(path, &pk), UIE_OK);
	assert_int_equal(uie_pubkey_id(pk, id), UIE_OK);
	EVP_PKEY_free(pk);
}

static void test_pem_der_pipe_one_id(void **state)
{
	EVP_PKEY *key = EVP_EC_gen("P-256");
	unsigned char *der = NULL, *pem;
	uint8_t want[32], id[32], hp_id[32];
	char dir[] = "/tmp/uie-pubkey-XXXXXX", pem_path[128], der_path[128], pipe_path[64];
	struct uie_host_platform hp;
	BIO *bio = BIO_new(BIO_s_mem());
	int derlen, p[2];
	long pemlen;
	pid_t pid;

	(void)state;
	tc_mkdtemp(dir);
	assert_non_null(key);
	assert_non_null(bio);
	derlen = i2d_PUBKEY(key, &der);
	assert_true(derlen > 0);
	SHA256(der, (size_t)derlen, want);
	assert_int_equal(PEM_write_bio_PUBKEY(bio, key), 1);
	pemlen = BIO_get_mem_data(bio, (char **)&pem);
	assert_true(pemlen > 0);
	snprintf(pem_path, sizeof(pem_path), "%s/key.pem", dir);
	snprintf(der_path, sizeof(der_path), "%s/key.der", dir);
	assert_int_equal(uie_file_write_atomic(pem_path, pem, (size_t)pemlen, 0600), UIE_OK);
	assert_int_equal(uie_file_write_atomic(der_path, der, (size_t)derlen, 0600), UIE_OK);

	id_of_file(pem_path, id);
	assert_memory_equal(id, want, 32);
	id_of_file(der_path, id);
	assert_memory_equal(id, want, 32);
	/* a pipe (as from a shell's process substitution) reads to its end too */
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		_exit(uie_fd_write_all(p[1], pem, (size_t)pemlen) == UIE_OK ? 0 : 1);
	}
	close(p[1]);
	snprintf(pipe_path, sizeof(pipe_path), "/proc/self/fd/%d", p[0]);
	id_of_file(pipe_path, id);
	assert_memory_equal(id, want, 32);
	close(p[0]);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	/* the monitor's trusted key: the same id */
	assert_int_equal(uie_host_platform_init(&hp), UIE_OK);
	assert_int_equal(uie_host_platform_add_key_file(&hp, der_path, hp_id), UIE_OK);
	assert_memory_equal(hp_id, want, 32);
	uie_host_platform_fini(&hp);

	OPENSSL_free(der);
	BIO_free(bio);
	EVP_PKEY_free(key);
	tc_rmtree(dir);
}

static void test_not_a_key(void **state)
{
	static const uint8_t junk[] = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
	char dir[] = "/tmp/uie-pubkey-XXXXXX", path[128];
	EVP_PKEY *pk = (EVP_PKEY *)1;
	struct uie_host_platform hp;

	(void)state;
	tc_mkdtemp(dir);
	assert_int_equal(uie_pubkey_parse_alloc(junk, sizeof(junk) - 1, &pk), UIE_E_KEY);
	assert_null(pk);
	assert_int_equal(uie_pubkey_parse_alloc(junk, 0, &pk), UIE_E_KEY);
	snprintf(path, sizeof(path), "%s/junk", dir);
	assert_int_equal(uie_file_write_atomic(path, junk, sizeof(junk) - 1, 0600), UIE_OK);
	assert_int_equal(uie_pubkey_read_alloc(path, &pk), UIE_E_KEY);
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(uie_pubkey_read_alloc(path, &pk), UIE_E_NOTFOUND);
	assert_null(pk);
	assert_int_equal(uie_host_platform_init(&hp), UIE_OK);
	assert_int_equal(uie_host_platform_add_key_file(&hp, path, NULL), UIE_E_NOTFOUND);
	assert_int_equal(hp.nkeys, 0);
	uie_host_platform_fini(&hp);
	tc_rmtree(dir);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_pem_der_pipe_one_id), cmocka_unit_test(test_not_a_key))
