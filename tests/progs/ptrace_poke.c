/* SPDX-License-Identifier: Apache-2.0 */
/* PTRACE_POKETEXT into a child of the tree (attach, then poke). */
#include <sys/ptrace.h>

#include "attempt.h"

__attribute__((noinline)) static int answer(void)
{
	__asm__ volatile("");
	return 42;
}

int main(void)
{
	pid_t c = child_paused();
	long r;

	if (c < 0)
		return setup_failed("fork");
	r = ptrace(PTRACE_ATTACH, c, 0, 0);
	if (r == 0) {
		waitpid(c, NULL, 0);
		r = ptrace(PTRACE_POKETEXT, c, (void *)answer, (void *)0xc3000000002bb8L);
	}
	child_end(c);
	return r != 0 ? refused("ptrace poke", errno) : gained("ptrace poked code");
}
