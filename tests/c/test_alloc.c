/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Allocation failures, as SQLite's and OpenSSL's own
 * suites test them: for every N up to the number of allocations a scenario
 * makes, the Nth allocation fails, and the scenario must end cleanly: each
 * call succeeds or returns failure, what succeeded is right, nothing
 * crashes, and once everything is freed as many blocks are live as before.
 *
 * Two kinds of allocation are counted together:
 * - OpenSSL's (the glue's OPENSSL_malloc among them), through
 *   CRYPTO_set_mem_functions, set before anything else allocates;
 * - the modes' plain malloc, calloc, realloc and free, and pthread_create
 *   (a thread is an allocation too), which CRYPTO_set_mem_functions does
 *   not see: this test is linked with -Wl,--wrap for those symbols, which
 *   reroutes the calls made by the objects linked into it (the modes, the
 *   glue, this file) and nothing else (not libc's or libcrypto's own), and
 *   works under the sanitizers, unlike an LD_PRELOAD shim.
 * Scenarios: loading the provider; fetching from a cold library context;
 * and for every digest and KMAC: fetch, init with every parameter it takes,
 * an update large enough for worker threads, dup mid-stream, squeeze,
 * final, free.  Failures found in code others own are listed in
 * known_failures below until they are fixed.
 */
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* ---- the counting allocator ---- */

/* Whose code asked: the project's (the glue through OPENSSL_malloc, whose
 * file argument is under this source tree, and everything rerouted by
 * --wrap) or OpenSSL's own.  A block OpenSSL's own code allocated and lost
 * after one of its own allocations failed is OpenSSL's leak, not ours:
 * those are counted apart (OpenSSL 3.0 has many). */
enum origin { OURS, OPENSSL, ORIGINS };

static atomic_long calls;            /* allocations since arm() */
static atomic_long fail_at;          /* 0: none fails */
static atomic_int injected;          /* the failure happened */
static atomic_int failed_origin;     /* whose allocation failed */
static atomic_long live[ORIGINS];    /* blocks allocated and not freed */
static atomic_int only_ours;         /* OpenSSL's allocations neither counted nor failed */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
int __real_pthread_create(pthread_t *t, const pthread_attr_t *attr,
                          void *(*fn)(void *), void *arg);

/* KSUM_ALLOC_TRACE=SCENARIO/ALG/N runs that one case alone and prints the
 * stack of the failing allocation and of each block it leaks (addresses:
 * resolve them with addr2line -f -e tests/test_alloc); SCENARIO/ALG/ runs
 * every N of that scenario alone.  KSUM_ALLOC_FORK=1 runs every case in a
 * child process, so that a crash is reported and the others still run;
 * KSUM_ALLOC_ALL=1 fails OpenSSL's allocations in the cold scenarios too. */
#define TRACE_MAX 4096
static int tracing;
static struct traced {
    void *p;
    void *stack[24];
    int depth;
} traced[TRACE_MAX];
static pthread_mutex_t trace_mu = PTHREAD_MUTEX_INITIALIZER;

static void trace_print(const char *what, void *const *stack, int depth)
{
    fprintf(stderr, "%s:\n", what);
    fflush(stderr);
    backtrace_symbols_fd(stack, depth, STDERR_FILENO);
}

static void trace_alloc(void *p)
{
    if (!tracing || atomic_load(&fail_at) == 0)
        return;
    pthread_mutex_lock(&trace_mu);
    for (int i = 0; i < TRACE_MAX; i++)
        if (traced[i].p == NULL) {
            traced[i].p = p;
            traced[i].depth = backtrace(traced[i].stack, 24);
            break;
        }
    pthread_mutex_unlock(&trace_mu);
}

static void trace_free(void *p)
{
    if (!tracing)
        return;
    pthread_mutex_lock(&trace_mu);
    for (int i = 0; i < TRACE_MAX; i++)
        if (traced[i].p == p)
            traced[i].p = NULL;
    pthread_mutex_unlock(&trace_mu);
}

