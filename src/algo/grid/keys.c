/*
 * keys.c: the grid plan and keys stages. Takes the bounds and radius range; plans the grid
 * (levels, cell edges, key layout) and writes one 64-bit cell key per sphere.
 * O(n), one streaming read of the view, 12 bytes written per sphere.
 *
 * Levels. The coarsest level's cell edge is 2 * r_max (a touch more); each
 * finer level halves it. A sphere lives in the finest level whose half-edge
 * still covers its radius, so spheres within a level differ in radius by at
 * most 2x, and a pair (i in level l, j in level l' >= l) has centres at most
 * one level-l' cell apart: the search needs only the 27 cells around i's
 * level-l' cell. Cell coordinates of level l are the level-0 integer
 * coordinates shifted right by l, so every level nests exactly.
 *
 * Exactness of the cells. A true pair must land in adjacent cells; rounding
 * in the computation of cell coordinates must not break that. What the
 * predicate accepts: with D the exact distance of the centres and
 * S = ri + rj, every product of d2 and s*s is fl(p) = p(1 + d) + e with
 * |d| <= u = 2^-53 and |e| <= 2^-1075 (e only when the product underflows;
 * sums and differences that underflow are exact), so an accepted pair has
 *   D^2 (1 - 3u) - 3 * 2^-1075 <= S^2 (1 + 3u) + 2^-1075,
 *   D <= S (1 + 4u) + 2^-536.
 * The absolute term is what breaks a purely relative argument once squares
 * reach the subnormal range (two zero-radius spheres 1e-163 apart are a
 * pair). Spheres of level l have S <= cell_l (1 - 2^-20) (the radius limit
 * keeps a relative margin of 2^-20 below half the edge), so
 *   D / cell_l <= 1 - 2^-20 + 6u + 2^-536 / cell_l.
 * Each computed cell coordinate t (in level-0 cells) is off by at most e_t,
 * and the search needs |t_i - t_j| <= 2^l' (then the floors differ by at
 * most one cell and the fine X by at most 8 * 2^l'). Two regimes:
 *   - extent / cell < 2^30: t = (p - origin) * (1 / cell) with three
 *     roundings of relative u each on |t| < 2^30: e_t < 3 * 2^-23 = 2^-21.4;
 *   - otherwise (say a few spheres at 1e30): the finest edge is rounded up to
 *     a power of two and t = p * 2^-e is exact for every finite p (ldexp by a
 *     positive power is exact; a negative one rounds only values below one
 *     cell, whose floor stays 0 or -1).
 * Both hold when 2 e_t + 2^-536 / cell <= 2^-20 - 6u, which needs
 * cell >= 2^-514: the finest edge therefore never goes below SC_CELL_FLOOR =
 * 2^-500 (2^-536 / cell <= 2^-36 then). The floor also keeps 1 / cell0 finite
 * (at most 2^500, so t is never 0 * inf) and every t below 2^1001 (the
 * coordinates are at most SC_MAX_ABS_VALUE < 2^499), so no conversion to
 * int64 sees a NaN or an infinity. It costs nothing real: only spheres whose
 * radii and spacing are below 3e-151 get coarser cells than they could.
 * Key layout, high to low: level | z | y | X. z and y are the row (level-l
 * cell coordinates = level-0 ones >> l); X is x quantised to 1/8 of a level-0
 * cell, the same at every level, so rows sort by x and the search can use
 * windows |X_i - X_j| <= 8 * 2^l' (see search.c). All of these are exact
 * power-of-two scalings of the same rounded coordinate, so the levels nest.
 * Keys wrap: each axis keeps `bits` bits (y, z: bits - l at level l), so
 * memory depends on n only, never on the volume of the box. Far-apart
 * spheres may share a wrapped row (harmless: the exact test rejects them);
 * neighbours stay neighbours modulo the wrap, which the search honours where
 * the plan says an axis may wrap.
 */
#include "grid.h"

#include <math.h>
#include <string.h>

