/* Reading the files to hash, and reporting why one failed. */
#ifndef KSUM_CLI_FILES_H
#define KSUM_CLI_FILES_H

#include <stdint.h>

#include "hasher.h"

/* Buffers for reading; with read_ahead, a reader thread fills the others
 * while one is hashed. */
#define INPUT_BUFFERS 4
typedef struct input {
    uint8_t *buf[INPUT_BUFFERS];
    size_t size;
    int read_ahead;
} input;

/* Big reads, so that tree modes see many whole chunks per update. */
#define INPUT_SIZE ((size_t)1 << 20)
#define INPUT_SIZE_READ_AHEAD ((size_t)4 << 20)

int input_init(input *in, int read_ahead);
void input_free(input *in);

/* Hashes the file at path ("-" is standard input) into sum.  Returns 0, or
 * the errno value that stopped it (-1: the hash itself failed). */
int hash_path(hasher *h, const char *path, input *in, uint8_t *sum);

/* "ksum: NAME: reason" on stderr. */
void report_error(const char *name, int err);

#endif
