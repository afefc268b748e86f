/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ksum: print or check checksums of the Keccak family.  Every algorithm is
 * reached through EVP, fetched from ksumprov, which is linked in and
 * registered as a built-in provider of a private library context, so the
 * program needs no openssl.cnf and no module path.
 */
#include <errno.h>
#include <openssl/err.h>
#include <openssl/provider.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "concurrent.h"
#include "files.h"
#include "hasher.h"
#include "ksumprov.h"
#include "options.h"
#include "output.h"
#include "tuple.h"

static OSSL_LIB_CTX *ksumprov_context(OSSL_PROVIDER **prov)
{
    OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();
    char why[512];

    if (lib == NULL ||
        !OSSL_PROVIDER_add_builtin(lib, KSUMPROV_NAME, ksumprov_init) ||
        (*prov = OSSL_PROVIDER_load(lib, KSUMPROV_NAME)) == NULL) {
        openssl_reason(why, sizeof why);
        fprintf(message_stream(), "ksum: cannot load the ksumprov provider: %s\n", why);
        OSSL_LIB_CTX_free(lib);
        return NULL;
    }
    return lib;
}

/* KSUM_SIMD names a Keccak backend for the provider, which falls back to
 * its own choice when it cannot run that one.  Said once, here; which
 * backend was chosen, EVP tells. */
static void report_backend(OSSL_LIB_CTX *lib)
{
    const char *want = getenv("KSUM_SIMD");
    char chosen[64];
    FILE *f;

    if (want == NULL || *want == '\0' || strcmp(want, "auto") == 0 ||
        !hasher_backend(lib, chosen, sizeof chosen) || strcmp(want, chosen) == 0)
        return;
    f = message_stream();
    fputs("ksum: KSUM_SIMD=", f);
    print_name(f, want, name_needs_escape(want));
    fprintf(f, " is not a backend this build and CPU can run; using %s\n", chosen);
}

/* One file after another; tree modes use the threads inside the provider,
 * helped by reading ahead. */
static int hash_files_in_turn(const options *o, OSSL_LIB_CTX *lib,
                              unsigned threads)
{
    hasher h;
    input in;
    uint8_t *sum;
    int ok = 1;

    if (!hasher_open(&h, lib, o->alg, o))
        return 0;
    sum = malloc(hasher_streams(&h) ? 1 : h.size);
    if (!input_init(&in, threads > 1) || sum == NULL) {
        fprintf(message_stream(), "ksum: out of memory\n");
        input_free(&in);
        free(sum);
        hasher_close(&h);
        return 0;
    }
    /* A file that cannot be read does not stop the others; a failed write
     * stops everything. */
    for (char **f = o->files; *f != NULL; f++) {
        sum_source src = {sum, h.size, hasher_streams(&h) ? &h : NULL};
        int err = hash_path(&h, *f, &in, src.h ? NULL : sum);
        if (err == 0)
            err = print_sum_line(o, &h, f, 1, &src);
        if (err == KSUM_EWRITE) {
            ok = 0;
            break;
        }
        if (err != 0) {
            report_error(*f, err, NULL);
            ok = 0;
        }
    }
    input_free(&in);
    free(sum);
    hasher_close(&h);
    return ok;
}

/* TupleHash: one digest of the tuple of all the files, on one line. */
static int hash_files_as_tuple(const options *o, OSSL_LIB_CTX *lib)
{
    hasher h;
    input in;
    uint8_t *sum = NULL;
    size_t n = 0;
    const char *failed;
    int err = ENOMEM;

    while (o->files[n] != NULL)
        n++;
    /* Unescaped (-z), a tab in a name could not be told from the tabs
     * that join the names. */
    for (size_t i = 0; o->zero && i < n; i++)
        if (strchr(o->files[i], '\t') != NULL) {
            report_error(o->files[i], KSUM_ETAB, NULL);
            return 0;
        }
    if (!hasher_open(&h, lib, o->alg, o))
        return 0;
    if (input_init(&in, 0) && (sum = malloc(hasher_streams(&h) ? 1 : h.size)) != NULL) {
        sum_source src = {sum, h.size, hasher_streams(&h) ? &h : NULL};
        err = hash_tuple(&h, o->files, n, &in, src.h ? NULL : sum, &failed);
        if (err == 0)
            err = print_sum_line(o, &h, o->files, n, &src);
    } else {
        failed = "ksum";
    }
    if (err != 0 && err != KSUM_EWRITE)
        report_error(failed, err, NULL);
    input_free(&in);
    free(sum);
    hasher_close(&h);
    return err == 0;
}

static int hash_files(const options *o, OSSL_LIB_CTX *lib)
{
    unsigned threads = o->threads ? o->threads : ksum_cpu_count();
    int several = o->files[0] != NULL && o->files[1] != NULL;

    if (o->facts.takes & TAKES_ELEMENTS)
        return hash_files_as_tuple(o, lib);
    /* Files at once for the sequential algorithms, unless their outputs are
     * long enough to be streamed. */
    if (threads > 1 && several && !(o->facts.takes & TAKES_THREADS) &&
        hasher_output_size(&o->facts, o) <= HASHER_STREAM_MIN) {
        int ok = hash_files_concurrently(o, lib, threads);
        if (ok >= 0)
            return ok;
    }
    return hash_files_in_turn(o, lib, threads);
}

int main(int argc, char **argv)
{
    options o;
    OSSL_LIB_CTX *lib;
    OSSL_PROVIDER *prov = NULL;
    int ok;

    /* One write per message line, in its place among the output lines. */
    setvbuf(stderr, NULL, _IOLBF, 0);
    if (!options_parse(&o, argc, argv)) {
        options_free(&o);
        return 1;
    }
    lib = ksumprov_context(&prov);
    if (lib == NULL) {
        options_free(&o);
        return 1;
    }
    report_backend(lib);
    if (!options_resolve(&o, lib))
        ok = 0;
    else
        ok = o.check ? check_files(&o, lib) : hash_files(&o, lib);
    /* A full disk or a closed pipe must not pass for success. */
    ok &= output_close();
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(lib);
    options_free(&o);
    return ok ? 0 : 1;
}
