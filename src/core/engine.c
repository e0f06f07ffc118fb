/*
 * engine.c: the orchestrator. One query is
 *
 *   view -> bounds -> peer build -> chunk scheduler -> sink -> totals
 *
 * with every stage timed into the context's statistics (context.c holds the
 * context's lifecycle). The algorithm is a peer behind peer.h: it lays the
 * spheres out in its working copy and cuts its search into chunks; the
 * scheduler and the sinks here give every peer counting, ordered streaming,
 * sorted windows, progress and the SIMD kernels. Scratch lives in the
 * context and only grows, so repeated queries on batches of the same size
 * allocate nothing new. neighbors.c builds CSR lists on the same wrapper,
 * sinks and search passes (engine.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "engine.h"
#include "schedule.h"

#include <stdio.h>
#include <string.h>

static const sc_allocator *alloc_of(const sc_context *c) {
    return sc_context_allocator(c);
}

/* ---- progress ------------------------------------------------------------ */

/* Progress over the whole query: the build's stages step it as each ends,
 * by a fixed share each (the shares of the grid's stages on uniform data,
 * not measured per query: the fraction promises order, not time); a
 * search pass reports fractions of itself, mapped into [base, base +
 * scale] of what is left. The caller's hook hears of it only when the
 * query's fraction grew by 1/256 (so at most 257 calls per query,
 * non-decreasing, however many sorted windows there are). Stages and
 * search passes report from the caller's thread only. */
static void progress_report(progress_map *m, double fraction) {
    if (fraction > 1.0)
        fraction = 1.0;
    if (m->fn && (fraction >= m->last + 1.0 / 256 || (fraction == 1.0 && m->last < 1.0))) {
        m->last = fraction;
        m->fn(fraction, m->user);
    }
}

static void progress_stage(void *user, sc_stage s) {
    /* the query's fraction once stage s is done */
    static const double done[SC_STAGE_COUNT] = {
        [SC_STAGE_BOUNDS] = 0.01, [SC_STAGE_KEYS] = 0.12,   [SC_STAGE_SORT] = 0.30,
        [SC_STAGE_CELLS] = 0.45,  [SC_STAGE_GATHER] = 0.70, [SC_STAGE_SEARCH] = 0.70,
        [SC_STAGE_MERGE] = 0.70}; /* in the grid's order; a peer's other order
                                     holds the fraction where it is */
#ifdef _OPENMP
    if (omp_in_parallel())
        return;
#endif
    progress_map *m = user;
    progress_report(m, done[s] > m->last ? done[s] : m->last);
}

/* ---- the pipeline up to the search ------------------------------------- */

/* The options' peer's build on the view with bounds b (p->kernel is set). */
static sc_status build_bounded(sc_context *c, sc_prepared *p, const sc_bounds *b) {
    const sc_peer_env env = {&p->view,
                             b,
                             &c->opt,
                             c->threads,
                             c->room,
                             alloc_of(c),
                             c->peer_buf,
                             c->peer_state,
                             c->stats.seconds,
                             p->order_only,
                             c->opt.progress ? progress_stage : NULL,
                             &c->progress,
#ifdef SC_STUDY
                             &c->study
#endif
    };
    memset(&p->built, 0, sizeof p->built);
    sc_status st = p->peer->build(&env, &p->built);
    if (st == SC_ERR_TOO_COSTLY)
        sc_context_log(c, SC_LOG_INFO,
                       "%s: refused: %.4g candidate tests predicted, above its limit",
                       p->peer->name, p->built.predicted_tests);
    return st;
}

/* The view, its bounds, then build_bounded. */
static sc_status build_view(sc_context *c, sc_prepared *p, void *arg) {
    const sc_spheres *spheres = arg;
    if (!spheres)
        return SC_ERR_INVALID_ARGUMENT;
    p->peer = sc_peer_of(c->opt.algorithm);
    sc_status st = sc_view_make(spheres, &p->view);
    if (st != SC_OK)
        return st;
    c->stats.spheres = p->view.n;

    double t = sc_now();
    sc_bounds b;
    st = sc_bounds_compute(&p->view, &b, c->threads);
    SC_STAGE_TIME(c, SC_STAGE_BOUNDS, t);
    if (c->opt.progress)
        progress_stage(&c->progress, SC_STAGE_BOUNDS);
    if (st != SC_OK)
        return st;
    return build_bounded(c, p, &b);
}

sc_status sc_engine_build_order(sc_context *c, sc_prepared *p, void *arg) {
    p->order_only = true;
    return build_view(c, p, arg);
}

