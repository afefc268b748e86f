/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ksumprov.so as a module: loaded and unloaded 1000 times in one process,
 * each time fetching and using a digest and a MAC (leaks show under
 * valgrind and LeakSanitizer), and a context whose threads ran goes on in
 * a child after fork().
 * Usage: test_module MODULE_DIR
 */
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* ThreadSanitizer cannot follow a child of a multi-threaded process that
 * starts threads of its own; under it the child hashes on one thread. */
#if defined(__SANITIZE_THREAD__)
#define CHILD_THREADS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CHILD_THREADS 1
#endif
#endif
#ifndef CHILD_THREADS
#define CHILD_THREADS 2
#endif

static const char *const k12_abc = "ab174f328c55a5510b0b209791bf8b60";

static int use_once(OSSL_LIB_CTX *lib)
{
    uint8_t out[64];
    size_t outl = 0;
    EVP_MAC *mac = EVP_MAC_fetch(lib, "KMAC128", NULL);
    EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
    int ok = evp_digest(lib, "KANGAROOTWELVE", NULL, NULL, (const uint8_t *)"abc", 3,
                        out, 16) &&
             strcmp(hex_of(out, 16), k12_abc) == 0;

    ok = ok && ctx != NULL && EVP_MAC_init(ctx, (const uint8_t *)"key", 3, NULL) &&
         EVP_MAC_update(ctx, (const uint8_t *)"abc", 3) &&
         EVP_MAC_final(ctx, out, &outl, sizeof out) && outl == 32;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    return ok;
}

static void test_load_unload(OSSL_LIB_CTX *lib)
{
    int failures = 0;

    for (int i = 0; i < 1000; i++) {
        OSSL_PROVIDER *prov = OSSL_PROVIDER_load(lib, "ksumprov");
        if (prov == NULL || !use_once(lib))
            failures++;
        if (prov != NULL && !OSSL_PROVIDER_unload(prov))
            failures++;
    }
    CHECK(failures == 0, "%d of 1000 load/use/unload rounds failed", failures);
}

/* Ends a K12 hash with in, into 16 bytes of out. */
static int k12_part(EVP_MD_CTX *ctx, const uint8_t *in, size_t len, uint8_t *out)
{
    return EVP_DigestUpdate(ctx, in, len) && EVP_DigestFinalXOF(ctx, out, 16);
}

/* A context whose helper threads ran in the parent goes on in the child,
 * which has none of them: the same result as the parent's, and freeing the
 * context there neither hangs nor crashes. */
static void test_fork(OSSL_LIB_CTX *lib)
{
    if (skip_fork_with_threads("test_module: K12 in a child forked with threads running"))
        return;
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(lib, "ksumprov");
    EVP_MD *md = EVP_MD_fetch(lib, "KANGAROOTWELVE", NULL);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned threads = 2;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &threads),
                      OSSL_PARAM_construct_end()};
    size_t len = 8 << 20;
    uint8_t *in = calloc(1, len), parent[32], child[32];
    int fds[2];
    pid_t pid;
    int status;

    CHECK(md != NULL && EVP_DigestInit_ex2(ctx, md, p) &&
              EVP_DigestUpdate(ctx, in, len / 2), "K12 before fork");
    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        CHECK(0, "pipe or fork failed");
        return;
    }
    if (pid == 0) {
        threads = CHILD_THREADS;
        int ok = EVP_MD_CTX_set_params(ctx, p) && k12_part(ctx, in + len / 2, len / 2, child) &&
                 EVP_DigestInit_ex2(ctx, md, p) && k12_part(ctx, in, len, child + 16);
        ok = ok && write(fds[1], child, 32) == 32;
        EVP_MD_CTX_free(ctx);
        EVP_MD_free(md);
        free(in);
        OSSL_PROVIDER_unload(prov);
        OSSL_LIB_CTX_free(lib);
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    CHECK(k12_part(ctx, in + len / 2, len / 2, parent), "K12 after fork");
    memcpy(parent + 16, parent, 16);
    CHECK(read(fds[0], child, 32) == 32 && memcmp(parent, child, 32) == 0,
          "K12 in a forked child differs");
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0, "child failed");
    close(fds[0]);
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    free(in);
    OSSL_PROVIDER_unload(prov);
}

int main(int argc, char **argv)
{
    OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();

    if (argc < 2 || lib == NULL || !OSSL_PROVIDER_set_default_search_path(lib, argv[1])) {
        fprintf(stderr, "usage: test_module MODULE_DIR\n");
        return 2;
    }
    test_load_unload(lib);
    test_fork(lib);
    OSSL_LIB_CTX_free(lib);
    return test_summary("test_module");
}
