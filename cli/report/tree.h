/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `ksum --tree DIR...`: one digest for each directory tree, a Merkle tree
 * as docs/tree.md defines it ("ksum tree v1"); its files hashed on the
 * road of concurrent.h, its directory nodes absorbed on the printing
 * thread as their entries come, in order.  And the same digest for check
 * mode, on a road of its own run from the check's printing thread.
 */
#ifndef KSUM_CLI_TREE_H
#define KSUM_CLI_TREE_H

#include <openssl/types.h>

#include "front/hasher.h"
#include "front/resolve.h"
#include "input/files.h"
#include "run/job.h"

/* The header every directory node begins with, encoded as a string. */
#define TREE_HEADER "ksum tree v1"

/* What a walk of a tree takes besides its root, and what it prints. */
typedef struct tree_spec {
    char *const *excludes;  /* --exclude's patterns, in the order given */
    size_t nexcludes;
    int manifest;           /* --manifest: a line per file and directory too */
} tree_spec;

/* Hashes with r's algorithms and prints the tree of every root (with
 * t->manifest, a line for each file and directory in it as well); 1 when
 * every tree got its digest. */
int hash_trees(const resolved *r, char *const *roots, const tree_spec *t,
               OSSL_LIB_CTX *lib);

/* What check mode's tree lines share: the command line's algorithms
 * (whose options the road is chosen by), the walk's, where a file no
 * worker takes is read, and whether the errors in a tree go unsaid. */
typedef struct tree_check {
    const resolved *r;
    const tree_spec *t;
    input *in;
    int quiet;
} tree_check;

/* The tree at path for check mode, into root (opened by the caller, begun
 * and absorbed here, then ended or squeezed by the caller, at its size):
 * d names the algorithm and its options.  Returns 0, ENOENT when path is
 * missing, ENOMEM when memory ran out in it (said), or KSUM_ETREE when it
 * has no digest. */
int tree_digest(const tree_check *tc, const digest_spec *d, hasher *root, const char *path);

#endif
