/* mpi.c: the distributed pair search's entry points and its pipeline:
 *
 *   check   every rank's values, ids numbered, copied into records
 *   layout  (RCB) spheres moved to the rank whose cell holds their centre
 *   ghosts  regions and radii published, giants gathered, ghosts exchanged
 *   search  the rank-local search; each pair kept by exactly one rank
 *   reduce  count and checksum summed over ranks
 *
 * After each phase the ranks agree on one status (rule 8 of docs/mpi.md),
 * so no rank enters a collective that another has left. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* ---- memory -------------------------------------------------------------- */

void *sc_mpi_alloc(const sc_mpi_context *c, size_t bytes) {
    const sc_allocator *a = &c->options.search.allocator;
    if (bytes == 0)
        bytes = 1;
    if (a->alloc)
        return a->alloc(bytes, 64, a->user);
    void *p = NULL;
    return posix_memalign(&p, 64, bytes) == 0 ? p : NULL;
}

void sc_mpi_free(const sc_mpi_context *c, void *p) {
    const sc_allocator *a = &c->options.search.allocator;
    if (!p)
        return;
    if (a->alloc)
        a->free(p, a->user);
    else
        free(p);
}

sc_status sc_mpi_reserve(const sc_mpi_context *c, sc_mpi_records *r, size_t n) {
    if (n <= r->cap)
        return SC_OK;
    size_t cap = r->cap + r->cap / 2 > n ? r->cap + r->cap / 2 : n;
    if (cap > SIZE_MAX / sizeof(sc_mpi_record))
        return SC_ERR_OUT_OF_MEMORY;
    sc_mpi_record *at = sc_mpi_alloc(c, cap * sizeof *at);
    if (!at)
        return SC_ERR_OUT_OF_MEMORY;
    if (r->count)
        memcpy(at, r->at, r->count * sizeof *at);
    sc_mpi_free(c, r->at);
    r->at = at;
    r->cap = cap;
    return SC_OK;
}

int sc_mpi_grow(const sc_mpi_context *c, void **at, size_t *cap, size_t n, size_t elem) {
    if (n <= *cap)
        return 0;
    size_t want = *cap + *cap / 2 > n ? *cap + *cap / 2 : n;
    sc_mpi_free(c, *at);
    *at = want <= SIZE_MAX / elem ? sc_mpi_alloc(c, want * elem) : NULL;
    *cap = *at ? want : 0;
    return *at ? 0 : -1;
}

/* ---- rule 8: one status for every rank ------------------------------------ */

/* The least over the ranks of each of two unsigned 64-bit values. Not
 * MPI_MIN on MPI_UINT64_T: MPICH 4.0.2, Debian 12's, compares unsigned
 * types as signed there (pmodels/mpich#6083), as OpenMPI 4.1.2-4.1.4 did
 * for unsigned long (open-mpi/ompi#10525), so UINT64_MAX, the "nothing"
 * of sc_mpi_agree, won every minimum. Flipping the top bit maps unsigned
 * order onto signed order, which every implementation gets right. */
static void min_u64x2(const uint64_t in[2], uint64_t out[2], MPI_Comm comm) {
    const uint64_t top = (uint64_t)1 << 63;
    int64_t mine[2], all[2];
    for (int k = 0; k < 2; k++) {
        const uint64_t flipped = in[k] ^ top;
        memcpy(&mine[k], &flipped, sizeof flipped);
    }
    sc_mpi_allreduce(mine, all, 2, MPI_INT64_T, MPI_MIN, comm);
    for (int k = 0; k < 2; k++) {
        uint64_t v;
        memcpy(&v, &all[k], sizeof v);
        out[k] = v ^ top;
    }
}

sc_status sc_mpi_agree(sc_mpi_context *c, sc_status status, uint64_t id) {
    int failed = status != SC_OK;
    uint64_t mine[2] = {failed ? id : UINT64_MAX, failed ? (uint64_t)c->rank : UINT64_MAX};
    uint64_t all[2];
    min_u64x2(mine, all, c->comm);
    if (all[1] == UINT64_MAX)
        return SC_OK;
    /* The failure with the smallest global id wins (the single process's
     * first problem, when ids are rows), else the lowest failing rank's. */
    int winner = (int)all[1];
    if (all[0] != UINT64_MAX) {
        int candidate = failed && id == all[0] ? c->rank : INT_MAX;
        sc_mpi_allreduce(&candidate, &winner, 1, MPI_INT, MPI_MIN, c->comm);
    }
    int agreed = (int)status;
    sc_mpi_bcast(&agreed, 1, MPI_INT, winner, c->comm);
    if (all[0] != UINT64_MAX)
        snprintf(c->message, sizeof c->message, "rank %d: sphere id %llu: %s", winner,
                 (unsigned long long)all[0], sc_status_string((sc_status)agreed));
    else
        snprintf(c->message, sizeof c->message, "rank %d: %s", winner,
                 sc_status_string((sc_status)agreed));
    return (sc_status)agreed;
}

/* ---- the context ------------------------------------------------------------ */

sc_mpi_options sc_mpi_options_default(void) {
    sc_mpi_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.search = sc_options_default();
    o.layout = SC_MPI_LAYOUT_RCB;
    o.sample = 65536;
    o.giants = 1024;
    return o;
}

