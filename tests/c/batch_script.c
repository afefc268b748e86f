/* SPDX-License-Identifier: Apache-2.0 */
#include "batch_script.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ksumprov.h"

enum { F_MAC = 1, F_XOF = 2, F_CSHAKE = 4, F_DOMAIN = 8, F_NOBATCH = 16 };

typedef struct row {
    const char *name;
    unsigned flags, rate;
} row;

/* Every sequential algorithm, then some that ignore "batch". */
static const row rows[] = {
    {"SHA3-224", 0, 144}, {"SHA3-256", 0, 136}, {"SHA3-384", 0, 104},
    {"SHA3-512", 0, 72}, {"KECCAK-224", 0, 144}, {"KECCAK-256", 0, 136},
    {"KECCAK-384", 0, 104}, {"KECCAK-512", 0, 72}, {"SHAKE128", F_XOF, 168},
    {"SHAKE256", F_XOF, 136}, {"RAWSHAKE128", F_XOF, 168},
    {"RAWSHAKE256", F_XOF, 136}, {"TURBOSHAKE128", F_XOF | F_DOMAIN, 168},
    {"TURBOSHAKE256", F_XOF | F_DOMAIN, 136}, {"CSHAKE128", F_XOF | F_CSHAKE, 168},
    {"CSHAKE256", F_XOF | F_CSHAKE, 136}, {"KMAC128", F_MAC, 168},
    {"KMAC256", F_MAC, 136}, {"KANGAROOTWELVE", F_XOF | F_NOBATCH, 168},
    {"TUPLEHASH128", F_XOF | F_NOBATCH, 168},
};
#define ROWS (sizeof rows / sizeof rows[0])

static const char *const backends[] = {NULL,   "portable", "bmi2",
                                       "avx2", "portable8", "avx512"};
#define BACKENDS (sizeof backends / sizeof backends[0])

/* One context: an EVP_MD_CTX or an EVP_MAC_CTX. */
typedef struct side {
    EVP_MD_CTX *md;
    EVP_MAC_CTX *mac;
} side;

typedef struct slot {
    int live;               /* 0: empty, 1: taking input, 2: squeezing */
    const row *r;
    EVP_MD *md;
    EVP_MAC *mac;
    side b, u;              /* batched, unbatched */
    uint64_t id;            /* b's group; 0: none */
    size_t outlen;
    int xof;
    uint8_t custom[40], fname[40], key[40];
    size_t custom_len, fname_len, key_len;
    unsigned domain;
    const char *backend;
} slot;

typedef struct run {
    batch_script *s;
    slot slot[BATCH_SCRIPT_SLOTS];
    int failed;
} run;

static unsigned next(run *x)
{
    batch_script *s = x->s;
    return s->at < s->code_len ? s->code[s->at++] : (s->at++, 0);
}

static size_t next16(run *x)
{
    return next(x) | (size_t)next(x) << 8;
}

static void fail(run *x, const slot *sl, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (x->failed)
        return;
    x->failed = 1;
    n = snprintf(x->s->error, sizeof x->s->error, "step %lu, %s (id %llu): ",
                 x->s->steps, sl->r->name, (unsigned long long)sl->id);
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof x->s->error)
        vsnprintf(x->s->error + n, sizeof x->s->error - n, fmt, ap);
    va_end(ap);
}

/* ---- one side ---- */

