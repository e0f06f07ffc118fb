/*
 * test_sim.c: the ball simulation (include/spherecollide_sim.h): analytic
 * two-ball collisions, conservation, walls, the pair set of each frame
 * against a brute-force oracle, identical trajectories for every thread
 * count and algorithm, and bad parameters.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spherecollide_sim.h"

static int make_reorder; /* params.reorder for make() */

static sc_sim *make(int dims, size_t n, double L, double speed, double r, int threads,
                    sc_algorithm algo, uint64_t seed) {
    sc_sim_params p = sc_sim_params_default();
    p.reorder = make_reorder;
    p.dims = dims;
    p.n = n;
    p.box[0] = p.box[1] = p.box[2] = L;
    p.speed = speed;
    p.radii = SC_SIM_RADII_UNIFORM;
    p.r0 = 0.5 * r;
    p.r1 = r;
    p.seed = seed;
    p.dt = 0.05;
    sc_options o = sc_options_default();
    o.threads = threads;
    o.algorithm = algo;
    o.pin = SC_PIN_NONE;
    sc_sim *s = NULL;
    const sc_status st = sc_sim_create(&p, &o, &s);
    CHECK(st == SC_OK && s, "sc_sim_create: %s (%s)", sc_status_string(st), sc_sim_problem());
    return s;
}

/* Two balls 1 and 2 at (x, y), set by hand. */
static sc_sim *two(double r1, double r2) {
    sc_sim_params p = sc_sim_params_default();
    p.n = 2;
    p.box[0] = p.box[1] = 100.0;
    p.radii = SC_SIM_RADII_CONSTANT;
    p.r0 = 1.0;
    p.dt = 1e-3;
    sc_sim *s = NULL;
    CHECK(sc_sim_create(&p, NULL, &s) == SC_OK, "two balls");
    sc_sim_balls b = sc_sim_get_balls(s);
    b.r[0] = r1;
    b.r[1] = r2;
    return s;
}

static void test_two_balls(void) {
    /* head-on, equal masses: the velocities swap, exactly */
    sc_sim *s = two(1.0, 1.0);
    sc_sim_balls b = sc_sim_get_balls(s);
    b.x[0] = 40.0, b.y[0] = 50.0, b.vx[0] = 1.0, b.vy[0] = 0.0;
    b.x[1] = 41.5, b.y[1] = 50.0, b.vx[1] = -1.0, b.vy[1] = 0.0;
    sc_sim_frame f;
    CHECK(sc_sim_step(s, &f) == SC_OK && f.collisions == 1 && f.reactions == 1,
          "head-on: %llu, %llu", (unsigned long long)f.collisions, (unsigned long long)f.reactions);
    CHECK(b.vx[0] == -1.0 && b.vx[1] == 1.0 && b.vy[0] == 0.0 && b.vy[1] == 0.0,
          "head-on: velocities (%g, %g) (%g, %g)", b.vx[0], b.vy[0], b.vx[1], b.vy[1]);
    /* the next step they separate: a collision, no reaction */
    CHECK(sc_sim_step(s, &f) == SC_OK && f.collisions == 1 && f.reactions == 0, "separating pair");
    sc_sim_destroy(s);

    /* oblique, masses 1 and 4 (2-D: r^2): the textbook result */
    s = two(1.0, 2.0);
    b = sc_sim_get_balls(s);
    b.x[0] = 40.0, b.y[0] = 50.0, b.vx[0] = 3.0, b.vy[0] = 1.0;
    b.x[1] = 42.0, b.y[1] = 51.5, b.vx[1] = -1.0, b.vy[1] = 0.5;
    const double dt = 1e-3;
    double x1[2] = {40.0 + 3.0 * dt, 50.0 + 1.0 * dt}, x2[2] = {42.0 - 1.0 * dt, 51.5 + 0.5 * dt};
    const double m1 = 1.0, m2 = 4.0;
    const double dx = x1[0] - x2[0], dy = x1[1] - x2[1], d2 = dx * dx + dy * dy;
    const double dot = (3.0 - -1.0) * dx + (1.0 - 0.5) * dy;
    const double w1[2] = {3.0 - 2 * m2 / (m1 + m2) * dot / d2 * dx,
                          1.0 - 2 * m2 / (m1 + m2) * dot / d2 * dy};
    const double w2[2] = {-1.0 + 2 * m1 / (m1 + m2) * dot / d2 * dx,
                          0.5 + 2 * m1 / (m1 + m2) * dot / d2 * dy};
    CHECK(sc_sim_step(s, &f) == SC_OK && f.reactions == 1, "oblique: a reaction");
    const double got[4] = {b.vx[0], b.vy[0], b.vx[1], b.vy[1]},
                 want[4] = {w1[0], w1[1], w2[0], w2[1]};
    for (int k = 0; k < 4; k++)
        CHECK(fabs(got[k] - want[k]) <= 1e-13 * (1.0 + fabs(want[k])),
              "oblique: component %d %.17g, want %.17g", k, got[k], want[k]);
    /* momentum and energy of the pair */
    const double p0[2] = {m1 * 3.0 + m2 * -1.0, m1 * 1.0 + m2 * 0.5};
    CHECK(fabs(m1 * got[0] + m2 * got[2] - p0[0]) <= 1e-13 &&
              fabs(m1 * got[1] + m2 * got[3] - p0[1]) <= 1e-13,
          "oblique: momentum");
    sc_sim_destroy(s);
}

