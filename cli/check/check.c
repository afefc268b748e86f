/* SPDX-License-Identifier: Apache-2.0 */
#include "check/check.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/encoding.h"
#include "base/messages.h"
#include "front/hasher.h"
#include "front/resolve.h"
#include "input/feed.h"
#include "input/files.h"
#include "input/tuple.h"
#include "input/walk.h"
#include "report/tree.h"
#include "run/concurrent.h"

/* Undoes print_name's escaping in place (when escaped) and turns the
 * literal tabs, which only separate TupleHash's names, into NULs (an
 * escaped tab stays a tab); sets *len to the result's length.  0 on an
 * unknown escape. */
static int unescape(char *s, size_t *len, int escaped)
{
    char *out = s, *start = s;

    for (; *s; s++) {
        if (*s == '\t' || !escaped || *s != '\\') {
            *out++ = *s == '\t' ? '\0' : *s;
            continue;
        }
        s++;
        if (*s == '\\')
            *out++ = '\\';
        else if (*s == 'n')
            *out++ = '\n';
        else if (*s == 'r')
            *out++ = '\r';
        else if (*s == 'x' && hex_value(s[1]) >= 0 && hex_value(s[2]) >= 0 &&
                 (s[1] != '0' || s[2] != '0')) {
            *out++ = (char)(16 * hex_value(s[1]) + hex_value(s[2]));
            s += 2;
        } else
            return 0;
    }
    *out = '\0';
    *len = (size_t)(out - start);
    return 1;
}

/* A character of a digest: hex, base64 (with its padding) and, in tagged
 * lines, the colons of `openssl dgst -c`. */
static int digest_char(char c, int tagged)
{
    return isalnum((unsigned char)c) || c == '+' || c == '/' || c == '=' ||
           (tagged && c == ':');
}

/* A character of an algorithm tag: OpenSSL's names have '/' too
 * (SHA2-512/224), and OIDs, which the provider names its algorithms by
 * too, '.'. */
static int tag_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '/' || c == '.';
}

/* "ALGO (NAME) = DIGEST" or OpenSSL's "ALGO(NAME)= DIGEST".  No
 * algorithm is named by hex digits alone: such a word is the digest of a
 * one-space line ("HEX NAME", md5 -r's) whose name looks like the rest of
 * a tagged one, as md5sum reads it. */
static int parse_tagged(char *line, size_t len, check_line *out)
{
    size_t alg_end = 0, digest_start = len, close;

    while (alg_end < len && alg_end < CHECK_TAG_MAX && tag_char(line[alg_end]))
        alg_end++;
    size_t open = alg_end < len && line[alg_end] == ' ' ? alg_end + 1 : alg_end;
    if (alg_end == 0 || open >= len || line[open] != '(' || is_hex(line, alg_end))
        return 0;
    while (digest_start > 0 && digest_char(line[digest_start - 1], 1))
        digest_start--;
    if (digest_start == len || digest_start < open + 4 ||
        line[digest_start - 1] != ' ' || line[digest_start - 2] != '=')
        return 0;
    close = line[digest_start - 3] == ' ' ? digest_start - 4 : digest_start - 3;
    if (close <= open || line[close] != ')')
        return 0;
    out->tag = line;
    out->digest = line + digest_start;
    out->digest_len = len - digest_start;
    line[close] = '\0';
    line[alg_end] = '\0';  /* a space or the '(' */
    out->name = line + open + 1;
    return 1;
}

/* "DIGEST  NAME", "DIGEST *NAME", or "DIGEST NAME" (BSD's reversed form),
 * in the list's *form (check.h); a tab after the digest is a space, as
 * coreutils reads it.  As coreutils, a line is of the two-character form
 * when a space or star follows the blank after the digest and a name
 * follows that. */
static int parse_untagged(char *line, size_t len, int *form, check_line *out)
{
    size_t n = 0, at;
    int two;

    while (n < len && digest_char(line[n], 0))
        n++;
    at = n + 1;
    if (n == 0 || at >= len || (line[n] != ' ' && line[n] != '\t'))
        return 0;
    two = (line[at] == ' ' || line[at] == '*') && at + 1 < len;
    if (*form == CHECK_FORM_UNKNOWN)
        *form = two ? CHECK_FORM_TWO : CHECK_FORM_ONE;
    if (*form == CHECK_FORM_TWO && !two)
        return 0;
    at += *form == CHECK_FORM_TWO;
    out->tag = NULL;
    out->digest = line;
    out->digest_len = n;
    out->name = line + at;
    return 1;
}

int check_parse_line(char *line, size_t len, int *form, check_line *out)
{
    int escaped;

    if (memchr(line, '\0', len) != NULL)
        return 0;
    /* As coreutils: blanks before a line (indented lists) are not part of it. */
    while (len > 0 && (line[0] == ' ' || line[0] == '\t'))
        line++, len--;
    escaped = len > 0 && line[0] == '\\';
    if (escaped)
        line++, len--;
    if (!parse_tagged(line, len, out) && !parse_untagged(line, len, form, out))
        return 0;
    return unescape(out->name, &out->name_len, escaped);
}

/* ---- verification ---- */

/* What became of the lines of one check file.  Blank and comment lines
 * are counted nowhere; every other line in exactly one place. */
