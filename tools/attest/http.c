/* SPDX-License-Identifier: Apache-2.0 */
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "uie/err.h"

#define REPLY_MAX (16u << 20)

struct uie_http {
	CURL *c;
	char *base;
	char *auth; /* "Authorization: Bearer ...", or NULL */
	char err[CURL_ERROR_SIZE];
	bool quiet;
};

struct sink {
	char *p;
	size_t len;
	int too_big;
};

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;
	size_t add = size * n;
	char *np;

	if (add > REPLY_MAX - s->len || !(np = realloc(s->p, s->len + add + 1))) {
		s->too_big = 1;
		return 0;
	}
	memcpy(np + s->len, p, add);
	s->p = np;
	s->len += add;
	s->p[s->len] = '\0';
	return add;
}

int uie_http_open_alloc(const struct uie_http_opts *o, struct uie_http **out)
{
	struct uie_http *h = calloc(1, sizeof(*h));

	*out = NULL;
	if (!h || !(h->c = curl_easy_init()) || !(h->base = strdup(o->base)) ||
	    (o->bearer && asprintf(&h->auth, "Authorization: Bearer %s", o->bearer) < 0)) {
		uie_http_free(h);
		return UIE_E_NOMEM;
	}
	h->quiet = o->quiet;
	curl_easy_setopt(h->c, CURLOPT_ERRORBUFFER, h->err);
	curl_easy_setopt(h->c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->c, CURLOPT_TIMEOUT_MS, o->timeout_ms ? o->timeout_ms : 30000L);
	curl_easy_setopt(h->c, CURLOPT_WRITEFUNCTION, on_data);
	if (o->cacert)
		curl_easy_setopt(h->c, CURLOPT_CAINFO, o->cacert);
	if (o->cert)
		curl_easy_setopt(h->c, CURLOPT_SSLCERT, o->cert);
	if (o->key)
		curl_easy_setopt(h->c, CURLOPT_SSLKEY, o->key);
	*out = h;
	return UIE_OK;
}

void uie_http_free(struct uie_http *h)
{
	if (!h)
		return;
	if (h->c)
		curl_easy_cleanup(h->c);
	free(h->base);
	free(h->auth);
	free(h);
}

/* hdr with line appended; NULL (hdr freed) when out of memory. */
static struct curl_slist *append_header(struct curl_slist *hdr, const char *line)
{
	struct curl_slist *n = curl_slist_append(hdr, line);

	if (!n)
		curl_slist_free_all(hdr);
	return n;
}

int uie_http_raw(struct uie_http *h, const char *method, const char *path, const char *body, size_t len,
		 const char *content_type, long *status, json_t **reply)
{
	struct curl_slist *hdr = NULL;
	struct sink s = { 0 };
	char url[2048], ct[128];
	CURLcode rc;

	*status = 0;
	*reply = NULL;
	if (snprintf(url, sizeof(url), "%s%s", h->base, path) >= (int)sizeof(url))
		return UIE_E_LIMIT;
	if (body) {
		snprintf(ct, sizeof(ct), "Content-Type: %s", content_type);
		if (!(hdr = curl_slist_append(NULL, ct)))
			return UIE_E_NOMEM;
	}
	if (h->auth && !(hdr = append_header(hdr, h->auth)))
		return UIE_E_NOMEM;
	curl_easy_setopt(h->c, CURLOPT_URL, url);
	curl_easy_setopt(h->c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h->c, CURLOPT_WRITEDATA, &s);
	if (strcmp(method, "GET") == 0) {
		curl_easy_setopt(h->c, CURLOPT_HTTPGET, 1L);
	} else {
		/* A POST without a body still says Content-Length: 0. */
		curl_easy_setopt(h->c, CURLOPT_POSTFIELDS, body ? body : "");
		curl_easy_setopt(h->c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? len : 0));
	}
	curl_easy_setopt(h->c, CURLOPT_CUSTOMREQUEST, method);
	h->err[0] = '\0';
	rc = curl_easy_perform(h->c);
	curl_slist_free_all(hdr);
	curl_easy_setopt(h->c, CURLOPT_HTTPHEADER, NULL);
	if (rc != CURLE_OK) {
		free(s.p);
		if (!h->quiet)
			fprintf(stderr, "%s: %s\n", url,
				s.too_big   ? "answer too large"
				: h->err[0] ? h->err
					    : curl_easy_strerror(rc));
		return UIE_E_PEER;
	}
	curl_easy_getinfo(h->c, CURLINFO_RESPONSE_CODE, status);
	if (s.p)
		*reply = json_loadb(s.p, s.len, 0, NULL);
	free(s.p);
	return UIE_OK;
}

int uie_http_json(struct uie_http *h, const char *method, const char *path, const json_t *body, long *status,
		  json_t **reply)
{
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	int r;

	*status = 0;
	*reply = NULL;
	if (body && !text)
		return UIE_E_NOMEM;
	r = uie_http_raw(h, method, path, text, text ? strlen(text) : 0, "application/json", status, reply);
	free(text);
	return r;
}
