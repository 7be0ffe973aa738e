/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ELF64 parser and object digest (docs/FORMATS.md section 1).
 *
 * Every header the digest depends on is read through uie_object_read, so
 * a hostile object can only make parsing fail: every offset and size is
 * checked against the object size with overflow-checked arithmetic before
 * it is used.
 */
#include "uie/measure.h"

#include "uie/buf.h"
#include "uie/err.h"

#include "mem.h"

#define EHDR_LEN 64
#define PHDR_LEN 56
#define PHDR_BATCH 32    /* program headers read per call: bounded stack use */
#define HASH_CHUNK 16384 /* read-path chunk when the object is not mapped */
#define INTERP_MAX 4096  /* the kernel's limit on a PT_INTERP path (PATH_MAX) */

#define ET_EXEC 2
#define ET_DYN 3
#define PT_LOAD 1
#define PT_INTERP 3
#define PF_X 1

static const uint8_t elf_tag[12] = "PSUIE-ELF-v1";

/* Largest multiple of the page size not above v. */
static uint64_t page_down(uint64_t v)
{
	return v & ~(uint64_t)(UIE_MEASURE_PAGE - 1);
}

/* Smallest multiple of the page size not below v, capped at cap (no overflow). */
static uint64_t page_up_cap(uint64_t v, uint64_t cap)
{
	uint64_t up;

	if (v % UIE_MEASURE_PAGE == 0)
		up = v;
	else if (!uie_add_ok(page_down(v), UIE_MEASURE_PAGE, &up))
		return cap;
	return up < cap ? up : cap;
}

struct phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

static void phdr_decode(const uint8_t *p, struct phdr *h)
{
	struct uie_rbuf b;

	/* The caller hands over exactly PHDR_LEN bytes: the gets cannot fail. */
	uie_rbuf_init(&b, p, PHDR_LEN);
	(void)uie_rbuf_u32(&b, &h->type);
	(void)uie_rbuf_u32(&b, &h->flags);
	(void)uie_rbuf_u64(&b, &h->offset);
	(void)uie_rbuf_u64(&b, &h->vaddr);
	(void)uie_rbuf_u64(&b, &h->paddr);
	(void)uie_rbuf_u64(&b, &h->filesz);
	(void)uie_rbuf_u64(&b, &h->memsz);
	(void)uie_rbuf_u64(&b, &h->align);
}

/* Reads the ELF header: identity, type and the program-header table. */
static int ehdr_parse(const struct uie_object *obj, struct uie_elf_info *out, uint64_t *phoff,
		      uint16_t *phnum)
{
	uint8_t e[EHDR_LEN];
	struct uie_rbuf b;
	uint16_t phentsize;
	uint32_t version;
	int r;

	if (obj->size < EHDR_LEN)
		return UIE_E_TRUNCATED;
	if ((r = uie_object_read(obj, 0, e, sizeof(e))) != UIE_OK)
		return r;
	/* e_ident: magic, ELFCLASS64, ELFDATA2LSB, EV_CURRENT. */
	if (e[0] != 0x7f || e[1] != 'E' || e[2] != 'L' || e[3] != 'F' || e[4] != 2 || e[5] != 1 || e[6] != 1)
		return UIE_E_ELF;
	uie_rbuf_init(&b, e + 16, EHDR_LEN - 16);
	(void)uie_rbuf_u16(&b, &out->e_type);
	(void)uie_rbuf_u16(&b, &out->e_machine);
	(void)uie_rbuf_u32(&b, &version);
	(void)uie_rbuf_u64(&b, &out->e_entry);
	(void)uie_rbuf_u64(&b, phoff);
	(void)uie_rbuf_skip(&b, 8 + 4 + 2); /* e_shoff, e_flags, e_ehsize */
	(void)uie_rbuf_u16(&b, &phentsize);
	(void)uie_rbuf_u16(&b, phnum);
	if (version != 1 || (out->e_type != ET_EXEC && out->e_type != ET_DYN))
		return UIE_E_ELF;
	if (phentsize != PHDR_LEN)
		return UIE_E_ELF;
	if (*phnum > UIE_ELF_MAX_PHNUM)
		return UIE_E_LIMIT;
	if (*phnum == 0)
		return UIE_E_ELF;
	return UIE_OK;
}