#define SC_MARGIN 0x1p-20
#define SC_CELL_FLOOR 0x1p-500 /* smallest finest-cell edge: see above */
#define SC_AXIS_BITS 19        /* level-0 cells per axis before wrapping: 2^19 */

static int bit_length(uint64_t v) {
    int b = 0;
    while (v) {
        b++;
        v >>= 1;
    }
    return b;
}

/* Estimated search cost, in candidate-test equivalents, of a grid with L
 * levels under the coarsest edge `top`, assuming each level's spheres spread
 * evenly over the box. Terms, per level l (n_l spheres, edge c_l):
 *   same-level candidates  n_l^2 * 0.75 * f(c_l)   (4.5 of the 9 rows, x 1.5
 *                                                    for shared windows)
 *   cross-level candidates n_l n_m * f(c_m)        (9 rows of level m)
 *   per sphere: 15 for its own level's windows;
 *   per coarser level m, the cheaper of the two ways to find the pairs
 *   between l and m (sc_grid_cross_cost).
 * f(c) is the fraction of the box that 9 rows of edge c and a window of 2c
 * along x cover: 18 c^3 / V where every axis is wider than the rows, and no
 * more than the whole extent along an axis that is not (a flat axis of 2-D
 * data, or a coarsest cell wider than the box).
 * Only the number of levels depends on it; exactness does not. */
#define SPHERE_OWN_COST 15.0

static double reach(const double ext[3], double c) {
    double f = 1.0;
    for (int a = 0; a < 3; a++) {
        const double w = (a == 0 ? 2.0 : 3.0) * c; /* x window, rows along y and z */
        if (w < ext[a])
            f *= w / ext[a];
    }
    return f;
}

/* The census the cost model reads, estimated from the radius histogram:
 * spheres by level, and rows as if the level's spheres spread evenly. */
static void census_estimate(const sc_bounds *b, const double *c, int L, sc_grid_census *cs) {
    memset(cs, 0, sizeof(*cs));
    for (int e = 0; e < SC_EXP_BINS; e++) {
        if (!b->rexp[e])
            continue;
        /* a radius in [2^x, 2^(x+1)): take 1.5 * 2^x as typical */
        double r = e == 0 ? 0.0 : ldexp(1.5, e + SC_EXP_MIN);
        int l = 0;
        while (l < L - 1 && r > 0.5 * c[l])
            l++;
        cs->n[l] += (double)b->rexp[e];
    }
    sc_grid_census_geometry(b, c[0], L, cs);
    for (int l = 0; l < L; l++) {
        const double cells = cs->span[l][0] * cs->span[l][1];
        cs->rows[l] = cs->n[l] < cells ? cs->n[l] : cells;
    }
}

void sc_grid_census_geometry(const sc_bounds *b, double cell0, int levels, sc_grid_census *cs) {
    cs->levels = levels;
    for (int a = 0; a < 3; a++)
        cs->ext[a] = b->hi[a] - b->lo[a];
    for (int l = 0; l < levels; l++) {
        cs->cell[l] = ldexp(cell0, l);
        for (int a = 1; a < 3; a++)
            cs->span[l][a - 1] = floor(cs->ext[a] / cs->cell[l]) + 1.0;
    }
}

static double level_cost(const sc_bounds *b, double top, int L) {
    double c[SC_MAX_LEVELS];
    for (int l = 0; l < L; l++)
        c[l] = ldexp(top, l - (L - 1));
    sc_grid_census cs;
    census_estimate(b, c, L, &cs);
    /* A zero extent (2-D data) is taken as one finest cell, which only
     * keeps reach()'s ratios finite: rows are wider, so it counts 1. */
    double ext[3];
    for (int a = 0; a < 3; a++) {
        ext[a] = b->hi[a] - b->lo[a];
        if (ext[a] < c[0])
            ext[a] = c[0];
    }
    double cost = 0.0;
    for (int l = 0; l < L; l++) {
        const double nl = cs.n[l];
        if (nl == 0.0)
            continue;
        cost += nl * nl * 0.75 * reach(ext, c[l]) + SPHERE_OWN_COST * nl;
        for (int m = l + 1; m < L; m++) {
            if (cs.n[m] == 0.0)
                continue;
            double up, down;
            sc_grid_cross_cost(&cs, l, m, &up, &down);
            cost += nl * cs.n[m] * reach(ext, c[m]) + (up < down ? up : down);
        }
    }
    return cost;
}

