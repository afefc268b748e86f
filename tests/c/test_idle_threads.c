/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Idle helper threads exit and come back: 200 live K12
 * contexts with 8 threads each hold no threads a second after their last
 * update, hash correctly when used again, and leave no thread behind when
 * freed; a pool whose threads timed out, used again, then forked, goes on
 * in the child; and a stress of the pool itself with a 1 ms idle time, so
 * that helpers leave while jobs are posted and pools are freed (run under
 * ThreadSanitizer in CI); and no helper at all for a small message.  Thread counts are those of /proc/self/task.
 */
#include <dirent.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../provider/modes/parallel.h"
#include "testutil.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TSAN 1
#endif
#endif

/* See test_module.c: under ThreadSanitizer a child of a process that had
 * threads hashes on one thread.  Its runtime also has a thread of its own,
 * and cannot know that the parent's helpers do not exist in a child: there
 * it takes the memory they touched for a race (so under it the child leaves
 * its context to _exit), and a helper that exited but was not yet joined
 * at fork() for a leaked thread (so the fork while helpers are gone is not
 * run under it). */
#ifdef TSAN
#define CHILD_THREADS 1
#define RUNTIME_THREADS 1
#else
#define CHILD_THREADS 4
#define RUNTIME_THREADS 0
#endif

/* Fewer under the sanitizers, which make hashing slow enough for the
 * first contexts' helpers to rest before the last ones start. */
#ifdef SANITIZED
#define CONTEXTS 40
#else
#define CONTEXTS 200
#endif
/* Enough for 8 threads of K12: 8 * 256 KiB of whole leaf groups after the
 * first chunk. */
#define PART ((size_t)3 << 20)

static OSSL_LIB_CTX *lib;

static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Waits up to limit seconds for the thread count to reach at most want;
 * returns the seconds it took, or -1. */
static double wait_for_threads(int want, double limit)
{
    double start = now();

    while (thread_count() > want) {
        if (now() - start > limit)
            return -1;
        usleep(20000);
    }
    return now() - start;
}

static EVP_MD_CTX *k12_with_threads(EVP_MD *md, unsigned threads)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &threads),
                      OSSL_PARAM_construct_end()};

    if (ctx != NULL && !EVP_DigestInit_ex2(ctx, md, p)) {
        EVP_MD_CTX_free(ctx);
        ctx = NULL;
    }
    return ctx;
}

/* K12 of in[0, 2 * PART) on the calling thread alone. */
static void reference(EVP_MD *md, const uint8_t *in, uint8_t want[32])
{
    EVP_MD_CTX *ctx = k12_with_threads(md, 1);

    CHECK(ctx != NULL && EVP_DigestUpdate(ctx, in, 2 * PART) &&
              EVP_DigestFinalXOF(ctx, want, 32), "single-thread K12");
    EVP_MD_CTX_free(ctx);
}

/* A message of one chunk never reaches the tree, and a few small leaves
 * are not worth a helper (tree.c's threads_for): no thread is started,
 * whatever the threads parameter says, on any backend's lanes. */
static void test_small_messages(EVP_MD *md, const uint8_t *in)
{
    static const size_t lens[] = {0, 1, 8191, 8192, 8193, 3 * 8192, 64 << 10};
    int base = thread_count();

    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        EVP_MD_CTX *ctx = k12_with_threads(md, 256);
        uint8_t out[32];
        int during;
        CHECK(ctx != NULL && EVP_DigestUpdate(ctx, in, lens[i]), "K12 update");
        during = thread_count();
        CHECK(ctx != NULL && EVP_DigestFinalXOF(ctx, out, 32), "K12 final");
        CHECK(during == base && thread_count() == base,
              "K12 of %zu bytes started a thread: %d threads, %d before", lens[i],
              during, base);
        EVP_MD_CTX_free(ctx);
    }
}

static void test_idle_contexts(EVP_MD *md, const uint8_t *in, const uint8_t want[32])
{
    EVP_MD_CTX *ctx[CONTEXTS];
    int base = thread_count(), busy, rested, again = 0, freed;
    double took;
    int bad = 0;

    for (int i = 0; i < CONTEXTS; i++) {
        ctx[i] = k12_with_threads(md, 8);
        bad += ctx[i] == NULL || !EVP_DigestUpdate(ctx[i], in, PART);
    }
    busy = thread_count();
    took = wait_for_threads(base + RUNTIME_THREADS, 10);
    rested = thread_count();
    CHECK(bad == 0, "%d of %d contexts failed their first update", bad, CONTEXTS);
    CHECK(busy > base, "no helper threads started (%d threads, %d before)", busy, base);
    CHECK(took >= 0, "idle helpers still there after 10 s: %d threads, %d before",
          rested, base);

    for (int i = 0; i < CONTEXTS; i++) {
        uint8_t got[32];
        if (ctx[i] == NULL || !EVP_DigestUpdate(ctx[i], in + PART, PART))
            bad++;
        else if (i == CONTEXTS - 1)
            again = thread_count();
        if (ctx[i] != NULL && (!EVP_DigestFinalXOF(ctx[i], got, 32) ||
                               memcmp(got, want, 32) != 0))
            bad++;
    }
    CHECK(bad == 0, "%d contexts differ from one thread after their helpers rested", bad);
    CHECK(again > base, "no helper threads started again (%d threads)", again);
    for (int i = 0; i < CONTEXTS; i++)
        EVP_MD_CTX_free(ctx[i]);
    /* Joined threads may stay listed for a moment. */
    wait_for_threads(base + RUNTIME_THREADS, 2);
    freed = thread_count();
    CHECK(freed <= base + RUNTIME_THREADS,
          "%d threads after freeing every context, %d before", freed, base);
    printf("%d contexts x 8 threads: %d threads before, %d after the first updates, "
           "%d after %.2f s idle, %d while used again, %d after free\n",
           CONTEXTS, base, busy, rested, took, again, freed);
}

