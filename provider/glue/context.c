/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The generic context: lifecycle, the phase machine and the output, over a
 * mode's operations.  It never looks inside a mode's state.
 */
#include "context.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <string.h>

#include "settings.h"

struct ksum_ctx {
    const ksum_alg *alg;
    const ksum_provctx *prov;
    enum phase phase;
    settings set;
    size_t squeezed;        /* output given since the input closed */
    worker_pool *pool;      /* tree modes: helper threads, kept across inits */
    /* In a group (KSUM_PARAM_BATCH): the state's sponge is then reached
     * only through it while it holds input back (batch.h). */
    batch_member *batch;
    uint64_t state[];       /* the mode's, ops->state_size bytes */
};

static const mode_ops *ops_of(const ksum_ctx *c)
{
    return c->alg->mode->ops;
}

static size_t ctx_size(const ksum_alg *alg)
{
    return offsetof(ksum_ctx, state) + alg->mode->ops->state_size;
}

ksum_ctx *ksum_ctx_new(const ksum_provctx *prov, const ksum_alg *alg)
{
    ksum_ctx *c = OPENSSL_zalloc(ctx_size(alg));

    if (c == NULL) {
        KSUM_RAISE(prov, KSUM_R_ALLOC, "no memory for a context");
        return NULL;
    }
    c->alg = alg;
    c->prov = prov;
    c->phase = PHASE_NEW;
    settings_default(&c->set, alg, prov);
    return c;
}

void ksum_ctx_free(ksum_ctx *c)
{
    if (c == NULL)
        return;
    batch_leave(c->batch);
    settings_free(&c->set);
    worker_pool_free(c->pool);
    /* The state may hold what was hashed, or a KMAC key's trace; the rest
     * holds no secret (the strings were wiped above), and EVP frees a
     * context per message: wipe the state only. */
    OPENSSL_cleanse(c->state, ops_of(c)->state_size);
    OPENSSL_free(c);
}

/* Gives a started tree mode its threads.  The pool is made on first use
 * and never shared between contexts; without one the mode runs on the
 * calling thread alone. */
static void attach_workers(ksum_ctx *c)
{
    if (ops_of(c)->attach_workers == NULL || c->phase != PHASE_ABSORBING)
        return;
    if (c->pool == NULL)
        c->pool = worker_pool_new();
    ops_of(c)->attach_workers(c->state, c->pool, c->set.threads);
}

/* The group c is in; 0: none. */
static uint64_t group_of(const ksum_ctx *c)
{
    return c->batch != NULL ? batch_id(c->batch) : 0;
}

/* The copy of a context in a group is in the same group.  Returns 0 on no
 * memory. */
static int join_as(ksum_ctx *c, const ksum_ctx *src)
{
    c->batch = NULL;
    if (src->batch == NULL)
        return 1;
    c->batch = batch_join(c->prov->batches, batch_id(src->batch),
                          ops_of(c)->lane(c->state));
    return c->batch != NULL;
}

ksum_ctx *ksum_ctx_dup(const ksum_ctx *src)
{
    ksum_ctx *c = OPENSSL_malloc(ctx_size(src->alg));

    if (c == NULL) {
        KSUM_RAISE(src->prov, KSUM_R_ALLOC, "no memory for a copy");
        return NULL;
    }
    /* The state copied must hold all of src's input.  Absorbing src's
     * pending input changes how src holds it, not what src computes. */
    if (src->batch != NULL)
        batch_flush(src->batch);
    memcpy(c, src, ctx_size(src->alg));
    c->pool = NULL;
    /* The copy owns nothing of src's: its strings are made anew here. */
    if (!settings_dup(&c->set, &src->set)) {
        OPENSSL_clear_free(c, ctx_size(src->alg));
        KSUM_RAISE(src->prov, KSUM_R_ALLOC, "no memory for a copy");
        return NULL;
    }
    if (!join_as(c, src)) {
        settings_free(&c->set);
        OPENSSL_clear_free(c, ctx_size(src->alg));
        KSUM_RAISE(src->prov, KSUM_R_ALLOC, "no memory for a copy's batch");
        return NULL;
    }
    attach_workers(c);
    return c;
}

