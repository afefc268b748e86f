/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LD_PRELOAD shim for the fault tests: reads of one file misbehave after a
 * number of bytes.  Environment:
 *   KSUM_FAULT_PATH   absolute path of the file
 *   KSUM_FAULT_AFTER  bytes read normally first
 *   KSUM_FAULT_MODE   eio: read fails with EIO; truncate: the file is cut to
 *                     that length; grow: 1000 bytes are appended to it;
 *                     overwrite: one byte past it is written in place (the
 *                     size stays, the modification time changes)
 * Only ksum's own read() and pread() calls are affected (stdio reads do
 * not go through these symbols); pread counts the bytes it gives as read
 * does, wherever they lie (--part reads ranges with it).
 *
 * Allocation failures: KSUM_FAULT_ALLOC=N makes the Nth call of malloc,
 * calloc, realloc, posix_memalign, aligned_alloc, an anonymous mmap or
 * mremap in the process fail (the mappings are ksum's own big buffers,
 * cli/base/bigmem.c: libc's allocator, thread stacks and the loader map
 * through libc's internal calls, not through these symbols)
 * (counted from the shim's load, every thread, libc's and libcrypto's calls
 * too), or with KSUM_FAULT_ALLOC_FROM=N that call and every later one, as
 * memory that has run out stays out; with KSUM_FAULT_ALLOC_COUNT=FILE the number of calls made is
 * written to FILE at exit, so a test knows how far N goes, and with
 * KSUM_FAULT_ALLOC_WHERE=FILE whether the failing call was ksum's (as
 * below) is written to FILE when it fails.  With
 * KSUM_FAULT_ALLOC_SCOPE=ksum only the calls the ksum executable makes
 * count: those with ksum's code (the CLI, and the provider built into it)
 * among the four callers nearest the allocator, so that OPENSSL_zalloc and
 * the EVP functions ksum calls, which allocate through libcrypto, count
 * too.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- allocation failures ---- */

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);

static int alloc_counting;        /* set once, before main */
static unsigned long fail_at;     /* 0: none */
static unsigned long fail_from;   /* 0: none */
static atomic_ulong alloc_calls;
static int only_ksum;
static uintptr_t exe_start, exe_end;   /* the executable's code */
static __thread int in_backtrace;

static int find_exe(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            exe_start = info->dlpi_addr + ph->p_vaddr;
            exe_end = exe_start + ph->p_memsz;
        }
    }
    return 1;   /* the first object is the executable */
}

__attribute__((constructor)) static void alloc_setup(void)
{
    const char *n = getenv("KSUM_FAULT_ALLOC");
    const char *scope = getenv("KSUM_FAULT_ALLOC_SCOPE");

    const char *from = getenv("KSUM_FAULT_ALLOC_FROM");

    fail_at = n != NULL ? strtoul(n, NULL, 10) : 0;
    fail_from = from != NULL ? strtoul(from, NULL, 10) : 0;
    only_ksum = scope != NULL && strcmp(scope, "ksum") == 0;
    if (only_ksum || getenv("KSUM_FAULT_ALLOC_TRACE") != NULL ||
        getenv("KSUM_FAULT_ALLOC_WHERE") != NULL) {
        void *warm[2];
        in_backtrace = 1;
        backtrace(warm, 2);   /* loads the unwinder now, not inside malloc */
        in_backtrace = 0;
        dl_iterate_phdr(find_exe, NULL);
    }
    alloc_counting = fail_at != 0 || fail_from != 0 || getenv("KSUM_FAULT_ALLOC_COUNT") != NULL;
}

/* Whether this allocation comes from the executable (frames 0 to 2 are
 * this function, alloc_fails and the allocator; 3 is its caller). */
__attribute__((noinline)) static int from_ksum(void)
{
    void *frames[7];
    int depth;

    if (in_backtrace)
        return 0;
    in_backtrace = 1;
    depth = backtrace(frames, 7);
    in_backtrace = 0;
    for (int i = 3; i < depth; i++)
        if ((uintptr_t)frames[i] >= exe_start && (uintptr_t)frames[i] < exe_end)
            return 1;
    return 0;
}

__attribute__((destructor)) static void alloc_report(void)
{
    const char *path = getenv("KSUM_FAULT_ALLOC_COUNT");
    FILE *f;

    alloc_counting = 0;
    if (path == NULL)
        return;
    f = fopen(path, "w");
    if (f != NULL) {
        fprintf(f, "%lu\n", atomic_load(&alloc_calls));
        fclose(f);
    }
}

/* Allocations before the constructor ran are not counted. */
/* Tells whose allocation failed: "ksum" or "other" into the file named by
 * KSUM_FAULT_ALLOC_WHERE (no stdio: the allocator may be what failed). */
