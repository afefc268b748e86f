/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ksum's command line: one table of options (option_rows, one row per
 * option), from which getopt_long's table, the names messages give and the
 * help text come; and what the user said (struct options).  What EVP
 * answered for it is resolve.h's.
 */
#ifndef KSUM_CLI_OPTIONS_H
#define KSUM_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "front/algorithms.h"

/* What an algorithm takes: the options ksum maps to its parameters.
 * Bits of algorithm_facts.takes (hasher.h), from the algorithm's settable
 * parameters, and of options.given. */
enum takes {
    TAKES_SIZE = 1 << 0,      /* -n, -l: "xoflen" or "size" */
    TAKES_XOF = 1 << 1,       /* -x: "xof" */
    TAKES_KEY = 1 << 2,       /* -k, --key-file: "key" */
    TAKES_THREADS = 1 << 3,   /* "threads": one input on several threads */
    TAKES_ELEMENTS = 1 << 4,  /* "element-length": each FILE an element */
    TAKES_BATCH = 1 << 5,     /* "batch": several inputs absorbed together */
};

/* The options that send a parameter of their own and nothing else (-C, -f,
 * -B, --domain): the row numbered i takes TAKES_PARAM(i) (its .takes), and
 * its value is options.param[i]. */
#define OPTIONS_PARAMS_MAX 8
#define TAKES_PARAM(i) (1u << (8 + (i)))
#define TAKES_PARAMS (((1u << OPTIONS_PARAMS_MAX) - 1) << 8)
#define TAKES_PARAM_INDEX(bit) ((size_t)__builtin_ctz(bit) - 8)

/* What a parameter option's argument is, and how it is sent. */
typedef enum param_type {
    PARAM_NONE,
    PARAM_TEXT,     /* the bytes given, as an octet string */
    PARAM_COUNT,    /* a positive decimal below 2^61, as a size_t */
    PARAM_BYTE,     /* 0 to 255, decimal or hexadecimal after 0x, as a uint */
} param_type;

/* A parameter option's value, when given (text is then not NULL). */
typedef struct param_value {
    const char *text;   /* as given, for messages; PARAM_TEXT's bytes */
    size_t number;      /* PARAM_COUNT's and PARAM_BYTE's */
} param_value;

typedef struct options options;
typedef struct option_row option_row;

/* What an option does with its argument (NULL when it takes none); 0 once
 * it has said why it refuses it. */
typedef int option_setter(options *o, const option_row *row, const char *arg);

/* One option.  Its names, its argument, what it sets, what an algorithm
 * must take for it, and its place in --help. */
struct option_row {
    const char *name;       /* "--block-size" */
    const char *shorts;     /* its short names: "B", "Vv"; NULL: none */
    const char *arg;        /* its argument as --help names it; NULL: none */
    option_setter *set;     /* NULL: it sets field */
    size_t field;           /* an int of options set to 1, or with an
                               argument a string set to it */
    unsigned takes;         /* TAKES_*: an option none of the algorithms
                               takes is an error; 0: any algorithm takes it */
    const char *param;      /* the parameter set_param sends (KSUM_PARAM_*) */
    param_type type;        /* its type */
    const char *what;       /* its value in messages: "invalid block size" */
    const char *help;       /* its text among --help's common options;
                               NULL: beside the row before, or one of the
                               other options */
    int beside;             /* its names go on the line of the row before */
};

extern const option_row option_rows[];
extern const size_t option_row_count;

/* -n: 2^48 bytes; outputs over 1 MiB are streamed, not held in memory */
#define KSUM_MAX_OUTPUT_SIZE ((size_t)1 << 48)

/* An algorithm switch, or -a's argument (names separated by commas), in
 * the order given, until options_resolve. */
typedef struct algorithm_choice {
    const algorithm *alg;
    const char *names;
} algorithm_choice;

/* What the user said: options_parse fills it; the judges of resolve.c may
 * settle what options imply (-l is -n in bytes, -w with -r warns of what
 * the walk skips), never with anything EVP said.  What EVP answered is
 * another struct, resolve.h's.  Only front/ and main.c see this one: they
 * give each stage the few fields it uses, in a struct of its own. */
struct options {
    algorithm_choice *choices;
    size_t nchoices;         /* 0: no algorithm switch or -a was used */
    unsigned given;          /* TAKES_* bits of the options used */
    /* For each bit of given, the option that set it last: the one
     * messages name (--key or --key-file, --output-size or --length). */
    const option_row *given_as[8 + OPTIONS_PARAMS_MAX];
    param_value param[OPTIONS_PARAMS_MAX];  /* by TAKES_PARAM number */
    size_t size;             /* -n; 0 when absent */
    int xof;
    uint8_t *key;            /* -k or --key-file; NULL: the empty key */
    size_t key_len;
    size_t threads;          /* --threads; 0: all CPUs */
    int binary, tag, zero;
    int text_given;         /* -t: only to refuse it with --check */
    int check, quiet, status, strict, warn, ignore_missing;
    const char *undone;      /* --status or --quiet undone by a later one of
                              * the three: still a check option given */
    char **files;            /* NULL-terminated; "-" when none were given */
    int operands;            /* FILEs were given */
    /* Directories and name lists, progress. */
    int recursive;           /* -r: the regular files under directories */
    int dereference;         /* -L: the walk follows symbolic links */
    int walk_warn;           /* -w with -r: say what the walk skips */
    const char *files_from;  /* --files-from: names from this file ("-": stdin) */
    int progress;            /* --progress */
    /* Output forms as cksum and b3sum have them. */
    int base64;              /* digests in base64, not hex */
    int raw;                 /* the digest's bytes alone */
    int no_names;            /* the digest alone on its line */
    int untagged;            /* --untagged was given (the default form) */
    size_t length_bits;      /* -l; 0 when absent (then in size, bytes) */
    const char *length_arg;  /* the last -l as given, for its message */
    int version;             /* --version: print it, do nothing else */
    int text_after_tag;      /* --text came after --tag (coreutils refuses) */
    /* One object in parts (parts.c). */
    const char *part_share;  /* --part K/N */
    const char *part_range;  /* --part-range START:LEN */
    int combine;             /* --combine */
    /* One digest of a directory tree (docs/tree.md, tree.h). */
    int tree;                /* --tree: each FILE is a DIR, one digest each */
    int manifest;            /* --manifest: a line per file and directory too */
    char **excludes;         /* --exclude's patterns, in the order given */
    size_t nexcludes;
};

/* The option that set a TAKES_* bit of o->given ("--customization"), for
 * messages: the one given last. */
const char *option_name(const options *o, unsigned bit);

/* Parses argv; on a usage error prints the message and returns 0 (then
 * options_free is still due).  Exits for --help; stops at --version. */
int options_parse(options *o, int argc, char **argv);

void options_free(options *o);

#endif
