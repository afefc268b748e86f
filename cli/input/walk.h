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

#include <sys/stat.h>

#include "front/options.h"

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

typedef struct name_source name_source;

/* NULL, with the message printed, when the list cannot be opened or
 * memory is short. */
name_source *names_open(const options *o);
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

/* ---- what the -r walk and the --tree walk (treewalk.c) share ---- */

/* A directory being walked: its entries, each a type byte, the name and a
 * NUL, in one block, sorted by walk_sort in the byte order of the names. */
typedef struct walk_level {
    char *path;             /* as printed */
    dev_t dev;
    ino_t ino;
    char *names;
    size_t len, cap;
    size_t *at;             /* where each entry starts in names */
    size_t n, max, next;
    struct tree_dir *dir;   /* --tree: the directory, open */
    int err;                /* --tree: reading it failed, an error is due */
} walk_level;

/* The directories on the current path, the innermost last. */
typedef struct walk_stack {
    walk_level *at;
    size_t depth, cap;
} walk_stack;

/* 0 when there was no memory for it. */
int walk_add(walk_level *l, char type, const char *name);
void walk_sort(walk_level *l);
/* Whether the directory st is on the path already: a loop. */
int walk_on_stack(const walk_stack *s, const struct stat *st);
/* Room for one more level; 0 when there was no memory for it. */
int walk_grow(walk_stack *s);
/* Pops the innermost level, its path and names freed. */
walk_level *walk_pop(walk_stack *s);
/* "dir/name", NULL when there was no memory for it. */
char *walk_join(const char *dir, const char *name);

#endif
