/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --part, --part-range and --combine (issue 20; format in docs/parts.md).
 * The tree itself is the provider's: this file reads byte ranges, writes
 * and checks records, and hands bytes and chaining values to the -CV and
 * -FINAL algorithms through EVP.  It never computes a CV or a final node.
 */
#include "parts/parts.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/encoding.h"
#include "base/thread.h"
#include "front/hasher.h"
#include "front/resolve.h"
#include "input/files.h"
#include "ksumprov.h"
#include "report/output.h"
#include "run/concurrent.h"

#define PROPS "provider=" KSUMPROV_NAME
#define MAGIC "ksum-part 1"
/* Chunks one CV context takes: 4 MiB, leaving room under the provider's
 * KSUMPROV_PART_MAX_CHUNKS for the chunks a customization string adds. */
#define SEGMENT_CHUNKS 512
#define HEAD_LINE 96        /* bytes of the first chunk per "head" line */
#define READ_PIECE ((size_t)1 << 20)

_Static_assert(PART_CHUNK * SEGMENT_CHUNKS <= (size_t)16 << 20, "one read buffer");
_Static_assert(SEGMENT_CHUNKS + 64 <= KSUMPROV_PART_MAX_CHUNKS, "room for C");

int parts_wanted(const options *o)
{
    return o->part_share != NULL || o->part_range != NULL || o->combine;
}

/* The functions that can be hashed in parts, by ksum's provider name. */
typedef struct family {
    const char *name, *cv, *final;
    size_t cv_len;
} family;

static const family families[] = {
    {"KANGAROOTWELVE", "KT128-CV", "KT128-FINAL", 32},
    {"KT256", "KT256-CV", "KT256-FINAL", 64},
    {"MARSUPILAMIFOURTEEN", "M14-CV", "M14-FINAL", 64},
};

static const family *family_of(const char *name)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strcmp(families[i].name, name) == 0)
            return &families[i];
    return NULL;
}


/* The digests of a record (of C, of the first and last chunks, of the
 * record itself): KT128 with a 32-byte output, through EVP.  KT128 and not
 * SHA3-256: combining checks every record, a 256th of the object, and
 * KT128 is several times faster there (its leaves side by side).  On one
 * thread: combine checks two records at once already, and a record of a
 * megabyte is over before helper threads would have started. */
#define CHECK_ALGORITHM "KANGAROOTWELVE"

static int check_begin(OSSL_LIB_CTX *lib, EVP_MD_CTX *ctx)
{
    EVP_MD *md = EVP_MD_fetch(lib, CHECK_ALGORITHM, PROPS);
    size_t outlen = PART_DIGEST;
    unsigned one = 1;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &outlen),
                      OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &one), OSSL_PARAM_END};
    int ok = md != NULL && EVP_DigestInit_ex2(ctx, md, p);

    EVP_MD_free(md);
    return ok;
}

static int check_end(EVP_MD_CTX *ctx, uint8_t out[PART_DIGEST])
{
    return EVP_DigestFinalXOF(ctx, out, PART_DIGEST);
}

int part_digest(OSSL_LIB_CTX *lib, const void *in, size_t len, uint8_t out[PART_DIGEST])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL && check_begin(lib, ctx) && EVP_DigestUpdate(ctx, in, len) &&
             check_end(ctx, out);

    EVP_MD_CTX_free(ctx);
    return ok;
}

static const char *custom_of(const options *o)
{
    const char *custom = option_text(o, KSUM_PARAM_CUSTOM);

    return custom != NULL ? custom : "";
}

/* ---- writing a record ---- */

typedef struct writer {
    EVP_MD_CTX *check;      /* the digest of every line before "check" */
    int ok;
} writer;

static void put(writer *w, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line) {
        w->ok = 0;
        return;
    }
    if (!EVP_DigestUpdate(w->check, line, (size_t)n))
        w->ok = 0;
    fwrite(line, 1, (size_t)n, stdout);
    if (!output_ok())
        w->ok = 0;
}

/* Lines already formatted. */
static void put_block(writer *w, const char *text, size_t len)
{
    if (len == 0)
        return;
    if (!EVP_DigestUpdate(w->check, text, len))
        w->ok = 0;
    fwrite(text, 1, len, stdout);
    if (!output_ok())
        w->ok = 0;
}

/* "key BASE64\n" for len bytes (at most HEAD_LINE, or a CV). */
static void put_base64(writer *w, const char *key, const uint8_t *in, size_t len)
{
    char text[BASE64_LENGTH(HEAD_LINE > PART_MAX_CV ? HEAD_LINE : PART_MAX_CV) + 1];

    text[base64_encode(in, len, text)] = '\0';
    put(w, "%s %s\n", key, text);
}

static void put_hex(writer *w, const char *key, const uint8_t *d)
{
    char text[2 * PART_DIGEST + 1];

    text[hex_encode(d, PART_DIGEST, text)] = '\0';
    put(w, "%s %s\n", key, text);
}

