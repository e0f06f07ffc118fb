/*
 * sap.c: sweep and prune (SC_ALGO_SAP, seed 001). On the axis of largest
 * spread, the spheres are sorted by the lower end of their box (peer.h)
 * rounded down to a float, with the engine's radix sort (floats mapped to
 * order-preserving 32-bit integers: three passes, where doubles take six);
 * then, in that order, each sphere meets the spheres after it whose box
 * starts before its own ends: the active set of the sweep, seen from its
 * oldest member. Every pair whose boxes overlap on the axis is met exactly
 * once, from whichever of the two comes first: if i comes first and the
 * double boxes overlap, xlo_j <= lo_j <= hi_i <= xhi_i on the float boxes
 * rounded outward, so the walk from i reaches j. The filter walks the
 * active set and prunes the other two axes (kernels/boxfilter*.c: eight
 * boxes per AVX2 iteration, as the best box-pruning codes do), and the
 * survivors go to the exact kernel.
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
#include "kernels.h"

#include <math.h>
#include <string.h>

enum { WORK, KEYS, TMP_KEYS, INDEX, TMP_INDEX, COUNTS, FBOX, QBOX, PREV };

/* Insertion-sort moves per sphere past which warm mode sorts afresh. */
#define SAP_WARM_MOVES 8

typedef struct sap_state {
    sc_fbox box; /* sorted order; quantized boxes too where they pay */
    size_t chunk_spheres;
    int axis;
    /* kept across calls (the context's state is zeroed at creation):
     * buffer PREV holds the last sweep order of warm_n spheres on warm_axis;
     * warm_n = 0 while it is not a complete one */
    size_t warm_n;
    int warm_axis;
} sap_state;

/* 16-bit boxes (the 16-bit filter tests twice the boxes per instruction):
 * a box end v maps to floor or ceil of (v - base) * scale, clamped to
 * 0 .. 65535 and shifted to int16. Each step is monotone in v, so boxes
 * that overlap as floats overlap as integers: the filter stays exact for
 * any base and scale, which only decide how much it prunes. They prune
 * well when a typical box spans several steps; q16_pays asks that the
 * step be at most a quarter of the median radius's octave (rounded down
 * to a power of two from the bounds' radius histogram), else the float
 * filter runs (clusters far apart, zero radii). Axis a >= dims (2-D: z = 0)
 * spans [-rmax, rmax]. */
