/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --part, --part-range and --combine (format in docs/parts.md).
 * The tree itself is the provider's: this file reads byte ranges, writes
 * and checks records, and hands bytes and chaining values to the -CV and
 * -FINAL algorithms through EVP.  It never computes a CV or a final node.
 */
#include "parts/parts.h"
#include "parts/record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/core_names.h>
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

#include "base/bigmem.h"
#include "base/encoding.h"
#include "base/thread.h"
#include "front/hasher.h"
#include "front/resolve.h"
#include "input/files.h"
#include "ksumprov.h"
#include "report/output.h"

#define PROPS "provider=" KSUMPROV_NAME
/* Chunks one CV context takes: 4 MiB, leaving room under the provider's
 * KSUMPROV_PART_MAX_CHUNKS for the chunks a customization string adds. */
#define SEGMENT_CHUNKS 512
#define SEGMENT_BYTES ((uint64_t)SEGMENT_CHUNKS * PART_CHUNK)
#define READ_PIECE ((size_t)1 << 20)

_Static_assert(PART_CHUNK * SEGMENT_CHUNKS <= (size_t)16 << 20, "one read buffer");
_Static_assert(SEGMENT_CHUNKS + 64 <= KSUMPROV_PART_MAX_CHUNKS, "room for C");

/* -C's text, or "": a record and the final node carry it. */
static const char *custom_of(const hash_spec *spec)
{
    const char *custom = hash_spec_text(spec, KSUM_PARAM_CUSTOM);

    return custom != NULL ? custom : "";
}

/* *f: the family of the one algorithm the options name; else said, for
 * the option `road`, and 0. */
static int one_family(size_t nalgs, const char *alg, const char *road,
                      const part_family **f)
{
    if (nalgs != 1)
        return message_fail("%s takes one algorithm (--k12, --kt256 or --m14), not %zu",
                            road, nalgs);
    if ((*f = part_family_of(alg, strlen(alg))) == NULL)
        return message_fail("%s: %s is not hashed in parts (only --k12, --kt256, --m14)",
                            road, alg);
    return 1;
}

/* ---- writing a record ---- */

/* The file --part reads: the object is its bytes from base (standard
 * input's offset: what `ksum -` would hash) for length bytes, as its size
 * said when it was opened. */
typedef struct source {
    const char *name;
    int fd;
    struct stat st;
    uint64_t base, length;
} source;

/* One --part run: what it uses of the options, taken once (parts_write),
 * the file, and the record as it is written. */
typedef struct part_job {
    OSSL_LIB_CTX *lib;
    const part_family *f;
    const char *custom;             /* -C, or "" */
    unsigned threads;               /* --threads; 0: the provider's choice */
    source src;
    uint64_t chunks;                /* the object's */
    uint64_t begin, end;            /* chunks [begin, end) */
    uint64_t k, n;                  /* share K of N; 0 0 for --part-range */
    uint8_t cdig[PART_DIGEST], first[PART_DIGEST], last[PART_DIGEST];
    uint8_t chunk[PART_CHUNK];      /* the first chunk, for the head lines */
    size_t first_len;
    EVP_MD_CTX *check;              /* the digest of every line before "check" */
    int ok;                         /* every line so far written and digested */
} part_job;

/* Lines already formatted, into the record and its check. */
static void put_block(part_job *j, const char *text, size_t len)
{
    if (!EVP_DigestUpdate(j->check, text, len))
        j->ok = 0;
    fwrite(text, 1, len, stdout);
    if (!output_ok())
        j->ok = 0;
}

__attribute__((format(printf, 2, 3))) static void put(part_job *j, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line)
        j->ok = 0;
    else
        put_block(j, line, (size_t)n);
}

/* A file --part cannot plan: its size is not known before it is read. */
static int size_unknown(const char *name)
{
    return message_fail("%s: its size cannot be known before it is read (a file of /proc, "
                        "/sys or the like), so --part cannot plan its ranges: hash it "
                        "whole, without --part", name);
}

/* Reports why the bytes of src were not all there: a read error, a file
 * that changed, or one whose size is not what it holds although nothing
 * changed (a file system that makes its contents as they are read). */
