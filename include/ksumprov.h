/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ksumprov: an OpenSSL 3 provider for the Keccak family.
 *
 * Algorithms (fetch with the property query "provider=ksumprov"):
 *   EVP_MD:  SHA3-224/256/384/512, SHAKE128/256, RAWSHAKE128/256,
 *            KECCAK-224/256/384/512, CSHAKE128/256, PARALLELHASH128/256,
 *            KANGAROOTWELVE (KT128, K12), KT256, MARSUPILAMIFOURTEEN (M14),
 *            TURBOSHAKE128/256
 *   EVP_MAC: KMAC128 (KMAC-128), KMAC256 (KMAC-256)
 *
 * Digest context parameters (EVP_MD_CTX_set_params), besides OpenSSL's own
 * "xoflen" (size_t, output bytes of an XOF; "size" is accepted too):
 */
#ifndef KSUMPROV_H
#define KSUMPROV_H

#include <openssl/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The provider's name, for OSSL_PROVIDER_load and property queries. */
#define KSUMPROV_NAME "ksumprov"

/* Customization string S (octet string): cSHAKE, ParallelHash,
 * KangarooTwelve, KT256, MarsupilamiFourteen.  Before any data. */
#define KSUM_PARAM_CUSTOM "custom"
/* Function name N (octet string): cSHAKE.  Before any data. */
#define KSUM_PARAM_FUNCTION_NAME "function-name"
/* Block size B in bytes (size_t, at least 1, default 8192): ParallelHash.
 * Before any data.  Not "blocksize", which OpenSSL uses for the rate. */
#define KSUM_PARAM_BLOCK_SIZE "block-size"
/* XOF mode (int 0 or 1): ParallelHashXOF, KMACXOF.  Before the final call. */
#define KSUM_PARAM_XOF "xof"
/* Domain byte D (unsigned int, 0x01..0x7F, default 0x1F): TurboSHAKE.
 * Before any data. */
#define KSUM_PARAM_DOMAIN "domain"

/* Worker threads (unsigned int, default 0: every CPU the process may use;
 * 1: none): ParallelHash, KangarooTwelve, KT256, MarsupilamiFourteen hash
 * leaves on up to this many threads.  A context starts its threads at its
 * first large update, keeps them between updates and joins them when it is
 * freed, so live contexts hold their threads.  Any time; results do not
 * depend on it. */
#define KSUM_PARAM_THREADS "threads"

/* Keccak backend of this context (UTF-8 string: "portable", "bmi2" or
 * "avx2"; default: the fastest this CPU runs, or KSUM_SIMD's choice).  Every
 * algorithm, the KMACs too; before any data.  Readable as well.  Results do
 * not depend on it: it exists to test and compare the backends. */
#define KSUM_PARAM_BACKEND "backend"

/* Squeezing (octet string, get only; digests and KMAC): EVP_MD_CTX_get_params
 * or EVP_MAC_CTX_get_params with this parameter fills its buffer with the
 * next bytes of output, so that outputs of any length can be streamed with
 * OpenSSL 3.0, which has no EVP_DigestSqueeze.  The first squeeze closes
 * the input as final would (with the output length set for ParallelHash
 * and KMAC, whose value depends on it); no update or final may follow. */
#define KSUM_PARAM_SQUEEZE "squeeze"

/* KMAC (EVP_MAC) takes OpenSSL's KMAC parameters: "key" (octet string, any
 * length including 0), "custom", "size" (output bytes, default 32 for
 * KMAC128 and 64 for KMAC256, as OpenSSL's) and "xof". */

/* The provider's entry point, for OSSL_PROVIDER_add_builtin() in programs
 * that link ksumprov in instead of loading the module. */
OSSL_provider_init_fn ksumprov_init;

#ifdef __cplusplus
}
#endif

#endif