/* Exactly len bytes at off, or 0 with errno (0: the file got shorter). */
static int read_at(int fd, uint8_t *buf, size_t len, uint64_t off)
{
    while (len > 0) {
        ssize_t n = pread(fd, buf, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = 0;
            return 0;
        }
        buf += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 1;
}

/* "K/N" or "START:LEN": a number, the separator, a number. */
static int parse_pair(const char *arg, char sep, uint64_t *a, uint64_t *b)
{
    char *end;

    if (arg[0] < '0' || arg[0] > '9')
        return 0;
    errno = 0;
    *a = strtoull(arg, &end, 10);
    if (errno != 0 || *end != sep || end[1] < '0' || end[1] > '9')
        return 0;
    *b = strtoull(end + 1, &end, 10);
    return errno == 0 && *end == '\0';
}

/* The chunks [*begin, *end) of an object of `chunks` chunks the options
 * choose; *share and *shares for --part. */
static int choose_range(const options *o, uint64_t chunks, uint64_t *begin,
                        uint64_t *end, uint64_t *share, uint64_t *shares)
{
    uint64_t a, b;

    *share = *shares = 0;
    if (o->part_share != NULL) {
        if (!parse_pair(o->part_share, '/', &a, &b) || a < 1 || a > b ||
            b > ((uint64_t)1 << 32))
            return message_fail("--part: '%s' is not K/N with 1 <= K <= N <= 2^32",
                        o->part_share);
        /* Share K of N: chunks floor((K-1)*C/N) to floor(K*C/N). */
        *begin = (uint64_t)((unsigned __int128)(a - 1) * chunks / b);
        *end = (uint64_t)((unsigned __int128)a * chunks / b);
        *share = a;
        *shares = b;
        return 1;
    }
    if (!parse_pair(o->part_range, ':', &a, &b) || b == 0)
        return message_fail("--part-range: '%s' is not START:LEN in chunks of 8 KiB (LEN >= 1)",
                    o->part_range);
    if (a >= chunks)
        return message_fail("--part-range: chunk %" PRIu64 " is past the object's last "
                    "chunk (%" PRIu64 ")", a, chunks - 1);
    *begin = a;
    *end = b > chunks - a ? chunks : a + b;
    return 1;
}

/* A CV context for the segment of the object that starts at byte at. */
static int segment_init(EVP_MD_CTX *ctx, const EVP_MD *md, const options *o,
                        uint64_t length, uint64_t at)
{
    const char *custom = custom_of(o);
    unsigned threads = o->threads;
    OSSL_PARAM p[5];
    OSSL_PARAM *pp = p;

    *pp++ = OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, (void *)custom,
                                              strlen(custom));
    *pp++ = OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &length);
    *pp++ = OSSL_PARAM_construct_uint64(KSUM_PARAM_OFFSET, &at);
    if (threads != 0)
        *pp++ = OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &threads);
    *pp = OSSL_PARAM_construct_end();
    return EVP_DigestInit_ex2(ctx, md, p);
}

/* Bytes [at, stop) of the file into ctx, in reads of 1 MiB, as ksum reads
 * a whole file: the bytes are still in the CPU's caches when they are
 * hashed.  Reports its errors. */
static int segment_feed(EVP_MD_CTX *ctx, int fd, uint8_t *buf, const char *name,
                        uint64_t at, uint64_t stop)
{
    for (uint64_t pos = at; pos < stop;) {
        size_t piece = stop - pos < READ_PIECE ? (size_t)(stop - pos) : READ_PIECE;
        if (!read_at(fd, buf, piece, pos)) {
            report_error(name, errno ? errno : KSUM_ECHANGED, NULL);
            return 0;
        }
        if (!EVP_DigestUpdate(ctx, buf, piece)) {
            report_error(name, KSUM_EHASH, NULL);
            return 0;
        }
        pos += piece;
    }
    return 1;
}

/* The segment's CVs into cvs, *n of them.  No CV (a range within the
 * first chunk): nothing to take. */
static int segment_take(EVP_MD_CTX *ctx, uint8_t *cvs, size_t cv_len, uint64_t *n)
{
    OSSL_PARAM q[2];

    q[0] = OSSL_PARAM_construct_uint64(KSUM_PARAM_CV_COUNT, n);
    q[1] = OSSL_PARAM_construct_end();
    return EVP_MD_CTX_get_params(ctx, q) && *n <= KSUMPROV_PART_MAX_CHUNKS &&
           (*n == 0 || EVP_DigestFinalXOF(ctx, cvs, (size_t)*n * cv_len));
}

/* "cv BASE64\n" for each of the n CVs into lines; returns their length. */
static size_t cv_lines(char *lines, const uint8_t *cvs, uint64_t n, size_t cv_len)
{
    size_t used = 0;

    for (uint64_t i = 0; i < n; i++) {
        memcpy(lines + used, "cv ", 3);
        used += 3;
        used += base64_encode(cvs + i * cv_len, cv_len, lines + used);
        lines[used++] = '\n';
    }
    return used;
}

/* The CVs of bytes [from, to) of the object, a context per segment, as
 * "cv" lines; *count gets how many. */
static int write_cvs(writer *w, OSSL_LIB_CTX *lib, const options *o, const family *f,
                     int fd, const char *name, uint64_t length, uint64_t from,
                     uint64_t to, uint64_t *count)
{
    EVP_MD *md = EVP_MD_fetch(lib, f->cv, PROPS);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    size_t bufsize = (size_t)SEGMENT_CHUNKS * PART_CHUNK;
    uint8_t *buf = input_buffer_new(READ_PIECE);
    uint8_t *cvs = malloc((size_t)KSUMPROV_PART_MAX_CHUNKS * f->cv_len);
    /* a segment's "cv" lines, written (and digested) at once */
    size_t line_len = 3 + BASE64_LENGTH(f->cv_len) + 1;
    char *lines = malloc((size_t)KSUMPROV_PART_MAX_CHUNKS * line_len);
    int ok = md != NULL && ctx != NULL && buf != NULL && cvs != NULL && lines != NULL;

    *count = 0;
    if (!ok)
        message_fail("%s: cannot set up %s: out of memory or not in the provider", name, f->cv);
    /* The range that holds the end of the object also gives the CVs of
     * the chunks past it, which hold only C: one context even when the
     * range has no byte (an empty object, or one ending on a chunk). */
    for (uint64_t at = from; ok;) {
        uint64_t stop = to - at > bufsize ? at + bufsize : to, n = 0;
        if (!segment_init(ctx, md, o, length, at)) {
            report_error(name, KSUM_EHASH, NULL);
            ok = 0;
            break;
        }
        ok = segment_feed(ctx, fd, buf, name, at, stop);
        if (ok && !segment_take(ctx, cvs, f->cv_len, &n)) {
            report_error(name, KSUM_EHASH, NULL);
            ok = 0;
        }
        if (!ok)
            break;
        put_block(w, lines, cv_lines(lines, cvs, n, f->cv_len));
        *count += n;
        at = stop;
        if (at == to || !w->ok)
            break;
    }
    free(lines);
    free(cvs);
    free(buf);
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    return ok && w->ok;
}