static sc_status check_options(const sc_mpi_options *o) {
    if (o->size > sizeof *o)
        return SC_ERR_VERSION;
    if (o->size != sizeof *o || o->sample < 1 || o->giants > (size_t)INT_MAX / 2)
        return SC_ERR_INVALID_ARGUMENT;
    if (o->layout != SC_MPI_LAYOUT_RCB && o->layout != SC_MPI_LAYOUT_CALLER)
        return SC_ERR_INVALID_ARGUMENT;
    if (o->weight != SC_MPI_WEIGHT_COST && o->weight != SC_MPI_WEIGHT_COUNT)
        return SC_ERR_INVALID_ARGUMENT;
    return SC_OK; /* the box itself: sc_context_create checks it */
}

static sc_status create_local(sc_mpi_context *c) {
    size_t p = (size_t)c->ranks;
    c->counts = sc_mpi_alloc(c, 6 * p * sizeof(int));
    c->regions = sc_mpi_alloc(c, 8 * p * sizeof(double));
    c->giant_mine = sc_mpi_alloc(c, c->options.giants + 1);
    c->firsts = sc_mpi_alloc(c, p * sizeof *c->firsts);
    c->hint.face = sc_mpi_alloc(c, p * sizeof *c->hint.face);
    c->hint.rmax = sc_mpi_alloc(c, p * sizeof *c->hint.rmax);
    if (!c->counts || !c->regions || !c->giant_mine || !c->firsts || !c->hint.face || !c->hint.rmax)
        return SC_ERR_OUT_OF_MEMORY;
    c->displs = c->counts + p;
    c->rcounts = c->counts + 2 * p;
    c->rdispls = c->counts + 3 * p;
    c->near = c->counts + 4 * p;
    c->faces = c->counts + 5 * p;
    return sc_context_create(&c->options.search, &c->search);
}

static void release(sc_mpi_context *c) {
    sc_context_destroy(c->search);
    for (int k = 0; k < 2; k++) /* local is a view of own's records */
        sc_mpi_free(c, c->set[k].own.at);
    sc_mpi_free(c, c->spare.at);
    sc_mpi_free(c, c->cand.at);
    sc_mpi_free(c, c->dest);
    sc_mpi_free(c, c->giant_mine);
    sc_mpi_free(c, c->counts);
    sc_mpi_free(c, c->regions);
    sc_mpi_free(c, c->firsts);
    sc_mpi_free(c, c->hint.face);
    sc_mpi_free(c, c->hint.rmax);
    sc_mpi_free(c, c->routed);
    sc_mpi_free(c, c->id32);
    sc_mpi_neighbors_release(c);
}

sc_status sc_mpi_context_create(MPI_Comm comm, const sc_mpi_options *options,
                                sc_mpi_context **out) {
    if (!out)
        return SC_ERR_INVALID_ARGUMENT;
    *out = NULL;
    sc_mpi_options o = options ? *options : sc_mpi_options_default();
    sc_status st = options ? check_options(options) : SC_OK;
    /* The context itself comes from the caller's allocator too. */
    sc_mpi_context probe = {.options = o};
    sc_mpi_context *c = st == SC_OK ? sc_mpi_alloc(&probe, sizeof *c) : NULL;
    if (st == SC_OK && !c)
        st = SC_ERR_OUT_OF_MEMORY;
    sc_mpi_context scratch = {.options = o};
    sc_mpi_context *use = c ? c : &scratch;
    memset(use, 0, sizeof *use);
    use->options = o;
    MPI_Comm_dup(comm, &use->comm);
    MPI_Type_contiguous((int)sizeof(sc_mpi_record), MPI_BYTE, &use->record);
    MPI_Type_commit(&use->record);
    MPI_Type_contiguous((int)sizeof(sc_mpi_entry), MPI_BYTE, &use->entry);
    MPI_Type_commit(&use->entry);
    MPI_Comm_rank(use->comm, &use->rank);
    MPI_Comm_size(use->comm, &use->ranks);
    if (st == SC_OK)
        st = create_local(use);
    st = sc_mpi_agree(use, st, UINT64_MAX);
    if (st != SC_OK) {
        release(use);
        MPI_Type_free(&use->record);
        MPI_Type_free(&use->entry);
        MPI_Comm_free(&use->comm);
        if (c)
            sc_mpi_free(&probe, c);
        return st;
    }
    *out = c;
    return SC_OK;
}

void sc_mpi_context_destroy(sc_mpi_context *ctx) {
    if (!ctx)
        return;
    release(ctx);
    MPI_Type_free(&ctx->record);
    MPI_Type_free(&ctx->entry);
    MPI_Comm_free(&ctx->comm);
    sc_mpi_context probe = {.options = ctx->options};
    sc_mpi_free(&probe, ctx);
}

const char *sc_mpi_message(const sc_mpi_context *ctx) {
    return ctx ? ctx->message : "";
}

sc_status sc_mpi_stats_get(const sc_mpi_context *ctx, sc_mpi_stats *out) {
    if (!ctx || !out || out->size < sizeof *out)
        return SC_ERR_INVALID_ARGUMENT;
    *out = ctx->stats;
    out->size = sizeof *out;
    return SC_OK;
}

static inline uint64_t splitmix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The checksum's term, inlined where the filter adds it up for every pair
 * (the exported name is called through the PLT). */
