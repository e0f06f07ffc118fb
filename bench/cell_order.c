/*
 * cell_order: what a caller gains by keeping its spheres in the grid's own
 * cell order (sc_cell_order), as MD and DEM codes re-sort their particles
 * every few steps. For each generator and size, one context counts the
 * pairs of three layouts of the same spheres, in alternating rounds:
 *
 *   given  as the generator writes them (random in space);
 *   cell   permuted by sc_cell_order: the gather reads in sequence and the
 *          sort finds its keys ascending and is skipped;
 *   moved  the cell layout with every centre then moved by a uniform step
 *          of up to +-delta x the mean radius per axis (a few time steps
 *          after the re-sort): the sort runs, the gather reads nearly in
 *          sequence.
 *
 * Reports medians of the warm calls' total, sort and gather times, the
 * sc_cell_order call's own time (median of the rounds), and each layout's
 * total against given's. Public API only.
 *
 *   cell_order [--dist LIST] [--n LIST] [--rounds R] [--threads T]
 *              [--delta D] [--csv FILE]
 *
 * Defaults: uniform; n 1e6; 9 rounds; threads 0 (one per core); delta 0.1;
 * CSV to stdout. Exit 1 when a layout's pair count differs from given's
 * (moved: from a fresh count of the moved spheres on a second context).
 */
#include "bench_common.h"
#include "sc_gen.h"
#include "spherecollide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GIVEN, CELL, MOVED, LAYOUTS };
static const char *const layout_names[LAYOUTS] = {"given", "cell", "moved"};

static uint64_t rng = 0x243F6A8885A308D3ull;
static double urand(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) * 0x1p-53;
}

static int split(char *s, char **out, int cap) {
    int k = 0;
    for (char *t = strtok(s, ","); t && k < cap; t = strtok(NULL, ","))
        out[k++] = t;
    return k;
}

static double *rows_alloc(size_t n) {
    void *p = NULL;
    return posix_memalign(&p, 64, (n ? n : 1) * 4 * sizeof(double)) ? NULL : p;
}

