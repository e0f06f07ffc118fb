/* ghosts.c: regions, giants and the ghost exchange (rules 2, 3 and 5 of
 * docs/mpi.md). After it, each set's local holds [owned non-giants |
 * ghosts from other ranks | every giant of the set]. One set: every pair
 * with a non-giant end owned here has both ends in it. Two sets: a (set 0)
 * gets no ghosts and b (set 1) the ghosts that can meet a's region, so
 * every pair with a non-giant a owned here has both ends here. */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* Rule 3's margins: relative 2^-40 and absolute 2^-500 on the reach. The
 * proof that they cover every rounding of the pair predicate and of this
 * test is in docs/mpi.md ("No pair is lost"). */
#define REACH_REL 0x1p-40
#define REACH_ABS 0x1p-500

int sc_mpi_may_reach(const sc_mpi_context *c, const double p[3], double r, const double lo[3],
                     const double hi[3], double rmax) {
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
        double g = p[a] < lo[a] ? lo[a] - p[a] : p[a] > hi[a] ? p[a] - hi[a] : 0.0;
        if (g > 0 && c->periodic[a]) { /* or the other way round the box */
            const double *b = c->options.search.box.lo, *t = c->options.search.box.hi;
            double L = t[a] - b[a];
            double round = p[a] < lo[a] ? (p[a] + L) - hi[a] : (lo[a] + L) - p[a];
            g = round < g ? (round > 0 ? round : 0.0) : g;
        }
        d2 += g * g;
    }
    double reach = (r + rmax) * (1 + REACH_REL) + REACH_ABS + c->pad;
    return d2 <= reach * reach;
}

/* Per rank, 8 doubles: lo[3], hi[3], the largest radius, the spheres. */
enum { REGION = 8 };

/* The box of the positions of at[0, n) (lo[3], hi[3]) and their largest
 * search radius, into e[0, 7) (zeros when n = 0). */
static void extent(const sc_mpi_context *c, const sc_mpi_record *at, size_t n, double e[7]) {
    sc_mpi_extent_begin(e);
    for (size_t i = 0; i < n; i++) {
        double v[3];
        sc_mpi_position(c, &at[i], v);
        sc_mpi_extent_add(e, v, sc_mpi_search_radius(c, at[i].r));
    }
    sc_mpi_extent_end(e);
}

/* Set k's extent of own[0, n): the one its check or move took when n is
 * all of own, else a pass. */
static void set_extent(const sc_mpi_context *c, int k, size_t n, double e[7]) {
    const sc_mpi_set *set = &c->set[k];
    if (set->ext_known && n == set->own.count)
        memcpy(e, set->ext, sizeof set->ext);
    else
        extent(c, set->own.at, n, e);
}

/* Publishes this rank's box of the positions of set 0's records own[0,
 * n), their largest radius and their count into c->regions. */
static void publish(sc_mpi_context *c, size_t n) {
    double mine[REGION];
    set_extent(c, 0, n, mine);
    mine[7] = (double)n;
    sc_mpi_allgather(mine, REGION, MPI_DOUBLE, c->regions, REGION, MPI_DOUBLE, c->comm);
}

