/* SPDX-License-Identifier: Apache-2.0 */
#include "vmrelay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "fdpass.h"
#include "stream.h"
#include "uie/bridge.h"
#include "uie/buf.h"
#include "uie/err.h"
#include "uie/sys.h"
#include "vmpin.h"
#include "wire.h"

#define RELAY_MAX_CLIENTS 64
#define RELAY_TIMEOUT_MS 10000

struct relay {
	const struct uie_vmrelay_opts *o;
	int port, pagemap;
	uint32_t next_id;
};

static void say(const struct relay *rl, const char *what, int r)
{
	if (rl->o->verbose)
		fprintf(stderr, "uie-vmrelay: %s: %s\n", what, uie_err_str(r));
}

static int listen_local(const char *path, int type, int *lfd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)];
	char *slash;
	int s;

	*lfd = -1;
	if (!path || path[0] != '/' || strlen(path) >= sizeof(sa.sun_path))
		return UIE_E_INVAL;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	memcpy(dir, path, strlen(path) + 1);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0750);
	}
	unlink(path);
	s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (s < 0)
		return UIE_E_SYS;
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0 || chmod(path, 0660) != 0 ||
	    listen(s, RELAY_MAX_CLIENTS) != 0) {
		close(s);
		return UIE_E_SYS;
	}
	*lfd = s;
	return UIE_OK;
}

/*
 * Forwards one encoded request (with its payload descriptor) over the port
 * under a relay request id, and waits for the answer with that id; the
 * answer gets the client's id back.  Answers to requests that timed out
 * earlier are skipped.
 */
static int forward(struct relay *rl, uint8_t *msg, size_t len, int fd, uint8_t *ans, size_t *alen, int *afd)
{
	/* Top bit set: never an id of the client stubs (uie_bridge_measure_vm) on the same port. */
	uint32_t cid = uie_le32(msg + 12), rid = 0x80000000u | rl->next_id++;
	int64_t deadline = (int64_t)uie_now_ms() + RELAY_TIMEOUT_MS;
	int r;

	*afd = -1;
	uie_put_le32(msg + 12, rid);
	if ((r = uie_stream_send(rl->port, msg, len, fd)) != UIE_OK)
		return r;
	for (;;) {
		int64_t left = deadline - (int64_t)uie_now_ms();

		if (left <= 0)
			return UIE_E_PEER;
		if ((r = uie_stream_recv(rl->port, ans, alen, afd, (int)left)) != UIE_OK)
			return r;
		if (*alen >= UIE_BRIDGE_HDR_LEN && uie_le32(ans + 12) == rid) {
			uie_put_le32(ans + 12, cid);
			return UIE_OK;
		}
		if (*afd >= 0)
			close(*afd);
		*afd = -1;
	}
}

/* The answer to q that the relay gives itself: an error, never a grant. */
static void refuse(const struct uie_wire_msg *q, int err, uint8_t *ans, size_t *alen)
{
	uie_bridge_error_answer(q, err >= 0 || err <= UIE_E__MIN ? UIE_E_PEER : err, ans, alen);
}

/*
 * The payload of a MEASURE_VM_REQ for pin: its frames and, for
 * MPROTECT_EXEC, the frames process pid holds for the range's pages
 * (docs/BRIDGE.md section 12).  *list is malloc'ed.
 */
static int frame_list(const struct uie_req *req, const struct uie_vmpin *pin, uint64_t **list, size_t *n)
{
	size_t nrange = 0;
	int r;

	*list = NULL;
	*n = pin->nframes;
	if (req->event == UIE_EV_MPROTECT_EXEC && !pin->fileless) {
		if (req->length == 0 || req->length > (uint64_t)UIE_VM_MAX_FRAMES * UIE_VM_FRAME)
			return UIE_E_FORMAT;
		nrange = (size_t)uie_bridge_vm_nframes(req->length);
	}
	if (*n + nrange == 0)
		return UIE_OK;
	if (!(*list = malloc((*n + nrange) * sizeof(uint64_t))))
		return UIE_E_NOMEM;
	memcpy(*list, pin->frames, *n * sizeof(uint64_t));
	if (nrange && (r = uie_vmpin_range(req->pid, req->vaddr, *list + *n, nrange)) != UIE_OK) {
		free(*list);
		*list = NULL;
		return r;
	}
	*n += nrange;
	return UIE_OK;
}

