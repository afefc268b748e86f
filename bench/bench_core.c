/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Micro-benchmark of the Keccak core at rate 136 (SHA3-256), 24 rounds, on
 * the active backend (KSUM_SIMD picks another): the single-state
 * permutation and absorb, the multi-state absorb (the n-way kernel) with
 * 8, 5, 4, 3, 2 and 1 active lanes (those the backend has) and with
 * every lane at KT128's leaf rate and rounds (168 bytes, 12), and
 * sponge_absorb_multi on as many 64 KiB messages as it has lanes; then
 * KT128 and ParallelHash128 on 1 MiB, in cycles per byte.
 * Prints a markdown table of cycles per call and per message block.
 *
 * Cycles are the time-stamp counter's (x86; nanoseconds elsewhere), the
 * lowest of many short samples taken in turns, so that other load on a
 * shared machine hits every row alike; compare ratios within one run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define UNIT "cycles"
static uint64_t ticks(void) { return __rdtsc(); }
#else
#define UNIT "ns"
static uint64_t ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

#include "../provider/modes/kangaroo.h"
#include "../provider/modes/tree.h"
#include "../provider/sponge/sponge.h"

#define RATE 136
#define ROUNDS 24
#define BLOCKS 16                 /* blocks per sample of the absorb rows */
#define MSG (64u << 10)           /* message length of the sponge rows */
#define SAMPLES 3000
#define TREE_LEN ((size_t)1 << 20) /* input of the tree rows */
#define TREE_SAMPLES 200
#define L KECCAK_LANES_MAX

static const keccak_backend *be;
static uint64_t st[L][KECCAK_STATE_LANES];
static uint8_t *input;            /* L messages of MSG bytes */

static const uint8_t *msg(unsigned j) { return input + (size_t)j * MSG; }

static void run_permute(unsigned unused)
{
    (void)unused;
    for (int i = 0; i < BLOCKS; i++)
        be->permute(st[0], ROUNDS);
}

static void run_absorb(unsigned unused)
{
    (void)unused;
    be->absorb(st[0], ROUNDS, RATE, msg(0), BLOCKS);
}

/* The backend's kernel on `active` of its lanes: a step is one block into
 * each active state, the input XORed and the states permuted. */
static void run_multi(unsigned active)
{
    uint64_t *s[L];
    unsigned rate[L];
    const uint8_t *in[L] = {NULL};

    for (unsigned j = 0; j < L; j++) {
        s[j] = st[j];
        rate[j] = RATE;
        in[j] = j < active ? msg(j) : NULL;
    }
    be->absorb_multi(s, ROUNDS, rate, in, BLOCKS);
}

/* Every lane at KT128's leaf rate and rounds (168 bytes, 12 rounds). */
static void run_multi_k12(unsigned unused)
{
    uint64_t *s[L];
    unsigned rate[L];
    const uint8_t *in[L];

    (void)unused;
    for (unsigned j = 0; j < L; j++) {
        s[j] = st[j];
        rate[j] = 168;
        in[j] = j < be->lanes ? msg(j) : NULL;
    }
    be->absorb_multi(s, 12, rate, in, BLOCKS);
}

/* As many 64 KiB messages as the backend has lanes, one sponge each. */
static void run_sponges(unsigned together)
{
    sponge sp[L];
    sponge *p[L];
    const uint8_t *in[L];
    size_t len[L];

    for (unsigned j = 0; j < be->lanes; j++) {
        sponge_init(&sp[j], be, RATE, ROUNDS, 0x06);
        p[j] = &sp[j];
        in[j] = msg(j);
        len[j] = MSG;
    }
    if (together) {
        sponge_absorb_multi(p, in, len, be->lanes);
        return;
    }
    for (unsigned j = 0; j < be->lanes; j++)
        sponge_absorb(&sp[j], in[j], len[j]);
}

typedef struct row {
    char name[48];
    void (*run)(unsigned arg);
    unsigned arg;
    double calls;      /* permutation calls or n-way steps per sample */
    double blocks;     /* message blocks per sample */
    int rare;          /* a long row: sampled once in 64 */
    uint64_t best;
} row;

