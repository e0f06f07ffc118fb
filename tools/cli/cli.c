/*
 * cli.c: the spherecollide command-line tool.
 *
 *   spherecollide pairs INPUT [-o OUTPUT] [options]   find every intersecting pair
 *   spherecollide gen DIST N [--seed S] -o FILE        write a generated scenario
 *   spherecollide info [--threads N] [--pin P] [--kernel K]
 *
 * Reading and writing live in sc_io, the scenarios in sc_gen; this file only
 * parses the command line, runs the library and reports. Every failure prints
 * exactly one line "spherecollide: ..." on stderr and exits with a documented
 * code (see usage_exit_codes and docs/cli.md).
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sc_gen.h"
#include "sc_io.h"
#include "options.h"
#include "simulate.h"
#include "spherecollide.h"

/* ---- exit codes (documented in --help and docs/cli.md) -------------------- */

enum {
    EXIT_OK = 0,
    EXIT_INTERNAL = 1,  /* a bug, or the library refused a call it should accept */
    EXIT_USAGE = 2,     /* bad command line */
    EXIT_INPUT = 3,     /* cannot open or read the input file */
    EXIT_MALFORMED = 4, /* parse error, bad .npy header, truncated, count not divisible */
    EXIT_VALUES = 5,    /* NaN/inf, negative radius, out of range, too many spheres */
    EXIT_OUTPUT = 6,    /* cannot write the output */
    EXIT_NOMEM = 7,     /* out of memory */
    EXIT_COSTLY = 8     /* the chosen algorithm refused the input as too costly */
};

static const char usage_exit_codes[] =
    "Exit codes:\n"
    "  0  success\n"
    "  1  internal error\n"
    "  2  usage error (bad command line)\n"
    "  3  cannot open or read the input file\n"
    "  4  malformed input (parse error, bad .npy header, truncated file,\n"
    "     count of numbers not divisible by 4 or 3)\n"
    "  5  invalid values (NaN or infinity, negative radius, |value| > 1e150,\n"
    "     more than 4294967295 spheres)\n"
    "  6  cannot write the output\n"
    "  7  out of memory\n"
    "  8  the chosen --algorithm refused the input as too costly (hashgrid\n"
    "     above --max-tests); another algorithm handles it\n"
    "Every failure prints one line on stderr: \"spherecollide: FILE: PLACE: problem\".\n";

static const char usage_main[] =
    "Usage: spherecollide COMMAND [ARGS]\n"
    "Finds every intersecting pair among spheres (exact, IEEE double predicate).\n"
    "\n"
    "Commands:\n"
    "  pairs INPUT [-o OUTPUT] [options]   find all intersecting pairs\n"
    "  pairs A --against B [options]       pairs between two sets\n"
    "  neighbors INPUT [-o OUTPUT] [--full] [--skin S] [--values V]\n"
    "                                      CSR neighbour list (half or full)\n"
    "  gen DIST N [--seed S] -o FILE       write a generated scenario\n"
    "  info [--threads N] [--pin P] [--kernel K]\n"
    "                                      describe the machine and the kernel\n"
    "  simulate [options]                  elastic balls in a box, frame after frame\n"
    "\n"
    "  spherecollide COMMAND --help        help for a command\n"
    "  spherecollide --version             print the version\n"
    "\n";

static const char usage_pairs[] =
    "Usage: spherecollide pairs INPUT [-o OUTPUT] [options]\n"
    "Reads spheres, finds every pair (i, j), i < j, with\n"
    "(dx*dx + dy*dy) + dz*dz <= (ri + rj)^2 in double, and prints n, the pair\n"
    "count K, the checksum and the seconds per stage.\n"
    "\n"
    "INPUT formats (by extension, or --format):\n"
    "  .npy           NumPy array (N,4) x,y,z,r or (N,3) x,y,r; '<f4' or '<f8', C order\n"
    "  .f32 .f64      raw little-endian rows of 4 values (3 with --2d)\n"
    "  .bin           raw rows; needs --format f32 or --format f64\n"
    "  .dump .lammpstrj  a LAMMPS text dump (also any text starting \"ITEM:\"): a\n"
    "                 snapshot (--frame); columns x|xu|xs|xsu (and y, z), radius\n"
    "                 or diameter, else --radius; its box is --box file\n"
    "  .xyz .extxyz   XYZ: a frame (--frame); element x y z; extended XYZ's\n"
    "                 Properties (radius), Lattice and pbc; else --radius; its\n"
    "                 cell is --box file\n"
    "  .h5 .hdf5      HDF5 (when built with libhdf5-dev): --dataset names the data\n"
    "  anything else  text: one sphere per line (x y z r, or x y r with --2d), or one\n"
    "                 number per line, or a header line naming the columns x, y, z, r\n"
    "                 (any order; other columns skipped); blanks or commas between\n"
    "                 values, any line endings, '#' comments to end of line\n"
    "  -              standard input (text, or --input-format)\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE   write the pairs: .npy (K x 2 uint32), .csv (\"i,j\" lines)\n"
    "                      or .bin (raw little-endian uint32 i, j); other names need\n"
    "                      --format npy|csv|bin; - is standard output (csv). A file\n"
    "                      is written to a temporary file beside it and renamed on\n"
    "                      success; FIFOs and devices are written directly.\n"
    "  --against B         pairs (i, j) between INPUT (i) and B (j); no pairs within\n"
    "                      one set. B's format is its extension's (the input format\n"
    "                      given only for - and .bin); --2d applies to both. The\n"
    "                      smaller set's cells filter the larger.\n"
    "  --box SPEC          periodic boundaries (minimum image; spheres outside the\n"
    "                      box wrap): L (every axis periodic on [0, L)), or one\n"
    "                      entry per axis, comma-separated: L, LO:HI, or - for an\n"
    "                      open axis (e.g. 0:10,0:10,-). Radii up to 5e149, box\n"
    "                      bounds within +-1.25e149 (docs/api.md: Periodic boxes).\n"
    "                      --box file: a LAMMPS dump's box (its pp axes) or an\n"
    "                      extended XYZ file's orthogonal cell (its pbc axes).\n"
    "                      With --against, both sets in the one box (file: INPUT's)\n"
    "  --radius R|T=R,...  LAMMPS dumps and XYZ files without radii: one radius,\n"
    "                      or one per atom type or element (its text)\n"
    "  --dataset D         HDF5: PATH (a 2-D dataset, columns x y z r = 0 1 2 3),\n"
    "                      PATH:X,Y,Z,R (its columns), or PX,PY,PZ,PR (one 1-D\n"
    "                      dataset per column); x y r for --2d\n"
    "  --frame N|last      LAMMPS dumps and XYZ trajectories: the snapshot read\n"
    "                      (0 the first, the default; negative from the end)\n"
    "  --ids               write the atoms' own ids instead of row numbers: a LAMMPS\n"
    "                      dump's id column, an extended XYZ file's id property\n"
    "                      (int64; .npy '<i8', .bin int64, the smaller id first;\n"
    "                      with --against, INPUT's id then B's). Count and checksum\n"
    "                      stay those of the row numbers\n"
    "  --count-only        only count pairs and checksum (memory for the spheres only);\n"
    "                      this is also what happens without -o\n"
    "  --sorted            write pairs in (i, j) lexicographic order\n"
    "  --json              print one line of JSON instead of the table\n"
    "  --threads N         threads (default 0: one per core, less those other\n"
    "                      programs keep busy when a query is short)\n"
    "  --pin none|compact|scatter   thread pinning (default compact)\n"
    "  --kernel auto|scalar|avx2    narrowphase kernel (default auto)\n"
    "  --algorithm A       @ALGORITHMS@: same pairs, other cost\n"
    "                      (docs/algorithms.md)\n"
    "  --max-depth N       octree, kdsplit: deepest split level (1..64)\n"
    "  --leaf-size N       octree, kdsplit (>= 1), bvh (1..4): spheres per leaf\n"
    "  --split median|mean kdsplit: where a node is cut (default median)\n"
    "  --cutoff N          segtree: a node of at most N boxes is scanned (>= 1, 1024)\n"
    "  --max-tests T       hashgrid: refuse (exit 8) inputs whose cells predict more\n"
    "                      than T candidate tests (default 6.9e10 = 2^36; inf: never)\n"
    "  --warm              with --repeat, frame coherence: sap repairs the previous\n"
    "                      run's sweep order by insertion sort, bvh refits its tree\n"
    "  --segment-width mean|max   partition1d: 1.1 x the mean diameter (default)\n"
    "                      or the largest diameter\n"
    "  --format F          f32|f64|text: the INPUT's format; npy|csv|bin: the OUTPUT's\n"
    "                      format (give --format twice for both)\n"
    "  --input-format F    npy|text|csv|lammps|xyz|hdf5|f32|f64: the INPUT's format\n"
    "  --2d                circles: 3 values per row (x, y, r), z = 0\n"
    "  --repeat R          run the count R times on the same context (no -o) and\n"
    "                      report the median run's seconds; the first, cold run (it\n"
    "                      allocates the scratch) is reported as seconds.first\n"
    "  --quiet             no report table, no progress (--json still prints)\n"
    "  -h, --help          this help\n"
    "\n"
    "Progress is shown on stderr when it is a terminal and n >= 1000000.\n"
    "\n";

static const char usage_neighbors[] =
    "Usage: spherecollide neighbors INPUT [-o OUTPUT] [options]\n"
    "Builds the CSR neighbour list of the spheres: row i holds the j with\n"
    "(dx*dx + dy*dy) + dz*dz <= ((ri + rj) + skin)^2 in double, sorted by j; j > i\n"
    "only (a half list) unless --full. Prints n, the pairs, the list's entries and\n"
    "the seconds of its two passes (count, then fill).\n"
    "\n"
    "INPUT: as for pairs (spherecollide pairs --help).\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE   write the list as (i, j) entries, row by row: .npy (M x 2\n"
    "                      uint32), .csv (\"i,j\" lines, \"i,j,value\" with --values)\n"
    "                      or .bin; - is standard output (csv). Without -o only the\n"
    "                      counts are printed (the fill pass still runs)\n"
    "  --full              each pair in both rows (default: half, j > i)\n"
    "  --skin S            list pairs up to S apart (S >= 0, default 0)\n"
    "  --values overlap|distance   a value per entry: (ri + rj) - d or d, in\n"
    "                      double (csv output only)\n"
    "  --box SPEC          periodic boundaries, as for pairs: the minimum image\n"
    "                      decides the list and d (--box file: a dump's own box)\n"
    "  --radius R|T=R,...  as for pairs (LAMMPS dumps and XYZ without radii)\n"
    "  --dataset D         as for pairs (HDF5 inputs)\n"
    "  --frame N|last      as for pairs (LAMMPS dumps and XYZ trajectories)\n"
    "  --ids               entries as the atoms' ids (row's id, neighbour's id), as\n"
    "                      for pairs; rows stay in the file's order\n"
    "  --algorithm A, --threads N, --pin P, --kernel K, --format F,\n"
    "  --input-format F, --2d, --json, --quiet   as for pairs\n"
    "  -h, --help          this help\n"
    "\n";

