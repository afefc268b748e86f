/* SPDX-License-Identifier: Apache-2.0 */
#include "base/bigmem.h"

#include <stdint.h>
#include <sys/mman.h>

#define HUGE_STEP ((size_t)2 << 20)

void *big_alloc(size_t size, size_t *mapped)
{
    size_t len = size > SIZE_MAX - HUGE_STEP ? 0 : (size + HUGE_STEP - 1) / HUGE_STEP * HUGE_STEP;
    void *p = len == 0 ? MAP_FAILED
                       : mmap(NULL, len, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    /* a hint; refused where the kernel has no transparent huge pages */
    (void)madvise(p, len, MADV_HUGEPAGE);
#endif
    *mapped = len;
    return p;
}

void big_free(void *p, size_t mapped)
{
    if (p != NULL)
        munmap(p, mapped);
}
