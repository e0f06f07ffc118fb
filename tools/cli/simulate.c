/*
 * simulate.c: `spherecollide simulate`, elastic balls in a box
 * (include/spherecollide_sim.h) frame after frame, with per-frame
 * statistics on stdout and in a CSV file.
 */
#include "options.h"
#include "simulate.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sc_gen.h"
#include "sc_io.h"
#include "sim_frames.h"
#include "spherecollide_sim.h"

enum { SIM_OK = 0, SIM_INTERNAL = 1, SIM_USAGE = 2, SIM_OUTPUT = 6, SIM_NOMEM = 7 };

const char sc_simulate_usage[] =
    "Usage: spherecollide simulate [options]\n"
    "Elastic balls in a box, frame after frame: move, find the\n"
    "colliding pairs, apply elastic impulses to approaching pairs, reflect at walls.\n"
    "The defaults are an 8,000-ball demo: circles of radii 2.5 + 77.5 * 0.92^i.\n"
    "\n"
    "  --dims 2|3           circles or spheres (2)\n"
    "  --n N                balls (8000)\n"
    "  --box L0,L1[,L2]     the box's extent per axis (1400,600[,600])\n"
    "  --dt T               time step (1/60)\n"
    "  --speed V            initial speed, random directions (50)\n"
    "  --radii R            sequence (2.5 + 77.5 * 0.92^i; seed002 is another name),\n"
    "                       const:R0, uniform:R0,R1,\n"
    "                       gen:NAME (the radii of `spherecollide gen NAME` with this\n"
    "                       --n and --seed) or file:PATH (the first N radii of a\n"
    "                       sphere file, any format `pairs` reads: text and raw\n"
    "                       rows of x, y, r in 2-D and x, y, z, r in 3-D)\n"
    "  --lattice P          centres on a square (cubic) lattice of pitch P, x fastest,\n"
    "                       first point at P/2; default: uniform at random\n"
    "  --velocities RULE    direction (|v| = speed, random direction; default) or\n"
    "                       components (each uniform in [-speed, speed])\n"
    "  --seed S             the run's random seed (1)\n"
    "  --steps K            steps to run (5)\n"
    "  --algorithm NAME     the pair search: @ALGORITHMS@\n"
    "  --threads N          threads (0: one per core, less those other programs keep\n"
    "                       busy when a step is short)\n"
    "  --reorder K          renumber the balls in the grid's cell order every K steps\n"
    "                       (0: never; default): neighbours then sit near each other\n"
    "                       in memory\n"
    "  --warm               frame coherence: sap repairs the last step's sweep order\n"
    "                       instead of sorting afresh, bvh refits the last tree\n"
    "  --csv FILE           write one row per step to FILE\n"
    "  --frames DIR         write a PNG picture of every K-th step to DIR (which must\n"
    "                       exist) as frame-NNNNNN.png: 2-D circles coloured by speed,\n"
    "                       3-D seen along z, darker with depth; colliding pairs in white\n"
    "  --colour BY          with --frames or --animate: speed (default) or radius\n"
    "                       (on a log scale from the smallest to the largest)\n"
    "  --every K            with --frames: every K-th step (1)\n"
    "  --animate FILE.gif   write the same pictures as a looping animated GIF\n"
    "  --width PX           with --frames or --animate: picture width in pixels (1000)\n"
    "  --quiet, -q          no per-step lines on stdout\n"
    "  -h, --help           this help\n"
    "\n"
    "Trajectories are the same, bit for bit, for every --threads and --algorithm.\n"
    "Exit codes: 0 ok, 2 bad command line or parameters, 3 cannot read the\n"
    "--radii file, 4 malformed file, 5 invalid values in it, 6 cannot write the CSV\n"
    "or pictures, 7 out of memory, 1 any other failure of the library.\n";

static int sim_fail(int code, const char *fmt, const char *a, const char *b) {
    fprintf(stderr, "spherecollide: simulate: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return code;
}

static int parse_double(const char *s, double *out) {
    char *end;
    errno = 0;
    const double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

static int parse_u64(const char *s, unsigned long long max, unsigned long long *out) {
    char *end;
    if (*s == '-' || *s == '\0')
        return -1;
    errno = 0;
    const unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v > max)
        return -1;
    *out = v;
    return 0;
}

/* "a,b[,c]" into up to 3 doubles; returns how many, -1 on a bad number */
static int parse_list(const char *s, double v[3]) {
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    int k = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (k == 3 || parse_double(tok, &v[k]) != 0)
            return -1;
        k++;
    }
    return k;
}