static void trace_leaks(void)
{
    for (int i = 0; i < TRACE_MAX; i++)
        if (traced[i].p != NULL)
            trace_print("leaked block allocated at", traced[i].stack, traced[i].depth);
}

static int fail_now(enum origin who)
{
    long n;

    if (who != OURS && atomic_load(&only_ours))
        return 0;
    n = atomic_fetch_add(&calls, 1) + 1;
    if (n != atomic_load(&fail_at))
        return 0;
    atomic_store(&injected, 1);
    atomic_store(&failed_origin, who);
    if (tracing) {
        void *stack[24];
        trace_print(who == OURS ? "failing allocation (ours)" : "failing allocation (OpenSSL's)",
                    stack, backtrace(stack, 24));
    }
    return 1;
}

static void *counted(void *p, enum origin who)
{
    if (p != NULL) {
        atomic_fetch_add(&live[who], 1);
        trace_alloc(p);
    }
    return p;
}

static void uncounted(void *p, enum origin who)
{
    if (p != NULL) {
        atomic_fetch_sub(&live[who], 1);
        trace_free(p);
    }
}

void *__wrap_malloc(size_t n)
{
    return fail_now(OURS) ? NULL : counted(__real_malloc(n), OURS);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return fail_now(OURS) ? NULL : counted(__real_calloc(n, size), OURS);
}

void *__wrap_realloc(void *p, size_t n)
{
    void *q;

    if (p == NULL)
        return __wrap_malloc(n);
    if (fail_now(OURS))
        return NULL;
    q = __real_realloc(p, n);
    if (q != NULL) {
        trace_free(p);
        trace_alloc(q);
    }
    return q;
}

void __wrap_free(void *p)
{
    uncounted(p, OURS);
    __real_free(p);
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *attr,
                          void *(*fn)(void *), void *arg)
{
    return fail_now(OURS) ? EAGAIN : __real_pthread_create(t, attr, fn, arg);
}

/* OpenSSL's blocks carry their origin in a header of 16 bytes (which keeps
 * malloc's alignment). */
#define HEADER 16

static enum origin origin_of(const char *file)
{
    return file != NULL && strncmp(file, KSUM_SOURCE_DIR "/", sizeof KSUM_SOURCE_DIR) == 0
               ? OURS : OPENSSL;
}

static void *ossl_malloc(size_t n, const char *file, int line)
{
    enum origin who = origin_of(file);
    unsigned char *p;

    (void)line;
    if (fail_now(who) || (p = __real_malloc(n + HEADER)) == NULL)
        return NULL;
    p[0] = (unsigned char)who;
    return counted(p + HEADER, who);
}

static void *ossl_realloc(void *p, size_t n, const char *file, int line)
{
    unsigned char *q;

    if (p == NULL)
        return ossl_malloc(n, file, line);
    if (fail_now(origin_of(file)))
        return NULL;
    q = __real_realloc((unsigned char *)p - HEADER, n + HEADER);
    if (q == NULL)
        return NULL;
    trace_free(p);
    trace_alloc(q + HEADER);
    return q + HEADER;
}

static void ossl_free(void *p, const char *file, int line)
{
    unsigned char *block = p != NULL ? (unsigned char *)p - HEADER : NULL;

    (void)file, (void)line;
    if (block != NULL)
        uncounted(p, (enum origin)block[0]);
    __real_free(block);
}

static void arm(long n)
{
    atomic_store(&calls, 0);
    atomic_store(&injected, 0);
    atomic_store(&fail_at, n);
}

/* Stops failing; returns the allocations made since arm(). */
static long disarm(void)
{
    atomic_store(&fail_at, 0);
    return atomic_load(&calls);
}

/* ---- scenarios ---- */

#define BIG ((size_t)600 << 10)  /* 2 threads: 2 * 256 KiB of leaf groups */
#define SMALL ((size_t)1000)
#define OUT 64

