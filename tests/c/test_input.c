/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CLI's read buffers (cli/input/files.c, input_buffer_new): a buffer
 * of a MiB or more starts on a 2 MiB boundary and owns whole 2 MiB pages
 * (so that a huge page can back it: one page fault, not 256 a MiB); a
 * smaller one starts on a page; every byte of the size asked for can be
 * written; a size that cannot be rounded up to whole 2 MiB pages is
 * refused, never wrapped round to a small buffer; a huge buffer costs its
 * whole pages of address space and no more (ulimit -v: posix_memalign at
 * 2 MiB kept 4 MiB for 2); and bigmem's mapping grows with its contents.
 */
#include <unistd.h>

#include "base/bigmem.h"
#include "input/files.h"
/* CHECK only: testutil itself is not linked (it and the CLI both have a
 * hex_decode). */
#include "testutil.h"

int test_failures, test_passes;

static void one_size(size_t size, size_t align)
{
    uint8_t *p = input_buffer_new(size);

    CHECK(p != NULL, "%zu bytes: no buffer", size);
    if (p == NULL)
        return;
    CHECK((uintptr_t)p % align == 0, "%zu bytes at %p: not on a %zu-byte boundary",
          size, (void *)p, align);
    memset(p, 0xA5, size);      /* ASan sees a write past what was given */
    CHECK(p[size - 1] == 0xA5, "%zu bytes: the last byte not written", size);
    input_buffer_free(p, size);
}

/* The process's address space in bytes (/proc/self/statm), 0 if unknown. */
static size_t address_space(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;

    if (f == NULL)
        return 0;
    if (fscanf(f, "%lu", &pages) != 1)
        pages = 0;
    fclose(f);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

static void address_space_of_a_huge_buffer(void)
{
    size_t before = address_space(), after;
    uint8_t *p = input_buffer_new(INPUT_SIZE);

    after = address_space();
    CHECK(p != NULL, "no buffer");
    /* its whole huge page, less than the 4 MiB of the padded allocation
     * (qemu-user adds its own bookkeeping: 2 MiB and 192 KiB there) */
    if (before != 0 && after != 0)
        CHECK(after - before >= INPUT_ALIGN && after - before < 2 * INPUT_ALIGN,
              "a %zu-byte buffer took %zu bytes of address space", INPUT_SIZE, after - before);
    input_buffer_free(p, INPUT_SIZE);
    CHECK(before == 0 || after - address_space() >= INPUT_ALIGN,
          "the buffer's space not given back");
}

static void mapping_grows_with_its_contents(void)
{
    size_t mapped = 0;
    uint8_t *p = big_alloc((size_t)3 << 20, &mapped), *q;

    CHECK(p != NULL && mapped == (size_t)4 << 20 && (uintptr_t)p % INPUT_ALIGN == 0,
          "3 MiB: %p, %zu bytes mapped", (void *)p, mapped);
    if (p == NULL)
        return;
    for (size_t i = 0; i < mapped; i++)
        p[i] = (uint8_t)(i * 7 + (i >> 12));
    q = big_grow(p, &mapped, (size_t)9 << 20);
    CHECK(q != NULL && mapped == (size_t)10 << 20, "grown to %zu bytes", mapped);
    if (q == NULL) {
        big_free(p, mapped);
        return;
    }
    for (size_t i = 0; i < ((size_t)4 << 20); i++)
        if (q[i] != (uint8_t)(i * 7 + (i >> 12))) {
            CHECK(0, "byte %zu changed when the mapping grew", i);
            break;
        }
    memset(q + ((size_t)4 << 20), 1, mapped - ((size_t)4 << 20));
    CHECK(big_grow(q, &mapped, (size_t)1 << 20) == q && mapped == (size_t)10 << 20,
          "a smaller size moved or shrank the mapping");
    big_free(q, mapped);
}

int main(void)
{
    one_size(1, INPUT_ALIGN_SMALL);
    one_size(65536, INPUT_ALIGN_SMALL);
    one_size(INPUT_HUGE_MIN - 1, INPUT_ALIGN_SMALL);
    one_size(INPUT_HUGE_MIN, INPUT_ALIGN);
    one_size(INPUT_SIZE, INPUT_ALIGN);
    one_size(INPUT_ALIGN + 1, INPUT_ALIGN);
    one_size(INPUT_SIZE_READ_AHEAD, INPUT_ALIGN);
    address_space_of_a_huge_buffer();
    mapping_grows_with_its_contents();
    CHECK(input_buffer_new(SIZE_MAX) == NULL, "SIZE_MAX bytes: a buffer");
    CHECK(input_buffer_new(SIZE_MAX - INPUT_ALIGN + 2) == NULL,
          "a size that wraps when rounded up: a buffer");
    printf("test_input: %d passed, %d failed\n", test_passes, test_failures);
    return test_failures == 0 ? 0 : 1;
}
