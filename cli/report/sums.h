/* SPDX-License-Identifier: Apache-2.0 */
/* `ksum FILE...`: the checksum lines of the files named (operands, a list,
 * a walk), on the road of concurrent.h; or TupleHash's one line of them
 * all. */
#ifndef KSUM_CLI_SUMS_H
#define KSUM_CLI_SUMS_H

#include <openssl/types.h>

#include "front/options.h"

/* Hashes and prints every file the options name; 1 when all were hashed. */
int hash_files(const options *o, OSSL_LIB_CTX *lib);

#endif
