/* SPDX-License-Identifier: Apache-2.0 */
#include "report/tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/messages.h"
#include "front/resolve.h"
#include "input/feed.h"
#include "input/walk.h"
#include "report/output.h"
#include "run/concurrent.h"

/* ---- a node's encoding (docs/tree.md): SP 800-185's encode_string ---- */

static size_t left_encode(uint64_t v, uint8_t *out)
{
    size_t n = 1;

    while (n < 8 && (v >> (8 * n)) != 0)
        n++;
    out[0] = (uint8_t)n;
    for (size_t i = 0; i < n; i++)
        out[1 + i] = (uint8_t)(v >> (8 * (n - 1 - i)));
    return n + 1;
}

static int absorb_string(hasher *h, const void *s, size_t len)
{
    uint8_t prefix[9];

    return hasher_update(h, prefix, left_encode((uint64_t)len * 8, prefix)) &&
           (len == 0 || hasher_update(h, s, len));
}

/* ---- folding the walk's items into nodes ---- */

/* A directory whose node is being absorbed, one hasher per digest. */
typedef struct node {
    hasher *hs;             /* opened on the first use of this depth */
    size_t opened;
    tree_item at;           /* the directory's TREE_ENTER: its path, as
                               printed, and the directory entered */
    int failed;             /* an error in it: it has no value */
} node;

typedef struct folder {
    OSSL_LIB_CTX *lib;
    const line_style *ls;   /* how lines look; NULL: nothing printed */
    digest_spec d[OPTIONS_ALGS_MAX];    /* the values inside, at inner_size */
    size_t root_size[OPTIONS_ALGS_MAX];
    size_t n, value_bytes;
    hasher *root;           /* check mode: the caller's, for the DIR itself */
    node *stack;
    size_t depth, cap;
    hasher leaf[OPTIONS_ALGS_MAX];      /* files hashed here, and links */
    hasher *each[OPTIONS_ALGS_MAX];
    uint8_t *values;
    input own;              /* the buffers files are read into here, when
                               check mode lends none (tc.in) */
    tree_check tc;          /* the road is chosen by tc.r's algorithms
                               (no --manifest with --check) */
    int ok;                 /* every tree got its digest */
    int no_memory;          /* an error was the want of memory, not the tree's */
    tree_walk *w;           /* the walk on the road */
} folder;

/* An error in the innermost directory, which then has no value (between
 * DIRs: in the run), said unless quiet or err is 0 (said already).  EVP
 * failing here (KSUM_EHASH without why) left its reason queued: a want of
 * memory, or no reason (ksumprov queues none for a failed allocation), is
 * ENOMEM, no fault of the tree: the run stops, and its caller says it once,
 * instead of naming every entry that memory failed. */
static void fail(folder *f, const char *path, int err, const char *why)
{
    char reason[512];

    /* Only a path that could not be copied is missing: whatever its
     * error, memory ran out there. */
    if (path == NULL && err != 0)
        err = ENOMEM;
    if (err == KSUM_EHASH && why == NULL) {
        int memory = openssl_memory_failure(reason, sizeof reason);
        err = memory ? ENOMEM : KSUM_EHASH;
        why = memory ? NULL : reason;
    }
    f->no_memory |= err == ENOMEM;
    if (!f->tc.quiet && err != 0 && err != ENOMEM)
        report_error(path, err, why);
    if (f->depth > 0)
        f->stack[f->depth - 1].failed = 1;
    else
        f->ok = 0;
}

/* The hashers of depth f->depth, opened once and used by every directory
 * at that depth; check mode's DIR has the caller's, root. */
static int open_nodes(folder *f, node *nd)
{
    if (nd->hs == NULL)
        nd->hs = f->depth == 0 && f->root != NULL ? f->root : calloc(f->n, sizeof *nd->hs);
    for (; nd->hs != NULL && nd->hs != f->root && nd->opened < f->n; nd->opened++)
        if (!hasher_open_quiet(&nd->hs[nd->opened], f->lib, f->d[nd->opened].alg,
                               f->d[nd->opened].spec))
            return 0;
    return nd->hs != NULL;
}

