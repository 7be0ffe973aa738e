/* SPDX-License-Identifier: Apache-2.0 */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "admin.h"
#include "db.h"
#include "deadline.h"
#include "fileio.h"
#include "hex.h"
#include "ratelimit.h"
#include "relay.h"
#include "route.h"
#include "tls.h"
#include "uie/err.h"
#include "uie/sys.h"

#define CONNECTIONS_MAX 1024

struct vd_server {
	struct MHD_Daemon *d;
	struct vd_relay *relay; /* owns the clients' connections (relay.h) */
	SSL_CTX *tls;           /* or NULL: plain HTTP */
	const struct vd_ctx *ctx;
	struct vd_rate *rate;
	bool client_ca;
	const char *admin_token; /* or NULL: no administrator */
	struct vd_deadlines *deadlines;
};

/* A request being read: its body so far. */
struct pending {
	char *body;
	size_t len, cap;
	bool too_big;
};

/* A request ends: its body is freed, and the connection's next request has the whole deadline. */
static void pending_free(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	const struct vd_server *s = cls;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn,
								     MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct pending *p = *con_cls;

	(void)toe;
	if (ci && ci->socket_context)
		vd_deadline_renew(s->deadlines, ci->socket_context);
	if (p)
		free(p->body);
	free(p);
	*con_cls = NULL;
}

/* A connection's deadline, from its start to its end. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	const struct vd_server *s = cls;
	const union MHD_ConnectionInfo *ci;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		*socket_context = ci ? vd_deadline_begin(s->deadlines, ci->connect_fd) : NULL;
	} else if (*socket_context) {
		vd_deadline_end(s->deadlines, *socket_context);
		*socket_context = NULL;
	}
}

static enum MHD_Result send_reply(struct MHD_Connection *conn, struct vd_reply *rep)
{
	char *text = rep->json ? json_dumps(rep->json, JSON_COMPACT) : NULL;
	struct MHD_Response *r;
	enum MHD_Result ret;

	json_decref(rep->json);
	rep->json = NULL;
	if (!text && rep->status != 204) {
		rep->status = 500;
		text = strdup("{\"error\":\"internal\",\"reason\":\"out of memory\"}");
	}
	r = MHD_create_response_from_buffer(text ? strlen(text) : 0, text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	if (text)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	if (rep->close)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (rep->retry_after) {
		char s[16];

		snprintf(s, sizeof(s), "%u", rep->retry_after);
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, s);
	}
	ret = MHD_queue_response(conn, rep->status, r);
	MHD_destroy_response(r);
	return ret;
}

/* A TLS client that presented a certificate our client CA signed (the relay's handshake said so). */
static bool client_verified(const struct vd_server *s, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	return ci && vd_relay_client_verified(s->relay, ci->connect_fd);
}

/* Whether the client's address is within the rate limit; else a 429 in rep. */
static bool within_rate(const struct vd_server *s, struct MHD_Connection *conn, struct vd_reply *rep)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn,
								     MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	uint64_t addr = 0;

	if (!s->rate)
		return true;
	/* The server listens on IPv4 only: the address is the key. */
	if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET)
		addr = ((const struct sockaddr_in *)(const void *)ci->client_addr)->sin_addr.s_addr;
	if (vd_rate_take(s->rate, addr, uie_now_ns(), &rep->retry_after))
		return true;
	vd_reply_error(rep, 429, "rate_limited", "too many requests from this address: retry after %u s",
		       rep->retry_after);
	return false;
}

/* Whether the caller may make a call of this access; else a 403 in rep, before the body is looked at. */
static bool admitted(const struct vd_server *s, struct MHD_Connection *conn, enum vd_access access,
		     struct vd_reply *rep)
{
	const char *auth;

	if (access == VD_ANYONE || (access == VD_ADMIN_IF_ON && !s->admin_token))
		return true;
	auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	switch (vd_admin_check(s->admin_token, auth)) {
	case VD_ADMIN_OK: return true;
	case VD_ADMIN_DISABLED:
		vd_reply_error(rep, 403, "admin_disabled",
			       "administrative calls are off: this verifier has no --admin-token");
		return false;
	case VD_ADMIN_REQUIRED: break;
	}
	vd_reply_error(rep, 403, "admin_required",
		       "an administrative call needs Authorization: Bearer TOKEN");
	return false;
}

