/* SPDX-License-Identifier: Apache-2.0 */
/* The option table, and what each option does with its argument. */
#include "front/options.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/encoding.h"
#include "base/messages.h"
#include "ksumprov.h"

#define MAX_KEY_FILE ((off_t)1 << 20)

/* ---- what the options set ---- */

/* A decimal count in [min, max]. */
static int parse_count(const char *what, const char *s, size_t min, size_t max,
                       size_t *out)
{
    char *end;
    unsigned long long v;

    const char *not_number = min == 0 ? "not a decimal number"
                                      : "not a positive decimal number";

    if (!isdigit((unsigned char)*s))
        return bad_value(what, s, not_number);
    errno = 0;
    v = strtoull(s, &end, 10);
    if (*end != '\0')
        return bad_value(what, s, not_number);
    if (v < min)
        return usage_error("invalid %s '%s': must be at least %zu", what, s, min);
    if (errno == ERANGE || v > max)
        return usage_error("invalid %s '%s': too large (at most %zu)", what, s, max);
    *out = (size_t)v;
    return 1;
}

static void forget_key(options *o)
{
    OPENSSL_clear_free(o->key, o->key_len);
    o->key = NULL;
    o->key_len = 0;
}

static int set_key(options *o, const option_row *row, const char *s)
{
    size_t n = strlen(s);

    (void)row;
    forget_key(o);
    if (n % 2 != 0)
        return usage_error("invalid key: odd number of hex digits (the key is not shown)");
    if ((o->key = OPENSSL_malloc(n / 2 + 1)) == NULL)
        return message_fail("out of memory");
    if (!hex_decode(s, n, o->key, &o->key_len)) {
        forget_key(o);
        return usage_error("invalid key: not hexadecimal (the key is not shown)");
    }
    return 1;
}

/* A path inside a message: '' when empty, as report_error shows it. */
static const char *shown(const char *path)
{
    return path[0] == '\0' ? "''" : path;
}

/* The bytes of the key file open at fd into o->key, at most one more
 * than MAX_KEY_FILE; 0, or the errno of what failed. */
