/*
 * nbr_bench: what a CSR neighbour list costs against a count-only query on
 * the same spheres and context options. Every round times, on warm
 * contexts, a count (sc_count_pairs), a half list and a full list (each
 * sc_neighbors_count then sc_neighbors_fill into buffers the caller keeps),
 * and optionally a half list with a skin; the ratios are per round, their
 * medians reported. Public API only.
 *
 *   nbr_bench [--gen DIST] [--n N] [--rounds R] [--threads T] [--skin S]
 *             [--window-bytes B] [--csv FILE]
 *
 * Defaults: uniform, 1e6, 9 rounds, threads 0 (one per core), skin 0 (no
 * skin row), the options' sorted_window_bytes (a list past it is counted by
 * row lengths and filled by a search per window). The lists are checked: the half list's entries equal the
 * count's pairs, the full list's twice that; exit 1 otherwise.
 */
#include "bench_common.h"
#include "sc_gen.h"
#include "spherecollide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct list {
    sc_nbr_spec spec;
    uint64_t *off;
    uint32_t *idx;
    size_t cap;
} list;

/* One list built on ctx: seconds, or -1 on failure. */
static double build(sc_context *ctx, const sc_spheres *v, list *l) {
    const double t0 = bench_now_s();
    if (sc_neighbors_count(ctx, v, &l->spec, l->off) != SC_OK)
        return -1;
    const size_t m = (size_t)l->off[v->count];
    if (m > l->cap) { /* the first round sizes it; later rounds reuse it */
        free(l->idx);
        l->idx = malloc((m ? m : 1) * sizeof *l->idx);
        l->cap = l->idx ? m : 0;
        if (!l->idx)
            return -1;
    }
    if (sc_neighbors_fill(ctx, v, &l->spec, l->off, l->idx, NULL) != SC_OK)
        return -1;
    return bench_now_s() - t0;
}

int main(int argc, char **argv) {
    const char *dist = "uniform", *csv = NULL;
    size_t n = 1000000, window = 0;
    int rounds = 9, threads = 0;
    double skin = 0.0;
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
        else if (strcmp(argv[i], "--skin") == 0 && v)
            skin = atof(argv[++i]);
        else if (strcmp(argv[i], "--window-bytes") == 0 && v && bench_parse_size(v, &window) == 0)
            i++;
        else if (strcmp(argv[i], "--csv") == 0 && v)
            csv = argv[++i];
        else {
            fprintf(stderr, "usage: nbr_bench [--gen DIST] [--n N] [--rounds R] [--threads T] "
                            "[--skin S] [--window-bytes B] [--csv FILE]\n");
            return 2;
        }
    }
    if (rounds < 1)
        rounds = 1;
    bench_host host;
    bench_host_probe(NULL, &host);
    double *rows = malloc(4 * (n ? n : 1) * sizeof *rows);
    if (!rows || sc_gen_generate(dist, n, 1, rows) != 0) {
        fprintf(stderr, "nbr_bench: cannot generate %s %zu\n", dist, n);
        return 2;
    }
    const sc_spheres view = sc_spheres_rows_f64(n, 3, rows);
    sc_options o = sc_options_default();
    o.threads = threads;
    if (window)
        o.sorted_window_bytes = window;
    /* one context per kind of call, as a caller that keeps each warm would */
    sc_context *cc = NULL, *lc[3] = {NULL, NULL, NULL};
    list lists[3] = {{{0, 0.0, SC_NBR_NONE}, NULL, NULL, 0},
                     {{1, 0.0, SC_NBR_NONE}, NULL, NULL, 0},
                     {{0, skin, SC_NBR_NONE}, NULL, NULL, 0}};
    const int nlists = skin > 0 ? 3 : 2;
    const char *names[3] = {"half", "full", "half+skin"};
    int bad = sc_context_create(&o, &cc) != SC_OK;
    for (int k = 0; k < nlists; k++) {
        bad |= sc_context_create(&o, &lc[k]) != SC_OK;
        lists[k].off = malloc((n + 1) * sizeof(uint64_t));
        bad |= lists[k].off == NULL;
    }
    double *tc = calloc((size_t)rounds, sizeof *tc), *tl[3], *ratio[3];
    for (int k = 0; k < 3; k++) {
        tl[k] = calloc((size_t)rounds, sizeof *tl[k]);
        ratio[k] = calloc((size_t)rounds, sizeof *ratio[k]);
    }
    sc_summary sum = {0, 0};
    /* a first, cold round of each (scratch allocated, buffers sized) is not counted */
    for (int r = -1; r < rounds && !bad; r++) {
        double t0 = bench_now_s();
        bad |= sc_count_pairs(cc, &view, &sum) != SC_OK;
        const double count_s = bench_now_s() - t0;
        for (int k = 0; k < nlists && !bad; k++) {
            const double s = build(lc[k], &view, &lists[k]);
            bad |= s < 0;
            const uint64_t want = lists[k].spec.full ? 2 * sum.pairs : sum.pairs;
            if (lists[k].spec.skin == 0.0 && lists[k].off[n] != want) {
                fprintf(stderr, "nbr_bench: %s list has %llu entries, want %llu\n", names[k],
                        (unsigned long long)lists[k].off[n], (unsigned long long)want);
                bad = 1;
            }
            if (r >= 0) {
                tl[k][r] = s;
                ratio[k][r] = s / count_s;
            }
        }
        if (r >= 0)
            tc[r] = count_s;
    }
    if (bad) {
        fprintf(stderr, "nbr_bench: a call failed or a list was wrong\n");
        return 1;
    }
    FILE *out = csv ? fopen(csv, "w") : stdout;
    if (!out) {
        perror(csv);
        return 2;
    }
    fprintf(out, "machine,cpu,isa,threads,gen,n,pairs,what,skin,rounds,median_s,ratio_to_count\n");
    sc_stats st = {.size = sizeof st};
    sc_context_stats(cc, &st);
    const double mc = bench_median(tc, rounds);
    fprintf(out, "%s,%s,%s,%d,%s,%zu,%llu,count,0,%d,%.6f,1\n", host.tag, host.cpu, host.isa,
            st.threads, dist, n, (unsigned long long)sum.pairs, rounds, mc);
    for (int k = 0; k < nlists; k++)
        fprintf(out, "%s,%s,%s,%d,%s,%zu,%llu,%s,%g,%d,%.6f,%.3f\n", host.tag, host.cpu, host.isa,
                st.threads, dist, n, (unsigned long long)sum.pairs, names[k], lists[k].spec.skin,
                rounds, bench_median(tl[k], rounds), bench_median(ratio[k], rounds));
    if (csv)
        fclose(out);
    return 0;
}
