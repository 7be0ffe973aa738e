/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `dlopen_n [-t] LIB...`: loads every LIB (RTLD_NOW) and calls its
 * uie_dso_value().  -t keeps a second thread running meanwhile, so the
 * interceptor must stop it around each grant.  Exit 0 when all loaded,
 * 10 + index of the first library that failed (its error on stderr).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_int stop;

static void *spin(void *arg)
{
	while (!atomic_load(&stop))
		;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int first = 1, sum = 0;

	if (argc > 1 && !strcmp(argv[1], "-t")) {
		if (pthread_create(&t, NULL, spin, NULL) != 0)
			return 2;
		first = 2;
	}
	for (int i = first; i < argc; i++) {
		void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
		int (*fn)(void);

		if (!h) {
			fprintf(stderr, "dlopen_n: %s\n", dlerror());
			printf("REFUSED %s\n", argv[i]);
			atomic_store(&stop, 1);
			return 10 + i - first;
		}
		fn = (int (*)(void))dlsym(h, "uie_dso_value");
		sum += fn ? fn() : 0;
	}
	atomic_store(&stop, 1);
	if (first == 2)
		pthread_join(t, NULL);
	printf("loaded %d (sum %d)\n", argc - first, sum);
	return 0;
}
