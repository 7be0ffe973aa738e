/* SPDX-License-Identifier: Apache-2.0 */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fdpass.h"
#include "workers.h"
#include "uie/err.h"

/*
 * Creates the socket's directory (one level) owned by us and gid, 0750.  An
 * existing one must be ours and writable by nobody else: whoever can write
 * there could replace the socket with their own between runs.
 */
static int make_dir(const char *path, gid_t gid)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct stat st;
	char *slash;

	memcpy(dir, path, strlen(path) + 1);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return UIE_OK;
	*slash = '\0';
	if (mkdir(dir, 0750) == 0)
		return chown(dir, (uid_t)-1, gid) == 0 && chmod(dir, 0750) == 0 ? UIE_OK : UIE_E_SYS;
	if (errno != EEXIST || lstat(dir, &st) != 0)
		return UIE_E_SYS;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		errno = S_ISDIR(st.st_mode) ? EPERM : ENOTDIR;
		return UIE_E_STATE;
	}
	return UIE_OK;
}

/* Removes a socket left by a dead monitor; refuses to replace a live one. */
static int clear_stale(const struct sockaddr_un *sa)
{
	struct stat st;
	int s, r;

	if (lstat(sa->sun_path, &st) != 0)
		return errno == ENOENT ? UIE_OK : UIE_E_SYS;
	if (!S_ISSOCK(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : ENOTSOCK;
		return UIE_E_STATE;
	}
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return UIE_E_SYS;
	r = connect(s, (const struct sockaddr *)sa, sizeof(*sa));
	close(s);
	if (r == 0) {
		errno = EADDRINUSE;
		return UIE_E_STATE;
	}
	return unlink(sa->sun_path) == 0 ? UIE_OK : UIE_E_SYS;
}

int uie_server_listen(const char *path, gid_t gid, int *lfd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int s, r;

	*lfd = -1;
	if (!path || path[0] != '/' || strlen(path) >= sizeof(sa.sun_path))
		return UIE_E_INVAL;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((r = make_dir(path, gid)) != UIE_OK || (r = clear_stale(&sa)) != UIE_OK)
		return r;
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return UIE_E_SYS;
	old = umask(0117); /* the socket is never wider than 0660, not even briefly */
	r = bind(s, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r != 0 || chown(path, (uid_t)-1, gid) != 0 || chmod(path, 0660) != 0 ||
	    listen(s, UIE_SERVER_BACKLOG) != 0) {
		close(s);
		return UIE_E_SYS;
	}
	*lfd = s;
	return UIE_OK;
}

/* One connection. */
struct client {
	int fd;
	pid_t pid;   /* the peer process at connect time (SO_PEERCRED) */
	uint64_t id; /* unique for the monitor's life: a finished job finds its client by it */
	bool busy;   /* a worker measures for it, or its export is being written: its next message waits */
	struct uie_export_job *export; /* owned; NULL: none */
	struct uie_mon_client quota;
};

/* Records an export writes out per round of the loop (3 MiB): decisions go on in between. */
#define EXPORT_CHUNK 16384

static void drop_client(struct client *cl)
{
	close(cl->fd);
	cl->fd = -1;
	uie_export_job_free(cl->export);
	cl->export = NULL;
	uie_mon_client_fini(&cl->quota);
}

int uie_server_limits_apply(struct uie_server_limits *lim, const struct uie_monitor *m)
{
	struct rlimit rl;
	rlim_t want;

	if (lim->max_clients == 0 || lim->max_clients > UIE_SERVER_CLIENTS_CAP || lim->max_per_process == 0)
		return UIE_E_INVAL;
	/*
	 * Room for every client and one more descriptor each (the object a worker measures for
	 * it, or its export's memfd), and the monitor's own.
	 */
	want = 2 * (rlim_t)lim->max_clients + 64;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return UIE_E_SYS;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			return UIE_E_SYS;
	}
	if (rl.rlim_cur < want) {
		if (rl.rlim_cur < 66)
			return UIE_E_LIMIT;
		uie_mon_diag(m, "descriptor limit %llu: --max-clients lowered from %u to %llu",
			     (unsigned long long)rl.rlim_cur, lim->max_clients,
			     (unsigned long long)((rl.rlim_cur - 64) / 2));
		lim->max_clients = (unsigned)((rl.rlim_cur - 64) / 2);
	}
	return UIE_OK;
}

/*
 * Accepts one connection unless the table is full or its process already
 * holds max_per_process connections: one process (or a few) holding
 * connections open cannot lock every other client out.
 */
static void accept_client(const struct uie_monitor *m, const struct uie_server_limits *lim, int lfd,
			  struct client *clients, unsigned *n)
{
	static uint64_t next_id;
	struct ucred cred = { .pid = 0 };
	socklen_t cl = sizeof(cred);
	unsigned same = 0;
	int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (c < 0)
		return;
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0)
		cred.pid = 0;
	for (unsigned i = 0; i < *n && cred.pid > 0; i++)
		same += clients[i].pid == cred.pid;
	if (*n >= lim->max_clients) {
		uie_mon_diag(m, "connection of pid %d refused: --max-clients %u reached", (int)cred.pid,
			     lim->max_clients);
		close(c);
		return;
	}
	if (same >= lim->max_per_process) {
		uie_mon_diag(m, "connection of pid %d refused: it holds --max-clients-per-process %u",
			     (int)cred.pid, lim->max_per_process);
		close(c);
		return;
	}
	clients[*n].fd = c;
	clients[*n].pid = cred.pid;
	clients[*n].id = ++next_id;
	clients[*n].busy = false;
	clients[*n].export = NULL;
	uie_mon_client_init(m, &clients[*n].quota);
	(*n)++;
}

