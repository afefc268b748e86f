/* SPDX-License-Identifier: Apache-2.0 */
/* The options once the provider is loaded (options.h holds what was said). */
#ifndef KSUM_CLI_RESOLVE_H
#define KSUM_CLI_RESOLVE_H

#include <openssl/types.h>

#include "options.h"

/* The algorithms -a names (any name the provider knows), what they take,
 * and whether the options given apply to them; prints the message and
 * returns 0 when not. */
int options_resolve(options *o, OSSL_LIB_CTX *lib);
/* The chosen algorithm that is a (the same provider algorithm), or NULL. */
const algorithm *options_chosen(const options *o, const algorithm *a);

#endif