/* The overhead, beyond the candidate tests (the same either way), of
 * finding the pairs between level l and a coarser level m:
 *   up:   every home row of l looks up 9 rows of m, and every sphere of l
 *         moves its windows through those that exist;
 *   down: every sphere of m looks up the rows of l under its 3 x 3 level-m
 *         cells (3 * 2^(m - l) per axis, clipped to the level's span; one
 *         lookup per z slab and one to skip to the next existing slab) and
 *         bisects each existing one for its x window. All of it runs in
 *         the chunks that hold level m, which sorts last: when m's spheres
 *         are few but meet many candidates (one huge sphere over everything,
 *         the powerlaw set), that work lands on one thread and the search
 *         waits for it, so down is taken only while a sphere of l meets on
 *         average fewer than DOWN_CANDIDATES_MAX spheres of m.
 * The up constants are calibrated on measurements (powerlaw at 2e4, 1e6 and
 * 1e7, wide at 1e6, heavytail from 3e5 to 1e7: the model must pick the
 * fastest forced level count, or one within 10% of it), the down ones on
 * seed 002's 2-D balls and the powerlaw set (the cheaper side by the model
 * must be the faster one). A row start costs less than it did when first
 * calibrated: neighbour rows of a few spheres are now taken whole, without
 * window moves, which is what most coarse rows are. */
#define ROW_START_COST 400.0
#define SPHERE_LEVEL_COST 75.0
#define DOWN_LOOKUP_COST 400.0
#define DOWN_ROW_COST 600.0
#define DOWN_CANDIDATES_MAX 0.5

void sc_grid_cross_cost(const sc_grid_census *cs, int l, int m, double *up, double *down) {
    *up = ROW_START_COST * cs->rows[l] + SPHERE_LEVEL_COST * cs->n[l];
    const double under = 3.0 * ldexp(1.0, m - l); /* level-l rows per axis under 3 cells of m */
    const double ny = under < cs->span[l][0] ? under : cs->span[l][0];
    const double nz = under < cs->span[l][1] ? under : cs->span[l][1];
    double occ = cs->rows[l] / (cs->span[l][0] * cs->span[l][1]);
    occ = occ < 1.0 ? occ : 1.0;
    *down = cs->n[m] * (DOWN_LOOKUP_COST * 2.0 * nz + DOWN_ROW_COST * ny * nz * occ);
    double ext[3];
    for (int a = 0; a < 3; a++) /* zero extents count 1 (reach clips them) */
        ext[a] = cs->ext[a] > 0.0 ? cs->ext[a] : cs->cell[0];
    if (cs->n[m] * reach(ext, cs->cell[m]) >= DOWN_CANDIDATES_MAX)
        *down = HUGE_VAL;
}

static int choose_levels(const sc_bounds *b, double top, int max_levels) {
    int best = 1;
    double best_cost = level_cost(b, top, 1);
    for (int L = 2; L <= max_levels; L++) {
        double cst = level_cost(b, top, L);
        if (cst < best_cost) {
            best = L;
            best_cost = cst;
        }
    }
    return best;
}

/* The fine X two centres of a pair with fl(ri + rj) <= sum are at most
 * apart, capped at cap (sc_grid_plan_make's comment on xreach says why). */
static uint32_t fine_reach(double sum, double cell0, uint32_t cap) {
    const double reach = (sum / cell0 * (1.0 + 0x1p-40) + 0x1p-20) * (1.0 + 0x1p-40);
    const double fine = ceil(reach * (double)(1 << SC_XFINE));
    return fine < (double)cap ? (uint32_t)fine : cap;
}

