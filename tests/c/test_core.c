/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the Keccak core below the provider: every backend against the
 * portable one, and against a byte-wise absorb and sponge at every rate a
 * mode may have (one to 24 lanes), the sponge on every backend (also
 * several sponges absorbing together), the refusal of other rates, and the
 * length encoders at their limits.  Run on random inputs from a fixed seed.
 */
#include "../../provider/glue/algorithms.h"
#include "../../provider/modes/kangaroo.h"
#include "../../provider/modes/sp800_185.h"
#include "testutil.h"

static const unsigned rates[] = {168, 144, 136, 104, 72};
static const unsigned rounds[] = {12, 14, 24};

static void compare_backend(const keccak_backend *be)
{
    const keccak_backend *ref = &keccak_portable_backend;
    uint8_t in[3 * 168 + 1];

    for (int r = 0; r < 3; r++) {
        for (int trial = 0; trial < 20; trial++) {
            uint64_t a[25], b[25];
            test_random((uint8_t *)a, sizeof a);
            memcpy(b, a, sizeof a);
            be->permute(a, rounds[r]);
            ref->permute(b, rounds[r]);
            CHECK(memcmp(a, b, sizeof a) == 0, "%s permute %u", be->name, rounds[r]);
            for (int k = 0; k < 5; k++) {
                size_t blocks = 1 + test_random_u64() % 3;
                test_random(in, sizeof in);
                be->absorb(a, rounds[r], rates[k], in, blocks);
                ref->absorb(b, rounds[r], rates[k], in, blocks);
                CHECK(memcmp(a, b, sizeof a) == 0, "%s absorb rate %u", be->name,
                      rates[k]);
            }
        }
    }
}

/* Every rate of whole lanes from 8 to 192 bytes at every round count,
 * against the portable permutation with the block XORed into the state in
 * memory; both lanes of a backend of two or more, with different states
 * and inputs. */
static void compare_rounds_at_any_rate(const keccak_backend *be)
{
    uint8_t in[2][3 * 192];

    test_random((uint8_t *)in, sizeof in);
    for (unsigned rate = 8; rate <= 192; rate += 8) {
        for (unsigned r = 2; r <= 24; r += 2) {
            /* the arrays have as many entries as any backend's lanes;
             * the lanes past the first two are idle */
            uint64_t a[2][25], b[2][25];
            uint64_t *sa[KECCAK_LANES_MAX] = {a[0], a[1]};
            const uint8_t *ins[KECCAK_LANES_MAX] = {in[0], in[1]};
            unsigned rates[KECCAK_LANES_MAX] = {rate, rate};
            size_t blocks = 1 + r % 3;
            test_random((uint8_t *)a, sizeof a);
            memcpy(b, a, sizeof a);
            if (be->lanes >= 2)
                be->absorb_multi(sa, r, rates, ins, blocks);
            else
                be->absorb(a[0], r, rate, in[0], blocks);
            for (unsigned j = 0; j < (be->lanes >= 2 ? 2u : 1u); j++)
                for (size_t k = 0; k < blocks; k++) {
                    for (unsigned i = 0; i < rate / 8; i++)
                        b[j][i] ^= keccak_load64(in[j] + k * rate + 8 * i);
                    keccak_portable_permute(b[j], r);
                }
            CHECK(memcmp(a, b, sizeof a) == 0, "%s rate %u rounds %u", be->name,
                  rate, r);
        }
    }
}

/* n leaf hashes side by side against n single sponges, at every length
 * around the rate and the K12 chunk; n from 1 to past two groups. */
