/* SPDX-License-Identifier: Apache-2.0 */
/* Check mode: reading checksum lines and verifying the files they name. */
#ifndef KSUM_CLI_CHECK_H
#define KSUM_CLI_CHECK_H

#include <openssl/types.h>
#include <stddef.h>

#include "options.h"

/* The longest algorithm tag read (longer tags make a line improper). */
#define CHECK_TAG_MAX 63

typedef struct check_line {
    const char *tag;      /* the algorithm a tagged line names; NULL otherwise */
    const char *hex;
    size_t hex_len;
    char *name;           /* unescaped in place, NUL-terminated; a literal tab
                             (TupleHash's separator) is a NUL in it too */
    size_t name_len;      /* up to the last NUL */
} check_line;

/* Parses one line (without its line end) of any accepted format:
 * "HEX  NAME", "HEX *NAME", "ALGO (NAME) = HEX", "ALGO(NAME)= HEX", each
 * optionally escaped (leading backslash).  Changes line in place.  Returns
 * 1 when the line is well formed; the caller checks the tag and the hex
 * length. */
int check_parse_line(char *line, size_t len, check_line *out);

/* Verifies every check file in o->files; returns 1 when all passed. */
int check_files(const options *o, OSSL_LIB_CTX *lib);

#endif
