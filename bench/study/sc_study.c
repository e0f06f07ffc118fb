/*
 * sc_study.c: the performance study's driver (issue 3, docs/study.md).
 *
 * One scenario per invocation, each a list of engine configurations run
 * through the public API, each in a fresh child process (fork) that
 * generates its own data (tools/gen/sc_gen.h), reorders it when the scenario asks,
 * runs one warm-up query ("cold") and R timed queries on one context, and
 * sends back medians of the total and of every stage (sc_context_stats).
 * A child that runs past --timeout is killed and its row says "timeout".
 *
 *   bandwidth  STREAM-like copy and triad, 1..P threads, arrays >> L3
 *   growth     every generator, n = 1e3..1e7, 1 and all threads         (exp. 1, 2)
 *   order      input as generated / shuffled / Morton-sorted            (exp. 3a)
 *   layout     gathered working copy vs indirect reads                  (exp. 3b)
 *              and rows in Morton order (options.traversal)             (exp. 3c)
 *   cellsize   options.cell_factor sweep 1..4                           (exp. 3e)
 *   levels     options.levels forced 1..max (and the cost model's pick)  (exp. 3e)
 *   threads    1..P threads x pin none|compact|scatter                  (exp. 4)
 *   kernels    scalar vs avx2 candidate tests per second                (exp. 5)
 *   --once     one in-process run for bench/study/cachegrind.sh          (exp. 3, simulated)
 *
 * Every engine row carries the machine, ISA, compiler and binding, the
 * byte-floor model of each stage (study_floor_bytes) and, when
 * bandwidth.csv exists in the output folder, the ratio measured / floor.
 * Every configuration of the same (dist, n, seed) must find the same pair
 * count and the same checksum in the generated order's indices (orders are
 * mapped back); a disagreement is printed and makes the exit status 1.
 * Times are reported, never asserted.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_common.h"
#include "sc_gen.h"
#include "spherecollide.h"
#include "spherecollide_study.h" /* layouts, row order, the grid plan (untimed) */
#include "study.h"

#ifndef SC_BENCH_RESULTS_DIR
#define SC_BENCH_RESULTS_DIR "bench/results"
#endif

/* src/stages/radix_sort.c: MAX_DIGIT_BITS. The pass count the model uses follows it. */
#define STUDY_RADIX_DIGIT_BITS 11

#define MAX_LIST 40
#define MAX_CONFIGS 2048

enum { ORDER_GENERATED, ORDER_SHUFFLED, ORDER_MORTON };
static const char *const order_names[] = {"generated", "shuffled", "morton"};
static const char *const layout_names[] = {"gathered", "indirect", "morton"};
static const char *const stage_cols[] = {"bounds", "keys",   "sort", "gather",
                                         "cells",  "search", "merge"};

/* PAPI preset events: L1 data, L2 data and L3 total misses. */
static const char *const counter_events[] = {"PAPI_L1_DCM", "PAPI_L2_DCM", "PAPI_L3_TCM"};
#define NCOUNTERS 3

/* ---- small helpers ----------------------------------------------------------- */

static int split_list(char *s, char **items) {
    int k = 0;
    for (char *tok = strtok(s, ","); tok && k < MAX_LIST; tok = strtok(NULL, ","))
        items[k++] = tok;
    return k;
}

static void die_usage(const char *fmt, const char *arg) {
    fprintf(stderr, "sc_study: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(sc_study --help for the options)\n");
    exit(2);
}

/* ---- the machine ----------------------------------------------------------- */

typedef struct study_machine {
    char cpu[128];
    char tag[96];
    int cores;       /* logical CPUs online */
    int lib_threads; /* threads the library uses by default (cores hwloc sees) */
    char isa[16];
    char compiler[64];
    char omp_bind[64];
    double l3_bytes;
} study_machine;

/* The same tag sc_bench derives (CPU model, lower case, dashes, "-<cpus>c"),
 * so both write under one bench/results/<machine>/ folder. */
