/*
 * ksumprov.so as a module: loaded and unloaded 1000 times in one process,
 * each time fetching and using a digest and a MAC (leaks show under
 * valgrind and LeakSanitizer), and usable in a child after fork().
 * Usage: test_module MODULE_DIR
 */
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

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

/* No worker thread exists between calls, so a child can hash on threads. */
static void test_fork(OSSL_LIB_CTX *lib)
{
    OSSL_PROVIDER *prov = OSSL_PROVIDER_load(lib, "ksumprov");
    size_t len = 8 << 20;
    uint8_t *in = calloc(1, len), parent[32], child[32];
    int fds[2];
    pid_t pid;
    int status;

    CHECK(evp_digest(lib, "KANGAROOTWELVE", NULL, NULL, in, len, parent, 32),
          "K12 before fork");
    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        CHECK(0, "pipe or fork failed");
        return;
    }
    if (pid == 0) {
        int ok = evp_digest(lib, "KANGAROOTWELVE", NULL, NULL, in, len, child, 32);
        ok = ok && write(fds[1], child, 32) == 32;
        free(in);
        OSSL_PROVIDER_unload(prov);
        OSSL_LIB_CTX_free(lib);
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    CHECK(read(fds[0], child, 32) == 32 && memcmp(parent, child, 32) == 0,
          "K12 in a forked child differs");
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0, "child failed");
    close(fds[0]);
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