/* The radii of --radii gen:NAME or file:PATH into a new array of n; 0, or
 * the exit code after a one-line message. */
static int given_radii(const char *spec, size_t n, int dims, uint64_t seed, double **out) {
    double *r = malloc((n ? n : 1) * sizeof *r);
    if (!r)
        return sim_fail(SIM_NOMEM, "out of memory for %s%s", spec, "");
    if (strncmp(spec, "gen:", 4) == 0) {
        double *rows = malloc(4 * n * sizeof *rows);
        if (!rows) {
            free(r);
            return sim_fail(SIM_NOMEM, "out of memory for %s%s", spec, "");
        }
        if (sc_gen_generate(spec + 4, n, seed, rows) != 0) {
            free(rows);
            free(r);
            return sim_fail(SIM_USAGE,
                            "--radii: unknown generator \"%s\" (see `spherecollide gen --help`)%s",
                            spec + 4, "");
        }
        for (size_t i = 0; i < n; i++)
            r[i] = rows[4 * i + 3];
        free(rows);
    } else { /* file:PATH */
        const char *path = spec + 5;
        sc_io_spheres f;
        char err[512];
        /* text and raw rows as the run's dims say; .npy by its shape */
        sc_io_read_options ro = {SC_IO_FORMAT_AUTO, 0, 0, 0, NULL, NULL, 0, 0,
                                 sc_huge_pages(),   0, 0};
        if (sc_io_spheres_format_for_path(path) != SC_IO_FORMAT_NPY)
            ro.dims = dims;
        const sc_io_status st = sc_io_read_spheres(path, &ro, &f, err, sizeof err);
        if (st != SC_IO_OK) {
            free(r);
            return sim_fail(sc_io_exit_code(st), "--radii: %s%s", err, "");
        }
        if (f.n < n) {
            char what[96];
            snprintf(what, sizeof what, "%zu spheres, fewer than --n %zu", f.n, n);
            sc_io_spheres_free(&f);
            free(r);
            return sim_fail(SIM_USAGE, "--radii: %s: holds %s", path, what);
        }
        const size_t cols = (size_t)f.dims + 1;
        for (size_t i = 0; i < n; i++)
            r[i] = f.dtype == SC_F64 ? ((const double *)f.rows)[i * cols + cols - 1]
                                     : (double)((const float *)f.rows)[i * cols + cols - 1];
        sc_io_spheres_free(&f);
    }
    *out = r;
    return 0;
}

/* Non-zero, with the reason in err, when pictures cannot be written to dir:
 * missing, not a directory, or not writable. */
static int frames_dir_problem(const char *dir, char *err, size_t cap) {
    struct stat st;
    if (stat(dir, &st) != 0) {
        snprintf(err, cap, "%s: cannot write pictures: %s (--frames needs an existing folder)", dir,
                 strerror(errno));
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, cap, "%s: cannot write pictures: not a folder", dir);
        return 1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, cap, "%s: cannot write pictures: %s", dir, strerror(errno));
        return 1;
    }
    return 0;
}

/* The animation's bytes into its file writer (sim_frames.h: gif_put). */
typedef struct gif_out {
    sc_file_writer *w;
    char err[512];
} gif_out;

static int gif_put(void *user, const void *data, size_t len) {
    gif_out *g = user;
    return sc_file_writer_put(g->w, data, len, g->err, sizeof g->err) == SC_IO_OK ? 0 : -1;
}

/* One CSV row into the writer (rows are far shorter than the buffer). */
static sc_io_status put_row(sc_file_writer *w, char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static sc_io_status put_row(sc_file_writer *w, char *err, size_t cap, const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    const int len = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof line) {
        snprintf(err, cap, "a CSV row too long");
        return SC_IO_ERR_INTERNAL;
    }
    return sc_file_writer_put(w, line, (size_t)len, err, cap);
}

/* What simulate's options ask for. */
typedef struct sim_job {
    sc_sim_params p;
    sc_options o;
    unsigned long long steps, every, width;
    const char *csv, *frames_dir, *gif;
    const char *radii_from; /* gen:NAME or file:PATH */
    int quiet, box_given, by_radius;
} sim_job;

enum { SIM_HELP = -1 }; /* sim_parse: --help printed */

