/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <openssl/err.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "encoding.h"
#include "files.h"

/* Control characters could move the cursor or recolour the terminal when
 * a hostile file name is printed, so they are escaped too. */
static int is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7F;
}

int name_needs_escape(const char *name)
{
    for (; *name; name++)
        if (*name == '\\' || is_control((unsigned char)*name))
            return 1;
    return 0;
}

void print_name(FILE *f, const char *name, int escape)
{
    if (!escape) {
        fputs(name, f);
        return;
    }
    for (; *name; name++) {
        switch (*name) {
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (is_control((unsigned char)*name))
                fprintf(f, "\\x%02x", (unsigned char)*name);
            else
                putc(*name, f);
        }
    }
}

FILE *message_stream(void)
{
    if (!ferror(stdout))
        fflush(stdout);  /* a failure here is reported by output_ok */
    return stderr;
}

/* Appends to buf[*n..size) what fits. */
static void append(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (*n + 1 >= size)
        return;
    va_start(ap, fmt);
    k = vsnprintf(buf + *n, size - *n, fmt, ap);
    va_end(ap);
    if (k > 0)
        *n = *n + (size_t)k < size ? *n + (size_t)k : size - 1;
}

void openssl_reason(char *buf, size_t size)
{
    const char *data;
    int flags;
    unsigned long e;
    size_t n = 0;

    buf[0] = '\0';
    while ((e = ERR_get_error_all(NULL, NULL, NULL, &data, &flags)) != 0) {
        const char *reason = ERR_reason_error_string(e);
        append(buf, size, &n, "%s", n > 0 ? "; " : "");
        if (reason != NULL)
            append(buf, size, &n, "%s", reason);
        else
            append(buf, size, &n, "error %lx", e);
        if ((flags & ERR_TXT_STRING) && data != NULL && *data != '\0')
            append(buf, size, &n, " (%s)", data);
    }
    if (n == 0)
        append(buf, size, &n, "no reason given");
}

int output_ok(void)
{
    /* Standard output is the program's one output; whether its failure was
     * reported belongs with it. */
    static int reported;
    int err = errno;

    if (!ferror(stdout))
        return 1;
    if (!reported) {
        reported = 1;
        __fpurge(stdout);
        fprintf(stderr, "ksum: write error: %s\n", strerror(err));
    }
    return 0;
}

int output_close(void)
{
    int ok;

    if (output_ok() && fflush(stdout) != 0)
        (void)output_ok();  /* reports the failed flush */
    ok = output_ok();
    if (fclose(stdout) != 0 && ok) {
        fprintf(stderr, "ksum: write error: %s\n", strerror(errno));
        ok = 0;
    }
    return ok;
}

/* len bytes on standard output as the options ask: hex, base64 or raw.
 * Returns 0 as soon as a write has failed.  Pieces of a streamed sum join
 * up: each but the last is a multiple of 3 bytes long. */
static int print_digest(const options *o, const uint8_t *buf, size_t len)
{
    enum { PIECE = 1536 };      /* a multiple of 3 */
    char text[2 * PIECE];

    for (size_t done = 0; done < len; done += PIECE) {
        size_t take = len - done < PIECE ? len - done : PIECE, n;
        if (o->raw) {
            n = fwrite(buf + done, 1, take, stdout);
            if (n != take || ferror(stdout))
                return 0;
            continue;
        }
        n = o->base64 ? base64_encode(buf + done, take, text)
                      : hex_encode(buf + done, take, text);
        /* A full disk or a closed pipe stops a long output here, not after
         * squeezing the rest. */
        if (fwrite(text, 1, n, stdout) != n || ferror(stdout))
            return 0;
    }
    return 1;
}

/* A squeezed sum goes out in pieces of this many bytes (a multiple of 3,
 * for base64), in a buffer on the heap: a thread's stack may not be able
 * to grow under an address-space limit. */
#define SQUEEZE_PIECE 16383

static int print_sum(const options *o, const sum_source *sum, uint8_t *chunk)
{
    if (sum->h == NULL)
        return print_digest(o, sum->buf, sum->len) ? 0 : KSUM_EWRITE;
    for (size_t done = 0; done < sum->len;) {
        size_t take = sum->len - done < SQUEEZE_PIECE ? sum->len - done : SQUEEZE_PIECE;
        if (!hasher_squeeze(sum->h, chunk, take))
            return KSUM_EHASH;
        if (!print_digest(o, chunk, take))
            return KSUM_EWRITE;
        done += take;
    }
    return 0;
}

int names_need_escape(char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (name_needs_escape(names[i]))
            return 1;
    return 0;
}

void print_names(FILE *f, char *const *names, size_t n, int escape)
{
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            putc('\t', f);
        print_name(f, names[i], escape);
    }
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
static int print_line(const options *o, const hasher *h, char *const *names, size_t n,
                      const sum_source *sum, uint8_t *chunk)
{
    int named = !o->raw && !o->no_names;
    int escape = named && !o->zero && names_need_escape(names, n), err;

    if (o->raw)
        return print_sum(o, sum, chunk);
    if (escape)
        putchar('\\');
    if (o->tag) {
        print_tag(h, sum->len);
        fputs(" (", stdout);
        print_names(stdout, names, n, escape);
        fputs(") = ", stdout);
        err = print_sum(o, sum, chunk);
    } else {
        err = print_sum(o, sum, chunk);
        if (err != KSUM_EWRITE && named) {
            fputs(o->binary ? " *" : "  ", stdout);
            print_names(stdout, names, n, escape);
        }
    }
    if (err != KSUM_EWRITE)
        putchar(o->zero ? '\0' : '\n');
    return err;
}

int print_sum_line(const options *o, const hasher *h, char *const *names,
                   size_t n, const sum_source *sum)
{
    uint8_t *chunk = sum->h != NULL ? malloc(SQUEEZE_PIECE) : NULL;
    int err;

    if (sum->h != NULL && chunk == NULL)
        return ENOMEM;  /* nothing printed yet */
    err = print_line(o, h, names, n, sum, chunk);
    free(chunk);
    return output_ok() ? err : KSUM_EWRITE;
}
