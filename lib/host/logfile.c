/* SPDX-License-Identifier: Apache-2.0 */
#include "logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "uie/buf.h"
#include "uie/err.h"
#include "uie/package.h"

/* The log file header (docs/FORMATS.md 3.6) holds the run's 16-byte boot id. */
_Static_assert(UIE_BOOT_ID_LEN == 16, "log file header boot_id is 16 bytes");

int uie_logfile_hdr_encode(const struct uie_logfile_hdr *hdr, uint8_t out[UIE_LOGFILE_HDR_LEN])
{
	struct uie_wbuf w;

	if (!hdr || !out || (hdr->flags & ~UIE_LOGFILE_FIRST_SEEN) || hdr->boot == 0)
		return UIE_E_INVAL;
	uie_wbuf_init(&w, out, UIE_LOGFILE_HDR_LEN);
	uie_wbuf_bytes(&w, UIE_LOGFILE_MAGIC, 8);
	uie_wbuf_u16(&w, UIE_LOGFILE_VERSION);
	uie_wbuf_u16(&w, UIE_LOG_RECORD_LEN);
	uie_wbuf_u32(&w, hdr->flags);
	uie_wbuf_u64(&w, hdr->boot);
	uie_wbuf_bytes(&w, hdr->boot_id, UIE_BOOT_ID_LEN);
	uie_wbuf_u64(&w, hdr->first_seq);
	uie_wbuf_bytes(&w, hdr->start_pcr, UIE_PCR_LEN);
	return w.err == UIE_OK && w.len == UIE_LOGFILE_HDR_LEN ? UIE_OK : UIE_E_OVERFLOW;
}

static int hdr_parse(struct uie_rbuf *b, struct uie_logfile_hdr *h)
{
	const uint8_t *magic;
	uint16_t version, reclen;
	int r;

	if ((r = uie_rbuf_view(b, &magic, 8)) != UIE_OK)
		return r;
	if (memcmp(magic, UIE_LOGFILE_MAGIC, 8) != 0)
		return UIE_E_FORMAT;
	if ((r = uie_rbuf_u16(b, &version)) != UIE_OK || (r = uie_rbuf_u16(b, &reclen)) != UIE_OK)
		return r;
	if (version != UIE_LOGFILE_VERSION)
		return UIE_E_VERSION;
	if (reclen != UIE_LOG_RECORD_LEN)
		return UIE_E_FORMAT;
	if ((r = uie_rbuf_u32(b, &h->flags)) != UIE_OK || (r = uie_rbuf_u64(b, &h->boot)) != UIE_OK ||
	    (r = uie_rbuf_bytes(b, h->boot_id, UIE_BOOT_ID_LEN)) != UIE_OK ||
	    (r = uie_rbuf_u64(b, &h->first_seq)) != UIE_OK ||
	    (r = uie_rbuf_bytes(b, h->start_pcr, UIE_PCR_LEN)) != UIE_OK)
		return r;
	if ((h->flags & ~UIE_LOGFILE_FIRST_SEEN) || h->boot == 0)
		return UIE_E_FORMAT;
	/* A log from record 0 starts where the monitor does: vPCR16 zero. */
	for (size_t i = 0; h->first_seq == 0 && i < UIE_PCR_LEN; i++)
		if (h->start_pcr[i])
			return UIE_E_FORMAT;
	return UIE_OK;
}

/* Tracks the policy in force through the records. */
static void follow_policy(struct uie_logfile_info *out, const struct uie_log_record *rec)
{
	if (rec->event_type != UIE_LOG_POLICY_INSTALL && rec->event_type != UIE_LOG_POLICY_RESTORE)
		return;
	out->have_policy = true;
	out->epoch = rec->epoch;
	memcpy(out->policy_id, rec->digest.bytes, UIE_SHA256_LEN);
}

int uie_logfile_parse(const struct uie_platform *pl, const uint8_t *buf, size_t len,
		      struct uie_logfile_info *out)
{
	struct uie_log_record rec;
	struct uie_rbuf b;
	uint64_t bad = 0;
	size_t body;
	int r;

	if (!out)
		return UIE_E_INVAL;
	memset(out, 0, sizeof(*out));
	if (!pl || (!buf && len))
		return UIE_E_INVAL;
	uie_rbuf_init(&b, buf, len);
	if ((r = hdr_parse(&b, &out->hdr)) != UIE_OK) {
		out->bad_offset = b.off;
		return r;
	}
	body = len - UIE_LOGFILE_HDR_LEN;
	out->records = buf + UIE_LOGFILE_HDR_LEN;
	memcpy(out->end_pcr, out->hdr.start_pcr, UIE_PCR_LEN);
	for (size_t i = 0; i < body / UIE_LOG_RECORD_LEN; i++) {
		const uint8_t *p = out->records + i * UIE_LOG_RECORD_LEN;

		out->bad_offset = UIE_LOGFILE_HDR_LEN + i * UIE_LOG_RECORD_LEN;
		if (out->hdr.first_seq + i < out->hdr.first_seq)
			return UIE_E_FORMAT; /* numbering would wrap */
		if ((r = uie_log_replay(pl, p, UIE_LOG_RECORD_LEN, out->hdr.first_seq + i, out->end_pcr,
					&bad)) != UIE_OK)
			return r;
		if ((r = uie_log_decode(p, UIE_LOG_RECORD_LEN, &rec)) != UIE_OK)
			return r;
		follow_policy(out, &rec);
		out->nrecords++;
	}
	if (body % UIE_LOG_RECORD_LEN) {
		out->bad_offset = UIE_LOGFILE_HDR_LEN + out->nrecords * UIE_LOG_RECORD_LEN;
		return UIE_E_TRUNCATED;
	}
	out->bad_offset = 0;
	return UIE_OK;
}

