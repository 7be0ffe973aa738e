/* SPDX-License-Identifier: Apache-2.0 */
/*
 * redis-start N PORT COMMAND ARGS...: times from fork of COMMAND (a
 * redis-server, possibly wrapped in `uie run --`) to the first +PONG on
 * 127.0.0.1:PORT, N times.  Each started server is shut down (SHUTDOWN NOSAVE,
 * then SIGKILL of its process group after 10 s) before the next iteration.
 * Status is 0 on PONG, else 256 + exit status of a command that died first,
 * or ETIMEDOUT.
 */
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

#define START_TIMEOUT_NS (30ull * 1000000000ull)
#define STOP_TIMEOUT_MS 10000

/* Sends one inline command; true when the reply starts with expect (NULL: any). */
static bool ask(unsigned port, const char *cmd, const char *expect)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	char reply[64];
	ssize_t r;
	bool ok = false;
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return false;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    write(s, cmd, strlen(cmd)) == (ssize_t)strlen(cmd)) {
		r = read(s, reply, sizeof(reply) - 1);
		if (r > 0) {
			reply[r] = '\0';
			ok = !expect || !strncmp(reply, expect, strlen(expect));
		} else {
			ok = !expect; /* SHUTDOWN closes without a reply */
		}
	}
	close(s);
	return ok;
}

static void stop(pid_t pid, unsigned port)
{
	int st;

	ask(port, "SHUTDOWN NOSAVE\r\n", NULL);
	for (int ms = 0; ms < STOP_TIMEOUT_MS; ms++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return;
		usleep(1000);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, &st, 0);
}

static int start_once(unsigned port, char **cmd, uint64_t *ns)
{
	const struct timespec pause = { 0, 200000 };
	uint64_t t0 = bench_now_ns();
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		setpgid(0, 0);
		dup2(2, 1); /* stdout carries only samples */
		execvp(cmd[0], cmd);
		_exit(127);
	}
	for (;;) {
		if (ask(port, "PING\r\n", "+PONG")) {
			*ns = bench_now_ns() - t0;
			stop(pid, port);
			return 0;
		}
		if (waitpid(pid, &st, WNOHANG) == pid) {
			*ns = bench_now_ns() - t0;
			return 256 + (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		}
		if (bench_now_ns() - t0 > START_TIMEOUT_NS) {
			*ns = bench_now_ns() - t0;
			kill(-pid, SIGKILL);
			waitpid(pid, &st, 0);
			return ETIMEDOUT;
		}
		nanosleep(&pause, NULL);
	}
}

int main(int argc, char **argv)
{
	unsigned long n, port;

	if (argc < 4) {
		fprintf(stderr, "usage: redis-start N PORT COMMAND ARGS...\n");
		return 2;
	}
	n = bench_count(argv[1], 100000);
	port = bench_count(argv[2], 65535);
	for (unsigned long i = 0; i < n; i++) {
		uint64_t ns = 0;
		int status = start_once((unsigned)port, argv + 3, &ns);

		bench_sample(ns, status);
		if (status)
			break;
	}
	return 0;
}
