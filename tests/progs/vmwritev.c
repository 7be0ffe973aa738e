/* SPDX-License-Identifier: Apache-2.0 */
/* process_vm_writev into the code of a child (same tree). */
#include <sys/uio.h>

#include "attempt.h"

__attribute__((noinline)) static int answer(void)
{
	__asm__ volatile("");
	return 42;
}

int main(void)
{
	static unsigned char patch[] = { 0xb8, 43, 0, 0, 0, 0xc3 };
	struct iovec l = { patch, sizeof(patch) }, r = { (void *)answer, sizeof(patch) };
	pid_t c = child_paused();
	ssize_t n;

	if (c < 0)
		return setup_failed("fork");
	n = process_vm_writev(c, &l, 1, &r, 1, 0);
	child_end(c);
	return n < 0 ? refused("process_vm_writev", errno) : gained("process_vm_writev wrote code");
}