/* simulate's options into *j: SIM_OK, SIM_HELP, or the exit code of the
 * usage error it reported. One function, though long: a case per option
 * of the table (options.c), each with its own check. */
static int sim_parse(int argc, char **argv, sim_job *j) {
    *j = (sim_job){.p = sc_sim_params_default(),
                   .o = sc_options_default(),
                   .steps = 5,
                   .every = 1,
                   .width = 1000};
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *inline_value = NULL;
        const cli_option *opt = cli_option_find(CLI_SIMULATE, a, &inline_value);
        if (opt && opt->id == OPT_HELP) {
            sc_cli_put_usage(stdout, sc_simulate_usage);
            return SIM_HELP;
        }
        if (opt && opt->id == OPT_QUIET) {
            j->quiet = 1;
            continue;
        }
        if (opt && opt->id == OPT_WARM) {
            j->o.sap.warm = 1;
            j->o.bvh.refit = 1;
            continue;
        }
        if (!inline_value && (k + 1 >= argc || strncmp(a, "--", 2) != 0))
            return sim_fail(SIM_USAGE,
                            "unknown or incomplete option \"%s\"%s (see simulate --help)", a, "");
        if (!opt)
            return sim_fail(SIM_USAGE, "unknown option \"%s\"%s (see simulate --help)", a, "");
        const char *v = inline_value ? inline_value : argv[++k];
        if (inline_value)
            a = opt->name; /* the messages name the option, not "--name=VALUE" */
        unsigned long long u = 0;
        double d[3] = {0, 0, 0};
        int bad = 0;
        switch (opt->id) {
        case OPT_DIMS: {
            bad = parse_u64(v, 3, &u) != 0 || u < 2;
            j->p.dims = (int)u;
            break;
        }
        case OPT_N: {
            bad = parse_u64(v, 1ull << 31, &u) != 0 || u < 1;
            j->p.n = (size_t)u;
            break;
        }
        case OPT_BOX: {
            const int m = parse_list(v, d);
            bad = m < 2;
            for (int i = 0; i < m && !bad; i++)
                j->p.box[i] = d[i];
            if (m == 2)
                j->p.box[2] = d[1];
            j->box_given = 1;
            break;
        }
        case OPT_DT: {
            bad = parse_double(v, &j->p.dt) != 0;
            break;
        }
        case OPT_SPEED: {
            bad = parse_double(v, &j->p.speed) != 0;
            break;
        }
        case OPT_RADII: {
            if (strcmp(v, "sequence") == 0 || strcmp(v, "seed002") == 0) {
                j->p.radii = SC_SIM_RADII_SEQUENCE;
            } else if (strncmp(v, "const:", 6) == 0) {
                j->p.radii = SC_SIM_RADII_CONSTANT;
                bad = parse_double(v + 6, &j->p.r0) != 0;
            } else if (strncmp(v, "uniform:", 8) == 0) {
                j->p.radii = SC_SIM_RADII_UNIFORM;
                bad = parse_list(v + 8, d) != 2;
                j->p.r0 = d[0];
                j->p.r1 = d[1];
            } else if ((strncmp(v, "gen:", 4) == 0 && v[4]) ||
                       (strncmp(v, "file:", 5) == 0 && v[5])) {
                j->p.radii = SC_SIM_RADII_GIVEN;
                j->radii_from = v;
            } else {
                bad = 1;
            }
            break;
        }
        case OPT_REORDER: {
            bad = parse_u64(v, 1u << 30, &u) != 0;
            j->p.reorder = (int)u;
            break;
        }
        case OPT_LATTICE: {
            j->p.placement = SC_SIM_PLACE_LATTICE;
            bad = parse_double(v, &j->p.spacing) != 0;
            break;
        }
        case OPT_VELOCITIES: {
            if (strcmp(v, "direction") == 0)
                j->p.velocities = SC_SIM_VEL_DIRECTION;
            else if (strcmp(v, "components") == 0)
                j->p.velocities = SC_SIM_VEL_COMPONENTS;
            else
                bad = 1;
            break;
        }
        case OPT_SEED: {
            bad = parse_u64(v, ~0ull, &u) != 0;
            j->p.seed = u;
            break;
        }
        case OPT_STEPS: {
            bad = parse_u64(v, 1ull << 40, &j->steps) != 0;
            break;
        }
        case OPT_ALGORITHM: {
            bad = sc_algorithm_named(v, &j->o.algorithm) != SC_OK;
            break;
        }
        case OPT_THREADS: {
            bad = parse_u64(v, 4096, &u) != 0;
            j->o.threads = (int)u;
            break;
        }
        case OPT_CSV: {
            j->csv = v;
            break;
        }
        case OPT_FRAMES: {
            j->frames_dir = v;
            break;
        }
        case OPT_ANIMATE: {
            j->gif = v;
            break;
        }
        case OPT_EVERY: {
            bad = parse_u64(v, 1ull << 40, &j->every) != 0 || j->every < 1;
            break;
        }
        case OPT_COLOUR: {
            j->by_radius = strcmp(v, "radius") == 0;
            bad = !j->by_radius && strcmp(v, "speed") != 0;
            break;
        }
        case OPT_WIDTH: {
            bad = parse_u64(v, 8192, &j->width) != 0 || j->width < 16;
            break;
        }
        default: return sim_fail(SIM_USAGE, "unknown option \"%s\"%s (see simulate --help)", a, "");
        }
        if (bad)
            return sim_fail(SIM_USAGE, "%s: bad value \"%s\" (see simulate --help)", a, v);
    }
    return SIM_OK;
}