static int source_failed(const source *src, int err)
{
    if (err != 0)
        report_error(src->name, err, NULL);
    else if (!file_unchanged(src->fd, &src->st))
        report_error(src->name, KSUM_ECHANGED, NULL);
    else
        size_unknown(src->name);
    return 0;
}

/* Exactly len bytes of the object at off, or 0 (reported). */
static int source_read(const source *src, uint8_t *buf, size_t len, uint64_t off)
{
    int err;

    return read_full_at(src->fd, buf, len, (off_t)(src->base + off), &err) == len ||
           source_failed(src, err);   /* err 0: the file got shorter */
}

/* The file ends where the object does: a byte more there is a file that
 * grew, or one whose st_size is not its contents'.  0 (reported) if not. */
static int source_ends(const source *src)
{
    uint8_t byte;
    int err;

    return (read_full_at(src->fd, &byte, 1, (off_t)(src->base + src->length), &err) == 0 &&
            err == 0) || source_failed(src, err);
}

/* Opens the file --part names (src->name), without waiting for a FIFO's
 * writer; the object is what `ksum FILE` would hash, which must be known
 * before a byte is read: a regular file whose size is what it holds.
 * Reports why not. */
static int source_open(source *src)
{
    const char *name = src->name;
    off_t at = 0;
    int err;

    src->fd = -1;
    if (strcmp(name, "-") != 0)
        err = open_named(AT_FDCWD, name, 1, 0, &src->fd, &src->st);
    else if ((err = fstat(STDIN_FILENO, &src->st) != 0 ? errno : 0) == 0)
        src->fd = STDIN_FILENO;
    if (err != 0 && err != KSUM_ENOTREG) {
        report_error(name, err, NULL);
        return 0;
    }
    if (err != 0 || !S_ISREG(src->st.st_mode))
        return message_fail("%s: --part reads byte ranges: it needs a regular file", name);
    if (src->st.st_size > 0 && !size_is_known(src->fd, &src->st))
        return size_unknown(name);
    /* standard input from where it stands, as every other road reads it */
    if (src->fd == STDIN_FILENO && (at = lseek(STDIN_FILENO, 0, SEEK_CUR)) < 0) {
        report_error(name, errno, NULL);
        return 0;
    }
    src->base = (uint64_t)at;
    src->length = at < src->st.st_size ? (uint64_t)(src->st.st_size - at) : 0;
    return 1;
}

/* An EVP call for name failed: "out of memory" when it was that, else
 * OpenSSL's reason.  Returns 0. */
static int evp_failed(const char *name)
{
    char why[512];

    part_failure(why, sizeof why, "hashing failed");
    return message_fail("%s: %s", name, why);
}

/* The chunks [begin, end) of the object (and for --part, K and N) that
 * p chooses. */
static int choose_range(part_job *j, const part_spec *p)
{
    uint64_t a, b;

    j->chunks = part_chunks(j->src.length);
    if (p->share != NULL) {
        if (!part_parse_pair(p->share, strlen(p->share), '/', 1, &j->k, &j->n) || j->k < 1 ||
            j->k > j->n || j->n > ((uint64_t)1 << 32))
            return message_fail("--part: '%s' is not K/N with 1 <= K <= N <= 2^32",
                                p->share);
        /* Share K of N: chunks floor((K-1)*C/N) to floor(K*C/N). */
        j->begin = (uint64_t)((unsigned __int128)(j->k - 1) * j->chunks / j->n);
        j->end = (uint64_t)((unsigned __int128)j->k * j->chunks / j->n);
        return 1;
    }
    if (!part_parse_pair(p->range, strlen(p->range), ':', 1, &a, &b) || b == 0)
        return message_fail("--part-range: '%s' is not START:LEN in chunks of 8 KiB (LEN >= 1)",
                            p->range);
    if (a >= j->chunks)
        return message_fail("--part-range: chunk %" PRIu64 " is past the object's last "
                            "chunk (%" PRIu64 ")", a, j->chunks - 1);
    j->begin = a;
    j->end = b > j->chunks - a ? j->chunks : a + b;
    return 1;
}

/* The digests a record names the object and C by: of C, and of the
 * object's last and first chunks (j->chunk keeps the first).  Reports its
 * errors. */
