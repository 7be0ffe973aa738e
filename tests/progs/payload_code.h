/* SPDX-License-Identifier: Apache-2.0 */
/* Machine code no policy approved, for the attacks on approved pages: returns 42 (x86-64). */
#ifndef UIE_TEST_PAYLOAD_CODE_H
#define UIE_TEST_PAYLOAD_CODE_H

static const unsigned char payload_code[] = { 0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3 }; /* mov eax, 42; ret */
#define PAYLOAD_RESULT 42

/* Runs the code at p; true when it was the payload. */
static inline int payload_ran(const void *p)
{
	int (*fn)(void);

	*(const void **)&fn = p;
	return fn() == PAYLOAD_RESULT;
}

#endif
