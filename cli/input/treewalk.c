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
    walk_stack stack;       /* entry types: 'f', 'l', 'd', 's' (FIFO, socket,
                               device) and '?' (could not be examined) */
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

/* Whether an entry is excluded; -1 when there was no memory to tell. */
static int excluded(const tree_walk *w, const char *dir_rel, const char *name, int is_dir)
{
    size_t len = strlen(dir_rel) + strlen(name) + 2;
    char small[512], *rel = len <= sizeof small ? small : malloc(len);
    int found = 0;

    if (rel == NULL)
        return -1;
    snprintf(rel, len, "%s%s%s", dir_rel, *dir_rel ? "/" : "", name);
    for (size_t i = 0; !found && i < w->npats; i++)
        found = matches(&w->pats[i], rel, name, is_dir);
    if (rel != small)
        free(rel);
    return found;
}

static int make_patterns(tree_walk *w, char *const *excludes, size_t n)
{
    if (n == 0)
        return 1;
    if ((w->pats = calloc(n, sizeof *w->pats)) == NULL)
        return 0;
    for (size_t i = 0; i < n; i++) {
        pattern *p = &w->pats[w->npats];
        const char *s = excludes[i];
        size_t len;
        if (s[0] == '/')
            s++;    /* anchored at the DIR, as any pattern with a slash is */
        if ((p->text = strdup(s)) == NULL)
            return 0;
        w->npats++;
        len = strlen(p->text);
        p->dirs_only = len > 0 && p->text[len - 1] == '/';
        if (p->dirs_only)
            p->text[--len] = '\0';
        p->on_path = strchr(p->text, '/') != NULL || s != excludes[i];
    }
    return 1;
}

/* ---- the entries of one directory ---- */

/* What an entry is (the link, never its target): d_type, or where the
 * file system does not say, its status.  No stat otherwise: a regular
 * file's execute bit is read where it is opened, and a stat per file
 * would cost more than hashing a small one. */
static char entry_type(int dirfd, const struct dirent *de)
{
    struct stat st;

    switch (de->d_type) {
    case DT_REG: return 'f';
    case DT_DIR: return 'd';
    case DT_LNK: return 'l';
    case DT_UNKNOWN: break;
    default: return 's';
    }
    if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return '?';
    if (S_ISREG(st.st_mode))
        return 'f';
    return S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' : 's';
}

/* Reads every entry of d into l, the excluded left out; 0 or the errno
 * of a failed read or of no memory. */
static int read_entries(const tree_walk *w, DIR *d, walk_level *l)
{
    const char *rel = strlen(l->path) > w->root_len ? l->path + w->root_len : "";
    struct dirent *de;

    for (;;) {
        errno = 0;
        if ((de = readdir(d)) == NULL)
            return errno;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char type = entry_type(dirfd(d), de);
        int out = w->npats > 0 ? excluded(w, rel, de->d_name, type == 'd') : 0;
        if (out < 0)
            return ENOMEM;
        if (out)
            continue;
        if (!walk_add(l, type, de->d_name))
            return ENOMEM;
    }
}

/* ---- the walk ---- */

static void error_item(tree_item *it, char *path, int err, const char *why)
{
    it->kind = TREE_ERROR;
    it->path = path;
    it->err = err;
    it->why = why;
}

/* A directory whose entries changed while they were read (its size or
 * modification time moved) gives a list of no one version of it. */
static int changed(int fd, const struct stat *before)
{
    struct stat now;

    return fstat(fd, &now) != 0 || now.st_size != before->st_size ||
           now.st_mtim.tv_sec != before->st_mtim.tv_sec ||
           now.st_mtim.tv_nsec != before->st_mtim.tv_nsec;
}

/* One holder less; the last closes it. */
static void dir_release(tree_dir *d)
{
    if (d != NULL && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        close(d->fd);
        free(d);
    }
}

/* Opens the directory at path (a DIR operand through a link; an entry in
 * the directory read last, never through one), reads it and pushes it,
 * kept open; its TREE_ENTER, or the error, in *it. */
