/*
 * bench.c: sc_bench, the benchmark of spherecollide through its public API.
 *
 * For every generator (tools/gen/sc_gen.h), size, kernel and thread count it runs
 * one warm-up query (reported as "cold") and R timed queries on one context,
 * and reports medians: total and per-stage seconds (sc_context_stats),
 * spheres/s, ns per (sphere + pair), candidate tests per second of the
 * search stage, pairs, checksum, the context's scratch bytes and the peak
 * resident memory. Input is float64 rows (x, y, z, r), as the CLI's .npy.
 *
 * Each configuration runs in a fresh child process (fork) that generates its
 * own data, so ru_maxrss is that configuration's peak and "extra bytes per
 * sphere" = (peak RSS - RSS after generating the input) / n. The parent never
 * starts an OpenMP team, so forking is safe. Results come back through a pipe.
 *
 * Every algorithm that runs on the same (dist, n, seed) must report the same
 * count and checksum: engine at every thread count and kernel, the library's
 * brute force, and the plain hash grid baseline (the hashgrid peer on one
 * thread, scalar kernel). Any
 * disagreement or failure is printed loudly and makes the exit status 1.
 * Times are reported, never asserted.
 *
 * Output: a human table on stdout and CSV (one header row, machine, CPU, ISA,
 * compiler and binding on every row) under bench/results/<machine-tag>/, plus
 * <scenario>-compare.csv with the ratios measured in the same run
 * (hashgrid / engine, 1 thread / all threads, scalar / avx2 tests per second).
 */
#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_common.h"
#include "sc_gen.h"
#include "sc_io.h"
#include "spherecollide.h"

#ifndef SC_BENCH_RESULTS_DIR
#define SC_BENCH_RESULTS_DIR "bench/results"
#endif

#define MAX_LIST 32
#define DENSE_MAX_N 20000
#define FARCLUSTERS_MAX_N 1000000

enum { ALGO_ENGINE, ALGO_BRUTE, ALGO_HASHGRID };
static const char *const algo_names[] = {"engine", "brute", "hashgrid"};
enum { MODE_COUNT, MODE_STREAM, MODE_NPY };
static const char *const mode_names[] = {"count", "stream", "npy"};

/* ---- command line ----------------------------------------------------------- */

typedef struct bench_args {
    const char *dists[MAX_LIST];
    int ndists;
    size_t sizes[MAX_LIST];
    int nsizes;
    int sizes_given;
    int threads[MAX_LIST]; /* 0 = all */
    int nthreads;
    sc_kernel kernels[4];
    int nkernels;
    int repeats;
    int rounds; /* every configuration once per round, interleaved */
    int mode;
    int baseline;
    int baseline_repeats;
    size_t baseline_max_n;
    double baseline_max_tests;
    int brute;
    size_t brute_max_n;
    int quick;
    double slow_s;      /* a cold query slower than this: only 3 repeats */
    double wait_idle_s; /* wait up to this long for a quiet machine per run */
    int retry_busy;     /* reruns of a configuration disturbed by other work */
    int print_tag;      /* print the machine tag (results folder name) and exit */
    int record;         /* write the committed bench/results/<machine>/ CSVs */
    int fork;
    int caps;
    sc_pin pin;
    uint64_t seed;
    const char *csv; /* NULL: default path; "-" or "none": no CSV */
    const char *scenario;
    const char *tag;    /* machine tag override */
    const char *tmpdir; /* npy output */
    const char *label;  /* free text for the CSV, e.g. the source revision */
} bench_args;

static void usage(FILE *f) {
    fprintf(f,
            "usage: sc_bench [options]\n"
            "Times spherecollide through its public API; reports medians, never asserts on time.\n"
            "  --dist LIST        generators, comma-separated (default: all): ");
    for (const char *const *g = sc_gen_names(); *g; g++)
        fprintf(f, "%s%s", *g, g[1] ? "," : "\n");
    fprintf(
        f,
        "  --n LIST           sizes (1e4,1e5,1e6,1e7 default; k/M suffixes ok); dense is capped\n"
        "                     at 2e4 (default 1e4,2e4), farclusters at 1e6 unless --no-caps\n"
        "  --threads LIST     thread counts, 'all' = one per core (default 1,all)\n"
        "  --repeat R         timed repeats per configuration, >= 3 (default 5)\n"
        "  --rounds N         run the whole list of configurations N times in turn, each\n"
        "                     configuration once per round, and report the median of the\n"
        "                     rounds' medians: a slow phase of the machine then falls on\n"
        "                     every configuration alike, so same-run ratios hold (default 1)\n"
        "  --kernel LIST      auto, scalar, avx2 (default auto)\n"
        "  --pin P            none, compact, scatter (default: the library's, compact)\n"
        "  --mode M           count (default), stream (pairs to a discarding sink),\n"
        "                     npy (pairs streamed to a .npy file in --tmpdir, then deleted)\n"
        "  --baseline         also time the textbook hash grid (the hashgrid peer,\n"
        "                     one thread, scalar kernel)\n"
        "  --baseline-repeat R  repeats for the hash grid (default 3)\n"
        "  --baseline-max-n N   largest n for the hash grid (default 1e6)\n"
        "  --baseline-max-tests T  skip the hash grid when its cells predict more\n"
        "                     pair tests (default 2e9)\n"
        "  --brute            also run the library's brute force for n <= --brute-max-n (2e4)\n"
        "  --seed S           generator seed (default 1)\n"
        "  --quick            small sizes (1e3,1e4; dense 1e3,2e3), 3 repeats: a smoke test\n"
        "  --csv PATH         CSV file (default: a scratch copy, " SC_BENCH_RESULTS_DIR
        "/tmp/<machine>/\n"
        "                     <scenario>.csv, never a committed result; 'none' for no CSV)\n"
        "  --record           write " SC_BENCH_RESULTS_DIR
        "/<machine>/<scenario>.csv, the results the\n"
        "                     docs are built from (run-bench.sh does; a one-off run should not)\n"
        "  --scenario NAME    names the CSV files (default sweep)\n"
        "  --machine-tag TAG  results folder name (default from the CPU model and cores)\n"
        "  --tmpdir DIR       where --mode npy writes (default " SC_BENCH_RESULTS_DIR "/tmp)\n"
        "  --wait-idle S      before each configuration wait up to S seconds until other\n"
        "                     work uses < 10%% of the CPUs (default 0: do not wait); the\n"
        "                     share other work took during each run is always recorded\n"
        "  --retry-busy N     rerun a configuration up to N times while other work used\n"
        "                     > 10%% of the CPUs during it; keep the quietest (default 0)\n"
        "  --slow S           when the warm-up query takes over S seconds, time only 3\n"
        "                     repeats (default 5; 0: never)\n"
        "  --label TEXT       recorded in every CSV row (run-bench.sh: the git revision)\n"
        "  --print-machine-tag  print the results folder name for this machine and exit\n"
        "  --no-fork          run in this process (peak memory is then cumulative)\n"
        "  --no-caps          do not cap the sizes of dense and farclusters\n"
        "Exit status: 0 all runs agree, 1 a failure or a disagreement, 2 usage.\n");
}

