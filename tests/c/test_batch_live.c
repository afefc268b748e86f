/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Batch groups (KSUM_PARAM_BATCH) while other threads absorb long updates
 * in them: a join, an update and a final of another context end within a
 * second; two long updates of one group run at the same time; fork() in
 * the middle of them leaves the child's group contexts usable.  A hang is
 * a failure here: an alarm ends the test with the name of what hung.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static OSSL_LIB_CTX *lib;
static EVP_MD *sha3;
#define LONG_LEN (8u << 20)  /* a long update: far over the pending bound */
static uint8_t *msg;         /* LONG_LEN random bytes */

/* ---- hangs end the test ---- */

static const char *watched;

static void on_alarm(int sig)
{
    static const char text[] = "FAIL: hung in ";

    (void)sig;
    if (write(2, text, sizeof text - 1) < 0 || write(2, watched, strlen(watched)) < 0 ||
        write(2, "\n", 1) < 0)
        _exit(3);
    _exit(3);
}

static void watch(const char *what, unsigned seconds)
{
    watched = what;
    alarm(seconds);
}

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- SHA3-256 contexts, in a group or not ---- */

static EVP_MD_CTX *open_in(uint64_t id)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint64(KSUM_PARAM_BATCH, &id),
                      OSSL_PARAM_construct_end()};

    if (c != NULL && !EVP_DigestInit_ex2(c, sha3, p)) {
        EVP_MD_CTX_free(c);
        return NULL;
    }
    return c;
}

static int final_of(EVP_MD_CTX *c, uint8_t out[32])
{
    unsigned n;

    return EVP_DigestFinal_ex(c, out, &n) && n == 32;
}

/* The unbatched digest of `times` copies of in[0 .. len), then tail. */
static void expect(const uint8_t *in, size_t len, unsigned long times,
                   const uint8_t *tail, size_t tail_len, uint8_t out[32])
{
    EVP_MD_CTX *c = open_in(0);
    int ok = c != NULL;

    for (unsigned long i = 0; i < times && ok; i++)
        ok = EVP_DigestUpdate(c, in, len);
    ok = ok && EVP_DigestUpdate(c, tail, tail_len) && final_of(c, out);
    CHECK(ok, "unbatched digest");
    EVP_MD_CTX_free(c);
}

/* ---- a thread looping long updates in a group ---- */

/* After each long update, SMALLS of `between` bytes, if not 0. */
#define SMALLS 128

typedef struct looper {
    pthread_t thread;
    uint64_t id;
    size_t between;
    EVP_MD_CTX *ctx;
    atomic_int stop;
    atomic_ulong done;   /* long updates completed */
    int ok;
} looper;

static void *loop_long(void *arg)
{
    looper *l = arg;

    l->ok = 1;
    while (!atomic_load(&l->stop) && l->ok) {
        l->ok = EVP_DigestUpdate(l->ctx, msg, LONG_LEN);
        atomic_fetch_add(&l->done, 1);
        for (int i = 0; i < SMALLS && l->between > 0; i++)
            l->ok &= EVP_DigestUpdate(l->ctx, msg + i, l->between);
    }
    return NULL;
}

static void looper_start(looper *l, uint64_t id, size_t between)
{
    memset(l, 0, sizeof *l);
    l->id = id;
    l->between = between;
    l->ctx = open_in(id);
    CHECK(l->ctx != NULL && pthread_create(&l->thread, NULL, loop_long, l) == 0,
          "start a thread of long updates");
    while (atomic_load(&l->done) == 0) /* it is in the group's way from here */
        usleep(1000);
}

/* The unbatched digest of what l was given. */
static void expect_looper(const looper *l, uint8_t out[32])
{
    EVP_MD_CTX *c = open_in(0);
    int ok = c != NULL;

    for (unsigned long n = 0; n < atomic_load(&l->done) && ok; n++) {
        ok = EVP_DigestUpdate(c, msg, LONG_LEN);
        for (int i = 0; i < SMALLS && l->between > 0; i++)
            ok &= EVP_DigestUpdate(c, msg + i, l->between);
    }
    CHECK(ok && final_of(c, out), "unbatched digest");
    EVP_MD_CTX_free(c);
}

/* Stops the thread; its digest must be that of its updates. */
static void looper_stop(looper *l)
{
    uint8_t got[32], want[32];

    atomic_store(&l->stop, 1);
    pthread_join(l->thread, NULL);
    CHECK(l->ok && final_of(l->ctx, got), "long updates");
    expect_looper(l, want);
    CHECK(memcmp(got, want, 32) == 0, "the digest of %lu long updates in group %llu",
          atomic_load(&l->done), (unsigned long long)l->id);
    EVP_MD_CTX_free(l->ctx);
}