static uint64_t bits_of(double v) {
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static double double_of(uint64_t b) {
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

static int descending(const void *pa, const void *pb) {
    double a = *(const double *)pa, b = *(const double *)pb;
    return a > b ? -1 : a < b;
}

/* The giant threshold G (rule 5): spheres with r > G are giants. G is at
 * least `floor` (a region's scale) and at least what keeps the giants to
 * options.giants over all ranks: the smallest such value, found by
 * bisection on the radii's bits (non-negative doubles order as their bits)
 * over each rank's options.giants + 1 largest radii, which decide every
 * count that matters. Collective; *giant is the same on every rank. */
static sc_status threshold(sc_mpi_context *c, double floor, double *giant) {
    size_t limit = c->options.giants;
    uint64_t mine = 0, all = 0;
    for (int k = 0; k < c->sets; k++)
        for (size_t i = 0; i < c->set[k].own.count; i++)
            mine += sc_mpi_search_radius(c, c->set[k].own.at[i].r) > floor;
    sc_mpi_allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, c->comm);
    *giant = floor;
    if (all <= limit)
        return SC_OK;
    double *top = sc_mpi_alloc(c, (size_t)mine * sizeof *top);
    sc_status st = sc_mpi_agree(c, top ? SC_OK : SC_ERR_OUT_OF_MEMORY, UINT64_MAX);
    if (st != SC_OK) {
        sc_mpi_free(c, top);
        return st;
    }
    size_t n = 0;
    for (int k = 0; k < c->sets; k++)
        for (size_t i = 0; i < c->set[k].own.count; i++)
            if (sc_mpi_search_radius(c, c->set[k].own.at[i].r) > floor)
                top[n++] = sc_mpi_search_radius(c, c->set[k].own.at[i].r);
    qsort(top, n, sizeof *top, descending);
    n = n > limit + 1 ? limit + 1 : n;
    double high = n ? top[0] : 0, rmax;
    sc_mpi_allreduce(&high, &rmax, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    /* count(r > lo) > limit, count(r > hi) <= limit */
    uint64_t lo = bits_of(floor), hi = bits_of(rmax);
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        double t = double_of(mid);
        mine = 0;
        for (size_t i = 0; i < n && top[i] > t; i++)
            mine++;
        sc_mpi_allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, c->comm);
        if (all <= limit)
            hi = mid;
        else
            lo = mid;
    }
    *giant = double_of(hi);
    sc_mpi_free(c, top);
    return SC_OK;
}

/* Half the smallest region's largest side: a sphere with a larger radius
 * reaches past a region, and may be a giant. */
static double region_scale(const sc_mpi_context *c) {
    double scale = -1;
    for (int r = 0; r < c->ranks; r++) {
        const double *g = &c->regions[REGION * r];
        if (g[7] == 0)
            continue;
        double side = 0;
        for (int a = 0; a < c->dims; a++)
            side = g[3 + a] - g[a] > side ? g[3 + a] - g[a] : side;
        scale = scale < 0 || side < scale ? side : scale;
    }
    return scale < 0 ? 0 : scale / 2;
}

/* The other radius in rule 3's reach to region g of a sphere of search
 * radius r: rmax(R), or with `smaller` (one set) min(r, rmax(R)). */
static double partner(const double *g, double r, int smaller) {
    return smaller && r < g[6] ? r : g[6];
}

/* The width of route's first test against region g for spheres whose
 * largest search radius is top: a gap wider than this on one axis rules
 * the region out for each of them, with a margin far beyond rule 3's
 * rounding (at least twice the reach, or equal when both radii are 0). */
static double first_width(const sc_mpi_context *c, const double *g, double top, int smaller) {
    return (top + partner(g, top, smaller)) * 2 + REACH_ABS + c->pad;
}

/* A bound on rule 3's reach to region g of every sphere whose search
 * radius is at most top, larger than each rounded reach by a factor of at
 * least 1 + 2^-31 (docs/mpi.md, "Routing"). */
static double reach_bound(const sc_mpi_context *c, const double *g, double top, int smaller) {
    return ((top + partner(g, top, smaller)) * (1 + 0x1p-30) + REACH_ABS + c->pad) * (1 + 0x1p-30);
}

/* Counts (fill == 0) or packs into c->spare (fill != 0) the ghosts this
 * rank sends, from the owned non-giants at[0, n), whose positions' box
 * is box (lo[3], hi[3]) and largest search radius top; counting, with
 * id32, also writes each record's id there (its low 32 bits) and ORs
 * the ids into *ids_or. With `smaller`
 * (one set) a sphere goes only where it may meet a sphere no larger than
 * itself, since the smaller end decides (rule 4): its reach is r +
 * min(r, rmax(R)), so a rank's few large spheres do not widen the halo
 * of everyone's small ones. Two sets: r + rmax(R), a's owner decides. */
