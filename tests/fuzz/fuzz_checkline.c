/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The check-file line parser on arbitrary bytes: every accepted format,
 * escapes, CRLF, garbage, NUL bytes, huge lines.  It must never read or
 * write outside the line, and what it accepts must be well formed.  The
 * digest decoders then run on what it found: a digest they accept is one
 * the encoders write back exactly (base64) or up to case (hex).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/encoding.h"
#include "check/check.h"

static int digest_char(char c)
{
    return isalnum((unsigned char)c) || c == '+' || c == '/' || c == '=' || c == ':';
}

static void check_decoders(const char *digest, size_t n)
{
    char *text = malloc(n + 1), *back = malloc(2 * n + 4);
    size_t len, joined = n;

    if (text == NULL || back == NULL)
        goto done;
    memcpy(text, digest, n);
    if (hex_decode(text, n, (uint8_t *)text, &len) &&
        (2 * len != n || hex_encode((uint8_t *)text, len, back) != n ||
         strncasecmp(back, digest, n) != 0))
        abort();
    memcpy(text, digest, n);
    if (base64_decode(text, n, (uint8_t *)text, &len) &&
        (base64_encode((uint8_t *)text, len, back) != n || memcmp(back, digest, n) != 0))
        abort();
    memcpy(text, digest, n);
    if (colon_hex_join(text, &joined) &&
        (3 * joined != 2 * (n + 1) || !is_hex(text, joined)))
        abort();
done:
    free(text);
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy, so that ASan sees any read past the line. */
    char *line = malloc(size + 1);
    check_line l;
    int form = CHECK_FORM_UNKNOWN;

    if (line == NULL)
        return 0;
    memcpy(line, data, size);
    line[size] = '\0';
    if (check_parse_line(line, size, &form, &l)) {
        if (l.digest < line || l.digest + l.digest_len > line + size || l.digest_len == 0)
            abort();
        for (size_t i = 0; i < l.digest_len; i++)
            if (!digest_char(l.digest[i]) || (l.tag == NULL && l.digest[i] == ':'))
                abort();
        if (l.name < line || l.name + strlen(l.name) > line + size)
            abort();
        if (l.tag != NULL && (l.tag < line || strlen(l.tag) > CHECK_TAG_MAX ||
                              l.tag + strlen(l.tag) > line + size))
            abort();
        check_decoders(l.digest, l.digest_len);
    }
    free(line);
    return 0;
}