static mode_params params_of(const settings *s)
{
    mode_params p = {s->custom.p, s->fname.p, s->key.p, s->custom.len,
                     s->fname.len, s->key.len, s->block_size,
                     (uint8_t)s->domain, s->message_len, s->offset};
    return p;
}

int ksum_ctx_require_key(const ksum_ctx *c)
{
    if ((c->alg->mode->takes & MODE_KEY) && c->set.key.p == NULL) {
        KSUM_RAISE(c->prov, KSUM_R_NO_KEY, "set a key (it may be empty)");
        return 0;
    }
    return 1;
}

/* The parameters that shape the input are fixed from here on. */
static void start(ksum_ctx *c)
{
    mode_params p = params_of(&c->set);

    ops_of(c)->start(c->state, c->alg->mode, c->set.be, &p);
    c->phase = PHASE_ABSORBING;
    attach_workers(c);
}

/* Starts the mode if need be; raises when the phase allows no input. */
static int absorbing(ksum_ctx *c, const char *what)
{
    if (c->phase == PHASE_NEW) {
        KSUM_RAISE(c->prov, KSUM_R_NOT_INITIALIZED, "%s before init", what);
        return 0;
    }
    if (c->phase >= PHASE_SQUEEZING) {
        KSUM_RAISE(c->prov, KSUM_R_ALREADY_FINISHED,
                   "%s after the output was produced; initialize again", what);
        return 0;
    }
    if (c->phase == PHASE_FRESH) {
        if (!ksum_ctx_require_key(c))
            return 0;
        start(c);
    }
    return 1;
}

/* An announced element, after the other settings were checked. */
static int announce(ksum_ctx *c, uint64_t len)
{
    if (!absorbing(c, "an element length"))
        return 0;
    if (!ops_of(c)->announce(c->state, len)) {
        KSUM_RAISE(c->prov, KSUM_R_ELEMENT_LENGTH,
                   "the element announced before is not complete");
        return 0;
    }
    return 1;
}

/* Moves c to group id (0: none), its pending input absorbed first.  The
 * new group is joined before the old one is left, so that a failure
 * changes nothing. */
static int switch_batch(ksum_ctx *c, uint64_t id)
{
    batch_member *next = NULL;

    if (id != 0) {
        next = batch_join(c->prov->batches, id, ops_of(c)->lane(c->state));
        if (next == NULL) {
            KSUM_RAISE(c->prov, KSUM_R_ALLOC, "no memory to join batch %llu",
                       (unsigned long long)id);
            return 0;
        }
    }
    if (c->batch != NULL) {
        batch_flush(c->batch);
        batch_leave(c->batch);
    }
    c->batch = next;
    return 1;
}

static int set_params(ksum_ctx *c, const OSSL_PARAM params[], int at_init)
{
    settings next;

    /* Nothing to set (every init of a digest without parameters): a short
     * way, as EVP makes one per message. */
    if ((params == NULL || params->key == NULL) && c->set.batch == group_of(c)) {
        attach_workers(c);
        return 1;
    }
    if (!settings_read(c->prov, c->alg, c->phase, &c->set, params, at_init, &next))
        return 0;
    /* The group c is in, not the setting, which a reset init clears.  Only
     * modes that announce no elements batch: an announcement below cannot
     * fail after this succeeded. */
    if (next.batch != group_of(c) && !switch_batch(c, next.batch)) {
        settings_discard(&c->set, &next);
        return 0;
    }
    /* Starting the mode for an announcement fixes the input parameters:
     * those of this call must be in place first.  An announcement can
     * fail only once the mode has started, and then only these others
     * are left to undo, none of which shapes the input. */
    if (next.announce && c->phase == PHASE_FRESH) {
        settings_commit(&c->set, &next);
        return announce(c, next.element_len);
    }
    if (next.announce && !announce(c, next.element_len)) {
        settings_discard(&c->set, &next);
        return 0;
    }
    settings_commit(&c->set, &next);
    attach_workers(c);
    return 1;
}

