/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One object, many machines (issue 20): --part K/N and --part-range
 * START:LEN write a part record of one chunk-aligned share of a file
 * (KT128, KT256 or M14 chaining values, through the provider's -CV
 * algorithms); --combine reads part records and prints the checksum line
 * ksum would print for the whole file (the provider's -FINAL algorithms).
 * The record format is in docs/parts.md.
 */
#ifndef KSUM_CLI_PARTS_H
#define KSUM_CLI_PARTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "front/options.h"

struct resolved;   /* resolve.h's */

/* The options (--part, --part-range, --combine) are options.c's rows. */

/* --part, --part-range or --combine was given. */
int parts_wanted(const options *o);
/* Does what they ask, once options_judge found them agreeing, resolving
 * the options itself into r (--combine without an algorithm switch takes
 * the records' algorithm); 1 on success. */
int parts_main(options *o, OSSL_LIB_CTX *lib, struct resolved *r);

/* ---- the record format, shared with the fuzzer ---- */

#define PART_CHUNK 8192
#define PART_DIGEST 32     /* KT128 of C, of chunks, of the record */
#define PART_MAX_CV 64

typedef struct part_record {
    const char *file;        /* where it was read, for messages */
    size_t index;            /* 1-based, among the file's records */
    char algorithm[32];
    uint8_t custom[PART_DIGEST];
    uint64_t length;         /* the object's */
    uint8_t first[PART_DIGEST], last[PART_DIGEST];
    char *name;              /* the file name the part was made from */
    uint64_t share, shares;  /* K of N; 0 0 for --part-range */
    uint64_t begin, end;     /* chunks [begin, end) of the object */
    uint8_t *head;           /* the first chunk's bytes, in the record of chunk 0 */
    size_t head_len;
    uint8_t *cvs;            /* count CVs of cv_len bytes, in order */
    size_t count, cv_len;
} part_record;

/* Parses the records in text[0..len) (one file's); *recs and *n get them
 * (free with part_records_free).  lib computes the checks.  On a
 * malformed record returns 0 with a one-line reason in why, naming the
 * record; the records read before it are in *recs. */
int part_records_parse(OSSL_LIB_CTX *lib, const char *file, const char *text,
                       size_t len, part_record **recs, size_t *n, char *why,
                       size_t why_size);
void part_records_free(part_record *recs, size_t n);
/* The digest records use: KT128 of in, 32 bytes. */
int part_digest(OSSL_LIB_CTX *lib, const void *in, size_t len, uint8_t out[PART_DIGEST]);

#endif
