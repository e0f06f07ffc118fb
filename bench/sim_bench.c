/*
 * sim_bench: the simulation's performance (issue 15), on the public API
 * only (spherecollide.h, spherecollide_sim.h). Cases:
 *
 *   seed002-8k     seed 002's demo: 8,000 balls, 1400 x 600, seed 002's
 *                  radii, speed 50, dt 1/60 (2-D)
 *   seed002-100k   seed 002's benchmark: 100,000 balls, 3738 x 1602
 *   seed003        seed 003's room: 10,000 circles of radius 2 on a lattice
 *                  of pitch 6 in 600 x 600, velocity components uniform in
 *                  [-0.2, 0.2] per frame (dt 1); grid, kdsplit (the median
 *                  split of seed 003) and brute (its "basic" loop)
 *   step-1e6       10^6 spheres of radius 1 in 3-D at volume fraction 0.25
 *                  (a cube of edge 255.9), speed 6 per unit time, dt 1/60
 *                  (0.1 radius per frame): a whole step against one
 *                  sc_count_pairs on the same positions (a second context,
 *                  same algorithm and threads)
 *   coherence-1e6  the step-1e6 system on sap with a fresh radix sort of the
 *                  sweep every frame, and with options.sap.warm (the last
 *                  frame's order repaired by insertion sort); on the bvh built
 *                  afresh every frame, and with options.bvh.refit (the last
 *                  frame's tree refitted); and on the grid, whose keys and
 *                  sort stages are reported (repaired after a renumbering)
 *
 * Every variant but those named plain renumbers the balls in the grid's
 * cell order every --reorder K steps (params.reorder; default 8).
 *
 * Every case runs F frames; medians are over frames 1 .. F-1 (frame 0 is
 * reported alone: it sizes every buffer). Per-frame rows go to
 * --frames-csv (the plots of docs/simulation.md), one summary row per case
 * and variant to --csv.
 *
 *   sim_bench [--cases LIST] [--frames F] [--threads T] [--csv FILE]
 *             [--frames-csv FILE]
 *
 * Defaults: every case, 61 frames (11 for the 10^6 cases, 6 for brute),
 * threads 0 (one per core), CSV to stdout.
 */
#include "bench_common.h"
#include "spherecollide.h"
#include "spherecollide_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The median without reordering v (bench_median sorts its argument). */
static double median(const double *v, int n) {
    if (n <= 0)
        return 0.0;
    double *c = malloc((size_t)n * sizeof *c);
    if (!c)
        return 0.0;
    memcpy(c, v, (size_t)n * sizeof *c);
    const double m = bench_median(c, n);
    free(c);
    return m;
}

typedef struct run_cfg {
    const char *name, *variant;
    sc_sim_params p;
    sc_algorithm algo;
    int warm;
    int frames;
    int count_call; /* also time sc_count_pairs on each frame's positions */
} run_cfg;

typedef struct outputs {
    FILE *sum, *frames;
    bench_host host;
    int threads;
    int reorder; /* params.reorder for every variant not named plain */
} outputs;