/* A directory begins: its nodes begin with the header.  0, or ENOMEM
 * to stop: without room for its node the walk and the nodes would part. */
static int fold_enter(folder *f, tree_item *it)
{
    node *nd;
    int ok;

    /* (no_memory outweighs ok in every result) */
    if (!grow_array(&f->stack, &f->cap, f->depth + 1, sizeof *f->stack, 16)) {
        f->no_memory = 1;
        return ENOMEM;
    }
    nd = &f->stack[f->depth];
    ok = open_nodes(f, nd);
    for (size_t k = 0; ok && k < f->n; k++) {
        hasher *h = &nd->hs[k];
        if (h != f->root)
            hasher_set_size(h, f->depth == 0 ? f->root_size[k] : f->d[k].size);
        ok = hasher_begin(h) && absorb_string(h, TREE_HEADER, strlen(TREE_HEADER));
    }
    nd->at = *it;
    it->path = NULL;
    nd->failed = 0;
    f->depth++;
    if (!ok)
        fail(f, nd->at.path, KSUM_EHASH, NULL);
    return 0;
}

/* "NAME/": how a directory's line names it; NULL when there was no
 * memory for it (said). */
static char *dir_name(folder *f, const char *path)
{
    size_t len = strlen(path);
    char *name = malloc(len + 2);

    if (name != NULL)
        snprintf(name, len + 2, "%s%s", path, tree_name(path) ? "" : "/");
    else
        fail(f, path, ENOMEM, NULL);
    return name;
}

/* A manifest's or a DIR's line for digest k: the bytes in buf, or
 * squeezed from h when buf is NULL.  0, or KSUM_EWRITE to stop. */
static int print_value(folder *f, hasher *h, const char *name, const uint8_t *buf, size_t len)
{
    sum_source src = {buf, len, buf == NULL ? h : NULL};
    int err = print_sum_line(f->ls, h, (char *const *)&name, 1, &src);

    if (err != KSUM_EHASH)
        return err;
    /* squeezing failed partway through the line (only a DIR's line is
     * squeezed: at depth 0, and never in check mode, which prints none) */
    fail(f, name, err, NULL);
    return 0;
}

/* A manifest's lines of an entry: its values, one after the other in
 * values, in the forms of the hashers hs.  0, or KSUM_EWRITE to stop. */
static int print_values(folder *f, hasher *hs, const char *name, const uint8_t *values)
{
    int err = 0;

    for (size_t k = 0, at = 0; err == 0 && k < f->n; at += f->d[k++].size)
        err = print_value(f, &hs[k], name, values + at, f->d[k].size);
    return err;
}

/* An entry of the innermost directory into its node: its name, its type
 * and its value for each digest (one after the other in values); 1 when
 * it went in, 0 when the directory has no value already. */
static int fold_entry(folder *f, const char *name, char type, const uint8_t *values)
{
    node *top = &f->stack[f->depth - 1];

    if (top->failed)
        return 0;
    for (size_t k = 0, at = 0; k < f->n; at += f->d[k++].size) {
        hasher *h = &top->hs[k];
        if (!absorb_string(h, name, strlen(name)) || !absorb_string(h, &type, 1) ||
            !absorb_string(h, values + at, f->d[k].size)) {
            fail(f, top->at.path, KSUM_EHASH, NULL);
            return 0;
        }
    }
    return 1;
}

/* The DIR itself ends without an error in it: its lines.  Check mode's
 * caller ends the root hasher. */
