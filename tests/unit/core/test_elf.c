/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Object and range digests (docs/FORMATS.md section 1): vectors,
 * real system binaries against an independent recomputation from
 * `readelf -lW`, and every class of hostile ELF input.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "helpers.h"
#include "host_platform.h"
#include "uie/err.h"
#include "uie/measure.h"
#include "tcommon.h"

static size_t tiny(uint8_t *img)
{
	return tc_hex(th_tiny_elf_hex, img, TH_TINY_ELF_LEN);
}

static void check_digest(const struct uie_digest *d, uint16_t alg, const char *hex)
{
	uint8_t want[UIE_DIGEST_MAX];
	size_t n = tc_hex(hex, want, sizeof(want));

	assert_int_equal(d->alg, alg);
	assert_int_equal(d->len, n);
	assert_memory_equal(d->bytes, want, n);
}

/*
 * img measures to the vector's digests (SHA-256 and SHA-384), read through a
 * mapping and through read calls alike; *info is what the ELF parse found.
 */
static void check_vector(const uint8_t *img, size_t len, const char *sha256, const char *sha384,
			 struct uie_elf_info *info)
{
	struct uie_digest d;
	struct th_obj o;

	for (int map = 0; map < 2; map++) {
		th_obj_init(&o, img, len, map);
		assert_int_equal(uie_elf_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, info, &d), UIE_OK);
		check_digest(&d, UIE_HASH_SHA256, sha256);
		assert_int_equal(uie_elf_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA384, NULL, &d), UIE_OK);
		check_digest(&d, UIE_HASH_SHA384, sha384);
	}
}

/* Vector V1, through the mapping and through the read callback. */
static void test_vector_tiny_elf(void **state)
{
	uint8_t img[TH_TINY_ELF_LEN];
	struct uie_elf_info info;
	struct uie_digest d;
	struct th_obj o;

	(void)state;
	tiny(img);
	check_vector(img, sizeof(img), "3a5f3a9a3ae4180533459e66a9a10e53a6059b9e1ba5c1d37dbf8698945c1de1",
		     "9af0aa9dfab84478e52e0716d31f99c495528a29b6c10560c3f1a19d59d99427"
		     "f514d8480f39ea1f7f5a9d4bb69c9565",
		     &info);
	assert_int_equal(info.e_type, 2);
	assert_int_equal(info.e_machine, 62);
	assert_int_equal(info.e_entry, 0x4000B0);
	assert_int_equal(info.nexec, 1);
	assert_int_equal(info.exec[0].range_off, 0);
	assert_int_equal(info.exec[0].range_len, 208);
	assert_true(info.has_interp);
	assert_int_equal(info.interp_len, 10);
	assert_memory_equal(img + info.interp_off, "/lib/ld.so", 10);
	/* Unknown algorithm. */
	th_obj_init(&o, img, sizeof(img), true);
	assert_int_equal(uie_elf_measure(&th_hp.pl, &o.obj, 0x0004, NULL, &d), UIE_E_ALG);
}

/* Vector V1N: code from offset 0, so the digest covers the loader's first mapping. */
static void test_vector_nosep(void **state)
{
	static uint8_t img[0x1010];
	struct uie_elf_info info;
	struct uie_digest d;
	struct th_obj o;

	(void)state;
	memset(img, 0, sizeof(img));
	tc_hex("7f454c4602010100000000000000000003003e0001000000b000000000000000"
	       "4000000000000000000000000000000000000000400038000200000000000000"
	       "0100000005000000000000000000000000000000000000000000000000000000"
	       "c000000000000000c00000000000000000100000000000000100000006000000"
	       "0010000000000000002000000000000000200000000000001000000000000000"
	       "20000000000000000010000000000000b83c00000031ff0f0590909090909090",
	       img, 0xc0);
	for (int i = 0; i < 0x10; i++)
		img[0x1000 + i] = (uint8_t)i;
	check_vector(img, sizeof(img), "169c4f411226c45dc50f9338a88d02a1bd0d7cd51678f916ab74fc0c753fd8dd",
		     "ab3f44f1bea6f4da38d07af7042bfc180e0b27f94dca16b2e49d2c5e374baa88"
		     "a2ea17e4483f649eba371745654bd858",
		     &info);
	assert_int_equal(info.exec[0].range_len, 0x1000);
	assert_int_equal(info.reserve_off, 0);
	assert_int_equal(info.reserve_len, 0x3000);
	/* A copy with other data-segment bytes is another object. */
	img[0x1008] = 0xcc;
	th_obj_init(&o, img, sizeof(img), true);
	assert_int_equal(uie_elf_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, NULL, &d), UIE_OK);
	check_digest(&d, UIE_HASH_SHA256, "6d81a9fc64e40f33d15407372b16c1cb264702826f4949493aa554af319945ff");
}

