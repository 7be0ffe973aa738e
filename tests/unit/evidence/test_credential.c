/* SPDX-License-Identifier: Apache-2.0 */
/*
 * EK -> AK: a credential made in software (lib/host/credential.c) for a
 * vTPM's AK name and sealed to its EK is returned by that vTPM's
 * ActivateCredential, on swtpm through tpm2-tss (the cross-check that the
 * bytes are a TPM's) and on the built-in backend; made for another AK, to
 * another EK, or altered by one bit, it is refused with the reason named;
 * an AK that is not a restricted signing key gets no credential.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <openssl/sha.h>
#include <tss2/tss2_mu.h>

#include "challenge.h"
#include "credential.h"
#include "ev_helpers.h"
#include "hex.h"
#include "tpm_public.h"
#include "uie/err.h"
#include "tcommon.h"

/* The vTPM under test (swtpm or built-in) and a second, unrelated built-in one. */
struct fx {
	char *dir;
	struct ev_swtpm sw;
	struct uie_vtpm *t, *other;
};

/* Which vTPM setup opens: cmocka's initial state for it (ON below). */
static bool on_swtpm = true, on_builtin = false;

static const uint8_t cred32[32] = "a fresh secret of the verifier!";

static struct uie_vtpm *open_builtin(const char *dir, const char *name)
{
	char spec[4200];
	struct uie_vtpm *t = NULL;

	snprintf(spec, sizeof(spec), "builtin:%s/%s", dir, name);
	assert_int_equal(uie_vtpm_open(spec, &t), UIE_OK);
	return t;
}

static int setup(void **state)
{
	bool swtpm = *(bool *)*state;
	struct fx *f = calloc(1, sizeof(*f));
	char spec[4200];

	if (!f || !(f->dir = ev_mkdtemp()))
		return -1;
	if (swtpm) {
		if (ev_swtpm_start(f->dir, true, &f->sw) != UIE_OK) {
			fprintf(stderr, "cannot start swtpm\n");
			return -1;
		}
		snprintf(spec, sizeof(spec), "swtpm:%s", f->sw.path);
		if (uie_vtpm_open(spec, &f->t) != UIE_OK)
			return -1;
	} else {
		f->t = open_builtin(f->dir, "ak.pem");
	}
	f->other = open_builtin(f->dir, "other.pem");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	uie_vtpm_free(f->t);
	uie_vtpm_free(f->other);
	ev_swtpm_stop(&f->sw);
	ev_rmdir(f->dir);
	free(f);
	return 0;
}

struct pubs {
	uint8_t *ek, *ak;
	size_t ek_len, ak_len;
};

static void get_pubs(struct uie_vtpm *t, struct pubs *p)
{
	assert_int_equal(uie_vtpm_ek_public_alloc(t, &p->ek, &p->ek_len), UIE_OK);
	assert_int_equal(uie_vtpm_ak_public_alloc(t, &p->ak, &p->ak_len), UIE_OK);
}

static void free_pubs(struct pubs *p)
{
	free(p->ek);
	free(p->ak);
}

/* make with (ek, ak), activate on t: the result, and the credential when it is UIE_OK. */
static int challenge(struct uie_vtpm *t, const struct pubs *ek, const struct pubs *ak)
{
	uint8_t *blob, *secret, out[UIE_CRED_MAX];
	size_t bl, sl, ol = 99;
	const char *why = NULL;
	int r;

	assert_int_equal(uie_credential_make(ek->ek, ek->ek_len, ak->ak, ak->ak_len, cred32, sizeof(cred32),
					     &blob, &bl, &secret, &sl, &why),
			 UIE_OK);
	r = uie_vtpm_activate_credential(t, blob, bl, secret, sl, out, &ol);
	if (r == UIE_OK) {
		assert_int_equal(ol, sizeof(cred32));
		assert_memory_equal(out, cred32, sizeof(cred32));
	} else {
		assert_int_equal(ol, 0);
	}
	free(blob);
	free(secret);
	return r;
}

