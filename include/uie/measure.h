/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Measurement module: the object digest of docs/FORMATS.md section 1.
 * ELF64 little-endian objects are parsed and their executable PT_LOAD
 * segments hashed (page-expanded, with the header fields that bind their
 * layout); any other executable file range is hashed as a raw range.
 * Freestanding; no allocation.
 */
#ifndef UIE_MEASURE_H
#define UIE_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "uie/platform.h"
#include "uie/types.h"

#define UIE_ELF_MAX_PHNUM 256  /* more program headers than this: UIE_E_LIMIT */
#define UIE_ELF_MAX_EXEC 16    /* more executable PT_LOADs than this: UIE_E_LIMIT */
#define UIE_MEASURE_PAGE 4096u /* the page: what mappings and segments become executable by */

struct uie_exec_seg {
	uint64_t p_offset, p_vaddr, p_filesz, p_memsz;
	uint32_t p_flags;
	/* Page-expanded file range that becomes executable: what is hashed. */
	uint64_t range_off, range_len;
};

struct uie_elf_info {
	uint16_t e_type, e_machine;
	uint64_t e_entry;
	uint32_t nexec;
	struct uie_exec_seg exec[UIE_ELF_MAX_EXEC];
	bool has_interp;
	uint64_t interp_off, interp_len; /* PT_INTERP path in the file, without its NUL */
	/*
	 * The loader's first mapping when the first PT_LOAD (table order) is
	 * executable: file offset of that segment's page and the image's
	 * page-expanded extent from it (up to the end of the last PT_LOAD in
	 * memory); reserve_len 0 otherwise.  The object digest covers the
	 * file bytes of this range (FORMATS.md 1.3).
	 */
	uint64_t reserve_off, reserve_len;
};

/* Parses and validates an ELF64 object; clears *out first. */
int uie_elf_parse(const struct uie_object *obj, struct uie_elf_info *out);

/*
 * Object digest of an ELF object (scope UIE_SCOPE_ELF): uie_elf_parse then
 * uie_elf_digest.  info (may be NULL) receives the parse result.
 */
int uie_elf_measure(const struct uie_platform *pl, const struct uie_object *obj, uint16_t alg,
		    struct uie_elf_info *info, struct uie_digest *out);

/* Object digest from an info that uie_elf_parse filled for the same obj. */
int uie_elf_digest(const struct uie_platform *pl, const struct uie_object *obj, uint16_t alg,
		   const struct uie_elf_info *info, struct uie_digest *out);

/*
 * Digest of the raw file range [off, off+len) (scope UIE_SCOPE_RANGE); len
 * is clamped at the end of the object, off beyond it is UIE_E_RANGE.
 */
int uie_range_measure(const struct uie_platform *pl, const struct uie_object *obj, uint16_t alg, uint64_t off,
		      uint64_t len, struct uie_digest *out);

/*
 * True when the non-empty [off, off+len) lies inside the union of the
 * executable ranges, each extended to the end of its last page.
 */
bool uie_elf_covers(const struct uie_elf_info *info, uint64_t off, uint64_t len);

/*
 * True when the non-empty [off, off+len) is the loader's first mapping of
 * the object (ld.so maps the whole image with the first segment's
 * protection, then maps the other segments over it): off is reserve_off
 * and len at most reserve_len.
 */
bool uie_elf_is_reservation(const struct uie_elf_info *info, uint64_t off, uint64_t len);

#endif