/* The outputs checked before any work (so a typo costs nothing), the given
 * radii read, the system made. SIM_OK with *sim, or the exit code of the
 * error it reported. */
static int sim_prepare(sim_job *j, sc_sim **sim) {
    if (!j->box_given && j->p.dims == 3)
        j->p.box[2] = 600.0;
    char werr[512];
    const char *outs[2] = {j->csv, j->gif};
    for (int k = 0; k < 2; k++)
        if (outs[k] && sc_io_check_writable(outs[k], werr, sizeof werr) != SC_IO_OK)
            return sim_fail(SIM_OUTPUT, "%s%s", werr, "");
    if (j->frames_dir && frames_dir_problem(j->frames_dir, werr, sizeof werr))
        return sim_fail(SIM_OUTPUT, "%s%s", werr, "");
    double *given = NULL;
    if (j->p.radii == SC_SIM_RADII_GIVEN) {
        const int code = given_radii(j->radii_from, j->p.n, j->p.dims, j->p.seed, &given);
        if (code != 0)
            return code;
        j->p.radius = given;
    }
    sc_status st = sc_sim_create(&j->p, &j->o, sim);
    if (st != SC_OK) {
        free(given);
        return sim_fail(st == SC_ERR_OUT_OF_MEMORY ? SIM_NOMEM : SIM_USAGE, "%s%s",
                        sc_sim_problem(), "");
    }
    free(given);
    return SIM_OK;
}

/* simulate: parse, prepare, then the steps with their rows, pictures and
 * outputs. */