/* ---- an update stopped in the middle until others have moved ----
 *
 * Not timed: the input of a long update has a page that cannot be read,
 * so the update stops inside the kernel reading it, until the fault
 * handler has seen another thread's progress counter grow by `more`, or
 * until 20 s have passed; then the page is made readable and the update
 * goes on.  A group's lock held while permuting keeps the others still. */

static uint8_t *gate; /* the page the update stops at */
static size_t page;
static atomic_ulong *gate_progress;
static unsigned long gate_more;
static atomic_int gate_passed; /* the progress was seen */

static void on_gate(int sig, siginfo_t *si, void *uc)
{
    unsigned long start = atomic_load(gate_progress);
    struct timespec nap = {0, 1000000};
    double until = now() + 20;

    (void)sig, (void)uc;
    if ((uint8_t *)si->si_addr < gate || (uint8_t *)si->si_addr >= gate + page)
        _exit(4); /* a real fault */
    while (atomic_load(gate_progress) < start + gate_more && now() < until)
        nanosleep(&nap, NULL);
    atomic_store(&gate_passed, atomic_load(gate_progress) >= start + gate_more);
    mprotect(gate, page, PROT_READ | PROT_WRITE);
}

/* A long update of msg by a (then its final, checked; a is freed)
 * stopped half-way until *progress has grown by more; returns whether it
 * had. */
static int gated_update(EVP_MD_CTX *a, atomic_ulong *progress, unsigned long more)
{
    struct sigaction sa, old;
    uint8_t *in, got[32], want[32];

    page = (size_t)sysconf(_SC_PAGESIZE);
    in = mmap(NULL, LONG_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(a != NULL && in != MAP_FAILED, "set up a gated update");
    if (a == NULL || in == MAP_FAILED) {
        EVP_MD_CTX_free(a);
        return 0;
    }
    memcpy(in, msg, LONG_LEN);
    gate = in + LONG_LEN / 2;
    gate_progress = progress;
    gate_more = more;
    atomic_store(&gate_passed, 0);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_gate;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, &old);
    mprotect(gate, page, PROT_NONE);
    CHECK(EVP_DigestUpdate(a, in, LONG_LEN) && final_of(a, got), "the gated update");
    sigaction(SIGSEGV, &old, NULL);
    expect(msg, LONG_LEN, 1, NULL, 0, want);
    CHECK(memcmp(got, want, 32) == 0, "the gated update's digest");
    munmap(in, LONG_LEN);
    EVP_MD_CTX_free(a);
    return atomic_load(&gate_passed);
}

/* ---- (1) a join, an update and a final beside long updates ---- */

typedef struct joiner {
    pthread_t thread;
    uint64_t id;
    uint8_t want[32];  /* the digest of msg + 3, 1000 bytes */
    atomic_int stop;
    atomic_ulong done; /* joins, updates and finals completed */
    int ok;
} joiner;

/* Joins the group, hashes a little, leaves; again and again. */
static void *join_again(void *arg)
{
    joiner *j = arg;

    j->ok = 1; /* no CHECK on this thread: the counters are not atomic */
    while (!atomic_load(&j->stop) && j->ok) {
        EVP_MD_CTX *b = open_in(j->id);
        uint8_t got[32];
        j->ok = b != NULL && EVP_DigestUpdate(b, msg + 3, 1000) && final_of(b, got) &&
                memcmp(got, j->want, 32) == 0;
        EVP_MD_CTX_free(b);
        atomic_fetch_add(&j->done, 1);
    }
    return NULL;
}

/* Timed, as reported: joins while a thread loops long updates. */
static void timed_joins(void)
{
    looper a;
    double worst = 0;

    looper_start(&a, 1, 0);
    for (int i = 0; i < 10; i++) {
        double t = now();
        EVP_MD_CTX *b = open_in(1);
        uint8_t got[32], want[32];
        int ok = b != NULL && EVP_DigestUpdate(b, msg + i, 1000) && final_of(b, got);
        t = now() - t;
        worst = t > worst ? t : worst;
        expect(msg + i, 1000, 1, NULL, 0, want);
        CHECK(ok && memcmp(got, want, 32) == 0, "join, update, final beside long updates");
        CHECK(t < 1.0, "join, update, final took %.3f s beside long updates", t);
        EVP_MD_CTX_free(b);
        usleep(3000);
    }
    looper_stop(&a);
    printf("join, update, final beside long updates: at most %.1f ms\n", worst * 1e3);
}

/* Not timed: three joins, updates and finals while a long update of the
 * group stands still. */
