/* SPDX-License-Identifier: Apache-2.0 */
/*
 * JIT-style anonymous code: `jit mprotect` writes code into an anonymous
 * RW mapping and turns it RX (NX->X); `jit mmap` asks for RWX anonymous
 * memory directly; `jit pkey` uses pkey_mprotect.  The code returns 42.
 */
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attempt.h"

static const unsigned char code[] = { 0xb8, 42, 0, 0, 0, 0xc3 }; /* mov eax, 42; ret */

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "mprotect";
	int (*fn)(void);
	void *p;

	if (!strcmp(how, "mmap")) {
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return refused("anonymous mmap(PROT_EXEC)", errno);
		memcpy(p, code, sizeof(code));
	} else {
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return setup_failed("mmap");
		memcpy(p, code, sizeof(code));
		if (!strcmp(how, "pkey")) {
			if (syscall(SYS_pkey_mprotect, p, 4096, PROT_READ | PROT_EXEC, -1) != 0)
				return refused("anonymous pkey_mprotect(PROT_EXEC)", errno);
		} else if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0) {
			return refused("anonymous mprotect(PROT_EXEC)", errno);
		}
	}
	fn = (int (*)(void))p;
	return fn() == 42 ? gained("anonymous code ran") : ATTEMPT_SETUP;
}