static double momentum_scale(sc_sim_balls b) {
    double s = 0.0;
    for (size_t i = 0; i < b.n; i++) {
        const double m = b.dims == 2 ? b.r[i] * b.r[i] : b.r[i] * b.r[i] * b.r[i];
        s += m * (fabs(b.vx[i]) + fabs(b.vy[i]) + (b.vz ? fabs(b.vz[i]) : 0.0));
    }
    return s;
}

/* Momentum without walls: balls gathered in the middle of a huge box. It
 * is conserved up to rounding: each impulse changes m_i v_i and m_j v_j by
 * +-J rounded once each, so the sum drifts by a few ulps of the momenta. */
static void test_momentum(void) {
    for (int dims = 2; dims <= 3; dims++) {
        sc_sim *s = make(dims, 400, 1e5, 1.0, 2.0, 2, SC_ALGO_GRID, 3);
        sc_sim_balls b = sc_sim_get_balls(s);
        double *c[3] = {b.x, b.y, b.z};
        uint64_t q = 12345;
        for (size_t i = 0; i < b.n; i++)
            for (int a = 0; a < dims; a++) {
                q = q * 6364136223846793005ull + 1442695040888963407ull;
                c[a][i] = 5e4 + (double)(q >> 40) / (double)(1ull << 24) * 40.0;
            }
        sc_sim_frame f0, f;
        CHECK(sc_sim_step(s, &f0) == SC_OK, "step");
        uint64_t reactions = 0;
        for (int k = 0; k < 200; k++) {
            CHECK(sc_sim_step(s, &f) == SC_OK, "step");
            reactions += f.reactions;
        }
        const double scale = momentum_scale(b);
        for (int a = 0; a < dims; a++)
            CHECK(fabs(f.momentum[a] - f0.momentum[a]) <= 1e-13 * scale,
                  "dims %d: momentum %d drifted by %g (scale %g)", dims, a,
                  f.momentum[a] - f0.momentum[a], scale);
        CHECK(reactions > 100, "dims %d: only %llu reactions", dims, (unsigned long long)reactions);
        sc_sim_destroy(s);
    }
}

