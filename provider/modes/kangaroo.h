/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The KangarooTwelve family (RFC 9861 and the KangarooTwelve paper):
 * KT128 (= KangarooTwelve), KT256 and MarsupilamiFourteen differ only in
 * the sponge under them and the chaining-value length.
 */
#ifndef KSUM_KANGAROO_H
#define KSUM_KANGAROO_H

#include "tree.h"

#define KANGAROO_CHUNK 8192
/* The most chaining values one context of a tree in parts gives
 * (KSUMPROV_PART_MAX_CHUNKS, kangaroo_parts.c): 8 MiB of input. */
#define KANGAROO_PART_MAX_CVS 1024

typedef struct kangaroo_params {
    uint16_t rate;
    uint8_t rounds;
    uint8_t cv_len;
} kangaroo_params;

extern const kangaroo_params kangaroo_kt128, kangaroo_kt256, kangaroo_m14;

typedef struct kangaroo {
    sponge final;        /* the final node, which starts with S_0 */
    tree_leaves leaves;  /* S_1, S_2, ... once the input passes one chunk */
    size_t first;        /* bytes of S_0 absorbed so far */
    int tree;            /* more than one chunk: the final node is a tree's */
} kangaroo;

void kangaroo_init(kangaroo *k, const keccak_backend *be,
                   const kangaroo_params *p);
void kangaroo_update(kangaroo *k, const void *in, size_t len);
/* Appends the customization string and its length, closes the tree; the
 * output is then squeezed from k->final. */
void kangaroo_finish(kangaroo *k, const uint8_t *custom, size_t clen);

/* The parts of the final node around the chaining values, for a tree
 * computed in parts (kangaroo_parts.c): the tree marker after S_0 (once),
 * and length_encode(cvs) || FF FF after the CVs. */
void kangaroo_begin_tree(kangaroo *k);
void kangaroo_end_tree(kangaroo *k, uint64_t cvs);
/* length_encode(clen), which follows the customization string in S. */
size_t kangaroo_suffix(uint8_t out[9], size_t clen);
/* Chunks of S = M || C || length_encode(|C|) for |M| = message_len: 1 when
 * S fits one node (no tree), else ceil(|S| / 8192). */
uint64_t kangaroo_chunks(uint64_t message_len, size_t clen);

/* RFC 9861 length_encode: big-endian without leading zeros, then the count. */
size_t kangaroo_length_encode(uint8_t out[9], uint64_t x);

#endif
