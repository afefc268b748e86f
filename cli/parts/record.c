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
#include "input/files.h"
#include "ksumprov.h"

#define PROPS "provider=" KSUMPROV_NAME

static const part_family families[] = {
    {"KANGAROOTWELVE", "KT128-CV", "KT128-FINAL", 32},
    {"KT256", "KT256-CV", "KT256-FINAL", 64},
    {"MARSUPILAMIFOURTEEN", "M14-CV", "M14-FINAL", 64},
};

const part_family *part_family_of(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strlen(families[i].name) == len && memcmp(families[i].name, name, len) == 0)
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

/* What a file that does not start as a record is told. */
#define NOT_A_RECORD "line %zu: not a part record of this version (it must start with '" \
    PART_MAGIC "')"
/* The most bytes the lines of a record before its head and CVs may take
 * (the name line holds a path given on a command line). */
#define HEADER_MAX ((size_t)256 << 10)
/* The longest line after them: a head line ("head ", base64 of 96 bytes,
 * '\n'); "cvs COUNT", "check HEX" and the cv lines are shorter. */
#define BODY_LINE_MAX (5 + BASE64_LENGTH(PART_HEAD_LINE) + 1)
/* Read before the text is first judged, and past twice what was judged. */
#define SCAN_SLACK ((size_t)64 << 10)

/* ---- reading records ---- */

typedef struct cursor {
    part_scan *s;           /* the file's records before this one */
    part_pool *pool;        /* where CVs go, or NULL: malloc */
    const char *p, *end;
    const char *start;      /* the record's first line */
    const char *line;       /* the current line, without its '\n' */
    size_t len;
    size_t lineno;
    int judge;              /* the text is still being read (part_scan_more): CVs are
                             * counted, not decoded, and no digest is computed */
    int cut;                /* the text ended before a line did */
    int body;               /* the record's header is whole */
    char why[256];          /* why the record is refused */
} cursor;

/* The reason the record is refused, into c->why; returns 0. */
#define refuse(c, ...) say((c)->why, sizeof (c)->why, __VA_ARGS__)

/* "line N: what", or "line N: out of memory" when got < 0; returns 0. */
static int bad_line(cursor *c, int got, const char *what)
{
    return refuse(c, "line %zu: %s", c->lineno, got < 0 ? "out of memory" : what);
}

/* A line of len bytes (without its '\n') at c->p, or the start of one,
 * that no record holds there: 0, refused.  The first line of a record is
 * judged by parse_header and cut_short. */
static int fits(cursor *c, size_t len)
{
    size_t most = c->body ? BODY_LINE_MAX : HEADER_MAX - (size_t)(c->p - c->start);

    return c->p == c->start || len < most ||
           refuse(c, "line %zu: %s", c->lineno + 1,
                  c->body ? "longer than any line of a part record"
                          : "a header longer than any part record's");
}

/* The next line; 0 at the end of the text or on a line without '\n' (a
 * truncated record, or one not yet read whole: c->cut), and on a line
 * longer than any record holds there (refused). */
