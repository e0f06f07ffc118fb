/*
 * hashgrid_pairs: runs bench/hashgrid.c (the plain single-threaded hash grid
 * "as a user would write it": cell = 2 r_max, chained hash map of cells,
 * linked lists, 27 neighbour cells, the exact double predicate) on a .npy
 * file, so that it is timed on the same files as the other runners.
 *
 *   hashgrid_pairs FILE.npy [--repeat R] [--max-tests T]
 *
 * Each repeat builds the grid and searches; the file read is not timed.
 * When the grid's occupancy predicts more than T predicate evaluations
 * (default 2e9, the limit sc_bench --baseline uses, some 15 s here; 0: no
 * limit) it prints
 * "refused: ..." and exits 3 without searching: one radius for every cell
 * makes this method quadratic on heavy-tailed radii.
 * Prints the line of runner_util.h. Exit: 0 ok, 1 failure, 2 usage, 3 refused.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashgrid.h"
#include "npy_rows.h"
#include "runner_util.h"

static void usage(const char *msg)
{
    if (msg)
        fprintf(stderr, "hashgrid_pairs: %s\n", msg);
    fprintf(stderr, "usage: hashgrid_pairs FILE.npy [--repeat R] [--max-tests T]\n");
    exit(2);
}

int main(int argc, char **argv)
{
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
    double *times = malloc((size_t)repeats * sizeof *times);
    if (!times) {
        free(rows);
        return 1;
    }
    hashgrid_result first = {0, 0, 0, 0, 0.0, 0.0};
    for (int r = 0; r < repeats; r++) {
        hashgrid_result res;
        double t0 = runner_now();
        int st = hashgrid_count(rows, n, max_tests, &res);
        times[r] = runner_now() - t0;
        if (st == 1) {
            printf("refused: the grid (cell %.6g) predicts %.3g tests > --max-tests %.3g\n",
                   res.cell_size, res.estimated_tests, max_tests);
            free(times);
            free(rows);
            return 3;
        }
        if (st != 0) {
            fprintf(stderr, "hashgrid_pairs: out of memory or cell index overflow\n");
            free(times);
            free(rows);
            return 1;
        }
        if (r == 0) {
            first = res;
        } else if (res.pairs != first.pairs || res.checksum != first.checksum) {
            fprintf(stderr, "hashgrid_pairs: repeat %d disagrees with repeat 0\n", r);
            free(times);
            free(rows);
            return 1;
        }
    }
    fprintf(stderr, "hashgrid_pairs: n=%zu, cell %.6g, %llu cells, %llu tests\n", n,
            first.cell_size, (unsigned long long)first.cells, (unsigned long long)first.tests);
    runner_print_result(first.pairs, first.checksum, times, repeats, 1);
    free(times);
    free(rows);
    return 0;
}
