/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every algorithm ksumprov serves, one row each: its mode (a description in
 * provider/modes/), the names it is fetched by (ksumprov's first, then
 * OpenSSL's and other aliases, then the OID), and flags.  digests.c and
 * kmac.c turn the rows into dispatch tables; nothing else lists algorithms.
 */
#ifndef KSUM_GLUE_ALGORITHMS_H
#define KSUM_GLUE_ALGORITHMS_H

#include "../modes/mode.h"

/* Flags of a row. */
enum {
    /* The digest's AlgorithmIdentifier has no parameters (all but SHAKE,
     * as in OpenSSL's default provider). */
    ALG_ALGID_ABSENT = 1 << 0,
    /* OpenSSL's KMAC limits: customization up to 512 bytes, output up to
     * 2097151 bytes (the key length is not limited: see ksumprov.h). */
    ALG_KMAC_LIMITS = 1 << 1,
    ALG_MAC = 1 << 2,       /* an EVP_MAC, not an EVP_MD */
};

/* Since which OpenSSL version its default provider has a name of the row,
 * and the default output length it gives it then (NO_DEFAULT: none, a
 * final needs an explicit length).  On that version and later ksumprov
 * behaves the same; before, the mode's own default holds. */
#define SINCE(major, minor, outlen) major, minor, outlen
#define ONLY_KSUMPROV 255, 0, 0
#define NO_DEFAULT 0

#define D ALG_ALGID_ABSENT
#define KSUM_DIGESTS(X)                                                               \
    X(sha3_224, "SHA3-224:2.16.840.1.101.3.4.2.7", "SHA3-224 (FIPS 202)", D, ONLY_KSUMPROV) \
    X(sha3_256, "SHA3-256:2.16.840.1.101.3.4.2.8", "SHA3-256 (FIPS 202)", D, ONLY_KSUMPROV) \
    X(sha3_384, "SHA3-384:2.16.840.1.101.3.4.2.9", "SHA3-384 (FIPS 202)", D, ONLY_KSUMPROV) \
    X(sha3_512, "SHA3-512:2.16.840.1.101.3.4.2.10", "SHA3-512 (FIPS 202)", D, ONLY_KSUMPROV) \
    X(shake128, "SHAKE128:SHAKE-128:2.16.840.1.101.3.4.2.11", "SHAKE128 (FIPS 202)", 0,  \
      SINCE(3, 4, NO_DEFAULT))                                                        \
    X(shake256, "SHAKE256:SHAKE-256:2.16.840.1.101.3.4.2.12", "SHAKE256 (FIPS 202)", 0,  \
      SINCE(3, 4, NO_DEFAULT))                                                        \
    X(rawshake128, "RAWSHAKE128:RAWSHAKE-128", "RawSHAKE128 (FIPS 202)", D, ONLY_KSUMPROV) \
    X(rawshake256, "RAWSHAKE256:RAWSHAKE-256", "RawSHAKE256 (FIPS 202)", D, ONLY_KSUMPROV) \
    X(keccak_224, "KECCAK-224", "Keccak-224 (pre-FIPS padding)", D, ONLY_KSUMPROV)    \
    X(keccak_256, "KECCAK-256", "Keccak-256 (pre-FIPS padding)", D, ONLY_KSUMPROV)    \
    X(keccak_384, "KECCAK-384", "Keccak-384 (pre-FIPS padding)", D, ONLY_KSUMPROV)    \
    X(keccak_512, "KECCAK-512", "Keccak-512 (pre-FIPS padding)", D, ONLY_KSUMPROV)    \
    X(cshake128, "CSHAKE128:CSHAKE-128", "cSHAKE128 (SP 800-185)", D, SINCE(4, 0, 32)) \
    X(cshake256, "CSHAKE256:CSHAKE-256", "cSHAKE256 (SP 800-185)", D, SINCE(4, 0, 64)) \
    X(parallelhash128, "PARALLELHASH128:PARALLELHASH-128", "ParallelHash128 (SP 800-185)", \
      D, ONLY_KSUMPROV)                                                              \
    X(parallelhash256, "PARALLELHASH256:PARALLELHASH-256", "ParallelHash256 (SP 800-185)", \
      D, ONLY_KSUMPROV)                                                              \
    X(tuplehash128, "TUPLEHASH128:TUPLEHASH-128", "TupleHash128 (SP 800-185)", D,     \
      ONLY_KSUMPROV)                                                                 \
    X(tuplehash256, "TUPLEHASH256:TUPLEHASH-256", "TupleHash256 (SP 800-185)", D,     \
      ONLY_KSUMPROV)                                                                 \
    X(kt128, "KANGAROOTWELVE:KT128:KT-128:K12", "KangarooTwelve (RFC 9861)", D,      \
      ONLY_KSUMPROV)                                                                 \
    X(kt256, "KT256:KT-256", "KT256 (RFC 9861)", D, ONLY_KSUMPROV)                   \
    X(m14, "MARSUPILAMIFOURTEEN:M14", "MarsupilamiFourteen", D, ONLY_KSUMPROV)       \
    X(turboshake128, "TURBOSHAKE128:TURBOSHAKE-128", "TurboSHAKE128 (RFC 9861)", D,   \
      ONLY_KSUMPROV)                                                                 \
    X(turboshake256, "TURBOSHAKE256:TURBOSHAKE-256", "TurboSHAKE256 (RFC 9861)", D,   \
      ONLY_KSUMPROV)                                                                 \
    X(kt128_cv, "KT128-CV:KANGAROOTWELVE-CV", "KT128 chaining values of a range", D,   \
      ONLY_KSUMPROV)                                                                 \
    X(kt256_cv, "KT256-CV", "KT256 chaining values of a range", D, ONLY_KSUMPROV)     \
    X(m14_cv, "M14-CV:MARSUPILAMIFOURTEEN-CV", "M14 chaining values of a range", D,   \
      ONLY_KSUMPROV)                                                                 \
    X(kt128_final, "KT128-FINAL:KANGAROOTWELVE-FINAL",                               \
      "KT128 from the first chunk and chaining values", D, ONLY_KSUMPROV)             \
    X(kt256_final, "KT256-FINAL", "KT256 from the first chunk and chaining values", D, \
      ONLY_KSUMPROV)                                                                 \
    X(m14_final, "M14-FINAL:MARSUPILAMIFOURTEEN-FINAL",                              \
      "M14 from the first chunk and chaining values", D, ONLY_KSUMPROV)            \
    X(parallelhash128_cv, "PARALLELHASH128-CV:PARALLELHASH-128-CV",                  \
      "ParallelHash128 chaining values of a range", D, ONLY_KSUMPROV)                \
    X(parallelhash256_cv, "PARALLELHASH256-CV:PARALLELHASH-256-CV",                  \
      "ParallelHash256 chaining values of a range", D, ONLY_KSUMPROV)                \
    X(parallelhash128_final, "PARALLELHASH128-FINAL:PARALLELHASH-128-FINAL",         \
      "ParallelHash128 from chaining values", D, ONLY_KSUMPROV)                      \
    X(parallelhash256_final, "PARALLELHASH256-FINAL:PARALLELHASH-256-FINAL",         \
      "ParallelHash256 from chaining values", D, ONLY_KSUMPROV)

#define KSUM_MACS(X)                                                                   \
    X(kmac128, "KMAC128:KMAC-128:2.16.840.1.101.3.4.2.19", "KMAC128 (SP 800-185)",     \
      ALG_MAC | ALG_KMAC_LIMITS, SINCE(3, 0, 32))                                                \
    X(kmac256, "KMAC256:KMAC-256:2.16.840.1.101.3.4.2.20", "KMAC256 (SP 800-185)",     \
      ALG_MAC | ALG_KMAC_LIMITS, SINCE(3, 0, 64))

#define KSUM_ALG_INDEX(id, names, description, ...) KSUM_ALG_##id,
enum { KSUM_DIGESTS(KSUM_ALG_INDEX) KSUM_MACS(KSUM_ALG_INDEX) KSUM_ALG_COUNT };

typedef struct ksum_alg {
    const mode_desc *mode;
    unsigned flags;
    unsigned index;         /* KSUM_ALG_* */
    unsigned char openssl_major, openssl_minor;
    size_t openssl_outlen;
} ksum_alg;

#define KSUM_ALG_ROW(id, names, description, flags, ...) \
    [KSUM_ALG_##id] = {&mode_##id, flags, KSUM_ALG_##id, __VA_ARGS__},

extern const ksum_alg ksum_algs[KSUM_ALG_COUNT];

/* Every one of the n rows has a sponge rate the backends absorb exactly
 * (keccak_rate_ok); the provider refuses to start otherwise, since a row
 * at another rate would give wrong digests without an error. */
int ksum_algs_absorbable(const ksum_alg *algs, size_t n);

/* The OpenSSL library running is at least major.minor (a module links the
 * libcrypto of the process that loads it, so this is the core's version). */
int ksum_openssl_at_least(unsigned major, unsigned minor);

/* The default output length of alg under the running OpenSSL; SIZE_MAX
 * when there is none. */
size_t ksum_alg_outlen(const ksum_alg *alg);

#endif