static void route(sc_mpi_context *c, const sc_mpi_record *at, size_t n, const double box[6],
                  double top, int smaller, int fill, int *next, uint32_t *id32, uint64_t *ids_or) {
    /* Which ranks a sphere is tested against (docs/mpi.md, "Routing"):
     * with no periodic axis, a region wholly beyond one face of box is at
     * least as far from each sphere as that face, so a sphere deeper
     * inside box than `deep` (the largest reach_bound of such regions)
     * reaches none of them and is tested against the others alone,
     * near[0, close). RCB's regions are all apart: most spheres test no
     * rank at all. near[close, tested): the apart ones, faces[j] the
     * faces of box that near[j]'s region lies beyond (bit 2a: lo on axis
     * a, 2a + 1: hi). A sphere farther than `deep` from one of those
     * faces cannot reach that region either, so of the apart regions a
     * sphere tests only those beyond faces it is near. */
    int open = 1, close = 0, tested = 0;
    for (int a = 0; a < c->dims; a++)
        open &= !c->periodic[a];
    double deep = 0;
    for (int pass = 0; pass < 2; pass++) { /* the close ranks, then the apart ones */
        for (int r = 0; r < c->ranks; r++) {
            const double *g = &c->regions[REGION * r];
            if (r == c->rank || g[7] == 0)
                continue;
            int beyond = 0;
            for (int a = 0; a < c->dims; a++)
                beyond |= (g[3 + a] <= box[a]) << 2 * a | (g[a] >= box[3 + a]) << (2 * a + 1);
            if ((open && beyond) != pass)
                continue;
            if (pass)
                deep = fmax(deep, reach_bound(c, g, top, smaller));
            c->faces[tested] = pass ? beyond : 0; /* a close region: every sphere tests it */
            c->near[tested++] = r;
        }
        close = pass ? close : tested;
    }
    /* The counting pass marks the records that go somewhere; the packing
     * pass, given the marks, visits those alone. */
    uint64_t *mark = c->routed && c->routed_cap >= (n + 63) / 64 ? c->routed : NULL;
    uint64_t or_ids = 0;
    for (size_t w = 0; w < (n + 63) / 64; w++) {
        uint64_t bits = fill && mark ? mark[w] : ~(uint64_t)0, sent = 0;
        for (; bits; bits &= bits - 1) {
            size_t i = 64 * w + (size_t)__builtin_ctzll(bits);
            if (i >= n)
                break;
            double p[3], ri = sc_mpi_search_radius(c, at[i].r);
            sc_mpi_position(c, &at[i], p);
            if (id32) {
                id32[i] = (uint32_t)at[i].id;
                or_ids |= at[i].id;
            }
            int near = 0; /* the faces of box within deep of the sphere */
            for (int a = 0; a < c->dims; a++)
                near |= !(p[a] - box[a] > deep) << 2 * a | !(box[3 + a] - p[a] > deep)
                                                               << (2 * a + 1);
            for (int j = 0, m = near ? tested : close; j < m; j++) {
                if (c->faces[j] & ~near)
                    continue;
                int r = c->near[j];
                const double *g = &c->regions[REGION * r];
                /* First a gap wider than first_width on one axis: most
                 * spheres sit far from other regions, so most tests end
                 * here. */
                double wide = first_width(c, g, top, smaller);
                int far = 0;
                for (int a = 0; a < c->dims && !far; a++)
                    far = !c->periodic[a] && (g[a] - p[a] > wide || p[a] - g[3 + a] > wide);
                if (far || !sc_mpi_may_reach(c, p, ri, g, g + 3, partner(g, ri, smaller)))
                    continue;
                sent |= (uint64_t)1 << (i % 64);
                if (fill)
                    c->spare.at[next[r]++] = at[i];
                else
                    c->counts[r]++;
            }
        }
        if (!fill && mark)
            mark[w] = sent;
    }
    if (ids_or)
        *ids_or |= or_ids;
}

/* Room for route's marks of n records; without it, route visits every
 * record twice (the marks only save time). */
static void reserve_marks(sc_mpi_context *c, size_t n) {
    void *marks = c->routed;
    (void)sc_mpi_grow(c, &marks, &c->routed_cap, (n + 63) / 64, sizeof *c->routed);
    c->routed = marks;
}

/* ---- the routing's hint (sc_mpi_hint) ------------------------------------ */

/* The room id32 wants for the ghost phase's `own` owned records: with room
 * for the ghosts and giants that usually come (the last call's count). */
static uint32_t *id32_room(sc_mpi_context *c, size_t own) {
    void *room = c->id32;
    size_t want = own + own / 4 + 1024;
    want = want > c->id32_need ? want : c->id32_need;
    int got = sc_mpi_grow(c, &room, &c->id32_cap, want, sizeof *c->id32) == 0;
    c->id32 = room;
    return got ? room : NULL;
}