static int side_init(slot *sl, side *sd, int batched, int with_id)
{
    OSSL_PARAM p[9], *q = p;
    uint64_t id = sl->id;

    if (sl->backend != NULL)
        *q++ = OSSL_PARAM_construct_utf8_string(KSUM_PARAM_BACKEND,
                                                (char *)sl->backend, 0);
    if (sl->r->flags & (F_CSHAKE | F_MAC))
        *q++ = OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, sl->custom,
                                                 sl->custom_len);
    if (sl->r->flags & F_CSHAKE)
        *q++ = OSSL_PARAM_construct_octet_string(KSUM_PARAM_FUNCTION_NAME,
                                                 sl->fname, sl->fname_len);
    if (sl->r->flags & F_DOMAIN)
        *q++ = OSSL_PARAM_construct_uint(KSUM_PARAM_DOMAIN, &sl->domain);
    if (sl->r->flags & F_MAC) {
        *q++ = OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &sl->outlen);
        *q++ = OSSL_PARAM_construct_int(OSSL_MAC_PARAM_XOF, &sl->xof);
    }
    if (batched && with_id)
        *q++ = OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH, &id);
    *q = OSSL_PARAM_construct_end();
    if (sd->mac != NULL)
        return EVP_MAC_init(sd->mac, sl->key, sl->key_len, p);
    return EVP_DigestInit_ex2(sd->md, sl->md, p);
}

static int side_new(slot *sl, side *sd)
{
    if (sl->mac != NULL)
        return (sd->mac = EVP_MAC_CTX_new(sl->mac)) != NULL;
    return (sd->md = EVP_MD_CTX_new()) != NULL;
}

static void side_free(side *sd)
{
    EVP_MAC_CTX_free(sd->mac);
    EVP_MD_CTX_free(sd->md);
    sd->mac = NULL;
    sd->md = NULL;
}

static int side_dup(const side *from, side *to)
{
    if (from->mac != NULL)
        return (to->mac = EVP_MAC_CTX_dup(from->mac)) != NULL;
    to->md = EVP_MD_CTX_new();
    return to->md != NULL && EVP_MD_CTX_copy_ex(to->md, from->md);
}

static int side_update(side *sd, const uint8_t *in, size_t len)
{
    if (sd->mac != NULL)
        return EVP_MAC_update(sd->mac, in, len);
    return EVP_DigestUpdate(sd->md, in, len);
}

/* The output, into out (512 bytes); returns its length, 0 on failure. */
static size_t side_final(const slot *sl, side *sd, uint8_t *out)
{
    size_t outl = 0;
    unsigned int n = 0;

    if (sd->mac != NULL)
        return EVP_MAC_final(sd->mac, out, &outl, sl->outlen) ? outl : 0;
    if (sl->r->flags & F_XOF)
        return EVP_DigestFinalXOF(sd->md, out, sl->outlen) ? sl->outlen : 0;
    return EVP_DigestFinal_ex(sd->md, out, &n) ? n : 0;
}

static int side_squeeze(side *sd, uint8_t *out, size_t len)
{
    OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_SQUEEZE, out, len),
                      OSSL_PARAM_construct_end()};

    if (sd->mac != NULL)
        return EVP_MAC_CTX_get_params(sd->mac, p);
    return EVP_MD_CTX_get_params(sd->md, p);
}

static int side_set_id(side *sd, uint64_t id)
{
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH, &id),
                      OSSL_PARAM_construct_end()};

    if (sd->mac != NULL)
        return EVP_MAC_CTX_set_params(sd->mac, p);
    return EVP_MD_CTX_set_params(sd->md, p);
}

static int side_get_id(side *sd, uint64_t *id)
{
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH, id),
                      OSSL_PARAM_construct_end()};

    if (sd->mac != NULL)
        return EVP_MAC_CTX_get_params(sd->mac, p);
    return EVP_MD_CTX_get_params(sd->md, p);
}

/* ---- steps on both sides of a slot ---- */

/* Both calls succeeded, or both failed. */
static int alike(run *x, const slot *sl, const char *what, int ok_b, int ok_u)
{
    ERR_clear_error();
    if (ok_b != ok_u)
        fail(x, sl, "%s %s batched, %s without", what, ok_b ? "succeeds" : "fails",
             ok_u ? "succeeds" : "fails");
    return ok_b && ok_u;
}

static uint64_t pick_id(run *x)
{
    unsigned v = next(x) % 4;
    return v == 0 ? 0 : x->s->first_id + v - 1;
}

