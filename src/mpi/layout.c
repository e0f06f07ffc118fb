/* layout.c: weighted recursive coordinate bisection (rule 1 of
 * docs/mpi.md). Every rank samples its centres, the samples are gathered
 * on rank 0, which weighs them and cuts, and the cut planes are broadcast
 * (the computation is done once, not once a rank: on a node where ranks
 * share cores every rank's copy would be paid for). A sphere's owner is
 * found by the cut planes' comparisons alone (c < cut: the lower side),
 * which no rounding can make two ranks decide differently. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* A sample: a centre, a radius and the spheres it stands for (then, with
 * cost weights, their estimated cost). */
typedef struct sample {
    double c[3], r, w;
} sample;

/* The cut of ranks [r0, r1) at node k: lower ranks [r0, r0 + (r1 - r0) / 2). */
typedef struct cut {
    double axis; /* 0, 1 or 2 (a double: the tree travels as doubles) */
    double at;
} cut;

/* A sample's coordinate on the axis being cut, its weight and its place in
 * the gathered array (the tie-break, so the cuts are a function of the
 * samples alone). */
typedef struct keyed {
    double v, w;
    size_t i;
} keyed;

/* 1 when a sorts before b in the order by (v, i), else 0; without a
 * branch (see partition). */
static size_t sorts_before(const keyed *a, const keyed *b) {
    return (size_t)(a->v < b->v) | ((size_t)(a->v == b->v) & (size_t)(a->i < b->i));
}

static void swap(keyed *a, keyed *b) {
    keyed t = *a;
    *a = *b, *b = t;
}

/* Partitions key[0, n) around pivot (not among them): the entries that
 * sort before it first, in place, then a hole for the pivot, then the
 * rest, which go through tmp (room for n). Each entry is written to both
 * sides and one side's end moves by the comparison's 0 or 1: no branch on
 * the data (sample coordinates come in no order, and a branch would
 * mispredict half the time) and no store that a later load must wait for
 * (a swap with the boundary's entry made each step wait on the last).
 * Returns the pivot's place; *below (when not NULL) gets the weights
 * before it. */
static size_t partition(keyed *key, size_t n, const keyed *pivot, keyed *tmp, double *below) {
    size_t lower = 0, upper = 0;
    double w = 0;
    for (size_t i = 0; i < n; i++) {
        const keyed t = key[i];
        const size_t less = sorts_before(&t, pivot);
        key[lower] = t; /* lower <= i: an entry already read */
        tmp[upper] = t;
        w += t.w * (double)less;
        lower += less;
        upper += 1 - less;
    }
    memcpy(key + lower + 1, tmp, upper * sizeof *tmp);
    key[lower] = *pivot;
    if (below)
        *below = w;
    return lower;
}

/* Reorders key[0, n) so that the entry at the returned place p is the one
 * the order by (v, i) would put there, every entry before it sorts before
 * it, and the weights before it sum to at most want while with it they
 * exceed want (p = n when all of them fit). Expected linear time. */
static size_t select_weight(keyed *key, size_t n, double want, keyed *tmp) {
    size_t lo = 0, hi = n;
    double before = 0; /* the weights of key[0, lo) */
    while (lo < hi) {
        swap(&key[lo + (hi - lo) / 2], &key[hi - 1]);
        const keyed pivot = key[hi - 1];
        double below;
        const size_t store = lo + partition(key + lo, hi - 1 - lo, &pivot, tmp, &below);
        if (before + below > want)
            hi = store;
        else if (before + below + pivot.w > want)
            return store;
        else
            before += below + pivot.w, lo = store + 1;
    }
    return lo;
}

/* Cuts the samples key[0, n) for ranks [r0, r1) at node k of a
 * heap-ordered tree (children 2k + 1 and 2k + 2; fewer than 2 * ranks
 * nodes): the longest axis of their box, where the weight reaches the
 * lower ranks' share. */