void sc_grid_plan_make(const sc_bounds *b, double cell_factor, int max_levels, int levels_wanted,
                       sc_grid_plan *p) {
    p->morton = false; /* the caller may ask for it after the plan is made */
    if (max_levels < 1 || max_levels > SC_MAX_LEVELS)
        max_levels = SC_MAX_LEVELS;
    if (!(cell_factor >= 1.0))
        cell_factor = 1.0;
    double extent = 0.0;
    for (int a = 0; a < 3; a++) {
        double e = b->hi[a] - b->lo[a];
        extent = e > extent ? e : extent;
    }
    /* Coarsest edge: 2 r_max plus margin. With all radii zero any edge is
     * legal; pick one from the extent so the grid is not degenerate. */
    double top = 2.0 * b->rmax * (1.0 + 2 * SC_MARGIN) * cell_factor;
    if (!(top > 0.0))
        top = extent > 0.0 ? extent * 0x1p-10 : 1.0;
    if (top < SC_CELL_FLOOR)
        top = SC_CELL_FLOOR;
    /* Levels: at most as many as halvings that the smallest radius still
     * fits and that keep the finest edge at or above the floor; how many of
     * those pay off, the cost model decides. */
    int levels = 1;
    double rmin = b->rmin;
    while (levels < max_levels && ldexp(top, -levels) >= SC_CELL_FLOOR &&
           rmin <= 0.25 * top * ldexp(1.0, 1 - levels) * (1.0 - SC_MARGIN))
        levels++;
    if (levels_wanted <= 0)
        levels = choose_levels(b, top, levels);
    else if (levels_wanted < levels)
        levels = levels_wanted;
    double cell0 = ldexp(top, 1 - levels);

    p->pow2 = !(extent < cell0 * 0x1p30);
    p->pow2_exp = 0;
    if (p->pow2) {
        int e;
        double m = frexp(cell0, &e); /* cell0 = m 2^e, m in [0.5, 1) */
        if (m != 0.5)
            cell0 = ldexp(1.0, e);
        else
            e -= 1;
        p->pow2_exp = e;
    }
    p->levels = levels;
    for (int l = 0; l < levels; l++) {
        p->cell[l] = ldexp(cell0, l);
        p->radius_limit[l] = 0.5 * p->cell[l] * (1.0 - SC_MARGIN);
    }
    for (int a = 0; a < 3; a++)
        p->origin[a] = p->pow2 ? 0.0 : b->lo[a];
    p->inv_cell0 = 1.0 / cell0;

    /* Key layout: X fastest, then y, z, level on top. Each axis needs room
     * for its extent and at least 4 cells at the coarsest level; an axis
     * whose extent fits with a margin of two coarsest cells never wraps. */
    int min_bits = levels + 1;
    int lbits = bit_length((uint64_t)(levels - 1));
    for (int a = 0; a < 3; a++) {
        int bits = SC_AXIS_BITS;
        bool wrap = true;
        if (!p->pow2) {
            double cells = (b->hi[a] - b->lo[a]) * p->inv_cell0 + 2.0 + 2.0 * ldexp(1.0, levels);
            if (cells < 0x1p19) {
                bits = bit_length((uint64_t)cells);
                wrap = false;
            }
        }
        if (bits < min_bits)
            bits = min_bits;
        if (bits > SC_AXIS_BITS) {
            bits = SC_AXIS_BITS;
            wrap = true;
        }
        p->bits[a] = bits + (a == 0 ? SC_XFINE : 0);
        p->wrap[a] = wrap;
    }
    /* The reach in fine X. A pair's centres are D <= S (1 + 4u) + 2^-536
     * apart with S = fl(ri + rj) <= 2 r_max, and each computed coordinate
     * is off by at most 2^-21.4 cells (above), so their t differ by at most
     * B = 2 r_max (1 + 4u) / cell0 + 2^-536 / cell0 + 2^-20.4 <= 2 r_max /
     * cell0 (1 + 2^-40) + 2^-20 (cell0 >= 2^-500), and their fine X (floors
     * of 8 t) by at most ceil(8 B). Computed with a relative 2^-40 to spare
     * for the two roundings; at most a coarsest cell (8 2^(levels - 1):
     * as at a legal edge, where 8 B is just below it). */
    const uint32_t coarsest = (uint32_t)1 << (SC_XFINE + levels - 1);
    p->xreach = fine_reach(2.0 * b->rmax, cell0, coarsest);
    /* Row boxes. A sphere of a level-l row with cell coordinate c on an
     * axis has c 2^l <= floor(t) <= t < (c + 1) 2^l, and its true
     * (v - origin) / cell0 is within e_t < 2^-21.4 of t (above). The
     * computed bound origin + c cell_l (c < 2^19: exact as a double) takes
     * three roundings, the product's, the sum's and the slack's, each of
     * relative u on values below M = 2 (|lo| + |hi| + top cell): under
     * 4u M in all. So a slack of 2^-20 cell0 + 2^-48 M keeps every centre
     * inside. Only where t is origin-relative and the axis does not wrap. */
    for (int a = 1; a < 3; a++) {
        const double m = 2.0 * (fabs(b->lo[a]) + fabs(b->hi[a]) + p->cell[levels - 1]);
        p->row_box[a] = !p->pow2 && !p->wrap[a];
        p->row_slack[a] = cell0 * 0x1p-20 + m * 0x1p-48;
    }
    p->row_box[0] = false;
    p->row_slack[0] = 0.0;
    for (int l = 0; l < levels; l++)
        p->rlevel[l] = p->radius_limit[l] < b->rmax ? p->radius_limit[l] : b->rmax;
    /* The reach between two levels: as xreach, with S = fl(ri + rj) <=
     * fl(rlevel[m] + rlevel[l]) (every radius of a level is at most its
     * rlevel; rounding is monotone) in place of 2 r_max. At most the
     * coarser level's cell, the window's width before. */
    for (int m = 0; m < levels; m++)
        for (int l = m; l < levels; l++) {
            const uint32_t cell = (uint32_t)1 << (SC_XFINE + l);
            const uint32_t r =
                fine_reach(p->rlevel[m] + p->rlevel[l], cell0, p->xreach < cell ? p->xreach : cell);
            p->xpair[m][l] = p->xpair[l][m] = r;
        }
    p->shift[0] = 0;
    p->shift[1] = p->bits[0];
    p->shift[2] = p->bits[0] + p->bits[1];
    p->level_shift = p->shift[2] + p->bits[2];
    p->key_bits = p->level_shift + lbits;
}

