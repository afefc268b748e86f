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
#include "front/options.h"
#include "input/files.h"
#include "run/job.h"

/* The header every directory node begins with, encoded as a string. */
#define TREE_HEADER "ksum tree v1"

/* Hashes and prints the tree of every DIR operand (with --manifest, a
 * line for each file and directory in it as well); 1 when every tree got
 * its digest. */
int hash_trees(const options *o, OSSL_LIB_CTX *lib);

/* The tree at path for check mode, into root (opened by the caller, begun
 * and absorbed here, then ended or squeezed by the caller, at its size):
 * d names the algorithm and its options; in is where a file no worker
 * takes is read.
 * The errors in the tree are reported here unless quiet.
 * Returns 0, ENOENT when path is missing, or KSUM_ETREE when it has no
 * digest. */
int tree_digest(const digest_spec *d, hasher *root, const char *path, input *in, int quiet);

#endif
