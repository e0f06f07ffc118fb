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
 *
 * The build grows a tree depth first from a LIFO pool of ids (grow()). It
 * runs in two phases so that subtrees are built in parallel:
 *   A. serially from the root, where a node that is not a leaf and holds at
 *      most defer_at spheres (a function of n only: max(n / 64, 4096)) is
 *      set aside whole as a subtree root, in its place in the leaf order;
 *   B. every set-aside subtree grown on its own, in parallel, each in its
 *      own slices of the scratch (offsets by prefix sums over the subtrees);
 *   C. the leaves concatenated in phase A's order, each subtree's in place
 *      of its root.
 * The leaves, their order and so the pairs' order depend on the input and
 * the options only, not on the thread count. Memory stays O(n): copies are
 * budgeted at 4 n + 1024 ids in phase A and 3 c + 256 in a subtree of c
 * ids (pending nodes included); a node whose cut would pass its budget
 * becomes a leaf instead (slower, never wrong). The search runs chunks of
 * leaves in parallel.
 */
#include "spacetree.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

enum {
    WORK,
    SPH,
    POOL,
    ENTRIES,
    TMP,
    VALUES,
    LEAF_START,
    LEAF_REGION,
    CHUNKS,
    NODES,
    SUB_ENTRIES,
    SUB_LEAF_START,
    SUB_LEAF_REGION,
    OUT_ENTRIES,
    OUT_LEAF_START,
    OUT_LEAF_REGION
};

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

#define STACK 400       /* > 3 * 64 + 2: pending siblings, one per binary level */
#define PAR_NODE 65536  /* phase A reads a node this big with all threads ... */
#define PAR_BLOCK 16384 /* ... in blocks of this many ids */

/* A set-aside subtree of c ids may hold 3 c + 256 (its leaves' ids plus
 * its pending nodes'): room for the copies that straddlers make, while
 * the slices, which sit side by side in big blocks (huge pages), stay
 * close to what is written. */
#define SUB_BUDGET(c) (3 * (size_t)(c) + 256)
/* ... and at most c / 4 + 64 leaves (a leaf's region is 48 bytes): a cut
 * is made only while every pending node can still become a leaf, else
 * the node is a leaf itself (bigger leaves: slower, never wrong). */
#define SUB_LEAVES(c) ((size_t)(c) / 4 + 64)

/* One tree (or subtree) being grown: its input, scratch and output. */
typedef struct grower {
    const double *sph; /* x, y, z, r by input index, 4 doubles each */
    spacetree_kind kind;
    const sc_tree_options *o;
    int dims;
    uint32_t *pool;       /* LIFO: the root's ids at [0, count) on entry */
    uint32_t *tmp;        /* 2 x count of the root */
    double *values;       /* count of the root */
    uint32_t *entries;    /* leaves' ids, in leaf order */
    uint32_t *leaf_start; /* leaves + 1 entries */
    sc_region *leaf_region;
    size_t budget;        /* entries + pool in use never pass it */
    size_t leaf_cap;      /* leaves + pending nodes never pass it */
    size_t defer_at;      /* phase A: set aside nodes this small; 0: never */
    tnode *deferred;      /* phase A: the set-aside nodes, by leaf number */
    uint8_t *is_deferred; /* phase A: by leaf number */
    uint32_t *blk;        /* phase A: 2 per block of a big node; NULL in phase B */
    size_t used, leaves;
} grower;

/* k-th smallest of a[0..m) (a is reordered): Floyd and Rivest's
 * selection. A large range first recurses on a sample-sized window around
 * k, so the pivot it leaves at a[k] is close to the answer and the
 * partition that follows discards most of the range in one pass (about
 * 1.5 m comparisons, against about 3.4 m for Hoare's). */