int sc_mpi_hint_begin(sc_mpi_context *c, size_t n) {
    if (!c->hint.ok || c->hint.dims != c->dims || c->sets != 1 || c->ranks == 1)
        return 0;
    /* room for a quarter of the records as candidates (a hint is kept
     * where at most an eighth went anywhere) */
    c->cand.count = 0;
    return sc_mpi_reserve(c, &c->cand, n / 4 + 1024) == SC_OK && id32_room(c, n);
}

sc_mpi_hint_pass sc_mpi_hint_pass_begin(const sc_mpi_context *c) {
    return (sc_mpi_hint_pass){c->hint, c->cand.at, c->id32, c->cand.cap, 0, 0};
}

void sc_mpi_hint_pass_end(sc_mpi_context *c, const sc_mpi_hint_pass *t) {
    c->hinted = t->m <= t->cap;
    c->cand.count = c->hinted ? t->m : 0;
    c->hinted_ids_or = t->ids_or;
}

/* Takes the hint from this call's regions (one set, no giant); with
 * `usable` 0, or a region that overlaps this rank's on every axis, there
 * is none. The slack is a 256th of this rank's side on the plane's axis,
 * and the radii's bounds an eighth above this call's. */
static void hint_save(sc_mpi_context *c, int usable) {
    sc_mpi_hint *h = &c->hint;
    const double *me = &c->regions[REGION * c->rank];
    h->ok = 0;
    int open = 1;
    for (int a = 0; a < c->dims; a++)
        open &= !c->periodic[a];
    if (!usable || !open || c->ranks == 1 || me[7] == 0)
        return;
    double rcap = me[6] + me[6] / 8, deep = 0;
    for (int a = 0; a < 3; a++)
        h->lo[a] = -INFINITY, h->hi[a] = INFINITY;
    for (int r = 0; r < c->ranks; r++) {
        const double *g = &c->regions[REGION * r];
        h->face[r] = -1;
        if (r == c->rank || g[7] == 0)
            continue;
        int f = -1;
        for (int a = 0; a < c->dims && f < 0; a++)
            f = g[a] >= me[3 + a] ? 2 * a + 1 : g[3 + a] <= me[a] ? 2 * a : -1;
        if (f < 0)
            return;
        int a = f / 2;
        double slack = (me[3 + a] - me[a]) / 256;
        if (f & 1)
            h->hi[a] = fmin(h->hi[a], g[a] - slack);
        else
            h->lo[a] = fmax(h->lo[a], g[3 + a] + slack);
        h->face[r] = f;
        h->rmax[r] = g[6] + g[6] / 8;
        double bound[REGION] = {0};
        bound[6] = h->rmax[r];
        deep = fmax(deep, reach_bound(c, bound, rcap, 1));
    }
    h->deep = deep, h->rcap = rcap, h->dims = c->dims;
    /* the next call's room for candidates, taken now: calls after the
     * first allocate nothing new */
    h->ok = sc_mpi_reserve(c, &c->cand, (size_t)me[7] / 4 + 1024) == SC_OK;
}

/* Whether this call's regions keep the hint's premises: every other
 * rank's region that holds spheres lies beyond the plane of its face and
 * has radii within its bound. Then a sphere the hint ruled out reaches
 * none of them (the proof of route's first test, with the plane for the
 * face: docs/mpi.md, "Routing"). */
static int hint_holds(const sc_mpi_context *c) {
    const sc_mpi_hint *h = &c->hint;
    for (int r = 0; r < c->ranks; r++) {
        const double *g = &c->regions[REGION * r];
        if (r == c->rank || g[7] == 0)
            continue;
        int f = h->face[r], a = f / 2;
        if (f < 0 || !(g[6] <= h->rmax[r]) || !(f & 1 ? g[a] >= h->hi[a] : g[3 + a] <= h->lo[a]))
            return 0;
    }
    return 1;
}

/* Under RCB the move replaced the records the check wrote, so the ghost
 * phase takes their extent in a pass of its own; with a hint that pass
 * copies the candidates aside and writes id32 as the check does in the
 * caller's layout (sc_mpi_hint), and the extent is known to publish. */
static void extent_hinted(sc_mpi_context *c) {
    sc_mpi_set *set = &c->set[0];
    const sc_mpi_record *at = set->own.at;
    const size_t n = set->own.count;
    sc_mpi_hint_pass t = sc_mpi_hint_pass_begin(c);
    double e[7];
    sc_mpi_extent_begin(e);
    for (size_t i = 0; i < n; i++) {
        double p[3] = {at[i].x, at[i].y, at[i].z}, r = sc_mpi_search_radius(c, at[i].r);
        sc_mpi_extent_add(e, p, r); /* no periodic axis: positions as given */
        sc_mpi_hint_take(&t, &at[i], i, p, r);
    }
    sc_mpi_extent_end(e);
    memcpy(set->ext, e, sizeof e);
    set->ext_known = 1;
    sc_mpi_hint_pass_end(c, &t);
}

