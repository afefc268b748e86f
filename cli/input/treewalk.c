/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "input/treewalk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/messages.h"
#include "input/files.h"
#include "input/walk.h"

/* An exclude pattern as docs/tree.md reads it: with a slash, matched on
 * the path from the DIR; without, on the name alone; a final slash
 * matches directories only. */
typedef struct pattern {
    char *text;
    int on_path, dirs_only;
} pattern;

struct tree_walk {
    char *const *roots;
    pattern *pats;
    size_t npats;
    size_t root_len;        /* where the path from the DIR starts */
    walk_stack stack;
};

int tree_name(const char *name)
{
    size_t len = strlen(name);

    return len > 0 && name[len - 1] == '/';
}

/* ---- excludes ---- */

static int matches(const pattern *p, const char *rel, const char *name, int is_dir)
{
    if (p->dirs_only && !is_dir)
        return 0;
    return fnmatch(p->text, p->on_path ? rel : name, p->on_path ? FNM_PATHNAME : 0) == 0;
}

/* Whether to keep an entry of l (walk_filter): 0 when excluded, -1 when
 * there was no memory to tell. */
static int kept(void *ctx, const walk_level *l, const char *name, char type)
{
    const tree_walk *w = ctx;
    const char *dir_rel = strlen(l->path) > w->root_len ? l->path + w->root_len : "";
    size_t len = strlen(dir_rel) + strlen(name) + 2;
    char small[512], *rel = len <= sizeof small ? small : malloc(len);
    int found = 0;

    if (rel == NULL)
        return -1;
    snprintf(rel, len, "%s%s%s", dir_rel, *dir_rel ? "/" : "", name);
    for (size_t i = 0; !found && i < w->npats; i++)
        found = matches(&w->pats[i], rel, name, type == 'd');
    if (rel != small)
        free(rel);
    return !found;
}

/* ---- the walk ---- */

static void error_item(tree_item *it, char *path, int err, const char *why)
{
    it->kind = TREE_ERROR;
    it->path = path;
    it->err = err;
    it->why = why;
}

/* Opens the directory at path (a DIR operand through a link; an entry in
 * the directory read last, never through one), reads it and pushes it,
 * kept open; its TREE_ENTER, or the error, in *it. */
static void enter(tree_walk *w, tree_item *it)
{
    walk_stack *s = &w->stack;
    size_t depth = s->depth;
    int err = walk_enter(s, depth > 0 ? s->at[depth - 1].dir->fd : AT_FDCWD, it->path,
                         it->name_at, depth == 0);
    walk_level *l = &s->at[depth];

    /* An entry read as a directory that is no longer one (a link now)
     * changed while the tree was walked. */
    if (err != 0) {
        error_item(it, it->path, (err == ELOOP || err == ENOTDIR) && depth > 0 ? KSUM_ECHANGED
                                                                               : err, NULL);
        return;
    }
    /* A directory whose entries changed while they were read (its size or
     * modification time moved) gives a list of no one version of it. */
    if (l->err == 0 && !file_unchanged(l->dir->fd, &l->st))
        l->err = KSUM_ECHANGED;
    *it = (tree_item){.kind = TREE_ENTER, .path = strdup(l->path), .name_at = it->name_at,
                      .dev = l->st.st_dev, .ino = l->st.st_ino};
    if (it->path == NULL)
        l->err = ENOMEM;
}

/* A link's contents, read whole. */
static void link_item(const walk_level *top, tree_item *it)
{
    for (size_t size = 256;; size *= 2) {
        char *buf = malloc(size);
        ssize_t got = buf != NULL ? readlinkat(top->dir->fd, it->path + it->name_at, buf, size)
                                  : -1;
        if (got < 0) {
            /* EINVAL: no longer a link, changed since it was read */
            error_item(it, it->path, buf == NULL ? ENOMEM : errno == EINVAL ? KSUM_ECHANGED
                                                                         : errno, NULL);
            free(buf);
            return;
        }
        if ((size_t)got < size) {
            it->kind = TREE_LINK;
            it->target = buf;
            it->target_len = (size_t)got;
            return;
        }
        free(buf);
    }
}

