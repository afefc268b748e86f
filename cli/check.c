/* SPDX-License-Identifier: Apache-2.0 */
#include "check.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"
#include "hasher.h"
#include "output.h"

/* Undoes print_name's escaping in place; 0 on an unknown escape. */
static int unescape(char *s)
{
    char *out = s;

    for (; *s; s++) {
        if (*s != '\\') {
            *out++ = *s;
            continue;
        }
        s++;
        if (*s == '\\')
            *out++ = '\\';
        else if (*s == 'n')
            *out++ = '\n';
        else if (*s == 'r')
            *out++ = '\r';
        else if (*s == 'x' && isxdigit((unsigned char)s[1]) &&
                 isxdigit((unsigned char)s[2]) && (s[1] != '0' || s[2] != '0')) {
            char hex[3] = {s[1], s[2], '\0'};
            *out++ = (char)strtoul(hex, NULL, 16);
            s += 2;
        } else
            return 0;
    }
    *out = '\0';
    return 1;
}

static size_t hex_run(const char *s, size_t len)
{
    size_t n = 0;
    while (n < len && isxdigit((unsigned char)s[n]))
        n++;
    return n;
}

/* "ALGO (NAME) = HEX" or OpenSSL's "ALGO(NAME)= HEX". */
static int parse_tagged(char *line, size_t len, check_line *out)
{
    size_t alg_end = 0, hex_start = len, close;
    char alg_name[64];

    while (alg_end < len && alg_end < sizeof alg_name - 1 &&
           (isalnum((unsigned char)line[alg_end]) || line[alg_end] == '-' ||
            line[alg_end] == '_'))
        alg_end++;
    size_t open = alg_end < len && line[alg_end] == ' ' ? alg_end + 1 : alg_end;
    if (alg_end == 0 || open >= len || line[open] != '(')
        return 0;
    while (hex_start > 0 && isxdigit((unsigned char)line[hex_start - 1]))
        hex_start--;
    if (hex_start == len || hex_start < open + 4 || line[hex_start - 1] != ' ' ||
        line[hex_start - 2] != '=')
        return 0;
    close = line[hex_start - 3] == ' ' ? hex_start - 4 : hex_start - 3;
    if (close <= open || line[close] != ')')
        return 0;
    memcpy(alg_name, line, alg_end);
    alg_name[alg_end] = '\0';
    out->alg = algorithm_find(alg_name);
    out->hex = line + hex_start;
    out->hex_len = len - hex_start;
    line[close] = '\0';
    out->name = line + open + 1;
    return out->alg != NULL;
}

/* "HEX  NAME", "HEX *NAME", or "HEX NAME" (BSD's reversed form). */
static int parse_untagged(char *line, size_t len, check_line *out)
{
    size_t n = hex_run(line, len), at = n + 1;

    if (n == 0 || at >= len || line[n] != ' ')
        return 0;
    if (line[at] == ' ' || line[at] == '*')
        at++;
    if (at >= len)
        return 0;
    out->alg = NULL;
    out->hex = line;
    out->hex_len = n;
    out->name = line + at;
    return 1;
}

int check_parse_line(char *line, size_t len, check_line *out)
{
    int escaped = len > 0 && line[0] == '\\';

    if (memchr(line, '\0', len) != NULL)
        return 0;
    if (escaped)
        line++, len--;
    if (!parse_tagged(line, len, out) && !parse_untagged(line, len, out))
        return 0;
    return !escaped || unescape(out->name);
}

/* ---- verification ---- */

typedef struct counts {
    unsigned long formatted, misformatted, unreadable, mismatched, matched;
} counts;

typedef struct checker {
    const options *o;
    OSSL_LIB_CTX *lib;
    hasher hashers[32];     /* by algorithm, opened on first use */
    int opened[32];
    input in;
} checker;

static hasher *hasher_for(checker *c, const algorithm *alg)
{
    size_t i = (size_t)(alg - algorithms);

    if (!c->opened[i]) {
        if (!hasher_open(&c->hashers[i], c->lib, alg, c->o))
            return NULL;
        c->opened[i] = 1;
    }
    return &c->hashers[i];
}

static void print_result(const char *name, const char *what)
{
    int escape = name_needs_escape(name);

    if (escape)
        putchar('\\');
    print_name(stdout, name, escape);
    printf(": %s\n", what);
}

static int nibble(char c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; /* checked as hex already */
}

