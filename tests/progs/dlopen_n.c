/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `dlopen_n [-t|-s] LIB...`: loads every LIB (RTLD_NOW) and calls its
 * uie_dso_value().  -t keeps a second thread running meanwhile, so the
 * interceptor must stop it around each grant; -s makes that thread spawn
 * /usr/bin/true over and over (posix_spawn: the thread waits in vfork for
 * the child's execve, which the interceptor must answer while stopping it).  Exit 0 when all loaded,
 * 10 + index of the first library that failed (its error on stderr).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

static atomic_int stop, spawns;

static void *spin(void *arg)
{
	while (!atomic_load(&stop))
		if (arg) {
			char *args[] = { "true", NULL };
			pid_t pid;
			int st;

			if (posix_spawn(&pid, "/usr/bin/true", NULL, NULL, args, NULL) == 0 &&
			    waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
				atomic_fetch_add(&spawns, 1);
		}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int first = 1, sum = 0;

	if (argc > 1 && (!strcmp(argv[1], "-t") || !strcmp(argv[1], "-s"))) {
		if (pthread_create(&t, NULL, spin, argv[1][1] == 's' ? argv : NULL) != 0)
			return 2;
		first = 2;
		while (argv[1][1] == 's' && atomic_load(&spawns) == 0)
			; /* the spawning has begun */
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
