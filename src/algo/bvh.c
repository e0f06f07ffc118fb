/*
 * bvh.c: a bounding-volume hierarchy built in bulk (SC_ALGO_BVH): a linear
 * BVH (Karras 2012). Why this one: its build is a sort of Morton codes,
 * which the engine's radix sort already does at memory speed, plus an O(n)
 * pass that is parallel over nodes with no synchronisation; an STR or OMT
 * packed R-tree (rbush, flatbush) needs a sort per level of tiles and gains
 * tighter boxes that matter most for queries by outside boxes, while this
 * is a self-intersection of one set.
 *
 *   keys: a 63-bit Morton code of each centre (21 bits per axis over the
 *         centre bounds); radix sort; gather in code order;
 *   leaves: runs of leaf_size (<= SC_BLOCK) consecutive spheres, so a leaf
 *         is one home block of the kernels; its box is the union of its
 *         spheres' boxes (peer.h);
 *   tree: Karras' binary radix tree over the leaves' codes (ties broken by
 *         leaf index), each internal node built independently, in parallel;
 *         boxes bottom-up, the second child to arrive at a node computes it;
 *   wide: the binary tree collapsed into nodes of up to four children
 *         (a node takes its children, and the children of those that are
 *         inner nodes), their boxes side by side, so the walk tests four
 *         boxes in one SIMD comparison (kernels/bvh4*.c; the scalar
 *         reference runs with the scalar kernel); laid out depth first;
 *   search: every leaf walks the tree for the leaves after it whose boxes
 *         overlap its own (a subtree whose last leaf is not after it is
 *         skipped whole, so each pair of leaves is met once, from its first
 *         leaf), and tests their spheres with the kernel. Chunks are runs of
 *         leaves, in parallel.
 * Refit (opt->bvh.refit, frame coherence): the context keeps the last
 * tree -- the sphere order, the binary nodes and the leaves' parents -- and
 * a call on as many spheres gathers them in that order, recomputes the
 * leaves' boxes and the nodes' bottom-up and collapses again, skipping the
 * codes, the sort and the topology. Any topology is exact, since every box
 * is recomputed from the spheres under it; only the pruning loosens as the
 * spheres drift, so when the boxes' summed extent passes REFIT_GROWTH times
 * the last fresh build's, the call builds afresh (the sum is taken in fixed
 * blocks, in order: the choice does not depend on the thread count).
 */
#include "peer.h"
#include "kernels.h"

#include <math.h>
#include <string.h>

enum { WORK, KEYS, TMP_KEYS, INDEX, TMP_INDEX, COUNTS, NODES, BOXES, FLAGS, WIDE, PREV, SUMS };

/* A refit builds afresh past this growth of the boxes' summed extent. */
#define REFIT_GROWTH 2.0
/* Boxes per partial sum of the extent. */
#define SUM_BLOCK 4096

#define LEAF_BIT 0x80000000u

typedef struct bnode {
    uint32_t child[2]; /* internal node, or LEAF_BIT | leaf */
    uint32_t parent;   /* UINT32_MAX at the root */
    uint32_t last;     /* last leaf under the node */
} bnode;

typedef struct box6 {
    double lo[3], hi[3];
} box6;

typedef struct bvh_state {
    const sc_bvh4_node *wide; /* the 4-wide tree, root at 0; none with one leaf */
    const box6 *lbox;         /* the leaves' boxes */
    size_t nleaves, nwide, leaf_size, chunk_leaves;
    /* kept across calls (the context's state is zeroed at creation): with
     * refit, buffers PREV (sphere order), NODES (nodes, codes, leaves'
     * parents) hold the tree of kept_n spheres in leaves of kept_leaf;
     * kept_n = 0 while they do not */
    size_t kept_n, kept_leaf;
    double kept_extent; /* the boxes' summed extent at the last fresh build */
} bvh_state;