/* Energy with walls over 10^4 steps, and every ball inside the box. */
static void test_energy_walls(void) {
    sc_sim *s = make(2, 150, 120.0, 10.0, 2.0, 1, SC_ALGO_GRID, 7);
    sc_sim_balls b = sc_sim_get_balls(s);
    sc_sim_frame f0, f;
    CHECK(sc_sim_step(s, &f0) == SC_OK, "step");
    int outside = 0;
    uint64_t reactions = 0;
    for (int k = 0; k < 10000; k++) {
        if (sc_sim_step(s, &f) != SC_OK) {
            CHECK(0, "step %d failed", k);
            break;
        }
        reactions += f.reactions;
        for (size_t i = 0; i < b.n; i++)
            outside += b.x[i] - b.r[i] < 0.0 || b.x[i] + b.r[i] > 120.0 || b.y[i] - b.r[i] < 0.0 ||
                       b.y[i] + b.r[i] > 120.0;
    }
    CHECK(outside == 0, "%d ball-steps outside the box", outside);
    CHECK(fabs(f.kinetic_energy - f0.kinetic_energy) <= 1e-9 * f0.kinetic_energy,
          "energy %.17g -> %.17g over 10^4 steps", f0.kinetic_energy, f.kinetic_energy);
    CHECK(reactions > 1000, "only %llu reactions", (unsigned long long)reactions);
    sc_sim_destroy(s);
}

/* Each frame's collisions against the brute-force oracle on the positions
 * the step searched (the response moves no ball). */
static void test_frames_oracle(void) {
    for (int dims = 2; dims <= 3; dims++) {
        sc_sim *s = make(dims, 300, dims == 2 ? 120.0 : 40.0, 5.0, 2.5, 2, SC_ALGO_GRID, 11);
        sc_sim_balls b = sc_sim_get_balls(s);
        for (int k = 0; k < 20; k++) {
            sc_sim_frame f;
            CHECK(sc_sim_step(s, &f) == SC_OK, "step");
            uint64_t want = 0;
            for (size_t i = 0; i < b.n; i++)
                for (size_t j = i + 1; j < b.n; j++) {
                    const double dx = b.x[i] - b.x[j], dy = b.y[i] - b.y[j];
                    const double dz = dims == 3 ? b.z[i] - b.z[j] : 0.0;
                    const double d2 = (dx * dx + dy * dy) + dz * dz, sr = b.r[i] + b.r[j];
                    want += d2 <= sr * sr;
                }
            CHECK(f.collisions == want, "dims %d frame %d: %llu collisions, oracle %llu", dims, k,
                  (unsigned long long)f.collisions, (unsigned long long)want);
        }
        sc_sim_destroy(s);
    }
}

/* One step against a plain re-implementation of the documented model
 * (include/spherecollide_sim.h), bit for bit: move and clamp, the pairs
 * the library found (test_frames_oracle checks those), impulses first
 * inside each block of SC_SIM_RESPONSE_BLOCK balls in pair order, then the
 * pairs across blocks in pair order, then walls. 12,000 balls numbered at
 * random: three blocks, pairs of both kinds, balls in both. */
static void impulse_ref(double *c[2], double *v[2], const double *r, uint32_t i, uint32_t j,
                        uint64_t *reactions) {
    double d[2], d2 = 0.0, u = 0.0;
    for (int a = 0; a < 2; a++) {
        d[a] = c[a][j] - c[a][i];
        d2 += d[a] * d[a];
        u += (v[a][j] - v[a][i]) * d[a];
    }
    const double mi = r[i] * r[i], mj = r[j] * r[j];
    if (!(d2 > 0.0) || !(mi + mj > 0.0) || !(u < 0.0))
        return;
    const double g = 2.0 * u / ((mi + mj) * d2);
    for (int a = 0; a < 2; a++) {
        v[a][i] += g * mj * d[a];
        v[a][j] -= g * mi * d[a];
    }
    ++*reactions;
}

