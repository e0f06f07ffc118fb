/*
 * occupancy.c: how full the grid's cells would be, estimated from a sample,
 * and the coarser cell edge a sparse set is better served by.
 *
 * Cells of 2 r_max suit sets where a cell holds about a sphere. At volume
 * fraction 1e-4 (the seed's data file, `gen sparse`) nearly every row of
 * the grid holds one sphere or none, and looking up rows, not testing
 * candidates, is the cost. The bounding box cannot tell such a set from a
 * clustered one (27 tight blobs in a large box look just as empty), so the
 * occupancy is measured on the data: m spheres taken at a fixed stride, with
 * their cells hashed; the edge is then scaled to hold about OCC_AIM. A sample of m out of n is the set thinned by m / n; at
 * an edge scaled by (n / m)^(1/d) (d: the axes with extent), it shares a
 * cell about as often as the whole set does at the unscaled edge. The
 * estimate steers speed only: every cell edge >= 2 r_max finds the same
 * pairs, so a wrong estimate (or two cells whose 64-bit codes collide in
 * the table) costs time, never an answer. The sample is the same for
 * every thread count, so the plan, and the pair order, stay deterministic.
 */
#include "grid.h"

#include <math.h>
#include <string.h>

/* Below this many spheres the grid's cost is its fixed overheads. */
#define OCC_MIN_SPHERES 16384
/* Sample size and its hash table (a power of two, at most half full). */
#define OCC_SAMPLE 4096
#define OCC_TABLE (2 * OCC_SAMPLE)
/* The most a coarsened cell may hold, in other spheres per sphere's cell
 * (uniform sets at volume fraction 0.1-0.35 hold 0.3-1 at 2 r_max): a few
 * more candidate tests cost less than nearly empty rows. */
#define OCC_GOAL 1.5
#define OCC_FACTOR_MAX 16.0
/* ... and the occupancy the factor then aims at: between powers of two,
 * about 0.6 other spheres per sphere's cell, where sparse sets searched
 * fastest (docs/decisions/0003-stage-tuning.md). */
#define OCC_AIM 0.6
/* A set that fills space shares cells 8x as often when their edge doubles,
 * a sheet (the shell set) 4x, a line 2x. The thinned sample stands for the
 * whole set only in the first case; below this growth, the cells stay. */
#define OCC_GROWTH_MIN 6.0
/* Shared sample pairs below which the growth is not measured. */
#define OCC_GROWTH_PAIRS 32.0

size_t sc_grid_occupancy_scratch(void) {
    return OCC_TABLE * (sizeof(uint64_t) + sizeof(uint32_t));
}

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int extent_dims(const sc_bounds *b) {
    int dims = 0;
    for (int a = 0; a < 3; a++)
        dims += b->hi[a] > b->lo[a];
    return dims;
}

/* Expected number of other spheres in a sphere's cell of edge `cell`. */
static double occupancy(const sc_view *v, const sc_bounds *b, double cell, void *scratch) {
    const size_t n = v->n, m = OCC_SAMPLE;
    const int dims = extent_dims(b);
    const double scaled = cell * (dims == 0 ? 1.0 : pow((double)n / (double)m, 1.0 / dims));
    const double inv = 1.0 / scaled;
    uint64_t *code = scratch;
    uint32_t *count = (uint32_t *)(code + OCC_TABLE);
    memset(count, 0, OCC_TABLE * sizeof *count);
    double shared = 0.0; /* sample pairs in one cell: sum of c (c - 1) / 2 */
    for (size_t i = 0; i < m; i++) {
        const size_t k = (size_t)((double)i * (double)n / (double)m);
        const char *axis[3] = {v->x, v->y, v->z};
        uint64_t h = 0x9E3779B97F4A7C15ull;
        for (int a = 0; a < 3; a++) {
            const double t = axis[a] ? (sc_view_get(v, axis[a], k) - b->lo[a]) * inv : 0.0;
            /* t >= 0 and finite (validated bounds); far cells need only differ */
            const uint64_t c = t < 0x1p62 ? (uint64_t)t : (uint64_t)fmod(t, 0x1p62);
            h = mix64(h ^ c);
        }
        size_t s = (size_t)h & (OCC_TABLE - 1);
        while (count[s] != 0 && code[s] != h)
            s = (s + 1) & (OCC_TABLE - 1);
        code[s] = h;
        shared += (double)count[s]++;
    }
    return 2.0 * shared / (double)m;
}

double sc_grid_sparse_factor(const sc_view *v, const sc_bounds *b, double top, void *scratch) {
    if (v->n < OCC_MIN_SPHERES || !(top > 0.0))
        return 1.0;
    /* Most sets stop here: twice the edge would already fill cells past
     * the goal. */
    if (8.0 * occupancy(v, b, top, scratch) > OCC_GOAL)
        return 1.0;
    for (double f = OCC_FACTOR_MAX; f >= 2.0; f *= 0.5) {
        const double full = occupancy(v, b, top * f, scratch);
        if (full > OCC_GOAL)
            continue;
        const double half = occupancy(v, b, top * f * 0.5, scratch);
        if (half * 0.5 * OCC_SAMPLE >= OCC_GROWTH_PAIRS && full < OCC_GROWTH_MIN * half)
            return 1.0;
        /* a set that fills space: its occupancy grows as the edge to the
         * power d, so the edge that holds OCC_AIM is f (aim / full)^(1/d),
         * kept within [f / 2, 2 f] (2 f held more than the goal) and the cap */
        if (!(full > 0.0))
            return f;
        double g = f * pow(OCC_AIM / full, 1.0 / extent_dims(b));
        g = g < 0.5 * f ? 0.5 * f : g > 2.0 * f ? 2.0 * f : g;
        /* On a grid of quarter octaves (19% steps, within the flat optimum
         * above): the sample is taken at fixed positions, so the same set
         * in another order (sc_cell_order's) estimates a few per cent
         * apart, and should still get the same edge, the same keys, and
         * find them sorted. */
        g = exp2(floor(4.0 * log2(g) + 0.5) * 0.25);
        g = g > OCC_FACTOR_MAX ? OCC_FACTOR_MAX : g;
        return g > 1.0 ? g : 1.0;
    }
    return 1.0;
}