typedef struct counts {
    unsigned long matched, mismatched, unreadable; /* OK, FAILED, FAILED open or read */
    unsigned long ignored;                         /* missing, with --ignore-missing */
    unsigned long misformatted, lines_unread;
    unsigned long guessed;  /* of the FAILED, untagged lines checked with the
                               algorithm ksum chose by default */
    unsigned long guessed_ok;  /* of the OK, the same */
    unsigned long keyless;  /* KMAC lines verified with the empty key, no
                               key and no switch given */
} counts;

#define CACHE_KEYS (2 * algorithm_count)

/* How a line is checked: with which algorithm, in which mode, and at the
 * length its tag's -BITS says (0: none said). */
typedef struct line_plan {
    const algorithm *alg;
    int xof;
    size_t tagged;
    size_t want;    /* the length the line must have, once known (0: any) */
} line_plan;

/* Both sides of a check.  The reading of the check files, line after line,
 * into items: whichever thread needs the next item reads it (concurrent.h),
 * one at a time.  And the printing of the items, the verdicts and the
 * summaries, with the lines no worker takes hashed there. */
typedef struct check_run {
    const resolved *res;    /* the algorithms named, and their options */
    const check_spec *s;
    OSSL_LIB_CTX *lib;
    int keyed;              /* a key was given: every line must be verified */
    /* Hashers by algorithm and XOF mode (the key of digest_spec), opened
     * on first use: one has its algorithm once opened, and a zeroed one
     * (never opened, or failed to open) holds nothing to close.  The
     * reading's facts tell what each algorithm takes (never hashed with,
     * opened quietly: on any thread, it does not print); the printing's
     * hashers hash. */
    hasher *facts, *hashers;
    /* the reading's */
    hash_spec xof_spec;     /* res->hash with -x: the lines whose tag names an XOF */
    tree_check trees;       /* what the lines of directory trees share */
    char *const *lists;     /* the check files not opened yet */
    const char *path;       /* the one being read */
    int is_stdin;
    line_reader r;
    int reading;            /* r reads it */
    int ending;             /* a read error: its summary is next */
    unsigned long lineno;
    int form;               /* of its untagged lines (check.h) */
    unsigned applied;       /* TAKES_* of the algorithms of the lines checked */
    struct {                /* note_fits's, for the list's summary */
        char text[CHECK_TAG_MAX + 320];
        int found;          /* text names algorithms: it stays */
        size_t none;        /* the last hex length no algorithm fits */
    } fits;
    struct {                /* the last tag resolved, for lists of one kind */
        char text[CHECK_TAG_MAX + 1];
        int fate;
        line_plan plan;
    } last;
    /* the printing's */
    input in;
    progress *pg;           /* --progress, or NULL */
    int stdin_refusal;      /* why a '-' line may not read standard input:
                               KSUM_ESTDIN, a check file is standard input;
                               KSUM_ETTY, it is a terminal (a list must not
                               wait on the user); 0: it may */
    counts n;               /* the check file being printed */
    int ok;                 /* every check file passed so far */
    int stop;               /* stop at once: KSUM_EWRITE, standard output
                               failed; ENOMEM, memory ran out here (said) */
    char reason[512];       /* OpenSSL's, of a line hashed here */
} check_run;

static void cache_free(hasher *cache)
{
    for (size_t i = 0; cache != NULL && i < CACHE_KEYS; i++)
        hasher_close(&cache[i]);
    free(cache);
}

/* The hasher of d's algorithm and options in cache; NULL when it cannot be
 * fetched. */
static hasher *cache_get(check_run *c, hasher *cache, const digest_spec *d)
{
    hasher *h = &cache[d->key];

    if (h->alg == NULL &&
        !(cache == c->facts ? hasher_open_quiet : hasher_open)(h, c->lib, d->alg, d->spec)) {
        ERR_clear_error();
        return NULL;
    }
    return h;
}

/* The digest of alg in XOF mode or not, at size bytes. */
static digest_spec spec_of(const check_run *c, const algorithm *alg, int xof, size_t size)
{
    return (digest_spec){alg, xof ? &c->xof_spec : &c->res->hash, size,
                         (size_t)(alg - algorithms) + (xof ? algorithm_count : 0)};
}

/* What the algorithm takes and its lengths, as its hasher has them (the
 * same in either mode); NULL when out of memory. */
static const algorithm_facts *facts_of(check_run *c, const algorithm *alg)
{
    digest_spec d = spec_of(c, alg, 0, 0);
    hasher *h = cache_get(c, c->facts, &d);

    return h != NULL ? &h->facts : NULL;
}

/* alg has an XOF mode (as far as can be told without memory). */
static int has_xof(check_run *c, const algorithm *alg)
{
    const algorithm_facts *f = facts_of(c, alg);

    return f != NULL && (f->takes & TAKES_XOF);
}

/* What the reading gives the printing, in the lists' order. */
enum {
    ITEM_LINE,          /* a line to verify */
    ITEM_IMPROPER,      /* a line not verified (counted as improperly formatted) */
    ITEM_UNREAD,        /* a line that could not be read */
    ITEM_FAILED,        /* a check file that could not be read at all, or no
                           memory for it or a line (err) */
    ITEM_SUMMARY,       /* the end of a check file */
};

