/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The algorithms ksum has switches for.  The table only names them (switch,
 * provider name, heading in --help); what each one takes, its output sizes
 * and its defaults are asked of EVP (algorithm_describe), never restated.
 *
 * Return convention of the CLI: functions that can fail return 1 for
 * success and 0 for failure, with the message already printed, unless their
 * comment says otherwise; hashing and reading functions return 0 or an
 * error code (files.h).
 */
#ifndef KSUM_CLI_ALGORITHMS_H
#define KSUM_CLI_ALGORITHMS_H

#include <openssl/types.h>
#include <stddef.h>

typedef struct algorithm {
    const char *option;   /* the switch without dashes, e.g. "sha3-256" */
    const char *alias;    /* a second switch, e.g. "k12", or NULL */
    const char *name;     /* the provider's first name, used by --tag */
    const char *group;    /* heading in --help */
    int is_mac;           /* an EVP_MAC, not an EVP_MD */
} algorithm;

extern const algorithm algorithms[];
extern const size_t algorithm_count;

/* SHA3-256. */
const algorithm *algorithm_default(void);
/* By switch, alias or provider name, in any case; NULL if unknown. */
const algorithm *algorithm_find(const char *name);
/* The same, and any other name or alias the provider knows it by (e.g.
 * SHAKE-128, KT-128); NULL if ksumprov has no such algorithm. */
const algorithm *algorithm_lookup(OSSL_LIB_CTX *lib, const char *name);

/* The tag of an algorithm's lines (--tag, and what check mode reads): its
 * provider name, with "XOF" before the trailing digits for the XOF mode, as
 * SP 800-185 names those functions (KMACXOF128, PARALLELHASHXOF256); into
 * buf of ALGORITHM_TAG_MAX bytes. */
#define ALGORITHM_TAG_MAX 64
void algorithm_tag(const algorithm *a, int xof, char *buf);
/* The name within an XOF tag: "KMACXOF128" (any case) gives "KMAC128" in
 * base (ALGORITHM_TAG_MAX bytes); 0 when tag has no "XOF" right before
 * its trailing digits.  Whether that algorithm has an XOF mode is the
 * provider's to say. */
int algorithm_xof_base(const char *tag, char *base);

/* What an algorithm takes: the options ksum maps to its parameters.
 * Bits of algorithm_facts.takes, from the algorithm's settable
 * parameters. */
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

typedef struct algorithm_facts {
    size_t fixed_size;    /* output bytes of a fixed-length digest; 0: any */
    size_t default_size;  /* output bytes without -n (ksumprov's default) */
    unsigned takes;       /* TAKES_* */
} algorithm_facts;

/* Asks EVP about a (fetched from lib); 0 with a message when it cannot. */
int algorithm_describe(OSSL_LIB_CTX *lib, const algorithm *a, algorithm_facts *f);

/* The same from a fetched EVP_MD or EVP_MAC (one of them NULL). */
void algorithm_facts_of(EVP_MD *md, EVP_MAC *mac, algorithm_facts *f);

#endif
