/* SPDX-License-Identifier: Apache-2.0 */
/* Opening and reading the files to hash (feed.h feeds them to hashers)
 * and the lines of check files. */
#ifndef KSUM_CLI_FILES_H
#define KSUM_CLI_FILES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/messages.h"

/* How far the reading of one file is, for --progress (another thread
 * reads it). */
typedef struct file_progress {
    _Atomic uint64_t done;      /* bytes read */
    _Atomic uint64_t size;      /* a regular file's size; FILE_SIZE_UNKNOWN */
} file_progress;
#define FILE_SIZE_UNKNOWN UINT64_MAX

void file_progress_start(file_progress *p, const struct stat *st);
void file_progress_add(file_progress *p, size_t n);

/* Buffers for reading; with read_ahead, a reader thread fills the others
 * while one is hashed. */
#define INPUT_BUFFERS 4
typedef struct input {
    uint8_t *buf[INPUT_BUFFERS];
    size_t size;
    int read_ahead;
    int regular_only;   /* check mode: refuse devices, FIFOs, directories */
    int nofollow;       /* refuse a symbolic link (a file met in a walk) */
    file_progress *progress;  /* the file being read, or NULL */
    int spill_errno;    /* why KSUM_ESPILL: the temporary file's errno */
} input;

/* Big reads, so that tree modes see many whole chunks per update. */
#define INPUT_SIZE ((size_t)1 << 20)
#define INPUT_SIZE_READ_AHEAD ((size_t)4 << 20)
#define INPUT_ALIGN ((size_t)2 << 20)
#define INPUT_ALIGN_SMALL ((size_t)4096)
/* Buffers from this size on are rounded up to whole huge pages. */
#define INPUT_HUGE_MIN ((size_t)1 << 20)

/* Room in *array, of *cap elements of size bytes, for need of them: the
 * room doubled (from first), the new part zeroed; 0 when there was no
 * memory for it. */
int grow_array(void *array, size_t *cap, size_t need, size_t size, size_t first);

/* A buffer to read into, page aligned, or NULL; given back with
 * input_buffer_free and the same size. */
uint8_t *input_buffer_new(size_t size);
void input_buffer_free(uint8_t *p, size_t size);

int input_init(input *in, int read_ahead);
void input_free(input *in);

/* Fills buf as far as the file goes, from byte at (pread) or, when at is
 * negative, from where fd stands.  Returns the bytes read; *err gets the
 * errno of a failed read (0 when none). */
size_t read_full_at(int fd, uint8_t *buf, size_t size, off_t at, int *err);
#define read_full(fd, buf, size, err) read_full_at(fd, buf, size, -1, err)
/* 1 when all of p was written; else 0, with errno the failed write's. */
int write_all(int fd, const void *p, size_t len);

/* A regular file whose st_size is the length of what a read gives: not
 * one of size 0, nor one of /proc, /sys and the like, whose sizes are 0 or
 * a page whatever they hold.  Others are read as streams where the length
 * must be known first (TupleHash). */
int size_is_known(int fd, const struct stat *st);

/* A regular file's size and modification time are what they were. */
int file_unchanged(int fd, const struct stat *before);

/* Opens the file at path (not "-"), relative to the directory dirfd
 * (AT_FDCWD: the current one), for reading.  With regular_only,
 * anything but a regular file is KSUM_ENOTREG, and the open does not wait
 * (O_NONBLOCK: a FIFO without a writer); with nofollow, a symbolic link is
 * refused.  Returns 0 with *fd open and *st its status, or the errno value
 * or KSUM_E* code with *fd -1. */
int open_named(int dirfd, const char *path, int regular_only, int nofollow, int *fd,
               struct stat *st);

/* How many more files may be open at once, beyond a few kept for the
 * walk's directory, a stream and the libraries (RLIMIT_NOFILE less what
 * is open); at least 1.  Files in flight are sized by it, so that a low
 * `ulimit -n` means fewer at once, never a file failed for it. */
unsigned descriptors_free(void);

/* path is standard input: "-", or another name of it (/dev/stdin,
 * /proc/self/fd/0) when it is a pipe, terminal or device, whose bytes a
 * second reader would take from the first. */
int is_standard_input(const char *path);

/* Lines of a check file, read with read(2): a line too long for memory
 * is skipped to its end, and a read error names its line. */
typedef struct line_reader {
    int fd;
    int sep;            /* what ends a line: '\n' (or NUL, set after init) */
    uint8_t *chunk;     /* what read(2) gave */
    size_t pos, end;
    char *line;         /* the current line, with its '\n', NUL-terminated */
    size_t len, cap;
    int read_any;       /* a byte of the file was read */
    int at_end;         /* read(2) said end of file */
} line_reader;

enum { LINE_OK, LINE_END, LINE_TOO_LONG, LINE_READ_ERROR };

/* 0 when out of memory. */
int line_reader_init(line_reader *r, int fd);
/* The next line, with its separator, into r->line and r->len (LINE_OK),
 * or why there is none:
 * LINE_END, LINE_TOO_LONG (the line was skipped; the next call reads the
 * line after it), LINE_READ_ERROR (*err: errno). */
int line_next(line_reader *r, int *err);
void line_reader_free(line_reader *r);
/* The next line_next has a line (or the end) without waiting on the
 * writer of a pipe or terminal: a whole line is buffered, or there is
 * something to read. */
int line_ready(const line_reader *r);

#endif