static const char *const digests[] = {
    "SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512", "SHAKE128", "SHAKE256",
    "RAWSHAKE128", "RAWSHAKE256", "KECCAK-224", "KECCAK-256", "KECCAK-384",
    "KECCAK-512", "CSHAKE128", "CSHAKE256", "PARALLELHASH128",
    "PARALLELHASH256", "KANGAROOTWELVE", "KT256", "MARSUPILAMIFOURTEEN",
    "TURBOSHAKE128", "TURBOSHAKE256", "TUPLEHASH128", "TUPLEHASH256"};
static const char *const macs[] = {"KMAC128", "KMAC256"};

static uint8_t input[BIG + SMALL];
static char backend[32];

/* Values for every parameter a context may take: one of each, so that
 * each is copied and used. */
typedef struct values {
    size_t size, block_size;
    unsigned threads, domain;
    int xof;
    uint8_t key[32];
    uint64_t batch;
} values;

static values vals = {OUT, 3000, 2, 0x0B, 1, {0}, 7};

/* Fills params (room for max) with a value for each settable parameter;
 * returns 0, with a message, for a key this test has no value for. */
static int every_param(const char *alg, const OSSL_PARAM *settable,
                       OSSL_PARAM *params, size_t max)
{
    static const char custom[] = "Email Signature", fname[] = "N";
    size_t n = 0;

    for (const OSSL_PARAM *s = settable; s != NULL && s->key != NULL; s++) {
        const char *k = s->key;
        OSSL_PARAM *p = &params[n];
        if (n + 1 >= max)
            break;
        if (strcmp(k, "xoflen") == 0 || strcmp(k, "size") == 0)
            *p = OSSL_PARAM_construct_size_t(k, &vals.size);
        else if (strcmp(k, "block-size") == 0)
            *p = OSSL_PARAM_construct_size_t(k, &vals.block_size);
        else if (strcmp(k, "threads") == 0)
            *p = OSSL_PARAM_construct_uint(k, &vals.threads);
        else if (strcmp(k, "domain") == 0 || strcmp(k, "domain-separator") == 0)
            *p = OSSL_PARAM_construct_uint(k, &vals.domain);
        else if (strcmp(k, "batch") == 0)
            *p = OSSL_PARAM_construct_uint64(k, &vals.batch);
        else if (strcmp(k, "element-length") == 0)
            continue;   /* the update is one element as it is */
        else if (strcmp(k, "xof") == 0)
            *p = OSSL_PARAM_construct_int(k, &vals.xof);
        else if (strcmp(k, "key") == 0)
            *p = OSSL_PARAM_construct_octet_string(k, vals.key, sizeof vals.key);
        else if (strcmp(k, "custom") == 0 || strcmp(k, "customization") == 0 ||
                 strcmp(k, "function-name") == 0) {
            const char *v = k[0] == 'c' ? custom : fname;
            *p = s->data_type == OSSL_PARAM_UTF8_STRING
                     ? OSSL_PARAM_construct_utf8_string(k, (char *)v, 0)
                     : OSSL_PARAM_construct_octet_string(k, (char *)v, strlen(v));
        } else if (strcmp(k, "backend") == 0)
            *p = OSSL_PARAM_construct_utf8_string(k, backend, 0);
        else {
            CHECK(0, "%s takes '%s': give it a value in test_alloc.c", alg, k);
            return 0;
        }
        n++;
    }
    params[n] = OSSL_PARAM_construct_end();
    return 1;
}

static int is_tree(const char *alg)
{
    return strstr(alg, "PARALLEL") != NULL || strstr(alg, "KANGAROO") != NULL ||
           strcmp(alg, "KT256") == 0 || strstr(alg, "MARSUPILAMI") != NULL;
}

/* fetch, init with every parameter, update (with threads for a tree
 * mode), dup, update both, squeeze one, final the other, free.  Returns 1
 * when every call succeeded, with the two outputs in out. */
