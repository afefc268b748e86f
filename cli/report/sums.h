/* SPDX-License-Identifier: Apache-2.0 */
/* `ksum FILE...`: the checksum lines of the files named (operands, a list,
 * a walk), on the road of concurrent.h; or TupleHash's one line of them
 * all. */
#ifndef KSUM_CLI_SUMS_H
#define KSUM_CLI_SUMS_H

#include <openssl/types.h>

#include "front/resolve.h"
#include "input/walk.h"

/* Hashes with r's algorithms and prints every file spec names, showing
 * the reading when show_progress; 1 when all were hashed. */
int hash_files(const resolved *r, const name_spec *spec, int show_progress,
               OSSL_LIB_CTX *lib);

#endif