static bool json_content(struct MHD_Connection *conn)
{
	const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);

	return ct && strncmp(ct, "application/json", 16) == 0 && (ct[16] == '\0' || ct[16] == ';');
}

static void serve(const struct vd_server *s, struct MHD_Connection *conn, const char *url, const char *method,
		  const struct pending *p, struct vd_reply *rep)
{
	char id[VD_ID_MAX + 1];
	struct vd_request req = { .id = id, .body = p->body, .body_len = p->len };
	enum vd_access access = VD_ADMIN;
	struct vd_conn *c;
	vd_handler *fn;

	if (s->client_ca && !client_verified(s, conn)) {
		vd_reply_error(rep, 403, "client_cert", "a client certificate signed by our CA is required");
		return;
	}
	if (p->too_big) {
		vd_reply_error(rep, 413, "too_large", "body larger than %zu bytes", s->ctx->cfg->max_body);
		return;
	}
	if (!(fn = vd_route(method, url, id, &access, rep)) || !admitted(s, conn, access, rep))
		return;
	if (p->len && !json_content(conn)) {
		vd_reply_error(rep, 415, "content_type", "a body must be application/json");
		return;
	}
	req.limit = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "limit");
	c = vd_db_acquire(s->ctx->db);
	fn(s->ctx, c, &req, rep);
	vd_db_release(s->ctx->db, c);
}

/* Appends a piece of the body, or marks it too big (and drops it). */
static void take(struct pending *p, size_t max, const char *data, size_t n)
{
	char *nb;

	if (p->too_big || n > max - p->len) {
		p->too_big = true;
		free(p->body);
		p->body = NULL;
		p->len = p->cap = 0;
		return;
	}
	if (p->len + n + 1 > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;

		while (cap < p->len + n + 1)
			cap *= 2;
		if (!(nb = realloc(p->body, cap))) {
			p->too_big = true; /* answered 413: this verifier cannot hold it */
			return;
		}
		p->body = nb;
		p->cap = cap;
	}
	memcpy(p->body + p->len, data, n);
	p->len += n;
	p->body[p->len] = '\0';
}

/*
 * What libmicrohttpd lets through but HTTP/1.1 refuses (RFC 9112 3.2, 6.1): a request without Host;
 * a Content-Length beside a Transfer-Encoding (which one frames the body?); a Transfer-Encoding
 * other than chunked (the library would wait for the body's end until the connection's).  Else a
 * 400 or 501 in rep, and the connection is closed after it.
 */
