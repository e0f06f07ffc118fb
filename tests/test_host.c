/*
 * test_host.c: the library leaves the host program as it found it, and keeps
 * its API contracts at the edges (issue 13, defects 3b, 6 and 7).
 *   - thread binding: after a query with the default (compact) policy, the
 *     caller's thread, threads it creates afterwards and the OpenMP threads of
 *     its own parallel regions have the masks they had before; stats.pin is
 *     the binding actually applied (checked from inside the callback);
 *   - the caller's OpenMP thread count is unchanged;
 *   - two contexts queried from two threads at once give the right answers
 *     (the ThreadSanitizer build runs this too);
 *   - contracts: *needed and the summary are set on every path, a failed call
 *     reports zeroed statistics, chunk_pairs = SIZE_MAX means "as large as
 *     allowed", progress is monotone, on the caller's thread, and bounded.
 */
#define _GNU_SOURCE
#include "sc_gen.h"
#include "spherecollide.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "check.h"

static int hwloc_built(void) {
    char info[4096];
    sc_system_info(NULL, info, sizeof info);
    return strstr(info, "without hwloc") == NULL;
}

/* No CHECK inside: it runs on several threads at once. */
static cpu_set_t mask_of_self(void) {
    cpu_set_t m;
    CPU_ZERO(&m);
    if (pthread_getaffinity_np(pthread_self(), sizeof m, &m) != 0)
        CPU_ZERO(&m); /* compares unequal to any real mask */
    return m;
}

typedef struct seen {
    cpu_set_t mask; /* of the thread that ran the first callback */
    int calls;
} seen;

static int record_mask(const uint32_t *p, size_t count, void *user) {
    (void)p;
    (void)count;
    seen *s = user;
    if (s->calls++ == 0)
        s->mask = mask_of_self();
    return 0;
}

static void *thread_mask(void *arg) {
    *(cpu_set_t *)arg = mask_of_self();
    return NULL;
}

static void group_binding(void) {
    const size_t n = 300000; /* at least the 2^18 spheres that make a call bind */
    double *rows = malloc(4 * n * sizeof(double));
    sc_gen_generate("uniform", n, 1, rows);
    sc_spheres v = sc_spheres_rows_f64(n, 3, rows);
    const cpu_set_t before = mask_of_self();
#ifdef _OPENMP
    const int omp_before = omp_get_max_threads();
#endif
    sc_options o = sc_options_default(); /* compact binding */
    CHECK(o.pin == SC_PIN_COMPACT, "compact is the default");
    o.threads = 2;
    o.chunk_pairs = 1000;
    sc_context *ctx = NULL;
    CHECK(sc_context_create(&o, &ctx) == SC_OK, "context");
    seen s = {0};
    CPU_ZERO(&s.mask);
    sc_summary sum;
    CHECK(sc_stream_pairs(ctx, &v, record_mask, &s, &sum) == SC_OK && s.calls > 0, "stream");
    sc_stats st = {.size = sizeof st};
    sc_context_stats(ctx, &st);
    if (!hwloc_built())
        CHECK(st.pin == SC_PIN_NONE, "no hwloc: pin reported %s", sc_pin_name(st.pin));
    /* OMP_THREAD_LIMIT=1 (ctest engine.host.limit) leaves a team of one where
     * two were bound: the binding fails, is undone, and the stats say none */
    const char *limit = getenv("OMP_THREAD_LIMIT");
    const int limited = limit && strcmp(limit, "1") == 0;
    if (limited)
        CHECK(st.pin == SC_PIN_NONE, "a team of 1 for 2 bound threads, but pin reported %s",
              sc_pin_name(st.pin));
    if (hwloc_built() && !limited && CPU_COUNT(&before) > 1)
        CHECK(st.pin == SC_PIN_COMPACT, "hwloc and %d CPUs, but the binding was %s",
              CPU_COUNT(&before), sc_pin_name(st.pin));
    if (st.pin == SC_PIN_COMPACT && CPU_COUNT(&before) > 1)
        CHECK(CPU_COUNT(&s.mask) < CPU_COUNT(&before),
              "stats say compact, but the callback ran on a thread allowed %d of %d CPUs",
              CPU_COUNT(&s.mask), CPU_COUNT(&before));
    fprintf(stderr, "note: binding applied: %s (callback thread on %d of %d CPUs)\n",
            sc_pin_name(st.pin), CPU_COUNT(&s.mask), CPU_COUNT(&before));

    cpu_set_t after = mask_of_self();
    CHECK(CPU_EQUAL(&before, &after), "the caller's mask changed: %d -> %d CPUs",
          CPU_COUNT(&before), CPU_COUNT(&after));
    cpu_set_t child;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, thread_mask, &child) == 0, "pthread_create");
    pthread_join(th, NULL);
    CHECK(CPU_EQUAL(&before, &child), "a thread created after the query has %d of %d CPUs",
          CPU_COUNT(&child), CPU_COUNT(&before));
