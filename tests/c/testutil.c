/* SPDX-License-Identifier: Apache-2.0 */
#include "testutil.h"

#include "../../provider/permutation/keccak_p.h"

#include <ctype.h>

int test_failures, test_passes;

int test_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, test_passes, test_failures);
    return test_failures == 0 ? 0 : 1;
}

int skip_fork_with_threads(const char *what)
{
    const char *why = getenv("KSUM_NO_FORK_WITH_THREADS");

    if (why == NULL || *why == '\0')
        return 0;
    printf("SKIPPED: %s (%s)\n", what, why);
    return 1;
}

static int nibble(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

uint8_t *hex_decode(const char *hex, size_t *len)
{
    size_t n = strlen(hex) / 2;
    uint8_t *out = malloc(n + 1);

    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
    *len = n;
    return out;
}

const char *hex_of(const uint8_t *buf, size_t len)
{
    static char s[2 * 16384 + 1];

    if (len > 16384)
        len = 16384;
    for (size_t i = 0; i < len; i++)
        sprintf(s + 2 * i, "%02x", buf[i]);
    s[2 * len] = '\0';
    return s;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

uint64_t test_random_u64(void)
{
    /* splitmix64: fixed seed, so every run tests the same inputs */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void test_random(uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)test_random_u64();
}

static void record_clear(record *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->key[i]);
        free(r->value[i]);
    }
    r->n = 0;
}

/* Header lines replace an earlier value of their key; record lines may
 * repeat a key (TupleHash's elements), and field() finds the last. */
static void record_add(record *r, const char *line, int replace)
{
    const char *eq = strstr(line, " = ");
    size_t klen;

    if (eq == NULL || r->n == RECORD_MAX_FIELDS)
        return;
    klen = (size_t)(eq - line);
    for (int i = 0; replace && i < r->n; i++)
        if (strlen(r->key[i]) == klen && strncmp(r->key[i], line, klen) == 0) {
            free(r->value[i]);
            r->value[i] = strdup(eq + 3);
            return;
        }
    r->key[r->n] = strndup(line, klen);
    r->value[r->n] = strdup(eq + 3);
    r->n++;
}

int vector_open(vector_file *vf, const char *dir, const char *name)
{
    char path[4096];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    memset(vf, 0, sizeof *vf);
    vf->f = fopen(path, "r");
    if (vf->f == NULL)
        fprintf(stderr, "cannot open %s\n", path);
    return vf->f != NULL;
}

static int starts_record(const record *r, const char *line)
{
    size_t klen = r->n > 0 ? strlen(r->key[0]) : 0;

    return klen > 0 && strncmp(line, r->key[0], klen) == 0 &&
           strncmp(line + klen, " = ", 3) == 0;
}

int vector_next(vector_file *vf)
{
    char *line = vf->pending;
    size_t cap = line != NULL ? strlen(line) + 1 : 0;
    ssize_t n = line != NULL ? (ssize_t)strlen(line) : -1;

    vf->pending = NULL;
    record_clear(&vf->rec);
    if (line != NULL)
        record_add(&vf->rec, line, 0);
    while ((n = getline(&line, &cap, vf->f)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' ||
                         line[n - 1] == ' '))
            line[--n] = '\0';
        if (n == 0) {
            if (vf->rec.n > 0)
                break;
            continue;
        }
        if (line[0] == '#')
            continue;
        if (line[0] == '[') {
            line[n - 1] = '\0';
            record_add(&vf->header, line + 1, 1);
            continue;
        }
        if (starts_record(&vf->rec, line)) {
            vf->pending = line;
            return 1;
        }
        record_add(&vf->rec, line, 0);
    }
    free(line);
    return vf->rec.n > 0;
}

void vector_close(vector_file *vf)
{
    record_clear(&vf->rec);
    record_clear(&vf->header);
    if (vf->f != NULL)
        fclose(vf->f);
    free(vf->pending);
    vf->pending = NULL;
}

const char *field(const vector_file *vf, const char *key)
{
    for (int i = vf->rec.n - 1; i >= 0; i--)
        if (strcmp(vf->rec.key[i], key) == 0)
            return vf->rec.value[i];
    for (int i = 0; i < vf->header.n; i++)
        if (strcmp(vf->header.key[i], key) == 0)
            return vf->header.value[i];
    return NULL;
}

static OSSL_PROVIDER *loaded[2];

OSSL_LIB_CTX *test_libctx(int with_default)
{
    OSSL_LIB_CTX *lib = OSSL_LIB_CTX_new();

    if (lib == NULL ||
        !OSSL_PROVIDER_add_builtin(lib, KSUMPROV_NAME, ksumprov_init) ||
        (loaded[0] = OSSL_PROVIDER_load(lib, KSUMPROV_NAME)) == NULL ||
        (with_default && (loaded[1] = OSSL_PROVIDER_load(lib, "default")) == NULL)) {
        fprintf(stderr, "cannot set up the library context\n");
        ERR_print_errors_fp(stderr);
        exit(2);
    }
    return lib;
}

int evp_digest(OSSL_LIB_CTX *lib, const char *name, const char *props,
               const OSSL_PARAM *params, const uint8_t *in, size_t len,
               uint8_t *out, size_t outlen)
{
    EVP_MD *md = EVP_MD_fetch(lib, name, props);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = md != NULL && ctx != NULL && EVP_DigestInit_ex2(ctx, md, params) &&
             EVP_DigestUpdate(ctx, in, len);

    /* a fixed-length digest has no length to set: EVP_DigestFinalXOF,
     * which sets xoflen, fails on it */
    if (ok && (outlen == 0 || !(EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF))) {
        unsigned int n = 0;
        ok = EVP_DigestFinal_ex(ctx, out, &n) && (outlen == 0 || n == outlen);
    } else if (ok) {
        ok = EVP_DigestFinalXOF(ctx, out, outlen);
    }
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    return ok;
}

void test_libctx_free(OSSL_LIB_CTX *lib)
{
    for (int i = 0; i < 2; i++)
        if (loaded[i] != NULL)
            OSSL_PROVIDER_unload(loaded[i]);
    loaded[0] = loaded[1] = NULL;
    OSSL_LIB_CTX_free(lib);
}

static int backend_built(const char *name)
{
    for (int i = 0; keccak_backend_names[i] != NULL; i++)
        if (strcmp(keccak_backend_names[i], name) == 0)
            return 1;
    return 0;
}

void test_skip_unless_backend_runs(void)
{
    const char *want = getenv("KSUM_SIMD");

    if (want == NULL || !backend_built(want) || keccak_backend_by_name(want) != NULL)
        return;
    if (strcmp(want, "avx512") == 0)
        printf("SKIPPED: this CPU has no AVX-512 (KSUM_SIMD=avx512)\n");
    else
        printf("SKIPPED: this CPU cannot run backend %s (KSUM_SIMD)\n", want);
    exit(TEST_SKIPPED);
}