typedef struct check_item {
    int kind;
    const char *label;      /* the check file's name in messages
                               (ITEM_FAILED: as given) */
    unsigned long lineno;
    int err;                /* ITEM_FAILED: why; ITEM_LINE: why its
                               file cannot be hashed, known unread */
    int say;                /* ITEM_IMPROPER, ITEM_UNREAD: why is printed */
    char why[CHECK_TAG_MAX + 320];
    /* ITEM_LINE: the file, or TupleHash's files, it names and its digest
     * (in mem), hashed for d by a worker, or by the printing thread when
     * here */
    char **names;
    size_t n;
    const uint8_t *want;
    void *mem;
    size_t held;            /* the bytes of mem and of the digest computed */
    digest_spec d;
    int here;
    int guessed;            /* untagged, checked with the default algorithm */
    int keyless;            /* a KMAC line, without a key or a switch */
    int tree;               /* its name ends in '/': a directory tree's digest */
} check_item;

/* h's output, ended or (a long one) squeezed piece by piece, against
 * want, in constant time (CRYPTO_memcmp) as every digest is: the check
 * file may hold a MAC.  0, or ENOMEM or KSUM_EHASH. */
static int compare_output(hasher *h, const uint8_t *want, int *equal)
{
    size_t piece = hasher_streams(h) ? 16384 : h->size, take;
    uint8_t *chunk = OPENSSL_malloc(piece);   /* not on a stack that may not grow */
    int err = chunk != NULL ? 0 : ENOMEM;

    *equal = 1;
    for (size_t done = 0; err == 0 && done < h->size; done += take) {
        take = h->size - done < piece ? h->size - done : piece;
        if (hasher_streams(h) ? !hasher_squeeze(h, chunk, take) : !hasher_end(h, chunk))
            err = KSUM_EHASH;
        else
            *equal &= CRYPTO_memcmp(want + done, chunk, take) == 0;
    }
    OPENSSL_free(chunk);
    return err;
}

static void print_result(check_run *c, const check_item *it, const char *what)
{
    int escape = names_need_escape(it->names, it->n);

    if (escape)
        putchar('\\');
    print_names(stdout, it->names, it->n, escape);
    printf(": %s\n", what);
    if (!output_ok())
        c->stop = KSUM_EWRITE;
}

/* Hashes here, with h, the file (or files) of a line no worker took, and
 * compares; returns 0 or why it could not, with *failed the name to
 * report. */
static int compare_here(check_run *c, const check_item *it, hasher *h, int *equal,
                        const char **failed)
{
    uint8_t *sum = NULL;    /* none: the output is compared once hashed */
    int err;

    for (size_t i = 0; c->stdin_refusal != 0 && i < it->n; i++)
        if (strcmp(it->names[i], "-") == 0) {
            *failed = it->names[i];
            return c->stdin_refusal;
        }
    hasher_set_size(h, it->d.size);
    if (it->tree)
        err = tree_digest(&c->trees, &it->d, h, it->names[0]);
    else if (h->facts.takes & TAKES_ELEMENTS)
        err = hash_tuple(h, it->names, it->n, &c->in, sum, failed);
    else
        err = feed_path(&h, 1, it->names[0], &c->in, &sum);
    return err != 0 ? err : compare_output(h, it->want, equal);
}

/* --ignore-missing: a line whose file is missing is no line of this
 * tree; a tuple is that only when every element is missing (one present
 * says the line is the tree's, and it cannot be verified). */
static int all_missing(const check_item *it)
{
    struct stat st;

    for (size_t i = 0; it->n > 1 && i < it->n; i++)
        if (strcmp(it->names[i], "-") == 0 || stat(it->names[i], &st) == 0 ||
            errno != ENOENT)
            return 0;   /* standard input is never missing */
    return 1;
}

/* Memory ran out on the printing thread: said once (not again when what
 * failed said it), and the run stops; no line is FAILED for it. */
static void run_out(check_run *c, int said)
{
    if (!said)
        message_fail("out of memory");
    c->stop = ENOMEM;
}

/* A line's verdict: what a worker made of its file (r), or else hashed
 * here. */