static bool head_ok(struct MHD_Connection *conn, const char *version, const char *cl, struct vd_reply *rep)
{
	const char *te = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_TRANSFER_ENCODING);

	if (strcmp(version, MHD_HTTP_VERSION_1_1) == 0 &&
	    !MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST))
		vd_reply_error(rep, 400, "bad_request", "an HTTP/1.1 request without a Host header");
	else if (cl && te)
		vd_reply_error(rep, 400, "bad_request", "both Content-Length and Transfer-Encoding");
	else if (te && strcasecmp(te, "chunked") != 0)
		vd_reply_error(rep, 501, "not_implemented",
			       "Transfer-Encoding %.64s is not implemented: only chunked", te);
	else
		return true;
	rep->close = true;
	return false;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				  const char *version, const char *upload_data, size_t *upload_size,
				  void **con_cls)
{
	const struct vd_server *s = cls;
	struct pending *p = *con_cls;
	struct vd_reply rep = { 0 };
	const char *cl;
	uint64_t announced;

	if (!p) {
		if (!(p = calloc(1, sizeof(*p))))
			return MHD_NO;
		*con_cls = p;
		if (!within_rate(s, conn, &rep))
			return send_reply(conn, &rep); /* before the body is read, nothing stored */
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (!head_ok(conn, version, cl, &rep))
			return send_reply(conn, &rep);
		if (!cl || (uie_parse_u64(cl, &announced) == UIE_OK && announced <= s->ctx->cfg->max_body))
			return MHD_YES;
		p->too_big = true; /* answered before the body is read */
	} else if (*upload_size) {
		take(p, s->ctx->cfg->max_body, upload_data, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	/*
	 * After a body too large (unread, or read and dropped) the connection is closed; after the
	 * answer to a HEAD too: it announces a body it does not carry, and the relay frames the
	 * answers by their Content-Length (resphead.h).
	 */
	rep.close = p->too_big || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
	serve(s, conn, url, method, p, &rep);
	return send_reply(conn, &rep);
}

/*
 * libmicrohttpd's messages, but for those of the TCP options it tries on the relay's socketpairs,
 * which have none (a socketpair has no delay to push either).
 */
__attribute__((format(printf, 2, 0))) static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	if (strncmp(fmt, "Setting %s option to %s state failed", 36) != 0 &&
	    strncmp(fmt, "Failed to push the data", 23) != 0)
		vfprintf(stderr, fmt, ap);
}

/* The listening socket on sa, non-blocking (the relay accepts); bound here: errno is ours to name. */
static int listen_on(const struct sockaddr_in *sa)
{
	int one = 1, e, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 &&
	    bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0 && listen(fd, SOMAXCONN) == 0)
		return fd;
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

void vd_server_free(struct vd_server *s)
{
	if (!s)
		return;
	vd_relay_stop(s->relay); /* the clients' connections first: nothing more comes in */
	if (s->d)
		MHD_stop_daemon(s->d);
	vd_deadlines_stop(s->deadlines);
	SSL_CTX_free(s->tls);
	free(s);
}

int vd_server_start_alloc(const struct vd_ctx *ctx, const struct vd_server_opts *o, struct vd_server **out,
			  uint16_t *port, char why[VD_SERVER_WHY_LEN])
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(o->port),
				  .sin_addr.s_addr = htonl(o->addr) };
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_USE_EPOLL |
			 MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC;
	struct vd_server *s = calloc(1, sizeof(*s));
	socklen_t sl = sizeof(sa);
	int lfd = -1, r;

	*out = NULL;
	why[0] = '\0';
	if (!s)
		return UIE_E_NOMEM;
	s->ctx = ctx;
	s->rate = o->rate;
	s->client_ca = o->client_ca != NULL;
	s->admin_token = o->admin_token;
	if (o->tls_cert &&
	    (r = vd_tls_ctx_alloc(o->tls_cert, o->tls_key, o->client_ca, &s->tls, why)) != UIE_OK) {
		vd_server_free(s);
		return r;
	}
	if ((lfd = listen_on(&sa)) < 0 || getsockname(lfd, (struct sockaddr *)&sa, &sl) != 0) {
		r = errno;
		if (lfd >= 0)
			close(lfd);
		vd_server_free(s);
		errno = r;
		return uie_err_from_errno(r);
	}
	if (!(s->deadlines = vd_deadlines_start(o->request_timeout))) {
		close(lfd);
		vd_server_free(s);
		return UIE_E_NOMEM;
	}
	s->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log,
				NULL, MHD_OPTION_THREAD_POOL_SIZE, o->threads, MHD_OPTION_CONNECTION_LIMIT,
				CONNECTIONS_MAX, MHD_OPTION_PER_IP_CONNECTION_LIMIT, o->per_client,
				MHD_OPTION_CONNECTION_TIMEOUT, o->idle_timeout, MHD_OPTION_NOTIFY_COMPLETED,
				pending_free, s, MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
				MHD_OPTION_END);
	if (!s->d) {
		close(lfd);
		vd_server_free(s);
		snprintf(why, VD_SERVER_WHY_LEN, "the HTTP server did not start");
		return UIE_E_SYS;
	}
	if ((r = vd_relay_start_alloc(lfd, s->d, s->tls, &s->relay)) != UIE_OK) {
		snprintf(why, VD_SERVER_WHY_LEN, "the connection relay did not start: %s", strerror(errno));
		vd_server_free(s);
		return r;
	}
	*port = ntohs(sa.sin_port);
	*out = s;
	return UIE_OK;
}