int sc_cmd_simulate(int argc, char **argv) {
    sim_job job;
    int rc = sim_parse(argc, argv, &job);
    if (rc == SIM_HELP)
        return SIM_OK;
    sc_sim *sim = NULL;
    if (rc == SIM_OK)
        rc = sim_prepare(&job, &sim);
    if (rc != SIM_OK)
        return rc;
    const sim_job *j = &job;
    const sc_sim_params p = j->p;
    const sc_options o = j->o;
    sc_status st = SC_OK;
    sc_frames *frames = NULL;
    const sc_frames_api *pictures = NULL;
    char err[4400];
    /* The CSV and the animation go to temporary files renamed onto their
     * names only when the run ends well: a failed or interrupted run (the
     * tool's signal handler removes the temporaries) leaves no truncated
     * file, and a user's earlier file at that name as it was. */
    sc_file_writer *out = NULL;
    gif_out anim = {NULL, ""};
    if (j->csv && sc_file_writer_open(j->csv, &out, err, sizeof err) != SC_IO_OK)
        rc = sim_fail(SIM_OUTPUT, "%s%s", err, "");
    if (rc == SIM_OK && j->gif && sc_file_writer_open(j->gif, &anim.w, err, sizeof err) != SC_IO_OK)
        rc = sim_fail(SIM_OUTPUT, "%s%s", err, "");
    if (rc == SIM_OK && (j->frames_dir || j->gif)) {
        pictures = sc_frames_load(err, sizeof err);
        if (!pictures)
            rc = sim_fail(SIM_USAGE, "%s%s", err, "");
    }
    if (rc == SIM_OK && pictures) {
        sc_frames_colour colour = {SC_FRAMES_BY_SPEED, 0.0, 2.0 * p.speed};
        if (j->by_radius) { /* the range of the radii the run starts with */
            const sc_sim_balls b = sc_sim_get_balls(sim);
            colour = (sc_frames_colour){SC_FRAMES_BY_RADIUS, b.r[0], b.r[0]};
            for (size_t i = 1; i < b.n; i++) {
                colour.lo = b.r[i] < colour.lo ? b.r[i] : colour.lo;
                colour.hi = b.r[i] > colour.hi ? b.r[i] : colour.hi;
            }
        }
        frames = pictures->open(j->frames_dir, j->gif, j->gif ? gif_put : NULL, &anim,
                                (int)j->width, p.box, p.dims, &colour, p.n, err, sizeof err);
        if (!frames)
            rc = sim_fail(SIM_OUTPUT, "%s%s", anim.err[0] ? anim.err : err, "");
    }
    if (rc == SIM_OK && out &&
        put_row(out, err, sizeof err, "%s",
                "step,time,ms_move,ms_search,ms_response,candidate_tests,collisions,reactions,"
                "kinetic_energy,momentum_x,momentum_y,momentum_z,algorithm,threads\n") != SC_IO_OK)
        rc = sim_fail(SIM_OUTPUT, "%s%s", err, "");
    if (rc == SIM_OK && !j->quiet)
        printf("%8s %10s %9s %9s %9s %12s %10s %10s %14s\n", "step", "time", "ms_move", "ms_search",
               "ms_resp", "tests", "collisions", "reactions", "energy");
    for (unsigned long long k = 0; rc == SIM_OK && k < j->steps; k++) {
        sc_sim_frame f;
        st = sc_sim_step(sim, &f);
        if (st != SC_OK) {
            rc = st == SC_ERR_OUT_OF_MEMORY ? SIM_NOMEM : SIM_INTERNAL;
            sim_fail(rc, "step failed: %s%s", sc_status_string(st), "");
            break;
        }
        if (!j->quiet)
            printf("%8llu %10.4f %9.3f %9.3f %9.3f %12llu %10llu %10llu %14.6e\n",
                   (unsigned long long)f.step, f.time, f.ms_move, f.ms_search, f.ms_response,
                   (unsigned long long)f.candidate_tests, (unsigned long long)f.collisions,
                   (unsigned long long)f.reactions, f.kinetic_energy);
        if (frames && f.step % j->every == 0) {
            size_t np = 0;
            const uint32_t *pairs = sc_sim_last_pairs(sim, &np);
            const sc_sim_balls b = sc_sim_get_balls(sim);
            if (pictures->write(frames, &b, pairs, np, f.step, err, sizeof err) != 0) {
                rc = sim_fail(SIM_OUTPUT, "%s%s", anim.err[0] ? anim.err : err, "");
                break;
            }
        }
        if (out &&
            put_row(out, err, sizeof err,
                    "%llu,%.17g,%.4f,%.4f,%.4f,%llu,%llu,%llu,%.17g,%.17g,%.17g,%.17g,%s,%d\n",
                    (unsigned long long)f.step, f.time, f.ms_move, f.ms_search, f.ms_response,
                    (unsigned long long)f.candidate_tests, (unsigned long long)f.collisions,
                    (unsigned long long)f.reactions, f.kinetic_energy, f.momentum[0], f.momentum[1],
                    f.momentum[2], sc_algorithm_name(o.algorithm), o.threads) != SC_IO_OK)
            rc = sim_fail(SIM_OUTPUT, "%s%s", err, "");
    }
    if (pictures && pictures->close(frames, err, sizeof err) != 0 && rc == SIM_OK)
        rc = sim_fail(SIM_OUTPUT, "%s%s", anim.err[0] ? anim.err : err, "");
    if (rc == SIM_OK && anim.w) {
        const sc_io_status ws = sc_file_writer_commit(anim.w, err, sizeof err);
        anim.w = NULL;
        if (ws != SC_IO_OK)
            rc = sim_fail(SIM_OUTPUT, "%s%s", err, "");
    }
    if (rc == SIM_OK && out) {
        const sc_io_status ws = sc_file_writer_commit(out, err, sizeof err);
        out = NULL;
        if (ws != SC_IO_OK)
            rc = sim_fail(SIM_OUTPUT, "%s%s", err, "");
    }
    sc_file_writer_discard(anim.w); /* a failed run: nothing half-written */
    sc_file_writer_discard(out);
    sc_sim_destroy(sim);
    return rc;
}
