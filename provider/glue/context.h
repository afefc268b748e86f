/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one context under every digest and KMAC of ksumprov: the settings
 * the OSSL_PARAMs give, one phase machine, and a mode's state reached only
 * through its operations (provider/modes/mode.h).
 *
 * Phases: a new context waits for init; init makes it fresh (parameters
 * that shape the input may still change); the first byte makes it
 * absorbing; final or the first squeeze closes the input.  Every call
 * checks the phase it needs and raises an error through the core
 * otherwise.  All functions return 1 on success and 0 on failure.
 */
#ifndef KSUM_CONTEXT_H
#define KSUM_CONTEXT_H

#include "prov.h"

typedef struct ksum_ctx ksum_ctx;

ksum_ctx *ksum_ctx_new(const ksum_provctx *prov, const ksum_alg *alg);
void ksum_ctx_free(ksum_ctx *c);
/* A copy that owns its own strings and threads; NULL when out of memory. */
ksum_ctx *ksum_ctx_dup(const ksum_ctx *c);

/* Starts a new message.  reset: every setting back to its default first
 * (digests); otherwise settings persist across messages (KMAC: the key). */
int ksum_ctx_init(ksum_ctx *c, int reset, const OSSL_PARAM params[]);
/* An init that fails, there or after it (a key not taken), leaves no
 * message to hash: a digest without the parameters or key asked for would
 * be another function's.  Returns 0. */
int ksum_ctx_init_failed(ksum_ctx *c);
/* All parameters are checked before any is applied: a failed call leaves
 * the context as it was. */
int ksum_ctx_set_params(ksum_ctx *c, const OSSL_PARAM params[]);
/* Raises unless the algorithm takes no key or one is set. */
int ksum_ctx_require_key(const ksum_ctx *c);
int ksum_ctx_get_params(ksum_ctx *c, OSSL_PARAM params[]);

int ksum_ctx_update(ksum_ctx *c, const unsigned char *in, size_t len);
/* The output (its set length) into out, which holds outsz bytes. */
int ksum_ctx_final(ksum_ctx *c, unsigned char *out, size_t *outl, size_t outsz);
/* The next len bytes of output; closes the input on the first call. */
int ksum_ctx_squeeze(ksum_ctx *c, unsigned char *out, size_t len);

/* The dispatch functions that must know their algorithm's row, the same
 * for digests (op = digest) and MACs (op = mac). */
#define KSUM_ROW_FUNCTIONS(op, id)                                            \
    static OSSL_FUNC_##op##_newctx_fn id##_new;                               \
    static OSSL_FUNC_##op##_settable_ctx_params_fn id##_settable;            \
    static OSSL_FUNC_##op##_gettable_ctx_params_fn id##_gettable;            \
    static void *id##_new(void *provctx)                                      \
    {                                                                         \
        return ksum_ctx_new(provctx, &ksum_algs[KSUM_ALG_##id]);              \
    }                                                                         \
    static const OSSL_PARAM *id##_settable(void *ctx, void *provctx)          \
    {                                                                         \
        (void)ctx;                                                            \
        return ksum_settable(provctx, &ksum_algs[KSUM_ALG_##id]);             \
    }                                                                         \
    static const OSSL_PARAM *id##_gettable(void *ctx, void *provctx)          \
    {                                                                         \
        (void)ctx;                                                            \
        return ksum_gettable(provctx, &ksum_algs[KSUM_ALG_##id]);             \
    }

#endif