static void verify(check_run *c, const check_item *it, const file_result *r)
{
    const char *failed = it->names[0], *why = NULL;
    hasher *h = NULL;
    int equal = 0, err = it->err;

    /* A worker's want of memory or EVP failure is not the file's: the line
     * is hashed here again, and what fails here is said. */
    if (r != NULL && (r->err == ENOMEM || r->err == KSUM_EHASH))
        r = NULL;
    if (err == 0 && r != NULL) {
        why = r->why;
        if ((err = r->err) == 0)
            equal = CRYPTO_memcmp(it->want, r->sums, it->d.size) == 0;
    } else if (err == 0 && (h = cache_get(c, c->hashers, &it->d)) != NULL) {
        /* hashed here: shown as a worker's file is */
        progress_show(c->pg, it->names[0], c->in.progress);
        err = compare_here(c, it, h, &equal, &failed);
        if (err == KSUM_EHASH && openssl_reason(c->reason, sizeof c->reason))
            err = ENOMEM;
        why = err == KSUM_EHASH   ? c->reason
              : err == KSUM_ESPILL ? strerror(c->in.spill_errno)
                                   : NULL;
    }
    progress_hold(c->pg);
    /* No hasher: memory, as its algorithm was opened when the options were
     * resolved; hasher_open said it. */
    if (err == ENOMEM || (err == 0 && r == NULL && h == NULL)) {
        run_out(c, err == 0);
    } else if (err == ENOENT && c->s->ignore_missing && all_missing(it)) {
        c->n.ignored++;
    } else if (err != 0) {
        c->n.unreadable++;
        if (!c->s->status) {
            report_error(failed, err, why);
            print_result(c, it, "FAILED open or read");
        }
    } else {
        c->n.keyless += it->keyless;
        if (equal) {
            c->n.matched++;
            c->n.guessed_ok += it->guessed;
        } else {
            c->n.mismatched++;
            c->n.guessed += it->guessed;
        }
        if (!c->s->status && !(equal && c->s->quiet))
            print_result(c, it, equal ? "OK" : "FAILED");
    }
}
/* The names of a line, TupleHash's separated by the NULs that stand for
 * literal tabs (any other algorithm's one name has its tabs back), and its
 * digest of size bytes, copied into the item: the line is read over.  0
 * when out of memory. */
static int item_of(check_line *l, int tuple, size_t size, check_item *it)
{
    size_t n = 1;
    char *text;

    for (size_t i = 0; i < l->name_len; i++)
        if (l->name[i] == '\0' && tuple)
            n++;
        else if (l->name[i] == '\0')
            l->name[i] = '\t';
    it->held = n * sizeof *it->names + size + l->name_len + 1;
    if ((it->mem = malloc(it->held)) == NULL)
        return 0;
    it->held += size;   /* and the digest computed */
    it->names = it->mem;
    it->want = memcpy(it->names + n, l->digest, size);
    text = memcpy((char *)(it->names + n) + size, l->name, l->name_len + 1);
    for (it->n = 0; it->n < n; text += strlen(text) + 1)
        it->names[it->n++] = text;
    return 1;
}

/* What a line's algorithm and length make of it: checked, or why not. */
enum {
    LINE_CHECKED,
    LINE_IMPROPER,          /* not a checksum line, or its digest does not fit */
    LINE_UNSUPPORTED,       /* a tag ksum has no algorithm for */
    LINE_OTHER_ALGORITHM,   /* a tag of an algorithm (or mode) not asked for */
    LINE_OTHER_LENGTH,      /* keyed: a length the user did not choose */
};

/* "-BITS" after a name, as --tag writes a length other than the default:
 * decimal without leading zeros, a whole number of bytes, at most
 * KSUM_MAX_OUTPUT_SIZE; the bytes, or 0. */
static size_t tag_bytes(const char *bits)
{
    char *end;
    unsigned long long v;

    if (*bits < '1' || *bits > '9')
        return 0;
    v = strtoull(bits, &end, 10);   /* too big: ULLONG_MAX, not a multiple of 8 */
    return *end == '\0' && v % 8 == 0 && v / 8 <= KSUM_MAX_OUTPUT_SIZE ? (size_t)(v / 8) : 0;
}

/* A tag's algorithm without its length: any name the provider knows, or
 * such a name with "XOF" before its digits (KMACXOF128) when the provider
 * gives that algorithm an XOF mode.  NULL when there is none. */
static const algorithm *tag_algorithm(check_run *c, const char *name, int *xof)
{
    char base[ALGORITHM_TAG_MAX];
    const algorithm *a = algorithm_lookup(c->lib, name);

    *xof = 0;
    if (a != NULL || !algorithm_xof_base(name, base) ||
        (a = algorithm_lookup(c->lib, base)) == NULL)
        return a;
    *xof = has_xof(c, a);
    return *xof ? a : NULL;
}

/* A tag: an algorithm's tag in any case, maybe followed by "-BITS".
 * LINE_UNSUPPORTED when ksum has no such algorithm, LINE_IMPROPER for a
 * bad length after a known one. */
static int resolve_tag(check_run *c, const char *tag, line_plan *p)
{
    char base[CHECK_TAG_MAX + 1];
    const char *dash = strrchr(tag, '-');
    int fate = LINE_CHECKED;

    if (strcmp(tag, c->last.text) == 0) {  /* a tag is never empty */
        *p = c->last.plan;
        return c->last.fate;
    }
    p->tagged = 0;
    if ((p->alg = tag_algorithm(c, tag, &p->xof)) == NULL && dash != NULL && dash != tag) {
        snprintf(base, sizeof base, "%.*s", (int)(dash - tag), tag);
        if ((p->alg = tag_algorithm(c, base, &p->xof)) != NULL &&
            (p->tagged = tag_bytes(dash + 1)) == 0)
            fate = LINE_IMPROPER;
    }
    if (p->alg == NULL)
        fate = LINE_UNSUPPORTED;
    strcpy(c->last.text, tag);  /* tags are at most CHECK_TAG_MAX long */
    c->last.fate = fate;
    c->last.plan = *p;
    return fate;
}

/* The algorithm a line is checked with: without an algorithm switch, its
 * tag's, or the default; with switches, the one its tag names, and none
 * for a tag of another algorithm: a check file cannot choose another
 * algorithm, or no key, instead of those asked for.  An untagged line
 * takes the one switch, and is improperly formatted with several: it does
 * not say which. */