static size_t add_rows(row *rows)
{
    static const unsigned counts[] = {8, 5, 4, 3, 2, 1};
    double sponge_blocks = (double)be->lanes * (MSG / RATE);
    size_t n = 0;

    rows[n++] = (row){"permute (one state)", run_permute, 0, BLOCKS, BLOCKS, 0, 0};
    rows[n++] = (row){"absorb (one state)", run_absorb, 0, BLOCKS, BLOCKS, 0, 0};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        if (counts[i] > be->lanes)
            continue;
        rows[n] = (row){"", run_multi, counts[i], BLOCKS, BLOCKS * counts[i], 0, 0};
        snprintf(rows[n++].name, sizeof rows[0].name, "absorb_multi, %u of %u lanes",
                 counts[i], be->lanes);
    }
    rows[n] = (row){"", run_multi_k12, 0, BLOCKS, BLOCKS * be->lanes, 0, 0};
    snprintf(rows[n++].name, sizeof rows[0].name,
             "absorb_multi, %u lanes, rate 168, 12 rounds", be->lanes);
    rows[n] = (row){"", run_sponges, 0, sponge_blocks, sponge_blocks, 1, 0};
    snprintf(rows[n++].name, sizeof rows[0].name, "sponge_absorb x%u, 64 KiB each",
             be->lanes);
    rows[n] = (row){"", run_sponges, 1, sponge_blocks / be->lanes, sponge_blocks, 1, 0};
    snprintf(rows[n++].name, sizeof rows[0].name, "sponge_absorb_multi, %u x 64 KiB",
             be->lanes);
    for (size_t r = 0; r < n; r++)
        rows[r].best = UINT64_MAX;
    return n;
}

/* KT128 of TREE_LEN bytes, as the provider runs it on one thread. */
static void run_k12(const uint8_t *in)
{
    kangaroo k;
    uint8_t out[32];

    kangaroo_init(&k, be, &kangaroo_kt128);
    kangaroo_update(&k, in, TREE_LEN);
    kangaroo_finish(&k, NULL, 0);
    sponge_squeeze(&k.final, out, sizeof out);
}

/* ParallelHash128's leaves (B = 8192: SHAKE128 on each) and final node. */
static void run_parallelhash(const uint8_t *in)
{
    tree_leaves t;
    sponge final;
    uint8_t out[32];

    sponge_init(&final, be, 168, 24, 0x04);
    tree_leaves_init(&t, 8192, 168, 24, 0x1F, 32);
    tree_leaves_update(&t, &final, in, TREE_LEN);
    tree_leaves_finish(&t, &final);
    sponge_squeeze(&final, out, sizeof out);
}

static void tree_rows(void)
{
    uint8_t *in = malloc(TREE_LEN);
    uint64_t best[2] = {UINT64_MAX, UINT64_MAX};

    if (in == NULL)
        return;
    memset(in, 0x5A, TREE_LEN);
    for (int s = 0; s < TREE_SAMPLES; s++) {
        for (int r = 0; r < 2; r++) {
            uint64_t t0 = ticks(), t;
            (r == 0 ? run_k12 : run_parallelhash)(in);
            t = ticks() - t0;
            best[r] = t < best[r] ? t : best[r];
        }
    }
    printf("\n| tree mode, 1 MiB on one thread | %s per byte |\n|---|---|\n"
           "| KT128 | %.3f |\n| ParallelHash128 (B = 8192) | %.3f |\n",
           UNIT, (double)best[0] / TREE_LEN, (double)best[1] / TREE_LEN);
    free(in);
}

int main(void)
{
    row rows[16];
    size_t nrows;

    be = keccak_backend_active();
    nrows = add_rows(rows);
    input = malloc((size_t)L * MSG);
    if (input == NULL)
        return 1;
    memset(input, 0xA5, (size_t)L * MSG);
    for (int s = 0; s < SAMPLES; s++) {
        for (size_t r = 0; r < nrows; r++) {
            if (rows[r].rare && s % 64 != 0)
                continue; /* 1000 times longer than a short sample */
            uint64_t t0 = ticks();
            rows[r].run(rows[r].arg);
            uint64_t t = ticks() - t0;
            if (t < rows[r].best)
                rows[r].best = t;
        }
    }
    printf("Backend %s (%u lanes), rate %d, %d rounds, best of many samples (%s).\n\n",
           be->name, be->lanes, RATE, ROUNDS, UNIT);
    printf("| operation | %s per call or n-way step | %s per message block |\n"
           "|---|---|---|\n", UNIT, UNIT);
    for (size_t r = 0; r < nrows; r++)
        printf("| %s | %.0f | %.0f |\n", rows[r].name, rows[r].best / rows[r].calls,
               rows[r].best / rows[r].blocks);
    tree_rows();
    free(input);
    return 0;
}
