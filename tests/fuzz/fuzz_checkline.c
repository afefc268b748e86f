/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The check-file line parser on arbitrary bytes: every accepted format,
 * escapes, CRLF, garbage, NUL bytes, huge lines.  It must never read or
 * write outside the line, and what it accepts must be well formed.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy, so that ASan sees any read past the line. */
    char *line = malloc(size + 1);
    check_line l;

    if (line == NULL)
        return 0;
    memcpy(line, data, size);
    line[size] = '\0';
    if (check_parse_line(line, size, &l)) {
        if (l.hex < line || l.hex + l.hex_len > line + size || l.hex_len == 0)
            abort();
        for (size_t i = 0; i < l.hex_len; i++)
            if (!isxdigit((unsigned char)l.hex[i]))
                abort();
        if (l.name < line || l.name + strlen(l.name) > line + size)
            abort();
        if (l.tag != NULL && (l.tag < line || strlen(l.tag) > CHECK_TAG_MAX ||
                              l.tag + strlen(l.tag) > line + size))
            abort();
    }
    free(line);
    return 0;
}
