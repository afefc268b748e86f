/* SPDX-License-Identifier: Apache-2.0 */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "encoding.h"
#include "ksumprov.h"
#include "messages.h"

#define MAX_KEY_FILE ((off_t)1 << 20)

enum {
    OPT_TAG = 256, OPT_QUIET, OPT_STATUS, OPT_STRICT, OPT_IGNORE_MISSING,
    OPT_KEY_FILE, OPT_DOMAIN, OPT_THREADS, OPT_HELP,
    OPT_FORM_BASE = 400,     /* the output forms' block */
    OPT_ALGORITHM_BASE = 500
};

/* For secrets: what was wrong, never the value. */
static int bad_secret(const char *what, const char *why)
{
    fprintf(message_stream(), "ksum: invalid %s: %s\n", what, why);
    usage_hint();
    return 0;
}

/* A decimal count in [min, max]. */
static int parse_count(const char *what, const char *s, size_t min, size_t max,
                       size_t *out)
{
    char *end;
    unsigned long long v;

    if (!isdigit((unsigned char)*s))
        return bad_value(what, s, "not a positive decimal number");
    errno = 0;
    v = strtoull(s, &end, 10);
    if (*end != '\0')
        return bad_value(what, s, "not a positive decimal number");
    if (errno == ERANGE || v > max || v < min) {
        char range[80];
        if (v < min)
            snprintf(range, sizeof range, "must be at least %zu", min);
        else
            snprintf(range, sizeof range, "too large (at most %zu)", max);
        return bad_value(what, s, range);
    }
    *out = (size_t)v;
    return 1;
}

static void forget_key(options *o)
{
    OPENSSL_clear_free(o->key, o->key_len);
    o->key = NULL;
    o->key_len = 0;
}

static int parse_key(options *o, const char *s)
{
    size_t n = strlen(s);

    forget_key(o);
    o->key_option = "--key";
    if (n % 2 != 0)
        return bad_secret("key", "odd number of hex digits (the key is not shown)");
    if ((o->key = OPENSSL_malloc(n / 2 + 1)) == NULL)
        return bad_secret("key", "out of memory");
    if (!hex_decode(s, n, o->key, &o->key_len)) {
        forget_key(o);
        return bad_secret("key", "not hexadecimal (the key is not shown)");
    }
    return 1;
}

/* "ksum: BEFORE PATH AFTER", the path escaped; returns 0. */
static int key_file_message(const char *before, const char *path, const char *after)
{
    FILE *f = message_stream();

    fprintf(f, "ksum: %s", before);
    print_name(f, path, name_needs_escape(path));
    fprintf(f, "%s\n", after);
    return 0;
}

static int key_file_error(const char *path, int err)
{
    char why[256];

    snprintf(why, sizeof why, ": %s", strerror(err));
    return key_file_message("--key-file: ", path, why);
}

/* Raw key bytes, so a key need not appear in ps or shell history.  Messages
 * name the file, never what it holds. */
static int read_key_file(options *o, const char *path)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    ssize_t n = 0;

    forget_key(o);
    o->key_option = "--key-file";
    if (fd < 0 || fstat(fd, &st) != 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        return key_file_error(path, err);
    }
    if (S_ISREG(st.st_mode) && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        key_file_message("WARNING: key file ", path, " is accessible by others");
    if ((o->key = OPENSSL_malloc(MAX_KEY_FILE + 1)) != NULL)
        while ((n = read(fd, o->key + o->key_len, MAX_KEY_FILE + 1 - o->key_len)) > 0)
            o->key_len += (size_t)n;
    if (o->key == NULL || n < 0) {
        int err = o->key == NULL ? ENOMEM : errno;
        close(fd);
        return key_file_error(path, err);
    }
    close(fd);
    if (o->key_len > (size_t)MAX_KEY_FILE)
        return key_file_message("--key-file: ", path, ": key file larger than 1 MiB");
    return 1;
}

/* Decimal, or hexadecimal after 0x; leading zeros are decimal (010 is
 * ten), not octal. */
static int parse_domain(options *o, const char *s)
{
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *digits = hex ? s + 2 : s;
    unsigned long v = 0;
    size_t n = 0;

    for (; digits[n] != '\0'; n++) {
        int d = hex ? hex_value(digits[n]) : isdigit((unsigned char)digits[n])
                                                 ? digits[n] - '0' : -1;
        if (d < 0)
            return bad_value("domain byte", s, "not a number (decimal, or "
                             "hexadecimal after 0x, e.g. 0x1F)");
        v = v * (hex ? 16 : 10) + (unsigned long)d;
        if (v > 0xFF)
            v = 0x100;  /* out of range already, and no overflow */
    }
    if (n == 0)
        return bad_value("domain byte", s, "not a number (decimal, or hexadecimal "
                         "after 0x, e.g. 0x1F)");
    if (v > 0xFF)
        return bad_value("domain byte", s, "not a byte");
    o->domain = (unsigned)v;    /* its range is the provider's to judge */
    o->domain_text = s;
    return 1;
}