static void slot_init(run *x, slot *sl)
{
    /* Digests reset the id at init: give it each time.  KMAC keeps it;
     * give it sometimes. */
    int with_id = sl->id != 0 && (sl->mac == NULL || next(x) % 2);

    if (alike(x, sl, "init", side_init(sl, &sl->b, 1, with_id),
              side_init(sl, &sl->u, 0, 0)))
        sl->live = 1;
}

static void slot_free(slot *sl)
{
    side_free(&sl->b);
    side_free(&sl->u);
    EVP_MD_free(sl->md);
    EVP_MAC_free(sl->mac);
    memset(sl, 0, sizeof *sl);
}

static void fill(run *x, uint8_t *buf, size_t *len)
{
    unsigned seed = next(x);

    *len = next(x) % 40;
    for (size_t i = 0; i < *len; i++)
        buf[i] = (uint8_t)(seed + 131 * i);
}

static void slot_new(run *x, slot *sl)
{
    batch_script *s = x->s;

    memset(sl, 0, sizeof *sl);
    sl->r = &rows[next(x) % ROWS];
    sl->id = pick_id(x);
    sl->outlen = 1 + next(x) % 300;
    sl->xof = next(x) % 2;
    fill(x, sl->custom, &sl->custom_len);
    fill(x, sl->fname, &sl->fname_len);
    fill(x, sl->key, &sl->key_len);
    sl->domain = 1 + next(x) % 0x7F;
    sl->backend = s->backend != NULL ? s->backend : backends[next(x) % BACKENDS];
    if (sl->r->flags & F_MAC)
        sl->mac = EVP_MAC_fetch(s->lib, sl->r->name, "provider=ksumprov");
    else
        sl->md = EVP_MD_fetch(s->lib, sl->r->name, "provider=ksumprov");
    if ((sl->mac == NULL && sl->md == NULL) || !side_new(sl, &sl->b) ||
        !side_new(sl, &sl->u)) {
        fail(x, sl, "cannot make a context");
        slot_free(sl);
        return;
    }
    slot_init(x, sl);
    if (!sl->live) /* a backend this CPU lacks: refused by both */
        slot_free(sl);
}

static size_t pick_len(run *x, const slot *sl)
{
    size_t rate = sl->r->rate, len, max = x->s->max_update;

    switch (next(x) % 8) {
    case 0:
    case 1:
        len = next(x) % 16;
        break;
    case 2:
    case 3: /* 0 to 3 rates, around the block boundaries */
        len = (next(x) % 4) * rate + next(x) % 5;
        len = len >= 2 ? len - 2 : len;
        break;
    case 4: /* around the pending bound and its halves */
        len = (65536 >> next(x) % 3) + next(x) % 5;
        len = len - 2;
        break;
    case 5:
        len = next16(x) % 65537;
        break;
    case 6:
        len = 65536;
        break;
    default: /* up to the longest */
        len = (next16(x) | (size_t)next(x) << 16) % (max + 1);
        break;
    }
    return len < max ? len : max;
}

static const uint8_t *pick_data(run *x, size_t len)
{
    size_t room = x->s->msg_len - len + 1;

    return x->s->msg + (next16(x) * 7919) % room;
}

static void slot_update(run *x, slot *sl, size_t len)
{
    const uint8_t *in = pick_data(x, len);
    int after_output = sl->live == 2;
    int ok = alike(x, sl, "update", side_update(&sl->b, in, len),
                   side_update(&sl->u, in, len));

    if (after_output && len > 0 && ok)
        fail(x, sl, "update after squeeze succeeds");
    if (after_output)
        slot_init(x, sl);
}

static void compare(run *x, const slot *sl, const char *what, const uint8_t *a,
                    size_t na, const uint8_t *b, size_t nb)
{
    x->s->outputs++;
    if (na != nb || memcmp(a, b, na) != 0)
        fail(x, sl, "%s differs (%zu and %zu bytes)", what, na, nb);
}

