/* SPDX-License-Identifier: Apache-2.0 */
/* Check mode: reading checksum lines and verifying the files they name. */
#ifndef KSUM_CLI_CHECK_H
#define KSUM_CLI_CHECK_H

#include <openssl/types.h>
#include <stddef.h>

#include "front/resolve.h"
#include "report/tree.h"

/* The longest algorithm tag read (longer tags make a line improper). */
#define CHECK_TAG_MAX 63

typedef struct check_line {
    const char *tag;      /* a tagged line's algorithm as written, maybe with
                             a length ("SHAKE128-64"); NULL when untagged */
    char *digest;         /* the digest as written: hex, base64, or in a
                             tagged line OpenSSL's colon-separated hex */
    size_t digest_len;
    char *name;           /* unescaped in place, NUL-terminated; a literal tab
                             (TupleHash's separator) is a NUL in it too */
    size_t name_len;      /* up to the last NUL */
} check_line;

/* The form of a list's untagged lines, fixed by the first of them: a name
 * may start with a space or a star, so "DIGEST  NAME" read as the one-space
 * form names " NAME", and a list that mixed the forms could check another
 * file than its writer meant (GNU coreutils refuses the mix too). */
enum {
    CHECK_FORM_UNKNOWN,     /* no untagged line yet */
    CHECK_FORM_TWO,         /* "DIGEST  NAME", "DIGEST *NAME" */
    CHECK_FORM_ONE,         /* "DIGEST NAME", as `md5 -r` writes */
};

/* Parses one line (without its line end) of any accepted format:
 * "DIGEST  NAME", "DIGEST *NAME", "DIGEST NAME", "ALGO (NAME) = DIGEST",
 * "ALGO(NAME)= DIGEST", each optionally escaped (leading backslash).  An
 * untagged line is read in *form, which it fixes when unknown.  Changes
 * line in place.  Returns 1 when the line has that shape; what the tag
 * names and what the digest holds are the caller's to check. */
int check_parse_line(char *line, size_t len, int *form, check_line *out);

/* What check mode does besides hashing: the check files, what it says of
 * them (as coreutils' options do), and the trees its lines may name. */
typedef struct check_spec {
    char *const *lists;     /* the check files; "-": standard input */
    int quiet, status, strict, warn, ignore_missing;
    int progress;           /* --progress */
    int trees;              /* --tree: lines of directory trees are checked */
    tree_spec tree;         /* their walk's --exclude patterns */
} check_spec;

/* Verifies every line of s->lists, with r's algorithms when the user named
 * them, else with the lines' own; returns 1 when all passed.  *applied:
 * what the algorithms of the lines checked take (TAKES_*), once the run
 * was whole; else 0. */
int check_files(const resolved *r, const check_spec *s, OSSL_LIB_CTX *lib,
                unsigned *applied);

#endif
