/*
 * between_bench: what a two-set query costs against a one-set query on the
 * larger set. The large set B is DIST with n spheres (seed 1); the small
 * sets A are m spheres either spread over B's region (the first m of
 * another draw of n, seed 2) or gathered (DIST with m spheres, seed 3: the
 * generator's region for m, around the same centre), and a comparable set
 * (the first n/2 of the seed-2 draw). Every round times, on warm contexts,
 * sc_count_pairs(B) and sc_count_between(A, B) for each A; the ratios are
 * per round, their medians reported. With --periodic every query runs in
 * a periodic box, B's centres' bounds on every axis (as periodic_bench's),
 * the one-set query included. Public API only.
 *
 *   between_bench [--gen DIST] [--n N] [--m M] [--rounds R] [--threads T] [--periodic]
 *                 [--csv FILE]
 *
 * Defaults: uniform, n 1e6, m 1e4, 9 rounds, threads 0 (one per core).
 */
#include "bench_common.h"
#include "sc_gen.h"
#include "spherecollide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SETS = 3 };

int main(int argc, char **argv) {
    const char *dist = "uniform", *csv = NULL;
    size_t n = 1000000, m = 10000;
    int rounds = 9, threads = 0, periodic = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--gen") == 0 && v)
            dist = argv[++i];
        else if (strcmp(argv[i], "--n") == 0 && v && bench_parse_size(v, &n) == 0)
            i++;
        else if (strcmp(argv[i], "--m") == 0 && v && bench_parse_size(v, &m) == 0)
            i++;
        else if (strcmp(argv[i], "--rounds") == 0 && v)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && v)
            threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && v)
            csv = argv[++i];
        else if (strcmp(argv[i], "--periodic") == 0)
            periodic = 1;
        else {
            fprintf(stderr, "usage: between_bench [--gen DIST] [--n N] [--m M] [--rounds R] "
                            "[--threads T] [--periodic] [--csv FILE]\n");
            return 2;
        }
    }
    if (rounds < 1)
        rounds = 1;
    if (m > n)
        m = n;
    bench_host host;
    bench_host_probe(NULL, &host);
    double *big = malloc(4 * (n ? n : 1) * sizeof *big);
    double *other = malloc(4 * (n ? n : 1) * sizeof *other);
    double *gathered = malloc(4 * (m ? m : 1) * sizeof *gathered);
    if (!big || !other || !gathered || sc_gen_generate(dist, n, 1, big) != 0 ||
        sc_gen_generate(dist, n, 2, other) != 0 || sc_gen_generate(dist, m, 3, gathered) != 0) {
        fprintf(stderr, "between_bench: cannot generate %s %zu\n", dist, n);
        return 2;
    }
    const sc_spheres vb = sc_spheres_rows_f64(n, 3, big);
    const sc_spheres va[SETS] = {sc_spheres_rows_f64(m, 3, other),
                                 sc_spheres_rows_f64(m, 3, gathered),
                                 sc_spheres_rows_f64(n / 2, 3, other)};
    const char *names[SETS] = {"spread", "gathered", "comparable"};
    sc_options o = sc_options_default();
    o.threads = threads;
    if (periodic)
        bench_periodic_box(big, n, &o.box);
    sc_context *self = NULL, *cx[SETS] = {NULL, NULL, NULL};
    int bad = sc_context_create(&o, &self) != SC_OK;
    for (int k = 0; k < SETS; k++)
        bad |= sc_context_create(&o, &cx[k]) != SC_OK;
    double *ts = calloc((size_t)rounds, sizeof *ts), *tb[SETS], *ratio[SETS];
    for (int k = 0; k < SETS; k++) {
        tb[k] = calloc((size_t)rounds, sizeof *tb[k]);
        ratio[k] = calloc((size_t)rounds, sizeof *ratio[k]);
    }
    sc_summary sum = {0, 0}, pairs[SETS];
    uint64_t searched[SETS] = {0, 0, 0};
    /* a first, cold round of each (scratch allocated) is not counted */
    for (int r = -1; r < rounds && !bad; r++) {
        double t0 = bench_now_s();
        bad |= sc_count_pairs(self, &vb, &sum) != SC_OK;
        const double self_s = bench_now_s() - t0;
        for (int k = 0; k < SETS && !bad; k++) {
            t0 = bench_now_s();
            bad |= sc_count_between(cx[k], &va[k], &vb, &pairs[k]) != SC_OK;
            const double s = bench_now_s() - t0;
            sc_stats st = {.size = sizeof st};
            sc_context_stats(cx[k], &st);
            searched[k] = st.spheres;
            if (r >= 0) {
                tb[k][r] = s;
                ratio[k][r] = s / self_s;
            }
        }
        if (r >= 0)
            ts[r] = self_s;
    }
    if (bad) {
        fprintf(stderr, "between_bench: a call failed\n");
        return 1;
    }
    FILE *out = csv ? fopen(csv, "w") : stdout;
    if (!out) {
        perror(csv);
        return 2;
    }
    fprintf(out, "machine,cpu,isa,threads,gen,n,box,what,m,searched,pairs,rounds,median_s,"
                 "ratio_to_self\n");
    sc_stats st = {.size = sizeof st};
    sc_context_stats(self, &st);
    const char *box = periodic ? "periodic" : "open";
    fprintf(out, "%s,%s,%s,%d,%s,%zu,%s,self,0,%llu,%llu,%d,%.6f,1\n", host.tag, host.cpu, host.isa,
            st.threads, dist, n, box, (unsigned long long)st.spheres, (unsigned long long)sum.pairs,
            rounds, bench_median(ts, rounds));
    for (int k = 0; k < SETS; k++)
        fprintf(out, "%s,%s,%s,%d,%s,%zu,%s,%s,%zu,%llu,%llu,%d,%.6f,%.3f\n", host.tag, host.cpu,
                host.isa, st.threads, dist, n, box, names[k], va[k].count,
                (unsigned long long)searched[k], (unsigned long long)pairs[k].pairs, rounds,
                bench_median(tb[k], rounds), bench_median(ratio[k], rounds));
    if (csv)
        fclose(out);
    return 0;
}