static int object_digests(part_job *j)
{
    const source *src = &j->src;
    size_t last_len = (size_t)(src->length - (j->chunks - 1) * PART_CHUNK);

    j->first_len = src->length < PART_CHUNK ? (size_t)src->length : PART_CHUNK;
    return (part_digest(j->lib, j->custom, strlen(j->custom), j->cdig) ||
            evp_failed(src->name)) &&
           source_read(src, j->chunk, last_len, (j->chunks - 1) * PART_CHUNK) &&
           source_ends(src) &&
           (part_digest(j->lib, j->chunk, last_len, j->last) || evp_failed(src->name)) &&
           source_read(src, j->chunk, j->first_len, 0) &&
           (part_digest(j->lib, j->chunk, j->first_len, j->first) || evp_failed(src->name));
}

/* What a range's CVs are made with: a -CV context for each segment of
 * SEGMENT_CHUNKS chunks. */
typedef struct segment {
    EVP_MD *md;
    EVP_MD_CTX *ctx;
    uint8_t *buf;       /* a read of READ_PIECE bytes */
    uint8_t *cvs;       /* a segment's CVs */
    char *lines;        /* their "cv" lines, written (and digested) at once */
} segment;

/* The CVs of the object's bytes [at, stop) into s->cvs, *n of them: a
 * context fed in reads of 1 MiB, as ksum reads a whole file (the bytes are
 * still in the CPU's caches when they are hashed).  Reports its errors. */
static int segment_cvs(const part_job *j, segment *s, uint64_t at, uint64_t stop, uint64_t *n)
{
    uint64_t length = j->src.length;
    unsigned threads = j->threads;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, (void *)j->custom,
                                          strlen(j->custom)),
        OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &length),
        OSSL_PARAM_construct_uint64(KSUM_PARAM_OFFSET, &at),
        threads != 0 ? OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &threads)
                     : OSSL_PARAM_construct_end(),
        OSSL_PARAM_END};
    OSSL_PARAM q[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_CV_COUNT, n), OSSL_PARAM_END};

    if (!EVP_DigestInit_ex2(s->ctx, s->md, p))
        return evp_failed(j->src.name);
    for (uint64_t pos = at; pos < stop;) {
        size_t piece = stop - pos < READ_PIECE ? (size_t)(stop - pos) : READ_PIECE;
        if (!source_read(&j->src, s->buf, piece, pos))
            return 0;
        if (!EVP_DigestUpdate(s->ctx, s->buf, piece))
            return evp_failed(j->src.name);
        pos += piece;
    }
    /* no CV (a range within the first chunk): nothing to take */
    if (!EVP_MD_CTX_get_params(s->ctx, q) || *n > KSUMPROV_PART_MAX_CHUNKS ||
        (*n != 0 && !EVP_DigestFinalXOF(s->ctx, s->cvs, (size_t)*n * j->f->cv_len)))
        return evp_failed(j->src.name);
    return 1;
}

/* "cv BASE64\n" for each of the n CVs into lines; returns their length. */
static size_t cv_lines(char *lines, const uint8_t *cvs, uint64_t n, size_t cv_len)
{
    size_t used = 0;

    for (uint64_t i = 0; i < n; i++) {
        memcpy(lines + used, "cv ", 3);
        used += 3 + base64_encode(cvs + i * cv_len, cv_len, lines + used + 3);
        lines[used++] = '\n';
    }
    return used;
}

/* The CVs of the part's chunks as "cv" lines, a segment at a time; *count
 * gets how many. */
