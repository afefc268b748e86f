/* SPDX-License-Identifier: Apache-2.0 */
#include "report/sums.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/messages.h"
#include "front/hasher.h"
#include "front/resolve.h"
#include "input/feed.h"
#include "input/files.h"
#include "input/tuple.h"
#include "input/walk.h"
#include "report/output.h"
#include "run/concurrent.h"
#include "run/progress.h"

/* The printing thread's part of `ksum FILE...`: its hashers, for the files
 * no worker takes, and the digests every file is hashed for. */
typedef struct hash_run {
    const line_style *ls;
    name_source *names;
    hasher_set set;
    hasher *each[OPTIONS_ALGS_MAX];     /* set.hs, as feed.h takes them */
    digest_spec d[OPTIONS_ALGS_MAX];
    input in;
    progress *pg;
    int ok;                             /* every file was hashed */
} hash_run;

/* The next name: a regular file goes to the workers. */
static int next_name(void *ctx, void *item, file_job *job, size_t *weight)
{
    hash_run *h = ctx;
    named *n = item;

    if (!names_next(h->names, n))
        return 0;
    if (n->kind == NAME_FILE) {
        job->path = n->path;
        job->nofollow = n->nofollow;
        job->d = h->d;
        job->n = h->set.n;
    }
    *weight = h->set.sum_bytes + (n->path != NULL ? strlen(n->path) : 0);
    return 1;
}

static int names_ready_for(void *ctx)
{
    return names_ready(((hash_run *)ctx)->names);
}

static void drop_name(void *ctx, void *item)
{
    (void)ctx;
    named_free(item);
}

/* Hashed by the printing thread: a stream, any file when there are no
 * workers, or one a worker found is not a regular file.  The outputs held
 * are copied into the result; the streamed ones stay in the hashers, to be
 * squeezed as they are printed. */
static file_result hash_here(hash_run *h, const named *n, file_progress *progress)
{
    hasher_set *s = &h->set;
    file_result r = {0, malloc(s->sum_bytes + 1), NULL, 0};
    char why[512];

    h->in.progress = progress;
    /* A file met in the walk must still be one when opened. */
    h->in.regular_only = n->walked;
    h->in.nofollow = n->nofollow;
    r.err = r.sums != NULL ? feed_path(h->each, s->n, n->path, &h->in, s->sums) : ENOMEM;
    for (size_t k = 0, at = 0; r.err == 0 && k < s->n; k++)
        if (s->sums[k] != NULL) {
            memcpy(r.sums + at, s->sums[k], s->hs[k].size);
            at += s->hs[k].size;
        }
    if (r.err == KSUM_EHASH && openssl_reason(why, sizeof why))
        r.err = ENOMEM;
    else if (r.err == KSUM_EHASH)
        r.why = strdup(why);
    return r;
}

/* Memory ran out on this thread: said once, and the run stops (the
 * road's ENOMEM). */
static int run_out(hash_run *h)
{
    h->ok = 0;
    message_fail("out of memory");
    return ENOMEM;
}

/* A file's line for each algorithm, or its error; 0, or KSUM_EWRITE or
 * ENOMEM to stop. */
static int print_sums(hash_run *h, const char *name, const file_result *r)
{
    hasher_set *s = &h->set;
    int err = r->err;

    for (size_t k = 0, at = 0; err == 0 && k < s->n; k++) {
        sum_source src = {r->sums + at, s->hs[k].size, s->sums[k] == NULL ? &s->hs[k] : NULL};
        err = print_sum_line(h->ls, &s->hs[k], (char *const *)&name, 1, &src);
        at += src.h == NULL ? src.len : 0;
    }
    h->ok &= err == 0;
    if (err == 0 || err == KSUM_EWRITE)
        return err;
    if (err == ENOMEM)
        return run_out(h);
    /* A file that cannot be read does not stop the others. */
    report_error(name, err, r->err != 0 ? r->why : NULL);
    return 0;
}

/* The one printer of an entry: its lines, or its error or warning, in its
 * place.  A name the user gave that a worker found is not a regular file
 * is read here, as a stream; one met in the walk is an error (never read:
 * it could be a FIFO). */