static inline uint64_t pair_mix(uint64_t i, uint64_t j) {
    if ((i | j) >> 32 == 0)
        return splitmix((i << 32) | j); /* sc_pair_mix(i, j) */
    return splitmix(splitmix(i) ^ j);
}

uint64_t sc_mpi_pair_mix(uint64_t i, uint64_t j) {
    return pair_mix(i, j);
}

/* ---- positions in a periodic box ------------------------------------------ */

/* The periodic axes of this call's dimensions, and rule 3's absolute
 * margin for them: 2^-44 B, B the largest |lo| or |hi| plus the period
 * over those axes (docs/mpi.md, "Periodic boxes"). */
static void plan_box(sc_mpi_context *c) {
    const sc_box *b = &c->options.search.box;
    double big = 0;
    for (int a = 0; a < 3; a++) {
        c->periodic[a] = a < c->dims && b->periodic[a];
        if (c->periodic[a]) {
            double m = fabs(b->lo[a]) > fabs(b->hi[a]) ? fabs(b->lo[a]) : fabs(b->hi[a]);
            big = m + (b->hi[a] - b->lo[a]) > big ? m + (b->hi[a] - b->lo[a]) : big;
        }
    }
    c->pad = big * 0x1p-44;
}

static int any_periodic(const sc_mpi_context *c) {
    return c->periodic[0] || c->periodic[1] || c->periodic[2];
}

double sc_mpi_pair_d2(const sc_mpi_context *c, const sc_mpi_record *a, const sc_mpi_record *b) {
    const double pa[3] = {a->x, a->y, a->z}, pb[3] = {b->x, b->y, b->z};
    const sc_box *box = &c->options.search.box;
    double d[3];
    for (int k = 0; k < 3; k++) {
        if (!c->periodic[k]) {
            d[k] = pb[k] - pa[k];
            continue;
        }
        const double L = box->hi[k] - box->lo[k];
        double t =
            sc_mpi_wrap(pb[k], box->lo[k], box->hi[k]) - sc_mpi_wrap(pa[k], box->lo[k], box->hi[k]);
        d[k] = t > 0.5 * L ? t - L : t < -0.5 * L ? t + L : t;
    }
    if (c->dims == 2)
        d[2] = 0;
    return (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2];
}

/* The library's grow() (docs/api.md, "Neighbour lists"): with h >= skin/2,
 * g = (r + h)(1 + 2^-48) and two ulps more, so that for any two spheres
 * fl(gi + gj) >= fl(fl(ri + rj) + skin). Non-decreasing in r, which rule
 * 4's (radius, id) order needs. */

/* ---- check: values, dimensions, ids --------------------------------------- */

typedef sc_mpi_query query;

/* Agrees on the dimensions (every view with spheres on every rank the
 * same) and, per set, on ids given or not (every rank with spheres of the
 * set the same). */
static sc_status agree_shape(sc_mpi_context *c, const query *q) {
    int mine[6] = {0, 0, 0, 0, 0, 0}, all[6];
    for (int k = 0; k < q->sets; k++)
        if (q->v[k] && q->v[k]->count > 0) {
            mine[q->v[k]->z ? 0 : 1] = 1;
            mine[2 + 2 * k + (q->ids[k] ? 0 : 1)] = 1;
        }
    sc_mpi_allreduce(mine, all, 6, MPI_INT, MPI_MAX, c->comm);
    c->dims = all[1] ? 2 : 3;
    int bad = (all[0] && all[1]) || (all[2] && all[3]) || (all[4] && all[5]);
    return bad ? SC_ERR_INVALID_ARGUMENT : SC_OK;
}

static inline double load(const char *p, int f64) {
    return f64 ? *(const double *)p : (double)*(const float *)p;
}

static double value_at(const sc_spheres *v, const void *base, size_t stride, size_t k) {
    return load((const char *)base + k * stride, v->dtype == SC_F64);
}

/* One span of copy_own: the caller's columns (z NULL in 2-D), strides s
 * (x, y, z) and rs (r), and where the pass writes. */
typedef struct copy_span {
    const char *x, *y, *z, *r;
    size_t s, rs, n;
    const uint64_t *ids;
    uint64_t first;
    sc_mpi_record *out;
    int hinted;
    sc_mpi_hint_pass hint; /* with hinted */
} copy_span;

/* copy_own's pass, with the dtype (f64) and whether the extent is taken
 * (stays) constant where it is called, so the loop carries no test of
 * either; returns whether every sphere passed the library's checks. */
static inline __attribute__((always_inline)) int
copy_pass(const sc_mpi_context *c, copy_span *j, int f64, int stays, double e[7], int *id_max) {
    int wraps = 0;
    for (int a = 0; a < 3; a++)
        wraps |= c->periodic[a];
    sc_mpi_hint_pass t = j->hint; /* a local copy: the record writes cannot alias it */
    int ok = 1, max = 0;
    for (size_t k = 0; k < j->n; k++) {
        sc_mpi_record *o = &j->out[k];
        const double x = load(j->x + k * j->s, f64), y = load(j->y + k * j->s, f64),
                     z = j->z ? load(j->z + k * j->s, f64) : 0.0, r = load(j->r + k * j->rs, f64);
        ok &= (fabs(x) <= SC_MAX_ABS_VALUE) & (fabs(y) <= SC_MAX_ABS_VALUE) &
              (fabs(z) <= SC_MAX_ABS_VALUE) & (fabs(r) <= SC_MAX_ABS_VALUE) & !(r < 0);
        const uint64_t id = j->ids ? j->ids[k] : j->first + k;
        max |= id == UINT64_MAX;
        o->x = x, o->y = y, o->z = z, o->r = r, o->id = id;
        if (!stays)
            continue;
        double p[3] = {x, y, z}, sr = sc_mpi_search_radius(c, r);
        if (wraps)
            sc_mpi_position(c, o, p);
        sc_mpi_extent_add(e, p, sr);
        if (j->hinted)
            sc_mpi_hint_take(&t, o, k, p, sr);
    }
    j->hint = t;
    *id_max = max;
    return ok;
}

