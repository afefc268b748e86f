/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The walk of --tree (docs/tree.md): each DIR operand as a stream of items,
 * depth first, the entries of each directory in the byte order of their
 * names, so that the directory's node can be absorbed as its entries come.
 * Links are never followed; FIFOs, sockets and devices are errors unless
 * excluded; excluded entries are not there at all.  Only the directories on
 * the current path are held (each as the sorted list of its names), and
 * open: every entry is opened in its directory as read, never by a path
 * whose directories may have been replaced since, by links out of the tree.
 */
#ifndef KSUM_CLI_TREEWALK_H
#define KSUM_CLI_TREEWALK_H

#include <stddef.h>
#include <sys/types.h>

#include "input/walk.h"

enum tree_kind {
    TREE_FILE,      /* a regular file: its bytes are its value (its execute
                       bit is read where it is opened) */
    TREE_LINK,      /* a symbolic link: its target's bytes are its value */
    TREE_ENTER,     /* a directory begins (the first: a DIR operand) */
    TREE_LEAVE,     /* the directory entered last ends */
    TREE_ERROR,     /* what is wrong with path: the tree gets no digest */
};

typedef struct tree_item {
    enum tree_kind kind;
    char *path;         /* as printed, from the DIR operand; NULL for TREE_LEAVE */
    size_t name_at;     /* its name in its directory: path + name_at */
    walk_dir *dir;      /* TREE_FILE: that directory, to open it in */
    char *target;       /* TREE_LINK: the link's contents */
    size_t target_len;
    int err;            /* TREE_ERROR: errno or KSUM_E* */
    const char *why;    /* TREE_ERROR: more of the reason, or NULL */
    dev_t dev;          /* TREE_ENTER: the directory entered, to tell */
    ino_t ino;          /* whether its path still names it at its end */
} tree_item;

typedef struct tree_walk tree_walk;

/* The walk of the NULL-terminated roots, leaving out what the n patterns
 * match (rsync's and tar's rule, docs/tree.md); NULL when out of memory. */
tree_walk *tree_walk_open(char *const *roots, char *const *excludes, size_t n);
void tree_walk_close(tree_walk *w);
/* The next item into *it (to tree_item_free); 0 at the end. */
int tree_walk_next(tree_walk *w, tree_item *it);
void tree_item_free(tree_item *it);

/* A name that names a directory tree in ksum's lines: it ends in '/'. */
int tree_name(const char *name);

#endif