static void machine_probe(const char *tag, study_machine *m) {
    memset(m, 0, sizeof *m);
    bench_host h;
    bench_host_probe(tag, &h);
    snprintf(m->cpu, sizeof m->cpu, "%s", h.cpu);
    snprintf(m->tag, sizeof m->tag, "%s", h.tag);
    m->cores = h.cores;
    snprintf(m->isa, sizeof m->isa, "%s", h.isa);
    snprintf(m->compiler, sizeof m->compiler, "%s", h.compiler);
    const char *bind = getenv("OMP_PROC_BIND"), *places = getenv("OMP_PLACES");
    snprintf(m->omp_bind, sizeof m->omp_bind, "%s%s%s", bind ? bind : "unset", places ? "/" : "",
             places ? places : "");
    /* The library's default thread count: parse "cores seen: N" from
     * sc_system_info (no OpenMP team is started by it). */
    char info[4096];
    sc_system_info(NULL, info, sizeof info);
    const char *cs = strstr(info, "cores seen: ");
    m->lib_threads = cs ? atoi(cs + 12) : m->cores;
    if (m->lib_threads < 1)
        m->lib_threads = m->cores;
    /* L3 per core complex as the kernel reports it; glibc's sysconf may give
     * the whole package's sum on virtual machines (320 MiB here for 32). */
    long l3 = -1;
    FILE *c = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    if (c) {
        long kb = 0;
        if (fscanf(c, "%ldK", &kb) == 1)
            l3 = kb * 1024;
        fclose(c);
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (l3 <= 0)
        l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    m->l3_bytes = l3 > 0 ? (double)l3 : 32.0 * 1048576.0;
}

/* ---- configurations and results -------------------------------------------------- */

typedef struct study_config {
    char dist[16];
    size_t n;
    uint64_t seed;
    int order;
    int layout;
    sc_kernel kernel;
    int threads; /* 0 = all */
    sc_pin pin;
    double cell_factor;
    int levels; /* 0 = the cost model's choice */
    int repeats;
    double slow_s; /* a warm-up query slower than this: only 3 timed repeats */
    int counters;
} study_config;

typedef struct study_result {
    int status; /* 0 ok, 1 skipped, -1 failed, -2 timeout */
    char note[160];
    int threads_used;
    char kernel_ran[8];
    char pin_ran[12];
    int repeats_done;
    double total_med, total_min, cold_s, wall_med;
    double stage_med[SC_STAGE_COUNT];
    uint64_t pairs, checksum, checksum_input;
    uint64_t cells, candidate_tests, scratch_bytes;
    int levels, plan_levels, key_bits, passes, pack_bits;
    double cell_size;
    double gen_s, order_s;
    int counter_ok[NCOUNTERS];
    double counter_med[NCOUNTERS];
    char counter_why[160];
    double load1;
} study_result;

typedef struct study_args {
    const char *scenario;
    int quick;
    int record; /* default output: the committed results folder */
    const char *outdir;
    const char *tag;
    int repeats;
    double timeout_s;
    double slow_s;
    uint64_t seed;
    /* overrides */
    const char *dists[MAX_LIST];
    int ndists;
    size_t sizes[MAX_LIST];
    int nsizes;
    int threads[MAX_LIST];
    int nthreads;
    /* --once */
    int once;
    int queries;
    study_config one;
} study_args;

/* ---- the child: one configuration ------------------------------------------ */

typedef struct map_sink {
    const uint32_t *perm;
    uint64_t pairs, checksum;
} map_sink;

/* Maps pairs of the permuted input back to generated-order indices. */
static int sink_mapped(const uint32_t *pairs, size_t count, void *user) {
    map_sink *s = user;
    for (size_t k = 0; k < count; k++) {
        uint32_t i = s->perm[pairs[2 * k]], j = s->perm[pairs[2 * k + 1]];
        if (i > j) {
            uint32_t t = i;
            i = j;
            j = t;
        }
        s->checksum += sc_pair_mix(i, j);
        s->pairs++;
    }
    return 0;
}

/* Radix passes the engine's sort runs on this input: replays the grid plan
 * and the keys through the library's internal stages (not timed). */
static void count_passes(const double *rows, const study_config *c, study_result *r) {
    sc_spheres s = sc_spheres_rows_f64(c->n, 3, rows);
    int key_bits = 0, levels = 0;
    uint64_t varying = 0;
    int pack_bits = 0;
    r->key_bits = r->passes = r->pack_bits = -1;
    if (sc_study_grid_plan(&s, c->cell_factor, c->levels, &key_bits, &levels, &varying,
                           &pack_bits) == SC_OK) {
        r->key_bits = key_bits;
        r->pack_bits = pack_bits;
        r->plan_levels = levels;
        r->passes = study_radix_passes(c->n, key_bits, varying, STUDY_RADIX_DIGIT_BITS);
    }
}

/* Generates the input in the configured order; *perm_out (NULL for the
 * generated order) maps positions to generated indices. */
static double *make_input(const study_config *c, study_result *r, uint32_t **perm_out) {
    *perm_out = NULL;
    const size_t n = c->n;
    double *rows = malloc((n ? n : 1) * 4 * sizeof *rows);
    if (!rows)
        return NULL;
    double t0 = bench_now_s();
    sc_gen_generate(c->dist, n, c->seed, rows);
    r->gen_s = bench_now_s() - t0;
    if (c->order == ORDER_GENERATED)
        return rows;
    t0 = bench_now_s();
    uint32_t *perm = malloc((n ? n : 1) * sizeof *perm);
    double *out = malloc((n ? n : 1) * 4 * sizeof *out);
    int bad = !perm || !out;
    if (!bad) {
        if (c->order == ORDER_SHUFFLED)
            study_perm_shuffle(perm, n, c->seed);
        else
            bad = study_perm_morton(perm, rows, n) != 0;
    }
    if (!bad)
        study_perm_apply_rows(out, rows, perm, n);
    free(rows);
    if (bad) {
        free(perm);
        free(out);
        return NULL;
    }
    r->order_s = bench_now_s() - t0;
    *perm_out = perm;
    return out;
}

static sc_options options_of(const study_config *c) {
    sc_options opt = sc_options_default();
    opt.threads = c->threads;
    opt.kernel = c->kernel;
    opt.pin = c->pin;
    opt.grid.cell_factor = c->cell_factor;
    opt.grid.levels = c->levels;
    return opt;
}

/* The context of a configuration: options, then the study's switches.
 * Layout 2, "morton": the gathered copy with its rows along a Morton curve
 * (experiment 3c). */
static sc_status context_of(const study_config *c, sc_context **ctx) {
    sc_options opt = options_of(c);
    sc_status st = sc_context_create(&opt, ctx);
    if (st == SC_OK)
        st = sc_study_set_layout(*ctx, c->layout == 1 ? SC_LAYOUT_INDIRECT : SC_LAYOUT_GATHERED);
    if (st == SC_OK)
        st = sc_study_set_traversal(*ctx, c->layout == 2 ? SC_TRAVERSAL_MORTON : SC_TRAVERSAL_ROWS);
    return st;
}

static void run_config(const study_config *c, study_result *r) {
    uint32_t *perm = NULL;
    double *rows = make_input(c, r, &perm);
    sc_context *ctx = NULL;
    double *total = calloc((size_t)c->repeats, sizeof *total);
    double *wall = calloc((size_t)c->repeats, sizeof *wall);
    double *stage = calloc((size_t)c->repeats * SC_STAGE_COUNT, sizeof *stage);
    double *cnt = calloc((size_t)c->repeats * NCOUNTERS, sizeof *cnt);
    study_counters counters;
    memset(&counters, 0, sizeof counters);
    if (!rows || !total || !wall || !stage || !cnt) {
        r->status = -1;
        snprintf(r->note, sizeof r->note, "out of memory for %zu spheres", c->n);
        goto done;
    }
    if (c->kernel != SC_KERNEL_AUTO && !sc_kernel_available(c->kernel)) {
        r->status = 1;
        snprintf(r->note, sizeof r->note, "kernel %s not available here",
                 sc_kernel_name(c->kernel));
        goto done;
    }
    sc_status st = context_of(c, &ctx);
    if (st != SC_OK) {
        r->status = -1;
        snprintf(r->note, sizeof r->note, "sc_context_create: %s", sc_status_string(st));
        goto done;
    }
    if (c->counters) {
        study_counter_backend be = study_counters_default_backend();
        study_counters_open(&counters, &be, counter_events, NCOUNTERS);
    } else {
        snprintf(counters.why, sizeof counters.why,
                 "not read: PAPI counts the calling thread only");
    }
    const sc_spheres view = sc_spheres_rows_f64(c->n, 3, rows);
    int counted_all[NCOUNTERS] = {1, 1, 1};
    int reps = c->repeats; /* 3 when the warm-up query is slow */
    for (int k = -1; k < reps; k++) {
        sc_summary sum = {0, 0};
        const double t0 = bench_now_s();
        if (k >= 0 && c->counters)
            study_counters_start(&counters);
        st = sc_count_pairs(ctx, &view, &sum);
        if (k >= 0 && c->counters)
            study_counters_stop(&counters);
        const double t1 = bench_now_s();
        if (st != SC_OK) {
            r->status = -1;
            snprintf(r->note, sizeof r->note, "query: %s", sc_status_string(st));
            goto done;
        }
        sc_stats s = {.size = sizeof s};
        sc_context_stats(ctx, &s);
        if (k < 0) {
            r->cold_s = s.total_seconds;
            r->pairs = sum.pairs;
            r->checksum = sum.checksum;
            if (c->slow_s > 0 && s.total_seconds > c->slow_s && reps > 3)
                reps = 3;
        } else if (sum.pairs != r->pairs || sum.checksum != r->checksum) {
            r->status = -1;
            snprintf(r->note, sizeof r->note, "repeat %d gave a different result", k);
            goto done;
        } else {
            total[k] = s.total_seconds;
            wall[k] = t1 - t0;
            for (int q = 0; q < SC_STAGE_COUNT; q++)
                stage[q * c->repeats + k] = s.seconds[q];
            for (int q = 0; q < NCOUNTERS; q++) {
                long long v;
                if (c->counters && study_counters_get(&counters, q, &v))
                    cnt[q * c->repeats + k] = (double)v;
                else
                    counted_all[q] = 0;
            }
        }
        r->threads_used = s.threads;
        snprintf(r->kernel_ran, sizeof r->kernel_ran, "%s", sc_kernel_name(s.kernel));
        snprintf(r->pin_ran, sizeof r->pin_ran, "%s", sc_pin_name(s.pin));
        r->cells = s.cells;
        r->candidate_tests = s.candidate_tests;
        r->scratch_bytes = s.scratch_bytes;
        r->levels = s.levels;
        r->cell_size = s.cell_size;
        r->repeats_done = k + 1;
    }
    r->total_med = study_median(total, (size_t)reps);
    r->wall_med = study_median(wall, (size_t)reps);
    r->total_min = total[0];
    for (int k = 1; k < reps; k++)
        r->total_min = total[k] < r->total_min ? total[k] : r->total_min;
    for (int q = 0; q < SC_STAGE_COUNT; q++)
        r->stage_med[q] = study_median(stage + q * c->repeats, (size_t)reps);
    for (int q = 0; q < NCOUNTERS; q++) {
        r->counter_ok[q] = c->counters && counted_all[q];
        r->counter_med[q] =
            r->counter_ok[q] ? study_median(cnt + q * c->repeats, (size_t)reps) : 0.0;
    }
    snprintf(r->counter_why, sizeof r->counter_why, "%s", counters.why);

    /* Untimed checks and model inputs. */
    r->checksum_input = r->checksum;
    if (perm) {
        map_sink ms = {perm, 0, 0};
        sc_summary sum;
        st = sc_stream_pairs(ctx, &view, sink_mapped, &ms, &sum);
        if (st != SC_OK || ms.pairs != r->pairs) {
            r->status = -1;
            snprintf(r->note, sizeof r->note, "mapped stream: %s", sc_status_string(st));
            goto done;
        }
        r->checksum_input = ms.checksum;
    }
    count_passes(rows, c, r);
done:
    study_counters_close(&counters);
    sc_context_destroy(ctx);
    free(rows);
    free(perm);
    free(total);
    free(wall);
    free(stage);
    free(cnt);
}

/* ---- the parent: fork, pipe, timeout -------------------------------------------- */

/* Runs fn(arg, out) in a child process; out is filled from the child's
 * result (out_size bytes). Returns 0, -1 (the child failed: why in note) or
 * -2 (killed after timeout_s). */
static int run_forked(void (*fn)(const void *, void *), const void *arg, void *out, size_t out_size,
                      double timeout_s, char *note, size_t note_cap) {
    int fds[2];
    if (pipe(fds)) {
        snprintf(note, note_cap, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(note, note_cap, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        fn(arg, out);
        int bad = bench_write_all(fds[1], out, out_size);
        close(fds[1]);
        _exit(bad ? 3 : 0);
    }
    close(fds[1]);
    char *buf = malloc(out_size);
    size_t have = 0;
    int timed_out = 0;
    const double deadline = bench_now_s() + (timeout_s > 0 ? timeout_s : 1e9);
    while (buf && have < out_size) {
        double left = deadline - bench_now_s();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int pr = poll(&p, 1, left > 1e6 ? -1 : (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            continue;
        ssize_t got = read(fds[0], buf + have, out_size - have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        have += (size_t)got;
    }
    if (timed_out)
        kill(pid, SIGKILL);
    close(fds[0]);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    int rc = 0;
    if (timed_out) {
        snprintf(note, note_cap, "killed after the %.0f s timeout", timeout_s);
        rc = -2;
    } else if (!buf || have != out_size) {
        if (WIFSIGNALED(ws))
            snprintf(note, note_cap, "child killed by signal %d (%s)", WTERMSIG(ws),
                     strsignal(WTERMSIG(ws)));
        else
            snprintf(note, note_cap, "child exited with status %d without a result",
                     WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
        rc = -1;
    } else {
        memcpy(out, buf, out_size);
    }
    free(buf);
    return rc;
}

static void child_config(const void *arg, void *out) {
    study_result *r = out;
    memset(r, 0, sizeof *r);
    run_config(arg, r);
}

static void run_isolated(const study_config *c, double timeout_s, study_result *r) {
    memset(r, 0, sizeof *r);
    const double load1 = bench_load_average();
    char note[160] = "";
    int rc = run_forked(child_config, c, r, sizeof *r, timeout_s, note, sizeof note);
    if (rc != 0) {
        memset(r, 0, sizeof *r);
        r->status = rc == -2 ? -2 : -1;
        snprintf(r->note, sizeof r->note, "%s", note);
    }
    r->load1 = load1;
}

/* ---- memory bandwidth (STREAM-like) ------------------------------------------ */

typedef struct bw_job {
    int threads;
    size_t elems;
    int repeats;
} bw_job;

typedef struct bw_result {
    int ok;
    int threads_used;
    double copy_best, copy_med, triad_best, triad_med; /* bytes per second */
    double check;
} bw_result;

/* copy c = a (16 B per element), triad a = b + s c (24 B per element), as
 * STREAM counts them; arrays first-touched with the same static schedule. */
static void child_bandwidth(const void *arg, void *out) {
    const bw_job *j = arg;
    bw_result *r = out;
    memset(r, 0, sizeof *r);
    const size_t n = j->elems;
    double *a = NULL, *b = NULL, *c = NULL;
    if (posix_memalign((void **)&a, 64, n * sizeof *a) ||
        posix_memalign((void **)&b, 64, n * sizeof *b) ||
        posix_memalign((void **)&c, 64, n * sizeof *c))
        return;
    double *tc = calloc((size_t)j->repeats, sizeof *tc),
           *tt = calloc((size_t)j->repeats, sizeof *tt);
    if (!tc || !tt)
        return;
#ifdef _OPENMP
    omp_set_num_threads(j->threads);
#endif
    const double s = 3.0;
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++) {
        a[k] = 1.0;
        b[k] = 2.0;
        c[k] = 0.0;
    }
    for (int rep = 0; rep < j->repeats + 1; rep++) {
        double t0 = bench_now_s();
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < n; k++)
            c[k] = a[k];
        double t1 = bench_now_s();
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < n; k++)
            a[k] = b[k] + s * c[k];
        double t2 = bench_now_s();
        if (rep > 0) { /* the first round only warms up */
            tc[rep - 1] = t1 - t0;
            tt[rep - 1] = t2 - t1;
        }
    }
    double best_c = tc[0], best_t = tt[0];
    for (int k = 1; k < j->repeats; k++) {
        best_c = tc[k] < best_c ? tc[k] : best_c;
        best_t = tt[k] < best_t ? tt[k] : best_t;
    }
    const double bc = 16.0 * (double)n, bt = 24.0 * (double)n;
    r->copy_best = bc / best_c;
    r->triad_best = bt / best_t;
    r->copy_med = bc / study_median(tc, (size_t)j->repeats);
    r->triad_med = bt / study_median(tt, (size_t)j->repeats);
    r->check = a[n / 2] + c[n / 3]; /* keeps the loops alive */
#ifdef _OPENMP
    r->threads_used = j->threads;
#else
    r->threads_used = 1;
#endif
    r->ok = 1;
    free(a);
    free(b);
    free(c);
    free(tc);
    free(tt);
}

/* Bandwidth per thread count, read back from bandwidth.csv for the floor. */
typedef struct bw_table {
    int count;
    int threads[64];
    double best[64]; /* max(copy, triad) best, bytes/s */
} bw_table;

static const bw_table *bandwidth_table;

static double bw_for(int threads) {
    if (!bandwidth_table)
        return NAN;
    for (int k = 0; k < bandwidth_table->count; k++)
        if (bandwidth_table->threads[k] == threads)
            return bandwidth_table->best[k];
    return NAN;
}

/* Reads bandwidth.csv (the columns this program writes: threads and
 * best_bytes_per_s, by name from the header; no quoted commas in them). */
static int load_bandwidth(const char *path, bw_table *t) {
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[4096];
    int col_t = -1, col_b = -1;
    if (fgets(line, sizeof line, f)) {
        int k = 0;
        for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"), k++) {
            if (!strcmp(tok, "threads"))
                col_t = k;
            if (!strcmp(tok, "best_bytes_per_s"))
                col_b = k;
        }
    }
    while (col_t >= 0 && col_b >= 0 && fgets(line, sizeof line, f) && t->count < 64) {
        /* split honouring quotes */
        char *fields[64];
        int nf = 0, inq = 0;
        char *p = line;
        fields[nf++] = p;
        for (; *p && nf < 64; p++) {
            if (*p == '"')
                inq = !inq;
            else if (*p == ',' && !inq) {
                *p = 0;
                fields[nf++] = p + 1;
            }
        }
        if (col_t >= nf || col_b >= nf)
            continue;
        int th = atoi(fields[col_t]);
        double b = strtod(fields[col_b], NULL);
        int seen = -1;
        for (int k = 0; k < t->count; k++)
            if (t->threads[k] == th)
                seen = k;
        if (seen < 0) {
            seen = t->count++;
            t->threads[seen] = th;
            t->best[seen] = 0.0;
        }
        if (b > t->best[seen])
            t->best[seen] = b;
    }
    fclose(f);
    return t->count > 0 ? 0 : -1;
}

/* ---- CSV of engine runs ------------------------------------------------------------- */

static const char *const run_cols[] = {"machine",
                                       "cpu",
                                       "cores",
                                       "isa",
                                       "compiler",
                                       "pin_req",
                                       "pin",
                                       "omp_proc_bind",
                                       "version",
                                       "scenario",
                                       "run",
                                       "dist",
                                       "n",
                                       "seed",
                                       "order",
                                       "layout",
                                       "kernel_req",
                                       "kernel",
                                       "threads_req",
                                       "threads",
                                       "cell_factor",
                                       "levels_req",
                                       "levels",
                                       "plan_levels",
                                       "repeats",
                                       "status",
                                       "note",
                                       "total_s",
                                       "min_s",
                                       "cold_s",
                                       "wall_s",
                                       "s_bounds",
                                       "s_keys",
                                       "s_sort",
                                       "s_gather",
                                       "s_cells",
                                       "s_search",
                                       "s_merge",
                                       "spheres_per_s",
                                       "ns_per_item",
                                       "pairs",
                                       "checksum",
                                       "checksum_input_order",
                                       "cells",
                                       "candidate_tests",
                                       "tests_per_s",
                                       "hit_rate",
                                       "scratch_bytes",
                                       "key_bits",
                                       "sort_passes",
                                       "pack_bits",
                                       "floor_b_bounds",
                                       "floor_b_keys",
                                       "floor_b_sort",
                                       "floor_b_gather",
                                       "floor_b_cells",
                                       "floor_b_search",
                                       "floor_b_total",
                                       "bw_bytes_per_s",
                                       "floor_s_total",
                                       "ratio_bounds",
                                       "ratio_keys",
                                       "ratio_sort",
                                       "ratio_gather",
                                       "ratio_cells",
                                       "ratio_search",
                                       "ratio_total",
                                       "papi_l1_dcm",
                                       "papi_l2_dcm",
                                       "papi_l3_tcm",
                                       "counters_note",
                                       "gen_s",
                                       "order_s",
                                       "load1"};
#define NRUNCOLS ((int)(sizeof run_cols / sizeof run_cols[0]))

static const char *status_name(int s) {
    return s == 0 ? "ok" : s == 1 ? "skipped" : s == -2 ? "timeout" : "failed";
}

static void threads_label(int t, char *buf, size_t cap) {
    if (t == 0)
        snprintf(buf, cap, "all");
    else
        snprintf(buf, cap, "%d", t);
}

static void csv_run_row(study_csv *w, const study_machine *m, const study_args *a,
                        const study_config *c, const study_result *r) {
    char tb[16], buf[64];
    const int ok = r->status == 0;
    study_csv_str(w, m->tag);
    study_csv_str(w, m->cpu);
    study_csv_int(w, m->cores);
    study_csv_str(w, m->isa);
    study_csv_str(w, m->compiler);
    study_csv_str(w, sc_pin_name(c->pin));
    study_csv_str(w, ok ? r->pin_ran : "");
    study_csv_str(w, m->omp_bind);
    study_csv_str(w, sc_version());
    study_csv_str(w, a->scenario);
    study_csv_str(w, a->quick ? "quick" : "full");
    study_csv_str(w, c->dist);
    study_csv_u64(w, c->n);
    study_csv_u64(w, c->seed);
    study_csv_str(w, order_names[c->order]);
    study_csv_str(w, layout_names[c->layout]);
    study_csv_str(w, sc_kernel_name(c->kernel));
    study_csv_str(w, ok ? r->kernel_ran : "");
    threads_label(c->threads, tb, sizeof tb);
    study_csv_str(w, tb);
    study_csv_int(w, r->threads_used);
    study_csv_num(w, c->cell_factor);
    if (c->levels == 0)
        study_csv_str(w, "auto");
    else
        study_csv_int(w, c->levels);
    study_csv_int(w, r->levels);
    study_csv_int(w, r->plan_levels);
    study_csv_int(w, r->repeats_done);
    study_csv_str(w, status_name(r->status));
    study_csv_str(w, r->note);
    const double nan = NAN;
    study_csv_num(w, ok ? r->total_med : nan);
    study_csv_num(w, ok ? r->total_min : nan);
    study_csv_num(w, ok ? r->cold_s : nan);
    study_csv_num(w, ok ? r->wall_med : nan);
    for (int s = 0; s < SC_STAGE_COUNT; s++)
        study_csv_num(w, ok ? r->stage_med[s] : nan);
    const double items = (double)c->n + (double)r->pairs;
    study_csv_num(w, ok && r->total_med > 0 ? (double)c->n / r->total_med : nan);
    study_csv_num(w, ok && items > 0 ? r->total_med * 1e9 / items : nan);
    study_csv_u64(w, r->pairs);
    study_csv_hex(w, r->checksum);
    study_csv_hex(w, r->checksum_input);
    study_csv_u64(w, r->cells);
    study_csv_u64(w, r->candidate_tests);
    const double search = r->stage_med[SC_STAGE_SEARCH];
    study_csv_num(w, ok && search > 0 ? (double)r->candidate_tests / search : nan);
    study_csv_num(w,
                  ok && r->candidate_tests ? (double)r->pairs / (double)r->candidate_tests : nan);
    study_csv_u64(w, r->scratch_bytes);
    study_csv_int(w, r->key_bits);
    study_csv_int(w, r->passes);
    study_csv_int(w, r->pack_bits);
    /* the byte floor and the ratio measured / floor */
    study_floor fl;
    study_floor_bytes(c->n, r->passes > 0 ? r->passes : 0, r->cells, c->layout != 1,
                      r->pack_bits > 0, &fl);
    static const int model_stage[] = {STUDY_STAGE_BOUNDS, STUDY_STAGE_KEYS,  STUDY_STAGE_SORT,
                                      STUDY_STAGE_GATHER, STUDY_STAGE_CELLS, STUDY_STAGE_SEARCH};
    for (int s = 0; s < 6; s++)
        study_csv_num(w, ok && r->passes >= 0 ? fl.bytes[model_stage[s]] : nan);
    study_csv_num(w, ok && r->passes >= 0 ? fl.total : nan);
    const double bw = ok ? bw_for(r->threads_used) : nan;
    study_csv_num(w, bw);
    const double floor_total = ok && r->passes >= 0 ? fl.total / bw : nan;
    study_csv_num(w, floor_total);
    for (int s = 0; s < 6; s++) {
        const double fs = fl.bytes[model_stage[s]] / bw;
        study_csv_num(w, ok && r->passes >= 0 && fs > 0 ? r->stage_med[model_stage[s]] / fs : nan);
    }
    study_csv_num(w, ok && floor_total > 0 ? r->total_med / floor_total : nan);
    for (int q = 0; q < NCOUNTERS; q++)
        study_csv_str(
            w, study_counter_format(ok && r->counter_ok[q], r->counter_med[q], buf, sizeof buf));
    study_csv_str(w, r->counter_why);
    study_csv_num(w, r->gen_s);
    study_csv_num(w, r->order_s);
    study_csv_num(w, r->load1);
    study_csv_end_row(w);
    fflush(w->f);
}

/* ---- scenarios ---------------------------------------------------------------------- */

typedef struct plan {
    study_config cfg[MAX_CONFIGS];
    int count;
} plan;

static study_config base_config(const study_args *a, const char *dist, size_t n) {
    study_config c;
    memset(&c, 0, sizeof c);
    snprintf(c.dist, sizeof c.dist, "%s", dist);
    c.n = n;
    c.seed = a->seed;
    c.order = ORDER_GENERATED;
    c.layout = 0;
    c.kernel = SC_KERNEL_AUTO;
    c.threads = 0;
    c.pin = sc_options_default().pin;
    c.cell_factor = 1.0;
    c.levels = 0;
    c.repeats = a->repeats;
    c.slow_s = a->slow_s;
    return c;
}

static void add(plan *p, const study_config *c) {
    if (p->count < MAX_CONFIGS)
        p->cfg[p->count++] = *c;
}

/* Scenario defaults, overridden by --dist / --n / --threads. */
static int pick_dists(const study_args *a, const char *const *def, const char **out) {
    int k = 0;
    if (a->ndists) {
        for (int i = 0; i < a->ndists; i++)
            out[k++] = a->dists[i];
        return k;
    }
    for (; def[k]; k++)
        out[k] = def[k];
    return k;
}

static int pick_sizes(const study_args *a, const size_t *def, int ndef, size_t *out) {
    const size_t *s = a->nsizes ? a->sizes : def;
    const int k = a->nsizes ? a->nsizes : ndef;
    for (int i = 0; i < k; i++)
        out[i] = s[i];
    return k;
}

static int pick_threads(const study_args *a, const int *def, int ndef, int *out) {
    const int *s = a->nthreads ? a->threads : def;
    const int k = a->nthreads ? a->nthreads : ndef;
    for (int i = 0; i < k; i++)
        out[i] = s[i];
    return k;
}

/* Largest number of levels the grid plan allows for a radius range at a
 * cell factor (src/keys.c: halve while the smallest radius still fits). */
static int max_levels_for(const char *dist, double cell_factor) {
    double rmin, rmax;
    if (sc_gen_radius_bounds(dist, &rmin, &rmax))
        return 1;
    const double top = 2.0 * rmax * (1.0 + 2 * 0x1p-20) * cell_factor;
    int levels = 1;
    while (levels < 16 && rmin <= 0.25 * top * ldexp(1.0, 1 - levels) * (1.0 - 0x1p-20))
        levels++;
    return levels;
}

/* One function, though long: the study's plan is one table of
 * configurations built in order, a block per experiment. */
static void build_plan(const study_args *a, const study_machine *m, plan *p) {
    const char *dists[MAX_LIST];
    size_t sizes[MAX_LIST];
    int threads[MAX_LIST];
    const int q = a->quick;
    const char *sc = a->scenario;
    p->count = 0;
    if (!strcmp(sc, "growth")) {
        static const char *const def[] = {"uniform",   "shell",       "wide",  "powerlaw",
                                          "clustered", "farclusters", "dense", "sparse",
                                          "heavytail", "seed002",     NULL};
        static const size_t full[] = {1000, 10000, 100000, 1000000, 10000000};
        static const size_t quick[] = {1000, 10000, 100000};
        static const size_t dense_full[] = {1000, 3000, 10000, 20000};
        static const size_t dense_quick[] = {1000, 2000};
        static const int thr[] = {1, 0};
        int nd = pick_dists(a, def, dists), nt = pick_threads(a, thr, 2, threads);
        for (int d = 0; d < nd; d++) {
            const int dense = !strcmp(dists[d], "dense");
            int ns = dense && !a->nsizes
                         ? pick_sizes(a, q ? dense_quick : dense_full, q ? 2 : 4, sizes)
                         : pick_sizes(a, q ? quick : full, q ? 3 : 5, sizes);
            for (int s = 0; s < ns; s++)
                for (int t = 0; t < nt; t++) {
                    study_config c = base_config(a, dists[d], sizes[s]);
                    c.threads = threads[t];
                    add(p, &c);
                }
        }
    } else if (!strcmp(sc, "order")) {
        static const char *const def[] = {"uniform", "clustered", "wide", NULL};
        static const size_t full[] = {1000000, 4000000}, quick[] = {200000};
        static const int thr[] = {1, 0};
        int nd = pick_dists(a, def, dists), ns = pick_sizes(a, q ? quick : full, q ? 1 : 2, sizes);
        int nt = pick_threads(a, thr, 2, threads);
        for (int d = 0; d < nd; d++)
            for (int s = 0; s < ns; s++)
                for (int t = 0; t < nt; t++)
                    for (int o = ORDER_GENERATED; o <= ORDER_MORTON; o++) {
                        study_config c = base_config(a, dists[d], sizes[s]);
                        c.order = o;
                        c.threads = threads[t];
                        c.counters = threads[t] == 1 || (threads[t] == 0 && m->lib_threads == 1);
                        add(p, &c);
                    }
    } else if (!strcmp(sc, "layout")) {
        /* gathered with the scalar kernel is the fair peer of the indirect
         * path (scalar only); gathered with the auto kernel is the default */
        static const char *const def[] = {"uniform", "clustered", NULL};
        static const size_t full[] = {1000000, 4000000}, quick[] = {200000};
        static const int thr[] = {1, 0};
        int nd = pick_dists(a, def, dists), ns = pick_sizes(a, q ? quick : full, q ? 1 : 2, sizes);
        int nt = pick_threads(a, thr, 2, threads);
        for (int d = 0; d < nd; d++)
            for (int s = 0; s < ns; s++)
                for (int t = 0; t < nt; t++)
                    for (int v = 0; v < 4; v++) {
                        /* gathered scalar, gathered auto, indirect scalar,
                         * Morton rows auto */
                        study_config c = base_config(a, dists[d], sizes[s]);
                        c.layout = v == 2 ? 1 : v == 3 ? 2 : 0;
                        c.kernel = v == 1 || v == 3 ? SC_KERNEL_AUTO : SC_KERNEL_SCALAR;
                        c.threads = threads[t];
                        c.counters = threads[t] == 1 || (threads[t] == 0 && m->lib_threads == 1);
                        add(p, &c);
                    }
    } else if (!strcmp(sc, "cellsize")) {
        static const char *const def[] = {"uniform", "wide", "powerlaw", "clustered", NULL};
        static const size_t full[] = {1000000}, quick[] = {100000};
        static const double factors[] = {1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0};
        static const int thr[] = {0};
        int nd = pick_dists(a, def, dists), ns = pick_sizes(a, q ? quick : full, 1, sizes);
        int nt = pick_threads(a, thr, 1, threads);
        for (int d = 0; d < nd; d++)
            for (int s = 0; s < ns; s++)
                for (int t = 0; t < nt; t++)
                    for (int f = 0; f < (int)(sizeof factors / sizeof factors[0]); f++) {
                        study_config c = base_config(a, dists[d], sizes[s]);
                        c.cell_factor = factors[f];
                        c.threads = threads[t];
                        add(p, &c);
                        /* With levels chosen by the cost model, factor f and 2f
                         * can plan the same finest cell (a coarser, empty level
                         * on top). Radii within 2x of each other need one level:
                         * forcing it shows the single grid's own cell-size curve. */
                        double rmin, rmax;
                        if (!sc_gen_radius_bounds(dists[d], &rmin, &rmax) && rmax <= 2.0 * rmin) {
                            c.levels = 1;
                            add(p, &c);
                        }
                    }
    } else if (!strcmp(sc, "levels")) {
        static const char *const def[] = {"wide", "powerlaw", NULL};
        static const size_t full[] = {1000000}, quick[] = {20000};
        static const int thr[] = {0};
        int nd = pick_dists(a, def, dists), ns = pick_sizes(a, q ? quick : full, 1, sizes);
        int nt = pick_threads(a, thr, 1, threads);
        for (int d = 0; d < nd; d++) {
            const int lmax = max_levels_for(dists[d], 1.0);
            for (int s = 0; s < ns; s++)
                for (int t = 0; t < nt; t++)
                    for (int l = 0; l <= lmax; l++) {
                        study_config c = base_config(a, dists[d], sizes[s]);
                        c.levels = l; /* 0: the cost model's choice */
                        c.threads = threads[t];
                        add(p, &c);
                    }
        }
    } else if (!strcmp(sc, "threads")) {
        static const char *const def[] = {"uniform", NULL};
        static const size_t full[] = {4000000}, quick[] = {200000};
        int nd = pick_dists(a, def, dists), ns = pick_sizes(a, q ? quick : full, 1, sizes);
        int nt = 0;
        if (a->nthreads)
            nt = pick_threads(a, NULL, 0, threads);
        else
            for (int t = 1; t <= m->lib_threads && nt < MAX_LIST; t++)
                threads[nt++] = t;
        for (int d = 0; d < nd; d++)
            for (int s = 0; s < ns; s++)
                for (int pin = SC_PIN_NONE; pin <= SC_PIN_SCATTER; pin++)
                    for (int t = 0; t < nt; t++) {
                        study_config c = base_config(a, dists[d], sizes[s]);
                        c.threads = threads[t];
                        c.pin = (sc_pin)pin;
                        add(p, &c);
                    }
    } else if (!strcmp(sc, "kernels")) {
        static const char *const def[] = {"uniform",   "wide",  "powerlaw",
                                          "clustered", "dense", NULL};
        static const size_t full[] = {1000000}, quick[] = {100000};
        static const int thr[] = {1, 0};
        int nd = pick_dists(a, def, dists), nt = pick_threads(a, thr, 2, threads);
        for (int d = 0; d < nd; d++) {
            const int dense = !strcmp(dists[d], "dense");
            size_t dn[1] = {q ? 2000 : 20000};
            int ns = dense && !a->nsizes ? 1 : pick_sizes(a, q ? quick : full, 1, sizes);
            if (dense && !a->nsizes)
                sizes[0] = dn[0];
            for (int s = 0; s < ns; s++)
                for (int t = 0; t < nt; t++)
                    for (int k = SC_KERNEL_SCALAR; k <= SC_KERNEL_AVX2; k++) {
                        study_config c = base_config(a, dists[d], sizes[s]);
                        c.kernel = (sc_kernel)k;
                        c.threads = threads[t];
                        add(p, &c);
                    }
        }
    } else {
        die_usage(
            "unknown scenario '%s' (bandwidth, growth, order, layout, cellsize, levels, threads, "
            "kernels)",
            sc);
    }
}

/* ---- agreement ----------------------------------------------------------------------- */

typedef struct truth {
    char dist[16];
    size_t n;
    uint64_t seed, pairs, checksum;
} truth;

static int agree(truth *t, int *nt, const study_config *c, const study_result *r) {
    for (int k = 0; k < *nt; k++)
        if (!strcmp(t[k].dist, c->dist) && t[k].n == c->n && t[k].seed == c->seed) {
            if (t[k].pairs == r->pairs && t[k].checksum == r->checksum_input)
                return 0;
            fprintf(stderr,
                    "\n*** DISAGREEMENT on %s n=%zu: %" PRIu64 " pairs 0x%016" PRIx64
                    " before, now %" PRIu64 " pairs 0x%016" PRIx64
                    " (order %s, layout %s, kernel %s, cell factor %g, levels %d)\n",
                    c->dist, c->n, t[k].pairs, t[k].checksum, r->pairs, r->checksum_input,
                    order_names[c->order], layout_names[c->layout], r->kernel_ran, c->cell_factor,
                    c->levels);
            return -1;
        }
    if (*nt < MAX_CONFIGS) {
        truth *x = &t[(*nt)++];
        snprintf(x->dist, sizeof x->dist, "%s", c->dist);
        x->n = c->n;
        x->seed = c->seed;
        x->pairs = r->pairs;
        x->checksum = r->checksum_input;
    }
    return 0;
}

/* ---- output files ------------------------------------------------------------------------ */

static FILE *open_csv(const study_args *a, const char *name, char *path, size_t cap) {
    if (bench_mkdir_p(a->outdir)) {
        fprintf(stderr, "sc_study: cannot create %s: %s\n", a->outdir, strerror(errno));
        return NULL;
    }
    snprintf(path, cap, "%s/%s.csv", a->outdir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "sc_study: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

static int scenario_bandwidth(const study_args *a, const study_machine *m) {
    static const char *const cols[] = {"machine",
                                       "cpu",
                                       "cores",
                                       "isa",
                                       "compiler",
                                       "omp_proc_bind",
                                       "pin",
                                       "version",
                                       "run",
                                       "kernel",
                                       "threads",
                                       "array_bytes",
                                       "l3_bytes",
                                       "repeats",
                                       "status",
                                       "best_bytes_per_s",
                                       "median_bytes_per_s",
                                       "load1"};
    char path[1100];
    FILE *f = open_csv(a, "bandwidth", path, sizeof path);
    if (!f)
        return 2;
    study_csv w;
    study_csv_begin(&w, f, cols, (int)(sizeof cols / sizeof cols[0]));
    /* Each array 8x the L3 (STREAM asks for at least 4x), at least 256 MiB,
     * and the three arrays within an eighth of the memory: a guest that
     * reports no L3 in sysfs gets glibc's sum over the package (508 MiB on
     * one host here), which asked for 12 GiB. */
    size_t elems = (size_t)(8.0 * m->l3_bytes / 8.0);
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) {
        const size_t cap = (size_t)((double)pages * (double)page / 8.0 / 3.0 / 8.0);
        if (elems > cap)
            elems = cap;
    }
    if (elems < ((size_t)32 << 20))
        elems = (size_t)32 << 20;
    int threads[MAX_LIST], nt = 0;
    if (a->nthreads)
        nt = pick_threads(a, NULL, 0, threads);
    else
        for (int t = 1; t <= m->cores && nt < MAX_LIST; t++)
            threads[nt++] = t;
    int failures = 0;
    printf("%-8s %8s %12s %14s %14s\n", "kernel", "threads", "array_MiB", "best_GB/s",
           "median_GB/s");
    for (int t = 0; t < nt; t++) {
        bw_job job = {threads[t] > 0 ? threads[t] : m->cores, elems, a->quick ? 5 : 10};
        bw_result r;
        char note[160];
        const double load1 = bench_load_average();
        int rc = run_forked(child_bandwidth, &job, &r, sizeof r, a->timeout_s, note, sizeof note);
        if (rc != 0 || !r.ok) {
            fprintf(stderr, "sc_study: bandwidth with %d threads failed: %s\n", job.threads,
                    rc ? note : "allocation failed");
            failures++;
            continue;
        }
        for (int kind = 0; kind < 2; kind++) {
            const double best = kind ? r.triad_best : r.copy_best,
                         med = kind ? r.triad_med : r.copy_med;
            printf("%-8s %8d %12.0f %14.2f %14.2f\n", kind ? "triad" : "copy", job.threads,
                   (double)elems * 8.0 / 1048576.0, best / 1e9, med / 1e9);
            study_csv_str(&w, m->tag);
            study_csv_str(&w, m->cpu);
            study_csv_int(&w, m->cores);
            study_csv_str(&w, m->isa);
            study_csv_str(&w, m->compiler);
            study_csv_str(&w, m->omp_bind);
            study_csv_str(&w, "none"); /* OpenMP threads where the OS puts them */
            study_csv_str(&w, sc_version());
            study_csv_str(&w, a->quick ? "quick" : "full");
            study_csv_str(&w, kind ? "triad" : "copy");
            study_csv_int(&w, job.threads);
            study_csv_num(&w, (double)elems * 8.0);
            study_csv_num(&w, m->l3_bytes);
            study_csv_int(&w, job.repeats);
            study_csv_str(&w, "ok");
            study_csv_num(&w, best);
            study_csv_num(&w, med);
            study_csv_num(&w, load1);
            study_csv_end_row(&w);
        }
    }
    fclose(f);
    printf("CSV: %s\n", path);
    return failures ? 1 : 0;
}

static void print_header(void) {
    printf("%-11s %9s %-9s %-8s %-6s %3s %-7s %4s %4s | %9s |", "dist", "n", "order", "layout",
           "kernel", "thr", "pin", "cf", "lev", "total_ms");
    for (int s = 0; s < SC_STAGE_COUNT; s++)
        printf(" %7.7s", stage_cols[s]);
    printf(" | %11s %7s %6s %7s\n", "pairs", "ns/item", "passes", "x floor");
}

static void print_result(const study_config *c, const study_result *r) {
    char tb[16];
    threads_label(c->threads, tb, sizeof tb);
    printf("%-11s %9zu %-9s %-8s %-6s %3s %-7s %4.3g %4d | ", c->dist, c->n, order_names[c->order],
           layout_names[c->layout], r->status == 0 ? r->kernel_ran : sc_kernel_name(c->kernel),
           r->threads_used ? (snprintf(tb, sizeof tb, "%d", r->threads_used), tb) : tb,
           sc_pin_name(c->pin), c->cell_factor, c->levels);
    if (r->status != 0) {
        printf("%s: %s\n", status_name(r->status), r->note);
        fflush(stdout);
        return;
    }
    printf("%9.3f |", r->total_med * 1e3);
    for (int s = 0; s < SC_STAGE_COUNT; s++)
        printf(" %7.2f", r->stage_med[s] * 1e3);
    study_floor fl;
    study_floor_bytes(c->n, r->passes > 0 ? r->passes : 0, r->cells, c->layout != 1,
                      r->pack_bits > 0, &fl);
    const double bw = bw_for(r->threads_used);
    const double items = (double)c->n + (double)r->pairs;
    printf(" | %11" PRIu64 " %7.2f %6d %7.2f\n", r->pairs,
           items > 0 ? r->total_med * 1e9 / items : 0.0, r->passes,
           isfinite(bw) ? r->total_med / (fl.total / bw) : NAN);
    fflush(stdout);
}

static int scenario_runs(const study_args *a, const study_machine *m) {
    static plan p;
    build_plan(a, m, &p);
    char path[1100];
    FILE *f = open_csv(a, a->scenario, path, sizeof path);
    if (!f)
        return 2;
    study_csv w;
    study_csv_begin(&w, f, run_cols, NRUNCOLS);
    static truth t[MAX_CONFIGS];
    int nt = 0, failures = 0, timeouts = 0;
    const double t0 = bench_now_s();
    print_header();
    for (int k = 0; k < p.count; k++) {
        study_result r;
        run_isolated(&p.cfg[k], a->timeout_s, &r);
        print_result(&p.cfg[k], &r);
        if (r.status == -1)
            failures++;
        else if (r.status == -2)
            timeouts++;
        else if (r.status == 0 && agree(t, &nt, &p.cfg[k], &r))
            failures++;
        csv_run_row(&w, m, a, &p.cfg[k], &r);
    }
    fclose(f);
    printf("%d configurations in %.1f s (%d timed out); CSV: %s\n", p.count, bench_now_s() - t0,
           timeouts, path);
    if (w.errors)
        fprintf(stderr, "sc_study: %d CSV rows had the wrong field count or failed to write\n",
                w.errors);
    if (failures)
        fprintf(stderr, "*** sc_study: %d FAILURE(S) OR DISAGREEMENT(S) ***\n", failures);
    return failures || w.errors ? 1 : 0;
}

/* --once: one in-process configuration, for cachegrind. Runs `queries`
 * warm queries after one cold one; prints the result. */
static int run_once(const study_args *a) {
    const study_config *c = &a->one;
    study_result r;
    memset(&r, 0, sizeof r);
    uint32_t *perm = NULL;
    double *rows = make_input(c, &r, &perm);
    if (!rows) {
        fprintf(stderr, "sc_study: out of memory\n");
        return 1;
    }
    sc_context *ctx = NULL;
    sc_status st = context_of(c, &ctx);
    const sc_spheres view = sc_spheres_rows_f64(c->n, 3, rows);
    sc_summary sum = {0, 0};
    for (int k = 0; st == SC_OK && k < a->queries; k++)
        st = sc_count_pairs(ctx, &view, &sum);
    if (st != SC_OK) {
        fprintf(stderr, "sc_study: %s\n", sc_status_string(st));
        sc_context_destroy(ctx);
        free(rows);
        free(perm);
        return 1;
    }
    sc_stats s = {.size = sizeof s};
    sc_context_stats(ctx, &s);
    study_machine m;
    machine_probe(a->tag, &m);
    for (char *p = m.compiler; *p; p++)
        if (*p == ' ')
            *p = '_';
    printf(
        "once dist=%s n=%zu order=%s layout=%s cell_factor=%g levels=%d queries=%d pairs=%" PRIu64
        " checksum=0x%016" PRIx64 " kernel=%s threads=%d pin=%s isa=%s compiler=%s total_s=%.6f\n",
        c->dist, c->n, order_names[c->order], layout_names[c->layout], c->cell_factor, c->levels,
        a->queries, sum.pairs, sum.checksum, sc_kernel_name(s.kernel), s.threads,
        sc_pin_name(s.pin), m.isa, m.compiler, s.total_seconds);
    sc_context_destroy(ctx);
    free(rows);
    free(perm);
    return 0;
}

/* ---- command line ---------------------------------------------------------------------- */

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: sc_study --scenario NAME [options]\n"
        "       sc_study --once --dist D --n N [--order O] [--layout L] [--cell-factor F]\n"
        "                [--levels L] [--threads T] [--kernel K] [--queries Q]\n"
        "The performance study's driver (docs/study.md). Scenarios:\n"
        "  bandwidth  STREAM-like copy and triad, 1..P threads (arrays >= 4x L3)\n"
        "  growth     every generator, n = 1e3..1e7 (dense <= 2e4), 1 and all threads\n"
        "  order      input order: generated, shuffled, Morton-sorted (uniform, clustered, wide)\n"
        "  layout     gathered working copy (scalar, auto kernel) vs indirect reads, and\n"
        "             the gathered copy with rows in Morton order (layout morton)\n"
        "  cellsize   options.cell_factor 1..4 (uniform, wide, powerlaw, clustered; uniform and\n"
        "             clustered also with levels forced to 1)\n"
        "  levels     options.levels auto and 1..max (wide, powerlaw)\n"
        "  threads    1..P threads x pin none, compact, scatter (uniform)\n"
        "  kernels    scalar vs avx2, 1 and all threads\n"
        "Options:\n"
        "  --quick            small sizes and fewer repeats (a smoke run of the study)\n"
        "  --out DIR          CSV folder (default: a scratch folder, " SC_BENCH_RESULTS_DIR
        "/tmp/<machine>/\n"
        "                     study[-quick], never the committed results)\n"
        "  --record           write " SC_BENCH_RESULTS_DIR
        "/<machine>/study[-quick], the results the docs\n"
        "                     are built from (run-study.sh passes --out itself)\n"
        "  --machine-tag TAG  names the machine folder (default: from the CPU model, as sc_bench)\n"
        "  --repeat R         timed repeats per configuration, >= 3 (default 5; quick 3)\n"
        "  --timeout S        kill a configuration after S seconds (default 300, levels 60;\n"
        "                     quick 60): forced single-level grids on powerlaw are quadratic\n"
        "  --slow S           a warm-up query slower than S seconds: only 3 timed repeats (default "
        "5)\n"
        "  --seed S           generator seed (default 1)\n"
        "  --dist LIST, --n LIST, --threads LIST   override a scenario's defaults ('all' = 0)\n"
        "Exit status: 0 all agree, 1 a failure or disagreement, 2 usage or files.\n");
}

static void parse_args(int argc, char **argv, study_args *a) {
    memset(a, 0, sizeof *a);
    a->repeats = 0;
    a->timeout_s = -1;
    a->slow_s = 5.0;
    a->seed = 1;
    a->queries = 1;
    study_config *o = &a->one;
    snprintf(o->dist, sizeof o->dist, "uniform");
    o->n = 100000;
    o->kernel = SC_KERNEL_AUTO;
    o->threads = 1;
    o->pin = sc_options_default().pin;
    o->cell_factor = 1.0;
    o->seed = a->seed;
    char *items[MAX_LIST];
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED()                                                                                     \
    do {                                                                                           \
        if (!val)                                                                                  \
            die_usage("%s needs a value", opt);                                                    \
        i++;                                                                                       \
    } while (0)
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(opt, "--scenario")) {
            NEED();
            a->scenario = val;
        } else if (!strcmp(opt, "--record")) {
            a->record = 1;
        } else if (!strcmp(opt, "--quick")) {
            a->quick = 1;
        } else if (!strcmp(opt, "--once")) {
            a->once = 1;
        } else if (!strcmp(opt, "--out")) {
            NEED();
            a->outdir = val;
        } else if (!strcmp(opt, "--machine-tag")) {
            NEED();
            a->tag = val;
        } else if (!strcmp(opt, "--repeat")) {
            NEED();
            a->repeats = atoi(val);
            if (a->repeats < 3)
                die_usage("--repeat %s: medians need at least 3 repeats", val);
        } else if (!strcmp(opt, "--timeout")) {
            NEED();
            a->timeout_s = strtod(val, NULL);
        } else if (!strcmp(opt, "--slow")) {
            NEED();
            a->slow_s = strtod(val, NULL);
        } else if (!strcmp(opt, "--seed")) {
            NEED();
            a->seed = strtoull(val, NULL, 0);
            o->seed = a->seed;
        } else if (!strcmp(opt, "--queries")) {
            NEED();
            a->queries = atoi(val);
            if (a->queries < 0)
                die_usage("bad --queries '%s'", val);
        } else if (!strcmp(opt, "--dist")) {
            NEED();
            int k = split_list(argv[i], items);
            a->ndists = 0;
            for (int j = 0; j < k; j++) {
                if (!sc_gen_describe(items[j]))
                    die_usage("unknown generator '%s'", items[j]);
                a->dists[a->ndists++] = items[j];
            }
            if (a->ndists)
                snprintf(o->dist, sizeof o->dist, "%s", a->dists[0]);
        } else if (!strcmp(opt, "--n")) {
            NEED();
            int k = split_list(argv[i], items);
            a->nsizes = 0;
            for (int j = 0; j < k; j++)
                if (bench_parse_size(items[j], &a->sizes[a->nsizes++]))
                    die_usage("bad size '%s'", items[j]);
            if (a->nsizes)
                o->n = a->sizes[0];
        } else if (!strcmp(opt, "--threads")) {
            NEED();
            int k = split_list(argv[i], items);
            a->nthreads = 0;
            for (int j = 0; j < k; j++) {
                char *end;
                long t = !strcmp(items[j], "all") ? 0 : strtol(items[j], &end, 10);
                if (strcmp(items[j], "all") && (*end || t < 0 || t > 4096))
                    die_usage("bad thread count '%s'", items[j]);
                a->threads[a->nthreads++] = (int)t;
            }
            if (a->nthreads)
                o->threads = a->threads[0];
        } else if (!strcmp(opt, "--order")) {
            NEED();
            int found = 0;
            for (int k = 0; k < 3; k++)
                if (!strcmp(val, order_names[k]))
                    o->order = k, found = 1;
            if (!found)
                die_usage("unknown order '%s' (generated, shuffled, morton)", val);
        } else if (!strcmp(opt, "--layout")) {
            NEED();
            if (!strcmp(val, "gathered"))
                o->layout = 0;
            else if (!strcmp(val, "indirect"))
                o->layout = 1;
            else if (!strcmp(val, "morton"))
                o->layout = 2;
            else
                die_usage("unknown layout '%s' (gathered, indirect, morton)", val);
        } else if (!strcmp(opt, "--kernel")) {
            NEED();
            int found = 0;
            for (int k = SC_KERNEL_AUTO; k <= SC_KERNEL_AVX2; k++)
                if (!strcmp(val, sc_kernel_name((sc_kernel)k)))
                    o->kernel = (sc_kernel)k, found = 1;
            if (!found)
                die_usage("unknown kernel '%s'", val);
        } else if (!strcmp(opt, "--cell-factor")) {
            NEED();
            o->cell_factor = strtod(val, NULL);
            if (!(o->cell_factor >= 1.0))
                die_usage("bad --cell-factor '%s' (>= 1)", val);
        } else if (!strcmp(opt, "--levels")) {
            NEED();
            o->levels = atoi(val);
            if (o->levels < 0 || o->levels > 16)
                die_usage("bad --levels '%s' (0..16)", val);
        } else {
            die_usage("unknown option '%s'", opt);
        }
#undef NEED
    }
    if (!a->once && !a->scenario)
        die_usage("%s", "--scenario NAME or --once is required");
    if (a->repeats == 0)
        a->repeats = a->quick ? 3 : 5;
    if (a->timeout_s < 0)
        a->timeout_s = a->quick || (a->scenario && !strcmp(a->scenario, "levels")) ? 60 : 300;
    o->repeats = 1;
}