#ifdef _OPENMP
    CHECK(omp_get_max_threads() == omp_before, "omp max threads %d -> %d", omp_before,
          omp_get_max_threads());
    int pool_ok = 1;
#pragma omp parallel num_threads(2) reduction(& : pool_ok)
    {
        cpu_set_t m = mask_of_self();
        pool_ok = CPU_EQUAL(&m, &before);
    }
    CHECK(pool_ok, "an OpenMP thread of the host's own region kept the library's binding");
#endif
    /* a small batch is not bound at all, and says so */
    sc_spheres few = sc_spheres_rows_f64(1000, 3, rows);
    CHECK(sc_count_pairs(ctx, &few, &sum) == SC_OK, "small batch");
    sc_context_stats(ctx, &st);
    CHECK(st.pin == SC_PIN_NONE, "1000 spheres: binding %s", sc_pin_name(st.pin));
    /* the same after a failing call */
    rows[5] = NAN;
    CHECK(sc_count_pairs(ctx, &v, &sum) == SC_ERR_NON_FINITE, "NaN rejected");
    after = mask_of_self();
    CHECK(CPU_EQUAL(&before, &after), "the caller's mask changed after a failed call");
    sc_context_destroy(ctx);
    rows[5] = 0.5;
    /* A team smaller than the caller's CPUs is not bound (every MPI rank
     * under --bind-to none would bind its one thread to core 0), and a
     * caller bound to one CPU (--bind-to core, taskset) is a machine of
     * one: the default team is one thread, bound inside it. */
    if (hwloc_built() && CPU_COUNT(&before) > 1) {
        o.threads = 1;
        CHECK(sc_context_create(&o, &ctx) == SC_OK && sc_count_pairs(ctx, &v, &sum) == SC_OK,
              "one thread");
        sc_context_stats(ctx, &st);
        CHECK(st.pin == SC_PIN_NONE, "one thread of %d CPUs bound: %s", CPU_COUNT(&before),
              sc_pin_name(st.pin));
        sc_context_destroy(ctx);
        int last = -1;
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
            if (CPU_ISSET(cpu, &before))
                last = cpu;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(last, &one);
        CHECK(pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0, "bind the caller");
        o.threads = 0;
        seen s1 = {0};
        CPU_ZERO(&s1.mask);
        CHECK(sc_context_create(&o, &ctx) == SC_OK &&
                  sc_stream_pairs(ctx, &v, record_mask, &s1, &sum) == SC_OK,
              "a caller on one CPU");
        sc_context_stats(ctx, &st);
        CHECK(st.threads == 1 && CPU_EQUAL(&s1.mask, &one),
              "a caller on CPU %d: %d threads, callback on %d CPUs", last, st.threads,
              CPU_COUNT(&s1.mask));
        sc_context_destroy(ctx);
        after = mask_of_self();
        CHECK(CPU_EQUAL(&one, &after), "the caller's one-CPU mask changed");
        pthread_setaffinity_np(pthread_self(), sizeof before, &before);
    }
    free(rows);
}

/* ---- two contexts from two threads at once -------------------------------- */

typedef struct job {
    const char *gen;
    size_t n;
    uint64_t pairs, checksum; /* from a single-threaded run first */
    int ok;
} job;

static void *run_job(void *arg) {
    job *j = arg;
    double *rows = malloc(4 * j->n * sizeof(double));
    sc_gen_generate(j->gen, j->n, 5, rows);
    sc_spheres v = sc_spheres_rows_f64(j->n, 3, rows);
    sc_options o = sc_options_default();
    o.threads = 2;
    sc_context *ctx = NULL;
    j->ok = sc_context_create(&o, &ctx) == SC_OK;
    for (int rep = 0; rep < 3 && j->ok; rep++) {
        sc_summary s;
        j->ok = sc_count_pairs(ctx, &v, &s) == SC_OK && s.pairs == j->pairs &&
                s.checksum == j->checksum;
    }
    sc_context_destroy(ctx);
    free(rows);
    return NULL;
}

