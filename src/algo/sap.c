/*
 * sap.c: sweep and prune (SC_ALGO_SAP, seed 001). On the axis of largest
 * spread, the spheres are sorted by the lower end of their box (peer.h) with
 * the engine's radix sort (doubles mapped to order-preserving integers);
 * then, in that order, each sphere meets the spheres after it whose box
 * starts before its own ends: the active set of the sweep, seen from its
 * oldest member. Every pair whose boxes overlap on the axis is met exactly
 * once (from whichever of the two starts first). The filter walks the
 * active set and prunes the other two axes (kernels/boxfilter*.c: float boxes rounded
 * outward, eight per AVX2 iteration, as the best box-pruning codes do), and
 * the survivors go to the exact kernel.
 * The sorted order is cut into chunks of consecutive spheres; each chunk
 * finds its own active sets by scanning forward, so chunks are independent
 * and run in parallel. Cost: n log n to sort plus the pairs that overlap on
 * one axis, which is quadratic when many boxes span the axis (one huge
 * sphere, or a slab).
 * Warm mode (opt->sap.warm, seed 001's frame coherence): the context keeps
 * the sweep order of the last call, and a call on as many spheres repairs
 * it by insertion sort (sc_sweep_repair) instead of radix-sorting afresh;
 * the repair gives the radix sort's order on the same axis. It keeps the
 * last axis unless another spreads 1.25x wider, so its stream order is a
 * function of the calls made (the same for every thread count), and may
 * differ from a cold call's where the cold call would pick another axis.
 * It gives up, and the radix sort runs, past SAP_WARM_MOVES moves per
 * sphere: docs/algorithms.md has the measured crossover.
 */
#include "peer.h"
#include "boxfilter.h"

#include <string.h>

enum { WORK, KEYS, TMP_KEYS, INDEX, TMP_INDEX, COUNTS, BOUNDS_LO, BOUNDS_HI, FBOX, PREV };

/* Insertion-sort moves per sphere past which warm mode sorts afresh. */
#define SAP_WARM_MOVES 8

typedef struct sap_state {
    const double *lo, *hi; /* box ends on the sweep axis, sorted order, padded */
    sc_fbox other;         /* float boxes: start on x, the other two axes; padded */
    size_t chunk_spheres;
    int axis;
    /* kept across calls (the context's state is zeroed at creation):
     * buffer PREV holds the last sweep order of warm_n spheres on warm_axis;
     * warm_n = 0 while it is not a complete one */
    size_t warm_n;
    int warm_axis;
} sap_state;

/* A double rounded to a float no greater (down) or no smaller (up): the
 * nearest float, stepped one ulp outward when rounding went the wrong way
 * (on the bits, as nextafterf is a library call; |v| <= 1e150 is checked
 * before, but beyond FLT_MAX the cast gives infinity, which is outward). */
static inline float f_step(float f, int down) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) == 0) /* +-0: the smallest subnormal outward */
        u = down ? 0x80000001u : 0x00000001u;
    else if ((u >> 31) == (uint32_t)down) /* away from zero */
        u++;
    else
        u--;
    memcpy(&f, &u, 4);
    return f;
}
static inline float f_down(double v) {
    const float f = (float)v;
    return (double)f > v ? f_step(f, 1) : f;
}
static inline float f_up(double v) {
    const float f = (float)v;
    return (double)f < v ? f_step(f, 0) : f;
}