static int write_cvs(part_job *j, uint64_t *count)
{
    size_t cv_len = j->f->cv_len, most = KSUMPROV_PART_MAX_CHUNKS;
    uint64_t at = j->begin * PART_CHUNK, end = j->end * PART_CHUNK;
    uint64_t to = end < j->src.length ? end : j->src.length;
    segment s = {EVP_MD_fetch(j->lib, j->f->cv, PROPS), EVP_MD_CTX_new(),
                 input_buffer_new(READ_PIECE), malloc(most * cv_len),
                 malloc(most * (3 + BASE64_LENGTH(cv_len) + 1))};
    int ok = s.md != NULL && s.ctx != NULL && s.buf != NULL && s.cvs != NULL && s.lines != NULL;

    *count = 0;
    if (s.md == NULL)
        evp_failed(j->src.name);
    else if (!ok)
        message_fail("%s: out of memory", j->src.name);
    /* The range that holds the end of the object also gives the CVs of
     * the chunks past it, which hold only C: one context even when the
     * range has no byte (an empty object, or one ending on a chunk). */
    while (ok) {
        uint64_t stop = to - at > SEGMENT_BYTES ? at + SEGMENT_BYTES : to, n = 0;
        if (!(ok = segment_cvs(j, &s, at, stop, &n)))
            break;
        put_block(j, s.lines, cv_lines(s.lines, s.cvs, n, cv_len));
        *count += n;
        if ((at = stop) == to || !j->ok)
            break;
    }
    free(s.lines);
    free(s.cvs);
    input_buffer_free(s.buf, READ_PIECE);
    EVP_MD_CTX_free(s.ctx);
    EVP_MD_free(s.md);
    return ok && j->ok;
}

/* The lines before the CVs. */
static void put_header(part_job *j)
{
    const uint8_t *name = (const uint8_t *)j->src.name;
    const uint8_t *digests[] = {j->cdig, j->first, j->last};
    size_t name_len = strlen(j->src.name);
    char text[BASE64_LENGTH(3 * PART_HEAD_LINE)], hex[3][2 * PART_DIGEST + 1], share[48] = "- -";

    for (int i = 0; i < 3; i++)
        hex[i][hex_encode(digests[i], PART_DIGEST, hex[i])] = '\0';
    put(j, "%s\nalgorithm %s\ncustomization %s\nobject %" PRIu64 "\nfirst %s\nlast %s\nname ",
        PART_MAGIC, j->f->name, hex[0], j->src.length, hex[1], hex[2]);
    /* the name may be long: its base64 in pieces of a multiple of 3 bytes */
    for (size_t at = 0; at < name_len; at += 3 * PART_HEAD_LINE) {
        size_t n = name_len - at < 3 * PART_HEAD_LINE ? name_len - at : 3 * PART_HEAD_LINE;
        put_block(j, text, base64_encode(name + at, n, text));
    }
    if (j->n != 0)
        snprintf(share, sizeof share, "%" PRIu64 " %" PRIu64, j->k, j->n);
    put(j, "\nshare %s\nchunks %" PRIu64 " %" PRIu64 "\n", share, j->begin, j->end);
    for (size_t at = 0; j->begin == 0 && j->end > 0 && at < j->first_len && j->ok;
         at += PART_HEAD_LINE) {
        size_t n = j->first_len - at < PART_HEAD_LINE ? j->first_len - at : PART_HEAD_LINE;
        text[base64_encode(j->chunk + at, n, text)] = '\0';
        put(j, "head %s\n", text);
    }
}

/* The "check" line, when the file has not changed since it was opened,
 * still ends where it did, and every line before it was written. */
static int put_check(part_job *j)
{
    uint8_t check[PART_DIGEST];
    char hex[2 * PART_DIGEST + 1];

    if (!file_unchanged(j->src.fd, &j->src.st))
        return source_failed(&j->src, 0);   /* it says the file changed */
    if (!source_ends(&j->src) || !j->ok)
        return 0;
    if (!EVP_DigestFinalXOF(j->check, check, PART_DIGEST))
        return evp_failed(j->src.name);
    hex[hex_encode(check, PART_DIGEST, hex)] = '\0';
    printf("check %s\n", hex);
    return output_ok();
}

int parts_write(const resolved *r, const part_spec *p, OSSL_LIB_CTX *lib)
{
    /* On the heap: a chunk of 8 KiB, on a main stack that may not grow
     * (ulimit -s). */
    part_job *j = calloc(1, sizeof *j);
    uint64_t count = 0;
    int ok;

    if (j == NULL)
        return message_fail("out of memory");
    j->lib = lib;
    j->custom = custom_of(&r->hash);
    j->threads = r->hash.threads;
    j->src.name = p->file;
    j->check = EVP_MD_CTX_new();
    j->ok = 1;
    ok = one_family(r->nalgs, r->alg->name, p->share ? "--part" : "--part-range", &j->f) &&
         source_open(&j->src) && choose_range(j, p) &&
         (j->check != NULL || message_fail("%s: out of memory", j->src.name)) &&
         object_digests(j) && (part_check_begin(j->lib, j->check) || evp_failed(j->src.name));
    if (ok) {
        put_header(j);
        ok = j->begin == j->end || !j->ok || write_cvs(j, &count);
    }
    if (ok) {
        put(j, "cvs %" PRIu64 "\n", count);
        ok = put_check(j);
    }
    if (j->src.fd > STDIN_FILENO)
        close(j->src.fd);
    EVP_MD_CTX_free(j->check);
    free(j);
    return ok;
}

