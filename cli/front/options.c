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
        return usage_error("invalid key: out of memory");
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

static int key_file_error(const char *path, int err)
{
    return message_fail("--key-file: %s: %s", shown(path), strerror(err));
}

/* Raw key bytes, so a key need not appear in ps or shell history.  Messages
 * name the file, never what it holds. */
static int set_key_file(options *o, const option_row *row, const char *path)
{
    int fd;
    struct stat st;
    ssize_t n = 0;

    (void)row;
    forget_key(o);
    /* Not standard input: it may be the data as well (no FILE, a FILE -, a
     * check list), which would then be hashed empty, or the key be data. */
    if (strcmp(path, "-") == 0)
        return message_fail("--key-file: -: standard input is not read for a key; "
                            "name a file (/dev/stdin when the data is in files)");
    fd = open(path, O_RDONLY);
    if (fd < 0 || fstat(fd, &st) != 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        return key_file_error(path, err);
    }
    if (S_ISREG(st.st_mode) && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        message_fail("WARNING: key file %s is accessible by others", shown(path));
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
        return message_fail("--key-file: %s: key file larger than 1 MiB", shown(path));
    return 1;
}

/* A byte: decimal, or hexadecimal after 0x; leading zeros are decimal (010
 * is ten), not octal. */
static int parse_byte(const char *what, const char *s, size_t *out)
{
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *digits = hex ? s + 2 : s;
    unsigned long v = 0;
    size_t n = 0;

    for (int d; digits[n] != '\0'; n++) {
        d = hex ? hex_value(digits[n]) : isdigit((unsigned char)digits[n]) ? digits[n] - '0' : -1;
        if (d < 0)
            break;
        v = v * (hex ? 16 : 10) + (unsigned long)d;
        if (v > 0xFF)
            v = 0x100;  /* out of range already, and no overflow */
    }
    if (n == 0 || digits[n] != '\0')
        return bad_value(what, s, "not a number (decimal, or hexadecimal after 0x, e.g. 0x1F)");
    if (v > 0xFF)
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

/* The last -l, judged once every option is read. */
int options_length_valid(const options *o)
{
    if (o->length_arg == NULL)
        return 1;
    if (o->length_bits % 8 != 0)
        return bad_value("length", o->length_arg, "not a multiple of 8 (it is in bits)");
    if (o->length_bits == 0)
        return bad_value("length", o->length_arg, "must be at least 8");
    return 1;
}

static int set_flag(options *o, const option_row *row, const char *arg)
{
    (void)arg;
    *(int *)((char *)o + row->field) = 1;
    return 1;
}

static int set_text(options *o, const option_row *row, const char *arg)
{
    *(const char **)((char *)o + row->field) = arg;
    return 1;
}

/* A switch, or -a's names, in order; resolved by options_resolve. */
static void choose(options *o, const algorithm *a, const char *names)
{
    o->choices[o->nchoices++] = (algorithm_choice){a, names};
    o->alg_given = 1;
}

static int set_algorithms(options *o, const option_row *row, const char *arg)
{
    (void)row;
    choose(o, NULL, arg);
    return 1;
}

static int set_output_size(options *o, const option_row *row, const char *arg)
{
    (void)row;
    return parse_count("output size", arg, 1, KSUM_MAX_OUTPUT_SIZE, &o->size);
}

static int set_threads(options *o, const option_row *row, const char *arg)
{
    size_t v = 0;

    (void)row;
    /* 0, as the provider's threads parameter: every CPU */
    if (!parse_count("thread count", arg, 0, KSUMPROV_MAX_THREADS, &v))
        return 0;
    o->threads = (unsigned)v;
    return 1;
}

/* -t undoes -b: the last counts (text_given, the row's field, is only to
 * refuse -t with --check). */
static int set_text_mode(options *o, const option_row *row, const char *arg)
{
    o->binary = 0;
    o->text_after_tag = o->tag;
    return set_flag(o, row, arg);
}

/* --tag and --untagged undo each other: the last counts. */
static int set_form(options *o, const option_row *row, const char *arg)
{
    o->tag = 0;
    o->untagged = 0;
    o->text_after_tag = 0;
    return set_flag(o, row, arg);
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
    return set_flag(o, row, arg);
}

/* --exclude, any number of times: the patterns are the argv strings. */
static int add_exclude(options *o, const option_row *row, const char *arg)
{
    char **more = realloc(o->excludes, (o->nexcludes + 1) * sizeof *more);

    (void)row;
    if (more == NULL)
        return message_fail("out of memory");
    o->excludes = more;
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

    for (const char *s = r->shorts; *s != '\0'; s++)
        width += printf("-%c, ", *s);
    width += printf("%s", r->name);
    if (r->arg != NULL)
        width += printf("=%s", r->arg);
    return width;
}

/* The row whose help_at is at, or NULL. */
static const option_row *row_at(int at)
{
    for (size_t i = 0; i < option_row_count; i++)
        if (option_rows[i].help_at == at)
            return &option_rows[i];
    return NULL;
}

/* The common options, one line each (some name several), their texts from
 * column 28, or after two spaces when the names reach further. */
static void print_common_options(void)
{
    const option_row *r, *next;

    for (int at = 1; (r = row_at(at)) != NULL; at++) {
        int column = printf("  %s", r->shorts[0] != '\0' ? "" : "    ") + print_row_names(r);
        for (; (next = row_at(at + 1)) != NULL && next->help == NULL; at++)
            column += printf(", ") + print_row_names(next);
        printf("%*s", column <= 26 ? 28 - column : 2, "");
        for (const char *t = r->help; *t != '\0'; t++) {
            putchar(*t);
            if (*t == '\n')
                printf("%28s", "");
        }
        putchar('\n');
    }
}

/* One word of a paragraph wrapped at 72 columns; *column is where the
 * line is. */
static void print_word(int *column, const char *word, int len)
{
    if (*column > 0 && *column + 1 + len > 72) {
        putchar('\n');
        *column = 0;
    } else if (*column > 0) {
        *column += printf(" ");
    }
    *column += printf("%.*s", len, word);
}

/* "The other options (--function, ...), " and after them text: the rows
 * that have no line of the common options, in their order (-help_at). */
static void print_other_options(const char *text)
{
    const option_row *r;
    int column = 0;
    char word[64];

    print_word(&column, "The other options", 17);
    for (int n = 1; (r = row_at(-n)) != NULL; n++) {
        snprintf(word, sizeof word, "%s%s%s", n == 1 ? "(" : "", r->name,
                 row_at(-n - 1) == NULL ? ")," : ",");
        print_word(&column, word, (int)strlen(word));
    }
    for (const char *w = text; *w != '\0'; w += strspn(w, " ")) {
        int len = (int)strcspn(w, " ");
        print_word(&column, w, len);
        w += len;
    }
    putchar('\n');
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
    printf("\nCommon options:\n");
    print_common_options();
    putchar('\n');
    print_other_options("the check-mode rules and the environment (KSUM_SIMD, KSUM_BATCH): "
                        "man ksum, and the documents in /usr/share/doc/ksum.");
    printf("Exit status: 0 if every file was hashed or verified, 1 otherwise.\n");
}

/* --help prints and exits at once: what follows is not parsed.
 * --version ends the parsing too; main prints it once the provider is
 * loaded, since it names the kernel the provider chose. */
static int show(options *o, const option_row *row, const char *arg)
{
    (void)arg;
    if (strcmp(row->name, "--version") == 0) {
        o->version = 1;
        return 1;
    }
    print_help();
    exit(output_close() ? 0 : 1);
}

/* ---- the table ---- */

/* The columns of a row after its names and its argument.  What it sets:
 * an int of options set to 1, a string of options set to the argument,
 * what fn sets in field f, or what fn sets. */
#define FLAG(f) set_flag, offsetof(options, f)
#define TEXT(f) set_text, offsetof(options, f)
#define SET(fn, f) fn, offsetof(options, f)
#define CALL(fn) fn, 0
/* Which algorithms take it: any, those that take bit (TAKES_*), or those
 * whose settable parameters list key, for an option that sends parameter
 * key of the given type (set_param), its value options.param[i], its
 * number i below OPTIONS_PARAMS_MAX; what is the value in messages. */
#define ANY 0, NULL, PARAM_NONE, NULL
#define NEEDS(bit) bit, NULL, PARAM_NONE, NULL
#define PARAM(i, key, type, what) TAKES_PARAM(i), key, type, what
/* Its place in --help: line at of the common options (from 1) with text,
 * its names on the line of the option at at - 1, or named n-th among the
 * other options.  Both are numbered from 1 without a gap: the first
 * number no row has ends them. */
#define HELP(at, text) at, text
#define BESIDE(at) at, NULL
#define OTHER(n) -(n), NULL

/* In getopt_long's order, which is the order of the candidates its message
 * lists for an ambiguous abbreviation. */
const option_row option_rows[] = {
    {"--algorithm", "a", "NAME[,NAME]", CALL(set_algorithms), ANY,
     HELP(1, "any name the provider knows; several: one\nread, one tagged line each")},
    {"--output-size", "n", "BYTES", CALL(set_output_size), NEEDS(TAKES_SIZE),
     HELP(2, "output length of the variable-length algorithms")},
    {"--xof", "x", NULL, FLAG(xof), NEEDS(TAKES_XOF),
     HELP(4, "XOF mode (KMAC, ParallelHash, TupleHash)")},
    /* three spaces before the text: --help has always had them */
    {"--key", "k", "HEX", CALL(set_key), NEEDS(TAKES_KEY), HELP(5, " KMAC key")},
    {"--key-file", "", "FILE", CALL(set_key_file), NEEDS(TAKES_KEY), BESIDE(6)},
    {"--customization", "C", "STR", CALL(set_param),
     PARAM(0, KSUM_PARAM_CUSTOM, PARAM_TEXT, "customization"),
     HELP(7, "customization string")},
    {"--function", "f", "NAME", CALL(set_param),
     PARAM(1, KSUM_PARAM_FUNCTION_NAME, PARAM_TEXT, "function name"), OTHER(1)},
    {"--block-size", "B", "BYTES", CALL(set_param),
     PARAM(2, KSUM_PARAM_BLOCK_SIZE, PARAM_COUNT, "block size"), OTHER(2)},
    {"--domain", "", "BYTE", CALL(set_param),
     PARAM(3, KSUM_PARAM_DOMAIN, PARAM_BYTE, "domain byte"), OTHER(3)},
    /* sent to the algorithms that take it (TAKES_THREADS), refused by none */
    {"--threads", "", "N", CALL(set_threads), ANY,
     HELP(17, "worker threads (0, the default: every CPU)")},
    {"--binary", "b", NULL, FLAG(binary), ANY, OTHER(4)},
    {"--text", "t", NULL, SET(set_text_mode, text_given), ANY, OTHER(5)},
    {"--tag", "", NULL, SET(set_form, tag), ANY, HELP(8, "BSD-style lines: ALGO (NAME) = HEX")},
    {"--zero", "z", NULL, FLAG(zero), ANY, OTHER(6)},
    {"--check", "c", NULL, FLAG(check), ANY,
     HELP(11, "read checksums from the FILEs and check them;\nwith a key, only at the "
              "length of -n/-l or the\ndefault, and every line must verify")},
    {"--ignore-missing", "", NULL, FLAG(ignore_missing), ANY, BESIDE(16)},
    {"--quiet", "", NULL, SET(set_verbosity, quiet), ANY, BESIDE(14)},
    {"--status", "", NULL, SET(set_verbosity, status), ANY, BESIDE(15)},
    {"--strict", "", NULL, FLAG(strict), ANY, BESIDE(13)},
    {"--warn", "w", NULL, SET(set_verbosity, warn), ANY, HELP(12, "as sha256sum -c")},
    {"--help", "h", NULL, CALL(show), ANY, HELP(20, "display this help and exit")},
    {"--version", "Vv", NULL, CALL(show), ANY,
     HELP(21, "output version information and exit")},
    /* Output forms as cksum and b3sum have them.  An unambiguous
     * prefix is taken: --raw is exact, so it is never taken for
     * --rawshake128, --rawshake1 is still --rawshake128, and --rawsh is
     * ambiguous, an error. */
    {"--base64", "", NULL, FLAG(base64), ANY, HELP(9, "digests in base64")},
    {"--raw", "", NULL, FLAG(raw), ANY, OTHER(8)},
    {"--untagged", "", NULL, SET(set_form, untagged), ANY, OTHER(7)},
    {"--no-names", "", NULL, FLAG(no_names), ANY, OTHER(9)},
    {"--length", "l", "BITS", CALL(set_length), NEEDS(TAKES_SIZE),
     HELP(3, "the same in bits, as cksum (b3sum's -l counts bytes)")},
    /* Directories, name lists, progress. */
    {"--recursive", "r", NULL, FLAG(recursive), ANY,
     HELP(10, "the regular files under each directory FILE")},
    {"--dereference", "L", NULL, FLAG(dereference), ANY, OTHER(10)},
    {"--files-from", "", "FILE", TEXT(files_from), ANY, OTHER(11)},
    {"--progress", "", NULL, FLAG(progress), ANY, OTHER(12)},
    /* One object in parts: parts.c does what they ask. */
    {"--part", "", "K/N", TEXT(part_share), ANY,
     HELP(18, "KT128/KT256/M14 in parts (man ksum)")},
    {"--part-range", "", "START:LEN", TEXT(part_range), ANY, OTHER(13)},
    {"--combine", "", NULL, FLAG(combine), ANY, BESIDE(19)},
    /* One digest of a directory tree (docs/tree.md). */
    {"--tree", "", NULL, FLAG(tree), ANY, OTHER(14)},
    {"--exclude", "", "PATTERN", CALL(add_exclude), ANY, OTHER(15)},
    {"--manifest", "", NULL, FLAG(manifest), ANY, OTHER(16)},
};
const size_t option_row_count = sizeof option_rows / sizeof option_rows[0];

/* getopt_long's values: a row's, then an algorithm switch's. */
#define ROW_VALUE(i) (256 + (int)(i))
#define SWITCH_VALUE(i) ROW_VALUE(option_row_count + (i))

/* ---- parsing ---- */

/* getopt_long's table: the rows, then one per algorithm switch. */
static struct option *long_options(void)
{
    struct option *all = calloc(option_row_count + 2 * algorithm_count + 1, sizeof *all);
    size_t n = 0;

    if (all == NULL)
        return NULL;
    for (size_t i = 0; i < option_row_count; i++)
        all[n++] = (struct option){option_rows[i].name + 2,
                                   option_rows[i].arg ? required_argument : no_argument,
                                   NULL, ROW_VALUE(i)};
    for (size_t i = 0; i < algorithm_count; i++) {
        all[n++] = (struct option){algorithms[i].option, no_argument, NULL, SWITCH_VALUE(i)};
        if (algorithms[i].alias != NULL)
            all[n++] = (struct option){algorithms[i].alias, no_argument, NULL,
                                       SWITCH_VALUE(i)};
    }
    return all;
}

/* getopt's short options: "a:n:x..." */
static char *short_options(void)
{
    size_t n = 0;
    char *all;

    for (size_t i = 0; i < option_row_count; i++)
        n += strlen(option_rows[i].shorts) * (option_rows[i].arg ? 2 : 1);
    if ((all = malloc(n + 1)) == NULL)
        return NULL;
    n = 0;
    for (size_t i = 0; i < option_row_count; i++)
        for (const char *s = option_rows[i].shorts; *s != '\0'; s++) {
            all[n++] = *s;
            if (option_rows[i].arg != NULL)
                all[n++] = ':';
        }
    all[n] = '\0';
    return all;
}

/* The row of what getopt_long returned, or NULL. */
static const option_row *row_of(int c)
{
    if (c >= ROW_VALUE(0) && c < ROW_VALUE(option_row_count))
        return &option_rows[c - ROW_VALUE(0)];
    for (size_t i = 0; c > 0 && c < 256 && i < option_row_count; i++)
        if (strchr(option_rows[i].shorts, c) != NULL)
            return &option_rows[i];
    return NULL;
}

const char *option_name(const options *o, unsigned bit)
{
    const option_row *row = o->given_as[__builtin_ctz(bit)];

    for (size_t i = 0; row == NULL && i < option_row_count; i++)
        if (option_rows[i].takes == bit)
            row = &option_rows[i];
    return row != NULL ? row->name : "?";
}

const char *option_text(const options *o, const char *param)
{
    for (size_t i = 0; i < option_row_count; i++) {
        const option_row *r = &option_rows[i];
        if (r->param != NULL && strcmp(r->param, param) == 0 && (o->given & r->takes))
            return o->param[TAKES_PARAM_INDEX(r->takes)].text;
    }
    return NULL;
}

static int parse_one(options *o, int c, const char *arg)
{
    const option_row *row = row_of(c);

    if (row != NULL) {
        if (row->takes != 0) {
            o->given |= row->takes;
            o->given_as[__builtin_ctz(row->takes)] = row;
        }
        return row->set(o, row, arg);
    }
    if (c >= SWITCH_VALUE(0) && c < SWITCH_VALUE(algorithm_count)) {
        choose(o, &algorithms[c - SWITCH_VALUE(0)], NULL);
        return 1;
    }
    usage_hint(); /* getopt has printed what was wrong */
    return 0;
}

int options_parse(options *o, int argc, char **argv)
{
    static char *stdin_only[] = {"-", NULL};
    struct option *longs = long_options();
    char *shorts = short_options();
    int c, ok = 1;

    memset(o, 0, sizeof *o);
    /* Each option adds at most one choice. */
    o->choices = calloc((size_t)argc + 1, sizeof *o->choices);
    if (longs == NULL || shorts == NULL || o->choices == NULL) {
        free(longs);
        free(shorts);
        return message_fail("out of memory");
    }
    while (ok && !o->version && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1)
        ok = parse_one(o, c, optarg);
    free(longs);
    free(shorts);
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
    free(o->excludes);
    o->excludes = NULL;
}