int sc_grid_level(const sc_grid_plan *p, double r) {
    /* The limits ascend, so the level is the count of limits below r, taken
     * without branches: a loop that stopped at the first limit at or above
     * r mispredicted its exit for mixed radii. A NaN passes none: level 0. */
    int l = 0;
    for (int e = 0; e < p->levels - 1; e++)
        l += r > p->radius_limit[e];
    return l;
}

/* floor(v scaled to level-0 cells * 2^fine): exact power-of-two scaling of
 * the one rounded value t, so every axis and level sees the same point. */
static int64_t axis_coord(const sc_grid_plan *p, double v, int a, int fine) {
    if (!p->pow2) /* t >= 0: truncation is floor; * 2^fine is exact */
        return (int64_t)((v - p->origin[a]) * p->inv_cell0 * (fine ? (double)(1 << fine) : 1.0));
    double t = ldexp(v, fine - p->pow2_exp); /* exact */
    if (fabs(t) < 0x1p62) {
        double f = floor(t);
        if (f == 0.0 && v < 0.0) /* t underflowed to zero */
            f = -1.0;
        return (int64_t)f;
    }
    return (int64_t)fmod(t, 0x1p62); /* t is integral here; congruent mod 2^62 */
}

void sc_grid_coords(const sc_grid_plan *p, const double pt[3], int64_t q[3]) {
    q[0] = axis_coord(p, pt[0], 0, SC_XFINE);
    q[1] = axis_coord(p, pt[1], 1, 0);
    q[2] = axis_coord(p, pt[2], 2, 0);
}