static void compare_hash_many(const keccak_backend *be)
{
    static const size_t lens[] = {0, 1, 7, 8, 135, 136, 137, 167, 168, 169,
                                  335, 336, 337, 8191, 8192, 8193};
    enum { N = 2 * KECCAK_LANES_MAX + 1 };
    uint8_t *buf = malloc(N * 8193);
    static uint8_t got[N][400], want[N][400];

    test_random(buf, N * 8193);
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        for (int k = 0; k < 5; k += 2) {
            unsigned outlen = l % 2 ? 400 : 32, n = 1 + (unsigned)(l + k) % N;
            const uint8_t *ins[N];
            uint8_t *outs[N];
            for (unsigned j = 0; j < n; j++) {
                sponge sp;
                ins[j] = buf + j * lens[l];
                outs[j] = got[j];
                sponge_init(&sp, &keccak_portable_backend, rates[k], 12, 0x0B);
                sponge_absorb(&sp, ins[j], lens[l]);
                sponge_squeeze(&sp, want[j], outlen);
            }
            sponge_hash_many(be, n, rates[k], 12, 0x0B, ins, lens[l], outs, outlen);
            for (unsigned j = 0; j < n; j++)
                CHECK(memcmp(got[j], want[j], outlen) == 0,
                      "%s hash_many %u of %u, len %zu rate %u out %u", be->name, j,
                      n, lens[l], rates[k], outlen);
        }
    }
    free(buf);
}

/* The backend's multi-state absorb against the serial one, with idle
 * lanes (whose states must stay as they were) and mixed rates; every
 * number of active lanes comes up. */
static void compare_absorb_multi(const keccak_backend *be)
{
    enum { L = KECCAK_LANES_MAX };
    static uint8_t in[L][3 * 168];
    unsigned lanes = be->lanes;

    for (int trial = 0; trial < 400; trial++) {
        uint64_t a[L][25], b[L][25];
        uint64_t *sa[L], *sb[L];
        const uint8_t *ins[L];
        unsigned rate[L], r = trial % 2 ? 12 : 24;
        size_t blocks = test_random_u64() % 4;
        uint64_t idle = test_random_u64();

        test_random((uint8_t *)a, sizeof a);
        test_random((uint8_t *)in, sizeof in);
        memcpy(b, a, sizeof a);
        for (unsigned j = 0; j < lanes; j++) {
            int same = trial % 4 < 2 && j > 0;
            sa[j] = a[j];
            sb[j] = b[j];
            rate[j] = same ? rate[0] : rates[test_random_u64() % 5];
            /* from all idle to all active, by trial */
            ins[j] = (idle >> (8 * j)) % (1 + trial % 5) != 0 ? NULL : in[j];
        }
        be->absorb_multi(sa, r, rate, ins, blocks);
        for (unsigned j = 0; j < lanes; j++)
            CHECK(ins[j] != NULL || memcmp(a[j], b[j], sizeof a[j]) == 0,
                  "%s absorb_multi touched idle lane %u", be->name, j);
        keccak_serial_absorb_multi(keccak_portable_absorb, lanes, sb, r, rate, ins,
                                   blocks);
        CHECK(memcmp(a, b, sizeof a) == 0, "%s absorb_multi trial %d", be->name, trial);
    }
}

/* Every rate a mode row may have (keccak_rate_ok): today's and those no
 * algorithm has yet, which must absorb as exactly as today's do. */
static const unsigned any_rates[] = {8, 16, 24, 32, 40, 48, 56, 64, 72, 80,
                                     88, 96, 104, 112, 120, 128, 136, 144,
                                     152, 160, 168, 176, 184, 192};
#define ANY_RATES (sizeof any_rates / sizeof any_rates[0])

/* The absorb as FIPS 202 writes it, byte by byte into the state, sharing
 * no code with the backends' absorb loops. */
static void bytewise_absorb(uint64_t s[KECCAK_STATE_LANES], unsigned r,
                            unsigned rate, const uint8_t *in, size_t nblocks)
{
    for (; nblocks > 0; nblocks--, in += rate) {
        for (unsigned i = 0; i < rate; i++)
            s[i / 8] ^= (uint64_t)in[i] << (8 * (i % 8));
        keccak_portable_permute(s, r);
    }
}

/* The single-state absorb at every rate against the byte-wise one. */
static void compare_any_rate(const keccak_backend *be)
{
    static uint8_t in[3 * 192];

    for (size_t k = 0; k < ANY_RATES; k++) {
        for (int trial = 0; trial < 4; trial++) {
            uint64_t a[25], b[25];
            unsigned r = trial % 2 ? 12 : 24;
            size_t blocks = 1 + (size_t)trial % 3;
            test_random((uint8_t *)a, sizeof a);
            test_random(in, sizeof in);
            memcpy(b, a, sizeof a);
            be->absorb(a, r, any_rates[k], in, blocks);
            bytewise_absorb(b, r, any_rates[k], in, blocks);
            CHECK(memcmp(a, b, sizeof a) == 0, "%s absorb at rate %u", be->name,
                  any_rates[k]);
        }
    }
}

