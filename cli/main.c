/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ksum: print or check checksums of the Keccak family.  Every algorithm is
 * reached through EVP, fetched from ksumprov, which is linked in and
 * registered as a built-in provider of a private library context, so the
 * program needs no openssl.cnf and no module path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
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

static OSSL_LIB_CTX *ksumprov_context(OSSL_PROVIDER **prov)
{
    OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();

    if (lib == NULL ||
        !OSSL_PROVIDER_add_builtin(lib, KSUMPROV_NAME, ksumprov_init) ||
        (*prov = OSSL_PROVIDER_load(lib, KSUMPROV_NAME)) == NULL) {
        fprintf(stderr, "ksum: cannot load the ksumprov provider: ");
        ERR_print_errors_fp(stderr);
        OSSL_LIB_CTX_free(lib);
        return NULL;
    }
    return lib;
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
        fprintf(stderr, "ksum: out of memory\n");
        input_free(&in);
        free(sum);
        hasher_close(&h);
        return 0;
    }
    /* A file that cannot be read does not stop the others. */
    for (char **f = o->files; *f != NULL; f++) {
        sum_source src = {sum, h.size, hasher_streams(&h) ? &h : NULL};
        int err = hash_path(&h, *f, &in, src.h ? NULL : sum);
        if (err == 0 && !print_sum_line(o, o->alg, *f, &src))
            err = KSUM_EHASH;
        if (err != 0) {
            report_error(*f, err);
            ok = 0;
        }
    }
    input_free(&in);
    free(sum);
    hasher_close(&h);
    return ok;
}

static unsigned cpu_count(void)
{
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    return 1;
}

static int hash_files(const options *o, OSSL_LIB_CTX *lib)
{
    unsigned threads = o->threads ? o->threads : cpu_count();
    int several = o->files[0] != NULL && o->files[1] != NULL;

    /* Files at once for the sequential algorithms, unless their outputs are
     * long enough to be streamed. */
    if (threads > 1 && several && !(o->alg->takes & TREE) &&
        hasher_output_size(o->alg, o) <= HASHER_STREAM_MIN) {
        int ok = hash_files_concurrently(o, lib, threads);
        if (ok >= 0)
            return ok;
    }
    return hash_files_in_turn(o, lib, threads);
}

/* A full disk or a closed pipe must not pass for success. */
static int close_stdout(void)
{
    if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
        fprintf(stderr, "ksum: write error: %s\n", strerror(errno));
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    options o;
    OSSL_LIB_CTX *lib;
    OSSL_PROVIDER *prov = NULL;
    int ok;

    if (!options_parse(&o, argc, argv))
        return 1;
    lib = ksumprov_context(&prov);
    if (lib == NULL)
        return 1;
    ok = o.check ? check_files(&o, lib) : hash_files(&o, lib);
    ok &= close_stdout();
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(lib);
    options_free(&o);
    return ok ? 0 : 1;
}
