/* SPDX-License-Identifier: Apache-2.0 */
/* TupleHash over files: one digest of the tuple of several files. */
#ifndef KSUM_CLI_TUPLE_H
#define KSUM_CLI_TUPLE_H

#include <stddef.h>
#include <stdint.h>

#include "front/hasher.h"
#include "input/files.h"

/* Hashes the n files at paths ("-": standard input), each one element of
 * the tuple, into sum (or, with sum NULL, leaves the output to
 * hasher_squeeze).  Each element's length is announced before its bytes,
 * so a regular file streams (also one redirected to standard input); a
 * stream of unknown length (a pipe, a terminal) is read to its end first:
 * into memory up to 32 MiB, beyond that into an unnamed temporary file in
 * $TMPDIR (or /tmp).  Returns as feed_next does, with *failed the path
 * that stopped it (for KSUM_ESPILL, in->spill_errno says why). */
int hash_tuple(hasher *h, char *const *paths, size_t n, input *in, uint8_t *sum,
               const char **failed);

#endif