sc_status sc_engine_build_known(sc_context *c, sc_prepared *p, void *arg) {
    const sc_known_bounds *k = arg;
    p->peer = sc_peer_of(c->opt.algorithm);
    sc_status st = sc_view_make(k->spheres, &p->view);
    if (st != SC_OK)
        return st;
    c->stats.spheres = p->view.n;
    return build_bounded(c, p, k->bounds);
}

/* The kernel, the build (build_view or a front end's), then the
 * scheduler's scratch and the build's statistics. */
static sc_status prepare(sc_context *c, sc_prepared *p, sc_build_fn build, void *arg) {
    p->kernel = sc_kernel_resolve(&c->stats.kernel);
#ifdef SC_STUDY
    if (p->kernel && c->study.kernel)
        p->kernel = c->study.kernel;
#endif
    if (!p->kernel)
        return SC_ERR_UNSUPPORTED;
    sc_status st = build(c, p, arg);
    if (st != SC_OK)
        return st;
    c->progress.start = c->progress.last; /* the search passes share the rest */
    if (p->built.kernel) {                /* the study's indirect layout fixes its kernel */
        p->kernel = p->built.kernel;
        c->stats.kernel = p->built.stats_kernel;
    }
    /* The scheduler's runs and tls; between search passes, the sorted
     * windows' radix sort histograms. */
    const size_t sched = sc_schedule_scratch(c->room, p->peer);
    const size_t sort = sc_radix_sort_scratch(c->room, false);
    if (!sc_buf_reserve(alloc_of(c), &c->sched, sched > sort ? sched : sort))
        return SC_ERR_OUT_OF_MEMORY;
    c->stats.cells = p->built.cells;
    c->stats.levels = p->built.levels;
    c->stats.cell_size = p->built.cell_size;
    sc_context_log(c, SC_LOG_DEBUG, "%s: %zu chunk(s), %llu cell(s), %d level(s), cell %.6g%s%s",
                   p->peer->name, p->built.nchunks, (unsigned long long)p->built.cells,
                   p->built.levels, p->built.cell_size, p->built.detail ? "; " : "",
                   p->built.detail ? p->built.detail : "");
    return SC_OK;
}

sc_status sc_engine_sink(sc_context *c, sc_sink *s, sc_sink_mode mode, const sc_prepared *p) {
    const size_t nchunks = p->built.nchunks;
    s->mode = mode;
    s->index = p->built.work.index;
    s->work_r = p->built.work.r;
    s->work_x = p->built.work.x;
    s->work_y = p->built.work.y;
    s->work_z = p->built.work.z;
    s->keep = c->keep;
    s->keep_state = c->keep_state;
    s->chunk_pairs = c->chunk_pairs;
    const size_t bytes = sc_sink_bytes(c->room, mode, c->chunk_pairs, nchunks);
    if (bytes == SIZE_MAX || !sc_buf_reserve(alloc_of(c), &c->sink_mem, bytes))
        return SC_ERR_OUT_OF_MEMORY;
    sc_sink_setup(s, c->sink_mem.p, c->threads, nchunks);
    return SC_OK;
}

static void progress_pass(double fraction, void *user) {
    progress_map *m = user;
    progress_report(m, m->start + (1.0 - m->start) * (m->base + m->scale * fraction));
}

/* The next search pass covers [base, base + scale] of the search's part. */
static void progress_span(sc_context *c, double base, double scale) {
    c->progress.base = base;
    c->progress.scale = scale;
}

sc_status sc_engine_search(sc_context *c, sc_prepared *p, sc_sink *s) {
    sc_schedule_job job = {
        p->peer,      &p->built,  p->kernel, c->threads, s, c->opt.progress ? progress_pass : NULL,
        &c->progress, c->sched.p, &c->load,  0};
    double t = sc_now();
    sc_status st = sc_schedule_run(&job);
    SC_STAGE_TIME(c, SC_STAGE_SEARCH, t);
    c->stats.candidate_tests += job.candidate_tests;
    c->stats.passes++;
    return st;
}

/* ---- query wrapper: threads, pinning, timing ----------------------------- */

/* Every query starts from zeroed statistics, so a call that fails early
 * never reports the previous query's. The calling thread's OpenMP thread
 * count and every team thread's binding are restored before returning.
 * The team is sc_context_team's: a small batch runs on fewer threads (one
 * per SC_SPHERES_PER_THREAD spheres), since its stages last microseconds,
 * less than waking a sleeping thread, and in a fresh process its first
 * parallel region would start the thread pool (milliseconds on a virtual
 * machine); by default, when other programs keep cores busy, the team is
 * the free cores or all of them, whichever the context measured faster at
 * this size (load.c). A team smaller than planned is not bound (its cores
 * would be a plan for another count). The output does not depend on the
 * thread count, so only the time changes; c->threads is the call's count
 * while it runs. */