int ksum_ctx_init(ksum_ctx *c, int reset, const OSSL_PARAM params[])
{
    /* The input held for an abandoned message is forgotten, as its state
     * is.  A reset puts the id back to 0 with the other settings; the
     * context leaves its group in set_params, unless params name it. */
    if (c->batch != NULL)
        batch_discard(c->batch);
    /* A new context has its defaults (OpenSSL 3.0 makes one per init). */
    if (reset && c->phase != PHASE_NEW) {
        settings_free(&c->set);
        settings_default(&c->set, c->alg, c->prov);
    }
    c->phase = PHASE_FRESH;
    return set_params(c, params, 1) || ksum_ctx_init_failed(c);
}

int ksum_ctx_init_failed(ksum_ctx *c)
{
    c->phase = PHASE_NEW;
    return 0;
}

int ksum_ctx_set_params(ksum_ctx *c, const OSSL_PARAM params[])
{
    return set_params(c, params, 0);
}

int ksum_ctx_update(ksum_ctx *c, const unsigned char *in, size_t len)
{
    if (!absorbing(c, "update"))
        return 0;
    if (c->batch != NULL) {
        size_t n = ops_of(c)->lane_take ? ops_of(c)->lane_take(c->state, len) : len;
        if (n > 0)
            batch_absorb(c->batch, in, n);
        if (n == len)
            return 1;
        batch_flush(c->batch); /* the mode's own absorb may touch the lane */
        in += n;
        len -= n;
    }
    if (!ops_of(c)->absorb(c->state, in, len)) {
        if (c->alg->mode->takes & MODE_PARTS)
            KSUM_RAISE(c->prov, KSUM_R_PART,
                       "input outside the part: no message-length, an offset "
                       "that is no chunk (block) start, past the message's end, or "
                       "more than %d chunks (blocks)", KSUMPROV_PART_MAX_CHUNKS);
        else
            KSUM_RAISE(c->prov, KSUM_R_ELEMENT_LENGTH,
                       "more data than the element length announced");
        return 0;
    }
    return 1;
}

/* A final needs an output length: OpenSSL 3.4 and later give SHAKE none
 * by default, and so does ksumprov there (ksum_alg_outlen). */
static int need_outlen(const ksum_ctx *c)
{
    if (c->set.outlen == SIZE_MAX) {
        KSUM_RAISE(c->prov, KSUM_R_NO_OUTPUT_LENGTH,
                   "set the output length (xoflen) first");
        return 0;
    }
    return 1;
}

/* Closes the input: from here on, output is squeezed. */
static int close_input(ksum_ctx *c)
{
    mode_params p = params_of(&c->set);

    if (!absorbing(c, "output"))
        return 0;
    if (c->batch != NULL)
        batch_flush(c->batch); /* the sponge is c's alone from here */
    if (!ops_of(c)->finish(c->state, &p, c->set.outlen, c->set.xof)) {
        if (c->alg->mode->takes & MODE_RANGE)
            KSUM_RAISE(c->prov, KSUM_R_PART,
                       "the part must end at a chunk (block) boundary or at the "
                       "message's end, and its output be cv-count CVs");
        else if (c->alg->mode->takes & MODE_PARTS)
            KSUM_RAISE(c->prov, KSUM_R_PART,
                       "the input must be the message's first chunk (K12) and "
                       "then exactly the chaining values of all the others");
        else
            KSUM_RAISE(c->prov, KSUM_R_ELEMENT_LENGTH,
                       "the element announced is not complete");
        return 0;
    }
    c->phase = PHASE_SQUEEZING;
    c->squeezed = 0;
    return 1;
}

/* The most output that may still be squeezed: where the length is hashed
 * in (ParallelHash, TupleHash and KMAC but as XOFs) or is the part's
 * chaining values (-CV), bytes past it are no function's output. */
static size_t output_left(const ksum_ctx *c)
{
    unsigned takes = c->alg->mode->takes;

    if (((takes & MODE_XOF) && !c->set.xof) || (takes & MODE_RANGE))
        return c->set.outlen - c->squeezed;
    return SIZE_MAX;
}