static void test_step_reference(void) {
    const size_t n = 12000;
    const double L = 400.0, dt = 0.05;
    sc_sim *s = make(2, n, L, 5.0, 2.5, 3, SC_ALGO_GRID, 21);
    sc_sim_balls b = sc_sim_get_balls(s);
    double *m = malloc(5 * n * sizeof(double));
    double *c[2] = {m, m + n}, *v[2] = {m + 2 * n, m + 3 * n}, *r = m + 4 * n;
    for (int step = 0; step < 3; step++) {
        memcpy(c[0], b.x, n * sizeof(double));
        memcpy(c[1], b.y, n * sizeof(double));
        memcpy(v[0], b.vx, n * sizeof(double));
        memcpy(v[1], b.vy, n * sizeof(double));
        memcpy(r, b.r, n * sizeof(double));
        sc_sim_frame f;
        CHECK(sc_sim_step(s, &f) == SC_OK, "step");
        for (size_t i = 0; i < n; i++)
            for (int a = 0; a < 2; a++) {
                const double y = c[a][i] + v[a][i] * dt;
                c[a][i] = y < r[i] ? r[i] : y > L - r[i] ? L - r[i] : y;
            }
        size_t count = 0, inside = 0;
        const uint32_t *pr = sc_sim_last_pairs(s, &count);
        uint64_t reactions = 0;
        for (int cross = 0; cross <= 1; cross++)
            for (size_t q = 0; q < count; q++) {
                const uint32_t i = pr[2 * q], j = pr[2 * q + 1];
                if ((i / SC_SIM_RESPONSE_BLOCK != j / SC_SIM_RESPONSE_BLOCK) == cross) {
                    impulse_ref(c, v, r, i, j, &reactions);
                    inside += !cross;
                }
            }
        for (size_t i = 0; i < n; i++)
            for (int a = 0; a < 2; a++)
                if ((c[a][i] - r[i] <= 0.0 && v[a][i] < 0.0) ||
                    (c[a][i] + r[i] >= L && v[a][i] > 0.0))
                    v[a][i] = -v[a][i];
        int same = f.reactions == reactions;
        for (size_t i = 0; i < n; i++)
            same &=
                c[0][i] == b.x[i] && c[1][i] == b.y[i] && v[0][i] == b.vx[i] && v[1][i] == b.vy[i];
        CHECK(same && inside > 100 && count - inside > 100,
              "step %d = the model's reference: reactions %llu/%llu, pairs %zu (%zu inside blocks)",
              step, (unsigned long long)f.reactions, (unsigned long long)reactions, count, inside);
    }
    free(m);
    sc_sim_destroy(s);
}

/* Given radii are copied at creation (the caller's array may change or go
 * afterwards), and a system made with the radii of a CONSTANT one runs the
 * same steps bit for bit (neither draws random numbers for radii). */
static void test_given_radii(void) {
    const size_t n = 500;
    double *r = malloc(n * sizeof *r);
    for (size_t i = 0; i < n; i++)
        r[i] = 1.5;
    sc_sim *s[2];
    for (int k = 0; k < 2; k++) {
        sc_sim_params p = sc_sim_params_default();
        p.n = n;
        p.box[0] = p.box[1] = 100.0;
        p.radii = k ? SC_SIM_RADII_GIVEN : SC_SIM_RADII_CONSTANT;
        p.r0 = 1.5;
        p.radius = k ? r : NULL;
        s[k] = NULL;
        CHECK(sc_sim_create(&p, NULL, &s[k]) == SC_OK, "create %d: %s", k, sc_sim_problem());
    }
    for (size_t i = 0; i < n; i++)
        r[i] = -7.0; /* read only by sc_sim_create */
    free(r);
    uint64_t collisions = 0;
    int same = 1;
    for (int step = 0; step < 5; step++) {
        sc_sim_frame f[2];
        for (int k = 0; k < 2; k++)
            CHECK(sc_sim_step(s[k], &f[k]) == SC_OK, "step");
        collisions += f[0].collisions;
        same &= f[0].collisions == f[1].collisions && f[0].reactions == f[1].reactions &&
                f[0].kinetic_energy == f[1].kinetic_energy;
    }
    const sc_sim_balls a = sc_sim_get_balls(s[0]), b = sc_sim_get_balls(s[1]);
    for (size_t i = 0; i < n; i++)
        same &= a.r[i] == b.r[i] && a.x[i] == b.x[i] && a.vy[i] == b.vy[i];
    CHECK(same && collisions > 0, "given radii = constant radii: same %d, %llu collisions", same,
          (unsigned long long)collisions);
    sc_sim_destroy(s[0]);
    sc_sim_destroy(s[1]);
}

