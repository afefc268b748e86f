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
 *
 * No lock is held while permuting.  A flush takes its work out under the
 * group's lock, marking the members whose pending bytes it reads busy,
 * permutes without the lock, and gives them back under it.  A busy
 * member's owner waits before it touches the member (append, discard,
 * leave, its own flush), and a member whose owner waits is not taken
 * again: so a wait lasts at most one flush, which absorbs at most the
 * pending bound from each of its backend's lanes.  An update longer than
 * the bound is absorbed by its caller alone, outside the lock, once its
 * first blocks went with the others' pending ones.
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
    /* busy: a flush reads buf and absorbs into sp without the lock;
     * waited: the owner waits for that, so no flush takes it meanwhile. */
    unsigned char busy, waited;
    uint8_t buf[];
};

struct batch_group {
    pthread_mutex_t lock;
    pthread_cond_t idle;        /* a flush gave its members back */
    batch_registry *registry;
    uint64_t id;
    unsigned refs;              /* members, and joins under way */
    unsigned flushing;          /* flushes between taking and giving back */
    int forking;                /* fork() waits: no flush may start */
    batch_member *members;
    batch_group *next;          /* the registry's groups */
};

struct batch_registry {
    pthread_mutex_t lock;
    batch_group *groups;
    const batch_memory *mem;
    batch_registry *prev, *next; /* every registry, for fork() */
};

/* ---- fork() ----
 *
 * fork() in the middle of a flush would leave its members busy for good
 * in the child (the flushing thread is not there), and their sponges half
 * absorbed; fork() while a lock is held would leave it held.  So before
 * fork() the forking thread takes every registry's and every group's
 * lock, waits for the flushes under way (each bounded) and lets none
 * start; after it, it releases them, in the parent and in the child.  The
 * child makes the condition variables anew: the parent's other threads
 * may have been waiting on them, and are not in the child.  (glibc drops
 * a module's handlers when it is unloaded: checked with ksumprov.so.) */

static pthread_mutex_t registries_lock = PTHREAD_MUTEX_INITIALIZER;
static batch_registry *registries;
static int fork_handlers_set;   /* under registries_lock */

static void fork_prepare(void)
{
    pthread_mutex_lock(&registries_lock);
    for (batch_registry *r = registries; r != NULL; r = r->next) {
        pthread_mutex_lock(&r->lock);
        for (batch_group *g = r->groups; g != NULL; g = g->next) {
            pthread_mutex_lock(&g->lock);
            g->forking = 1;
            while (g->flushing > 0)
                pthread_cond_wait(&g->idle, &g->lock);
        }
    }
}

static void fork_release(int child)
{
    for (batch_registry *r = registries; r != NULL; r = r->next) {
        for (batch_group *g = r->groups; g != NULL; g = g->next) {
            g->forking = 0;
            if (child) {
                pthread_cond_init(&g->idle, NULL);
                for (batch_member *m = g->members; m != NULL; m = m->next)
                    m->waited = 0; /* their owners are not in the child */
            } else {
                pthread_cond_broadcast(&g->idle);
            }
            pthread_mutex_unlock(&g->lock);
        }
        pthread_mutex_unlock(&r->lock);
    }
    pthread_mutex_unlock(&registries_lock);
}

static void fork_parent(void)
{
    fork_release(0);
}

static void fork_child(void)
{
    fork_release(1);
}

/* Lists r for fork(), the handlers set on first use; 0 on no memory. */
static int registry_enlist(batch_registry *r)
{
    int ok;

    pthread_mutex_lock(&registries_lock);
    if (!fork_handlers_set)
        fork_handlers_set = pthread_atfork(fork_prepare, fork_parent, fork_child) == 0;
    ok = fork_handlers_set;
    if (ok) {
        r->prev = NULL;
        r->next = registries;
        if (registries != NULL)
            registries->prev = r;
        registries = r;
    }
    pthread_mutex_unlock(&registries_lock);
    return ok;
}

