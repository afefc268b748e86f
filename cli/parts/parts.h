/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One object, many machines: --part K/N and --part-range
 * START:LEN write a part record of one chunk-aligned share of a file
 * (KT128, KT256 or M14 chaining values, through the provider's -CV
 * algorithms); --combine reads part records and prints the checksum line
 * ksum would print for the whole file (the provider's -FINAL algorithms).
 * The record format is in docs/parts.md.
 */
#ifndef KSUM_CLI_PARTS_H
#define KSUM_CLI_PARTS_H

#include "front/options.h"
#include "front/resolve.h"

/* --part K/N or --part-range START:LEN (one of them) of file. */
typedef struct part_spec {
    const char *share, *range;
    const char *file;
} part_spec;

/* Writes the part record of p with r's algorithm (options_judge saw to
 * one FILE and no --check); 1 on success. */
int parts_write(const resolved *r, const part_spec *p, OSSL_LIB_CTX *lib);
/* --combine: prints the checksum line of the object o's part records
 * make.  It resolves the options itself, into r, once the records are
 * read: without an algorithm switch they name it, and --raw and the like
 * are judged for the one object, not the record files.  1 on success. */
int parts_combine(options *o, OSSL_LIB_CTX *lib, resolved *r);

#endif