/* The EK is template L-1 with the TPM's modulus; the AK name is the one the TPM signs quotes with. */
static void test_ek_ak_public(void **state)
{
	struct fx *f = *state;
	struct pubs p;
	TPMT_PUBLIC ek, ak, tmpl;
	struct uie_tpm_quote q;
	uint8_t *att, *sig, name[UIE_TPM_NAME_MAX];
	size_t al, sl, nl;

	get_pubs(f->t, &p);
	assert_int_equal(uie_tpm_public_parse(p.ek, p.ek_len, &ek), UIE_OK);
	assert_int_equal(uie_tpm_public_parse(p.ak, p.ak_len, &ak), UIE_OK);
	uie_tpm_ek_template(&tmpl, ek.unique.rsa.buffer);
	assert_memory_equal(&tmpl, &ek, sizeof(ek));
	assert_int_equal(ek.objectAttributes, 0x000300b2);
	assert_int_equal(uie_tpm_ek_check(&ek, NULL), UIE_OK);
	assert_int_equal(uie_tpm_ak_check(&ak, NULL), UIE_OK);
	assert_int_equal(uie_vtpm_quote_alloc(f->t, (const uint8_t *)"n", 1, &att, &al, &sig, &sl), UIE_OK);
	assert_int_equal(uie_tpm_quote_parse(att, al, &q), UIE_OK);
	assert_int_equal(uie_tpm_public_name(&ak, name, &nl), UIE_OK);
	assert_int_equal(nl, 34);
	assert_int_equal(q.signer_len, nl);
	if (f->sw.pid) {
		/* A TPM signs with the qualified name: of a primary key, H(endorsement handle || name). */
		uint8_t cat[4 + 34] = { 0x40, 0, 0, 0x0b };

		memcpy(cat + 4, name, nl);
		assert_non_null(SHA256(cat, sizeof(cat), name + 2));
	}
	assert_memory_equal(q.signer, name, nl);
	/* An empty area (size 0, which tpm2-tss reads as all zero; found by fuzz_credential) is refused. */
	assert_int_equal(uie_tpm_public_parse((const uint8_t *)"\0\0", 2, &ek), UIE_E_FORMAT);
	/* A public area with bytes after it, or a size field that lies, is refused. */
	assert_int_equal(uie_tpm_public_parse(p.ek, p.ek_len - 1, &ek), UIE_E_TRUNCATED);
	p.ek[1] ^= 1;
	assert_int_not_equal(uie_tpm_public_parse(p.ek, p.ek_len, &ek), UIE_OK);
	free(att);
	free(sig);
	free_pubs(&p);
}

static void test_round_trip(void **state)
{
	struct fx *f = *state;
	struct pubs p;

	get_pubs(f->t, &p);
	assert_int_equal(challenge(f->t, &p, &p), UIE_OK);
	free_pubs(&p);
}

/* A credential made with the EK (other_ek) or else the AK of the other TPM is refused with want. */
static void other_refused(struct fx *f, bool other_ek, int want)
{
	struct pubs p, o;

	get_pubs(f->t, &p);
	get_pubs(f->other, &o);
	assert_int_equal(other_ek ? challenge(f->t, &o, &p) : challenge(f->t, &p, &o), want);
	free_pubs(&p);
	free_pubs(&o);
}

/* Made for the AK of another TPM: the blob's HMAC is over that AK's name. */
static void test_other_ak(void **state)
{
	other_refused(*state, false, UIE_E_SIGNATURE);
}

/* Sealed to the EK of another TPM, for this TPM's AK. */
static void test_other_ek(void **state)
{
	other_refused(*state, true, UIE_E_KEY);
}