/* Copies the view into set k's own records (float32 values widen exactly),
 * taking their extent on the way where they stay (no RCB move follows,
 * which would replace them) and, with the routing's hint, copying the
 * spheres it does not rule out into c->cand and writing id32 (the routing
 * then reads those, not every record), *id_max = some id is UINT64_MAX,
 * and *valid = every sphere passes the
 * library's checks: each value finite and at most SC_MAX_ABS_VALUE in
 * magnitude, the radius not negative (NaN fails each comparison). The
 * caller asks the library which sphere failed, and how, only when one
 * did: one pass over the caller's arrays, not a check's and a copy's. */
static sc_status copy_own(sc_mpi_context *c, int k_set, const sc_spheres *v, const uint64_t *ids,
                          uint64_t first, int *valid, int *id_max) {
    sc_mpi_set *set = &c->set[k_set];
    sc_mpi_records *own = &set->own;
    size_t n = v->count;
    /* Room for what the call adds (the move's imbalance, the ghosts) from
     * the first call: growing later copies every record into new pages.
     * Capacity never touched costs address space, not memory. */
    sc_status st = sc_mpi_reserve(c, own, n > own->cap && n <= SIZE_MAX / 3 ? n + n / 2 : n);
    if (st != SC_OK)
        return st;
    const int f64 = v->dtype == SC_F64;
    size_t elem = f64 ? sizeof(double) : sizeof(float);
    size_t s = v->stride ? v->stride : elem, rs = v->r_stride ? v->r_stride : s;
    const int stays = c->ranks == 1 || c->options.layout != SC_MPI_LAYOUT_RCB;
    copy_span j = {.x = v->x,
                   .y = v->y,
                   .z = v->z,
                   .r = v->r,
                   .s = s,
                   .rs = rs,
                   .n = n,
                   .ids = ids,
                   .first = first,
                   .out = own->at};
    j.hinted = stays && k_set == 0 && sc_mpi_hint_begin(c, n);
    if (j.hinted)
        j.hint = sc_mpi_hint_pass_begin(c);
    double e[7]; /* a local box: the record writes cannot alias it */
    sc_mpi_extent_begin(e);
    if (f64)
        *valid = stays ? copy_pass(c, &j, 1, 1, e, id_max) : copy_pass(c, &j, 1, 0, e, id_max);
    else
        *valid = stays ? copy_pass(c, &j, 0, 1, e, id_max) : copy_pass(c, &j, 0, 0, e, id_max);
    if (j.hinted)
        sc_mpi_hint_pass_end(c, &j.hint);
    sc_mpi_extent_end(e);
    memcpy(set->ext, e, sizeof e);
    set->ext_known = stays;
    own->count = n;
    return SC_OK;
}

static int checked_by_search(const sc_mpi_context *c, const query *q) {
    return c->ranks == 1 && !q->nbr;
}

/* The agreed status of a value check, with what limit a radius broke. */
static sc_status agree_value(sc_mpi_context *c, sc_status st, uint64_t bad_id) {
    st = sc_mpi_agree(c, st, bad_id);
    size_t used = strlen(c->message);
    if (st == SC_ERR_OUT_OF_RANGE && c->grow_h > 0)
        snprintf(c->message + used, sizeof c->message - used,
                 "; a radius grown by half the skin must be at most %s",
                 any_periodic(c) ? "5e149 in a periodic box" : "1e150");
    else if (st == SC_ERR_OUT_OF_RANGE && any_periodic(c))
        snprintf(c->message + used, sizeof c->message - used,
                 "; in a periodic box a radius must be at most 5e149");
    return st;
}

/* One set's values (the library's checks, the caller's ids, a periodic
 * box's radius limit), then its copy; an agreed status naming the first
 * bad sphere's global id. */
