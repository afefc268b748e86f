/* SPDX-License-Identifier: Apache-2.0 */
/* The entry point OpenSSL looks up when it loads ksumprov.so as a module.
 * Kept apart so that programs linking the provider in (ksum) do not export
 * it. */
#include "ksumprov.h"

OSSL_provider_init_fn OSSL_provider_init;

__attribute__((visibility("default")))
int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                       const OSSL_DISPATCH **out, void **provctx)
{
    return ksumprov_init(handle, in, out, provctx);
}
