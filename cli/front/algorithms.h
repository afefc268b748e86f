/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The algorithms ksum has switches for.  The table only names them (switch,
 * provider name, heading in --help); what each one takes, its output sizes
 * and its defaults are asked of EVP (hasher.h's algorithm_describe), never
 * restated.
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

/* The most algorithms one run computes (every switch's, at most; getopt's
 * table in options.c is sized by it). */
#define OPTIONS_ALGS_MAX 32

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

#endif
