/* SPDX-License-Identifier: Apache-2.0 */
/*
 * VM mode, MPROTECT_EXEC (docs/BRIDGE.md section 12): the object as the
 * process will execute it.  The guest names, besides the file's frames,
 * the frame the process holds for every page of the range; a page not
 * present faults in from the file.  A present page with other bytes than
 * the file's at that offset (a private copy a write made), or one past the
 * object's end, is execmod: the monitor finds it itself instead of taking
 * the guest's EXECMOD flag, and measures the bytes the process holds.
 */
#ifndef UIE_MONITOR_VMEXEC_H
#define UIE_MONITOR_VMEXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmram.h"

/*
 * range[0..nrange): the process's frames for object pages
 * file_offset / 4096 + j, or UIE_VM_PAGE_ABSENT.  Checks every entry first
 * (UIE_E_RANGE: a frame outside guest RAM, nothing changed); then puts
 * each present frame in place of the object's in frames[0..n) and sets
 * *execmod when one holds other bytes than the file's page, or lies past
 * the object's n frames.  UIE_E_IO: guest RAM could not be read.
 */
int uie_vmexec_apply(const struct uie_vmram *g, uint64_t *frames, size_t n, uint64_t file_offset,
		     const uint64_t *range, size_t nrange, bool *execmod);

#endif