/* ---- One object in parts (issue 20): --part, --part-range, --combine;
 * parts.c does what they ask. ---- */

enum { OPT_PART = 2100, OPT_PART_RANGE, OPT_COMBINE };

static const struct option parts_long_options[] = {
    {"part", required_argument, NULL, OPT_PART},
    {"part-range", required_argument, NULL, OPT_PART_RANGE},
    {"combine", no_argument, NULL, OPT_COMBINE},
};

static int parts_parse_option(options *o, int c, const char *arg)
{
    switch (c) {
    case OPT_PART: o->part_share = arg; return 1;
    case OPT_PART_RANGE: o->part_range = arg; return 1;
    case OPT_COMBINE: o->combine = 1; return 1;
    default: return -1;
    }
}

/* An algorithm group's switches, wrapped to 79 columns. */
static const algorithm *print_switches(const algorithm *a, const algorithm *end)
{
    const char *group = a->group;
    int column = printf("  %s:", group);

    for (; a < end && strcmp(a->group, group) == 0; a++) {
        int width = (int)strlen(a->option) + 3 +
                    (a->alias != NULL ? (int)strlen(a->alias) + 3 : 0);
        if (column + width > 79)
            column = printf("\n     ");
        column += printf(" --%s", a->option);
        if (a->alias != NULL)
            column += printf(" --%s", a->alias);
    }
    putchar('\n');
    return a;
}

/* The common options on one screen; every option is in ksum(1). */
static void print_help(void)
{
    const algorithm *end = algorithms + algorithm_count;

    printf("Usage: ksum [OPTION]... [FILE]...\n"
           "Print or check checksums of the Keccak family, through OpenSSL's EVP and\n"
           "the ksumprov provider (SHA3-256 by default).  With no FILE, or when FILE\n"
           "is -, read standard input.\n\nAlgorithms:\n");
    for (const algorithm *a = algorithms; a < end;)
        a = print_switches(a, end);
    printf("\nCommon options:\n"
           "  -a, --algorithm=NAME[,NAME]  any name the provider knows; several: one\n"
           "                            read, one tagged line each\n"
           "  -n, --output-size=BYTES   output length of the variable-length algorithms\n"
           "  -l, --length=BITS         the same in bits, as cksum (b3sum's -l counts bytes)\n"
           "  -x, --xof                 XOF mode (KMAC, ParallelHash, TupleHash)\n"
           "  -k, --key=HEX, --key-file=FILE   KMAC key\n"
           "  -C, --customization=STR   customization string\n"
           "      --tag                 BSD-style lines: ALGO (NAME) = HEX\n"
           "      --base64              digests in base64\n"
           "  -r, --recursive           the regular files under each directory FILE\n"
           "  -c, --check               read checksums from the FILEs and check them;\n"
           "                            with a key, only at the length of -n/-l or the\n"
           "                            default, and every line must verify\n"
           "  -w, --warn, --strict, --quiet, --status, --ignore-missing  as sha256sum -c\n"
           "      --threads=N           worker threads (0, the default: every CPU)\n"
           "      --part=K/N, --combine  KT128/KT256/M14 in parts (docs/parts.md)\n"
           "  -h, --help                display this help and exit\n"
           "  -V, -v, --version         output version information and exit\n"
           "\nThe other options (--function, --block-size, --domain, --binary, --text,\n"
           "--zero, --untagged, --raw, --no-names, --dereference, --files-from,\n"
           "--progress, --part-range), the check-mode rules and the environment\n"
           "(KSUM_SIMD, KSUM_BATCH): man ksum, or docs/cli.md.\n"
           "Exit status: 0 if every file was hashed or verified, 1 otherwise.\n");
}

static void print_version(void)
{
    printf("ksum (ksumprov) %s\nOpenSSL %s\n", KSUM_VERSION,
           OpenSSL_version(OPENSSL_VERSION_STRING));
}

/* ---- Output forms as cksum and b3sum have them (issue 12): --base64,
 * --raw, --untagged, --no-names, -l.  One block, so that it merges. ---- */

enum { OPT_BASE64 = OPT_FORM_BASE, OPT_RAW, OPT_UNTAGGED, OPT_NO_NAMES };

/* getopt_long takes an unambiguous prefix: --raw is exact, so it is never
 * taken for --rawshake128, --rawshake1 is still --rawshake128, and --rawsh
 * is ambiguous, an error. */
