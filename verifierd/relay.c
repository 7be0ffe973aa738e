/* SPDX-License-Identifier: Apache-2.0 */
#include "relay.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>

#include "resphead.h"
#include "tls.h"
#include "uie/buf.h"
#include "uie/err.h"
#include "uie/sys.h"

#define CONNS 1280      /* libmicrohttpd's 1024 and some being refused */
#define BUF 16384       /* each direction's buffer */
#define ROUNDS 16       /* of a connection's pumping before the next's turn */
#define LINGER_MS 5000u /* for a client to take its last answer and close */
#define NFD_MAX 1048576
#define KEY_LISTEN UINT64_MAX
#define KEY_STOP (UINT64_MAX - 1)

/* What a transfer did: bytes moved (> 0), or one of these. */
#define IO_WAIT 0
#define IO_EOF (-1)
#define IO_FAIL (-2)

struct conn {
	int cfd; /* the client's socket */
	int rfd; /* ours of the pair; -1 once libmicrohttpd is done with it */
	int mfd; /* libmicrohttpd's: the index of verified[] */
	SSL *ssl;
	bool handshaken;      /* or no TLS */
	bool ssl_in, ssl_out; /* OpenSSL waits for the socket to read, to write */
	bool ssl_dead;        /* a fatal TLS error: no close_notify */
	bool client_eof;      /* the client sent its last byte */
	bool up_shut;         /* and libmicrohttpd was told so (its end shut for reading) */
	bool up_dead;         /* libmicrohttpd takes no more: what the client sends goes nowhere */
	bool again; /* its turn ended still moving bytes (OpenSSL may hold some the socket does not show) */
	bool shut;  /* all is sent: our side is shut, the client's drained until it closes */
	uint32_t cev, rev; /* the events asked of epoll; 0: not registered */
	uint64_t done_ms;  /* when libmicrohttpd closed its end (uie_now_ms) */
	struct vd_resp_stream resp;
	/* The client's bytes to libmicrohttpd, its answers as read, and as sent to the client. */
	struct uie_wbuf up, rx, down;
	uint8_t up_mem[BUF], rx_mem[BUF], down_mem[BUF];
};

struct vd_relay {
	int lfd, ep, stop;
	bool paused; /* out of descriptors: not accepting for a while */
	bool again;  /* a connection wants another turn without waiting for the sockets */
	uint64_t swept_ms;
	struct MHD_Daemon *d;
	SSL_CTX *tls;
	pthread_t thread;
	size_t nfd;
	atomic_bool *verified; /* by libmicrohttpd's socket */
	struct conn *conn[CONNS];
};

/* Asks epoll for want on fd (cur: what it has now), adding or removing fd as needed. */
static void watch(const struct vd_relay *r, int fd, uint32_t *cur, uint32_t want, uint64_t key)
{
	struct epoll_event ev = { .events = want, .data.u64 = key };

	if (want == *cur)
		return;
	/* Nothing wanted: removed, so that a hang-up is not reported over and over. */
	if (epoll_ctl(r->ep, !want ? EPOLL_CTL_DEL : *cur ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev) == 0)
		*cur = want;
}

static void interests(const struct vd_relay *r, size_t i)
{
	struct conn *c = r->conn[i];
	bool up = c->handshaken && !c->client_eof && !c->up_dead && c->rfd >= 0 && c->up.len < BUF;

	watch(r, c->cfd, &c->cev,
	      ((up || c->ssl_in || c->shut) ? EPOLLIN : 0) | ((c->down.len || c->ssl_out) ? EPOLLOUT : 0),
	      (uint64_t)i << 1);
	if (c->rfd >= 0)
		watch(r, c->rfd, &c->rev, (c->rx.len < BUF ? EPOLLIN : 0) | (c->up.len ? EPOLLOUT : 0),
		      (uint64_t)i << 1 | 1);
}

/* fd read by epoll ep, its events marked key. */
static bool add_key(int ep, int fd, uint64_t key)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = key };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0;
}

static void resume(struct vd_relay *r)
{
	if (r->paused && add_key(r->ep, r->lfd, KEY_LISTEN))
		r->paused = false;
}

