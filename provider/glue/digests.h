/* SPDX-License-Identifier: Apache-2.0 */
/* The digest algorithms, one per row of algorithms.h, served by the
 * provider's query_operation. */
#ifndef KSUM_GLUE_DIGESTS_H
#define KSUM_GLUE_DIGESTS_H

#include <openssl/core.h>

extern const OSSL_ALGORITHM ksum_digests[];

#endif
