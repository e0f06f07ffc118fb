/*
 * sim.c: elastic balls in a box (include/spherecollide_sim.h), on the public
 * pair-search API only. The step is the pipeline move -> search -> response
 * -> walls; the pairs come from sc_fill_pairs with `sorted` on, so their
 * order, and with it every trajectory, depends on the positions alone (not
 * on the thread count or the algorithm).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "spherecollide_sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define SIM_PI 3.14159265358979323846

/* Per-ball loops run on the search's thread count in static blocks of
 * SIM_BLOCK balls; sums are taken per block and added in block order, so
 * statistics, like trajectories, do not depend on the thread count. */
#define SIM_BLOCK SC_SIM_RESPONSE_BLOCK

struct sc_sim {
    sc_sim_params p;
    sc_context *ctx;
    int threads;         /* the search options' threads, or OpenMP's maximum */
    int team;            /* the last search's team: the loops' threads (sc_sim_step) */
    double *mem;         /* x, y, z, vx, vy, vz, r: n each */
    double *block_sums;  /* energy, momentum x, y, z: 4 per block */
    size_t *block_cross; /* the response's pairs across blocks: first, count per block */
    sc_sim_balls b;
    /* renumbering (params.reorder > 0): a grid context with the default
     * grid options for the order (the same for every search algorithm),
     * the order and the ids (n each), and one array to gather through */
    sc_context *order_ctx;
    uint32_t *rord, *rids;
    double *gather;
    uint32_t *pairs; /* 3 * cap: the pairs, then where the response's cross pairs are */
    size_t cap, count;
    uint64_t steps;
};

static _Thread_local char problem[200];

static sc_status fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    return SC_ERR_INVALID_ARGUMENT;
}

const char *sc_sim_problem(void) {
    return problem;
}

sc_sim_params sc_sim_params_default(void) {
    sc_sim_params p;
    memset(&p, 0, sizeof p);
    p.size = sizeof p;
    p.dims = 2;
    p.n = 8000;
    p.box[0] = 1400.0;
    p.box[1] = 600.0;
    p.box[2] = 600.0;
    p.dt = 1.0 / 60.0;
    p.speed = 50.0;
    p.radii = SC_SIM_RADII_SEQUENCE;
    p.r0 = 1.0;
    p.r1 = 1.0;
    p.seed = 1;
    p.placement = SC_SIM_PLACE_UNIFORM;
    p.spacing = 1.0;
    p.velocities = SC_SIM_VEL_DIRECTION;
    return p;
}