static void group_concurrent(void) {
    job jobs[2] = {{"uniform", 20000, 0, 0, 0}, {"powerlaw", 20000, 0, 0, 0}};
    for (int k = 0; k < 2; k++) { /* the reference, one thread, no binding */
        double *rows = malloc(4 * jobs[k].n * sizeof(double));
        sc_gen_generate(jobs[k].gen, jobs[k].n, 5, rows);
        sc_spheres v = sc_spheres_rows_f64(jobs[k].n, 3, rows);
        sc_options o = sc_options_default();
        o.threads = 1;
        o.pin = SC_PIN_NONE;
        sc_context *ctx = NULL;
        sc_context_create(&o, &ctx);
        sc_summary s = {0, 0};
        CHECK(sc_count_pairs(ctx, &v, &s) == SC_OK && s.pairs > 0, "reference %s", jobs[k].gen);
        jobs[k].pairs = s.pairs;
        jobs[k].checksum = s.checksum;
        sc_context_destroy(ctx);
        free(rows);
    }
    pthread_t th[2];
    for (int k = 0; k < 2; k++)
        CHECK(pthread_create(&th[k], NULL, run_job, &jobs[k]) == 0, "thread %d", k);
    for (int k = 0; k < 2; k++) {
        pthread_join(th[k], NULL);
        CHECK(jobs[k].ok, "concurrent context %s: wrong answer or error", jobs[k].gen);
    }
}

/* ---- contracts ----------------------------------------------------------- */

typedef struct progress_log {
    int calls, monotone, off_thread;
    double last;
    pthread_t caller;
} progress_log;

static void on_progress(double f, void *user) {
    progress_log *p = user;
    p->calls++;
    if (f < p->last || f < 0.0 || f > 1.0)
        p->monotone = 0;
    if (!pthread_equal(pthread_self(), p->caller))
        p->off_thread++;
    p->last = f;
}

typedef struct chunks {
    size_t calls, pairs, largest;
} chunks;

/* The progress already reported when the search delivers its first pairs. */
typedef struct first_pairs {
    const progress_log *log;
    int calls_before;
    double before;
    int seen;
} first_pairs;

static int note_first_pairs(const uint32_t *p, size_t count, void *user) {
    (void)p;
    first_pairs *f = user;
    if (count && !f->seen) {
        f->seen = 1;
        f->calls_before = f->log->calls;
        f->before = f->log->last;
    }
    return 0;
}

static int count_chunks(const uint32_t *p, size_t count, void *user) {
    (void)p;
    chunks *c = user;
    c->calls++;
    c->pairs += count;
    c->largest = count > c->largest ? count : c->largest;
    return 0;
}

