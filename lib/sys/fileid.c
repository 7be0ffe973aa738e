/* SPDX-License-Identifier: Apache-2.0 */
/* File identity (include/uie/sys.h): what requests and records name a file by. */
#include "uie/sys.h"

struct uie_file_id uie_file_id_of(const struct stat *st)
{
	return (struct uie_file_id){
		.dev = (uint64_t)st->st_dev,
		.ino = (uint64_t)st->st_ino,
		.size = (uint64_t)st->st_size,
		.mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec,
		.ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec,
	};
}