static const struct option form_options[] = {
    {"base64", no_argument, NULL, OPT_BASE64},
    {"raw", no_argument, NULL, OPT_RAW},
    {"untagged", no_argument, NULL, OPT_UNTAGGED},
    {"no-names", no_argument, NULL, OPT_NO_NAMES},
    {"length", required_argument, NULL, 'l'},
};
#define FORM_OPTIONS (sizeof form_options / sizeof form_options[0])
#define FORM_SHORT "l:"

/* -l, --length: bits as cksum takes them, a whole number of bytes. */
static int parse_length(options *o, const char *arg)
{
    size_t bits;

    if (!parse_count("length", arg, 0, 8 * KSUM_MAX_OUTPUT_SIZE, &bits))
        return 0;
    if (bits % 8 != 0)
        return bad_value("length", arg, "not a multiple of 8 (it is in bits)");
    if (bits == 0)
        return bad_value("length", arg, "must be at least 8");
    o->length_bits = bits;
    o->given |= TAKES_SIZE;
    o->size_option = "--length";
    return 1;
}

/* The result (1 or 0) of c when it is an option of this block, else -1. */
static int parse_form(options *o, int c, const char *arg)
{
    switch (c) {
    case OPT_BASE64: o->base64 = 1; return 1;
    case OPT_RAW: o->raw = 1; return 1;
    case OPT_UNTAGGED: o->untagged = 1; o->tag = 0; return 1;  /* the last counts */
    case OPT_NO_NAMES: o->no_names = 1; return 1;
    case 'l': return parse_length(o, arg);
    default: return -1;
    }
}

/* ---- directories, name lists, progress (issue 12, items 5 and 6) ---- */

enum { OPT_FILES_FROM = 2000, OPT_PROGRESS };

static const struct option walk_options[] = {
    {"recursive", no_argument, NULL, 'r'},
    {"dereference", no_argument, NULL, 'L'},
    {"files-from", required_argument, NULL, OPT_FILES_FROM},
    {"progress", no_argument, NULL, OPT_PROGRESS},
};

/* 1 when c was one of these (*ok: it parsed), 0 when not. */
static int parse_walk_option(options *o, int c, const char *arg, int *ok)
{
    *ok = 1;
    switch (c) {
    case 'r': o->recursive = 1; return 1;
    case 'L': o->dereference = 1; return 1;
    case OPT_FILES_FROM: o->files_from = arg; return 1;
    case OPT_PROGRESS: o->progress = 1; return 1;
    default: return 0;
    }
}

/* Long options: the fixed ones, then one per algorithm switch. */
static struct option *long_options(void)
{
    static const struct option fixed[] = {
        {"algorithm", required_argument, NULL, 'a'},
        {"output-size", required_argument, NULL, 'n'},
        {"xof", no_argument, NULL, 'x'},
        {"key", required_argument, NULL, 'k'},
        {"key-file", required_argument, NULL, OPT_KEY_FILE},
        {"customization", required_argument, NULL, 'C'},
        {"function", required_argument, NULL, 'f'},
        {"block-size", required_argument, NULL, 'B'},
        {"domain", required_argument, NULL, OPT_DOMAIN},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"binary", no_argument, NULL, 'b'},
        {"text", no_argument, NULL, 't'},
        {"tag", no_argument, NULL, OPT_TAG},
        {"zero", no_argument, NULL, 'z'},
        {"check", no_argument, NULL, 'c'},
        {"ignore-missing", no_argument, NULL, OPT_IGNORE_MISSING},
        {"quiet", no_argument, NULL, OPT_QUIET},
        {"status", no_argument, NULL, OPT_STATUS},
        {"strict", no_argument, NULL, OPT_STRICT},
        {"warn", no_argument, NULL, 'w'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'v'},
    };
    size_t nfixed = sizeof fixed / sizeof fixed[0], n = nfixed + FORM_OPTIONS;
    size_t nwalk = sizeof walk_options / sizeof walk_options[0];
    struct option *all = calloc(n + nwalk + (sizeof parts_long_options / sizeof parts_long_options[0]) + 2 * algorithm_count + 1,
                                sizeof *all);

    if (all == NULL)
        return NULL;
    memcpy(all, fixed, sizeof fixed);
    memcpy(all + nfixed, form_options, sizeof form_options);
    memcpy(all + n, walk_options, sizeof walk_options);
    n += nwalk;
    memcpy(all + n, parts_long_options, sizeof parts_long_options);
    n += (sizeof parts_long_options / sizeof parts_long_options[0]);
    for (size_t i = 0; i < algorithm_count; i++) {
        all[n++] = (struct option){algorithms[i].option, no_argument, NULL,
                                   OPT_ALGORITHM_BASE + (int)i};
        if (algorithms[i].alias != NULL)
            all[n++] = (struct option){algorithms[i].alias, no_argument, NULL,
                                       OPT_ALGORITHM_BASE + (int)i};
    }
    return all;
}

