/* SPDX-License-Identifier: Apache-2.0 */
/* Digests as text: hexadecimal, and base64 (RFC 4648's standard alphabet
 * with padding, as cksum --base64 writes it). */
#ifndef KSUM_CLI_ENCODING_H
#define KSUM_CLI_ENCODING_H

#include <stddef.h>
#include <stdint.h>

/* The characters of the base64 text of len bytes. */
#define BASE64_LENGTH(len) (((len) + 2) / 3 * 4)

/* Writes the text of len bytes at out (room for 2 * len, or
 * BASE64_LENGTH(len), characters; no NUL); returns the characters written.
 * Base64 of several pieces joins up only when every piece but the last is a
 * multiple of 3 bytes long. */
size_t hex_encode(const uint8_t *in, size_t len, char *out);
size_t base64_encode(const uint8_t *in, size_t len, char *out);

/* The bytes of n characters of text into out, which may be the text itself
 * (they are decoded in place).  Returns 1 and *len, or 0 when the text is
 * not what hex_encode (either case) or base64_encode write: an odd number
 * of hex digits; base64 whose length is not a multiple of 4, with a
 * character outside the alphabet, padding anywhere but at the end, or bits
 * set after the last byte. */
int hex_decode(const char *text, size_t n, uint8_t *out, size_t *len);
int base64_decode(const char *text, size_t n, uint8_t *out, size_t *len);
/* The table-driven part of base64_decode: full characters of whole quanta (no
 * padding) into full / 4 * 3 bytes; 0 on a character outside the
 * alphabet.  base64_decode takes it on CPUs without AVX2; the tests hold
 * the two against each other. */
int base64_decode_quanta(const char *text, size_t full, uint8_t *out);

/* Hex as `openssl dgst -c` writes it, pairs of digits joined by colons
 * ("3a:98:5d"), into plain hex in place; 1 and *n, the new length, or 0
 * when the text is not that. */
int colon_hex_join(char *text, size_t *n);

/* A hex digit's value (either case), or -1. */
int hex_value(char c);
/* Every one of the n characters is a hex digit. */
int is_hex(const char *text, size_t n);

#endif