static void tell_where(int ksum)
{
    const char *path = getenv("KSUM_FAULT_ALLOC_WHERE");
    int fd;

    if (path == NULL || (fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
        return;
    if (write(fd, ksum ? "ksum\n" : "other\n", ksum ? 5 : 6) < 0)
        perror("fault shim: where");
    close(fd);
}

/* With KSUM_FAULT_ALLOC_TRACE set, the failing call's stack goes to
 * standard error (resolve with addr2line -f -e ksum OFFSET). */
__attribute__((noinline)) static int alloc_fails(void)
{
    void *frames[24];
    unsigned long call;

    if (!alloc_counting || (only_ksum && !from_ksum()))
        return 0;
    call = atomic_fetch_add(&alloc_calls, 1) + 1;
    if (call != fail_at && (fail_from == 0 || call < fail_from))
        return 0;
    tell_where(from_ksum());
    if (getenv("KSUM_FAULT_ALLOC_TRACE") != NULL) {
        in_backtrace = 1;
        backtrace_symbols_fd(frames, backtrace(frames, 24), STDERR_FILENO);
        in_backtrace = 0;
    }
    return 1;
}

void *malloc(size_t size)
{
    if (alloc_fails()) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    if (alloc_fails()) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    if (alloc_fails()) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(p, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    void *p;

    if (alloc_fails())
        return ENOMEM;
    p = __libc_memalign(align, size);
    if (p == NULL)
        return ENOMEM;
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
    if (alloc_fails()) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_memalign(align, size);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if ((flags & MAP_ANONYMOUS) && alloc_fails()) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;

    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
    }
    if (alloc_fails()) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
}

/* ---- read faults ---- */

static size_t done[4096];
static int fired[4096];

static int is_target(int fd)
{
    const char *want = getenv("KSUM_FAULT_PATH");
    char link[64], path[PATH_MAX];
    ssize_t n;

    if (want == NULL || fd < 0 || fd >= 4096)
        return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, path, sizeof path - 1);
    if (n < 0)
        return 0;
    path[n] = '\0';
    return strcmp(path, want) == 0;
}

static void change_file(const char *mode, const char *path, size_t at)
{
    if (strcmp(mode, "truncate") == 0) {
        if (truncate(path, (off_t)at) != 0)
            perror("fault shim: truncate");
    } else if (strcmp(mode, "grow") == 0) {
        int fd = open(path, O_WRONLY | O_APPEND);
        char junk[1000] = {0};
        if (fd < 0 || write(fd, junk, sizeof junk) != (ssize_t)sizeof junk)
            perror("fault shim: grow");
        if (fd >= 0)
            close(fd);
    } else if (strcmp(mode, "overwrite") == 0) {
        int fd = open(path, O_WRONLY);
        if (fd < 0 || pwrite(fd, "Z", 1, (off_t)at + 1) != 1)
            perror("fault shim: overwrite");
        if (fd >= 0)
            close(fd);
    }
}

/* The fault of the target's descriptor fd before a read of *count bytes:
 * 0 to go on (with *count cut to stop exactly at the fault point), -1 for
 * a read that fails; 1 when fd is not the target. */
static int fault_before(int fd, size_t *count)
{
    const char *mode = getenv("KSUM_FAULT_MODE");
    size_t after = strtoull(getenv("KSUM_FAULT_AFTER") ? getenv("KSUM_FAULT_AFTER") : "0",
                            NULL, 10);

    if (mode == NULL || !is_target(fd))
        return 1;
    if (done[fd] >= after) {
        if (strcmp(mode, "eio") == 0) {
            errno = EIO;
            return -1;
        }
        if (!fired[fd]) {
            fired[fd] = 1;
            change_file(mode, getenv("KSUM_FAULT_PATH"), after);
        }
    } else if (*count > after - done[fd]) {
        *count = after - done[fd];
    }
    return 0;
}

ssize_t read(int fd, void *buf, size_t count)
{
    static ssize_t (*real_read)(int, void *, size_t);
    int fault;
    ssize_t n;

    if (real_read == NULL)
        real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    if ((fault = fault_before(fd, &count)) < 0)
        return -1;
    n = real_read(fd, buf, count);
    if (fault == 0 && n > 0)
        done[fd] += (size_t)n;
    return n;
}

ssize_t pread(int fd, void *buf, size_t count, off_t off)
{
    static ssize_t (*real_pread)(int, void *, size_t, off_t);
    int fault;
    ssize_t n;

    if (real_pread == NULL)
        real_pread = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    if ((fault = fault_before(fd, &count)) < 0)
        return -1;
    n = real_pread(fd, buf, count, off);
    if (fault == 0 && n > 0)
        done[fd] += (size_t)n;
    return n;
}