static void bisect(const sample *s, keyed *key, size_t n, int r0, int r1, int dims, cut *tree,
                   int k, keyed *tmp) {
    if (r1 - r0 < 2)
        return;
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, total = 0;
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            double v = s[key[i].i].c[a];
            lo[a] = i == 0 || v < lo[a] ? v : lo[a];
            hi[a] = i == 0 || v > hi[a] ? v : hi[a];
        }
    int axis = 0;
    for (int a = 1; a < dims; a++)
        if (hi[a] - lo[a] > hi[axis] - lo[axis])
            axis = a;
    for (size_t i = 0; i < n; i++) {
        key[i].v = s[key[i].i].c[axis];
        key[i].w = s[key[i].i].w;
        total += key[i].w;
    }
    int lower = (r1 - r0) / 2;
    size_t p = select_weight(key, n, total * lower / (r1 - r0), tmp);
    /* The cut sits at the first upper sample; equal coordinates go up with
     * it, so the lower side is exactly the samples below the cut. */
    double at = p < n ? key[p].v : hi[axis];
    size_t split = 0;
    for (size_t i = 0; i < n; i++)
        if (key[i].v < at)
            swap(&key[i], &key[split++]);
    tree[k] = (cut){axis, at};
    bisect(s, key, split, r0, r0 + lower, dims, tree, 2 * k + 1, tmp);
    bisect(s, key + split, n - split, r0 + lower, r1, dims, tree, 2 * k + 2, tmp);
}

/* ---- cost weights ------------------------------------------------------- */

/* Cost weights: a sphere's search cost is a fixed part (its sort, copy and
 * own cells, COST_FIXED candidate tests' worth) plus the candidate tests
 * of its neighbourhood, estimated as the local density times the volume
 * of a cube of side COST_SIDE mean radii (a grid cell's neighbourhood at
 * the typical radius). The density at a sample is its leaf's: a k-d split
 * of the samples at medians down to leaves of at most LEAF, each leaf's
 * spheres over its cell's volume, so it adapts from sparse space to the
 * narrowest cluster. Everything is computed identically on every rank
 * from the gathered array. The constants were fitted to the local
 * search's candidate tests (decision record 0007, third slice). */
enum { LEAF = 16 };
#define COST_FIXED 4.0
#define COST_SIDE 4.5

/* Puts key[m] where the order by (v, i) would, smaller before, larger
 * after: a quickselect on partition(). */
static void select_nth(keyed *key, size_t n, size_t m, keyed *tmp) {
    size_t lo = 0, hi = n; /* m in [lo, hi) */
    while (hi - lo > 1) {
        swap(&key[lo + (hi - lo) / 2], &key[hi - 1]);
        const keyed pivot = key[hi - 1];
        const size_t store = lo + partition(key + lo, hi - 1 - lo, &pivot, tmp, NULL);
        if (m == store)
            return;
        if (m < store)
            hi = store;
        else
            lo = store + 1;
    }
}

/* Sets rho (spheres per unit volume) of the samples key[0, n).i in the
 * cell [lo, hi]. */
static void leaf_density(const sample *s, double *rho, keyed *key, size_t n, const double lo[3],
                         const double hi[3], int dims, keyed *tmp) {
    int axis = 0;
    for (int a = 1; a < dims; a++)
        if (hi[a] - lo[a] > hi[axis] - lo[axis])
            axis = a;
    if (n <= LEAF) {
        double vol = 1, w = 0;
        for (int a = 0; a < dims; a++)
            vol *= hi[a] - lo[a];
        for (size_t i = 0; i < n; i++)
            w += s[key[i].i].w;
        for (size_t i = 0; i < n; i++)
            rho[key[i].i] = vol > 0 ? w / vol : INFINITY;
        return;
    }
    for (size_t i = 0; i < n; i++)
        key[i].v = s[key[i].i].c[axis];
    size_t m = n / 2;
    select_nth(key, n, m, tmp);
    double at = key[m].v, upper_lo[3], lower_hi[3];
    memcpy(upper_lo, lo, sizeof upper_lo);
    memcpy(lower_hi, hi, sizeof lower_hi);
    upper_lo[axis] = lower_hi[axis] = at;
    leaf_density(s, rho, key, m, lo, lower_hi, dims, tmp);
    leaf_density(s, rho, key + m, n - m, upper_lo, hi, dims, tmp);
}