static inline uint64_t spread3(uint64_t v) { /* 21 bits -> every third bit */
    v &= 0x1fffff;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

/* Common prefix of leaves i and j (Karras' delta), -1 outside. */
static inline int delta(const uint64_t *code, size_t n, int64_t i, int64_t j) {
    if (j < 0 || j >= (int64_t)n)
        return -1;
    const uint64_t a = code[i], b = code[j];
    if (a == b)
        return 64 + __builtin_clz((uint32_t)i ^ (uint32_t)j);
    return __builtin_clzll(a ^ b);
}

static inline void box_union(box6 *a, const box6 *b) {
    for (int k = 0; k < 3; k++) {
        a->lo[k] = b->lo[k] < a->lo[k] ? b->lo[k] : a->lo[k];
        a->hi[k] = b->hi[k] > a->hi[k] ? b->hi[k] : a->hi[k];
    }
}

/* Collapses the binary tree (ni >= 1 inner nodes, root 0) into wide[],
 * depth first; returns the number of wide nodes. A wide node takes node k's
 * two children, each inner one replaced by its own two; so every wide node
 * but the root hangs under an inner binary node of odd depth, which has at
 * most two such: at most (2 ni + 1) / 3 wide nodes. */
static size_t collapse(const bnode *node, const box6 *nbox, const box6 *lbox, sc_bvh4_node *wide) {
    uint32_t stack[2 * SC_BVH4_STACK]; /* (binary node, wide node) pairs */
    int sp = 0;
    size_t count = 1;
    stack[sp++] = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        const uint32_t id = stack[--sp], k = stack[--sp];
        uint32_t slot[4];
        int ns = 0;
        for (int c = 0; c < 2; c++) {
            const uint32_t ch = node[k].child[c];
            if (ch & LEAF_BIT) {
                slot[ns++] = ch;
            } else {
                slot[ns++] = node[ch].child[0];
                slot[ns++] = node[ch].child[1];
            }
        }
        sc_bvh4_node *w = &wide[id];
        for (int c = 0; c < 4; c++) {
            if (c >= ns) {
                for (int a = 0; a < 3; a++) {
                    w->lo[a][c] = INFINITY;
                    w->hi[a][c] = -INFINITY;
                }
                w->child[c] = SC_BVH4_LEAF;
                w->last[c] = 0;
                continue;
            }
            const uint32_t ch = slot[c];
            const box6 *bx = ch & LEAF_BIT ? &lbox[ch & ~LEAF_BIT] : &nbox[ch];
            for (int a = 0; a < 3; a++) {
                w->lo[a][c] = bx->lo[a];
                w->hi[a][c] = bx->hi[a];
            }
            if (ch & LEAF_BIT) {
                w->child[c] = SC_BVH4_LEAF | (ch & ~LEAF_BIT);
                w->last[c] = ch & ~LEAF_BIT;
            } else {
                w->child[c] = (uint32_t)count;
                w->last[c] = node[ch].last;
                stack[sp++] = ch;
                stack[sp++] = (uint32_t)count++;
            }
        }
    }
    return count;
}

/* The leaves' boxes from the working copy (runs of L spheres). */
static void leaf_boxes(const sc_work *w, size_t n, size_t L, size_t nl, box6 *lbox) {
#pragma omp parallel for schedule(static)
    for (size_t l = 0; l < nl; l++) {
        box6 bx = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
        const size_t end = (l + 1) * L < n ? (l + 1) * L : n;
        for (size_t k = l * L; k < end; k++) {
            const double c[3] = {w->x[k], w->y[k], w->z[k]};
            for (int a = 0; a < 3; a++) {
                const double lo = sc_box_lo(c[a], w->r[k]), hi = sc_box_hi(c[a], w->r[k]);
                bx.lo[a] = lo < bx.lo[a] ? lo : bx.lo[a];
                bx.hi[a] = hi > bx.hi[a] ? hi : bx.hi[a];
            }
        }
        lbox[l] = bx;
    }
}

/* The inner nodes' boxes, bottom-up: from each leaf towards the root, the
 * first child to arrive at a node leaves and the second computes it. */
static void boxes_up(const bnode *node, box6 *nbox, const box6 *lbox, const uint32_t *leaf_parent,
                     uint32_t *flag, size_t ni, size_t nl) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < ni; i++)
        flag[i] = 0;