/* Every single-bit flip (one per byte) of the blob and of the secret is refused. */
/* A bit of each byte of p[0..n) (in the blob or the secret) flipped in turn: t activates nothing. */
static void each_byte_flipped(struct uie_vtpm *t, const uint8_t *blob, size_t bl, const uint8_t *secret,
			      size_t sl, uint8_t *p, size_t n)
{
	uint8_t out[UIE_CRED_MAX];
	size_t ol;

	for (size_t i = 0; i < n; i++) {
		p[i] ^= (uint8_t)(1u << (i % 8));
		assert_int_not_equal(uie_vtpm_activate_credential(t, blob, bl, secret, sl, out, &ol), UIE_OK);
		assert_int_equal(ol, 0);
		p[i] ^= (uint8_t)(1u << (i % 8));
	}
}

static void test_flipped(void **state)
{
	struct fx *f = *state;
	struct pubs p;
	uint8_t *blob, *secret, out[UIE_CRED_MAX];
	size_t bl, sl, ol;

	get_pubs(f->t, &p);
	assert_int_equal(uie_credential_make(p.ek, p.ek_len, p.ak, p.ak_len, cred32, sizeof(cred32), &blob,
					     &bl, &secret, &sl, NULL),
			 UIE_OK);
	each_byte_flipped(f->t, blob, bl, secret, sl, blob, bl);
	each_byte_flipped(f->t, blob, bl, secret, sl, secret, sl);
	/* The body of the blob (HMAC, encIdentity) altered: the integrity check says so. */
	blob[10] ^= 0x80;
	assert_int_equal(uie_vtpm_activate_credential(f->t, blob, bl, secret, sl, out, &ol), UIE_E_SIGNATURE);
	blob[10] ^= 0x80;
	/* The unaltered pair still works: nothing above changed the TPM. */
	assert_int_equal(uie_vtpm_activate_credential(f->t, blob, bl, secret, sl, out, &ol), UIE_OK);
	assert_memory_equal(out, cred32, sizeof(cred32));
	free(blob);
	free(secret);
	free_pubs(&p);
}

/* The maker refuses an AK that could sign anything, or that can leave its TPM, and a bad EK. */
static void test_maker_refuses(void **state)
{
	struct fx *f = *state;
	static const TPMA_OBJECT bits[] = { TPMA_OBJECT_RESTRICTED, TPMA_OBJECT_SIGN_ENCRYPT,
					    TPMA_OBJECT_FIXEDTPM, TPMA_OBJECT_FIXEDPARENT,
					    TPMA_OBJECT_SENSITIVEDATAORIGIN };
	struct pubs p;
	TPMT_PUBLIC ak, ek;
	uint8_t *bad, *blob = (uint8_t *)1, *secret = (uint8_t *)1;
	size_t badl, bl = 1, sl = 1;
	const char *why = NULL;

	get_pubs(f->t, &p);
	assert_int_equal(uie_tpm_public_parse(p.ak, p.ak_len, &ak), UIE_OK);
	assert_int_equal(uie_tpm_public_parse(p.ek, p.ek_len, &ek), UIE_OK);
	for (size_t i = 0; i <= sizeof(bits) / sizeof(bits[0]); i++) {
		TPMT_PUBLIC a = ak;

		if (i < sizeof(bits) / sizeof(bits[0]))
			a.objectAttributes &= ~bits[i];
		else
			a.objectAttributes |= TPMA_OBJECT_DECRYPT;
		assert_int_equal(uie_tpm_public_alloc(&a, &bad, &badl), UIE_OK);
		assert_int_equal(uie_credential_make(p.ek, p.ek_len, bad, badl, cred32, sizeof(cred32), &blob,
						     &bl, &secret, &sl, &why),
				 UIE_E_KEY);
		assert_non_null(strstr(why, "AK: objectAttributes"));
		assert_null(blob);
		assert_null(secret);
		free(bad);
	}
	/* The EK given as the AK: a decryption key. */
	assert_int_equal(uie_credential_make(p.ek, p.ek_len, p.ek, p.ek_len, cred32, sizeof(cred32), &blob,
					     &bl, &secret, &sl, &why),
			 UIE_E_KEY);
	/* The AK given as the EK: not RSA. */
	assert_int_equal(uie_credential_make(p.ak, p.ak_len, p.ak, p.ak_len, cred32, sizeof(cred32), &blob,
					     &bl, &secret, &sl, &why),
			 UIE_E_ALG);
	assert_non_null(strstr(why, "EK: type"));
	/* A credential longer than the EK's nameAlg digest, or empty. */
	assert_int_equal(uie_credential_make(p.ek, p.ek_len, p.ak, p.ak_len, cred32, 0, &blob, &bl, &secret,
					     &sl, &why),
			 UIE_E_LIMIT);
	{
		uint8_t big[33] = { 0 };

		assert_int_equal(uie_credential_make(p.ek, p.ek_len, p.ak, p.ak_len, big, sizeof(big), &blob,
						     &bl, &secret, &sl, &why),
				 UIE_E_LIMIT);
	}
	free_pubs(&p);
}