/* The same trajectories, bit for bit, for threads 1-4 and every algorithm. */
static void test_determinism(void) {
    for (int dims = 2; dims <= 3; dims++) {
        make_reorder = dims == 3 ? 7 : 0; /* renumbered every 7th step in 3-D */
        const size_t n = 1500;
        const double L = dims == 2 ? 400.0 : 90.0;
        double *ref = malloc(8 * n * sizeof(double));
        for (int run = 0; run < 4 + 9; run++) {
            const int threads = run < 4 ? run + 1 : 2;
            const sc_algorithm algo = run < 4 ? SC_ALGO_GRID : (sc_algorithm)(run - 4);
            sc_sim *s = make(dims, n, L, 20.0, 3.0, threads, algo, 5);
            sc_sim_balls b = sc_sim_get_balls(s);
            uint64_t coll = 0;
            for (int k = 0; k < 30; k++) {
                sc_sim_frame f;
                CHECK(sc_sim_step(s, &f) == SC_OK, "step");
                coll += f.collisions;
            }
            double *got = malloc(8 * n * sizeof(double));
            double *arr[7] = {b.x, b.y, b.z, b.vx, b.vy, b.vz, b.r};
            for (size_t i = 0; i < n; i++) /* the ids, too */
                got[7 * n + i] = (double)b.id[i];
            for (int a = 0; a < 7; a++)
                if (arr[a])
                    memcpy(got + a * n, arr[a], n * sizeof(double));
                else
                    memset(got + a * n, 0, n * sizeof(double));
            if (run == 0) {
                memcpy(ref, got, 8 * n * sizeof(double));
                CHECK(coll > 100, "dims %d: only %llu collisions in 30 steps", dims,
                      (unsigned long long)coll);
            } else {
                CHECK(memcmp(ref, got, 8 * n * sizeof(double)) == 0,
                      "dims %d: threads %d algorithm %s: trajectories differ from 1 thread's grid",
                      dims, threads, sc_algorithm_name(algo));
            }
            free(got);
            sc_sim_destroy(s);
        }
        free(ref);
    }
    make_reorder = 0;
}

/* Counting allocator: the library's allocations after the first step. */
static size_t allocs;
static void *count_alloc(size_t size, size_t align, void *user) {
    (void)user;
    allocs++;
    void *p = NULL;
    return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) == 0 ? p
                                                                                          : NULL;
}
static void count_free(void *p, void *user) {
    (void)user;
    free(p);
}

/* Seed 003's setup (lattice, per-component velocities), the renumbering,
 * and that steps after the first allocate nothing in the library. */
