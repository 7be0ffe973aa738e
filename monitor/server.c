/* SPDX-License-Identifier: Apache-2.0 */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fdpass.h"
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
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return UIE_E_STATE;
	return UIE_OK;
}

/* Removes a socket left by a dead monitor; refuses to replace a live one. */
static int clear_stale(const struct sockaddr_un *sa)
{
	struct stat st;
	int s, r;

	if (lstat(sa->sun_path, &st) != 0)
		return errno == ENOENT ? UIE_OK : UIE_E_SYS;
	if (!S_ISSOCK(st.st_mode))
		return UIE_E_STATE;
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return UIE_E_SYS;
	r = connect(s, (const struct sockaddr *)sa, sizeof(*sa));
	close(s);
	if (r == 0)
		return UIE_E_STATE;
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
	    listen(s, UIE_SERVER_MAX_CLIENTS) != 0) {
		close(s);
		return UIE_E_SYS;
	}
	*lfd = s;
	return UIE_OK;
}

static void accept_client(const struct uie_monitor *m, int lfd, int *clients, unsigned *n)
{
	int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (c < 0)
		return;
	if (*n >= UIE_SERVER_MAX_CLIENTS) {
		uie_mon_diag(m, "client limit reached, connection refused");
		close(c);
		return;
	}
	clients[(*n)++] = c;
}

/* Receives one message from c and answers it; false when c must be dropped. */
static bool serve_one(struct uie_monitor *m, int c)
{
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t len = 0, anslen = 0;
	int fd = -1, ansfd = -1, r;

	r = uie_bridge_recv(c, msg, &len, &fd, -1);
	if (r == UIE_E_PEER || r == UIE_E_SYS)
		return false;
	if (r == UIE_OK)
		uie_monitor_handle(m, msg, len, fd, ans, &anslen, &ansfd);
	else
		uie_monitor_refuse(m, msg, len, r, ans, &anslen);
	r = uie_bridge_send(c, ans, anslen, ansfd);
	if (ansfd >= 0)
		close(ansfd);
	return r == UIE_OK;
}

int uie_server_run(struct uie_monitor *m, int lfd, volatile sig_atomic_t *stop)
{
	struct pollfd pfd[1 + UIE_SERVER_MAX_CLIENTS];
	int clients[UIE_SERVER_MAX_CLIENTS];
	unsigned n = 0;

	while (!*stop) {
		unsigned live = n;
		int r;

		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (unsigned i = 0; i < n; i++)
			pfd[1 + i] = (struct pollfd){ .fd = clients[i], .events = POLLIN };
		r = poll(pfd, 1 + n, -1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return UIE_E_SYS;
		}
		for (unsigned i = 0; i < live; i++) {
			if (!pfd[1 + i].revents)
				continue;
			if ((pfd[1 + i].revents & POLLIN) && serve_one(m, clients[i]))
				continue;
			close(clients[i]);
			clients[i] = -1;
		}
		/* Compact the table, keeping order (earlier clients served first). */
		n = 0;
		for (unsigned i = 0; i < live; i++)
			if (clients[i] >= 0)
				clients[n++] = clients[i];
		if (pfd[0].revents & POLLIN)
			accept_client(m, lfd, clients, &n);
	}
	for (unsigned i = 0; i < n; i++)
		close(clients[i]);
	return UIE_OK;
}