static void registry_delist(batch_registry *r)
{
    pthread_mutex_lock(&registries_lock);
    if (r->prev != NULL)
        r->prev->next = r->next;
    else
        registries = r->next;
    if (r->next != NULL)
        r->next->prev = r->prev;
    pthread_mutex_unlock(&registries_lock);
}

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
    if (!registry_enlist(r)) {
        pthread_mutex_destroy(&r->lock);
        mem->release(r, 0);
        return NULL;
    }
    return r;
}

void batch_registry_free(batch_registry *r)
{
    if (r == NULL)
        return;
    registry_delist(r);
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

/* A new group, listed in r; NULL on no memory. */
static batch_group *group_new(batch_registry *r, uint64_t id)
{
    batch_group *g = r->mem->alloc(sizeof *g);

    if (g == NULL)
        return NULL;
    if (pthread_mutex_init(&g->lock, NULL) != 0) {
        r->mem->release(g, 0);
        return NULL;
    }
    if (pthread_cond_init(&g->idle, NULL) != 0) {
        pthread_mutex_destroy(&g->lock);
        r->mem->release(g, 0);
        return NULL;
    }
    g->registry = r;
    g->id = id;
    g->refs = g->flushing = 0;
    g->forking = 0;
    g->members = NULL;
    g->next = r->groups;
    r->groups = g;
    return g;
}

/* Returns id's group with one more reference, or NULL on no memory. */
static batch_group *group_take(batch_registry *r, uint64_t id)
{
    batch_group *g;

    pthread_mutex_lock(&r->lock);
    g = group_find(r, id);
    if (g == NULL)
        g = group_new(r, id);
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
    /* No member is left, so no flush and no waiter either. */
    pthread_cond_destroy(&g->idle);
    pthread_mutex_destroy(&g->lock);
    r->mem->release(g, 0);
}

/* Returns with no flush reading m, and none about to start (fork); the
 * group's lock held.  Meanwhile no flush takes m again, so the wait is
 * for one flush at most. */
static void wait_turn(batch_member *m)
{
    batch_group *g = m->group;

    while (m->busy || g->forking) {
        m->waited = 1;
        pthread_cond_wait(&g->idle, &g->lock);
    }
    m->waited = 0;
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
    wait_turn(m); /* no flush may read what is freed below */
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

/* ---- flushes: taken out under the group's lock, run outside it ---- */

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
 * Only members with pending bytes and not busy are looked at: the others'
 * sponges are their owners' (batch.h) or another flush's. */
static unsigned pick_partners(const batch_member *self,
                              partner out[KECCAK_LANES_MAX - 1])
{
    unsigned n = 0, most = self->sp->be->lanes - 1;

    for (batch_member *m = self->group->members; most > 0 && m != NULL; m = m->next) {
        partner p = {m, 0};
        unsigned at;
        if (m == self || m->busy || m->waited || m->len == 0 || !pairs(self->sp, m->sp))
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

/* One flush: lane 0 is the flushing member's, the others its partners'. */
typedef struct flush {
    batch_member *m[KECCAK_LANES_MAX];
    sponge *sp[KECCAK_LANES_MAX];
    const uint8_t *in[KECCAK_LANES_MAX];
    size_t len[KECCAK_LANES_MAX];
    unsigned n;
} flush;

/* Adds m's first k pending blocks (a whole number: its lane ends on a
 * block boundary) as the next lane of f. */
static void add_lane(flush *f, batch_member *m, size_t k)
{
    unsigned j = f->n++;

    f->m[j] = m;
    f->sp[j] = m->sp;
    f->in[j] = m->buf + m->head;
    f->len[j] = k * m->sp->rate - m->sp->pos;
}

/* Takes out a flush of self's in[0 .. len) with the first blocks of other
 * members' pending input: as many as the shortest lane has.  Self's lane
 * is all of len when `whole`, else only the blocks paired (none without
 * partners), the rest being left to the caller.  Returns the length of
 * self's lane; when not 0, the lanes' members are busy until give_back.
 * Lock held, self's turn waited for. */
static size_t take(flush *f, batch_member *self, const uint8_t *in, size_t len,
                   int whole)
{
    partner other[KECCAK_LANES_MAX - 1];
    size_t k;
    unsigned n = 0;

    if (len == 0)
        return 0; /* the sponge may not even be started */
    k = blocks_of(self->sp, len);
    if (k > 0)
        n = pick_partners(self, other);
    if (n == 0 && !whole)
        return 0;
    for (unsigned j = 0; j < n; j++)
        if (other[j].blocks < k)
            k = other[j].blocks;
    f->n = 1;
    f->m[0] = self;
    f->sp[0] = self->sp;
    f->in[0] = in;
    f->len[0] = whole ? len : k * self->sp->rate - self->sp->pos;
    for (unsigned j = 0; j < n; j++)
        add_lane(f, other[j].m, k);
    for (unsigned j = 0; j < f->n; j++)
        f->m[j]->busy = 1;
    self->group->flushing++;
    return f->len[0];
}

/* Permutes without the lock: the lanes' members are busy, so no one else
 * reads or changes their sponges and pending bytes. */
static void run(flush *f)
{
    pthread_mutex_t *lock = &f->m[0]->group->lock;

    pthread_mutex_unlock(lock);
    sponge_absorb_multi(f->sp, f->in, f->len, f->n);
    pthread_mutex_lock(lock);
}

/* The partners' absorbed bytes leave their buffers; the members are
 * their owners' again.  Lock held. */
static void give_back(flush *f)
{
    batch_group *g = f->m[0]->group;

    for (unsigned j = 1; j < f->n; j++)
        consume(f->m[j], f->len[j]);
    for (unsigned j = 0; j < f->n; j++)
        f->m[j]->busy = 0;
    g->flushing--;
    pthread_cond_broadcast(&g->idle);
}

/* Absorbs all of m's pending input.  Lock held; m's buffer may be read
 * by another flush until wait_turn. */
static void flush_pending(batch_member *m)
{
    flush f;

    wait_turn(m);
    if (take(&f, m, m->buf + m->head, m->len, 1) == 0)
        return;
    run(&f);
    give_back(&f);
    consume(m, m->len);
}

/* Absorbs the blocks of in that pair with the others' pending ones;
 * returns how many bytes of in that was.  Lock held, m holding nothing. */
static size_t absorb_paired(batch_member *m, const uint8_t *in, size_t len)
{
    flush f;
    size_t paired;

    wait_turn(m); /* not busy, but a fork may be waiting */
    paired = take(&f, m, in, len, 0);
    if (paired > 0) {
        run(&f);
        give_back(&f);
    }
    return paired;
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
    size_t alone = 0;

    if (len == 0)
        return; /* in may be NULL then */
    pthread_mutex_lock(lock);
    wait_turn(m);
    if (len > BATCH_PENDING_MAX - m->len) {
        flush_pending(m);
        if (len > BATCH_PENDING_MAX) {
            size_t paired = absorb_paired(m, in, len);
            in += paired;
            alone = len - paired;
            len = 0;
        }
    }
    if (len > 0)
        append(m, in, len);
    pthread_mutex_unlock(lock);
    /* m holds nothing back: no flush looks at its sponge (batch.h). */
    if (alone > 0)
        sponge_absorb(m->sp, in, alone);
}

void batch_flush(batch_member *m)
{
    pthread_mutex_lock(&m->group->lock);
    flush_pending(m);
    pthread_mutex_unlock(&m->group->lock);
}

void batch_discard(batch_member *m)
{
    pthread_mutex_lock(&m->group->lock);
    wait_turn(m);
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
