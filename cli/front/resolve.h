/* SPDX-License-Identifier: Apache-2.0 */
/* The options once the provider is loaded: what EVP answered for them
 * (options.h holds what was said), and the conflicts between them. */
#ifndef KSUM_CLI_RESOLVE_H
#define KSUM_CLI_RESOLVE_H

#include <openssl/types.h>

#include "front/hasher.h"
#include "front/options.h"

/* How a checksum line looks (report/output.h), settled once from the
 * options. */
typedef enum line_form {
    LINE_UNTAGGED,  /* SUM  NAME */
    LINE_BINARY,    /* SUM *NAME: --binary */
    LINE_TAGGED,    /* ALGO (NAME) = SUM: --tag, or several algorithms */
    LINE_SUM_ONLY,  /* SUM alone: --no-names */
    LINE_RAW,       /* the sum's bytes alone, no line end: --raw */
} line_form;

/* How SUM is written in the forms but LINE_RAW. */
typedef enum sum_text {
    SUM_HEX,
    SUM_BASE64,     /* --base64 */
} sum_text;

typedef struct line_style {
    line_form form;
    sum_text text;
    char end;       /* '\n', or '\0' with --zero */
} line_style;

/* What EVP answered for the options: the algorithms asked for, each once
 * (by provider name), in order, and what each takes.  Several are computed
 * from one read of each file. */
typedef struct resolved {
    const algorithm *alg;    /* algs[0] */
    const algorithm *algs[OPTIONS_ALGS_MAX];
    algorithm_facts facts_of[OPTIONS_ALGS_MAX];
    size_t nalgs;
    int named;               /* the user named them (a switch or -a); else
                                ksum's default, or in check mode the lines' */
    hash_spec hash;          /* what their hashers send */
    line_style line;         /* several algorithms: tagged, each line names its own */
} resolved;

/* The conflicts between options that need no provider, in a fixed order;
 * settles what some imply (-l is -n in bytes, -w with -r warns of what the
 * walk skips).  Prints the message and returns 0 on a conflict. */
int options_judge(options *o);

/* Fills r: the algorithms -a names (any name the provider knows), what
 * they take, and whether the options given apply to them; prints the
 * message and returns 0 when not. */
int options_resolve(options *o, OSSL_LIB_CTX *lib, resolved *r);
/* Check mode without an algorithm switch: warns of the options given that
 * no line's algorithm took (applied: what those took, TAKES_*). */
void options_warn_unapplied(const options *o, unsigned applied);
/* The chosen algorithm that is a (the same provider algorithm), or NULL. */
const algorithm *options_chosen(const resolved *r, const algorithm *a);

#endif