static int run(const run_cfg *c, outputs *o) {
    sc_options opt = sc_options_default();
    opt.threads = o->threads;
    opt.algorithm = c->algo;
    opt.sap.warm = c->warm;
    opt.bvh.refit = c->warm;
    sc_sim *sim = NULL;
    sc_sim_params p = c->p;
    if (strcmp(c->variant, "plain") != 0 && !strstr(c->variant, "-plain"))
        p.reorder = o->reorder;
    if (sc_sim_create(&p, &opt, &sim) != SC_OK) {
        fprintf(stderr, "sim_bench: %s: %s\n", c->name, sc_sim_problem());
        return 1;
    }
    sc_context *counter = NULL;
    if (c->count_call) {
        sc_options co = opt;
        co.sap.warm = 0;
        co.bvh.refit = 0;
        if (sc_context_create(&co, &counter) != SC_OK) {
            sc_sim_destroy(sim);
            return 1;
        }
    }
    const int F = c->frames;
    double *total = calloc((size_t)F, sizeof(double)), *search = calloc((size_t)F, sizeof(double));
    double *sort = calloc((size_t)F, sizeof(double)), *count = calloc((size_t)F, sizeof(double));
    double *coll = calloc((size_t)F, sizeof(double)), *react = calloc((size_t)F, sizeof(double));
    if (!total || !search || !sort || !count || !coll || !react)
        return 1;
    for (int f = 0; f < F; f++) {
        sc_sim_frame fr;
        if (sc_sim_step(sim, &fr) != SC_OK) {
            fprintf(stderr, "sim_bench: %s: step %d failed\n", c->name, f);
            return 1;
        }
        sc_stats st = {.size = sizeof st};
        sc_sim_search_stats(sim, &st);
        total[f] = fr.ms_move + fr.ms_search + fr.ms_response;
        search[f] = fr.ms_search;
        sort[f] = 1e3 * (st.seconds[SC_STAGE_KEYS] + st.seconds[SC_STAGE_SORT]);
        coll[f] = (double)fr.collisions;
        react[f] = (double)fr.reactions;
        if (counter) {
            const sc_sim_balls b = sc_sim_get_balls(sim);
            const sc_spheres v = sc_spheres_soa_f64(b.n, b.x, b.y, b.z, b.r);
            sc_summary s;
            const double t0 = bench_now_s();
            sc_count_pairs(counter, &v, &s);
            count[f] = 1e3 * (bench_now_s() - t0);
            if (s.pairs != fr.collisions) { /* the same positions: the same pairs */
                fprintf(stderr, "sim_bench: %s: frame %d: count %llu, step %llu pairs\n", c->name,
                        f, (unsigned long long)s.pairs, (unsigned long long)fr.collisions);
                return 1;
            }
        }
        if (o->frames)
            fprintf(o->frames, "%s,%s,%s,%d,%d,%llu,%.4f,%.4f,%.4f,%.4f,%.4f,%llu,%llu,%llu\n",
                    o->host.tag, c->name, c->variant, o->threads, st.threads,
                    (unsigned long long)fr.step, fr.ms_move, fr.ms_search, fr.ms_response, total[f],
                    sort[f], (unsigned long long)fr.candidate_tests,
                    (unsigned long long)fr.collisions, (unsigned long long)fr.reactions);
        if (f == 0 && o->frames)
            fflush(o->frames);
    }
    sc_stats st = {.size = sizeof st};
    sc_sim_search_stats(sim, &st);
    const double med = median(total + 1, F - 1), cnt = counter ? median(count + 1, F - 1) : 0.0;
    fprintf(o->sum, "%s,%s,%s,%d,%d,%s,%s,%s,%d,%zu,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.0f,%.0f\n",
            o->host.tag, o->host.cpu, o->host.isa, o->threads, st.threads, c->name,
            sc_algorithm_name(c->algo), c->variant, c->p.dims, c->p.n, F, total[0], med,
            median(search + 1, F - 1), median(sort + 1, F - 1), cnt, cnt > 0.0 ? med / cnt : 0.0,
            median(coll + 1, F - 1), median(react + 1, F - 1));
    fflush(o->sum);
    fprintf(stderr, "%-14s %-8s %-6s frame 0 %8.3f ms, median %8.3f ms (search %.3f)%s\n", c->name,
            sc_algorithm_name(c->algo), c->variant, total[0], med, median(search + 1, F - 1),
            counter ? " + count call" : "");
    free(total);
    free(search);
    free(sort);
    free(count);
    free(coll);
    free(react);
    sc_context_destroy(counter);
    sc_sim_destroy(sim);
    return 0;
}

static int wanted(const char *list, const char *name) {
    if (!list)
        return 1;
    const size_t k = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += k)
        if ((p == list || p[-1] == ',') && (p[k] == ',' || p[k] == '\0'))
            return 1;
    return 0;
}