static int line_algorithm(check_run *c, const check_line *l, line_plan *p)
{
    const algorithm *chosen;
    int fate;

    p->alg = c->res->alg;
    p->xof = c->res->hash.xof;
    p->tagged = 0;
    if (l->tag == NULL)
        return c->res->nalgs > 1 ? LINE_IMPROPER : LINE_CHECKED;
    if ((fate = resolve_tag(c, l->tag, p)) != LINE_CHECKED)
        return fate;
    /* With -x, a tag of the fixed-length function (KMAC128) is another
     * function. */
    if (!p->xof && c->res->hash.xof && has_xof(c, p->alg))
        return LINE_OTHER_ALGORITHM;
    chosen = c->res->named ? options_chosen(c->res, p->alg) : p->alg;
    if (chosen == NULL)
        return LINE_OTHER_ALGORITHM;
    p->alg = chosen;
    return LINE_CHECKED;
}

/* An all-hex digest of another length than 2 * want is hex, not base64
 * that happens to have want's length: a digest of another algorithm is
 * an improper line, not a FAILED file.  Base64 of fewer than 12 bytes can
 * be all hex digits by chance (one in 70 for 3 bytes), while a hex digest
 * of 8 bytes or less is rare: there, the length decides. */
static int hex_not_base64(size_t n, size_t want)
{
    return want == 0 || n == 2 * want || want >= 12 || n != BASE64_LENGTH(want);
}

/* The line's digest as bytes, decoded in place, of the length it must have
 * (want), or of its own when want is 0; that length, or 0 when the digest
 * is not hex, base64 or OpenSSL's colon-separated hex of such a length.  A
 * digest of hex digits is hex (hex_not_base64). */
static size_t line_digest(check_line *l, size_t want)
{
    uint8_t *bytes = (uint8_t *)l->digest;
    size_t n = l->digest_len, len = 0;
    int ok;

    if (memchr(l->digest, ':', n) != NULL)
        ok = colon_hex_join(l->digest, &n) && hex_decode(l->digest, n, bytes, &len);
    else if (n % 2 == 0 && is_hex(l->digest, n) && hex_not_base64(n, want))
        ok = hex_decode(l->digest, n, bytes, &len);
    else
        ok = base64_decode(l->digest, n, bytes, &len);
    return ok && (want == 0 || len == want) ? len : 0;
}

/* The output length a line is checked at, into *size: the algorithm's
 * fixed size, -n (or -l), with a key the default (a list never chooses a
 * keyed length), the tag's -BITS, or else the length of the line's digest.
 * Two of them that disagree, or a digest of another length, make the line
 * improper (LINE_OTHER_LENGTH with a key). */
static int line_size(const check_run *c, const algorithm_facts *f, line_plan *p,
                     check_line *l, size_t *size)
{
    size_t want = f->fixed_size, tagged = p->tagged;

    if (want == 0 && (c->res->hash.given & TAKES_SIZE))
        want = c->res->hash.size;
    if (want == 0 && c->keyed)
        want = f->default_size;
    /* --tag writes -BITS for any length but the default: with a key, a tag
     * without it says the default (openssl dgst's XOF lines, which omit
     * the length, have no key). */
    if (tagged == 0 && c->keyed && l->tag != NULL)
        tagged = f->default_size;
    p->want = want;
    if (tagged != 0 && want != 0 && tagged != want)
        return c->keyed ? LINE_OTHER_LENGTH : LINE_IMPROPER;
    *size = line_digest(l, tagged != 0 ? tagged : want);
    return *size != 0 ? LINE_CHECKED : LINE_IMPROPER;
}

/* "ksum: FILE: LINE: what" */
static void line_message(const char *file, unsigned long lineno, const char *what)
{
    FILE *f = message_stream();

    fputs("ksum: ", f);
    print_name(f, file, name_needs_escape(file));
    fprintf(f, ": %lu: %s\n", lineno, what);
}

/* 0 when path is a regular file, or why it cannot be one: the errno of
 * stat (as open would fail), or KSUM_ENOTREG (check mode hashes regular
 * files only).  A worker opens it again, and judges it again. */
static int regular_or_why(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return errno;
    return S_ISREG(st.st_mode) ? 0 : KSUM_ENOTREG;
}

/* A line of a known algorithm into an item to verify; another fate when
 * its digest does not fit. */
