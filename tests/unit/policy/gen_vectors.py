#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Independent implementation of docs/FORMATS.md section 4 (Bloom hint and
package body) that produced the vectors there.  The signature of V-P1 was
made once with tests/data/policy/vector-key.pem (ECDSA is randomized) and
is copied, not recomputed:  python3 gen_vectors.py [SIG_HEX]"""
import hashlib
import struct
import sys

M64 = (1 << 64) - 1


def mix64(z):
    z ^= z >> 30
    z = (z * 0xbf58476d1ce4e5b9) & M64
    z ^= z >> 27
    z = (z * 0x94d049bb133111eb) & M64
    return z ^ (z >> 31)


def positions(digest, salt, k, nbits):
    h1 = mix64(int.from_bytes(digest[0:8], 'little') ^ salt[0])
    h2 = mix64(int.from_bytes(digest[8:16], 'little') ^ salt[1]) | 1
    return [((h1 + i * h2) & M64) % nbits for i in range(k)]


def hint(alg, k, epoch, salt, nbits, digests):
    bits = bytearray(nbits // 8)
    for d in digests:
        for p in positions(d, salt, k, nbits):
            bits[p // 8] |= 1 << (p % 8)
    hdr = b'UIEBLM01' + struct.pack('<HHB3xQQQII', 1, alg, k, epoch, salt[0], salt[1], nbits,
                                    len(digests))
    return hdr + bytes(bits)


def table(mode, default, alg, rules):
    out = b'UIEPOLT1' + struct.pack('<HHBB2xI4x', 2, alg, mode, default, len(rules))
    for ev, role, action, digest in rules:
        out += struct.pack('<BBBx', ev, role, action) + digest
    return out


def body(epoch, bind_seq, bind_pcr, key_id, tbl, hnt, alg=0x000B):
    return (b'UIEPKG01' + struct.pack('<HHHHQQ', 1, 0x0018, alg, 0, epoch, bind_seq) + bind_pcr +
            key_id + struct.pack('<II', len(tbl), len(hnt)) + tbl + hnt)


def main():
    d = bytes([0x11]) * 32
    salt = (0x0123456789abcdef, 0xfedcba9876543210)
    print('V-B1 positions', positions(d, salt, 7, 64))
    h = hint(0x000B, 7, 1, salt, 64, [d])
    print('V-B1 hint', h.hex())
    t = table(2, 0, 0x000B, [(1, 1, 1, d)])
    print('V-P1 table', t.hex())
    key_id = bytes.fromhex('87e2b014244432052ffbbf584ad0be83a663d97dbc2189b0c9f56210cfc2b0a5')
    b = body(1, 1, bytes([0x22]) * 32, key_id, t, h)
    print('V-P1 body', b.hex())
    print('V-P1 package_hash', hashlib.sha256(b).hexdigest())
    if len(sys.argv) > 1:
        sig = bytes.fromhex(sys.argv[1])
        print('V-P1 package', (b + struct.pack('<H', len(sig)) + sig).hex())


if __name__ == '__main__':
    main()