/* Splits a comma list in place into at most MAX_LIST items. */
static int split_list(char *s, char **items) {
    int k = 0;
    for (char *tok = strtok(s, ","); tok && k < MAX_LIST; tok = strtok(NULL, ","))
        items[k++] = tok;
    return k;
}

static int parse_kernel(const char *s, sc_kernel *out) {
    for (int k = SC_KERNEL_AUTO; k <= SC_KERNEL_AVX2; k++)
        if (strcmp(s, sc_kernel_name((sc_kernel)k)) == 0) {
            *out = (sc_kernel)k;
            return 0;
        }
    return -1;
}

static int parse_pin(const char *s, sc_pin *out) {
    for (int p = SC_PIN_NONE; p <= SC_PIN_SCATTER; p++)
        if (strcmp(s, sc_pin_name((sc_pin)p)) == 0) {
            *out = (sc_pin)p;
            return 0;
        }
    return -1;
}

static int die_usage(const char *fmt, const char *arg) {
    fprintf(stderr, "sc_bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(sc_bench --help for the options)\n");
    exit(2);
}

/* One function, though long: one branch per option of the benchmark's
 * command line, each with its own check and message. */
static void parse_args(int argc, char **argv, bench_args *a) {
    memset(a, 0, sizeof *a);
    a->repeats = 5;
    a->rounds = 1;
    a->mode = MODE_COUNT;
    a->baseline_repeats = 3;
    a->baseline_max_n = 1000000;
    a->baseline_max_tests = 2e9;
    a->brute_max_n = 20000;
    a->fork = 1;
    a->caps = 1;
    a->slow_s = 5.0;
    a->pin = sc_options_default().pin;
    a->seed = 1;
    a->scenario = "sweep";
    a->tmpdir = SC_BENCH_RESULTS_DIR "/tmp";
    int repeats_given = 0;
    char *items[MAX_LIST];
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE()                                                                               \
    do {                                                                                           \
        if (!val)                                                                                  \
            die_usage("%s needs a value", opt);                                                    \
        i++;                                                                                       \
    } while (0)
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(opt, "--dist")) {
            NEED_VALUE();
            int k = split_list(argv[i], items);
            a->ndists = 0;
            for (int j = 0; j < k; j++) {
                if (sc_gen_describe(items[j]) == NULL)
                    die_usage("unknown generator '%s'", items[j]);
                a->dists[a->ndists++] = items[j];
            }
        } else if (!strcmp(opt, "--n")) {
            NEED_VALUE();
            int k = split_list(argv[i], items);
            a->nsizes = 0;
            for (int j = 0; j < k; j++)
                if (bench_parse_size(items[j], &a->sizes[a->nsizes++]))
                    die_usage("bad size '%s'", items[j]);
            a->sizes_given = 1;
        } else if (!strcmp(opt, "--threads")) {
            NEED_VALUE();
            int k = split_list(argv[i], items);
            a->nthreads = 0;
            for (int j = 0; j < k; j++) {
                if (!strcmp(items[j], "all")) {
                    a->threads[a->nthreads++] = 0;
                    continue;
                }
                char *end;
                long t = strtol(items[j], &end, 10);
                if (*end || t < 0 || t > 4096)
                    die_usage("bad thread count '%s'", items[j]);
                a->threads[a->nthreads++] = (int)t;
            }
        } else if (!strcmp(opt, "--repeat")) {
            NEED_VALUE();
            a->repeats = atoi(val);
            if (a->repeats < 3)
                die_usage("--repeat %s: medians need at least 3 repeats", val);
            repeats_given = 1;
        } else if (!strcmp(opt, "--kernel")) {
            NEED_VALUE();
            int k = split_list(argv[i], items);
            a->nkernels = 0;
            for (int j = 0; j < k && a->nkernels < 4; j++)
                if (parse_kernel(items[j], &a->kernels[a->nkernels++]))
                    die_usage("unknown kernel '%s' (auto, scalar, avx2)", items[j]);
        } else if (!strcmp(opt, "--pin")) {
            NEED_VALUE();
            if (parse_pin(val, &a->pin))
                die_usage("unknown pinning '%s' (none, compact, scatter)", val);
        } else if (!strcmp(opt, "--mode")) {
            NEED_VALUE();
            if (!strcmp(val, "count"))
                a->mode = MODE_COUNT;
            else if (!strcmp(val, "stream"))
                a->mode = MODE_STREAM;
            else if (!strcmp(val, "npy"))
                a->mode = MODE_NPY;
            else
                die_usage("unknown mode '%s' (count, stream, npy)", val);
        } else if (!strcmp(opt, "--record")) {
            a->record = 1;
        } else if (!strcmp(opt, "--baseline")) {
            a->baseline = 1;
        } else if (!strcmp(opt, "--rounds")) {
            NEED_VALUE();
            a->rounds = atoi(val);
            if (a->rounds < 1 || a->rounds > 64)
                die_usage("bad --rounds '%s' (1 to 64)", val);
        } else if (!strcmp(opt, "--baseline-repeat")) {
            NEED_VALUE();
            a->baseline_repeats = atoi(val);
            if (a->baseline_repeats < 1)
                die_usage("bad --baseline-repeat '%s'", val);
        } else if (!strcmp(opt, "--baseline-max-n")) {
            NEED_VALUE();
            if (bench_parse_size(val, &a->baseline_max_n))
                die_usage("bad size '%s'", val);
        } else if (!strcmp(opt, "--baseline-max-tests")) {
            NEED_VALUE();
            a->baseline_max_tests = strtod(val, NULL);
        } else if (!strcmp(opt, "--brute")) {
            a->brute = 1;
        } else if (!strcmp(opt, "--brute-max-n")) {
            NEED_VALUE();
            if (bench_parse_size(val, &a->brute_max_n))
                die_usage("bad size '%s'", val);
        } else if (!strcmp(opt, "--seed")) {
            NEED_VALUE();
            a->seed = strtoull(val, NULL, 0);
        } else if (!strcmp(opt, "--quick")) {
            a->quick = 1;
        } else if (!strcmp(opt, "--csv")) {
            NEED_VALUE();
            a->csv = val;
        } else if (!strcmp(opt, "--scenario")) {
            NEED_VALUE();
            a->scenario = val;
        } else if (!strcmp(opt, "--machine-tag")) {
            NEED_VALUE();
            a->tag = val;
        } else if (!strcmp(opt, "--tmpdir")) {
            NEED_VALUE();
            a->tmpdir = val;
        } else if (!strcmp(opt, "--retry-busy")) {
            NEED_VALUE();
            a->retry_busy = atoi(val);
        } else if (!strcmp(opt, "--wait-idle")) {
            NEED_VALUE();
            a->wait_idle_s = strtod(val, NULL);
        } else if (!strcmp(opt, "--slow")) {
            NEED_VALUE();
            a->slow_s = strtod(val, NULL);
        } else if (!strcmp(opt, "--label")) {
            NEED_VALUE();
            a->label = val;
        } else if (!strcmp(opt, "--print-machine-tag")) {
            a->print_tag = 1;
        } else if (!strcmp(opt, "--no-fork")) {
            a->fork = 0;
        } else if (!strcmp(opt, "--no-caps")) {
            a->caps = 0;
        } else {
            die_usage("unknown option '%s'", opt);
        }
