/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "report/output.h"

#include <errno.h>
#include <openssl/err.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "base/encoding.h"
#include "front/resolve.h"

/* len bytes on standard output as the options ask: hex, base64 or raw.
 * Returns 0 as soon as a write has failed.  Pieces of a streamed sum join
 * up: each but the last is a multiple of 3 bytes long. */
static int print_digest(const line_style *ls, const uint8_t *buf, size_t len)
{
    enum { PIECE = 1536 };      /* a multiple of 3 */
    char text[2 * PIECE];

    for (size_t done = 0; done < len; done += PIECE) {
        size_t n = len - done < PIECE ? len - done : PIECE;
        const void *out = buf + done;
        if (ls->form != LINE_RAW) {
            n = ls->base64 ? base64_encode(out, n, text) : hex_encode(out, n, text);
            out = text;
        }
        /* A full disk or a closed pipe stops a long output here, not after
         * squeezing the rest. */
        if (fwrite(out, 1, n, stdout) != n || ferror(stdout))
            return 0;
    }
    return 1;
}

/* A squeezed sum goes out in pieces of this many bytes (a multiple of 3,
 * for base64), in a buffer on the heap: a thread's stack may not be able
 * to grow under an address-space limit. */
#define SQUEEZE_PIECE 16383

static int print_sum(const line_style *ls, const sum_source *sum, uint8_t *chunk)
{
    if (sum->h == NULL)
        return print_digest(ls, sum->buf, sum->len) ? 0 : KSUM_EWRITE;
    for (size_t done = 0; done < sum->len;) {
        size_t take = sum->len - done < SQUEEZE_PIECE ? sum->len - done : SQUEEZE_PIECE;
        if (!hasher_squeeze(sum->h, chunk, take))
            return KSUM_EHASH;
        if (!print_digest(ls, chunk, take))
            return KSUM_EWRITE;
        done += take;
    }
    return 0;
}

/* The algorithm's tag (KMACXOF128 in XOF mode), and as cksum does,
 * "-BITS" for a length other than the default. */
static void print_tag(const hasher *h, size_t len)
{
    char tag[ALGORITHM_TAG_MAX];

    algorithm_tag(h->alg, hasher_is_xof(h), tag);
    fputs(tag, stdout);
    if (h->facts.fixed_size == 0 && len != h->facts.default_size)
        printf("-%llu", 8 * (unsigned long long)len);
}

/* The line of print_sum_line, with chunk for a squeezed sum. */
static int print_line(const line_style *ls, const hasher *h, char *const *names, size_t n,
                      const sum_source *sum, uint8_t *chunk)
{
    int named = ls->form == LINE_UNTAGGED || ls->form == LINE_TAGGED;
    int escape = named && ls->end != '\0' && names_need_escape(names, n), err;

    if (ls->form == LINE_RAW)
        return print_sum(ls, sum, chunk);
    if (escape)
        putchar('\\');
    if (ls->form == LINE_TAGGED) {
        print_tag(h, sum->len);
        fputs(" (", stdout);
        print_names(stdout, names, n, escape);
        fputs(") = ", stdout);
        err = print_sum(ls, sum, chunk);
    } else {
        err = print_sum(ls, sum, chunk);
        if (err != KSUM_EWRITE && named) {
            fputs(ls->binary ? " *" : "  ", stdout);
            print_names(stdout, names, n, escape);
        }
    }
    if (err != KSUM_EWRITE)
        putchar(ls->end);
    return err;
}

int print_sum_line(const line_style *ls, const hasher *h, char *const *names,
                   size_t n, const sum_source *sum)
{
    uint8_t *chunk = sum->h != NULL ? malloc(SQUEEZE_PIECE) : NULL;
    int err;

    if (sum->h != NULL && chunk == NULL)
        return ENOMEM;  /* nothing printed yet */
    err = print_line(ls, h, names, n, sum, chunk);
    free(chunk);
    return output_ok() ? err : KSUM_EWRITE;
}
