/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "base/messages.h"

#include <errno.h>
#include <limits.h>
#include <openssl/err.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- standard output, in whole lines ---- */

/* Several processes may write one pipe (xargs -P), where a write() of at
 * most PIPE_BUF bytes is atomic: standard output is held here and written
 * in whole lines only, at most PIPE_BUF bytes of them a write, or one
 * longer line alone (pieces only of a line longer than OUT_HELD).  stdout
 * becomes a stream over this, so that every printer keeps stdio; its own
 * buffer, flushed here at any byte, saves a call a piece.  Written by one
 * thread at a time: the stream's lock. */
#define OUT_HELD ((size_t)64 << 10)
#define OUT_STDIO ((size_t)16 << 10)

static struct {
    char buf[OUT_HELD];
    size_t len;     /* bytes held */
    size_t done;    /* of them, whole lines: at most PIPE_BUF */
    char end;       /* what ends a line: '\n', or NUL with --zero */
    int err;        /* the errno of the write that failed; 0: none */
    int closed;     /* stdout was closed: nothing to flush at exit */
    int terminal;   /* each line written at once, as stdio does there */
} out = {.end = '\n'};

static int write_all(const char *p, size_t n)
{
    while (n > 0 && out.err == 0) {
        ssize_t k = write(STDOUT_FILENO, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            out.err = k < 0 ? errno : EIO;
        else
            p += k, n -= (size_t)k;
    }
    return out.err == 0;
}

/* Writes the first n bytes held, in one write, and keeps the rest. */
static int emit(size_t n)
{
    int ok = n == 0 || write_all(out.buf, n);

    memmove(out.buf, out.buf + n, out.len - n);
    out.len -= n;
    out.done = out.done > n ? out.done - n : 0;
    return ok;
}

/* A line ended at out.len: it joins the lines held, or when that would
 * pass PIPE_BUF they go first, and it alone too when it is longer. */
static int line_ended(void)
{
    if (out.terminal)
        return emit(out.len);
    if (out.len > PIPE_BUF && !emit(out.done))
        return 0;
    out.done = out.len;
    return out.len <= PIPE_BUF || emit(out.len);
}

/* Each piece held up to a line end or to a full buffer, which then goes
 * out as its whole lines, or as the start of a line longer than it. */
static ssize_t stream_write(void *cookie, const char *p, size_t n)
{
    (void)cookie;
    for (size_t left = n; left > 0 && out.err == 0;) {
        size_t take = left < OUT_HELD - out.len ? left : OUT_HELD - out.len;
        const char *end = memchr(p, out.end, take);

        if (end != NULL)
            take = (size_t)(end - p) + 1;
        memcpy(out.buf + out.len, p, take);
        out.len += take;
        p += take;
        left -= take;
        if (end != NULL)
            line_ended();
        else if (out.len == OUT_HELD)
            emit(out.done > 0 ? out.done : out.len);
    }
    errno = out.err;
    return out.err == 0 ? (ssize_t)n : -1;
}

static int stream_close(void *cookie)
{
    (void)cookie;
    if (out.closed)
        return 0;   /* a stream output_open gave up: standard output is not its */
    out.closed = 1;
    if (!emit(out.len)) {
        errno = out.err;
        return -1;
    }
    return close(STDOUT_FILENO);
}

/* What is held, written: before a message, and at exit. */
static void output_flush(void)
{
    if (out.closed)
        return;
    fflush(stdout);     /* at exit, before stdio's own flush */
    flockfile(stdout);
    emit(out.len);
    funlockfile(stdout);
}

void output_open(void)
{
    static const cookie_io_functions_t io = {NULL, stream_write, NULL, stream_close};
    FILE *f = fopencookie(NULL, "w", io);
    int terminal = isatty(STDOUT_FILENO);

    /* Without it, stdio's blocks: lines may tear, nothing is lost.  Its
     * close must then leave standard output open. */
    if (f == NULL || setvbuf(f, NULL, terminal ? _IOLBF : _IOFBF, OUT_STDIO) != 0) {
        out.closed = 1;
        if (f != NULL)
            fclose(f);
        out.closed = 0;
        return;
    }
    fflush(stdout);
    out.terminal = terminal;
    stdout = f;
    atexit(output_flush);   /* an exit before output_close (--help) */
}

void output_line_end(char end)
{
    out.end = end;
}

FILE *message_stream(void)
{
    if (!ferror(stdout))
        output_flush();  /* a failure here is reported by output_ok */
    return stderr;
}

/* Appends to buf[*n..size) what fits. */
static void append(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (*n + 1 >= size)
        return;
    va_start(ap, fmt);
    k = vsnprintf(buf + *n, size - *n, fmt, ap);
    va_end(ap);
    if (k > 0)
        *n = *n + (size_t)k < size ? *n + (size_t)k : size - 1;
}

/* OpenSSL's reason, and the provider's (whose codes are its own). */
static int memory_reason(unsigned long e, const char *reason)
{
    return ERR_GET_REASON(e) == ERR_R_MALLOC_FAILURE ||
           (reason != NULL && (strcmp(reason, "out of memory") == 0 ||
                               strcmp(reason, "malloc failure") == 0));
}

int openssl_reason(char *buf, size_t size)
{
    const char *data;
    int flags, memory = 0;
    unsigned long e;
    size_t n = 0;

    buf[0] = '\0';
    while ((e = ERR_get_error_all(NULL, NULL, NULL, &data, &flags)) != 0) {
        const char *reason = ERR_reason_error_string(e);
        memory |= memory_reason(e, reason);
        if (reason != NULL)
            append(buf, size, &n, "%s%s", n > 0 ? "; " : "", reason);
        else
            append(buf, size, &n, "%serror %lx", n > 0 ? "; " : "", e);
        if ((flags & ERR_TXT_STRING) && data != NULL && *data != '\0')
            append(buf, size, &n, " (%s)", data);
    }
    if (n == 0)
        append(buf, size, &n, "no reason given");
    return memory;
}

int openssl_memory_failure(char *buf, size_t size)
{
    return openssl_reason(buf, size) || strcmp(buf, "no reason given") == 0;
}

int output_ok(void)
{
    /* Standard output is the program's one output; whether its failure was
     * reported belongs with it. */
    static int reported;
    int err = out.err != 0 ? out.err : errno;

    if (!ferror(stdout) && out.err == 0)
        return 1;
    if (!reported) {
        reported = 1;
        __fpurge(stdout);
        out.len = out.done = 0;
        fprintf(stderr, "ksum: write error: %s\n", strerror(err));
    }
    return 0;
}

int output_close(void)
{
    int ok;

    if (output_ok())
        fflush(stdout);
    ok = output_ok();   /* reports a failed flush */
    if (fclose(stdout) != 0 && ok) {
        fprintf(stderr, "ksum: write error: %s\n", strerror(errno));
        ok = 0;
    }
    return ok;
}

int names_need_escape(char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (name_needs_escape(names[i]))
            return 1;
    return 0;
}

void print_names(FILE *f, char *const *names, size_t n, int escape)
{
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            putc('\t', f);
        print_name(f, names[i], escape);
    }
}