/* Checks that PT_INTERP is a NUL-terminated path of sane length inside the file. */
static int interp_check(const struct uie_object *obj, const struct phdr *h, struct uie_elf_info *out)
{
	uint8_t buf[256];
	uint64_t pos, left;
	int r;

	if (out->has_interp || h->filesz < 2 || h->filesz > INTERP_MAX)
		return UIE_E_ELF;
	/* Every byte before the last must be non-NUL, the last must be NUL. */
	for (pos = h->offset, left = h->filesz; left;) {
		size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);

		if ((r = uie_object_read(obj, pos, buf, n)) != UIE_OK)
			return r;
		for (size_t i = 0; i < n; i++) {
			bool last = left - i == 1;

			if ((buf[i] == 0) != last)
				return UIE_E_ELF;
		}
		pos += n;
		left -= n;
	}
	out->has_interp = true;
	out->interp_off = h->offset;
	out->interp_len = h->filesz - 1;
	return UIE_OK;
}

/* Validates one PT_LOAD and records it when executable. */
static int load_check(const struct uie_object *obj, const struct phdr *h, struct uie_elf_info *out)
{
	struct uie_exec_seg *s;
	uint64_t end, vend;

	if (h->filesz > h->memsz)
		return UIE_E_ELF;
	if (h->align > 1 && (h->align & (h->align - 1)) != 0)
		return UIE_E_ELF;
	if (!uie_add_ok(h->vaddr, h->memsz, &vend))
		return UIE_E_ELF;
	if (!(h->flags & PF_X))
		return UIE_OK;
	if ((h->offset - h->vaddr) % UIE_MEASURE_PAGE != 0)
		return UIE_E_ELF;
	for (uint32_t i = 0; i < out->nexec; i++) {
		const struct uie_exec_seg *o = &out->exec[i];

		/* Empty ranges overlap nothing. */
		if (h->memsz && o->p_memsz && h->vaddr < o->p_vaddr + o->p_memsz && o->p_vaddr < vend)
			return UIE_E_ELF;
	}
	if (out->nexec >= UIE_ELF_MAX_EXEC)
		return UIE_E_LIMIT;
	end = h->offset + h->filesz; /* checked by the caller */
	s = &out->exec[out->nexec++];
	s->p_offset = h->offset;
	s->p_vaddr = h->vaddr;
	s->p_filesz = h->filesz;
	s->p_memsz = h->memsz;
	s->p_flags = h->flags;
	s->range_off = page_down(h->offset);
	s->range_len = page_up_cap(end, obj->size) - s->range_off;
	return UIE_OK;
}

static int elf_parse(const struct uie_object *obj, struct uie_elf_info *out)
{
	uint8_t tab[PHDR_BATCH * PHDR_LEN];
	uint64_t phoff, tabend, end, lo = 0, hi = 0, first_off = 0;
	bool first = true, first_exec = false;
	uint16_t phnum;
	int r;

	if ((r = ehdr_parse(obj, out, &phoff, &phnum)) != UIE_OK)
		return r;
	if (!uie_add_ok(phoff, (uint64_t)phnum * PHDR_LEN, &tabend) || tabend > obj->size)
		return UIE_E_RANGE;
	for (uint16_t base = 0; base < phnum; base += PHDR_BATCH) {
		uint16_t n = phnum - base < PHDR_BATCH ? phnum - base : PHDR_BATCH;

		if ((r = uie_object_read(obj, phoff + (uint64_t)base * PHDR_LEN, tab,
					 (size_t)n * PHDR_LEN)) != UIE_OK)
			return r;
		for (uint16_t i = 0; i < n; i++) {
			struct phdr h;

			phdr_decode(tab + (size_t)i * PHDR_LEN, &h);
			if (h.type != PT_LOAD && h.type != PT_INTERP)
				continue;
			if (!uie_add_ok(h.offset, h.filesz, &end) || end > obj->size)
				return UIE_E_RANGE;
			r = h.type == PT_LOAD ? load_check(obj, &h, out) : interp_check(obj, &h, out);
			if (r != UIE_OK)
				return r;
			if (h.type != PT_LOAD)
				continue;
			/* The loader's first mapping: from the first PT_LOAD to the image's end. */
			if (first) {
				lo = page_down(h.vaddr);
				first_off = page_down(h.offset);
				first_exec = (h.flags & PF_X) != 0;
				first = false;
			}
			if (h.vaddr + h.memsz > hi) /* no overflow: checked by load_check */
				hi = h.vaddr + h.memsz;
		}
	}
	if (first_exec) {
		out->reserve_off = first_off;
		out->reserve_len = page_up_cap(hi, UINT64_MAX) - lo;
	}
	return out->nexec ? UIE_OK : UIE_E_ELF;
}