static void conn_close(struct vd_relay *r, size_t i)
{
	struct conn *c = r->conn[i];

	if (c->ssl) {
		if (c->handshaken && !c->ssl_dead && !c->shut)
			SSL_shutdown(c->ssl); /* close_notify, not waiting for the client's */
		SSL_free(c->ssl);
		ERR_clear_error();
	}
	close(c->cfd);
	if (c->rfd >= 0)
		close(c->rfd);
	free(c);
	r->conn[i] = NULL;
	resume(r);
}

/* What an OpenSSL call that returned ret did (n bytes when it succeeded). */
static ssize_t tls_result(struct conn *c, int ret, size_t n)
{
	switch (SSL_get_error(c->ssl, ret)) {
	case SSL_ERROR_NONE: return (ssize_t)n;
	case SSL_ERROR_WANT_READ: c->ssl_in = true; return IO_WAIT;
	case SSL_ERROR_WANT_WRITE: c->ssl_out = true; return IO_WAIT;
	case SSL_ERROR_ZERO_RETURN: return IO_EOF;
	default: break;
	}
	c->ssl_dead = true;
	ERR_clear_error();
	return IO_FAIL;
}

static ssize_t sock_result(ssize_t k)
{
	return k > 0 ? k : k == 0 ? IO_EOF : (errno == EAGAIN || errno == EINTR) ? IO_WAIT : IO_FAIL;
}

static ssize_t client_read(struct conn *c, uint8_t *p, size_t n)
{
	size_t got = 0;
	int ret;

	if (!c->ssl)
		return sock_result(recv(c->cfd, p, n, 0));
	ret = SSL_read_ex(c->ssl, p, n, &got);
	return tls_result(c, ret, got);
}

static ssize_t client_write(struct conn *c, const uint8_t *p, size_t n)
{
	size_t put = 0;
	ssize_t k;
	int ret;

	if (!c->ssl) {
		k = send(c->cfd, p, n, MSG_NOSIGNAL);
		return k == 0 ? IO_WAIT : sock_result(k);
	}
	ret = SSL_write_ex(c->ssl, p, n, &put);
	return tls_result(c, ret, put);
}

/* libmicrohttpd is done with the connection: what the client still sends goes nowhere. */
static void mhd_done(struct conn *c)
{
	close(c->rfd);
	c->rfd = -1;
	c->rev = 0;
	c->up.len = 0;
	c->done_ms = uie_now_ms();
}

/* The client's side: the TLS handshake, then its bytes into up and down's to it. IO_FAIL: it is gone. */
static ssize_t client_side(struct vd_relay *r, struct conn *c, bool *moved)
{
	ssize_t k;

	if (!c->handshaken) {
		if ((k = tls_result(c, SSL_accept(c->ssl), 1)) <= 0)
			return k == IO_WAIT ? IO_WAIT : IO_FAIL;
		c->handshaken = true;
		atomic_store(&r->verified[c->mfd], vd_tls_client_verified(c->ssl));
		*moved = true;
	}
	while (!c->client_eof && !c->up_dead && c->rfd >= 0 && c->up.len < BUF &&
	       (k = client_read(c, c->up.p + c->up.len, BUF - c->up.len)) != IO_WAIT) {
		if (k == IO_FAIL)
			return IO_FAIL;
		if (k == IO_EOF)
			c->client_eof = true;
		else
			c->up.len += (size_t)k;
		*moved = true;
	}
	if (c->down.len && (k = client_write(c, c->down.p, c->down.len)) != IO_WAIT) {
		if (k < 0)
			return IO_FAIL;
		uie_wbuf_drop(&c->down, (size_t)k);
		*moved = true;
	}
	return IO_WAIT;
}