/*
 * Vector C1 of docs/FORMATS.md 5.8 (from an independent Python
 * implementation): KDFa outputs and the blob for a fixed seed.
 */
static void test_vectors(void **state)
{
	static const char sym_hex[] = "cdc3ce882135bcbc1ccfc03b0229514c";
	static const char hkey_hex[] = "094f9376bf7def7a00894381e0887d107ee8c0f04e09748c5dc96b7be9232c5a";
	static const char blob_hex[] =
		"0044002078b1ecbba839b6e897cf8827ddc281eed4725f76e95f52b84a3398b511fceca1"
		"bff9a49f96f301d2709fea67b497b0f2d1f4229765d5cbffa6c0c480684f365885aa";
	static const char name_hex[] = "000be259c1f4701f1a5825cba56e4f0d2e3b7430fcb96e0ee0d8ccdd5ae86be35e2c";
	static const char ek_head_hex[] =
		"013a0001000b000300b20020837197674484b3f81a90cc8d46a5d724fd52d76e06520b64f2"
		"a1da1b331469aa00060080004300100800000000000100";
	static const char ek_name_hex[] =
		"000b32503929a1287eedaa3e89d932f9b51a6f92abd0fa57721ffa6fc041e04f7498";
	static const uint8_t cred[32] = "uie-credential-vector-0123456789";
	uint8_t seed[32], name[34], sym[16], hkey[32], blob[70], want[70], out[UIE_CRED_MAX],
		ekname[UIE_TPM_NAME_MAX], head[60], *ekpub;
	size_t bl, ol, nl, el;
	TPMT_PUBLIC ek;

	(void)state;
	for (size_t i = 0; i < sizeof(seed); i++)
		seed[i] = (uint8_t)(i + 1);
	assert_int_equal(uie_hex_decode(name_hex, strlen(name_hex), name, sizeof(name)), UIE_OK);
	assert_int_equal(uie_kdfa("SHA256", seed, 32, "STORAGE", name, 34, NULL, 0, sym, 16), UIE_OK);
	assert_int_equal(uie_hex_decode(sym_hex, 32, want, 16), UIE_OK);
	assert_memory_equal(sym, want, 16);
	assert_int_equal(uie_kdfa("SHA256", seed, 32, "INTEGRITY", NULL, 0, NULL, 0, hkey, 32), UIE_OK);
	assert_int_equal(uie_hex_decode(hkey_hex, 64, want, 32), UIE_OK);
	assert_memory_equal(hkey, want, 32);

	/* The EK template as TPM2_CreatePrimary gets it (unique: 256 zero bytes) and its name. */
	uie_tpm_ek_template(&ek, NULL);
	assert_int_equal(uie_tpm_public_alloc(&ek, &ekpub, &el), UIE_OK);
	assert_int_equal(el, 316);
	assert_int_equal(uie_hex_decode(ek_head_hex, strlen(ek_head_hex), head, sizeof(head)), UIE_OK);
	assert_memory_equal(ekpub, head, sizeof(head));
	for (size_t i = sizeof(head); i < el; i++)
		assert_int_equal(ekpub[i], 0);
	assert_int_equal(uie_tpm_public_name(&ek, ekname, &nl), UIE_OK);
	assert_int_equal(uie_hex_decode(ek_name_hex, strlen(ek_name_hex), want, 34), UIE_OK);
	assert_memory_equal(ekname, want, 34);
	free(ekpub);

	assert_int_equal(uie_credential_wrap(&ek, name, 34, seed, 32, cred, 32, blob, sizeof(blob), &bl),
			 UIE_OK);
	assert_int_equal(bl, 70);
	assert_int_equal(uie_hex_decode(blob_hex, strlen(blob_hex), want, 70), UIE_OK);
	assert_memory_equal(blob, want, 70);
	assert_int_equal(uie_credential_unwrap(&ek, name, 34, seed, 32, blob, bl, out, &ol), UIE_OK);
	assert_int_equal(ol, 32);
	assert_memory_equal(out, cred, 32);
	/* Another AK name, another seed. */
	name[5] ^= 1;
	assert_int_equal(uie_credential_unwrap(&ek, name, 34, seed, 32, blob, bl, out, &ol), UIE_E_SIGNATURE);
	name[5] ^= 1;
	seed[0] ^= 1;
	assert_int_equal(uie_credential_unwrap(&ek, name, 34, seed, 32, blob, bl, out, &ol), UIE_E_SIGNATURE);
	assert_int_equal(ol, 0);
}