int uie_elf_parse(const struct uie_object *obj, struct uie_elf_info *out)
{
	int r = uie_out_begin(out, sizeof(*out), obj != NULL);

	return r != UIE_OK ? r : uie_out_end(out, sizeof(*out), elf_parse(obj, out));
}

/* Feeds object bytes [off, off+len) to the hash: in place when mapped. */
static int hash_object(const struct uie_platform *pl, void *h, const struct uie_object *obj, uint64_t off,
		       uint64_t len)
{
	uint8_t buf[HASH_CHUNK];
	uint64_t end;
	int r;

	if (!uie_add_ok(off, len, &end) || end > obj->size)
		return UIE_E_RANGE;
	if (obj->map) {
		/* One update per bounded slice keeps size_t conversions exact. */
		while (len) {
			size_t n = len > ((size_t)1 << 30) ? ((size_t)1 << 30) : (size_t)len;

			if ((r = pl->hash.update(pl->ctx, h, obj->map + off, n)) != UIE_OK)
				return r;
			off += n;
			len -= n;
		}
		return UIE_OK;
	}
	while (len) {
		size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);

		if ((r = uie_object_read(obj, off, buf, n)) != UIE_OK ||
		    (r = pl->hash.update(pl->ctx, h, buf, n)) != UIE_OK)
			return r;
		off += n;
		len -= n;
	}
	return UIE_OK;
}

/* Ends the hash: into out when r is UIE_OK, aborted otherwise. */
static int finish(const struct uie_platform *pl, void *h, int r, uint16_t alg, struct uie_digest *out)
{
	if (r != UIE_OK) {
		pl->hash.end(pl->ctx, h, NULL);
		return r;
	}
	if ((r = pl->hash.end(pl->ctx, h, out->bytes)) != UIE_OK) {
		uie_memset(out, 0, sizeof(*out));
		return r;
	}
	out->alg = alg;
	out->len = (uint8_t)uie_hash_len(alg);
	return UIE_OK;
}

/* Hashes the header (tag, off, len) and then the object's bytes [off, off + len). */
static int hash_range(const struct uie_platform *pl, void *h, const struct uie_object *obj,
		      const uint8_t *tag, size_t tag_len, uint64_t off, uint64_t len)
{
	uint8_t hdr[32];
	struct uie_wbuf w;
	int r;

	uie_wbuf_init(&w, hdr, sizeof(hdr));
	uie_wbuf_bytes(&w, tag, tag_len);
	uie_wbuf_u64(&w, off);
	uie_wbuf_u64(&w, len);
	if (w.err != UIE_OK)
		return w.err;
	if ((r = pl->hash.update(pl->ctx, h, hdr, w.len)) != UIE_OK)
		return r;
	return hash_object(pl, h, obj, off, len);
}

/*
 * The file bytes the loader's first mapping can make executable when they
 * are not all inside the executable ranges (FORMATS.md 1.3): [reserve_off,
 * min(file_size, reserve_off + reserve_len)).  False when there are none
 * (first PT_LOAD not executable, empty, or already covered).
 */
static bool reserve_range(const struct uie_elf_info *info, uint64_t size, uint64_t *off, uint64_t *len)
{
	uint64_t end;

	if (!info->reserve_len || info->reserve_off >= size)
		return false;
	if (!uie_add_ok(info->reserve_off, info->reserve_len, &end) || end > size)
		end = size;
	*off = info->reserve_off;
	*len = end - info->reserve_off;
	return !uie_elf_covers(info, *off, *len);
}

/* A measurement's start: *out zeroed; UIE_E_INVAL without its inputs, UIE_E_ALG for an unknown alg. */
static int digest_begin(struct uie_digest *out, bool inputs, uint16_t alg)
{
	int r = uie_out_begin(out, sizeof(*out), inputs);

	return r != UIE_OK ? r : uie_hash_len(alg) ? UIE_OK : UIE_E_ALG;
}