static int check_entry(check_run *c, check_line *l, line_plan *p, check_item *it)
{
    const algorithm_facts *f = facts_of(c, p->alg);
    size_t size = 0;
    int fate, tuple = f != NULL && (f->takes & TAKES_ELEMENTS);

    if (f != NULL && (fate = line_size(c, f, p, l, &size)) != LINE_CHECKED)
        return fate;
    /* No facts: no memory, as the algorithm was fetched when looked up. */
    if (f == NULL || !item_of(l, tuple, size, it)) {
        it->kind = ITEM_FAILED;
        it->err = ENOMEM;
        return LINE_CHECKED;
    }
    it->kind = ITEM_LINE;
    it->guessed = l->tag == NULL && !c->res->named;
    c->applied |= f->takes;
    it->keyless = (f->takes & TAKES_KEY) && !c->res->named && !c->keyed;
    it->d = spec_of(c, p->alg, p->xof, size);
    /* A name ending in '/' is a directory tree's (--tree's lines); without
     * --tree it is not taken for a file. */
    it->tree = !tuple && tree_name(it->names[0]);
    if (it->tree && !c->s->trees)
        it->err = KSUM_ETREELINE;
    /* Standard input, tuples, trees and outputs too long to hold are the
     * printing thread's; any other name is a regular file for a worker, or
     * an error known now, which costs no worker's time (a list of missing
     * files). */
    it->here = tuple || it->tree || size > HASHER_STREAM_MIN ||
               strcmp(it->names[0], "-") == 0;
    if (!it->here)
        it->err = regular_or_why(it->names[0]);
    return LINE_CHECKED;
}

/* The algorithms asked for, as their lines' tags: "SHA3-256, KMAC128". */
static void asked_tags(check_run *c, char *buf, size_t size)
{
    char tag[ALGORITHM_TAG_MAX];

    buf[0] = '\0';
    for (size_t i = 0; i < c->res->nalgs; i++) {
        const algorithm *a = c->res->algs[i];
        algorithm_tag(a, c->res->hash.xof && has_xof(c, a), tag);
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", i > 0 ? ", " : "", tag);
    }
}

/* Why a line was not verified, for its message. */
static void fate_text(check_run *c, const check_line *l, const line_plan *p,
                      int fate, char *buf, size_t size)
{
    char asked[256];

    switch (fate) {
    case LINE_UNSUPPORTED:
        snprintf(buf, size, "unsupported algorithm %s", l->tag);
        break;
    case LINE_OTHER_ALGORITHM:
        if (c->res->named)
            asked_tags(c, asked, sizeof asked);
        else    /* -x without a switch: the line's own algorithm as XOF */
            algorithm_tag(p->alg, 1, asked);
        snprintf(buf, size, "%s line, not checked with %s", l->tag, asked);
        break;
    case LINE_OTHER_LENGTH:
        snprintf(buf, size, "%s line, not checked at %llu bits (a key: only the length "
                 "chosen with -n or -l, or the default, is verified)", l->tag,
                 8 * (unsigned long long)p->want);
        break;
    default:
        snprintf(buf, size, "improperly formatted checksum line");
    }
}

/* An untagged digest of hex digits that did not fit: the switches of the
 * algorithms whose default output is that long, as EVP describes them,
 * kept for the list's summary (a k12.sum checked without --k12 said only
 * that nothing was formatted).  The first length some algorithm fits;
 * when none does, the first length, and the -n it needs. */
static void note_fits(check_run *c, size_t hex)
{
    size_t start, used;
    algorithm_facts f;
    char found[sizeof c->fits.text];

    if (c->fits.found || c->keyed || hex == c->fits.none)
        return;
    start = used = (size_t)snprintf(found, sizeof found, "lines of %zu hex digits fit "
                                    "the default length of ", hex);
    for (const algorithm *a = algorithms; a < algorithms + algorithm_count &&
                                          used < sizeof found; a++)
        if (algorithm_describe(c->lib, a, &f) &&
            2 * (f.fixed_size ? f.fixed_size : f.default_size) == hex)
            used += (size_t)snprintf(found + used, sizeof found - used, "%s--%s%s%s",
                                     used > start ? ", " : "", a->option,
                                     a->alias ? ", --" : "", a->alias ? a->alias : "");
    c->fits.found = used > start;
    c->fits.none = hex;
    if (c->fits.found)
        memcpy(c->fits.text, found, sizeof found);
    else if (c->fits.text[0] == '\0')
        snprintf(c->fits.text, sizeof c->fits.text, "lines of %zu hex digits fit no "
                 "algorithm's default length (give theirs: -n %zu)", hex, hex / 2);
}

/* The item of the line just read; 0 for a blank or comment line, which
 * counts nowhere. */
static int line_item(check_run *c, check_item *it)
{
    char *line = c->r.line;
    size_t len = c->r.len;
    check_line l;
    line_plan p;
    int fate = LINE_IMPROPER, hex = 0;

    if (len > 0 && line[len - 1] == '\n')
        line[--len] = '\0';
    if (len > 0 && line[len - 1] == '\r')
        line[--len] = '\0';
    if (len == 0 || line[0] == '#')
        return 0;
    if (check_parse_line(line, len, &c->form, &l)) {
        fate = line_algorithm(c, &l, &p);
        /* before check_entry decodes the digest in place */
        hex = l.tag == NULL && l.digest_len % 2 == 0 && is_hex(l.digest, l.digest_len);
    }
    if (fate == LINE_CHECKED && (fate = check_entry(c, &l, &p, it)) == LINE_IMPROPER && hex)
        note_fits(c, l.digest_len);
    if (fate == LINE_CHECKED)
        return 1;
    it->kind = ITEM_IMPROPER;
    /* With a key every line counts: the user hears of each one not verified. */
    it->say = !c->s->status && (c->s->warn || c->keyed);
    if (it->say)
        fate_text(c, &l, &p, fate, it->why, sizeof it->why);
    return 1;
}

