/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Messages: names escaped as GNU coreutils escapes them, errors and
 * warnings on standard error, OpenSSL's reasons, and the health of standard
 * output.  This module depends on nothing else of ksum's, so that any file
 * may report an error without depending on what prints checksums.
 */
#ifndef KSUM_CLI_MESSAGES_H
#define KSUM_CLI_MESSAGES_H

#include <stddef.h>
#include <stdio.h>

/* Errors besides errno values. */
#define KSUM_EHASH (-1)     /* EVP failed */
#define KSUM_ECHANGED (-2)  /* size or mtime changed while reading */
#define KSUM_ENOTREG (-3)   /* not a regular file, with regular_only */
#define KSUM_EWRITE (-4)    /* standard output failed (already reported) */
#define KSUM_ESTDIN (-5)    /* '-' named while standard input is a check file */
#define KSUM_ETAB (-6)      /* a tab in a name of a tuple, with -z */
#define KSUM_ETTY (-7)      /* '-' in a check file while standard input is a terminal */
#define KSUM_ESPILL (-8)    /* a long stream of a tuple found no temporary file */
/* The walk (-r) and name lists (--files-from). */
#define KSUM_ELOOP (-20)        /* a directory that contains itself (-L) */
#define KSUM_ESPECIAL (-21)     /* a FIFO, device or socket: skipped */
#define KSUM_ESYMLINK (-22)     /* a symbolic link without -L: skipped */
#define KSUM_ELISTSTDIN (-23)   /* '-' named by a list read from standard input */
/* Directory trees (--tree). */
#define KSUM_ETREE (-24)        /* errors in a tree, each named already: no digest */
#define KSUM_ETREELINE (-25)    /* a tree's line ("NAME/") checked without --tree */

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

/* Standard output from here on: lines held and written whole (at most
 * PIPE_BUF bytes of whole lines a write, or one longer line alone), so that
 * the lines of processes sharing a pipe never mix.  Called once, first. */
void output_open(void);
/* What ends a line: '\n' (the default), or NUL for --zero. */
void output_line_end(char end);

/* Standard error, for one message, after standard output has been flushed,
 * so that "> log 2>&1" keeps the order of lines and messages. */
FILE *message_stream(void);

/* OpenSSL's reasons for this thread's last failure on one line ("reason
 * (detail); ..."), into buf; empties the thread's error queue.  Returns 1
 * when one of them is a want of memory, which is no fault of the input. */
int openssl_reason(char *buf, size_t size);
/* The same, for a call that fails on nothing but memory when it queues no
 * reason (OpenSSL 3.1 on, and ksumprov, queue none for a failed
 * allocation): 1 for a want of memory, said or not. */
int openssl_memory_failure(char *buf, size_t size);

/* To be called after each line or piece written to standard output, before
 * anything else is written: 1 while every write has worked.  The first
 * failure is reported here ("ksum: write error: REASON") and what is still
 * buffered is dropped; from then on it returns 0 and reports nothing. */
int output_ok(void);
/* At exit: flushes and closes standard output; 1 when all was written. */
int output_close(void);

/* "ksum: NAME: reason" on stderr, NAME escaped when it needs it and ''
 * when empty, as sha256sum shows it.  For KSUM_EHASH the reason is `why`, or
 * when that is NULL, this thread's OpenSSL errors; for the others, `why`
 * (when not NULL) follows the reason. */
void report_error(const char *name, int err, const char *why);

/* Usage errors: "Try 'ksum --help' ..." after the message. */
void usage_hint(void);
/* "ksum: invalid WHAT 'VALUE': WHY" and the hint; returns 0. */
int bad_value(const char *what, const char *value, const char *why);
/* "ksum: MESSAGE" (printf's format); returns 0.  usage_error adds the
 * hint. */
int message_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