static sc_status check_set(sc_mpi_context *c, const query *q, int k, uint64_t *first) {
    const sc_spheres *v = q->v[k];
    const uint64_t *ids = q->ids[k];
    uint64_t n = v->count;
    *first = 0;
    sc_mpi_exscan(&n, first, 1, MPI_UINT64_T, MPI_SUM, c->comm);
    if (c->rank == 0)
        *first = 0; /* MPI_Exscan leaves rank 0's result undefined */
    size_t bad = 0;
    uint64_t bad_id = UINT64_MAX;
    /* One rank (no neighbour list) searches the caller's view as it is, and
     * the library checks it there before any pair is streamed; only a
     * failure looks for the sphere to name (name_bad). Several ranks check
     * the values as they copy them (copy_own), and ask the library only
     * when one failed. */
    const int copies = c->ranks > 1 || q->nbr;
    const int shaped = (v->dtype == SC_F64 || v->dtype == SC_F32) &&
                       (n == 0 || (v->x && v->y && v->r)); /* else the library says how */
    int valid = 0, id_max = 0, ids_seen = 0;               /* ids_seen: the copy tested the ids */
    sc_status st = n > SC_MAX_SPHERES ? SC_ERR_TOO_MANY_SPHERES : SC_OK;
    if (st == SC_OK && copies && shaped) {
        st = copy_own(c, k, v, q->nbr ? NULL : ids, *first, &valid, &id_max);
        ids_seen = st == SC_OK && !q->nbr;
    }
    if (st == SC_OK && !valid && !checked_by_search(c, q))
        st = sc_context_validate(c->search, v, &bad);
    if (st != SC_OK && st != SC_ERR_TOO_MANY_SPHERES && st != SC_ERR_INVALID_ARGUMENT &&
        st != SC_ERR_OUT_OF_MEMORY)
        bad_id = ids ? ids[bad] : *first + bad;
    for (size_t i = 0; st == SC_OK && ids && (!ids_seen || id_max) && i < n; i++)
        if (ids[i] == UINT64_MAX)
            st = SC_ERR_INVALID_ARGUMENT, bad_id = UINT64_MAX;
    if (st == SC_OK && (any_periodic(c) || c->grow_h > 0)) {
        /* the library's limit on radii in a periodic box, and on a skin's
         * grown radii (the search's), named by id */
        size_t elem = v->dtype == SC_F64 ? sizeof(double) : sizeof(float);
        size_t rs = v->r_stride ? v->r_stride : v->stride ? v->stride : elem;
        double limit = any_periodic(c) ? SC_MAX_ABS_VALUE / 2 : SC_MAX_ABS_VALUE;
        for (size_t i = 0; st == SC_OK && i < n; i++)
            if (sc_mpi_search_radius(c, value_at(v, v->r, rs, i)) > limit)
                st = SC_ERR_OUT_OF_RANGE, bad_id = ids ? ids[i] : *first + i;
    }
    /* a neighbour list numbers every sphere in rank order (its row's rank
     * follows from the id) and runs the general path on one rank too */
    if (st == SC_OK && copies && !shaped) /* the library found nothing wrong: never here */
        st = SC_ERR_INVALID_ARGUMENT;
    if (q->nbr)
        sc_mpi_allgather(first, 1, MPI_UINT64_T, c->firsts, 1, MPI_UINT64_T, c->comm);
    return agree_value(c, st, bad_id);
}

/* The first bad sphere of the sets, by the library's checks, after a one-rank
 * search failed on a value: its status and global id, as check_set names it. */
static sc_status name_bad(sc_mpi_context *c, const query *q, sc_status st) {
    uint64_t bad_id = UINT64_MAX;
    if (st == SC_ERR_NON_FINITE || st == SC_ERR_NEGATIVE_RADIUS || st == SC_ERR_OUT_OF_RANGE) {
        for (int k = 0; k < q->sets; k++) {
            size_t bad = 0;
            sc_status found = sc_context_validate(c->search, q->v[k], &bad);
            if (found != SC_OK) {
                st = found;
                bad_id = q->ids[k] ? q->ids[k][bad] : bad;
                break;
            }
        }
    }
    return agree_value(c, st, bad_id);
}

/* Every set in order, so a bad sphere of a is named before one of b (as
 * one process names a's first). */
static sc_status check(sc_mpi_context *c, const query *q) {
    int given = 1;
    for (int k = 0; k < q->sets; k++)
        given &= q->v[k] != NULL;
    sc_status st = given ? SC_OK : SC_ERR_INVALID_ARGUMENT;
    st = sc_mpi_agree(c, st, UINT64_MAX);
    if (st == SC_OK)
        st = sc_mpi_agree(c, agree_shape(c, q), UINT64_MAX);
    plan_box(c);
    c->sets = q->sets;
    c->grow_h = 0;
    if (q->nbr && q->nbr->skin > 0) { /* as the library's grow(): h >= skin / 2 */
        c->grow_h = q->nbr->skin * 0.5;
        if (c->grow_h * 2.0 < q->nbr->skin)
            c->grow_h = nextafter(c->grow_h, INFINITY);
    }
    for (int k = 0; k < 2; k++) {
        c->set[k].own.count = c->set[k].local.count = 0;
        c->set[k].ext_known = 0;
    }
    c->hinted = 0;
    uint64_t first;
    for (int k = 0; st == SC_OK && k < q->sets; k++)
        st = check_set(c, q, k, &first);
    return st;
}

/* ---- search: each pair kept by exactly one rank (rule 4) ------------------ */

typedef struct keep_state {
    const sc_mpi_context *c;
    const query *q;
    uint64_t *chunk;
    size_t held, cap;
    uint64_t pairs, found, checksum, filled;
    int stopped;
} keep_state;

static int flush(keep_state *s) {
    const query *q = s->q;
    if (s->held && q->fill) { /* fill: the first `capacity` pairs of this rank */
        size_t room = q->capacity > s->filled ? q->capacity - s->filled : 0;
        size_t n = s->held < room ? s->held : room;
        if (n)
            memcpy(q->fill + 2 * s->filled, s->chunk, 2 * n * sizeof *s->chunk);
        s->filled += n;
    } else if (s->held && q->fn && q->fn(s->chunk, s->held, q->user) != 0) {
        s->stopped = 1;
    }
    s->held = 0;
    return s->stopped;
}

