/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A static executable whose executable segment is CODE_SIZE bytes: _start
 * exits at once, the rest of .text is filler that is never run but is
 * measured.  TAG makes copies of the same size differ in content.
 * Built by bench/workloads/gen-objects with -DCODE_SIZE=... -DTAG=...
 */
	.text
	.globl _start
_start:
	mov $60, %eax
	xor %edi, %edi
	syscall
	.byte TAG
	.org CODE_SIZE, 0x90
	.section .note.GNU-stack, "", @progbits