/* The sponge at that rate as FIPS 202 writes it: bytewise_absorb over the
 * padded message, then the first rate bytes of each state squeezed. */
static void bytewise_sponge(unsigned rate, const uint8_t *in, size_t len,
                            uint8_t *out, size_t outlen)
{
    uint64_t s[KECCAK_STATE_LANES] = {0};
    uint8_t block[192];
    size_t tail = len % rate;

    bytewise_absorb(s, 24, rate, in, len / rate);
    memset(block, 0, sizeof block);
    memcpy(block, in + len - tail, tail);
    block[tail] ^= 0x1F;
    block[rate - 1] ^= 0x80;
    bytewise_absorb(s, 24, rate, block, 1);
    for (size_t i = 0; i < outlen; i++) {
        if (i > 0 && i % rate == 0)
            keccak_portable_permute(s, 24);
        out[i] = (uint8_t)(s[i % rate / 8] >> (8 * (i % 8)));
    }
}

/* The sponge and the leaf hashes side by side at every rate, through be:
 * the layers above the backends take the rate as it comes. */
static void compare_any_rate_sponge(const keccak_backend *be)
{
    enum { N = KECCAK_LANES_MAX + 1, OUT = 2 * 192 + 5 };
    static uint8_t in[N][3 * 192], got[N][OUT], want[N][OUT];

    for (size_t k = 0; k < ANY_RATES; k++) {
        unsigned rate = any_rates[k];
        size_t len = (k * 37) % (3 * rate);
        const uint8_t *ins[N];
        uint8_t *outs[N];
        sponge sp;

        test_random((uint8_t *)in, sizeof in);
        sponge_init(&sp, be, rate, 24, 0x1F);
        sponge_absorb(&sp, in[0], len / 2);
        sponge_absorb(&sp, in[0] + len / 2, len - len / 2);
        sponge_squeeze(&sp, got[0], OUT);
        bytewise_sponge(rate, in[0], len, want[0], OUT);
        CHECK(memcmp(got[0], want[0], OUT) == 0, "%s sponge at rate %u, %zu bytes",
              be->name, rate, len);
        for (unsigned j = 0; j < N; j++) {
            ins[j] = in[j];
            outs[j] = got[j];
            bytewise_sponge(rate, in[j], len, want[j], OUT);
        }
        sponge_hash_many(be, N, rate, 24, 0x1F, ins, len, outs, OUT);
        for (unsigned j = 0; j < N; j++)
            CHECK(memcmp(got[j], want[j], OUT) == 0, "%s hash_many %u at rate %u",
                  be->name, j, rate);
    }
}

/* The multi-state absorb at every rate, all lanes at one rate (the
 * kernels' transposed loads) and at unequal rates (their word-by-word
 * loads), from one active lane to all (every kernel a backend steps down
 * to), the idle ones anywhere, against the byte-wise absorb lane by lane. */
static void compare_any_rate_multi(const keccak_backend *be)
{
    enum { L = KECCAK_LANES_MAX };
    static uint8_t in[L][3 * 192];

    for (int trial = 0; trial < 4 * (int)ANY_RATES; trial++) {
        uint64_t a[L][25], b[L][25];
        uint64_t *sa[L];
        const uint8_t *ins[L];
        unsigned rate[L], r = trial % 2 ? 12 : 24;
        unsigned active = 1 + (unsigned)trial * 3 % be->lanes;
        size_t blocks = 1 + (size_t)trial % 3;
        int equal = trial / 2 % 2 == 0;

        test_random((uint8_t *)a, sizeof a);
        test_random((uint8_t *)in, sizeof in);
        memcpy(b, a, sizeof a);
        for (unsigned j = 0; j < be->lanes; j++) {
            sa[j] = a[j];
            rate[j] = equal ? any_rates[trial / 4] : any_rates[test_random_u64() % ANY_RATES];
            ins[j] = (j + (unsigned)trial) % be->lanes < active ? in[j] : NULL;
        }
        be->absorb_multi(sa, r, rate, ins, blocks);
        for (unsigned j = 0; j < be->lanes; j++) {
            if (ins[j] != NULL)
                bytewise_absorb(b[j], r, rate[j], in[j], blocks);
            CHECK(memcmp(a[j], b[j], sizeof a[j]) == 0,
                  "%s absorb_multi lane %u of %u at rate %u (%s rates)", be->name, j,
                  be->lanes, rate[j], equal ? "equal" : "unequal");
        }
    }
}

