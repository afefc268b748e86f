/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --combine's final node, begun while the record files are still being
 * read.  Absorbing every CV in chunk order is one sponge, so it cannot be
 * split; but it need not wait for the last file, nor for the end of a
 * record: each record is offered in runs of its CVs as they are decoded
 * (record.h), and a run is absorbed when it continues the chunks absorbed
 * so far, by a thread with no file left to read where there is one (so
 * one stream of records, too, is read on one thread while the node takes
 * them on another), else by the thread that offers it.
 *
 * It decides nothing.  combine checks the whole set of records as before
 * (object, algorithm, customization, split, cover), then takes the node
 * only if what it absorbed is, pointer for pointer, the start of that
 * sorted set, with the head's algorithm and length; otherwise it builds
 * the node again from the start.
 */
#ifndef KSUM_CLI_PARTS_EARLY_H
#define KSUM_CLI_PARTS_EARLY_H

#include <openssl/evp.h>
#include <stddef.h>
#include <stdint.h>

#include "parts/record.h"

typedef struct early_node early_node;

/* A node for the records' customization string custom (the -C given);
 * NULL when out of memory (combine then says so and stops). */
early_node *early_new(OSSL_LIB_CTX *lib, const char *custom);
/* The threads that read record files: each calls early_reader_done when
 * it has read its last, before early_serve.  Set before they start. */
void early_readers(early_node *e, unsigned n);
/* One run of a record (record.h): the node keeps a copy of it and of its
 * head, and needs its CVs until early_free; from any thread, e may be
 * NULL.  It is absorbed by a thread waiting in early_serve, else by this
 * one when no other is absorbing. */
void early_offer(early_node *e, const part_record *r);
void early_reader_done(early_node *e);
/* Absorbs what becomes ready until every reader is done. */
void early_serve(early_node *e);
/* Once every file is read and the sorted set all[0..n) is judged whole:
 * the node with every CV absorbed, which the caller then owns.  What was
 * absorbed early is kept when it is the start of the set, and built again
 * otherwise; NULL (OpenSSL's reason queued) when the CVs do not make the
 * node.  e must not be NULL. */
EVP_MD_CTX *early_take(early_node *e, part_record *const *all, size_t n,
                       const char *final_name, uint64_t length);
void early_free(early_node *e);

#endif
