/* mpi_cli.c: spherecollide-mpi, the pair search of a file over MPI ranks.
 *
 *   mpiexec -n P spherecollide-mpi pairs FILE [options]
 *
 * Every rank opens FILE with the serial tool's reader (a .npy or raw file
 * is mapped, so a rank touches only its own slice of rows; an HDF5 file's
 * rank reads its slice's hyperslab alone; a text file is parsed whole by
 * every rank) and passes rows [n r / P, n (r+1) / P)
 * to sc_mpi_count_pairs with global id = row, so the count and checksum
 * equal `spherecollide pairs FILE`. With -o the pairs go into one .npy or
 * .bin file in the serial tool's format, written with MPI-IO (each rank its
 * share at its offset, rank 0 the header), or into one file per rank when
 * the name holds %r. Outputs are written under a temporary name and renamed
 * when every rank has written its share: a failure leaves nothing behind.
 * docs/mpi.md ("The tool") has the options and the exit codes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sc_io.h"
#include "spherecollide_mpi.h"

static int rank, ranks;

typedef struct cli {
    const char *input, *output, *dataset;
    sc_io_format format;
    int dims, threads, json;
    sc_mpi_layout layout;
} cli;

static void usage_line(void) {
    if (rank == 0)
        fprintf(stderr, "usage: spherecollide-mpi pairs FILE [--2d] [--input-format F] "
                        "[--dataset D] [--threads T] [--layout rcb|caller] [-o OUT.npy|OUT.bin] "
                        "[--json]\n");
}

/* Parses the command line; returns an exit code (0: go on). Every rank
 * parses the same arguments, so every rank decides the same. */