/* ---- combining ---- */

/* A thread's buffer for record files, kept from one file to the next:
 * fresh pages for every file were most of combining's system time.  It
 * is mapped in huge pages (bigmem.h), since a fault a 4 KiB page weighs
 * on combining in a virtual machine (docs/parts.md); it grows by moving
 * its pages (mremap), never copying them, nor holding two at once. */
typedef struct text_buffer {
    char *p;
    size_t cap;     /* the length mapped */
} text_buffer;

/* Room for cap bytes in b, its contents kept. */
static int text_room(text_buffer *b, size_t cap)
{
    char *p = b->p == NULL ? big_alloc(cap, &b->cap) : big_grow(b->p, &b->cap, cap);

    if (p != NULL)
        b->p = p;
    return p != NULL;
}

/* Reads the whole of name ("-": standard input) into b, *len bytes, judged
 * as it comes (part_scan): what is not records stops the reading.  0; the
 * errno value that stopped it; or -1 with a reason in why. */
static int slurp(const char *name, text_buffer *b, size_t *len, char *why, size_t why_size)
{
    int fd = strcmp(name, "-") == 0 ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
    int err = fd < 0 ? errno : 0;
    part_scan scan;
    size_t room;

    part_scan_init(&scan, name);
    /* the room filled, the text is judged again (and the room grown) */
    for (*len = 0; err == 0;) {
        if (!part_scan_more(&scan, b->p, *len, &room, why, why_size))
            err = -1;
        else if (!text_room(b, room))
            err = ENOMEM;
        else if ((*len += read_full(fd, (uint8_t *)b->p + *len, room - *len, &err)) < room)
            break;   /* at the end, or err */
    }
    if (fd > STDIN_FILENO)
        close(fd);
    return err;
}

/* "FILE (part record I, share K/N, chunks A-B)" into buf. */
static const char *part_name(const part_record *r, char *buf, size_t size)
{
    char share[64] = "", chunks[64] = ", no chunk";

    if (r->shares != 0)
        snprintf(share, sizeof share, ", share %" PRIu64 "/%" PRIu64, r->share, r->shares);
    if (r->begin != r->end)
        snprintf(chunks, sizeof chunks, ", chunks %" PRIu64 "-%" PRIu64, r->begin, r->end - 1);
    snprintf(buf, size, "%s (part record %zu%s%s)", r->file, r->index, share, chunks);
    return buf;
}

/* part_name(r) in a buffer of its own, which lasts until the end of the
 * block that names it: a message can name two records. */
#define NAME(r) part_name(r, (char[512]){""}, 512)

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
static int records_agree(part_record **all, size_t n, const part_family *f,
                         const uint8_t custom[PART_DIGEST])
{
    const part_record *ref = all[0];

    for (size_t i = 0; i < n; i++) {
        const part_record *r = all[i];
        const char *other;
        if (r->family != f)
            return message_fail("%s: made with %s, not %s", NAME(r), r->family->name, f->name);
        if (memcmp(r->custom, custom, PART_DIGEST) != 0)
            return message_fail("%s: made with another customization string than the "
                                "one given (-C)", NAME(r));
        other = r->length != ref->length ? "another length"
                : memcmp(r->first, ref->first, PART_DIGEST) != 0 ? "another first chunk"
                : memcmp(r->last, ref->last, PART_DIGEST) != 0 ? "another last chunk" : NULL;
        if (other != NULL)
            return message_fail("%s: a part of another object than %s (%s)", NAME(r),
                                NAME(ref), other);
        if (r->shares != ref->shares)
            return message_fail("%s: from another split than %s (--part K/N with another N, "
                                "or --part beside --part-range)", NAME(r), NAME(ref));
    }
    return 1;
}