/* libmicrohttpd's side: up into its socket, its answers through the response stream into down. */
static void mhd_side(struct conn *c, bool *moved)
{
	struct uie_rbuf in;
	ssize_t k;

	if (c->up.len && c->rfd >= 0 &&
	    (k = sock_result(send(c->rfd, c->up.p, c->up.len, MSG_NOSIGNAL))) != IO_WAIT) {
		if (k > 0) {
			uie_wbuf_drop(&c->up, (size_t)k);
		} else { /* it closed: what it answered is still to be read */
			c->up.len = 0;
			c->up_dead = true;
		}
		*moved = true;
	}
	if (c->client_eof && !c->up.len && !c->up_shut && c->rfd >= 0) {
		shutdown(c->rfd, SHUT_WR);
		c->up_shut = true;
	}
	while (c->rfd >= 0 && c->rx.len < BUF &&
	       (k = sock_result(recv(c->rfd, c->rx.p + c->rx.len, BUF - c->rx.len, 0))) != IO_WAIT) {
		if (k < 0)
			mhd_done(c);
		else
			c->rx.len += (size_t)k;
		*moved = true;
	}
	uie_rbuf_init(&in, c->rx.p, c->rx.len);
	vd_resp_feed(&c->resp, &in, &c->down);
	if (in.off) {
		uie_wbuf_drop(&c->rx, in.off);
		*moved = true;
	}
	if (c->resp.state == VD_RESP_DONE && c->rfd >= 0)
		mhd_done(c); /* a reply replaced: the connection ends with it */
}

/*
 * After the last answer: our side shut, the client's drained until it closes (closing with its
 * bytes unread would reset the connection, and the client could lose the answer).  False: over.
 */
static bool drain(struct conn *c)
{
	uint8_t junk[4096];
	ssize_t k;

	if (c->ssl && (!c->handshaken || c->ssl_dead))
		return false;
	if (!c->shut) {
		c->shut = true;
		if (c->ssl)
			SSL_shutdown(c->ssl); /* close_notify, sent as far as the socket takes it */
		else
			shutdown(c->cfd, SHUT_WR);
	}
	while ((k = client_read(c, junk, sizeof(junk))) > 0)
		;
	return k == IO_WAIT;
}

/* Moves what can be moved; false when the connection is over. */
static bool pump(struct vd_relay *r, struct conn *c)
{
	bool moved = true;

	c->ssl_in = c->ssl_out = false;
	ERR_clear_error();
	for (unsigned n = 0; moved && n < ROUNDS; n++) {
		moved = false;
		if (client_side(r, c, &moved) == IO_FAIL)
			return false;
		mhd_side(c, &moved);
	}
	c->again = moved;
	return c->rfd >= 0 || c->down.len || drain(c);
}

/* A connection's turn: pumped, then closed or watched for what it waits for. */
static void turn(struct vd_relay *r, size_t i)
{
	if (!pump(r, r->conn[i])) {
		conn_close(r, i);
		return;
	}
	interests(r, i);
	r->again = r->again || r->conn[i]->again;
}

/* A client accepted on fd: its pair, and libmicrohttpd's end handed over. */
static void admit(struct vd_relay *r, int fd, const struct sockaddr *sa, socklen_t sl)
{
	struct conn *c = NULL;
	int sv[2] = { -1, -1 };
	size_t i = 0;

	while (i < CONNS && r->conn[i])
		i++;
	if (i == CONNS || !(c = calloc(1, sizeof(*c))) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0 ||
	    (size_t)sv[1] >= r->nfd ||
	    (r->tls && (!(c->ssl = SSL_new(r->tls)) || SSL_set_fd(c->ssl, fd) != 1)))
		goto refused;
	if (c->ssl)
		SSL_set_accept_state(c->ssl);
	c->handshaken = !c->ssl;
	c->cfd = fd;
	c->rfd = sv[0];
	c->mfd = sv[1];
	uie_wbuf_init(&c->up, c->up_mem, BUF);
	uie_wbuf_init(&c->rx, c->rx_mem, BUF);
	uie_wbuf_init(&c->down, c->down_mem, BUF);
	atomic_store(&r->verified[sv[1]], false);
	sv[1] = -1; /* libmicrohttpd's, whatever the answer */
	if (MHD_add_connection(r->d, c->mfd, sa, sl) != MHD_YES)
		goto refused; /* a limit: the client's connection is closed */
	r->conn[i] = c;
	c->ssl_in = !c->handshaken;
	interests(r, i);
	return;
refused:
	if (c)
		SSL_free(c->ssl);
	ERR_clear_error();
	free(c);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	close(fd);
}

