/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "input/walk.h"

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

/* A directory being walked: its entries, each a type byte, the name and a
 * NUL, in one block, sorted in the byte order of the names.  The types:
 * 'f' a regular file, 'd' a directory, 'l' a symbolic link, 's' a FIFO,
 * socket or device, '?' one that could not be examined. */
typedef struct walk_level {
    char *path;             /* as printed */
    struct stat st;         /* the directory entered */
    char *names;
    size_t len, cap;
    size_t *at;             /* where each entry starts in names */
    size_t n, max, next;
    walk_dir *dir;          /* in the --tree walk: the directory, open */
    int err;                /* reading it failed: an error is due */
} walk_level;

/* The directories on the current path, the innermost last. */
typedef struct walk_stack {
    walk_level *at;
    size_t depth, cap;
    /* The --tree walk's: each level keeps its directory open (dir), and
     * its excludes leave entries out; NULL for -r. */
    const tree_walk *tree;
} walk_stack;

static int kept(const tree_walk *w, const walk_level *l, const char *name, char type);

struct name_source {
    name_spec spec;         /* spec.files: the operands still to come */
    line_reader list;       /* with --files-from */
    int list_is_stdin, list_done;
    int list_is_dash;       /* named "-": the list is fd 0, not ours to close */
    unsigned long lineno;
    walk_stack stack;
};

/* ---- the entries of one directory, and the path ---- */

static int walk_add(walk_level *l, char type, const char *name)
{
    size_t len = strlen(name) + 2;

    if (!grow_array(&l->names, &l->cap, l->len + len, 1, 4096) ||
        !grow_array(&l->at, &l->max, l->n + 1, sizeof *l->at, 64))
        return 0;
    l->at[l->n++] = l->len;
    l->names[l->len] = type;
    memcpy(l->names + l->len + 1, name, len - 1);
    l->len += len;
    return 1;
}

/* Byte order of the names (strcmp compares as unsigned char). */
static int by_name(const void *a, const void *b, void *names)
{
    const char *base = names;

    return strcmp(base + *(const size_t *)a + 1, base + *(const size_t *)b + 1);
}

static char walk_type(mode_t mode)
{
    if (S_ISREG(mode))
        return 'f';
    return S_ISDIR(mode) ? 'd' : S_ISLNK(mode) ? 'l' : 's';
}

/* What the file at path in dirfd is by its status (a link's own unless
 * follow); '?', with errno set, when it could not be examined. */
