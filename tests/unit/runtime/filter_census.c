/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runs the tree's seccomp filter (guest/filter.c, as uie run installs it in
 * process mode) on every system-call number 0-1023 and prints one line per
 * number: "NR ACTION", ACTION being allow, trap (user notification), kill,
 * the errno's name (EPERM, ENOSYS, ...), or args when the filter reads the
 * call's arguments.  scripts/syscall-census compares it with the census.
 * A small interpreter of classic BPF: loads (of seccomp_data, immediates,
 * scratch memory), stores, the jumps with K or X, AND/OR, TAX/TXA and the
 * returns; any other instruction is an error (exit 2), never a guess.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "confine.h"

/* Operand of a jump or ALU instruction: K, or X for BPF_X. */
static uint32_t src(const struct sock_filter *f, uint32_t x)
{
	return BPF_SRC(f->code) == BPF_X ? x : f->k;
}

/* The filter's return value for d; *args set when it read an argument.  -1: not understood. */
static long run(const struct sock_filter *ins, int n, const struct seccomp_data *d, bool *args)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (int pc = 0; pc < n; pc++) {
		const struct sock_filter *f = &ins[pc];
		bool jump;

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (f->k + 4 > sizeof(*d) || f->k % 4)
				return -1;
			if (f->k >= offsetof(struct seccomp_data, args))
				*args = true;
			memcpy(&a, (const char *)d + f->k, 4);
			continue;
		case BPF_LD | BPF_IMM: a = f->k; continue;
		case BPF_LDX | BPF_IMM: x = f->k; continue;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
		case BPF_ST:
		case BPF_STX:
			if (f->k >= BPF_MEMWORDS)
				return -1;
			if (f->code == (BPF_LD | BPF_MEM))
				a = mem[f->k];
			else if (f->code == (BPF_LDX | BPF_MEM))
				x = mem[f->k];
			else
				mem[f->k] = f->code == BPF_ST ? a : x;
			continue;
		case BPF_MISC | BPF_TAX: x = a; continue;
		case BPF_MISC | BPF_TXA: a = x; continue;
		case BPF_ALU | BPF_AND | BPF_K:
		case BPF_ALU | BPF_AND | BPF_X: a &= src(f, x); continue;
		case BPF_ALU | BPF_OR | BPF_K:
		case BPF_ALU | BPF_OR | BPF_X: a |= src(f, x); continue;
		case BPF_RET | BPF_K: return f->k;
		case BPF_RET | BPF_A: return a;
		case BPF_JMP | BPF_JA: pc += (int)f->k; continue;
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JEQ | BPF_X: jump = a == src(f, x); break;
		case BPF_JMP | BPF_JGE | BPF_K:
		case BPF_JMP | BPF_JGE | BPF_X: jump = a >= src(f, x); break;
		case BPF_JMP | BPF_JGT | BPF_K:
		case BPF_JMP | BPF_JGT | BPF_X: jump = a > src(f, x); break;
		case BPF_JMP | BPF_JSET | BPF_K:
		case BPF_JMP | BPF_JSET | BPF_X: jump = (a & src(f, x)) != 0; break;
		default: return -1;
		}
		pc += jump ? f->jt : f->jf;
	}
	return -1; /* ran off the end */
}

int main(void)
{
	struct sock_filter ins[UIE_FILTER_MAX];
	int n = uie_guest_filter_program(ins, UIE_FILTER_MAX, true);

	if (n <= 0) {
		fprintf(stderr, "filter_census: the filter does not build (%d)\n", n);
		return 2;
	}
	for (int nr = 0; nr < 1024; nr++) {
		struct seccomp_data d = { .nr = nr, .arch = AUDIT_ARCH_X86_64 };
		bool args = false;
		long r = run(ins, n, &d, &args);
		uint32_t act = (uint32_t)r & SECCOMP_RET_ACTION_FULL;
		const char *name = NULL;

		if (r < 0) {
			fprintf(stderr, "filter_census: number %d: instruction not understood\n", nr);
			return 2;
		}
		if (args)
			name = "args";
		else if (act == SECCOMP_RET_ALLOW)
			name = "allow";
		else if (act == SECCOMP_RET_USER_NOTIF)
			name = "trap";
		else if (act == SECCOMP_RET_KILL_PROCESS)
			name = "kill";
		else if (act == SECCOMP_RET_ERRNO)
			name = strerrorname_np((int)(r & SECCOMP_RET_DATA));
		if (!name) {
			fprintf(stderr, "filter_census: number %d: action %#lx\n", nr, (unsigned long)r);
			return 2;
		}
		printf("%d %s\n", nr, name);
	}
	return 0;
}