static int print_name_entry(void *ctx, void *item, file_result *r, file_progress *progress)
{
    hash_run *h = ctx;
    named *n = item;
    file_result here = {0};
    int err = 0;

    /* A worker's want of memory or EVP failure is not the file's: it is
     * hashed here again, and what fails here is said. */
    if ((n->kind == NAME_FILE || n->kind == NAME_STREAM) &&
        (r == NULL || (r->err == KSUM_ENOTREG && !n->walked) || r->err == ENOMEM ||
         r->err == KSUM_EHASH)) {
        progress_show(h->pg, n->path, progress);
        here = hash_here(h, n, progress);
        r = &here;
    }
    progress_hold(h->pg);
    if (n->kind == NAME_ERROR && n->err == ENOMEM && n->line == 0) {
        err = run_out(h);   /* the walk's: the rest of the tree is unknown */
    } else if (n->kind == NAME_ERROR || n->kind == NAME_WARNING) {
        named_report(n);
        h->ok &= n->kind == NAME_WARNING;
    } else {
        err = print_sums(h, n->path, r);
    }
    progress_resume(h->pg);
    file_result_free(&here);
    return err;
}

static void hash_run_close(hash_run *h)
{
    input_free(&h->in);
    hasher_set_close(&h->set);
    free(h);
}

/* On the heap: 16 KiB of hashers, on a main stack that may not grow
 * (ulimit -s). */
static hash_run *hash_run_open(const resolved *r, OSSL_LIB_CTX *lib, int read_ahead)
{
    hash_run *h = calloc(1, sizeof *h);

    if (h == NULL || !hasher_set_open(&h->set, lib, &r->hash, r->algs, r->nalgs) ||
        !input_init(&h->in, read_ahead)) {
        if (h == NULL || h->set.n == r->nalgs)
            message_fail("out of memory");
        if (h != NULL)
            hash_run_close(h);
        return NULL;
    }
    h->ls = &r->line;
    h->ok = 1;
    for (size_t k = 0; k < h->set.n; k++) {
        h->each[k] = &h->set.hs[k];
        h->d[k] = (digest_spec){r->algs[k], &r->hash, h->set.hs[k].size, k};
    }
    return h;
}

/* No output long enough to be streamed. */
static int outputs_held(const resolved *r)
{
    for (size_t k = 0; k < r->nalgs; k++)
        if (hasher_output_size(&r->facts_of[k], &r->hash) > HASHER_STREAM_MIN)
            return 0;
    return 1;
}

/* TupleHash: one digest of the tuple of all the files, on one line. */
static int hash_files_as_tuple(const resolved *r, char **files, int zero, OSSL_LIB_CTX *lib)
{
    hasher h;
    input in;
    uint8_t *sum = NULL;
    size_t n = 0;
    const char *failed;
    int err = ENOMEM;

    while (files[n] != NULL)
        n++;
    /* Unescaped (-z), a tab in a name could not be told from the tabs
     * that join the names. */
    for (size_t i = 0; zero && i < n; i++)
        if (strchr(files[i], '\t') != NULL) {
            report_error(files[i], KSUM_ETAB, NULL);
            return 0;
        }
    if (!hasher_open(&h, lib, r->alg, &r->hash))
        return 0;
    if (input_init(&in, 0) && (sum = malloc(hasher_streams(&h) ? 1 : h.size)) != NULL) {
        sum_source src = {sum, h.size, hasher_streams(&h) ? &h : NULL};
        err = hash_tuple(&h, files, n, &in, src.h ? NULL : sum, &failed);
        if (err == 0)
            err = print_sum_line(&r->line, &h, files, n, &src);
    } else {
        failed = "ksum";
    }
    if (err != 0 && err != KSUM_EWRITE)
        report_error(failed, err, err == KSUM_ESPILL ? strerror(in.spill_errno) : NULL);
    input_free(&in);
    free(sum);
    hasher_close(&h);
    return err == 0;
}

int hash_files(const resolved *r, const name_spec *spec, int show_progress,
               OSSL_LIB_CTX *lib)
{
    int several = (spec->files[0] != NULL && spec->files[1] != NULL) || spec->recursive ||
                  spec->files_from != NULL;
    name_source *names;
    hash_run *h;
    road road;
    int ok;

    if (r->facts_of[0].takes & TAKES_ELEMENTS)
        return hash_files_as_tuple(r, spec->files, spec->zero, lib);
    if ((names = names_open(spec)) == NULL)
        return 0;
    /* Tree modes too: a small file starts no helper thread, a large one
     * uses its context's. */
    road_choose(&road, r, lib, several, outputs_held(r));
    if ((h = hash_run_open(r, lib, road.read_ahead)) == NULL) {
        names_close(names);
        return 0;
    }
    road_client c = {.item_size = sizeof(named), .next = next_name, .ready = names_ready_for,
                     .print = print_name_entry, .drop = drop_name, .ctx = h,
                     .nkeys = h->set.n, .eager = h->d, .neager = h->set.n};
    h->names = names;
    h->pg = progress_start(show_progress);
    ok = road_run(&road, lib, &c, h->pg) ? h->ok : message_fail("out of memory");
    progress_stop(h->pg);
    hash_run_close(h);
    names_close(names);
    return ok;
}
