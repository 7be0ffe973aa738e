/* SPDX-License-Identifier: Apache-2.0 */
/* Table or package file to a loaded table (tablefile.h). */
#include "tablefile.h"

#include <stdlib.h>
#include <string.h>

#include "uie/err.h"

#include "fileio.h"
#include "host_platform.h"

int uie_tablefile_load_alloc(const char *path, uint8_t **buf, struct uie_policy *pol,
			     struct uie_package *pkg, bool *is_pkg)
{
	struct uie_host_platform hp;
	const uint8_t *table;
	size_t len, tlen;
	int r;

	*is_pkg = false;
	if ((r = uie_file_read_alloc(path, UIE_PACKAGE_MAX_LEN, buf, &len)) != UIE_OK)
		return r;
	table = *buf;
	tlen = len;
	if (len >= 8 && !memcmp(*buf, UIE_PACKAGE_MAGIC, 8)) {
		if ((r = uie_host_platform_init(&hp)) == UIE_OK) {
			r = uie_package_parse(&hp.pl, *buf, len, pkg);
			uie_host_platform_fini(&hp);
		}
		if (r == UIE_OK) {
			*is_pkg = true;
			table = pkg->table;
			tlen = pkg->table_len;
		}
	}
	if (r == UIE_OK)
		r = uie_policy_load(table, tlen, pol);
	if (r != UIE_OK) {
		free(*buf);
		*buf = NULL;
	}
	return r;
}
