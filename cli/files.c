#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int hash_path(hasher *h, const char *path, uint8_t *buf, uint8_t *sum)
{
    int stdin_file = strcmp(path, "-") == 0;
    int fd = stdin_file ? STDIN_FILENO : open(path, O_RDONLY | O_NOCTTY);
    int err;

    if (fd < 0)
        return errno;
    err = hasher_fd(h, fd, buf, READ_BUFFER_SIZE, sum);
    if (!stdin_file)
        close(fd);
    return err;
}

void report_error(const char *name, int err)
{
    if (err < 0) {
        fprintf(stderr, "ksum: %s: hashing failed: ", name);
        ERR_print_errors_fp(stderr);
        fputc('\n', stderr);
        return;
    }
    fprintf(stderr, "ksum: %s: %s\n", name, strerror(err));
}
