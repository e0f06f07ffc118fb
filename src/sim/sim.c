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

#define SIM_PI 3.14159265358979323846

struct sc_sim {
    sc_sim_params p;
    sc_context *ctx;
    double *mem; /* x, y, z, vx, vy, vz, r: n each */
    sc_sim_balls b;
    uint32_t *pairs; /* 2 * cap */
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
    p.radii = SC_SIM_RADII_SEED002;
    p.r0 = 1.0;
    p.r1 = 1.0;
    p.seed = 1;
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
    case SC_SIM_RADII_SEED002:
        return 2.5 + 77.5 * pow(0.92, (double)i);
    case SC_SIM_RADII_CONSTANT:
        return p->r0;
    case SC_SIM_RADII_UNIFORM:
        return p->r0 + (p->r1 - p->r0) * next_unit(rng);
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
            return fail("the box's extent on axis %d must be positive and finite, not %g", a, p->box[a]);
    if (!(p->dt > 0.0 && p->dt < 1e150))
        return fail("the time step must be positive and finite, not %g", p->dt);
    if (!(p->speed >= 0.0 && p->speed < 1e150))
        return fail("the speed must be zero or positive and finite, not %g", p->speed);
    if (p->radii != SC_SIM_RADII_SEED002 && p->radii != SC_SIM_RADII_CONSTANT &&
        p->radii != SC_SIM_RADII_UNIFORM)
        return fail("unknown radius rule %d", (int)p->radii);
    if (p->radii != SC_SIM_RADII_SEED002 &&
        !(p->r0 >= 0.0 && p->r0 < 1e150 && (p->radii == SC_SIM_RADII_CONSTANT || (p->r1 >= p->r0 && p->r1 < 1e150))))
        return fail("radii must satisfy 0 <= r0 <= r1 (finite), not r0 = %g, r1 = %g", p->r0, p->r1);
    return SC_OK;
}

