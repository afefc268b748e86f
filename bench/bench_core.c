/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Micro-benchmark of the Keccak core at rate 136 (SHA3-256), 24 rounds, on
 * the active backend (KSUM_SIMD picks another): the single-state and 4-way
 * permutations, the single-state absorb, the multi-state absorb with 4, 3,
 * 2 and 1 active lanes, and sponge_absorb_multi on four 64 KiB messages.
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

#include "../provider/sponge/sponge.h"

#define RATE 136
#define ROUNDS 24
#define BLOCKS 16                 /* blocks per sample of the absorb rows */
#define MSG (64u << 10)           /* message length of the sponge rows */
#define SAMPLES 3000

static const keccak_backend *be;
static uint64_t st[KECCAK_PAR][KECCAK_STATE_LANES];
static uint64_t st4[KECCAK_PAR * KECCAK_STATE_LANES];
static uint8_t *input;            /* KECCAK_PAR messages of MSG bytes */

static const uint8_t *msg(unsigned j) { return input + (size_t)j * MSG; }

static void run_permute(void)
{
    for (int i = 0; i < BLOCKS; i++)
        be->permute(st[0], ROUNDS);
}

static void run_permute_x4(void)
{
    for (int i = 0; i < BLOCKS; i++)
        be->permute_x4(st4, ROUNDS);
}

static void run_absorb(void)
{
    be->absorb(st[0], ROUNDS, RATE, msg(0), BLOCKS);
}

static void run_multi(unsigned active)
{
    uint64_t *const s[KECCAK_PAR] = {st[0], st[1], st[2], st[3]};
    const unsigned rate[KECCAK_PAR] = {RATE, RATE, RATE, RATE};
    const uint8_t *in[KECCAK_PAR] = {NULL, NULL, NULL, NULL};

    for (unsigned j = 0; j < active; j++)
        in[j] = msg(j);
    be->absorb_multi(s, ROUNDS, rate, in, BLOCKS);
}

static void run_multi4(void) { run_multi(4); }
static void run_multi3(void) { run_multi(3); }
static void run_multi2(void) { run_multi(2); }
static void run_multi1(void) { run_multi(1); }

static void run_sponges(int together)
{
    sponge sp[KECCAK_PAR];
    sponge *const p[KECCAK_PAR] = {&sp[0], &sp[1], &sp[2], &sp[3]};
    const uint8_t *const in[KECCAK_PAR] = {msg(0), msg(1), msg(2), msg(3)};
    const size_t len[KECCAK_PAR] = {MSG, MSG, MSG, MSG};

    for (unsigned j = 0; j < KECCAK_PAR; j++)
        sponge_init(&sp[j], be, RATE, ROUNDS, 0x06);
    if (together) {
        sponge_absorb_multi(p, in, len, KECCAK_PAR);
        return;
    }
    for (unsigned j = 0; j < KECCAK_PAR; j++)
        sponge_absorb(&sp[j], in[j], len[j]);
}

static void run_sponges_multi(void) { run_sponges(1); }
static void run_sponges_single(void) { run_sponges(0); }

typedef struct row {
    const char *name;
    void (*run)(void);
    double calls;      /* permutation calls or 4-way steps per sample */
    double blocks;     /* message blocks per sample */
    uint64_t best;
} row;

#define SPONGE_BLOCKS ((double)KECCAK_PAR * (MSG / RATE))

int main(void)
{
    row rows[] = {
        {"permute (one state)", run_permute, BLOCKS, BLOCKS, UINT64_MAX},
        {"permute_x4 (four states)", run_permute_x4, BLOCKS, 4 * BLOCKS, UINT64_MAX},
        {"absorb (one state)", run_absorb, BLOCKS, BLOCKS, UINT64_MAX},
        {"absorb_multi, 4 lanes", run_multi4, BLOCKS, 4 * BLOCKS, UINT64_MAX},
        {"absorb_multi, 3 lanes", run_multi3, BLOCKS, 3 * BLOCKS, UINT64_MAX},
        {"absorb_multi, 2 lanes", run_multi2, BLOCKS, 2 * BLOCKS, UINT64_MAX},
        {"absorb_multi, 1 lane", run_multi1, BLOCKS, BLOCKS, UINT64_MAX},
        {"sponge_absorb x4, 64 KiB each", run_sponges_single, SPONGE_BLOCKS,
         SPONGE_BLOCKS, UINT64_MAX},
        {"sponge_absorb_multi, 4 x 64 KiB", run_sponges_multi, SPONGE_BLOCKS / 4,
         SPONGE_BLOCKS, UINT64_MAX},
    };
    const size_t nrows = sizeof rows / sizeof rows[0];

    be = keccak_backend_active();
    input = malloc((size_t)KECCAK_PAR * MSG);
    if (input == NULL)
        return 1;
    memset(input, 0xA5, (size_t)KECCAK_PAR * MSG);
    for (int s = 0; s < SAMPLES; s++) {
        for (size_t r = 0; r < nrows; r++) {
            if (rows[r].run == run_sponges_single && s % 64 != 0)
                continue; /* 1000 times longer than a short sample */
            if (rows[r].run == run_sponges_multi && s % 64 != 0)
                continue;
            uint64_t t0 = ticks();
            rows[r].run();
            uint64_t t = ticks() - t0;
            if (t < rows[r].best)
                rows[r].best = t;
        }
    }
    printf("Backend %s, rate %d, %d rounds, best of many samples (%s).\n\n",
           be->name, RATE, ROUNDS, UNIT);
    printf("| operation | %s per call or 4-way step | %s per message block |\n"
           "|---|---|---|\n", UNIT, UNIT);
    for (size_t r = 0; r < nrows; r++)
        printf("| %s | %.0f | %.0f |\n", rows[r].name, rows[r].best / rows[r].calls,
               rows[r].best / rows[r].blocks);
    free(input);
    return 0;
}