static int by_share(const void *a, const void *b)
{
    const part_record *x = *(part_record *const *)a, *y = *(part_record *const *)b;

    return x->share < y->share ? -1 : x->share > y->share;
}

/* --part K/N: each K from 1 to N once; sorts all by share. */
static int shares_complete(part_record **all, size_t n)
{
    uint64_t shares = all[0]->shares;
    size_t k = 0;

    qsort(all, n, sizeof *all, by_share);
    /* a share given twice first: 30,000 copies of share 3 are not "1 missing" */
    for (size_t i = 1; i < n; i++)
        if (all[i]->share == all[i - 1]->share)
            return message_fail("%s: given twice: also %s", NAME(all[i]), NAME(all[i - 1]));
    /* then each in its place: the first out of it is one missing */
    while (k < n && all[k]->share == k + 1)
        k++;
    return k >= shares || message_fail("share %zu/%" PRIu64 " is missing (%zu of %" PRIu64
                                       " parts given)", k + 1, shares, n, shares);
}

/* Sorted by range: the ranges cover the object's chunks once each. */
static int records_cover(part_record **all, size_t n)
{
    uint64_t chunks = part_chunks(all[0]->length), next = 0;
    const part_record *prev = NULL;

    for (size_t i = 0; i < n; i++) {
        const part_record *r = all[i];
        if (r->begin == r->end)
            continue;   /* an empty share: more shares than chunks */
        if (r->begin < next)
            return message_fail("%s: overlaps %s (a part given twice?)", NAME(r), NAME(prev));
        if (r->begin > next)
            return message_fail("chunks %" PRIu64 "-%" PRIu64 " are missing: no part covers them "
                        "(before %s)", next, r->begin - 1, NAME(r));
        next = r->end;
        prev = r;
    }
    if (next < chunks)
        return message_fail("chunks %" PRIu64 "-%" PRIu64 " are missing: no part covers them "
                    "(the object has %" PRIu64 ")", next, chunks - 1, chunks);
    return 1;
}

/* One record file, read and parsed on some thread. */
typedef struct record_file {
    const char *name;
    int err;              /* reading's errno value; -1: why says why it is not records */
    part_record *recs;    /* its records (before a bad one), n of them */
    size_t n;
    char why[1024];
} record_file;

/* Every record of the FILEs: the files read two at a time, then *all
 * points to their records. */
typedef struct record_set {
    OSSL_LIB_CTX *lib;
    record_file *files;
    size_t nfiles;
    atomic_size_t next;        /* the next file to read */
    atomic_size_t first_bad;   /* the first file that failed; nfiles: none */
    int one_reader;            /* the files are read in turn by one thread */
    part_pool pool;            /* their CVs */
    part_record **all;
    size_t n;
} record_set;

static void record_set_free(record_set *s)
{
    for (size_t i = 0; i < s->nfiles; i++)
        part_records_free(s->files[i].recs, s->files[i].n);
    free(s->files);
    free(s->all);
    part_pool_close(&s->pool);
}

/* Reads and parses (computing their checks) the files after the last
 * taken, on each thread that reads. */
static void *record_worker(void *arg)
{
    record_set *s = arg;
    text_buffer b = {NULL, 0};
    size_t i, len;

    /* nothing after a failure is read: it may be a FIFO that never ends */
    while ((i = atomic_fetch_add(&s->next, 1)) < s->nfiles &&
           i < atomic_load(&s->first_bad)) {
        record_file *f = &s->files[i];
        f->err = slurp(f->name, &b, &len, f->why, sizeof f->why);
        /* a stream's size is known once it is read: a pool for its CVs then
         * (the files after it take from it what is left) */
        if (f->err == 0 && s->one_reader && s->pool.base == NULL && len > 0 &&
            len < SIZE_MAX / 4)
            (void)part_pool_open(&s->pool, len / 4 * 3 + 64);
        if (f->err == 0 && !part_records_parse(s->lib, f->name, b.p, len, &s->pool, &f->recs,
                                               &f->n, f->why, sizeof f->why))
            f->err = -1;
        if (f->err != 0) {
            size_t bad = atomic_load(&s->first_bad);
            while (i < bad && !atomic_compare_exchange_weak(&s->first_bad, &bad, i))
                ;
        }
    }
    big_free(b.p, b.cap);
    return NULL;
}

