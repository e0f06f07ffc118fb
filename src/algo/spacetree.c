/*
 * spacetree.c: the octree's and the median split's builder and search.
 *
 * A node holds the spheres whose boxes (peer.h) overlap its region, a
 * half-open box. It is cut on one axis at a value v: the lower child
 * [lo, v) gets the spheres with box_lo < v, the upper one [v, hi) those
 * with box_hi >= v; a sphere that straddles v goes to both. Leaves keep
 * their spheres, and a pair is reported only in the leaf that holds its
 * reference point, so each pair once.
 *   - octree (seed 002's quadtree in 3-D): a node's box is cut at its middle
 *     on x, then y, then z (three binary cuts make the eight children; two
 *     and four for 2-D input); it is a leaf when it holds at most leaf_size
 *     spheres or is max_depth octree levels deep;
 *   - kdsplit (seed 003): one cut per level on alternating axes, at the
 *     median centre (by selection) or the mean; a leaf at leaf_size or
 *     max_depth, or when a cut is useless (a child would keep every sphere).
 * Memory stays O(n): the copies are budgeted (at most 4 n + 1024 in all,
 * pending nodes included); a node whose cut would pass the budget becomes a
 * leaf instead (slower, never wrong). The build is depth first with a
 * LIFO pool, serial and deterministic; the search runs chunks of leaves
 * in parallel.
 */
#include "spacetree.h"

#include <math.h>
#include <string.h>

enum { WORK, POOL, ENTRIES, TMP, LEAF_START, LEAF_REGION, CHUNKS, VALUES };

typedef struct tree_state {
    const uint32_t *leaf_start;
    const sc_region *leaf_region;
    const uint32_t *chunk;
    int axes;
} tree_state;

typedef struct tnode {
    uint32_t start, count; /* ids in the pool */
    int depth;             /* binary cuts above this node */
    sc_region reg;
    double box_lo[3], box_hi[3]; /* octree: the cube being cut */
} tnode;

#define STACK 400 /* > 3 * 64 + 2: pending siblings, one per binary level */

static double centre(const sc_view *v, int ax, uint32_t k) {
    const char *a = ax == 0 ? v->x : ax == 1 ? v->y : v->z;
    return a ? sc_view_get(v, a, k) : 0.0;
}

/* k-th smallest of a[0..m) (Hoare's selection; a is reordered). */
static double select_kth(double *a, size_t m, size_t k) {
    size_t lo = 0, hi = m - 1;
    while (lo < hi) {
        const double pivot = a[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                const double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k];
    }
    return a[k];
}