/* Bits 0..20 of v to the even positions 0..40. */
static uint64_t spread2(uint64_t v) {
    v &= 0x1FFFFF;
    v = (v | v << 16) & 0x0000FFFF0000FFFFull;
    v = (v | v << 8) & 0x00FF00FF00FF00FFull;
    v = (v | v << 4) & 0x0F0F0F0F0F0F0F0Full;
    v = (v | v << 2) & 0x3333333333333333ull;
    v = (v | v << 1) & 0x5555555555555555ull;
    return v;
}

/* The even bits of v back to bits 0..20. */
static uint64_t gather2(uint64_t v) {
    v &= 0x5555555555555555ull;
    v = (v | v >> 1) & 0x3333333333333333ull;
    v = (v | v >> 2) & 0x0F0F0F0F0F0F0F0Full;
    v = (v | v >> 4) & 0x00FF00FF00FF00FFull;
    v = (v | v >> 8) & 0x0000FFFF0000FFFFull;
    v = (v | v >> 16) & 0x1FFFFF;
    return v;
}

uint64_t sc_grid_zy(const sc_grid_plan *p, int level, uint64_t z, uint64_t y) {
    if (!p->morton)
        return z << p->bits[1] | y;
    const int wy = p->bits[1] - level, wz = p->bits[2] - level;
    const int m = wy < wz ? wy : wz; /* <= 21: bits[a] <= 21 */
    const uint64_t low = m > 0 ? ((uint64_t)1 << m) - 1 : 0;
    return spread2(y & low) | spread2(z & low) << 1 | ((y >> m) | (z >> m)) << (2 * m);
}

void sc_grid_zy_split(const sc_grid_plan *p, int level, uint64_t f, uint64_t *z, uint64_t *y) {
    if (!p->morton) {
        *y = f & (((uint64_t)1 << p->bits[1]) - 1);
        *z = f >> p->bits[1];
        return;
    }
    const int wy = p->bits[1] - level, wz = p->bits[2] - level;
    const int m = wy < wz ? wy : wz;
    const uint64_t low = m > 0 ? ((uint64_t)1 << (2 * m)) - 1 : 0;
    const uint64_t rest = f >> (2 * m); /* the longer coordinate's extra bits */
    *y = gather2(f & low) | (wy > wz ? rest << m : 0);
    *z = gather2((f & low) >> 1) | (wz > wy ? rest << m : 0);
}

uint64_t sc_grid_key(const sc_grid_plan *p, int level, const int64_t q[3]) {
    uint64_t key = (uint64_t)level << p->level_shift;
    key |= ((uint64_t)q[0] & (((uint64_t)1 << p->bits[0]) - 1)) << p->shift[0];
    const uint64_t y = (uint64_t)(q[1] >> level) & (((uint64_t)1 << (p->bits[1] - level)) - 1);
    const uint64_t z = (uint64_t)(q[2] >> level) & (((uint64_t)1 << (p->bits[2] - level)) - 1);
    return key | sc_grid_zy(p, level, z, y) << p->shift[1];
}

static inline uint64_t sphere_key(const sc_view *v, const sc_grid_plan *p, size_t k) {
    const double pt[3] = {sc_view_get(v, v->x, k), sc_view_get(v, v->y, k),
                          v->z ? sc_view_get(v, v->z, k) : 0.0};
    int64_t q[3];
    sc_grid_coords(p, pt, q);
    return sc_grid_key(p, sc_grid_level(p, sc_view_r(v, k)), q);
}

