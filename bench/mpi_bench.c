/* mpi_bench.c: the distributed pair search's costs, run under mpiexec.
 *
 *   mpiexec -n P mpi_bench --dist NAME --n N [--threads T] [--rounds R]
 *                          [--layout rcb|caller] [--weight cost|count] [--slabs]
 *                          [--direct | --direct-ids | --direct-scan | --direct-move]
 *                          [--label TEXT]
 *
 * Every rank generates the whole set (sc_gen, seed 3) and keeps a block of
 * rows (for these generators, spheres from all over the domain: the RCB
 * layout moves them), or with --slabs the rows whose x lies in its slab of
 * P equal slabs, with their row numbers as ids (spheres already placed, as
 * a simulation code holds them; the layout column then ends in -slabs). Each round times sc_mpi_count_pairs (the slowest
 * rank's wall time) and the CPU seconds all ranks spent in it; with
 * --direct rounds alternate with sc_count_pairs on each rank's own view
 * and options, every rank at once (direct_median_s: the slowest rank's,
 * so with --slabs the library alone on the ranks' shares, without the
 * layer), and with --direct-ids with the floor of reporting pairs by
 * global id without the library's help: sc_stream_pairs on the rank's
 * spheres copied into 40-byte records (x, y, z, r, id) and a callback
 * that reads both ends' ids, asked for 32 pairs ahead, as the layer's
 * filter does; with --direct-scan with that floor plus the one read of
 * every owned sphere that any exact layer makes before it can send a
 * ghost (any sphere may lie near another rank's region): the rank's rows
 * scanned for their extent and largest radius, agreed over the ranks in
 * one MPI_Iallreduce; with --direct-move (rows, not --slabs) with the
 * floor of any exact layer on spheres that lie all over the domain: each
 * rank packs its rows into 40-byte records by x slab, one alltoallv sends
 * each slab's to its rank, and the id-reading stream above runs on what
 * arrived (no check, no cuts, no ghosts: a lower bound, pairs across
 * slabs are not found). Rank 0 prints one CSV line (no header unless --header):
 *
 *   label,ranks,threads,dist,n,layout,median_s,direct_median_s,cpu_s,
 *   halo_fraction,bytes_per_rank,tests_max_over_mean,giants,pairs,checksum,
 *   direct_cpu_s
 *
 * medians over rounds after the first (which counts the context's growth);
 * cpu_s is the median of the summed CPU seconds (direct_cpu_s the same
 * for the direct rounds, 0 without); halo_fraction the ghosts
 * over all ranks / n; bytes_per_rank the mean bytes sent; tests the local
 * searches' candidate tests, most loaded rank over the mean. With
 * SC_MPI_BENCH_PHASES set, rank 0 prints each round's wall, CPU and its
 * phases to stderr (the first rounds grow the context), and every rank
 * its last call's phases. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "sc_gen.h"
#include "spherecollide_mpi.h"

static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct args {
    const char *dist, *label;
    size_t n;
    int threads, rounds, direct, header; /* direct: 1 count, 2 ids, 3 move, 4 scan */
    sc_mpi_layout layout;
    sc_mpi_weight weight;
    int slabs;
} args;