static const char *error_text(int err)
{
    switch (err) {
    case KSUM_ECHANGED: return "file changed while it was read";
    case KSUM_ENOTREG: return "not a regular file";
    case KSUM_ESTDIN: return "standard input is the checksum list being read";
    case KSUM_ETTY: return "standard input is a terminal";
    case KSUM_ESPILL: return "a stream over 32 MiB needs a temporary file (TMPDIR or /tmp): cannot write one";
    case KSUM_ETAB: return "a name with a tab cannot be joined to others with -z";
    case KSUM_ELOOP: return "file system loop: not followed";
    case KSUM_ESPECIAL: return "not a regular file: skipped";
    case KSUM_ESYMLINK: return "symbolic link: skipped (-L follows them)";
    case KSUM_ELISTSTDIN: return "standard input is the list of names being read";
    case KSUM_ETREE: return "no tree digest: errors in the tree";
    case KSUM_ETREELINE: return "a directory tree's line: check it with --tree";
    default: return strerror(err);
    }
}

void report_error(const char *name, int err, const char *why)
{
    char reason[512];
    /* an empty name as '': "ksum: : No such file" says nothing */
    const char *shown = name[0] == '\0' ? "''" : name;
    FILE *f;

    if (err == KSUM_EHASH) {
        if (why == NULL)
            openssl_reason(reason, sizeof reason);
        message_fail("%s: hashing failed: %s", shown, why != NULL ? why : reason);
        return;
    }
    /* here why follows the reason as given, unescaped */
    f = message_stream();
    fputs("ksum: ", f);
    print_name(f, shown, name_needs_escape(shown));
    fprintf(f, ": %s%s%s\n", error_text(err), why != NULL ? ": " : "", why != NULL ? why : "");
}

/* ---- usage errors ---- */

void usage_hint(void)
{
    fprintf(message_stream(), "Try 'ksum --help' for more information.\n");
}

int bad_value(const char *what, const char *value, const char *why)
{
    return usage_error("invalid %s '%s': %s", what, value, why);
}

/* "ksum: MESSAGE" on one line: a message names files, records and the
 * objects records name, any of which may hold a newline that would print
 * a line of its own ("secret.bin: OK"), so the whole is escaped as a name
 * is (the formats themselves hold no backslash or control character). */
static void vmessage(const char *fmt, va_list ap)
{
    FILE *f = message_stream();
    char small[1024], *text = small;
    const char *shown;
    va_list again;
    int n;

    va_copy(again, ap);
    n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && vasprintf(&text, fmt, again) < 0)
        text = small;   /* out of memory: the start of it */
    va_end(again);
    /* one that cannot be formatted at all: what it was to say */
    shown = n < 0 ? fmt : text;
    fputs("ksum: ", f);
    print_name(f, shown, name_needs_escape(shown));
    fputc('\n', f);
    if (text != small)
        free(text);
}

int message_fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    return 0;
}

int usage_error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    usage_hint();
    return 0;
}