sc_status sc_sim_create(const sc_sim_params *params, const sc_options *search, sc_sim **out) {
    problem[0] = '\0';
    if (!out)
        return fail("no place for the system (out is NULL)");
    *out = NULL;
    sc_status st = check_params(params);
    if (st != SC_OK)
        return st;
    const sc_sim_params p = *params;
    const size_t n = p.n;
    sc_sim *s = calloc(1, sizeof *s);
    double *mem = s ? malloc(7 * n * sizeof(double)) : NULL;
    if (!mem) {
        free(s);
        snprintf(problem, sizeof problem, "out of memory for %zu balls", n);
        return SC_ERR_OUT_OF_MEMORY;
    }
    s->p = p;
    s->mem = mem;
    s->b = (sc_sim_balls){n,           p.dims,          mem,
                          mem + n,     p.dims == 3 ? mem + 2 * n : NULL,
                          mem + 3 * n, mem + 4 * n,     p.dims == 3 ? mem + 5 * n : NULL,
                          mem + 6 * n};
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
                return fail("ball %zu (radius %g) is wider than the box's extent %g on axis %d", i, r,
                            p.box[a], a);
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
    for (size_t i = 0; i < n; i++) {
        const double r = s->b.r[i];
        for (int a = 0; a < p.dims; a++)
            c[a][i] = r + (p.box[a] - 2.0 * r) * next_unit(&rng);
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
    sc_options o = search ? *search : sc_options_default();
    o.sorted = 1;
    st = sc_context_create(&o, &s->ctx);
    if (st != SC_OK) {
        sc_sim_destroy(s);
        snprintf(problem, sizeof problem, "cannot create the search context: %s", sc_status_string(st));
        return st;
    }
    *out = s;
    return SC_OK;
}

void sc_sim_destroy(sc_sim *s) {
    if (!s)
        return;
    sc_context_destroy(s->ctx);
    free(s->mem);
    free(s->pairs);
    free(s);
}

sc_sim_balls sc_sim_get_balls(sc_sim *s) {
    return s->b;
}

const uint32_t *sc_sim_last_pairs(const sc_sim *s, size_t *count) {
    *count = s->count;
    return s->pairs;
}

/* 1. move, clamping each centre into [r, L - r] */
static void move(sc_sim *s) {
    const sc_sim_balls *b = &s->b;
    double *c[3] = {b->x, b->y, b->z}, *v[3] = {b->vx, b->vy, b->vz};
    const double dt = s->p.dt;
    for (int a = 0; a < b->dims; a++) {
        const double L = s->p.box[a];
        double *x = c[a];
        const double *u = v[a];
        for (size_t i = 0; i < b->n; i++) {
            const double r = b->r[i], y = x[i] + u[i] * dt;
            x[i] = y < r ? r : y > L - r ? L - r : y;
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
        uint32_t *p = realloc(s->pairs, 2 * cap * sizeof(uint32_t));
        if (!p)
            return SC_ERR_OUT_OF_MEMORY;
        s->pairs = p;
        s->cap = cap;
        st = sc_fill_pairs(s->ctx, &view, s->pairs, s->cap, &needed, NULL);
    }
    *count = st == SC_OK ? needed : 0;
    return st;
}

/* 3. elastic impulses in pair order; returns the reactions */
static uint64_t respond(sc_sim *s, size_t count) {
    const sc_sim_balls *b = &s->b;
    const int dims = b->dims;
    double *c[3] = {b->x, b->y, b->z}, *v[3] = {b->vx, b->vy, b->vz};
    uint64_t reactions = 0;
    for (size_t k = 0; k < count; k++) {
        const uint32_t i = s->pairs[2 * k], j = s->pairs[2 * k + 1];
        double d[3] = {0, 0, 0}, d2 = 0.0, vn = 0.0;
        for (int a = 0; a < dims; a++) {
            d[a] = c[a][j] - c[a][i];
            d2 += d[a] * d[a];
        }
        const double mi = mass(b->r[i], dims), mj = mass(b->r[j], dims);
        if (!(d2 > 0.0) || !(mi + mj > 0.0))
            continue; /* no normal, or nothing to push */
        const double len = sqrt(d2);
        for (int a = 0; a < dims; a++)
            vn += (v[a][j] - v[a][i]) * (d[a] / len);
        if (!(vn < 0.0))
            continue; /* separating or resting: no reaction */
        /* equal and opposite momentum changes J = 2 mi mj / (mi + mj) vn */
        const double J = 2.0 * mi * mj / (mi + mj) * vn;
        for (int a = 0; a < dims; a++) {
            const double na = d[a] / len;
            if (mi > 0.0)
                v[a][i] += J / mi * na;
            else
                v[a][i] += 2.0 * vn * na; /* a massless ball bounces off */
            if (mj > 0.0)
                v[a][j] -= J / mj * na;
            else
                v[a][j] -= 2.0 * vn * na;
        }
        reactions++;
    }
    return reactions;
}

/* 4. walls: a ball touching one while moving outward turns back */
static void walls(sc_sim *s) {
    const sc_sim_balls *b = &s->b;
    double *c[3] = {b->x, b->y, b->z}, *v[3] = {b->vx, b->vy, b->vz};
    for (int a = 0; a < b->dims; a++) {
        const double L = s->p.box[a];
        for (size_t i = 0; i < b->n; i++) {
            const double r = b->r[i];
            if ((c[a][i] - r <= 0.0 && v[a][i] < 0.0) || (c[a][i] + r >= L && v[a][i] > 0.0))
                v[a][i] = -v[a][i];
        }
    }
}

sc_status sc_sim_step(sc_sim *s, sc_sim_frame *f) {
    sc_sim_frame fr;
    memset(&fr, 0, sizeof fr);
    double t = now_ms();
    move(s);
    fr.ms_move = now_ms() - t;
    t = now_ms();
    size_t count = 0;
    const sc_status st = search(s, &count);
    s->count = count;
    fr.ms_search = now_ms() - t;
    sc_stats ss;
    if (sc_context_stats(s->ctx, &ss) == SC_OK)
        fr.candidate_tests = ss.candidate_tests;
    if (st != SC_OK) {
        if (f)
            *f = fr;
        return st;
    }
    t = now_ms();
    fr.collisions = count;
    fr.reactions = respond(s, count);
    walls(s);
    fr.ms_response = now_ms() - t;
    s->steps++;
    fr.step = s->steps;
    fr.time = (double)s->steps * s->p.dt;
    const sc_sim_balls *b = &s->b;
    const double *v[3] = {b->vx, b->vy, b->vz};
    for (size_t i = 0; i < b->n; i++) {
        const double m = mass(b->r[i], b->dims);
        double v2 = 0.0;
        for (int a = 0; a < b->dims; a++) {
            v2 += v[a][i] * v[a][i];
            fr.momentum[a] += m * v[a][i];
        }
        fr.kinetic_energy += 0.5 * m * v2;
    }
    if (f)
        *f = fr;
    return SC_OK;
}
