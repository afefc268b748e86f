/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The provider as EVP sees it, for tests/python/test_oracles.py, which
 * checks every algorithm against oracles of its own:
 *
 *   evp_run list
 *       one line per algorithm ksumprov registers, enumerated from the
 *       provider (EVP_MD_do_all_provided, EVP_MAC_do_all_provided), never
 *       from a list: "md" or "mac", the name EVP gives it, then every name;
 *   evp_run md|mac NAME [-n LEN] [-k HEX] [-e LEN]... [PARAM=T:VALUE]...
 *       the digest or MAC of standard input, in hex: -n the output length,
 *       -k the key, -e the lengths of TupleHash's elements (each announced
 *       before its bytes), and parameters set before the first byte (T: s
 *       text, x hex bytes, u unsigned, i int).
 *
 * ksumprov is built in, as ksum has it, so that sanitized builds run this
 * too.
 */
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksumprov.h"

enum { MAX_PARAMS = 16, MAX_ELEMENTS = 64, MAX_OUT = 1 << 16 };

static void print_name(const char *name, void *unused)
{
    (void)unused;
    printf(" %s", name);
}

static int from_ksumprov(const OSSL_PROVIDER *prov)
{
    return strcmp(OSSL_PROVIDER_get0_name(prov), KSUMPROV_NAME) == 0;
}

static void list_md(EVP_MD *md, void *unused)
{
    (void)unused;
    if (!from_ksumprov(EVP_MD_get0_provider(md)))
        return;
    printf("md %s", EVP_MD_get0_name(md));
    EVP_MD_names_do_all(md, print_name, NULL);
    printf("\n");
}

static void list_mac(EVP_MAC *mac, void *unused)
{
    (void)unused;
    if (!from_ksumprov(EVP_MAC_get0_provider(mac)))
        return;
    printf("mac %s", EVP_MAC_get0_name(mac));
    EVP_MAC_names_do_all(mac, print_name, NULL);
    printf("\n");
}

static unsigned char *read_all(size_t *len)
{
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *buf = malloc(cap);

    while (buf != NULL && (got = fread(buf + n, 1, cap - n, stdin)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *more = realloc(buf, cap *= 2);
            if (more == NULL)
                free(buf);
            buf = more;
        }
    }
    *len = n;
    return buf;
}

/* Hex into bytes; the bytes live as long as the arguments. */
static unsigned char *unhex(const char *hex, size_t *len)
{
    long n = 0;
    unsigned char *out = OPENSSL_hexstr2buf(*hex ? hex : "00", &n);

    *len = *hex ? (size_t)n : 0;
    return out;
}

/* PARAM=T:VALUE into p; the integers are kept in *i or *u, the bytes of
 * hex in *owned, for the caller to free. */
static int parse_param(char *arg, OSSL_PARAM *p, int *i, uint64_t *u, void **owned)
{
    char *eq = strchr(arg, '='), *value;
    size_t len;

    if (eq == NULL || eq[1] == '\0' || eq[2] != ':')
        return 0;
    *eq = '\0';
    value = eq + 3;
    switch (eq[1]) {
    case 's':
        *p = OSSL_PARAM_construct_utf8_string(arg, value, 0);
        return 1;
    case 'x': {
        unsigned char *bytes = unhex(value, &len);
        *owned = bytes;
        *p = OSSL_PARAM_construct_octet_string(arg, bytes, len);
        return bytes != NULL;
    }
    case 'u':
        *u = strtoull(value, NULL, 0);
        *p = OSSL_PARAM_construct_uint64(arg, u);
        return 1;
    case 'i':
        *i = atoi(value);
        *p = OSSL_PARAM_construct_int(arg, i);
        return 1;
    }
    return 0;
}

typedef struct request {
    const char *name;
    long outlen;                 /* -1: the default */
    unsigned char *key;
    size_t key_len;
    size_t elements[MAX_ELEMENTS], n_elements;
    OSSL_PARAM params[MAX_PARAMS + 2];
    int ints[MAX_PARAMS];
    uint64_t u64s[MAX_PARAMS];
    void *owned[MAX_PARAMS];
    size_t outlen_param;
} request;

static int parse_request(request *r, int argc, char **argv)
{
    int n = 0;

    memset(r, 0, sizeof *r);
    r->name = argv[2];
    r->outlen = -1;
    for (int a = 3; a < argc; a++) {
        if (strcmp(argv[a], "-n") == 0 && a + 1 < argc)
            r->outlen = atol(argv[++a]);
        else if (strcmp(argv[a], "-k") == 0 && a + 1 < argc)
            r->key = unhex(argv[++a], &r->key_len);
        else if (strcmp(argv[a], "-e") == 0 && a + 1 < argc && r->n_elements < MAX_ELEMENTS)
            r->elements[r->n_elements++] = (size_t)atol(argv[++a]);
        else if (n >= MAX_PARAMS || !parse_param(argv[a], &r->params[n], &r->ints[n],
                                                 &r->u64s[n], &r->owned[n]))
            return 0;
        else
            n++;
    }
    r->params[n] = OSSL_PARAM_construct_end();
    return 1;
}

