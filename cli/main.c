/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ksum: print or check checksums of the Keccak family.  Every algorithm is
 * reached through EVP, fetched from ksumprov, which is linked in and
 * registered as a built-in provider of a private library context, so the
 * program needs no openssl.cnf and no module path.
 */
#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/provider.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "concurrent.h"
#include "files.h"
#include "hasher.h"
#include "ksumprov.h"
#include "options.h"
#include "output.h"
#include "parts.h"
#include "progress.h"
#include "resolve.h"
#include "tuple.h"
#include "walk.h"

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

/* A file's line for each algorithm; 0, or KSUM_EHASH or KSUM_EWRITE as
 * print_sum_line. */
static int print_lines(const options *o, hasher_set *s, char **name)
{
    int err = 0;

    for (size_t k = 0; k < s->n && err == 0; k++) {
        sum_source src = {s->sums[k], s->hs[k].size,
                          s->sums[k] == NULL ? &s->hs[k] : NULL};
        err = print_sum_line(o, &s->hs[k], name, 1, &src);
    }
    return err;
}

/* One name: hashed and printed, or its error or warning reported; 0, or
 * KSUM_EWRITE to stop.  *ok becomes 0 on an error. */
static int hash_one(const options *o, hasher_set *s, input *in, named *n,
                    progress *pg, int *ok)
{
    int err = 0;

    if (n->kind == NAME_FILE || n->kind == NAME_STREAM) {
        /* A file met in the walk must still be one when opened. */
        in->regular_only = n->walked;
        in->nofollow = n->nofollow;
        progress_show(pg, n->path, in->progress);
        err = hash_path_all(s->hs, s->n, n->path, in, s->sums);
    }
    progress_hold(pg);
    if (n->kind == NAME_ERROR || n->kind == NAME_WARNING) {
        named_report(n);
        *ok &= n->kind == NAME_WARNING;
    } else {
        if (err == 0)
            err = print_lines(o, s, &n->path);
        if (err != 0 && err != KSUM_EWRITE) {
            report_error(n->path, err, NULL);
            *ok = 0;
            err = 0;
        }
    }
    progress_resume(pg);
    progress_show(pg, NULL, NULL);
    return err;
}

/* One file after another, every algorithm from one read; tree modes use
 * the threads inside the provider, helped by reading ahead. */
static int hash_files_in_turn(const options *o, OSSL_LIB_CTX *lib,
                              name_source *names, unsigned threads, progress *pg)
{
    /* on the heap: 16 KiB, on a main stack that may not grow (ulimit -s) */
    hasher_set *s = calloc(1, sizeof *s);
    input in;
    named n;
    file_progress read_so_far;
    int ok = 1;

    if (s == NULL || !hasher_set_open(s, lib, o, o->evp->algs, o->evp->nalgs)) {
        if (s == NULL)
            fprintf(message_stream(), "ksum: out of memory\n");
        else
            hasher_set_close(s);
        free(s);
        return 0;
    }
    if (!input_init(&in, threads > 1)) {
        fprintf(message_stream(), "ksum: out of memory\n");
        input_free(&in);
        hasher_set_close(s);
        free(s);
        return 0;
    }
    in.progress = &read_so_far;
    /* A file that cannot be read does not stop the others; a failed write
     * stops everything. */
    while (names_next(names, &n)) {
        int err = hash_one(o, s, &in, &n, pg, &ok);
        named_free(&n);
        if (err == KSUM_EWRITE) {
            ok = 0;
            break;
        }
    }
    input_free(&in);
    hasher_set_close(s);
    free(s);
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
    if (!hasher_open(&h, lib, o->evp->alg, o))
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
        report_error(failed, err, err == KSUM_ESPILL ? strerror(in.spill_errno) : NULL);
    input_free(&in);
    free(sum);
    hasher_close(&h);
    return err == 0;
}

/* No output long enough to be streamed. */
static int outputs_held(const options *o)
{
    for (size_t k = 0; k < o->evp->nalgs; k++)
        if (hasher_output_size(&o->evp->facts_of[k], o) > HASHER_STREAM_MIN)
            return 0;
    return 1;
}

static int hash_files(const options *o, OSSL_LIB_CTX *lib)
{
    unsigned threads = o->threads ? o->threads : ksum_cpu_count();
    int several = (o->files[0] != NULL && o->files[1] != NULL) || o->recursive ||
                  o->files_from != NULL;
    name_source *names;
    progress *pg;
    int ok = -1;

    if (o->evp->facts.takes & TAKES_ELEMENTS)
        return hash_files_as_tuple(o, lib);
    if ((names = names_open(o)) == NULL)
        return 0;
    pg = progress_start(o->progress);
    /* Files at once (on several threads, or batched on one), unless an
     * output is long enough to be streamed.  Tree modes too: a small file
     * starts no helper thread, a large one uses its context's. */
    if (several && outputs_held(o))
        ok = hash_files_concurrently(o, lib, names, threads, pg);
    if (ok < 0)
        ok = hash_files_in_turn(o, lib, names, threads, pg);
    progress_stop(pg);
    names_close(names);
    return ok;
}

/* A closed standard descriptor would be taken by the next open(): a check
 * file or list opened as descriptor 0 would then be read again by a '-'
 * line.  /dev/null opened the wrong way round holds each place and fails
 * as a closed descriptor does (EBADF), so '-' and the messages behave as
 * sha256sum's do. */
static void hold_standard_descriptors(void)
{
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int held = open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
        if (held >= 0 && held != fd)
            close(held);  /* cannot happen: open takes the lowest free one */
    }
}

/* Grows the main thread's stack by what ksum's deepest paths use (OpenSSL's
 * included) while address space is still free: under `ulimit -v`, a stack
 * that must grow later, once buffers and threads took the rest, can only
 * fail with SIGSEGV. */
static void __attribute__((noinline)) reserve_stack(void)
{
    struct rlimit lim;
    size_t size = (size_t)128 << 10;
    volatile unsigned char *room;

    /* Never more than a quarter of what the stack may grow to (ulimit -s),
     * and nothing under a small one: the arguments and the environment
     * count against it, and ksum needs only a few KiB of it (openssl dgst
     * runs at 16 KiB; reserving half of that ran out). */
    if (getrlimit(RLIMIT_STACK, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
        if (lim.rlim_cur < ((rlim_t)256 << 10))
            return;
        if (lim.rlim_cur / 4 < size)
            size = (size_t)(lim.rlim_cur / 4);
    }
    room = alloca(size);
    for (size_t i = size; i >= 4096; i -= 4096)
        room[i - 4096] = 0;     /* from the top down, as a stack grows */
}

int main(int argc, char **argv)
{
    options o;
    resolved r;
    OSSL_LIB_CTX *lib;
    OSSL_PROVIDER *prov = NULL;
    int ok;

    reserve_stack();
    hold_standard_descriptors();
    /* One write per message line, in its place among the output lines. */
    setvbuf(stderr, NULL, _IOLBF, 0);
    if (!options_parse(&o, argc, argv) || !options_judge(&o)) {
        options_free(&o);
        return 1;
    }
    lib = ksumprov_context(&prov);
    if (lib == NULL) {
        options_free(&o);
        return 1;
    }
    report_backend(lib);
    if (parts_wanted(&o))
        ok = parts_main(&o, lib, &r);   /* resolves the options itself */
    else if (!options_resolve(&o, lib, &r))
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