/* Owned non-giants to the front of own; returns their count. */
static size_t giants_last(const sc_mpi_context *c, sc_mpi_records *own, double giant) {
    sc_mpi_record *at = own->at;
    size_t a = 0;
    for (size_t i = 0; i < own->count; i++)
        if (sc_mpi_search_radius(c, at[i].r) <= giant) {
            sc_mpi_record t = at[a];
            at[a++] = at[i];
            at[i] = t;
        }
    return a;
}

static void count_sent(sc_mpi_context *c) {
    for (int r = 0; r < c->ranks; r++)
        if (r != c->rank && c->counts[r] > 0) {
            c->stats.messages_sent++;
            c->stats.bytes_sent += (uint64_t)c->counts[r] * sizeof(sc_mpi_record);
        }
}

/* Builds set k's local: its owned non-giants (the first `own` of its
 * records), with `routed` the ghosts of them that other ranks' regions
 * need (else none), and every rank's giants of the set (the rest). */
static sc_status exchange(sc_mpi_context *c, int k, size_t own, int routed) {
    int p = c->ranks;
    sc_mpi_set *set = &c->set[k];
    size_t own_giants = set->own.count - own;
    memset(c->counts, 0, (size_t)p * sizeof(int));
    memset(c->rcounts, 0, (size_t)p * sizeof(int));
    /* the box and largest radius of what is routed: set 0's are its
     * region's (rule 2) */
    double e[7];
    if (k == 0)
        memcpy(e, &c->regions[REGION * c->rank], sizeof e);
    else if (routed)
        set_extent(c, k, own, e);
    /* One set: the ids as 32 bits for the search's filter, written by the
     * counting pass, with room for the ghosts and giants that usually
     * come (else none this call: a later one has the room). */
    uint64_t ids_or = 0;
    uint32_t *id32 = NULL;
    if (k == 0)
        c->id32_ok = 0;
    if (k == 0 && c->sets == 1 && routed)
        id32 = id32_room(c, own); /* the size the hint's pass grew it to, if it did */
    /* the candidates and id32 of the hint's pass (the check's copy or the
     * extent pass), when its premises hold: the routing reads those, not
     * every owned record */
    int hinted = k == 0 && c->hinted && id32 && hint_holds(c);
    size_t routes = hinted ? c->cand.count : own;
    if (hinted)
        ids_or = c->hinted_ids_or;
    if (routed) { /* every rank passes the same `routed`: the collectives match */
        reserve_marks(c, routes);
        route(c, hinted ? c->cand.at : set->own.at, routes, e, e[6], c->sets == 1, 0, NULL,
              hinted ? NULL : id32, &ids_or);
        sc_mpi_alltoall(c->counts, 1, MPI_INT, c->rcounts, 1, MPI_INT, c->comm);
    }
    size_t in = 0, out = 0;
    for (int r = 0; r < p; r++) {
        c->displs[r] = (int)out, out += (size_t)c->counts[r];
        c->rdispls[r] = (int)in, in += (size_t)c->rcounts[r];
    }
    int gmine = (int)own_giants, *gcounts = sc_mpi_alloc(c, 2 * (size_t)p * sizeof(int));
    sc_status st = gcounts ? SC_OK : SC_ERR_OUT_OF_MEMORY;
    int *gdispls = gcounts ? gcounts + p : NULL, *next = NULL;
    size_t giants = 0;
    st = sc_mpi_agree(c, st, UINT64_MAX);
    if (st != SC_OK) {
        sc_mpi_free(c, gcounts); /* allocated here, failed elsewhere */
        return st;
    }
    sc_mpi_allgather(&gmine, 1, MPI_INT, gcounts, 1, MPI_INT, c->comm);
    for (int r = 0; r < p; r++)
        gdispls[r] = (int)giants, giants += (size_t)gcounts[r];
    /* local is built in own's records, which hold the owned non-giants
     * already (no copy of the bulk); own's giants wait in spare after the
     * ghosts being sent, out of the way of the ghosts received. */
    st = sc_mpi_reserve(c, &set->own, own + in + giants);
    c->spare.count = 0;
    if (st == SC_OK)
        st = sc_mpi_reserve(c, &c->spare, out + own_giants);
    if (st == SC_OK && !(next = sc_mpi_alloc(c, (size_t)p * sizeof *next)))
        st = SC_ERR_OUT_OF_MEMORY;
    st = sc_mpi_agree(c, st, UINT64_MAX);
    if (st == SC_OK) {
        memcpy(next, c->displs, (size_t)p * sizeof *next);
        if (own_giants)
            memcpy(c->spare.at + out, set->own.at + own, own_giants * sizeof *set->own.at);
        if (routed) {
            /* own's records may have moved in the reserve above */
            route(c, hinted ? c->cand.at : set->own.at, routes, e, e[6], c->sets == 1, 1, next,
                  NULL, NULL);
            sc_mpi_alltoallv(c->spare.at, c->counts, c->displs, c->record, set->own.at + own,
                             c->rcounts, c->rdispls, c->record, c->comm);
        }
        sc_mpi_allgatherv(c->spare.at + out, gmine, c->record, set->own.at + own + in, gcounts,
                          gdispls, c->record, c->comm);
        /* local is own's records, read by the search; the next call's
         * check writes own again. One buffer of records, not two that take
         * turns: each call reuses what the last one grew. */
        set->local = (sc_mpi_records){set->own.at, own + in + giants, 0};
        set->own.count = 0;
        set->owned = own + own_giants;
        if (k == 0) /* the keep rules ask who owns a giant of set 0 only */
            for (size_t g = 0; g < giants; g++)
                c->giant_mine[g] =
                    g >= (size_t)gdispls[c->rank] && g < (size_t)gdispls[c->rank] + own_giants;
        set->local_own = own;
        set->local_giants = giants;
        if (id32)
            c->id32_need = set->local.count;
        if (id32 && set->local.count <= c->id32_cap) { /* the ghosts' and giants' ids */
            for (size_t i = own; i < set->local.count; i++) {
                id32[i] = (uint32_t)set->local.at[i].id;
                ids_or |= set->local.at[i].id;
            }
            c->id32_ok = ids_or >> 32 == 0;
        }
        c->stats.ghosts += in;
        c->stats.giants += giants;
        count_sent(c);
        if (own_giants)
            c->stats.bytes_sent += (uint64_t)own_giants * sizeof(sc_mpi_record) * (uint64_t)(p - 1);
    }
    sc_mpi_free(c, next);
    sc_mpi_free(c, gcounts);
    return st;
}