static int fold_root(folder *f, node *nd)
{
    char *name;
    int err = 0;

    if (f->ls == NULL || (name = dir_name(f, nd->at.path)) == NULL)
        return 0;
    for (size_t k = 0; err == 0 && k < f->n; k++) {
        hasher *h = &nd->hs[k];
        uint8_t *sum = hasher_streams(h) ? NULL : malloc(h->size);
        if (!hasher_streams(h) && (sum == NULL || !hasher_end(h, sum)))
            fail(f, nd->at.path, sum == NULL ? ENOMEM : KSUM_EHASH, NULL);
        else
            err = print_value(f, h, name, sum, h->size);
        free(sum);
    }
    free(name);
    return err;
}

/* A directory inside ends: its value goes into its parent's node. */
static int fold_dir(folder *f, node *nd)
{
    char *name;
    int err;

    for (size_t k = 0, at = 0; k < f->n; at += f->d[k++].size)
        if (!hasher_end(&nd->hs[k], f->values + at)) {
            fail(f, nd->at.path, KSUM_EHASH, NULL);
            return 0;
        }
    if (!fold_entry(f, nd->at.path + nd->at.name_at, 'd', f->values) || !f->tc.t->manifest ||
        (name = dir_name(f, nd->at.path)) == NULL)
        return 0;
    err = print_values(f, nd->hs, name, f->values);
    free(name);
    return err;
}

/* 0 when a directory's path still names the directory entered: one
 * replaced meanwhile (by a link out of the tree, say) changed while the
 * tree was read.  Else KSUM_ECHANGED, or why its path could not be looked
 * up (a path longer than PATH_MAX).  (The DIR itself may be reached
 * through a link.) */
static int moved(const tree_item *dir, size_t depth)
{
    struct stat st;

    if (dir->path == NULL)
        return KSUM_ECHANGED;
    if ((depth == 0 ? stat(dir->path, &st) : lstat(dir->path, &st)) != 0)
        return errno == ENAMETOOLONG ? errno : KSUM_ECHANGED;
    return st.st_dev == dir->dev && st.st_ino == dir->ino ? 0 : KSUM_ECHANGED;
}

static int fold_leave(folder *f)
{
    node *nd = &f->stack[f->depth - 1];
    int why = nd->failed ? 0 : moved(&nd->at, f->depth - 1), err = 0;

    if (why != 0)
        fail(f, nd->at.path, why, NULL);
    f->depth--;
    /* A directory with an error in it (named already) has no value, nor
     * has the directory it is in. */
    if (nd->failed)
        fail(f, NULL, 0, NULL);
    else
        err = f->depth == 0 ? fold_root(f, nd) : fold_dir(f, nd);

    free(nd->at.path);
    nd->at.path = NULL;
    return err;
}

/* An entry's values hashed here, into values: a link's, the digest of
 * its target; or those of a regular file no worker took, as feed_path
 * hashes it, but keeping its mode as opened: its execute bit counts. */
static int hash_here(folder *f, const tree_item *it, unsigned *mode)
{
    int link = it->kind == TREE_LINK, err = 0;
    feed in;

    if (!link && (err = feed_open(&in, it->dir->fd, it->path + it->name_at, 1, 1, NULL)) != 0)
        return err;
    *mode = link ? 0 : (unsigned)in.before.st_mode;
    for (size_t k = 0; err == 0 && k < f->n; k++)
        if (!hasher_begin(f->each[k]) ||
            (link && !hasher_update(f->each[k], (const uint8_t *)it->target, strlen(it->target))))
            err = KSUM_EHASH;
    if (err == 0 && !link)
        err = feed_all(&in, f->each, f->n, f->tc.in);
    for (size_t k = 0, at = 0; err == 0 && k < f->n; at += f->d[k++].size)
        if (!hasher_end(f->each[k], f->values + at))
            err = KSUM_EHASH;
    if (!link)
        feed_close(&in);
    return err;
}

/* One item of the walk, in order: r is what a worker made of a file,
 * NULL when none took it.  0, or KSUM_EWRITE or ENOMEM to stop. */