static int q16_pays(const sc_bounds *b, int dims, int a, double *base, double *scale) {
    const double lo = a < dims ? b->lo[a] : 0.0, hi = a < dims ? b->hi[a] : 0.0;
    *base = lo - b->rmax; /* absolute; the caller shifts it to its floats' base */
    const double span = hi + b->rmax - *base;
    uint64_t seen = 0;
    int e = 0;
    while (e < SC_EXP_BINS - 1 && (seen += b->rexp[e]) < (b->n + 1) / 2)
        e++;
    const double rmed = e == 0 ? 0.0 : ldexp(1.0, e + SC_EXP_MIN);
    if (!(span > 0.0 && span < 1e300) || !(span / 65535.0 <= rmed / 4.0))
        return 0;
    *scale = 65535.0 / span;
    return 1;
}
static inline int16_t q16(float v, double base, double scale, int up) {
    const double t = ((double)v - base) * scale;
    double u = up ? ceil(t) : floor(t);
    u = u < 0.0 ? 0.0 : u > 65535.0 ? 65535.0 : u;
    return (int16_t)((int32_t)u - 32768);
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
    /* every float box end relative to its axis's low bound (peer.h:
     * sc_f_down_from), the sort's keys too */
    double origin[3] = {0.0, 0.0, 0.0};
    for (int a = 0; a < dims && n > 0; a++)
        origin[a] = b->lo[a];
    if (!sc_keysort_reserve(e, KEYS, n) || !sc_env_reserve(e, FBOX, 6 * 4 * (n + 16)) ||
        !sc_env_reserve(e, QBOX, 4 * 2 * (n + 16)) || !sc_work_reserve(e, WORK, n, &out->work))
        return SC_ERR_OUT_OF_MEMORY;
    const uint32_t *index = NULL;
    if (warm && n > 1 && warm_n == n && s->warm_axis == axis && e->buf[PREV].bytes >= 4 * n) {
        index = sc_sweep_repair(e, KEYS, arr, 32, origin[axis], e->buf[PREV].p, SAP_WARM_MOVES * n);
        out->detail = index ? "sweep order repaired" : "repair gave up: sorted afresh";
    }
    if (!index)
        index = sc_sweep_order(e, KEYS, arr, 32, origin[axis]);
    double t = sc_now();
    if (warm && sc_env_reserve(e, PREV, 4 * (n + 1))) { /* no room: the next call is cold */
        memcpy(e->buf[PREV].p, index, 4 * n);
        s->warm_n = n;
        s->warm_axis = axis;
    }
    sc_gather(v, index, n, &out->work);
    const double *axes[3] = {out->work.x, out->work.y, out->work.z};
    const double *c = axes[axis], *c1 = axes[(axis + 1) % 3], *c2 = axes[(axis + 2) % 3];
    const double o0 = origin[axis], o1 = origin[(axis + 1) % 3], o2 = origin[(axis + 2) % 3];
    float *fb = e->buf[FBOX].p;
    float *ylo = fb, *yhi = fb + (n + 16), *zlo = fb + 2 * (n + 16), *zhi = fb + 3 * (n + 16);
    float *xlo = fb + 4 * (n + 16), *xhi = fb + 5 * (n + 16);
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++) {
        const double r = out->work.r[k];
        xlo[k] = sc_f_down_from(sc_box_lo(c[k], r), o0); /* the sort's key: sorted */
        xhi[k] = sc_f_up_from(sc_box_hi(c[k], r), o0);
        ylo[k] = sc_f_down_from(sc_box_lo(c1[k], r), o1);
        yhi[k] = sc_f_up_from(sc_box_hi(c1[k], r), o1);
        zlo[k] = sc_f_down_from(sc_box_lo(c2[k], r), o2);
        zhi[k] = sc_f_up_from(sc_box_hi(c2[k], r), o2);
    }
    for (size_t k = n; k < n + 16; k++)
        ylo[k] = yhi[k] = zlo[k] = zhi[k] = xlo[k] = xhi[k] = 0.0f;
    s->box = (sc_fbox){xlo, xhi, ylo, yhi, zlo, zhi, NULL, NULL, NULL, NULL};
    const int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
    double base[2], scale[2];
    if (q16_pays(b, dims, a1, base, scale) && q16_pays(b, dims, a2, base + 1, scale + 1)) {
        base[0] -= o1; /* the floats' frame */
        base[1] -= o2;
        int16_t *q = e->buf[QBOX].p;
        int16_t *qylo = q, *qyhi = q + (n + 16), *qzlo = q + 2 * (n + 16), *qzhi = q + 3 * (n + 16);
#pragma omp parallel for schedule(static)
        for (size_t k = 0; k < n; k++) {
            qylo[k] = q16(ylo[k], base[0], scale[0], 0);
            qyhi[k] = q16(yhi[k], base[0], scale[0], 1);
            qzlo[k] = q16(zlo[k], base[1], scale[1], 0);
            qzhi[k] = q16(zhi[k], base[1], scale[1], 1);
        }
        for (size_t k = n; k < n + 16; k++)
            qylo[k] = qyhi[k] = qzlo[k] = qzhi[k] = 0;
        s->box.qylo = qylo;
        s->box.qyhi = qyhi;
        s->box.qzlo = qzlo;
        s->box.qzhi = qzhi;
    }
    if (s->box.qylo) /* the debug log says which filter runs */
        out->detail = !out->detail            ? "16-bit boxes"
                      : out->detail[0] == 's' ? "sweep order repaired; 16-bit boxes"
                                              : "repair gave up: sorted afresh; 16-bit boxes";
    sc_env_stage(e, SC_STAGE_GATHER, t);
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
    const int q = s->box.qylo != NULL;
    const sc_kernels *ks = sc_kernels_of(kernel); /* the filter that matches the kernel */
    const sc_boxfilter_fn filter = q ? ks->boxfilter16 : ks->boxfilter;
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
        args.i0 = i;
        for (uint32_t j0 = i + 1; j0 < n;) {
            const uint32_t j1 = n - j0 > SAP_LIST ? j0 + SAP_LIST : n;
            int done;
            const uint32_t m = filter(&s->box, i, j0, j1, list, &done);
            if (m > 0) {
                args.cand = list;
                args.ncand = m;
                tests += kernel(&args, hits);
            }
            if (done)
                break;
            j0 = j1;
        }
    }
    return tests;
}

static void sap_defaults(sc_options *o) {
    o->sap.warm = 0;
}

static bool sap_valid(const sc_options *o) {
    return o->sap.warm == 0 || o->sap.warm == 1;
}

const sc_peer sc_peer_sap = {.id = SC_ALGO_SAP,
                             .name = "sap",
                             .stages = {[SC_STAGE_KEYS] = "sweep keys",
                                        [SC_STAGE_SORT] = "sweep order",
                                        [SC_STAGE_GATHER] = "working copy"},
                             .caps = SC_PEER_FRAMES,
                             .tls_bytes = 4 * (SAP_LIST + 16),
                             .defaults = sap_defaults,
                             .valid = sap_valid,
                             .build = sap_build,
                             .search = sap_search};
