/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the provider's glue files: its context, errors, parameters. */
#ifndef KSUM_PROV_H
#define KSUM_PROV_H

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <stddef.h>
#include <stdint.h>

#include "ksumprov.h"

typedef struct ksum_provctx {
    const OSSL_CORE_HANDLE *handle;
    OSSL_FUNC_core_new_error_fn *new_error;
    OSSL_FUNC_core_set_error_debug_fn *set_error_debug;
    OSSL_FUNC_core_vset_error_fn *vset_error;
} ksum_provctx;

/* Reason codes, with their texts in provider.c. */
enum {
    KSUM_R_ALLOC = 1,
    KSUM_R_BAD_PARAM_TYPE,
    KSUM_R_PARAM_AFTER_DATA,
    KSUM_R_BAD_BLOCK_SIZE,
    KSUM_R_BAD_DOMAIN,
    KSUM_R_NO_KEY,
    KSUM_R_OUTPUT_BUFFER_TOO_SMALL,
    KSUM_R_NOT_INITIALIZED,
    KSUM_R_ALREADY_FINISHED,
    KSUM_R_BAD_BACKEND,
};

void ksum_raise(const ksum_provctx *prov, const char *file, int line,
                const char *func, int reason, const char *fmt, ...);
#define KSUM_RAISE(prov, reason, ...) \
    ksum_raise((prov), __FILE__, __LINE__, __func__, (reason), __VA_ARGS__)

/* Copies a string parameter (octet or UTF-8) into *buf, replacing what was
 * there; raises and returns 0 on a wrong type or no memory. */
int ksum_param_get_bytes(const ksum_provctx *prov, const OSSL_PARAM *p,
                         uint8_t **buf, size_t *len);
/* Sets *be from a "backend" parameter; raises and returns 0 when the name
 * is not a backend this build and CPU can run. */
int ksum_param_get_backend(const ksum_provctx *prov, const OSSL_PARAM *p,
                           const struct keccak_backend **be);

/* Frees a buffer set by ksum_param_get_bytes, wiping it first. */
void ksum_bytes_free(uint8_t **buf, size_t *len);
/* Duplicates a buffer for dupctx; returns 0 on no memory. */
int ksum_bytes_dup(uint8_t **dst, const uint8_t *src, size_t len);

/* The algorithm tables served by query_operation. */
extern const OSSL_ALGORITHM ksum_digests[];
extern const OSSL_ALGORITHM ksum_macs[];

#endif
