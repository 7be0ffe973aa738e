/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Exit protocol of the attack programs: each tries to gain executable
 * memory for content no policy approved and says what happened.
 *   0  refused (the line "REFUSED <what>: <errno name>" on stdout)
 *   10 gained (the line "GAINED <what>")
 *   2  the test itself could not be set up
 */
#ifndef UIE_TEST_ATTEMPT_H
#define UIE_TEST_ATTEMPT_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ATTEMPT_REFUSED 0
#define ATTEMPT_GAINED 10
#define ATTEMPT_SETUP 2

static inline int refused(const char *what, int err)
{
	printf("REFUSED %s: %s\n", what, strerrorname_np(err) ? strerrorname_np(err) : "?");
	fflush(stdout);
	return ATTEMPT_REFUSED;
}

static inline int gained(const char *what)
{
	printf("GAINED %s\n", what);
	fflush(stdout);
	return ATTEMPT_GAINED;
}

static inline int setup_failed(const char *what)
{
	fprintf(stderr, "setup failed: %s: %s\n", what, strerror(errno));
	return ATTEMPT_SETUP;
}

#endif
