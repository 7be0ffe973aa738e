/* SPDX-License-Identifier: Apache-2.0 */
/* One file measured for a manifest (scan.h). */
#include "scan.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uie/err.h"
#include "uie/measure.h"

#include "host_platform.h"

#define ET_EXEC_ 2
#define ET_DYN_ 3

/* The role a TTP most likely means for an object; the manifest is reviewed anyway. */
static const char *guess_role(const struct uie_elf_info *info, const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, "ld-linux", 8) || !strncmp(base, "ld64.so", 7) || !strncmp(base, "ld.so", 5) ||
	    !strncmp(base, "ld-musl", 7))
		return "INTERP";
	if (info->e_type == ET_DYN_ && strstr(base, ".so"))
		return "DSO";
	if (info->e_type == ET_EXEC_ || info->has_interp)
		return "MAIN";
	return "DSO";
}

int uie_scan_measure(const struct uie_platform *pl, uint16_t alg, int fd, const char *path,
		     enum uie_scan_kind *kind, const char **role, struct uie_digest *d)
{
	struct uie_host_object ho;
	struct uie_elf_info info;
	unsigned char magic[4];
	struct stat st;
	ssize_t n;
	int r;

	*kind = UIE_SCAN_OTHER;
	*role = NULL;
	memset(d, 0, sizeof(*d));
	if (fstat(fd, &st) != 0 || (n = pread(fd, magic, sizeof(magic), 0)) < 0)
		return UIE_E_IO;
	if (!S_ISREG(st.st_mode))
		return UIE_OK;
	/* A script is only run by execve when it may be executed: others are data. */
	if (n >= 2 && magic[0] == '#' && magic[1] == '!' && (st.st_mode & 0111)) {
		if ((r = uie_host_object_open(&ho, fd, true, NULL)) != UIE_OK)
			return r;
		r = uie_range_measure(pl, &ho.obj, alg, 0, ho.obj.size, d);
		uie_host_object_close(&ho);
		if (r == UIE_OK) {
			*kind = UIE_SCAN_OBJECT;
			*role = "SCRIPT";
		}
		return r;
	}
	if (n != 4 || memcmp(magic, "\177ELF", 4) != 0)
		return UIE_OK;
	if ((r = uie_host_object_open(&ho, fd, true, NULL)) != UIE_OK)
		return r;
	if (uie_elf_measure(pl, &ho.obj, alg, &info, d) == UIE_OK && info.nexec) {
		*kind = UIE_SCAN_OBJECT;
		*role = guess_role(&info, path);
	} else {
		*kind = UIE_SCAN_UNUSABLE;
		memset(d, 0, sizeof(*d));
	}
	uie_host_object_close(&ho);
	return UIE_OK;
}