static int next_line(cursor *c)
{
    const char *nl = c->p < c->end ? memchr(c->p, '\n', (size_t)(c->end - c->p)) : NULL;

    if (nl == NULL)
        return !(c->cut = 1);
    if (!fits(c, (size_t)(nl - c->p)))
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

/* A decimal number, with leading zeros only when zeros says so (a record
 * has none: it is read back only as it was written).  Past 20 digits it
 * overflows. */
static int parse_u64(const char *s, size_t n, int zeros, uint64_t *v)
{
    uint64_t x = 0;

    if (n == 0 || (n > 1 && s[0] == '0' && !zeros))
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

int part_parse_pair(const char *s, size_t n, char sep, int zeros, uint64_t *a, uint64_t *b)
{
    const char *at = memchr(s, sep, n);

    return at != NULL && parse_u64(s, (size_t)(at - s), zeros, a) &&
           parse_u64(at + 1, n - (size_t)(at - s) - 1, zeros, b);
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

/* The next header line, "key VALUE": 1 and *v, *vl; else 0 with the
 * reason (the text ends first, or the line is another: what). */
static int header_line(cursor *c, const char *key, const char *what, const char **v,
                       size_t *vl)
{
    /* a line too long said why already */
    if (!next_line(c))
        return c->cut && refuse(c, "truncated: it ends before its '%s' line (and its check)", key);
    return keyed(c, key, v, vl) || bad_line(c, 0, what);
}

/* The next line must be "key VALUE" with cond true of v and vl; else the
 * record is refused. */
#define WANT(key, cond, what)                                                  \
    do {                                                                       \
        if (!header_line(c, key, what, &v, &vl))                               \
            return 0;                                                          \
        if (!(cond))                                                           \
            return bad_line(c, 0, what);                                       \
    } while (0)

/* The file name, base64 in v[0..vl), into r->name (which record_free
 * frees, even when it is bad). */
static int parse_name(const char *v, size_t vl, part_record *r)
{
    size_t n;

    if ((r->name = malloc(vl + 1)) == NULL || !base64_decode(v, vl, (uint8_t *)r->name, &n) ||
        memchr(r->name, '\0', n) != NULL)
        return 0;
    r->name[n] = '\0';
    return 1;
}

/* The first record's object and split bound the file (a stream of
 * records repeated without end must not fill memory before combining
 * refuses a part given twice): no more than twice as many records as the
 * split has parts, and a few (records of no chunk hold no cv line); and
 * see cv_lines.  The record's header is then whole. */
static int records_fit(cursor *c, const part_record *r)
{
    part_scan *s = c->s;

    if (s->records == 0) {
        s->chunks = part_chunks(r->length);
        s->parts = r->shares != 0 ? r->shares : s->chunks;
    }
    if (s->records >= 2 * s->parts + 16)
        return refuse(c, "line %zu: more than twice as many records in the file as the split "
                      "of its first record has parts (%" PRIu64 "): a part given twice or "
                      "more, or of another object or split", c->lineno, s->parts);
    c->body = 1;
    return 1;
}

/* The lines from the first (read) to "chunks". */
static int parse_header(cursor *c, part_record *r)
{
    const char *v;
    size_t vl;

    if (c->len != strlen(PART_MAGIC) || memcmp(c->line, PART_MAGIC, c->len) != 0)
        return refuse(c, NOT_A_RECORD, c->lineno);
    WANT("algorithm", (r->family = part_family_of(v, vl)) != NULL,
         "no algorithm that ksum hashes in parts");
    r->cv_len = r->family->cv_len;
    WANT("customization", parse_digest(v, vl, r->custom), "a bad customization digest");
    WANT("object", parse_u64(v, vl, 0, &r->length) && r->length < ((uint64_t)1 << 62),
         "a bad object length");
    WANT("first", parse_digest(v, vl, r->first), "a bad first-chunk digest");
    WANT("last", parse_digest(v, vl, r->last), "a bad last-chunk digest");
    WANT("name", 1, "no name line");
    if (!parse_name(v, vl, r))
        return bad_line(c, r->name == NULL ? -1 : 0, "a bad name");
    /* "- -" for --part-range: 0 0 */
    WANT("share", (vl == 3 && memcmp(v, "- -", 3) == 0) ||
                      (part_parse_pair(v, vl, ' ', 0, &r->share, &r->shares) &&
                       (r->shares == 0 || (r->share >= 1 && r->share <= r->shares))),
         "a bad share (K N, or - -)");
    WANT("chunks", part_parse_pair(v, vl, ' ', 0, &r->begin, &r->end) && r->begin <= r->end &&
                       r->end <= part_chunks(r->length),
         "a bad chunk range for the object's length");
    return records_fit(c, r);
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
 * text holds), then decoded straight into r->cvs (when not judging).  A
 * file's records of one object hold a CV for each of its chunks but the
 * first, and the customization's once: twice that is more than a part
 * given twice.  1 and the cursor at the last; else 0, refused (any "cv"
 * line after the run is bad too). */
static int cv_lines(cursor *c, part_record *r)
{
    size_t text = BASE64_LENGTH(r->cv_len), line = 3 + text + 1, n = 0, got;
    /* a line that ends in the padding of cv_len bytes decodes to no more
     * than cv_len */
    size_t pad = (3 - r->cv_len % 3) % 3;
    uint64_t most = 2 * (c->s->chunks + KSUMPROV_PART_MAX_CHUNKS);
    const char *p = c->line;

    while ((size_t)(c->end - p) >= line && p[0] == 'c' && p[1] == 'v' && p[2] == ' ' &&
           p[line - 1] == '\n' && (pad < 1 || p[line - 2] == '=') &&
           (pad < 2 || p[line - 3] == '=')) {
        p += line;
        n++;
    }
    if (n == 0)
        return bad_line(c, 0, "a bad cv line");
    if (c->s->cvs + n > most)
        return refuse(c, "line %zu: more than twice as many cv lines in the file as the object "
                      "of its first record has chunks (%" PRIu64 "): a part given twice or "
                      "more, or of another object", c->lineno + (size_t)(most - c->s->cvs),
                      c->s->chunks);
    if (!c->judge && (r->cvs = cv_alloc(c->pool, r, n * r->cv_len)) == NULL)
        return bad_line(c, -1, "");
    /* judging, they are only counted */
    for (size_t i = 0; i < n && !c->judge; i++, c->lineno++)
        if (!base64_decode(c->line + i * line + 3, text, r->cvs + i * r->cv_len, &got) ||
            got != r->cv_len)
            return bad_line(c, 0, "a bad cv line");
    c->lineno = c->judge ? c->lineno + n - 1 : c->lineno - 1;
    r->count = n;
    c->line += (n - 1) * line;
    c->len = line - 1;
    c->p = c->line + line;
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
        if (!cv_lines(c, r))
            return 0;
        more = next_line(c);
    }
    if (!more)
        return c->cut && refuse(c, "truncated: it ends before its 'cvs' line (and its check)");
    /* past the cv lines, neither a head line nor a cv line is good */
    if (keyed(c, "head", &v, &vl) || keyed(c, "cv", &v, &vl))
        return bad_line(c, 0, c->line[0] == 'h' ? "a bad head line" : "a bad cv line");
    if (!keyed(c, "cvs", &v, &vl) || !parse_u64(v, vl, 0, &cvs_said))
        return bad_line(c, 0, "a bad line where 'cvs COUNT' belongs");
    if (cvs_said != r->count)
        return refuse(c, "truncated or corrupted: %zu cv lines, 'cvs' says %" PRIu64,
                      r->count, cvs_said);
    return cvs_fit_range(c, r);
}

/* The digest of in[0..len) is want; else 0, refused: it could not be
 * computed (failed), or it is another (wrong). */
static int digest_is(OSSL_LIB_CTX *lib, cursor *c, const void *in, size_t len,
                     const uint8_t want[PART_DIGEST], const char *failed, const char *wrong)
{
    uint8_t got[PART_DIGEST];

    if (!part_digest(lib, in, len, got))
        return part_failure(c->why, sizeof c->why, failed);
    return CRYPTO_memcmp(want, got, PART_DIGEST) == 0 || refuse(c, "%s", wrong);
}

/* The "check" line: the digest of the record's lines from its start to
 * the cursor (just past "cvs"). */
static int parse_check(OSSL_LIB_CTX *lib, cursor *c)
{
    size_t hashed = (size_t)(c->p - c->start), vl;
    const char *v;
    uint8_t want[PART_DIGEST];

    if (!next_line(c))
        return c->cut && refuse(c, "truncated: no 'check' line");
    if (!keyed(c, "check", &v, &vl) || !parse_digest(v, vl, want))
        return bad_line(c, 0, "a bad line where 'check DIGEST' belongs");
    return c->judge || digest_is(lib, c, c->start, hashed, want, "cannot compute its check",
                                 "corrupted: its contents do not match its check");
}

/* The whole first chunk in the record of chunk 0, and in no other; and
 * it is the chunk its "first" line names: the head is what the final node
 * absorbs, the "first" digest what the records are compared by, and a
 * record whose two disagree would give the digest of another object. */
static int head_fits(OSSL_LIB_CTX *lib, cursor *c, const part_record *r)
{
    uint64_t first_len = r->length < PART_CHUNK ? r->length : PART_CHUNK;
    int has0 = r->begin == 0 && r->end > 0;

    if ((has0 && r->head_len != first_len) || (!has0 && r->head != NULL))
        return refuse(c, "the head (the first chunk) is %s",
                      has0 ? "incomplete" : "in a part that does not start the object");
    return !has0 || c->judge ||
           digest_is(lib, c, r->head, r->head_len, r->first,
                     "cannot compute the digest of its head",
                     "its head (the first chunk) is not the chunk its 'first' line names");
}

/* One record from the cursor, which is at its first line (not read). */
static int parse_record(OSSL_LIB_CTX *lib, cursor *c, part_record *r)
{
    c->start = c->p;
    c->body = 0;
    return next_line(c) && parse_header(c, r) && parse_body(c, r) && parse_check(lib, c) &&
           head_fits(lib, c, r);
}

/* Where the text ended before a line did (c->cut): at the end of the
 * records, or (when judging) where reading stands, 1; else 0 with the
 * reason: the record is cut short, or what was read of its line is
 * already more than any record holds. */
static int cut_short(cursor *c)
{
    static const char magic[] = PART_MAGIC "\n";
    size_t left = (size_t)(c->end - c->p);

    if (c->p != c->start)
        return fits(c, left) && c->judge;
    if (memcmp(c->p, magic, left < sizeof magic - 1 ? left : sizeof magic - 1) != 0)
        return refuse(c, NOT_A_RECORD, c->lineno + 1);
    return c->judge || left == 0 || refuse(c, "truncated: a last line without its end");
}

/* The records of the text from the cursor on, each kept in *recs (judge:
 * dropped), until the text ends: 1 when it ends as it may (cut_short),
 * else 0 with the reason in why, naming the file and the record. */
static int next_records(OSSL_LIB_CTX *lib, cursor *c, const char *text, part_record **recs,
                        size_t *n, char *why, size_t why_size)
{
    part_scan *s = c->s;
    size_t cap = 0;

    for (;;) {
        part_record r = {.file = s->file, .index = s->records + 1};
        if (!parse_record(lib, c, &r)) {
            record_free(&r);
            if (c->cut && cut_short(c))
                return 1;
            break;
        }
        s->cvs += r.count;
        s->done = (size_t)(c->p - text);
        s->lineno = c->lineno;
        if (c->judge) {
            record_free(&r);
        } else if (!grow_array(recs, &cap, *n + 1, sizeof r, 4)) {
            record_free(&r);
            refuse(c, "out of memory");
            break;
        } else {
            (*recs)[(*n)++] = r;
        }
        s->records++;
    }
    return say(why, why_size, "%s: part record %zu: %s", s->file, s->records + 1, c->why);
}

void part_scan_init(part_scan *s, const char *file)
{
    memset(s, 0, sizeof *s);
    s->file = file;
    s->room = HEADER_MAX + SCAN_SLACK;
}

int part_scan_more(part_scan *s, const char *text, size_t len, size_t *room, char *why,
                   size_t why_size)
{
    cursor c = {.s = s, .p = text + s->done, .end = text + len, .lineno = s->lineno,
                .judge = 1};

    if (len >= s->room) {
        if (!next_records(NULL, &c, text, NULL, NULL, why, why_size))
            return 0;
        s->room = len < SIZE_MAX / 2 - SCAN_SLACK ? 2 * len + SCAN_SLACK : SIZE_MAX;
    }
    *room = s->room;
    return 1;
}

int part_records_parse(OSSL_LIB_CTX *lib, const char *file, const char *text, size_t len,
                       part_pool *pool, part_record **recs, size_t *n, char *why,
                       size_t why_size)
{
    part_scan s;
    cursor c = {.s = &s, .pool = pool, .p = text, .end = text + len};

    part_scan_init(&s, file);
    *recs = NULL;
    *n = 0;
    return next_records(lib, &c, text, recs, n, why, why_size) &&
           (*n > 0 || say(why, why_size, "%s: no part record", file));
}