int ksum_ctx_final(ksum_ctx *c, unsigned char *out, size_t *outl, size_t outsz)
{
    if (c->phase == PHASE_SQUEEZING) {
        KSUM_RAISE(c->prov, KSUM_R_ALREADY_FINISHED,
                   "final after squeeze; initialize again");
        return 0;
    }
    if (!need_outlen(c))
        return 0;
    if (outsz < c->set.outlen) {
        KSUM_RAISE(c->prov, KSUM_R_OUTPUT_BUFFER_TOO_SMALL,
                   "need %zu bytes, have %zu", c->set.outlen, outsz);
        return 0;
    }
    if (!close_input(c))
        return 0;
    ops_of(c)->squeeze(c->state, out, c->set.outlen);
    c->phase = PHASE_FINISHED;
    *outl = c->set.outlen;
    return 1;
}

int ksum_ctx_squeeze(ksum_ctx *c, unsigned char *out, size_t len)
{
    if (!(c->alg->mode->takes & MODE_OUTLEN)) {
        KSUM_RAISE(c->prov, KSUM_R_NOT_XOF,
                   "a fixed-length digest cannot be squeezed");
        return 0;
    }
    /* Nothing asked before the output began: nothing changes, as OpenSSL's
     * EVP_DigestSqueeze of 0 bytes leaves the input open. */
    if (len == 0 && (c->phase == PHASE_FRESH || c->phase == PHASE_ABSORBING))
        return 1;
    if (c->phase != PHASE_SQUEEZING && !close_input(c))
        return 0;
    if (len > output_left(c)) {
        KSUM_RAISE(c->prov, KSUM_R_NOT_XOF,
                   "the output length (%zu bytes) is part of this digest: %zu bytes "
                   "asked, %zu left", c->set.outlen, len, output_left(c));
        return 0;
    }
    c->squeezed += len;
    ops_of(c)->squeeze(c->state, out, len);
    return 1;
}

/* ---- readable parameters ---- */

static int get_squeeze(ksum_ctx *c, OSSL_PARAM *p)
{
    if (p->data_type != OSSL_PARAM_OCTET_STRING) {
        KSUM_RAISE(c->prov, KSUM_R_BAD_PARAM_TYPE,
                   "'%s' needs an octet buffer", p->key);
        return 0;
    }
    if (p->data == NULL) {
        KSUM_RAISE(c->prov, KSUM_R_NULL_DATA,
                   "'%s' needs a buffer to write into: an XOF's output has no size to ask",
                   p->key);
        return 0;
    }
    if (!ksum_ctx_squeeze(c, p->data, p->data_size))
        return 0;
    p->return_size = p->data_size;
    return 1;
}

/* Whether p took a value: OpenSSL before 3.2 queues no reason when the
 * caller's type or size cannot hold it, and every failure needs one. */
static int answered(const ksum_ctx *c, const OSSL_PARAM *p, int ok)
{
    if (!ok)
        KSUM_RAISE(c->prov, KSUM_R_BAD_PARAM_TYPE,
                   "'%s' cannot be returned in the type or size given", p->key);
    return ok;
}

static int get_uint(const ksum_ctx *c, OSSL_PARAM params[], const char *key,
                    unsigned v)
{
    OSSL_PARAM *p = OSSL_PARAM_locate(params, key);
    return p == NULL || answered(c, p, OSSL_PARAM_set_uint(p, v));
}

static int get_size(const ksum_ctx *c, OSSL_PARAM params[], const char *key, size_t v)
{
    OSSL_PARAM *p = OSSL_PARAM_locate(params, key);
    return p == NULL || answered(c, p, OSSL_PARAM_set_size_t(p, v));
}

static int get_uint64(const ksum_ctx *c, OSSL_PARAM params[], const char *key,
                      uint64_t v)
{
    OSSL_PARAM *p = OSSL_PARAM_locate(params, key);
    return p == NULL || answered(c, p, OSSL_PARAM_set_uint64(p, v));
}