static char examine(int dirfd, const char *path, int follow)
{
    struct stat st;

    return fstatat(dirfd, path, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0 ? '?'
                                                                          : walk_type(st.st_mode);
}

/* Reads every entry of d that s keeps into l; 0 or the errno of a failed
 * read or of no memory. */
static int read_entries(const walk_stack *s, DIR *d, walk_level *l)
{
    struct dirent *de;

    for (;;) {
        errno = 0;
        if ((de = readdir(d)) == NULL)
            return errno;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        /* What it is (the link, never its target): d_type, or where the
         * file system does not say, its status.  No stat otherwise: a
         * regular file's execute bit is read where it is opened, and a stat
         * per file would cost more than hashing a small one. */
        char type = de->d_type != DT_UNKNOWN ? walk_type(DTTOIF(de->d_type))
                                             : examine(dirfd(d), de->d_name, 0);
        int keep = s->tree != NULL ? kept(s->tree, l, de->d_name, type) : 1;
        if (keep < 0 || (keep && !walk_add(l, type, de->d_name)))
            return ENOMEM;
    }
}

static int on_stack(const walk_stack *s, const struct stat *st)
{
    for (size_t i = 0; i < s->depth; i++)
        if (s->at[i].st.st_dev == st->st_dev && s->at[i].st.st_ino == st->st_ino)
            return 1;
    return 0;
}

static int walk_enter(walk_stack *s, int dirfd, char *path, size_t name_at, int follow)
{
    int fd = openat(dirfd, path + name_at, O_RDONLY | O_DIRECTORY | O_NOCTTY | O_CLOEXEC |
                                               (follow ? 0 : O_NOFOLLOW));
    walk_dir *dir = NULL;
    struct stat st;
    DIR *d = NULL;
    int err = 0;

    if (fd < 0 || fstat(fd, &st) != 0)
        err = errno;
    else if (on_stack(s, &st))
        err = KSUM_ELOOP;
    else if (!grow_array(&s->at, &s->cap, s->depth + 1, sizeof *s->at, 16) ||
             (s->tree != NULL && (dir = malloc(sizeof *dir)) == NULL))
        err = ENOMEM;
    else if ((dir != NULL && (dir->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) ||
             (d = fdopendir(fd)) == NULL)
        err = errno;
    if (err != 0) {
        if (fd >= 0)
            close(fd);
        if (dir != NULL && dir->fd >= 0)
            close(dir->fd);
        free(dir);
        return err;
    }
    if (dir != NULL)
        dir->refs = 1;
    walk_level *l = &s->at[s->depth];
    *l = (walk_level){.path = path, .st = st, .dir = dir};
    l->err = read_entries(s, d, l);
    closedir(d);
    if (l->n > 1)
        qsort_r(l->at, l->n, sizeof *l->at, by_name, l->names);
    s->depth++;
    return 0;
}

static void walk_dir_release(walk_dir *d)
{
    if (d != NULL && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        close(d->fd);
        free(d);
    }
}

static void walk_pop(walk_stack *s)
{
    walk_level *l = &s->at[--s->depth];

    free(l->path);
    free(l->names);
    free(l->at);
    walk_dir_release(l->dir);
}

static void walk_free(walk_stack *s)
{
    while (s->depth > 0)
        walk_pop(s);
    free(s->at);
}

static char *walk_join(const char *dir, const char *name)
{
    size_t len = strlen(dir);
    int slash = len > 0 && dir[len - 1] != '/';
    char *path = malloc(len + slash + strlen(name) + 1);

    if (path != NULL)
        sprintf(path, "%s%s%s", dir, slash ? "/" : "", name);
    return path;
}

/* ---- the walk ---- */

/* An entry whose reason is its line's own (err 0) needs the path that
 * could not be copied (NULL) to say it: it is then reported as that. */
static void error_entry(named *n, char *path, int err)
{
    n->kind = NAME_ERROR;
    n->path = path;
    n->err = path == NULL && err == 0 ? ENOMEM : err;
}

/* Enters the directory at path (taking it); 1 when that gave an error
 * entry in *n, 0 when not (a read in it that failed is said at its first
 * step: the directory is still walked). */
static int enter(name_source *s, char *path, int follow, named *n)
{
    int err = walk_enter(&s->stack, AT_FDCWD, path, 0, follow);

    if (err != 0)
        error_entry(n, path, err);
    return err != 0;
}

/* What a name met in the walk is; 1 when that gave *n. */
static int classify(name_source *s, char *path, char type, named *n)
{
    int deref = s->spec.dereference;

    if (type == '?' || (type == 'l' && deref))
        type = examine(AT_FDCWD, path, deref);
    switch (type) {
    case '?':
        error_entry(n, path, errno);
        return 1;
    case 'f':
        *n = (named){.kind = NAME_FILE, .path = path, .walked = 1, .nofollow = !deref};
        return 1;
    case 'd':
        return enter(s, path, deref, n);
    }
    /* A link or a special file: skipped, or said to be under -w. */
    if (!s->spec.warn) {
        free(path);
        return 0;
    }
    error_entry(n, path, type == 'l' ? KSUM_ESYMLINK : KSUM_ESPECIAL);
    n->kind = NAME_WARNING;
    return 1;
}

/* The next step in the innermost directory of s: its entry's type, its
 * path joined in *path; 0 when the directory ended (popped); -1 with *err
 * when reading it failed or memory ran out (*path what failed, or NULL). */
static int next_entry(walk_stack *s, char **path, int *err)
{
    walk_level *top = &s->at[s->depth - 1];
    const char *entry;

    if (top->err != 0) {
        *path = strdup(top->path);
        *err = top->err;
        top->err = 0;
        return -1;
    }
    if (top->next == top->n) {
        walk_pop(s);
        return 0;
    }
    entry = top->names + top->at[top->next++];
    *path = walk_join(top->path, entry + 1);
    *err = ENOMEM;
    return *path != NULL ? entry[0] : -1;
}

/* The next entry of the innermost directory; 1 when that gave *n. */
static int walk_step(name_source *s, named *n)
{
    char *path;
    int err, type = next_entry(&s->stack, &path, &err);

    if (type < 0)
        error_entry(n, path, err);
    return type > 0 ? classify(s, path, (char)type, n) : type < 0;
}

/* ---- operands and lists ---- */

static void list_error(name_source *s, named *n, const char *what, int err)
{
    error_entry(n, strdup(s->list_is_dash ? "standard input" : s->spec.files_from), err);
    n->line = s->lineno;
    n->what = what;
}

/* The next name of the list into *name; or an error of its line in *n
 * (returns 1, *name NULL); 0 at its end. */
static int list_next(name_source *s, char **name, named *n)
{
    line_reader *r = &s->list;
    int err = 0, got;
    size_t len;

    *name = NULL;
    if (s->list_done || (got = line_next(r, &err)) == LINE_END)
        return 0;
    s->lineno++;
    /* After a read error, where the next name would start is unknown. */
    s->list_done = got == LINE_READ_ERROR;
    if (got == LINE_READ_ERROR && !r->read_any) {
        error_entry(n, strdup(s->spec.files_from), err);  /* e.g. a directory */
        return 1;
    }
    if (got != LINE_OK) {
        list_error(s, n, NULL, got == LINE_TOO_LONG ? ENOMEM : err);
        return 1;
    }
    len = r->len;
    if (len > 0 && r->line[len - 1] == (char)r->sep)
        len--;
    if (len == 0)
        list_error(s, n, "empty file name", 0);
    else if (memchr(r->line, '\0', len) != NULL)
        list_error(s, n, "file name with a NUL byte (-z reads NUL-separated names)", 0);
    else if ((*name = strndup(r->line, len)) == NULL)
        list_error(s, n, NULL, ENOMEM);
    return 1;
}

/* A name given by the user (operand or list): 1 when that gave *n. */
static int root(name_source *s, char *path, named *n)
{
    if (s->list_is_stdin && is_standard_input(path)) {
        error_entry(n, path, KSUM_ELISTSTDIN);
        return 1;
    }
    /* Not there ('?'): opening it says what is wrong. */
    char type = strcmp(path, "-") != 0 ? examine(AT_FDCWD, path, 1) : '?';
    /* A directory named is walked even through a symbolic link. */
    if (type == 'd' && s->spec.recursive)
        return enter(s, path, 1, n);
    n->path = path;
    n->kind = type == 'f' ? NAME_FILE : NAME_STREAM;
    return 1;
}

/* The next operand or listed name; 1 when that gave *n, 0 when it gave
 * nothing, -1 at the end. */
static int next_root(name_source *s, named *n)
{
    char *name = NULL;

    if (s->spec.files_from != NULL ? !list_next(s, &name, n) : *s->spec.files == NULL)
        return -1;
    if (s->spec.files_from == NULL && (name = strdup(*s->spec.files++)) == NULL)
        error_entry(n, NULL, ENOMEM);
    return name == NULL ? 1 : root(s, name, n);
}

int names_next(name_source *s, named *n)
{
    memset(n, 0, sizeof *n);
    for (;;) {
        int got = s->stack.depth > 0 ? walk_step(s, n) : next_root(s, n);
        if (got != 0)
            return got > 0;
    }
}

int names_ready(const name_source *s)
{
    return s->stack.depth > 0 || s->spec.files_from == NULL || s->list_done ||
           line_ready(&s->list);
}

void named_free(named *n)
{
    free(n->path);
    n->path = NULL;
}

void named_report(const named *n)
{
    FILE *f;

    if (n->path == NULL) {
        fprintf(message_stream(), "ksum: %s\n", strerror(n->err));
        return;
    }
    if (n->line == 0) {
        report_error(n->path, n->err, NULL);
        return;
    }
    f = message_stream();
    fputs("ksum: ", f);
    print_name(f, n->path, name_needs_escape(n->path));
    if (n->what != NULL)
        fprintf(f, ": %lu: %s\n", n->line, n->what);
    else
        fprintf(f, ": %lu: line could not be read: %s\n", n->line, strerror(n->err));
}

name_source *names_open(const name_spec *spec)
{
    name_source *s = calloc(1, sizeof *s);
    const char *list = spec->files_from;
    int fd;

    if (s == NULL) {
        message_fail("out of memory");
        return NULL;
    }
    s->spec = *spec;
    if (list == NULL)
        return s;
    s->list_is_dash = strcmp(list, "-") == 0;
    /* Also /dev/stdin on a pipe: a '-' in the list would read the list. */
    s->list_is_stdin = is_standard_input(list);
    fd = s->list_is_dash ? STDIN_FILENO : open(list, O_RDONLY | O_NOCTTY);
    if (fd < 0 || !line_reader_init(&s->list, fd)) {
        report_error(list, fd < 0 ? errno : ENOMEM, NULL);
        s->list.fd = fd;    /* names_close closes it */
        names_close(s);
        return NULL;
    }
    s->list.sep = spec->zero ? '\0' : '\n';
    return s;
}

void names_close(name_source *s)
{
    if (s == NULL)
        return;
    walk_free(&s->stack);
    if (s->spec.files_from != NULL && !s->list_is_dash && s->list.fd >= 0)
        close(s->list.fd);
    line_reader_free(&s->list);     /* without a list, zeroed: nothing to free */
    free(s);
}

/* ---- the --tree walk ---- */

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

/* Whether to keep an entry of l: 0 when excluded, -1 when there was no
 * memory to tell. */
static int kept(const tree_walk *w, const walk_level *l, const char *name, char type)
{
    const char *dir_rel = strlen(l->path) > w->root_len ? l->path + w->root_len : "";
    char *rel;
    int found = 0;

    if (w->npats == 0)
        return 1;
    if ((rel = walk_join(dir_rel, name)) == NULL)
        return -1;
    for (const pattern *p = w->pats; !found && p < w->pats + w->npats; p++)
        found = (!p->dirs_only || type == 'd') &&
                fnmatch(p->text, p->on_path ? rel : name, p->on_path ? FNM_PATHNAME : 0) == 0;
    free(rel);
    return !found;
}

/* ---- the walk ---- */

/* What is wrong with it->path (NULL when there was no memory for it). */
static void error_item(tree_item *it, int err, const char *why)
{
    it->kind = TREE_ERROR;
    it->err = err;
    it->why = why;
}

/* Opens the directory at path (a DIR operand through a link; an entry in
 * the directory read last, never through one), reads it and pushes it,
 * kept open; its TREE_ENTER, or the error, in *it. */
static void tree_enter(tree_walk *w, tree_item *it)
{
    walk_stack *s = &w->stack;
    size_t depth = s->depth;
    int err = walk_enter(s, depth > 0 ? s->at[depth - 1].dir->fd : AT_FDCWD, it->path,
                         it->name_at, depth == 0);
    walk_level *l = &s->at[depth];

    /* An entry read as a directory that is no longer one (a link now)
     * changed while the tree was walked. */
    if (err != 0) {
        error_item(it, (err == ELOOP || err == ENOTDIR) && depth > 0 ? KSUM_ECHANGED : err, NULL);
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
            error_item(it, buf == NULL ? ENOMEM : errno == EINVAL ? KSUM_ECHANGED : errno, NULL);
            free(buf);
            return;
        }
        if ((size_t)got < size) {
            it->kind = TREE_LINK;
            buf[got] = '\0';
            it->target = buf;
            return;
        }
        free(buf);
    }
}

/* The next entry of the innermost directory, or its end. */
static void tree_step(tree_walk *w, tree_item *it)
{
    walk_level *top = &w->stack.at[w->stack.depth - 1];
    int err, type = next_entry(&w->stack, &it->path, &err);

    if (type <= 0) {
        it->kind = TREE_LEAVE;
        if (type < 0)
            error_item(it, err, NULL);
        return;
    }
    /* the entry's name, after its type byte, ends its path */
    it->name_at = strlen(it->path) - strlen(top->names + top->at[top->next - 1] + 1);
    switch (type) {
    case 'f':
        it->kind = TREE_FILE;
        it->dir = top->dir;
        __atomic_add_fetch(&top->dir->refs, 1, __ATOMIC_RELAXED);
        return;
    case 'l':
        link_item(top, it);
        return;
    case 'd':
        tree_enter(w, it);
        return;
    case 's':
        error_item(it, KSUM_ENOTREG,
                   "a FIFO, socket or device in a tree (--exclude leaves it out)");
        return;
    default:
        error_item(it, examine(top->dir->fd, it->path + it->name_at, 0) == '?' ? errno : ECHILD,
                   NULL);
    }
}

int tree_walk_next(tree_walk *w, tree_item *it)
{
    memset(it, 0, sizeof *it);
    if (w->stack.depth > 0)
        tree_step(w, it);
    else if (*w->roots == NULL)
        return 0;
    else if ((it->path = strdup(*w->roots++)) == NULL)
        error_item(it, ENOMEM, NULL);
    else {
        /* The next DIR operand, reached through a link or not: opening it
         * as a directory (never waiting on a FIFO) says when it is none. */
        w->root_len = strlen(it->path) + !tree_name(it->path);
        tree_enter(w, it);
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
    w->stack.tree = w;
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
