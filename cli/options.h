/* SPDX-License-Identifier: Apache-2.0 */
/* ksum's command line. */
#ifndef KSUM_CLI_OPTIONS_H
#define KSUM_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms.h"

/* What an algorithm takes: the options ksum maps to its parameters.
 * Bits of algorithm_facts.takes (hasher.h), from the algorithm's settable
 * parameters, and of options.given. */
enum takes {
    TAKES_SIZE = 1 << 0,      /* -n: "xoflen" or "size" */
    TAKES_XOF = 1 << 1,       /* -x: "xof" */
    TAKES_KEY = 1 << 2,       /* -k, --key-file: "key" */
    TAKES_CUSTOM = 1 << 3,    /* -C: "custom" */
    TAKES_FUNCTION = 1 << 4,  /* -f: "function-name" */
    TAKES_BLOCK = 1 << 5,     /* -B: "block-size" */
    TAKES_DOMAIN = 1 << 6,    /* --domain: "domain" */
    TAKES_THREADS = 1 << 7,   /* --threads: one input on several threads */
    TAKES_ELEMENTS = 1 << 8,  /* "element-length": each FILE an element */
    TAKES_BATCH = 1 << 9,     /* "batch": several inputs absorbed together */
};

/* -n: 2^48 bytes; outputs over 1 MiB are streamed, not held in memory */
#define KSUM_MAX_OUTPUT_SIZE ((size_t)1 << 48)

/* The most algorithms one run computes (every switch's, at most). */
#define OPTIONS_ALGS_MAX 32

/* An algorithm switch, or -a's argument (names separated by commas), in
 * the order given, until options_resolve. */
typedef struct algorithm_choice {
    const algorithm *alg;
    const char *names;
} algorithm_choice;

struct resolved;

/* What the user said: options_parse fills it; the judges of resolve.c may
 * settle what options imply (-l is -n in bytes, -w with -r warns of what
 * the walk skips), never with anything EVP said.  What EVP answered is
 * another struct, resolve.h's, which evp points to once it exists. */
typedef struct options {
    const struct resolved *evp;  /* from options_resolve; NULL before */
    int alg_given;           /* an algorithm switch or -a was used */
    algorithm_choice *choices;
    size_t nchoices;
    unsigned given;          /* TAKES_* bits of the options used */
    size_t size;             /* -n; 0 when absent */
    int xof;
    uint8_t *key;            /* -k or --key-file; NULL: the empty key */
    size_t key_len;
    const char *key_option;  /* "--key" or "--key-file", for messages */
    const char *custom, *function;
    size_t block_size;       /* -B; 0 when absent */
    unsigned domain;         /* --domain; 0 when absent */
    const char *block_text, *domain_text;  /* as given, for messages */
    unsigned threads;        /* --threads; 0: all CPUs */
    int binary, tag, zero;
    int text_given;         /* -t: only to refuse it with --check */
    int check, quiet, status, strict, warn, ignore_missing;
    char **files;            /* NULL-terminated; "-" when none were given */
    int operands;            /* FILEs were given */
    /* Directories and name lists (issue 12, item 5), progress (item 6). */
    int recursive;           /* -r: the regular files under directories */
    int dereference;         /* -L: the walk follows symbolic links */
    int walk_warn;           /* -w with -r: say what the walk skips */
    const char *files_from;  /* --files-from: names from this file ("-": stdin) */
    int progress;            /* --progress */
    /* Output forms as cksum and b3sum have them (issue 12). */
    int base64;              /* digests in base64, not hex */
    int raw;                 /* the digest's bytes alone */
    int no_names;            /* the digest alone on its line */
    int untagged;            /* --untagged was given (the default form) */
    size_t length_bits;      /* -l; 0 when absent (then in size, bytes) */
    const char *size_option; /* "--output-size" or "--length", for messages */
    /* One object in parts (issue 20, parts.c). */
    const char *part_share;  /* --part K/N */
    const char *part_range;  /* --part-range START:LEN */
    int combine;             /* --combine */
} options;

/* The option that sets a TAKES_* bit ("--customization"), for messages. */
const char *option_name(const options *o, unsigned bit);

/* Parses argv; on a usage error prints the message and returns 0 (then
 * options_free is still due).  Exits for --help and --version. */
int options_parse(options *o, int argc, char **argv);
void options_free(options *o);

#endif