/* One pair kept: (a, b) as given for two sets, ordered for one. */
static void keep(keep_state *s, uint64_t a, uint64_t b) {
    if (s->q->sets == 1 && b < a) {
        uint64_t t = a;
        a = b, b = t;
    }
    s->pairs++;
    s->checksum += pair_mix(a, b);
    if (s->chunk) {
        s->chunk[2 * s->held] = a;
        s->chunk[2 * s->held + 1] = b;
        if (++s->held == s->cap)
            flush(s);
    }
}

/* Is local sphere k of set 0 owned here? [owned non-giants | ghosts | giants]. */
static int mine(const sc_mpi_context *c, size_t k, size_t giants_at) {
    return k < c->set[0].local_own || (k >= giants_at && c->giant_mine[k - giants_at]);
}

/* Of two records, the one first in (radius, id) order. */
static size_t smaller(const sc_mpi_record *at, size_t a, size_t b) {
    if (at[a].r != at[b].r)
        return at[a].r < at[b].r ? a : b;
    return at[a].id < at[b].id ? a : b;
}

int sc_mpi_decides(const sc_mpi_context *c, size_t a, size_t b) {
    const sc_mpi_record *at = c->set[0].local.at;
    size_t giants_at = c->set[0].local.count - c->set[0].local_giants;
    int ga = a >= giants_at, gb = b >= giants_at;
    /* The deciding end (rule 4): the non-giant one; of two non-giants the
     * smaller in (radius, id), which rule 3 sent the larger's ghost to; of
     * two giants the smaller id. */
    size_t d = ga != gb ? (ga ? b : a) : ga ? (at[a].id < at[b].id ? a : b) : smaller(at, a, b);
    return mine(c, d, giants_at);
}

/* How many pairs ahead the callbacks ask for the ids they will read. A
 * pair's ends are anywhere in the local records, so each read misses the
 * caches; asked for early, the misses of many pairs overlap instead of
 * waiting one or two at a time (decision record 0007, fifth slice). */
enum { AHEAD = 32 };

static inline void ahead(const void *a, const void *b) {
    __builtin_prefetch(a);
    __builtin_prefetch(b);
}

static int keep_distributed(const uint32_t *p, size_t count, void *user) {
    keep_state *s = user;
    const sc_mpi_context *c = s->c;
    const sc_mpi_record *at = c->set[0].local.at;
    const size_t own = c->set[0].local_own;
    s->found += count;
    if (c->id32_ok) { /* the ids 4 bytes apart: far fewer lines to miss */
        const uint32_t *id = c->id32;
        for (size_t k = 0; k < count && !s->stopped; k++) {
            if (k + AHEAD < count) {
                size_t a = p[2 * (k + AHEAD)], b = p[2 * (k + AHEAD) + 1];
                ahead(&id[a], &id[b]);
                if (a >= own || b >= own) /* the rule reads both radii */
                    ahead(&at[a].r, &at[b].r);
            }
            size_t a = p[2 * k], b = p[2 * k + 1];
            if ((a < own && b < own) || sc_mpi_decides(c, a, b))
                keep(s, id[a], id[b]);
        }
        return s->stopped;
    }
    for (size_t k = 0; k < count && !s->stopped; k++) {
        if (k + AHEAD < count)
            ahead(&at[p[2 * (k + AHEAD)]].id, &at[p[2 * (k + AHEAD) + 1]].id);
        size_t a = p[2 * k], b = p[2 * k + 1];
        /* both ends owned non-giants (most pairs): kept here, whichever decides */
        if ((a < own && b < own) || sc_mpi_decides(c, a, b))
            keep(s, at[a].id, at[b].id);
    }
    return s->stopped;
}

/* Two sets (docs/mpi.md, "Two sets"): a non-giant a is owned here and
 * decides; a giant a leaves the pair to the owner of a non-giant b, and a
 * pair of giants to the owner of a. */
static int keep_between(const uint32_t *p, size_t count, void *user) {
    keep_state *s = user;
    const sc_mpi_context *c = s->c;
    const sc_mpi_set *A = &c->set[0], *B = &c->set[1];
    size_t a_giants = A->local.count - A->local_giants, b_giants = B->local.count - B->local_giants;
    s->found += count;
    for (size_t k = 0; k < count && !s->stopped; k++) {
        if (k + AHEAD < count)
            ahead(&A->local.at[p[2 * (k + AHEAD)]].id, &B->local.at[p[2 * (k + AHEAD) + 1]].id);
        size_t a = p[2 * k], b = p[2 * k + 1];
        int take =
            a < a_giants || b < B->local_own || (b >= b_giants && c->giant_mine[a - a_giants]);
        if (take)
            keep(s, A->local.at[a].id, B->local.at[b].id);
    }
    return s->stopped;
}

static int keep_one_rank(const uint32_t *p, size_t count, void *user) {
    keep_state *s = user;
    const uint64_t *ia = s->q->ids[0], *ib = s->q->ids[s->q->sets - 1];
    s->found += count;
    for (size_t k = 0; k < count && !s->stopped; k++) {
        if (ia && ib && k + AHEAD < count)
            ahead(&ia[p[2 * (k + AHEAD)]], &ib[p[2 * (k + AHEAD) + 1]]);
        keep(s, ia ? ia[p[2 * k]] : p[2 * k], ib ? ib[p[2 * k + 1]] : p[2 * k + 1]);
    }
    return s->stopped;
}

