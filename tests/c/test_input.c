/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CLI's read buffers (cli/input/files.c, input_buffer_new): a buffer
 * of a MiB or more starts on a 2 MiB boundary and owns whole 2 MiB pages
 * (so that a huge page can back it: one page fault, not 256 a MiB); a
 * smaller one starts on a page; every byte of the size asked for can be
 * written; a size that cannot be rounded up to whole 2 MiB pages is
 * refused, never wrapped round to a small buffer.
 */
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
    free(p);
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
    CHECK(input_buffer_new(SIZE_MAX) == NULL, "SIZE_MAX bytes: a buffer");
    CHECK(input_buffer_new(SIZE_MAX - INPUT_ALIGN + 2) == NULL,
          "a size that wraps when rounded up: a buffer");
    printf("test_input: %d passed, %d failed\n", test_passes, test_failures);
    return test_failures == 0 ? 0 : 1;
}
