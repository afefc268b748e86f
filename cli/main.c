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
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/provider.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/messages.h"
#include "check/check.h"
#include "front/hasher.h"
#include "front/options.h"
#include "front/resolve.h"
#include "input/walk.h"
#include "ksumprov.h"
#include "parts/parts.h"
#include "report/sums.h"
#include "report/tree.h"

static OSSL_LIB_CTX *ksumprov_context(OSSL_PROVIDER **prov)
{
    OSSL_LIB_CTX *lib;
    char why[512];

    /* No openssl.cnf: ksum's provider is built in and its library context
     * private, and the first digest init would otherwise read the conf for
     * the default context (OpenSSL 3.0's engine code), a fifth of the
     * instructions of starting.  No legacy cipher and digest tables
     * either: the first fetch would copy all their names into the
     * context's name map, and ksum fetches only its provider's algorithms
     * by their own names (docs/benchmarks.md, start-up). */
    OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ADD_ALL_CIPHERS |
                            OPENSSL_INIT_NO_ADD_ALL_DIGESTS,
                        NULL);
    /* This thread's error state first: OpenSSL 3.0 registers it for the
     * thread-stop handlers, and a first registration made elsewhere (the
     * context freed at exit) that fails an allocation raises an error,
     * whose state registers again under the same once: a deadlock.  An
     * error queued and read back shows that the state, and so the
     * registration, was made; else there was no memory for it. */
    ERR_clear_error();
    ERR_raise(ERR_LIB_USER, 1);
    if (ERR_peek_error() == 0) {
        message_fail("cannot start OpenSSL: out of memory");
        return NULL;
    }
    ERR_clear_error();
    lib = OSSL_LIB_CTX_new();
    if (lib == NULL ||
        !OSSL_PROVIDER_add_builtin(lib, KSUMPROV_NAME, ksumprov_init) ||
        (*prov = OSSL_PROVIDER_load(lib, KSUMPROV_NAME)) == NULL) {
        /* Nothing queued: an allocation failed where OpenSSL says none. */
        if (openssl_memory_failure(why, sizeof why))
            snprintf(why, sizeof why, "out of memory");
        message_fail("cannot load the ksumprov provider: %s", why);
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

    if (want == NULL || *want == '\0' || strcmp(want, "auto") == 0 ||
        !hasher_backend(lib, chosen, sizeof chosen, NULL) || strcmp(want, chosen) == 0)
        return;
    message_fail("KSUM_SIMD=%s is not a backend this build and CPU can run; using %s", want,
                 chosen);
}

/* --version: ksum's and OpenSSL's, and the Keccak kernel ksumprov runs
 * on this CPU, as EVP reports it. */
static void print_version(OSSL_LIB_CTX *lib)
{
    char backend[64];
    unsigned lanes = 0;

    printf("ksum (ksumprov) %s\nOpenSSL %s\n", KSUM_VERSION,
           OpenSSL_version(OPENSSL_VERSION_STRING));
    if (hasher_backend(lib, backend, sizeof backend, &lanes))
        printf("Keccak-p backend: %s (%u %s)\n", backend, lanes,
               lanes == 1 ? "state a call" : "states a call");
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

/* The command the options ask for, each stage given what it uses. */
static int run(options *o, OSSL_LIB_CTX *lib, resolved *r)
{
    name_spec names = {o->files, o->files_from, o->zero, o->recursive, o->dereference,
                       o->walk_warn};
    tree_spec tree = {o->excludes, o->nexcludes, o->manifest};
    check_spec check = {o->files, o->quiet, o->status, o->strict, o->warn,
                        o->ignore_missing, o->progress, o->tree, tree};
    part_spec part = {o->part_share, o->part_range, o->files[0]};
    unsigned applied;
    int ok;

    if (o->combine)
        return parts_combine(o, lib, r);   /* resolves the options itself */
    if (!options_resolve(o, lib, r))
        return 0;
    if (part.share != NULL || part.range != NULL)
        return parts_write(r, &part, lib);
    if (o->tree && !o->check)
        return hash_trees(r, o->files, &tree, lib);
    if (!o->check)
        return hash_files(r, &names, o->progress, lib);
    ok = check_files(r, &check, lib, &applied);
    options_warn_unapplied(o, applied);
    return ok;
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
    /* Past ulimit -f a write then fails with EFBIG, said as any write
     * error is, where the signal would kill ksum without a word. */
    signal(SIGXFSZ, SIG_IGN);
    /* One write per message line, in its place among the output lines. */
    setvbuf(stderr, NULL, _IOLBF, 0);
    output_open();
    if (!options_parse(&o, argc, argv) || (!o.version && !options_judge(&o)) ||
        (lib = ksumprov_context(&prov)) == NULL) {
        options_free(&o);
        return 1;
    }
    output_line_end(o.zero ? '\0' : '\n');
    report_backend(lib);
    ok = 1;
    if (o.version)
        print_version(lib);
    else
        ok = run(&o, lib, &r);
    /* A full disk or a closed pipe must not pass for success. */
    ok &= output_close();
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(lib);
    options_free(&o);
    return ok ? 0 : 1;
}
