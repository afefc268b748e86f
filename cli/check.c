/* SPDX-License-Identifier: Apache-2.0 */
#include "check.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "hasher.h"
#include "output.h"
#include "tuple.h"

/* Undoes print_name's escaping in place (when escaped) and turns the
 * literal tabs, which only separate TupleHash's names, into NULs (an
 * escaped tab stays a tab); sets *len to the result's length.  0 on an
 * unknown escape. */
static int unescape(char *s, size_t *len, int escaped)
{
    char *out = s, *start = s;

    for (; *s; s++) {
        if (*s == '\t' || !escaped || *s != '\\') {
            *out++ = *s == '\t' ? '\0' : *s;
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
    *len = (size_t)(out - start);
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

    while (alg_end < len && alg_end < CHECK_TAG_MAX &&
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
    out->tag = line;
    out->hex = line + hex_start;
    out->hex_len = len - hex_start;
    line[close] = '\0';
    line[alg_end] = '\0';  /* a space or the '(' */
    out->name = line + open + 1;
    return 1;
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
    out->tag = NULL;
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
    return unescape(out->name, &out->name_len, escaped);
}

/* ---- verification ---- */

/* What became of the lines of one check file.  Blank and comment lines
 * are counted nowhere; every other line in exactly one place. */
typedef struct counts {
    unsigned long matched, mismatched, unreadable; /* OK, FAILED, FAILED open or read */
    unsigned long ignored;                         /* missing, with --ignore-missing */
    unsigned long misformatted, lines_unread;
} counts;

typedef struct checker {
    const options *o;
    OSSL_LIB_CTX *lib;
    hasher *hashers;        /* by algorithm, opened on first use */
    int *opened;
    input in;
    int stdin_is_list;      /* a check file is standard input: '-' is refused */
    int stopped;            /* standard output failed: stop at once */
} checker;

static hasher *hasher_for(checker *c, const algorithm *alg)
{
    size_t i = (size_t)(alg - algorithms);   /* alg is in the table */

    if (!c->opened[i]) {
        if (!hasher_open(&c->hashers[i], c->lib, alg, c->o))
            return NULL;
        c->opened[i] = 1;
    }
    return &c->hashers[i];
}

/* The file, or TupleHash's files, a line names. */
typedef struct entry {
    char **names;
    size_t n;
    const char *hex;
} entry;

static void print_result(checker *c, const entry *e, const char *what)
{
    int escape = names_need_escape(e->names, e->n);

    if (escape)
        putchar('\\');
    print_names(stdout, e->names, e->n, escape);
    printf(": %s\n", what);
    c->stopped = !output_ok();
}

static int nibble(char c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; /* checked as hex already */
}

/* Constant time: the check file may hold a MAC. */
static int hex_equal(const char *hex, const uint8_t *sum, size_t len)
{
    uint8_t want[4096];
    int differ = 0;

    for (size_t done = 0; done < len;) {
        size_t take = len - done < sizeof want ? len - done : sizeof want;
        for (size_t i = 0; i < take; i++)
            want[i] = (uint8_t)(nibble(hex[2 * (done + i)]) << 4 |
                                nibble(hex[2 * (done + i) + 1]));
        differ |= CRYPTO_memcmp(want, sum + done, take);
        done += take;
    }
    return differ == 0;
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

/* Standard input would be the rest of a check file. */
static int reads_the_list(const checker *c, const entry *e)
{
    for (size_t i = 0; c->stdin_is_list && i < e->n; i++)
        if (strcmp(e->names[i], "-") == 0)
            return 1;
    return 0;
}

/* Hashes the file (or files) a line names and compares; returns 0 or why
 * it could not, with *failed the name to report. */
static int compare_file(checker *c, const entry *e, hasher *h, int *equal,
                        const char **failed)
{
    int stream = hasher_streams(h), err;
    uint8_t *sum;

    *failed = e->names[0];
    if (reads_the_list(c, e))
        return KSUM_ESTDIN;
    if ((sum = OPENSSL_malloc(stream ? 1 : h->size)) == NULL)
        return ENOMEM;
    if (h->facts.takes & TAKES_ELEMENTS)
        err = hash_tuple(h, e->names, e->n, &c->in, stream ? NULL : sum, failed);
    else
        err = hash_path(h, e->names[0], &c->in, stream ? NULL : sum);
    if (err == 0 && stream && !hex_equal_streamed(e->hex, h, equal))
        err = KSUM_EHASH;
    else if (err == 0 && !stream)
        *equal = hex_equal(e->hex, sum, h->size);
    OPENSSL_free(sum);
    return err;
}

static void verify(checker *c, const entry *e, hasher *h, counts *n)
{
    const options *o = c->o;
    const char *failed;
    int equal = 0, err = compare_file(c, e, h, &equal, &failed);

    if (err == ENOENT && o->ignore_missing) {
        n->ignored++;
    } else if (err != 0) {
        n->unreadable++;
        if (!o->status) {
            report_error(failed, err, NULL);
            print_result(c, e, "FAILED open or read");
        }
    } else if (equal) {
        n->matched++;
        if (!o->status && !o->quiet)
            print_result(c, e, "OK");
    } else {
        n->mismatched++;
        if (!o->status)
            print_result(c, e, "FAILED");
    }
}

/* The names of a line: TupleHash's are separated by the NULs that stand
 * for literal tabs; any other algorithm's one name has its tabs back. */
static int entry_of(check_line *l, int tuple, entry *e)
{
    size_t n = 1;

    e->hex = l->hex;
    for (size_t i = 0; i < l->name_len; i++)
        if (l->name[i] == '\0') {
            if (!tuple)
                l->name[i] = '\t';
            n += tuple;
        }
    if ((e->names = malloc(n * sizeof *e->names)) == NULL)
        return 0;
    e->n = 0;
    for (char *p = l->name; e->n < n; p += strlen(p) + 1)
        e->names[e->n++] = p;
    return 1;
}

/* The algorithm a line is checked with: without an algorithm switch, its
 * tag's (any name the provider knows), or the default; with switches, the
 * one its tag names, and none (an improperly formatted line) for a tag of
 * another algorithm: a check file cannot choose another algorithm, or no
 * key, instead of those asked for.  An untagged line takes the one switch,
 * and is improperly formatted with several: it does not say which. */
static const algorithm *line_algorithm(const checker *c, const check_line *l)
{
    const algorithm *tagged;

    if (l->tag == NULL)
        return c->o->nalgs == 1 ? c->o->alg : NULL;
    tagged = algorithm_lookup(c->lib, l->tag);
    if (!c->o->alg_given || tagged == NULL)
        return tagged;
    return options_chosen(c->o, tagged);
}

/* "ksum: FILE: LINE: what" */
static void line_message(const char *file, unsigned long lineno, const char *what,
                         const char *why)
{
    FILE *f = message_stream();

    fputs("ksum: ", f);
    print_name(f, file, name_needs_escape(file));
    fprintf(f, ": %lu: %s%s%s\n", lineno, what, why ? ": " : "", why ? why : "");
}

static void check_line_text(checker *c, const char *file, unsigned long lineno,
                            char *line, size_t len, counts *n)
{
    check_line l;
    const algorithm *alg;
    hasher *h;

    if (len > 0 && line[len - 1] == '\n')
        line[--len] = '\0';
    if (len > 0 && line[len - 1] == '\r')
        line[--len] = '\0';
    if (len == 0 || line[0] == '#')
        return;
    if (check_parse_line(line, len, &l) && (alg = line_algorithm(c, &l)) != NULL) {
        entry e;
        h = hasher_for(c, alg);
        if (!entry_of(&l, h != NULL && (h->facts.takes & TAKES_ELEMENTS), &e)) {
            n->lines_unread++;
            if (!c->o->status)
                line_message(file, lineno, "line could not be read", strerror(ENOMEM));
            return;
        }
        if (h == NULL) {
            n->unreadable++;    /* not verified: never an improper line */
            if (!c->o->status)
                print_result(c, &e, "FAILED open or read");
        } else if (l.hex_len == 2 * h->size) {
            verify(c, &e, h, n);
        }
        free(e.names);
        if (h == NULL || l.hex_len == 2 * h->size)
            return;
    }
    n->misformatted++;
    if (c->o->warn && !c->o->status)
        line_message(file, lineno, "improperly formatted checksum line", NULL);
}

static void warn_count(const char *file, unsigned long n, const char *one,
                       const char *many)
{
    if (n > 0)
        fprintf(message_stream(), "ksum: WARNING: %s: %lu %s\n", file, n,
                n == 1 ? one : many);
}

static int summarize(const options *o, const char *file, const counts *n)
{
    unsigned long verified = n->matched + n->mismatched + n->unreadable;

    if (verified + n->ignored == 0) {
        fprintf(message_stream(),
                "ksum: %s: no properly formatted checksum lines found\n", file);
        return 0;
    }
    if (!o->status) {
        warn_count(file, n->misformatted, "line is improperly formatted",
                   "lines are improperly formatted");
        warn_count(file, n->lines_unread, "line could not be read",
                   "lines could not be read");
        warn_count(file, n->unreadable, "listed file could not be read",
                   "listed files could not be read");
        warn_count(file, n->mismatched, "computed checksum did NOT match",
                   "computed checksums did NOT match");
        if (o->ignore_missing && verified == 0)
            fprintf(message_stream(), "ksum: %s: no file was verified\n", file);
    }
    return n->mismatched == 0 && n->unreadable == 0 && n->lines_unread == 0 &&
           !(o->strict && n->misformatted > 0) &&
           !(o->ignore_missing && verified == 0);
}

/* Checks the lines of one check file; 0 when none could be read at all. */
static int check_lines(checker *c, const char *path, const char *label,
                       line_reader *r, counts *n)
{
    unsigned long lineno = 0;
    int got, err = 0;

    while (!c->stopped && (got = line_next(r, &err)) != LINE_END) {
        lineno++;
        if (got == LINE_OK) {
            check_line_text(c, label, lineno, r->line, r->len, n);
            continue;
        }
        if (got == LINE_READ_ERROR && !r->read_any) {
            report_error(path, err, NULL);  /* e.g. a directory */
            return 0;
        }
        n->lines_unread++;
        if (!c->o->status)
            line_message(label, lineno, "line could not be read",
                         strerror(got == LINE_TOO_LONG ? ENOMEM : err));
        if (got == LINE_READ_ERROR)
            break;  /* where the next line would start is unknown */
    }
    return 1;
}

static int check_one_file(checker *c, const char *path)
{
    int is_stdin = strcmp(path, "-") == 0;
    const char *label = is_stdin ? "standard input" : path;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_NOCTTY);
    line_reader r;
    counts n = {0};
    int ok = 0;

    if (fd < 0) {
        report_error(path, errno, NULL);
        return 0;
    }
    if (!line_reader_init(&r, fd))
        report_error(path, ENOMEM, NULL);
    else if (check_lines(c, path, label, &r, &n))
        ok = !c->stopped && summarize(c->o, label, &n);
    line_reader_free(&r);
    if (!is_stdin)
        close(fd);
    return ok;
}

/* Standard input named "-", or as /dev/stdin and the like when it is a
 * pipe, a terminal or a device: a stream that a line naming "-" would
 * read from too. */
static int is_standard_input(const char *path)
{
    struct stat named, in;

    if (strcmp(path, "-") == 0)
        return 1;
    return stat(path, &named) == 0 && fstat(STDIN_FILENO, &in) == 0 &&
           !S_ISREG(named.st_mode) && named.st_dev == in.st_dev &&
           named.st_ino == in.st_ino;
}

int check_files(const options *o, OSSL_LIB_CTX *lib)
{
    checker c;
    int ok = 1;

    memset(&c, 0, sizeof c);
    c.o = o;
    c.lib = lib;
    c.hashers = calloc(algorithm_count, sizeof *c.hashers);
    c.opened = calloc(algorithm_count, sizeof *c.opened);
    if (c.hashers == NULL || c.opened == NULL || !input_init(&c.in, 0)) {
        input_free(&c.in);
        free(c.hashers);
        free(c.opened);
        fprintf(message_stream(), "ksum: out of memory\n");
        return 0;
    }
    /* A check file may come from anywhere: a device or FIFO it names
     * could make ksum read forever. */
    c.in.regular_only = 1;
    for (char **f = o->files; *f != NULL; f++)
        c.stdin_is_list |= is_standard_input(*f);
    for (char **f = o->files; *f != NULL && !c.stopped; f++)
        ok &= check_one_file(&c, *f);
    for (size_t i = 0; i < algorithm_count; i++)
        if (c.opened[i])
            hasher_close(&c.hashers[i]);
    free(c.hashers);
    free(c.opened);
    input_free(&c.in);
    return ok && !c.stopped;
}
