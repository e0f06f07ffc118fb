/*
 * hashgrid_pairs: the textbook hash grid (cell = 2 r_max, a hash of the
 * cell to its spheres, 27 neighbour cells, the exact double predicate) on a
 * .npy file, timed on the same files as the other runners. It is the
 * library's hashgrid peer on one thread with the scalar kernel, through the
 * public API: the baseline users write first, written once.
 *
 *   hashgrid_pairs FILE.npy [--repeat R] [--max-tests T]
 *
 * Each repeat builds the grid and searches on one context; the file read is
 * not timed. When the grid's occupancy predicts more than T candidate tests
 * (default 2e9, the limit sc_bench --baseline uses; 0: no limit) the peer
 * refuses (SC_ERR_TOO_COSTLY): it prints "refused: ..." and exits 3 without
 * searching, as one radius for every cell makes this method quadratic on
 * heavy-tailed radii.
 * Prints the line of runner_util.h. Exit: 0 ok, 1 failure, 2 usage, 3 refused.
 *
 * SPDX-License-Identifier: MIT
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy_rows.h"
#include "runner_util.h"
#include "spherecollide.h"

static void usage(const char *msg) {
    if (msg)
        fprintf(stderr, "hashgrid_pairs: %s\n", msg);
    fprintf(stderr, "usage: hashgrid_pairs FILE.npy [--repeat R] [--max-tests T]\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *path = NULL;
    int repeats = 3;
    double max_tests = 2e9;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--repeat") && a + 1 < argc)
            repeats = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--max-tests") && a + 1 < argc)
            max_tests = strtod(argv[++a], NULL);
        else if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help"))
            usage(NULL);
        else if (!path && argv[a][0] != '-')
            path = argv[a];
        else
            usage("bad argument");
    }
    if (!path)
        usage("no input file");
    if (repeats < 1 || repeats > 1000 || !(max_tests >= 0.0))
        usage("bad --repeat or --max-tests");

    double *rows;
    size_t n;
    char err[512];
    if (npy_read_rows4(path, &rows, &n, err, sizeof err) != 0) {
        fprintf(stderr, "hashgrid_pairs: %s\n", err);
        return 1;
    }
    sc_options o = sc_options_default();
    o.algorithm = SC_ALGO_HASHGRID;
    o.threads = 1;
    o.kernel = SC_KERNEL_SCALAR;
    o.pin = SC_PIN_NONE;
    o.hashgrid.max_tests = max_tests > 0.0 ? max_tests : INFINITY;
    sc_context *ctx = NULL;
    double *times = malloc((size_t)repeats * sizeof *times);
    int rc = 1;
    if (!times || sc_context_create(&o, &ctx) != SC_OK)
        goto done;
    const sc_spheres view = sc_spheres_rows_f64(n, 3, rows);
    sc_summary first = {0, 0};
    for (int r = 0; r < repeats; r++) {
        sc_summary s;
        double t0 = runner_now();
        sc_status st = sc_count_pairs(ctx, &view, &s);
        times[r] = runner_now() - t0;
        if (st == SC_ERR_TOO_COSTLY) {
            printf("refused: the grid predicts more than --max-tests %.3g tests\n", max_tests);
            rc = 3;
            goto done;
        }
        if (st != SC_OK) {
            fprintf(stderr, "hashgrid_pairs: %s\n", sc_status_string(st));
            goto done;
        }
        if (r == 0) {
            first = s;
        } else if (s.pairs != first.pairs || s.checksum != first.checksum) {
            fprintf(stderr, "hashgrid_pairs: repeat %d disagrees with repeat 0\n", r);
            goto done;
        }
    }
    sc_stats stats = {.size = sizeof stats};
    sc_context_stats(ctx, &stats);
    fprintf(stderr, "hashgrid_pairs: n=%zu, cell %.6g, %llu cells, %llu tests\n", n,
            stats.cell_size, (unsigned long long)stats.cells,
            (unsigned long long)stats.candidate_tests);
    runner_print_result(first.pairs, first.checksum, times, repeats, 1);
    rc = 0;
done:
    sc_context_destroy(ctx);
    free(times);
    free(rows);
    return rc;
}