/* Tree leaves of a few hundred bytes on be against the portable backend:
 * every count of whole leaves around one and two groups, with a partial
 * leaf or none, fed whole or in two pieces. */
static void compare_tree(const keccak_backend *be)
{
    enum { LEAF = 300, MOST = 2 * KECCAK_LANES_MAX + 2 };
    uint8_t *buf = malloc(MOST * LEAF + LEAF);

    test_random(buf, MOST * LEAF + LEAF);
    for (unsigned n = 0; n <= MOST; n++) {
        size_t len = n * LEAF + (n % 3 == 0 ? 0 : 1 + n * 7 % (LEAF - 1));
        size_t cut = n % 2 ? len / 3 : len;
        uint8_t got[32], want[32];
        tree_leaves t;
        sponge final;
        tree_leaves_init(&t, LEAF, 168, 12, 0x0B, 32);
        sponge_init(&final, be, 168, 12, 0x06);
        tree_leaves_update(&t, &final, buf, cut);
        tree_leaves_update(&t, &final, buf + cut, len - cut);
        tree_leaves_finish(&t, &final);
        sponge_squeeze(&final, got, sizeof got);
        tree_leaves_init(&t, LEAF, 168, 12, 0x0B, 32);
        sponge_init(&final, &keccak_portable_backend, 168, 12, 0x06);
        for (size_t at = 0; at < len; at += 97)
            tree_leaves_update(&t, &final, buf + at, len - at < 97 ? len - at : 97);
        tree_leaves_finish(&t, &final);
        sponge_squeeze(&final, want, sizeof want);
        CHECK(memcmp(got, want, sizeof got) == 0, "%s tree of %zu bytes", be->name,
              len);
    }
    free(buf);
}

/* Up to six sponges absorbed together on one backend and one by one on the
 * portable one; each starts with a random partial block. */
#define MULTI_MAX (KECCAK_LANES_MAX + 2)
typedef struct multi_case {
    sponge got[MULTI_MAX], want[MULTI_MAX];
    const uint8_t *in[MULTI_MAX];
    size_t len[MULTI_MAX];
    unsigned n;
} multi_case;

static const uint8_t *multi_input(const uint8_t *buf, size_t size, size_t len)
{
    return len == 0 ? NULL : buf + test_random_u64() % (size - len + 1);
}

/* 0 to 3 blocks, near a block boundary half of the time; or up to 1 MiB. */
static size_t multi_length(unsigned rate, int long_input)
{
    size_t len;

    if (long_input)
        return test_random_u64() % ((1 << 20) + 1);
    if (test_random_u64() % 2)
        return test_random_u64() % (3 * rate + 1);
    len = (test_random_u64() % 4) * rate + test_random_u64() % 5;
    return len < 2 ? 0 : len - 2;
}

static void multi_start(multi_case *c, const keccak_backend *be, unsigned r,
                        int mixed, const uint8_t *buf, size_t size)
{
    static const uint8_t domains[] = {0x06, 0x1F, 0x07, 0x01, 0x04, 0x0B};
    unsigned rate = rates[test_random_u64() % 5];

    for (unsigned j = 0; j < c->n; j++) {
        uint8_t domain = domains[test_random_u64() % 6];
        size_t fill;
        const uint8_t *p;
        if (mixed)
            rate = rates[test_random_u64() % 5];
        sponge_init(&c->got[j], be, rate, r, domain);
        sponge_init(&c->want[j], &keccak_portable_backend, rate, r, domain);
        fill = test_random_u64() % (2 * rate);
        p = multi_input(buf, size, fill);
        sponge_absorb(&c->got[j], p, fill);
        sponge_absorb(&c->want[j], p, fill);
    }
}