static int digest_run(OSSL_LIB_CTX *lib, const char *alg, uint8_t out[2][OUT])
{
    OSSL_PARAM params[16];
    size_t first = is_tree(alg) ? BIG : SMALL;
    EVP_MD *md = EVP_MD_fetch(lib, alg, NULL);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new(), *copy = EVP_MD_CTX_new();
    int ok = md != NULL && ctx != NULL && copy != NULL &&
             every_param(alg, EVP_MD_settable_ctx_params(md), params, 16) &&
             EVP_DigestInit_ex2(ctx, md, params) &&
             EVP_DigestUpdate(ctx, input, first) && EVP_MD_CTX_copy_ex(copy, ctx) &&
             EVP_DigestUpdate(ctx, input + first, SMALL) &&
             EVP_DigestUpdate(copy, input + first, SMALL);

    if (ok && (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF)) {
        OSSL_PARAM sq[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, out[0], 40),
                           OSSL_PARAM_construct_end()};
        OSSL_PARAM sq2[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE,
                                                              out[0] + 40, OUT - 40),
                            OSSL_PARAM_construct_end()};
        ok = EVP_MD_CTX_get_params(ctx, sq) && EVP_MD_CTX_get_params(ctx, sq2) &&
             EVP_DigestFinalXOF(copy, out[1], OUT);
    } else if (ok) {
        unsigned int n0 = 0, n1 = 0;
        memset(out, 0, 2 * OUT);
        ok = EVP_DigestFinal_ex(ctx, out[0], &n0) && EVP_DigestFinal_ex(copy, out[1], &n1);
    }
    EVP_MD_CTX_free(copy);
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    return ok;
}

/* The same for a MAC, with the key given both ways. */
static int mac_run(OSSL_LIB_CTX *lib, const char *alg, uint8_t out[2][OUT])
{
    OSSL_PARAM params[16];
    EVP_MAC *mac = EVP_MAC_fetch(lib, alg, NULL);
    EVP_MAC_CTX *ctx = mac != NULL ? EVP_MAC_CTX_new(mac) : NULL, *copy = NULL;
    OSSL_PARAM sq[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, out[0], OUT),
                       OSSL_PARAM_construct_end()};
    size_t outl = 0;
    int ok = ctx != NULL &&
             every_param(alg, EVP_MAC_settable_ctx_params(mac), params, 16) &&
             EVP_MAC_init(ctx, vals.key, sizeof vals.key, params) &&
             EVP_MAC_update(ctx, input, BIG) &&
             (copy = EVP_MAC_CTX_dup(ctx)) != NULL &&
             EVP_MAC_update(ctx, input + BIG, SMALL) &&
             EVP_MAC_update(copy, input + BIG, SMALL) && EVP_MAC_CTX_get_params(ctx, sq) &&
             EVP_MAC_final(copy, out[1], &outl, OUT) && outl == OUT;

    EVP_MAC_CTX_free(copy);
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    return ok;
}

/* A MAC under one key, then the context keyed again: when the second init
 * fails (its key could not be stored), nothing may be MACed after it, or
 * it would be under the first key (out[1] then differs from the key's). */
static int rekey_run(OSSL_LIB_CTX *lib, const char *alg, uint8_t out[2][OUT])
{
    static const uint8_t key_b[777] = {1};
    EVP_MAC *mac = EVP_MAC_fetch(lib, alg, NULL);
    EVP_MAC_CTX *ctx = mac != NULL ? EVP_MAC_CTX_new(mac) : NULL;
    size_t outl = 0, size = OUT;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size),
                      OSSL_PARAM_construct_end()};
    int ok = ctx != NULL && EVP_MAC_init(ctx, vals.key, sizeof vals.key, p) &&
             EVP_MAC_update(ctx, input, SMALL) && EVP_MAC_final(ctx, out[0], &outl, OUT);

    /* The second init's result is not looked at: when it failed, an
     * update and final that still work give the first key's MAC, a wrong
     * result to the harness. */
    if (ok)
        (void)EVP_MAC_init(ctx, key_b, sizeof key_b, NULL);
    ok = ok && EVP_MAC_update(ctx, input, SMALL) && EVP_MAC_final(ctx, out[1], &outl, OUT) &&
         outl == OUT;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    return ok;
}