static void free_request(request *r)
{
    OPENSSL_free(r->key);
    for (size_t i = 0; i < MAX_PARAMS; i++)
        OPENSSL_free(r->owned[i]);
}

/* The input through update, element by element when -e gave lengths. */
static int md_absorb(EVP_MD_CTX *ctx, const request *r, const unsigned char *in,
                     size_t len)
{
    size_t done = 0;

    for (size_t e = 0; e < r->n_elements; e++) {
        uint64_t elen = r->elements[e];
        OSSL_PARAM p[2] = {
            OSSL_PARAM_construct_uint64(KSUM_PARAM_ELEMENT_LENGTH, &elen),
            OSSL_PARAM_END,
        };
        if (elen > len - done || !EVP_MD_CTX_set_params(ctx, p) ||
            !EVP_DigestUpdate(ctx, in + done, elen))
            return 0;
        done += elen;
    }
    return r->n_elements > 0 ? done == len : EVP_DigestUpdate(ctx, in, len);
}

static long run_md(request *r, const unsigned char *in, size_t len, unsigned char *out)
{
    EVP_MD *md = EVP_MD_fetch(NULL, r->name, "provider=" KSUMPROV_NAME);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned int outl = 0;
    long got = -1;

    if (md != NULL && ctx != NULL && EVP_DigestInit_ex2(ctx, md, r->params) &&
        md_absorb(ctx, r, in, len)) {
        if (r->outlen >= 0 && EVP_DigestFinalXOF(ctx, out, (size_t)r->outlen))
            got = r->outlen;
        else if (r->outlen < 0 && EVP_DigestFinal_ex(ctx, out, &outl))
            got = outl;
    }
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    return got;
}

static long run_mac(request *r, const unsigned char *in, size_t len, unsigned char *out)
{
    EVP_MAC *mac = EVP_MAC_fetch(NULL, r->name, "provider=" KSUMPROV_NAME);
    EVP_MAC_CTX *ctx = mac != NULL ? EVP_MAC_CTX_new(mac) : NULL;
    size_t outl = 0, n = 0;
    long got = -1;

    while (r->params[n].key != NULL)
        n++;
    if (r->outlen >= 0) {
        r->outlen_param = (size_t)r->outlen;
        r->params[n++] = OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &r->outlen_param);
        r->params[n] = OSSL_PARAM_construct_end();
    }
    if (ctx != NULL && EVP_MAC_init(ctx, r->key, r->key_len, r->params) &&
        EVP_MAC_update(ctx, in, len) && EVP_MAC_final(ctx, out, &outl, MAX_OUT))
        got = (long)outl;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    return got;
}

static int compute(int argc, char **argv)
{
    static unsigned char out[MAX_OUT];
    request r;
    size_t len;
    unsigned char *in;
    long got;

    if (!parse_request(&r, argc, argv) || r.outlen > MAX_OUT) {
        fprintf(stderr, "evp_run: bad arguments\n");
        free_request(&r);
        return 2;
    }
    in = read_all(&len);
    got = in == NULL ? -1
          : strcmp(argv[1], "mac") == 0 ? run_mac(&r, in, len, out)
                                        : run_md(&r, in, len, out);
    free(in);
    free_request(&r);
    if (got < 0) {
        fprintf(stderr, "evp_run: %s refused\n", r.name);
        return 1;
    }
    for (long i = 0; i < got; i++)
        printf("%02x", out[i]);
    printf("\n");
    return 0;
}

static int run(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        EVP_MD_do_all_provided(NULL, list_md, NULL);
        EVP_MAC_do_all_provided(NULL, list_mac, NULL);
        return 0;
    }
    if (argc >= 3 && (strcmp(argv[1], "md") == 0 || strcmp(argv[1], "mac") == 0))
        return compute(argc, argv);
    fprintf(stderr, "usage: evp_run list | md|mac NAME [-n LEN] [-k HEX] [-e LEN]... "
                    "[PARAM=T:VALUE]...\n");
    return 2;
}

int main(int argc, char **argv)
{
    OSSL_PROVIDER *prov;
    int rc;

    if (!OSSL_PROVIDER_add_builtin(NULL, KSUMPROV_NAME, ksumprov_init) ||
        (prov = OSSL_PROVIDER_load(NULL, KSUMPROV_NAME)) == NULL) {
        fprintf(stderr, "evp_run: cannot load ksumprov\n");
        return 1;
    }
    rc = run(argc, argv);
    OSSL_PROVIDER_unload(prov);
    return rc;
}