/* tpm2_makecredential with tcti for t's EK and AK name: the credential file it writes, activated on t. */
static void tools_make_activate(struct fx *f, const char *tcti)
{
	struct pubs p;
	TPMT_PUBLIC ak;
	const uint8_t *blob, *secret;
	uint8_t name[UIE_TPM_NAME_MAX], *file, out[UIE_CRED_MAX];
	char hex[2 * UIE_TPM_NAME_MAX + 1], *ekf = ev_path(f->dir, "ek.pub"), *sf = ev_path(f->dir, "secret"),
					    *of = ev_path(f->dir, "cred.out");
	size_t nl, fl, bl, sl, ol;

	get_pubs(f->t, &p);
	assert_int_equal(uie_tpm_public_parse(p.ak, p.ak_len, &ak), UIE_OK);
	assert_int_equal(uie_tpm_public_name(&ak, name, &nl), UIE_OK);
	uie_hex_encode(hex, name, nl);
	assert_int_equal(ev_write_file(ekf, p.ek, p.ek_len), UIE_OK);
	assert_int_equal(ev_write_file(sf, cred32, sizeof(cred32)), UIE_OK);
	char *argv[] = {
		"tpm2_makecredential", "-T", (char *)tcti, "-u", ekf, "-s", sf, "-n", hex, "-o", of, NULL
	};
	assert_int_equal(ev_run(argv, false), 0);
	assert_non_null(file = ev_read_file(of, &fl));
	assert_int_equal(uie_credential_file_parse(file, fl, &blob, &bl, &secret, &sl), UIE_OK);
	assert_int_equal(uie_vtpm_activate_credential(f->t, blob, bl, secret, sl, out, &ol), UIE_OK);
	assert_int_equal(ol, sizeof(cred32));
	assert_memory_equal(out, cred32, sizeof(cred32));
	/* The file's framing: one byte less, or one more, is not a credential file. */
	assert_int_equal(uie_credential_file_parse(file, fl - 1, &blob, &bl, &secret, &sl), UIE_E_TRUNCATED);
	assert_int_equal(uie_credential_file_parse(file, fl + 1, &blob, &bl, &secret, &sl), UIE_E_FORMAT);
	free(file);
	free(ekf);
	free(sf);
	free(of);
	free_pubs(&p);
}

