/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the provider's glue files: the provider context, errors raised
 * through the core, and the parameter lists built from the algorithm rows.
 *
 * Return convention of the glue: the OpenSSL one, 1 for success and 0 for
 * failure with an error raised through the core.
 */
#ifndef KSUM_PROV_H
#define KSUM_PROV_H

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <stddef.h>
#include <stdint.h>

#include "../modes/batch.h"
#include "algorithms.h"
#include "ksumprov.h"

typedef struct ksum_provctx {
    const OSSL_CORE_HANDLE *handle;
    OSSL_FUNC_core_new_error_fn *new_error;
    OSSL_FUNC_core_set_error_debug_fn *set_error_debug;
    OSSL_FUNC_core_vset_error_fn *vset_error;
    /* Each algorithm's settable and gettable context parameters. */
    OSSL_PARAM *settable[KSUM_ALG_COUNT], *gettable[KSUM_ALG_COUNT];
    size_t outlen[KSUM_ALG_COUNT];      /* ksum_alg_outlen, once */
    /* The groups of contexts that absorb together (KSUM_PARAM_BATCH). */
    batch_registry *batches;
} ksum_provctx;

/* Reason codes, with their texts in provider.c. */
enum {
    KSUM_R_ALLOC = KSUMPROV_R_ALLOC,   /* public */
    KSUM_R_BAD_PARAM_TYPE,
    KSUM_R_PARAM_AFTER_DATA,
    KSUM_R_BAD_BLOCK_SIZE,
    KSUM_R_BAD_DOMAIN,
    KSUM_R_NO_KEY,
    KSUM_R_OUTPUT_BUFFER_TOO_SMALL,
    KSUM_R_NOT_INITIALIZED,
    KSUM_R_ALREADY_FINISHED,
    KSUM_R_BAD_BACKEND,
    KSUM_R_OUT_OF_RANGE,
    KSUM_R_NULL_DATA,
    KSUM_R_ELEMENT_LENGTH,
    KSUM_R_NO_OUTPUT_LENGTH,
    KSUM_R_NOT_XOF,
    KSUM_R_PART = KSUMPROV_R_PART,   /* public: the last, so none follows it */
};
_Static_assert(KSUM_R_NOT_XOF + 1 == KSUM_R_PART, "a reason before KSUM_R_PART took its code");

void ksum_raise(const ksum_provctx *prov, const char *file, int line,
                const char *func, int reason, const char *fmt, ...);
#define KSUM_RAISE(prov, reason, ...) \
    ksum_raise((prov), __FILE__, __LINE__, __func__, (reason), __VA_ARGS__)

/* Builds and frees every algorithm's parameter lists, kept in prov because
 * OpenSSL holds on to them, and notes each default output length; build
 * returns 0 on no memory. */
int ksum_param_lists_build(ksum_provctx *prov);
void ksum_param_lists_free(ksum_provctx *prov);

static inline const OSSL_PARAM *ksum_settable(const ksum_provctx *prov,
                                              const ksum_alg *alg)
{
    return prov->settable[alg->index];
}

static inline const OSSL_PARAM *ksum_gettable(const ksum_provctx *prov,
                                              const ksum_alg *alg)
{
    return prov->gettable[alg->index];
}

#endif
