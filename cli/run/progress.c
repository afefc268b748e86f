/* SPDX-License-Identifier: Apache-2.0 */
#include "run/progress.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "base/messages.h"
#include "base/thread.h"

#define TICK_NS 250000000L      /* four times a second */
#define NAME_MAX_SHOWN 1024     /* bytes of a name kept (its end) */

struct progress {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    int stop, held, drawn;
    char name[NAME_MAX_SHOWN + 4];
    file_progress *current;
    /* The rate: bytes of the files shown so far, sampled at each tick. */
    uint64_t finished, last_total;
    double last_time, rate;
};

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A terminal whose writes fail is let be. */
static void erase(progress *pg)
{
    if (pg->drawn)
        write_all(STDERR_FILENO, "\r\033[K", 4);
    pg->drawn = 0;
}

/* "1.23 GiB" */
static void human(char *buf, size_t size, double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;

    while (bytes >= 1024 && u < 5) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, size, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
}

static void duration(char *buf, size_t size, double seconds)
{
    unsigned long s = seconds > 1e9 ? 999999999UL : (unsigned long)(seconds + 0.5);

    if (s >= 3600)
        snprintf(buf, size, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, size, "%lu:%02lu", s / 60, s % 60);
}

static unsigned terminal_width(void)
{
    struct winsize ws;

    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

/* "NAME: 1.20 GiB of 4.00 GiB (30%), 650.00 MiB/s, 0:04 left", the name
 * cut at its start to fit the terminal. */
static void draw(progress *pg)
{
    uint64_t done = atomic_load_explicit(&pg->current->done, memory_order_relaxed);
    uint64_t size = atomic_load_explicit(&pg->current->size, memory_order_relaxed);
    char stats[160], a[32], b[32], r[32], left[32], line[NAME_MAX_SHOWN + 200];
    const char *name = pg->name, *cut = "";
    unsigned width = terminal_width();
    size_t room;

    human(a, sizeof a, (double)done);
    human(r, sizeof r, pg->rate);
    if (size != FILE_SIZE_UNKNOWN && size >= done) {
        human(b, sizeof b, (double)size);
        duration(left, sizeof left, pg->rate > 0 ? (double)(size - done) / pg->rate : 0);
        snprintf(stats, sizeof stats, ": %s of %s (%u%%), %s/s, %s left", a, b,
                 size ? (unsigned)(done * 100 / size) : 100, r, left);
    } else {
        snprintf(stats, sizeof stats, ": %s, %s/s", a, r);
    }
    /* One column is left free, so that the terminal never wraps: a line
     * that wrapped would leave its first rows behind at each redraw.  On
     * a narrow terminal the numbers too are cut. */
    if (strlen(stats) + 5 > width)
        stats[width - 5] = '\0';  /* width >= 20 */
    room = width - strlen(stats) - 1;
    /* A name takes at most a column a byte: no character is wider than its
     * UTF-8 bytes (CJK's take two columns for three), a byte that is no
     * UTF-8 shows as one replacement character, and the C locale ksum runs
     * in cannot tell more.  It is cut at a character's start. */
    if (strlen(name) > room) {
        name += strlen(name) - (room - 3);
        while (((unsigned char)*name & 0xC0) == 0x80)
            name++;
        cut = "...";
    }
    snprintf(line, sizeof line, "\r%s%s%s\033[K", cut, name, stats);
    write_all(STDERR_FILENO, line, strlen(line));
    pg->drawn = 1;
}

/* The rate of the bytes of the files shown, smoothed over a few ticks. */
static void sample(progress *pg)
{
    uint64_t total = pg->finished;
    double t = now(), dt = t - pg->last_time;

    if (pg->current != NULL)
        total += atomic_load_explicit(&pg->current->done, memory_order_relaxed);
    if (dt <= 0)
        return;
    double instant = (double)(total - pg->last_total) / dt;
    pg->rate = pg->rate == 0 ? instant : 0.7 * pg->rate + 0.3 * instant;
    pg->last_total = total;
    pg->last_time = t;
}

static void *display(void *arg)
{
    progress *pg = arg;
    struct timespec until;

    pthread_mutex_lock(&pg->mu);
    clock_gettime(CLOCK_REALTIME, &until);
    while (!pg->stop) {
        until.tv_nsec += TICK_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!pg->stop &&
               pthread_cond_timedwait(&pg->wake, &pg->mu, &until) != ETIMEDOUT)
            ;
        if (pg->stop)
            break;
        sample(pg);
        if (!pg->held && pg->current != NULL)
            draw(pg);
    }
    erase(pg);
    pthread_mutex_unlock(&pg->mu);
    return NULL;
}

progress *progress_start(int wanted)
{
    progress *pg;

    if (!wanted || !isatty(STDERR_FILENO) || (pg = calloc(1, sizeof *pg)) == NULL)
        return NULL;
    pthread_mutex_init(&pg->mu, NULL);
    pthread_cond_init(&pg->wake, NULL);
    pg->last_time = now();
    if (thread_start(&pg->thread, display, pg) != 0) {
        pthread_cond_destroy(&pg->wake);
        pthread_mutex_destroy(&pg->mu);
        free(pg);
        return NULL;  /* no display: hashing goes on */
    }
    return pg;
}

void progress_stop(progress *pg)
{
    if (pg == NULL)
        return;
    pthread_mutex_lock(&pg->mu);
    pg->stop = 1;
    pthread_cond_signal(&pg->wake);
    pthread_mutex_unlock(&pg->mu);
    pthread_join(pg->thread, NULL);
    pthread_cond_destroy(&pg->wake);
    pthread_mutex_destroy(&pg->mu);
    free(pg);
}

/* The name as ksum prints names (escaped), its end kept. */
static void copy_name(progress *pg, const char *name)
{
    char *buf = NULL;
    size_t len = 0, keep;
    FILE *f = open_memstream(&buf, &len);

    pg->name[0] = '\0';
    if (f == NULL)
        return;
    print_name(f, name, name_needs_escape(name));
    if (fclose(f) == 0 && buf != NULL) {
        keep = len < NAME_MAX_SHOWN ? len : NAME_MAX_SHOWN;
        memcpy(pg->name, buf + len - keep, keep);
        pg->name[keep] = '\0';
    }
    free(buf);
}

void progress_show(progress *pg, const char *name, file_progress *p)
{
    if (pg == NULL)
        return;
    pthread_mutex_lock(&pg->mu);
    if (pg->current != NULL)
        pg->finished += atomic_load_explicit(&pg->current->done, memory_order_relaxed);
    pg->current = p;
    if (name != NULL)
        copy_name(pg, name);
    pthread_mutex_unlock(&pg->mu);
}

void progress_hold(progress *pg)
{
    if (pg == NULL)
        return;
    pthread_mutex_lock(&pg->mu);
    erase(pg);
    pg->held = 1;
    pthread_mutex_unlock(&pg->mu);
}

void progress_resume(progress *pg)
{
    if (pg == NULL)
        return;
    pthread_mutex_lock(&pg->mu);
    pg->held = 0;
    pthread_mutex_unlock(&pg->mu);
}
