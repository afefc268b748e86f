/* SPDX-License-Identifier: Apache-2.0 */
#include "input/files.h"

#include "base/bigmem.h"
#include "base/messages.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

int grow_array(void *array, size_t *cap, size_t need, size_t size, size_t first)
{
    size_t n = *cap;
    char *p;

    if (need <= n)
        return 1;
    while (n < need) {
        if (n > SIZE_MAX / 2 / size)
            return 0;
        n = n ? 2 * n : first;
    }
    memcpy(&p, array, sizeof p);
    if ((p = realloc(p, n * size)) == NULL)
        return 0;
    memset(p + *cap * size, 0, (n - *cap) * size);
    memcpy(array, &p, sizeof p);
    *cap = n;
    return 1;
}

/* Every read buffer starts on a page: the kernel's copy out of the page
 * cache into a destination off a cache line is several times slower on
 * some CPUs (bench/read_align.c).  A buffer of a MiB or more is mapped in
 * whole huge pages (bigmem.h): one page fault instead of 256 a MiB, and
 * fewer TLB misses in the copy and in the hashing (docs/benchmarks.md). */
uint8_t *input_buffer_new(size_t size)
{
    void *p = NULL;
    size_t mapped;

    if (size >= INPUT_HUGE_MIN)
        return big_alloc(size, &mapped);
    return posix_memalign(&p, INPUT_ALIGN_SMALL, size) == 0 ? p : NULL;
}

void input_buffer_free(uint8_t *p, size_t size)
{
    if (size >= INPUT_HUGE_MIN)
        big_free(p, big_length(size));
    else
        free(p);
}

void file_progress_start(file_progress *p, const struct stat *st)
{
    if (p == NULL)
        return;
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    atomic_store_explicit(&p->size, st != NULL && S_ISREG(st->st_mode)
                                        ? (uint64_t)st->st_size : FILE_SIZE_UNKNOWN,
                          memory_order_relaxed);
}

void file_progress_add(file_progress *p, size_t n)
{
    if (p != NULL)
        atomic_fetch_add_explicit(&p->done, n, memory_order_relaxed);
}

static int buffers_new(input *in, int read_ahead)
{
    memset(in, 0, sizeof *in);
    in->read_ahead = read_ahead;
    in->size = read_ahead ? INPUT_SIZE_READ_AHEAD : INPUT_SIZE;
    for (int i = 0; i < (read_ahead ? INPUT_BUFFERS : 1); i++)
        if ((in->buf[i] = input_buffer_new(in->size)) == NULL)
            return 0;
    return 1;
}

int input_init(input *in, int read_ahead)
{
    if (buffers_new(in, read_ahead))
        return 1;
    /* Reading ahead is only speed: without room for its 16 MiB (ulimit -v),
     * one buffer read in turn with the hashing. */
    input_free(in);
    return read_ahead && buffers_new(in, 0);
}

void input_free(input *in)
{
    for (int i = 0; i < INPUT_BUFFERS; i++)
        input_buffer_free(in->buf[i], in->size);
}

size_t read_full_at(int fd, uint8_t *buf, size_t size, off_t at, int *err)
{
    size_t got = 0;

    *err = 0;
    while (got < size) {
        ssize_t n = at < 0 ? read(fd, buf + got, size - got)
                           : pread(fd, buf + got, size - got, at + (off_t)got);
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            *err = errno;
            break;
        }
        got += (size_t)n;
    }
    return got;
}

