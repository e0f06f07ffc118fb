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
 *   search: every leaf walks the tree for the leaves after it whose boxes
 *         overlap its own (a subtree whose last leaf is not after it is
 *         skipped whole, so each pair of leaves is met once, from its first
 *         leaf), and tests their spheres with the kernel. Chunks are runs of
 *         leaves, in parallel.
 */
#include "peer.h"

#include <math.h>
#include <string.h>

enum { WORK, KEYS, TMP_KEYS, INDEX, TMP_INDEX, COUNTS, NODES, BOXES, FLAGS };

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
    const bnode *node;    /* nleaves - 1 internal nodes */
    const box6 *nbox;     /* their boxes */
    const box6 *lbox;     /* the leaves' boxes */
    const uint32_t *leaf_parent;
    const uint64_t *code; /* per leaf */
    size_t nleaves, leaf_size, chunk_leaves;
    uint32_t root;        /* LEAF_BIT | 0 when there is one leaf */
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
static inline bool box_overlap(const box6 *a, const box6 *b) {
    return a->lo[0] <= b->hi[0] && b->lo[0] <= a->hi[0] && a->lo[1] <= b->hi[1] &&
           b->lo[1] <= a->hi[1] && a->lo[2] <= b->hi[2] && b->lo[2] <= a->hi[2];
}

static sc_status bvh_build(const sc_peer_env *e, sc_peer_built *out) {
    bvh_state *s = e->state;
    const sc_view *v = e->view;
    const sc_bounds *b = e->bounds;
    const size_t n = v->n;
    const size_t L = (size_t)e->opt->bvh.leaf_size;
    const size_t nl = (n + L - 1) / L;
    const size_t ni = nl > 0 ? nl - 1 : 0;
    if (!sc_keysort_reserve(e, KEYS, n) ||
        !sc_env_reserve(e, NODES, sizeof(bnode) * (ni + 1) + 8 * (nl + 1) + 4 * (nl + 1)) ||
        !sc_env_reserve(e, BOXES, sizeof(box6) * (ni + nl + 1)) ||
        !sc_env_reserve(e, FLAGS, 4 * (ni + 1)) || !sc_work_reserve(e, WORK, n, &out->work))
        return SC_ERR_OUT_OF_MEMORY;
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
    sc_stage_add(e->seconds, SC_STAGE_KEYS, t);
    sc_keysort_run(e, KEYS, n, 63);
    keys = e->buf[KEYS].p;
    index = e->buf[INDEX].p;
    t = sc_now();
    sc_gather(v, index, n, &out->work);
    sc_stage_add(e->seconds, SC_STAGE_GATHER, t);

    t = sc_now();
    bnode *node = e->buf[NODES].p;
    uint64_t *code = (uint64_t *)(void *)(node + ni + 1);
    uint32_t *leaf_parent = (uint32_t *)(void *)(code + nl + 1);
    box6 *nbox = e->buf[BOXES].p, *lbox = nbox + ni;
    uint32_t *flag = e->buf[FLAGS].p;
    const sc_work *w = &out->work;
#pragma omp parallel for schedule(static)
    for (size_t l = 0; l < nl; l++) {
        code[l] = keys[l * L];
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
        flag[i] = 0;
    }
    /* parents, then boxes bottom-up */
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
#pragma omp parallel for schedule(static)
    for (size_t l = 0; l < nl; l++) {
        uint32_t p = leaf_parent[l];
        while (p != UINT32_MAX) {
            /* the first child to arrive leaves; the second computes p */
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
    sc_stage_add(e->seconds, SC_STAGE_CELLS, t);
    s->node = node;
    s->nbox = nbox;
    s->lbox = lbox;
    s->leaf_parent = leaf_parent;
    s->code = code;
    s->nleaves = nl;
    s->leaf_size = L;
    s->root = ni > 0 ? 0 : LEAF_BIT;
    s->chunk_leaves = nl / 256 < 64 ? 64 : nl / 256 > 2048 ? 2048 : nl / 256;
    out->nchunks = (nl + s->chunk_leaves - 1) / s->chunk_leaves;
    out->state = s;
    out->cells = nl;
    out->levels = 1;
    return SC_OK;
}

#define BVH_LIST 2048
#define BVH_STACK 128 /* > the tree's depth: at most 64 + 32 (code bits, leaf bits) */

static uint64_t bvh_search(const sc_peer_built *bt, size_t chunk, sc_kernel_fn kernel, sc_hits *hits,
                           void *tls) {
    const bvh_state *s = bt->state;
    const sc_work *w = &bt->work;
    const uint32_t n = (uint32_t)w->n, L = (uint32_t)s->leaf_size;
    sc_cands cl = sc_cands_make(w, kernel, hits, tls, BVH_LIST);
    const size_t l0 = chunk * s->chunk_leaves;
    const size_t l1 = l0 + s->chunk_leaves < s->nleaves ? l0 + s->chunk_leaves : s->nleaves;
    for (size_t li = l0; li < l1; li++) {
        const uint32_t i0 = (uint32_t)li * L;
        cl.args.i0 = i0;
        cl.args.ni = n - i0 < L ? n - i0 : L;
        cl.args.tri_end = i0 + cl.args.ni;
        const box6 *mine = &s->lbox[li];
        uint32_t stack[BVH_STACK];
        int sp = 0;
        if (!(s->root & LEAF_BIT))
            stack[sp++] = s->root;
        while (sp > 0) {
            const uint32_t k = stack[--sp];
            for (int c = 1; c >= 0; c--) { /* push right first: left is walked first */
                const uint32_t ch = s->node[k].child[c];
                if (ch & LEAF_BIT) {
                    const uint32_t lj = ch & ~LEAF_BIT;
                    if (lj <= li || !box_overlap(mine, &s->lbox[lj]))
                        continue;
                    const uint32_t j0 = lj * L, j1 = j0 + L < n ? j0 + L : n;
                    for (uint32_t j = j0; j < j1; j++)
                        sc_cands_push(&cl, j);
                } else if (s->node[ch].last > li && box_overlap(mine, &s->nbox[ch])) {
                    stack[sp++] = ch;
                }
            }
        }
        sc_cands_flush(&cl); /* always: the leaf's own triangle */
    }
    return cl.tests;
}

const sc_peer sc_peer_bvh = {"bvh", 4 * (BVH_LIST + 16), bvh_build, bvh_search};
