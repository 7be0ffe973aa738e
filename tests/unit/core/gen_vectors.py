#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Independent implementation of docs/FORMATS.md sections 1-3.

Prints the test vectors that docs/FORMATS.md lists and the cmocka tests in
this folder check.  It shares no code with lib/core: if both agree, the
format is implemented as written.  Run: python3 gen_vectors.py
"""
import hashlib
import struct

PAGE = 4096


def le(fmt, *v):
    return struct.pack("<" + fmt, *v)


def tiny_elf():
    """ELF64 ET_EXEC for x86-64: one R+X PT_LOAD, one PT_INTERP, 208 bytes."""
    code = bytes.fromhex("b83c00000031ff0f05") + b"\x90" * 7  # exit(0), padded
    interp = b"/lib/ld.so\x00"
    ehdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    ehdr += le("HHIQQQIHHHHHH", 2, 62, 1, 0x4000B0, 64, 0, 0, 64, 56, 2, 0, 0, 0)
    load = le("IIQQQQQQ", 1, 5, 0xB0, 0x4000B0, 0x4000B0, 16, 16, 0x1000)
    pint = le("IIQQQQQQ", 3, 4, 0xC0, 0x4000C0, 0x4000C0, len(interp), len(interp), 1)
    img = ehdr + load + pint + code + interp
    img += bytes(208 - len(img))
    assert len(img) == 208
    return img


def nosep_elf():
    """ELF64 ET_DYN linked as with ld -z noseparate-code: R+X PT_LOAD from offset 0
    (headers and code), RW PT_LOAD with 16 data bytes on the next file page; 0x1010 bytes."""
    code = bytes.fromhex("b83c00000031ff0f05") + b"\x90" * 7  # exit(0), padded
    ehdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    ehdr += le("HHIQQQIHHHHHH", 3, 62, 1, 0xB0, 64, 0, 0, 64, 56, 2, 0, 0, 0)
    text = le("IIQQQQQQ", 1, 5, 0, 0, 0, 0xC0, 0xC0, 0x1000)
    data = le("IIQQQQQQ", 1, 6, 0x1000, 0x2000, 0x2000, 0x10, 0x20, 0x1000)
    img = ehdr + text + data + code
    img += bytes(0x1000 - len(img)) + bytes(range(0x10))
    assert len(img) == 0x1010
    return img


def page_up(v):
    return -(-v // PAGE) * PAGE


def elf_digest(img, alg):
    e_type, e_machine, _, e_entry, e_phoff = struct.unpack_from("<HHIQQ", img, 16)
    phnum = struct.unpack_from("<H", img, 56)[0]
    segs, loads = [], []
    for i in range(phnum):
        t, fl, off, va, _, fsz, msz, _ = struct.unpack_from("<IIQQQQQQ", img, e_phoff + 56 * i)
        if t == 1:
            loads.append((off, va, msz, fl))
        if t == 1 and fl & 1:
            segs.append((off, va, fsz, msz, fl))
    h = hashlib.new(alg)
    h.update(b"PSUIE-ELF-v1" + le("HHQI", e_type, e_machine, e_entry, len(segs)))
    covered = set()  # file pages of the executable ranges, each to its last page's end
    for off, va, fsz, msz, fl in segs:
        roff = off // PAGE * PAGE
        rlen = min(len(img), page_up(off + fsz)) - roff
        h.update(le("QQQIQQ", va, msz, fsz, fl, roff, rlen) + img[roff:roff + rlen])
        covered.update(range(roff // PAGE, page_up(roff + rlen) // PAGE))
    off, va, _, fl = loads[0]
    if fl & 1:  # first PT_LOAD executable: the loader's first mapping (1.3)
        extent = page_up(max(v + m for _, v, m, _ in loads)) - va // PAGE * PAGE
        roff = off // PAGE * PAGE
        rlen = max(0, min(len(img), roff + extent) - roff)
        pages = range(roff // PAGE, page_up(roff + rlen) // PAGE)
        if rlen and not covered.issuperset(pages):
            h.update(le("QQ", roff, rlen) + img[roff:roff + rlen])
    return h.digest()


def range_digest(img, off, ln, alg):
    ln = min(ln, len(img) - off)
    return hashlib.new(alg, b"PSUIE-RNG-v1" + le("QQ", off, ln) + img[off:off + ln]).digest()


def policy_table(rules, alg=0x000B, mode=2, default=0, flags=0, trusted_fs=0):
    rules = sorted(rules, key=lambda r: (r[3], r[0], r[1], r[2]))
    out = b"UIEPOLT1" + le("HHBBHII", 2, alg, mode, default, flags, len(rules), trusted_fs)
    for ev, role, act, dig in rules:
        out += bytes([ev, role, act, 0]) + dig
    return out


def log_body(r):
    dig = r["digest"] + bytes(48 - len(r["digest"]))
    em = le("QIHHQ", r["seq"], 16, r["event"], 0, r["epoch"])
    oc = le("BBHI", r["role"], 0, r["alg"], r["pid"])
    oc += le("QQQqq", r["dev"], r["ino"], r["size"], r["mtime"], r["ctime"])
    oc += le("QQQ", r["vaddr"], r["length"], r["foff"]) + dig
    er = le("BBHB", r["mode"], r["decision"], r["reason"], r["scope"]) + bytes(3)
    assert (len(em), len(oc), len(er)) == (24, 120, 8)
    return em + oc + er


def wrap(s, n=64):
    return "\n".join(s[i:i + n] for i in range(0, len(s), n))


def main():
    img = tiny_elf()
    d256 = elf_digest(img, "sha256")
    print("V1 tiny ELF (%d bytes):\n%s" % (len(img), wrap(img.hex())))
    print("V1 sha256:", d256.hex())
    print("V1 sha384:", elf_digest(img, "sha384").hex())
    nosep = nosep_elf()
    print("V1N noseparate-code ELF, bytes [0, 0xc0):\n%s" % wrap(nosep[:0xC0].hex()))
    print("V1N sha256:", elf_digest(nosep, "sha256").hex())
    print("V1N sha384:", elf_digest(nosep, "sha384").hex())
    crafted = nosep[:0x1008] + b"\xcc" + nosep[0x1009:]
    print("V1N with byte 0x1008 = cc, sha256:", elf_digest(crafted, "sha256").hex())
    print("V2 range(0x40, 0x1000) sha256:", range_digest(img, 0x40, 0x1000, "sha256").hex())
    print("V2 range(208, 5) sha256:", range_digest(img, 208, 5, "sha256").hex())
    v3_rules = [
        (1, 1, 1, d256),           # EXECVE MAIN ALLOW
        (2, 3, 1, b"\x11" * 32),   # MMAP_EXEC DSO ALLOW
        (2, 3, 0, b"\x11" * 32),   # MMAP_EXEC DSO DENY
        (3, 5, 1, b"\xff" * 32),   # MPROTECT_EXEC ANON ALLOW
    ]
    tab = policy_table(v3_rules)
    print("V3 policy table (%d bytes):\n%s" % (len(tab), wrap(tab.hex())))
    # require=immutable (flags 1), trust_fs=fuse and virtiofs (kinds 1, 2)
    tab = policy_table(v3_rules, flags=1, trusted_fs=(1 << 1) | (1 << 2))
    print("V3S policy table, header (24 bytes): %s" % tab[:24].hex())
    rec = dict(seq=5, event=2, epoch=3, role=3, alg=0x000B, pid=4242, dev=0x803, ino=1234567,
               size=208, mtime=1700000000123456789, ctime=-2, vaddr=0x7F0000001000,
               length=0x1000, foff=0, digest=d256, mode=2, decision=1, reason=1, scope=1)
    body = log_body(rec)
    lrh = hashlib.sha256(body).digest()
    print("V4 log record (%d bytes):\n%s" % (len(body) + 32, wrap((body + lrh).hex())))
    print("V4 LRH:", lrh.hex())
    pcr = hashlib.sha256(bytes(32) + lrh).digest()
    print("V5 extend(0^32, LRH):", pcr.hex())
    start = dict(seq=0, event=16, epoch=0, role=0, alg=0, pid=0, dev=0, ino=0, size=0, mtime=0,
                 ctime=0, vaddr=0, length=0, foff=0, digest=b"", mode=0, decision=1, reason=12,
                 scope=0)
    sb = log_body(start)
    slrh = hashlib.sha256(sb).digest()
    print("V6 MONITOR_START LRH:", slrh.hex())
    print("V6 vPCR16 after it:", hashlib.sha256(bytes(32) + slrh).digest().hex())
    rep = dict(seq=12, event=23, epoch=3, role=0, alg=0, pid=0, dev=0, ino=0, size=0, mtime=0,
               ctime=0, vaddr=0, length=1000, foff=5, digest=b"", mode=2, decision=1, reason=16,
               scope=0)
    rb = log_body(rep)
    rlrh = hashlib.sha256(rb).digest()
    print("V21 REPEAT_COUNT record (%d bytes):\n%s" % (len(rb) + 32, wrap((rb + rlrh).hex())))
    print("V21 LRH:", rlrh.hex())
    subj = dict(seq=14, event=24, epoch=3, role=0, alg=0x000B, pid=0, dev=0, ino=0, size=0,
                mtime=0, ctime=0, vaddr=7, length=0, foff=13, digest=d256, mode=2, decision=1,
                reason=17, scope=1)
    jb = log_body(subj)
    jlrh = hashlib.sha256(jb).digest()
    print("V22 SUBJECT record (%d bytes):\n%s" % (len(jb) + 32, wrap((jb + jlrh).hex())))
    print("V22 LRH:", jlrh.hex())


if __name__ == "__main__":
    main()