static const char usage_gen[] =
    "Usage: spherecollide gen DIST N [--seed S] -o FILE [--format F]\n"
    "Writes N spheres of a deterministic scenario (same DIST, N, seed: same bytes).\n"
    "\n"
    "FILE formats (by extension, or --format):\n"
    "  .npy           float64 array of shape (N, 4)\n"
    "  .f64 .f32      raw little-endian rows x, y, z, r (.bin needs --format)\n"
    "  anything else  text, one sphere per line, 4 numbers \"%.17g\" (.csv: commas)\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE   the file to write (temporary file + rename; - is stdout)\n"
    "  --seed S            64-bit decimal seed (default 1)\n"
    "  --format F          npy|text|csv|f32|f64\n"
    "  --cell-order        write the spheres in the grid's cell order (sc_cell_order):\n"
    "                      pairs then reads them in sequence and skips its sort\n"
    "  --quiet             no \"wrote ...\" line\n"
    "  -h, --help          this help\n"
    "\n";

static const char usage_info[] =
    "Usage: spherecollide info [--threads N] [--pin none|compact|scatter]\n"
    "                          [--kernel auto|scalar|avx2]\n"
    "Prints the CPU features, the kernel chosen, the hwloc topology summary and\n"
    "the thread binding the options would apply.\n"
    "\n"
    "Options:\n"
    "  --threads N         the thread count to describe (0: the default)\n"
    "  --pin P             none, compact or scatter\n"
    "  --kernel K          auto, scalar or avx2\n"
    "  -h, --help          this help\n"
    "\n";

/* ---- messages ------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int
fail(int code, const char *fmt, ...) {
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    for (char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20)
            *c = '?';
    fflush(stdout);
    fprintf(stderr, "spherecollide: %s\n", line);
    return code;
}

void sc_cli_put_usage(FILE *f, const char *text) {
    static const char mark[] = "@ALGORITHMS@";
    for (const char *at; (at = strstr(text, mark)) != NULL; text = at + sizeof mark - 1) {
        fwrite(text, 1, (size_t)(at - text), f);
        /* the names from the marker's column on, lines of at most 79, each
         * further line indented to the first line's description column */
        const char *line = at;
        while (line > text && line[-1] != '\n')
            line--;
        int indent = 0; /* the description's column: after the first run of two blanks */
        while (line + indent < at && line[indent] == ' ')
            indent++;
        while (line + indent + 1 < at && !(line[indent] == ' ' && line[indent + 1] == ' '))
            indent++;
        while (line + indent < at && line[indent] == ' ')
            indent++;
        int col = (int)(at - line);
        const int count = sc_algorithm_count();
        for (int k = 0; k < count; k++) {
            char item[64];
            const int len = snprintf(item, sizeof item, "%s%s%s",
                                     sc_algorithm_name((sc_algorithm)k), k == 0 ? " (default)" : "",
                                     k + 2 < count    ? ","
                                     : k + 2 == count ? " or"
                                                      : "");
            if (k > 0 && col + 1 + len > 79) {
                fprintf(f, "\n%*s", indent, "");
                col = indent;
            } else if (k > 0) {
                fputc(' ', f);
                col++;
            }
            fputs(item, f);
            col += len;
        }
    }
    fputs(text, f);
}

/* The --algorithm value NAME names, or -1. */
static int algorithm_named(const char *name) {
    sc_algorithm a;
    return sc_algorithm_named(name, &a) == SC_OK ? (int)a : -1;
}

/* "grid, brute, ... or segtree", for a message. */
static const char *algorithm_choices(void) {
    static char list[256];
    size_t used = 0;
    const int count = sc_algorithm_count();
    for (int k = 0; k < count && used < sizeof list; k++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                 k == 0           ? ""
                                 : k + 1 == count ? " or "
                                                  : ", ",
                                 sc_algorithm_name((sc_algorithm)k));
    return list;
}

static int print_help(const char *text, int with_generators) {
    sc_cli_put_usage(stdout, text);
    if (with_generators) {
        fputs("Distributions:\n", stdout);
        for (const char *const *n = sc_gen_names(); *n; n++) {
            const char *d = sc_gen_describe(*n);
            printf("  %-12s %s\n", *n, d ? d : "");
        }
        fputc('\n', stdout);
    }
    fputs(usage_exit_codes, stdout);
    return EXIT_OK;
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- command-line parsing helpers ------------------------------------------ */

typedef struct args {
    int argc, i;
    char **argv;
    const char *command;
} args;

/* If argv[i] is the option `name` (exact, or "name=value" for options that
 * take a value), returns 1 and sets *value (NULL for flags). */
/* The option at a->argv[a->i] that the command takes (options.h), with its
 * value in *value (the text after '=', or the next argument, which it
 * consumes); NULL when the command takes no option of that name. *err: the
 * usage error reported when the value is missing. */
static const cli_option *next_option(args *a, unsigned command, const char **value, int *err) {
    const char *arg = a->argv[a->i], *inline_value;
    const cli_option *o = cli_option_find(command, arg, &inline_value);
    *value = inline_value;
    if (!o || !o->value || inline_value)
        return o;
    if (a->i + 1 >= a->argc) {
        *err = fail(EXIT_USAGE, "%s: option %s needs a value (see spherecollide %s --help)",
                    a->command, arg, a->command);
        return o;
    }
    *value = a->argv[++a->i];
    return o;
}

static int parse_int(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* --frame N|last: a snapshot of a LAMMPS dump or an XYZ trajectory, 0 the
 * first, negative from the end (last = -1). */
static int parse_frame(const char *cmd, const char *v, long *out) {
    if (strcmp(v, "last") == 0) {
        *out = -1;
        return 0;
    }
    if (parse_int(v, -1000000000L, 1000000000L, out) != 0)
        return fail(EXIT_USAGE,
                    "%s: --frame must be a whole number (0 the first snapshot, "
                    "negative from the end) or last, not \"%s\"",
                    cmd, v);
    return 0;
}

static int parse_u64(const char *s, uint64_t *out) {
    if (*s == '-' || *s == '+' || *s == '\0')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10); /* "010" is ten, not eight */
    if (errno || *end != '\0')
        return -1;
    *out = (uint64_t)v;
    return 0;
}

/* N for gen: a plain integer, or an exact integer in scientific form (1e6). */
static int parse_count(const char *s, size_t *out) {
    uint64_t v;
    if (parse_u64(s, &v) == 0) {
        if (v > SC_MAX_SPHERES)
            return -2;
        *out = (size_t)v;
        return 0;
    }
    /* decimal scientific form only: strtod would also take hex, inf and nan */
    if (s[strspn(s, "0123456789.eE+")] != '\0')
        return -1;
    char *end;
    double d = strtod(s, &end);
    if (end == s || *end != '\0' || !(d >= 0.0) || d != floor(d) || s[0] == '-')
        return -1;
    if (d > (double)SC_MAX_SPHERES)
        return -2;
    *out = (size_t)d;
    return 0;
}

static int parse_pin(const char *s, sc_pin *out) {
    if (strcmp(s, "none") == 0)
        *out = SC_PIN_NONE;
    else if (strcmp(s, "compact") == 0)
        *out = SC_PIN_COMPACT;
    else if (strcmp(s, "scatter") == 0)
        *out = SC_PIN_SCATTER;
    else
        return -1;
    return 0;
}

static int parse_kernel(const char *s, sc_kernel *out) {
    if (strcmp(s, "auto") == 0)
        *out = SC_KERNEL_AUTO;
    else if (strcmp(s, "scalar") == 0)
        *out = SC_KERNEL_SCALAR;
    else if (strcmp(s, "avx2") == 0)
        *out = SC_KERNEL_AVX2;
    else
        return -1;
    return 0;
}

/* The usage error for a->argv[a->i], which the command does not take: an
 * unknown option, or an argument past the ones it expects. */
static int unknown_option(args *a) {
    const char *arg = a->argv[a->i];
    if (arg[0] == '-' && arg[1] != '\0')
        return fail(EXIT_USAGE, "%s: unknown option \"%s\" (see spherecollide %s --help)",
                    a->command, arg, a->command);
    return fail(EXIT_USAGE, "%s: unexpected argument \"%s\" (see spherecollide %s --help)",
                a->command, arg, a->command);
}

/* The search options every command that runs a query from the command
 * line takes (--threads, --pin, --kernel, --algorithm) into *o; any other
 * option id is unknown to the command. Returns 0 or the exit code of the
 * usage error it reported. */
static int search_option(args *a, cli_opt id, const char *v, sc_options *o) {
    switch (id) {
    case OPT_THREADS: {
        long t = 0;
        if (parse_int(v, 0, 4096, &t) != 0)
            return fail(EXIT_USAGE, "%s: --threads must be an integer from 0 to 4096, not \"%s\"",
                        a->command, v);
        o->threads = (int)t;
        return 0;
    }
    case OPT_PIN:
        if (parse_pin(v, &o->pin) != 0)
            return fail(EXIT_USAGE, "%s: --pin must be none, compact or scatter, not \"%s\"",
                        a->command, v);
        return 0;
    case OPT_ALGORITHM: {
        const int k = algorithm_named(v);
        if (k < 0)
            return fail(EXIT_USAGE, "%s: --algorithm must be %s, not \"%s\"", a->command,
                        algorithm_choices(), v);
        o->algorithm = (sc_algorithm)k;
        return 0;
    }
    case OPT_KERNEL:
        if (parse_kernel(v, &o->kernel) != 0)
            return fail(EXIT_USAGE, "%s: --kernel must be auto, scalar or avx2, not \"%s\"",
                        a->command, v);
        if (o->kernel != SC_KERNEL_AUTO && !sc_kernel_available(o->kernel))
            return fail(EXIT_USAGE, "%s: --kernel %s: this CPU or build cannot run that kernel",
                        a->command, v);
        return 0;
    default: return unknown_option(a);
    }
}

static int wants_help(int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    }
    return 0;
}

/* ---- interruption: never leave the temporary output behind ---------------- */