/* A library context with ksumprov built in, made and freed while armed. */
static int load_run(OSSL_LIB_CTX *unused, const char *alg, uint8_t out[2][OUT])
{
    OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov = NULL;
    int ok;

    (void)unused;
    memset(out, 0, 2 * OUT);
    ok = lib != NULL && OSSL_PROVIDER_add_builtin(lib, KSUMPROV_NAME, ksumprov_init) &&
         (prov = OSSL_PROVIDER_load(lib, KSUMPROV_NAME)) != NULL &&
         evp_digest(lib, alg, NULL, NULL, input, SMALL, out[0], 32);
    if (prov != NULL)
        OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(lib);
    return ok;
}

/* Both kinds of fetch, into a library context made cold for the run
 * (before the allocations start failing). */
static int fetch_run(OSSL_LIB_CTX *unused, const char *alg, uint8_t out[2][OUT])
{
    long n = atomic_exchange(&fail_at, 0);
    OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *prov = NULL;
    int ok = lib != NULL && OSSL_PROVIDER_add_builtin(lib, KSUMPROV_NAME, ksumprov_init) &&
             (prov = OSSL_PROVIDER_load(lib, KSUMPROV_NAME)) != NULL;
    EVP_MD *md;
    EVP_MAC *mac;

    (void)unused;
    CHECK(ok, "a library context for fetch");
    atomic_store(&calls, 0);
    atomic_store(&fail_at, n);
    md = EVP_MD_fetch(lib, alg, NULL);
    mac = EVP_MAC_fetch(lib, "KMAC128", NULL);
    ok = md != NULL && mac != NULL;
    memset(out, 0, 2 * OUT);
    EVP_MAC_free(mac);
    EVP_MD_free(md);
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(lib);
    return ok;
}

/* ---- failures in code this file's owner does not own ----
 * Each is run in a child process (some crash) and must still fail there: a
 * fixed one is reported, to be taken off.  They do not fail the suite. */
typedef struct known {
    const char *scenario, *alg;
    long n;
    const char *what;
} known;
#define DUP_FREES_SOURCE \
    "provider/glue: dupctx whose first string copy fails frees the source's second " \
    "string (double free when the source is freed)"
static const known known_failures[] = {
    {NULL, NULL, 0, NULL},
};

static const known *known_failure(const char *scenario, const char *alg, long n)
{
    for (const known *k = known_failures; k->scenario != NULL; k++)
        if (strcmp(k->scenario, scenario) == 0 && strcmp(k->alg, alg) == 0 && k->n == n)
            return k;
    return NULL;
}

typedef int scenario_fn(OSSL_LIB_CTX *lib, const char *alg, uint8_t out[2][OUT]);

static void live_now(long now[ORIGINS])
{
    ERR_clear_error();
    OPENSSL_thread_stop();   /* this thread's error queue, allocated again on use */
    for (int i = 0; i < ORIGINS; i++)
        now[i] = atomic_load(&live[i]);
}

enum verdict { CLEAN, OPENSSL_LEAK, LEAKED, FREED_TWICE, WRONG_RESULT,
               FAILED_FOR_NOTHING, CRASHED };
static const char *const verdicts[] = {
    "clean", "leak after one of OpenSSL's own allocations failed", "blocks leaked",
    "more blocks of ours freed than allocated (double free?)",
    "succeeded with a wrong result", "failed with no allocation failing", "crashed"};

/* One run with allocation n failing (none when n is 0).  When the failure
 * was in OpenSSL's own code, what leaks is OpenSSL's doing (it may skip
 * freeing what the provider made, e.g. no teardown when loading fails
 * after the provider's init): that is told apart. */