/* Vector V2 and the range rules. */
static void test_vector_range(void **state)
{
	uint8_t img[TH_TINY_ELF_LEN];
	struct uie_digest d;
	struct th_obj o;

	(void)state;
	tiny(img);
	for (int map = 0; map < 2; map++) {
		th_obj_init(&o, img, sizeof(img), map);
		assert_int_equal(uie_range_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, 0x40, 0x1000, &d),
				 UIE_OK);
		check_digest(&d, UIE_HASH_SHA256,
			     "daf8caaeebbf45642740df3db53eea26d3ee039c67b69d28cd8a1677e90bf3a9");
		assert_int_equal(uie_range_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, 208, 5, &d), UIE_OK);
		check_digest(&d, UIE_HASH_SHA256,
			     "30636709cbef3d9f820498c20636bdace454c901b7e31d6695437e98dcdf45b4");
		assert_int_equal(uie_range_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, 209, 1, &d),
				 UIE_E_RANGE);
		assert_int_equal(d.alg, 0);
		assert_int_equal(uie_range_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, 8, UINT64_MAX, &d),
				 UIE_OK);
	}
}

/* ---- independent recomputation for real binaries ---- */

struct ref_seg {
	unsigned long off, vaddr, filesz, memsz;
	unsigned flags;
};

/* Executable LOAD lines of `readelf -lW path`. */
static int readelf_exec_segs(const char *path, struct ref_seg *segs, int max)
{
	char cmd[512], line[512];
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		struct ref_seg s = { 0 };
		char *fl, *align;
		int used = 0;

		if (sscanf(line, " LOAD %lx %lx %*x %lx %lx %n", &s.off, &s.vaddr, &s.filesz, &s.memsz,
			   &used) != 4 ||
		    used == 0)
			continue;
		/* The rest is "<flags> 0x<align>", flags such as "R E" or "RWE". */
		fl = line + used;
		align = strstr(fl, "0x");
		assert_non_null(align);
		for (char *c = fl; c < align; c++)
			s.flags |= *c == 'R' ? 4 : *c == 'W' ? 2 : *c == 'E' ? 1 : 0;
		if (!(s.flags & 1))
			continue;
		assert_true(n < max);
		segs[n++] = s;
	}
	assert_int_equal(pclose(p), 0);
	return n;
}

static void put(EVP_MD_CTX *m, const void *p, size_t n)
{
	assert_int_equal(EVP_DigestUpdate(m, p, n), 1);
}