/* Two threads reading, and a pool planned from the sizes, only when every
 * name is a regular file: standard input named twice, or a FIFO, must be
 * read once, in order, and has no size to plan for (its pool comes once
 * the first is read).  *bytes gets the files' total size. */
static int all_regular(const record_set *s, uint64_t *bytes)
{
    struct stat st;

    *bytes = 0;
    for (size_t i = 0; i < s->nfiles; i++) {
        if (strcmp(s->files[i].name, "-") == 0 || stat(s->files[i].name, &st) != 0 ||
            !S_ISREG(st.st_mode))
            return 0;
        *bytes += (uint64_t)st.st_size;
    }
    return 1;
}

/* Every file's records, two files at a time (checking a record hashes
 * only a 256th of its share, so reading dominates); the first failure in
 * the order given is said. */
static int read_records(OSSL_LIB_CTX *lib, char **names, unsigned threads, record_set *s)
{
    pthread_t helper;
    uint64_t bytes;
    size_t n = 0, at = 0, bad;
    int helped;

    memset(s, 0, sizeof *s);
    while (names[n] != NULL)
        n++;
    if ((s->files = calloc(n, sizeof *s->files)) == NULL)
        return message_fail("out of memory");
    s->lib = lib;
    s->nfiles = n;
    atomic_init(&s->next, 0);
    atomic_init(&s->first_bad, n);
    for (size_t i = 0; i < n; i++)
        s->files[i].name = names[i];
    s->one_reader = !all_regular(s, &bytes);
    /* CVs are at most 2/3 of their cv lines (32 bytes a 48-byte line for
     * KT128, 64 a 92 for KT256): 3/4 of the files leaves room for every
     * record's rounding.  A file that grew since is malloc'd beyond it. */
    if (!s->one_reader && bytes > 0 && bytes < SIZE_MAX / 4)
        (void)part_pool_open(&s->pool, (size_t)(bytes / 4 * 3 + 64));
    /* two threads read regular files; one reads the others, in order */
    helped = threads > 1 && !s->one_reader && thread_start(&helper, record_worker, s) == 0;
    record_worker(s);
    if (helped)
        pthread_join(helper, NULL);
    /* the files before the first that failed were all read */
    if ((bad = atomic_load(&s->first_bad)) < n && s->files[bad].err > 0) {
        report_error(s->files[bad].name, s->files[bad].err, NULL);
        return 0;
    }
    if (bad < n)
        return message_fail("%s", s->files[bad].why);
    for (size_t i = 0; i < n; i++)
        s->n += s->files[i].n;
    if ((s->all = malloc(s->n * sizeof *s->all)) == NULL)
        return message_fail("out of memory");
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < s->files[i].n; j++)
            s->all[at++] = &s->files[i].recs[j];
    return 1;
}

/* The family of the resolved options' algorithm, when the records are
 * parts of one object, made with it and with -C, and cover the object;
 * sorts s->all by range.  NULL (said) otherwise. */
static const part_family *records_family(const resolved *r, const char *custom,
                                         OSSL_LIB_CTX *lib, record_set *s)
{
    const part_family *f;
    uint8_t cdig[PART_DIGEST];

    if (!one_family(r->nalgs, r->alg->name, "--combine", &f) ||
        !(part_digest(lib, custom, strlen(custom), cdig) || evp_failed("--combine")) ||
        !records_agree(s->all, s->n, f, cdig))
        return NULL;
    qsort(s->all, s->n, sizeof *s->all, by_range);
    if (s->all[0]->shares != 0 && !shares_complete(s->all, s->n))
        return NULL;
    /* again: shares_complete sorted them by share */
    qsort(s->all, s->n, sizeof *s->all, by_range);
    return records_cover(s->all, s->n) ? f : NULL;
}

/* What a failed final node says: the parts' fault only when the provider
 * says so (ksum's own allocations, and 3.0's CRYPTO_malloc, queue
 * nothing). */