static void warn_count(const char *file, unsigned long n, const char *one,
                       const char *many)
{
    if (n > 0)
        message_fail("WARNING: %s: %lu %s", file, n, n == 1 ? one : many);
}

/* Untagged lines that failed, and none that passed, when ksum chose the
 * algorithm: a list of sha256sum or b3sum is not a list of SHA3-256 (one
 * that passed says the list is, and a FAILED is a changed file). */
static void hint_default(const check_run *c, const char *file, const counts *n)
{
    char tag[ALGORITHM_TAG_MAX];

    /* guessed counts only lines checked when no algorithm was named */
    if (n->guessed == 0 || n->guessed_ok > 0)
        return;
    algorithm_tag(c->res->alg, 0, tag);
    message_fail("%s: untagged lines were checked as %s, since no algorithm was named; "
                 "name another with -a NAME or its switch (--sha3-512, --k12, ...)",
                 file, tag);
}

/* note_fits's switches, and how to name one. */
static void hint_fits(const char *file, const char *fits)
{
    if (*fits != '\0')
        message_fail("%s: %s; name the algorithm that made them with its switch or -a NAME",
                     file, fits);
}

static int summarize(const check_run *c, const char *file, const counts *n,
                     const char *fits)
{
    const check_spec *st = c->s;
    unsigned long verified = n->matched + n->mismatched + n->unreadable;
    const char *one = c->keyed ? "line was not verified" : "line is improperly formatted";
    const char *many = c->keyed ? "lines were not verified" : "lines are improperly formatted";

    if (verified + n->ignored == 0) {
        if (c->keyed && !st->status)
            warn_count(file, n->misformatted, one, many);
        message_fail("%s: no properly formatted checksum lines found", file);
        if (!st->status)
            hint_fits(file, fits);
        return 0;
    }
    if (!st->status) {
        hint_default(c, file, n);
        warn_count(file, n->misformatted, one, many);
        if (st->warn)
            hint_fits(file, fits);
        warn_count(file, n->lines_unread, "line could not be read", "lines could not be read");
        warn_count(file, n->unreadable, "listed file could not be read",
                   "listed files could not be read");
        warn_count(file, n->mismatched, "computed checksum did NOT match",
                   "computed checksums did NOT match");
        warn_count(file, n->keyless,
                   "KMAC line was checked with the empty key (no key given), which anyone "
                   "can compute",
                   "KMAC lines were checked with the empty key (no key given), which anyone "
                   "can compute");
        if (st->ignore_missing && verified == 0)
            message_fail("%s: no file was verified", file);
    }
    return n->mismatched == 0 && n->unreadable == 0 && n->lines_unread == 0 &&
           !((st->strict || c->keyed) && n->misformatted > 0) &&
           !(st->ignore_missing && verified == 0);
}

/* ---- the check files on the road ---- */

/* A check file that could not be read at all: reported in its place, and
 * no summary (no memory for it stops the run). */
static void list_failed(check_item *it, const char *path, int err)
{
    it->kind = ITEM_FAILED;
    it->label = path;
    it->err = err;
}

static void close_list(check_run *c)
{
    if (!c->is_stdin)
        close(c->r.fd);
    line_reader_free(&c->r);
    c->reading = 0;
}

/* Opens the next check file; 0, or why it cannot be read. */
static int open_list(check_run *c)
{
    int fd;

    c->path = *c->lists++;
    c->is_stdin = strcmp(c->path, "-") == 0;
    c->lineno = 0;
    c->form = CHECK_FORM_UNKNOWN;
    c->ending = 0;
    fd = c->is_stdin ? STDIN_FILENO : open(c->path, O_RDONLY | O_NOCTTY);
    if (fd < 0)
        return errno;
    c->reading = 1;
    if (!line_reader_init(&c->r, fd)) {
        close_list(c);
        return ENOMEM;
    }
    return 0;
}

/* The next item of the check file being read; after its last line, its
 * summary, and it is closed. */
static void list_item(check_run *c, check_item *it)
{
    int got, err = 0;

    do {
        got = c->ending ? LINE_END : line_next(&c->r, &err);
        it->lineno = ++c->lineno;
    } while (got == LINE_OK && !line_item(c, it));     /* blank or comment */
    if (got == LINE_END) {
        close_list(c);
        it->kind = ITEM_SUMMARY;
        snprintf(it->why, sizeof it->why, "%s", c->fits.text);
        memset(&c->fits, 0, sizeof c->fits);
    } else if (got == LINE_READ_ERROR && !c->r.read_any) {
        close_list(c);
        list_failed(it, c->path, err);  /* e.g. a directory */
    } else if (got != LINE_OK) {
        it->kind = ITEM_UNREAD;
        it->say = !c->s->status;
        snprintf(it->why, sizeof it->why, "line could not be read: %s",
                 strerror(got == LINE_TOO_LONG ? ENOMEM : err));
        /* After a read error, where the next line would start is unknown. */
        c->ending = got == LINE_READ_ERROR;
    }
}

/* The next item of the check files (road_client's next): a line to verify
 * names a regular file for a worker, unless it is the printing thread's. */
