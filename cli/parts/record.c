/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The part record (docs/parts.md): the functions hashed in parts, the
 * digests a record carries, and reading records back.  parts.c writes
 * them and combines them; the fuzzer reads them.
 */
#include "parts/record.h"

#include <inttypes.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/encoding.h"
#include "base/messages.h"
#include "ksumprov.h"

#define PROPS "provider=" KSUMPROV_NAME

static const part_family families[] = {
    {"KANGAROOTWELVE", "KT128-CV", "KT128-FINAL", 32},
    {"KT256", "KT256-CV", "KT256-FINAL", 64},
    {"MARSUPILAMIFOURTEEN", "M14-CV", "M14-FINAL", 64},
};

const part_family *part_family_of(const char *name)
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

int part_check_begin(OSSL_LIB_CTX *lib, EVP_MD_CTX *ctx)
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

int part_digest(OSSL_LIB_CTX *lib, const void *in, size_t len, uint8_t out[PART_DIGEST])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL && part_check_begin(lib, ctx) && EVP_DigestUpdate(ctx, in, len) &&
             EVP_DigestFinalXOF(ctx, out, PART_DIGEST);

    EVP_MD_CTX_free(ctx);
    return ok;
}

int part_provider_said(unsigned long e, int reason)
{
    const char *lib = ERR_lib_error_string(e);

    return e != 0 && ERR_GET_REASON(e) == reason && lib != NULL &&
           strcmp(lib, KSUMPROV_NAME) == 0;
}

int part_out_of_memory(void)
{
    unsigned long e = ERR_peek_error();

    return e == 0 || ERR_GET_REASON(e) == ERR_R_MALLOC_FAILURE ||
           part_provider_said(e, KSUMPROV_R_ALLOC);
}

/* fmt into why; returns 0, so that a refusal is one return. */
__attribute__((format(printf, 3, 4))) static int say(char *why, size_t size,
                                                     const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return 0;
}

int part_failure(char *why, size_t size, const char *what)
{
    int n;

    if (part_out_of_memory()) {
        ERR_clear_error();
        return say(why, size, "out of memory");
    }
    n = snprintf(why, size, "%s: ", what);
    if (n > 0 && (size_t)n < size)
        openssl_reason(why + n, size - (size_t)n);
    return 0;
}

/* What a file that does not start as a record is told, by the parser and
 * the scan alike. */
#define NOT_A_RECORD "line %zu: not a part record of this version (it must start with '" \
    PART_MAGIC "')"

/* ---- reading records ---- */

typedef struct cursor {
    part_pool *pool;        /* where CVs go, or NULL: malloc */
    const char *p, *end;
    const char *line;       /* the current line, without its '\n' */
    size_t len;
    size_t lineno;
    char *why;              /* why the record is refused */
    size_t why_size;
} cursor;

/* The reason the record is refused, into c->why; returns 0. */
#define refuse(c, ...) say((c)->why, (c)->why_size, __VA_ARGS__)

/* "line N: what", or "line N: out of memory" when got < 0; returns 0. */
static int bad_line(cursor *c, int got, const char *what)
{
    return refuse(c, "line %zu: %s", c->lineno, got < 0 ? "out of memory" : what);
}

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

/* Two decimal numbers. */
static int parse_two(const char *s, size_t n, uint64_t *a, uint64_t *b)
{
    const char *sp = memchr(s, ' ', n);

    return sp != NULL && parse_u64(s, (size_t)(sp - s), a) &&
           parse_u64(sp + 1, n - (size_t)(sp - s) - 1, b);
}

static void record_free(part_record *r)
{
    free(r->name);
    free(r->head);
    if (!r->pooled)
        free(r->cvs);
    memset(r, 0, sizeof *r);
}

void part_records_free(part_record *recs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        record_free(&recs[i]);
    free(recs);
}

/* The next line must be "key VALUE" with cond true of v and vl; else the
 * record is refused. */
