/* SPDX-License-Identifier: Apache-2.0 */
/* Command-line options from one table (opts.h). */
#include <getopt.h>
#include <string.h>

#include "hex.h"
#include "opts.h"
#include "uie/err.h"

#define ROWS_MAX 32
#define LONG_ONLY 256 /* getopt_long's answer for row i without a letter: LONG_ONLY + i */

static bool takes_argument(const struct uie_opt *o)
{
	return o->kind == UIE_OPTK_STRING || o->kind == UIE_OPTK_LIST || o->kind == UIE_OPTK_NUMBER ||
	       o->kind == UIE_OPTK_CALL;
}

/* v into an object of size bytes (v fits: the row's max does). */
static void store(void *dst, size_t size, uint64_t v)
{
	const uint8_t b = (uint8_t)v;
	const uint16_t h = (uint16_t)v;
	const uint32_t w = (uint32_t)v;

	memcpy(dst,
	       size == 1   ? (const void *)&b
	       : size == 2 ? (const void *)&h
	       : size == 4 ? (const void *)&w
			   : (const void *)&v,
	       size);
}

static int number(const struct uie_opts *s, const struct uie_opt *o, const char *arg)
{
	uint64_t v;

	if (uie_parse_u64(arg, &v) == UIE_OK && ((v >= o->min && v <= o->max) || (o->or_zero && !v))) {
		store(o->num, o->size, v);
		return UIE_OPTS_GO;
	}
	if (o->why)
		fprintf(stderr, "%s: --%s %s\n", s->prog, o->name, o->why);
	else
		fprintf(stderr, "%s: bad --%s '%s' (%llu to %llu%s)\n", s->prog, o->name, arg,
			(unsigned long long)o->min, (unsigned long long)o->max,
			o->or_zero ? ", or 0 for no limit" : "");
	return UIE_OPTS_EXIT_USAGE;
}

/* The command's usage: its function, or its synopsis text. */
static void say_usage(const struct uie_opts *s, FILE *f)
{
	if (s->usage)
		s->usage(f);
	else if (s->synopsis)
		fprintf(f, "usage: %s %s", s->prog, s->synopsis);
}

/* Row o with its argument (NULL for an option without one). */
static int apply(const struct uie_opts *s, const struct uie_opt *o, const char *arg)
{
	switch (o->kind) {
	case UIE_OPTK_STRING: *o->str = arg; return UIE_OPTS_GO;
	case UIE_OPTK_LIST:
		if (*o->n >= o->max) {
			fprintf(stderr, "%s: too many --%s (at most %llu)\n", s->prog, o->name,
				(unsigned long long)o->max);
			return UIE_OPTS_EXIT_USAGE;
		}
		o->str[(*o->n)++] = arg;
		return UIE_OPTS_GO;
	case UIE_OPTK_NUMBER: return number(s, o, arg);
	case UIE_OPTK_SET: *o->flag = true; return UIE_OPTS_GO;
	case UIE_OPTK_CLEAR: *o->flag = false; return UIE_OPTS_GO;
	case UIE_OPTK_COUNT: ++*o->count; return UIE_OPTS_GO;
	case UIE_OPTK_CALL: return o->call(o->ctx, arg);
	case UIE_OPTK_HELP: say_usage(s, stdout); return UIE_OPTS_EXIT_OK;
	case UIE_OPTK_VERSION: printf("%s %s\n", s->prog, s->version); return UIE_OPTS_EXIT_OK;
	}
	return UIE_OPTS_EXIT_USAGE;
}

int uie_opts_usage(const struct uie_opts *s)
{
	say_usage(s, stderr);
	return UIE_OPTS_EXIT_USAGE;
}

/* The row every command with a usage has, after its table's. */
static const struct uie_opt help = { .name = "help", .letter = 'h', .kind = UIE_OPTK_HELP };

/* The row getopt_long's answer c stands for, or NULL (an unknown option). */
static const struct uie_opt *row_of(const struct uie_opt *t, size_t n, int c)
{
	if (c >= LONG_ONLY && (size_t)(c - LONG_ONLY) < n)
		return &t[c - LONG_ONLY];
	for (size_t i = 0; c > 0 && i < n; i++)
		if (t[i].letter == c)
			return &t[i];
	return c == help.letter ? &help : NULL;
}

int uie_opts_parse(const struct uie_opts *s, int argc, char **argv)
{
	struct option lo[ROWS_MAX + 2];
	char letters[2 * ROWS_MAX + 3], *p = letters;
	const struct uie_opt *o;
	int c, rc = UIE_OPTS_GO;
	size_t n, nlo;

	if (s->in_order)
		*p++ = '+';
	for (n = 0; s->opt[n].name; n++) {
		if (n == ROWS_MAX) {
			fprintf(stderr, "%s: more than %d options in its table\n", s->prog, ROWS_MAX);
			return UIE_OPTS_EXIT_USAGE;
		}
		lo[n] = (struct option){ s->opt[n].name,
					 takes_argument(&s->opt[n]) ? required_argument : no_argument, NULL,
					 s->opt[n].letter ? s->opt[n].letter : LONG_ONLY + (int)n };
		if (s->opt[n].letter) {
			*p++ = s->opt[n].letter;
			if (takes_argument(&s->opt[n]))
				*p++ = ':';
		}
	}
	nlo = n;
	if (s->usage || s->synopsis) {
		lo[nlo++] = (struct option){ help.name, no_argument, NULL, help.letter };
		*p++ = help.letter;
	}
	lo[nlo] = (struct option){ NULL, 0, NULL, 0 };
	*p = '\0';
	optind = 0; /* 0, not 1: glibc then reads the optstring's '+' again (a second parse) */
	while (rc == UIE_OPTS_GO && (c = getopt_long(argc, argv, letters, lo, NULL)) != -1)
		rc = (o = row_of(s->opt, n, c)) ? apply(s, o, optarg) : uie_opts_usage(s);
	if (rc == UIE_OPTS_GO && (argc - optind < s->min_operands || argc - optind > s->max_operands))
		rc = uie_opts_usage(s);
	return rc;
}