static void group_contracts(void) {
    const size_t n = 3000;
    double *rows = malloc(4 * n * sizeof(double));
    sc_gen_generate("dense", n, 2, rows);
    sc_spheres v = sc_spheres_rows_f64(n, 3, rows);
    const uint64_t all = (uint64_t)n * (n - 1) / 2;

    /* chunk_pairs = SIZE_MAX: "unlimited", one chunk (once a heap overflow) */
    sc_options o = sc_options_default();
    o.chunk_pairs = SIZE_MAX;
    o.threads = 2;
    sc_context *ctx = NULL;
    CHECK(sc_context_create(&o, &ctx) == SC_OK, "chunk_pairs SIZE_MAX accepted");
    chunks ch = {0, 0, 0};
    sc_summary sum;
    sc_status st = sc_stream_pairs(ctx, &v, count_chunks, &ch, &sum);
    CHECK(st == SC_OK && ch.pairs == all && sum.pairs == all, "SIZE_MAX stream: %s, %zu pairs",
          sc_status_string(st), ch.pairs);
    CHECK(ch.calls >= 1 && ch.largest <= ((size_t)1 << 24), "SIZE_MAX: %zu calls, largest %zu",
          ch.calls, ch.largest);
    sc_context_destroy(ctx);

    /* fill: *needed and the summary on every path */
    size_t needed = 77;
    sc_summary out = {5, 5};
    st = sc_fill_pairs(NULL, &v, NULL, 0, &needed, &out);
    CHECK(st == SC_ERR_INVALID_ARGUMENT && needed == 0 && out.pairs == 0 && out.checksum == 0,
          "fill with no context: %s needed %zu", sc_status_string(st), needed);
    o = sc_options_default();
    o.threads = 2;
    o.pin = SC_PIN_NONE;
    sc_context_create(&o, &ctx);
    st = sc_count_pairs(ctx, &v, &sum);
    CHECK(st == SC_OK && sum.pairs == all, "count");
    needed = 0;
    st = sc_fill_pairs(ctx, &v, NULL, 0, &needed, &out); /* the size query */
    CHECK(st == SC_ERR_BUFFER_TOO_SMALL && needed == all && out.pairs == all &&
              out.checksum == sum.checksum,
          "size query: %s needed %zu", sc_status_string(st), needed);
    needed = 77;
    st = sc_fill_pairs(ctx, NULL, NULL, 0, &needed, &out);
    CHECK(st == SC_ERR_INVALID_ARGUMENT && needed == 0 && out.pairs == 0, "fill NULL view");
    needed = 77;
    st = sc_stream_pairs(ctx, &v, NULL, NULL, &out);
    CHECK(st == SC_ERR_INVALID_ARGUMENT && out.pairs == 0, "stream NULL callback");

    /* a failed call reports its own (zeroed) statistics, not the last query's */
    sc_stats stats = {.size = sizeof stats};
    sc_count_pairs(ctx, &v, &sum);
    sc_context_stats(ctx, &stats);
    CHECK(stats.pairs == all && stats.spheres == n, "stats after success");
    CHECK(sc_count_pairs(ctx, NULL, &sum) == SC_ERR_INVALID_ARGUMENT, "NULL view");
    sc_context_stats(ctx, &stats);
    CHECK(stats.pairs == 0 && stats.spheres == 0 && stats.candidate_tests == 0,
          "stats after a NULL view: %llu pairs", (unsigned long long)stats.pairs);
    sc_count_pairs(ctx, &v, &sum);
    rows[4 * 7 + 3] = -1.0;
    CHECK(sc_count_pairs(ctx, &v, &sum) == SC_ERR_NEGATIVE_RADIUS && sum.pairs == 0, "bad radius");
    sc_context_stats(ctx, &stats);
    CHECK(stats.pairs == 0 && stats.candidate_tests == 0, "stats after a rejected view: %llu pairs",
          (unsigned long long)stats.pairs);
    rows[4 * 7 + 3] = fabs(rows[4 * 7 + 3 + 4]);
    sc_context_destroy(ctx);

    /* progress: sorted output in many small windows used to restart at 0 on
     * every pass and call the hook thousands of times */
    const size_t m = 600; /* dense: every pair, 179700 of them */
    sc_gen_generate("dense", m, 3, rows);
    v = sc_spheres_rows_f64(m, 3, rows);
    const uint64_t all_m = (uint64_t)m * (m - 1) / 2;
    o = sc_options_default();
    o.threads = 2;
    o.sorted = 1;
    o.sorted_window_bytes = 4096; /* a window per index or two: hundreds of passes */
    progress_log pl = {0, 1, 0, 0.0, pthread_self()};
    o.progress = on_progress;
    o.progress_user = &pl;
    sc_context_create(&o, &ctx);
    ch = (chunks){0, 0, 0};
    st = sc_stream_pairs(ctx, &v, count_chunks, &ch, &sum);
    sc_context_stats(ctx, &stats);
    CHECK(st == SC_OK && ch.pairs == all_m, "sorted stream: %s", sc_status_string(st));
    CHECK(stats.passes > 100, "expected many window passes, got %d", stats.passes);
    CHECK(pl.calls >= 2 && pl.calls <= 257, "progress called %d times", pl.calls);
    CHECK(pl.monotone && pl.last == 1.0, "progress not monotone or did not end at 1 (%g)", pl.last);
    CHECK(pl.off_thread == 0, "progress called %d times off the caller's thread", pl.off_thread);
    sc_context_destroy(ctx);

    /* progress covers the build's stages, not only the search: when the
     * grid's search hands over its first pairs, bounds, keys, sort, cells
     * and gather have stepped it to 0.70 */
    const size_t nb = 20000;
    double *ub = malloc(nb * 4 * sizeof *ub);
    sc_gen_generate("uniform", nb, 5, ub);
    v = sc_spheres_rows_f64(nb, 3, ub);
    for (int threads = 1; threads <= 2; threads++) {
        o = sc_options_default();
        o.threads = threads;
        pl = (progress_log){0, 1, 0, 0.0, pthread_self()};
        o.progress = on_progress;
        o.progress_user = &pl;
        first_pairs fp = {&pl, 0, 0.0, 0};
        sc_context_create(&o, &ctx);
        st = sc_stream_pairs(ctx, &v, note_first_pairs, &fp, &sum);
        CHECK(st == SC_OK && fp.seen && sum.pairs > 0, "uniform stream: %s", sc_status_string(st));
        CHECK(fp.calls_before >= 5 && fp.before >= 0.70,
              "%d threads: before the first pairs, %d progress calls reaching %g (want 5, 0.70 or "
              "more)",
              threads, fp.calls_before, fp.before);
        CHECK(pl.monotone && pl.last == 1.0 && pl.off_thread == 0,
              "%d threads: progress not monotone, off the caller's thread or short of 1 (%g)",
              threads, pl.last);
        sc_context_destroy(ctx);
    }
    free(ub);
    free(rows);
}

