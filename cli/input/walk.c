/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "input/walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/messages.h"
#include "input/files.h"

struct name_source {
    const options *o;
    char **operands;        /* without a list */
    line_reader list;       /* with --files-from */
    int have_list, list_is_stdin, list_done;
    int list_is_dash;       /* named "-": the list is fd 0, not ours to close */
    const char *list_label;
    unsigned long lineno;
    walk_stack stack;
};

/* ---- the entries of one directory, and the path ---- */

int walk_add(walk_level *l, char type, const char *name)
{
    size_t len = strlen(name) + 2;

    while (l->len + len > l->cap) {
        char *bigger = realloc(l->names, l->cap ? 2 * l->cap : 4096);
        if (bigger == NULL)
            return 0;
        l->names = bigger;
        l->cap = l->cap ? 2 * l->cap : 4096;
    }
    if (l->n == l->max) {
        size_t *bigger = realloc(l->at, (l->max ? 2 * l->max : 64) * sizeof *l->at);
        if (bigger == NULL)
            return 0;
        l->at = bigger;
        l->max = l->max ? 2 * l->max : 64;
    }
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

void walk_sort(walk_level *l)
{
    if (l->n > 1)
        qsort_r(l->at, l->n, sizeof *l->at, by_name, l->names);
}

int walk_on_stack(const walk_stack *s, const struct stat *st)
{
    for (size_t i = 0; i < s->depth; i++)
        if (s->at[i].dev == st->st_dev && s->at[i].ino == st->st_ino)
            return 1;
    return 0;
}

int walk_grow(walk_stack *s)
{
    walk_level *bigger;

    if (s->depth < s->cap)
        return 1;
    bigger = realloc(s->at, (s->cap ? 2 * s->cap : 16) * sizeof *bigger);
    if (bigger == NULL)
        return 0;
    s->at = bigger;
    s->cap = s->cap ? 2 * s->cap : 16;
    return 1;
}

walk_level *walk_pop(walk_stack *s)
{
    walk_level *l = &s->at[--s->depth];

    free(l->path);
    free(l->names);
    free(l->at);
    return l;
}

char *walk_join(const char *dir, const char *name)
{
    size_t len = strlen(dir);
    int slash = len > 0 && dir[len - 1] != '/';
    char *path = malloc(len + slash + strlen(name) + 1);

    if (path != NULL)
        sprintf(path, "%s%s%s", dir, slash ? "/" : "", name);
    return path;
}

/* Reads every entry of d; returns 0, or the errno of a failed read or of
 * no memory (what was read is kept). */
static int read_entries(DIR *d, walk_level *l)
{
    struct dirent *de;

    for (;;) {
        errno = 0;
        if ((de = readdir(d)) == NULL)
            return errno;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (!walk_add(l, (char)de->d_type, de->d_name))
            return ENOMEM;
    }
}

/* ---- the walk ---- */

static void error_entry(named *n, char *path, int err)
{
    n->kind = NAME_ERROR;
    n->path = path;
    n->err = err;
}

/* Enters the directory at path (taking it); 1 when that gave an error
 * entry in *n (the directory is still walked when only a read in it
 * failed), 0 when not. */
static int enter(name_source *s, char *path, int follow, named *n)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOCTTY | O_CLOEXEC |
                            (follow ? 0 : O_NOFOLLOW));
    walk_level *l;
    struct stat st;
    DIR *d = NULL;
    int err = 0;

    if (fd < 0 || fstat(fd, &st) != 0)
        err = errno;
    else if (walk_on_stack(&s->stack, &st))
        err = KSUM_ELOOP;
    else if (!walk_grow(&s->stack))
        err = ENOMEM;
    else if ((d = fdopendir(fd)) == NULL)
        err = errno;
    if (err != 0) {
        if (fd >= 0)
            close(fd);
        error_entry(n, path, err);
        return 1;
    }
    l = &s->stack.at[s->stack.depth++];
    *l = (walk_level){.path = path, .dev = st.st_dev, .ino = st.st_ino};
    err = read_entries(d, l);
    closedir(d);
    walk_sort(l);
    if (err == 0)
        return 0;
    error_entry(n, strdup(path), err);
    return 1;
}

/* Skipped, or said to be skipped under -w. */
static int skipped(const name_source *s, char *path, int why, named *n)
{
    if (!s->o->walk_warn) {
        free(path);
        return 0;
    }
    n->kind = NAME_WARNING;
    n->path = path;
    n->err = why;
    return 1;
}