int main(int argc, char **argv) {
    const char *cases = NULL, *csv = NULL, *frames_csv = NULL;
    int frames = 0, threads = 0, reorder = 8;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--cases") && a + 1 < argc)
            cases = argv[++a];
        else if (!strcmp(argv[a], "--frames") && a + 1 < argc)
            frames = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc)
            threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv = argv[++a];
        else if (!strcmp(argv[a], "--reorder") && a + 1 < argc)
            reorder = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--frames-csv") && a + 1 < argc)
            frames_csv = argv[++a];
        else {
            fprintf(stderr,
                    "usage: sim_bench [--cases LIST] [--frames F] [--threads T] [--reorder K] "
                    "[--csv FILE] [--frames-csv FILE]\n");
            return 2;
        }
    }
    if (frames < 0 || frames == 1 || threads < 0 || reorder < 0)
        return 2;
    outputs o;
    memset(&o, 0, sizeof o);
    o.sum = csv ? fopen(csv, "w") : stdout;
    o.frames = frames_csv ? fopen(frames_csv, "w") : NULL;
    o.threads = threads;
    o.reorder = reorder;
    if (!o.sum || (frames_csv && !o.frames)) {
        perror(csv && !o.sum ? csv : frames_csv);
        return 1;
    }
    bench_host_probe(NULL, &o.host);
    fprintf(o.sum,
            "machine,cpu,kernel,threads_asked,threads,case,algorithm,variant,dims,n,frames,"
            "first_ms,median_ms,median_search_ms,median_sort_ms,count_call_ms,step_over_count,"
            "median_collisions,median_reactions\n");
    if (o.frames)
        fprintf(o.frames,
                "machine,case,variant,threads_asked,threads,step,ms_move,ms_search,ms_response,"
                "ms_total,ms_keys_sort,candidate_tests,collisions,reactions\n");
    const int F = frames ? frames : 61, F_big = frames ? frames : 11, F_brute = frames ? frames : 6;
    int bad = 0;

    run_cfg c;
    memset(&c, 0, sizeof c);
    c.p = sc_sim_params_default();
    c.variant = "reorder";
    c.frames = F;
    if (wanted(cases, "seed002-8k")) {
        c.name = "seed002-8k";
        bad |= run(&c, &o);
    }
    if (wanted(cases, "seed002-100k")) {
        c.name = "seed002-100k";
        c.p.n = 100000;
        c.p.box[0] = 3738.0;
        c.p.box[1] = 1602.0;
        bad |= run(&c, &o);
    }
    if (wanted(cases, "seed003")) {
        c.p = sc_sim_params_default();
        c.name = "seed003";
        c.p.n = 10000;
        c.p.box[0] = c.p.box[1] = 600.0;
        c.p.radii = SC_SIM_RADII_CONSTANT;
        c.p.r0 = 2.0;
        c.p.placement = SC_SIM_PLACE_LATTICE;
        c.p.spacing = 6.0;
        c.p.velocities = SC_SIM_VEL_COMPONENTS;
        c.p.speed = 0.2;
        c.p.dt = 1.0;
        const sc_algorithm algos[3] = {SC_ALGO_GRID, SC_ALGO_KDSPLIT, SC_ALGO_BRUTE};
        for (int k = 0; k < 3; k++) {
            c.algo = algos[k];
            c.frames = algos[k] == SC_ALGO_BRUTE ? F_brute : F;
            bad |= run(&c, &o);
        }
        c.algo = SC_ALGO_GRID;
    }
    c.p = sc_sim_params_default();
    c.p.dims = 3;
    c.p.n = 1000000;
    c.p.radii = SC_SIM_RADII_CONSTANT;
    c.p.r0 = 1.0;
    /* volume fraction 0.25: n 4/3 pi r^3 = 0.25 L^3 */
    c.p.box[0] = c.p.box[1] = c.p.box[2] = cbrt(1e6 * 4.0 / 3.0 * 3.14159265358979323846 / 0.25);
    c.p.speed = 6.0;
    c.frames = F_big;
    if (wanted(cases, "step-1e6")) {
        c.name = "step-1e6";
        c.count_call = 1;
        c.variant = "plain";
        bad |= run(&c, &o);
        c.variant = "reorder";
        bad |= run(&c, &o);
        c.count_call = 0;
    }
    if (wanted(cases, "coherence-1e6")) {
        c.name = "coherence-1e6";
        /* sap's repaired sweep order and the bvh's refit, each against a
         * fresh build, with and without renumbering */
        const sc_algorithm coherent[2] = {SC_ALGO_SAP, SC_ALGO_BVH};
        const char *variants[4] = {"fresh-plain", "warm-plain", "warm", "fresh"};
        for (int a = 0; a < 2; a++)
            for (int v = 0; v < 4; v++) {
                c.algo = coherent[a];
                c.variant = variants[v];
                c.warm = v == 1 || v == 2;
                bad |= run(&c, &o);
            }
        c.warm = 0;
        c.algo = SC_ALGO_GRID;
        c.variant = "plain";
        bad |= run(&c, &o);
        c.variant = "reorder";
        bad |= run(&c, &o);
    }
    if (csv)
        fclose(o.sum);
    if (o.frames)
        fclose(o.frames);
    return bad;
}