int main(int argc, char **argv) {
    static study_args a;
    parse_args(argc, argv, &a);
    if (a.once)
        return run_once(&a);
    study_machine m;
    machine_probe(a.tag, &m);
    static char outdir[1024];
    if (!a.outdir) {
        /* only --record touches the committed results */
        snprintf(outdir, sizeof outdir, "%s/%s%s/%s", SC_BENCH_RESULTS_DIR, a.record ? "" : "tmp/",
                 m.tag, a.quick ? "study-quick" : "study");
        a.outdir = outdir;
    }
    printf("sc_study %s | scenario %s | %s | machine %s (%s), %d CPUs, library threads %d\n",
           sc_version(), a.scenario, a.quick ? "quick" : "full", m.cpu, m.tag, m.cores,
           m.lib_threads);
    printf("ISA: auto kernel = %s | compiler: %s | OMP_PROC_BIND: %s | load average %.2f\n", m.isa,
           m.compiler, m.omp_bind, bench_load_average());
    if (!strcmp(a.scenario, "bandwidth"))
        return scenario_bandwidth(&a, &m);
    static bw_table bt;
    char bw_path[1100];
    snprintf(bw_path, sizeof bw_path, "%s/bandwidth.csv", a.outdir);
    if (load_bandwidth(bw_path, &bt) == 0)
        bandwidth_table = &bt;
    else
        printf(
            "(no %s: the ratio to the byte floor is left empty; run --scenario bandwidth first)\n",
            bw_path);
    return scenario_runs(&a, &m);
}