/* One multi call on got, the same bytes one sponge at a time on want:
 * lanes of random lengths finishing at different times, or of one. */
static void multi_absorb(multi_case *c, int long_input, const uint8_t *buf,
                         size_t size)
{
    sponge *sp[MULTI_MAX];
    int same = test_random_u64() % 4 == 0;
    size_t len0 = multi_length(c->got[0].rate, long_input);

    for (unsigned j = 0; j < c->n; j++) {
        sp[j] = &c->got[j];
        c->len[j] = same ? len0 : multi_length(c->got[j].rate, long_input);
        c->in[j] = multi_input(buf, size, c->len[j]);
        sponge_absorb(&c->want[j], c->in[j], c->len[j]);
    }
    sponge_absorb_multi(sp, c->in, c->len, c->n);
}

static void multi_check(multi_case *c, const char *what)
{
    for (unsigned j = 0; j < c->n; j++) {
        sponge *g = &c->got[j], *w = &c->want[j];
        uint8_t out_g[400], out_w[400];
        size_t outlen = 1 + test_random_u64() % sizeof out_g;
        CHECK(memcmp(g->s, w->s, sizeof g->s) == 0 && g->pos == w->pos &&
                  g->squeezing == w->squeezing,
              "%s %s: lane %u of %u, rate %u rounds %u, state", g->be->name, what,
              j, c->n, g->rate, g->rounds);
        sponge_squeeze(g, out_g, outlen);
        sponge_squeeze(w, out_w, outlen);
        CHECK(memcmp(out_g, out_w, outlen) == 0, "%s %s: lane %u, squeeze",
              g->be->name, what, j);
    }
}

static void multi_trial(const keccak_backend *be, unsigned n, unsigned r,
                        int mixed, int long_input, const uint8_t *buf, size_t size)
{
    multi_case c;
    int calls = 1 + (int)(test_random_u64() % 3);

    c.n = n;
    multi_start(&c, be, r, mixed, buf, size);
    for (int i = 0; i < calls; i++)
        multi_absorb(&c, long_input, buf, size);
    multi_check(&c, long_input ? "absorb_multi long" : "absorb_multi");
}

/* Sponges of unequal rounds in one call take the one-by-one path. */
static void multi_unequal_rounds(const keccak_backend *be, const uint8_t *buf,
                                 size_t size)
{
    multi_case c;
    sponge *sp[4] = {&c.got[0], &c.got[1], &c.got[2], &c.got[3]};

    c.n = 4;
    multi_start(&c, be, 24, 1, buf, size);
    for (unsigned j = 1; j < 4; j += 2) {
        sponge_init(&c.got[j], be, c.got[j].rate, 12, c.got[j].domain);
        sponge_init(&c.want[j], &keccak_portable_backend, c.got[j].rate, 12,
                    c.got[j].domain);
    }
    for (unsigned j = 0; j < 4; j++) {
        c.len[j] = multi_length(c.got[j].rate, 0) + 500;
        c.in[j] = multi_input(buf, size, c.len[j]);
        sponge_absorb(&c.want[j], c.in[j], c.len[j]);
    }
    sponge_absorb_multi(sp, c.in, c.len, 4);
    multi_check(&c, "absorb_multi unequal rounds");
}

static void compare_sponge_multi(const keccak_backend *be)
{
    const size_t size = (size_t)2 << 20;
    uint8_t *buf = malloc(size);

    test_random(buf, size);
    for (int i = 0; i < 400; i++) {
        unsigned n = i % 8 == 0 ? 1 + (unsigned)(test_random_u64() % MULTI_MAX)
                                : be->lanes;
        multi_trial(be, n, i % 2 ? 12 : 24, i % 4 >= 2, 0, buf, size);
    }
    for (int i = 0; i < 4; i++)
        multi_trial(be, be->lanes, i % 2 ? 12 : 24, i >= 2, 1, buf, size);
    multi_unequal_rounds(be, buf, size);
    free(buf);
}