static void gated_joins(void)
{
    joiner j = {.id = 1};

    expect(msg + 3, 1000, 1, NULL, 0, j.want);
    CHECK(pthread_create(&j.thread, NULL, join_again, &j) == 0, "start joins");
    CHECK(gated_update(open_in(1), &j.done, 3),
          "no join, update and final while a long update was under way in the group");
    atomic_store(&j.stop, 1);
    pthread_join(j.thread, NULL);
    CHECK(j.ok, "joins beside a long update: their digests");
}

static void test_join_beside_long(void)
{
    watch("a join beside long updates", 120);
    timed_joins();
    gated_joins();
    alarm(0);
}

/* ---- (2) two long updates of one group at the same time ---- */

static void test_long_updates_together(void)
{
    looper b;

    watch("two long updates of one group", 120);
    looper_start(&b, 2, 0);
    CHECK(gated_update(open_in(2), &b.done, 2),
          "B completed no two long updates while A's was under way in their group");
    looper_stop(&b);
    alarm(0);
}

/* ---- (3) fork() while another thread absorbs in the group ---- */

#define FORKS 20
#define PART 20000

/* In the child: x (which the looper's flushes may have taken along) and a
 * new context of the group each hash a little more; both digests go to
 * fd.  The looper's context, whose thread is not in the child, can still
 * be freed. */
static void child(EVP_MD_CTX *x, EVP_MD_CTX *looper_ctx, int fd)
{
    uint8_t out[64];
    EVP_MD_CTX *y;
    int ok;

    watch("a child's update after fork", 10); /* the parent counts it */
    ok = EVP_DigestUpdate(x, msg + 5, 1000) && final_of(x, out);
    y = open_in(7);
    ok = ok && y != NULL && EVP_DigestUpdate(y, msg, 100000) &&
         EVP_DigestUpdate(y, msg, 30000) && final_of(y, out + 32);
    EVP_MD_CTX_free(looper_ctx);
    EVP_MD_CTX_free(y);
    EVP_MD_CTX_free(x);
    _exit(ok && write(fd, out, 64) == 64 ? 0 : 1);
}

/* What the child wrote, within 15 s; 0: nothing (it hung, or failed). */
static int from_child(pid_t pid, int fd, uint8_t out[64])
{
    struct pollfd p = {fd, POLLIN, 0};
    int status, got = poll(&p, 1, 15000) == 1 && read(fd, out, 64) == 64;

    if (!got)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return got && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_fork_beside_long(void)
{
    looper a;
    EVP_MD_CTX *x = open_in(7);
    uint8_t want[64], out[64], *hist = malloc(FORKS * PART + 1000);
    int hung = 0, wrong = 0;

    watch("fork beside long updates", 600);
    /* Between long updates, updates that flush the pending bytes: fork()
     * lands in the middle of a flush too. */
    looper_start(&a, 7, 60000);
    expect(msg, 100000, 1, msg, 30000, want + 32);
    for (int i = 0; i < FORKS; i++) {
        int fds[2];
        pid_t pid;
        /* x holds whole blocks back: the looper's updates take them along */
        memcpy(hist + i * PART, msg + 77 * i, PART);
        CHECK(EVP_DigestUpdate(x, msg + 77 * i, PART), "x before fork");
        usleep(1000 + 500 * i); /* the looper is well inside an update */
        if (pipe(fds) != 0 || (pid = fork()) < 0) {
            CHECK(0, "pipe or fork");
            break;
        }
        if (pid == 0)
            child(x, a.ctx, fds[1]);
        close(fds[1]);
        memcpy(hist + (i + 1) * PART, msg + 5, 1000);
        expect(hist, (i + 1) * PART + 1000, 1, NULL, 0, want);
        if (!from_child(pid, fds[0], out))
            hung++;
        else if (memcmp(out, want, 64) != 0)
            wrong++;
        close(fds[0]);
        usleep(2000);
    }
    CHECK(hung == 0, "%d of %d children hung or failed", hung, FORKS);
    CHECK(wrong == 0, "%d of %d children printed a wrong digest", wrong, FORKS);
    looper_stop(&a);
    EVP_MD_CTX_free(x);
    free(hist);
    alarm(0);
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    lib = test_libctx(0);
    sha3 = EVP_MD_fetch(lib, "SHA3-256", "provider=ksumprov");
    msg = malloc(LONG_LEN);
    test_random(msg, LONG_LEN);
    test_join_beside_long();
    test_long_updates_together();
    test_fork_beside_long();
    free(msg);
    EVP_MD_free(sha3);
    test_libctx_free(lib);
    return test_summary("test_batch_live");
}