static int read_key_file(options *o, int fd, const char *path)
{
    struct stat st;
    ssize_t n;

    if (fstat(fd, &st) != 0)
        return errno;
    if (S_ISREG(st.st_mode) && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        message_fail("WARNING: key file %s is accessible by others", shown(path));
    if ((o->key = OPENSSL_malloc(MAX_KEY_FILE + 1)) == NULL)
        return ENOMEM;
    while ((n = read(fd, o->key + o->key_len, MAX_KEY_FILE + 1 - o->key_len)) > 0)
        o->key_len += (size_t)n;
    return n < 0 ? errno : 0;
}

/* Raw key bytes, so a key need not appear in ps or shell history.  Messages
 * name the file, never what it holds. */
static int set_key_file(options *o, const option_row *row, const char *path)
{
    int fd, err;

    (void)row;
    forget_key(o);
    /* Not standard input: it may be the data as well (no FILE, a FILE -, a
     * check list), which would then be hashed empty, or the key be data. */
    if (strcmp(path, "-") == 0)
        return message_fail("--key-file: -: standard input is not read for a key; "
                            "name a file (/dev/stdin when the data is in files)");
    fd = open(path, O_RDONLY);
    err = fd < 0 ? errno : read_key_file(o, fd, path);
    if (fd >= 0)
        close(fd);
    if (err != 0)
        return message_fail("--key-file: %s: %s", shown(path), strerror(err));
    if (o->key_len > (size_t)MAX_KEY_FILE)
        return message_fail("--key-file: %s: key file larger than 1 MiB", shown(path));
    return 1;
}

/* A byte: decimal, or hexadecimal after 0x; leading zeros are decimal (010
 * is ten), not octal. */
static int parse_byte(const char *what, const char *s, size_t *out)
{
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *digits = hex ? s + 2 : s;
    size_t n = strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789");
    unsigned long v;

    if (n == 0 || digits[n] != '\0')
        return bad_value(what, s, "not a number (decimal, or hexadecimal after 0x, e.g. 0x1F)");
    errno = 0;
    v = strtoul(digits, NULL, hex ? 16 : 10);
    if (errno == ERANGE || v > 0xFF)
        return bad_value(what, s, "not a byte");
    *out = v;    /* its range is the provider's to judge */
    return 1;
}

/* -l, --length: bits as cksum takes them.  A number is required at once;
 * whether it is a whole number of bytes is judged after parsing, so that a
 * later -l replaces an earlier one, as in cksum and b2sum. */
static int set_length(options *o, const option_row *row, const char *arg)
{
    (void)row;
    if (!parse_count("length", arg, 0, 8 * KSUM_MAX_OUTPUT_SIZE, &o->length_bits))
        return 0;
    o->length_arg = arg;
    return 1;
}

/* What a row without a setter does: an int of options set to 1, or a
 * string to the argument. */
static int set_field(options *o, const option_row *row, const char *arg)
{
    if (row->arg != NULL)
        *(const char **)((char *)o + row->field) = arg;
    else
        *(int *)((char *)o + row->field) = 1;
    return 1;
}

/* A switch, or -a's names, in order; resolved by options_resolve.  It
 * returns 1, as a setter does. */
static int choose(options *o, const algorithm *a, const char *names)
{
    o->choices[o->nchoices++] = (algorithm_choice){a, names};
    return 1;
}

static int set_algorithms(options *o, const option_row *row, const char *arg)
{
    (void)row;
    return choose(o, NULL, arg);
}

static int set_output_size(options *o, const option_row *row, const char *arg)
{
    (void)row;
    return parse_count("output size", arg, 1, KSUM_MAX_OUTPUT_SIZE, &o->size);
}

static int set_threads(options *o, const option_row *row, const char *arg)
{
    (void)row;
    /* 0, as the provider's threads parameter: every CPU */
    return parse_count("thread count", arg, 0, KSUMPROV_MAX_THREADS, &o->threads);
}

/* -t undoes -b: the last counts (text_given, the row's field, is only to
 * refuse -t with --check). */
static int set_text_mode(options *o, const option_row *row, const char *arg)
{
    o->binary = 0;
    o->text_after_tag = o->tag;
    return set_field(o, row, arg);
}

/* --tag and --untagged undo each other: the last counts. */
static int set_form(options *o, const option_row *row, const char *arg)
{
    o->tag = 0;
    o->untagged = 0;
    o->text_after_tag = 0;
    return set_field(o, row, arg);
}

/* --status, --warn and --quiet undo each other: the last counts, as in
 * GNU coreutils. */
static int set_verbosity(options *o, const option_row *row, const char *arg)
{
    if (o->undone == NULL)
        o->undone = o->status ? "--status" : o->quiet ? "--quiet" : NULL;
    o->status = 0;
    o->warn = 0;
    o->quiet = 0;
    return set_field(o, row, arg);
}

/* --exclude, any number of times: the patterns are the argv strings. */
static int add_exclude(options *o, const option_row *row, const char *arg)
{
    (void)row;
    o->excludes[o->nexcludes++] = (char *)arg;
    return 1;
}

/* A parameter option: its value, kept as given for messages; its range
 * is the provider's to judge (resolve.c asks). */
static int set_param(options *o, const option_row *row, const char *arg)
{
    param_value *v = &o->param[TAKES_PARAM_INDEX(row->takes)];

    v->text = arg;
    if (row->type == PARAM_COUNT)
        return parse_count(row->what, arg, 1, SIZE_MAX / 8, &v->number);
    if (row->type == PARAM_BYTE)
        return parse_byte(row->what, arg, &v->number);
    return 1;
}

/* ---- --help, from the rows ---- */

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

/* "-C, --customization=STR": a row's names, and how wide they are. */
static int print_row_names(const option_row *r)
{
    int width = 0;

    for (const char *s = r->shorts; s != NULL && *s != '\0'; s++)
        width += printf("-%c, ", *s);
    width += printf("%s", r->name);
    if (r->arg != NULL)
        width += printf("=%s", r->arg);
    return width;
}

/* The common options, the rows with a text and those beside them, one
 * line each, their texts from column 28, or after two spaces when the
 * names reach further.  Returns the first of the other options. */
static const option_row *print_common_options(void)
{
    const option_row *r = option_rows;

    while (r->help != NULL) {
        const char *help = r->help;
        int column = printf("  %s", r->shorts != NULL ? "" : "    ") + print_row_names(r);
        for (r++; r->beside; r++)
            column += printf(", ") + print_row_names(r);
        printf("%*s", column <= 26 ? 28 - column : 2, "");
        for (const char *t = help; *t != '\0'; t++) {
            putchar(*t);
            if (*t == '\n')
                printf("%28s", "");
        }
        putchar('\n');
    }
    return r;
}

/* "The other options (--function, ...), " and after them text, wrapped
 * at 72 columns: the rows from first to the end of the table. */
static void print_other_options(const option_row *first, const char *text)
{
    const option_row *end = option_rows + option_row_count;
    char para[1024] = "The other options";     /* some 400 bytes are used */
    size_t n = strlen(para);
    int column = 0;

    /* n stops short of the end, so that a longer paragraph is cut, not
     * written past para */
    for (const option_row *r = first; r < end && n < sizeof para; r++)
        n += (size_t)snprintf(para + n, sizeof para - n, " %s%s%s", r == first ? "(" : "",
                              r->name, r + 1 == end ? ")," : ",");
    if (n < sizeof para)
        snprintf(para + n, sizeof para - n, " %s", text);
    for (const char *w = para; *w != '\0'; w += strspn(w, " ")) {
        int len = (int)strcspn(w, " ");
        if (column > 0 && column + 1 + len > 72) {
            putchar('\n');
            column = 0;
        } else if (column > 0) {
            column += printf(" ");
        }
        column += printf("%.*s", len, w);
        w += len;
    }
    putchar('\n');
}

/* The common options on one screen; every option is in ksum(1).  --help
 * prints and exits at once: what follows is not parsed. */
static int show_help(options *o, const option_row *row, const char *arg)
{
    const algorithm *end = algorithms + algorithm_count;
    const option_row *others;

    (void)o, (void)row, (void)arg;
    printf("Usage: ksum [OPTION]... [FILE]...\n"
           "Print or check checksums of the Keccak family, through OpenSSL's EVP and\n"
           "the ksumprov provider (SHA3-256 by default).  With no FILE, or when FILE\n"
           "is -, read standard input.\n\nAlgorithms:\n");
    for (const algorithm *a = algorithms; a < end;)
        a = print_switches(a, end);
    printf("\nCommon options:\n");
    others = print_common_options();
    putchar('\n');
    print_other_options(others, "the check-mode rules and the environment (KSUM_SIMD, "
                                "KSUM_BATCH): man ksum, and the documents in /usr/share/doc/ksum.");
    printf("Exit status: 0 if every file was hashed or verified, 1 otherwise.\n");
    exit(output_close() ? 0 : 1);
}

/* ---- the table ---- */

#define FIELD(f) offsetof(options, f)

/* In --help's order: the common options, each row with a text starting a
 * line and the rows beside it following; then the other options, in the
 * order that names them.  It is getopt_long's order too, which lists the
 * candidates of an ambiguous abbreviation in it.  A row without a setter
 * sets its field: an int to 1, or a string to the argument. */
const option_row option_rows[] = {
    {.name = "--algorithm", .shorts = "a", .arg = "NAME[,NAME]", .set = set_algorithms,
     .help = "any name the provider knows; several: one\nread, one tagged line each"},
    {.name = "--output-size", .shorts = "n", .arg = "BYTES", .set = set_output_size,
     .takes = TAKES_SIZE, .help = "output length of the variable-length algorithms"},
    {.name = "--length", .shorts = "l", .arg = "BITS", .set = set_length, .takes = TAKES_SIZE,
     .help = "the same in bits, as cksum (b3sum's -l counts bytes)"},
    {.name = "--xof", .shorts = "x", .field = FIELD(xof), .takes = TAKES_XOF,
     .help = "XOF mode (KMAC, ParallelHash, TupleHash)"},
    /* three spaces before the text: --help has always had them */
    {.name = "--key", .shorts = "k", .arg = "HEX", .set = set_key, .takes = TAKES_KEY,
     .help = " KMAC key"},
    {.name = "--key-file", .arg = "FILE", .set = set_key_file, .takes = TAKES_KEY, .beside = 1},
    {.name = "--customization", .shorts = "C", .arg = "STR", .set = set_param,
     .takes = TAKES_PARAM(0), .param = KSUM_PARAM_CUSTOM, .type = PARAM_TEXT,
     .what = "customization", .help = "customization string"},
    {.name = "--tag", .set = set_form, .field = FIELD(tag),
     .help = "BSD-style lines: ALGO (NAME) = HEX"},
    {.name = "--base64", .field = FIELD(base64), .help = "digests in base64"},
    {.name = "--recursive", .shorts = "r", .field = FIELD(recursive),
     .help = "the regular files under each directory FILE"},
    {.name = "--check", .shorts = "c", .field = FIELD(check),
     .help = "read checksums from the FILEs and check them;\nwith a key, only at the length "
             "of -n/-l or the\ndefault, and every line must verify"},
    {.name = "--warn", .shorts = "w", .set = set_verbosity, .field = FIELD(warn),
     .help = "as sha256sum -c"},
    {.name = "--strict", .field = FIELD(strict), .beside = 1},
    {.name = "--quiet", .set = set_verbosity, .field = FIELD(quiet), .beside = 1},
    {.name = "--status", .set = set_verbosity, .field = FIELD(status), .beside = 1},
    {.name = "--ignore-missing", .field = FIELD(ignore_missing), .beside = 1},
    /* sent to the algorithms that take it (TAKES_THREADS), refused by none */
    {.name = "--threads", .arg = "N", .set = set_threads,
     .help = "worker threads (0, the default: every CPU)"},
    /* One object in parts: parts.c does what they ask. */
    {.name = "--part", .arg = "K/N", .field = FIELD(part_share),
     .help = "KT128/KT256/M14 in parts (man ksum)"},
    {.name = "--combine", .field = FIELD(combine), .beside = 1},
    {.name = "--help", .shorts = "h", .set = show_help, .help = "display this help and exit"},
    /* It ends the parsing too; main prints it once the provider is loaded,
     * since it names the kernel the provider chose. */
    {.name = "--version", .shorts = "Vv", .field = FIELD(version),
     .help = "output version information and exit"},
    {.name = "--function", .shorts = "f", .arg = "NAME", .set = set_param,
     .takes = TAKES_PARAM(1), .param = KSUM_PARAM_FUNCTION_NAME, .type = PARAM_TEXT,
     .what = "function name"},
    {.name = "--block-size", .shorts = "B", .arg = "BYTES", .set = set_param,
     .takes = TAKES_PARAM(2), .param = KSUM_PARAM_BLOCK_SIZE, .type = PARAM_COUNT,
     .what = "block size"},
    {.name = "--domain", .arg = "BYTE", .set = set_param, .takes = TAKES_PARAM(3),
     .param = KSUM_PARAM_DOMAIN, .type = PARAM_BYTE, .what = "domain byte"},
    {.name = "--binary", .shorts = "b", .field = FIELD(binary)},
    {.name = "--text", .shorts = "t", .set = set_text_mode, .field = FIELD(text_given)},
    {.name = "--zero", .shorts = "z", .field = FIELD(zero)},
    /* Output forms as cksum and b3sum have them.  An unambiguous prefix is
     * taken: --raw is exact, so it is never taken for --rawshake128,
     * --rawshake1 is still --rawshake128, and --rawsh is ambiguous, an
     * error. */
    {.name = "--untagged", .set = set_form, .field = FIELD(untagged)},
    {.name = "--raw", .field = FIELD(raw)},
    {.name = "--no-names", .field = FIELD(no_names)},
    /* Directories, name lists, progress. */
    {.name = "--dereference", .shorts = "L", .field = FIELD(dereference)},
    {.name = "--files-from", .arg = "FILE", .field = FIELD(files_from)},
    {.name = "--progress", .field = FIELD(progress)},
    {.name = "--part-range", .arg = "START:LEN", .field = FIELD(part_range)},
    /* One digest of a directory tree (docs/tree.md). */
    {.name = "--tree", .field = FIELD(tree)},
    {.name = "--exclude", .arg = "PATTERN", .set = add_exclude},
    {.name = "--manifest", .field = FIELD(manifest)},
};
#define ROWS (sizeof option_rows / sizeof option_rows[0])
const size_t option_row_count = ROWS;

/* getopt_long's values: a row's, then an algorithm switch's. */
#define ROW_VALUE(i) (256 + (int)(i))
#define SWITCH_VALUE(i) ROW_VALUE(option_row_count + (i))

/* ---- parsing ---- */

/* getopt_long's table: the rows, then one per algorithm switch (at most
 * OPTIONS_ALGS_MAX, each with at most an alias); and getopt's short
 * options, "a:n:x...", a row having at most two. */
static void getopt_tables(struct option longs[ROWS + 2 * OPTIONS_ALGS_MAX + 1],
                          char shorts[4 * ROWS + 1])
{
    size_t n = 0;

    for (size_t i = 0; i < ROWS; i++) {
        longs[n++] = (struct option){option_rows[i].name + 2,
                                     option_rows[i].arg ? required_argument : no_argument,
                                     NULL, ROW_VALUE(i)};
        for (const char *s = option_rows[i].shorts; s != NULL && *s != '\0'; s++) {
            *shorts++ = *s;
            if (option_rows[i].arg != NULL)
                *shorts++ = ':';
        }
    }
    *shorts = '\0';
    for (size_t i = 0; i < algorithm_count; i++) {
        longs[n++] = (struct option){algorithms[i].option, no_argument, NULL, SWITCH_VALUE(i)};
        if (algorithms[i].alias != NULL)
            longs[n++] = (struct option){algorithms[i].alias, no_argument, NULL,
                                         SWITCH_VALUE(i)};
    }
    longs[n] = (struct option){NULL, 0, NULL, 0};
}

/* The row of what getopt_long returned, or NULL. */
static const option_row *row_of(int c)
{
    if (c >= ROW_VALUE(0) && c < ROW_VALUE(option_row_count))
        return &option_rows[c - ROW_VALUE(0)];
    for (size_t i = 0; c > 0 && c < 256 && i < option_row_count; i++)
        if (option_rows[i].shorts != NULL && strchr(option_rows[i].shorts, c) != NULL)
            return &option_rows[i];
    return NULL;
}

const char *option_name(const options *o, unsigned bit)
{
    return o->given_as[__builtin_ctz(bit)]->name;
}

static int parse_one(options *o, int c, const char *arg)
{
    const option_row *row = row_of(c);

    if (row != NULL) {
        if (row->takes != 0) {
            o->given |= row->takes;
            o->given_as[__builtin_ctz(row->takes)] = row;
        }
        return row->set != NULL ? row->set(o, row, arg) : set_field(o, row, arg);
    }
    if (c >= SWITCH_VALUE(0) && c < SWITCH_VALUE(algorithm_count))
        return choose(o, &algorithms[c - SWITCH_VALUE(0)], NULL);
    usage_hint(); /* getopt has printed what was wrong */
    return 0;
}

int options_parse(options *o, int argc, char **argv)
{
    static char *stdin_only[] = {"-", NULL};
    struct option longs[ROWS + 2 * OPTIONS_ALGS_MAX + 1];
    char shorts[4 * ROWS + 1];
    int c, ok = 1;

    memset(o, 0, sizeof *o);
    /* Each option adds at most one choice or exclude. */
    o->choices = calloc((size_t)argc + 1, sizeof *o->choices);
    o->excludes = calloc((size_t)argc + 1, sizeof *o->excludes);
    if (o->choices == NULL || o->excludes == NULL)
        return message_fail("out of memory");
    getopt_tables(longs, shorts);
    while (ok && !o->version && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1)
        ok = parse_one(o, c, optarg);
    o->operands = optind < argc;
    o->files = o->operands ? argv + optind : stdin_only;
    return ok;
}

void options_free(options *o)
{
    forget_key(o);
    free(o->choices);
    o->choices = NULL;
    free(o->excludes);
    o->excludes = NULL;
}
