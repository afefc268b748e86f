/* SPDX-License-Identifier: Apache-2.0 */
/* Output lines: hex, file-name escaping as GNU coreutils does it. */
#ifndef KSUM_CLI_OUTPUT_H
#define KSUM_CLI_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hasher.h"
#include "options.h"

/* A name with a backslash or a control character is printed escaped (\\,
 * \n, \r as GNU coreutils does, other control characters as \xHH), and
 * its line starts with a backslash. */
int name_needs_escape(const char *name);
void print_name(FILE *f, const char *name, int escape);
void print_hex(FILE *f, const uint8_t *buf, size_t len);

/* A checksum to print: len bytes in buf, or, when h is set, squeezed from
 * h while it is printed. */
typedef struct sum_source {
    const uint8_t *buf;
    size_t len;
    hasher *h;
} sum_source;

/* "HEX  NAME", "HEX *NAME" or "ALGO (NAME) = HEX", ended by \n or NUL.
 * Returns 0 when squeezing failed. */
int print_sum_line(const options *o, const algorithm *alg, const char *name,
                   const sum_source *sum);

#endif