/* What a record says of the object and of the part, before its CVs. */
typedef struct part_info {
    uint64_t length, chunks;
    uint64_t begin, end;            /* chunks [begin, end) */
    uint64_t share, shares;         /* 0 0 for --part-range */
    uint8_t cdig[PART_DIGEST], first[PART_DIGEST], last[PART_DIGEST];
    uint8_t chunk[PART_CHUNK];      /* the first chunk, for the head lines */
    size_t first_len;
} part_info;

/* The object is named by its length and its first and last chunks: their
 * digests; p->chunk keeps the first chunk.  0 with errno (0: the file got
 * shorter). */
static int chunk_digests(OSSL_LIB_CTX *lib, int fd, part_info *p)
{
    size_t last_len = (size_t)(p->length - (p->chunks - 1) * PART_CHUNK);

    p->first_len = p->length < PART_CHUNK ? (size_t)p->length : PART_CHUNK;
    return read_at(fd, p->chunk, last_len, (p->chunks - 1) * PART_CHUNK) &&
           part_digest(lib, p->chunk, last_len, p->last) &&
           read_at(fd, p->chunk, p->first_len, 0) &&
           part_digest(lib, p->chunk, p->first_len, p->first);
}

/* The name may be long: written in pieces, hashed as one line. */
static void put_name(writer *w, const char *text)
{
    if (EVP_DigestUpdate(w->check, "name ", 5) &&
        EVP_DigestUpdate(w->check, text, strlen(text)) &&
        EVP_DigestUpdate(w->check, "\n", 1)) {
        fputs("name ", stdout);
        fputs(text, stdout);
        fputc('\n', stdout);
        w->ok &= output_ok();
    } else {
        w->ok = 0;
    }
}

/* The lines before the CVs; name64 is the file name in base64. */
static void put_header(writer *w, const family *f, const part_info *p, const char *name64)
{
    put(w, "%s\n", MAGIC);
    put(w, "algorithm %s\n", f->name);
    put_hex(w, "customization", p->cdig);
    put(w, "object %" PRIu64 "\n", p->length);
    put_hex(w, "first", p->first);
    put_hex(w, "last", p->last);
    put_name(w, name64);
    if (p->shares != 0)
        put(w, "share %" PRIu64 " %" PRIu64 "\n", p->share, p->shares);
    else
        put(w, "share - -\n");
    put(w, "chunks %" PRIu64 " %" PRIu64 "\n", p->begin, p->end);
    if (p->begin == 0 && p->end > 0)
        for (size_t at = 0; at < p->first_len && w->ok; at += HEAD_LINE)
            put_base64(w, "head", p->chunk + at,
                       p->first_len - at < HEAD_LINE ? p->first_len - at : HEAD_LINE);
}

/* The "check" line, when the file has not changed since st and every line
 * before it was written. */
static int put_check(writer *w, int fd, const char *name, const struct stat *st)
{
    struct stat after;
    uint8_t check[PART_DIGEST];
    char hex[2 * PART_DIGEST + 1];

    if (fstat(fd, &after) != 0 || after.st_size != st->st_size ||
        after.st_mtim.tv_sec != st->st_mtim.tv_sec ||
        after.st_mtim.tv_nsec != st->st_mtim.tv_nsec) {
        report_error(name, KSUM_ECHANGED, NULL);
        return 0;
    }
    if (!w->ok)
        return 0;
    if (!check_end(w->check, check)) {
        report_error(name, KSUM_EHASH, NULL);
        return 0;
    }
    hex[hex_encode(check, PART_DIGEST, hex)] = '\0';
    printf("check %s\n", hex);
    return output_ok();
}

static int write_part(const options *o, OSSL_LIB_CTX *lib, const family *f)
{
    const char *name = o->files[0];
    int fd = strcmp(name, "-") == 0 ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
    struct stat st;
    part_info p;
    uint64_t count = 0;
    char *text = NULL;
    writer w = {EVP_MD_CTX_new(), 1};
    int ok = 0;

    p.begin = p.end = 0;
    if (fd < 0 || fstat(fd, &st) != 0) {
        report_error(name, errno, NULL);
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        message_fail("%s: --part reads byte ranges: it needs a regular file", name);
        goto done;
    }
    p.length = (uint64_t)st.st_size;
    /* An empty object has one chunk, with no byte. */
    p.chunks = p.length == 0 ? 1 : (p.length + PART_CHUNK - 1) / PART_CHUNK;
    if (!choose_range(o, p.chunks, &p.begin, &p.end, &p.share, &p.shares))
        goto done;
    if (w.check == NULL ||
        !part_digest(lib, custom_of(o), strlen(custom_of(o)), p.cdig)) {
        report_error(name, KSUM_EHASH, NULL);
        goto done;
    }
    if (!chunk_digests(lib, fd, &p)) {
        report_error(name, errno ? errno : KSUM_ECHANGED, NULL);
        goto done;
    }
    text = malloc(BASE64_LENGTH(strlen(name)) + 1);
    if (text == NULL || !check_begin(lib, w.check)) {
        message_fail("out of memory");
        goto done;
    }
    text[base64_encode((const uint8_t *)name, strlen(name), text)] = '\0';
    put_header(&w, f, &p, text);
    if (p.begin < p.end && w.ok &&
        !write_cvs(&w, lib, o, f, fd, name, p.length, p.begin * PART_CHUNK,
                   p.end * PART_CHUNK < p.length ? p.end * PART_CHUNK : p.length, &count))
        goto done;
    put(&w, "cvs %" PRIu64 "\n", count);
    ok = put_check(&w, fd, name, &st);
done:
    if (fd > STDIN_FILENO)
        close(fd);
    free(text);
    EVP_MD_CTX_free(w.check);
    return ok;
}

/* ---- reading records ---- */

typedef struct cursor {
    const char *p, *end;
    const char *line;       /* the current line, without its '\n' */
    size_t len;
    size_t lineno;
} cursor;