/* splitmix64: a few clear lines, and the same numbers on every platform */
static uint64_t next_u64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double next_unit(uint64_t *s) { /* [0, 1) with 53 random bits */
    return (double)(next_u64(s) >> 11) * 0x1p-53;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static double mass(double r, int dims) {
    return dims == 2 ? r * r : r * r * r;
}

static double radius_of(const sc_sim_params *p, size_t i, uint64_t *rng) {
    switch (p->radii) {
    case SC_SIM_RADII_SEQUENCE: return 2.5 + 77.5 * pow(0.92, (double)i);
    case SC_SIM_RADII_CONSTANT: return p->r0;
    case SC_SIM_RADII_UNIFORM: return p->r0 + (p->r1 - p->r0) * next_unit(rng);
    case SC_SIM_RADII_GIVEN: return p->radius[i];
    }
    return 0.0;
}

static sc_status check_params(const sc_sim_params *p) {
    if (!p || p->size != sizeof *p)
        return fail("the parameters were not made by sc_sim_params_default");
    if (p->dims != 2 && p->dims != 3)
        return fail("dims must be 2 or 3, not %d", p->dims);
    if (p->n < 1 || p->n > ((size_t)1 << 31))
        return fail("the number of balls must be from 1 to 2^31, not %zu", p->n);
    for (int a = 0; a < p->dims; a++)
        if (!(p->box[a] > 0.0 && p->box[a] < 1e150))
            return fail("the box's extent on axis %d must be positive and finite, not %g", a,
                        p->box[a]);
    if (!(p->dt > 0.0 && p->dt < 1e150))
        return fail("the time step must be positive and finite, not %g", p->dt);
    if (!(p->speed >= 0.0 && p->speed < 1e150))
        return fail("the speed must be zero or positive and finite, not %g", p->speed);
    if (p->radii != SC_SIM_RADII_SEQUENCE && p->radii != SC_SIM_RADII_CONSTANT &&
        p->radii != SC_SIM_RADII_UNIFORM && p->radii != SC_SIM_RADII_GIVEN)
        return fail("unknown radius rule %d", (int)p->radii);
    if (p->radii == SC_SIM_RADII_GIVEN) {
        if (!p->radius)
            return fail("given radii need the radius array (params.radius is NULL)");
        for (size_t i = 0; i < p->n; i++)
            if (!(p->radius[i] >= 0.0 && p->radius[i] < 1e150))
                return fail("radius %zu must be zero or positive and finite, not %g", i,
                            p->radius[i]);
    } else if (p->radii != SC_SIM_RADII_SEQUENCE &&
               !(p->r0 >= 0.0 && p->r0 < 1e150 &&
                 (p->radii == SC_SIM_RADII_CONSTANT || (p->r1 >= p->r0 && p->r1 < 1e150))))
        return fail("radii must satisfy 0 <= r0 <= r1 (finite), not r0 = %g, r1 = %g", p->r0,
                    p->r1);
    if (p->reorder < 0)
        return fail("reorder must be 0 (never) or a step count, not %d", p->reorder);
    if (p->placement != SC_SIM_PLACE_UNIFORM && p->placement != SC_SIM_PLACE_LATTICE)
        return fail("unknown placement %d", (int)p->placement);
    if (p->velocities != SC_SIM_VEL_DIRECTION && p->velocities != SC_SIM_VEL_COMPONENTS)
        return fail("unknown velocity rule %d", (int)p->velocities);
    if (p->placement == SC_SIM_PLACE_LATTICE) {
        if (!(p->spacing > 0.0 && p->spacing < 1e150))
            return fail("the lattice spacing must be positive and finite, not %g", p->spacing);
        double points = 1.0;
        for (int a = 0; a < p->dims; a++)
            points *= floor(p->box[a] / p->spacing);
        if (points < (double)p->n)
            return fail(
                "a lattice of spacing %g holds %.0f points in the box, fewer than %zu balls",
                p->spacing, points, p->n);
    }
    return SC_OK;
}

/* One function, though long: the system is made in one order (its arrays
 * in one block, the radii, the fit check that needs them, the centres and
 * velocities, the search contexts), and every step's failure frees what
 * the steps before it made. */
sc_status sc_sim_create(const sc_sim_params *params, const sc_options *search, sc_sim **out) {
    problem[0] = '\0';
    if (!out)
        return fail("no place for the system (out is NULL)");
    *out = NULL;
    sc_status st = check_params(params);
    if (st != SC_OK)
        return st;
    /* The search options as the caller's header laid them out: only its
     * bytes are read, later fields keep their defaults (docs/api.md, ABI). */
    sc_options o = sc_options_default();
    if (search) {
        size_t size;
        memcpy(&size, search, sizeof size);
        if (size > sizeof o) {
            fail("the search options come from a newer spherecollide.h (size %zu, this "
                 "library's %zu)",
                 size, sizeof o);
            return SC_ERR_VERSION;
        }
        if (size < SC_OPTIONS_SIZE_0_1)
            return fail("the search options' size is %zu, less than any spherecollide.h's", size);
        memcpy(&o, search, size);
        o.size = sizeof o;
    }
    const sc_sim_params p = *params;
    const size_t n = p.n;
    sc_sim *s = calloc(1, sizeof *s);
    const size_t blocks = (n + SIM_BLOCK - 1) / SIM_BLOCK;
    double *mem = s ? malloc((7 * n + 4 * blocks) * sizeof(double) + 2 * blocks * sizeof(size_t) +
                             n * sizeof(uint32_t))
                    : NULL;
    if (mem && p.reorder > 0) {
        s->rord = malloc(2 * (n ? n : 1) * sizeof(uint32_t));
        s->gather = malloc((n ? n : 1) * sizeof(double));
        if (!s->rord || !s->gather) {
            free(s->rord);
            free(s->gather);
            free(mem);
            mem = NULL;
        } else {
            s->rids = s->rord + n;
        }
    }
    if (!mem) {
        free(s);
        snprintf(problem, sizeof problem, "out of memory for %zu balls", n);
        return SC_ERR_OUT_OF_MEMORY;
    }
    s->p = p;
    s->p.radius = NULL; /* the caller's array is read only here */
    s->mem = mem;
    s->block_sums = mem + 7 * n; /* radii may change between steps: masses are not cached */
    s->block_cross = (size_t *)(void *)(mem + 7 * n + 4 * blocks);
    s->b = (sc_sim_balls){n,
                          p.dims,
                          mem,
                          mem + n,
                          p.dims == 3 ? mem + 2 * n : NULL,
                          mem + 3 * n,
                          mem + 4 * n,
                          p.dims == 3 ? mem + 5 * n : NULL,
                          mem + 6 * n,
                          (uint32_t *)(void *)(s->block_cross + 2 * blocks)};
    for (size_t i = 0; i < n; i++)
        s->b.id[i] = (uint32_t)i;
    /* radii first (the fit check needs them), then centres and directions */
    uint64_t rng = p.seed;
    double volume = 0.0, space = 1.0;
    for (int a = 0; a < p.dims; a++)
        space *= p.box[a];
    for (size_t i = 0; i < n; i++) {
        const double r = radius_of(&p, i, &rng);
        s->b.r[i] = r;
        for (int a = 0; a < p.dims; a++)
            if (2.0 * r > p.box[a]) {
                sc_sim_destroy(s);
                return fail("ball %zu (radius %g) is wider than the box's extent %g on axis %d", i,
                            r, p.box[a], a);
            }
        volume += p.dims == 2 ? SIM_PI * r * r : 4.0 / 3.0 * SIM_PI * r * r * r;
    }
    const double limit = p.dims == 2 ? 0.9069 : 0.7405;
    if (volume > limit * space) {
        sc_sim_destroy(s);
        return fail("the balls fill %.3g of the box, more than fits (%.4g, the densest packing)",
                    volume / space, limit);
    }
    double *c[3] = {s->b.x, s->b.y, s->b.z}, *v[3] = {s->b.vx, s->b.vy, s->b.vz};
    uint64_t per_row[3] = {1, 1, 1};
    if (p.placement == SC_SIM_PLACE_LATTICE)
        for (int a = 0; a < p.dims; a++)
            per_row[a] = (uint64_t)floor(p.box[a] / p.spacing);
    for (size_t i = 0; i < n; i++) {
        const double r = s->b.r[i];
        uint64_t k = i;
        for (int a = 0; a < p.dims; a++) {
            if (p.placement == SC_SIM_PLACE_LATTICE) { /* point k of the lattice, x fastest */
                double at = ((double)(k % per_row[a]) + 0.5) * p.spacing;
                k /= per_row[a];
                /* a ball wider than the pitch stays inside the box */
                c[a][i] = at < r ? r : at > p.box[a] - r ? p.box[a] - r : at;
            } else {
                c[a][i] = r + (p.box[a] - 2.0 * r) * next_unit(&rng);
            }
        }
        if (p.velocities == SC_SIM_VEL_COMPONENTS) {
            for (int a = 0; a < p.dims; a++)
                v[a][i] = p.speed * (2.0 * next_unit(&rng) - 1.0);
            continue;
        }
        /* a uniform direction: a normal vector, by Box-Muller, scaled */
        double g[3], len = 0.0;
        do {
            len = 0.0;
            for (int a = 0; a < p.dims; a++) {
                const double u1 = 1.0 - next_unit(&rng), u2 = next_unit(&rng);
                g[a] = sqrt(-2.0 * log(u1)) * cos(2.0 * SIM_PI * u2);
                len += g[a] * g[a];
            }
        } while (!(len > 1e-300));
        len = sqrt(len);
        for (int a = 0; a < p.dims; a++)
            v[a][i] = p.speed * g[a] / len;
    }
    o.sorted = 1;
#ifdef _OPENMP
    s->threads = o.threads > 0 ? o.threads : omp_get_max_threads();
#else
    s->threads = 1;
#endif
    s->team = s->threads;
    st = sc_context_create(&o, &s->ctx);
    if (st == SC_OK && p.reorder > 0) {
        /* The order's context: the search's threads, pinning, allocator
         * and log, the grid with its default options, no box. */
        const sc_options d = sc_options_default();
        sc_options oo = o;
        oo.algorithm = SC_ALGO_GRID;
        oo.grid = d.grid;
        oo.box = d.box;
        st = sc_context_create(&oo, &s->order_ctx);
    }
    if (st != SC_OK) {
        sc_sim_destroy(s);
        snprintf(problem, sizeof problem, "cannot create the search context: %s",
                 sc_status_string(st));
        return st;
    }
    *out = s;
    return SC_OK;
}

void sc_sim_destroy(sc_sim *s) {
    if (!s)
        return;
    sc_context_destroy(s->ctx);
    sc_context_destroy(s->order_ctx);
    free(s->mem);
    free(s->pairs);
    free(s->rord);
    free(s->gather);
    free(s);
}

sc_sim_balls sc_sim_get_balls(sc_sim *s) {
    return s->b;
}

const uint32_t *sc_sim_last_pairs(const sc_sim *s, size_t *count) {
    *count = s->count;
    return s->pairs;
}

sc_status sc_sim_search_stats(const sc_sim *s, sc_stats *out) {
    return s ? sc_context_stats(s->ctx, out) : SC_ERR_INVALID_ARGUMENT;
}

/* 0. (params.reorder) renumber the balls in the grid's cell order
 * (sc_cell_order, default grid options): a function of the positions
 * alone, the same for every thread count and search algorithm; then every
 * array is gathered into that order. A grid search then finds its keys
 * nearly in order for the next steps and repairs its sort instead of
 * redoing it, and its gather reads in sequence. */
static sc_status reorder(sc_sim *s) {
    const sc_sim_balls *b = &s->b;
    const long n = (long)b->n;
    const uint32_t *o0 = s->rord;
    const sc_spheres view = sc_spheres_soa_f64(b->n, b->x, b->y, b->z, b->r);
    const sc_status st = sc_cell_order(s->order_ctx, &view, s->rord);
    if (st != SC_OK)
        return st;
    double *arr[7] = {b->x, b->y, b->z, b->vx, b->vy, b->vz, b->r};
    for (int k = 0; k < 7; k++) {
        double *a = arr[k];
        if (!a)
            continue;
#pragma omp parallel num_threads(s->team)
        {
#pragma omp for schedule(static, SIM_BLOCK)
            for (long i = 0; i < n; i++)
                s->gather[i] = a[o0[i]];
#pragma omp for schedule(static, SIM_BLOCK)
            for (long i = 0; i < n; i++)
                a[i] = s->gather[i];
        }
    }
    uint32_t *ids = s->rids;
    for (long i = 0; i < n; i++)
        ids[i] = b->id[o0[i]];
    memcpy(b->id, ids, (size_t)n * sizeof *ids);
    return SC_OK;
}

/* 1. move, clamping each centre into [r, L - r] */
static void move(sc_sim *s) {
    const sc_sim_balls *b = &s->b;
    double *c[3] = {b->x, b->y, b->z}, *v[3] = {b->vx, b->vy, b->vz};
    const double dt = s->p.dt;
    const double *L = s->p.box;
    const int dims = b->dims;
    const long n = (long)b->n;
#pragma omp parallel for num_threads(s->team) schedule(static, SIM_BLOCK)
    for (long i = 0; i < n; i++) {
        const double r = b->r[i];
        for (int a = 0; a < dims; a++) {
            const double y = c[a][i] + v[a][i] * dt;
            c[a][i] = y < r ? r : y > L[a] - r ? L[a] - r : y;
        }
    }
}

/* 2. the colliding pairs, in lexicographic order, into s->pairs */
static sc_status search(sc_sim *s, size_t *count) {
    const sc_sim_balls *b = &s->b;
    const sc_spheres view = sc_spheres_soa_f64(b->n, b->x, b->y, b->z, b->r);
    size_t needed = 0;
    sc_status st = sc_fill_pairs(s->ctx, &view, s->pairs, s->cap, &needed, NULL);
    if (st == SC_ERR_BUFFER_TOO_SMALL) { /* grow once, with room to spare, and search again */
        const size_t cap = needed + needed / 4 + 1024;
        uint32_t *p = realloc(s->pairs, 3 * cap * sizeof(uint32_t));
        if (!p)
            return SC_ERR_OUT_OF_MEMORY;
        s->pairs = p;
        s->cap = cap;
        st = sc_fill_pairs(s->ctx, &view, s->pairs, s->cap, &needed, NULL);
    }
    *count = st == SC_OK ? needed : 0;
    return st;
}

/* One pair's elastic impulse; returns 1 for a reaction. With d = cj - ci,
 * u = (vj - vi) . d and the normal n = d / |d|, the pair approaches when
 * u < 0, and the elastic impulse J = 2 mi mj / (mi + mj) vn (vn = u / |d|)
 * changes vi by J / mi n = 2 mj / (mi + mj) u / |d|^2 d and vj by the
 * opposite with mi: no square root and one division per reaction. A
 * massless ball (m = 0) gets the factor 2: it bounces off. */
static inline int impulse(const sc_sim_balls *b, double *const c[3], double *const v[3], uint32_t i,
                          uint32_t j) {
    const int dims = b->dims;
    double d[3] = {0, 0, 0}, d2 = 0.0, u = 0.0;
    for (int a = 0; a < dims; a++) {
        d[a] = c[a][j] - c[a][i];
        d2 += d[a] * d[a];
        u += (v[a][j] - v[a][i]) * d[a];
    }
    const double mi = mass(b->r[i], dims), mj = mass(b->r[j], dims);
    if (!(d2 > 0.0) || !(mi + mj > 0.0) || !(u < 0.0))
        return 0; /* no normal, nothing to push, or separating or resting */
    const double g = 2.0 * u / ((mi + mj) * d2);
    const double ki = g * mj, kj = g * mi;
    for (int a = 0; a < dims; a++) {
        v[a][i] += ki * d[a];
        v[a][j] -= kj * d[a];
    }
    return 1;
}

/* 3. elastic impulses; returns the reactions. A ball in several pairs sees
 * the earlier pairs' impulses, in this order, which depends on the pairs
 * alone (not on the thread count): first every pair inside one block of
 * SIM_BLOCK balls (i / SIM_BLOCK == j / SIM_BLOCK), block by block in pair
 * order -- blocks share no ball, so they run in parallel -- then the pairs
 * across blocks in pair order, sequentially. With renumbering most pairs
 * are inside a block. */
static uint64_t respond(sc_sim *s, size_t count) {
    const sc_sim_balls *b = &s->b;
    double *const c[3] = {b->x, b->y, b->z}, *const v[3] = {b->vx, b->vy, b->vz};
    if (count == 0)
        return 0;
    const uint32_t *pr = s->pairs;
    uint32_t *cross = s->pairs + 2 * s->cap; /* block k's list sits at its own pairs' place */
    const long blocks = (long)((b->n + SIM_BLOCK - 1) / SIM_BLOCK);
    uint64_t reactions = 0;
#pragma omp parallel for num_threads(s->team) schedule(dynamic, 1) reduction(+ : reactions)
    for (long k = 0; k < blocks; k++) {
        /* the pairs with i in block k: pairs are sorted by i */
        const uint32_t i0 = (uint32_t)k * SIM_BLOCK, end = i0 + SIM_BLOCK;
        size_t lo = 0, hi = count;
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (pr[2 * mid] < i0)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t m = 0;
        for (size_t q = lo; q < count && pr[2 * q] < end; q++) {
            if (pr[2 * q + 1] < end)
                reactions += (uint64_t)impulse(b, c, v, pr[2 * q], pr[2 * q + 1]);
            else
                cross[lo + m++] = (uint32_t)q;
        }
        s->block_cross[2 * k] = lo;
        s->block_cross[2 * k + 1] = m;
    }
    /* The pairs across blocks, in pair order: their balls lie far apart in
     * memory, so the balls of the pair PREFETCH ahead are fetched early. */
    enum { PREFETCH = 8 };
    const int dims = b->dims;
    for (long k = 0; k < blocks; k++) {
        const uint32_t *list = cross + s->block_cross[2 * k];
        const size_t m = s->block_cross[2 * k + 1];
        for (size_t t = 0; t < m; t++) {
            if (t + PREFETCH < m) {
                const uint32_t *f = pr + 2 * (size_t)list[t + PREFETCH];
                for (int a = 0; a < dims; a++) {
                    __builtin_prefetch(c[a] + f[1]);
                    __builtin_prefetch(v[a] + f[1]);
                }
                __builtin_prefetch(b->r + f[1]);
            }
            const uint32_t *q = pr + 2 * (size_t)list[t];
            reactions += (uint64_t)impulse(b, c, v, q[0], q[1]);
        }
    }
    return reactions;
}

/* 4. walls: a ball touching one while moving outward turns back; then the
 * kinetic energy and momentum, summed per block */
static void walls_and_sums(sc_sim *s) {
    const sc_sim_balls *b = &s->b;
    double *c[3] = {b->x, b->y, b->z}, *v[3] = {b->vx, b->vy, b->vz};
    const double *L = s->p.box;
    const int dims = b->dims;
    const size_t n = b->n;
    const long blocks = (long)((n + SIM_BLOCK - 1) / SIM_BLOCK);
#pragma omp parallel for num_threads(s->team) schedule(static)
    for (long k = 0; k < blocks; k++) {
        const size_t i0 = (size_t)k * SIM_BLOCK, i1 = i0 + SIM_BLOCK < n ? i0 + SIM_BLOCK : n;
        double e = 0.0, m3[3] = {0, 0, 0};
        for (size_t i = i0; i < i1; i++) {
            const double r = b->r[i], m = mass(r, dims);
            double v2 = 0.0;
            for (int a = 0; a < dims; a++) {
                double u = v[a][i];
                if ((c[a][i] - r <= 0.0 && u < 0.0) || (c[a][i] + r >= L[a] && u > 0.0))
                    v[a][i] = u = -u;
                v2 += u * u;
                m3[a] += m * u;
            }
            e += 0.5 * m * v2;
        }
        double *out = s->block_sums + 4 * k;
        out[0] = e;
        out[1] = m3[0];
        out[2] = m3[1];
        out[3] = m3[2];
    }
}

sc_status sc_sim_step(sc_sim *s, sc_sim_frame *f) {
    sc_sim_frame fr;
    memset(&fr, 0, sizeof fr);
    double t = now_ms();
    if (s->p.reorder > 0 && s->steps % (uint64_t)s->p.reorder == 0) {
        const sc_status rs = reorder(s);
        if (rs != SC_OK) {
            if (f)
                *f = fr;
            return rs;
        }
    }
    move(s);
    fr.ms_move = now_ms() - t;
    t = now_ms();
    size_t count = 0;
    const sc_status st = search(s, &count);
    s->count = count;
    fr.ms_search = now_ms() - t;
    sc_stats ss = {.size = sizeof ss};
    if (sc_context_stats(s->ctx, &ss) == SC_OK) {
        fr.candidate_tests = ss.candidate_tests;
        /* the search's team, which leaves busy cores to other programs,
         * is the response's and the next move's */
        s->team = ss.threads > 0 && ss.threads < s->threads ? ss.threads : s->threads;
    }
    if (st != SC_OK) {
        if (f)
            *f = fr;
        return st;
    }
    t = now_ms();
    fr.collisions = count;
    fr.reactions = respond(s, count);
    walls_and_sums(s);
    fr.ms_response = now_ms() - t;
    s->steps++;
    fr.step = s->steps;
    fr.time = (double)s->steps * s->p.dt;
    const size_t blocks = (s->b.n + SIM_BLOCK - 1) / SIM_BLOCK;
    for (size_t k = 0; k < blocks; k++) {
        fr.kinetic_energy += s->block_sums[4 * k];
        for (int a = 0; a < 3; a++)
            fr.momentum[a] += s->block_sums[4 * k + 1 + a];
    }
    if (f)
        *f = fr;
    return SC_OK;
}