/*
 * tpm2-tools' MakeCredential for this vTPM's EK and AK name, activated by
 * the vTPM: its software one (tpm2_makecredential -T none, an independent
 * implementation) on both backends, and for the built-in vTPM also a real
 * TPM's TPM2_MakeCredential (swtpm, through tpm2_makecredential with a
 * TCTI: TPM2_LoadExternal of the EK, then the command).
 */
static void test_tpm2_tools_blob(void **state)
{
	struct fx *f = *state;
	struct ev_swtpm maker;
	char *dir, tcti[4200];

	tools_make_activate(f, "none");
	if (f->sw.pid)
		return;
	assert_non_null(dir = ev_path(f->dir, "maker"));
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(ev_swtpm_start(dir, true, &maker), UIE_OK);
	snprintf(tcti, sizeof(tcti), "swtpm:path=%s", maker.path);
	tools_make_activate(f, tcti);
	ev_swtpm_stop(&maker);
	free(dir);
}

/* The same EK at the next open: the built-in one's KEYFILE.ek, the TPM's derived again from its seed. */
static void test_ek_stays(void **state)
{
	struct fx *f = *state;
	struct pubs a, b;
	char spec[4200];

	get_pubs(f->t, &a);
	uie_vtpm_free(f->t);
	f->t = NULL;
	if (f->sw.pid)
		snprintf(spec, sizeof(spec), "swtpm:%s", f->sw.path);
	else
		snprintf(spec, sizeof(spec), "builtin:%s/ak.pem", f->dir);
	assert_int_equal(uie_vtpm_open(spec, &f->t), UIE_OK);
	get_pubs(f->t, &b);
	assert_int_equal(a.ek_len, b.ek_len);
	assert_memory_equal(a.ek, b.ek, a.ek_len);
	assert_int_equal(a.ak_len, b.ak_len);
	assert_memory_equal(a.ak, b.ak, a.ak_len);
	/* A credential made before the reopen is activated after it. */
	assert_int_equal(challenge(f->t, &a, &a), UIE_OK);
	free_pubs(&a);
	free_pubs(&b);
}