static int parse(int argc, char **argv, args *a) {
    *a = (args){"uniform", "-", 1000000, 1, 7, 0, 0, SC_MPI_LAYOUT_RCB, SC_MPI_WEIGHT_COST, 0};
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(k, "--direct") == 0)
            a->direct = 1;
        else if (strcmp(k, "--direct-ids") == 0)
            a->direct = 2;
        else if (strcmp(k, "--direct-move") == 0)
            a->direct = 3;
        else if (strcmp(k, "--direct-scan") == 0)
            a->direct = 4;
        else if (strcmp(k, "--header") == 0)
            a->header = 1;
        else if (strcmp(k, "--slabs") == 0)
            a->slabs = 1;
        else if (!v)
            return -1;
        else if (strcmp(k, "--dist") == 0)
            a->dist = v, i++;
        else if (strcmp(k, "--label") == 0)
            a->label = v, i++;
        else if (strcmp(k, "--n") == 0 && bench_parse_size(v, &a->n) == 0)
            i++;
        else if (strcmp(k, "--threads") == 0)
            a->threads = atoi(v), i++;
        else if (strcmp(k, "--rounds") == 0)
            a->rounds = atoi(v), i++;
        else if (strcmp(k, "--weight") == 0)
            a->weight = strcmp(v, "count") == 0 ? SC_MPI_WEIGHT_COUNT : SC_MPI_WEIGHT_COST, i++;
        else if (strcmp(k, "--layout") == 0)
            a->layout = strcmp(v, "caller") == 0 ? SC_MPI_LAYOUT_CALLER : SC_MPI_LAYOUT_RCB, i++;
        else
            return -1;
    }
    return a->rounds >= 2 && !(a->direct == 3 && a->slabs) ? 0 : -1;
}

/* --direct-ids: the rank's spheres as the layer holds them, and a pair
 * callback that reads both ends' ids as its filter does. */
typedef struct record {
    double x, y, z, r;
    uint64_t id;
} record;

typedef struct id_reads {
    const record *at;
    uint64_t sum;
} id_reads;

/* --direct-move: the rank's rows packed by x slab into out (counts and
 * displacements per rank), sent, and received into in; returns the
 * records received. */
typedef struct mover {
    double lo, w;
    int *counts, *displs, *rcounts, *rdispls;
    record *out, *in;
    MPI_Datatype type;
} mover;

/* The floors' collectives wait as the layer's do (src/mpi/wait.c): a
 * blocking one polls until every rank arrives, which where ranks outnumber
 * cores burns the core the late rank needs and would charge the floor CPU
 * the layer does not spend. Tests for 50 us and as long as `bytes` take
 * to move at 8 GB/s (a transfer may progress only inside MPI calls), then
 * sleeps a sixteenth of the time waited so far between tests (10 us to
 * 1 ms). */
static void polite_wait(MPI_Request *request, double bytes) {
    int done = 0;
    double start = MPI_Wtime(), waited = 0;
    while (MPI_Test(request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) {
        waited = MPI_Wtime() - start;
        if (waited < 50e-6 + bytes / 8e9)
            continue;
        double nap = waited / 16 < 10e-6 ? 10e-6 : waited / 16 > 1e-3 ? 1e-3 : waited / 16;
        struct timespec t = {0, (long)(nap * 1e9)};
        nanosleep(&t, NULL);
    }
}

static size_t move_rows(mover *m, const sc_spheres *mine, uint64_t first, int ranks) {
    const double *rows = mine->x;
    memset(m->counts, 0, (size_t)ranks * sizeof *m->counts);
    for (size_t i = 0; i < mine->count; i++) {
        int d = (int)((rows[4 * i] - m->lo) / m->w);
        m->counts[d < ranks ? d : ranks - 1]++;
    }
    MPI_Request q;
    MPI_Ialltoall(m->counts, 1, MPI_INT, m->rcounts, 1, MPI_INT, MPI_COMM_WORLD, &q);
    polite_wait(&q, 0);
    int out = 0, in = 0;
    for (int r = 0; r < ranks; r++) {
        m->displs[r] = out, out += m->counts[r];
        m->rdispls[r] = in, in += m->rcounts[r];
        m->counts[r] = m->displs[r]; /* the next free place, while packing */
    }
    for (size_t i = 0; i < mine->count; i++) {
        const double *row = rows + 4 * i;
        int d = (int)((row[0] - m->lo) / m->w);
        d = d < ranks ? d : ranks - 1;
        m->out[m->counts[d]++] = (record){row[0], row[1], row[2], row[3], first + i};
    }
    for (int r = 0; r < ranks; r++)
        m->counts[r] -= m->displs[r];
    MPI_Ialltoallv(m->out, m->counts, m->displs, m->type, m->in, m->rcounts, m->rdispls, m->type,
                   MPI_COMM_WORLD, &q);
    polite_wait(&q, (double)(mine->count + (size_t)in) * sizeof(record));
    return (size_t)in;
}

static int read_ids(const uint32_t *p, size_t count, void *user) {
    id_reads *u = user;
    for (size_t k = 0; k < count; k++) {
        if (k + 32 < count) {
            __builtin_prefetch(&u->at[p[2 * (k + 32)]].id);
            __builtin_prefetch(&u->at[p[2 * (k + 32) + 1]].id);
        }
        u->sum += u->at[p[2 * k]].id * 0x9E3779B97F4A7C15ull ^ u->at[p[2 * k + 1]].id;
    }
    return 0;
}

/* --direct-scan: the read every exact layer makes of its owned spheres
 * before any ghost can go: the rows' extent and largest radius (a NaN
 * anywhere makes the sum NaN), agreed over the ranks; returns a value of
 * them (kept, so the reads are not dropped). */
static double scan_rows(const sc_spheres *mine) {
    const double *rows = mine->x;
    double e[7] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, 0}, all[7];
    int bad = 0;
    for (size_t i = 0; i < mine->count; i++) {
        const double *row = rows + 4 * i;
        for (int a = 0; a < 3; a++) {
            e[a] = row[a] > e[a] ? row[a] : e[a];
            e[3 + a] = -row[a] > e[3 + a] ? -row[a] : e[3 + a];
        }
        e[6] = row[3] > e[6] ? row[3] : e[6];
        bad |= (row[0] != row[0]) | (row[1] != row[1]) | (row[2] != row[2]) | (row[3] != row[3]);
    }
    e[6] += bad ? NAN : 0.0;
    MPI_Request q;
    MPI_Iallreduce(e, all, 7, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &q);
    polite_wait(&q, 0);
    return all[0] + all[1] + all[2] + all[3] + all[4] + all[5] + all[6];
}

