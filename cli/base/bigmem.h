/* SPDX-License-Identifier: Apache-2.0 */
/* Buffers of megabytes, mapped in 2 MiB steps and offered transparent
 * huge pages: on the machines measured a fresh 4 KiB page costs a fault of
 * a few microseconds, and --combine fills 4 MiB of CVs for a gigabyte in a
 * few milliseconds.  Where the system gives no huge pages this is an
 * ordinary mapping.  (Measured there too: a huge page's first touch in a
 * virtual machine can stall for milliseconds, so buffers reused from file
 * to file, which fault once, are left to malloc.) */
#ifndef KSUM_CLI_BIGMEM_H
#define KSUM_CLI_BIGMEM_H

#include <stddef.h>

/* At least size bytes, zeroed; *mapped gets the length to give big_free.
 * NULL when the mapping fails. */
void *big_alloc(size_t size, size_t *mapped);
void big_free(void *p, size_t mapped);

#endif