/* The common case, specialised: double or float input (3-D, or 2-D with
 * z = 0; f64 a constant where it is inlined) read without the view's type
 * test per value, origin-relative scaling (axis_coord's !pow2 branch, the same
 * operations in the same order: multiplying by 2^SC_XFINE before or after
 * the rounding gives the same double), and the plan copied into a local:
 * the stores to keys and to the uint32 histogram may alias the plan's int
 * fields, so through the caller's pointer the compiler reloads them for
 * every sphere. The same keys as sphere_key (the stage test compares them). */
static inline __attribute__((always_inline)) void
keys_block(const sc_view *v, const sc_grid_plan *plan, size_t lo, size_t hi, uint64_t *keys,
           uint32_t *h, uint64_t dmask, uint64_t k0, int ib, int single, bool f64,
           uint64_t *vary_out) {
    const sc_grid_plan p = *plan;
    const double sx = p.inv_cell0 * (double)(1 << SC_XFINE);
    const uint64_t xmask = ((uint64_t)1 << p.bits[0]) - 1, ymask = ((uint64_t)1 << p.bits[1]) - 1,
                   zmask = ((uint64_t)1 << p.bits[2]) - 1;
    SC_ASSERT(!single || (p.levels == 1 && !p.morton && p.shift[0] == 0));
    const size_t stride = v->stride, rstride = v->rstride;
    /* 2-D input reads z = 0 from one constant (sphere_key's value; its
     * first four bytes are float 0 too) */
    static const double zero = 0.0;
    const size_t zstride = v->z ? stride : 0;
    const char *px = v->x, *py = v->y, *pz = v->z ? v->z : (const char *)&zero, *pr = v->r;
    uint64_t vary = 0;
    for (size_t k = lo; k < hi; k++) {
        const size_t off = k * stride;
#define LOAD(p)                                                                                    \
    (f64 ? *(const double *)(const void *)(p) : (double)*(const float *)(const void *)(p))
        const double x = LOAD(px + off), y = LOAD(py + off), z = LOAD(pz + k * zstride),
                     r = LOAD(pr + k * rstride);
#undef LOAD
        const int64_t q[3] = {(int64_t)((x - p.origin[0]) * sx),
                              (int64_t)((y - p.origin[1]) * p.inv_cell0),
                              (int64_t)((z - p.origin[2]) * p.inv_cell0)};
        /* One level: sc_grid_key's level-0 case without the level search
         * and the shifts by level. Several: sc_grid_key's row-major case,
         * its masks shifted from the plan's (faster than its own). */
        uint64_t key;
        if (single) {
            key = (((uint64_t)q[2] & zmask) << p.bits[1] | ((uint64_t)q[1] & ymask)) << p.shift[1] |
                  ((uint64_t)q[0] & xmask);
        } else {
            const int l = sc_grid_level(&p, r);
            const uint64_t cy = (uint64_t)(q[1] >> l) & (ymask >> l);
            const uint64_t cz = (uint64_t)(q[2] >> l) & (zmask >> l);
            key = (uint64_t)l << p.level_shift | (cz << p.bits[1] | cy) << p.shift[1] |
                  ((uint64_t)q[0] & xmask) << p.shift[0];
        }
        keys[k] = ib ? key << ib | k : key;
        h[key & dmask]++;
        vary |= key ^ k0;
    }
    *vary_out = vary;
}

/* keys_block with a constant 0 for `ib` and constant `single` (f64 is
 * the caller's constant): four specialised loops per element type. */
static inline __attribute__((always_inline)) void
keys_typed(const sc_view *v, const sc_grid_plan *p, size_t lo, size_t hi, uint64_t *keys,
           uint32_t *h, uint64_t dmask, uint64_t k0, int ib, bool f64, uint64_t *vary) {
    const bool single = p->levels == 1;
    if (ib && single)
        keys_block(v, p, lo, hi, keys, h, dmask, k0, ib, 1, f64, vary);
    else if (ib)
        keys_block(v, p, lo, hi, keys, h, dmask, k0, ib, 0, f64, vary);
    else if (single)
        keys_block(v, p, lo, hi, keys, h, dmask, k0, 0, 1, f64, vary);
    else
        keys_block(v, p, lo, hi, keys, h, dmask, k0, 0, 0, f64, vary);
}