/* MEASURE_REQ with the object's descriptor: pinned, named by its frames, asked as MEASURE_VM_REQ. */
static int measure(struct relay *rl, const struct uie_wire_msg *q, int objfd, uint8_t *ans, size_t *alen)
{
	struct uie_wire_msg a = { .type = UIE_MSG_MEASURE_ANS, .request_id = q->request_id };
	struct uie_vmpin pin;
	struct uie_req req;
	uint64_t *list = NULL;
	size_t n = 0;
	int r;

	uie_bridge_req_of(&q->u.measure_req, &req);
	if ((r = uie_vmpin_object(rl->pagemap, objfd, &pin)) != UIE_OK) {
		say(rl, "pinning an object", r);
		return r;
	}
	if ((r = frame_list(&req, &pin, &list, &n)) != UIE_OK)
		say(rl, "reading the process's frames", r);
	else
		r = uie_bridge_measure_vm(rl->port, &req, pin.fileless ? UIE_VM_FLAG_FILELESS : 0, pin.size,
					  list, n, &a.u.measure_ans);
	free(list);
	uie_vmpin_release(&pin); /* only now: the monitor has read the frames */
	if (r != UIE_OK)
		return r;
	return uie_bridge_encode(&a, ans, UIE_BRIDGE_MAX_MSG, alen);
}

/*
 * VIOLATION_REQ with the file's descriptor: the interceptor still holds the
 * file's read lease, so the writer waits and the pages pinned here are the
 * approved bytes; asked as VIOLATION_VM_REQ.  A file that cannot be pinned
 * is reported without frames: the violation is logged all the same.
 */
static int violation(struct relay *rl, const struct uie_wire_msg *q, int objfd, uint8_t *ans, size_t *alen)
{
	struct uie_wire_msg a = { .type = UIE_MSG_VIOLATION_ANS, .request_id = q->request_id };
	struct uie_vmpin pin;
	int r;

	if ((r = uie_vmpin_object(rl->pagemap, objfd, &pin)) != UIE_OK || pin.fileless) {
		say(rl, "pinning a written file", r == UIE_OK ? UIE_E_FORMAT : r);
		uie_vmpin_release(&pin);
	}
	r = uie_bridge_violation_vm(rl->port, q->u.violation_req.pid, q->u.violation_req.kind, pin.size,
				    pin.frames, pin.nframes, &a.u.violation_ans_seq);
	uie_vmpin_release(&pin);
	if (r != UIE_OK)
		return r;
	return uie_bridge_encode(&a, ans, UIE_BRIDGE_MAX_MSG, alen);
}

