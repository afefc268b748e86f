/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Groups of messages absorbing together (batch.h).  The flush policy: a
 * member that must absorb its pending input takes all of it, and up to
 * lanes - 1 other members (lanes: its backend's) with pending whole blocks
 * (on the same backend, with the same rounds: one kernel call permutes them
 * together)
 * take as many blocks as the shortest lane of the call has, so that their
 * remainders stay pending to pair again later.  When the members are fed
 * in turns with equal updates, one member's overflow absorbs everyone's
 * blocks four at a time and the others' next updates fit again.
 */
#include "batch.h"

#include <pthread.h>
#include <string.h>

typedef struct batch_group batch_group;

struct batch_member {
    batch_group *group;
    sponge *sp;
    batch_member *prev, *next;  /* the group's members */
    /* The pending input is buf[head .. head + len); used is the most of
     * buf ever written, the bytes to wipe. */
    size_t head, len, used;
    uint8_t buf[];
};

struct batch_group {
    pthread_mutex_t lock;
    batch_registry *registry;
    uint64_t id;
    unsigned refs;              /* members, and joins under way */
    batch_member *members;
    batch_group *next;          /* the registry's groups */
};

struct batch_registry {
    pthread_mutex_t lock;
    batch_group *groups;
    const batch_memory *mem;
};

batch_registry *batch_registry_new(const batch_memory *mem)
{
    batch_registry *r = mem->alloc(sizeof *r);

    if (r == NULL)
        return NULL;
    if (pthread_mutex_init(&r->lock, NULL) != 0) {
        mem->release(r, 0);
        return NULL;
    }
    r->groups = NULL;
    r->mem = mem;
    return r;
}

void batch_registry_free(batch_registry *r)
{
    if (r == NULL)
        return;
    pthread_mutex_destroy(&r->lock);
    r->mem->release(r, 0);
}

/* ---- groups: found or made under the registry's lock ---- */

static batch_group *group_find(batch_registry *r, uint64_t id)
{
    for (batch_group *g = r->groups; g != NULL; g = g->next)
        if (g->id == id)
            return g;
    return NULL;
}

/* Returns id's group with one more reference, or NULL on no memory. */
static batch_group *group_take(batch_registry *r, uint64_t id)
{
    batch_group *g;

    pthread_mutex_lock(&r->lock);
    g = group_find(r, id);
    if (g == NULL && (g = r->mem->alloc(sizeof *g)) != NULL) {
        if (pthread_mutex_init(&g->lock, NULL) != 0) {
            r->mem->release(g, 0);
            g = NULL;
        } else {
            g->registry = r;
            g->id = id;
            g->refs = 0;
            g->members = NULL;
            g->next = r->groups;
            r->groups = g;
        }
    }
    if (g != NULL)
        g->refs++;
    pthread_mutex_unlock(&r->lock);
    return g;
}

static void group_drop(batch_group *g)
{
    batch_registry *r = g->registry;
    batch_group **link;

    pthread_mutex_lock(&r->lock);
    if (--g->refs > 0) {
        pthread_mutex_unlock(&r->lock);
        return;
    }
    for (link = &r->groups; *link != g; link = &(*link)->next)
        ;
    *link = g->next;
    pthread_mutex_unlock(&r->lock);
    pthread_mutex_destroy(&g->lock);
    r->mem->release(g, 0);
}

/* ---- joining and leaving ---- */

batch_member *batch_join(batch_registry *r, uint64_t id, sponge *sp)
{
    batch_member *m = r->mem->alloc(sizeof *m + BATCH_PENDING_MAX);
    batch_group *g;

    if (m == NULL)
        return NULL;
    g = group_take(r, id);
    if (g == NULL) {
        r->mem->release(m, 0);
        return NULL;
    }
    /* The buffer is not cleared: only bytes written to it are read. */
    memset(m, 0, sizeof *m);
    m->group = g;
    m->sp = sp;
    pthread_mutex_lock(&g->lock);
    m->next = g->members;
    if (g->members != NULL)
        g->members->prev = m;
    g->members = m;
    pthread_mutex_unlock(&g->lock);
    return m;
}

void batch_leave(batch_member *m)
{
    batch_group *g;
    const batch_memory *mem;

    if (m == NULL)
        return;
    g = m->group;
    mem = g->registry->mem;
    pthread_mutex_lock(&g->lock);
    if (m->prev != NULL)
        m->prev->next = m->next;
    else
        g->members = m->next;
    if (m->next != NULL)
        m->next->prev = m->prev;
    pthread_mutex_unlock(&g->lock);
    group_drop(g);
    /* The pending bytes are the message's: wiped as the state is. */
    mem->release(m, sizeof *m + m->used);
}

/* ---- absorbing, under the group's lock ---- */

/* The blocks a sponge completes with len more bytes. */
static size_t blocks_of(const sponge *sp, size_t len)
{
    return (sp->pos + len) / sp->rate;
}

/* One kernel call can permute a and b together. */
static int pairs(const sponge *a, const sponge *b)
{
    return a->rounds == b->rounds && a->be == b->be;
}

typedef struct partner {
    batch_member *m;
    size_t blocks;
} partner;

/* Up to lanes - 1 other members with pending whole blocks that pair
 * with self's sponge, those with the most first (they overflow soonest).
 * Only members with pending bytes are looked at: the others' sponges are
 * their owners' (batch.h). */
static unsigned pick_partners(const batch_member *self,
                              partner out[KECCAK_LANES_MAX - 1])
{
    unsigned n = 0, most = self->sp->be->lanes - 1;

    for (batch_member *m = self->group->members; most > 0 && m != NULL; m = m->next) {
        partner p = {m, 0};
        unsigned at;
        if (m == self || m->len == 0 || !pairs(self->sp, m->sp))
            continue;
        p.blocks = blocks_of(m->sp, m->len);
        if (p.blocks == 0)
            continue;
        if (n < most)
            n++;
        else if (p.blocks <= out[n - 1].blocks)
            continue;
        for (at = n - 1; at > 0 && out[at - 1].blocks < p.blocks; at--)
            out[at] = out[at - 1];
        out[at] = p;
    }
    return n;
}

static void consume(batch_member *m, size_t n)
{
    m->head += n;
    m->len -= n;
    if (m->len == 0)
        m->head = 0;
}

/* Absorbs all of in into self's sponge, and with it the first blocks of
 * other members' pending input: as many as the shortest lane has, so that
 * every lane of the call but self's ends on a block boundary. */
static void absorb_paired(batch_member *self, const uint8_t *in, size_t len)
{
    sponge *sp[KECCAK_LANES_MAX] = {self->sp};
    const uint8_t *lane_in[KECCAK_LANES_MAX] = {in};
    size_t lane_len[KECCAK_LANES_MAX] = {len};
    partner other[KECCAK_LANES_MAX - 1];
    size_t k;
    unsigned n = 0;

    if (len == 0)
        return; /* the sponge may not even be started */
    k = blocks_of(self->sp, len);
    if (k > 0)
        n = pick_partners(self, other);
    for (unsigned j = 0; j < n; j++)
        if (other[j].blocks < k)
            k = other[j].blocks;
    for (unsigned j = 0; j < n; j++) {
        batch_member *m = other[j].m;
        sp[j + 1] = m->sp;
        lane_in[j + 1] = m->buf + m->head;
        lane_len[j + 1] = k * m->sp->rate - m->sp->pos;
    }
    sponge_absorb_multi(sp, lane_in, lane_len, n + 1);
    for (unsigned j = 0; j < n; j++)
        consume(other[j].m, lane_len[j + 1]);
}

static void flush_locked(batch_member *m)
{
    absorb_paired(m, m->buf + m->head, m->len);
    consume(m, m->len);
}

/* Appends in to the pending bytes, which have room for it. */
static void append(batch_member *m, const uint8_t *in, size_t len)
{
    if (m->head + m->len + len > BATCH_PENDING_MAX) {
        memmove(m->buf, m->buf + m->head, m->len);
        m->head = 0;
    }
    memcpy(m->buf + m->head + m->len, in, len);
    m->len += len;
    if (m->head + m->len > m->used)
        m->used = m->head + m->len;
}

void batch_absorb(batch_member *m, const uint8_t *in, size_t len)
{
    pthread_mutex_t *lock = &m->group->lock;

    if (len == 0)
        return; /* in may be NULL then */
    pthread_mutex_lock(lock);
    if (len > BATCH_PENDING_MAX - m->len) {
        flush_locked(m);
        if (len > BATCH_PENDING_MAX) {
            absorb_paired(m, in, len);
            len = 0;
        }
    }
    if (len > 0)
        append(m, in, len);
    pthread_mutex_unlock(lock);
}

void batch_flush(batch_member *m)
{
    pthread_mutex_lock(&m->group->lock);
    flush_locked(m);
    pthread_mutex_unlock(&m->group->lock);
}

void batch_discard(batch_member *m)
{
    pthread_mutex_lock(&m->group->lock);
    consume(m, m->len);
    pthread_mutex_unlock(&m->group->lock);
}

uint64_t batch_id(const batch_member *m)
{
    return m->group->id; /* fixed for the group's life */
}

size_t batch_pending(batch_member *m)
{
    size_t len;

    pthread_mutex_lock(&m->group->lock);
    len = m->len;
    pthread_mutex_unlock(&m->group->lock);
    return len;
}