int uie_elf_digest(const struct uie_platform *pl, const struct uie_object *obj, uint16_t alg,
		   const struct uie_elf_info *info, struct uie_digest *out)
{
	uint8_t hdr[44];
	struct uie_wbuf w;
	uint64_t roff, rlen;
	void *h;
	int r;

	if ((r = digest_begin(out, pl && obj && info && info->nexec > 0 && info->nexec <= UIE_ELF_MAX_EXEC,
			      alg)) != UIE_OK)
		return r;
	if ((r = pl->hash.begin(pl->ctx, alg, &h)) != UIE_OK)
		return r;
	uie_wbuf_init(&w, hdr, sizeof(hdr));
	uie_wbuf_bytes(&w, elf_tag, sizeof(elf_tag));
	uie_wbuf_u16(&w, info->e_type);
	uie_wbuf_u16(&w, info->e_machine);
	uie_wbuf_u64(&w, info->e_entry);
	uie_wbuf_u32(&w, info->nexec);
	r = pl->hash.update(pl->ctx, h, hdr, w.len);
	for (uint32_t i = 0; r == UIE_OK && i < info->nexec; i++) {
		const struct uie_exec_seg *s = &info->exec[i];

		uie_wbuf_init(&w, hdr, sizeof(hdr));
		uie_wbuf_u64(&w, s->p_vaddr);
		uie_wbuf_u64(&w, s->p_memsz);
		uie_wbuf_u64(&w, s->p_filesz);
		uie_wbuf_u32(&w, s->p_flags);
		uie_wbuf_u64(&w, s->range_off);
		uie_wbuf_u64(&w, s->range_len);
		if ((r = pl->hash.update(pl->ctx, h, hdr, w.len)) == UIE_OK)
			r = hash_object(pl, h, obj, s->range_off, s->range_len);
	}
	if (r == UIE_OK && reserve_range(info, obj->size, &roff, &rlen))
		r = hash_range(pl, h, obj, NULL, 0, roff, rlen);
	return finish(pl, h, r, alg, out);
}

int uie_elf_measure(const struct uie_platform *pl, const struct uie_object *obj, uint16_t alg,
		    struct uie_elf_info *info, struct uie_digest *out)
{
	struct uie_elf_info local;
	/* cppcheck-suppress uninitvar ; only its address is taken here, the parse fills it */
	struct uie_elf_info *pi = info ? info : &local;
	int r;

	if ((r = digest_begin(out, pl != NULL, alg)) != UIE_OK || (r = uie_elf_parse(obj, pi)) != UIE_OK)
		return r;
	if ((r = uie_elf_digest(pl, obj, alg, pi, out)) != UIE_OK && info)
		uie_memset(info, 0, sizeof(*info));
	return r;
}

int uie_range_measure(const struct uie_platform *pl, const struct uie_object *obj, uint16_t alg, uint64_t off,
		      uint64_t len, struct uie_digest *out)
{
	static const uint8_t tag[12] = "PSUIE-RNG-v1";
	void *h;
	int r;

	if ((r = digest_begin(out, pl && obj, alg)) != UIE_OK)
		return r;
	if (off > obj->size)
		return UIE_E_RANGE;
	if (len > obj->size - off)
		len = obj->size - off;
	if ((r = pl->hash.begin(pl->ctx, alg, &h)) != UIE_OK)
		return r;
	r = hash_range(pl, h, obj, tag, sizeof(tag), off, len);
	return finish(pl, h, r, alg, out);
}

bool uie_elf_covers(const struct uie_elf_info *info, uint64_t off, uint64_t len)
{
	uint64_t end, pos;
	bool progressed = true;

	if (!info || len == 0 || !uie_add_ok(off, len, &end))
		return false;
	/*
	 * The executable ranges may touch or overlap in the file (two
	 * segments sharing a page), so walk the union from off: repeatedly
	 * extend pos through any range that contains it.
	 */
	pos = off;
	while (pos < end && progressed) {
		progressed = false;
		for (uint32_t i = 0; i < info->nexec && i < UIE_ELF_MAX_EXEC; i++) {
			const struct uie_exec_seg *s = &info->exec[i];
			uint64_t rend = page_up_cap(s->range_off + s->range_len, UINT64_MAX);

			if (s->range_off <= pos && pos < rend) {
				pos = rend;
				progressed = true;
			}
		}
	}
	return pos >= end;
}

bool uie_elf_is_reservation(const struct uie_elf_info *info, uint64_t off, uint64_t len)
{
	return info && info->reserve_len && len && off == info->reserve_off && len <= info->reserve_len;
}
