/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A program's command-line options as one table: each row names an option,
 * says what its argument is and where it goes.  Every tool (uie, the
 * monitor, the verifier, the benchmarks) parses through it, so that all
 * check numbers with uie_parse_u64, word their errors alike and answer
 * --help the same way.  getopt_long does the scanning: --name=ARG, unique
 * abbreviations and getopt's message for an unknown option stay as they are.
 */
#ifndef UIE_HOST_OPTS_H
#define UIE_HOST_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h> /* optind */

/* What uie_opts_parse answers: go on (optind is the first operand), or the exit status. */
enum {
	UIE_OPTS_GO = -1,
	UIE_OPTS_EXIT_OK = 0,    /* after --help or --version */
	UIE_OPTS_EXIT_USAGE = 2, /* a bad command line, said on stderr */
};

enum uie_opt_kind {
	UIE_OPTK_STRING,  /* *str = the argument */
	UIE_OPTK_LIST,    /* str[(*n)++] = the argument, at most max times */
	UIE_OPTK_NUMBER,  /* the decimal argument in [min, max] (or 0, with or_zero) into num */
	UIE_OPTK_SET,     /* *flag = true */
	UIE_OPTK_CLEAR,   /* *flag = false */
	UIE_OPTK_COUNT,   /* ++*count */
	UIE_OPTK_CALL,    /* call(ctx, argument): UIE_OPTS_GO, or the exit status after saying why */
	UIE_OPTK_HELP,    /* the usage on stdout; exit 0 (the row uie_opts_parse adds) */
	UIE_OPTK_VERSION, /* "PROG VERSION" on stdout; exit 0 */
};

struct uie_opt {
	const char *name; /* without "--"; NULL ends a table */
	const char **str; /* STRING: the value; LIST: max entries, *n of them used */
	unsigned *n;
	bool *flag;
	int *count;
	void *num;   /* NUMBER: an unsigned (or non-negative int) object of size bytes */
	size_t size; /* 1, 2, 4 or 8; max must fit in it */
	uint64_t min, max;
	const char *why; /* NUMBER: what a good value is, for the error; NULL: the range */
	int (*call)(void *ctx, const char *arg);
	void *ctx;
	enum uie_opt_kind kind;
	char letter;  /* the short option, or 0 */
	bool or_zero; /* NUMBER: 0 (no limit) passes too */
};

#define UIE_OPT_STRING(name_, letter_, dst)                                                 \
	{                                                                                   \
		.name = (name_), .letter = (letter_), .kind = UIE_OPTK_STRING, .str = (dst) \
	}
#define UIE_OPT_LIST(name_, letter_, array, used, most)                                                   \
	{                                                                                                 \
		.name = (name_), .letter = (letter_), .kind = UIE_OPTK_LIST, .str = (array), .n = (used), \
		.max = (most)                                                                             \
	}
#define UIE_OPT_NUMBER(name_, letter_, lvalue, lo, hi, why_)                                     \
	{                                                                                        \
		.name = (name_), .letter = (letter_), .kind = UIE_OPTK_NUMBER, .num = &(lvalue), \
		.size = sizeof(lvalue), .min = (lo), .max = (hi), .why = (why_)                  \
	}
/* A limit: lo to hi, or 0 for none. */
#define UIE_OPT_LIMIT(name_, lvalue, lo, hi)                                                        \
	{                                                                                           \
		.name = (name_), .kind = UIE_OPTK_NUMBER, .num = &(lvalue), .size = sizeof(lvalue), \
		.min = (lo), .max = (hi), .or_zero = true                                           \
	}
#define UIE_OPT_FLAG(name_, letter_, kind_, dst)                                     \
	{                                                                            \
		.name = (name_), .letter = (letter_), .kind = (kind_), .flag = (dst) \
	}
#define UIE_OPT_COUNT(name_, letter_, dst)                                                   \
	{                                                                                    \
		.name = (name_), .letter = (letter_), .kind = UIE_OPTK_COUNT, .count = (dst) \
	}
#define UIE_OPT_CALL(name_, letter_, fn, context)                                                           \
	{                                                                                                   \
		.name = (name_), .letter = (letter_), .kind = UIE_OPTK_CALL, .call = (fn), .ctx = (context) \
	}
#define UIE_OPT_VERSION                                     \
	{                                                   \
		.name = "version", .kind = UIE_OPTK_VERSION \
	}
#define UIE_OPT_END          \
	{                    \
		.name = NULL \
	}

struct uie_opts {
	const char *prog;          /* what messages start with: "uie attest" */
	const struct uie_opt *opt; /* the table, ended by UIE_OPT_END; at most 32 rows, no --help */
	void (*usage)(FILE *f);    /* for --help (stdout) and a bad command line (stderr); or NULL */
	const char *synopsis;      /* without usage: printed after "usage: PROG " instead */
	bool in_order;             /* stop at the first operand (what follows is a program's own) */
	int min_operands;          /* how many operands it takes (0, 0: none) */
	int max_operands;          /* UIE_OPTS_ANY: no limit */
	const char *version;       /* what --version prints after prog */
};

#define UIE_OPTS_ANY __INT_MAX__ /* INT_MAX, without <limits.h> (whose MAX_INPUT tools define) */

/*
 * Parses argv[1..] by s->opt into the rows' places, from the start
 * (getopt fully reset); --help (-h) prints the usage, when s has one, on
 * stdout and answers UIE_OPTS_EXIT_OK.  An unknown option, one without its
 * argument, or too few or too many operands print the usage on stderr; a
 * bad value says what is wrong with it.
 */
int uie_opts_parse(const struct uie_opts *s, int argc, char **argv);

/* A command line that parsed but is incomplete: the usage on stderr; UIE_OPTS_EXIT_USAGE. */
int uie_opts_usage(const struct uie_opts *s);

#endif