static int fold_item(folder *f, tree_item *it, file_result *r)
{
    file_result here = {0};
    char type;

    switch (it->kind) {
    case TREE_ENTER:
        return fold_enter(f, it);
    case TREE_LEAVE:
        return fold_leave(f);
    case TREE_ERROR:
        fail(f, it->path, it->err, it->why);
        return 0;
    case TREE_FILE:
    case TREE_LINK:
        break;
    }
    /* A worker's want of memory or EVP failure is not the file's: hashed
     * here again, where what fails is said. */
    if (r != NULL && (r->err == ENOMEM || r->err == KSUM_EHASH))
        r = NULL;
    /* Hashed even in a tree that already failed: every error is named. */
    if (r == NULL) {
        here.err = hash_here(f, it, &here.mode);
        here.sums = f->values;
        r = &here;
    }
    if (r->err != 0) {
        fail(f, it->path, r->err, r->why);
        return 0;
    }
    type = it->kind == TREE_LINK ? 'l' : (r->mode & S_IXUSR) ? 'x' : 'f';
    /* A link has no manifest line: checked as a file, its target would be
     * read. */
    if (!fold_entry(f, it->path + it->name_at, type, r->sums) || type == 'l' || !f->tc.t->manifest)
        return 0;
    return print_values(f, f->leaf, it->path, r->sums);
}

/* The road's print: memory that ran out anywhere stops the road. */
static int fold(void *ctx, void *item, file_result *r, file_progress *progress)
{
    folder *f = ctx;
    int err = fold_item(f, item, r);

    (void)progress;
    return err == 0 && f->no_memory ? ENOMEM : err;
}

/* ---- the folder's life ---- */

static void folder_close(folder *f)
{
    /* The hashers each depth opened; root is the caller's. */
    for (node *nd = f->stack; nd < f->stack + f->cap; nd++) {
        for (size_t k = 0; nd->hs != f->root && k < nd->opened; k++)
            hasher_close(&nd->hs[k]);
        if (nd->hs != f->root)
            free(nd->hs);
        free(nd->at.path);
    }
    free(f->stack);
    for (size_t k = 0; k < f->n; k++)
        hasher_close(&f->leaf[k]);
    free(f->values);
    if (f->tc.in == &f->own)
        input_free(&f->own);
    free(f);
}

/* The length of the values inside a tree (docs/tree.md): a fixed-length
 * digest's own; for an XOF its capacity, twice its security strength, so
 * that a collision of values costs what one of the algorithm does (the
 * default lengths are shorter: KT128's is 16 bytes). */
static size_t inner_size(const hasher *h)
{
    /* an int, -1 when unknown: as a size_t, too large and not used */
    size_t rate = h->md != NULL ? (size_t)EVP_MD_get_block_size(h->md)
                                : EVP_MAC_CTX_get_block_size(h->mac_ctx);

    if (h->facts.fixed_size != 0)
        return h->facts.fixed_size;
    return rate > 0 && rate < 200 ? 200 - rate : h->facts.default_size;
}

/* After d's algorithms and n are set: the leaf hashers, the inner
 * lengths, and room for a value of each digest.  The algorithms were
 * fetched when the options were resolved: what fails now is memory
 * (f->no_memory, not said). */
static void folder_open(folder *f, OSSL_LIB_CTX *lib)
{
    f->lib = lib;
    f->ok = 1;
    f->no_memory = 1;
    if (f->tc.in == NULL) {
        f->tc.in = &f->own;
        if (!input_init(&f->own, 0))
            return;
    }
    for (size_t k = 0; k < f->n; k++) {
        if (!hasher_open_quiet(&f->leaf[k], lib, f->d[k].alg, f->d[k].spec))
            return;
        f->d[k].size = inner_size(&f->leaf[k]);
        hasher_set_size(&f->leaf[k], f->d[k].size);
        f->each[k] = &f->leaf[k];
        f->value_bytes += f->d[k].size;
    }
    f->no_memory = (f->values = malloc(f->value_bytes)) == NULL;
}

/* ---- the walk on the road ---- */

