/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: a mountinfo line (guest/mountinfo.c) and the layer
 * directories of an overlay mount's super options (guest/layer.c).  Every
 * field found lies inside the line; every layer is a string inside the
 * output buffer, and there are no more than asked for.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"
#include "mountinfo.h"
#include "uie/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), out[512];
	const char *dir[16];

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	for (int f = UIE_MI_ID; f <= UIE_MI_SUPER; f++) {
		const char *p;
		size_t n;
		unsigned ndirs;

		if (uie_guest_mountinfo_field(line, (enum uie_mi_field)f, &p, &n) != UIE_OK)
			continue;
		if (p < line || p + n > line + strlen(line))
			abort();
		if (uie_guest_mountinfo_unescape(p, n, out, sizeof(out)) == UIE_OK && strlen(out) > n)
			abort();
		if (uie_guest_overlay_layers(p, n, out, sizeof(out), dir, 16, &ndirs) != UIE_OK)
			continue;
		if (ndirs == 0 || ndirs > 16)
			abort();
		for (unsigned i = 0; i < ndirs; i++)
			if (dir[i] < out || dir[i] >= out + sizeof(out) ||
			    !memchr(dir[i], '\0', (size_t)(out + sizeof(out) - dir[i])))
				abort();
	}
	free(line);
	return 0;
}