int write_all(int fd, const void *p, size_t len)
{
    const uint8_t *at = p;

    while (len > 0) {
        ssize_t n = write(fd, at, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        at += n;
        len -= (size_t)n;
    }
    return 1;
}

/* File systems whose files report sizes that are not their contents'. */
static int pseudo_file_system(int fd)
{
    static const unsigned long magic[] = {
        0x9fa0,       /* proc */
        0x62656572,   /* sysfs */
        0x64626720,   /* debugfs */
        0x74726163,   /* tracefs */
        0x73636673,   /* securityfs */
        0x62656570,   /* configfs */
        0x63677270,   /* cgroup2 */
        0x27e0eb,     /* cgroup */
    };
    struct statfs fs;

    if (fstatfs(fd, &fs) != 0)
        return 1;   /* unknown: reading it as a stream is always right */
    for (size_t i = 0; i < sizeof magic / sizeof magic[0]; i++)
        if ((unsigned long)fs.f_type == magic[i])
            return 1;
    return 0;
}

int size_is_known(int fd, const struct stat *st)
{
    return S_ISREG(st->st_mode) && st->st_size > 0 && !pseudo_file_system(fd);
}

int file_unchanged(int fd, const struct stat *before)
{
    struct stat after;

    return fstat(fd, &after) == 0 && after.st_size == before->st_size &&
           after.st_mtim.tv_sec == before->st_mtim.tv_sec &&
           after.st_mtim.tv_nsec == before->st_mtim.tv_nsec;
}

int open_named(int dirfd, const char *path, int regular_only, int nofollow, int *fd,
               struct stat *st)
{
    int err = 0;

    *fd = openat(dirfd, path, O_RDONLY | O_NOCTTY | (regular_only ? O_NONBLOCK : 0) |
                                 (nofollow ? O_NOFOLLOW : 0));
    if (*fd < 0)
        return errno;
    if (fstat(*fd, st) != 0)
        err = errno;
    else if (regular_only && !S_ISREG(st->st_mode))
        err = KSUM_ENOTREG;
    if (err != 0) {
        close(*fd);
        *fd = -1;
    }
    return err;
}

/* Descriptors kept free for the walk's directory, a stream read by the
 * printing thread, and the libraries (OpenSSL's configuration). */
#define DESCRIPTORS_KEPT 3
/* Past this limit, counting what is open is not worth it. */
#define DESCRIPTORS_PLENTY 4096

unsigned descriptors_free(void)
{
    struct rlimit lim;
    unsigned open_now = 0;

    if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= DESCRIPTORS_PLENTY)
        return DESCRIPTORS_PLENTY;
    for (int fd = 0; fd < (int)lim.rlim_cur; fd++)
        open_now += fcntl(fd, F_GETFD) != -1;
    if (lim.rlim_cur <= open_now + DESCRIPTORS_KEPT)
        return 1;
    return (unsigned)(lim.rlim_cur - open_now - DESCRIPTORS_KEPT);
}

int is_standard_input(const char *path)
{
    struct stat named, in;

    if (strcmp(path, "-") == 0)
        return 1;
    return stat(path, &named) == 0 && fstat(STDIN_FILENO, &in) == 0 &&
           !S_ISREG(named.st_mode) && named.st_dev == in.st_dev &&
           named.st_ino == in.st_ino;
}

/* ---- lines of check files ---- */

#define LINE_CHUNK ((size_t)64 << 10)
/* A line buffer grown past this is given back after its line. */
#define LINE_KEEP ((size_t)1 << 20)

int line_reader_init(line_reader *r, int fd)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->sep = '\n';
    r->chunk = malloc(LINE_CHUNK);
    return r->chunk != NULL;
}

void line_reader_free(line_reader *r)
{
    free(r->chunk);
    free(r->line);
    r->chunk = NULL;
    r->line = NULL;
}

/* Reads the next chunk; returns its size, 0 at the end, -1 on error. */
static ssize_t refill(line_reader *r, int *err)
{
    ssize_t n;

    do
        n = read(r->fd, r->chunk, LINE_CHUNK);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        *err = errno;
        return -1;
    }
    r->pos = 0;
    r->end = (size_t)n;
    r->read_any |= n > 0;
    r->at_end = n == 0;
    return n;
}

static void drop_line(line_reader *r)
{
    free(r->line);
    r->line = NULL;
    r->len = r->cap = 0;
}

/* Appends n bytes to the line; 0 when memory ran out. */
static int append_line(line_reader *r, const uint8_t *p, size_t n)
{
    if (!grow_array(&r->line, &r->cap, r->len + n + 1, 1, 256))
        return 0;
    memcpy(r->line + r->len, p, n);
    r->len += n;
    r->line[r->len] = '\0';
    return 1;
}

int line_next(line_reader *r, int *err)
{
    int fits = 1, started = 0;

    if (r->cap > LINE_KEEP)
        drop_line(r);
    r->len = 0;
    for (;;) {
        uint8_t *start = r->chunk + r->pos, *nl;
        size_t n;
        if (r->pos == r->end) {
            /* After the end, a terminal is not asked for more. */
            ssize_t got = r->at_end ? 0 : refill(r, err);
            if (got < 0)
                return LINE_READ_ERROR;
            if (got == 0)
                return !started ? LINE_END : fits ? LINE_OK : LINE_TOO_LONG;
            start = r->chunk;
        }
        nl = memchr(start, r->sep, r->end - r->pos);
        n = nl != NULL ? (size_t)(nl + 1 - start) : r->end - r->pos;
        started = 1;
        /* Out of memory: the rest of the line is read and dropped, so that
         * the next line is still checked. */
        if (fits && !append_line(r, start, n)) {
            fits = 0;
            drop_line(r);
        }
        r->pos += n;
        if (nl != NULL)
            return fits ? LINE_OK : LINE_TOO_LONG;
    }
}

int line_ready(const line_reader *r)
{
    struct pollfd p = {.fd = r->fd, .events = POLLIN};

    if (r->at_end || memchr(r->chunk + r->pos, r->sep, r->end - r->pos) != NULL)
        return 1;
    return poll(&p, 1, 0) > 0;
}
