/* SPDX-License-Identifier: Apache-2.0 */
/* The algorithms ksum offers, the provider names they map to, and which
 * options each one takes. */
#ifndef KSUM_CLI_ALGORITHMS_H
#define KSUM_CLI_ALGORITHMS_H

#include <stddef.h>

enum takes {
    TAKES_SIZE = 1 << 0,      /* -n */
    TAKES_XOF = 1 << 1,       /* -x */
    TAKES_KEY = 1 << 2,       /* -k, --key-file */
    TAKES_CUSTOM = 1 << 3,    /* -C */
    TAKES_FUNCTION = 1 << 4,  /* -f */
    TAKES_BLOCK = 1 << 5,     /* -B */
    TAKES_DOMAIN = 1 << 6,    /* --domain */
    TREE = 1 << 7,            /* hashes one input on several threads */
};

typedef struct algorithm {
    const char *option;   /* the switch without dashes, e.g. "sha3-256" */
    const char *alias;    /* a second switch, e.g. "k12", or NULL */
    const char *name;     /* the provider's name, used by --tag */
    const char *group;    /* heading in --help */
    int is_mac;           /* fetched with EVP_MAC_fetch */
    size_t default_size;  /* output bytes when -n is absent */
    unsigned takes;
} algorithm;

extern const algorithm algorithms[];
extern const size_t algorithm_count;
#define DEFAULT_ALGORITHM (&algorithms[1]) /* SHA3-256 */

/* By switch, alias or provider name, in any case; NULL if unknown. */
const algorithm *algorithm_find(const char *name);

#endif