#undef NEED_VALUE
    }
    if (a->ndists == 0)
        for (const char *const *g = sc_gen_names(); *g && a->ndists < MAX_LIST; g++)
            a->dists[a->ndists++] = *g;
    if (a->nsizes == 0) {
        static const size_t full[] = {10000, 100000, 1000000, 10000000};
        static const size_t quick[] = {1000, 10000};
        const size_t *s = a->quick ? quick : full;
        a->nsizes = a->quick ? 2 : 4;
        for (int k = 0; k < a->nsizes; k++)
            a->sizes[k] = s[k];
    }
    if (a->nthreads == 0) {
        a->threads[0] = 1;
        a->threads[1] = 0;
        a->nthreads = 2;
    }
    if (a->nkernels == 0) {
        a->kernels[0] = SC_KERNEL_AUTO;
        a->nkernels = 1;
    }
    if (a->quick && !repeats_given)
        a->repeats = 3;
}

/* The sizes a generator runs at: dense and farclusters are capped; dense gets
 * its own default list (its pair count grows as n^2). */
static int sizes_for(const bench_args *a, const char *dist, size_t *out) {
    int k = 0;
    if (!strcmp(dist, "dense") && !a->sizes_given) {
        out[k++] = a->quick ? 1000 : 10000;
        out[k++] = a->quick ? 2000 : 20000;
        return k;
    }
    for (int i = 0; i < a->nsizes; i++) {
        size_t n = a->sizes[i];
        if (a->caps && !strcmp(dist, "dense") && n > DENSE_MAX_N)
            continue;
        if (a->caps && !strcmp(dist, "farclusters") && n > FARCLUSTERS_MAX_N)
            continue;
        out[k++] = n;
    }
    return k;
}

/* ---- the machine --------------------------------------------------------------- */

typedef struct bench_machine {
    char cpu[128];
    char tag[96];
    int cores;
    char isa[16];
    char compiler[64];
    char pin[48];
} bench_machine;

/* Commas would break the CSV: replace them. */
static void sanitize(char *s) {
    for (; *s; s++)
        if (*s == ',' || *s == '\n' || *s == '"')
            *s = ';';
}

static void machine_probe(const bench_args *a, bench_machine *m) {
    memset(m, 0, sizeof *m);
    bench_host h;
    bench_host_probe(a->tag, &h);
    snprintf(m->cpu, sizeof m->cpu, "%s", h.cpu);
    snprintf(m->tag, sizeof m->tag, "%s", h.tag);
    m->cores = h.cores;
    snprintf(m->isa, sizeof m->isa, "%s", h.isa);
    snprintf(m->compiler, sizeof m->compiler, "%s", h.compiler);
    sanitize(m->cpu);
    sanitize(m->compiler);
    const char *bind = getenv("OMP_PROC_BIND");
    snprintf(m->pin, sizeof m->pin, "%s%s%s", sc_pin_name(a->pin), bind ? ";OMP_PROC_BIND=" : "",
             bind ? bind : "");
    sanitize(m->pin);
}

/* ---- one configuration ----------------------------------------------------------- */

typedef struct bench_config {
    char dist[16];
    size_t n;
    uint64_t seed;
    int algo;
    int mode;
    sc_kernel kernel;
    int threads; /* 0 = all */
    int repeats;
} bench_config;

typedef struct bench_row {
    bench_config cfg;
    int status;     /* 0 ok, 1 skipped, -1 failed */
    char note[160]; /* why skipped or failed */
    int threads_used;
    char kernel_ran[8];
    char pin_ran[12];
    int repeats_done;
    double total_med, wall_med, total_min, cold_s;
    double stage_med[SC_STAGE_COUNT];
    uint64_t pairs, checksum, cells, candidate_tests, scratch_bytes;
    int levels;
    double cell_size;
    double gen_s;
    double rss_before, peak_rss; /* bytes */
    double out_bytes;            /* npy mode: file size */
    double load1;                /* 1-minute load average before the run */
    double others_busy;          /* share of all CPUs busy with other work during the run */
    double idle_wait_s;          /* seconds spent waiting for a quiet machine */
    int retries;                 /* reruns because other work was busy */
    int forked;
    int rounds; /* rounds merged into this row (--rounds) */
} bench_row;

static double current_rss(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0.0;
    long size = 0, resident = 0;
    int got = fscanf(f, "%ld %ld", &size, &resident);
    fclose(f);
    return got == 2 ? (double)resident * (double)sysconf(_SC_PAGESIZE) : 0.0;
}

/* Other work on the machine skews timings: record the load before each run. */

/* CPU time of the whole machine from /proc/stat, in seconds. */
typedef struct cpu_sample {
    double busy, total;
} cpu_sample;

static int cpu_sample_read(cpu_sample *s) {
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    unsigned long long v[8] = {0};
    int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                     &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (got < 5)
        return -1;
    double tick = (double)sysconf(_SC_CLK_TCK);
    double idle = (double)(v[3] + v[4]);
    double busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]);
    s->busy = busy / tick;
    s->total = (busy + idle) / tick;
    return 0;
}

/* CPU seconds used by this process's waited-for children (or itself). */
static double own_cpu(int children) {
    struct rusage ru;
    if (getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &ru))
        return 0.0;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Waits, at most max_s seconds, until other work uses under 10% of the
 * machine over half a second (this process sleeps meanwhile, so whatever is
 * busy is someone else). Returns the seconds waited. */