/* Replaces each sample's sphere count w by their estimated cost. */
static sc_status cost_weights(const sc_mpi_context *c, sample *s, size_t n, keyed *key,
                              keyed *tmp) {
    if (n == 0)
        return SC_OK;
    double *rho = sc_mpi_alloc(c, n * sizeof *rho);
    if (!rho)
        return SC_ERR_OUT_OF_MEMORY;
    double lo[3], hi[3], total = 0, rsum = 0;
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            lo[a] = i == 0 || s[i].c[a] < lo[a] ? s[i].c[a] : lo[a];
            hi[a] = i == 0 || s[i].c[a] > hi[a] ? s[i].c[a] : hi[a];
        }
        key[i].i = i;
        key[i].w = s[i].w; /* partition() reads it */
        total += s[i].w;
        rsum += s[i].w * s[i].r;
    }
    leaf_density(s, rho, key, n, lo, hi, c->dims, tmp);
    double side = COST_SIDE * rsum / total, cube = side * side * (c->dims == 3 ? side : 1);
    for (size_t i = 0; i < n; i++) {
        double tests = rho[i] * cube; /* inf or NaN (no volume): everything */
        s[i].w *= COST_FIXED + (tests <= total ? tests : total);
    }
    sc_mpi_free(c, rho);
    return SC_OK;
}

/* The rank of the cell that holds s's position: ranks [r0, r0 + n) at
 * node k, the upper side taken on c >= cut. Written without branches on
 * the position (masks for the choice): positions arrive in no order, and
 * a branch a level mispredicts half the time (decision record 0007,
 * sixth slice). */
static int owner_of(const sc_mpi_context *c, const cut *tree, const sc_mpi_record *s) {
    int r0 = 0, n = c->ranks, k = 0;
    double p[3];
    sc_mpi_position(c, s, p);
    while (n > 1) {
        int lower = n / 2, up = !(p[(int)tree[k].axis] < tree[k].at), mask = -up;
        r0 += mask & lower;
        n = lower + (mask & (n - 2 * lower));
        k = 2 * k + 1 + up;
    }
    return r0;
}

/* Every rank's samples of every set, gathered in rank order into *all on
 * rank 0 (n_all of them; NULL and 0 on the others). */
static sc_status gather_samples(sc_mpi_context *c, sample **all, size_t *n_all) {
    uint64_t n = 0, total = 0;
    for (int k = 0; k < c->sets; k++)
        n += c->set[k].own.count;
    sc_mpi_allreduce(&n, &total, 1, MPI_UINT64_T, MPI_SUM, c->comm);
    size_t want = total == 0 ? 0 : (size_t)((double)n * (double)c->options.sample / (double)total);
    size_t take = n == 0 ? 0 : want < 1 ? 1 : want > n ? n : want;
    int mine = (int)take;
    sc_mpi_allgather(&mine, 1, MPI_INT, c->rcounts, 1, MPI_INT, c->comm);
    size_t sum = 0;
    for (int r = 0; r < c->ranks; r++) {
        c->rdispls[r] = (int)(sum * sizeof(sample));
        sum += (size_t)c->rcounts[r];
        c->rcounts[r] *= (int)sizeof(sample);
    }
    sample *local = sc_mpi_alloc(c, take * sizeof *local);
    *all = c->rank == 0 ? sc_mpi_alloc(c, sum * sizeof **all) : NULL;
    int ok = local && (c->rank != 0 || *all);
    sc_status st = sc_mpi_agree(c, ok ? SC_OK : SC_ERR_OUT_OF_MEMORY, UINT64_MAX);
    if (st == SC_OK) {
        for (size_t i = 0; i < take; i++) { /* evenly spaced over the sets' rows */
            size_t row = (size_t)((double)i * (double)n / (double)take), k = 0;
            while (row >= c->set[k].own.count)
                row -= c->set[k++].own.count;
            local[i].w = (double)n / (double)take;
            local[i].r = sc_mpi_search_radius(c, c->set[k].own.at[row].r);
            sc_mpi_position(c, &c->set[k].own.at[row], local[i].c);
        }
        sc_mpi_gatherv(local, (int)(take * sizeof *local), MPI_BYTE, *all, c->rcounts, c->rdispls,
                       MPI_BYTE, 0, c->comm);
        *n_all = c->rank == 0 ? sum : 0;
    }
    sc_mpi_free(c, local);
    return st;
}

/* Rank 0: the cut tree of the gathered samples (weighed first with cost
 * weights). */
static sc_status cut_samples(const sc_mpi_context *c, sample *all, size_t n_all, cut *tree) {
    keyed *key = sc_mpi_alloc(c, 2 * n_all * sizeof *key), *tmp = key ? key + n_all : NULL;
    if (!key && n_all > 0)
        return SC_ERR_OUT_OF_MEMORY;
    sc_status st = SC_OK;
    if (c->options.weight == SC_MPI_WEIGHT_COST)
        st = cost_weights(c, all, n_all, key, tmp);
    if (st == SC_OK) {
        for (size_t i = 0; i < n_all; i++)
            key[i].i = i;
        bisect(all, key, n_all, 0, c->ranks, c->dims, tree, 0, tmp);
    }
    sc_mpi_free(c, key);
    return st;
}