/* The next line; 0 at the end of the text or on a line without '\n'
 * (a truncated record). */
static int next_line(cursor *c)
{
    const char *nl;

    if (c->p >= c->end)
        return 0;
    nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    if (nl == NULL)
        return 0;
    c->line = c->p;
    c->len = (size_t)(nl - c->p);
    c->p = nl + 1;
    c->lineno++;
    return 1;
}

/* The line is "key VALUE": *value and *vlen get VALUE. */
static int keyed(const cursor *c, const char *key, const char **value, size_t *vlen)
{
    size_t k = strlen(key);

    if (c->len <= k || memcmp(c->line, key, k) != 0 || c->line[k] != ' ')
        return 0;
    *value = c->line + k + 1;
    *vlen = c->len - k - 1;
    return 1;
}

static int parse_u64(const char *s, size_t n, uint64_t *v)
{
    uint64_t x = 0;

    if (n == 0 || n > 20 || (n > 1 && s[0] == '0'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9' || x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return 0;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    *v = x;
    return 1;
}

/* Lower-case hex only, as written: a record is read back only as it was
 * written, so that no byte of it can change unnoticed. */
static int parse_digest(const char *s, size_t n, uint8_t out[PART_DIGEST])
{
    size_t len;

    if (n != 2 * PART_DIGEST)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return hex_decode(s, n, out, &len) && len == PART_DIGEST;
}

/* Two decimal numbers, or "- -" when dash_ok. */
static int parse_two(const char *s, size_t n, uint64_t *a, uint64_t *b, int dash_ok)
{
    const char *sp = memchr(s, ' ', n);

    if (dash_ok && n == 3 && memcmp(s, "- -", 3) == 0) {
        *a = *b = 0;
        return 1;
    }
    return sp != NULL && parse_u64(s, (size_t)(sp - s), a) &&
           parse_u64(sp + 1, n - (size_t)(sp - s) - 1, b);
}

/* Appends the base64 of s[0..n) to *buf (grown as needed); exactly want
 * bytes when want != 0, at most max otherwise. */
static int append_base64(const char *s, size_t n, uint8_t **buf, size_t *len,
                         size_t *cap, size_t want, size_t max)
{
    uint8_t piece[BASE64_LENGTH(HEAD_LINE > PART_MAX_CV ? HEAD_LINE : PART_MAX_CV)];
    size_t got;

    if (n > sizeof piece || n == 0)
        return 0;
    memcpy(piece, s, n);
    if (!base64_decode((const char *)piece, n, piece, &got) ||
        (want != 0 && got != want) || got > max || got == 0)
        return 0;
    if (*len + got > *cap) {
        size_t ncap = *cap ? *cap * 2 : 4096;
        uint8_t *p;
        while (ncap < *len + got)
            ncap *= 2;
        if ((p = realloc(*buf, ncap)) == NULL)
            return 0;
        *buf = p;
        *cap = ncap;
    }
    memcpy(*buf + *len, piece, got);
    *len += got;
    return 1;
}

static void record_free(part_record *r)
{
    free(r->name);
    free(r->head);
    free(r->cvs);
    memset(r, 0, sizeof *r);
}

void part_records_free(part_record *recs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        record_free(&recs[i]);
    free(recs);
}

/* The next line must be "key VALUE" with cond true of v and vl; else a
 * reason into why and the function returns 0. */
#define WANT(key, cond, what)                                                  \
    do {                                                                       \
        if (!next_line(c)) {                                                   \
            snprintf(why, why_size, "truncated: it ends before its '%s' line "  \
                     "(and its check)", key);                                  \
            return 0;                                                          \
        }                                                                      \
        if (!keyed(c, key, &v, &vl) || !(cond)) {                              \
            snprintf(why, why_size, "line %zu: %s", c->lineno, what);         \
            return 0;                                                          \
        }                                                                      \
    } while (0)

/* The file name, base64 in v[0..vl), into r->name (which record_free
 * frees, even when it is bad). */
static int parse_name(const char *v, size_t vl, part_record *r)
{
    size_t n;

    if ((r->name = malloc(vl + 1)) == NULL || vl % 4 != 0 ||
        (memcpy(r->name, v, vl), !base64_decode(r->name, vl, (uint8_t *)r->name, &n)) ||
        memchr(r->name, '\0', n) != NULL)
        return 0;
    r->name[n] = '\0';
    return 1;
}

/* The lines from the first (read) to "chunks". */
static int parse_header(cursor *c, part_record *r, char *why, size_t why_size)
{
    const char *v;
    size_t vl;
    uint64_t chunks;
    const family *f;

    if (c->len != strlen(MAGIC) || memcmp(c->line, MAGIC, c->len) != 0) {
        snprintf(why, why_size, "line %zu: not a part record of this version "
                 "(it must start with '%s')", c->lineno, MAGIC);
        return 0;
    }
    WANT("algorithm", vl < sizeof r->algorithm, "no algorithm that ksum hashes in parts");
    memcpy(r->algorithm, v, vl);
    r->algorithm[vl] = '\0';
    if ((f = family_of(r->algorithm)) == NULL) {
        snprintf(why, why_size, "line %zu: no algorithm that ksum hashes in parts",
                 c->lineno);
        return 0;
    }
    r->cv_len = f->cv_len;
    WANT("customization", parse_digest(v, vl, r->custom), "a bad customization digest");
    WANT("object", parse_u64(v, vl, &r->length) && r->length < ((uint64_t)1 << 62),
         "a bad object length");
    WANT("first", parse_digest(v, vl, r->first), "a bad first-chunk digest");
    WANT("last", parse_digest(v, vl, r->last), "a bad last-chunk digest");
    WANT("name", 1, "no name line");
    if (!parse_name(v, vl, r)) {
        snprintf(why, why_size, "line %zu: a bad name", c->lineno);
        return 0;
    }
    WANT("share", parse_two(v, vl, &r->share, &r->shares, 1) &&
                      (r->shares == 0 || (r->share >= 1 && r->share <= r->shares)),
         "a bad share (K N, or - -)");
    chunks = r->length == 0 ? 1 : (r->length + PART_CHUNK - 1) / PART_CHUNK;
    WANT("chunks", parse_two(v, vl, &r->begin, &r->end, 0) && r->begin <= r->end &&
                       r->end <= chunks,
         "a bad chunk range for the object's length");
    return 1;
}

#undef WANT

/* The head lines (the record of chunk 0), the cv lines, then the count;
 * *head_n gets how many head lines. */
/* Room for the CVs the record says it has, as far as its text can hold
 * them (a forged range must not allocate terabytes): one allocation where
 * doubling copied megabytes. */
static size_t cv_room(const cursor *c, part_record *r)
{
    size_t line = 4 + BASE64_LENGTH(r->cv_len);   /* "cv " and '\n' */
    uint64_t said = r->end - r->begin;
    uint64_t fits = (uint64_t)(c->end - c->p) / line;
    uint8_t *p = malloc((size_t)(said < fits ? said : fits) * r->cv_len + 1);

    if (p == NULL)
        return 0;
    free(r->cvs);
    r->cvs = p;
    return (size_t)(said < fits ? said : fits) * r->cv_len;
}

/* The run of well-formed "cv" lines at the cursor, decoded straight into
 * r->cvs: a line of exactly "cv ", the base64 of cv_len bytes and '\n' is
 * found without a search for its end (a gigabyte has 131,072 of them).
 * Any other line is left to parse_body's general loop, which reads it as
 * it reads every line, and reports it if it is bad. */
static void take_cv_lines(cursor *c, part_record *r, size_t cv_cap)
{
    size_t text = BASE64_LENGTH(r->cv_len), line = 3 + text + 1, got;
    uint8_t cv[BASE64_LENGTH(PART_MAX_CV) / 4 * 3];

    while ((size_t)(c->end - c->p) >= line && memcmp(c->p, "cv ", 3) == 0 &&
           c->p[line - 1] == '\n' && (r->count + 1) * r->cv_len <= cv_cap &&
           base64_decode(c->p + 3, text, cv, &got) && got == r->cv_len) {
        memcpy(r->cvs + r->count * r->cv_len, cv, got);
        r->count++;
        c->line = c->p;
        c->len = line - 1;
        c->p += line;
        c->lineno++;
    }
}

static int parse_body(cursor *c, part_record *r, size_t *head_n, char *why,
                      size_t why_size)
{
    const char *v;
    size_t vl, head_cap = 0, cv_cap = cv_room(c, r);
    uint64_t cvs_said;

    for (;;) {
        take_cv_lines(c, r, cv_cap);
        if (!next_line(c)) {
            snprintf(why, why_size, "truncated: it ends before its 'cvs' line (and its check)");
            return 0;
        }
        if (keyed(c, "head", &v, &vl)) {
            if (r->count > 0 ||
                !append_base64(v, vl, &r->head, &r->head_len, &head_cap, 0, HEAD_LINE) ||
                r->head_len > PART_CHUNK) {
                snprintf(why, why_size, "line %zu: a bad head line", c->lineno);
                return 0;
            }
            (*head_n)++;
            continue;
        }
        if (keyed(c, "cv", &v, &vl)) {
            size_t bytes = r->count * r->cv_len;
            if (!append_base64(v, vl, &r->cvs, &bytes, &cv_cap, r->cv_len, r->cv_len)) {
                snprintf(why, why_size, "line %zu: a bad cv line", c->lineno);
                return 0;
            }
            r->count++;
            continue;
        }
        break;
    }
    if (!keyed(c, "cvs", &v, &vl) || !parse_u64(v, vl, &cvs_said)) {
        snprintf(why, why_size, "line %zu: a bad line where 'cvs COUNT' belongs", c->lineno);
        return 0;
    }
    if (cvs_said != r->count) {
        snprintf(why, why_size, "truncated or corrupted: %zu cv lines, 'cvs' says %" PRIu64,
                 r->count, cvs_said);
        return 0;
    }
    return 1;
}

/* The "check" line: the digest of the record's lines from start to the
 * cursor (just past "cvs"). */
static int parse_check(OSSL_LIB_CTX *lib, cursor *c, const char *start, char *why,
                       size_t why_size)
{
    size_t hashed = (size_t)(c->p - start), vl;
    const char *v;
    uint8_t want[PART_DIGEST], got[PART_DIGEST];

    if (!next_line(c)) {
        snprintf(why, why_size, "truncated: no 'check' line");
        return 0;
    }
    if (!keyed(c, "check", &v, &vl) || !parse_digest(v, vl, want)) {
        snprintf(why, why_size, "line %zu: a bad line where 'check DIGEST' belongs",
                 c->lineno);
        return 0;
    }
    if (!part_digest(lib, start, hashed, got)) {
        snprintf(why, why_size, "cannot compute its digest");
        return 0;
    }
    if (CRYPTO_memcmp(want, got, PART_DIGEST) != 0) {
        snprintf(why, why_size, "corrupted: its contents do not match its check");
        return 0;
    }
    return 1;
}

/* The whole first chunk in the record of chunk 0, and in no other. */
static int head_fits(const part_record *r, size_t head_n, char *why, size_t why_size)
{
    uint64_t first_len = r->length < PART_CHUNK ? r->length : PART_CHUNK;
    int has0 = r->begin == 0 && r->end > 0;

    if ((has0 && r->head_len != first_len) || (!has0 && head_n > 0)) {
        snprintf(why, why_size, "the head (the first chunk) is %s",
                 has0 ? "incomplete" : "in a part that does not start the object");
        return 0;
    }
    return 1;
}

/* One record from the cursor, which is at its first line (read).  On
 * failure a reason into why. */
static int parse_record(OSSL_LIB_CTX *lib, cursor *c, part_record *r, char *why,
                        size_t why_size)
{
    const char *start = c->line;
    size_t head_n = 0;

    return parse_header(c, r, why, why_size) && parse_body(c, r, &head_n, why, why_size) &&
           parse_check(lib, c, start, why, why_size) && head_fits(r, head_n, why, why_size);
}

int part_records_parse(OSSL_LIB_CTX *lib, const char *file, const char *text,
                       size_t len, part_record **recs, size_t *n, char *why,
                       size_t why_size)
{
    cursor c = {text, text + len, NULL, 0, 0};
    size_t cap = 0;

    *recs = NULL;
    *n = 0;
    while (next_line(&c)) {
        part_record *r;
        char reason[256];
        if (*n == cap) {
            part_record *p = realloc(*recs, (cap ? 2 * cap : 4) * sizeof *p);
            if (p == NULL) {
                snprintf(why, why_size, "%s: out of memory", file);
                return 0;
            }
            *recs = p;
            cap = cap ? 2 * cap : 4;
        }
        r = &(*recs)[*n];
        memset(r, 0, sizeof *r);
        r->file = file;
        r->index = *n + 1;
        if (!parse_record(lib, &c, r, reason, sizeof reason)) {
            snprintf(why, why_size, "%s: part record %zu: %s", file, r->index, reason);
            record_free(r);
            return 0;
        }
        (*n)++;
    }
    if (c.p < c.end) {
        snprintf(why, why_size, "%s: part record %zu: truncated: a last line without "
                 "its end", file, *n + 1);
        return 0;
    }
    if (*n == 0) {
        snprintf(why, why_size, "%s: no part record", file);
        return 0;
    }
    return 1;
}

/* ---- combining ---- */

/* A thread's buffer for record files, kept from one file to the next:
 * fresh pages for every file were most of combining's system time. */
typedef struct text_buffer {
    char *p;
    size_t cap;
} text_buffer;

static int text_room(text_buffer *b, size_t cap)
{
    char *p;

    if (cap <= b->cap)
        return 1;
    if ((p = realloc(b->p, cap)) == NULL)
        return 0;
    b->p = p;
    b->cap = cap;
    return 1;
}

/* Reads the whole of name ("-": standard input) into b, *len bytes; 0, or
 * the errno value that stopped it. */
static int slurp(const char *name, text_buffer *b, size_t *len)
{
    int fd = strcmp(name, "-") == 0 ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
    struct stat st;
    /* a regular file's size and a byte more (to see its end): no copies */
    size_t cap = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                         st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX / 2
                     ? (size_t)st.st_size + 1 : 65536;
    int err = fd < 0 ? errno : !text_room(b, cap) ? ENOMEM : 0;

    for (*len = 0; err == 0;) {
        ssize_t got;
        if (*len == b->cap && !text_room(b, b->cap * 2))
            err = ENOMEM;
        if (err != 0 || (got = read(fd, b->p + *len, b->cap - *len)) == 0)
            break;
        if (got < 0 && errno != EINTR)
            err = errno;
        *len += got > 0 ? (size_t)got : 0;
    }
    if (fd > STDIN_FILENO)
        close(fd);
    return err;
}

/* "FILE (part record I, share K/N, chunks A-B)" into buf. */
static const char *part_name(const part_record *r, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s (part record %zu", r->file, r->index);

    if (n > 0 && (size_t)n < size && r->shares != 0)
        n += snprintf(buf + n, size - (size_t)n, ", share %" PRIu64 "/%" PRIu64,
                      r->share, r->shares);
    if (n > 0 && (size_t)n < size && r->begin == r->end)
        snprintf(buf + n, size - (size_t)n, ", no chunk)");
    else if (n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, ", chunks %" PRIu64 "-%" PRIu64 ")",
                 r->begin, r->end - 1);
    return buf;
}

static int by_range(const void *a, const void *b)
{
    const part_record *x = *(part_record *const *)a, *y = *(part_record *const *)b;

    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->share < y->share ? -1 : x->share > y->share;
}

/* Every record against the first, and against the options. */
static int records_agree(part_record **all, size_t n, const char *algorithm,
                         const uint8_t custom[PART_DIGEST])
{
    char a[512], b[512];
    const part_record *ref = all[0];

    for (size_t i = 0; i < n; i++) {
        const part_record *r = all[i];
        if (strcmp(r->algorithm, algorithm) != 0)
            return message_fail("%s: made with %s, not %s", part_name(r, a, sizeof a),
                        r->algorithm, algorithm);
        if (memcmp(r->custom, custom, PART_DIGEST) != 0)
            return message_fail("%s: made with another customization string than the "
                        "one given (-C)", part_name(r, a, sizeof a));
        if (r->length != ref->length || memcmp(r->first, ref->first, PART_DIGEST) != 0 ||
            memcmp(r->last, ref->last, PART_DIGEST) != 0)
            return message_fail("%s: a part of another object than %s (%s)",
                        part_name(r, a, sizeof a), part_name(ref, b, sizeof b),
                        r->length != ref->length ? "another length"
                        : memcmp(r->first, ref->first, PART_DIGEST) != 0
                            ? "another first chunk" : "another last chunk");
        if ((r->shares != 0) != (ref->shares != 0) ||
            (r->shares != 0 && r->shares != ref->shares))
            return message_fail("%s: from another split than %s (--part K/N with another N, "
                        "or --part beside --part-range)", part_name(r, a, sizeof a),
                        part_name(ref, b, sizeof b));
    }
    return 1;
}

static int by_share(const void *a, const void *b)
{
    const part_record *x = *(part_record *const *)a, *y = *(part_record *const *)b;

    return x->share < y->share ? -1 : x->share > y->share;
}

/* --part K/N: each K from 1 to N once. */
static int shares_complete(part_record **all, size_t n)
{
    char a[512], b[512];
    part_record **v = malloc(n * sizeof *v);
    uint64_t k = 1, shares = all[0]->shares;
    int ok = 1;

    if (v == NULL)
        return message_fail("out of memory");
    memcpy(v, all, n * sizeof *v);
    qsort(v, n, sizeof *v, by_share);
    for (size_t i = 0; i < n && ok; i++) {
        if (i > 0 && v[i]->share == v[i - 1]->share)
            ok = message_fail("%s: given twice: also %s", part_name(v[i], a, sizeof a),
                      part_name(v[i - 1], b, sizeof b));
        else if (v[i]->share > k)
            ok = message_fail("share %" PRIu64 "/%" PRIu64 " is missing (%zu of %" PRIu64
                      " parts given)", k, shares, n, shares);
        else
            k = v[i]->share + 1;
    }
    if (ok && k <= shares)
        ok = message_fail("share %" PRIu64 "/%" PRIu64 " is missing (%zu of %" PRIu64
                  " parts given)", k, shares, n, shares);
    free(v);
    return ok;
}

/* Sorted by range: each share once, and the ranges cover the object's
 * chunks once each. */
static int records_cover(part_record **all, size_t n)
{
    char a[512], b[512];
    const part_record *ref = all[0];
    uint64_t chunks = ref->length == 0 ? 1 : (ref->length + PART_CHUNK - 1) / PART_CHUNK;
    uint64_t next = 0;
    const part_record *prev = NULL;

    if (ref->shares != 0 && !shares_complete(all, n))
        return 0;
    for (size_t i = 0; i < n; i++) {
        const part_record *r = all[i];
        if (r->begin == r->end)
            continue;   /* an empty share: more shares than chunks */
        if (r->begin < next)
            return message_fail("%s: overlaps %s (a part given twice?)", part_name(r, a, sizeof a),
                        part_name(prev, b, sizeof b));
        if (r->begin > next)
            return message_fail("chunks %" PRIu64 "-%" PRIu64 " are missing: no part covers them "
                        "(before %s)", next, r->begin - 1, part_name(r, a, sizeof a));
        next = r->end;
        prev = r;
    }
    if (next < chunks)
        return message_fail("chunks %" PRIu64 "-%" PRIu64 " are missing: no part covers them "
                    "(the object has %" PRIu64 ")", next, chunks - 1, chunks);
    return 1;
}

/* Reads every record of the FILEs; *all gets pointers into *files. */
typedef struct record_set {
    part_record **all;
    size_t n;
    part_record **per_file;
    size_t *counts;
    size_t files;
} record_set;

static void record_set_free(record_set *s)
{
    for (size_t i = 0; i < s->files; i++)
        part_records_free(s->per_file[i], s->counts[i]);
    free(s->per_file);
    free(s->counts);
    free(s->all);
}

/* One record file, read and parsed (its checks computed) on some thread. */
typedef struct record_file {
    const char *name;
    int err;              /* reading's errno value, or 0 */
    int parsed;           /* 1: every record in it is well formed */
    char why[1024];
} record_file;

typedef struct record_work {
    OSSL_LIB_CTX *lib;
    record_set *s;
    record_file *files;
    size_t nfiles;
    atomic_size_t next;
    atomic_size_t first_bad;   /* the first file that failed; nfiles: none */
} record_work;

static void read_record_file(record_work *w, size_t i, text_buffer *b)
{
    record_file *f = &w->files[i];
    size_t len;

    if ((f->err = slurp(f->name, b, &len)) != 0)
        return;
    f->parsed = part_records_parse(w->lib, f->name, b->p, len, &w->s->per_file[i],
                                   &w->s->counts[i], f->why, sizeof f->why);
}

static void *record_worker(void *arg)
{
    record_work *w = arg;
    text_buffer b = {NULL, 0};
    size_t i;

    /* nothing after a failure is read: it may be a FIFO that never ends */
    while ((i = atomic_fetch_add(&w->next, 1)) < w->nfiles &&
           i < atomic_load(&w->first_bad)) {
        read_record_file(w, i, &b);
        if (w->files[i].err != 0 || !w->files[i].parsed) {
            size_t bad = atomic_load(&w->first_bad);
            while (i < bad && !atomic_compare_exchange_weak(&w->first_bad, &bad, i))
                ;
        }
    }
    free(b.p);
    return NULL;
}

/* Two threads only when every name is a regular file: standard input
 * named twice, or a FIFO, must be read once, in order. */
static int all_regular(const record_work *w)
{
    struct stat st;

    for (size_t i = 0; i < w->nfiles; i++)
        if (strcmp(w->files[i].name, "-") == 0 || stat(w->files[i].name, &st) != 0 ||
            !S_ISREG(st.st_mode))
            return 0;
    return 1;
}

/* Every file's records, two files at a time (checking a record is hashing
 * a 256th of its share: combining a 1 GiB object reads 6 MB), then the
 * first failure in the order given is said. */
static int read_all_files(record_work *w, unsigned threads)
{
    pthread_t helper;
    int helped = threads > 1 && w->nfiles > 1 && all_regular(w) &&
                 thread_start(&helper, record_worker, w) == 0;
    size_t bad;

    record_worker(w);
    if (helped)
        pthread_join(helper, NULL);
    w->s->files = w->nfiles;
    bad = atomic_load(&w->first_bad);
    for (size_t i = 0; i <= bad && i < w->nfiles; i++) {
        if (w->files[i].err != 0) {
            report_error(w->files[i].name, w->files[i].err, NULL);
            return 0;
        }
        if (!w->files[i].parsed)
            return message_fail("%s", w->files[i].why);
        w->s->n += w->s->counts[i];
    }
    return 1;
}

static int read_records(OSSL_LIB_CTX *lib, char **files, unsigned threads, record_set *s)
{
    record_work w = {lib, s, NULL, 0, 0, 0};
    size_t at = 0;
    int ok;

    memset(s, 0, sizeof *s);
    while (files[w.nfiles] != NULL)
        w.nfiles++;
    atomic_store(&w.first_bad, w.nfiles);
    s->per_file = calloc(w.nfiles, sizeof *s->per_file);
    s->counts = calloc(w.nfiles, sizeof *s->counts);
    w.files = calloc(w.nfiles, sizeof *w.files);
    if (s->per_file == NULL || s->counts == NULL || w.files == NULL) {
        free(w.files);
        return message_fail("out of memory");
    }
    for (size_t i = 0; i < w.nfiles; i++)
        w.files[i].name = files[i];
    ok = read_all_files(&w, threads);
    free(w.files);
    if (!ok)
        return 0;
    if ((s->all = malloc(s->n * sizeof *s->all)) == NULL)
        return message_fail("out of memory");
    for (size_t i = 0; i < s->files; i++)
        for (size_t j = 0; j < s->counts[i]; j++)
            s->all[at++] = &s->per_file[i][j];
    return 1;
}

/* The family of the resolved options' algorithm, when the records are
 * parts of one object, made with it and with -C, and cover the object;
 * sorts s->all by range.  NULL (said) otherwise. */
static const family *records_family(const options *o, OSSL_LIB_CTX *lib, record_set *s)
{
    const family *f;
    uint8_t cdig[PART_DIGEST];

    if (o->evp->nalgs != 1 || (f = family_of(o->evp->alg->name)) == NULL) {
        message_fail("--combine: %s is not hashed in parts (only --k12, --kt256, --m14)",
             o->evp->alg->name);
        return NULL;
    }
    if (!part_digest(lib, custom_of(o), strlen(custom_of(o)), cdig)) {
        report_error("--combine", KSUM_EHASH, NULL);
        return NULL;
    }
    if (!records_agree(s->all, s->n, f->name, cdig))
        return NULL;
    qsort(s->all, s->n, sizeof *s->all, by_range);
    if (!records_cover(s->all, s->n))
        return NULL;
    return f;
}

/* The final node into ctx: the head, then every record's CVs in order.
 * A long output is squeezed as it is printed (KSUM_PARAM_SQUEEZE); a
 * shorter one is made here, into *sum. */
static int final_node(const options *o, const record_set *s, const part_record *head,
                      const hasher *h, const EVP_MD *md, EVP_MD_CTX *ctx, uint8_t **sum)
{
    const char *custom = custom_of(o);
    uint64_t length = head->length;
    size_t size = h->size;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, (void *)custom,
                                          strlen(custom)),
        OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &length),
        OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &size),
        OSSL_PARAM_END};
    int fed = md != NULL && ctx != NULL && EVP_DigestInit_ex2(ctx, md, p) &&
              EVP_DigestUpdate(ctx, head->head, head->head_len);

    for (size_t i = 0; fed && i < s->n; i++)
        fed = EVP_DigestUpdate(ctx, s->all[i]->cvs, s->all[i]->count * s->all[i]->cv_len);
    if (fed && !hasher_streams(h))
        fed = (*sum = malloc(h->size)) != NULL && EVP_DigestFinalXOF(ctx, *sum, h->size);
    if (!fed) {
        char why[512];
        openssl_reason(why, sizeof why);
        message_fail("%s: the parts' chaining values do not make the tree of a %" PRIu64
             "-byte object (a part holds too few or too many): %s", head->name,
             length, why);
    }
    return fed;
}