static void put_le(EVP_MD_CTX *m, uint64_t v, int bytes)
{
	uint8_t b[8];

	for (int i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(m, b, (size_t)bytes);
}

/* FORMATS.md section 1 written out with stdio and EVP, sharing nothing with lib/core. */
static void reference_digest(const char *path, const EVP_MD *md, uint8_t *out, int *nexec)
{
	struct ref_seg segs[32];
	uint8_t ehdr[64];
	unsigned int olen;
	long fsize;
	EVP_MD_CTX *m = EVP_MD_CTX_new();
	FILE *f = fopen(path, "rb");
	int n = readelf_exec_segs(path, segs, 32);

	assert_non_null(f);
	assert_non_null(m);
	assert_int_equal(fread(ehdr, 1, 64, f), 64);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	fsize = ftell(f);
	assert_int_equal(EVP_DigestInit_ex(m, md, NULL), 1);
	put(m, "PSUIE-ELF-v1", 12);
	put(m, ehdr + 16, 2); /* e_type */
	put(m, ehdr + 18, 2); /* e_machine */
	put(m, ehdr + 24, 8); /* e_entry */
	put_le(m, (uint64_t)n, 4);
	for (int i = 0; i < n; i++) {
		unsigned long roff = segs[i].off / 4096 * 4096;
		unsigned long rend = (segs[i].off + segs[i].filesz + 4095) / 4096 * 4096;
		unsigned long rlen;
		uint8_t *buf;

		if (rend > (unsigned long)fsize)
			rend = (unsigned long)fsize;
		rlen = rend - roff;
		put_le(m, segs[i].vaddr, 8);
		put_le(m, segs[i].memsz, 8);
		put_le(m, segs[i].filesz, 8);
		put_le(m, segs[i].flags, 4);
		put_le(m, roff, 8);
		put_le(m, rlen, 8);
		buf = malloc(rlen ? rlen : 1);
		assert_non_null(buf);
		assert_int_equal(fseek(f, (long)roff, SEEK_SET), 0);
		assert_int_equal(fread(buf, 1, rlen, f), rlen);
		put(m, buf, rlen);
		free(buf);
	}
	assert_int_equal(EVP_DigestFinal_ex(m, out, &olen), 1);
	EVP_MD_CTX_free(m);
	fclose(f);
	*nexec = n;
}

static void test_real_binaries(void **state)
{
	static const char *const paths[] = {
		"/bin/ls",
		"/usr/bin/bash",
		"/lib/x86_64-linux-gnu/libc.so.6",
		"/lib64/ld-linux-x86-64.so.2",
		"/usr/bin/openssl",
	};
	int checked = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		uint8_t want[48];
		int nexec;
		int fd = open(paths[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		for (int alg = 0; alg < 2; alg++) {
			uint16_t a = alg ? UIE_HASH_SHA384 : UIE_HASH_SHA256;

			reference_digest(paths[i], alg ? EVP_sha384() : EVP_sha256(), want, &nexec);
			assert_true(nexec > 0);
			/* Through pread, a mapping, and pread behind a first page read once (the interceptor's). */
			for (int mode = 0; mode < 3; mode++) {
				struct uie_host_object ho;
				struct uie_elf_info info;
				struct uie_digest d;
				uint8_t head[4096];
				struct stat st;

				if (mode < 2) {
					assert_int_equal(uie_host_object_open(&ho, fd, mode == 1, NULL),
							 UIE_OK);
				} else {
					assert_int_equal(fstat(fd, &st), 0);
					assert_int_equal(pread(fd, head, sizeof(head), 0),
							 (ssize_t)sizeof(head));
					uie_host_object_over(&ho, fd, &st, head, sizeof(head));
				}
				assert_int_equal(uie_elf_measure(&th_hp.pl, &ho.obj, a, &info, &d), UIE_OK);
				assert_int_equal(info.nexec, nexec);
				assert_int_equal(d.len, uie_hash_len(a));
				if (memcmp(d.bytes, want, d.len) != 0)
					fail_msg("%s: digest differs from the readelf recomputation",
						 paths[i]);
				uie_host_object_close(&ho);
			}
		}
		close(fd);
		checked++;
	}
	/* The four Debian system objects must all be there. */
	assert_true(checked >= 4);
}

/* Reads within the head take no system call (no descriptor at all here); beyond it they read the file. */
static void test_head_object(void **state)
{
	static const uint8_t head[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct stat st = { .st_size = 100 };
	struct uie_host_object ho;
	uint8_t out[8];

	(void)state;
	uie_host_object_over(&ho, -1, &st, head, sizeof(head));
	assert_int_equal(ho.obj.size, 100);
	assert_int_equal(uie_object_read(&ho.obj, 2, out, 6), UIE_OK);
	assert_memory_equal(out, head + 2, 6);
	assert_int_equal(uie_object_read(&ho.obj, 8, out, 0), UIE_OK);
	assert_int_equal(uie_object_read(&ho.obj, 4, out, 5), UIE_E_IO); /* crosses the head's end */
	assert_int_equal(uie_object_read(&ho.obj, 9, out, 1), UIE_E_IO);
	uie_host_object_close(&ho);
}

/* ---- hostile inputs ---- */

struct ph {
	uint32_t type, flags;
	uint64_t off, vaddr, filesz, memsz, align;
};

/* Writes an ELF64 header and program headers at 64 into img (zeroed, len bytes). */
static void build(uint8_t *img, size_t len, const struct ph *ph, uint16_t n)
{
	memset(img, 0, len);
	memcpy(img,
	       "\x7f"
	       "ELF\x02\x01\x01",
	       7);
	img[16] = 3;  /* ET_DYN */
	img[18] = 62; /* EM_X86_64 */
	img[20] = 1;  /* e_version */
	img[32] = 64; /* e_phoff */
	img[54] = 56; /* e_phentsize */
	img[56] = (uint8_t)n;
	img[57] = (uint8_t)(n >> 8);
	for (uint16_t i = 0; i < n && 64 + 56u * (i + 1u) <= len; i++) {
		uint8_t *p = img + 64 + 56 * i;
		uint64_t f[6] = {
			ph[i].off, ph[i].vaddr, ph[i].vaddr, ph[i].filesz, ph[i].memsz, ph[i].align
		};

		memcpy(p, &ph[i].type, 4);
		memcpy(p + 4, &ph[i].flags, 4);
		memcpy(p + 8, f, sizeof(f)); /* the test host is little-endian */
	}
}

static void expect_reject(const uint8_t *img, size_t len, int err, const char *what)
{
	struct uie_elf_info info;
	struct uie_digest d;
	struct th_obj o;
	static const uint8_t zero[sizeof(info)];

	for (int map = 0; map < 2; map++) {
		th_obj_init(&o, img, len, map);
		memset(&info, 0xa5, sizeof(info));
		memset(&d, 0xa5, sizeof(d));
		int r = uie_elf_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, &info, &d);

		if (r != err)
			fail_msg("%s: got %d (%s), want %d", what, r, uie_err_str(r), err);
		assert_memory_equal(&info, zero, sizeof(info));
		assert_int_equal(d.alg, 0);
		assert_int_equal(d.len, 0);
	}
}

static void test_hostile_header(void **state)
{
	uint8_t img[TH_TINY_ELF_LEN], bad[TH_TINY_ELF_LEN];

	(void)state;
	tiny(img);
	/* Truncations: inside the header, the phdr table, the interp and the code. */
	expect_reject(img, 0, UIE_E_TRUNCATED, "empty");
	expect_reject(img, 63, UIE_E_TRUNCATED, "short header");
	expect_reject(img, 100, UIE_E_RANGE, "cut phdr table");
	expect_reject(img, 180, UIE_E_RANGE, "cut code");
	expect_reject(img, 200, UIE_E_RANGE, "cut interp");
#define MUT(off, val, err, what)                            \
	do {                                                \
		memcpy(bad, img, sizeof(img));              \
		bad[off] = (val);                           \
		expect_reject(bad, sizeof(bad), err, what); \
	} while (0)
	MUT(0, 0x7e, UIE_E_ELF, "bad magic");
	MUT(4, 1, UIE_E_ELF, "ELFCLASS32");
	MUT(5, 2, UIE_E_ELF, "big-endian");
	MUT(6, 0, UIE_E_ELF, "EI_VERSION");
	MUT(16, 1, UIE_E_ELF, "ET_REL");
	MUT(16, 4, UIE_E_ELF, "ET_CORE");
	MUT(20, 2, UIE_E_ELF, "e_version");
	MUT(54, 32, UIE_E_ELF, "phentsize 32");
	MUT(56, 0, UIE_E_ELF, "phnum 0");
	memcpy(bad, img, sizeof(img));
	bad[56] = 0xff;
	bad[57] = 0xff; /* PN_XNUM-sized counts */
	expect_reject(bad, sizeof(bad), UIE_E_LIMIT, "phnum 65535");
	bad[56] = (UIE_ELF_MAX_PHNUM + 1) & 0xff;
	bad[57] = (UIE_ELF_MAX_PHNUM + 1) >> 8;
	expect_reject(bad, sizeof(bad), UIE_E_LIMIT, "phnum limit+1");
	memcpy(bad, img, sizeof(img));
	memset(bad + 32, 0xff, 8); /* e_phoff near 2^64: overflow */
	expect_reject(bad, sizeof(bad), UIE_E_RANGE, "phoff overflow");
	/* PT_INTERP without NUL, with an inner NUL, empty. */
	MUT(0xca, 'x', UIE_E_ELF, "interp not terminated");
	MUT(0xc4, 0, UIE_E_ELF, "interp inner NUL");
	MUT(0x98, 1, UIE_E_ELF, "interp filesz 1");
	/* Exec segment flags cleared: no executable segment left. */
	MUT(0x44, 4, UIE_E_ELF, "no exec segment");
#undef MUT
}

static void test_hostile_segments(void **state)
{
	static uint8_t img[64 * 1024];
	struct ph ph[UIE_ELF_MAX_EXEC + 2];
	struct ph ok = { 1, 5, 0x1000, 0x1000, 0x100, 0x100, 0x1000 };

	(void)state;
	ph[0] = ok;
	build(img, 0x2000, ph, 1);
	{
		struct uie_digest d;
		struct th_obj o;

		th_obj_init(&o, img, 0x2000, true);
		assert_int_equal(uie_elf_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, NULL, &d), UIE_OK);
	}
#define SEG(field, val, err, what)                     \
	do {                                           \
		ph[0] = ok;                            \
		ph[0].field = (val);                   \
		build(img, 0x2000, ph, 1);             \
		expect_reject(img, 0x2000, err, what); \
	} while (0)
	SEG(off, 0x2000, UIE_E_RANGE, "segment starts at EOF with bytes");
	SEG(filesz, 0x1001, UIE_E_RANGE, "segment ends past EOF");
	SEG(off, UINT64_MAX - 0x10, UIE_E_RANGE, "offset + filesz overflows");
	SEG(filesz, 0x200, UIE_E_ELF, "filesz > memsz");
	SEG(align, 3, UIE_E_ELF, "align not a power of two");
	SEG(vaddr, 0x1010, UIE_E_ELF, "offset and vaddr not congruent");
	ph[0] = ok;
	ph[0].vaddr = UINT64_MAX & ~(uint64_t)0xfff; /* + memsz 0x1000 wraps to 0 */
	ph[0].memsz = 0x1000;
	build(img, 0x2000, ph, 1);
	expect_reject(img, 0x2000, UIE_E_ELF, "vaddr + memsz overflows");
	SEG(memsz, UINT64_MAX, UIE_E_ELF, "absurd memsz");
	/* Non-executable PT_LOADs are validated too. */
	SEG(flags, 4, UIE_E_ELF, "only a data segment");
	ph[0] = ok;
	ph[1] = ok;
	ph[1].flags = 6;
	ph[1].filesz = 0x5000;
	build(img, 0x2000, ph, 2);
	expect_reject(img, 0x2000, UIE_E_RANGE, "data segment past EOF");
#undef SEG
	/* Two executable segments overlapping in memory. */
	ph[0] = ok;
	ph[1] = ok;
	ph[1].vaddr = 0x10f0; /* overlaps [0x1000, 0x1100) */
	ph[1].off = 0x10f0;
	ph[1].filesz = ph[1].memsz = 0x10;
	build(img, 0x2000, ph, 2);
	expect_reject(img, 0x2000, UIE_E_ELF, "overlapping exec segments");
	/* Too many executable segments. */
	for (int i = 0; i < UIE_ELF_MAX_EXEC + 1; i++) {
		ph[i] = ok;
		ph[i].vaddr = ph[i].off = 0x1000 + 0x100 * (uint64_t)i;
		ph[i].filesz = ph[i].memsz = 0x10;
	}
	build(img, 0x3000, ph, UIE_ELF_MAX_EXEC + 1);
	expect_reject(img, 0x3000, UIE_E_LIMIT, "too many exec segments");
	build(img, 0x3000, ph, UIE_ELF_MAX_EXEC);
	{
		struct uie_elf_info info;
		struct th_obj o;

		th_obj_init(&o, img, 0x3000, false);
		assert_int_equal(uie_elf_parse(&o.obj, &info), UIE_OK);
		assert_int_equal(info.nexec, UIE_ELF_MAX_EXEC);
	}
	/* Two PT_INTERP entries. */
	ph[0] = ok;
	ph[1] = (struct ph){ 3, 4, 0x1000, 0x1000, 4, 4, 1 };
	ph[2] = ph[1];
	build(img, 0x2000, ph, 3);
	memcpy(img + 0x1000, "/ab", 4);
	expect_reject(img, 0x2000, UIE_E_ELF, "two PT_INTERP");
}

/* Read errors surface as errors and leave nothing behind. */
static void test_read_failure(void **state)
{
	uint8_t img[TH_TINY_ELF_LEN];
	struct uie_digest d;
	struct th_obj o;

	(void)state;
	tiny(img);
	th_obj_init(&o, img, sizeof(img), false);
	o.fail_read = 1;
	assert_int_equal(uie_elf_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, NULL, &d), UIE_E_IO);
	assert_int_equal(uie_range_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, 0, 10, &d), UIE_E_IO);
	assert_int_equal(d.len, 0);
}

