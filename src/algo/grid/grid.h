/*
 * grid.h: the hierarchical sorted-cell grid, the engine's default peer.
 * Not installed.
 *   keys.c    grid plan (levels, cell edges, key layout) and a 64-bit cell
 *             key per sphere
 *   rows.c    row table (cell starts) and the fine x of each sphere
 *   search.c  narrowphase over rows: half stencil within a level, full
 *             stencil into coarser levels, cursors to find neighbour rows
 *   occupancy.c  a sampled estimate of how full the cells are (sparse sets
 *             get coarser cells)
 *   grid.c    the peer: keys -> radix sort -> rows -> gather
 */
#ifndef SC_GRID_H
#define SC_GRID_H

#include "peer.h"

#include <math.h>

/* ---- plan and keys --------------------------------------- */
#define SC_MAX_LEVELS 16

/* Fine x resolution: x is quantised to 1/2^SC_XFINE of a level-0 cell. */
#define SC_XFINE 3

typedef struct sc_grid_plan {
    int levels;                         /* number of levels, finest first */
    double cell[SC_MAX_LEVELS];         /* cell edge of each level: cell[0] * 2^l */
    double radius_limit[SC_MAX_LEVELS]; /* spheres of level l have r <= this */
    bool pow2;                          /* exact power-of-two scaling, origin 0 */
    int pow2_exp;                       /* cell[0] = 2^pow2_exp when pow2 */
    double origin[3];                   /* subtracted before scaling when !pow2 */
    double inv_cell0;                   /* 1 / cell[0] (rounded) when !pow2 */
    int bits[3];                        /* key bits of X (fine x, all levels), y, z (level 0) */
    bool wrap[3];                       /* coordinates may wrap modulo 2^bits on this axis */
    int shift[3];                       /* bit position of X, y, z in the key */
    int level_shift;                    /* bit position of the level */
    bool morton;                        /* the (z, y) field is a Morton code (sc_grid_zy) */
    int key_bits;                       /* significant bits of a key */
    uint32_t xreach;                    /* fine X two spheres of a pair are at most apart,
                               from the largest radius (keys.c): a coarsest
                               cell, less where cells are wider than 2 r_max */
    /* Row boxes (keys.c: sc_grid_row_box): on y (a = 1) and z (a = 2),
     * when row_box[a], every centre of a level-l row with cell coordinate c
     * lies in [origin + c cell_l - slack, origin + (c + 1) cell_l + slack]. */
    bool row_box[3];
    double row_slack[3];
    double rlevel[SC_MAX_LEVELS]; /* no radius of level l exceeds this */
    /* xpair[m][l]: fine X two spheres of a pair of levels m and l are at
     * most apart (from rlevel[m] + rlevel[l]; at most xreach and the
     * coarser level's cell) */
    uint32_t xpair[SC_MAX_LEVELS][SC_MAX_LEVELS];
} sc_grid_plan;

/* Half width in fine X of the windows that level-m spheres open into
 * level-l rows: no pair of those levels reaches farther. */
static inline uint64_t sc_grid_xhalf(const sc_grid_plan *p, int m, int l) {
    return p->xpair[m][l];
}

/* The interval along axis a (1: y, 2: z) that holds every centre of the
 * level-l rows with cell coordinate c there: the whole line where the plan
 * gives no row boxes on that axis (wrapped or power-of-two coordinates). */
static inline void sc_grid_row_box(const sc_grid_plan *p, int a, int l, int64_t c, double *lo,
                                   double *hi) {
    if (!p->row_box[a]) {
        *lo = -HUGE_VAL;
        *hi = HUGE_VAL;
        return;
    }
    *lo = (p->origin[a] + (double)c * p->cell[l]) - p->row_slack[a];
    *hi = (p->origin[a] + (double)(c + 1) * p->cell[l]) + p->row_slack[a];
}

/* levels_wanted: 0 = the cost model chooses; else exactly that many (capped). */
SC_INTERNAL void sc_grid_plan_make(const sc_bounds *b, double cell_factor, int max_levels,
                                   int levels_wanted, sc_grid_plan *plan);
/* The (z, y) field of a level-l key, to be shifted by shift[1]: z above y
 * (row-major), or, with plan->morton, their bits interleaved from the
 * lowest (y even, z odd) and the longer one's extra bits on top. z and y are
 * level-l cell coordinates below 2^(bits - l). sc_grid_zy_split inverts it. */
SC_INTERNAL uint64_t sc_grid_zy(const sc_grid_plan *plan, int level, uint64_t z, uint64_t y);
SC_INTERNAL void sc_grid_zy_split(const sc_grid_plan *plan, int level, uint64_t field, uint64_t *z,
                                  uint64_t *y);
/* Level of a sphere of radius r. */
SC_INTERNAL int sc_grid_level(const sc_grid_plan *plan, double r);
/* Integer coordinates (before wrapping) of a point: q[0] = fine x
 * (level-0 cells * 2^SC_XFINE), q[1], q[2] = level-0 cells in y, z. */