static int next_item(void *ctx, void *item, file_job *job, size_t *weight)
{
    check_run *c = ctx;
    check_item *it = item;
    int err;

    while (!c->reading) {
        if (*c->lists == NULL)
            return 0;
        if ((err = open_list(c)) != 0) {
            list_failed(it, c->path, err);
            return 1;
        }
    }
    it->label = c->is_stdin ? "standard input" : c->path;
    list_item(c, it);
    if (it->kind == ITEM_LINE && !it->here && it->err == 0) {
        job->path = it->names[0];
        job->d = &it->d;
        job->n = 1;
    }
    *weight = it->held;
    return 1;
}

/* The next item will not wait on the writer of a list on a pipe or
 * terminal (nor on opening the next list: a FIFO's open waits). */
static int item_ready(void *ctx)
{
    const check_run *c = ctx;

    if (!c->reading)
        return *c->lists == NULL;
    return c->ending || line_ready(&c->r);
}

static int print_item(void *ctx, void *item, file_result *r, file_progress *progress)
{
    check_run *c = ctx;
    check_item *it = item;

    c->in.progress = progress;
    if (it->kind != ITEM_LINE)
        progress_hold(c->pg);   /* verify holds it once hashed */
    switch (it->kind) {
    case ITEM_LINE:
        verify(c, it, r);
        break;
    case ITEM_IMPROPER:
        c->n.misformatted++;
        break;
    case ITEM_UNREAD:
        c->n.lines_unread++;
        break;
    case ITEM_FAILED:
        if (it->err == ENOMEM) {
            run_out(c, 0);
        } else {
            report_error(it->label, it->err, NULL);
            c->ok = 0;
        }
        break;
    default:
        c->ok &= summarize(c, it->label, &c->n, it->why);
        memset(&c->n, 0, sizeof c->n);
    }
    if (it->say)
        line_message(it->label, it->lineno, it->why);
    progress_resume(c->pg);
    return c->stop;
}

static void drop_item(void *ctx, void *item)
{
    (void)ctx;
    free(((check_item *)item)->mem);
}

/* A KMAC asked for without a key is checked with the empty key, which
 * anyone can compute: a forgotten --key-file would let any list pass. */
static void warn_keyless(const resolved *r, int status)
{
    /* an empty key file, or -k '' from a variable that was never set, is
     * that key as well */
    int none = !(r->hash.given & TAKES_KEY), empty = !none && r->hash.key_len == 0;

    for (size_t i = 0; (none || empty) && !status && i < r->nalgs; i++)
        if (r->named && (r->facts_of[i].takes & TAKES_KEY)) {
            message_fail("WARNING: %s: %s lines are checked with the empty key, which "
                         "anyone can compute", none ? "no key given" : "the key given is empty",
                         r->algs[i]->name);
            return;
        }
}

static int check_run_open(check_run *c, const resolved *r, const check_spec *s,
                          OSSL_LIB_CTX *lib, road *road)
{
    c->res = r;
    c->s = s;
    c->lib = lib;
    c->keyed = (r->hash.given & TAKES_KEY) != 0;
    c->xof_spec = r->hash;
    c->xof_spec.xof = 1;
    c->xof_spec.given |= TAKES_XOF;
    c->trees = (tree_check){r, &s->tree, &c->in, s->status};
    c->lists = s->lists;
    c->ok = 1;
    c->stdin_refusal = isatty(STDIN_FILENO) ? KSUM_ETTY : 0;
    for (char *const *f = s->lists; *f != NULL; f++)
        if (is_standard_input(*f))
            c->stdin_refusal = KSUM_ESTDIN;
    road_choose(road, r, lib, 1, 1);
    c->facts = calloc(CACHE_KEYS, sizeof(hasher));
    c->hashers = calloc(CACHE_KEYS, sizeof(hasher));
    if (c->facts == NULL || c->hashers == NULL || !input_init(&c->in, road->read_ahead))
        return 0;
    /* A check file may come from anywhere: a device or FIFO it names
     * could make ksum read forever. */
    c->in.regular_only = 1;
    return 1;
}

static void check_run_close(check_run *c)
{
    if (c->reading)
        close_list(c);   /* output stopped */
    cache_free(c->facts);
    cache_free(c->hashers);
    input_free(&c->in);
    free(c);
}

int check_files(const resolved *r, const check_spec *s, OSSL_LIB_CTX *lib,
                unsigned *applied)
{
    /* On the heap: the main stack may not grow (ulimit -s). */
    check_run *run = calloc(1, sizeof *run);
    road road;
    int ok;

    *applied = 0;
    if (run == NULL || !check_run_open(run, r, s, lib, &road)) {
        message_fail("out of memory");
        if (run != NULL)
            check_run_close(run);
        return 0;
    }
    warn_keyless(r, s->status);
    road_client c = {.item_size = sizeof(check_item), .next = next_item, .ready = item_ready,
                     .print = print_item, .drop = drop_item, .ctx = run, .nkeys = CACHE_KEYS};
    /* --status asks for silence: no display either */
    run->pg = progress_start(s->progress && !s->status);
    if (!road_run(&road, lib, &c, run->pg))
        run_out(run, 0);
    ok = run->ok && run->stop == 0;
    progress_stop(run->pg);
    if (run->stop == 0)
        *applied = run->applied;
    check_run_close(run);
    return ok;
}