static void fr_select(double *a, ptrdiff_t left, ptrdiff_t right, ptrdiff_t k) {
    while (right > left) {
        if (right - left > 600) {
            const double n = (double)(right - left + 1), i = (double)(k - left + 1);
            const double z = log(n), s = 0.5 * exp(2.0 * z / 3.0);
            const double sd = 0.5 * sqrt(z * s * (n - s) / n) * (i < n / 2 ? -1.0 : 1.0);
            ptrdiff_t nl = (ptrdiff_t)((double)k - i * s / n + sd);
            ptrdiff_t nr = (ptrdiff_t)((double)k + (n - i) * s / n + sd);
            fr_select(a, nl > left ? nl : left, nr < right ? nr : right, k);
        }
        const double t = a[k];
        ptrdiff_t i = left, j = right;
        double x = a[left];
        a[left] = a[k];
        a[k] = x;
        if (a[right] > t) {
            x = a[right];
            a[right] = a[left];
            a[left] = x;
        }
        while (i < j) {
            x = a[i];
            a[i] = a[j];
            a[j] = x;
            i++;
            j--;
            while (a[i] < t)
                i++;
            while (a[j] > t)
                j--;
        }
        if (a[left] == t) {
            x = a[left];
            a[left] = a[j];
            a[j] = x;
        } else {
            j++;
            x = a[j];
            a[j] = a[right];
            a[right] = x;
        }
        if (j <= k)
            left = j + 1;
        if (k <= j)
            right = j - 1;
    }
}

static double select_kth(double *a, size_t m, size_t k) {
    fr_select(a, 0, (ptrdiff_t)m - 1, (ptrdiff_t)k);
    return a[k];
}

static void emit_leaf(grower *g, const tnode *nd, bool deferred) {
    memcpy(g->entries + g->used, g->pool + nd->start, 4 * (size_t)nd->count);
    g->leaf_start[g->leaves] = (uint32_t)g->used;
    g->leaf_region[g->leaves] = nd->reg;
    if (g->is_deferred) {
        g->is_deferred[g->leaves] = deferred;
        if (deferred)
            g->deferred[g->leaves] = *nd;
    }
    g->leaves++;
    g->used += nd->count;
}

/* The cut of ids[k0, k1) at `cut` on axis ax: the ids whose boxes start
 * below it to lower, those whose boxes end at or above it to upper, in
 * order (a straddler goes to both); their counts to *nl and *nu. */
static inline void split_ids(const double *sph, const uint32_t *ids, uint32_t k0, uint32_t k1,
                             int ax, double cut, uint32_t *lower, uint32_t *upper, uint32_t *nl,
                             uint32_t *nu) {
    uint32_t l = 0, u = 0;
    for (uint32_t k = k0; k < k1; k++) {
        const uint32_t id = ids[k];
        const double *p = sph + 4 * (size_t)id;
        lower[l] = id;
        l += sc_box_lo(p[ax], p[3]) < cut;
        upper[u] = id;
        u += sc_box_hi(p[ax], p[3]) >= cut;
    }
    *nl = l;
    *nu = u;
}

/* Grows the tree below root (whose ids are pool[0, root.count)) depth
 * first, lower children first, so leaves come out in space order. */