sc_status sc_engine_run(sc_context *c, const sc_spheres *spheres, sc_query_fn fn, void *arg) {
    if (!c)
        return SC_ERR_INVALID_ARGUMENT;
    return sc_engine_run_built(c, spheres ? spheres->count : 0, spheres != NULL, build_view,
                               (void *)spheres, fn, arg);
}

sc_status sc_engine_run_built(sc_context *c, size_t n, bool go, sc_build_fn build, void *build_arg,
                              sc_query_fn fn, void *arg) {
    const double t0 = sc_now();
    const int team = sc_context_team(c, n);
    const int configured = c->threads; /* 0: not known yet, and not needed */
    c->threads = team;
    memset(&c->stats, 0, sizeof c->stats);
    c->queries++;
    c->stats.threads = c->threads;
    c->stats.kernel = c->opt.kernel;
    c->progress = (progress_map){c->opt.progress, c->opt.progress_user, 0.0, 1.0, 0.0, 0.0};
    sc_status st = SC_ERR_INVALID_ARGUMENT;
    if (go) {
#ifdef _OPENMP
        const int saved = omp_get_max_threads();
        omp_set_num_threads(c->threads);
#endif
        /* Binding costs a few affinity calls per thread and call (tens of
         * microseconds, a migration each); it pays only where a call runs
         * long enough for the cache it keeps warm to matter. */
        const bool bind = n >= SC_PIN_MIN_SPHERES && team == configured;
        sc_pinning *pinning = bind ? sc_context_pinning(c) : NULL;
        c->stats.pin = pinning ? sc_pinning_begin(pinning) : SC_PIN_NONE;
        sc_prepared p;
        memset(&p, 0, sizeof p);
        st = prepare(c, &p, build, build_arg);
        if (st == SC_OK)
            st = fn(c, &p, arg);
        if (pinning)
            sc_pinning_end(pinning);
#ifdef _OPENMP
        omp_set_num_threads(saved);
#endif
        if (st == SC_OK)
            progress_report(&c->progress, 1.0);
    }
    c->stats.scratch_bytes = sc_context_scratch_bytes(c);
    c->stats.total_seconds = sc_now() - t0;
    if (st == SC_OK && c->opt.threads == 0 && configured > 1)
        sc_load_record(&c->load, configured, team, c->load_n ? c->load_n : n,
                       c->stats.total_seconds, c->queries == 1);
    c->load_n = 0;
    c->threads = configured;
    return st;
}

sc_status sc_engine_failed(sc_context *c, sc_status st) {
    memset(&c->stats, 0, sizeof c->stats);
    c->load_n = 0;
    c->queries++;
    return st;
}

void sc_engine_totals(sc_context *c, sc_sink *s) {
    double t = sc_now();
    sc_sink_totals(s, &c->stats.pairs, &c->stats.checksum);
    SC_STAGE_TIME(c, SC_STAGE_MERGE, t);
}

/* ---- count --------------------------------------------------------------- */

sc_status sc_engine_count(sc_context *c, sc_prepared *p, void *arg) {
    sc_sink s = {0};
    sc_status st = sc_engine_sink(c, &s, SC_SINK_COUNT, p);
    if (st == SC_OK)
        st = sc_engine_search(c, p, &s);
    sc_engine_totals(c, &s);
    sc_summary *out = arg;
    out->pairs = c->stats.pairs;
    out->checksum = c->stats.checksum;
    return st;
}

/* ---- stream ------------------------------------------------------------- */

typedef sc_engine_stream_arg stream_arg;

static sc_status stream_unsorted(sc_context *c, sc_prepared *p, const stream_arg *a) {
    sc_sink s = {0};
    s.fn = a->fn;
    s.user = a->user;
    sc_status st = sc_engine_sink(c, &s, SC_SINK_STREAM, p);
    if (st != SC_OK)
        return st;
    omp_init_lock(&s.lock);
    st = sc_engine_search(c, p, &s);
    omp_destroy_lock(&s.lock);
    sc_engine_totals(c, &s);
    return st;
}

/* The end of the window that starts at smaller index lo: as many indices as
 * fit cap pairs (one index's pairs are never split); *fill gets its pairs. */
