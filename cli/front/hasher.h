/* SPDX-License-Identifier: Apache-2.0 */
/* Hashing files through EVP: one fetch per algorithm, one init and one
 * final per file. */
#ifndef KSUM_CLI_HASHER_H
#define KSUM_CLI_HASHER_H

#include <openssl/evp.h>
#include <stdint.h>

#include "front/options.h"

/* The most parameters one begin sends. */
#define HASHER_PARAMS_MAX 16

/* What a hasher sends at each begin, ended by OSSL_PARAM_END; built from
 * the options and the hasher's fields whenever one changes. */
typedef struct hasher_params {
    OSSL_PARAM p[HASHER_PARAMS_MAX + 1];
    union {
        size_t count;
        unsigned byte;
    } values[OPTIONS_PARAMS_MAX];           /* the parameter options' numbers */
} hasher_params;

/* What the hashers of a run send besides their algorithm: the options
 * that become parameters, taken once from the command line
 * (options_resolve), so that nothing that hashes sees the rest of it. */
typedef struct hash_spec {
    unsigned given;          /* TAKES_* of the options used */
    param_value param[OPTIONS_PARAMS_MAX];  /* by TAKES_PARAM number */
    size_t size;             /* -n (or -l in bytes); 0: the default */
    int xof;                 /* -x */
    const uint8_t *key;      /* -k or --key-file; NULL: the empty key */
    size_t key_len;
    unsigned threads;        /* --threads; 0: all CPUs */
} hash_spec;

/* The argument given to the option that sends param (KSUM_PARAM_*), or
 * NULL when none was. */
const char *hash_spec_text(const hash_spec *spec, const char *param);

/* What EVP says of an algorithm. */
typedef struct algorithm_facts {
    size_t fixed_size;    /* output bytes of a fixed-length digest; 0: any */
    size_t default_size;  /* output bytes without -n (ksumprov's default) */
    unsigned takes;       /* TAKES_* */
} algorithm_facts;

/* Asks EVP about a (fetched from lib); 0 with a message when it cannot. */
int algorithm_describe(OSSL_LIB_CTX *lib, const algorithm *a, algorithm_facts *f);

typedef struct hasher {
    const algorithm *alg;
    OSSL_LIB_CTX *lib;    /* fetched from */
    algorithm_facts facts;
    EVP_MD *md;
    EVP_MD_CTX *md_ctx;
    EVP_MAC *mac;
    EVP_MAC_CTX *mac_ctx;
    size_t size;          /* output bytes; changed by hasher_set_size only */
    int xof;              /* the XOF mode (-x) of an algorithm that has one */
    const hash_spec *spec;  /* what the parameters are built from */
    unsigned given;       /* the TAKES_* bits of spec sent */
    unsigned threads;     /* sent once threads_set (--threads, or set) */
    int threads_set;
    uint64_t batch;       /* the batch group id; 0: none */
    hasher_params sent;   /* built from the above */
} hasher;

/* Outputs longer than this are squeezed and printed piece by piece
 * (KSUM_PARAM_SQUEEZE), never held in memory whole. */
#define HASHER_STREAM_MIN ((size_t)1 << 20)

/* The output bytes of an algorithm under spec (-n or the default). */
size_t hasher_output_size(const algorithm_facts *f, const hash_spec *spec);
#define hasher_streams(h) ((h)->size > HASHER_STREAM_MIN)
/* The XOF mode (-x) of an algorithm that has one is on. */
#define hasher_is_xof(h) ((h)->xof)

/* Fetches the algorithm and builds what it sends from spec, which must
 * outlive the hasher; prints an error and returns 0 on failure. */
int hasher_open(hasher *h, OSSL_LIB_CTX *lib, const algorithm *alg,
                const hash_spec *spec);
/* The same, printing nothing: on a thread that does not own standard
 * error, or where a failure only costs speed.  OpenSSL's errors stay in
 * the thread's queue. */
int hasher_open_quiet(hasher *h, OSSL_LIB_CTX *lib, const algorithm *alg,
                      const hash_spec *spec);
void hasher_close(hasher *h);
/* From the next begin on, the output is size bytes (check mode verifies
 * each line at its own length). */
void hasher_set_size(hasher *h, size_t size);
/* A tree mode hashes on at most n threads (the others ignore it); before
 * hasher_join. */
void hasher_set_threads(hasher *h, unsigned n);
/* Whether the provider accepts the options of spec of the given bits
 * (TAKES_*) for alg: a message is begun with them.  1: yes; 0: no, *why
 * says why; -1: it could not be tried (out of memory), which is already
 * said. */
int hasher_try(OSSL_LIB_CTX *lib, const algorithm *alg, const hash_spec *spec,
               unsigned given, char *why, size_t size);

/* One message: begin, any number of updates, end writing h->size bytes.
 * Each returns 1 on success, 0 when EVP failed. */
int hasher_begin(hasher *h);
int hasher_update(hasher *h, const uint8_t *in, size_t len);
int hasher_end(hasher *h, uint8_t *out);
/* TupleHash: the next element is len bytes (KSUM_PARAM_ELEMENT_LENGTH). */
int hasher_announce(hasher *h, uint64_t len);
/* Instead of hasher_end: the next len bytes of output, any number of times. */
int hasher_squeeze(hasher *h, uint8_t *out, size_t len);

/* From the next begin on, the context is in batch group id (0: none), when
 * the algorithm takes KSUM_PARAM_BATCH; the id goes with every init, since
 * a digest's init resets it (and OpenSSL 3.0 makes a new context). */
void hasher_join(hasher *h, uint64_t id);
/* How many messages the backend of h's context (begun) absorbs side by
 * side (KSUM_PARAM_LANES); 0 when EVP could not tell. */
unsigned hasher_lanes(hasher *h);
/* How many first bytes of a message (h's context begun) its batch group
 * absorbs together with the other members' (KSUM_PARAM_BATCH_PREFIX):
 * SIZE_MAX for all of it, 0 for none (an algorithm that does not batch, or
 * EVP could not tell). */
size_t hasher_batch_prefix(hasher *h);

/* A hasher for each of n algorithms, and their outputs. */
typedef struct hasher_set {
    hasher hs[OPTIONS_ALGS_MAX];
    uint8_t *sums[OPTIONS_ALGS_MAX];  /* NULL where the output is streamed */
    size_t n;
    size_t sum_bytes;                 /* the outputs held, together */
} hasher_set;

/* Opens them; prints an error and returns 0 on failure (hasher_set_close
 * is still due). */
int hasher_set_open(hasher_set *s, OSSL_LIB_CTX *lib, const hash_spec *spec,
                    const algorithm *const *algs, size_t n);
void hasher_set_close(hasher_set *s);

/* The Keccak backend ksumprov chose (KSUM_PARAM_BACKEND of a context),
 * into name, and its lanes (when lanes is not NULL); 0 when EVP could not
 * tell. */
int hasher_backend(OSSL_LIB_CTX *lib, char *name, size_t size, unsigned *lanes);

#endif
