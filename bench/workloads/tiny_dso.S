/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A shared object with CODE_SIZE bytes of code: one function that returns,
 * and filler that is mapped executable and measured.  TAG makes each copy's
 * digest distinct.  Built by bench/workloads/gen-objects.
 */
	.text
	.globl uie_bench_fn
	.type uie_bench_fn, @function
uie_bench_fn:
	ret
	.size uie_bench_fn, . - uie_bench_fn
	.byte TAG & 0xff, TAG >> 8
	.org CODE_SIZE, 0x90
	.section .note.GNU-stack, "", @progbits