/* The P equal slabs of all n rows' x extent: the lowest x and the width. */
static void x_slabs(const double *rows, size_t n, int ranks, double *lo, double *w) {
    double l = INFINITY, h = -INFINITY;
    for (size_t i = 0; i < n; i++)
        l = fmin(l, rows[4 * i]), h = fmax(h, rows[4 * i]);
    *lo = l, *w = (h - l) / ranks;
}

/* --slabs: moves the rows whose x lies in this rank's slab of the P equal
 * slabs to the front of rows, *mine their view; returns their ids (the
 * rows' numbers). */
static uint64_t *to_slab(double *rows, size_t n, int rank, int ranks, sc_spheres *mine) {
    double lo, w;
    x_slabs(rows, n, ranks, &lo, &w);
    size_t k = 0;
    uint64_t *ids = malloc(n * sizeof *ids + 8);
    if (!ids)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t i = 0; i < n; i++) {
        int r = (int)((rows[4 * i] - lo) / w);
        if ((r < ranks ? r : ranks - 1) == rank) {
            memmove(rows + 4 * k, rows + 4 * i, 4 * sizeof *rows);
            ids[k++] = i;
        }
    }
    *mine = sc_spheres_rows_f64(k, 3, rows);
    return ids;
}

/* --direct-move's slabs (the x extent of all n rows cut in P) and
 * buffers: out the rank's own records, in room for every row (what
 * arrives is not known ahead). */
static void mover_init(mover *m, const double *rows, size_t n, int ranks, record *out) {
    x_slabs(rows, n, ranks, &m->lo, &m->w);
    m->counts = malloc(4 * (size_t)ranks * sizeof(int));
    m->in = malloc(n * sizeof *m->in + 1);
    if (!m->counts || !m->in)
        MPI_Abort(MPI_COMM_WORLD, 2);
    m->displs = m->counts + ranks, m->rcounts = m->counts + 2 * ranks;
    m->rdispls = m->counts + 3 * ranks, m->out = out;
    MPI_Type_contiguous((int)sizeof(record), MPI_BYTE, &m->type);
    MPI_Type_commit(&m->type);
}

