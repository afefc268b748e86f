/* SPDX-License-Identifier: Apache-2.0 */
/* Checksum lines on standard output: hex or base64, tagged or not, with
 * the names escaped (messages.h). */
#ifndef KSUM_CLI_OUTPUT_H
#define KSUM_CLI_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "base/messages.h"
#include "front/hasher.h"
#include "front/resolve.h"

/* A checksum to print: len bytes in buf, or, when h is set, squeezed from
 * h while it is printed. */
typedef struct sum_source {
    const uint8_t *buf;
    size_t len;
    hasher *h;
} sum_source;

/* "HEX  NAME", "HEX *NAME" or "ALGO (NAME) = HEX", ended by \n or NUL,
 * for a sum of h's algorithm; ALGO is "NAME-BITS" for a length other than
 * the default.  NAME is the n names joined by tabs (TupleHash's tuple of
 * files; a tab in a name is escaped, so the tabs between them are the only
 * ones), in the form ls says (resolve.h).  Returns 0,
 * KSUM_EHASH when squeezing failed, or KSUM_EWRITE when standard output
 * failed (reported; stop writing). */
int print_sum_line(const line_style *ls, const hasher *h, char *const *names,
                   size_t n, const sum_source *sum);

#endif
