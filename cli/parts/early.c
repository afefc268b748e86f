/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The final node begun early (see early.h).  The node is the provider's
 * -FINAL algorithm: this file only chooses when to hand it which bytes.
 */
#include "parts/early.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ksumprov.h"

#define PROPS "provider=" KSUMPROV_NAME

/* Which record it is: its file as named (each name on the command line is
 * a pointer of its own, even when two are alike) and its place there; and
 * the chunk after the last of its runs absorbed, and their CVs. */
typedef struct record_id {
    const char *file;
    size_t index;
    uint64_t end;
    size_t count;
} record_id;

struct early_node {
    OSSL_LIB_CTX *lib;
    const char *custom;
    pthread_mutex_t lock;
    pthread_cond_t offered;  /* a record was offered, or the reading ended */
    part_record *heap;       /* copies of the runs offered and not yet
                              * absorbed, least chunk first; a head in
                              * them is a copy of its own */
    size_t nheap, heap_cap;
    record_id *absorbed;     /* the records absorbed, in order, each
                              * once for its runs one after another */
    size_t nabsorbed, absorbed_cap;
    uint64_t next;           /* the chunk the next record must begin at */
    unsigned readers;        /* threads still reading record files */
    unsigned idle;           /* threads waiting in early_serve */
    int busy;                /* a thread is absorbing (the others only offer) */
    int broken;              /* out of memory, a failed call, a chunk twice */
    /* the node, touched only by the busy thread, then by early_take */
    EVP_MD_CTX *ctx;
    const char *final_name;
    uint64_t length;
};

/* Room in *v (of elements of size bytes) for one more than n. */
static int grow(void **v, size_t size, size_t n, size_t *cap)
{
    void *p;

    if (n < *cap)
        return 1;
    if ((p = realloc(*v, (*cap ? 2 * *cap : 16) * size)) == NULL)
        return 0;
    *v = p;
    *cap = *cap ? 2 * *cap : 16;
    return 1;
}

static int before(const part_record *a, const part_record *b)
{
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
}

/* A copy of the run r, with a copy of its head: the reader frees the
 * record's own head when a later line of the record is bad. */
static int heap_push(early_node *e, const part_record *r)
{
    size_t i = e->nheap;
    part_record run = *r;

    if (!grow((void **)&e->heap, sizeof *e->heap, i, &e->heap_cap))
        return 0;
    if (run.head_len > 0 && (run.head = malloc(run.head_len)) == NULL)
        return 0;
    if (run.head_len > 0)
        memcpy(run.head, r->head, run.head_len);
    e->nheap++;
    for (; i > 0 && before(&run, &e->heap[(i - 1) / 2]); i = (i - 1) / 2)
        e->heap[i] = e->heap[(i - 1) / 2];
    e->heap[i] = run;
    return 1;
}

static part_record heap_pop(early_node *e)
{
    part_record top = e->heap[0], last = e->heap[--e->nheap];
    size_t i = 0, child;

    while ((child = 2 * i + 1) < e->nheap) {
        if (child + 1 < e->nheap && before(&e->heap[child + 1], &e->heap[child]))
            child++;
        if (!before(&e->heap[child], &last))
            break;
        e->heap[i] = e->heap[child];
        i = child;
    }
    if (e->nheap > 0)
        e->heap[i] = last;
    return top;
}

/* The head record starts the node: the object's length, the customization
 * string and the first chunk. */
static int start(early_node *e, const part_record *head)
{
    uint64_t length = head->length;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_octet_string(KSUM_PARAM_CUSTOM, (void *)e->custom,
                                          strlen(e->custom)),
        OSSL_PARAM_construct_uint64(KSUM_PARAM_MESSAGE_LENGTH, &length),
        OSSL_PARAM_END};
    const part_family *f = part_family_of(head->algorithm);
    const char *name = f != NULL ? f->final : NULL;
    EVP_MD *md = name != NULL ? EVP_MD_fetch(e->lib, name, PROPS) : NULL;
    int ok = md != NULL && (e->ctx = EVP_MD_CTX_new()) != NULL &&
             EVP_DigestInit_ex2(e->ctx, md, p) &&
             EVP_DigestUpdate(e->ctx, head->head, head->head_len);

    EVP_MD_free(md);
    e->final_name = name;
    e->length = length;
    return ok;
}

/* A record of at least one chunk, the next in chunk order. */
static int absorb(early_node *e, const part_record *r)
{
    if (r->begin == 0 && !start(e, r))
        return 0;
    return e->ctx != NULL && EVP_DigestUpdate(e->ctx, r->cvs, r->count * r->cv_len);
}

/* The least record offered continues the chunks absorbed (or overlaps
 * them, which absorb_ready marks broken). */
static int absorbable(const early_node *e)
{
    return !e->broken && e->nheap > 0 && e->heap[0].begin <= e->next;
}

/* The run r, absorbed next, noted: with the runs of its record before it
 * when they were the last absorbed.  0 when out of memory. */
