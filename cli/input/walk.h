/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The names ksum hashes, one at a time: the FILE operands, or the names a
 * list gives (--files-from, one per line or NUL-separated with -z); with
 * -r, a directory among them stands for the regular files under it, depth
 * first, the names of each directory in byte order, each printed as reached
 * from the argument.  Only the directories on the current path are held
 * (each as the sorted list of its names), never the whole tree.  Not
 * fts(3): glibc's fts types an entry only by a stat of each (d_type is
 * not passed on), and without FTS_NOCHDIR it moves the process's working
 * directory under the workers' relative opens (docs/benchmarks.md).
 */
#ifndef KSUM_CLI_WALK_H
#define KSUM_CLI_WALK_H

#include <stddef.h>
#include <sys/stat.h>

enum name_kind {
    NAME_FILE,      /* a regular file: any thread may hash it */
    NAME_STREAM,    /* anything else, read by the printing thread in order
                       ("-", a device, a FIFO named, a name that is not there:
                       opening it says why) */
    NAME_ERROR,     /* reported in its place, and the exit status is 1 */
    NAME_WARNING,   /* reported in its place (only under -w) */
};

typedef struct named {
    enum name_kind kind;
    char *path;             /* as printed; for a list's line, the list */
    int err;                /* NAME_ERROR, NAME_WARNING: errno or KSUM_E* */
    unsigned long line;     /* an error of the list's line `line`; else 0 */
    const char *what;       /* with line: what was wrong with it */
    /* A file met in the walk, not named by the user: it must still be a
     * regular file when opened (anything else is an error, never read),
     * and, without -L, not a symbolic link (nofollow). */
    int walked, nofollow;
} named;

/* Where the names come from and how -r walks: what names_open takes of
 * the options. */
typedef struct name_spec {
    char **files;               /* the FILE operands, without a list */
    const char *files_from;     /* --files-from ("-": standard input), or NULL */
    int zero;                   /* -z: the list's names end in NUL */
    int recursive, dereference; /* -r, -L */
    int warn;                   /* -w with -r: say what the walk skips */
} name_spec;

typedef struct name_source name_source;

/* NULL, with the message printed, when the list cannot be opened or
 * memory is short. */
name_source *names_open(const name_spec *spec);
void names_close(name_source *s);

/* The next name into *n (to named_free); 0 when there are no more. */
int names_next(name_source *s, named *n);
/* The next names_next will not wait on the writer of a list on a pipe or
 * terminal. */
int names_ready(const name_source *s);
void named_free(named *n);

/* Prints an error or warning: "ksum: NAME: reason", or for a list's
 * line "ksum: LIST: LINE: what". */
void named_report(const named *n);

/* ---- the --tree walk (docs/tree.md) ----
 * Each DIR operand as a stream of items, depth first, the entries of each
 * directory in the byte order of their names, so that the directory's node
 * can be absorbed as its entries come.  Links are never followed; FIFOs,
 * sockets and devices are errors unless excluded; excluded entries are not
 * there at all.  Only the directories on the current path are held (each as
 * the sorted list of its names), and open: every entry is opened in its
 * directory as read, never by a path whose directories may have been
 * replaced since, by links out of the tree. */

/* An open directory of the --tree walk: held by its level and by each
 * file item in it (the road's window bounds those), closed by the last. */
typedef struct walk_dir {
    int fd;
    unsigned refs;
} walk_dir;

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
    char *target;       /* TREE_LINK: the link's contents (no NUL in them) */
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
