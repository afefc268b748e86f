/* SPDX-License-Identifier: Apache-2.0 */
/* Output lines: hex, file-name escaping as GNU coreutils does it; messages
 * on standard error; write errors on standard output. */
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
/* n names joined by tabs (TupleHash's files), escaped when escape is set,
 * which it must be when names_need_escape: literal tabs are then only
 * between names. */
int names_need_escape(char *const *names, size_t n);
void print_names(FILE *f, char *const *names, size_t n, int escape);

/* Standard error, for one message, after standard output has been flushed,
 * so that "> log 2>&1" keeps the order of lines and messages. */
FILE *message_stream(void);

/* OpenSSL's reasons for this thread's last failure on one line ("reason
 * (detail); ..."), into buf; empties the thread's error queue. */
void openssl_reason(char *buf, size_t size);

/* To be called after each line or piece written to standard output, before
 * anything else is written: 1 while every write has worked.  The first
 * failure is reported here ("ksum: write error: REASON") and what is still
 * buffered is dropped; from then on it returns 0 and reports nothing. */
int output_ok(void);
/* At exit: flushes and closes standard output; 1 when all was written. */
int output_close(void);

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
 * ones).  The options' forms: HEX in base64 (--base64); HEX alone
 * (--no-names); the sum's bytes alone, no line end (--raw).  Returns 0,
 * KSUM_EHASH when squeezing failed, ENOMEM (nothing printed) when there is
 * no memory to squeeze into, or KSUM_EWRITE when standard output failed
 * (reported; stop writing). */
int print_sum_line(const options *o, const hasher *h, char *const *names,
                   size_t n, const sum_source *sum);

#endif
