#include "tree.h"

void tree_leaves_init(tree_leaves *t, size_t leaf_len, unsigned rate,
                      unsigned rounds, uint8_t domain, unsigned cv_len)
{
    t->leaf_len = leaf_len;
    t->fill = 0;
    t->count = 0;
    t->rate = (uint16_t)rate;
    t->rounds = (uint8_t)rounds;
    t->domain = domain;
    t->cv_len = (uint8_t)cv_len;
}

static void emit_leaf(tree_leaves *t, sponge *final)
{
    uint8_t cv[TREE_MAX_CV];

    sponge_squeeze(&t->leaf, cv, t->cv_len);
    sponge_absorb(final, cv, t->cv_len);
    t->fill = 0;
    t->count++;
}

/* groups * KECCAK_PAR whole leaves, straight from the caller's buffer. */
static void hash_groups(tree_leaves *t, sponge *final, const uint8_t *in,
                        size_t groups)
{
    const keccak_backend *be = final->be;
    uint8_t cvs[KECCAK_PAR][TREE_MAX_CV];
    uint8_t *const outs[KECCAK_PAR] = {cvs[0], cvs[1], cvs[2], cvs[3]};

    for (; groups > 0; groups--) {
        const uint8_t *const ins[KECCAK_PAR] = {
            in, in + t->leaf_len, in + 2 * t->leaf_len, in + 3 * t->leaf_len};
        sponge_hash_x4(be, t->rate, t->rounds, t->domain, ins, t->leaf_len,
                       outs, t->cv_len);
        for (unsigned j = 0; j < KECCAK_PAR; j++)
            sponge_absorb(final, cvs[j], t->cv_len);
        t->count += KECCAK_PAR;
        in += KECCAK_PAR * t->leaf_len;
    }
}

void tree_leaves_update(tree_leaves *t, sponge *final, const uint8_t *in,
                        size_t len)
{
    while (len > 0) {
        size_t take;
        if (t->fill == 0 && len / t->leaf_len >= KECCAK_PAR) {
            size_t groups = len / t->leaf_len / KECCAK_PAR;
            hash_groups(t, final, in, groups);
            in += groups * KECCAK_PAR * t->leaf_len;
            len -= groups * KECCAK_PAR * t->leaf_len;
            continue;
        }
        if (t->fill == 0)
            sponge_init_on(&t->leaf, final->be, t->rate, t->rounds, t->domain);
        take = t->leaf_len - t->fill;
        if (take > len)
            take = len;
        sponge_absorb(&t->leaf, in, take);
        t->fill += take;
        in += take;
        len -= take;
        if (t->fill == t->leaf_len)
            emit_leaf(t, final);
    }
}

void tree_leaves_finish(tree_leaves *t, sponge *final)
{
    if (t->fill > 0)
        emit_leaf(t, final);
}