/* Sorted output checks every pair against the one before it. */
typedef struct ordered {
    size_t pairs;
    uint32_t last_i, last_j;
    int out_of_order;
    uint64_t checksum;
} ordered;

static int check_order(const uint32_t *p, size_t count, void *user) {
    ordered *o = user;
    for (size_t k = 0; k < count; k++) {
        const uint32_t i = p[2 * k], j = p[2 * k + 1];
        if (i >= j || (o->pairs > 0 && (i < o->last_i || (i == o->last_i && j <= o->last_j))))
            o->out_of_order++;
        o->last_i = i;
        o->last_j = j;
        o->checksum += sc_pair_mix(i, j);
        o->pairs++;
    }
    return 0;
}

/* How many search passes sorted output takes: one when the pairs fit the
 * expected count (the last query's plus a quarter, or n the first time),
 * two when they fit the window budget but not the guess, a histogram pass
 * and windows when they exceed the budget. The pairs are the same every
 * time. */
static void group_sorted_passes(void) {
    const size_t m = 600; /* dense: every pair, 179700 of them */
    double *rows = malloc(4 * m * sizeof(double));
    sc_gen_generate("dense", m, 3, rows);
    const sc_spheres v = sc_spheres_rows_f64(m, 3, rows);
    uint64_t want = 0;
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = i + 1; j < m; j++)
            want += sc_pair_mix(i, j);
    const size_t all = m * (m - 1) / 2;
    /* budget 4M pairs: 2 passes (guess n + 64 too small), then 1;
     * budget 10,000 pairs: the guess fits it, the pairs do not; then the
     * histogram path straight away, one pass fewer */
    const size_t bytes[2] = {(size_t)64 << 20, 16 * 10000};
    for (int b = 0; b < 2; b++) {
        sc_options o = sc_options_default();
        o.threads = 2;
        o.sorted = 1;
        o.sorted_window_bytes = bytes[b];
        sc_context *ctx = NULL;
        sc_context_create(&o, &ctx);
        int passes[2] = {0, 0};
        for (int call = 0; call < 2; call++) {
            ordered ord = {0, 0, 0, 0, 0};
            sc_summary sum;
            const sc_status st = sc_stream_pairs(ctx, &v, check_order, &ord, &sum);
            sc_stats stats = {.size = sizeof stats};
            sc_context_stats(ctx, &stats);
            passes[call] = stats.passes;
            CHECK(st == SC_OK && ord.pairs == all && sum.pairs == all && ord.out_of_order == 0,
                  "sorted, budget %zu B, call %d: %s, %zu pairs, %d out of order", bytes[b], call,
                  sc_status_string(st), ord.pairs, ord.out_of_order);
            CHECK(ord.checksum == want && sum.checksum == want,
                  "sorted, budget %zu B, call %d: checksum", bytes[b], call);
        }
        if (b == 0)
            CHECK(passes[0] == 2 && passes[1] == 1,
                  "budget 64 MiB: %d then %d passes, want 2 then 1", passes[0], passes[1]);
        else
            CHECK(passes[0] >= 3 && passes[1] == passes[0] - 1,
                  "budget 10,000 pairs: %d then %d passes, want >= 3 then one fewer", passes[0],
                  passes[1]);
        sc_context_destroy(ctx);
    }
    /* few pairs: one pass from the first call */
    sc_gen_generate("uniform", m, 3, rows);
    sc_options o = sc_options_default();
    o.sorted = 1;
    sc_context *ctx = NULL;
    sc_context_create(&o, &ctx);
    ordered ord = {0, 0, 0, 0, 0};
    sc_summary sum;
    const sc_status st = sc_stream_pairs(ctx, &v, check_order, &ord, &sum);
    sc_stats stats = {.size = sizeof stats};
    sc_context_stats(ctx, &stats);
    CHECK(st == SC_OK && ord.out_of_order == 0 && ord.pairs == sum.pairs && stats.passes == 1,
          "few pairs: %s, %d passes", sc_status_string(st), stats.passes);
    sc_context_destroy(ctx);
    free(rows);
}

int main(int argc, char **argv) {
    static const sc_test_group groups[] = {
        {"binding", group_binding},
        {"concurrent", group_concurrent},
        {"contracts", group_contracts},
        {"sorted_passes", group_sorted_passes},
    };
    return sc_test_main(argc, argv, "test_host", groups, sizeof groups / sizeof groups[0]);
}