static sc_spheres local_view(const sc_mpi_context *c, int k) {
    static const double none[4]; /* the empty view's valid addresses */
    const sc_mpi_record *at = c->set[k].local.at;
    size_t n = c->set[k].local.count;
    sc_spheres v = {0, SC_F64, sizeof *at, none, none + 1, none + 2, none + 3, 0};
    if (at && n)
        v = (sc_spheres){n, SC_F64, sizeof *at, &at->x, &at->y, &at->z, &at->r, 0};
    if (at && n && c->grow_h > 0) /* a skin: the grown radii */
        v.r = c->grown, v.r_stride = sizeof *c->grown;
    if (c->dims == 2)
        v.z = NULL;
    return v;
}

/* One rank: the library on the caller's views, ids mapped. */
static sc_status search_one_rank(sc_mpi_context *c, const query *q, keep_state *s) {
    const sc_spheres *a = q->v[0], *b = q->v[q->sets - 1];
    if (!q->ids[0] && !q->ids[q->sets - 1] && !s->chunk) { /* the library's own sums */
        sc_summary sum;
        sc_status st = q->sets == 1 ? sc_count_pairs(c->search, a, &sum)
                                    : sc_count_between(c->search, a, b, &sum);
        s->pairs = s->found = sum.pairs;
        s->checksum = sum.checksum;
        return st;
    }
    return q->sets == 1 ? sc_stream_pairs(c->search, a, keep_one_rank, s, NULL)
                        : sc_stream_between(c->search, a, b, keep_one_rank, s, NULL);
}

static sc_status search(sc_mpi_context *c, const query *q, keep_state *s) {
    size_t cap = c->options.search.chunk_pairs;
    s->cap = cap < 1 ? 1 : cap > ((size_t)1 << 16) ? (size_t)1 << 16 : cap;
    if ((q->fn || q->fill) && !(s->chunk = sc_mpi_alloc(c, 2 * s->cap * sizeof(uint64_t))))
        return SC_ERR_OUT_OF_MEMORY;
    sc_status st = SC_OK;
    if (q->nbr) { /* a neighbour list: grown radii, entries kept */
        const sc_mpi_records *L = &c->set[0].local;
        if (c->grow_h > 0 && L->count > c->grown_cap) {
            sc_mpi_free(c, c->grown);
            c->grown_cap = 0;
            if ((c->grown = sc_mpi_alloc(c, L->count * sizeof *c->grown)))
                c->grown_cap = L->count;
            else
                st = SC_ERR_OUT_OF_MEMORY;
        }
        for (size_t i = 0; st == SC_OK && c->grow_h > 0 && i < L->count; i++)
            c->grown[i] = sc_mpi_search_radius(c, L->at[i].r);
        c->entries.count = 0;
        c->nbr_pairs = 0;
        c->nbr_status = SC_OK;
        sc_spheres v = local_view(c, 0);
        if (st == SC_OK)
            st = sc_stream_pairs(c->search, &v, sc_mpi_keep_neighbors, c, NULL);
        if (st == SC_ERR_STOPPED)
            st = c->nbr_status;
        s->pairs = c->nbr_pairs;
        sc_stats fs = {.size = sizeof fs};
        if (sc_context_stats(c->search, &fs) == SC_OK)
            s->found = fs.pairs;
    } else if (c->ranks == 1) {
        st = search_one_rank(c, q, s);
    } else if (q->sets == 1) {
        sc_spheres v = local_view(c, 0);
        st = sc_stream_pairs(c->search, &v, keep_distributed, s, NULL);
    } else {
        sc_spheres va = local_view(c, 0), vb = local_view(c, 1);
        st = sc_stream_between(c->search, &va, &vb, keep_between, s, NULL);
    }
    if (st == SC_OK && !s->stopped)
        flush(s);
    if (s->stopped)
        st = SC_ERR_STOPPED;
    sc_stats ss = {.size = sizeof ss};
    if (sc_context_stats(c->search, &ss) == SC_OK) {
        c->stats.candidate_tests = ss.candidate_tests;
        c->stats.threads = ss.threads;
    }
    sc_mpi_free(c, s->chunk);
    s->chunk = NULL;
    return st;
}

/* ---- the pipeline --------------------------------------------------------- */

static double lap(sc_mpi_context *c, sc_mpi_phase phase, double since) {
    double now = MPI_Wtime();
    c->stats.seconds[phase] += now - since;
    return now;
}