static int hex_equal(const char *hex, const uint8_t *sum, size_t len)
{
    uint8_t *want = OPENSSL_malloc(len + 1);
    int equal;

    if (want == NULL)
        return 0;
    for (size_t i = 0; i < len; i++)
        want[i] = (uint8_t)(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
    /* Constant time: the check file may hold a MAC. */
    equal = CRYPTO_memcmp(want, sum, len) == 0;
    OPENSSL_free(want);
    return equal;
}

/* Long outputs: squeezed and compared piece by piece. */
static int hex_equal_streamed(const char *hex, hasher *h, int *equal)
{
    uint8_t chunk[16384];

    *equal = 1;
    for (size_t done = 0; done < h->size;) {
        size_t take = h->size - done < sizeof chunk ? h->size - done : sizeof chunk;
        if (!hasher_squeeze(h, chunk, take))
            return 0;
        *equal &= hex_equal(hex + 2 * done, chunk, take);
        done += take;
    }
    return 1;
}

static void verify(checker *c, const check_line *l, hasher *h, counts *n)
{
    const options *o = c->o;
    int stream = hasher_streams(h), equal = 0;
    uint8_t *sum = OPENSSL_malloc(stream ? 1 : h->size);
    int err = sum ? hash_path(h, l->name, &c->in, stream ? NULL : sum) : ENOMEM;

    if (err == 0 && stream && !hex_equal_streamed(l->hex, h, &equal))
        err = KSUM_EHASH;
    else if (err == 0 && !stream)
        equal = hex_equal(l->hex, sum, h->size);

    if (err != 0) {
        if (err == ENOENT && o->ignore_missing) {
            OPENSSL_free(sum);
            return;
        }
        n->unreadable++;
        if (!o->status) {
            report_error(l->name, err, NULL);
            print_result(l->name, "FAILED open or read");
        }
    } else if (equal) {
        n->matched++;
        if (!o->status && !o->quiet)
            print_result(l->name, "OK");
    } else {
        n->mismatched++;
        if (!o->status)
            print_result(l->name, "FAILED");
    }
    OPENSSL_free(sum);
}

static void check_line_text(checker *c, const char *file, unsigned long lineno,
                            char *line, size_t len, counts *n)
{
    check_line l;
    hasher *h;

    if (len > 0 && line[len - 1] == '\n')
        line[--len] = '\0';
    if (len > 0 && line[len - 1] == '\r')
        line[--len] = '\0';
    if (len == 0 || line[0] == '#')
        return;
    if (check_parse_line(line, len, &l) &&
        (h = hasher_for(c, l.alg ? l.alg : c->o->alg)) != NULL &&
        l.hex_len == 2 * h->size) {
        n->formatted++;
        verify(c, &l, h, n);
        return;
    }
    n->misformatted++;
    if (c->o->warn && !c->o->status)
        fprintf(stderr, "ksum: %s: %lu: improperly formatted checksum line\n",
                file, lineno);
}

static void warn_count(const char *file, unsigned long n, const char *one,
                       const char *many)
{
    if (n > 0)
        fprintf(stderr, "ksum: WARNING: %s: %lu %s\n", file, n, n == 1 ? one : many);
}

static int summarize(const options *o, const char *file, const counts *n)
{
    if (n->formatted == 0) {
        fprintf(stderr, "ksum: %s: no properly formatted checksum lines found\n",
                file);
        return 0;
    }
    if (!o->status) {
        warn_count(file, n->misformatted, "line is improperly formatted",
                   "lines are improperly formatted");
        warn_count(file, n->unreadable, "listed file could not be read",
                   "listed files could not be read");
        warn_count(file, n->mismatched, "computed checksum did NOT match",
                   "computed checksums did NOT match");
        if (o->ignore_missing && n->matched + n->mismatched + n->unreadable == 0)
            fprintf(stderr, "ksum: %s: no file was verified\n", file);
    }
    return n->mismatched == 0 && n->unreadable == 0 &&
           !(o->strict && n->misformatted > 0) &&
           !(o->ignore_missing && n->matched + n->mismatched + n->unreadable == 0);
}

static int check_one_file(checker *c, const char *path)
{
    const char *file = strcmp(path, "-") == 0 ? "standard input" : path;
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned long lineno = 0;
    counts n = {0};

    if (f == NULL) {
        report_error(path, errno, NULL);
        return 0;
    }
    while ((len = getline(&line, &cap, f)) >= 0)
        check_line_text(c, file, ++lineno, line, (size_t)len, &n);
    if (ferror(f)) {
        report_error(path, errno, NULL);
        free(line);
        if (f != stdin)
            fclose(f);
        return 0;
    }
    free(line);
    if (f != stdin)
        fclose(f);
    return summarize(c->o, file, &n);
}

int check_files(const options *o, OSSL_LIB_CTX *lib)
{
    checker c;
    int ok = 1;

    memset(&c, 0, sizeof c);
    c.o = o;
    c.lib = lib;
    if (!input_init(&c.in, 0)) {
        input_free(&c.in);
        fprintf(stderr, "ksum: out of memory\n");
        return 0;
    }
    /* A check file may come from anywhere: a device or FIFO it names
     * could make ksum read forever. */
    c.in.regular_only = 1;
    for (char **f = o->files; *f != NULL; f++)
        ok &= check_one_file(&c, *f);
    for (size_t i = 0; i < algorithm_count; i++)
        if (c.opened[i])
            hasher_close(&c.hashers[i]);
    input_free(&c.in);
    return ok;
}