static void slot_final(run *x, slot *sl)
{
    uint8_t a[512], b[512];
    size_t na = side_final(sl, &sl->b, a), nu = side_final(sl, &sl->u, b);

    if (alike(x, sl, "final", na > 0, nu > 0))
        compare(x, sl, "final", a, na, b, nu);
    slot_init(x, sl);
}

static void slot_squeeze(run *x, slot *sl)
{
    uint8_t a[300], b[300];
    size_t n = 1 + next(x) % 300;

    if (alike(x, sl, "squeeze", side_squeeze(&sl->b, a, n),
              side_squeeze(&sl->u, b, n))) {
        compare(x, sl, "squeeze", a, n, b, n);
        sl->live = 2;
    }
}

static void slot_dup(run *x, slot *from, slot *to)
{
    *to = *from;
    to->b.md = to->u.md = NULL;
    to->b.mac = to->u.mac = NULL;
    if (to->md != NULL)
        EVP_MD_up_ref(to->md);
    if (to->mac != NULL)
        EVP_MAC_up_ref(to->mac);
    if (!alike(x, from, "dup", side_dup(&from->b, &to->b),
               side_dup(&from->u, &to->u)))
        slot_free(to);
}

static void slot_set_id(run *x, slot *sl)
{
    uint64_t id = pick_id(x), got = 99;

    if (!side_set_id(&sl->b, id)) {
        ERR_clear_error();
        fail(x, sl, "setting batch %llu fails", (unsigned long long)id);
        return;
    }
    if (sl->r->flags & F_NOBATCH)
        return;
    sl->id = id;
    if (!side_get_id(&sl->b, &got) || got != id)
        fail(x, sl, "batch reads %llu", (unsigned long long)got);
}

/* Every live context in turn takes len bytes: how ksum feeds files. */
static void turns(run *x, size_t len)
{
    for (unsigned i = 0; i < x->s->slots; i++)
        if (x->slot[i].live == 1)
            slot_update(x, &x->slot[i], len);
}

static void step(run *x)
{
    unsigned op = next(x) % 16;
    slot *sl = &x->slot[next(x) % x->s->slots], *free_slot = NULL;

    for (unsigned i = 0; i < x->s->slots; i++)
        if (!x->slot[i].live && free_slot == NULL)
            free_slot = &x->slot[i];
    if (!sl->live) {
        if (free_slot != NULL)
            slot_new(x, free_slot);
        return;
    }
    switch (op) {
    case 0: case 1: case 2: case 3: case 4:
        slot_update(x, sl, pick_len(x, sl));
        break;
    case 5: case 6:
        turns(x, pick_len(x, sl));
        break;
    case 7:
        slot_final(x, sl);
        break;
    case 8:
        slot_squeeze(x, sl);
        break;
    case 9:
        if (free_slot != NULL)
            slot_dup(x, sl, free_slot);
        break;
    case 10:
        slot_free(sl);
        break;
    case 11:
        slot_init(x, sl);
        break;
    case 12:
        slot_set_id(x, sl);
        break;
    default:
        if (free_slot != NULL)
            slot_new(x, free_slot);
        break;
    }
}

int batch_script_run(batch_script *s, unsigned long max_steps)
{
    run x;

    memset(&x, 0, sizeof x);
    x.s = s;
    s->at = 0;
    s->steps = s->outputs = 0;
    s->error[0] = '\0';
    if (s->slots == 0 || s->slots > BATCH_SCRIPT_SLOTS)
        s->slots = BATCH_SCRIPT_SLOTS;
    while (s->at < s->code_len && s->steps < max_steps && !x.failed) {
        step(&x);
        s->steps++;
    }
    for (unsigned i = 0; i < s->slots; i++) {
        slot *sl = &x.slot[i];
        if (sl->live == 1 && !x.failed)
            slot_final(&x, sl);
        if (sl->r != NULL)
            slot_free(sl);
    }
    return !x.failed;
}