static sc_status sap_build(const sc_peer_env *e, sc_peer_built *out) {
    sap_state *s = e->state;
    const sc_view *v = e->view;
    const sc_bounds *b = e->bounds;
    const size_t n = v->n;
    int axis = 0;
    const int dims = v->z ? 3 : 2;
    for (int a = 1; a < dims; a++)
        if (b->hi[a] - b->lo[a] > b->hi[axis] - b->lo[axis])
            axis = a;
    /* warm: keep the last axis unless another spreads 1.25x wider (any
     * axis is exact; a switch costs a fresh sort) */
    const int warm = e->opt->sap.warm;
    const size_t warm_n = s->warm_n;
    s->warm_n = 0;
    if (warm && warm_n == n && s->warm_axis < dims &&
        1.25 * (b->hi[s->warm_axis] - b->lo[s->warm_axis]) >= b->hi[axis] - b->lo[axis])
        axis = s->warm_axis;
    s->axis = axis;
    const char *arr = axis == 0 ? v->x : axis == 1 ? v->y : v->z;
    if (!sc_keysort_reserve(e, KEYS, n) ||
        !sc_env_reserve(e, BOUNDS_LO, 8 * (n + SC_PAD)) || !sc_env_reserve(e, BOUNDS_HI, 8 * (n + SC_PAD)) ||
        !sc_env_reserve(e, FBOX, 5 * 4 * (n + 16)) ||
        !sc_work_reserve(e, WORK, n, &out->work))
        return SC_ERR_OUT_OF_MEMORY;
    const uint32_t *index = NULL;
    if (warm && n > 1 && warm_n == n && s->warm_axis == axis && e->buf[PREV].bytes >= 4 * n) {
        index = sc_sweep_repair(e, KEYS, arr, e->buf[PREV].p, SAP_WARM_MOVES * n);
        out->detail = index ? "sweep order repaired" : "repair gave up: sorted afresh";
    }
    if (!index)
        index = sc_sweep_order(e, KEYS, arr);
    double t = sc_now();
    if (warm && sc_env_reserve(e, PREV, 4 * (n + 1))) { /* no room: the next call is cold */
        memcpy(e->buf[PREV].p, index, 4 * n);
        s->warm_n = n;
        s->warm_axis = axis;
    }
    sc_gather(v, index, n, &out->work);
    const double *axes[3] = {out->work.x, out->work.y, out->work.z};
    const double *c = axes[axis], *c1 = axes[(axis + 1) % 3], *c2 = axes[(axis + 2) % 3];
    double *lo = e->buf[BOUNDS_LO].p, *hi = e->buf[BOUNDS_HI].p;
    float *fb = e->buf[FBOX].p;
    float *ylo = fb, *yhi = fb + (n + 16), *zlo = fb + 2 * (n + 16), *zhi = fb + 3 * (n + 16);
    float *xlo = fb + 4 * (n + 16);
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++) {
        const double r = out->work.r[k];
        lo[k] = sc_box_lo(c[k], r);
        hi[k] = sc_box_hi(c[k], r);
        xlo[k] = f_down(lo[k]);
        ylo[k] = f_down(sc_box_lo(c1[k], r));
        yhi[k] = f_up(sc_box_hi(c1[k], r));
        zlo[k] = f_down(sc_box_lo(c2[k], r));
        zhi[k] = f_up(sc_box_hi(c2[k], r));
    }
    for (size_t k = n; k < n + SC_PAD; k++)
        lo[k] = hi[k] = 0.0;
    for (size_t k = n; k < n + 16; k++)
        ylo[k] = yhi[k] = zlo[k] = zhi[k] = xlo[k] = 0.0f;
    s->other = (sc_fbox){xlo, ylo, yhi, zlo, zhi};
    sc_stage_add(e->seconds, SC_STAGE_GATHER, t);
    s->lo = lo;
    s->hi = hi;
    s->chunk_spheres = sc_chunk_spheres(n);
    out->nchunks = (n + s->chunk_spheres - 1) / s->chunk_spheres;
    out->state = s;
    out->cells = 1;
    out->levels = 1;
    return SC_OK;
}

#define SAP_LIST 2048

static uint64_t sap_search(const sc_peer_built *b, size_t chunk, sc_kernel_fn kernel, sc_hits *hits,
                           void *tls) {
    const sap_state *s = b->state;
    const sc_work *w = &b->work;
    const uint32_t n = (uint32_t)w->n;
    const uint32_t s0 = (uint32_t)(chunk * s->chunk_spheres);
    const uint32_t s1 = n - s0 > s->chunk_spheres ? s0 + (uint32_t)s->chunk_spheres : n;
    /* the filter that matches the kernel: SIMD unless the scalar reference runs */
    sc_boxfilter_fn filter = sc_boxfilter_scalar;
#ifdef SC_HAVE_AVX2_KERNEL
    if (kernel == sc_narrow_avx2)
        filter = sc_boxfilter_avx2;
#endif
    uint32_t *list = tls;
    sc_kernel_args args = {0};
    args.x = w->x;
    args.y = w->y;
    args.z = w->z;
    args.r = w->r;
    args.ni = 1;
    uint64_t tests = 0;
    for (uint32_t i = s0; i < s1; i++) {
        /* the active set: j > i while box j starts before box i ends on x
         * (the filter walks it; xlo is sorted) */
        const float q[5] = {f_up(s->hi[i]), s->other.ylo[i], s->other.yhi[i], s->other.zlo[i],
                            s->other.zhi[i]};
        args.i0 = i;
        for (uint32_t j0 = i + 1; j0 < n;) {
            const uint32_t j1 = n - j0 > SAP_LIST ? j0 + SAP_LIST : n;
            uint32_t stop;
            const uint32_t m = filter(&s->other, j0, j1, q, list, &stop);
            if (m > 0) {
                args.cand = list;
                args.ncand = m;
                tests += kernel(&args, hits);
            }
            if (stop < j1)
                break;
            j0 = j1;
        }
    }
    return tests;
}

const sc_peer sc_peer_sap = {"sap", 4 * (SAP_LIST + 16), sap_build, sap_search};