static sc_status run(sc_mpi_context *c, const query *q, sc_summary *out, size_t *needed) {
    keep_state s = {.c = c, .q = q};
    double t = MPI_Wtime();
    sc_status st = check(c, q);
    t = lap(c, SC_MPI_PHASE_CHECK, t);
    int general = !checked_by_search(c, q); /* else the library on the caller's view */
    if (st == SC_OK && c->ranks > 1 && c->options.layout == SC_MPI_LAYOUT_RCB)
        st = sc_mpi_layout_rcb(c);
    t = lap(c, SC_MPI_PHASE_LAYOUT, t);
    if (st == SC_OK && general)
        st = sc_mpi_ghosts(c);
    t = lap(c, SC_MPI_PHASE_GHOSTS, t);
    if (st == SC_OK) {
        for (int k = 0; k < q->sets; k++)
            c->stats.owned += general ? c->set[k].owned : q->v[k]->count;
        st = search(c, q, &s);
        st = general ? sc_mpi_agree(c, st, UINT64_MAX) : name_bad(c, q, st);
        if (st == SC_OK && q->nbr)
            st = sc_mpi_neighbors_finish(c, q);
    }
    t = lap(c, SC_MPI_PHASE_SEARCH, t);
    if (st == SC_OK) {
        uint64_t mine[2] = {s.pairs, s.checksum}, all[2];
        sc_mpi_allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, c->comm); /* mod 2^64 */
        out->pairs = all[0];
        out->checksum = all[1];
        if (needed)
            *needed = (size_t)s.pairs;
        /* fill: short on any rank is short on every rank (each wrote its
         * first `capacity` pairs and knows its own count) */
        if (q->fill || needed)
            st = sc_mpi_agree(c, s.pairs > q->capacity ? SC_ERR_BUFFER_TOO_SMALL : SC_OK,
                              UINT64_MAX);
    }
    c->stats.pairs = s.pairs;
    c->stats.found = s.found;
    lap(c, SC_MPI_PHASE_REDUCE, t);
    return st;
}

sc_status sc_mpi_enter(sc_mpi_context *c, const query *q, sc_summary *out, size_t *needed) {
    if (!c)
        return SC_ERR_INVALID_ARGUMENT;
    c->query = q;
    c->kept.valid = 0; /* a neighbour count keeps a new one at its end */
    memset(&c->stats, 0, sizeof c->stats);
    c->stats.size = sizeof c->stats;
    c->message[0] = '\0';
    sc_summary scratch;
    if (!out)
        out = &scratch;
    memset(out, 0, sizeof *out);
    if (needed)
        *needed = 0;
    sc_status st = run(c, q, out, needed);
    if (st != SC_OK && st != SC_ERR_BUFFER_TOO_SMALL)
        memset(out, 0, sizeof *out);
    return st;
}

/* A caller's argument that one rank alone got wrong fails every rank. */
static sc_status agreed_arguments(sc_mpi_context *ctx, int ok) {
    if (!ctx)
        return SC_ERR_INVALID_ARGUMENT;
    ctx->message[0] = '\0';
    return sc_mpi_agree(ctx, ok ? SC_OK : SC_ERR_INVALID_ARGUMENT, UINT64_MAX);
}

sc_status sc_mpi_count_pairs(sc_mpi_context *ctx, const sc_spheres *local, const uint64_t *ids,
                             sc_summary *out) {
    query q = {.sets = 1, .v = {local}, .ids = {ids}};
    return sc_mpi_enter(ctx, &q, out, NULL);
}

sc_status sc_mpi_stream_pairs(sc_mpi_context *ctx, const sc_spheres *local, const uint64_t *ids,
                              sc_mpi_pair_fn fn, void *user, sc_summary *out) {
    sc_status st = agreed_arguments(ctx, fn != NULL);
    if (st != SC_OK)
        return st;
    query q = {.sets = 1, .v = {local}, .ids = {ids}, .fn = fn, .user = user};
    return sc_mpi_enter(ctx, &q, out, NULL);
}

sc_status sc_mpi_fill_pairs(sc_mpi_context *ctx, const sc_spheres *local, const uint64_t *ids,
                            uint64_t *pairs, size_t capacity, size_t *needed, sc_summary *out) {
    sc_status st = agreed_arguments(ctx, pairs || capacity == 0);
    if (st != SC_OK)
        return st;
    size_t scratch;
    query q = {.sets = 1, .v = {local}, .ids = {ids}, .fill = pairs, .capacity = capacity};
    return sc_mpi_enter(ctx, &q, out, needed ? needed : &scratch);
}

sc_status sc_mpi_count_between(sc_mpi_context *ctx, const sc_spheres *a, const uint64_t *ids_a,
                               const sc_spheres *b, const uint64_t *ids_b, sc_summary *out) {
    query q = {.sets = 2, .v = {a, b}, .ids = {ids_a, ids_b}};
    return sc_mpi_enter(ctx, &q, out, NULL);
}

sc_status sc_mpi_stream_between(sc_mpi_context *ctx, const sc_spheres *a, const uint64_t *ids_a,
                                const sc_spheres *b, const uint64_t *ids_b, sc_mpi_pair_fn fn,
                                void *user, sc_summary *out) {
    sc_status st = agreed_arguments(ctx, fn != NULL);
    if (st != SC_OK)
        return st;
    query q = {.sets = 2, .v = {a, b}, .ids = {ids_a, ids_b}, .fn = fn, .user = user};
    return sc_mpi_enter(ctx, &q, out, NULL);
}

sc_status sc_mpi_fill_between(sc_mpi_context *ctx, const sc_spheres *a, const uint64_t *ids_a,
                              const sc_spheres *b, const uint64_t *ids_b, uint64_t *pairs,
                              size_t capacity, size_t *needed, sc_summary *out) {
    sc_status st = agreed_arguments(ctx, pairs || capacity == 0);
    if (st != SC_OK)
        return st;
    size_t scratch;
    query q = {.sets = 2, .v = {a, b}, .ids = {ids_a, ids_b}, .fill = pairs, .capacity = capacity};
    return sc_mpi_enter(ctx, &q, out, needed ? needed : &scratch);
}