/* Writes all of p at the end of the file; cuts back a partial write. */
static int write_whole(struct uie_logfile *lf, const void *p, size_t n)
{
	const uint8_t *q = p;
	size_t done = 0;
	int e;

	while (done < n) {
		ssize_t w = write(lf->fd, q + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			e = w < 0 ? errno : ENOSPC;
			if (done && ftruncate(lf->fd, (off_t)lf->len) != 0)
				lf->broken = true; /* a partial record stays: no more appends */
			return uie_err_from_errno(e);
		}
		done += (size_t)w;
	}
	if (lf->sync && fdatasync(lf->fd) != 0) {
		e = errno;
		if (ftruncate(lf->fd, (off_t)lf->len) != 0)
			lf->broken = true;
		return uie_err_from_errno(e);
	}
	lf->len += n;
	return UIE_OK;
}

int uie_logfile_create(const char *path, const struct uie_logfile_hdr *hdr, bool sync, struct uie_logfile *lf)
{
	uint8_t h[UIE_LOGFILE_HDR_LEN];
	int r;

	lf->fd = -1;
	lf->len = 0;
	lf->sync = sync;
	lf->broken = false;
	if ((r = uie_logfile_hdr_encode(hdr, h)) != UIE_OK)
		return r;
	lf->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (lf->fd < 0)
		return uie_err_from_errno(errno);
	lf->sync = true; /* the header is always made durable */
	r = write_whole(lf, h, sizeof(h));
	lf->sync = sync;
	if (r != UIE_OK) {
		close(lf->fd);
		unlink(path);
		lf->fd = -1;
	}
	return r;
}

int uie_logfile_append(struct uie_logfile *lf, const uint8_t rec[UIE_LOG_RECORD_LEN])
{
	if (!lf || lf->fd < 0 || lf->broken)
		return UIE_E_STATE;
	return write_whole(lf, rec, UIE_LOG_RECORD_LEN);
}

int uie_logfile_sync(struct uie_logfile *lf)
{
	if (!lf || lf->fd < 0)
		return UIE_E_STATE;
	return fdatasync(lf->fd) == 0 ? UIE_OK : uie_err_from_errno(errno);
}

void uie_logfile_close(struct uie_logfile *lf)
{
	if (!lf)
		return;
	if (lf->fd >= 0)
		close(lf->fd);
	lf->fd = -1;
}

void uie_pkgfile_hdr(uint64_t boot, uint8_t out[UIE_PKGFILE_HDR_LEN])
{
	/* NOLINTNEXTLINE(bugprone-not-null-terminated-result): an 8-byte magic, not a string */
	memcpy(out, UIE_PKGFILE_MAGIC, 8);
	uie_put_le64(out + 8, boot);
}

void uie_pkgfile_entry_hdr(uint32_t len, uint8_t out[UIE_PKGFILE_ENTRY_HDR_LEN])
{
	uie_put_le32(out, len);
	memset(out + 4, 0, 4);
}

int uie_pkgfile_find(const struct uie_platform *pl, const uint8_t *buf, size_t len,
		     const uint8_t want_hash[UIE_SHA256_LEN], size_t *off, size_t *plen)
{
	const uint8_t *magic, *pkg;
	struct uie_package p;
	struct uie_rbuf b;
	uint64_t boot;
	uint32_t n;
	bool found = false;
	int r;

	*off = *plen = 0;
	if (!pl || (!buf && len) || !want_hash)
		return UIE_E_INVAL;
	uie_rbuf_init(&b, buf, len);
	if ((r = uie_rbuf_view(&b, &magic, 8)) != UIE_OK || (r = uie_rbuf_u64(&b, &boot)) != UIE_OK)
		return r;
	if (memcmp(magic, UIE_PKGFILE_MAGIC, 8) != 0 || boot == 0)
		return UIE_E_FORMAT;
	while (b.off < b.len) {
		if ((r = uie_rbuf_u32(&b, &n)) != UIE_OK || (r = uie_rbuf_zero(&b, 4)) != UIE_OK)
			return r;
		if (n > UIE_PACKAGE_MAX_LEN)
			return UIE_E_LIMIT;
		if ((r = uie_rbuf_view(&b, &pkg, n)) != UIE_OK)
			return r;
		if (uie_package_parse(pl, pkg, n, &p) != UIE_OK)
			return UIE_E_FORMAT;
		if (memcmp(p.package_hash, want_hash, UIE_SHA256_LEN) == 0) {
			found = true;
			*off = (size_t)(pkg - buf);
			*plen = n;
		}
	}
	return found ? UIE_OK : UIE_E_NOTFOUND;
}
