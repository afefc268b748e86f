/* SPDX-License-Identifier: Apache-2.0 */
#include "report/output.h"

#include <stdio.h>

#include "base/encoding.h"
#include "front/resolve.h"

/* A sum on standard output as the options ask: hex, base64 or raw, in
 * pieces (each but the last a multiple of 3 bytes long, so that base64's
 * pieces join up), squeezed from sum->h piece by piece when it is set.
 * Returns 0, KSUM_EHASH, or KSUM_EWRITE as soon as a write has failed. */
static int print_sum(const line_style *ls, const sum_source *sum)
{
    /* A multiple of 3, and small: every line is printed through this frame,
     * on a main stack that may be limited to a few KiB (ulimit -s). */
    enum { PIECE = 768 };
    uint8_t chunk[PIECE];
    char text[2 * PIECE];

    for (size_t done = 0; done < sum->len; done += PIECE) {
        size_t n = sum->len - done < PIECE ? sum->len - done : PIECE;
        const void *out = sum->h != NULL ? chunk : sum->buf + done;
        if (sum->h != NULL && !hasher_squeeze(sum->h, chunk, n))
            return KSUM_EHASH;
        if (ls->form != LINE_RAW) {
            n = ls->text == SUM_BASE64 ? base64_encode(out, n, text) : hex_encode(out, n, text);
            out = text;
        }
        /* A full disk or a closed pipe stops a long output here, not after
         * squeezing the rest. */
        if (fwrite(out, 1, n, stdout) != n || ferror(stdout))
            return KSUM_EWRITE;
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

int print_sum_line(const line_style *ls, const hasher *h, char *const *names,
                   size_t n, const sum_source *sum)
{
    int untagged = ls->form == LINE_UNTAGGED || ls->form == LINE_BINARY;
    int named = untagged || ls->form == LINE_TAGGED;
    int escape = named && ls->end != '\0' && names_need_escape(names, n), err;

    if (escape)
        putchar('\\');
    if (ls->form == LINE_TAGGED) {
        print_tag(h, sum->len);
        fputs(" (", stdout);
        print_names(stdout, names, n, escape);
        fputs(") = ", stdout);
    }
    err = print_sum(ls, sum);
    if (err != KSUM_EWRITE && untagged) {
        fputs(ls->form == LINE_BINARY ? " *" : "  ", stdout);
        print_names(stdout, names, n, escape);
    }
    if (err != KSUM_EWRITE && ls->form != LINE_RAW)
        putchar(ls->end);
    return output_ok() ? err : KSUM_EWRITE;
}