static enum verdict one_run(scenario_fn *fn, OSSL_LIB_CTX *lib, const char *alg, long n,
                            uint8_t want[2][OUT], long *made)
{
    uint8_t got[2][OUT];
    long before[ORIGINS], after[ORIGINS];
    int ok;

    live_now(before);
    arm(n);
    ok = fn(lib, alg, got);
    *made = disarm();
    live_now(after);
    if (after[OURS] < before[OURS])
        return FREED_TWICE;
    if (after[OURS] != before[OURS] || after[OPENSSL] != before[OPENSSL])
        return atomic_load(&injected) && atomic_load(&failed_origin) == OPENSSL
                   ? OPENSSL_LEAK : LEAKED;
    if (ok && memcmp(got, want, 2 * OUT) != 0)
        return WRONG_RESULT;
    if (!ok && !atomic_load(&injected))
        return FAILED_FOR_NOTHING;
    return CLEAN;
}

/* The same in a child process, which may crash (quietly: a known failure);
 * *made comes back through a pipe (n when the child died before it could
 * tell). */
static enum verdict one_run_forked(scenario_fn *fn, OSSL_LIB_CTX *lib, const char *alg,
                                   long n, uint8_t want[2][OUT], long *made, int quiet)
{
    int status, fds[2];
    pid_t pid;

    fflush(NULL);
    if (pipe(fds) != 0 || (pid = fork()) < 0)
        return CRASHED;
    if (pid == 0) {
        enum verdict v;
        if (quiet && freopen("/dev/null", "w", stderr) == NULL)
            _exit(99);
        v = one_run(fn, lib, alg, n, want, made);
        /* Past the exit codes of the sanitizers' reports. */
        _exit(write(fds[1], made, sizeof *made) == sizeof *made ? 100 + (int)v : 99);
    }
    close(fds[1]);
    if (read(fds[0], made, sizeof *made) != sizeof *made)
        *made = n;
    close(fds[0]);
    if (waitpid(pid, &status, 0) != pid)
        return CRASHED;
    if (!WIFEXITED(status) || WEXITSTATUS(status) < 100 || WEXITSTATUS(status) > 100 + CRASHED)
        return CRASHED;
    return (enum verdict)(WEXITSTATUS(status) - 100);
}

static char trace_case[64];   /* KSUM_ALLOC_TRACE, when set */
static int fork_all;          /* KSUM_ALLOC_FORK=1: every run in a child */
static int openssl_leaks;

/* Runs fn with the Nth allocation failing, for N = 1, 2, ... until a run
 * makes fewer than N allocations; lib (NULL for scenarios that make their
 * own) is warmed up first.  Returns the largest N. */
static long every_failure(const char *scenario, scenario_fn *fn, OSSL_LIB_CTX *lib,
                          const char *alg)
{
    uint8_t want[2][OUT], got[2][OUT];
    char name[64];
    long n, made = 0;
    int bad = 0;

    snprintf(name, sizeof name, "%s/%s/", scenario, alg);
    if (trace_case[0] && strncmp(trace_case, name, strlen(name)) != 0)
        return 0;
    CHECK(fn(lib, alg, want), "%s %s without failures", scenario, alg);
    fn(lib, alg, got);   /* caches filled on the first run are there from now on */
    CHECK(one_run(fn, lib, alg, 0, want, &made) == CLEAN, "%s: not clean without failures",
          name);
    if (trace_case[0] && strlen(trace_case) > strlen(name)) {
        tracing = 1;
        n = atol(trace_case + strlen(name));
        printf("%s%ld: %s\n", name, n, verdicts[one_run(fn, lib, alg, n, want, &made)]);
        trace_leaks();
        tracing = 0;
        return n;
    }
    /* Until the failure is no longer reached: that last run is the one
     * without failures already checked, but after OpenSSL's own leaks. */
    for (n = 1;; n++) {
        const known *k = known_failure(scenario, alg, n);
        enum verdict v = k != NULL || fork_all
                             ? one_run_forked(fn, lib, alg, n, want, &made, !fork_all)
                             : one_run(fn, lib, alg, n, want, &made);
        if (made < n)
            break;
        if (k != NULL) {
            printf("known failure: %s%ld %s (%s)\n", name, n, verdicts[v], k->what);
            CHECK(v != CLEAN && v != OPENSSL_LEAK,
                  "%s%ld is clean now: take it off known_failures", name, n);
        } else if (v == OPENSSL_LEAK) {
            if (openssl_leaks++ < 3)
                printf("note: %s%ld: %s\n", name, n, verdicts[v]);
        } else if (v != CLEAN && bad++ < 5) {
            CHECK(0, "%s, allocation %ld of %ld failing: %s (KSUM_ALLOC_TRACE=%s%ld)",
                  name, n, made, verdicts[v], name, n);
        }
    }
    CHECK(bad == 0, "%s: %d runs not clean", name, bad);
    return n - 1;
}