static int final_node_failed(const part_record *head)
{
    char why[512];

    if (!part_provider_said(ERR_peek_last_error(), KSUMPROV_R_PART) || part_out_of_memory()) {
        part_failure(why, sizeof why, "cannot combine the parts");
        return message_fail("%s: %s", head->name, why);
    }
    openssl_reason(why, sizeof why);   /* empties the queue */
    return message_fail("%s: the parts' chaining values do not make the tree of a %" PRIu64
                        "-byte object (a part holds too few or too many): %s",
                        head->name, head->length, why);
}

/* The final node (the family's -FINAL algorithm): the object's length and
 * the customization string, the head's bytes, then every record's CVs in
 * chunk order.  Absorbing them is one sponge, a few milliseconds a
 * gigabyte, so it waits for every record to be read and checked.  A long
 * output is squeezed from it as it is printed (KSUM_PARAM_SQUEEZE); a
 * shorter one is made here.  Prints the sum line; 0 (said) on failure. */
static int print_final_node(const line_style *ls, const char *custom, OSSL_LIB_CTX *lib,
                            const record_set *s, const part_family *f,
                            const part_record *head, hasher *h)
{
    uint64_t length = head->length;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, (void *)custom,
                                                        strlen(custom)),
                      OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &length),
                      OSSL_PARAM_END};
    OSSL_PARAM q[] = {OSSL_PARAM_construct_size_t(OSSL_DIGEST_PARAM_XOFLEN, &h->size),
                      OSSL_PARAM_END};
    EVP_MD *md = EVP_MD_fetch(lib, f->final, PROPS);
    EVP_MD_CTX *ctx = md != NULL ? EVP_MD_CTX_new() : NULL, *held = h->md_ctx;
    uint8_t *sum = NULL;
    int ok = ctx != NULL && EVP_DigestInit_ex2(ctx, md, p) &&
             EVP_DigestUpdate(ctx, head->head, head->head_len);
    int err = KSUM_EHASH;

    /* an empty share holds no CV (the parser saw to it): an update of none */
    for (size_t i = 0; ok && i < s->n; i++)
        ok = EVP_DigestUpdate(ctx, s->all[i]->cvs, s->all[i]->count * s->all[i]->cv_len);
    EVP_MD_free(md);
    ok = ok && EVP_MD_CTX_set_params(ctx, q);
    if (ok && !hasher_streams(h))
        ok = (sum = malloc(h->size)) != NULL && EVP_DigestFinalXOF(ctx, sum, h->size);
    if (ok) {
        sum_source src = {sum, h->size, sum == NULL ? h : NULL};
        h->md_ctx = ctx;   /* squeezed from the final node */
        err = print_sum_line(ls, h, &head->name, 1, &src);
        h->md_ctx = held;
    }
    if (err == KSUM_EHASH)
        final_node_failed(head);
    free(sum);
    EVP_MD_CTX_free(ctx);
    return err == 0;
}

int parts_combine(options *o, OSSL_LIB_CTX *lib, resolved *r)
{
    record_set s;
    hasher h = {0};   /* nothing to close until it opens */
    const part_family *f;
    const part_record *head = NULL;
    char *object[2] = {NULL, NULL};
    int ok = 0;

    if (!read_records(lib, o->files, o->threads ? o->threads : ksum_cpu_count(), &s))
        goto done;
    /* Without an algorithm switch, the records name it. */
    if (o->nchoices == 0)
        o->choices[o->nchoices++] =
            (algorithm_choice){algorithm_find(s.all[0]->family->name), NULL};
    /* The options are judged for the one object the line names (--raw
     * prints one sum), not for the record files. */
    object[0] = s.all[0]->name;
    o->files = object;
    if (!options_resolve(o, lib, r) ||
        (f = records_family(r, custom_of(&r->hash), lib, &s)) == NULL)
        goto done;
    for (size_t i = 0; i < s.n; i++)
        if (s.all[i]->begin == 0 && s.all[i]->end > 0)
            head = s.all[i];
    if (!hasher_open(&h, lib, r->alg, &r->hash))
        goto done;
    ok = print_final_node(&r->line, custom_of(&r->hash), lib, &s, f, head, &h);
done:
    hasher_close(&h);
    record_set_free(&s);
    return ok;
}