/* A fatal signal removes every temporary output (sc_io keeps the table; the
 * removal is unlink() only, async-signal-safe), then takes its default
 * action. SIGXFSZ (a file-size limit) is ignored instead, so the write that
 * hits the limit fails with EFBIG and is reported like any write error
 * (exit 6, the file and byte named). */
static void on_signal(int sig) {
    sc_io_remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signal_handlers(void) {
    static const int sigs[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,   SIGPIPE,
                               SIGALRM, SIGUSR1, SIGUSR2, SIGVTALRM, SIGPROF};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction old;
        /* a signal the caller ignores (nohup, a shell's background job) stays ignored */
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[k], &sa, NULL);
    }
    signal(SIGXFSZ, SIG_IGN);
}

/* Library warnings (an unknown SC_KERNEL, ...) as one line each on stderr. */
static void log_warnings(sc_log_level level, const char *message, void *user) {
    (void)user;
    if (level >= SC_LOG_WARN)
        fprintf(stderr, "spherecollide: warning: %s\n", message);
}

/* ---- library status -> exit code ---------------------------------------------- */

static int status_exit(sc_status st) {
    switch (st) {
    case SC_OK: return EXIT_OK;
    case SC_ERR_NON_FINITE:
    case SC_ERR_NEGATIVE_RADIUS:
    case SC_ERR_OUT_OF_RANGE:
    case SC_ERR_TOO_MANY_SPHERES: return EXIT_VALUES;
    case SC_ERR_OUT_OF_MEMORY: return EXIT_NOMEM;
    case SC_ERR_UNSUPPORTED: return EXIT_USAGE;
    case SC_ERR_STOPPED: return EXIT_OUTPUT;
    case SC_ERR_TOO_COSTLY: return EXIT_COSTLY;
    case SC_ERR_INVALID_ARGUMENT:
    case SC_ERR_VERSION:
    case SC_ERR_BUFFER_TOO_SMALL: return EXIT_INTERNAL;
    }
    return EXIT_INTERNAL;
}

static int box_is_periodic(const sc_box *b) {
    return b->periodic[0] || b->periodic[1] || b->periodic[2];
}

/* The one line for a search that failed: a bad value the reader can place
 * (line, byte, column) first, else the sphere the library names, else the
 * status. */
/* The first sphere whose radius a periodic box refuses (above
 * SC_MAX_ABS_VALUE / 2), or SIZE_MAX: none, or no periodic box. */
static size_t box_refuses(const sc_spheres *view, const sc_options *o) {
    if (!box_is_periodic(&o->box))
        return SIZE_MAX;
    const size_t n = view->count, size = view->dtype == SC_F32 ? 4 : 8;
    const size_t rs = view->r_stride ? view->r_stride : view->stride ? view->stride : size;
    for (size_t k = 0; k < n; k++) {
        const char *r = (const char *)view->r + k * rs;
        const double rk = view->dtype == SC_F32 ? (double)*(const float *)(const void *)r
                                                : *(const double *)(const void *)r;
        if (rk > SC_MAX_ABS_VALUE / 2)
            return k;
    }
    return SIZE_MAX;
}

