/* SPDX-License-Identifier: Apache-2.0 */
#include "base/encoding.h"

#include <string.h>

static const char hex_digits[] = "0123456789abcdef";
static const char base64_digits[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t hex_encode(const uint8_t *in, size_t len, char *out)
{
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = hex_digits[in[i] >> 4];
        out[2 * i + 1] = hex_digits[in[i] & 15];
    }
    return 2 * len;
}

size_t base64_encode(const uint8_t *in, size_t len, char *out)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        size_t take = len - i < 3 ? len - i : 3;
        if (take > 1)
            v |= (uint32_t)in[i + 1] << 8;
        if (take > 2)
            v |= in[i + 2];
        out[n++] = base64_digits[v >> 18];
        out[n++] = base64_digits[(v >> 12) & 63];
        out[n++] = take > 1 ? base64_digits[(v >> 6) & 63] : '=';
        out[n++] = take > 2 ? base64_digits[v & 63] : '=';
    }
    return n;
}

int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int is_hex(const char *text, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (hex_value(text[i]) < 0)
            return 0;
    return 1;
}

int hex_decode(const char *text, size_t n, uint8_t *out, size_t *len)
{
    if (n % 2 != 0 || !is_hex(text, n))
        return 0;
    /* out[i] is written after text[2i] and text[2i+1] were read */
    for (size_t i = 0; i < n / 2; i++)
        out[i] = (uint8_t)(hex_value(text[2 * i]) << 4 | hex_value(text[2 * i + 1]));
    *len = n / 2;
    return 1;
}

/* A table, not comparisons: on random digests (ksum --combine reads
 * megabytes of them) the branches were mispredicted at every character.
 * The table holds each digit's value plus one, so that what it leaves out,
 * 0, is not a digit; -1 then. */
#define RUN2(c, v) [c] = (v), [(c) + 1] = (v) + 1
#define RUN8(c, v) RUN2(c, v), RUN2((c) + 2, (v) + 2), RUN2((c) + 4, (v) + 4), \
                   RUN2((c) + 6, (v) + 6)
#define RUN26(c, v) RUN8(c, v), RUN8((c) + 8, (v) + 8), RUN8((c) + 16, (v) + 16), \
                    RUN2((c) + 24, (v) + 24)
static int base64_value(char c)
{
    static const int8_t values[256] = {RUN26('A', 1), RUN26('a', 27), RUN8('0', 53),
                                       RUN2('8', 61), ['+'] = 63, ['/'] = 64};

    return values[(unsigned char)c] - 1;
}

/* Whole quanta (no padding), full characters, into full / 4 * 3 bytes,
 * one table lookup a character and no branch on it.  Each quantum is read
 * before its bytes overwrite it (out may be text). */
int base64_decode_quanta(const char *text, size_t full, uint8_t *out)
{
    int bad = 0;

    for (size_t i = 0, o = 0; i < full; i += 4, o += 3) {
        int a = base64_value(text[i]), b = base64_value(text[i + 1]);
        int c = base64_value(text[i + 2]), d = base64_value(text[i + 3]);
        uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
        bad |= a | b | c | d;
        out[o] = (uint8_t)(v >> 16);
        out[o + 1] = (uint8_t)(v >> 8);
        out[o + 2] = (uint8_t)v;
    }
    return bad >= 0;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* 32 base64 digits into 24 bytes with AVX2 (ksum --combine decodes
 * megabytes of CVs).  Whether a character is a digit: its high nibble
 * names a class (0-1 and 8-F: none are; 2: '+' and '/'; 3: '0'-'9';
 * 4 and 6: all but 0; 5 and 7: up to A), and a table of the low nibble
 * holds the classes in which that low nibble is not a digit.  Its value:
 * the character plus an offset chosen by the high nibble ('/' moved to a
 * slot of its own).  Then pairs of 6-bit values are joined into 12 bits,
 * pairs of those into 24, and the three bytes of each put in order.  The
 * tables are whole vectors, so that the compiler loads each once rather
 * than building it.  0 when a character is not a digit. */
__attribute__((target("avx2"), always_inline)) static inline int decode32(__m256i in,
                                                                       uint8_t *out)
{
#define TWICE(...) __VA_ARGS__, __VA_ARGS__
    const __m256i class_of_high = _mm256_setr_epi8(
        TWICE(1, 1, 2, 4, 8, 16, 8, 16, 1, 1, 1, 1, 1, 1, 1, 1));
    const __m256i bad_in_class = _mm256_setr_epi8(
        TWICE(0x0B, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x07, 0x15, 0x17, 0x17,
              0x17, 0x15));
    const __m256i offsets = _mm256_setr_epi8(
        TWICE(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0));
    const __m256i order = _mm256_setr_epi8(
        TWICE(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1));
    const __m256i nibble = _mm256_set1_epi8(15);
    const __m256i slashes = _mm256_set1_epi8('/');
    const __m256i join6 = _mm256_setr_epi8(TWICE(TWICE(TWICE(TWICE(0x40, 1)))));
    const __m256i join12 = _mm256_setr_epi16(TWICE(TWICE(TWICE(0x1000, 1))));
#undef TWICE
    __m256i high = _mm256_and_si256(_mm256_srli_epi32(in, 4), nibble);
    __m256i bad = _mm256_and_si256(_mm256_shuffle_epi8(bad_in_class, _mm256_and_si256(in, nibble)),
                                   _mm256_shuffle_epi8(class_of_high, high));
    __m256i slash = _mm256_cmpeq_epi8(in, slashes);
    __m256i v = _mm256_add_epi8(in, _mm256_shuffle_epi8(offsets, _mm256_add_epi8(high, slash)));
    __m256i bytes = _mm256_shuffle_epi8(
        _mm256_madd_epi16(_mm256_maddubs_epi16(v, join6), join12), order);

    bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7));
    _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(bytes));
    _mm_storel_epi64((__m128i *)(out + 16), _mm256_extracti128_si256(bytes, 1));
    return _mm256_testz_si256(bad, bad);
}