/* Serves one message of client c (on the control socket when control); false when c is gone. */
static bool serve_one(struct relay *rl, int c, bool control)
{
	uint8_t msg[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	size_t len = 0, alen = 0;
	int fd = -1, afd = -1, r;
	struct uie_wire_msg q;

	if (control)
		r = uie_stream_recv(c, msg, &len, &fd, RELAY_TIMEOUT_MS);
	else
		r = uie_bridge_recv(c, msg, &len, &fd, -1);
	if (r == UIE_E_PEER || r == UIE_E_SYS || (control && r != UIE_OK))
		return false; /* a stream with a bad frame header is lost */
	if (r == UIE_OK)
		r = uie_bridge_decode(msg, len, &q);
	else
		uie_bridge_decode(msg, len, &q);
	/* The control socket takes the tools' requests; no client may send the relay's own. */
	if (r == UIE_OK &&
	    !uie_bridge_may_send(q.type, control ? UIE_FROM_TREE : UIE_FROM_TOOL | UIE_FROM_INTERCEPTOR))
		r = UIE_E_ACCESS;
	else if (r == UIE_OK && q.type == UIE_MSG_MEASURE_REQ && q.u.measure_req.role != UIE_ROLE_ANON)
		r = fd >= 0 ? measure(rl, &q, fd, ans, &alen) : UIE_E_FORMAT;
	else if (r == UIE_OK && q.type == UIE_MSG_VIOLATION_REQ)
		r = fd >= 0 ? violation(rl, &q, fd, ans, &alen) : UIE_E_FORMAT;
	else if (r == UIE_OK)
		r = forward(rl, msg, len, fd, ans, &alen, &afd);
	if (fd >= 0)
		close(fd);
	if (r != UIE_OK) {
		say(rl, "request refused", r);
		refuse(&q, r, ans, &alen);
	}
	r = control ? uie_stream_send(c, ans, alen, afd) : uie_bridge_send(c, ans, alen, afd);
	if (afd >= 0)
		close(afd);
	return r == UIE_OK;
}

static int serve(struct relay *rl, int lfd, int cfd, volatile sig_atomic_t *stop)
{
	struct pollfd pfd[2 + RELAY_MAX_CLIENTS];
	int clients[RELAY_MAX_CLIENTS];
	bool control[RELAY_MAX_CLIENTS] = { false };
	unsigned n = 0;

	if (rl->o->client_fd >= 0)
		clients[n++] = rl->o->client_fd;

	while (!*stop) {
		unsigned live = n;
		int r;

		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = cfd, .events = POLLIN }; /* -1: ignored by poll */
		for (unsigned i = 0; i < n; i++)
			pfd[2 + i] = (struct pollfd){ .fd = clients[i], .events = POLLIN };
		r = poll(pfd, 2 + n, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return UIE_E_SYS;
		for (unsigned i = 0; i < live; i++) {
			if (!pfd[2 + i].revents)
				continue;
			if ((pfd[2 + i].revents & POLLIN) && serve_one(rl, clients[i], control[i]))
				continue;
			close(clients[i]);
			clients[i] = -1;
		}
		n = 0;
		for (unsigned i = 0; i < live; i++) {
			if (clients[i] >= 0) {
				control[n] = control[i];
				clients[n++] = clients[i];
			}
		}
		for (unsigned k = 0; k < 2; k++) {
			int c;

			if (!(pfd[k].revents & POLLIN))
				continue;
			c = accept4(pfd[k].fd, NULL, NULL, SOCK_CLOEXEC);
			if (c >= 0 && n < RELAY_MAX_CLIENTS) {
				control[n] = k == 1;
				clients[n++] = c;
			} else if (c >= 0) {
				close(c);
			}
		}
	}
	for (unsigned i = 0; i < n; i++)
		close(clients[i]);
	return UIE_OK;
}

int uie_vmrelay_run(const struct uie_vmrelay_opts *o, volatile sig_atomic_t *stop)
{
	struct relay rl = { .o = o, .port = o->port_fd, .pagemap = -1, .next_id = 1 };
	int lfd = -1, cfd = -1, r;

	if (rl.port < 0 && (r = uie_bridge_connect(o->port, &rl.port)) != UIE_OK) {
		fprintf(stderr, "uie-vmrelay: %s: %s\n", o->port, uie_err_str(r));
		return r;
	}
	rl.pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (rl.pagemap < 0) {
		fprintf(stderr, "uie-vmrelay: /proc/self/pagemap: %s\n", strerror(errno));
		if (o->client_fd >= 0)
			close(o->client_fd);
		close(rl.port);
		return UIE_E_SYS;
	}
	r = UIE_OK;
	if ((o->socket && (r = listen_local(o->socket, SOCK_SEQPACKET, &lfd)) != UIE_OK) ||
	    (o->control && (r = listen_local(o->control, SOCK_STREAM, &cfd)) != UIE_OK)) {
		fprintf(stderr, "uie-vmrelay: %s: %s\n", o->socket && lfd < 0 ? o->socket : o->control,
			uie_err_str(r));
		if (lfd >= 0)
			close(lfd);
		if (o->client_fd >= 0)
			close(o->client_fd);
		close(rl.pagemap);
		close(rl.port);
		return r;
	}
	if (o->ready_fd >= 0) {
		if (write(o->ready_fd, "READY\n", 6) != 6)
			r = UIE_E_SYS;
		close(o->ready_fd);
	}
	if (r == UIE_OK)
		r = serve(&rl, lfd, cfd, stop);
	else if (o->client_fd >= 0)
		close(o->client_fd);
	if (cfd >= 0)
		close(cfd);
	if (lfd >= 0)
		close(lfd);
	close(rl.pagemap);
	close(rl.port);
	return r;
}