/* A context whose helpers timed out, then ran again, goes on in a child
 * after fork(): the same result as in the parent; the same for a context
 * forked while its helpers are gone. */
static void test_fork_after_rest(EVP_MD *md, const uint8_t *in, const uint8_t want[32],
                                 int used_after_rest)
{
    if (skip_fork_with_threads(used_after_rest
                                   ? "test_idle_threads: fork after the helpers rested and ran"
                                   : "test_idle_threads: fork while the helpers rest"))
        return;
    int base = thread_count();
    EVP_MD_CTX *ctx = k12_with_threads(md, 4);
    uint8_t got[32], child[32];
    int fds[2], status;
    pid_t pid;

    CHECK(ctx != NULL && EVP_DigestUpdate(ctx, in, PART / 2), "K12 before rest");
    CHECK(wait_for_threads(base + RUNTIME_THREADS, 10) >= 0,
          "helpers did not exit while idle");
    if (used_after_rest)
        CHECK(EVP_DigestUpdate(ctx, in + PART / 2, PART / 2) &&
                  thread_count() > base + RUNTIME_THREADS,
              "K12 after rest started no thread");
    else
        CHECK(EVP_DigestUpdate(ctx, in + PART / 2, 1000), "K12 after rest");
    if (pipe(fds) != 0 || (pid = fork()) < 0) {
        CHECK(0, "pipe or fork failed");
        return;
    }
    size_t done = used_after_rest ? PART : PART / 2 + 1000;
    if (pid == 0) {
        unsigned threads = CHILD_THREADS;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_uint(KSUM_PARAM_THREADS, &threads),
                          OSSL_PARAM_construct_end()};
        int ok = EVP_MD_CTX_set_params(ctx, p) &&
                 EVP_DigestUpdate(ctx, in + done, 2 * PART - done) &&
                 EVP_DigestFinalXOF(ctx, child, 32) && write(fds[1], child, 32) == 32;
#ifndef TSAN
        EVP_MD_CTX_free(ctx);
#endif
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    CHECK(EVP_DigestUpdate(ctx, in + done, 2 * PART - done) &&
              EVP_DigestFinalXOF(ctx, got, 32) && memcmp(got, want, 32) == 0,
          "K12 in the parent after fork differs");
    CHECK(read(fds[0], child, 32) == 32 && memcmp(child, want, 32) == 0,
          "K12 in the child differs (helpers %s before fork)",
          used_after_rest ? "back" : "gone");
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
              WEXITSTATUS(status) == 0, "child failed");
    close(fds[0]);
    EVP_MD_CTX_free(ctx);
    wait_for_threads(base + RUNTIME_THREADS, 2);
    CHECK(thread_count() <= base + RUNTIME_THREADS, "threads left after fork test");
}

/* ---- the pool itself, with helpers that leave after 1 ms ---- */

typedef struct marks {
    unsigned char *seen;
    size_t n;
} marks;

static void mark(void *arg, size_t begin, size_t end)
{
    marks *m = arg;

    for (size_t i = begin; i < end; i++)
        m->seen[i]++;
}

static int all_once(const marks *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->seen[i] != 1)
            return 0;
    return 1;
}

static void test_pool_stress(void)
{
    int base = thread_count(), bad = 0;
    marks m = {malloc(4096), 0};
    worker_pool *pool = NULL;

    for (int round = 0; round < 600; round++) {
        if (pool == NULL) {
            pool = worker_pool_new();
            worker_pool_set_idle(pool, 1);
        }
        m.n = 1 + test_random_u64() % 4096;
        memset(m.seen, 0, m.n);
        parallel_for(pool, 2 + (unsigned)(test_random_u64() % 7), m.n,
                     1 + test_random_u64() % 64, mark, &m);
        bad += !all_once(&m);
        /* Around the idle time, so that helpers leave while the next job
         * is posted or the pool is freed. */
        usleep((useconds_t)(test_random_u64() % 2500));
        if (test_random_u64() % 8 == 0) {
            worker_pool_free(pool);
            pool = NULL;
        }
    }
    worker_pool_free(pool);
    free(m.seen);
    CHECK(bad == 0, "%d of 600 parallel_for calls missed or repeated items", bad);
    wait_for_threads(base + RUNTIME_THREADS, 2);
    CHECK(thread_count() <= base + RUNTIME_THREADS, "stress left %d threads, %d before",
          thread_count(), base);
}

int main(void)
{
    uint8_t *in = malloc(2 * PART), want[32];
    EVP_MD *md;

    lib = test_libctx(0);
    md = EVP_MD_fetch(lib, "KANGAROOTWELVE", NULL);
    test_random(in, 2 * PART);
    reference(md, in, want);
    test_small_messages(md, in);
    test_idle_contexts(md, in, want);
    test_fork_after_rest(md, in, want, 1);
#ifndef TSAN
    test_fork_after_rest(md, in, want, 0);
#endif
    test_pool_stress();
    EVP_MD_free(md);
    free(in);
    test_libctx_free(lib);
    return test_summary("test_idle_threads");
}