static double wait_for_quiet(double max_s) {
    double start = bench_now_s();
    while (bench_now_s() - start < max_s) {
        cpu_sample a, b;
        if (cpu_sample_read(&a))
            break;
        struct timespec half = {0, 500000000L};
        nanosleep(&half, NULL);
        if (cpu_sample_read(&b) || b.total <= a.total)
            break;
        if ((b.busy - a.busy) / (b.total - a.total) < 0.10)
            break;
    }
    return bench_now_s() - start;
}

static double peak_rss(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru))
        return 0.0;
    return (double)ru.ru_maxrss * 1024.0; /* Linux: KiB */
}

typedef struct sink_state {
    uint64_t pairs;
    sc_pair_writer *writer;
    int failed;
    char err[256];
} sink_state;

static int sink_discard(const uint32_t *pairs, size_t count, void *user) {
    (void)pairs;
    ((sink_state *)user)->pairs += count;
    return 0;
}

static int sink_npy(const uint32_t *pairs, size_t count, void *user) {
    sink_state *s = user;
    s->pairs += count;
    if (sc_pair_writer_write(s->writer, pairs, count, s->err, sizeof s->err) != SC_IO_OK) {
        s->failed = 1;
        return 1;
    }
    return 0;
}

/* One engine (or brute force) query in the configured mode. */
static sc_status engine_once(sc_context *ctx, const sc_spheres *view, const bench_config *c,
                             const char *tmpdir, sc_summary *sum, bench_row *row) {
    sink_state sink;
    memset(&sink, 0, sizeof sink);
    sc_status st;
    if (c->mode == MODE_COUNT)
        return sc_count_pairs(ctx, view, sum);
    if (c->mode == MODE_STREAM) {
        st = sc_stream_pairs(ctx, view, sink_discard, &sink, sum);
        if (st == SC_OK && sink.pairs != sum->pairs) {
            snprintf(row->note, sizeof row->note, "stream delivered %llu pairs, summary says %llu",
                     (unsigned long long)sink.pairs, (unsigned long long)sum->pairs);
            return SC_ERR_INVALID_ARGUMENT;
        }
        return st;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/pairs-%ld.npy", tmpdir, (long)getpid());
    char err[256];
    if (bench_mkdir_p(tmpdir) || sc_pair_writer_open(path, SC_IO_FORMAT_NPY, c->n, &sink.writer,
                                                     err, sizeof err) != SC_IO_OK) {
        snprintf(row->note, sizeof row->note, "cannot write %.140s", path);
        return SC_ERR_INVALID_ARGUMENT;
    }
    st = sc_stream_pairs(ctx, view, sink_npy, &sink, sum);
    if (st != SC_OK || sink.failed) {
        sc_pair_writer_abort(sink.writer);
        if (sink.failed)
            snprintf(row->note, sizeof row->note, "%.150s", sink.err);
        return st != SC_OK ? st : SC_ERR_INVALID_ARGUMENT;
    }
    if (sc_pair_writer_finish(sink.writer, sum->pairs, err, sizeof err) != SC_IO_OK) {
        snprintf(row->note, sizeof row->note, "%.150s", err);
        return SC_ERR_INVALID_ARGUMENT;
    }
    struct stat sb;
    if (stat(path, &sb) == 0)
        row->out_bytes = (double)sb.st_size;
    unlink(path);
    return SC_OK;
}

static void run_engine(const bench_args *a, const double *rows, bench_row *row) {
    const bench_config *c = &row->cfg;
    sc_options opt = sc_options_default();
    opt.algorithm = c->algo == ALGO_BRUTE      ? SC_ALGO_BRUTE
                    : c->algo == ALGO_HASHGRID ? SC_ALGO_HASHGRID
                                               : SC_ALGO_GRID;
    opt.hashgrid.max_tests = a->baseline_max_tests > 0 ? a->baseline_max_tests : INFINITY;
    opt.threads = c->threads;
    opt.kernel = c->kernel;
    opt.pin = a->pin;
    if (c->kernel != SC_KERNEL_AUTO && !sc_kernel_available(c->kernel)) {
        row->status = 1;
        snprintf(row->note, sizeof row->note, "kernel %s not available here",
                 sc_kernel_name(c->kernel));
        return;
    }
    sc_context *ctx = NULL;
    sc_status st = sc_context_create(&opt, &ctx);
    if (st != SC_OK) {
        row->status = -1;
        snprintf(row->note, sizeof row->note, "sc_context_create: %s", sc_status_string(st));
        return;
    }
    sc_spheres view = sc_spheres_rows_f64(c->n, 3, rows);
    double *total = calloc((size_t)c->repeats, sizeof *total);
    double *wall = calloc((size_t)c->repeats, sizeof *wall);
    double *stage = calloc((size_t)c->repeats * SC_STAGE_COUNT, sizeof *stage);
    if (!total || !wall || !stage) {
        row->status = -1;
        snprintf(row->note, sizeof row->note, "out of memory in the bench");
        goto done;
    }
    /* Run 0 is the warm-up (scratch allocation, first touch): reported as cold. */
    int reps = c->repeats; /* fewer (never under 3) when one query is slow */
    for (int r = -1; r < reps; r++) {
        sc_summary sum = {0, 0};
        double t0 = bench_now_s();
        st = engine_once(ctx, &view, c, a->tmpdir, &sum, row);
        double t1 = bench_now_s();
        if (st == SC_ERR_TOO_COSTLY) { /* the hash grid's cells predict too many tests */
            row->status = 1;
            snprintf(row->note, sizeof row->note,
                     "skipped: its cells predict more than %.3g pair tests",
                     opt.hashgrid.max_tests);
            goto done;
        }
        if (st != SC_OK) {
            row->status = -1;
            if (!row->note[0])
                snprintf(row->note, sizeof row->note, "query: %s", sc_status_string(st));
            goto done;
        }
        sc_stats s = {.size = sizeof s};
        sc_context_stats(ctx, &s);
        if (s.pairs != sum.pairs || s.checksum != sum.checksum) {
            row->status = -1;
            snprintf(row->note, sizeof row->note, "stats disagree with the summary");
            goto done;
        }
        if (r < 0) {
            row->cold_s = s.total_seconds;
            row->pairs = sum.pairs;
            row->checksum = sum.checksum;
        } else if (sum.pairs != row->pairs || sum.checksum != row->checksum) {
            row->status = -1;
            snprintf(row->note, sizeof row->note, "repeat %d gave a different result", r);
            goto done;
        }
        if (r >= 0) {
            total[r] = s.total_seconds;
            wall[r] = t1 - t0;
            for (int k = 0; k < SC_STAGE_COUNT; k++)
                stage[k * c->repeats + r] = s.seconds[k];
        } else if (a->slow_s > 0 && s.total_seconds > a->slow_s && reps > 3) {
            reps = 3;
        }
        row->threads_used = s.threads;
        snprintf(row->kernel_ran, sizeof row->kernel_ran, "%s", sc_kernel_name(s.kernel));
        snprintf(row->pin_ran, sizeof row->pin_ran, "%s", sc_pin_name(s.pin));
        row->cells = s.cells;
        row->candidate_tests = s.candidate_tests;
        row->scratch_bytes = s.scratch_bytes;
        row->levels = s.levels;
        row->cell_size = s.cell_size;
        row->repeats_done = r + 1;
    }
    row->total_med = bench_median(total, reps);
    row->total_min = total[0]; /* sorted by bench_median() */
    row->wall_med = bench_median(wall, reps);
    for (int k = 0; k < SC_STAGE_COUNT; k++)
        row->stage_med[k] = bench_median(stage + k * c->repeats, reps);
done:
    free(total);
    free(wall);
    free(stage);
    sc_context_destroy(ctx);
}

/* Generates the data and runs one configuration (in the child when forking). */
static void run_config(const bench_args *a, bench_row *row) {
    const bench_config *c = &row->cfg;
    /* 64-byte aligned, as a user who cares would allocate: every 32-byte
     * (x, y, z, r) record then sits in one cache line. With malloc's
     * 16-byte alignment half the records straddle two lines, and the
     * gather's random reads cost about 1.25x (uniform 10^6, 2 threads:
     * 7.9 vs 6.3 ms, interleaved runs). */
    double *rows = NULL;
    if (posix_memalign((void **)&rows, 64, (c->n ? c->n : 1) * 4 * sizeof *rows) != 0)
        rows = NULL;
    if (!rows) {
        row->status = -1;
        snprintf(row->note, sizeof row->note, "cannot allocate %zu spheres", c->n);
        return;
    }
    double t0 = bench_now_s();
    sc_gen_generate(c->dist, c->n, c->seed, rows);
    row->gen_s = bench_now_s() - t0;
    row->rss_before = current_rss();
    run_engine(a, rows, row);
    row->peak_rss = peak_rss();
    free(rows);
}

static void run_forked(const bench_args *a, bench_row *row) {
    if (!a->fork) {
        run_config(a, row);
        return;
    }
    int fds[2];
    if (pipe(fds)) {
        row->status = -1;
        snprintf(row->note, sizeof row->note, "pipe: %s", strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        row->status = -1;
        snprintf(row->note, sizeof row->note, "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        run_config(a, row);
        int bad = bench_write_all(fds[1], row, sizeof *row);
        close(fds[1]);
        _exit(bad ? 3 : 0);
    }
    close(fds[1]);
    bench_row got;
    size_t have = 0;
    while (have < sizeof got) {
        ssize_t r = read(fds[0], (char *)&got + have, sizeof got - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        have += (size_t)r;
    }
    close(fds[0]);
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    if (have == sizeof got) {
        *row = got;
    } else {
        row->status = -1;
        if (WIFSIGNALED(wstatus))
            snprintf(row->note, sizeof row->note, "child killed by signal %d (%s)",
                     WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
        else
            snprintf(row->note, sizeof row->note, "child exited with status %d without a result",
                     WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
    }
}

/* Runs one configuration, measuring how busy the rest of the machine was:
 * all CPU time /proc/stat counts during the run minus our own. */
static void run_isolated(const bench_args *a, bench_row *row) {
    row->forked = a->fork;
    double waited = a->wait_idle_s > 0 ? wait_for_quiet(a->wait_idle_s) : 0.0;
    double load1 = bench_load_average();
    cpu_sample s0, s1;
    int have_stat = cpu_sample_read(&s0) == 0;
    double own0 = own_cpu(a->fork), t0 = bench_now_s();
    run_forked(a, row);
    double own1 = own_cpu(a->fork), t1 = bench_now_s();
    have_stat = have_stat && cpu_sample_read(&s1) == 0;
    row->load1 = load1;
    row->idle_wait_s = waited;
    row->others_busy = -1.0;
    if (have_stat && t1 > t0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        double others = (s1.busy - s0.busy) - (own1 - own0);
        double frac = others / ((t1 - t0) * (double)(cpus > 0 ? cpus : 1));
        row->others_busy = frac < 0 ? 0.0 : frac > 1 ? 1.0 : frac;
    }
}

/* ---- reporting ---------------------------------------------------------------------- */

static double items_ns(const bench_row *r) {
    double items = (double)r->cfg.n + (double)r->pairs;
    return items > 0 ? r->total_med * 1e9 / items : 0.0;
}

static double tests_per_s(const bench_row *r) {
    double s = r->stage_med[SC_STAGE_SEARCH];
    return s > 0 ? (double)r->candidate_tests / s : 0.0;
}

static double extra_per_sphere(const bench_row *r) {
    return r->cfg.n ? (r->peak_rss - r->rss_before) / (double)r->cfg.n : 0.0;
}

static const char *threads_label(int t, char *buf, size_t cap) {
    if (t == 0)
        snprintf(buf, cap, "all");
    else
        snprintf(buf, cap, "%d", t);
    return buf;
}

static void print_table_header(void) {
    printf("%-11s %9s %-8s %-6s %-6s %4s %10s %10s |", "dist", "n", "algo", "mode", "kernel", "thr",
           "total_ms", "cold_ms");
    for (int k = 0; k < SC_STAGE_COUNT; k++)
        printf(" %7.7s", sc_stage_name((sc_stage)k));
    printf(" | %8s %8s %8s %11s %-18s %8s %7s %5s\n", "Msph/s", "ns/item", "Gtest/s", "pairs",
           "checksum", "peakMiB", "B/sph+", "oth%");
}

static void print_row(const bench_row *r) {
    const bench_config *c = &r->cfg;
    char tb[16];
    printf("%-11s %9zu %-8s %-6s %-6s %4s ", c->dist, c->n, algo_names[c->algo],
           mode_names[c->mode], (r->kernel_ran[0] ? r->kernel_ran : sc_kernel_name(c->kernel)),
           r->threads_used ? (snprintf(tb, sizeof tb, "%d", r->threads_used), tb)
                           : threads_label(c->threads, tb, sizeof tb));
    if (r->status != 0) {
        printf("%s: %s\n", r->status > 0 ? "SKIPPED" : "*** FAILED ***", r->note);
        fflush(stdout);
        return;
    }
    printf("%10.3f %10.3f |", r->total_med * 1e3, r->cold_s * 1e3);
    for (int k = 0; k < SC_STAGE_COUNT; k++)
        printf(" %7.2f", r->stage_med[k] * 1e3);
    printf(" | %8.2f %8.2f %8.3f %11llu 0x%016llx %8.1f %7.1f %5.0f\n",
           r->total_med > 0 ? (double)c->n / r->total_med / 1e6 : 0.0, items_ns(r),
           tests_per_s(r) / 1e9, (unsigned long long)r->pairs, (unsigned long long)r->checksum,
           r->peak_rss / 1048576.0, extra_per_sphere(r),
           r->others_busy >= 0 ? 100.0 * r->others_busy : -1.0);
    fflush(stdout);
}

static void csv_header(FILE *f) {
    fprintf(
        f, "machine,cpu,cores,isa,compiler,pin_policy,version,label,scenario,dist,n,seed,algo,mode,"
           "kernel_req,kernel,threads_req,threads,repeats,status,note,total_s,wall_s,min_s,cold_s");
    for (int k = 0; k < SC_STAGE_COUNT; k++)
        fprintf(f, ",s_%s", sc_stage_name((sc_stage)k));
    fprintf(f, ",spheres_per_s,ns_per_item,candidate_tests,tests_per_s,pairs,checksum,cells,levels,"
               "cell_size,scratch_bytes,input_bytes,rss_before_bytes,peak_rss_bytes,"
               "extra_bytes_per_sphere,out_bytes,gen_s,load1,others_busy,idle_wait_s,retries,"
               "forked,rounds\n");
}

static void csv_row(FILE *f, const bench_machine *m, const bench_args *a, const bench_row *r) {
    const bench_config *c = &r->cfg;
    char note[160], tb[16], label[64];
    snprintf(note, sizeof note, "%s", r->note);
    sanitize(note);
    snprintf(label, sizeof label, "%s", a->label ? a->label : "");
    sanitize(label);
    fprintf(f,
            "%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,%zu,%llu,%s,%s,%s,%s,%s,%d,%d,%s,%s,%.9g,%.9g,%.9g,%.9g",
            m->tag, m->cpu, m->cores, m->isa, m->compiler, m->pin, sc_version(), label, a->scenario,
            c->dist, c->n, (unsigned long long)c->seed, algo_names[c->algo], mode_names[c->mode],
            sc_kernel_name(c->kernel), r->kernel_ran, threads_label(c->threads, tb, sizeof tb),
            r->threads_used, r->repeats_done,
            r->status == 0  ? "ok"
            : r->status > 0 ? "skipped"
                            : "failed",
            note, r->total_med, r->wall_med, r->total_min, r->cold_s);
    for (int k = 0; k < SC_STAGE_COUNT; k++)
        fprintf(f, ",%.9g", r->stage_med[k]);
    fprintf(f,
            ",%.6g,%.6g,%llu,%.6g,%llu,0x%016llx,%llu,%d,%.9g,%llu,%.0f,%.0f,%.0f,%.3f,%.0f,%.6g,%."
            "2f,%.3f,%.1f,%d,%d,%d\n",
            r->total_med > 0 ? (double)c->n / r->total_med : 0.0, items_ns(r),
            (unsigned long long)r->candidate_tests, tests_per_s(r), (unsigned long long)r->pairs,
            (unsigned long long)r->checksum, (unsigned long long)r->cells, r->levels, r->cell_size,
            (unsigned long long)r->scratch_bytes, (double)c->n * 4.0 * sizeof(double),
            r->rss_before, r->peak_rss, extra_per_sphere(r), r->out_bytes, r->gen_s, r->load1,
            r->others_busy, r->idle_wait_s, r->retries, r->forked, r->rounds > 0 ? r->rounds : 1);
    fflush(f);
}

/* ---- agreement ----------------------------------------------------------------------- */

typedef struct bench_truth {
    char dist[16];
    size_t n;
    uint64_t seed;
    uint64_t pairs, checksum;
    char who[64];
} bench_truth;

static int check_agreement(bench_truth *truth, int *ntruth, int cap, const bench_row *r) {
    const bench_config *c = &r->cfg;
    char who[64], tb[16];
    snprintf(who, sizeof who, "%s/%s/%s/%s threads", algo_names[c->algo], mode_names[c->mode],
             r->kernel_ran, threads_label(c->threads, tb, sizeof tb));
    for (int i = 0; i < *ntruth; i++) {
        bench_truth *t = &truth[i];
        if (strcmp(t->dist, c->dist) || t->n != c->n || t->seed != c->seed)
            continue;
        if (t->pairs == r->pairs && t->checksum == r->checksum)
            return 0;
        fprintf(
            stderr,
            "\n*** DISAGREEMENT on %s n=%zu seed=%llu: %s found %llu pairs, checksum 0x%016llx;\n"
            "*** %s found %llu pairs, checksum 0x%016llx\n\n",
            c->dist, c->n, (unsigned long long)c->seed, t->who, (unsigned long long)t->pairs,
            (unsigned long long)t->checksum, who, (unsigned long long)r->pairs,
            (unsigned long long)r->checksum);
        printf("*** DISAGREEMENT on %s n=%zu: %s vs %s (see stderr)\n", c->dist, c->n, t->who, who);
        return -1;
    }
    if (*ntruth < cap) {
        bench_truth *t = &truth[(*ntruth)++];
        snprintf(t->dist, sizeof t->dist, "%s", c->dist);
        t->n = c->n;
        t->seed = c->seed;
        t->pairs = r->pairs;
        t->checksum = r->checksum;
        snprintf(t->who, sizeof t->who, "%s", who);
    }
    return 0;
}

/* ---- comparisons measured in the same run --------------------------------------------- */

static void compare_line(FILE *f, const bench_machine *m, const bench_args *a, const char *kind,
                         const bench_row *x, const char *xlabel, const bench_row *y,
                         const char *ylabel, double xv, double yv, const char *what) {
    double ratio = yv > 0 ? xv / yv : 0.0;
    printf("  %-22s %-11s n=%-9zu %s %s / %s %s = %.4g / %.4g = %.2fx\n", kind, x->cfg.dist,
           x->cfg.n, what, xlabel, ylabel, mode_names[x->cfg.mode], xv, yv, ratio);
    (void)y;
    if (f)
        fprintf(f, "%s,%s,%s,%s,%s,%s,%s,%zu,%s,%s,%s,%.9g,%.9g,%.6g\n", m->tag, m->cpu, m->isa,
                m->compiler, a->scenario, kind, x->cfg.dist, x->cfg.n, what, xlabel, ylabel, xv, yv,
                ratio);
}

static void comparisons(const bench_machine *m, const bench_args *a, const bench_row *rows,
                        int nrows, FILE *f) {
    if (f)
        fprintf(f,
                "machine,cpu,isa,compiler,scenario,kind,dist,n,metric,a,b,a_value,b_value,ratio\n");
    printf("\nComparisons measured in this run:\n");
    char la[48], lb[48];
    for (int i = 0; i < nrows; i++) {
        const bench_row *x = &rows[i];
        if (x->status != 0)
            continue;
        for (int j = 0; j < nrows; j++) {
            const bench_row *y = &rows[j];
            if (i == j || y->status != 0 || strcmp(x->cfg.dist, y->cfg.dist) ||
                x->cfg.n != y->cfg.n || x->cfg.seed != y->cfg.seed)
                continue;
            /* hash grid (1 thread) against the engine at each thread count, auto kernel */
            if (x->cfg.algo == ALGO_HASHGRID && y->cfg.algo == ALGO_ENGINE &&
                y->cfg.kernel == SC_KERNEL_AUTO && y->cfg.mode == MODE_COUNT) {
                snprintf(lb, sizeof lb, "engine(%d thr)", y->threads_used);
                compare_line(f, m, a, "hashgrid/engine", x, "hashgrid", y, lb, x->total_med,
                             y->total_med, "seconds");
            }
            /* thread scaling: 1 thread against more, same algorithm, kernel, mode */
            if (x->cfg.algo == y->cfg.algo && x->cfg.algo != ALGO_HASHGRID &&
                x->cfg.kernel == y->cfg.kernel && x->cfg.mode == y->cfg.mode &&
                x->threads_used == 1 && y->threads_used > 1) {
                snprintf(la, sizeof la, "%s 1 thr", algo_names[x->cfg.algo]);
                snprintf(lb, sizeof lb, "%d thr", y->threads_used);
                compare_line(f, m, a, "speedup", x, la, y, lb, x->total_med, y->total_med,
                             "seconds");
            }
            /* kernels: avx2 over scalar candidate tests per second, same threads */
            if (x->cfg.algo == y->cfg.algo && x->cfg.algo != ALGO_HASHGRID &&
                x->cfg.mode == y->cfg.mode && x->cfg.threads == y->cfg.threads &&
                !strcmp(x->kernel_ran, "avx2") && !strcmp(y->kernel_ran, "scalar") &&
                x->cfg.kernel != SC_KERNEL_AUTO && y->cfg.kernel != SC_KERNEL_AUTO) {
                snprintf(la, sizeof la, "avx2 %d thr", x->threads_used);
                snprintf(lb, sizeof lb, "scalar %d thr", y->threads_used);
                compare_line(f, m, a, "kernel", x, la, y, lb, tests_per_s(x), tests_per_s(y),
                             "tests_per_s");
                compare_line(f, m, a, "kernel-time", y, lb, x, la, y->total_med, x->total_med,
                             "seconds");
            }
        }
    }
}

/* ---- main ------------------------------------------------------------------------------ */

/* One row from the same configuration's rounds: medians of the rounds'
 * medians, the round with the highest peak memory (and its RSS before the
 * query), the highest other load, sums of repeats and retries. A failed
 * round makes the row failed. */
static void merge_rounds(const bench_row *run, int rounds, bench_row *out) {
    *out = run[0];
    out->rounds = rounds;
    for (int k = 1; k < rounds; k++)
        if (run[k].status < 0 && out->status >= 0)
            *out = run[k];
    if (rounds == 1 || out->status != 0)
        return;
    double v[3 + SC_STAGE_COUNT][64];
    const int nr = rounds < 64 ? rounds : 64;
    out->repeats_done = 0;
    out->retries = 0;
    out->idle_wait_s = 0;
    for (int k = 0; k < nr; k++) {
        const bench_row *r = &run[k];
        v[0][k] = r->total_med;
        v[1][k] = r->wall_med;
        v[2][k] = r->cold_s;
        for (int s = 0; s < SC_STAGE_COUNT; s++)
            v[3 + s][k] = r->stage_med[s];
        out->total_min = r->total_min < out->total_min ? r->total_min : out->total_min;
        if (r->peak_rss > out->peak_rss) { /* the extra bytes per sphere of that round */
            out->peak_rss = r->peak_rss;
            out->rss_before = r->rss_before;
        }
        out->others_busy = r->others_busy > out->others_busy ? r->others_busy : out->others_busy;
        out->load1 = r->load1 > out->load1 ? r->load1 : out->load1;
        out->repeats_done += r->repeats_done;
        out->retries += r->retries;
        out->idle_wait_s += r->idle_wait_s;
    }
    out->total_med = bench_median(v[0], nr);
    out->wall_med = bench_median(v[1], nr);
    out->cold_s = bench_median(v[2], nr);
    for (int s = 0; s < SC_STAGE_COUNT; s++)
        out->stage_med[s] = bench_median(v[3 + s], nr);
}

/* One function, though long: the benchmark's one sequence (machine, the
 * data set, the runs for each configuration, the CSV rows, the summary),
 * each step sharing the arguments and the open files. */
int main(int argc, char **argv) {
    bench_args a;
    parse_args(argc, argv, &a);
    bench_machine m;
    machine_probe(&a, &m);
    if (a.print_tag) {
        printf("%s\n", m.tag);
        return 0;
    }

    /* Header: the machine, as the library sees it. */
    sc_options opt = sc_options_default();
    opt.pin = a.pin;
    char info[4096];
    sc_system_info(&opt, info, sizeof info);
    printf("sc_bench %s | scenario %s | %s\n", sc_version(), a.scenario,
           a.quick ? "quick" : "full");
    printf("machine: %s (tag %s), %d logical CPUs\n", m.cpu, m.tag, m.cores);
    printf("ISA: auto kernel = %s (scalar %s, avx2 %s) | compiler: %s | binding: %s\n", m.isa,
           sc_kernel_available(SC_KERNEL_SCALAR) ? "yes" : "no",
           sc_kernel_available(SC_KERNEL_AVX2) ? "yes" : "no", m.compiler, m.pin);
    printf("input: float64 rows (x,y,z,r) | mode %s | repeats %d (+1 cold) x %d round(s) | seed "
           "%llu | %s\n",
           mode_names[a.mode], a.repeats, a.rounds, (unsigned long long)a.seed,
           a.fork ? "one child process per configuration" : "in-process");
    printf("load average now: %.2f (other work on the machine skews timings; the CSV records it "
           "per run)\n",
           bench_load_average());
    printf("--- sc_system_info ---\n%s%s----------------------\n", info,
           info[0] && info[strlen(info) - 1] == '\n' ? "" : "\n");

    /* CSV files. */
    FILE *csv = NULL, *cmpf = NULL;
    char csv_path[1024] = "", cmp_path[1024] = "";
    if (!a.csv || (strcmp(a.csv, "none") && strcmp(a.csv, "-"))) {
        if (a.csv) {
            snprintf(csv_path, sizeof csv_path, "%s", a.csv);
        } else {
            char dir[1024];
            /* only --record touches the committed results */
            snprintf(dir, sizeof dir, "%s/%s%s", SC_BENCH_RESULTS_DIR, a.record ? "" : "tmp/",
                     m.tag);
            if (bench_mkdir_p(dir))
                fprintf(stderr, "sc_bench: cannot create %s: %s\n", dir, strerror(errno));
            snprintf(csv_path, sizeof csv_path, "%.900s/%.100s.csv", dir, a.scenario);
        }
        size_t len = strlen(csv_path);
        if (len > 4 && !strcmp(csv_path + len - 4, ".csv"))
            snprintf(cmp_path, sizeof cmp_path, "%.*s-compare.csv",
                     (int)(len - 4 < 1000 ? len - 4 : 1000), csv_path);
        else
            snprintf(cmp_path, sizeof cmp_path, "%.1000s-compare.csv", csv_path);
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "sc_bench: cannot write %s: %s\n", csv_path, strerror(errno));
            return 2;
        }
        csv_header(csv);
    }

    /* Configurations. */
    int cap = 4096;
    bench_row *rows = calloc((size_t)cap, sizeof *rows);
    bench_truth *truth = calloc((size_t)cap, sizeof *truth);
    if (!rows || !truth) {
        fprintf(stderr, "sc_bench: out of memory\n");
        return 1;
    }
    int nrows = 0, ntruth = 0, failures = 0;
    double t_start = bench_now_s();
    print_table_header();
    /* The configurations, in order. */
    for (int d = 0; d < a.ndists; d++) {
        size_t sizes[MAX_LIST];
        int ns = sizes_for(&a, a.dists[d], sizes);
        for (int s = 0; s < ns; s++) {
            for (int algo = ALGO_ENGINE; algo <= ALGO_HASHGRID; algo++) {
                if (algo == ALGO_BRUTE && (!a.brute || sizes[s] > a.brute_max_n))
                    continue;
                if (algo == ALGO_HASHGRID && (!a.baseline || sizes[s] > a.baseline_max_n))
                    continue;
                int nk = algo == ALGO_HASHGRID ? 1 : a.nkernels;
                int nt = algo == ALGO_HASHGRID ? 1 : a.nthreads;
                for (int k = 0; k < nk; k++)
                    for (int t = 0; t < nt && nrows < cap; t++) {
                        bench_row *r = &rows[nrows++];
                        memset(r, 0, sizeof *r);
                        bench_config *c = &r->cfg;
                        snprintf(c->dist, sizeof c->dist, "%s", a.dists[d]);
                        c->n = sizes[s];
                        c->seed = a.seed;
                        c->algo = algo;
                        c->mode = algo == ALGO_HASHGRID ? MODE_COUNT : a.mode;
                        c->kernel = algo == ALGO_HASHGRID ? SC_KERNEL_SCALAR : a.kernels[k];
                        c->threads = algo == ALGO_HASHGRID ? 1 : a.threads[t];
                        c->repeats = algo == ALGO_HASHGRID ? a.baseline_repeats : a.repeats;
                    }
            }
        }
    }
    /* Rounds: every configuration once per round, in order, so a slow phase
     * of the machine falls on all of them alike rather than on whichever
     * ran then; the reported figures are medians over the rounds. */
    bench_row *runs = calloc((size_t)nrows * (size_t)a.rounds + 1, sizeof *runs);
    if (!runs) {
        fprintf(stderr, "sc_bench: out of memory\n");
        return 1;
    }
    for (int round = 0; round < a.rounds; round++) {
        if (a.rounds > 1)
            printf("--- round %d of %d\n", round + 1, a.rounds);
        for (int i = 0; i < nrows; i++) {
            bench_row *r = &runs[(size_t)i * (size_t)a.rounds + (size_t)round];
            if (round > 0 && runs[(size_t)i * (size_t)a.rounds].status != 0) {
                *r = runs[(size_t)i * (size_t)a.rounds]; /* skipped or failed: not again */
                continue;
            }
            r->cfg = rows[i].cfg;
            run_isolated(&a, r);
            /* Other work took a core: run again, keep the quieter run. */
            for (int retry = 0; retry < a.retry_busy && r->status == 0 && r->others_busy > 0.10;
                 retry++) {
                bench_row again;
                memset(&again, 0, sizeof again);
                again.cfg = r->cfg;
                printf("  (other work used %.0f%% of the CPUs during that run: again)\n",
                       100.0 * r->others_busy);
                run_isolated(&a, &again);
                if (again.status < 0 ||
                    (again.status == 0 && check_agreement(truth, &ntruth, cap, &again)))
                    failures++;
                if (again.status == 0 && again.others_busy < r->others_busy) {
                    again.retries = retry + 1;
                    *r = again;
                } else {
                    r->retries = retry + 1;
                }
            }
            print_row(r);
            if (r->status < 0)
                failures++;
            else if (r->status == 0 && check_agreement(truth, &ntruth, cap, r))
                failures++;
        }
    }
    if (a.rounds > 1) {
        printf("--- medians over the %d rounds\n", a.rounds);
        print_table_header();
    }
    for (int i = 0; i < nrows; i++) {
        merge_rounds(&runs[(size_t)i * (size_t)a.rounds], a.rounds, &rows[i]);
        if (a.rounds > 1)
            print_row(&rows[i]);
        if (csv)
            csv_row(csv, &m, &a, &rows[i]);
    }
    free(runs);
    if (csv) {
        fclose(csv);
        cmpf = fopen(cmp_path, "w");
        if (!cmpf)
            fprintf(stderr, "sc_bench: cannot write %s: %s\n", cmp_path, strerror(errno));
    }
    comparisons(&m, &a, rows, nrows, cmpf);
    if (cmpf)
        fclose(cmpf);
    printf("\n%d configurations in %.1f s", nrows, bench_now_s() - t_start);
    if (csv_path[0])
        printf("; CSV: %s and %s", csv_path, cmp_path);
    printf("\n");
    if (failures) {
        fprintf(stderr,
                "\n*** sc_bench: %d FAILURE(S) OR DISAGREEMENT(S): the results above are not "
                "trustworthy ***\n",
                failures);
        printf("*** %d FAILURE(S) OR DISAGREEMENT(S) ***\n", failures);
    }
    free(rows);
    free(truth);
    return failures ? 1 : 0;
}
