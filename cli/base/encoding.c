/* SPDX-License-Identifier: Apache-2.0 */
#include "base/encoding.h"

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
 * -1: not a base64 digit. */
static int base64_value(char c)
{
    static const int8_t values[256] = {
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 62, -1, -1, -1, 63,
        52, 53, 54, 55, 56, 57, 58, 59, 60, 61, -1, -1, -1, -1, -1, -1,
        -1,  0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14,
        15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, -1, -1, -1, -1,
        -1, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
        41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, -1, -1, -1, -1, -1,
        /* 0x80..0xFF */
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    };
    return values[(unsigned char)c];
}

/* The last quantum, with its padding: 1, 2 or 3 bytes at out. */
static int base64_last(const char *text, size_t pad, uint8_t *out, size_t *got)
{
    size_t digits = 4 - pad;
    uint32_t v = 0;

    for (size_t j = 0; j < 4; j++) {
        int d = j < digits ? base64_value(text[j]) : 0;
        if (d < 0)
            return 0;
        v = v << 6 | (uint32_t)d;
    }
    /* the bits after the last byte are zero in what base64_encode wrote */
    if ((digits == 2 && (v & 0xFFFF) != 0) || (digits == 3 && (v & 0xFF) != 0))
        return 0;
    for (size_t j = 0; j + 1 < digits; j++)
        out[(*got)++] = (uint8_t)(v >> (16 - 8 * j));
    return 1;
}

int base64_decode(const char *text, size_t n, uint8_t *out, size_t *len)
{
    size_t pad = n >= 1 && text[n - 1] == '=' ? (n >= 2 && text[n - 2] == '=' ? 2 : 1) : 0;
    size_t got = 0, full;

    if (n == 0 || n % 4 != 0)
        return 0;
    full = pad ? n - 4 : n;
    /* whole quanta without a branch a character (combine decodes megabytes);
     * each is read whole before its bytes overwrite it in place */
    for (size_t i = 0; i < full; i += 4) {
        int a = base64_value(text[i]), b = base64_value(text[i + 1]);
        int c = base64_value(text[i + 2]), d = base64_value(text[i + 3]);
        uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
        if ((a | b | c | d) < 0)
            return 0;
        out[got] = (uint8_t)(v >> 16);
        out[got + 1] = (uint8_t)(v >> 8);
        out[got + 2] = (uint8_t)v;
        got += 3;
    }
    if (pad && !base64_last(text + full, pad, out, &got))
        return 0;
    *len = got;
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