static size_t window_end(const uint32_t *hist, size_t n, size_t lo, size_t cap, size_t *fill) {
    size_t hi = lo, f = 0;
    while (hi < n && f + hist[hi] <= cap)
        f += hist[hi++];
    *fill = f;
    return hi;
}

/* Sorted output works on words lo << bits | hi, bits = the width of n - 1:
 * the radix sort then runs over 2 * bits key bits, not 64. */
typedef struct sorted_win {
    uint64_t *w, *tmp; /* cap words each */
    size_t cap;
    int bits;
} sorted_win;

int sc_engine_index_bits(size_t n) {
    int b = 1;
    while (b < 32 && ((uint64_t)1 << b) < n)
        b++;
    return b;
}

/* Sizes the context's window buffer for cap words (and the sort's spare). */
static bool win_reserve(sc_context *c, sorted_win *win, size_t cap) {
    if (!sc_buf_reserve(alloc_of(c), &c->win, 2 * sizeof(uint64_t) * cap))
        return false;
    win->cap = cap;
    win->w = c->win.p;
    win->tmp = win->w + cap;
    return true;
}

/* The range of a pair's first index i: the view's spheres, or the range
 * the query's front end gave (a periodic query's spheres, not their
 * images; two sets' A). */
static size_t rows_of(const sc_context *c, const sc_prepared *p) {
    return c->pair_ranged ? c->pair_rows : p->view.n;
}

/* One search pass keeping the pairs whose smaller index is in [lo, hi):
 * *count gets them all, of which the first win->cap are stored. */
static sc_status window_pass(sc_context *c, sc_prepared *p, const sorted_win *win, size_t lo,
                             size_t hi, size_t *count) {
    sc_sink ws = {0};
    ws.win = win->w;
    ws.win_lo = (uint32_t)lo;
    ws.win_hi = (uint32_t)hi;
    ws.win_bits = win->bits;
    ws.win_cap = win->cap;
    sc_status st = sc_engine_sink(c, &ws, SC_SINK_WINDOW, p);
    if (st == SC_OK)
        st = sc_engine_search(c, p, &ws);
    *count = ws.win_count;
    if (st == SC_OK && lo == 0 && hi == rows_of(c, p))
        sc_engine_totals(c, &ws); /* a whole-input window: the query's totals */
    return st;
}

/* Sorts the m stored words of a window and emits them in chunks. */
static sc_status window_emit(sc_context *c, sorted_win *win, size_t m, const stream_arg *a) {
    double t = sc_now();
    if (sc_radix_sort_words(win->w, win->tmp, m, 2 * win->bits, c->sched.p, c->threads)) {
        uint64_t *tk = win->w; /* the sorted words are in tmp */
        win->w = win->tmp;
        win->tmp = tk;
    }
    const uint64_t mask = ((uint64_t)1 << win->bits) - 1;
    sc_status st = SC_OK;
    for (size_t k = 0; k < m && st == SC_OK;) {
        const size_t take = m - k < c->chunk_pairs ? m - k : c->chunk_pairs;
        uint32_t *out = (uint32_t *)(void *)win->tmp; /* i, j pairs over the spare words */
        for (size_t q = 0; q < take; q++) {
            out[2 * q] = (uint32_t)(win->w[k + q] >> win->bits);
            out[2 * q + 1] = (uint32_t)(win->w[k + q] & mask);
        }
        if (a->fn(out, take, a->user) != 0)
            st = SC_ERR_STOPPED;
        k += take;
    }
    SC_STAGE_TIME(c, SC_STAGE_MERGE, t);
    return st;
}

/* Sorted: when the pairs are expected to fit one window of
 * sorted_window_bytes (the last sorted query's count plus a quarter, or n
 * for the first), one search pass collects them all; when they did not fit
 * after all, or were never expected to, a histogram pass plans windows of
 * the smaller index whose pairs fit, and each window is one more search
 * pass, radix-sorted and emitted. The guess only decides how many passes
 * run, never what is emitted. */