static void test_setups_and_reorder(void) {
    /* lattice: ball k at ((k mod 10) + 0.5) * 6, ((k / 10) + 0.5) * 6 in a
     * 60 x 66 box (10 x 11 points); components within [-0.2, 0.2] */
    sc_sim_params p = sc_sim_params_default();
    p.n = 100;
    p.box[0] = 60.0;
    p.box[1] = 66.0;
    p.radii = SC_SIM_RADII_CONSTANT;
    p.r0 = 2.0;
    p.placement = SC_SIM_PLACE_LATTICE;
    p.spacing = 6.0;
    p.velocities = SC_SIM_VEL_COMPONENTS;
    p.speed = 0.2;
    sc_sim *a = NULL, *b = NULL;
    CHECK(sc_sim_create(&p, NULL, &a) == SC_OK, "lattice: %s", sc_sim_problem());
    sc_sim_balls ba = sc_sim_get_balls(a);
    int off = 0, fast = 0, slow = 0;
    for (size_t k = 0; k < p.n; k++) {
        off +=
            ba.x[k] != ((double)(k % 10) + 0.5) * 6.0 || ba.y[k] != ((double)(k / 10) + 0.5) * 6.0;
        fast += fabs(ba.vx[k]) > 0.2 || fabs(ba.vy[k]) > 0.2;
        slow += fabs(ba.vx[k]) < 0.02 && fabs(ba.vy[k]) < 0.02;
    }
    CHECK(off == 0, "lattice: %d balls off their points", off);
    CHECK(fast == 0 && slow < 10,
          "components: %d faster than 0.2, %d slower than 0.02 on both axes", fast, slow);
    sc_sim_destroy(a);
    p.n = 111;
    CHECK(sc_sim_create(&p, NULL, &a) == SC_ERR_INVALID_ARGUMENT &&
              strstr(sc_sim_problem(), "lattice"),
          "111 balls on 110 lattice points: \"%s\"", sc_sim_problem());
    p.n = 100;
    p.spacing = 0.0;
    CHECK(sc_sim_create(&p, NULL, &a) == SC_ERR_INVALID_ARGUMENT, "lattice spacing 0");
    p.spacing = 6.0;
    p.reorder = -1;
    CHECK(sc_sim_create(&p, NULL, &a) == SC_ERR_INVALID_ARGUMENT, "reorder -1");

    /* renumbering moves every array with its ball: two systems at rest, one
     * renumbered; after a step ball k of one is ball id[k] of the other */
    for (int dims = 2; dims <= 3; dims++) {
        p = sc_sim_params_default();
        p.dims = dims;
        p.n = 3000;
        p.box[0] = p.box[1] = p.box[2] = dims == 2 ? 400.0 : 60.0;
        p.radii = SC_SIM_RADII_UNIFORM;
        p.r0 = 0.1;
        p.r1 = 0.5;
        p.speed = 0.0;
        CHECK(sc_sim_create(&p, NULL, &b) == SC_OK, "plain: %s", sc_sim_problem());
        p.reorder = 1;
        CHECK(sc_sim_create(&p, NULL, &a) == SC_OK, "renumbered: %s", sc_sim_problem());
        CHECK(sc_sim_step(a, NULL) == SC_OK && sc_sim_step(b, NULL) == SC_OK, "steps");
        ba = sc_sim_get_balls(a);
        const sc_sim_balls bb = sc_sim_get_balls(b);
        int wrong = 0, moved = 0;
        unsigned char *seen = calloc(p.n, 1);
        for (size_t k = 0; k < p.n; k++) {
            const uint32_t i = ba.id[k];
            if (i >= p.n || seen[i]++) {
                wrong++;
                continue;
            }
            moved += i != k;
            wrong += ba.x[k] != bb.x[i] || ba.y[k] != bb.y[i] || ba.r[k] != bb.r[i] ||
                     ba.vx[k] != bb.vx[i] || ba.vy[k] != bb.vy[i] ||
                     (dims == 3 && (ba.z[k] != bb.z[i] || ba.vz[k] != bb.vz[i]));
        }
        free(seen);
        CHECK(wrong == 0 && moved > (int)p.n / 2, "dims %d: renumbering: %d wrong, %d moved", dims,
              wrong, moved);
        /* in the grid's cell order (default grid options): the order of
         * the renumbered balls, at rest, is the identity */
        sc_context *g = NULL;
        uint32_t *ord = malloc(p.n * sizeof *ord);
        const sc_spheres view = sc_spheres_soa_f64(p.n, ba.x, ba.y, ba.z, ba.r);
        int out = -1;
        if (sc_context_create(NULL, &g) == SC_OK && sc_cell_order(g, &view, ord) == SC_OK) {
            out = 0;
            for (size_t k = 0; k < p.n; k++)
                out += ord[k] != k;
        }
        CHECK(out == 0, "dims %d: renumbered balls not in the cell order (%d out of place)", dims,
              out);
        sc_context_destroy(g);
        free(ord);
        sc_sim_destroy(a);
        sc_sim_destroy(b);
    }

    /* after the first step the search allocates nothing (the pair buffer
     * only grows when a frame has more pairs than any before) */
    sc_options o = sc_options_default();
    o.allocator.alloc = count_alloc;
    o.allocator.free = count_free;
    o.threads = 2;
    p = sc_sim_params_default();
    p.reorder = 5;
    CHECK(sc_sim_create(&p, &o, &a) == SC_OK, "allocator: %s", sc_sim_problem());
    CHECK(sc_sim_step(a, NULL) == SC_OK, "first step");
    const size_t first = allocs;
    for (int k = 0; k < 20; k++)
        CHECK(sc_sim_step(a, NULL) == SC_OK, "step");
    CHECK(first > 0 && allocs == first, "allocations: %zu by the first step, %zu after 20 more",
          first, allocs - first);
    sc_sim_destroy(a);
}

