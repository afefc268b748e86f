/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Batches: the sponges of several independent messages absorbing together,
 * so that the 4-way kernel permutes up to four of them at once
 * (sponge_absorb_multi).  A message's owner opts in by joining a group,
 * named by a non-zero id, of a registry (one per provider instance).  Its
 * input is then copied into a bounded pending buffer, and absorbed when the
 * buffer overflows or the message needs its sponge, each time together with
 * the pending blocks of up to lanes - 1 other members (its backend's).
 *
 * Locking: the registry's mutex guards its list of groups and their
 * reference counts; each group's mutex guards its list of members and
 * their pending buffers, and hands out the sponge of every member whose
 * buffer is not empty.  No lock is held while permuting: a flush marks
 * the members it absorbs busy under the lock, permutes without it, and
 * gives them back under it; until then their owners' calls here wait
 * (for that one flush, which absorbs at most BATCH_PENDING_MAX bytes of
 * each of its lanes).  One rule keeps the owner's other calls (start,
 * finish, squeeze, copying the state) free of locks:
 *
 *   another member's flush touches a sponge only while its pending buffer
 *   holds bytes, and only its owner's batch_absorb puts bytes there.
 *
 * So once batch_flush or batch_discard has returned, the sponge is its
 * owner's alone until its next batch_absorb.  The calls on one member are
 * its owner's, one at a time; calls on different members may run on
 * different threads at once.
 *
 * fork(): handlers (pthread_atfork, set by the first batch_registry_new)
 * take every lock and wait for the flushes under way before it, and
 * release the locks after it, in the parent and in the child.  So the
 * child's members hold exactly the input they held, none is busy, and
 * each can be used or left there (a member whose owner's call was under
 * way on another thread can only be left: that call is not in the child).
 *
 * Results are those of sponge_absorb on the same bytes in the same order,
 * for any split of any input: only when the blocks are permuted changes.
 *
 * Return convention as mode.h's: operations that cannot fail return void;
 * those that allocate return NULL when out of memory, changing nothing.
 */
#ifndef KSUM_BATCH_H
#define KSUM_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "../sponge/sponge.h"

/* The most input a member holds back (bytes), allocated when it joins. */
#define BATCH_PENDING_MAX (64 * 1024)

typedef struct batch_registry batch_registry;
typedef struct batch_member batch_member;

/* The allocator (the provider's, so that an application's accounting sees
 * it): alloc returns memory (not cleared) or NULL; release wipes the first `wipe`
 * bytes of p, then frees it (p may be NULL). */
typedef struct batch_memory {
    void *(*alloc)(size_t len);
    void (*release)(void *p, size_t wipe);
} batch_memory;

/* An empty registry; NULL when out of memory.  mem must outlive it. */
batch_registry *batch_registry_new(const batch_memory *mem);
/* Every member must have left. */
void batch_registry_free(batch_registry *r);

/* Makes the message absorbed into sp a member of group id (non-zero) of r,
 * with an empty pending buffer; NULL when out of memory.  sp stays where it
 * is for as long as the member exists, and may be started (sponge_init)
 * later: no one looks at it before batch_absorb. */
batch_member *batch_join(batch_registry *r, uint64_t id, sponge *sp);
/* Discards the pending input (wiped) and leaves the group; NULL is
 * ignored.  To keep the input, batch_flush first. */
void batch_leave(batch_member *m);

/* Absorbs len bytes as sponge_absorb would, sooner or later: they are
 * pending until the buffer overflows or batch_flush.  Input longer than
 * the buffer is absorbed at once: its first blocks paired with what
 * others have pending, the rest alone, without the group's lock. */
void batch_absorb(batch_member *m, const uint8_t *in, size_t len);
/* Absorbs all of m's pending input into its sponge, with the pending
 * blocks of other members where they pair. */
void batch_flush(batch_member *m);
/* Forgets m's pending input (a message started again). */
void batch_discard(batch_member *m);

/* The id of m's group. */
uint64_t batch_id(const batch_member *m);

/* Bytes m holds back now (for tests). */
size_t batch_pending(batch_member *m);

#endif
