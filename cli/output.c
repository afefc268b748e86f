/* SPDX-License-Identifier: Apache-2.0 */
#include "output.h"

#include <string.h>

/* Control characters could move the cursor or recolour the terminal when
 * a hostile file name is printed, so they are escaped too. */
static int is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7F;
}

int name_needs_escape(const char *name)
{
    for (; *name; name++)
        if (*name == '\\' || is_control((unsigned char)*name))
            return 1;
    return 0;
}

void print_name(FILE *f, const char *name, int escape)
{
    if (!escape) {
        fputs(name, f);
        return;
    }
    for (; *name; name++) {
        switch (*name) {
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (is_control((unsigned char)*name))
                fprintf(f, "\\x%02x", (unsigned char)*name);
            else
                putc(*name, f);
        }
    }
}

void print_hex(FILE *f, const uint8_t *buf, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    char chunk[4096];
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        chunk[n++] = digits[buf[i] >> 4];
        chunk[n++] = digits[buf[i] & 15];
        if (n == sizeof chunk) {
            fwrite(chunk, 1, n, f);
            n = 0;
        }
    }
    fwrite(chunk, 1, n, f);
}

static int print_sum(const sum_source *sum)
{
    uint8_t chunk[16384];

    if (sum->h == NULL) {
        print_hex(stdout, sum->buf, sum->len);
        return 1;
    }
    for (size_t done = 0; done < sum->len;) {
        size_t take = sum->len - done < sizeof chunk ? sum->len - done : sizeof chunk;
        if (!hasher_squeeze(sum->h, chunk, take))
            return 0;
        print_hex(stdout, chunk, take);
        done += take;
    }
    return 1;
}

int print_sum_line(const options *o, const algorithm *alg, const char *name,
                   const sum_source *sum)
{
    int escape = !o->zero && name_needs_escape(name), ok;

    if (escape)
        putchar('\\');
    if (o->tag) {
        printf("%s (", alg->name);
        print_name(stdout, name, escape);
        fputs(") = ", stdout);
        ok = print_sum(sum);
    } else {
        ok = print_sum(sum);
        fputs(o->binary ? " *" : "  ", stdout);
        print_name(stdout, name, escape);
    }
    putchar(o->zero ? '\0' : '\n');
    return ok;
}