static void test_bad_params(void) {
    struct {
        const char *what;
        int field;
        double value;
    } bad[] = {{"dims 4", 0, 4},
               {"no balls", 1, 0},
               {"zero box", 2, 0.0},
               {"negative box", 2, -5.0},
               {"negative dt", 3, -0.1},
               {"zero dt", 3, 0.0},
               {"NaN speed", 4, NAN},
               {"too many balls", 1, 1e6},
               {"ball wider than the box", 5, 400.0}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sc_sim_params p = sc_sim_params_default();
        switch (bad[k].field) {
        case 0: p.dims = (int)bad[k].value; break;
        case 1: p.n = (size_t)bad[k].value; break;
        case 2: p.box[1] = bad[k].value; break;
        case 3: p.dt = bad[k].value; break;
        case 4: p.speed = bad[k].value; break;
        case 5: p.radii = SC_SIM_RADII_CONSTANT, p.r0 = bad[k].value; break;
        }
        sc_sim *s = (sc_sim *)&p;
        const sc_status st = sc_sim_create(&p, NULL, &s);
        CHECK(st == SC_ERR_INVALID_ARGUMENT && s == NULL && sc_sim_problem()[0] != '\0',
              "%s: status %s, problem \"%s\"", bad[k].what, sc_status_string(st), sc_sim_problem());
    }
    /* given radii: a NULL array and a negative, a NaN radius are refused,
     * naming the ball */
    double given[3] = {1.0, 2.0, 3.0};
    for (int k = 0; k < 3; k++) {
        sc_sim_params p = sc_sim_params_default();
        p.n = 3;
        p.radii = SC_SIM_RADII_GIVEN;
        p.radius = k == 0 ? NULL : given;
        given[2] = k == 1 ? -1.0 : k == 2 ? NAN : 3.0;
        sc_sim *s = NULL;
        const sc_status st = sc_sim_create(&p, NULL, &s);
        CHECK(st == SC_ERR_INVALID_ARGUMENT && !s &&
                  strstr(sc_sim_problem(), k == 0 ? "NULL" : "radius 2") != NULL,
              "given radii case %d: status %s, problem \"%s\"", k, sc_status_string(st),
              sc_sim_problem());
    }
    sc_sim_params p = sc_sim_params_default();
    p.size = 3;
    sc_sim *s = NULL;
    CHECK(sc_sim_create(&p, NULL, &s) == SC_ERR_INVALID_ARGUMENT, "params not from the defaults");
    p = sc_sim_params_default();
    CHECK(sc_sim_create(&p, NULL, &s) == SC_OK && sc_sim_problem()[0] == '\0', "the defaults work");
    sc_sim_destroy(s);
}

static void run_physics(void) {
    test_two_balls();
    test_momentum();
    test_energy_walls();
}

static void run_frames(void) {
    test_frames_oracle();
    test_step_reference();
    test_given_radii();
}

static void run_runs(void) {
    test_determinism();
    test_setups_and_reorder();
    test_bad_params();
}

int main(int argc, char **argv) {
    static const sc_test_group groups[] = {
        {"physics", run_physics},
        {"frames", run_frames},
        {"runs", run_runs},
    };
    return sc_test_main(argc, argv, "test_sim", groups, sizeof groups / sizeof groups[0]);
}