sc_status sc_spacetree_build(const sc_peer_env *e, spacetree_kind kind, const sc_tree_options *o,
                             sc_peer_built *out) {
    tree_state *ts = e->state;
    const sc_view *v = e->view;
    const size_t n = v->n;
    const int dims = v->z ? 3 : 2;
    const size_t budget = 4 * n + 1024;
    if (budget > UINT32_MAX)
        return SC_ERR_OUT_OF_MEMORY;
    /* leaves: at most one per budgeted copy (a leaf holds at least one) */
    const size_t max_leaves = budget;
    if (!sc_env_reserve(e, POOL, 4 * budget) || !sc_env_reserve(e, ENTRIES, 4 * budget) ||
        !sc_env_reserve(e, TMP, 4 * (n + 1)) || !sc_env_reserve(e, VALUES, 8 * (n + 1)) ||
        !sc_env_reserve(e, LEAF_START, 4 * (max_leaves + 1)) ||
        !sc_env_reserve(e, LEAF_REGION, sizeof(sc_region) * max_leaves))
        return SC_ERR_OUT_OF_MEMORY;
    uint32_t *pool = e->buf[POOL].p, *entries = e->buf[ENTRIES].p, *tmp = e->buf[TMP].p;
    double *values = e->buf[VALUES].p;
    uint32_t *leaf_start = e->buf[LEAF_START].p;
    sc_region *leaf_region = e->buf[LEAF_REGION].p;
    double t = sc_now();

    size_t used = 0, top = 0, leaves = 0; /* entries written, pool in use */
    tnode stack[STACK];
    int sp = 0;
    if (n > 0) {
        for (size_t k = 0; k < n; k++)
            pool[k] = (uint32_t)k;
        top = n;
        tnode root = {0, (uint32_t)n, 0, {{-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}},
                      {0, 0, 0}, {0, 0, 0}};
        for (int a = 0; a < 3; a++) {
            root.box_lo[a] = e->bounds->lo[a];
            root.box_hi[a] = e->bounds->hi[a];
        }
        stack[sp++] = root;
    }
    while (sp > 0) {
        tnode nd = stack[--sp];
        const int ax = nd.depth % dims;
        const int level = nd.depth / dims; /* octree levels */
        bool leaf;
        if (kind == SPACETREE_OCTREE)
            leaf = ax == 0 && (nd.count <= (uint32_t)o->leaf_size || level >= o->max_depth);
        else
            leaf = nd.count <= (uint32_t)o->leaf_size || nd.depth >= o->max_depth;
        double cut = 0.0;
        if (!leaf) {
            if (kind == SPACETREE_OCTREE) {
                cut = nd.box_lo[ax] + 0.5 * (nd.box_hi[ax] - nd.box_lo[ax]);
            } else {
                for (uint32_t k = 0; k < nd.count; k++)
                    values[k] = centre(v, ax, pool[nd.start + k]);
                if (o->split == SC_SPLIT_MEAN) {
                    double s = 0.0;
                    for (uint32_t k = 0; k < nd.count; k++)
                        s += values[k];
                    cut = s / nd.count;
                } else {
                    cut = select_kth(values, nd.count, nd.count / 2);
                }
            }
        }
        uint32_t nl = 0, nr = 0;
        if (!leaf) {
            for (uint32_t k = 0; k < nd.count; k++) {
                const uint32_t id = pool[nd.start + k];
                const double c = centre(v, ax, id), r = sc_view_get(v, v->r, id);
                nl += sc_box_lo(c, r) < cut;
                nr += sc_box_hi(c, r) >= cut;
            }
            const bool useless = kind == SPACETREE_KDSPLIT ? (nl == nd.count || nr == nd.count)
                                                           : (nl == nd.count && nr == nd.count);
            const bool degenerate =
                kind == SPACETREE_OCTREE && !(cut > nd.box_lo[ax] && cut < nd.box_hi[ax]);
            const bool over = used + (top - nd.count + nl + nr) > budget || sp + 2 > STACK;
            if (kind == SPACETREE_KDSPLIT || over) {
                leaf = useless || over;
            } else if (useless || degenerate) {
                /* octree: nothing to cut on this axis; the next one may */
                nd.depth++;
                stack[sp++] = nd;
                continue;
            }
        }
        if (leaf) {
            memcpy(entries + used, pool + nd.start, 4 * (size_t)nd.count);
            leaf_start[leaves] = (uint32_t)used;
            leaf_region[leaves] = nd.reg;
            leaves++;
            used += nd.count;
            top = nd.start;
            continue;
        }
        /* children: upper at [start, start + nr) (compacted in place: the
         * write never passes the read), lower after it via tmp */
        {
            uint32_t l = 0, u = 0;
            for (uint32_t k = 0; k < nd.count; k++) {
                const uint32_t id = pool[nd.start + k];
                const double c = centre(v, ax, id), r = sc_view_get(v, v->r, id);
                tmp[l] = id;
                l += sc_box_lo(c, r) < cut;
                pool[nd.start + u] = id;
                u += sc_box_hi(c, r) >= cut;
            }
        }
        memcpy(pool + nd.start + nr, tmp, 4 * (size_t)nl);
        top = nd.start + nr + nl;
        tnode up = nd, lo = nd;
        up.count = nr;
        up.depth = lo.depth = nd.depth + 1;
        up.reg.lo[ax] = cut;
        up.box_lo[ax] = cut;
        lo.start = nd.start + nr;
        lo.count = nl;
        lo.reg.hi[ax] = cut;
        lo.box_hi[ax] = cut;
        if (nr > 0)
            stack[sp++] = up;
        if (nl > 0)
            stack[sp++] = lo; /* lower first: leaves come out in space order */
    }
    leaf_start[leaves] = (uint32_t)used;
    sc_stage_add(e->seconds, SC_STAGE_CELLS, t);
    (void)top;

    t = sc_now();
    if (!sc_work_reserve(e, WORK, used, &out->work))
        return SC_ERR_OUT_OF_MEMORY;
    sc_gather(v, entries, used, &out->work);
    sc_stage_add(e->seconds, SC_STAGE_GATHER, t);
    if (!sc_env_reserve(e, CHUNKS, 4 * (1024 + 1)))
        return SC_ERR_OUT_OF_MEMORY;
    uint32_t *chunk = e->buf[CHUNKS].p;
    out->nchunks = sc_chunk_units(leaf_start, leaves, 1024, chunk);
    ts->leaf_start = leaf_start;
    ts->leaf_region = leaf_region;
    ts->chunk = chunk;
    ts->axes = dims;
    out->state = ts;
    out->cells = leaves;
    return SC_OK;
}

uint64_t sc_spacetree_search(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel, sc_hits *hits,
                             void *tls) {
    const tree_state *ts = b->state;
    uint64_t tests = 0;
    for (uint32_t l = ts->chunk[chunk]; l < ts->chunk[chunk + 1]; l++)
        if (ts->leaf_start[l + 1] - ts->leaf_start[l] >= 2)
            tests += sc_leaf_pairs(&b->work, ts->leaf_start[l], ts->leaf_start[l + 1],
                                   &ts->leaf_region[l], ts->axes, kernel, hits, tls);
    return tests;
}
