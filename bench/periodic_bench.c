/*
 * periodic_bench: what a periodic box costs. The set is DIST with n spheres
 * (seed 1); the box is the centres' bounds (the generator's cube for the
 * cube generators), periodic on every axis. Every round times, on warm
 * contexts, sc_count_pairs without a box and with it; the ratios are per
 * round, their medians reported, with the images the box searched and the
 * pairs across its faces. Public API only.
 *
 *   periodic_bench [--gen DIST] [--n N] [--rounds R] [--threads T] [--csv FILE]
 *
 * Defaults: uniform, n 1e6, 9 rounds, threads 0 (one per core).
 */
#include "bench_common.h"
#include "sc_gen.h"
#include "spherecollide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    const char *dist = "uniform", *csv = NULL;
    size_t n = 1000000;
    int rounds = 9, threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--gen") == 0 && v)
            dist = argv[++i];
        else if (strcmp(argv[i], "--n") == 0 && v && bench_parse_size(v, &n) == 0)
            i++;
        else if (strcmp(argv[i], "--rounds") == 0 && v)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && v)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && v)
            csv = argv[++i];
        else {
            fprintf(stderr, "usage: periodic_bench [--gen DIST] [--n N] [--rounds R] "
                            "[--threads T] [--csv FILE]\n");
            return 2;
        }
    }
    if (rounds < 1)
        rounds = 1;
    bench_host host;
    bench_host_probe(NULL, &host);
    double *rows = malloc(4 * (n ? n : 1) * sizeof *rows);
    if (!rows || sc_gen_generate(dist, n, 1, rows) != 0) {
        fprintf(stderr, "periodic_bench: cannot generate %s %zu\n", dist, n);
        return 2;
    }
    const sc_spheres v = sc_spheres_rows_f64(n, 3, rows);
    sc_options o = sc_options_default();
    o.threads = threads;
    sc_options ob = o;
    bench_periodic_box(rows, n, &ob.box);
    sc_context *open = NULL, *boxed = NULL;
    int bad = sc_context_create(&o, &open) != SC_OK || sc_context_create(&ob, &boxed) != SC_OK;
    double *t_open = calloc((size_t)rounds, sizeof(double)),
           *t_box = calloc((size_t)rounds, sizeof(double)),
           *ratio = calloc((size_t)rounds, sizeof(double));
    sc_summary so = {0, 0}, sb = {0, 0};
    /* a first, cold round of each (scratch allocated) is not counted */
    for (int r = -1; r < rounds && !bad; r++) {
        double t0 = bench_now_s();
        bad |= sc_count_pairs(open, &v, &so) != SC_OK;
        const double a = bench_now_s() - t0;
        t0 = bench_now_s();
        bad |= sc_count_pairs(boxed, &v, &sb) != SC_OK;
        const double b = bench_now_s() - t0;
        if (r >= 0) {
            t_open[r] = a;
            t_box[r] = b;
            ratio[r] = b / a;
        }
    }
    if (bad) {
        fprintf(stderr, "periodic_bench: a call failed\n");
        return 1;
    }
    sc_stats st = {.size = sizeof st};
    sc_context_stats(boxed, &st);
    FILE *out = csv ? fopen(csv, "w") : stdout;
    if (!out) {
        perror(csv);
        return 2;
    }
    fprintf(out,
            "machine,cpu,isa,threads,gen,n,what,searched,pairs,rounds,median_s,ratio_to_open\n");
    fprintf(out, "%s,%s,%s,%d,%s,%zu,open,%zu,%llu,%d,%.6f,1\n", host.tag, host.cpu, host.isa,
            st.threads, dist, n, n, (unsigned long long)so.pairs, rounds,
            bench_median(t_open, rounds));
    fprintf(out, "%s,%s,%s,%d,%s,%zu,periodic,%llu,%llu,%d,%.6f,%.3f\n", host.tag, host.cpu,
            host.isa, st.threads, dist, n, (unsigned long long)st.spheres,
            (unsigned long long)sb.pairs, rounds, bench_median(t_box, rounds),
            bench_median(ratio, rounds));
    if (csv)
        fclose(out);
    sc_context_destroy(open);
    sc_context_destroy(boxed);
    free(rows);
    free(t_open);
    free(t_box);
    free(ratio);
    return 0;
}
