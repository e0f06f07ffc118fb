/*
 * grid.c: the hierarchical sorted-cell grid as a peer (SC_ALGO_GRID, the
 * default). Its build is
 *
 *   grid plan -> keys -> radix sort -> row table -> gather
 *
 * and its search walks the rows of a chunk of sorted spheres (search.c).
 * Peak scratch per sphere: keys 8 + 8 (sort), index 4 + 4, fine x 4,
 * working copy 24 = 52 bytes: the copy's radii go into the sorted keys'
 * buffer, dead once the row pass has read it (less fresh memory for a
 * first query to fault in). The row table reuses the sort's second
 * buffers, and the sort's histograms sit in their own small buffer.
 */
#include "grid.h"

#include <string.h>

enum { KEYS, TMP_KEYS, INDEX, TMP_INDEX, XQ, WORK, COUNTS };

/* Packed words are repaired only while at most an eighth of the sampled
 * neighbours descend: their LSD sort is two or three passes, which a
 * repair with more words out of place does not beat. (key, index) pairs
 * take five passes and are repaired up to the keys stage's quarter. The
 * measurements behind both: docs/design.md, "radix sort". */
#define REPAIR_PACKED_DESCENTS (SC_ORDER_SAMPLES / 8)

/* For each pair of non-empty levels, the side the search finds their pairs
 * from: the cheaper by the cost model, on the rows the build counted. A few
 * large spheres among many small ones (seed 002's balls, heavy-tailed radii)
 * look up the fine rows under them instead of every fine sphere looking up
 * their rows. */
static void choose_sides(const sc_bounds *b, const sc_grid_plan *p, const sc_rows *rw,
                         uint32_t down[SC_MAX_LEVELS]) {
    sc_grid_census cs;
    memset(&cs, 0, sizeof(cs));
    sc_grid_census_geometry(b, p->cell[0], p->levels, &cs);
    for (int l = 0; l < p->levels; l++) {
        const size_t r0 = rw->level_begin[l], r1 = rw->level_begin[l + 1];
        cs.rows[l] = (double)(r1 - r0);
        cs.n[l] = (double)(rw->start[r1] - rw->start[r0]);
        down[l] = 0;
    }
    for (int m = 1; m < p->levels; m++)
        for (int l = 0; l < m; l++) {
            if (cs.n[l] == 0.0 || cs.n[m] == 0.0)
                continue;
            double up, dn;
            sc_grid_cross_cost(&cs, l, m, &up, &dn);
            if (dn < up)
                down[m] |= 1u << l;
        }
}

void sc_grid_plan_choose(const sc_view *v, const sc_bounds *b, const sc_grid_options *go,
                         void *scratch, size_t scratch_bytes, sc_grid_plan *plan) {
    sc_grid_plan_make(b, go->cell_factor, go->max_levels, go->levels, plan);
    /* A one-level plan at the default edge whose cells the data leaves
     * nearly empty: coarser cells, one level (more would only split them
     * again). Too little scratch (small sets): the edge stays. */
    if (go->cell_factor == 1.0 && plan->levels == 1 &&
        scratch_bytes >= sc_grid_occupancy_scratch()) {
        const double f = sc_grid_sparse_factor(v, b, plan->cell[0], scratch);
        if (f > 1.0)
            sc_grid_plan_make(b, f, go->max_levels, 1, plan);
    }
}

/* One function, though long: the grid's build is its stages in order
 * (plan, keys, sort, rows, gather), each a call timed into its clock, with
 * the order-only and study paths stopping between them. */