static void test_covers(void **state)
{
	static uint8_t img[0x6000];
	struct uie_elf_info info;
	struct th_obj o;
	struct ph ph[2] = {
		{ 1, 5, 0x1010, 0x401010, 0x1000, 0x1000, 0x1000 }, /* pages 1-2 */
		{ 1, 5, 0x3000, 0x403000, 0x800, 0x800, 0x1000 },   /* page 3 */
	};

	(void)state;
	build(img, sizeof(img), ph, 2);
	th_obj_init(&o, img, sizeof(img), true);
	assert_int_equal(uie_elf_parse(&o.obj, &info), UIE_OK);
	assert_int_equal(info.exec[0].range_off, 0x1000);
	assert_int_equal(info.exec[0].range_len, 0x2000);
	assert_int_equal(info.exec[1].range_len, 0x1000);
	assert_true(uie_elf_covers(&info, 0x1000, 0x3000)); /* union of both */
	assert_true(uie_elf_covers(&info, 0x3800, 0x800));  /* last page, to its end */
	assert_false(uie_elf_covers(&info, 0x1000, 0x3001));
	assert_false(uie_elf_covers(&info, 0xfff, 2));
	assert_false(uie_elf_covers(&info, 0x1000, 0));
	assert_false(uie_elf_covers(&info, 0x2000, UINT64_MAX));
	assert_false(uie_elf_covers(NULL, 0x1000, 1));
	/* The tiny ELF's code page extends past the 208-byte file to the page end. */
	{
		uint8_t t[TH_TINY_ELF_LEN];

		tiny(t);
		th_obj_init(&o, t, sizeof(t), true);
		assert_int_equal(uie_elf_parse(&o.obj, &info), UIE_OK);
		assert_true(uie_elf_covers(&info, 0, 4096));
		assert_false(uie_elf_covers(&info, 0, 4097));
	}
}