#pragma omp parallel for schedule(static)
    for (size_t l = 0; l < nl; l++) {
        uint32_t p = leaf_parent[l];
        while (p != UINT32_MAX) {
            if (__atomic_fetch_add(&flag[p], 1u, __ATOMIC_ACQ_REL) == 0)
                break;
            box6 bx = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
            for (int c = 0; c < 2; c++) {
                const uint32_t ch = node[p].child[c];
                box_union(&bx, ch & LEAF_BIT ? &lbox[ch & ~LEAF_BIT] : &nbox[ch]);
            }
            nbox[p] = bx;
            p = node[p].parent;
        }
    }
}

/* The summed extent (hi - lo over the axes) of m boxes: partial sums of
 * fixed blocks, added in block order, so the same for any thread count. */
static double extent_sum(const box6 *bx, size_t m, double *partial) {
    const size_t blocks = (m + SUM_BLOCK - 1) / SUM_BLOCK;
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < blocks; b++) {
        const size_t end = (b + 1) * SUM_BLOCK < m ? (b + 1) * SUM_BLOCK : m;
        double sum = 0.0;
        for (size_t k = b * SUM_BLOCK; k < end; k++)
            for (int a = 0; a < 3; a++)
                sum += bx[k].hi[a] - bx[k].lo[a];
        partial[b] = sum;
    }
    double sum = 0.0;
    for (size_t b = 0; b < blocks; b++)
        sum += partial[b];
    return sum;
}

/* Codes, sort and gather, then Karras' topology: a fresh tree in NODES.
 * Returns the sphere order (in buffer INDEX). */
static const uint32_t *build_fresh(const sc_peer_env *e, sc_work *w, size_t L, size_t nl) {
    const sc_view *v = e->view;
    const sc_bounds *b = e->bounds;
    const size_t n = v->n, ni = nl > 0 ? nl - 1 : 0;
    double t = sc_now();
    double scale[3];
    for (int a = 0; a < 3; a++) {
        const double ext = b->hi[a] - b->lo[a];
        scale[a] = ext > 0.0 ? 2097151.0 / ext : 0.0;
        if (!isfinite(scale[a]))
            scale[a] = 0.0; /* a subnormal extent: one code, still exact */
    }
    uint64_t *keys = e->buf[KEYS].p;
    uint32_t *index = e->buf[INDEX].p;
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++) {
        uint64_t code = 0;
        for (int a = 0; a < 3; a++) {
            const char *arr = a == 0 ? v->x : a == 1 ? v->y : v->z;
            const double c = arr ? sc_view_get(v, arr, k) : 0.0;
            double q = (c - b->lo[a]) * scale[a];
            q = q >= 0.0 ? (q <= 2097151.0 ? q : 2097151.0) : 0.0;
            code |= spread3((uint64_t)q) << a;
        }
        keys[k] = code;
        index[k] = (uint32_t)k;
    }
    sc_env_stage(e, SC_STAGE_KEYS, t);
    sc_keysort_run(e, KEYS, n, 63);
    keys = e->buf[KEYS].p;
    index = e->buf[INDEX].p;
    t = sc_now();
    sc_gather(v, index, n, w);
    sc_env_stage(e, SC_STAGE_GATHER, t);

    t = sc_now();
    bnode *node = e->buf[NODES].p;
    uint64_t *code = (uint64_t *)(void *)(node + ni + 1);
    uint32_t *leaf_parent = (uint32_t *)(void *)(code + nl + 1);