static void enter(tree_walk *w, char *path, size_t name_at, tree_item *it)
{
    walk_stack *s = &w->stack;
    int fd = openat(s->depth > 0 ? s->at[s->depth - 1].dir->fd : AT_FDCWD, path + name_at,
                    O_RDONLY | O_DIRECTORY | O_NOCTTY | O_CLOEXEC |
                        (s->depth > 0 ? O_NOFOLLOW : 0));
    struct stat st;
    tree_dir *dir = NULL;
    DIR *d = NULL;
    int err = 0;

    /* An entry read as a directory that is no longer one (a link now)
     * changed while the tree was walked. */
    if (fd < 0 || fstat(fd, &st) != 0)
        err = (errno == ELOOP || errno == ENOTDIR) && s->depth > 0 ? KSUM_ECHANGED : errno;
    else if (walk_on_stack(s, &st))
        err = KSUM_ELOOP;
    else if (!walk_grow(s) || (dir = malloc(sizeof *dir)) == NULL)
        err = ENOMEM;
    else if ((dir->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0 || (d = fdopendir(fd)) == NULL)
        err = errno;
    if (err != 0) {
        if (fd >= 0)
            close(fd);
        if (dir != NULL && dir->fd >= 0)
            close(dir->fd);
        free(dir);
        error_item(it, path, err, NULL);
        return;
    }
    dir->refs = 1;
    walk_level *l = &s->at[s->depth];
    *l = (walk_level){.path = path, .dir = dir, .dev = st.st_dev, .ino = st.st_ino};
    l->err = read_entries(w, d, l);
    if (l->err == 0 && changed(dirfd(d), &st))
        l->err = KSUM_ECHANGED;
    closedir(d);
    walk_sort(l);
    *it = (tree_item){.kind = TREE_ENTER, .path = strdup(path), .name_at = name_at,
                      .depth = s->depth, .dev = st.st_dev, .ino = st.st_ino};
    s->depth++;
    if (it->path == NULL)
        l->err = ENOMEM;
}

static void leave(tree_walk *w)
{
    dir_release(walk_pop(&w->stack)->dir);
}

/* A link's contents, read whole. */
static void link_item(const walk_level *top, char *path, tree_item *it)
{
    for (size_t size = 256;; size *= 2) {
        char *buf = malloc(size);
        ssize_t got = buf != NULL ? readlinkat(top->dir->fd, path + it->name_at, buf, size) : -1;
        if (got < 0) {
            /* EINVAL: no longer a link, changed since it was read */
            error_item(it, path, buf == NULL ? ENOMEM : errno == EINVAL ? KSUM_ECHANGED
                                                                     : errno, NULL);
            free(buf);
            return;
        }
        if ((size_t)got < size) {
            it->kind = TREE_LINK;
            it->path = path;
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
    const char *entry;
    char *path;
    struct stat st;

    if (top->err != 0) {
        error_item(it, strdup(top->path), top->err, NULL);
        top->err = 0;
        return;
    }
    if (top->next == top->n) {
        leave(w);
        *it = (tree_item){.kind = TREE_LEAVE, .depth = w->stack.depth};
        return;
    }
    entry = top->names + top->at[top->next++];
    if ((path = walk_join(top->path, entry + 1)) == NULL) {
        error_item(it, NULL, ENOMEM, NULL);
        return;
    }
    it->depth = w->stack.depth;
    it->name_at = strlen(path) - strlen(entry + 1);
    switch (entry[0]) {
    case 'f':
        *it = (tree_item){.kind = TREE_FILE, .path = path, .name_at = it->name_at,
                          .dir = top->dir, .depth = w->stack.depth};
        __atomic_add_fetch(&top->dir->refs, 1, __ATOMIC_RELAXED);
        return;
    case 'l':
        link_item(top, path, it);
        return;
    case 'd':
        enter(w, path, it->name_at, it);
        return;
    case 's':
        error_item(it, path, KSUM_ENOTREG, "a FIFO, socket or device in a tree "
                   "(--exclude leaves it out)");
        return;
    default:
        error_item(it, path, fstatat(top->dir->fd, entry + 1, &st, AT_SYMLINK_NOFOLLOW) != 0
                                 ? errno : ECHILD, NULL);
    }
}

/* The next DIR operand: it must be a directory, reached through a link
 * or not. */
static int next_root(tree_walk *w, tree_item *it)
{
    char *path;
    struct stat st;

    if (*w->roots == NULL)
        return 0;
    if ((path = strdup(*w->roots++)) == NULL) {
        error_item(it, NULL, ENOMEM, NULL);
        return 1;
    }
    int err = stat(path, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (err != 0) {
        error_item(it, path, err, NULL);
        return 1;
    }
    w->root_len = strlen(path) + !tree_name(path);
    enter(w, path, 0, it);
    return 1;
}

int tree_walk_next(tree_walk *w, tree_item *it)
{
    memset(it, 0, sizeof *it);
    if (w->stack.depth > 0) {
        walk_step(w, it);
        return 1;
    }
    return next_root(w, it);
}

void tree_item_free(tree_item *it)
{
    free(it->path);
    free(it->target);
    dir_release(it->dir);
    it->path = NULL;
    it->target = NULL;
    it->dir = NULL;
}

tree_walk *tree_walk_open(char *const *roots, char *const *excludes, size_t n)
{
    tree_walk *w = calloc(1, sizeof *w);

    if (w == NULL)
        return NULL;
    w->roots = roots;
    if (!make_patterns(w, excludes, n)) {
        tree_walk_close(w);
        return NULL;
    }
    return w;
}

void tree_walk_close(tree_walk *w)
{
    if (w == NULL)
        return;
    while (w->stack.depth > 0)
        leave(w);
    free(w->stack.at);
    for (size_t i = 0; i < w->npats; i++)
        free(w->pats[i].text);
    free(w->pats);
    free(w);
}
