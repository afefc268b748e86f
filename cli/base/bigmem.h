/* SPDX-License-Identifier: Apache-2.0 */
/* Buffers of megabytes, mapped in whole 2 MiB steps on 2 MiB boundaries
 * and offered transparent huge pages: a fresh 4 KiB page costs a fault of
 * microseconds, dear in a virtual machine, and the read buffers and
 * --combine's CVs fill megabytes in milliseconds.  Where the system gives no huge pages this is an
 * ordinary mapping.  A mapping costs its own length of address space and
 * no more (ulimit -v), unlike posix_memalign's, which keeps the alignment's
 * room too. */
#ifndef KSUM_CLI_BIGMEM_H
#define KSUM_CLI_BIGMEM_H

#include <stddef.h>

/* The length big_alloc maps for size bytes: whole 2 MiB steps; 0 when
 * size is 0 or cannot be rounded up. */
size_t big_length(size_t size);
/* At least size bytes, zeroed; *mapped gets the length to give big_free.
 * NULL when the mapping fails. */
void *big_alloc(size_t size, size_t *mapped);
/* p's mapping of *mapped bytes grown to at least size bytes, its contents
 * kept (moved, not copied); *mapped gets the new length.  NULL when it
 * cannot grow: p is then as it was. */
void *big_grow(void *p, size_t *mapped, size_t size);
void big_free(void *p, size_t mapped);

#endif