static int next_item(void *ctx, void *item, file_job *job, size_t *weight)
{
    folder *f = ctx;
    tree_item *it = item;

    if (!tree_walk_next(f->w, it))
        return 0;
    if (it->kind == TREE_FILE) {
        job->path = it->path;
        job->dirfd = it->dir->fd;
        job->name_at = it->name_at;
        job->nofollow = 1;
        job->d = f->d;
        job->n = f->n;
    }
    *weight = f->value_bytes + sizeof *it + (it->path != NULL ? strlen(it->path) : 0);
    return 1;
}

static void drop_item(void *ctx, void *item)
{
    (void)ctx;
    tree_item_free(item);
}

/* Folds the trees of roots into f, their files hashed by the road's
 * workers (chosen as for any files) and the rest here; memory that ran
 * out, here or before, is f->no_memory (not said). */
static void fold_roots(folder *f, char *const *roots)
{
    road_client c = {.item_size = sizeof(tree_item), .next = next_item, .print = fold,
                     .drop = drop_item, .ctx = f, .nkeys = f->n, .eager = f->d,
                     .neager = f->n};
    road r;

    if (f->no_memory ||
        (f->w = tree_walk_open(roots, f->tc.t->excludes, f->tc.t->nexcludes)) == NULL) {
        f->no_memory = 1;
        return;
    }
    road_choose(&r, f->tc.r, f->lib, 1, 1);
    /* Each place of the window (four a file in flight, sixteen at least)
     * may hold its file's directory open, besides the files: fewer files
     * in flight under a low limit, and room left for the depth. */
    for (unsigned room = descriptors_free() / 2; r.workers > 0 &&
                                                 5 * r.workers * r.in_flight + 16 > room;)
        *(r.in_flight > 1 ? &r.in_flight : &r.workers) -= 1;
    if (!road_run(&r, f->lib, &c, NULL))
        f->no_memory = 1;
    tree_walk_close(f->w);
}

/* ---- ksum --tree DIR... ---- */

int hash_trees(const resolved *r, char *const *roots, const tree_spec *t,
               OSSL_LIB_CTX *lib)
{
    folder *f = calloc(1, sizeof *f);  /* hashers are large: not on the stack */
    int ok;

    if (f == NULL)
        return message_fail("out of memory");
    /* The digests: each algorithm's, the DIR's at -n's length. */
    f->n = r->nalgs;
    for (size_t k = 0; k < f->n; k++) {
        f->d[k] = (digest_spec){r->algs[k], &r->hash, 0, k};   /* its size: folder_open's */
        f->root_size[k] = hasher_output_size(&r->facts_of[k], &r->hash);
    }
    f->ls = &r->line;
    f->tc = (tree_check){r, t, NULL, 0};
    folder_open(f, lib);
    fold_roots(f, roots);
    ok = f->no_memory ? message_fail("out of memory") : f->ok;
    folder_close(f);
    return ok;
}

/* ---- check mode ---- */

/* On the printing thread of check mode, a road of its own: the check's
 * workers hash the other lines' files meanwhile. */
int tree_digest(const tree_check *tc, const digest_spec *d, hasher *root, const char *path)
{
    char *roots[2] = {(char *)path, NULL};
    struct stat st;
    folder *f;
    int err;

    /* A missing DIR is a missing file to check mode (--ignore-missing). */
    if (stat(path, &st) != 0 && errno == ENOENT)
        return ENOENT;
    if ((f = calloc(1, sizeof *f)) == NULL)
        return ENOMEM;
    f->n = 1;
    f->d[0] = (digest_spec){d->alg, d->spec, 0, 0};
    f->root = root;
    f->tc = *tc;
    /* Memory that ran out is no fault of the tree: check mode stops, and
     * gives no verdict. */
    folder_open(f, root->lib);
    fold_roots(f, roots);
    err = f->no_memory ? ENOMEM : f->ok ? 0 : KSUM_ETREE;
    folder_close(f);
    return err;
}