static void grow(grower *g, tnode root) {
    const double *sph = g->sph;
    const sc_tree_options *o = g->o;
    const int dims = g->dims;
    size_t top = root.count; /* pool in use */
    tnode stack[STACK];
    int sp = 0;
    root.start = 0;
    if (root.count > 0)
        stack[sp++] = root;
    while (sp > 0) {
        tnode nd = stack[--sp];
        const int ax = nd.depth % dims;
        const int level = nd.depth / dims; /* octree levels */
        bool leaf;
        if (g->kind == SPACETREE_OCTREE)
            leaf = ax == 0 && (nd.count <= (uint32_t)o->leaf_size || level >= o->max_depth);
        else
            leaf = nd.count <= (uint32_t)o->leaf_size || nd.depth >= o->max_depth;
        const uint32_t *ids = g->pool + nd.start;
        if (!leaf && nd.count <= g->defer_at && (g->kind == SPACETREE_KDSPLIT || ax == 0)) {
            emit_leaf(g, &nd, true); /* a subtree of its own (phase B) */
            top = nd.start;
            continue;
        }
        /* phase A's big nodes are read by all threads, in fixed blocks (the
         * same lists for any thread count) */
        const bool par = g->blk != NULL && nd.count >= PAR_NODE;
        double cut = 0.0;
        if (!leaf) {
            if (g->kind == SPACETREE_OCTREE) {
                cut = nd.box_lo[ax] + 0.5 * (nd.box_hi[ax] - nd.box_lo[ax]);
            } else {
                double *values = g->values;
                if (par) { /* (not an if clause: that still opens a team per node) */
#pragma omp parallel for schedule(static)
                    for (uint32_t k = 0; k < nd.count; k++)
                        values[k] = sph[4 * (size_t)ids[k] + ax];
                } else {
                    for (uint32_t k = 0; k < nd.count; k++)
                        values[k] = sph[4 * (size_t)ids[k] + ax];
                }
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
            /* one pass reads each sphere once: the children's ids go to
             * tmp (lower) and tmp + count (upper); the pool is untouched
             * until the node is known to be cut */
            uint32_t *lower = g->tmp, *upper = g->tmp + nd.count;
            if (par) { /* block b writes from b * PAR_BLOCK in each list */
                const uint32_t nb = (nd.count + PAR_BLOCK - 1) / PAR_BLOCK;
                uint32_t *blk = g->blk;
#pragma omp parallel for schedule(static)
                for (uint32_t b = 0; b < nb; b++) {
                    const uint32_t k0 = b * PAR_BLOCK;
                    const uint32_t k1 = nd.count - k0 > PAR_BLOCK ? k0 + PAR_BLOCK : nd.count;
                    split_ids(sph, ids, k0, k1, ax, cut, lower + k0, upper + k0, &blk[2 * b],
                              &blk[2 * b + 1]);
                }
                for (uint32_t b = 0; b < nb; b++) {
                    nl += blk[2 * b];
                    nr += blk[2 * b + 1];
                }
            } else {
                split_ids(sph, ids, 0, nd.count, ax, cut, lower, upper, &nl, &nr);
            }
            const bool useless = g->kind == SPACETREE_KDSPLIT ? (nl == nd.count || nr == nd.count)
                                                              : (nl == nd.count && nr == nd.count);
            const bool degenerate =
                g->kind == SPACETREE_OCTREE && !(cut > nd.box_lo[ax] && cut < nd.box_hi[ax]);
            const bool over = g->used + (top - nd.count + nl + nr) > g->budget || sp + 2 > STACK ||
                              g->leaves + (size_t)sp + 2 > g->leaf_cap;
            if (g->kind == SPACETREE_KDSPLIT || over) {
                leaf = useless || over;
            } else if (useless || degenerate) {
                /* octree: nothing to cut on this axis; the next one may */
                nd.depth++;
                stack[sp++] = nd;
                continue;
            }
        }
        if (leaf) {
            emit_leaf(g, &nd, false);
            top = nd.start;
            continue;
        }
        /* children: upper at [start, start + nr), lower after it */
        if (par) { /* the blocks' pieces, in block order */
            const uint32_t nb = (nd.count + PAR_BLOCK - 1) / PAR_BLOCK;
            uint32_t *blk = g->blk, at_l = nr, at_u = 0;
            for (uint32_t b = 0; b < nb; b++) { /* counts -> destinations */
                const uint32_t cl = blk[2 * b], cu = blk[2 * b + 1];
                blk[2 * b] = at_l;
                blk[2 * b + 1] = at_u;
                at_l += cl;
                at_u += cu;
            }
            uint32_t *pool = g->pool + nd.start;
            const uint32_t *tmp = g->tmp;
#pragma omp parallel for schedule(static)
            for (uint32_t b = 0; b < nb; b++) {
                const uint32_t l_end = b + 1 < nb ? blk[2 * b + 2] : nr + nl;
                const uint32_t u_end = b + 1 < nb ? blk[2 * b + 3] : nr;
                memcpy(pool + blk[2 * b], tmp + b * PAR_BLOCK, 4 * (size_t)(l_end - blk[2 * b]));
                memcpy(pool + blk[2 * b + 1], tmp + nd.count + b * PAR_BLOCK,
                       4 * (size_t)(u_end - blk[2 * b + 1]));
            }
        } else {
            memcpy(g->pool + nd.start, g->tmp + nd.count, 4 * (size_t)nr);
            memcpy(g->pool + nd.start + nr, g->tmp, 4 * (size_t)nl);
        }
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
    g->leaf_start[g->leaves] = (uint32_t)g->used;
}

/* One function, though long: the tree's build is one sequence of stages
 * over the peer's buffers (reserve, the root's bounds, the splits, the
 * leaves' order, the gather), each timed into its stage clock; the pieces
 * that stand alone (the split, grow) are functions of their own. */
sc_status sc_spacetree_build(const sc_peer_env *e, spacetree_kind kind, const sc_tree_options *o,
                             sc_peer_built *out) {
    tree_state *ts = e->state;
    const sc_view *v = e->view;
    const size_t n = v->n;
    const int dims = v->z ? 3 : 2;
    const size_t budget = 4 * n + 1024; /* phase A; a leaf holds at least one id */
    if (budget > UINT32_MAX / 4)
        return SC_ERR_OUT_OF_MEMORY;
    if (!sc_env_reserve(e, SPH, 32 * (n + 1)) || !sc_env_reserve(e, POOL, 4 * budget) ||
        !sc_env_reserve(e, ENTRIES, 4 * budget) ||
        !sc_env_reserve(e, TMP, 8 * (n + 1) + 8 * (n / PAR_BLOCK + 2)) ||
        !sc_env_reserve(e, VALUES, 8 * (n + 1)) ||
        !sc_env_reserve(e, LEAF_START, 4 * (budget + 1)) ||
        !sc_env_reserve(e, LEAF_REGION, sizeof(sc_region) * budget) ||
        !sc_env_reserve(e, NODES, (sizeof(tnode) + 1) * budget))
        return SC_ERR_OUT_OF_MEMORY;
    double t = sc_now();
    /* the spheres, packed: the build reads them in random order */
    double *sph = e->buf[SPH].p;
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++) {
        sph[4 * k] = sc_view_get(v, v->x, k);
        sph[4 * k + 1] = sc_view_get(v, v->y, k);
        sph[4 * k + 2] = v->z ? sc_view_get(v, v->z, k) : 0.0;
        sph[4 * k + 3] = sc_view_r(v, k);
    }

    /* phase A */
    tnode *deferred = e->buf[NODES].p;
    grower a = {sph,
                kind,
                o,
                dims,
                e->buf[POOL].p,
                e->buf[TMP].p,
                e->buf[VALUES].p,
                e->buf[ENTRIES].p,
                e->buf[LEAF_START].p,
                e->buf[LEAF_REGION].p,
                budget,
                budget,
                n / 64 > 4096 ? n / 64 : 4096,
                deferred,
                (uint8_t *)(deferred + budget),
                (uint32_t *)e->buf[TMP].p + 2 * (n + 1),
                0,
                0};
    for (size_t k = 0; k < n; k++)
        a.pool[k] = (uint32_t)k;
    tnode root = {0,         (uint32_t)n,
                  0,         {{-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}},
                  {0, 0, 0}, {0, 0, 0}};
    for (int ax = 0; ax < 3; ax++) {
        root.box_lo[ax] = e->bounds->lo[ax];
        root.box_hi[ax] = e->bounds->hi[ax];
    }
    grow(&a, root);

    /* phase B: each set-aside subtree grown in its own slices of the
     * scratch, at offsets by prefix sums over phase A's leaves (0 for a
     * true leaf): in[l] for c ids, cap[l] for SUB_BUDGET(c) */
    size_t ids_in = 0, ids_cap = 0, leaves_cap = 0;
    for (size_t l = 0; l < a.leaves; l++)
        if (a.is_deferred[l]) {
            const size_t c = a.leaf_start[l + 1] - a.leaf_start[l];
            ids_in += c;
            ids_cap += SUB_BUDGET(c);
            leaves_cap += SUB_LEAVES(c) + 1;
        }
    if (ids_cap > UINT32_MAX / 4 || leaves_cap > UINT32_MAX / 4)
        return SC_ERR_OUT_OF_MEMORY;
    const size_t na = a.leaves;
    /* phase A is done with the pool, tmp and values: they are reused */
    if (!sc_env_reserve(e, POOL, 4 * ids_cap) ||
        !sc_env_reserve(e, TMP, 4 * (2 * ids_in + 5 * (na + 1))) ||
        !sc_env_reserve(e, VALUES, 8 * (ids_in + 1)) ||
        !sc_env_reserve(e, SUB_ENTRIES, 4 * ids_cap) ||
        !sc_env_reserve(e, SUB_LEAF_START, 4 * (leaves_cap + 1)) ||
        !sc_env_reserve(e, SUB_LEAF_REGION, sizeof(sc_region) * (leaves_cap + 1)))
        return SC_ERR_OUT_OF_MEMORY;
    uint32_t *in = e->buf[TMP].p, *cap = in + na + 1, *lcap = cap + na + 1,
             *sub_leaves = lcap + na + 1, *sub_used = sub_leaves + na + 1,
             *sub_tmp = sub_used + na + 1;
    {
        size_t si = 0, sc = 0, sl = 0;
        for (size_t l = 0; l < na; l++) {
            in[l] = (uint32_t)si;
            cap[l] = (uint32_t)sc;
            lcap[l] = (uint32_t)sl;
            if (a.is_deferred[l]) {
                const size_t c = a.leaf_start[l + 1] - a.leaf_start[l];
                si += c;
                sc += SUB_BUDGET(c);
                sl += SUB_LEAVES(c) + 1;
            }
        }
    }
    uint32_t *sub_pool = e->buf[POOL].p, *sub_entries = e->buf[SUB_ENTRIES].p;
    uint32_t *sub_ls = e->buf[SUB_LEAF_START].p; /* leaf l's slices at lcap[l] */
    sc_region *sub_lr = e->buf[SUB_LEAF_REGION].p;
    double *sub_values = e->buf[VALUES].p;
    const long nlong = (long)na;
#pragma omp parallel for schedule(dynamic, 1)
    for (long l = 0; l < nlong; l++) {
        if (!a.is_deferred[l])
            continue;
        const size_t c = a.leaf_start[l + 1] - a.leaf_start[l];
        grower g = {sph,
                    kind,
                    o,
                    dims,
                    sub_pool + cap[l],
                    sub_tmp + 2 * (size_t)in[l],
                    sub_values + in[l],
                    sub_entries + cap[l],
                    sub_ls + lcap[l],
                    sub_lr + lcap[l],
                    SUB_BUDGET(c),
                    SUB_LEAVES(c),
                    0,
                    NULL,
                    NULL,
                    NULL,
                    0,
                    0};
        memcpy(g.pool, a.entries + a.leaf_start[l], 4 * c);
        grow(&g, deferred[l]);
        sub_leaves[l] = (uint32_t)g.leaves;
        sub_used[l] = (uint32_t)g.used;
    }

    /* phase C: the leaves in phase A's order, each subtree's in place of
     * its root */
    size_t leaves = 0, used = 0;
    for (size_t l = 0; l < na; l++) {
        leaves += a.is_deferred[l] ? sub_leaves[l] : 1;
        used += a.is_deferred[l] ? sub_used[l] : a.leaf_start[l + 1] - a.leaf_start[l];
    }
    if (!sc_env_reserve(e, OUT_ENTRIES, 4 * (used + 1)) ||
        !sc_env_reserve(e, OUT_LEAF_START, 4 * (leaves + 1)) ||
        !sc_env_reserve(e, OUT_LEAF_REGION, sizeof(sc_region) * (leaves + 1)))
        return SC_ERR_OUT_OF_MEMORY;
    uint32_t *entries = e->buf[OUT_ENTRIES].p, *leaf_start = e->buf[OUT_LEAF_START].p;
    sc_region *leaf_region = e->buf[OUT_LEAF_REGION].p;
    size_t lf = 0, at = 0;
    for (size_t l = 0; l < na; l++) {
        if (!a.is_deferred[l]) {
            const uint32_t c = a.leaf_start[l + 1] - a.leaf_start[l];
            memcpy(entries + at, a.entries + a.leaf_start[l], 4 * (size_t)c);
            leaf_start[lf] = (uint32_t)at;
            leaf_region[lf++] = a.leaf_region[l];
            at += c;
            continue;
        }
        const uint32_t *ls = sub_ls + lcap[l];
        memcpy(entries + at, sub_entries + cap[l], 4 * (size_t)sub_used[l]);
        for (uint32_t k = 0; k < sub_leaves[l]; k++)
            leaf_start[lf + k] = (uint32_t)(at + ls[k]);
        memcpy(leaf_region + lf, sub_lr + lcap[l], sizeof(sc_region) * sub_leaves[l]);
        lf += sub_leaves[l];
        at += sub_used[l];
    }
    leaf_start[leaves] = (uint32_t)used;
    sc_env_stage(e, SC_STAGE_CELLS, t);

    t = sc_now();
    if (!sc_work_reserve(e, WORK, used, &out->work))
        return SC_ERR_OUT_OF_MEMORY;
    sc_gather(v, entries, used, &out->work);
    sc_env_stage(e, SC_STAGE_GATHER, t);
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

uint64_t sc_spacetree_search(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel,
                             sc_hits *hits, void *tls) {
    const tree_state *ts = b->state;
    uint64_t tests = 0;
    for (uint32_t l = ts->chunk[chunk]; l < ts->chunk[chunk + 1]; l++)
        if (ts->leaf_start[l + 1] - ts->leaf_start[l] >= 2)
            tests += sc_leaf_pairs(&b->work, ts->leaf_start[l], ts->leaf_start[l + 1],
                                   &ts->leaf_region[l], ts->axes, kernel, hits, tls);
    return tests;
}