/* How far keys[0..n) are from ascending (packed words ascend with their
 * keys: the index grows with k). SC_ORDER_SAMPLES neighbouring pairs
 * spread over the array decide most inputs first: keys in random order
 * descend at about half of them, keys a few steps after an exact order at
 * a few per cent (up to a quarter counts as nearly in order; the count is
 * handed on, the sort's choice between repair and LSD passes). Only input
 * with no descent there gets the full pass, which stops at its first. */
static void keys_order(const uint64_t *keys, size_t n, int blocks, sc_radix_first *first) {
    first->sorted = true;
    first->nearly = false;
    first->descents = 0;
    if (n < 2)
        return;
    int down_sampled = 0;
    for (size_t s = 0; s < SC_ORDER_SAMPLES; s++) {
        const size_t k = (n - 2) * s / (SC_ORDER_SAMPLES - 1);
        down_sampled += keys[k + 1] < keys[k];
    }
    first->sorted = false;
    first->nearly = down_sampled <= SC_ORDER_SAMPLES / 4;
    first->descents = down_sampled;
    if (down_sampled)
        return;
    int down = 0;
#pragma omp parallel num_threads(blocks)
    {
        const int t = sc_thread_id(), nt = sc_num_threads();
        const size_t lo = 1 + (n - 1) * (size_t)t / (size_t)nt;
        const size_t hi = 1 + (n - 1) * (size_t)(t + 1) / (size_t)nt;
        for (size_t a = lo; a < hi && !__atomic_load_n(&down, __ATOMIC_RELAXED); a += 16384) {
            const size_t b = hi - a < 16384 ? hi : a + 16384;
            bool d = false;
            for (size_t k = a; k < b; k++)
                d |= keys[k] < keys[k - 1];
            if (d)
                __atomic_store_n(&down, 1, __ATOMIC_RELAXED);
        }
    }
    first->sorted = !down;
    first->nearly = down;
}

void sc_keys_compute(const sc_view *v, const sc_grid_plan *p, uint64_t *keys, int blocks,
                     sc_radix_first *first) {
    const size_t n = v->n;
    const int dbits = sc_radix_digit_bits(p->key_bits);
    const size_t buckets = (size_t)1 << dbits;
    const uint64_t dmask = buckets - 1;
    const uint64_t k0 = n ? sphere_key(v, p, 0) : 0;
    const bool fast = !p->pow2 && !p->morton;
    const int ib = first->pack_bits;
    SC_ASSERT(ib == 0 || (p->key_bits + ib <= 64 && ib <= 32 && (n <= 1 || ((n - 1) >> ib) == 0)));
    uint64_t varying = 0;
#pragma omp parallel num_threads(blocks) reduction(| : varying)
    {
        const int t = sc_thread_id(), nt = sc_num_threads();
        for (int b = t; b < blocks; b += nt) {
            const size_t lo = n * (size_t)b / (size_t)blocks,
                         hi = n * (size_t)(b + 1) / (size_t)blocks;
            uint32_t *h = first->hist0 + (size_t)b * buckets;
            memset(h, 0, sizeof(uint32_t) * buckets);
            uint64_t vary = 0;
            if (fast) {
                if (v->f64)
                    keys_typed(v, p, lo, hi, keys, h, dmask, k0, ib, true, &vary);
                else
                    keys_typed(v, p, lo, hi, keys, h, dmask, k0, ib, false, &vary);
            } else
                for (size_t k = lo; k < hi; k++) {
                    const uint64_t key = sphere_key(v, p, k);
                    keys[k] = ib ? key << ib | k : key;
                    h[key & dmask]++;
                    vary |= key ^ k0;
                }
            varying |= vary;
        }
    }
    first->varying = varying;
    first->identity = ib == 0;
    keys_order(keys, n, blocks, first);
}