#pragma omp parallel for schedule(static)
    for (size_t l = 0; l < nl; l++) {
        code[l] = keys[l * L];
        leaf_parent[l] = UINT32_MAX;
    }
    /* Karras 2012: internal node i covers leaves [min(i, j), max(i, j)] and
     * splits after gamma */
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < ni; i++) {
        const int64_t ii = (int64_t)i;
        const int d = delta(code, nl, ii, ii + 1) > delta(code, nl, ii, ii - 1) ? 1 : -1;
        const int dmin = delta(code, nl, ii, ii - d);
        int64_t lmax = 2;
        while (delta(code, nl, ii, ii + lmax * d) > dmin)
            lmax *= 2;
        int64_t l = 0;
        for (int64_t step = lmax / 2; step >= 1; step /= 2)
            if (delta(code, nl, ii, ii + (l + step) * d) > dmin)
                l += step;
        const int64_t j = ii + l * d;
        const int dnode = delta(code, nl, ii, j);
        int64_t sp = 0, step = l;
        do {
            step = (step + 1) / 2;
            if (delta(code, nl, ii, ii + (sp + step) * d) > dnode)
                sp += step;
        } while (step > 1);
        const int64_t gamma = ii + sp * d + (d < 0 ? -1 : 0);
        const int64_t lo = ii < j ? ii : j, hi = ii < j ? j : ii;
        bnode *nd = &node[i];
        nd->child[0] = lo == gamma ? LEAF_BIT | (uint32_t)gamma : (uint32_t)gamma;
        nd->child[1] = hi == gamma + 1 ? LEAF_BIT | (uint32_t)(gamma + 1) : (uint32_t)(gamma + 1);
        nd->last = (uint32_t)hi;
    }
    /* parents */
    if (ni > 0)
        node[0].parent = UINT32_MAX; /* Karras: node 0 is the root */
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < ni; i++)
        for (int c = 0; c < 2; c++) {
            const uint32_t ch = node[i].child[c];
            if (ch & LEAF_BIT)
                leaf_parent[ch & ~LEAF_BIT] = (uint32_t)i;
            else
                node[ch].parent = (uint32_t)i;
        }
    sc_env_stage(e, SC_STAGE_CELLS, t);
    return index;
}

static sc_status bvh_build(const sc_peer_env *e, sc_peer_built *out) {
    bvh_state *s = e->state;
    const sc_view *v = e->view;
    const size_t n = v->n;
    const size_t L = (size_t)e->opt->bvh.leaf_size;
    const size_t nl = (n + L - 1) / L;
    const size_t ni = nl > 0 ? nl - 1 : 0;
    const size_t nodes_bytes = sizeof(bnode) * (ni + 1) + 8 * (nl + 1) + 4 * (nl + 1);
    const size_t sums = (ni + nl + SUM_BLOCK) / SUM_BLOCK + 1;
    /* a kept tree needs its buffers as they were (a trim frees them) */
    const int refit = e->opt->bvh.refit;
    const bool kept = refit && s->kept_n == n && s->kept_leaf == L && n > 1 &&
                      e->buf[NODES].bytes >= nodes_bytes && e->buf[PREV].bytes >= 4 * n;
    s->kept_n = 0;
    if (!sc_keysort_reserve(e, KEYS, n) || !sc_env_reserve(e, NODES, nodes_bytes) ||
        !sc_env_reserve(e, BOXES, sizeof(box6) * (ni + nl + 1)) ||
        !sc_env_reserve(e, FLAGS, 4 * (ni + 1)) ||
        !sc_env_reserve(e, WIDE, sizeof(sc_bvh4_node) * ((2 * ni + 1) / 3 + 1)) ||
        !sc_env_reserve(e, SUMS, 8 * sums) || !sc_work_reserve(e, WORK, n, &out->work))
        return SC_ERR_OUT_OF_MEMORY;
    bnode *node = e->buf[NODES].p;
    uint64_t *code = (uint64_t *)(void *)(node + ni + 1);
    const uint32_t *leaf_parent = (const uint32_t *)(void *)(code + nl + 1);
    box6 *nbox = e->buf[BOXES].p, *lbox = nbox + ni;
    uint32_t *flag = e->buf[FLAGS].p;
    double *partial = e->buf[SUMS].p;
    bool fresh = true;
    if (kept) { /* the last tree with the new positions */
        double t = sc_now();
        sc_gather(v, e->buf[PREV].p, n, &out->work);
        sc_env_stage(e, SC_STAGE_GATHER, t);
        t = sc_now();
        leaf_boxes(&out->work, n, L, nl, lbox);
        boxes_up(node, nbox, lbox, leaf_parent, flag, ni, nl);
        fresh = extent_sum(nbox, ni + nl, partial) > REFIT_GROWTH * s->kept_extent;
        sc_env_stage(e, SC_STAGE_CELLS, t);
        out->detail = fresh ? "refit gave up (boxes grew): built afresh" : "tree refitted";
    }
    if (fresh) {
        const uint32_t *index = build_fresh(e, &out->work, L, nl);
        const double t = sc_now();
        leaf_boxes(&out->work, n, L, nl, lbox);
        boxes_up(node, nbox, lbox, leaf_parent, flag, ni, nl);
        sc_env_stage(e, SC_STAGE_CELLS, t);
        /* no room for the order: the next call builds afresh */
        if (refit && n > 1 && sc_env_reserve(e, PREV, 4 * n)) {
            memcpy(e->buf[PREV].p, index, 4 * n);
            s->kept_extent = extent_sum(nbox, ni + nl, partial);
        }
    }
    if (refit && n > 1 && e->buf[PREV].bytes >= 4 * n) {
        s->kept_n = n;
        s->kept_leaf = L;
    }
    const double t = sc_now();
    s->wide = e->buf[WIDE].p;
    s->nwide = ni > 0 ? collapse(node, nbox, lbox, e->buf[WIDE].p) : 0;
    sc_env_stage(e, SC_STAGE_CELLS, t);
    s->lbox = lbox;
    s->nleaves = nl;
    s->leaf_size = L;
    s->chunk_leaves = nl / 256 < 64 ? 64 : nl / 256 > 2048 ? 2048 : nl / 256;
    out->nchunks = (nl + s->chunk_leaves - 1) / s->chunk_leaves;
    out->state = s;
    out->cells = nl;
    out->levels = 1;
    return SC_OK;
}

