/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A static program without a C library that computes for ever: after its
 * execve it makes no system call at all (in particular none the filter
 * traps), so its thread shows "running" in /proc for as long as it lives.
 * For `execfleet`.
 */
void _start(void);

void _start(void)
{
	for (;;)
		__asm__ volatile("pause");
}