static sc_status stream_sorted(sc_context *c, sc_prepared *p, const stream_arg *a) {
    const size_t n = rows_of(c, p);
    const sc_allocator *al = alloc_of(c);
    const size_t per_pair = 2 * sizeof(uint64_t); /* a word and its sort spare: win_reserve */
    const size_t budget = c->opt.sorted_window_bytes / per_pair;
    const size_t cols = c->pair_ranged ? c->pair_cols : n;
    sorted_win win = {NULL, NULL, 0, sc_engine_index_bits(n > cols ? n : cols)};
    sc_status st = SC_OK;

    const uint64_t last = c->sorted_pairs_last;
    const uint64_t guess = last ? (last - 1) + (last - 1) / 4 + 64 : (uint64_t)n + 64;
    if (guess <= budget) {
        size_t m = 0;
        if (!win_reserve(c, &win, (size_t)guess))
            return SC_ERR_OUT_OF_MEMORY;
        progress_span(c, 0.0, 0.5);
        st = window_pass(c, p, &win, 0, n, &m);
        if (st == SC_OK && m > win.cap && m <= budget) {
            /* more than guessed but within the budget: once more, sized */
            if (!win_reserve(c, &win, m))
                return SC_ERR_OUT_OF_MEMORY;
            st = window_pass(c, p, &win, 0, n, &m);
        }
        if (st != SC_OK)
            return st;
        if (m <= win.cap) {
            c->sorted_pairs_last = (uint64_t)m + 1;
            progress_span(c, 0.5, 0.5);
            return window_emit(c, &win, m, a);
        }
    }

    if (!sc_buf_reserve(al, &c->hist, 4 * (n ? n : 1)))
        return SC_ERR_OUT_OF_MEMORY;
    uint32_t *hist = c->hist.p;
    memset(hist, 0, 4 * n);
    sc_sink s = {0};
    s.hist = hist;
    progress_span(c, 0.0, 0.5); /* the histogram pass, then the windows */
    st = sc_engine_sink(c, &s, SC_SINK_HISTOGRAM, p);
    if (st == SC_OK)
        st = sc_engine_search(c, p, &s);
    if (st != SC_OK)
        return st;
    sc_engine_totals(c, &s);
    c->sorted_pairs_last = c->stats.pairs + 1;

    size_t cap = budget;
    size_t biggest = 0;
    for (size_t k = 0; k < n; k++)
        biggest = hist[k] > biggest ? hist[k] : biggest;
    if (cap < biggest)
        cap = biggest; /* one index's pairs cannot be split */
    if (cap > c->stats.pairs)
        cap = c->stats.pairs;
    if (cap == 0)
        return SC_OK;
    if (!win_reserve(c, &win, cap))
        return SC_ERR_OUT_OF_MEMORY;

    size_t windows = 0;
    for (size_t lo = 0; lo < n;) {
        size_t fill = 0;
        lo = window_end(hist, n, lo, cap, &fill);
        windows += fill > 0;
    }
    size_t lo = 0, window = 0;
    while (lo < n && st == SC_OK) {
        size_t fill = 0, m = 0;
        const size_t hi = window_end(hist, n, lo, cap, &fill);
        if (fill == 0) {
            lo = hi;
            continue;
        }
        progress_span(c, 0.5 + 0.5 * (double)window / (double)windows, 0.5 / (double)windows);
        window++;
        st = window_pass(c, p, &win, lo, hi, &m);
        if (st == SC_OK)
            st = window_emit(c, &win, m, a);
        lo = hi;
    }
    return st;
}

sc_status sc_engine_stream(sc_context *c, sc_prepared *p, void *arg) {
    return c->opt.sorted ? stream_sorted(c, p, arg) : stream_unsorted(c, p, arg);
}

/* ---- fill ----------------------------------------------------------------- */

/* Collects into f->pairs the first f->capacity pairs of a stream, and
 * counts on past them (the size needed is the stream's pair count). */
int sc_fill_take(const uint32_t *pairs, size_t count, void *user) {
    sc_fill *f = user;
    size_t room = f->capacity - f->written;
    size_t take = count < room ? count : room;
    if (take > 0) { /* pairs may be NULL with capacity 0: no pointer arithmetic on it */
        memcpy(f->pairs + 2 * f->written, pairs, 2 * take * sizeof(uint32_t));
        f->written += take;
    }
    return 0; /* keep counting past the capacity to report the size needed */
}

sc_status sc_fill_begin(sc_fill *f, uint32_t *pairs, size_t capacity, size_t *needed,
                        sc_summary *out) {
    if (needed)
        *needed = 0;
    if (out)
        out->pairs = out->checksum = 0;
    f->pairs = pairs;
    f->capacity = capacity;
    f->written = 0;
    return !pairs && capacity > 0 ? SC_ERR_INVALID_ARGUMENT : SC_OK;
}

sc_status sc_fill_end(const sc_fill *f, sc_status st, const sc_summary *s, size_t *needed,
                      sc_summary *out) {
    if (needed)
        *needed = st == SC_OK ? (size_t)s->pairs : 0;
    if (out)
        *out = *s;
    if (st == SC_OK && s->pairs > f->capacity)
        return SC_ERR_BUFFER_TOO_SMALL;
    return st;
}