static int parse(int argc, char **argv, cli *c) {
    *c = (cli){.layout = SC_MPI_LAYOUT_RCB, .threads = 1};
    if (argc < 3 || strcmp(argv[1], "pairs") != 0) {
        usage_line();
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (strcmp(k, "--2d") == 0) {
            c->dims = 2;
        } else if (strcmp(k, "--json") == 0) {
            c->json = 1;
        } else if (k[0] == '-' && k[1] != '\0' && !v) {
            if (rank == 0)
                fprintf(stderr, "spherecollide-mpi: %s needs a value\n", k);
            return 2;
        } else if (strcmp(k, "-o") == 0) {
            c->output = v, i++;
        } else if (strcmp(k, "--dataset") == 0) {
            c->dataset = v, i++;
        } else if (strcmp(k, "--input-format") == 0) {
            if (sc_io_format_parse(v, &c->format) != 0) {
                if (rank == 0)
                    fprintf(stderr, "spherecollide-mpi: --input-format: unknown format '%s'\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(k, "--threads") == 0) {
            long t = strtol(v, &end, 10);
            if (*end || t < 0 || t > 4096) {
                if (rank == 0)
                    fprintf(stderr, "spherecollide-mpi: --threads: '%s' is not 0 .. 4096\n", v);
                return 2;
            }
            c->threads = (int)t, i++;
        } else if (strcmp(k, "--layout") == 0) {
            if (strcmp(v, "rcb") != 0 && strcmp(v, "caller") != 0) {
                if (rank == 0)
                    fprintf(stderr, "spherecollide-mpi: --layout: '%s' is not rcb or caller\n", v);
                return 2;
            }
            c->layout = strcmp(v, "rcb") == 0 ? SC_MPI_LAYOUT_RCB : SC_MPI_LAYOUT_CALLER, i++;
        } else if (k[0] == '-' && k[1] != '\0') {
            if (rank == 0)
                fprintf(stderr, "spherecollide-mpi: unknown option '%s'\n", k);
            return 2;
        } else if (!c->input) {
            c->input = k;
        } else {
            usage_line();
            return 2;
        }
    }
    if (!c->input) {
        usage_line();
        return 2;
    }
    if (strcmp(c->input, "-") == 0) { /* mpiexec gives standard input to rank 0 only */
        if (rank == 0)
            fprintf(stderr, "spherecollide-mpi: standard input reaches one rank only; give a file "
                            "every rank can open\n");
        return 2;
    }
    if (c->output && !strstr(c->output, "%r")) {
        sc_io_format f = sc_io_pairs_format_for_path(c->output);
        if (f != SC_IO_FORMAT_NPY && f != SC_IO_FORMAT_BIN) {
            if (rank == 0)
                fprintf(stderr, "spherecollide-mpi: %s: pairs are written as .npy or .bin\n",
                        c->output);
            return 2;
        }
    }
    return 0;
}

/* ---- output --------------------------------------------------------------- */

/* One output file: its final name, the temporary one, the MPI file. */
typedef struct out_file {
    char path[4096], temp[4200];
    MPI_Comm comm; /* every rank (one file) or this rank alone (%r) */
    MPI_File fh;
    int npy;
} out_file;

/* The path with %r replaced by this rank's number. */
static void rank_path(const char *pattern, char *out, size_t cap) {
    const char *at = strstr(pattern, "%r");
    if (!at) {
        snprintf(out, cap, "%s", pattern);
        return;
    }
    snprintf(out, cap, "%.*s%d%s", (int)(at - pattern), pattern, rank, at + 2);
}

/* Opens the temporary file before any work, so a missing directory fails
 * at once. Collective on o->comm. */
static int open_output(const cli *c, out_file *o) {
    int per_rank = strstr(c->output, "%r") != NULL;
    o->comm = per_rank ? MPI_COMM_SELF : MPI_COMM_WORLD;
    rank_path(c->output, o->path, sizeof o->path);
    o->npy = sc_io_pairs_format_for_path(o->path) == SC_IO_FORMAT_NPY;
    o->fh = MPI_FILE_NULL;
    long id = (long)getpid();
    if (!per_rank)
        MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(o->temp, sizeof o->temp, "%s.tmp-%ld", o->path, id);
    int rc =
        MPI_File_open(o->comm, o->temp, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &o->fh);
    return rc == MPI_SUCCESS;
}

/* Writes this rank's pairs (as uint32, little-endian) at its offset. */
static int write_pairs(out_file *o, const uint32_t *pairs, uint64_t count) {
    uint64_t before = 0, total = count;
    if (o->comm == MPI_COMM_WORLD) {
        MPI_Exscan(&count, &before, 1, MPI_UINT64_T, MPI_SUM, o->comm);
        if (rank == 0)
            before = 0;
        MPI_Allreduce(&count, &total, 1, MPI_UINT64_T, MPI_SUM, o->comm);
    }
    unsigned char header[SC_IO_PAIRS_NPY_HEADER]; /* the serial writer's own bytes */
    size_t hlen = o->npy ? sizeof header : 0;
    if (o->npy)
        sc_io_pairs_npy_header(header, total);
    int ok = 1, me;
    MPI_Comm_rank(o->comm, &me);
    if (hlen && me == 0)
        ok &= MPI_File_write_at(o->fh, 0, header, (int)hlen, MPI_BYTE, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS;
    /* in pieces below 2^31 bytes (MPI counts are int) */
    const size_t piece = (size_t)1 << 28;
    uint64_t values = 2 * count, done = 0;
    int rounds = (int)((values + piece - 1) / piece), most = rounds;
    if (o->comm == MPI_COMM_WORLD)
        MPI_Allreduce(&rounds, &most, 1, MPI_INT, MPI_MAX, o->comm);
    for (int r = 0; r < most; r++) {
        size_t n = values - done < piece ? (size_t)(values - done) : piece;
        MPI_Offset at = (MPI_Offset)(hlen + 8 * before + 4 * done);
        ok &= MPI_File_write_at_all(o->fh, at, pairs + done, (int)n, MPI_UINT32_T,
                                    MPI_STATUS_IGNORE) == MPI_SUCCESS;
        done += n;
    }
    return ok;
}

/* Closes the file, and renames it to its name when every rank of its
 * communicator wrote its part (else removes it). */
static int close_output(out_file *o, int ok) {
    int all = ok && o->fh != MPI_FILE_NULL;
    if (o->fh != MPI_FILE_NULL)
        MPI_File_close(&o->fh);
    ok = all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, o->comm);
    int me;
    MPI_Comm_rank(o->comm, &me);
    if (me == 0) {
        if (all && rename(o->temp, o->path) != 0)
            all = 0;
        if (!all)
            unlink(o->temp);
    }
    MPI_Bcast(&all, 1, MPI_INT, 0, o->comm);
    return all;
}

/* ---- the run ------------------------------------------------------------------ */

static int agree_code(int code) {
    int worst = code;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* rank 0 prints its JSON with every rank's statistics */
static void print_json(const cli *c, const sc_io_spheres *s, const sc_summary *sum,
                       const sc_mpi_stats *st, double seconds, size_t rows_read) {
    double mine[11] = {(double)st->owned,         (double)st->ghosts,
                       (double)st->pairs,         (double)st->bytes_sent,
                       (double)st->messages_sent, (double)st->candidate_tests},
           *all = rank == 0 ? malloc((size_t)ranks * sizeof mine) : NULL;
    for (int k = 0; k < 4; k++)
        mine[6 + k] = st->seconds[k];
    mine[10] = (double)rows_read;
    MPI_Gather(mine, 11, MPI_DOUBLE, all, 11, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    printf("{\"command\":\"pairs\",\"input\":\"%s\",\"input_format\":\"%s\",\"dims\":%d,"
           "\"dtype\":\"%s\",\"n\":%zu,\"ranks\":%d,\"threads\":%d,\"layout\":\"%s\","
           "\"pairs\":%" PRIu64 ",\"checksum\":\"0x%016" PRIx64 "\",\"giants\":%" PRIu64
           ",\"output\":%s%s%s,\"seconds\":%.9g,\"per_rank\":[",
           c->input, sc_io_format_name(s->format), s->dims,
           s->dtype == SC_F64 ? "float64" : "float32", s->total, ranks, st->threads,
           c->layout == SC_MPI_LAYOUT_RCB ? "rcb" : "caller", sum->pairs, sum->checksum, st->giants,
           c->output ? "\"" : "", c->output ? c->output : "null", c->output ? "\"" : "", seconds);
    for (int r = 0; r < ranks; r++) {
        const double *v = all + 11 * r;
        printf("%s{\"rank\":%d,\"rows_read\":%.0f,\"owned\":%.0f,\"ghosts\":%.0f,\"pairs\":%.0f,"
               "\"bytes_sent\":%.0f,\"messages_sent\":%.0f,\"candidate_tests\":%.0f,"
               "\"seconds\":{\"check\":%.6g,\"layout\":%.6g,\"ghosts\":%.6g,\"search\":%.6g}}",
               r ? "," : "", r, v[10], v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
    }
    printf("]}\n");
    free(all);
}

/* A bad value: rank 0 words it as the serial tool does (the reader's own
 * check, on the whole file: only on this error path). */
static int value_error(const cli *c, const sc_io_spheres *s, const char *message) {
    if (rank == 0) {
        char err[512];
        sc_io_status st = sc_io_check_spheres(c->input, s, err, sizeof err);
        if (st != SC_IO_OK)
            fprintf(stderr, "spherecollide-mpi: %s\n", err);
        else
            fprintf(stderr, "spherecollide-mpi: %s: %s\n", c->input, message);
    }
    return 5;
}

static int run(const cli *c) {
    double t0 = MPI_Wtime();
    sc_io_read_options ro = {.format = c->format,
                             .dims = c->dims,
                             .defer_value_check = 1,
                             .dataset = c->dataset,
                             .threads = 1};
    sc_io_spheres s;
    char err[512];
    sc_io_status io =
        sc_io_read_spheres_slice(c->input, &ro, (size_t)rank, (size_t)ranks, &s, err, sizeof err);
    int code = agree_code(io == SC_IO_OK ? 0 : sc_io_exit_code(io));
    if (code) { /* the first failing rank words it (a slice's bad row is its own) */
        int mine = io != SC_IO_OK ? rank : ranks, speaker = ranks;
        MPI_Allreduce(&mine, &speaker, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (rank == speaker)
            fprintf(stderr, "spherecollide-mpi: %s\n", err);
        sc_io_spheres_free(&s);
        return code;
    }
    /* every rank must have read the same file (a path that differs
     * between nodes, a file changed while ranks opened it) */
    /* signed: MIN and MAX on unsigned types were wrong in MPICH 4.0.2 and
     * in OpenMPI 4.1.2-4.1.4 (src/mpi/mpi.c, min_u64x2); a count fits */
    long long n = (long long)s.total, lo = 0, hi = 0;
    MPI_Allreduce(&n, &lo, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&n, &hi, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi) {
        if (rank == 0)
            fprintf(stderr,
                    "spherecollide-mpi: %s: the ranks read %lld to %lld spheres; every "
                    "rank must see the same file\n",
                    c->input, lo, hi);
        sc_io_spheres_free(&s);
        return 3;
    }
    out_file o = {.fh = MPI_FILE_NULL};
    if (c->output) {
        code = agree_code(open_output(c, &o) ? 0 : 6);
        if (code) {
            if (rank == 0)
                fprintf(stderr, "spherecollide-mpi: %s: cannot create the output\n", c->output);
            close_output(&o, 0);
            sc_io_spheres_free(&s);
            return code;
        }
    }
    /* this rank's rows: the slice the reader gave, or its share of all */
    size_t first = s.total * (size_t)rank / (size_t)ranks,
           last = s.total * ((size_t)rank + 1) / (size_t)ranks, width = (size_t)s.dims + 1;
    size_t elem = s.dtype == SC_F64 ? sizeof(double) : sizeof(float);
    size_t skip = s.n == s.total ? first : 0; /* a slice starts at its own first row */
    const char *base = s.rows ? (const char *)s.rows + skip * width * elem : NULL;
    /* the rows this rank's reader parsed (text, a slice) or touched (a
     * mapped .npy or raw file: its share) */
    int mapped = s.format == SC_IO_FORMAT_NPY || s.format == SC_IO_FORMAT_F32 ||
                 s.format == SC_IO_FORMAT_F64;
    size_t rows_read = mapped ? last - first : s.n;
    sc_spheres v = s.dtype == SC_F64
                       ? sc_spheres_rows_f64(last - first, s.dims, (const double *)base)
                       : sc_spheres_rows_f32(last - first, s.dims, (const float *)base);
    sc_mpi_options mo = sc_mpi_options_default();
    mo.layout = c->layout;
    mo.search.threads = c->threads;
    sc_mpi_context *ctx = NULL;
    sc_status st = sc_mpi_context_create(MPI_COMM_WORLD, &mo, &ctx);
    sc_summary sum = {0};
    uint64_t *pairs = NULL;
    size_t need = 0;
    if (st == SC_OK && !c->output)
        st = sc_mpi_count_pairs(ctx, &v, NULL, &sum);
    if (st == SC_OK && c->output) {
        st = sc_mpi_fill_pairs(ctx, &v, NULL, NULL, 0, &need, &sum);
        int alloc_ok = 1;
        if (st == SC_ERR_BUFFER_TOO_SMALL || st == SC_OK) {
            pairs = malloc(2 * (need ? need : 1) * sizeof *pairs);
            alloc_ok = agree_code(pairs ? 0 : 7) == 0;
            st = alloc_ok ? sc_mpi_fill_pairs(ctx, &v, NULL, pairs, need, &need, &sum)
                          : SC_ERR_OUT_OF_MEMORY;
        }
    }
    int ok = 1;
    if (c->output) {
        if (st == SC_OK) { /* ids are rows, below 2^32: the serial '<u4' */
            uint32_t *p32 = (uint32_t *)pairs;
            for (size_t k = 0; k < 2 * need; k++)
                p32[k] = (uint32_t)pairs[k];
            ok = write_pairs(&o, p32, need);
        }
        ok = close_output(&o, st == SC_OK && ok);
        if (st == SC_OK && !ok) {
            if (rank == 0)
                fprintf(stderr, "spherecollide-mpi: %s: cannot write the output\n", c->output);
            code = 6;
        }
    }
    free(pairs);
    if (st != SC_OK) {
        if (st == SC_ERR_NON_FINITE || st == SC_ERR_NEGATIVE_RADIUS || st == SC_ERR_OUT_OF_RANGE)
            code = value_error(c, &s, sc_mpi_message(ctx));
        else {
            if (rank == 0)
                fprintf(stderr, "spherecollide-mpi: %s: %s\n", c->input,
                        ctx ? sc_mpi_message(ctx) : sc_status_string(st));
            code = st == SC_ERR_OUT_OF_MEMORY ? 7 : 1;
        }
    }
    if (code == 0) {
        sc_mpi_stats stats = {.size = sizeof stats};
        sc_mpi_stats_get(ctx, &stats);
        double seconds = MPI_Wtime() - t0;
        if (c->json)
            print_json(c, &s, &sum, &stats, seconds, rows_read);
        else if (rank == 0)
            printf("input            %s (%s, %s, %d-D)\nn                %zu\nranks            %d\n"
                   "pairs            %" PRIu64 "\nchecksum         0x%016" PRIx64 "\n"
                   "seconds          %.6f\n",
                   c->input, sc_io_format_name(s.format), s.dtype == SC_F64 ? "float64" : "float32",
                   s.dims, s.total, ranks, sum.pairs, sum.checksum, seconds);
    }
    sc_mpi_context_destroy(ctx);
    sc_io_spheres_free(&s);
    return code;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    cli c;
    int code = parse(argc, argv, &c);
    if (code == 0)
        code = run(&c);
    fflush(stdout);
    MPI_Finalize();
    return code;
}
