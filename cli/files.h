/* Opening and reading the files to hash, and reporting why one failed. */
#ifndef KSUM_CLI_FILES_H
#define KSUM_CLI_FILES_H

#include <stdint.h>

#include "hasher.h"

#define READ_BUFFER_SIZE ((size_t)1 << 20) /* big reads: whole K12 chunks */

/* Hashes the file at path ("-" is standard input) into sum.  Returns 0, or
 * the errno value that stopped it (-1: the hash itself failed). */
int hash_path(hasher *h, const char *path, uint8_t *buf, uint8_t *sum);

/* "ksum: NAME: reason" on stderr. */
void report_error(const char *name, int err);

#endif
