/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one interface every mode offers the provider glue: a description
 * (sponge parameters, default output length, the parameters it takes) and
 * a small table of operations over a state of ops->state_size bytes.  The
 * glue keeps one generic context over it and never looks inside a state.
 *
 * Adding a mode is one file in modes/ that defines its ops and its
 * descriptions (declared in the list at the end of this file, and named in
 * CMakeLists.txt), plus a row per algorithm in glue/algorithms.h.
 *
 * Return convention of this layer: operations that can refuse their input
 * return int, 1 for done and 0 for refused with the state unchanged; the
 * others return void and cannot fail.  No operation needs memory: the
 * tree modes' absorb borrows a buffer for their chaining values when it
 * can have one, and works in a smaller one on the stack when it cannot.
 *
 * A state owns no memory, so a copy is memcpy and a wipe is clearing its
 * state_size bytes; the only pointers in it are the worker pool a tree mode
 * borrows, which the glue attaches again to a copy, and the constant
 * function a tree in parts sends its CVs to (tree.h).
 */
#ifndef KSUM_MODE_H
#define KSUM_MODE_H

#include <stddef.h>
#include <stdint.h>

#include "../sponge/sponge.h"
#include "parallel.h"

/* The parameters a mode takes (bits of mode_desc.takes), each with the one
 * time it may be set, the same for every mode:
 *   MODE_OUTLEN, MODE_XOF  until the output is produced (final or squeeze)
 *   MODE_CUSTOM, MODE_FNAME, MODE_KEY, MODE_BLOCK, MODE_DOMAIN
 *                          before the first byte is absorbed
 *   MODE_THREADS, MODE_BATCH  any time (speed only)
 *   MODE_ELEMENT           between elements (ops->announce)            */
enum {
    MODE_OUTLEN = 1 << 0,   /* variable output length */
    MODE_XOF = 1 << 1,      /* the XOF variant of a fixed-length function */
    MODE_CUSTOM = 1 << 2,   /* customization string S */
    MODE_FNAME = 1 << 3,    /* function name N */
    MODE_KEY = 1 << 4,      /* key K */
    MODE_BLOCK = 1 << 5,    /* block size B */
    MODE_DOMAIN = 1 << 6,   /* domain byte D */
    MODE_THREADS = 1 << 7,  /* worker threads for tree leaves */
    MODE_ELEMENT = 1 << 8,  /* announced element lengths (TupleHash) */
    MODE_TEXT = 1 << 9,     /* S and N are text in OpenSSL's own API */
    MODE_BATCH = 1 << 10,   /* absorbs with other messages (ops->lane) */
    MODE_PARTS = 1 << 11,   /* a tree in parts (K12, ParallelHash): |M| */
    MODE_RANGE = 1 << 12,   /* ... and where this part's input starts */
};
/* (MODE_PARTS and MODE_RANGE are set before the first byte.) */

/* The values of the parameters fixed before the first byte. */
typedef struct mode_params {
    const uint8_t *custom, *fname, *key;
    size_t custom_len, fname_len, key_len;
    size_t block_size;      /* B, at least 1 */
    uint8_t domain;         /* D, 0x01..0x7F */
    uint64_t message_len;   /* MODE_PARTS: |M|; UINT64_MAX when not set */
    uint64_t offset;        /* MODE_RANGE: the first byte of M given */
} mode_params;

typedef struct mode_desc mode_desc;

typedef struct mode_ops {
    size_t state_size;
    void (*start)(void *st, const mode_desc *d, const keccak_backend *be,
                  const mode_params *p);
    int (*absorb)(void *st, const uint8_t *in, size_t len);
    /* Closes the input; outlen is in bytes (ignored in XOF mode). */
    int (*finish)(void *st, const mode_params *p, uint64_t outlen, int xof);
    void (*squeeze)(void *st, uint8_t *out, size_t len);
    /* Tree modes: hash leaves on up to `threads` threads (0: every CPU)
     * with helpers from pool (NULL: the caller alone).  NULL otherwise. */
    void (*attach_workers)(void *st, worker_pool *pool, unsigned threads);
    /* MODE_ELEMENT: the next element is len bytes, given by any number of
     * absorb calls.  NULL otherwise. */
    int (*announce)(void *st, uint64_t len);
    /* MODE_BATCH: the sponge the message bytes go into unchanged, so that
     * absorb(st, in, len) is sponge_absorb(lane(st), in, len) and a batch
     * (batch.h) may absorb them there, together with other messages'.
     * Its address is fixed for the state's life.  NULL otherwise. */
    sponge *(*lane)(void *st);
    /* MODE_RANGE: how many chaining values the output holds when the
     * input ends where it is now (its output is that many times cv bytes,
     * nothing else), into *n; 0 when the settings make no range.  NULL
     * otherwise. */
    int (*cv_count)(const void *st, const mode_params *p, uint64_t *n);
    /* MODE_BATCH where only a prefix of the message goes into lane(st)
     * unchanged (K12's first chunk, the whole message when it is short):
     * of the next len bytes, the first n (returned, at most len) are
     * counted as absorbed, and their owner puts them into lane(st) itself,
     * through a batch; the rest go to absorb once the lane holds them.
     * NULL: every byte goes into lane(st) unchanged. */
    size_t (*lane_take)(void *st, size_t len);
    /* MODE_PARTS: the bytes of M one CV stands for (*span: ranges start at
     * a multiple of it and end at one or at M's end) and how many first
     * bytes of M the final node takes as they are, before the CVs (*head).
     * A program can then cut a message in ranges without knowing the tree.
     * NULL otherwise. */
    void (*part_shape)(const mode_params *p, uint64_t *span, uint64_t *head);
} mode_ops;

struct mode_desc {
    const mode_ops *ops;
    uint16_t rate;          /* bytes per block of the sponge the output comes from */
    uint8_t rounds;
    uint8_t domain;         /* the sponge's domain byte, or D's default */
    uint16_t strength;      /* 128 or 256: SP 800-185 and the K12 family */
    size_t outlen;          /* default output bytes */
    unsigned takes;         /* MODE_* bits */
    const void *extra;      /* what one mode needs besides (K12: its tree) */
    /* MODE_BATCH: how many first bytes of a message go into lane(st)
     * (lane_take's limit: K12's first chunk); 0 when all of them do. */
    size_t batch_prefix;
};

/* The modes and their algorithms. */
extern const mode_desc mode_sha3_224, mode_sha3_256, mode_sha3_384,
    mode_sha3_512, mode_keccak_224, mode_keccak_256, mode_keccak_384,
    mode_keccak_512, mode_shake128, mode_shake256, mode_rawshake128,
    mode_rawshake256, mode_turboshake128, mode_turboshake256;     /* fips202.c */
extern const mode_desc mode_cshake128, mode_cshake256, mode_kmac128,
    mode_kmac256;                                                  /* cshake.c */
extern const mode_desc mode_parallelhash128, mode_parallelhash256; /* parallelhash.c */
extern const mode_desc mode_kt128, mode_kt256, mode_m14;           /* kangaroo.c */
extern const mode_desc mode_tuplehash128, mode_tuplehash256;       /* tuplehash.c */
extern const mode_desc mode_kt128_cv, mode_kt256_cv, mode_m14_cv,
    mode_kt128_final, mode_kt256_final, mode_m14_final;          /* kangaroo_parts.c */
extern const mode_desc mode_parallelhash128_cv, mode_parallelhash256_cv,
    mode_parallelhash128_final, mode_parallelhash256_final;      /* parallelhash.c */

#endif