SC_INTERNAL void sc_grid_coords(const sc_grid_plan *plan, const double p[3], int64_t q[3]);
/* Key of a sphere: level, then the row (z, y at the level's resolution,
 * wrapped), then the fine x. */
SC_INTERNAL uint64_t sc_grid_key(const sc_grid_plan *plan, int level, const int64_t q[3]);

/* The factor (a power of two, 1..16) by which to widen a one-level grid's
 * cells when a sample of the spheres shows them nearly empty (occupancy.c):
 * 1 for sets under 16384 spheres or whose cells are full enough. `top` is
 * the plan's cell edge; scratch holds sc_grid_occupancy_scratch() bytes. */
SC_INTERNAL double sc_grid_sparse_factor(const sc_view *v, const sc_bounds *b, double top,
                                         void *scratch);
SC_INTERNAL size_t sc_grid_occupancy_scratch(void);
/* The plan the grid peer searches with: sc_grid_plan_make for the options,
 * then, for a one-level plan at the default edge, the sparse widening
 * (sc_grid_sparse_factor), which needs sc_grid_occupancy_scratch() bytes of
 * scratch (less: no widening). The study's replay (study.c) calls it too,
 * so its key widths are the engine's. */
SC_INTERNAL void sc_grid_plan_choose(const sc_view *v, const sc_bounds *b,
                                     const sc_grid_options *go, void *scratch, size_t scratch_bytes,
                                     sc_grid_plan *plan);

/* How many spheres and rows each level holds, and how many rows its grid
 * spans along y and z (span[l][0], span[l][1]): what the cost model reads,
 * estimated by the plan and counted by the build. */
typedef struct sc_grid_census {
    int levels;
    double n[SC_MAX_LEVELS];
    double rows[SC_MAX_LEVELS];
    double cell[SC_MAX_LEVELS];
    double span[SC_MAX_LEVELS][2];
    double ext[3]; /* the data's extent per axis */
} sc_grid_census;

/* Fills cs->cell, cs->span and cs->ext from the bounds and the finest edge. */
SC_INTERNAL void sc_grid_census_geometry(const sc_bounds *b, double cell0, int levels,
                                         sc_grid_census *cs);
/* The estimated overhead of finding the pairs between level l and a coarser
 * level m from l's side (up: l's spheres look up m's rows, as the search
 * does by default) and from m's side (down: m's spheres look up the rows of
 * l under their cells). The candidates are the same either way. */
SC_INTERNAL void sc_grid_cross_cost(const sc_grid_census *cs, int l, int m, double *up,
                                    double *down);

/* Writes every sphere's key (or, with first->pack_bits = b, the word
 * key << b | k);
 * fills first->hist0 (cut into `blocks` as sc_radix_blocks says),
 * first->varying, first->identity, first->sorted and first->nearly. The
 * index is not written. */
SC_INTERNAL void sc_keys_compute(const sc_view *v, const sc_grid_plan *plan, uint64_t *keys,
                                 int blocks, sc_radix_first *first);

/* ---- rows ------------------------------------------------------------------ */
/* A row is the set of spheres of one level with the same (z, y) cell: a
 * column of cells along x, kept sorted by fine x. */
typedef struct sc_rows {
    size_t count;
    uint64_t *key;   /* row key (sphere key with the X bits cleared), ascending */
    uint32_t *start; /* first sorted sphere of each row; start[count] = n */
    size_t level_begin[SC_MAX_LEVELS + 1]; /* rows of level l: [begin[l], begin[l+1]) */
} sc_rows;

/* Builds the row table and writes xq[k] = X of sorted sphere k (padded with
 * UINT32_MAX). offsets: scratch of at least (threads + 1) entries;
 * stage_key and stage_start: scratch of n entries each, apart from every
 * other array. With index_bits = b > 0 the keys are packed words
 * (key << b | input index): the key is read from above bit b and index[k]
 * gets the low b bits. */
SC_INTERNAL size_t sc_rows_build(const uint64_t *sorted_keys, size_t n, const sc_grid_plan *plan,
                                 sc_rows *rows, uint32_t *xq, uint32_t *index, int index_bits,
                                 size_t *offsets, uint64_t *stage_key, uint32_t *stage_start);

/* ---- the peer's state and search ------------------------------------------ */
typedef struct sc_grid_state {
    sc_grid_plan plan;
    sc_rows rows;
    const uint32_t *xq;   /* fine x of each sorted sphere, padded */
    size_t chunk_spheres; /* sorted spheres per search chunk */
    /* down[m] bit l (l < m): the pairs between levels l and m are found
     * from m's side; every other pair of non-empty levels from the finer
     * side. Chosen by the build from the rows it counted. */
    uint32_t down[SC_MAX_LEVELS];
    bool indirect; /* the study's indirect layout: the kernel reads view */
    const sc_view *view;
} sc_grid_state;

/* Per-thread scratch of the search (a walker; search.c checks the size). */
#define SC_GRID_TLS_BYTES 32768

SC_INTERNAL uint64_t sc_grid_search_chunk(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel,
                                          sc_hits *hits, void *tls);

#endif /* SC_GRID_H */
