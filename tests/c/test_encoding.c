/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CLI's base64 decoder (cli/base/encoding.c), whose AVX2 path
 * (32 characters at a time, the last block overlapping the one before)
 * is held against the portable table decoder and against the encoder:
 *
 * - every length of 0..400 bytes, random, decodes to itself, into another
 *   buffer and in place, with no byte written past the result;
 * - random texts of every length of whole quanta 4..400, mixing the
 *   alphabet with every other byte value (high bytes, '=', NUL), are
 *   accepted or refused as the portable decoder does, with its bytes;
 * - one bad character at every position of a good text is refused;
 * - every byte value at every position of one and two blocks is judged
 *   and decoded as the table decoder does.
 *
 * On a CPU without AVX2 both sides are the portable decoder, and the test
 * says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/encoding.h"

/* testutil.h's CHECK, written again: its hex_decode clashes with
 * encoding.h's, whose decoders this test is about. */
static int failures, passes;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (cond) {                                                            \
            passes++;                                                          \
        } else {                                                               \
            failures++;                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);               \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
        }                                                                      \
    } while (0)

#define MAX 400
static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void round_trips(void)
{
    uint8_t in[MAX] = {0}, out[MAX + 64];
    char text[BASE64_LENGTH(MAX) + 1];

    for (size_t len = 0; len <= MAX; len++) {
        size_t n, got = 0;
        for (size_t i = 0; i < len; i++)
            in[i] = (uint8_t)rand();
        n = base64_encode(in, len, text);
        memset(out, 0xA5, sizeof out);
        CHECK(len == 0 ? !base64_decode(text, n, out, &got)
                       : base64_decode(text, n, out, &got) && got == len &&
                             memcmp(out, in, len) == 0,
              "%zu bytes: decoded to %zu", len, got);
        for (size_t i = len; len > 0 && i < sizeof out; i++)
            if (out[i] != 0xA5) {
                CHECK(0, "%zu bytes: byte %zu written past the end", len, i);
                break;
            }
        if (len > 0) {
            CHECK(base64_decode(text, n, (uint8_t *)text, &got) && got == len &&
                      memcmp(text, in, len) == 0,
                  "%zu bytes, in place", len);
        }
    }
}

/* A random text of n characters: mostly the alphabet, sometimes any byte. */
static void random_text(char *t, size_t n, int noise)
{
    for (size_t i = 0; i < n; i++)
        t[i] = noise && rand() % 50 == 0 ? (char)(rand() % 256) : alphabet[rand() % 64];
}

static void against_portable(void)
{
    char t[MAX];
    uint8_t a[MAX], b[MAX];

    for (int trial = 0; trial < 20000; trial++) {
        size_t full = 4 * (1 + (size_t)rand() % (MAX / 4));
        size_t got;
        int want;
        random_text(t, full, 1);
        want = base64_decode_quanta(t, full, a);
        CHECK(base64_decode(t, full, b, &got) == want &&
                  (!want || (got == full / 4 * 3 && memcmp(a, b, got) == 0)),
              "%zu characters: %s as the portable decoder does", full,
              want ? "not decoded" : "not refused");
    }
}

static void every_bad_position(void)
{
    static const char bad[] = {'=', '\0', '-', '_', ' ', '\n', '@', '[', '`', '{',
                               ':', '*', ',', '.', (char)0x80, (char)0xC3, (char)0xFF};
    char t[MAX];
    uint8_t out[MAX];
    size_t got;

    for (size_t full = 4; full <= 200; full += 4) {
        random_text(t, full, 0);
        CHECK(base64_decode(t, full, out, &got), "%zu good characters refused", full);
        for (size_t i = 0; i < full; i++) {
            char keep = t[i];
            t[i] = bad[(i + full) % sizeof bad];
            /* '=' in the last two places is padding, which may be good */
            if (!(t[i] == '=' && i + 2 >= full))
                CHECK(!base64_decode(t, full, out, &got), "%zu characters: byte %#x at %zu taken",
                      full, (unsigned char)t[i], i);
            t[i] = keep;
        }
    }
}

/* Every byte value, at every position of a 32- and a 64-character text
 * (one and two blocks, and the last one overlapping), as the table
 * decoder judges it. */
static void every_byte_value(void)
{
    char t[64];
    uint8_t a[48], b[48];

    for (size_t full = 32; full <= 64; full += 32)
        for (int c = 0; c < 256; c++)
            for (size_t at = 0; at < full; at++) {
                size_t got;
                int want;
                if (c == '=' && at + 2 >= full)
                    continue;   /* padding, which base64_decode may take */
                random_text(t, full, 0);
                t[at] = (char)c;
                want = base64_decode_quanta(t, full, a);
                CHECK(base64_decode(t, full, b, &got) == want &&
                          (!want || memcmp(a, b, full / 4 * 3) == 0),
                      "byte %#x at %zu of %zu", c, at, full);
            }
}

int main(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (!__builtin_cpu_supports("avx2"))
        printf("SKIPPED: no AVX2 here: the portable decoder against itself\n");
#endif
    srand(20261202);
    round_trips();
    against_portable();
    every_bad_position();
    every_byte_value();
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