static sc_status grid_build(const sc_peer_env *e, sc_peer_built *out) {
    _Static_assert(sizeof(sc_grid_state) <= SC_PEER_STATE_BYTES, "state fits");
    sc_grid_state *g = e->state;
    const sc_view *v = e->view;
    const size_t n = v->n;
    const int threads = e->threads;
    sc_buf *buf = e->buf;
    const bool stream = sc_radix_stream(n);
    const size_t counts = sc_radix_sort_scratch(e->room, stream) + 8 * (size_t)(e->room + 1);
    /* Both key buffers can end up holding the sorted keys, and then the
     * working copy's radii or its x: room for n + SC_PAD doubles in each. */
    if (!sc_env_reserve(e, KEYS, 8 * (n + SC_PAD)) || !sc_env_reserve(e, XQ, 4 * (n + SC_PAD)) ||
        !sc_env_reserve(e, TMP_KEYS, 8 * (n + SC_PAD)) || !sc_env_reserve(e, INDEX, 4 * (n + 1)) ||
        !sc_env_reserve(e, TMP_INDEX, 4 * (n + 1)) ||
        !sc_work_reserve_xyz(e, WORK, n, &out->work) || !sc_env_reserve(e, COUNTS, counts))
        return SC_ERR_OUT_OF_MEMORY;

    double t = sc_now();
    sc_radix_first first = {buf[COUNTS].p, 0, false, 0, stream, false, false, 0};
    const int blocks = sc_radix_blocks(n, threads);
    const sc_grid_options *go = &e->opt->grid;
    /* The sort's second key buffer is free until the sort. */
    sc_grid_plan_choose(v, e->bounds, go, buf[TMP_KEYS].p, 8 * n, &g->plan);
#ifdef SC_STUDY
    g->plan.morton = e->study->morton;
#endif
    /* Keys travel with their index in one word when both fit. */
    first.pack_bits = sc_pack_bits(n, g->plan.key_bits);
    sc_keys_compute(v, &g->plan, buf[KEYS].p, blocks, &first);
    sc_env_stage(e, SC_STAGE_KEYS, t);

    /* The result may land in the second buffers: then swap the roles, no
     * copy. Keys already ascending (the caller keeps its spheres in the
     * order sc_cell_order gave) need no pass: packed words carry their
     * index, and (key, index) pairs get the identity. */
    t = sc_now();
    if (first.sorted) {
        out->detail = "keys already in cell order: sort skipped";
        if (!first.pack_bits) {
            uint32_t *index = buf[INDEX].p;
#pragma omp parallel for schedule(static)
            for (size_t k = 0; k < n; k++)
                index[k] = (uint32_t)k;
        }
    } else if (first.pack_bits && first.nearly && first.descents <= REPAIR_PACKED_DESCENTS &&
               sc_radix_repair_packed(buf[KEYS].p, buf[TMP_KEYS].p, n, g->plan.key_bits,
                                      first.pack_bits, buf[INDEX].p, buf[TMP_INDEX].p, n / 4,
                                      buf[COUNTS].p, threads)) {
        /* Nearly in order (a few steps after sc_cell_order's): the words
         * out of place sorted and merged back; the index buffers, free
         * until the row pass, held them (n / 4 words fit their 4 n bytes). */
        out->detail = "keys nearly in cell order: sort repaired";
    } else if (!first.pack_bits && first.nearly &&
               sc_radix_repair_pairs(
                   buf[KEYS].p, buf[INDEX].p, buf[TMP_KEYS].p, buf[TMP_INDEX].p, n,
                   g->plan.key_bits, (uint64_t *)(void *)out->work.y,
                   (uint32_t *)(void *)out->work.z, (uint64_t *)(void *)out->work.y + n / 4,
                   (uint32_t *)(void *)out->work.z + n / 4, n / 4, buf[COUNTS].p, threads)) {
        /* The same for (key, index) pairs; the working copy's y and z,
         * free until the gather, hold the keys and indices out of place. */
        out->detail = "keys nearly in cell order: sort repaired (key, index)";
    } else if (first.pack_bits) {
        if (sc_radix_sort_packed(buf[KEYS].p, buf[TMP_KEYS].p, n, g->plan.key_bits, first.pack_bits,
                                 buf[COUNTS].p, threads, &first)) {
            sc_buf tk = buf[KEYS];
            buf[KEYS] = buf[TMP_KEYS];
            buf[TMP_KEYS] = tk;
        }
    } else if (sc_radix_sort_pairs(buf[KEYS].p, buf[INDEX].p, buf[TMP_KEYS].p, buf[TMP_INDEX].p, n,
                                   g->plan.key_bits, buf[COUNTS].p, threads, &first)) {
        sc_buf tk = buf[KEYS], ti = buf[INDEX];
        buf[KEYS] = buf[TMP_KEYS];
        buf[INDEX] = buf[TMP_INDEX];
        buf[TMP_KEYS] = tk;
        buf[TMP_INDEX] = ti;
    }
    sc_env_stage(e, SC_STAGE_SORT, t);
    const uint64_t *keys = buf[KEYS].p;
    uint32_t *index = buf[INDEX].p;
    if (e->order_only) {
        /* sc_cell_order: the sorted index is the order; packed words carry
         * it in their low bits (the row pass would split them). */
        if (first.pack_bits) {
            const uint64_t imask = ((uint64_t)1 << first.pack_bits) - 1;
#pragma omp parallel for schedule(static)
            for (size_t k = 0; k < n; k++)
                index[k] = (uint32_t)(keys[k] & imask);
        }
        out->work.n = n;
        out->work.index = index;
        out->levels = g->plan.levels;
        out->cell_size = g->plan.cell[0];
        return SC_OK;
    }
    /* The rows' keys go where the working copy's x was reserved, and x goes
     * to the sort's other key buffer, which the sort has just written: a
     * first query touches only the rows' part of the one and no fresh page
     * for the other (the rows are at most n, the x array's room). */
    g->rows.key = (uint64_t *)(void *)out->work.x;
    out->work.x = buf[TMP_KEYS].p;
    g->rows.start = buf[TMP_INDEX].p;

    /* Packed words are split here: the row pass writes the index. */
    t = sc_now();
    size_t *offsets = (size_t *)((char *)buf[COUNTS].p + sc_radix_sort_scratch(threads, stream));
    /* The working copy's y and z are free until the gather: the row pass
     * stages its tables there. */
    sc_rows_build(keys, n, &g->plan, &g->rows, buf[XQ].p, index, first.pack_bits, offsets,
                  (uint64_t *)(void *)out->work.y, (uint32_t *)(void *)out->work.z);
    sc_env_stage(e, SC_STAGE_CELLS, t);
#ifdef SC_VALIDATE
    for (size_t k = 1; k < n; k++)
        SC_ASSERT(keys[k - 1] <= keys[k]);
    for (size_t k = 0; k < g->rows.count; k++)
        SC_ASSERT(g->rows.start[k] < g->rows.start[k + 1]);
#endif

    choose_sides(e->bounds, &g->plan, &g->rows, g->down);
#ifdef SC_STUDY
    for (int m = 0; m < g->plan.levels && e->study->sides; m++) /* 1: all up; 2: all down */
        g->down[m] = e->study->sides == 2 ? (1u << m) - 1u : 0u;
#endif

    t = sc_now();
    g->view = v;
    g->indirect = false;
#ifdef SC_STUDY
    g->indirect = e->study->indirect;
#endif
    if (g->indirect) {
        out->work.n = n; /* no copy: the kernel reads the view through index */
        out->work.index = index;
        out->kernel = sc_narrow_indirect;
        out->stats_kernel = SC_KERNEL_SCALAR;
    } else {
        out->work.r = (double *)buf[KEYS].p; /* the sorted keys: read by the row pass, dead now */
        sc_gather(v, index, n, &out->work);
    }
    g->xq = buf[XQ].p;
    sc_env_stage(e, SC_STAGE_GATHER, t);

    g->chunk_spheres = sc_chunk_spheres(n);
    out->nchunks = (n + g->chunk_spheres - 1) / g->chunk_spheres;
    out->state = g;
    out->cells = g->rows.count;
    out->levels = 0;
    for (int l = 0; l < g->plan.levels; l++)
        out->levels += g->rows.level_begin[l] < g->rows.level_begin[l + 1];
    out->cell_size = g->plan.cell[0];
    return SC_OK;
}

static void grid_defaults(sc_options *o) {
    o->grid.cell_factor = 1.0;
    o->grid.max_levels = SC_MAX_LEVELS;
    o->grid.levels = 0; /* the cost model's choice */
}

static bool grid_valid(const sc_options *o) {
    const sc_grid_options *g = &o->grid;
    return g->cell_factor >= 1.0 && g->cell_factor <= 1e6 && g->max_levels >= 1 &&
           g->max_levels <= SC_MAX_LEVELS && g->levels >= 0 && g->levels <= SC_MAX_LEVELS;
}

const sc_peer sc_peer_grid = {.id = SC_ALGO_GRID,
                              .name = "grid",
                              .stages = {[SC_STAGE_KEYS] = "level and cell keys",
                                         [SC_STAGE_SORT] = "radix sort",
                                         [SC_STAGE_GATHER] = "working copy",
                                         [SC_STAGE_CELLS] = "row table"},
                              .caps = SC_PEER_CELL_ORDER | SC_PEER_PROBE,
                              .tls_bytes = SC_GRID_TLS_BYTES,
                              .defaults = grid_defaults,
                              .valid = grid_valid,
                              .build = grid_build,
                              .search = sc_grid_search_chunk};
