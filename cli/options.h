/* SPDX-License-Identifier: Apache-2.0 */
/* ksum's command line. */
#ifndef KSUM_CLI_OPTIONS_H
#define KSUM_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms.h"

/* -n: 2^48 bytes; outputs over 1 MiB are streamed, not held in memory */
#define KSUM_MAX_OUTPUT_SIZE ((size_t)1 << 48)

typedef struct options {
    const algorithm *alg;
    const char *alg_name;    /* -a's argument, until options_resolve */
    int alg_given;           /* an algorithm switch or -a was used */
    algorithm_facts facts;   /* alg's, from options_resolve */
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
    int check, quiet, status, strict, warn, ignore_missing;
    char **files;            /* NULL-terminated; "-" when none were given */
    /* Output forms as cksum and b3sum have them (issue 12). */
    int base64;              /* digests in base64, not hex */
    int raw;                 /* the digest's bytes alone */
    int no_names;            /* the digest alone on its line */
    int untagged;            /* --untagged was given (the default form) */
    size_t length_bits;      /* -l; 0 when absent (then in size, bytes) */
    const char *size_option; /* "--output-size" or "--length", for messages */
} options;

/* Parses argv; on a usage error prints the message and returns 0 (then
 * options_free is still due).  Exits for --help and --version. */
int options_parse(options *o, int argc, char **argv);
/* Once the provider is loaded: the algorithm -a names (any name the
 * provider knows), what it takes, and whether the options given apply to
 * it; prints the message and returns 0 when not. */
int options_resolve(options *o, OSSL_LIB_CTX *lib);
void options_free(options *o);

#endif