/* The sum line: sum, or squeezed from the final node in ctx when sum is
 * NULL. */
static int print_combined(const options *o, hasher *h, EVP_MD_CTX *ctx,
                          const part_record *head, const uint8_t *sum)
{
    sum_source src = {sum, h->size, sum == NULL ? h : NULL};
    char *name = head->name;
    EVP_MD_CTX *held = h->md_ctx;
    int err;

    h->md_ctx = ctx;   /* squeezed from the final node */
    err = print_sum_line(o, h, &name, 1, &src);
    h->md_ctx = held;
    if (err == KSUM_EHASH)
        message_fail("%s: the parts' chaining values do not make the tree of a %" PRIu64
             "-byte object (a part holds too few or too many)", head->name,
             head->length);
    return err == 0;
}

static int combine(options *o, OSSL_LIB_CTX *lib, resolved *r)
{
    record_set s;
    hasher h;
    EVP_MD *md = NULL;
    EVP_MD_CTX *ctx = NULL;
    const family *f;
    uint8_t *sum = NULL;
    const part_record *head = NULL;
    char *object[2] = {NULL, NULL};
    int ok = 0, opened = 0;

    if (!read_records(lib, o->files, o->threads ? o->threads : ksum_cpu_count(), &s))
        goto done;
    /* Without an algorithm switch, the records name it. */
    if (!o->alg_given) {
        o->choices[o->nchoices++] = (algorithm_choice){algorithm_find(s.all[0]->algorithm), NULL};
        o->alg_given = 1;
    }
    /* The options are judged for the one object the line names (--raw
     * prints one sum), not for the record files. */
    object[0] = s.all[0]->name;
    o->files = object;
    if (!options_resolve(o, lib, r) || (f = records_family(o, lib, &s)) == NULL)
        goto done;
    for (size_t i = 0; i < s.n; i++)
        if (s.all[i]->begin == 0 && s.all[i]->end > 0)
            head = s.all[i];
    if (!hasher_open(&h, lib, o->evp->alg, o))
        goto done;
    opened = 1;
    md = EVP_MD_fetch(lib, f->final, PROPS);
    ctx = EVP_MD_CTX_new();
    if (!final_node(o, &s, head, &h, md, ctx, &sum))
        goto done;
    ok = print_combined(o, &h, ctx, head, sum);
done:
    free(sum);
    EVP_MD_CTX_free(ctx);
    EVP_MD_free(md);
    if (opened)
        hasher_close(&h);
    record_set_free(&s);
    return ok;
}

/* ---- the options together ---- */

int parts_main(options *o, OSSL_LIB_CTX *lib, resolved *r)
{
    const family *f;

    /* options_judge saw to one way, one FILE and no --check */
    if (o->combine)
        return combine(o, lib, r);
    if (!options_resolve(o, lib, r))
        return 0;
    if (r->nalgs != 1 || (f = family_of(r->alg->name)) == NULL)
        return message_fail("%s: %s is not hashed in parts (only --k12, --kt256, --m14)",
                    o->part_share ? "--part" : "--part-range", r->alg->name);
    return write_part(o, lib, f);
}