/* As base64_decode_quanta, 32 characters at a time; the last 32 (which
 * may overlap the block before) are read first, before any byte is
 * written over them. */
__attribute__((target("avx2"))) static int decode_quanta_avx2(const char *text, size_t full,
                                                             uint8_t *out)
{
    __m256i last = _mm256_loadu_si256((const __m256i *)(text + full - 32));
    size_t i;
    int ok = 1;

    for (i = 0; i + 32 <= full; i += 32)
        ok &= decode32(_mm256_loadu_si256((const __m256i *)(text + i)), out + i / 4 * 3);
    if (i < full)
        ok &= decode32(last, out + (full - 32) / 4 * 3);
    return ok;
}

#define HAVE_AVX2_PATH
#endif

static int decode_quanta(const char *text, size_t full, uint8_t *out)
{
#ifdef HAVE_AVX2_PATH
    if (full >= 32 && __builtin_cpu_supports("avx2"))
        return decode_quanta_avx2(text, full, out);
#endif
    return base64_decode_quanta(text, full, out);
}

/* The last quantum, with its padding: 3 - pad bytes at out.  Padding
 * decodes as 'A', zero bits, which must also be all the bits after the
 * last byte, as base64_encode leaves them. */
static int base64_last(const char *text, size_t pad, uint8_t *out)
{
    const char quantum[4] = {text[0], text[1], pad == 2 ? 'A' : text[2], 'A'};
    uint8_t bytes[3];

    if (!base64_decode_quanta(quantum, 4, bytes) || bytes[2] != 0 || (pad == 2 && bytes[1] != 0))
        return 0;
    memcpy(out, bytes, 3 - pad);
    return 1;
}

int base64_decode(const char *text, size_t n, uint8_t *out, size_t *len)
{
    size_t pad = n >= 1 && text[n - 1] == '=' ? (n >= 2 && text[n - 2] == '=' ? 2 : 1) : 0;
    size_t full;

    if (n == 0 || n % 4 != 0)
        return 0;
    full = pad ? n - 4 : n;
    if (!decode_quanta(text, full, out) || (pad && !base64_last(text + full, pad, out + full / 4 * 3)))
        return 0;
    *len = full / 4 * 3 + (pad ? 3 - pad : 0);
    return 1;
}

int colon_hex_join(char *text, size_t *n)
{
    size_t out = 0;

    if (*n < 2 || (*n + 1) % 3 != 0)
        return 0;
    for (size_t i = 0; i < *n; i += 3) {
        if (hex_value(text[i]) < 0 || hex_value(text[i + 1]) < 0 ||
            (i + 2 < *n && text[i + 2] != ':'))
            return 0;
        text[out++] = text[i];
        text[out++] = text[i + 1];
    }
    *n = out;
    return 1;
}