/* The loader's first mapping of an object whose first PT_LOAD is executable. */
static void test_reservation(void **state)
{
	static uint8_t img[0x4000];
	struct uie_elf_info info;
	struct uie_digest d0, d1;
	struct th_obj o;
	struct ph code0[2] = {
		{ 1, 5, 0, 0, 0x1800, 0x1800, 0x1000 },          /* R+E from offset 0 */
		{ 1, 6, 0x2c30, 0x3c30, 0x400, 0x1000, 0x1000 }, /* RW, ends at 0x4c30 */
	};
	struct ph ro0[2] = {
		{ 1, 4, 0, 0, 0x1000, 0x1000, 0x1000 },         /* R from offset 0 */
		{ 1, 5, 0x1000, 0x1000, 0x800, 0x800, 0x1000 }, /* R+E */
	};

	(void)state;
	build(img, sizeof(img), code0, 2);
	th_obj_init(&o, img, sizeof(img), true);
	assert_int_equal(uie_elf_parse(&o.obj, &info), UIE_OK);
	assert_false(uie_elf_covers(&info, 0, 0x5000)); /* the whole image is not code */
	assert_true(uie_elf_is_reservation(&info, 0, 0x5000));
	assert_true(uie_elf_is_reservation(&info, 0, 0x4c30)); /* length as ld.so passes it */
	assert_false(uie_elf_is_reservation(&info, 0, 0x5001));
	assert_false(uie_elf_is_reservation(&info, 0x1000, 0x1000)); /* not at the start */
	assert_false(uie_elf_is_reservation(&info, 0, 0));
	assert_false(uie_elf_is_reservation(NULL, 0, 0x1000));
	/*
	 * The mapping makes the data segment's file bytes executable: a crafted
	 * copy with code there must not get the original's digest.
	 */
	assert_int_equal(uie_elf_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, NULL, &d0), UIE_OK);
	img[0x2c40] = 0xcc;
	assert_int_equal(uie_elf_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, NULL, &d1), UIE_OK);
	assert_memory_not_equal(d0.bytes, d1.bytes, d0.len);
	/* and so must bytes past the image's last page in memory that it maps anyway */
	img[0x2c40] = 0;
	img[0x3f00] = 0xcc; /* file page 3: mapped by [0, 0x5000) */
	assert_int_equal(uie_elf_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, NULL, &d1), UIE_OK);
	assert_memory_not_equal(d0.bytes, d1.bytes, d0.len);
	/* First segment not executable (ld -z separate-code): no executable first mapping. */
	build(img, sizeof(img), ro0, 2);
	th_obj_init(&o, img, sizeof(img), true);
	assert_int_equal(uie_elf_parse(&o.obj, &info), UIE_OK);
	assert_false(uie_elf_is_reservation(&info, 0, 0x2000));
	/* and its digest stays that of its code alone: other bytes do not change it */
	assert_int_equal(uie_elf_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, NULL, &d0), UIE_OK);
	img[0x2c40] = 0xcc;
	assert_int_equal(uie_elf_measure(&th_hp.pl, &o.obj, UIE_HASH_SHA256, NULL, &d1), UIE_OK);
	assert_memory_equal(d0.bytes, d1.bytes, d0.len);
}

TC_MAIN(th_platform_setup, th_platform_teardown, cmocka_unit_test(test_vector_tiny_elf),
	cmocka_unit_test(test_vector_nosep), cmocka_unit_test(test_vector_range),
	cmocka_unit_test(test_real_binaries), cmocka_unit_test(test_hostile_header),
	cmocka_unit_test(test_hostile_segments), cmocka_unit_test(test_read_failure),
	cmocka_unit_test(test_covers), cmocka_unit_test(test_reservation), cmocka_unit_test(test_head_object))