#define WANT(key, cond, what)                                                  \
    do {                                                                       \
        if (!next_line(c))                                                     \
            return refuse(c, "truncated: it ends before its '%s' line "        \
                          "(and its check)", key);                             \
        if (!keyed(c, key, &v, &vl) || !(cond))                                \
            return bad_line(c, 0, what);                                       \
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
static int parse_header(cursor *c, part_record *r)
{
    const char *v;
    size_t vl;
    const part_family *f;

    if (c->len != strlen(PART_MAGIC) || memcmp(c->line, PART_MAGIC, c->len) != 0)
        return refuse(c, NOT_A_RECORD, c->lineno);
    WANT("algorithm", vl < sizeof r->algorithm, "no algorithm that ksum hashes in parts");
    memcpy(r->algorithm, v, vl);
    r->algorithm[vl] = '\0';
    if ((f = part_family_of(r->algorithm)) == NULL)
        return bad_line(c, 0, "no algorithm that ksum hashes in parts");
    r->cv_len = f->cv_len;
    WANT("customization", parse_digest(v, vl, r->custom), "a bad customization digest");
    WANT("object", parse_u64(v, vl, &r->length) && r->length < ((uint64_t)1 << 62),
         "a bad object length");
    WANT("first", parse_digest(v, vl, r->first), "a bad first-chunk digest");
    WANT("last", parse_digest(v, vl, r->last), "a bad last-chunk digest");
    WANT("name", 1, "no name line");
    if (!parse_name(v, vl, r))
        return bad_line(c, r->name == NULL ? -1 : 0, "a bad name");
    /* "- -" for --part-range: 0 0 */
    WANT("share", (vl == 3 && memcmp(v, "- -", 3) == 0) ||
                      (parse_two(v, vl, &r->share, &r->shares) &&
                       (r->shares == 0 || (r->share >= 1 && r->share <= r->shares))),
         "a bad share (K N, or - -)");
    WANT("chunks", parse_two(v, vl, &r->begin, &r->end) && r->begin <= r->end &&
                       r->end <= part_chunks(r->length),
         "a bad chunk range for the object's length");
    return 1;
}

#undef WANT

int part_pool_open(part_pool *pool, size_t size)
{
    memset(pool, 0, sizeof *pool);
    atomic_init(&pool->used, 0);
    return (pool->base = big_alloc(size, &pool->size)) != NULL;
}

void part_pool_close(part_pool *pool)
{
    big_free(pool->base, pool->size);
    pool->base = NULL;
}

/* n bytes for r's CVs: from the pool while it has them (8-byte aligned
 * pieces, taken by any thread), else malloc'd. */
static uint8_t *cv_alloc(part_pool *pool, part_record *r, size_t n)
{
    size_t take = (n + 7) & ~(size_t)7;

    if (pool != NULL && pool->base != NULL && take >= n && take <= pool->size) {
        size_t at = atomic_fetch_add(&pool->used, take);
        if (at <= pool->size - take) {
            r->pooled = 1;
            return pool->base + at;
        }
    }
    r->pooled = 0;
    return malloc(n);
}

/* A head line: 1 to PART_HEAD_LINE bytes of the first chunk, appended to
 * r->head (PART_CHUNK bytes in all at most).  1; 0 for a bad line; -1 when
 * out of memory. */
static int head_line(part_record *r, const char *v, size_t vl)
{
    size_t got;

    if (vl > BASE64_LENGTH(PART_HEAD_LINE))
        return 0;
    /* room for a whole line past the chunk: decoded before it is judged */
    if (r->head == NULL && (r->head = malloc(PART_CHUNK + PART_HEAD_LINE)) == NULL)
        return -1;
    return base64_decode(v, vl, r->head + r->head_len, &got) &&
           (r->head_len += got) <= PART_CHUNK;
}

/* The run of cv lines from the cursor's line on, each exactly "cv ", the
 * base64 of cv_len bytes and '\n': found without a search for their ends
 * (a gigabyte has 131,072 of them), counted first so that their room is
 * taken once, at its size (a forged range cannot allocate more than the
 * text holds), then decoded straight into r->cvs.  1 and the cursor at
 * the last; 0 and the cursor at a bad one (any "cv" line after the run
 * is bad too); -1 when out of memory. */
static int cv_lines(cursor *c, part_record *r)
{
    size_t text = BASE64_LENGTH(r->cv_len), line = 3 + text + 1, n = 0, got;
    /* a line that ends in the padding of cv_len bytes decodes to no more
     * than cv_len */
    size_t pad = (3 - r->cv_len % 3) % 3;
    const char *p = c->line;

    while ((size_t)(c->end - p) >= line && memcmp(p, "cv ", 3) == 0 && p[line - 1] == '\n' &&
           memcmp(p + line - 1 - pad, "==", pad) == 0) {
        p += line;
        n++;
    }
    if (n == 0)
        return 0;
    if ((r->cvs = cv_alloc(c->pool, r, n * r->cv_len)) == NULL)
        return -1;
    for (p = c->line;; p += line, c->lineno++) {
        if (!base64_decode(p + 3, text, r->cvs + r->count * r->cv_len, &got) ||
            got != r->cv_len)
            return 0;
        if (++r->count == n)
            break;
    }
    c->line = p;
    c->len = line - 1;
    c->p = p + line;
    return 1;
}

/* A record holds the CVs of its range's chunks (chunk 0 has none: its
 * bytes are the head), and only the one that ends the object holds more:
 * the customization's chunks', and only when its range holds chunks (an
 * empty share's CVs would be skipped, not absorbed).  CVs moved from one
 * record to the next leave both checks good and the order whole, but are
 * not what ksum wrote. */
static int cvs_fit_range(cursor *c, const part_record *r)
{
    uint64_t own = r->end - r->begin - (r->begin == 0 && r->end > 0);
    int ends = r->end == part_chunks(r->length) && r->begin < r->end;

    if (r->count < own || (!ends && r->count > own))
        return refuse(c, "%zu cv lines where chunks %" PRIu64 " to %" PRIu64 " of the object "
                      "need %" PRIu64 "%s", r->count, r->begin, r->end, own,
                      ends ? " or more" : "");
    return 1;
}

/* The head lines (the record of chunk 0), the cv lines, then the count. */
static int parse_body(cursor *c, part_record *r)
{
    const char *v;
    size_t vl;
    uint64_t cvs_said;
    int more, got;

    for (more = next_line(c); more && keyed(c, "head", &v, &vl); more = next_line(c))
        if ((got = head_line(r, v, vl)) <= 0)
            return bad_line(c, got, "a bad head line");
    if (more && keyed(c, "cv", &v, &vl)) {
        if ((got = cv_lines(c, r)) <= 0)
            return bad_line(c, got, "a bad cv line");
        more = next_line(c);
    }
    if (!more)
        return refuse(c, "truncated: it ends before its 'cvs' line (and its check)");
    /* past the cv lines, neither a head line nor a cv line is good */
    if (keyed(c, "head", &v, &vl) || keyed(c, "cv", &v, &vl))
        return bad_line(c, 0, c->line[0] == 'h' ? "a bad head line" : "a bad cv line");
    if (!keyed(c, "cvs", &v, &vl) || !parse_u64(v, vl, &cvs_said))
        return bad_line(c, 0, "a bad line where 'cvs COUNT' belongs");
    if (cvs_said != r->count)
        return refuse(c, "truncated or corrupted: %zu cv lines, 'cvs' says %" PRIu64,
                      r->count, cvs_said);
    return cvs_fit_range(c, r);
}

/* The "check" line: the digest of the record's lines from start to the
 * cursor (just past "cvs"). */
static int parse_check(OSSL_LIB_CTX *lib, cursor *c, const char *start)
{
    size_t hashed = (size_t)(c->p - start), vl;
    const char *v;
    uint8_t want[PART_DIGEST], got[PART_DIGEST];

    if (!next_line(c))
        return refuse(c, "truncated: no 'check' line");
    if (!keyed(c, "check", &v, &vl) || !parse_digest(v, vl, want))
        return bad_line(c, 0, "a bad line where 'check DIGEST' belongs");
    if (!part_digest(lib, start, hashed, got))
        return part_failure(c->why, c->why_size, "cannot compute its check");
    if (CRYPTO_memcmp(want, got, PART_DIGEST) != 0)
        return refuse(c, "corrupted: its contents do not match its check");
    return 1;
}

/* The whole first chunk in the record of chunk 0, and in no other; and
 * it is the chunk its "first" line names: the head is what the final node
 * absorbs, the "first" digest what the records are compared by, and a
 * record whose two disagree would give the digest of another object. */
static int head_fits(OSSL_LIB_CTX *lib, cursor *c, const part_record *r)
{
    uint64_t first_len = r->length < PART_CHUNK ? r->length : PART_CHUNK;
    int has0 = r->begin == 0 && r->end > 0;
    uint8_t d[PART_DIGEST];

    if ((has0 && r->head_len != first_len) || (!has0 && r->head != NULL))
        return refuse(c, "the head (the first chunk) is %s",
                      has0 ? "incomplete" : "in a part that does not start the object");
    if (!has0)
        return 1;
    if (!part_digest(lib, r->head, r->head_len, d))
        return part_failure(c->why, c->why_size, "cannot compute the digest of its head");
    if (CRYPTO_memcmp(d, r->first, PART_DIGEST) != 0)
        return refuse(c, "its head (the first chunk) is not the chunk its 'first' line names");
    return 1;
}

/* One record from the cursor, which is at its first line (read). */
static int parse_record(OSSL_LIB_CTX *lib, cursor *c, part_record *r)
{
    const char *start = c->line;

    return parse_header(c, r) && parse_body(c, r) && parse_check(lib, c, start) &&
           head_fits(lib, c, r);
}

/* ---- how far a reader may go ---- */

/* The lines of a record before its head and CVs, and the most bytes they
 * may take (the name line holds a path given on a command line). */
#define HEADER_LINES 9
#define HEADER_MAX ((size_t)256 << 10)
/* The longest line after them: a head line ("head ", base64 of 96 bytes,
 * '\n'); "cvs COUNT", "check HEX" and the cv lines are shorter. */
#define BODY_LINE_MAX (5 + BASE64_LENGTH(PART_HEAD_LINE) + 1)
#define HEAD_LINES ((PART_CHUNK + PART_HEAD_LINE - 1) / PART_HEAD_LINE)
/* Read ahead of what was judged, so that reading never goes a byte at a
 * time. */
#define SCAN_SLACK ((size_t)64 << 10)

void part_scan_init(part_scan *s, const char *file)
{
    memset(s, 0, sizeof *s);
    s->file = file;
}

/* The header, whole in text[s->start..s->at): judged by the parser's own
 * code; the record's range then bounds what it may hold. */
static int scan_header(part_scan *s, const char *text, char *why, size_t why_size)
{
    cursor c = {.p = text + s->start, .end = text + s->at,
                .lineno = s->lineno - HEADER_LINES, .why = why, .why_size = why_size};
    part_record r;
    int ok;

    memset(&r, 0, sizeof r);
    ok = next_line(&c) && parse_header(&c, &r);
    if (ok) {
        /* head lines, a cv line for each chunk and the customization's,
         * "cvs" and "check" */
        uint64_t lines = HEAD_LINES + (r.end - r.begin) + KSUMPROV_PART_MAX_CHUNKS + 2;
        s->limit = (uint64_t)s->at + lines * BODY_LINE_MAX;
        s->cv_line = 3 + BASE64_LENGTH(r.cv_len) + 1;
        s->range_begin = r.begin;
        s->range_end = r.end;
        if (s->chunks == 0) {
            s->chunks = part_chunks(r.length);
            s->parts = r.shares != 0 ? r.shares : s->chunks;
        }
        /* twice the parts and a few, as for the cv lines */
        if (s->records >= 2 * s->parts + 16)
            ok = refuse(&c, "line %zu: more than twice as many records in the file as the "
                        "split of its first record has parts (%" PRIu64 "): a part given "
                        "twice or more, or of another object or split", c.lineno, s->parts);
    }
    free(r.name);
    return ok;
}

/* A record past what its range allows: 0 with why. */
static int over_limit(const part_scan *s, char *why, size_t why_size)
{
    return say(why, why_size, "line %zu: more than a record of chunks %" PRIu64 " to %"
               PRIu64 " can hold", s->lineno, s->range_begin, s->range_end);
}

/* The line at s->at, of avail bytes at most, judged; 1 and s->at past it,
 * -1 when it is not whole yet, 0 with why when it cannot be a record's. */
static int scan_line(part_scan *s, const char *text, size_t avail, char *why,
                     size_t why_size)
{
    static const char magic[] = PART_MAGIC "\n";
    const char *p = text + s->at, *nl;
    size_t max;

    if (s->line == 0) {
        size_t k = avail < sizeof magic - 1 ? avail : sizeof magic - 1;
        if (memcmp(p, magic, k) != 0)
            return say(why, why_size, NOT_A_RECORD, s->lineno + 1);
        if (k < sizeof magic - 1)
            return -1;
        s->start = s->at;
        s->at += k;
        s->lineno++;
        s->line = 1;
        s->cv_line = 0;
        return 1;
    }
    max = s->line < HEADER_LINES ? HEADER_MAX - (s->at - s->start) : BODY_LINE_MAX;
    if ((nl = memchr(p, '\n', avail < max ? avail : max)) == NULL) {
        if (avail < max)
            return -1;
        return say(why, why_size, "line %zu: %s", s->lineno + 1,
                   s->line < HEADER_LINES ? "a header longer than any part record's"
                                          : "longer than any line of a part record");
    }
    s->at += (size_t)(nl - p) + 1;
    s->lineno++;
    if (++s->line == HEADER_LINES && !scan_header(s, text, why, why_size))
        return 0;
    if (s->line > HEADER_LINES && (uint64_t)s->at > s->limit)
        return over_limit(s, why, why_size);
    if (s->line > HEADER_LINES && nl - p > 3 && memcmp(p, "cv ", 3) == 0)
        s->cvs++;
    if (s->line > HEADER_LINES && nl - p > 6 && memcmp(p, "check ", 6) == 0) {
        s->line = 0;    /* the record's last line: the next one may begin */
        s->records++;
    }
    return 1;
}

/* Well-formed cv lines at s->at, skipped without a search for their ends
 * (a gigabyte has many): only their count and length are judged here;
 * the parser judges their contents. */
static void skip_cv_lines(part_scan *s, const char *text, size_t len)
{
    const char *p = text + s->at, *end = text + len;
    size_t line = s->cv_line, n = 0;

    if (s->line <= HEADER_LINES)
        return;
    while ((size_t)(end - p) >= line && p[line - 1] == '\n' && p[0] == 'c' && p[1] == 'v' &&
           p[2] == ' ') {
        p += line;
        n++;
    }
    s->at = (size_t)(p - text);
    s->lineno += n;
    s->cvs += n;
}

/* A file's records of one object hold a CV for each of its chunks but the
 * first, and the customization's once; twice that is more than a part
 * given twice, which combining refuses anyway, naming it (only a stream
 * of records repeated without end must not fill memory first). */
static int scan_cvs_fit(const part_scan *s, char *why, size_t why_size)
{
    return s->cvs <= 2 * (s->chunks + KSUMPROV_PART_MAX_CHUNKS) ||
           say(why, why_size, "line %zu: more than twice as many cv lines in the file as the "
               "object of its first record has chunks (%" PRIu64 "): a part given twice or "
               "more, or of another object", s->lineno, s->chunks);
}

int part_scan_more(part_scan *s, const char *text, size_t len, size_t *room, char *why,
                   size_t why_size)
{
    char reason[256];
    uint64_t end;
    int got = 1;

    while (s->at < len) {
        skip_cv_lines(s, text, len);
        if (!scan_cvs_fit(s, reason, sizeof reason))
            got = 0;
        else if ((uint64_t)s->at > s->limit && s->line > HEADER_LINES)
            got = over_limit(s, reason, sizeof reason);
        else if (s->at < len &&
                 (got = scan_line(s, text, len - s->at, reason, sizeof reason)) < 0)
            break;
        if (got == 0)
            return say(why, why_size, "%s: part record %zu: %s", s->file, s->records + 1,
                       reason);
    }
    end = s->line == 0 ? s->at + HEADER_MAX
          : s->line < HEADER_LINES ? s->start + HEADER_MAX : s->limit;
    end += SCAN_SLACK;
    *room = end < SIZE_MAX ? (size_t)end : SIZE_MAX;
    return 1;
}

int part_records_parse(OSSL_LIB_CTX *lib, const char *file, const char *text,
                       size_t len, part_pool *pool,
                       part_record **recs, size_t *n, char *why,
                       size_t why_size)
{
    char reason[256];
    cursor c = {.pool = pool, .p = text, .end = text + len, .why = reason,
                .why_size = sizeof reason};
    size_t cap = 0;

    *recs = NULL;
    *n = 0;
    while (next_line(&c)) {
        part_record *r;
        if (*n == cap) {
            part_record *p = realloc(*recs, (cap = cap ? 2 * cap : 4) * sizeof *p);
            if (p == NULL)
                return say(why, why_size, "%s: out of memory", file);
            *recs = p;
        }
        r = &(*recs)[*n];
        memset(r, 0, sizeof *r);
        r->file = file;
        r->index = *n + 1;
        if (!parse_record(lib, &c, r)) {
            record_free(r);
            return say(why, why_size, "%s: part record %zu: %s", file, *n + 1, reason);
        }
        (*n)++;
    }
    if (c.p < c.end)
        return say(why, why_size, "%s: part record %zu: truncated: a last line without "
                   "its end", file, *n + 1);
    return *n > 0 || say(why, why_size, "%s: no part record", file);
}