/* One --direct-move round: the move, then the id-reading stream on what
 * arrived; returns the reads' sum (kept, so the reads are not dropped). */
static uint64_t moved_stream(sc_context *direct, mover *m, const sc_spheres *mine, uint64_t first,
                             int ranks) {
    size_t got = move_rows(m, mine, first, ranks);
    sc_spheres moved = {got, SC_F64, sizeof(record), &m->in->x, &m->in->y, &m->in->z, &m->in->r, 0};
    id_reads reads = {m->in, 0};
    sc_summary ds;
    sc_stream_pairs(direct, &moved, read_ids, &reads, &ds);
    return reads.sum;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    args a;
    if (parse(argc, argv, &a) != 0) {
        if (rank == 0)
            fprintf(
                stderr,
                "usage: mpi_bench --dist NAME --n N [--threads T] [--rounds R (>= 2)] "
                "[--layout rcb|caller] [--weight cost|count] [--slabs] [--direct | --direct-ids | "
                "--direct-scan | --direct-move (without --slabs)] [--label TEXT] [--header]\n");
        MPI_Finalize();
        return 2;
    }
    double *rows = malloc(4 * a.n * sizeof *rows + 32);
    if (!rows || sc_gen_generate(a.dist, a.n, 3, rows) != 0) {
        fprintf(stderr, "mpi_bench: cannot generate %s %zu\n", a.dist, a.n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t first = a.n * (size_t)rank / (size_t)ranks,
           last = a.n * (size_t)(rank + 1) / (size_t)ranks;
    sc_spheres mine = sc_spheres_rows_f64(last - first, 3, rows + 4 * first);
    uint64_t *ids = a.slabs ? to_slab(rows, a.n, rank, ranks, &mine) : NULL;
    sc_mpi_options o = sc_mpi_options_default();
    o.search.threads = a.threads;
    o.layout = a.layout;
    o.weight = a.weight;
    if (getenv("SC_MPI_BENCH_NOPIN"))
        o.search.pin = SC_PIN_NONE;
    sc_mpi_context *ctx = NULL;
    sc_context *direct = NULL;
    if (sc_mpi_context_create(MPI_COMM_WORLD, &o, &ctx) != SC_OK ||
        (a.direct && sc_context_create(&o.search, &direct) != SC_OK)) {
        fprintf(stderr, "mpi_bench: no context\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    record *recs = a.direct >= 2 ? malloc(mine.count * sizeof *recs + 1) : NULL;
    if (a.direct >= 2 && !recs)
        MPI_Abort(MPI_COMM_WORLD, 2);
    mover move = {0};
    if (a.direct == 3)
        mover_init(&move, rows, a.n, ranks, recs);
    for (size_t i = 0; (a.direct == 2 || a.direct == 4) && i < mine.count; i++) {
        const double *row = (const double *)mine.x + 4 * i;
        recs[i] = (record){row[0], row[1], row[2], row[3], ids ? ids[i] : first + i};
    }
    sc_spheres as_records = {mine.count,
                             SC_F64,
                             sizeof(record),
                             recs ? &recs->x : NULL,
                             recs ? &recs->y : NULL,
                             recs ? &recs->z : NULL,
                             recs ? &recs->r : NULL,
                             0};
    id_reads reads = {recs, 0};
    double *wall = calloc((size_t)a.rounds, sizeof *wall),
           *dwall = calloc((size_t)a.rounds, sizeof *dwall),
           *dcpu = calloc((size_t)a.rounds, sizeof *dcpu),
           *cpu = calloc((size_t)a.rounds, sizeof *cpu);
    sc_summary sum = {0, 0};
    sc_mpi_stats st = {.size = sizeof st};
    for (int r = 0; r < a.rounds; r++) {
        if (direct) { /* alternating: the library called directly, then over MPI */
            sc_summary ds;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = bench_now_s(), c0 = cpu_now();
            if (a.direct == 3)
                reads.sum += moved_stream(direct, &move, &mine, first, ranks);
            else if (a.direct == 2 || a.direct == 4) {
                if (a.direct == 4)
                    reads.sum += scan_rows(&mine) > 0;
                sc_stream_pairs(direct, &as_records, read_ids, &reads, &ds);
            } else
                sc_count_pairs(direct, &mine, &ds);
            double d = bench_now_s() - t0, dc = cpu_now() - c0;
            MPI_Reduce(&d, &dwall[r], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            MPI_Reduce(&dc, &dcpu[r], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = bench_now_s(), c0 = cpu_now();
        sc_status s = sc_mpi_count_pairs(ctx, &mine, ids, &sum);
        double mine_wall = bench_now_s() - t0, mine_cpu = cpu_now() - c0;
        if (s != SC_OK) {
            fprintf(stderr, "mpi_bench: %s\n", sc_mpi_message(ctx));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Reduce(&mine_wall, &wall[r], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&mine_cpu, &cpu[r], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0 && getenv("SC_MPI_BENCH_PHASES") && sc_mpi_stats_get(ctx, &st) == SC_OK)
            fprintf(stderr, /* each round: the first rounds grow the context */
                    "round %d: %.4f s, cpu %.4f s; rank 0: check %.4f layout %.4f ghosts %.4f "
                    "search %.4f\n",
                    r, wall[r], cpu[r], st.seconds[0], st.seconds[1], st.seconds[2], st.seconds[3]);
    }
    sc_mpi_stats_get(ctx, &st);
    double ghosts = (double)st.ghosts, all_ghosts = 0, bytes = (double)st.bytes_sent, all_bytes = 0;
    double tests = (double)st.candidate_tests, tests_sum = 0, tests_max = 0;
    MPI_Reduce(&ghosts, &all_ghosts, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bytes, &all_bytes, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&tests, &tests_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&tests, &tests_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (getenv("SC_MPI_BENCH_PHASES")) /* each rank's last call, by phase */
        fprintf(stderr,
                "rank %d: check %.4f layout %.4f ghosts %.4f search %.4f reduce %.4f s; owned %llu "
                "ghosts %llu tests %llu\n",
                rank, st.seconds[0], st.seconds[1], st.seconds[2], st.seconds[3], st.seconds[4],
                (unsigned long long)st.owned, (unsigned long long)st.ghosts,
                (unsigned long long)st.candidate_tests);
    if (rank == 0) {
        if (a.header)
            printf("label,ranks,threads,dist,n,layout,median_s,direct_median_s,cpu_s,halo_fraction,"
                   "bytes_per_rank,tests_max_over_mean,giants,pairs,checksum,direct_cpu_s\n");
        double dm = direct ? bench_median(dwall + 1, a.rounds - 1) : 0;
        printf("%s,%d,%d,%s,%zu,%s,%.6f,%.6f,%.6f,%.5f,%.0f,%.4f,%llu,%llu,%016llx,%.6f\n", a.label,
               ranks, a.threads, a.dist, a.n,
               a.layout == SC_MPI_LAYOUT_RCB ? (a.slabs ? "rcb-slabs" : "rcb")
               : a.slabs                     ? "caller-slabs"
                                             : "caller",
               bench_median(wall + 1, a.rounds - 1), dm, bench_median(cpu + 1, a.rounds - 1),
               all_ghosts / (double)a.n, all_bytes / ranks,
               tests_sum > 0 ? tests_max / (tests_sum / ranks) : 0, (unsigned long long)st.giants,
               (unsigned long long)sum.pairs, (unsigned long long)sum.checksum,
               direct ? bench_median(dcpu + 1, a.rounds - 1) : 0.0);
    }
    sc_context_destroy(direct);
    sc_mpi_context_destroy(ctx);
    free(wall);
    free(dwall);
    free(dcpu);
    free(cpu);
    free(rows);
    free(ids);
    free(recs);
    free(move.counts);
    free(move.in);
    if (a.direct == 3)
        MPI_Type_free(&move.type);
    MPI_Finalize();
    return 0;
}