/*
 * Receives one message from c and answers it, or hands its measurement to
 * a worker (c is then busy until it is answered); false when c must be
 * dropped.
 */
static bool serve_one(struct uie_monitor *m, struct client *cl)
{
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t len = 0, anslen = 0;
	struct uie_mon_later later = { 0 };
	int fd = -1, ansfd = -1, r;

	r = uie_bridge_recv(cl->fd, msg, &len, &fd, -1);
	if (r == UIE_E_PEER || r == UIE_E_SYS)
		return false;
	if (r == UIE_OK)
		uie_mon_serve(m, &cl->quota, &later, msg, len, fd, ans, &anslen, &ansfd);
	else
		uie_mon_refuse(m, msg, len, r, ans, &anslen);
	if (later.job) {
		later.job->conn = cl->id;
		cl->busy = true;
		uie_workers_submit(m->workers, later.job);
		return true;
	}
	if (later.export) {
		cl->export = later.export;
		cl->busy = true;
		return true;
	}
	r = uie_bridge_send(cl->fd, ans, anslen, ansfd);
	if (ansfd >= 0)
		close(ansfd);
	return r == UIE_OK;
}

/* Answers the jobs the workers finished; a client gone meanwhile is skipped. */
static void finish_jobs(struct uie_monitor *m, struct client *clients, unsigned n)
{
	struct uie_job *job = uie_workers_collect(m->workers), *next;

	for (; job; job = next) {
		uint8_t ans[UIE_BRIDGE_MAX_MSG];
		size_t anslen = 0;
		unsigned i;

		next = job->next;
		for (i = 0; i < n && clients[i].id != job->conn; i++)
			;
		/* Decided and logged even for a client that left: the grant was asked for. */
		uie_mon_measure_finish(m, i < n && clients[i].fd >= 0 ? &clients[i].quota : NULL, job, ans,
				       &anslen);
		if (i < n && clients[i].fd >= 0) {
			clients[i].busy = false;
			if (uie_bridge_send(clients[i].fd, ans, anslen, -1) != UIE_OK)
				drop_client(&clients[i]);
		}
		uie_job_free(job);
	}
}

/* Writes the next piece of every export under way; answers those that are complete. */
static void step_exports(struct uie_monitor *m, struct client *clients, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t ans[UIE_BRIDGE_MAX_MSG];
		size_t anslen = 0;
		int ansfd = -1;

		if (clients[i].fd < 0 || !clients[i].export ||
		    !uie_mon_export_step(m, clients[i].export, EXPORT_CHUNK, ans, &anslen, &ansfd))
			continue;
		uie_export_job_free(clients[i].export);
		clients[i].export = NULL;
		clients[i].busy = false;
		if (uie_bridge_send(clients[i].fd, ans, anslen, ansfd) != UIE_OK)
			drop_client(&clients[i]);
		if (ansfd >= 0)
			close(ansfd);
	}
}

int uie_server_run(struct uie_monitor *m, const struct uie_server_limits *lim, int lfd,
		   volatile sig_atomic_t *stop)
{
	struct pollfd *pfd = calloc(2 + (size_t)lim->max_clients, sizeof(*pfd));
	struct client *clients = calloc(lim->max_clients, sizeof(*clients));
	unsigned n = 0;
	int r = UIE_OK;

	if (!pfd || !clients) {
		free(pfd);
		free(clients);
		return UIE_E_NOMEM;
	}
	while (!*stop) {
		unsigned live = n;
		bool exporting = false;

		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = m->workers ? m->workers->wake[0] : -1, .events = POLLIN };
		/* A busy client's next message waits in its socket until its answer is out. */
		for (unsigned i = 0; i < n; i++) {
			pfd[2 + i] = (struct pollfd){ .fd = clients[i].fd,
						      .events = clients[i].busy ? 0 : POLLIN };
			exporting |= clients[i].export != NULL;
		}
		/* While an export is being written, only look whether anyone else is waiting. */
		if (poll(pfd, 2 + n, exporting ? 0 : -1) < 0) {
			if (errno == EINTR)
				continue;
			r = UIE_E_SYS;
			break;
		}
		/* One message per ready client per round: a busy client cannot starve the others. */
		for (unsigned i = 0; i < live; i++) {
			if (!pfd[2 + i].revents)
				continue;
			if ((pfd[2 + i].revents & POLLIN) && serve_one(m, &clients[i]))
				continue;
			drop_client(&clients[i]);
		}
		if (pfd[1].revents & POLLIN)
			finish_jobs(m, clients, live);
		if (exporting)
			step_exports(m, clients, live);
		/* Compact the table, keeping order (earlier clients served first). */
		n = 0;
		for (unsigned i = 0; i < live; i++)
			if (clients[i].fd >= 0)
				clients[n++] = clients[i];
		if (pfd[0].revents & POLLIN)
			accept_client(m, lim, lfd, clients, &n);
	}
	for (unsigned i = 0; i < n; i++)
		drop_client(&clients[i]);
	free(pfd);
	free(clients);
	return r;
}
