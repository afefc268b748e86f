/* SPDX-License-Identifier: Apache-2.0 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* mremap */
#endif
#include "base/bigmem.h"

#include <stdint.h>
#include <sys/mman.h>

#define HUGE_STEP ((size_t)2 << 20)

size_t big_length(size_t size)
{
    return size == 0 || size > SIZE_MAX - 2 * HUGE_STEP
               ? 0 : (size + HUGE_STEP - 1) / HUGE_STEP * HUGE_STEP;
}

static void offer_huge_pages(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    /* a hint; refused where the kernel has no transparent huge pages */
    (void)madvise(p, len, MADV_HUGEPAGE);
#else
    (void)p, (void)len;
#endif
}

static void *map(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

void *big_alloc(size_t size, size_t *mapped)
{
    size_t len = big_length(size);
    uint8_t *p, *at;

    if (len == 0)
        return NULL;
    /* a step more, and the ends cut off, for a 2 MiB boundary; without
     * room for that step (ulimit -v), wherever the kernel puts it */
    if ((p = map(len + HUGE_STEP)) != NULL) {
        at = (uint8_t *)(((uintptr_t)p + HUGE_STEP - 1) & ~(uintptr_t)(HUGE_STEP - 1));
        if (at > p)
            munmap(p, (size_t)(at - p));
        if (at + len < p + len + HUGE_STEP)
            munmap(at + len, (size_t)(p + len + HUGE_STEP - (at + len)));
        p = at;
    } else if ((p = map(len)) == NULL) {
        return NULL;
    }
    offer_huge_pages(p, len);
    *mapped = len;
    return p;
}

void *big_grow(void *p, size_t *mapped, size_t size)
{
    size_t len = big_length(size);
    void *q;

    if (len <= *mapped)
        return len == 0 ? NULL : p;
    if ((q = mremap(p, *mapped, len, MREMAP_MAYMOVE)) == MAP_FAILED)
        return NULL;
    offer_huge_pages(q, len);
    *mapped = len;
    return q;
}

void big_free(void *p, size_t mapped)
{
    if (p != NULL)
        munmap(p, mapped);
}