/* Squeezing in pieces gives the same stream as one squeeze. */
static void test_squeeze_pieces(void)
{
    const size_t n = 16 << 20;
    uint8_t *one = malloc(n), *pieces = malloc(n);
    sponge a, b;

    sponge_init(&a, keccak_backend_active(), 168, 24, 0x1F);
    sponge_init(&b, keccak_backend_active(), 168, 24, 0x1F);
    sponge_absorb(&a, "abc", 3);
    sponge_absorb(&b, "abc", 3);
    sponge_squeeze(&a, one, n);
    for (size_t done = 0; done < n;) {
        size_t take = 1 + test_random_u64() % 100000;
        if (take > n - done)
            take = n - done;
        sponge_squeeze(&b, pieces + done, take);
        done += take;
    }
    CHECK(memcmp(one, pieces, n) == 0, "16 MiB squeezed in pieces");
    free(one);
    free(pieces);
}

static size_t kangaroo_length_encode_u(uint8_t *out, uint64_t x)
{
    return kangaroo_length_encode(out, x);
}

static int encoded(size_t (*enc)(uint8_t *, uint64_t), uint64_t x,
                   const char *want)
{
    uint8_t out[SP800_ENCODE_MAX];
    size_t n = enc(out, x);
    return strcmp(hex_of(out, n), want) == 0;
}

static void test_encoders(void)
{
    CHECK(encoded(sp800_left_encode, 0, "0100"), "left_encode(0)");
    CHECK(encoded(sp800_right_encode, 0, "0001"), "right_encode(0)");
    CHECK(encoded(sp800_left_encode, 168, "01a8"), "left_encode(168)");
    CHECK(encoded(sp800_left_encode, 1ULL << 32, "050100000000"), "left_encode(2^32)");
    CHECK(encoded(sp800_right_encode, 1ULL << 32, "010000000005"), "right_encode(2^32)");
    CHECK(encoded(sp800_left_encode, UINT64_MAX, "08ffffffffffffffff"),
          "left_encode(2^64-1)");
    CHECK(encoded(sp800_right_encode, UINT64_MAX, "ffffffffffffffff08"),
          "right_encode(2^64-1)");
    /* Bit lengths of byte counts need 72 bits above 2^61 bytes. */
    CHECK(encoded(sp800_left_encode_bits, 1ULL << 61, "09010000000000000000"),
          "left_encode(8 * 2^61)");
    CHECK(encoded(sp800_right_encode_bits, UINT64_MAX, "07fffffffffffffff809"),
          "right_encode(8 * (2^64-1))");
    CHECK(encoded(sp800_left_encode_bits, 1ULL << 32, "050800000000"),
          "left_encode(8 * 2^32)");
    CHECK(encoded(kangaroo_length_encode_u, 0, "00"), "length_encode(0)");
    CHECK(encoded(kangaroo_length_encode_u, 12, "0c01"), "length_encode(12)");
    CHECK(encoded(kangaroo_length_encode_u, 1ULL << 32, "010000000005"),
          "length_encode(2^32)");
    CHECK(encoded(kangaroo_length_encode_u, UINT64_MAX, "ffffffffffffffff08"),
          "length_encode(2^64-1)");
}

/* The leaf counter is 64-bit: it passes 2^32 without wrapping, and the
 * tree modes encode it whole (the encoders are tested above). */
static void test_leaf_counter(void)
{
    tree_leaves t;
    sponge final;
    uint8_t in[64] = {0};

    sponge_init(&final, keccak_backend_active(), 168, 12, 0x06);
    tree_leaves_init(&t, 1, 168, 12, 0x0B, 32);
    t.count = UINT32_MAX - 3;
    tree_leaves_update(&t, &final, in, 9);   /* two groups of four, one more */
    tree_leaves_finish(&t, &final);
    CHECK(t.count == (uint64_t)UINT32_MAX + 6, "leaf counter at 2^32: %llu",
          (unsigned long long)t.count);
}

/* The one check of rates: whole lanes from 8 to 192 bytes pass, anything
 * else is refused, and so is a table of algorithms with a row at such a
 * rate, which the provider would then not start with. */