static void accept_all(struct vd_relay *r)
{
	for (;;) {
		struct sockaddr_storage sa;
		socklen_t sl = sizeof(sa);
		int fd = accept4(r->lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd >= 0) {
			admit(r, fd, (const struct sockaddr *)&sa, sl);
		} else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			/* Until a connection closes or a second passes: no busy loop on a queue it cannot take. */
			if (epoll_ctl(r->ep, EPOLL_CTL_DEL, r->lfd, NULL) == 0)
				r->paused = true;
			return;
		} else if (errno != EINTR && errno != ECONNABORTED) {
			return;
		}
	}
}

/* Once a second: clients that neither take their last answer nor close are closed; accepting resumes. */
static void sweep(struct vd_relay *r)
{
	uint64_t t = uie_now_ms();

	if (t - r->swept_ms < 1000u)
		return;
	r->swept_ms = t;
	for (size_t i = 0; i < CONNS; i++)
		if (r->conn[i] && r->conn[i]->rfd < 0 && r->conn[i]->done_ms + LINGER_MS <= t)
			conn_close(r, i);
	resume(r);
}

static void *run(void *arg)
{
	struct vd_relay *r = arg;
	struct epoll_event ev[64];

	for (;;) {
		bool again = r->again;
		int n = epoll_wait(r->ep, ev, 64, again ? 0 : 1000);

		r->again = false;
		for (int k = 0; k < n; k++) {
			uint64_t key = ev[k].data.u64;

			if (key == KEY_STOP)
				return NULL;
			if (key == KEY_LISTEN)
				accept_all(r);
			else if (r->conn[key >> 1])
				turn(r, (size_t)(key >> 1));
		}
		for (size_t i = 0; again && i < CONNS; i++)
			if (r->conn[i] && r->conn[i]->again)
				turn(r, i);
		sweep(r);
	}
}

static size_t fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > NFD_MAX)
		return NFD_MAX;
	return (size_t)rl.rlim_cur;
}

int vd_relay_start_alloc(int lfd, struct MHD_Daemon *d, SSL_CTX *tls, struct vd_relay **out)
{
	struct vd_relay *r = calloc(1, sizeof(*r));
	size_t nfd = fd_limit();
	int e;

	*out = NULL;
	if (!r || !(r->verified = calloc(nfd, sizeof(*r->verified)))) {
		free(r);
		close(lfd);
		return UIE_E_NOMEM;
	}
	r->nfd = nfd;
	r->lfd = lfd;
	r->d = d;
	r->tls = tls;
	r->ep = epoll_create1(EPOLL_CLOEXEC);
	r->stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->ep >= 0 && r->stop >= 0 && add_key(r->ep, lfd, KEY_LISTEN) &&
	    add_key(r->ep, r->stop, KEY_STOP) && (errno = pthread_create(&r->thread, NULL, run, r)) == 0) {
		*out = r;
		return UIE_OK;
	}
	e = errno;
	if (r->ep >= 0)
		close(r->ep);
	if (r->stop >= 0)
		close(r->stop);
	close(lfd);
	free(r->verified);
	free(r);
	errno = e;
	return UIE_E_SYS;
}

bool vd_relay_client_verified(const struct vd_relay *r, int fd)
{
	return fd >= 0 && (size_t)fd < r->nfd && atomic_load(&r->verified[fd]);
}

void vd_relay_stop(struct vd_relay *r)
{
	uint64_t one = 1;

	if (!r)
		return;
	if (write(r->stop, &one, sizeof(one)) == sizeof(one))
		pthread_join(r->thread, NULL);
	for (size_t i = 0; i < CONNS; i++)
		if (r->conn[i])
			conn_close(r, i);
	close(r->lfd);
	close(r->ep);
	close(r->stop);
	free(r->verified);
	free(r);
}