/* What a name met in the walk is; 1 when that gave *n. */
static int classify(name_source *s, char *path, unsigned char type, named *n)
{
    int deref = s->o->dereference;
    struct stat st;

    if (type == DT_UNKNOWN || (type == DT_LNK && deref)) {
        if ((deref ? stat(path, &st) : lstat(path, &st)) != 0) {
            error_entry(n, path, errno);
            return 1;
        }
        type = S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR
               : S_ISLNK(st.st_mode) ? DT_LNK : DT_FIFO;
    }
    switch (type) {
    case DT_REG:
        n->kind = NAME_FILE;
        n->path = path;
        n->walked = 1;
        n->nofollow = !deref;
        return 1;
    case DT_DIR:
        return enter(s, path, deref, n);
    case DT_LNK:
        return skipped(s, path, KSUM_ESYMLINK, n);
    default:
        return skipped(s, path, KSUM_ESPECIAL, n);
    }
}

/* The next entry of the innermost directory; 1 when that gave *n. */
static int walk_step(name_source *s, named *n)
{
    walk_level *top = &s->stack.at[s->stack.depth - 1];
    const char *entry;
    char *path;

    if (top->next == top->n) {
        walk_pop(&s->stack);
        return 0;
    }
    entry = top->names + top->at[top->next++];
    if ((path = walk_join(top->path, entry + 1)) == NULL) {
        error_entry(n, NULL, ENOMEM);
        return 1;
    }
    return classify(s, path, (unsigned char)entry[0], n);
}

/* ---- operands and lists ---- */

static void list_error(name_source *s, named *n, const char *what, int err)
{
    error_entry(n, strdup(s->list_label), err);
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
    if (got == LINE_READ_ERROR) {
        s->list_done = 1;   /* where the next name would start is unknown */
        if (r->read_any)
            list_error(s, n, NULL, err);
        else
            error_entry(n, strdup(s->o->files_from), err);  /* e.g. a directory */
        return 1;
    }
    if (got == LINE_TOO_LONG) {
        list_error(s, n, NULL, ENOMEM);
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
    struct stat st;

    if (s->list_is_stdin && is_standard_input(path)) {
        error_entry(n, path, KSUM_ELISTSTDIN);
        return 1;
    }
    n->path = path;
    n->kind = NAME_STREAM;
    if (strcmp(path, "-") == 0 || stat(path, &st) != 0)
        return 1;   /* opening it says what is wrong */
    if (S_ISREG(st.st_mode)) {
        n->kind = NAME_FILE;
        return 1;
    }
    if (s->o->recursive && S_ISDIR(st.st_mode)) {
        /* A directory named is walked even through a symbolic link. */
        n->path = NULL;
        return enter(s, path, 1, n);
    }
    return 1;
}

/* The next operand or listed name; 1 when that gave *n, 0 when it gave
 * nothing, -1 at the end. */
static int next_root(name_source *s, named *n)
{
    char *name;

    if (!s->have_list) {
        if (*s->operands == NULL)
            return -1;
        name = strdup(*s->operands++);
        if (name == NULL) {
            error_entry(n, NULL, ENOMEM);
            return 1;
        }
        return root(s, name, n);
    }
    if (!list_next(s, &name, n))
        return -1;
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
    return s->stack.depth > 0 || !s->have_list || s->list_done || line_ready(&s->list);
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

name_source *names_open(const options *o)
{
    name_source *s = calloc(1, sizeof *s);
    int fd;

    if (s == NULL) {
        fprintf(message_stream(), "ksum: out of memory\n");
        return NULL;
    }
    s->o = o;
    s->operands = o->files;
    if (o->files_from == NULL)
        return s;
    s->have_list = 1;
    s->list_is_dash = strcmp(o->files_from, "-") == 0;
    /* Also /dev/stdin on a pipe: a '-' in the list would read the list. */
    s->list_is_stdin = is_standard_input(o->files_from);
    s->list_label = s->list_is_dash ? "standard input" : o->files_from;
    fd = s->list_is_dash ? STDIN_FILENO : open(o->files_from, O_RDONLY | O_NOCTTY);
    if (fd < 0 || !line_reader_init(&s->list, fd)) {
        report_error(o->files_from, fd < 0 ? errno : ENOMEM, NULL);
        if (fd >= 0 && !s->list_is_dash)
            close(fd);
        line_reader_free(&s->list);
        free(s);
        return NULL;
    }
    s->list.sep = o->zero ? '\0' : '\n';
    return s;
}

void names_close(name_source *s)
{
    if (s == NULL)
        return;
    while (s->stack.depth > 0)
        walk_pop(&s->stack);
    free(s->stack.at);
    if (s->have_list) {
        if (!s->list_is_dash)
            close(s->list.fd);
        line_reader_free(&s->list);
    }
    free(s);
}