static int note(early_node *e, const part_record *r)
{
    record_id *last = e->nabsorbed > 0 ? &e->absorbed[e->nabsorbed - 1] : NULL;

    if (last != NULL && last->file == r->file && last->index == r->index) {
        last->end = r->end;
        last->count += r->count;
        return 1;
    }
    if (!grow((void **)&e->absorbed, sizeof *e->absorbed, e->nabsorbed, &e->absorbed_cap))
        return 0;
    e->absorbed[e->nabsorbed++] = (record_id){r->file, r->index, r->end, r->count};
    return 1;
}

/* Called with e->lock held, by the one busy thread; the lock is let go
 * while a run is absorbed, so that the other threads go on offering. */
static void absorb_ready(early_node *e)
{
    while (absorbable(e)) {
        part_record r = heap_pop(e);
        int ok;
        if (r.begin < e->next || !note(e, &r)) {
            e->broken = 1;   /* overlapping records: combine will say so */
            free(r.head);
            break;
        }
        e->next = r.end;
        pthread_mutex_unlock(&e->lock);
        /* a failure here is only a reason to build the node again: what
         * it left in this thread's error queue would be read as the
         * reason of some later, unrelated failure.  Cleared, not popped to
         * a mark: the queue of a thread that absorbs holds nothing else
         * (a record's faults are said in words, not queued). */
        ok = absorb(e, &r);
        if (!ok)
            ERR_clear_error();
        free(r.head);
        pthread_mutex_lock(&e->lock);
        e->broken |= !ok;
    }
}

early_node *early_new(OSSL_LIB_CTX *lib, const char *custom)
{
    early_node *e = calloc(1, sizeof *e);

    if (e == NULL)
        return NULL;
    if (pthread_mutex_init(&e->lock, NULL) != 0) {
        free(e);
        return NULL;
    }
    if (pthread_cond_init(&e->offered, NULL) != 0) {
        pthread_mutex_destroy(&e->lock);
        free(e);
        return NULL;
    }
    e->lib = lib;
    e->custom = custom;
    return e;
}

void early_readers(early_node *e, unsigned n)
{
    if (e != NULL)
        e->readers = n;
}

void early_offer(early_node *e, const part_record *r)
{
    if (e == NULL || r->begin == r->end)
        return;   /* an empty share adds no chunk */
    pthread_mutex_lock(&e->lock);
    if (!heap_push(e, r))
        e->broken = 1;
    if (e->idle > 0) {
        pthread_cond_signal(&e->offered);   /* a thread is free to absorb it */
    } else if (!e->busy) {
        e->busy = 1;
        absorb_ready(e);
        e->busy = 0;
    }
    pthread_mutex_unlock(&e->lock);
}

void early_reader_done(early_node *e)
{
    if (e == NULL)
        return;
    pthread_mutex_lock(&e->lock);
    if (--e->readers == 0)
        pthread_cond_broadcast(&e->offered);
    pthread_mutex_unlock(&e->lock);
}

void early_serve(early_node *e)
{
    if (e == NULL)
        return;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        if (!e->busy && absorbable(e)) {
            e->busy = 1;
            absorb_ready(e);
            e->busy = 0;
            continue;
        }
        /* the busy thread, if any, takes what is left before it stops */
        if (e->readers == 0)
            break;
        e->idle++;
        pthread_cond_wait(&e->offered, &e->lock);
        e->idle--;
    }
    pthread_mutex_unlock(&e->lock);
}

/* How many of the sorted records, skipping empty shares, the node already
 * holds; 0 (and the node dropped) when they are not its start. */
static size_t held(early_node *e, part_record *const *all, size_t n,
                   const char *final_name, uint64_t length)
{
    size_t k = 0;

    if (!e->broken && e->ctx != NULL && strcmp(e->final_name, final_name) == 0 &&
        e->length == length)
        for (size_t i = 0; i < n && k < e->nabsorbed; i++) {
            const record_id *id = &e->absorbed[k];
            if (all[i]->begin == all[i]->end)
                continue;
            /* a record not absorbed to its end is as a stranger */
            if (all[i]->file != id->file || all[i]->index != id->index ||
                all[i]->end != id->end || all[i]->count != id->count) {
                k = 0;
                break;
            }
            k++;
        }
    if (k == e->nabsorbed && k > 0)
        return k;
    EVP_MD_CTX_free(e->ctx);
    e->ctx = NULL;
    return 0;
}

EVP_MD_CTX *early_take(early_node *e, part_record *const *all, size_t n,
                       const char *final_name, uint64_t length)
{
    size_t k = held(e, all, n, final_name, length);
    EVP_MD_CTX *ctx;

    for (size_t i = 0; i < n; i++) {
        if (all[i]->begin == all[i]->end)
            continue;
        if (k > 0) {
            k--;   /* absorbed already */
            continue;
        }
        if (!absorb(e, all[i]))
            return NULL;
    }
    ctx = e->ctx;
    e->ctx = NULL;
    return ctx;
}

void early_free(early_node *e)
{
    if (e == NULL)
        return;
    EVP_MD_CTX_free(e->ctx);
    pthread_cond_destroy(&e->offered);
    pthread_mutex_destroy(&e->lock);
    for (size_t i = 0; i < e->nheap; i++)
        free(e->heap[i].head);
    free(e->heap);
    free(e->absorbed);
    free(e);
}
