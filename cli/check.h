/* SPDX-License-Identifier: Apache-2.0 */
/* Check mode: reading checksum lines and verifying the files they name. */
#ifndef KSUM_CLI_CHECK_H
#define KSUM_CLI_CHECK_H

#include <openssl/types.h>
#include <stddef.h>

#include "options.h"

typedef struct check_line {
    const algorithm *alg; /* named by a tagged line; NULL otherwise */
    const char *hex;
    size_t hex_len;
    char *name;           /* unescaped in place, NUL-terminated */
} check_line;

/* Parses one line (without its line end) of any accepted format:
 * "HEX  NAME", "HEX *NAME", "ALGO (NAME) = HEX", "ALGO(NAME)= HEX", each
 * optionally escaped (leading backslash).  Changes line in place.  Returns
 * 1 when the line is well formed; the hex length is checked by the caller. */
int check_parse_line(char *line, size_t len, check_line *out);

/* Verifies every check file in o->files; returns 1 when all passed. */
int check_files(const options *o, OSSL_LIB_CTX *lib);

#endif