#define BVH_LIST 2048
#define BVH_LEAVES 64 /* leaves listed per walk call */

static uint64_t bvh_search(const sc_peer_built *bt, size_t chunk, sc_kernel_fn kernel,
                           sc_hits *hits, void *tls) {
    const bvh_state *s = bt->state;
    const sc_work *w = &bt->work;
    const uint32_t n = (uint32_t)w->n, L = (uint32_t)s->leaf_size;
    /* the node test that matches the kernel: SIMD unless the scalar reference runs */
    const sc_bvh4_walk_fn walk = sc_kernels_of(kernel)->bvh4_walk;
    sc_cands cl = sc_cands_make(w, kernel, hits, tls, BVH_LIST);
    const size_t l0 = chunk * s->chunk_leaves;
    const size_t l1 = l0 + s->chunk_leaves < s->nleaves ? l0 + s->chunk_leaves : s->nleaves;
    sc_bvh4_walk walker;
    uint32_t found[BVH_LEAVES];
    for (size_t li = l0; li < l1; li++) {
        const uint32_t i0 = (uint32_t)li * L;
        cl.args.i0 = i0;
        cl.args.ni = n - i0 < L ? n - i0 : L;
        cl.args.tri_end = i0 + cl.args.ni;
        const box6 *mine = &s->lbox[li];
        const double q[6] = {mine->lo[0], mine->lo[1], mine->lo[2],
                             mine->hi[0], mine->hi[1], mine->hi[2]};
        walker.sp = 0;
        if (s->nwide > 0)
            walker.stack[walker.sp++] = 0;
        while (walker.sp > 0) {
            const uint32_t m = walk(s->wide, q, (uint32_t)li + 1, &walker, found, BVH_LEAVES);
            for (uint32_t k = 0; k < m; k++) {
                const uint32_t j0 = found[k] * L, j1 = j0 + L < n ? j0 + L : n;
                for (uint32_t j = j0; j < j1; j++)
                    sc_cands_push(&cl, j);
            }
        }
        sc_cands_flush(&cl); /* always: the leaf's own triangle */
    }
    return cl.tests;
}

static void bvh_defaults(sc_options *o) {
    o->bvh.leaf_size = 4; /* one kernel block */
    o->bvh.refit = 0;
}

static bool bvh_valid(const sc_options *o) {
    return o->bvh.leaf_size >= 1 && o->bvh.leaf_size <= 4 &&
           (o->bvh.refit == 0 || o->bvh.refit == 1);
}

const sc_peer sc_peer_bvh = {.id = SC_ALGO_BVH,
                             .name = "bvh",
                             .stages = {[SC_STAGE_KEYS] = "Morton codes",
                                        [SC_STAGE_SORT] = "radix sort",
                                        [SC_STAGE_GATHER] = "working copy",
                                        [SC_STAGE_CELLS] = "tree"},
                             .caps = SC_PEER_FRAMES,
                             .tls_bytes = 4 * (BVH_LIST + 16),
                             .defaults = bvh_defaults,
                             .valid = bvh_valid,
                             .build = bvh_build,
                             .search = bvh_search};
