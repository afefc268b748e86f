/* SPDX-License-Identifier: Apache-2.0 */
/* The MAC algorithms, one per row of algorithms.h, served by the
 * provider's query_operation. */
#ifndef KSUM_GLUE_KMAC_H
#define KSUM_GLUE_KMAC_H

#include <openssl/core.h>

extern const OSSL_ALGORITHM ksum_macs[];

#endif
