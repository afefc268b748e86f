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

struct resolved;   /* resolve.h's */

/* The options (--part, --part-range, --combine) are options.c's rows. */

/* --part, --part-range or --combine was given. */
int parts_wanted(const options *o);
/* Does what they ask, once options_judge found them agreeing, resolving
 * the options itself into r (--combine without an algorithm switch takes
 * the records' algorithm); 1 on success. */
int parts_main(options *o, OSSL_LIB_CTX *lib, struct resolved *r);

#endif