/* A KEYFILE.ek that is not an RSA 2048 key: the open fails rather than make another EK. */
/* The challenge file (docs/FORMATS.md 5.8): round trip, each refusal of the check and of the parser. */
static void test_challenge(void **state)
{
	uint8_t n[256], x[32], y[32], secret[32], wrong[32];
	TPMT_PUBLIC ek, ek2, ak, ak2;
	struct uie_challenge c, back;
	const char *why = NULL;
	char *text;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(n); i++)
		n[i] = (uint8_t)(i * 7 + 1);
	memset(x, 0x11, sizeof(x));
	memset(y, 0x22, sizeof(y));
	memset(secret, 0x33, sizeof(secret));
	memcpy(wrong, secret, sizeof(wrong));
	wrong[31] ^= 1;
	uie_tpm_ek_template(&ek, n);
	n[0] ^= 1;
	uie_tpm_ek_template(&ek2, n);
	uie_tpm_ak_template(&ak, x, y);
	y[0] ^= 1;
	uie_tpm_ak_template(&ak2, x, y);
	assert_int_equal(uie_challenge_of(&ek, &ak, secret, sizeof(secret), &c), UIE_OK);
	assert_int_equal(uie_challenge_json_alloc(&c, &text, &len), UIE_OK);
	assert_null(strstr(text, "3333333333")); /* the secret itself is not kept */
	assert_int_equal(uie_challenge_parse((const uint8_t *)text, len, &back, &why), UIE_OK);
	free(text);
	assert_memory_equal(&back, &c, sizeof(c));
	assert_int_equal(uie_challenge_check(&c, &ek, &ak, secret, sizeof(secret), &why), UIE_OK);
	assert_int_equal(uie_challenge_check(&c, &ek2, &ak, secret, sizeof(secret), &why), UIE_E_KEY);
	assert_non_null(strstr(why, "another EK"));
	assert_int_equal(uie_challenge_check(&c, &ek, &ak2, secret, sizeof(secret), &why), UIE_E_SIGNATURE);
	assert_non_null(strstr(why, "another AK"));
	assert_int_equal(uie_challenge_check(&c, &ek, &ak, wrong, sizeof(wrong), &why), UIE_E_DENIED);
	assert_int_equal(uie_challenge_check(&c, &ek, &ak, secret, sizeof(secret) - 1, &why), UIE_E_DENIED);
	static const struct {
		const char *json, *words;
	} bad[] = {
		{ "[]", "not a challenge" },
		{ "{\"ek_name\":\"00\",\"ak_name\":\"00\"}", "not a challenge" },
		{ "{\"ek_name\":\"0\",\"ak_name\":\"00\",\"secret_sha256\":\"00\"}", "ek_name" },
		{ "{\"ek_name\":\"00\",\"ak_name\":\"zz\",\"secret_sha256\":\"00\"}", "ak_name" },
		{ "{\"ek_name\":\"00\",\"ak_name\":\"00\",\"secret_sha256\":\"00\"}", "secret_sha256" },
		{ "{\"ek_name\":\"00\",\"ek_name\":\"00\",\"ak_name\":\"00\",\"secret_sha256\":\"00\"}",
		  "not a challenge" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(
			uie_challenge_parse((const uint8_t *)bad[i].json, strlen(bad[i].json), &back, &why),
			UIE_E_FORMAT);
		assert_non_null(strstr(why, bad[i].words));
	}
}

static void test_builtin_bad_ek_file(void **state)
{
	char *dir = ev_mkdtemp(), *ak = ev_path(dir, "ak.pem"), *ek = ev_path(dir, "ak.pem.ek"),
	     *ek2 = ev_path(dir, "ak2.pem.ek"), spec[4200];
	struct uie_vtpm *t = NULL;
	struct stat st;
	uint8_t *pem;
	size_t n;

	(void)state;
	snprintf(spec, sizeof(spec), "builtin:%s", ak);
	assert_int_equal(uie_vtpm_open(spec, &t), UIE_OK);
	uie_vtpm_free(t);
	assert_int_equal(stat(ek, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* A P-256 key (the AK's) where the EK of ak2.pem should be. */
	assert_non_null(pem = ev_read_file(ak, &n));
	assert_int_equal(ev_write_file(ek2, pem, n), UIE_OK);
	snprintf(spec, sizeof(spec), "builtin:%s/ak2.pem", dir);
	t = (struct uie_vtpm *)1;
	assert_int_equal(uie_vtpm_open(spec, &t), UIE_E_KEY);
	assert_null(t);
	free(pem);
	free(ak);
	free(ek);
	free(ek2);
	ev_rmdir(dir);
}

/* The tests of both backends, each with the fixture that setup makes. */
#define ON(test, backend) cmocka_unit_test_prestate_setup_teardown(test, setup, teardown, &(backend))
#define ON_BOTH(backend)                                                                                  \
	ON(test_ek_ak_public, backend), ON(test_round_trip, backend), ON(test_other_ak, backend),         \
		ON(test_other_ek, backend), ON(test_flipped, backend), ON(test_tpm2_tools_blob, backend), \
		ON(test_ek_stays, backend)

TC_MAIN(NULL, NULL, ON_BOTH(on_builtin), ON(test_maker_refuses, on_builtin),
	cmocka_unit_test(test_builtin_bad_ek_file), cmocka_unit_test(test_challenge),
	cmocka_unit_test(test_vectors), ON_BOTH(on_swtpm))
