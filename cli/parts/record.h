/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The part record (version 1, docs/parts.md), shared by --part (which
 * writes it), --combine (which reads it, parts.c) and the
 * fuzzer: the functions hashed in parts, the digests a record carries, the
 * parsed record and its parser.
 */
#ifndef KSUM_CLI_PARTS_RECORD_H
#define KSUM_CLI_PARTS_RECORD_H

#include <openssl/evp.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define PART_MAGIC "ksum-part 1"
#define PART_HEAD_LINE 96        /* bytes of the first chunk per "head" line */

/* The functions that can be hashed in parts, by ksum's provider name,
 * with the provider's algorithms for a range's CVs and for the final
 * node. */
typedef struct part_family {
    const char *name, *cv, *final;
    size_t cv_len;
} part_family;

/* The family of a provider name (KANGAROOTWELVE, KT256,
 * MARSUPILAMIFOURTEEN) of len bytes, or NULL. */
const part_family *part_family_of(const char *name, size_t len);

#define PART_CHUNK 8192
#define PART_DIGEST 32     /* KT128 of C, of chunks, of the record */

typedef struct part_record {
    const char *file;        /* where it was read, for messages */
    size_t index;            /* 1-based, among the file's records */
    const part_family *family;  /* of its algorithm line */
    uint8_t custom[PART_DIGEST];
    uint64_t length;         /* the object's */
    uint8_t first[PART_DIGEST], last[PART_DIGEST];
    char *name;              /* the file name the part was made from */
    uint64_t share, shares;  /* K of N; 0 0 for --part-range */
    uint64_t begin, end;     /* chunks [begin, end) of the object */
    uint8_t *head;           /* the first chunk's bytes, in the record of chunk 0 */
    size_t head_len;
    uint8_t *cvs;            /* count CVs of cv_len bytes, in order */
    size_t count, cv_len;
    int pooled;              /* cvs is in a part_pool, not malloc'd */
} part_record;

/* The chunks of an object of length bytes: an empty one has one, with no
 * byte. */
static inline uint64_t part_chunks(uint64_t length)
{
    return length == 0 ? 1 : (length + PART_CHUNK - 1) / PART_CHUNK;
}

/* Room for the CVs of many records in one mapping, in huge pages where
 * the system gives them: combining a gigabyte holds 4 MiB of CVs, and a
 * fresh page for each 4 KiB of them was a fifth of its time.  Records
 * take from it from any thread; what does not fit is malloc'd. */
typedef struct part_pool {
    uint8_t *base;
    size_t size;
    atomic_size_t used;
} part_pool;

/* A pool for about size bytes of CVs; 0 (and no pool) when it cannot be
 * mapped, which costs only speed. */
int part_pool_open(part_pool *pool, size_t size);
void part_pool_close(part_pool *pool);

/* Parses the records in text[0..len) (one file's); *recs and *n get them
 * (free with part_records_free; their CVs come from pool, which may be
 * NULL, and must outlive them).  lib computes the checks.  On a
 * malformed record returns 0 with a one-line reason in why, naming the
 * record; the records read before it are in *recs. */
int part_records_parse(OSSL_LIB_CTX *lib, const char *file, const char *text,
                       size_t len, part_pool *pool,
                       part_record **recs, size_t *n, char *why, size_t why_size);
void part_records_free(part_record *recs, size_t n);

/* How much of a file a reader of records may hold before it is judged:
 * a file that is not records is refused after its first line (or the
 * first bytes of it), and a record after its first line longer than any
 * record's, so that noise or a device never fills memory.  The text read
 * so far is judged by the parser itself (CVs counted, not decoded, no
 * digest computed) each time it has doubled; the records it holds whole
 * are not judged again. */
typedef struct part_scan {
    const char *file;
    size_t room;            /* the text is judged again once it holds this much */
    size_t done;            /* the bytes of the records judged whole */
    size_t lineno;          /* their lines */
    size_t records;         /* how many */
    uint64_t chunks;        /* the first record's object's */
    uint64_t parts;         /* the most records of its split */
    uint64_t cvs;           /* cv lines in the records judged */
} part_scan;

void part_scan_init(part_scan *s, const char *file);
/* Judges more of text[0..len), one file's bytes read so far: 1, and *room
 * the bytes the text may grow to before it is judged again; 0 with a
 * one-line reason in why, naming the file and the record, when what was
 * read cannot be part records. */
int part_scan_more(part_scan *s, const char *text, size_t len, size_t *room, char *why,
                   size_t why_size);
/* Two decimal numbers, "A" sep "B", in s[0..n): a record's (sep ' ',
 * no leading zeros) or --part's and --part-range's (zeros allowed). */
int part_parse_pair(const char *s, size_t n, char sep, int zeros, uint64_t *a, uint64_t *b);
/* The digest records use: KT128 of in, 32 bytes. */
int part_digest(OSSL_LIB_CTX *lib, const void *in, size_t len, uint8_t out[PART_DIGEST]);
/* OpenSSL's error e is the provider's (KSUMPROV_NAME), of that reason. */
int part_provider_said(unsigned long e, int reason);
/* Whether the EVP call that just failed ran out of memory: OpenSSL queued
 * nothing (3.0's CRYPTO_malloc queues no error), or OpenSSL or the
 * provider (KSUMPROV_R_ALLOC) said so. */
int part_out_of_memory(void);
/* Why an EVP call failed, into why: "out of memory" (part_out_of_memory),
 * else "WHAT: OpenSSL's reason"; empties OpenSSL's queue.  Returns 0. */
int part_failure(char *why, size_t size, const char *what);
/* The same digest in steps, for a record written line by line: begun
 * here, ended by EVP_DigestFinalXOF of PART_DIGEST bytes. */
int part_check_begin(OSSL_LIB_CTX *lib, EVP_MD_CTX *ctx);

#endif