int main(int argc, char **argv) {
    char dist_buf[256] = "uniform", n_buf[256] = "1e6";
    int rounds = 9, threads = 0;
    double delta = 0.1;
    const char *csv = NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--dist") && a + 1 < argc)
            snprintf(dist_buf, sizeof dist_buf, "%s", argv[++a]);
        else if (!strcmp(argv[a], "--n") && a + 1 < argc)
            snprintf(n_buf, sizeof n_buf, "%s", argv[++a]);
        else if (!strcmp(argv[a], "--rounds") && a + 1 < argc)
            rounds = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc)
            threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--delta") && a + 1 < argc)
            delta = strtod(argv[++a], NULL);
        else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv = argv[++a];
        else {
            fprintf(stderr, "usage: cell_order [--dist LIST] [--n LIST] [--rounds R] [--threads T] "
                            "[--delta D] [--csv FILE]\n");
            return 2;
        }
    }
    char *dists[16], *nstr[16];
    const int nd = split(dist_buf, dists, 16), nn = split(n_buf, nstr, 16);
    if (rounds < 1 || threads < 0 || !(delta >= 0.0) || nd == 0 || nn == 0)
        return 2;
    FILE *out = csv ? fopen(csv, "w") : stdout;
    if (!out) {
        perror(csv);
        return 1;
    }
    bench_host host;
    bench_host_probe(NULL, &host);
    fprintf(out, "machine,cpu,isa,threads,dist,n,layout,delta_r,rounds,pairs,order_ms,total_ms,"
                 "sort_ms,gather_ms,total_vs_given\n");
    int bad = 0;
    for (int id = 0; id < nd; id++)
        for (int in = 0; in < nn; in++) {
            size_t n = 0;
            if (bench_parse_size(nstr[in], &n)) {
                fprintf(stderr, "cell_order: bad size %s\n", nstr[in]);
                return 2;
            }
            double *lay[LAYOUTS];
            for (int l = 0; l < LAYOUTS; l++)
                lay[l] = rows_alloc(n);
            uint32_t *order = malloc((n ? n : 1) * sizeof *order);
            double *t = malloc(sizeof(double) * (size_t)rounds * (3 * LAYOUTS + 1));
            if (!lay[GIVEN] || !lay[CELL] || !lay[MOVED] || !order || !t ||
                sc_gen_generate(dists[id], n, 1, lay[GIVEN])) {
                fprintf(stderr, "cell_order: cannot make %zu %s spheres\n", n, dists[id]);
                return 1;
            }
            sc_options o = sc_options_default();
            o.threads = threads;
            sc_context *ctx = NULL, *check = NULL;
            if (sc_context_create(&o, &ctx) != SC_OK || sc_context_create(&o, &check) != SC_OK)
                return 1;
            const sc_spheres given = sc_spheres_rows_f64(n, 3, lay[GIVEN]);
            if (sc_cell_order(ctx, &given, order) != SC_OK) {
                fprintf(stderr, "cell_order: sc_cell_order failed on %s\n", dists[id]);
                return 1;
            }
            double rmean = 0.0;
            for (size_t k = 0; k < n; k++) {
                memcpy(lay[CELL] + 4 * k, lay[GIVEN] + 4 * (size_t)order[k], 4 * sizeof(double));
                rmean += lay[CELL][4 * k + 3] / (double)n;
            }
            for (size_t k = 0; k < 4 * n; k++)
                lay[MOVED][k] =
                    lay[CELL][k] + ((k & 3) == 3 ? 0.0 : (2.0 * urand() - 1.0) * delta * rmean);
            uint64_t want[LAYOUTS] = {0, 0, 0}, got[LAYOUTS] = {0, 0, 0};
            sc_summary s;
            sc_count_pairs(check, &given, &s);
            want[GIVEN] = want[CELL] = s.pairs;
            const sc_spheres moved = sc_spheres_rows_f64(n, 3, lay[MOVED]);
            sc_count_pairs(check, &moved, &s);
            want[MOVED] = s.pairs;
            sc_context_destroy(check);
            /* Rounds: the three layouts in a rotating order (drift falls on
             * each alike), then the order call; one untimed warm-up call
             * first, so every timed call runs on grown scratch. */
            sc_count_pairs(ctx, &given, &s);
            for (int r = 0; r < rounds; r++) {
                for (int j = 0; j < LAYOUTS; j++) {
                    const int l = (r + j) % LAYOUTS;
                    const sc_spheres v = sc_spheres_rows_f64(n, 3, lay[l]);
                    sc_stats st = {.size = sizeof st};
                    sc_count_pairs(ctx, &v, &s);
                    sc_context_stats(ctx, &st);
                    got[l] = s.pairs;
                    t[(size_t)(3 * l + 0) * (size_t)rounds + (size_t)r] = 1e3 * st.total_seconds;
                    t[(size_t)(3 * l + 1) * (size_t)rounds + (size_t)r] =
                        1e3 * st.seconds[SC_STAGE_SORT];
                    t[(size_t)(3 * l + 2) * (size_t)rounds + (size_t)r] =
                        1e3 * st.seconds[SC_STAGE_GATHER];
                }
                const double t0 = bench_now_s();
                sc_cell_order(ctx, &given, order);
                t[(size_t)(3 * LAYOUTS) * (size_t)rounds + (size_t)r] = 1e3 * (bench_now_s() - t0);
            }
            const double order_ms =
                bench_median(t + (size_t)(3 * LAYOUTS) * (size_t)rounds, rounds);
            double med[LAYOUTS][3];
            for (int l = 0; l < LAYOUTS; l++)
                for (int q = 0; q < 3; q++)
                    med[l][q] = bench_median(t + (size_t)(3 * l + q) * (size_t)rounds, rounds);
            for (int l = 0; l < LAYOUTS; l++) {
                if (got[l] != want[l]) {
                    fprintf(stderr, "cell_order: %s n=%zu %s: %llu pairs, %llu expected\n",
                            dists[id], n, layout_names[l], (unsigned long long)got[l],
                            (unsigned long long)want[l]);
                    bad = 1;
                }
                fprintf(out, "%s,%s,%s,%d,%s,%zu,%s,%g,%d,%llu,%.3f,%.3f,%.3f,%.3f,%.3f\n",
                        host.tag, host.cpu, host.isa, threads, dists[id], n, layout_names[l],
                        l == MOVED ? delta : 0.0, rounds, (unsigned long long)got[l], order_ms,
                        med[l][0], med[l][1], med[l][2], med[l][0] / med[GIVEN][0]);
            }
            fflush(out);
            sc_context_destroy(ctx);
            for (int l = 0; l < LAYOUTS; l++)
                free(lay[l]);
            free(order);
            free(t);
        }
    if (csv)
        fclose(out);
    return bad;
}
