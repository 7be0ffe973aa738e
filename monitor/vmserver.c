/* SPDX-License-Identifier: Apache-2.0 */
#include "vmserver.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "stream.h"
#include "uie/err.h"

int uie_vmserver_listen(const char *path, int *lfd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int s, r;

	*lfd = -1;
	if (!path || path[0] != '/' || strlen(path) >= sizeof(sa.sun_path))
		return UIE_E_INVAL;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return UIE_E_STATE;
		if (unlink(path) != 0)
			return UIE_E_SYS;
	} else if (errno != ENOENT) {
		return UIE_E_SYS;
	}
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return UIE_E_SYS;
	old = umask(0177);
	r = bind(s, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r != 0 || listen(s, 1) != 0) {
		close(s);
		return UIE_E_SYS;
	}
	*lfd = s;
	return UIE_OK;
}

int uie_vmserver_serve_one(struct uie_monitor *m, struct uie_mon_client *guest, int c)
{
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t len = 0, anslen = 0;
	int fd = -1, ansfd = -1, r;

	r = uie_stream_recv(c, msg, &len, &fd, 0);
	if (r != UIE_OK) {
		if (r != UIE_E_PEER)
			uie_mon_diag(m, "guest channel: bad frame (%s), connection closed", uie_err_str(r));
		return UIE_E_PEER;
	}
	uie_mon_serve(m, guest, NULL, msg, len, fd, ans, &anslen, &ansfd);
	r = uie_stream_send(c, ans, anslen, ansfd);
	if (ansfd >= 0)
		close(ansfd);
	if (r != UIE_OK) {
		/* An answer too large for a frame (an AE past the cap) is refused, the stream stays. */
		if (r == UIE_E_LIMIT) {
			uie_mon_refuse(m, msg, len, r, ans, &anslen);
			r = uie_stream_send(c, ans, anslen, -1);
		}
	}
	return r == UIE_OK ? UIE_OK : UIE_E_PEER;
}

/* Waits until fd is readable or *stop; false on stop. */
static bool wait_readable(int fd, volatile sig_atomic_t *stop)
{
	while (!*stop) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, -1);

		if (r > 0)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
	}
	return false;
}

int uie_vmserver_run(struct uie_monitor *m, int lfd, volatile sig_atomic_t *stop)
{
	while (wait_readable(lfd, stop)) {
		/* Non-blocking: a guest that stops reading cannot stall the monitor (10 s, then closed). */
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct uie_mon_client guest;

		if (c < 0)
			continue;
		uie_mon_diag(m, "guest connected");
		uie_mon_client_init(m, &guest); /* one guest, one quota: --client-quota */
		while (wait_readable(c, stop) && uie_vmserver_serve_one(m, &guest, c) == UIE_OK)
			;
		uie_mon_client_fini(&guest);
		close(c);
		if (!*stop)
			uie_mon_diag(m, "guest disconnected");
	}
	return UIE_OK;
}