sc_status sc_mpi_ghosts(sc_mpi_context *c) {
    sc_mpi_records *a = &c->set[0].own;
    if (!c->set[0].ext_known && sc_mpi_hint_begin(c, a->count))
        extent_hinted(c);
    publish(c, a->count);
    double floor = region_scale(c), top = 0, giant;
    for (int r = 0; r < c->ranks; r++)
        top = c->regions[REGION * r + 6] > top ? c->regions[REGION * r + 6] : top;
    size_t own[2] = {a->count, 0};
    sc_status st = SC_OK;
    /* One set whose largest radius is no giant's (the regions say so on
     * every rank alike): nothing moves, and the regions stand. */
    if (c->sets == 2 || top > floor) {
        st = threshold(c, floor, &giant);
        if (st != SC_OK)
            return st;
        for (int k = 0; k < c->sets; k++)
            own[k] = giants_last(c, &c->set[k].own, giant);
        /* the regions of a's non-giants, with their largest radius (rule 2) */
        publish(c, own[0]);
        c->hinted = 0; /* the candidates may hold giants, which go to every rank apart */
    }
    st = exchange(c, 0, own[0], c->sets == 1);
    /* a hint pays where a pass over every record costs more than its test
     * and copies in the first pass: where few records go anywhere (the
     * ones that do are a lower bound on the candidates) */
    size_t sent = 0;
    for (int r = 0; r < c->ranks; r++)
        sent += (size_t)c->counts[r];
    int sparse = sent <= own[0] / 8;
    if (st == SC_OK && c->sets == 2)
        st = exchange(c, 1, own[1], 1);
    hint_save(c, st == SC_OK && c->sets == 1 && !(top > floor) && sparse);
    return st;
}