/* A switch, or -a's names, in order; resolved by options_resolve. */
static void choose(options *o, const algorithm *a, const char *names)
{
    o->choices[o->nchoices++] = (algorithm_choice){a, names};
    o->alg_given = 1;
}

const char *option_name(const options *o, unsigned bit)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {
        {TAKES_XOF, "--xof"},
        {TAKES_CUSTOM, "--customization"}, {TAKES_FUNCTION, "--function"},
        {TAKES_BLOCK, "--block-size"}, {TAKES_DOMAIN, "--domain"},
    };

    if (bit == TAKES_KEY)
        return o->key_option;
    if (bit == TAKES_SIZE)
        return o->size_option;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].bit == bit)
            return names[i].name;
    return "?";
}

/* The options of the blocks above; getopt's errors. */
static int parse_other(options *o, int c, const char *arg)
{
    int form = parse_form(o, c, arg), walk_ok;

    if (form >= 0)
        return form;
    if ((form = parts_parse_option(o, c, arg)) >= 0)
        return form;
    if (parse_walk_option(o, c, arg, &walk_ok))
        return walk_ok;
    usage_hint(); /* getopt has printed what was wrong */
    return 0;
}

static int parse_one(options *o, int c, const char *arg)
{
    size_t v;

    switch (c) {
    case 'a': choose(o, NULL, arg); return 1;
    case 'n':
        o->given |= TAKES_SIZE;
        o->size_option = "--output-size";
        return parse_count("output size", arg, 1, KSUM_MAX_OUTPUT_SIZE, &o->size);
    case 'x': o->given |= TAKES_XOF; o->xof = 1; return 1;
    case 'k': o->given |= TAKES_KEY; return parse_key(o, arg);
    case OPT_KEY_FILE: o->given |= TAKES_KEY; return read_key_file(o, arg);
    case 'C': o->given |= TAKES_CUSTOM; o->custom = arg; return 1;
    case 'f': o->given |= TAKES_FUNCTION; o->function = arg; return 1;
    case 'B':
        o->given |= TAKES_BLOCK;
        o->block_text = arg;
        return parse_count("block size", arg, 1, SIZE_MAX / 8, &o->block_size);
    case OPT_DOMAIN: o->given |= TAKES_DOMAIN; return parse_domain(o, arg);
    case OPT_THREADS:
        /* 0, as the provider's threads parameter: every CPU */
        if (!parse_count("thread count", arg, 0, KSUMPROV_MAX_THREADS, &v))
            return 0;
        o->threads = (unsigned)v;
        return 1;
    case 'b': o->binary = 1; return 1;
    case 't': o->binary = 0; o->text_given = 1; return 1;
    case OPT_TAG: o->tag = 1; o->untagged = 0; return 1;
    case 'z': o->zero = 1; return 1;
    case 'c': o->check = 1; return 1;
    case OPT_IGNORE_MISSING: o->ignore_missing = 1; return 1;
    case OPT_QUIET: o->quiet = 1; return 1;
    case OPT_STATUS: o->status = 1; return 1;
    case OPT_STRICT: o->strict = 1; return 1;
    case 'w': o->warn = 1; return 1;
    case 'h': print_help(); exit(output_close() ? 0 : 1);
    case 'v':
    case 'V': print_version(); exit(output_close() ? 0 : 1);
    default:
        if (c >= OPT_ALGORITHM_BASE && c < OPT_ALGORITHM_BASE + (int)algorithm_count) {
            choose(o, &algorithms[c - OPT_ALGORITHM_BASE], NULL);
            return 1;
        }
        return parse_other(o, c, arg);
    }
}

int options_parse(options *o, int argc, char **argv)
{
    static char *stdin_only[] = {"-", NULL};
    struct option *longs = long_options();
    int c, ok = 1;

    memset(o, 0, sizeof *o);
    /* Each option adds at most one choice. */
    o->choices = calloc((size_t)argc + 1, sizeof *o->choices);
    if (longs == NULL || o->choices == NULL) {
        free(longs);
        fprintf(message_stream(), "ksum: out of memory\n");
        return 0;
    }
    while (ok && (c = getopt_long(argc, argv, "a:n:xk:C:f:B:btzcwhvV" FORM_SHORT "rL",
                                  longs, NULL)) != -1)
        ok = parse_one(o, c, optarg);
    free(longs);
    o->operands = optind < argc;
    o->files = o->operands ? argv + optind : stdin_only;
    return ok;
}

void options_free(options *o)
{
    OPENSSL_clear_free(o->key, o->key_len);
    o->key = NULL;
    free(o->choices);
    o->choices = NULL;
}
