/*
 * sap_warm: seed 001's frame-coherence argument, measured. Spheres move a
 * little between calls (every centre by a uniform step of up to
 * +-delta x the mean radius per axis, per frame), and two sap contexts
 * count the pairs of every frame: one cold (radix sort every call), one
 * warm (options.sap.warm: the last call's sweep order repaired by
 * insertion sort). Both must agree on every frame; the program reports
 * the median time of the sweep order (keys + sort stages) and of the
 * whole call for each, and how many warm calls repaired rather than gave
 * up. Public API only.
 *
 *   sap_warm [--n LIST] [--delta LIST] [--frames F] [--threads T] [--csv FILE]
 *
 * Defaults: n 1e4,1e5,1e6; delta 0,0.01,0.03,0.1,0.3,1,3; 9 frames
 * (the first, which both sort afresh, is not counted); 1 thread; CSV to
 * stdout. Exit 1 if the two contexts ever disagree.
 */
#include "bench_common.h"
#include "sc_gen.h"
#include "spherecollide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void count_repairs(sc_log_level level, const char *msg, void *user) {
    (void)level;
    *(int *)user += strstr(msg, "sweep order repaired") != NULL;
}

static uint64_t rng = 0x243F6A8885A308D3ull;
static double urand(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) * 0x1p-53;
}

static int parse_list(const char *s, double *out, int cap) {
    int k = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *t = strtok(buf, ","); t && k < cap; t = strtok(NULL, ","))
        out[k++] = strtod(t, NULL);
    return k;
}

int main(int argc, char **argv) {
    double ns[16] = {1e4, 1e5, 1e6}, deltas[16] = {0, 0.01, 0.03, 0.1, 0.3, 1, 3};
    int nn = 3, nd = 7, frames = 9, threads = 1;
    const char *csv = NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc)
            nn = parse_list(argv[++a], ns, 16);
        else if (!strcmp(argv[a], "--delta") && a + 1 < argc)
            nd = parse_list(argv[++a], deltas, 16);
        else if (!strcmp(argv[a], "--frames") && a + 1 < argc)
            frames = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc)
            threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--csv") && a + 1 < argc)
            csv = argv[++a];
        else {
            fprintf(stderr, "usage: sap_warm [--n LIST] [--delta LIST] [--frames F] [--threads T] "
                            "[--csv FILE]\n");
            return 2;
        }
    }
    if (frames < 2 || threads < 1)
        return 2;
    FILE *out = csv ? fopen(csv, "w") : stdout;
    if (!out) {
        perror(csv);
        return 1;
    }
    bench_host host;
    bench_host_probe(NULL, &host);
    fprintf(out, "machine,cpu,kernel,threads,dist,n,delta_r,frames,repaired,cold_order_ms,"
                 "warm_order_ms,cold_total_ms,warm_total_ms,order_ratio,total_ratio\n");
    int bad = 0;
    for (int in = 0; in < nn; in++) {
        const size_t n = (size_t)ns[in];
        double *rows = malloc(4 * n * sizeof *rows);
        double *t[4];
        for (int k = 0; k < 4; k++)
            t[k] = malloc((size_t)frames * sizeof(double));
        if (!rows || !t[0] || !t[1] || !t[2] || !t[3] || sc_gen_generate("uniform", n, 1, rows)) {
            fprintf(stderr, "sap_warm: cannot make %zu spheres\n", n);
            return 1;
        }
        double rmean = 0.0;
        for (size_t i = 0; i < n; i++)
            rmean += rows[4 * i + 3] / (double)n;
        for (int id = 0; id < nd; id++) {
            int repaired = 0;
            sc_options o = sc_options_default();
            o.algorithm = SC_ALGO_SAP;
            o.threads = threads;
            o.pin = SC_PIN_NONE;
            sc_context *cold = NULL, *warm = NULL;
            sc_context_create(&o, &cold);
            o.sap.warm = 1;
            o.log = count_repairs;
            o.log_user = &repaired;
            sc_context_create(&o, &warm);
            if (!cold || !warm)
                return 1;
            const sc_spheres view = sc_spheres_rows_f64(n, 3, rows);
            const double step = deltas[id] * rmean;
            int counted = 0;
            for (int f = 0; f <= frames; f++) {
                for (size_t i = 0; f > 0 && i < n; i++)
                    for (int a = 0; a < 3; a++)
                        rows[4 * i + a] += (2.0 * urand() - 1.0) * step;
                sc_summary sc, sw;
                sc_stats st_c = {.size = sizeof st_c}, st_w = {.size = sizeof st_w};
                /* alternate which runs first, so drift hits both alike */
                if (f % 2) {
                    sc_count_pairs(cold, &view, &sc);
                    sc_count_pairs(warm, &view, &sw);
                } else {
                    sc_count_pairs(warm, &view, &sw);
                    sc_count_pairs(cold, &view, &sc);
                }
                sc_context_stats(cold, &st_c);
                sc_context_stats(warm, &st_w);
                if (sc.pairs != sw.pairs || sc.checksum != sw.checksum) {
                    fprintf(stderr, "sap_warm: n=%zu delta=%g frame %d: cold and warm disagree\n",
                            n, deltas[id], f);
                    bad = 1;
                }
                if (f == 0)
                    continue; /* both sort afresh */
                t[0][counted] = 1e3 * (st_c.seconds[SC_STAGE_KEYS] + st_c.seconds[SC_STAGE_SORT]);
                t[1][counted] = 1e3 * (st_w.seconds[SC_STAGE_KEYS] + st_w.seconds[SC_STAGE_SORT]);
                t[2][counted] = 1e3 * st_c.total_seconds;
                t[3][counted] = 1e3 * st_w.total_seconds;
                counted++;
            }
            const double co = bench_median(t[0], counted), wo = bench_median(t[1], counted);
            const double ct = bench_median(t[2], counted), wt = bench_median(t[3], counted);
            fprintf(out, "%s,%s,%s,%d,uniform,%zu,%g,%d,%d,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f\n",
                    host.tag, host.cpu, host.isa, threads, n, deltas[id], counted, repaired, co, wo,
                    ct, wt, co / wo, ct / wt);
            fflush(out);
            sc_context_destroy(cold);
            sc_context_destroy(warm);
            sc_gen_generate("uniform", n, 1, rows); /* the next delta starts from the same set */
        }
        free(rows);
        for (int k = 0; k < 4; k++)
            free(t[k]);
    }
    if (csv)
        fclose(out);
    return bad;
}