static int get_backend(const ksum_ctx *c, OSSL_PARAM params[])
{
    OSSL_PARAM *p = OSSL_PARAM_locate(params, KSUM_PARAM_BACKEND);
    const char *name = c->set.be->name;

    return p == NULL ||
           answered(c, p, p->data_type == OSSL_PARAM_UTF8_STRING
                              ? OSSL_PARAM_set_utf8_string(p, name)
                              : OSSL_PARAM_set_utf8_ptr(p, name));
}

/* A range's count fixes the input parameters, as a first byte would; of
 * no range (settings the mode refuses) it is refused, and they may still
 * be set. */
static int get_cv_count(ksum_ctx *c, OSSL_PARAM params[])
{
    OSSL_PARAM *p = OSSL_PARAM_locate(params, KSUM_PARAM_CV_COUNT);
    int fresh = c->phase == PHASE_FRESH;
    mode_params mp = params_of(&c->set);
    uint64_t n;

    if (p == NULL)
        return 1;
    if (c->phase < PHASE_SQUEEZING && !absorbing(c, "cv-count"))
        return 0;
    if (!ops_of(c)->cv_count(c->state, &mp, &n)) {
        KSUM_RAISE(c->prov, KSUM_R_PART,
                   "cv-count of no part: no message-length, or an offset that is "
                   "no chunk (block) start or past the message's end");
    } else if (answered(c, p, OSSL_PARAM_set_uint64(p, n))) {
        return 1;
    }
    if (fresh)
        c->phase = PHASE_FRESH;   /* nothing was absorbed: the settings stay open */
    return 0;
}

/* The shape of a tree in parts under the settings as they are (the block
 * size, the message's length), so that a caller can plan its ranges. */
static int get_part_shape(const ksum_ctx *c, OSSL_PARAM params[])
{
    mode_params mp = params_of(&c->set);
    uint64_t span, head;

    ops_of(c)->part_shape(&mp, &span, &head);
    return get_uint64(c, params, KSUM_PARAM_CV_SPAN, span) &&
           get_uint64(c, params, KSUM_PARAM_HEAD_LENGTH, head);
}

int ksum_ctx_get_params(ksum_ctx *c, OSSL_PARAM params[])
{
    const mode_desc *m = c->alg->mode;
    OSSL_PARAM *p;

    /* Squeezing last: a call that fails on another key uses up nothing.
     * A MAC's length is its size only, as OpenSSL's KMAC answers. */
    if (!(c->alg->flags & ALG_MAC) &&
        !get_size(c, params, OSSL_DIGEST_PARAM_XOFLEN, c->set.outlen))
        return 0;
    if (!get_size(c, params, OSSL_DIGEST_PARAM_SIZE, c->set.outlen))
        return 0;
    if ((c->alg->flags & ALG_MAC) &&
        !get_size(c, params, OSSL_MAC_PARAM_BLOCK_SIZE, m->rate))
        return 0;
    if ((m->takes & MODE_DOMAIN) &&
        (!get_uint(c, params, KSUM_PARAM_DOMAIN, c->set.domain) ||
         !get_uint(c, params, KSUM_PARAM_DOMAIN_SEPARATOR, c->set.domain)))
        return 0;
    if (!get_backend(c, params) || !get_uint(c, params, KSUM_PARAM_LANES, c->set.be->lanes))
        return 0;
    if ((m->takes & MODE_BATCH) &&
        (!get_uint64(c, params, KSUM_PARAM_BATCH, group_of(c)) ||
         !get_uint64(c, params, KSUM_PARAM_BATCH_PREFIX, m->batch_prefix)))
        return 0;
    if (ops_of(c)->cv_count != NULL && !get_cv_count(c, params))
        return 0;
    if (ops_of(c)->part_shape != NULL && !get_part_shape(c, params))
        return 0;
    if ((p = OSSL_PARAM_locate(params, KSUM_PARAM_SQUEEZE)) != NULL &&
        !get_squeeze(c, p))
        return 0;
    return 1;
}