static int search_failed(const char *input, const sc_io_spheres *in, const sc_spheres *view,
                         const sc_options *o, sc_status st) {
    size_t bad = 0;
    sc_status vs = sc_spheres_validate(view, &bad);
    char verr[512];
    const sc_io_status cs = sc_io_check_spheres(input, in, verr, sizeof verr);
    if (cs != SC_IO_OK)
        return fail(sc_io_exit_code(cs), "%s", verr);
    if (vs != SC_OK)
        return fail(status_exit(vs), "%s: sphere %zu: %s", input, bad, sc_status_string(vs));
    const size_t k = st == SC_ERR_OUT_OF_RANGE ? box_refuses(view, o) : SIZE_MAX;
    if (k != SIZE_MAX) { /* the periodic box's own limit on radii */
        const size_t size = view->dtype == SC_F32 ? 4 : 8;
        const size_t rs = view->r_stride ? view->r_stride : view->stride ? view->stride : size;
        const char *r = (const char *)view->r + k * rs;
        const double rk = view->dtype == SC_F32 ? (double)*(const float *)(const void *)r
                                                : *(const double *)(const void *)r;
        return fail(status_exit(st),
                    "%s: sphere %zu: radius %.17g is above %g, the limit with "
                    "a periodic --box",
                    input, k, rk, SC_MAX_ABS_VALUE / 2);
    }
    if (st == SC_ERR_TOO_COSTLY)
        return fail(status_exit(st),
                    "%s: %s refused the input: its cells predict more than "
                    "--max-tests %.3g candidate tests (radii too unequal for one cell "
                    "size); use --algorithm grid",
                    input, sc_algorithm_name(o->algorithm), o->hashgrid.max_tests);
    return fail(status_exit(st), "%s: pair search failed: %s", input, sc_status_string(st));
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, double v) {
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

/* ---- pairs ------------------------------------------------------------------- */

/* What the commands that read a sphere file (pairs, neighbors) take
 * alike: options.c's IN entries, read by input_option. */
typedef struct input_args {
    const char *input, *output;
    const char *box;     /* --box: its text, or NULL */
    const char *radius;  /* --radius: LAMMPS dumps' radii, or NULL */
    const char *dataset; /* --dataset: an HDF5 input's datasets, or NULL */
    long frame;          /* --frame: a trajectory's snapshot (0 the first) */
    int box_axes;        /* entries given in --box (0: none; 1: every axis) */
    int json, quiet, dims2, ids;
} input_args;

/* The options pairs and neighbors take alike (options.c's IN entries:
 * output, box, radius, dataset, frame, ids, json, quiet, 2d) into *in, and
 * the search options (search_option) into *o. Returns 0 or the exit code of
 * the usage error it reported. */
static int parse_box(const char *cmd, const char *v, sc_box *out, int *out_axes);
static int input_option(args *a, cli_opt id, const char *v, input_args *in, sc_options *o) {
    switch (id) {
    case OPT_OUTPUT:
        if (in->output)
            return fail(EXIT_USAGE, "%s: more than one -o", a->command);
        in->output = v;
        return 0;
    case OPT_BOX:
        if (in->box_axes)
            return fail(EXIT_USAGE, "%s: more than one --box", a->command);
        in->box = v;
        return parse_box(a->command, v, &o->box, &in->box_axes);
    case OPT_RADIUS: in->radius = v; return 0;
    case OPT_DATASET: in->dataset = v; return 0;
    case OPT_FRAME: return parse_frame(a->command, v, &in->frame);
    case OPT_IDS: in->ids = 1; return 0;
    case OPT_JSON: in->json = 1; return 0;
    case OPT_QUIET: in->quiet = 1; return 0;
    case OPT_2D: in->dims2 = 1; return 0;
    default: return search_option(a, id, v, o);
    }
}

typedef struct pairs_job {
    input_args in;
    const char *against; /* --against: the second set, or NULL */
    int count_only, sorted;
    int repeat;         /* --repeat: count runs on one context (1: a single run) */
    double first_total; /* the first run's total seconds when repeat > 1 */
    double warm_mean;   /* the mean total seconds of the runs after the first */
    sc_io_format in_format, out_format;
    sc_options options;
} pairs_job;

typedef struct stream_state {
    sc_pair_writer *writer;
    char err[1024];
    sc_io_status status;
} stream_state;

static int stream_to_writer(const uint32_t *pairs, size_t count, void *user) {
    stream_state *s = user;
    s->status = sc_pair_writer_write(s->writer, pairs, count, s->err, sizeof s->err);
    return s->status != SC_IO_OK;
}

typedef struct progress_state {
    int shown;
    int last_percent;
} progress_state;

static void show_progress(double fraction, void *user) {
    progress_state *p = user;
    int percent = (int)(fraction * 100.0);
    if (percent < 0)
        percent = 0;
    if (percent > 100)
        percent = 100;
    if (percent == p->last_percent)
        return;
    p->last_percent = percent;
    p->shown = 1;
    fprintf(stderr, "\rspherecollide: searching %3d%%", percent);
    fflush(stderr);
}

static void clear_progress(progress_state *p) {
    if (p->shown) {
        fputs("\r                                \r", stderr);
        fflush(stderr);
        p->shown = 0;
    }
}

/* On a terminal, reading a large input gets a status line, erased when the
 * read ends (a 771 MB text file takes seconds); the search's progress
 * follows. Returns the line's length (0: none shown). */
#define READING_NOTICE_BYTES ((off_t)64 << 20)
static int reading_notice(const char *path, int quiet) {
    struct stat st;
    if (quiet || !isatty(STDERR_FILENO) || strcmp(path, "-") == 0 || stat(path, &st) != 0 ||
        !S_ISREG(st.st_mode) || st.st_size < READING_NOTICE_BYTES)
        return 0;
    const int len =
        fprintf(stderr, "\rspherecollide: reading %s (%.0f MB)", path, (double)st.st_size / 1e6);
    fflush(stderr);
    return len > 0 ? len : 0;
}

static void reading_done(int len) {
    if (len > 0) {
        fprintf(stderr, "\r%*s\r", len, "");
        fflush(stderr);
    }
}

static const char *dtype_name(sc_dtype d) {
    return d == SC_F32 ? "float32" : "float64";
}

static const char *algorithm_name(sc_algorithm a) {
    return sc_algorithm_name(a);
}

/* A whole decimal number in [lo, hi] for option `name`, or a usage error. */
static int parse_int_option(const char *name, const char *v, long lo, long hi, int *out) {
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (end == v || *end != '\0' || x < lo || x > hi)
        return fail(EXIT_USAGE, "pairs: %s must be a whole number from %ld to %ld, not \"%s\"",
                    name, lo, hi, v);
    *out = (int)x;
    return 0;
}

/* One set's count, or two sets' (b not NULL). */
static sc_status count_any(sc_context *ctx, const sc_spheres *a, const sc_spheres *b,
                           sc_summary *sum) {
    return b ? sc_count_between(ctx, a, b, sum) : sc_count_pairs(ctx, a, sum);
}

static void print_report(FILE *f, const pairs_job *job, const sc_io_spheres *in,
                         const sc_io_spheres *inb, const sc_summary *sum, const sc_stats *st,
                         double read_s, double write_s) {
    if (job->in.json) {
        fputs("{\"command\":\"pairs\",\"input\":", f);
        json_string(f, job->in.input);
        fprintf(f, ",\"input_format\":\"%s\",\"dims\":%d,\"dtype\":\"%s\"",
                sc_io_format_name(in->format), in->dims, dtype_name(in->dtype));
        fprintf(f, ",\"n\":%zu,\"against\":", in->n);
        if (inb) {
            json_string(f, job->against);
            fprintf(f, ",\"n_against\":%zu", inb->n);
        } else {
            fputs("null,\"n_against\":null", f);
        }
        fputs(",\"box\":", f);
        if (job->in.box) {
            fputc('[', f);
            for (int k = 0; k < in->dims; k++) {
                const sc_box *b = &job->options.box;
                if (b->periodic[k]) {
                    fputc('[', f);
                    json_number(f, b->lo[k]);
                    fputc(',', f);
                    json_number(f, b->hi[k]);
                    fputc(']', f);
                } else {
                    fputs("null", f);
                }
                fputs(k + 1 < in->dims ? "," : "]", f);
            }
        } else {
            fputs("null", f);
        }
        if (inb || job->in.box)
            fprintf(f, ",\"searched\":%llu", (unsigned long long)st->spheres);
        fprintf(f, ",\"pairs\":%llu,\"checksum\":\"0x%016llx\"", (unsigned long long)sum->pairs,
                (unsigned long long)sum->checksum);
        fprintf(f, ",\"threads\":%d,\"kernel\":\"%s\",\"pin\":\"%s\",\"algorithm\":\"%s\"",
                st->threads, sc_kernel_name(st->kernel), sc_pin_name(st->pin),
                algorithm_name(job->options.algorithm));
        fprintf(f, ",\"sorted\":%s,\"levels\":%d,\"cells\":%llu,\"candidate_tests\":%llu",
                job->sorted ? "true" : "false", st->levels, (unsigned long long)st->cells,
                (unsigned long long)st->candidate_tests);
        fprintf(f, ",\"passes\":%d,\"scratch_bytes\":%llu,\"cell_size\":", st->passes,
                (unsigned long long)st->scratch_bytes);
        json_number(f, st->cell_size);
        fputs(",\"output\":", f);
        if (job->in.output) {
            json_string(f, job->in.output);
            fprintf(f, ",\"output_format\":\"%s\"", sc_io_format_name(job->out_format));
        } else {
            fputs("null,\"output_format\":null", f);
        }
        fprintf(f, ",\"repeat\":%d", job->repeat);
        fputs(",\"seconds\":{\"read\":", f);
        json_number(f, read_s);
        fputs(",\"total\":", f);
        json_number(f, st->total_seconds);
        if (job->repeat > 1) {
            fputs(",\"first\":", f);
            json_number(f, job->first_total);
            fputs(",\"mean\":", f);
            json_number(f, job->warm_mean);
        }
        for (int k = 0; k < SC_STAGE_COUNT; k++) {
            fprintf(f, ",\"%s\":", sc_stage_name((sc_stage)k));
            json_number(f, st->seconds[k]);
        }
        if (job->in.output) {
            fputs(",\"write\":", f);
            json_number(f, write_s);
        }
        fputs("}}\n", f);
        return;
    }
    fprintf(f, "input            %s (%s, %s, %d-D)\n", job->in.input, sc_io_format_name(in->format),
            dtype_name(in->dtype), in->dims);
    fprintf(f, "n                %zu\n", in->n);
    if (inb) {
        fprintf(f, "against          %s (%s, %s, %d-D)\n", job->against,
                sc_io_format_name(inb->format), dtype_name(inb->dtype), inb->dims);
        fprintf(f, "n against        %zu\n", inb->n);
    }
    if (job->in.box) {
        fputs("box             ", f);
        for (int k = 0; k < in->dims; k++) {
            const sc_box *b = &job->options.box;
            if (b->periodic[k])
                fprintf(f, " [%.17g, %.17g)", b->lo[k], b->hi[k]);
            else
                fputs(" open", f);
        }
        fputc('\n', f);
    }
    if (inb || job->in.box)
        fprintf(f, "searched         %llu (%s)\n", (unsigned long long)st->spheres,
                !job->in.box ? "the smaller set and the larger's candidates"
                : inb        ? "the smaller set, the larger's candidates and their images"
                             : "the spheres and their images");
    fprintf(f, "pairs            %llu\n", (unsigned long long)sum->pairs);
    fprintf(f, "checksum         0x%016llx\n", (unsigned long long)sum->checksum);
    fprintf(f, "threads          %d\n", st->threads);
    fprintf(f, "kernel           %s\n", sc_kernel_name(st->kernel));
    fprintf(f, "pin              %s\n", sc_pin_name(st->pin));
    fprintf(f, "algorithm        %s\n", algorithm_name(job->options.algorithm));
    fprintf(f, "levels           %d\n", st->levels);
    fprintf(f, "cells            %llu\n", (unsigned long long)st->cells);
    fprintf(f, "candidate tests  %llu\n", (unsigned long long)st->candidate_tests);
    if (job->in.output)
        fprintf(f, "output           %s (%s%s)\n", job->in.output,
                sc_io_format_name(job->out_format), job->sorted ? ", sorted" : "");
    fprintf(f, "seconds\n");
    fprintf(f, "  read           %.6f\n", read_s);
    if (job->repeat > 1) {
        fprintf(f, "  first run      %.6f (cold: allocates the scratch)\n", job->first_total);
        fprintf(f, "  mean           %.6f (of the %d runs after the first)\n", job->warm_mean,
                job->repeat - 1);
        fprintf(f, "  total          %.6f (median of %d runs; stages below from that run)\n",
                st->total_seconds, job->repeat);
    } else {
        fprintf(f, "  total          %.6f\n", st->total_seconds);
    }
    for (int k = 0; k < SC_STAGE_COUNT; k++)
        fprintf(f, "    %-12s %.6f\n", sc_stage_name((sc_stage)k), st->seconds[k]);
    if (job->in.output)
        fprintf(f, "  write          %.6f\n", write_s);
}

static int parse_format_option(pairs_job *job, const char *v) {
    sc_io_format f;
    if (sc_io_format_parse(v, &f) != 0)
        return fail(EXIT_USAGE,
                    "pairs: --format must be npy, csv, bin (output) or f32, f64, text "
                    "(input), not \"%s\"",
                    v);
    int is_output = f == SC_IO_FORMAT_NPY || f == SC_IO_FORMAT_CSV || f == SC_IO_FORMAT_BIN;
    sc_io_format *slot = is_output ? &job->out_format : &job->in_format;
    if (*slot != SC_IO_FORMAT_AUTO && *slot != f)
        return fail(EXIT_USAGE, "pairs: two %s formats given (%s and %s)",
                    is_output ? "output" : "input", sc_io_format_name(*slot), v);
    *slot = f;
    return EXIT_OK;
}

/* --box SPEC of command cmd into *out: one entry for every axis, or one
 * per axis (*out_axes, checked against the input's dimensions once it is
 * read); an entry is L ([0, L)), LO:HI, or - (open). */
static int parse_box(const char *cmd, const char *v, sc_box *out, int *out_axes) {
    sc_box box = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    if (strcmp(v, "file") == 0) { /* the input's own (a LAMMPS dump's), once read */
        *out = box;
        *out_axes = -1;
        return EXIT_OK;
    }
    const char *p = v;
    int axes = 0;
    for (;;) {
        if (axes == 3)
            return fail(EXIT_USAGE,
                        "%s: --box takes one entry or one per axis (at most 3), "
                        "not \"%s\"",
                        cmd, v);
        const char *end = p + strcspn(p, ",");
        char entry[128];
        const size_t len = (size_t)(end - p);
        if (len == 0 || len >= sizeof entry)
            return fail(EXIT_USAGE, "%s: --box entry %d is empty or too long in \"%s\"", cmd,
                        axes + 1, v);
        memcpy(entry, p, len);
        entry[len] = '\0';
        if (strcmp(entry, "-") != 0) {
            char *colon = strchr(entry, ':'), *e1 = NULL, *e2 = NULL;
            double lo = 0.0, hi;
            if (colon) {
                *colon = '\0';
                lo = strtod(entry, &e1);
                hi = strtod(colon + 1, &e2);
                if (e1 == entry || *e1 || e2 == colon + 1 || *e2)
                    e2 = NULL;
            } else {
                hi = strtod(entry, &e2);
                if (e2 == entry || *e2)
                    e2 = NULL;
            }
            if (!e2 || !(fabs(lo) <= SC_MAX_BOX_VALUE && fabs(hi) <= SC_MAX_BOX_VALUE && lo < hi &&
                         hi - lo > 0.0))
                return fail(EXIT_USAGE,
                            "%s: --box entry %d (\"%.*s\") must be L, LO:HI with "
                            "LO < HI, or -, with bounds within +-%g",
                            cmd, axes + 1, (int)len, p, SC_MAX_BOX_VALUE);
            box.periodic[axes] = 1;
            box.lo[axes] = lo;
            box.hi[axes] = hi;
        }
        axes++;
        if (*end == '\0')
            break;
        p = end + 1;
    }
    if (axes == 1)
        for (int k = 1; k < 3; k++) {
            box.periodic[k] = box.periodic[0];
            box.lo[k] = box.lo[0];
            box.hi[k] = box.hi[0];
        }
    *out = box;
    *out_axes = axes;
    return EXIT_OK;
}

/* After the input is read: --box file takes the input's box (its periodic
 * axes), and a SPEC's entry count must be 1 or the input's dimensions. */
static int box_for_input(const char *cmd, const char *input, const sc_io_spheres *in, int axes,
                         sc_box *box) {
    if (axes == -1) {
        if (!in->has_box)
            return fail(EXIT_USAGE,
                        "%s: %s has no orthogonal box of its own (a LAMMPS dump's "
                        "orthogonal BOX BOUNDS, an extended XYZ file's orthogonal "
                        "Lattice; triclinic boxes are read but are not periodic boxes "
                        "here); give --box SPEC",
                        cmd, input);
        *box = in->box;
        for (int k = 0; k < 3; k++) /* as --box would refuse them */
            if (box->periodic[k] &&
                !(fabs(box->lo[k]) <= SC_MAX_BOX_VALUE && fabs(box->hi[k]) <= SC_MAX_BOX_VALUE &&
                  box->lo[k] < box->hi[k]))
                return fail(EXIT_USAGE,
                            "%s: %s: the box's axis %d [%g, %g] cannot be periodic "
                            "(bounds within +-%g, lo < hi)",
                            cmd, input, k, box->lo[k], box->hi[k], SC_MAX_BOX_VALUE);
        return EXIT_OK;
    }
    if (axes && axes != 1 && axes != in->dims)
        return fail(EXIT_USAGE, "%s: --box gives %d entries but %s is %d-D (give 1 or %d)", cmd,
                    axes, input, in->dims, in->dims);
    return EXIT_OK;
}

static int cmp_stats_total(const void *a, const void *b) {
    const double x = ((const sc_stats *)a)->total_seconds, y = ((const sc_stats *)b)->total_seconds;
    return (x > y) - (x < y);
}

/* The tree options given on the command line, applied to the chosen
 * algorithm once all are read (pairs_check). */
typedef struct tree_args {
    int max_depth, leaf_size, cutoff_given, max_tests_given;
} tree_args;

/* pairs' options into *job and *t: EXIT_OK, or the exit code of the usage
 * error it reported. */
static int pairs_parse(int argc, char **argv, pairs_job *job, tree_args *t) {
    memset(job, 0, sizeof *job);
    memset(t, 0, sizeof *t);
    job->options = sc_options_default();
    args a = {argc, 0, argv, "pairs"};
    int only_positional = 0;
    for (a.i = 1; a.i < argc; a.i++) {
        const char *arg = argv[a.i];
        const char *v = NULL;
        int rc = 0;
        if (only_positional || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (job->in.input != NULL)
                return fail(EXIT_USAGE, "pairs: more than one INPUT (\"%s\" and \"%s\")",
                            job->in.input, arg);
            job->in.input = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_positional = 1;
            continue;
        }
        const cli_option *opt = next_option(&a, CLI_PAIRS, &v, &rc);
        if (!opt)
            return unknown_option(&a);
        if (rc)
            return rc;
        switch (opt->id) {
        case OPT_AGAINST: {
            if (!rc && job->against)
                return fail(EXIT_USAGE, "pairs: more than one --against");
            job->against = v;
            break;
        }
        case OPT_COUNT_ONLY: {
            job->count_only = 1;
            break;
        }
        case OPT_REPEAT: {
            char *end = NULL;
            long r = rc ? 0 : strtol(v, &end, 10);
            if (!rc && (end == v || *end != '\0' || r < 1 || r > 1000))
                rc = fail(EXIT_USAGE,
                          "pairs: --repeat must be a whole number from 1 to 1000, not \"%s\"", v);
            job->repeat = (int)r;
            break;
        }
        case OPT_SORTED: {
            job->sorted = 1;
            break;
        }
        case OPT_FORMAT: {
            if (!rc)
                rc = parse_format_option(job, v);
            break;
        }
        case OPT_INPUT_FORMAT: {
            sc_io_format f = SC_IO_FORMAT_AUTO;
            if (!rc && (sc_io_format_parse(v, &f) != 0 || f == SC_IO_FORMAT_BIN))
                rc = fail(
                    EXIT_USAGE,
                    "pairs: --input-format must be npy, text, csv, lammps, xyz, hdf5, f32 or f64, "
                    "not \"%s\"",
                    v);
            else if (!rc && job->in_format != SC_IO_FORMAT_AUTO && job->in_format != f)
                rc = fail(EXIT_USAGE, "pairs: two input formats given (%s and %s)",
                          sc_io_format_name(job->in_format), v);
            job->in_format = f;
            break;
        }
        case OPT_MAX_DEPTH: {
            if (!rc)
                rc = parse_int_option("--max-depth", v, 1, 64, &t->max_depth);
            break;
        }
        case OPT_LEAF_SIZE: {
            if (!rc)
                rc = parse_int_option("--leaf-size", v, 1, 1 << 30, &t->leaf_size);
            break;
        }
        case OPT_CUTOFF: {
            int cut = 0;
            if (!rc)
                rc = parse_int_option("--cutoff", v, 1, 1 << 30, &cut);
            job->options.segtree.cutoff = (size_t)cut;
            t->cutoff_given = 1;
            break;
        }
        case OPT_MAX_TESTS: {
            char *end = NULL;
            const double tests = rc ? 0.0 : strtod(v, &end);
            if (!rc && (end == v || *end != '\0' || !(tests > 0.0)))
                rc = fail(EXIT_USAGE,
                          "pairs: --max-tests must be a positive number or inf, not \"%s\"", v);
            job->options.hashgrid.max_tests = tests;
            t->max_tests_given = 1;
            break;
        }
        case OPT_WARM: {
            job->options.sap.warm = 1;
            job->options.bvh.refit = 1;
            break;
        }
        case OPT_SPLIT: {
            if (!rc && strcmp(v, "median") == 0)
                job->options.kdsplit.split = SC_SPLIT_MEDIAN;
            else if (!rc && strcmp(v, "mean") == 0)
                job->options.kdsplit.split = SC_SPLIT_MEAN;
            else if (!rc)
                rc = fail(EXIT_USAGE, "pairs: --split must be median or mean, not \"%s\"", v);
            break;
        }
        case OPT_SEGMENT_WIDTH: {
            if (!rc && strcmp(v, "mean") == 0)
                job->options.partition1d.width = SC_SEGMENT_MEAN_DIAMETER;
            else if (!rc && strcmp(v, "max") == 0)
                job->options.partition1d.width = SC_SEGMENT_MAX_DIAMETER;
            else if (!rc)
                rc = fail(EXIT_USAGE, "pairs: --segment-width must be mean or max, not \"%s\"", v);
            break;
        }
        default: /* what every command that reads a sphere file takes */
            rc = input_option(&a, opt->id, v, &job->in, &job->options);
            break;
        }
        if (rc)
            return rc;
    }
    return EXIT_OK;
}

/* What the options say together: the tree options onto the chosen tree,
 * contradictions refused, and the output's place and format checked
 * before any work. EXIT_OK, or the exit code of the error it reported. */
static int pairs_check(pairs_job *job, const tree_args *t) {
    const int max_depth = t->max_depth, leaf_size = t->leaf_size;
    if (job->in.input == NULL)
        return fail(EXIT_USAGE, "pairs: missing INPUT (see spherecollide pairs --help)");
    /* the tree options go to the chosen tree */
    const sc_algorithm algo = job->options.algorithm;
    if ((max_depth || leaf_size) && algo != SC_ALGO_OCTREE && algo != SC_ALGO_KDSPLIT &&
        !(algo == SC_ALGO_BVH && !max_depth))
        return fail(EXIT_USAGE, "pairs: --max-depth and --leaf-size are options of --algorithm "
                                "octree or kdsplit (--leaf-size also of bvh)");
    if (t->cutoff_given && algo != SC_ALGO_SEGTREE)
        return fail(EXIT_USAGE, "pairs: --cutoff is an option of --algorithm segtree");
    if (t->max_tests_given && algo != SC_ALGO_HASHGRID)
        return fail(EXIT_USAGE, "pairs: --max-tests is an option of --algorithm hashgrid");
    if (job->options.sap.warm && algo != SC_ALGO_SAP && algo != SC_ALGO_BVH)
        return fail(EXIT_USAGE, "pairs: --warm is an option of --algorithm sap and bvh");
    sc_tree_options *tree = algo == SC_ALGO_OCTREE ? &job->options.octree : &job->options.kdsplit;
    if (max_depth)
        tree->max_depth = max_depth;
    if (leaf_size && algo == SC_ALGO_BVH) {
        if (leaf_size > 4)
            return fail(EXIT_USAGE, "pairs: --leaf-size of bvh must be 1 to 4, not %d", leaf_size);
        job->options.bvh.leaf_size = leaf_size;
    } else if (leaf_size) {
        tree->leaf_size = leaf_size;
    }
    if (job->in.output && job->count_only)
        return fail(EXIT_USAGE, "pairs: -o and --count-only contradict each other");
    if (job->in.ids && job->in.output == NULL)
        return fail(EXIT_USAGE, "pairs: --ids names the pairs written with -o; there is no -o");
    if (job->repeat == 0)
        job->repeat = 1;
    if (job->in.output && job->repeat > 1)
        return fail(EXIT_USAGE, "pairs: --repeat times the count; it cannot be used with -o");
    if (job->out_format != SC_IO_FORMAT_AUTO && job->in.output == NULL)
        return fail(EXIT_USAGE, "pairs: --format %s is an output format, but there is no -o",
                    sc_io_format_name(job->out_format));
    char err[2048];
    for (int k = 0; k < 2; k++) {
        const char *path = k ? job->against : job->in.input;
        if (path && job->in_format == SC_IO_FORMAT_AUTO &&
            sc_io_spheres_format_for_path(path) == SC_IO_FORMAT_AUTO)
            return fail(EXIT_USAGE, "%s: raw binary input needs --format f32 or --format f64",
                        path);
    }
    if (job->against && strcmp(job->in.input, "-") == 0 && strcmp(job->against, "-") == 0)
        return fail(EXIT_USAGE, "pairs: INPUT and --against cannot both be standard input");
    const int to_stdout = job->in.output != NULL && strcmp(job->in.output, "-") == 0;
    if (job->in.output) {
        /* what is wrong with the place (a directory, no permission) first:
         * it says more than a complaint about the name's extension */
        sc_io_status ws = sc_io_check_writable(job->in.output, err, sizeof err);
        if (ws != SC_IO_OK)
            return fail(sc_io_exit_code(ws), "%s", err);
        if (job->out_format == SC_IO_FORMAT_AUTO)
            job->out_format =
                to_stdout ? SC_IO_FORMAT_CSV : sc_io_pairs_format_for_path(job->in.output);
        if (job->out_format == SC_IO_FORMAT_AUTO)
            return fail(EXIT_USAGE,
                        "%s: cannot tell the pair format from the name; use .npy, .csv or .bin, "
                        "or --format npy|csv|bin",
                        job->in.output);
    }
    return EXIT_OK;
}

/* The sets a pairs job reads. */
typedef struct pairs_input {
    sc_io_spheres in, inb; /* INPUT, and --against's (zeroed without it) */
    double read_s;
} pairs_input;

static void pairs_input_free(pairs_input *pi) {
    sc_io_spheres_free(&pi->in);
    sc_io_spheres_free(&pi->inb);
}

/* Reads INPUT and --against (timed on its own: seconds.total is the
 * library's figure) and applies --box file. EXIT_OK, or the exit code of
 * the error it reported, with nothing left allocated. */
static int pairs_read(pairs_job *job, pairs_input *pi) {
    char err[2048];
    /* The library checks every value on every query, so the reader does
     * not check binary rows first: that pass would be the first touch of
     * every page of the file. A query that finds a bad value has the reader
     * word it (below). */
    sc_io_read_options ro = {job->in_format,
                             job->in.dims2 ? 2 : 0,
                             0,
                             1,
                             job->in.radius,
                             job->in.dataset,
                             job->in.frame,
                             job->options.threads,
                             sc_huge_pages(),
                             0,
                             job->in.ids};
    memset(pi, 0, sizeof *pi);
    double t0 = now_seconds();
    int notice = reading_notice(job->in.input, job->in.quiet);
    sc_io_status rs = sc_io_read_spheres(job->in.input, &ro, &pi->in, err, sizeof err);
    reading_done(notice);
    if (rs != SC_IO_OK)
        return fail(sc_io_exit_code(rs), "%s", err);
    if (job->against) {
        /* B's own name decides its format where it can (INPUT may be -) */
        sc_io_read_options rob = ro;
        if (strcmp(job->against, "-") != 0 &&
            sc_io_spheres_format_for_path(job->against) != SC_IO_FORMAT_AUTO)
            rob.format = SC_IO_FORMAT_AUTO;
        notice = reading_notice(job->against, job->in.quiet);
        rs = sc_io_read_spheres(job->against, &rob, &pi->inb, err, sizeof err);
        reading_done(notice);
        if (rs != SC_IO_OK) {
            sc_io_spheres_free(&pi->in);
            return fail(sc_io_exit_code(rs), "%s", err);
        }
        if (pi->inb.dims != pi->in.dims) {
            const int d = pi->in.dims, db = pi->inb.dims;
            pairs_input_free(pi);
            return fail(EXIT_USAGE, "pairs: %s is %d-D but --against %s is %d-D", job->in.input, d,
                        job->against, db);
        }
    }
    pi->read_s = now_seconds() - t0;
    if (job->in.box) {
        const int brc =
            box_for_input("pairs", job->in.input, &pi->in, job->in.box_axes, &job->options.box);
        if (brc) {
            pairs_input_free(pi);
            return brc;
        }
    }

    return EXIT_OK;
}

/* What a pairs query leaves for its report. */
typedef struct pairs_result {
    sc_summary sum;
    sc_stats stats; /* the run's, or the median run's with --repeat */
    stream_state ss;
    double write_s;
    sc_status st; /* the query's status */
} pairs_result;

/* Counts (R times with --repeat, keeping the median run's statistics) or
 * streams the pairs into -o's writer. EXIT_OK with r->st the query's
 * status, or the exit code of an error it reported before any query. */
static int pairs_query(pairs_job *job, sc_context *ctx, const sc_spheres *view, const sc_spheres *b,
                       const pairs_input *pi, pairs_result *r) {
    memset(r, 0, sizeof *r);
    r->stats.size = sizeof r->stats;
    sc_status st = SC_OK;
    int have_median = 0;
    if (job->in.output == NULL && job->repeat > 1) {
        /* Timed repeats on one context: keep the stats of the median run. */
        sc_stats *runs = calloc((size_t)job->repeat, sizeof *runs);
        if (runs == NULL)
            return fail(EXIT_NOMEM, "pairs: out of memory");
        for (int k = 0; k < job->repeat && st == SC_OK; k++) {
            st = count_any(ctx, view, b, &r->sum);
            runs[k].size = sizeof runs[k];
            if (st == SC_OK)
                st = sc_context_stats(ctx, &runs[k]);
        }
        if (st == SC_OK) {
            job->first_total = runs[0].total_seconds;
            double sum_warm = 0.0;
            for (int k = 1; k < job->repeat; k++)
                sum_warm += runs[k].total_seconds;
            job->warm_mean = sum_warm / (job->repeat - 1);
            qsort(runs, (size_t)job->repeat, sizeof *runs, cmp_stats_total);
            r->stats = runs[job->repeat / 2];
            have_median = 1;
        }
        free(runs);
    } else if (job->in.output == NULL) {
        st = count_any(ctx, view, b, &r->sum);
    } else {
        stream_state *ss = &r->ss;
        sc_io_status ws =
            b ? sc_between_writer_open(job->in.output, job->out_format, pi->in.n, pi->inb.n,
                                       &ss->writer, ss->err, sizeof ss->err)
              : sc_pair_writer_open(job->in.output, job->out_format, pi->in.n, &ss->writer, ss->err,
                                    sizeof ss->err);
        if (ws == SC_IO_OK && job->in.ids)
            ws = sc_pair_writer_use_ids(ss->writer, pi->in.ids, pi->inb.ids, ss->err,
                                        sizeof ss->err);
        if (ws != SC_IO_OK) {
            sc_pair_writer_abort(ss->writer);
            ss->writer = NULL;
            return fail(sc_io_exit_code(ws), "%s", ss->err);
        }
        if (sc_pair_writer_needs_total(ss->writer)) {
            /* .npy on a stream: its header holds the count, so count first */
            st = count_any(ctx, view, b, &r->sum);
            if (st == SC_OK) {
                ss->status =
                    sc_pair_writer_declare_total(ss->writer, r->sum.pairs, ss->err, sizeof ss->err);
                if (ss->status != SC_IO_OK)
                    st = SC_ERR_STOPPED;
            }
        }
        if (st == SC_OK)
            st = b ? sc_stream_between(ctx, view, b, stream_to_writer, ss, &r->sum)
                   : sc_stream_pairs(ctx, view, stream_to_writer, ss, &r->sum);
    }
    if (!have_median && (st != SC_OK || sc_context_stats(ctx, &r->stats) != SC_OK))
        r->stats = (sc_stats){.size = sizeof r->stats};
    r->st = st;
    return EXIT_OK;
}

/* The query's end: a failure worded (naming the sphere and file it came
 * from), or the pairs' file finished and the report printed (to stdout, or
 * to stderr when the pairs go to stdout). Returns the exit code. */
static int pairs_report(const pairs_job *job, const pairs_input *pi, const sc_spheres *view,
                        const sc_spheres *b, pairs_result *r) {
    stream_state *ss = &r->ss;
    int rc = EXIT_OK;
    if (r->st != SC_OK) {
        if (r->st == SC_ERR_STOPPED && ss->status != SC_IO_OK) {
            rc = fail(sc_io_exit_code(ss->status), "%s", ss->err);
        } else if (b && sc_spheres_validate(view, NULL) == SC_OK &&
                   box_refuses(view, &job->options) == SIZE_MAX) { /* B's sphere, not A's */
            rc = search_failed(job->against, &pi->inb, b, &job->options, r->st);
        } else {
            rc = search_failed(job->in.input, &pi->in, view, &job->options, r->st);
        }
        sc_pair_writer_abort(ss->writer);
    } else if (ss->writer) {
        double w0 = now_seconds();
        sc_io_status ws = sc_pair_writer_finish(ss->writer, r->sum.pairs, ss->err, sizeof ss->err);
        r->write_s = now_seconds() - w0;
        if (ws != SC_IO_OK)
            rc = fail(sc_io_exit_code(ws), "%s", ss->err);
    }
    const int to_stdout = job->in.output != NULL && strcmp(job->in.output, "-") == 0;
    /* --quiet drops the table and the progress; --json is output asked for */
    if (rc == EXIT_OK && (!job->in.quiet || job->in.json))
        print_report(to_stdout ? stderr : stdout, job, &pi->in, b ? &pi->inb : NULL, &r->sum,
                     &r->stats, pi->read_s, r->write_s);
    return rc;
}

/* pairs: parse, check, read, query, report. */
static int cmd_pairs(int argc, char **argv) {
    if (wants_help(argc, argv))
        return print_help(usage_pairs, 0);
    pairs_job job;
    tree_args trees;
    int rc = pairs_parse(argc, argv, &job, &trees);
    if (rc == EXIT_OK)
        rc = pairs_check(&job, &trees);
    pairs_input pi;
    if (rc == EXIT_OK)
        rc = pairs_read(&job, &pi);
    if (rc != EXIT_OK)
        return rc;

    const sc_io_spheres *in = &pi.in, *inb = &pi.inb;
    sc_spheres view = in->dtype == SC_F32 ? sc_spheres_rows_f32(in->n, in->dims, in->rows)
                                          : sc_spheres_rows_f64(in->n, in->dims, in->rows);
    const sc_spheres vb = inb->dtype == SC_F32 ? sc_spheres_rows_f32(inb->n, inb->dims, inb->rows)
                                               : sc_spheres_rows_f64(inb->n, inb->dims, inb->rows);
    const sc_spheres *b = job.against ? &vb : NULL;
    progress_state prog = {0, -1};
    job.options.sorted = job.sorted;
    job.options.log = log_warnings;
    if (!job.in.quiet && in->n >= 1000000 && isatty(STDERR_FILENO)) {
        job.options.progress = show_progress;
        job.options.progress_user = &prog;
        show_progress(0.0, &prog); /* from the query's first stage, not its search's */
    }
    sc_context *ctx = NULL;
    sc_status st = sc_context_create(&job.options, &ctx);
    if (st != SC_OK) {
        pairs_input_free(&pi);
        return fail(status_exit(st), "%s: cannot create the search context: %s", job.in.input,
                    sc_status_string(st));
    }
    pairs_result r;
    rc = pairs_query(&job, ctx, &view, b, &pi, &r);
    clear_progress(&prog);
    if (rc == EXIT_OK)
        rc = pairs_report(&job, &pi, &view, b, &r);
    sc_context_destroy(ctx);
    pairs_input_free(&pi);
    if (rc == EXIT_OK && (fflush(stdout) != 0 || ferror(stdout)))
        rc = fail(EXIT_OUTPUT, "standard output: cannot write: %s", strerror(errno));
    return rc;
}

/* ---- neighbors ------------------------------------------------------------------ */

/* Writes the list row by row; the first failure's message lands in err. */
static sc_io_status write_list(const char *path, sc_io_format fmt, size_t n, const uint64_t *off,
                               const uint32_t *idx, const double *val, const int64_t *ids,
                               char *err, size_t cap) {
    sc_pair_writer *w = NULL;
    sc_io_status ws = sc_list_writer_open(path, fmt, n, val != NULL, &w, err, cap);
    if (ws == SC_IO_OK && ids)
        ws = sc_pair_writer_use_ids(w, ids, NULL, err, cap);
    if (ws == SC_IO_OK && sc_pair_writer_needs_total(w))
        ws = sc_pair_writer_declare_total(w, off[n], err, cap);
    for (size_t i = 0; i < n && ws == SC_IO_OK; i++)
        ws = sc_list_writer_row(w, (uint32_t)i, idx + off[i], val ? val + off[i] : NULL,
                                (size_t)(off[i + 1] - off[i]), err, cap);
    if (ws == SC_IO_OK)
        return sc_pair_writer_finish(w, off[n], err, cap);
    sc_pair_writer_abort(w);
    return ws;
}

typedef struct nbr_job {
    input_args in;
    sc_io_format in_format, out_format;
    sc_options options;
    sc_nbr_spec spec;
} nbr_job;

/* neighbors' options into *job: EXIT_OK, or the exit code of the usage
 * error it reported. */
static int nbr_parse(int argc, char **argv, nbr_job *job) {
    memset(job, 0, sizeof *job);
    job->in_format = job->out_format = SC_IO_FORMAT_AUTO;
    job->options = sc_options_default();
    job->spec = (sc_nbr_spec){0, 0.0, SC_NBR_NONE};
    sc_nbr_spec *spec = &job->spec;
    args a = {argc, 1, argv, "neighbors"};
    int rc = 0, positional_only = 0;
    for (; a.i < argc; a.i++) {
        const char *arg = argv[a.i], *v = NULL;
        if (positional_only || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (job->in.input)
                return fail(EXIT_USAGE, "neighbors: more than one INPUT (\"%s\")", arg);
            job->in.input = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            positional_only = 1;
            continue;
        }
        const cli_option *opt = next_option(&a, CLI_NEIGHBORS, &v, &rc);
        if (!opt)
            return unknown_option(&a);
        if (rc)
            return rc;
        switch (opt->id) {
        case OPT_FULL: {
            spec->full = 1;
            break;
        }
        case OPT_SKIN: {
            char *end = NULL;
            if (v) {
                spec->skin = strtod(v, &end);
                if (end == v || *end != '\0' || !(spec->skin >= 0.0) ||
                    spec->skin > SC_MAX_ABS_VALUE)
                    rc = fail(EXIT_USAGE,
                              "neighbors: --skin must be a number from 0 to 1e150, not \"%s\"", v);
            }
            break;
        }
        case OPT_VALUES: {
            if (v && strcmp(v, "overlap") == 0)
                spec->value = SC_NBR_OVERLAP;
            else if (v && strcmp(v, "distance") == 0)
                spec->value = SC_NBR_DISTANCE;
            else if (v)
                rc = fail(EXIT_USAGE, "neighbors: --values must be overlap or distance, not \"%s\"",
                          v);
            break;
        }
        case OPT_FORMAT: {
            sc_io_format f;
            if (v && sc_io_format_parse(v, &f) != 0)
                rc = fail(EXIT_USAGE, "neighbors: unknown --format \"%s\"", v);
            else if (v &&
                     (f == SC_IO_FORMAT_F32 || f == SC_IO_FORMAT_F64 || f == SC_IO_FORMAT_TEXT))
                job->in_format = f;
            else if (v)
                job->out_format = f;
            break;
        }
        case OPT_INPUT_FORMAT: {
            if (v && sc_io_format_parse(v, &job->in_format) != 0)
                rc = fail(EXIT_USAGE, "neighbors: unknown --input-format \"%s\"", v);
            break;
        }
        default: /* what every command that reads a sphere file takes */
            rc = input_option(&a, opt->id, v, &job->in, &job->options);
            break;
        }
        if (rc)
            return rc;
    }
    return EXIT_OK;
}

/* What the options say together, and the output's place and format,
 * checked before any work. EXIT_OK, or the exit code of the error. */
static int nbr_check(nbr_job *job) {
    const char *input = job->in.input, *output = job->in.output;
    if (input == NULL)
        return fail(EXIT_USAGE, "neighbors: missing INPUT (see spherecollide neighbors --help)");
    if (job->spec.value != SC_NBR_NONE && output == NULL)
        return fail(EXIT_USAGE, "neighbors: --values are written with -o FILE.csv");
    if (job->in.ids && output == NULL)
        return fail(EXIT_USAGE,
                    "neighbors: --ids names the entries written with -o; there is no -o");
    if (job->out_format != SC_IO_FORMAT_AUTO && output == NULL)
        return fail(EXIT_USAGE, "neighbors: --format %s is an output format, but there is no -o",
                    sc_io_format_name(job->out_format));
    if (job->in_format == SC_IO_FORMAT_AUTO &&
        sc_io_spheres_format_for_path(input) == SC_IO_FORMAT_AUTO)
        return fail(EXIT_USAGE, "%s: raw binary input needs --format f32 or --format f64", input);
    if (!output)
        return EXIT_OK;
    char err[2048];
    sc_io_status ws = sc_io_check_writable(output, err, sizeof err);
    if (ws != SC_IO_OK)
        return fail(sc_io_exit_code(ws), "%s", err);
    if (job->out_format == SC_IO_FORMAT_AUTO)
        job->out_format =
            strcmp(output, "-") == 0 ? SC_IO_FORMAT_CSV : sc_io_pairs_format_for_path(output);
    if (job->out_format == SC_IO_FORMAT_AUTO)
        return fail(EXIT_USAGE,
                    "%s: cannot tell the list format from the name; use .npy, .csv "
                    "or .bin, or --format npy|csv|bin",
                    output);
    if (job->spec.value != SC_NBR_NONE && job->out_format != SC_IO_FORMAT_CSV)
        return fail(EXIT_USAGE, "%s: --values are written as csv (\"i,j,value\" lines), not %s",
                    output, sc_io_format_name(job->out_format));
    return EXIT_OK;
}

/* A neighbour list and what its report needs. */
typedef struct nbr_list {
    uint64_t *off; /* n + 1 offsets */
    uint32_t *idx;
    double *val; /* with --values, else NULL */
    sc_stats count, fill;
    double read_s, write_s;
} nbr_list;

/* Pass 1 (the offsets), the allocation it sizes, then pass 2 (the
 * entries). EXIT_OK with *st the query's status, or the exit code of the
 * allocation failure it reported. */
static int nbr_build(const nbr_job *job, sc_context *ctx, const sc_spheres *view, size_t n,
                     nbr_list *l, sc_status *st) {
    l->off = malloc((n + 1) * sizeof *l->off);
    *st = l->off ? sc_neighbors_count(ctx, view, &job->spec, l->off) : SC_ERR_OUT_OF_MEMORY;
    sc_context_stats(ctx, &l->count);
    if (*st != SC_OK)
        return EXIT_OK;
    const uint64_t m = l->off[n];
    const int values = job->spec.value != SC_NBR_NONE;
    l->idx = malloc((size_t)(m ? m : 1) * sizeof *l->idx);
    l->val = values ? malloc((size_t)(m ? m : 1) * sizeof *l->val) : NULL;
    if (!l->idx || (values && !l->val) || m > SIZE_MAX / 8)
        return fail(EXIT_NOMEM, "%s: the list has %llu entries: no memory for them (%.3g GB)",
                    job->in.input, (unsigned long long)m,
                    (double)m * (l->val || values ? 12.0 : 4.0) * 1e-9);
    *st = sc_neighbors_fill(ctx, view, &job->spec, l->off, l->idx, l->val);
    sc_context_stats(ctx, &l->fill);
    return EXIT_OK;
}

/* The report, as JSON or a table, to f. */
static void nbr_report(FILE *f, const nbr_job *job, const sc_io_spheres *in, const nbr_list *l) {
    const uint64_t entries = l->off[in->n];
    const sc_stats *s1 = &l->count, *s2 = &l->fill;
    if (job->in.json) {
        fprintf(f, "{\"n\":%zu,\"pairs\":%llu,\"entries\":%llu,\"full\":%d,\"skin\":", in->n,
                (unsigned long long)s2->pairs, (unsigned long long)entries, job->spec.full);
        json_number(f, job->spec.skin);
        fprintf(f, ",\"algorithm\":");
        json_string(f, sc_algorithm_name(job->options.algorithm));
        fprintf(f, ",\"threads\":%d,\"seconds\":{\"read\":", s2->threads);
        json_number(f, l->read_s);
        fprintf(f, ",\"count\":");
        json_number(f, s1->total_seconds);
        fprintf(f, ",\"fill\":");
        json_number(f, s2->total_seconds);
        fprintf(f, ",\"write\":");
        json_number(f, l->write_s);
        fprintf(f, "}}\n");
        return;
    }
    fprintf(f, "n              %zu (%s, %d-D)\n", in->n, dtype_name(in->dtype), in->dims);
    fprintf(f, "pairs          %llu\n", (unsigned long long)s2->pairs);
    fprintf(f, "entries        %llu (%s list, skin %.17g)\n", (unsigned long long)entries,
            job->spec.full ? "full" : "half", job->spec.skin);
    fprintf(f, "algorithm      %s, %d thread(s), %s kernel\n",
            sc_algorithm_name(job->options.algorithm), s2->threads, sc_kernel_name(s2->kernel));
    fprintf(f, "seconds        read %.6f  count %.6f  fill %.6f  write %.6f\n", l->read_s,
            s1->total_seconds, s2->total_seconds, l->write_s);
}

/* neighbors: parse, check, read, the two passes, write, report. */
static int cmd_neighbors(int argc, char **argv) {
    if (wants_help(argc, argv))
        return print_help(usage_neighbors, 0);
    nbr_job job;
    int rc = nbr_parse(argc, argv, &job);
    if (rc == EXIT_OK)
        rc = nbr_check(&job);
    if (rc != EXIT_OK)
        return rc;
    char err[2048];
    sc_io_read_options ro = {job.in_format,
                             job.in.dims2 ? 2 : 0,
                             0,
                             1,
                             job.in.radius,
                             job.in.dataset,
                             job.in.frame,
                             job.options.threads,
                             sc_huge_pages(),
                             0,
                             job.in.ids};
    sc_io_spheres in;
    nbr_list l = {NULL, NULL, NULL, {.size = sizeof(sc_stats)}, {.size = sizeof(sc_stats)}, 0, 0};
    double t0 = now_seconds();
    const int notice = reading_notice(job.in.input, job.in.quiet);
    sc_io_status rs = sc_io_read_spheres(job.in.input, &ro, &in, err, sizeof err);
    reading_done(notice);
    l.read_s = now_seconds() - t0;
    if (rs != SC_IO_OK)
        return fail(sc_io_exit_code(rs), "%s", err);
    if (job.in.box_axes) {
        const int brc =
            box_for_input("neighbors", job.in.input, &in, job.in.box_axes, &job.options.box);
        if (brc) {
            sc_io_spheres_free(&in);
            return brc;
        }
    }
    sc_spheres view = in.dtype == SC_F32 ? sc_spheres_rows_f32(in.n, in.dims, in.rows)
                                         : sc_spheres_rows_f64(in.n, in.dims, in.rows);
    job.options.log = log_warnings;
    sc_context *ctx = NULL;
    sc_status st = sc_context_create(&job.options, &ctx);
    if (st != SC_OK) {
        sc_io_spheres_free(&in);
        return fail(status_exit(st), "%s: cannot create the search context: %s", job.in.input,
                    sc_status_string(st));
    }
    rc = nbr_build(&job, ctx, &view, in.n, &l, &st);
    if (rc == EXIT_OK && st != SC_OK)
        rc = search_failed(job.in.input, &in, &view, &job.options, st);
    if (rc == EXIT_OK && job.in.output) {
        const double w0 = now_seconds();
        sc_io_status ws = write_list(job.in.output, job.out_format, in.n, l.off, l.idx, l.val,
                                     in.ids, err, sizeof err);
        l.write_s = now_seconds() - w0;
        if (ws != SC_IO_OK)
            rc = fail(sc_io_exit_code(ws), "%s", err);
    }
    const int to_stdout = job.in.output != NULL && strcmp(job.in.output, "-") == 0;
    if (rc == EXIT_OK && (!job.in.quiet || job.in.json))
        nbr_report(to_stdout ? stderr : stdout, &job, &in, &l);
    free(l.off);
    free(l.idx);
    free(l.val);
    sc_context_destroy(ctx);
    sc_io_spheres_free(&in);
    if (rc == EXIT_OK && (fflush(stdout) != 0 || ferror(stdout)))
        rc = fail(EXIT_OUTPUT, "standard output: cannot write: %s", strerror(errno));
    return rc;
}

/* ---- gen ----------------------------------------------------------------------- */

/* Lays n rows out in the default grid's cell order: 0, or an exit code
 * after the message. */
static int gen_cell_order(double *rows, size_t n) {
    uint32_t *order = malloc(n * sizeof *order);
    double *copy = malloc(n * 4 * sizeof *copy);
    sc_context *ctx = NULL;
    sc_status st = order && copy ? sc_context_create(NULL, &ctx) : SC_ERR_OUT_OF_MEMORY;
    if (st == SC_OK) {
        const sc_spheres view = sc_spheres_rows_f64(n, 3, rows);
        st = sc_cell_order(ctx, &view, order);
    }
    sc_context_destroy(ctx);
    if (st == SC_OK) {
        for (size_t k = 0; k < n; k++)
            memcpy(copy + 4 * k, rows + 4 * (size_t)order[k], 4 * sizeof *copy);
        memcpy(rows, copy, n * 4 * sizeof *copy);
    }
    free(order);
    free(copy);
    if (st == SC_ERR_OUT_OF_MEMORY)
        return fail(EXIT_NOMEM, "gen: out of memory for the cell order of %zu spheres", n);
    if (st != SC_OK)
        return fail(EXIT_INTERNAL, "gen: the cell order failed: %s", sc_status_string(st));
    return 0;
}

static int cmd_gen(int argc, char **argv) {
    if (wants_help(argc, argv))
        return print_help(usage_gen, 1);
    args a = {argc, 0, argv, "gen"};
    const char *dist = NULL, *count = NULL, *output = NULL;
    uint64_t seed = 1;
    int quiet = 0, cell_order = 0;
    sc_io_format format = SC_IO_FORMAT_AUTO;
    int only_positional = 0;
    for (a.i = 1; a.i < argc; a.i++) {
        const char *arg = argv[a.i];
        const char *v = NULL;
        int rc = 0;
        /* "-5" is a (bad) N, not an option */
        int negative_number = arg[0] == '-' && arg[1] >= '0' && arg[1] <= '9';
        if (only_positional || arg[0] != '-' || strcmp(arg, "-") == 0 || negative_number) {
            if (dist == NULL)
                dist = arg;
            else if (count == NULL)
                count = arg;
            else
                return unknown_option(&a);
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_positional = 1;
            continue;
        }
        const cli_option *opt = next_option(&a, CLI_GEN, &v, &rc);
        if (!opt)
            return unknown_option(&a);
        if (rc)
            return rc;
        switch (opt->id) {
        case OPT_OUTPUT: {
            if (!rc && output)
                return fail(EXIT_USAGE, "gen: more than one -o");
            output = v;
            break;
        }
        case OPT_SEED: {
            if (!rc && parse_u64(v, &seed) != 0)
                rc = fail(EXIT_USAGE, "gen: --seed must be an unsigned 64-bit integer, not \"%s\"",
                          v);
            break;
        }
        case OPT_FORMAT: {
            if (!rc && (sc_io_format_parse(v, &format) != 0 || format == SC_IO_FORMAT_BIN))
                rc = fail(EXIT_USAGE,
                          "gen: --format must be npy, text, csv, f32 or f64, not \"%s\"", v);
            break;
        }
        case OPT_QUIET: {
            quiet = 1;
            break;
        }
        case OPT_CELL_ORDER: {
            cell_order = 1;
            break;
        }
        default: return unknown_option(&a);
        }
        if (rc)
            return rc;
    }
    if (dist == NULL || count == NULL)
        return fail(EXIT_USAGE, "gen: needs DIST and N (see spherecollide gen --help)");
    int known = 0;
    for (const char *const *n = sc_gen_names(); *n; n++)
        known |= strcmp(*n, dist) == 0;
    if (!known) {
        char names[512] = "";
        for (const char *const *n = sc_gen_names(); *n; n++) {
            strncat(names, names[0] ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, *n, sizeof names - strlen(names) - 1);
        }
        return fail(EXIT_USAGE, "gen: unknown distribution \"%s\" (one of: %s)", dist, names);
    }
    size_t n = 0;
    int pc = parse_count(count, &n);
    if (pc == -2)
        return fail(EXIT_USAGE, "gen: N = %s is more than %zu spheres", count, SC_MAX_SPHERES);
    if (pc != 0)
        return fail(EXIT_USAGE,
                    "gen: N must be a non-negative integer (like 1000000 or 1e6), "
                    "not \"%s\"",
                    count);
    if (output == NULL)
        return fail(EXIT_USAGE, "gen: missing -o FILE");
    char err[2048];
    sc_io_status ws = sc_io_check_writable(output, err, sizeof err);
    if (ws != SC_IO_OK)
        return fail(sc_io_exit_code(ws), "%s", err);
    if (format == SC_IO_FORMAT_AUTO && sc_io_spheres_format_for_path(output) == SC_IO_FORMAT_AUTO)
        return fail(EXIT_USAGE, "%s: raw binary output needs --format f32 or --format f64", output);
    double *rows = NULL;
    if (n > 0) {
        rows = (n > SIZE_MAX / (4 * sizeof *rows)) ? NULL : malloc(n * 4 * sizeof *rows);
        if (rows == NULL)
            return fail(EXIT_NOMEM, "gen: out of memory for %zu spheres", n);
    }
    if (sc_gen_generate(dist, n, seed, rows) != 0) {
        free(rows);
        return fail(EXIT_INTERNAL, "gen: the generator refused \"%s\"", dist);
    }
    if (cell_order && n > 1) {
        const int rc = gen_cell_order(rows, n);
        if (rc) {
            free(rows);
            return rc;
        }
    }
    ws = sc_io_write_spheres(output, format, n, 3, rows, err, sizeof err);
    free(rows);
    if (ws != SC_IO_OK)
        return fail(sc_io_exit_code(ws), "%s", err);
    sc_io_format shown =
        format != SC_IO_FORMAT_AUTO ? format : sc_io_spheres_format_for_path(output);
    /* the line goes to stderr when the spheres went to stdout (-o -) */
    if (!quiet)
        fprintf(strcmp(output, "-") == 0 ? stderr : stdout,
                "wrote %zu %s spheres (seed %llu%s) to %s (%s)\n", n, dist,
                (unsigned long long)seed, cell_order ? ", in cell order" : "", output,
                sc_io_format_name(shown));
    if (fflush(stdout) != 0 || ferror(stdout))
        return fail(EXIT_OUTPUT, "standard output: cannot write: %s", strerror(errno));
    return EXIT_OK;
}

/* ---- info ------------------------------------------------------------------------ */

static int cmd_info(int argc, char **argv) {
    if (wants_help(argc, argv))
        return print_help(usage_info, 0);
    sc_options o = sc_options_default();
    args a = {argc, 0, argv, "info"};
    for (a.i = 1; a.i < argc; a.i++) {
        const char *v = NULL;
        int rc = 0;
        const cli_option *opt = next_option(&a, CLI_INFO, &v, &rc);
        if (!opt)
            return unknown_option(&a);
        if (rc == 0)
            rc = search_option(&a, opt->id, v, &o);
        if (rc)
            return rc;
    }
    size_t need = sc_system_info(&o, NULL, 0);
    char *buf = malloc(need + 1);
    if (buf == NULL)
        return fail(EXIT_NOMEM, "info: out of memory");
    sc_system_info(&o, buf, need + 1);
    fputs(buf, stdout);
    if (need == 0 || buf[need - 1] != '\n')
        fputc('\n', stdout);
    free(buf);
    if (fflush(stdout) != 0 || ferror(stdout))
        return fail(EXIT_OUTPUT, "standard output: cannot write: %s", strerror(errno));
    return EXIT_OK;
}

/* ---- main --------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    install_signal_handlers();
    if (argc < 2)
        return fail(
            EXIT_USAGE,
            "missing command: pairs, neighbors, gen, info or simulate (see spherecollide --help)");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (argc > 2 && strcmp(cmd, "help") == 0) {
            if (strcmp(argv[2], "pairs") == 0)
                return print_help(usage_pairs, 0);
            if (strcmp(argv[2], "gen") == 0)
                return print_help(usage_gen, 1);
            if (strcmp(argv[2], "neighbors") == 0)
                return print_help(usage_neighbors, 0);
            if (strcmp(argv[2], "info") == 0)
                return print_help(usage_info, 0);
            if (strcmp(argv[2], "simulate") == 0)
                return print_help(sc_simulate_usage, 0);
            return fail(EXIT_USAGE, "help: unknown command \"%s\"", argv[2]);
        }
        return print_help(usage_main, 0);
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
        printf("spherecollide %s\n", sc_version());
        return EXIT_OK;
    }
    if (strcmp(cmd, "pairs") == 0)
        return cmd_pairs(argc - 1, argv + 1);
    if (strcmp(cmd, "neighbors") == 0)
        return cmd_neighbors(argc - 1, argv + 1);
    if (strcmp(cmd, "gen") == 0)
        return cmd_gen(argc - 1, argv + 1);
    if (strcmp(cmd, "info") == 0)
        return cmd_info(argc - 1, argv + 1);
    if (strcmp(cmd, "simulate") == 0)
        return sc_cmd_simulate(argc - 1, argv + 1);
    return fail(EXIT_USAGE,
                "unknown command \"%s\" (pairs, neighbors, gen, info or simulate; see "
                "spherecollide --help)",
                cmd);
}
