/* SPDX-License-Identifier: Apache-2.0 */
#include "uie/names.h"

#include "uie/types.h"

struct name {
	const char *name, *key;
};

static const struct name events[UIE_EV__MAX] = {
	[UIE_EV_EXECVE] = { "EXECVE", "execve" },
	[UIE_EV_MMAP_EXEC] = { "MMAP_EXEC", "mmap" },
	[UIE_EV_MPROTECT_EXEC] = { "MPROTECT_EXEC", "mprotect" },
};

static const struct name roles[UIE_ROLE__MAX] = {
	[UIE_ROLE_MAIN] = { "MAIN", "main" }, [UIE_ROLE_INTERP] = { "INTERP", "interp" },
	[UIE_ROLE_DSO] = { "DSO", "dso" },    [UIE_ROLE_FILE] = { "FILE", "file" },
	[UIE_ROLE_ANON] = { "ANON", "anon" }, [UIE_ROLE_SCRIPT] = { "SCRIPT", "script" },
};

static const struct name modes[UIE_MODE__MAX] = {
	[UIE_MODE_BOOTSTRAP] = { "BOOTSTRAP", "bootstrap" },
	[UIE_MODE_MEASURE] = { "MEASURE", "measure" },
	[UIE_MODE_ENFORCE] = { "ENFORCE", "enforce" },
};

const char *uie_event_name(unsigned event)
{
	return event < UIE_EV__MAX ? events[event].name : 0;
}

const char *uie_event_key(unsigned event)
{
	return event < UIE_EV__MAX ? events[event].key : 0;
}

const char *uie_role_name(unsigned role)
{
	return role < UIE_ROLE__MAX ? roles[role].name : 0;
}

const char *uie_role_key(unsigned role)
{
	return role < UIE_ROLE__MAX ? roles[role].key : 0;
}

const char *uie_mode_name(unsigned mode)
{
	return mode < UIE_MODE__MAX ? modes[mode].name : 0;
}

const char *uie_mode_key(unsigned mode)
{
	return mode < UIE_MODE__MAX ? modes[mode].key : 0;
}