static void find_backend(OSSL_LIB_CTX *lib)
{
    EVP_MD *md = EVP_MD_fetch(lib, "SHA3-256", NULL);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    const char *name = NULL;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_ptr(KSUM_PARAM_BACKEND, (char **)&name, 0),
                      OSSL_PARAM_construct_end()};

    CHECK(EVP_DigestInit_ex2(ctx, md, NULL) && EVP_MD_CTX_get_params(ctx, p) && name,
          "the backend's name");
    snprintf(backend, sizeof backend, "%s", name ? name : "portable");
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
}

int main(void)
{
    OSSL_LIB_CTX *lib;
    long most = 0;

    if (!CRYPTO_set_mem_functions(ossl_malloc, ossl_realloc, ossl_free)) {
        fprintf(stderr, "OpenSSL allocated before main: cannot count its allocations\n");
        return 2;
    }
    if (getenv("KSUM_ALLOC_TRACE") != NULL)
        snprintf(trace_case, sizeof trace_case, "%s", getenv("KSUM_ALLOC_TRACE"));
    fork_all = getenv("KSUM_ALLOC_FORK") != NULL && strcmp(getenv("KSUM_ALLOC_FORK"), "1") == 0;
    test_random(input, sizeof input);
    test_random(vals.key, sizeof vals.key);
    lib = test_libctx(0);
    find_backend(lib);

    /* Cold paths are nearly all OpenSSL's own code, which leaks on many of
     * its own allocation failures (OpenSSL 3.0: a few hundred here, found
     * with KSUM_ALLOC_ALL=1): only the provider's allocations fail there,
     * so that ASan's leak checker stays quiet.  The scenarios over a warm
     * library context fail OpenSSL's allocations too. */
    atomic_store(&only_ours, getenv("KSUM_ALLOC_ALL") == NULL);
    printf("load: %ld allocations of ours\n",
           every_failure("load", load_run, NULL, "SHA3-256"));
    printf("fetch: %ld allocations of ours\n",
           every_failure("fetch", fetch_run, NULL, "KANGAROOTWELVE"));
    atomic_store(&only_ours, 0);
    for (size_t i = 0; i < sizeof digests / sizeof digests[0]; i++) {
        long n = every_failure("digest", digest_run, lib, digests[i]);
        most = n > most ? n : most;
    }
    for (size_t i = 0; i < sizeof macs / sizeof macs[0]; i++) {
        long n = every_failure("mac", mac_run, lib, macs[i]);
        most = n > most ? n : most;
        n = every_failure("rekey", rekey_run, lib, macs[i]);
        most = n > most ? n : most;
    }
    printf("digests and MACs: up to %ld allocations per run\n", most);
    if (openssl_leaks > 0)
        printf("%d runs where OpenSSL leaked after one of its own allocations failed "
               "(not counted as failures)\n", openssl_leaks);
    test_libctx_free(lib);
    return test_summary("test_alloc");
}
