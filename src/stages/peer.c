/*
 * peer.c: the pieces several peers share (src/algo/registry.c holds
 * their table).
 */
#include "peer.h"

#include <string.h>

/* n / 256 spheres per chunk, clamped to 256 .. 8192 (so about 256 chunks
 * for n from 2^16 to 2^21): each chunk starts its cursors and windows
 * afresh (the grid; sap cuts its sorted order the same way). n / 256
 * searched faster than n / 1024 on every generator tried
 * (docs/decisions/0003-stage-tuning.md). */
size_t sc_chunk_spheres(size_t n) {
    size_t c = n / 256;
    if (c < 256)
        c = 256;
    if (c > 8192)
        c = 8192;
    return c;
}

bool sc_keysort_reserve(const sc_peer_env *e, int k, size_t n) {
    return sc_env_reserve(e, k, 8 * (n + 1)) && sc_env_reserve(e, k + 1, 8 * (n + 1)) &&
           sc_env_reserve(e, k + 2, 4 * (n + 1)) && sc_env_reserve(e, k + 3, 4 * (n + 1)) &&
           sc_env_reserve(e, k + 4, sc_radix_sort_scratch(e->room, false));
}

void sc_keysort_run(const sc_peer_env *e, int k, size_t n, int key_bits) {
    sc_buf *b = e->buf;
    const double t = sc_now();
    if (sc_radix_sort_pairs(b[k].p, b[k + 2].p, b[k + 1].p, b[k + 3].p, n, key_bits, b[k + 4].p,
                            e->threads, NULL)) {
        const sc_buf tk = b[k], ti = b[k + 2];
        b[k] = b[k + 1];
        b[k + 2] = b[k + 3];
        b[k + 1] = tk;
        b[k + 3] = ti;
    }
    sc_env_stage(e, SC_STAGE_SORT, t);
}

/* An order-preserving map of a double (not NaN) to 64 bits; -0 sorts just
 * before +0, which compare equal as doubles, so either order is right. */
static inline uint64_t order_key(double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    return (u >> 63) ? ~u : u | 0x8000000000000000ull;
}
/* The same for a float, in 32 bits. */
static inline uint64_t order_key32(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return (u >> 31) ? (uint32_t)~u : u | 0x80000000u;
}
/* The sweep key of sphere q: its box's lower end on the axis, as a double
 * (64 bits) or, less base, rounded down to a float (32). */
static inline uint64_t sweep_key(const sc_view *v, const char *axis, size_t q, int key_bits,
                                 double base) {
    const double lo = sc_box_lo(sc_view_get(v, axis, q), sc_view_r(v, q));
    return key_bits == 32 ? order_key32(sc_f_down_from(lo, base)) : order_key(lo);
}

const uint32_t *sc_sweep_order(const sc_peer_env *e, int k, const char *axis, int key_bits,
                               double base) {
    const sc_view *v = e->view;
    const size_t n = v->n;
    const double t = sc_now();
    uint64_t *keys = e->buf[k].p;
    uint32_t *index = e->buf[k + 2].p;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        keys[i] = sweep_key(v, axis, i, key_bits, base);
        index[i] = (uint32_t)i;
    }
    sc_env_stage(e, SC_STAGE_KEYS, t);
    sc_keysort_run(e, k, n, key_bits);
    return e->buf[k + 2].p;
}

const uint32_t *sc_sweep_repair(const sc_peer_env *e, int k, const char *axis, int key_bits,
                                double base, const uint32_t *prev, size_t max_moves) {
    const sc_view *v = e->view;
    const size_t n = v->n;
    double t = sc_now();
    uint64_t *keys = e->buf[k].p;
    uint32_t *index = e->buf[k + 2].p;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        const uint32_t q = prev[i];
        keys[i] = sweep_key(v, axis, q, key_bits, base);
        index[i] = q;
    }
    sc_env_stage(e, SC_STAGE_KEYS, t);
    t = sc_now();
    /* (key, index) ascending is the radix sort's order: it is stable over
     * the input index. */
    size_t moves = 0;
    for (size_t i = 1; i < n; i++) {
        const uint64_t key = keys[i];
        const uint32_t id = index[i];
        size_t j = i;
        while (j > 0 && (keys[j - 1] > key || (keys[j - 1] == key && index[j - 1] > id))) {
            keys[j] = keys[j - 1];
            index[j] = index[j - 1];
            j--;
        }
        moves += i - j;
        keys[j] = key;
        index[j] = id;
        if (moves > max_moves) {
            sc_env_stage(e, SC_STAGE_SORT, t);
            return NULL;
        }
    }
    sc_env_stage(e, SC_STAGE_SORT, t);
    return index;
}

static bool work_reserve(const sc_peer_env *e, int k, size_t n, int columns, sc_work *w) {
    const size_t nw = n + SC_PAD;
    if (!sc_env_reserve(e, k, (size_t)columns * 8 * nw))
        return false;
    double *p = e->buf[k].p;
    w->x = p;
    w->y = p + nw;
    w->z = p + 2 * nw;
    w->r = columns == 4 ? p + 3 * nw : NULL;
    w->n = n;
    return true;
}

bool sc_work_reserve(const sc_peer_env *e, int k, size_t n, sc_work *w) {
    return work_reserve(e, k, n, 4, w);
}

bool sc_work_reserve_xyz(const sc_peer_env *e, int k, size_t n, sc_work *w) {
    return work_reserve(e, k, n, 3, w);
}

uint64_t sc_range_pairs(const sc_work *w, uint32_t a, uint32_t b, uint32_t e, sc_kernel_fn kernel,
                        sc_hits *hits, uint32_t *list) {
    SC_ASSERT(a <= b && b <= e);
    sc_kernel_args args = {0};
    args.x = w->x;
    args.y = w->y;
    args.z = w->z;
    args.r = w->r;
    uint64_t tests = 0;
    /* Home blocks start at a + 4k and tiles at a + SC_TILE k, so a block
     * never straddles two tiles: in the tile that holds it, the kernel tests
     * the block's own triangle and the rest of the tile past the block. */
    _Static_assert(SC_TILE % SC_BLOCK == 0, "blocks nest in tiles");
    for (uint32_t j0 = a; j0 < e; j0 += SC_TILE) {
        const uint32_t j1 = e - j0 > SC_TILE ? j0 + SC_TILE : e;
        for (uint32_t k = 0; k < j1 - j0; k++)
            list[k] = j0 + k;
        const uint32_t i_end = b < j1 ? b : j1;
        for (uint32_t i0 = a; i0 < i_end; i0 += SC_BLOCK) {
            args.i0 = i0;
            args.ni = b - i0 < SC_BLOCK ? b - i0 : SC_BLOCK;
            const uint32_t past = i0 + args.ni;
            if (i0 >= j0) { /* the block's own tile */
                args.tri_end = past;
                args.cand = list + (past - j0);
                args.ncand = past < j1 ? j1 - past : 0;
            } else {
                args.tri_end = 0;
                args.cand = list;
                args.ncand = j1 - j0;
            }
            tests += kernel(&args, hits);
        }
    }
    return tests;
}
