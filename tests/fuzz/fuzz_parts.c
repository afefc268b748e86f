/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The part-record parser of ksum --combine (cli/parts/record.c) on arbitrary
 * bytes.  The first byte's lowest bit chooses whether each "check" line is
 * first set to the right digest of its record, so that mutations get past
 * the check to the rules after it; its next bit, whether the CVs come from
 * a pool (a small one).  What the parser accepts must be well formed: a
 * range inside the object, a head only in the record of chunk 0 and then
 * exactly the first chunk, whole CVs, a NUL-terminated name; and it must
 * never read or write outside the input.  The scan that judges record
 * text as it is read (part_scan) is given the text in pieces the input chooses: it must let every text the parser
 * accepts be read whole (below the sizes its limits could reach), ask
 * for more room than it was given while it goes on, and refuse in one
 * line.
 */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "base/encoding.h"
#include "fuzz_common.h"
#include "parts/record.h"

static OSSL_LIB_CTX *lib;

/* Each "check " line that starts a line gets the digest of the bytes
 * from the last "ksum-part " line start (or the text's start) to it. */
static void fix_checks(char *text, size_t len)
{
    size_t start = 0;

    for (size_t i = 0; i < len; i++) {
        if (i != 0 && text[i - 1] != '\n')
            continue;
        if (len - i >= 10 && memcmp(text + i, "ksum-part ", 10) == 0)
            start = i;
        if (len - i >= 6 + 2 * PART_DIGEST && memcmp(text + i, "check ", 6) == 0) {
            uint8_t d[PART_DIGEST];
            if (part_digest(lib, text + start, i - start, d))
                hex_encode(d, PART_DIGEST, text + i + 6);
        }
    }
}

/* Texts this short, of this few records, can reach neither a header's
 * limit, nor the CV lines past its range, nor the records of a file that
 * the scan allows. */
#define SCAN_SURE ((size_t)48 << 10)
#define SCAN_SURE_RECORDS 16

/* The scan over text[0..len) as a reader gives it, pieces of sizes seed
 * chooses: 1 when it let all of it be read, 0 (with why) when not. */
static int scan_all(const char *text, size_t len, unsigned seed, char *why, size_t why_size)
{
    part_scan s;
    size_t got = 0, room = 0;

    part_scan_init(&s, "fuzz");
    for (;;) {
        size_t step = 1 + (got * 31 + seed) % 4096;
        if (!part_scan_more(&s, text, got, &room, why, why_size))
            return 0;
        if (room <= got)
            abort();   /* a reader could never go on */
        if (got == len)
            return 1;
        if (step > room - got)
            step = room - got;
        got += step < len - got ? step : len - got;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    part_record *recs;
    part_pool pool;
    size_t n;
    char why[1024], scan_why[1024], *text;
    int scanned;

    if (lib == NULL)
        lib = fuzz_libctx(0);
    if (size == 0)
        return 0;
    /* An exact-size copy, so that ASan sees any read past the text. */
    if ((text = malloc(size - 1 + 1)) == NULL)
        return 0;
    memcpy(text, data + 1, size - 1);
    if (data[0] & 1)
        fix_checks(text, size - 1);
    /* a pool small enough that records also run out of it, and grow out
     * of it */
    if ((data[0] & 2) && !part_pool_open(&pool, size / 8))
        return free(text), 0;
    scanned = scan_all(text, size - 1, data[0] >> 2, scan_why, sizeof scan_why);
    if (!scanned && (memchr(scan_why, '\n', strlen(scan_why)) != NULL || scan_why[0] == '\0'))
        abort();   /* a refusal is one line */
    if (part_records_parse(lib, "fuzz", text, size - 1, data[0] & 2 ? &pool : NULL, &recs,
                           &n, why, sizeof why)) {
        if (!scanned && size - 1 < SCAN_SURE && n <= SCAN_SURE_RECORDS)
            abort();   /* good records refused before they were read */
        for (size_t i = 0; i < n; i++) {
            const part_record *r = &recs[i];
            uint64_t chunks = r->length == 0 ? 1 : (r->length + PART_CHUNK - 1) / PART_CHUNK;
            uint64_t first = r->length < PART_CHUNK ? r->length : PART_CHUNK;
            if (r->begin > r->end || r->end > chunks || r->name == NULL ||
                (r->shares != 0 && (r->share < 1 || r->share > r->shares)) ||
                (r->begin == 0 && r->end > 0 ? r->head_len != first : r->head_len != 0) ||
                (r->cv_len != 32 && r->cv_len != 64) || (r->count > 0 && r->cvs == NULL))
                abort();
            /* every byte of the name and the CVs can be read */
            volatile size_t sum = strlen(r->name);
            for (size_t j = 0; j < r->count * r->cv_len; j++)
                sum += r->cvs[j];
            for (size_t j = 0; j < r->head_len; j++)
                sum += r->head[j];
            (void)sum;
        }
    } else if (memchr(why, '\n', strlen(why)) != NULL || why[0] == '\0') {
        abort();   /* a refusal is one line */
    }
    part_records_free(recs, n);
    if (data[0] & 2)
        part_pool_close(&pool);
    free(text);
    return 0;
}