static void test_rate_refusal(void)
{
    static const unsigned refused[] = {0, 1, 4, 7, 9, 100, 135, 137, 196, 200, 208};
    enum { N = KSUM_ALG_COUNT };
    ksum_alg algs[N];
    mode_desc bad;

    for (unsigned rate = 8; rate <= 192; rate += 8)
        CHECK(keccak_rate_ok(rate), "rate %u refused", rate);
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        CHECK(!keccak_rate_ok(refused[i]), "rate %u accepted", refused[i]);
    CHECK(ksum_algs_absorbable(ksum_algs, N), "the provider's own rows refused");
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        size_t row = i % N;
        memcpy(algs, ksum_algs, sizeof algs);
        bad = *ksum_algs[row].mode;
        bad.rate = (uint16_t)refused[i];
        algs[row].mode = &bad;
        CHECK(!ksum_algs_absorbable(algs, N), "row %zu at rate %u accepted", row,
              refused[i]);
    }
}

static void compare_all(const keccak_backend *be)
{
    printf("backend %s (%u lanes)\n", be->name, be->lanes);
    compare_backend(be);
    compare_any_rate(be);
    compare_any_rate_multi(be);
    compare_any_rate_sponge(be);
    compare_hash_many(be);
    compare_absorb_multi(be);
    compare_sponge_multi(be);
    compare_tree(be);
    compare_rounds_at_any_rate(be);
}

#ifdef KSUM_HAVE_A64
/* The table of Arm64 cores: the SHA3 kernel where it exists and is fast,
 * the scalar one elsewhere, whatever the MIDR says. */
static void test_a64_table(void)
{
    static const struct {
        uint32_t midr;
        int sha3;
        const char *want;
    } rows[] = {
        {0x410fd400, 1, "a64sha3x2"}, /* Neoverse V1 */
        {0x410fd4f0, 1, "a64sha3x2"}, /* Neoverse V2 */
        {0x6d0fd490, 1, "a64sha3x2"}, /* Cobalt 100 */
        {0x410fd400, 0, "a64"},     /* Neoverse V1 without HWCAP_SHA3 */
        {0x610f0220, 1, "a64sha3"}, /* Apple M1 */
        {0x610f0220, 0, "a64"},     /* Apple without HWCAP_SHA3 */
        {0x000f0510, 1, "a64sha3"}, /* qemu's max: unknown, with SHA3 */
        {0x410fd083, 0, "a64neon"}, /* Cortex-A72 */
        {0x410fd034, 0, "a64"},     /* Cortex-A53 */
        {0x410fd0c1, 0, "a64"},     /* Neoverse N1 */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK(strcmp(keccak_a64_kernel_for(rows[i].midr, rows[i].sha3),
                     rows[i].want) == 0,
              "core table: MIDR %08x sha3 %d", (unsigned)rows[i].midr, rows[i].sha3);
}
#endif

/* KSUM_EXPECT_BACKEND names the backend the dispatcher must have chosen
 * (the cross tests set it with the CPU model and KSUM_TEST_MIDR). */
static void test_expected_backend(void)
{
    const char *want = getenv("KSUM_EXPECT_BACKEND");

    if (want != NULL && *want != '\0')
        CHECK(strcmp(keccak_backend_active()->name, want) == 0,
              "active backend %s, expected %s", keccak_backend_active()->name, want);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--choice") == 0) {
        printf("active backend: %s\n", keccak_backend_active()->name);
        test_expected_backend();
#ifdef KSUM_HAVE_A64
        test_a64_table();
#endif
        return test_summary("test_core --choice");
    }
    for (int i = 0; keccak_backend_names[i] != NULL; i++) {
        const char *name = keccak_backend_names[i];
        const keccak_backend *be = keccak_backend_by_name(name);
        if (be != NULL)
            compare_all(be);
        else if (strcmp(name, "avx512") == 0)
            printf("backend avx512: SKIPPED: this CPU has no AVX-512\n");
        else
            printf("backend %s: SKIPPED: not runnable on this CPU\n", name);
    }
    for (int i = 0; i < 3; i++)
        compare_all(&keccak_serial_backends[i]);
    printf("active backend: %s\n", keccak_backend_active()->name);
    test_rate_refusal();
    test_expected_backend();
#ifdef KSUM_HAVE_A64
    test_a64_table();
#endif
    test_squeeze_pieces();
    test_encoders();
    test_leaf_counter();
    return test_summary("test_core");
}
