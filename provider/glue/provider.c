/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The provider itself: entry point, parameters, the algorithm query and
 * errors reported through the core.  It holds no global state: everything
 * lives in the provider context the core hands back to every call.
 */
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <stdarg.h>
#include <string.h>

#include "../permutation/keccak_p.h"
#include "digests.h"
#include "kmac.h"
#include "prov.h"

#ifndef KSUM_VERSION
#define KSUM_VERSION "0.0.0"
#endif

void ksum_raise(const ksum_provctx *prov, const char *file, int line,
                const char *func, int reason, const char *fmt, ...)
{
    va_list ap;

    if (prov == NULL || prov->new_error == NULL)
        return;
    prov->new_error(prov->handle);
    prov->set_error_debug(prov->handle, file, line, func);
    va_start(ap, fmt);
    prov->vset_error(prov->handle, (uint32_t)reason, fmt, ap);
    va_end(ap);
}

static OSSL_FUNC_provider_gettable_params_fn provider_gettable_params;
static OSSL_FUNC_provider_get_params_fn provider_get_params;
static OSSL_FUNC_provider_query_operation_fn provider_query;
static OSSL_FUNC_provider_get_reason_strings_fn provider_reason_strings;
static OSSL_FUNC_provider_teardown_fn provider_teardown;

static const OSSL_PARAM provider_param_types[] = {
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_BUILDINFO, OSSL_PARAM_UTF8_PTR, NULL, 0),
    OSSL_PARAM_DEFN(OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER, NULL, 0),
    OSSL_PARAM_END
};

static const OSSL_PARAM *provider_gettable_params(void *provctx)
{
    (void)provctx;
    return provider_param_types;
}

static int provider_get_params(void *provctx, OSSL_PARAM params[])
{
    OSSL_PARAM *p;
    (void)provctx;

    p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, "ksumprov: Keccak family"))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION);
    if (p != NULL && !OSSL_PARAM_set_utf8_ptr(p, KSUM_VERSION))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO);
    if (p != NULL &&
        !OSSL_PARAM_set_utf8_ptr(p, "ksumprov " KSUM_VERSION ", kernel "
                                    KSUM_BACKENDS_BUILT))
        return 0;
    p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS);
    if (p != NULL && !OSSL_PARAM_set_int(p, 1))
        return 0;
    return 1;
}

static const OSSL_ALGORITHM *provider_query(void *provctx, int operation_id,
                                            int *no_cache)
{
    (void)provctx;
    *no_cache = 0;
    switch (operation_id) {
    case OSSL_OP_DIGEST:
        return ksum_digests;
    case OSSL_OP_MAC:
        return ksum_macs;
    }
    return NULL;
}

static const OSSL_ITEM reason_strings[] = {
    {KSUM_R_ALLOC, "out of memory"},
    {KSUM_R_BAD_PARAM_TYPE, "parameter has the wrong type"},
    {KSUM_R_PARAM_AFTER_DATA, "parameter cannot change after data was absorbed"},
    {KSUM_R_BAD_BLOCK_SIZE, "invalid block size"},
    {KSUM_R_BAD_DOMAIN, "invalid domain byte"},
    {KSUM_R_NO_KEY, "no key set"},
    {KSUM_R_OUTPUT_BUFFER_TOO_SMALL, "output buffer too small"},
    {KSUM_R_NOT_INITIALIZED, "context not initialized"},
    {KSUM_R_ALREADY_FINISHED, "context already finished; initialize it again"},
    {KSUM_R_BAD_BACKEND, "unknown or unsupported Keccak backend"},
    {KSUM_R_OUT_OF_RANGE, "parameter out of range"},
    {KSUM_R_NULL_DATA, "parameter has a length but no data"},
    {KSUM_R_ELEMENT_LENGTH, "data does not match the announced element length"},
    {KSUM_R_NO_OUTPUT_LENGTH, "no output length set"},
    {KSUM_R_NOT_XOF, "not an extendable-output function"},
    {KSUM_R_PART, "input does not fit the part of the tree"},
    {0, NULL},
};

static const OSSL_ITEM *provider_reason_strings(void *provctx)
{
    (void)provctx;
    return reason_strings;
}

static void provider_teardown(void *provctx)
{
    ksum_provctx *prov = provctx;

    batch_registry_free(prov->batches);
    ksum_param_lists_free(prov);
    OPENSSL_free(prov);
}

/* Batches allocate through OpenSSL, as the rest of the provider does. */
static void *batch_alloc(size_t len)
{
    return OPENSSL_malloc(len);
}

static void batch_release(void *p, size_t wipe)
{
    if (p != NULL)
        OPENSSL_clear_free(p, wipe);
}

static const batch_memory batch_memory_openssl = {batch_alloc, batch_release};

static const OSSL_DISPATCH provider_functions[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))provider_teardown},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))provider_gettable_params},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))provider_get_params},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))provider_query},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))provider_reason_strings},
    {0, NULL},
};

/* The core's error functions: all three, or no error reporting. */
static void take_core_errors(ksum_provctx *core, const OSSL_DISPATCH *in)
{
    for (; in->function_id != 0; in++) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR:
            core->new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            core->set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            core->vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        }
    }
    if (core->set_error_debug == NULL || core->vset_error == NULL)
        core->new_error = NULL;
}

/* A failed start is raised with a reason OpenSSL itself knows: the
 * provider's own reason strings are not registered when its init fails. */
int ksumprov_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                  const OSSL_DISPATCH **out, void **provctx)
{
    ksum_provctx core = {.handle = handle}, *prov;

    take_core_errors(&core, in);
    if (!ksum_algs_absorbable(ksum_algs, KSUM_ALG_COUNT)) {
        KSUM_RAISE(&core, ERR_R_INTERNAL_ERROR, "a rate the Keccak backends cannot absorb");
        return 0;
    }
    prov = OPENSSL_zalloc(sizeof *prov);
    if (prov != NULL) {
        *prov = core;
        prov->batches = batch_registry_new(&batch_memory_openssl);
        if (prov->batches == NULL || !ksum_param_lists_build(prov)) {
            provider_teardown(prov);
            prov = NULL;
        }
    }
    if (prov == NULL) {
        KSUM_RAISE(&core, ERR_R_MALLOC_FAILURE, "no memory to start the provider");
        return 0;
    }
    /* Choose the Keccak backend now, at load, not on the first hash. */
    (void)keccak_backend_active();
    *out = provider_functions;
    *provctx = prov;
    return 1;
}