/* Sends every sphere of `own` to its cell's rank; own becomes what this
 * rank received: the spheres it keeps (in order, compacted in place: they
 * never travel) and then the others' by source rank, each group in
 * order. */
static sc_status move(sc_mpi_context *c, const cut *tree, sc_mpi_records *own) {
    int p = c->ranks, me = c->rank;
    memset(c->counts, 0, (size_t)p * sizeof(int));
    void *grown = c->dest; /* a void * of its own: no int * written as a void * */
    sc_status st = sc_mpi_grow(c, &grown, &c->dest_cap, own->count, sizeof *c->dest)
                       ? SC_ERR_OUT_OF_MEMORY
                       : SC_OK;
    int *dest = c->dest = grown;
    for (size_t i = 0; st == SC_OK && i < own->count; i++)
        c->counts[dest[i] = owner_of(c, tree, &own->at[i])]++;
    sc_mpi_alltoall(c->counts, 1, MPI_INT, c->rcounts, 1, MPI_INT, c->comm);
    size_t kept = (size_t)c->counts[me];
    c->counts[me] = c->rcounts[me] = 0;
    size_t in = kept, out = 0;
    for (int r = 0; r < p; r++) {
        c->displs[r] = (int)out, out += (size_t)c->counts[r];
        c->rdispls[r] = (int)in, in += (size_t)c->rcounts[r];
    }
    c->spare.count = 0;
    if (st == SC_OK)
        st = sc_mpi_reserve(c, &c->spare, out);
    st = sc_mpi_agree(c, st, UINT64_MAX);
    if (st == SC_OK) {
        /* spare holds the send buffer, then own the received records after
         * the kept ones (own's capacity grows to what it ends with) */
        int *at = sc_mpi_alloc(c, (size_t)p * sizeof *at);
        st = at ? sc_mpi_reserve(c, own, own->count > in ? own->count : in) : SC_ERR_OUT_OF_MEMORY;
        st = sc_mpi_agree(c, st, UINT64_MAX);
        if (st == SC_OK) {
            memcpy(at, c->displs, (size_t)p * sizeof *at);
            size_t k = 0; /* k <= i: the kept one's place is read already */
            for (size_t i = 0; i < own->count; i++)
                if (dest[i] == me)
                    own->at[k++] = own->at[i];
                else
                    c->spare.at[at[dest[i]]++] = own->at[i];
            sc_mpi_alltoallv(c->spare.at, c->counts, c->displs, c->record, own->at, c->rcounts,
                             c->rdispls, c->record, c->comm);
            own->count = in;
            for (int r = 0; r < p; r++)
                if (c->counts[r] > 0) {
                    c->stats.messages_sent++;
                    c->stats.bytes_sent += (uint64_t)c->counts[r] * sizeof(sc_mpi_record);
                }
        }
        sc_mpi_free(c, at);
    }
    return st;
}

sc_status sc_mpi_layout_rcb(sc_mpi_context *c) {
    size_t nodes = 2 * (size_t)c->ranks;
    cut *tree = sc_mpi_alloc(c, nodes * sizeof *tree);
    sc_status st = sc_mpi_agree(c, tree ? SC_OK : SC_ERR_OUT_OF_MEMORY, UINT64_MAX);
    sample *all = NULL;
    size_t n_all = 0;
    if (st == SC_OK)
        st = gather_samples(c, &all, &n_all);
    if (st == SC_OK) {
        memset(tree, 0, nodes * sizeof *tree);
        st = sc_mpi_agree(c, c->rank == 0 ? cut_samples(c, all, n_all, tree) : SC_OK, UINT64_MAX);
    }
    if (st == SC_OK) {
        sc_mpi_bcast(tree, (int)(2 * nodes), MPI_DOUBLE, 0, c->comm);
        /* The check takes no extent for spheres that move. Taking the
         * moved ones' in the owner search (each destination's, sent with
         * the counts) measured no faster than the ghost phase's own pass:
         * the updates to a box chosen by each sphere's owner wait on each
         * other (decision record 0007, ninth slice). */
        for (int k = 0; st == SC_OK && k < c->sets; k++)
            st = move(c, tree, &c->set[k].own);
    }
    sc_mpi_free(c, tree);
    sc_mpi_free(c, all);
    return st;
}