/* The next entry of the innermost directory, or its end. */
static void walk_step(tree_walk *w, tree_item *it)
{
    walk_level *top = &w->stack.at[w->stack.depth - 1];
    const char *name;
    struct stat st;

    if (top->err != 0) {
        error_item(it, strdup(top->path), top->err, NULL);
        top->err = 0;
        return;
    }
    if (top->next == top->n) {
        walk_pop(&w->stack);
        it->kind = TREE_LEAVE;
        return;
    }
    name = top->names + top->at[top->next++] + 1;   /* after its type */
    if ((it->path = walk_join(top->path, name)) == NULL) {
        error_item(it, NULL, ENOMEM, NULL);
        return;
    }
    it->name_at = strlen(it->path) - strlen(name);
    switch (name[-1]) {
    case 'f':
        it->kind = TREE_FILE;
        it->dir = top->dir;
        __atomic_add_fetch(&top->dir->refs, 1, __ATOMIC_RELAXED);
        return;
    case 'l':
        link_item(top, it);
        return;
    case 'd':
        enter(w, it);
        return;
    case 's':
        error_item(it, it->path, KSUM_ENOTREG, "a FIFO, socket or device in a tree "
                   "(--exclude leaves it out)");
        return;
    default:
        error_item(it, it->path, fstatat(top->dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0
                                     ? errno : ECHILD, NULL);
    }
}

int tree_walk_next(tree_walk *w, tree_item *it)
{
    struct stat st;

    memset(it, 0, sizeof *it);
    if (w->stack.depth > 0)
        walk_step(w, it);
    else if (*w->roots == NULL)
        return 0;
    else if ((it->path = strdup(*w->roots++)) == NULL)
        error_item(it, NULL, ENOMEM, NULL);
    /* The next DIR operand: it must be a directory, reached through a
     * link or not. */
    else if (stat(it->path, &st) != 0)
        error_item(it, it->path, errno, NULL);
    else if (!S_ISDIR(st.st_mode))
        error_item(it, it->path, ENOTDIR, NULL);
    else {
        w->root_len = strlen(it->path) + !tree_name(it->path);
        enter(w, it);
    }
    return 1;
}

void tree_item_free(tree_item *it)
{
    free(it->path);
    free(it->target);
    walk_dir_release(it->dir);
    it->path = NULL;
    it->target = NULL;
    it->dir = NULL;
}

tree_walk *tree_walk_open(char *const *roots, char *const *excludes, size_t n)
{
    tree_walk *w = calloc(1, sizeof *w);

    if (w == NULL || (n > 0 && (w->pats = calloc(n, sizeof *w->pats)) == NULL)) {
        free(w);
        return NULL;
    }
    w->roots = roots;
    w->stack.keep_open = 1;
    w->stack.keep = n > 0 ? kept : NULL;
    w->stack.ctx = w;
    for (; w->npats < n; w->npats++) {
        pattern *p = &w->pats[w->npats];
        /* a leading slash anchors at the DIR, as any pattern with a slash is */
        const char *s = excludes[w->npats] + (excludes[w->npats][0] == '/');
        size_t len = strlen(s);
        p->dirs_only = len > 0 && s[len - 1] == '/';
        if ((p->text = strndup(s, len - (size_t)p->dirs_only)) == NULL) {
            tree_walk_close(w);
            return NULL;
        }
        p->on_path = strchr(p->text, '/') != NULL || s != excludes[w->npats];
    }
    return w;
}

void tree_walk_close(tree_walk *w)
{
    if (w == NULL)
        return;
    walk_free(&w->stack);
    for (size_t i = 0; i < w->npats; i++)
        free(w->pats[i].text);
    free(w->pats);
    free(w);
}
