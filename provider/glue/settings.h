/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the OSSL_PARAMs of a context have set (params.c reads them, one
 * table of rules for every algorithm), and the phases of a context, which
 * decide which parameters may still change.
 */
#ifndef KSUM_SETTINGS_H
#define KSUM_SETTINGS_H

#include "prov.h"

enum phase {
    PHASE_NEW,          /* before the first init */
    PHASE_FRESH,        /* initialized, nothing absorbed */
    PHASE_ABSORBING,
    PHASE_SQUEEZING,    /* input closed by a squeeze; more may be squeezed */
    PHASE_FINISHED,     /* final done; only a new init goes on */
};

typedef struct buffer {
    uint8_t *p;         /* NULL: not set (an empty string has a buffer) */
    size_t len;
} buffer;

typedef struct settings {
    size_t outlen;      /* SIZE_MAX: none set and no default */
    int xof;
    buffer custom, fname, key;
    size_t block_size;
    unsigned domain, threads;
    uint64_t batch;     /* the group id; 0: none */
    const struct keccak_backend *be;
    int announce;       /* an element length to announce (not kept) */
    uint64_t element_len;
    uint64_t message_len;   /* a tree in parts: |M|; UINT64_MAX: not set */
    uint64_t offset;        /* ... and where the part's input starts */
} settings;

/* The defaults of alg; s must hold no buffers. */
void settings_default(settings *s, const ksum_alg *alg, const ksum_provctx *prov);
/* Reads params into next, a copy of cur, checking each against the phase
 * and the algorithm; unknown keys are ignored, as OpenSSL's providers do
 * (and, at_init, an output length for a fixed-length digest).  On failure
 * raises, frees what it allocated and returns 0. */
int settings_read(const ksum_provctx *prov, const ksum_alg *alg,
                  enum phase phase, const settings *cur,
                  const OSSL_PARAM params[], int at_init, settings *next);
/* Makes next the settings, freeing the buffers it replaced in cur. */
void settings_commit(settings *cur, settings *next);
/* Frees the buffers next allocated that cur does not hold. */
void settings_discard(const settings *cur, settings *next);
/* Deep copy; returns 0 on no memory with dst holding no buffers. */
int settings_dup(settings *dst, const settings *src);
/* Wipes and frees the buffers (keys are secret). */
void settings_free(settings *s);

#endif
