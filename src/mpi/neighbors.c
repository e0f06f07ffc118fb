/* neighbors.c: CSR neighbour lists over ranks (docs/mpi.md, "Neighbour
 * lists"). The pipeline numbers every sphere in rank order (so an id names
 * its rank and row), searches on radii grown by the skin, and the rank
 * that decides each pair (rule 4) turns the pairs the list holds into
 * entries (row, column, value). The finish sends each entry to its row's
 * rank (with the caller's ids, first to its column's rank, which names the
 * column) and builds the CSR list that the fill copies out. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* ---- the search's callback ------------------------------------------------ */

/* Grows e to hold at least n entries, its content kept. */
static sc_status reserve_entries(const sc_mpi_context *c, sc_mpi_entries *e, size_t n) {
    if (n <= e->cap)
        return SC_OK;
    sc_mpi_entry *at = n <= SIZE_MAX / sizeof *at ? sc_mpi_alloc(c, n * sizeof *at) : NULL;
    if (!at)
        return SC_ERR_OUT_OF_MEMORY;
    if (e->count)
        memcpy(at, e->at, e->count * sizeof *at);
    sc_mpi_free(c, e->at);
    e->at = at;
    e->cap = n;
    return SC_OK;
}

static int push(sc_mpi_context *c, uint64_t row, uint64_t col, double value) {
    sc_mpi_entries *e = &c->entries;
    if (e->count == e->cap && reserve_entries(c, e, e->cap ? e->cap + e->cap / 2 : 4096) != SC_OK)
        return 0;
    e->at[e->count++] = (sc_mpi_entry){row, col, value};
    return 1;
}

int sc_mpi_keep_neighbors(const uint32_t *p, size_t count, void *user) {
    sc_mpi_context *c = user;
    const sc_nbr_spec *spec = c->query->nbr;
    const sc_mpi_record *at = c->set[0].local.at;
    /* With the caller's ids a half list's direction is known only where
     * both ids are: at the row's rank, which keeps one of the two. */
    int both = spec->full || c->query->ids[0] != NULL;
    for (size_t k = 0; k < count; k++) {
        size_t a = p[2 * k], b = p[2 * k + 1];
        if (!sc_mpi_decides(c, a, b))
            continue;
        /* spherecollide.h's list predicate on the caller's values */
        double d2 = sc_mpi_pair_d2(c, &at[a], &at[b]), sum = at[a].r + at[b].r;
        double s = sum + spec->skin;
        if (!(d2 <= s * s))
            continue;
        double value = spec->value == SC_NBR_OVERLAP    ? sum - sqrt(d2)
                       : spec->value == SC_NBR_DISTANCE ? sqrt(d2)
                                                        : 0.0;
        uint64_t lo = at[a].id < at[b].id ? at[a].id : at[b].id;
        uint64_t hi = at[a].id < at[b].id ? at[b].id : at[a].id;
        c->nbr_pairs++;
        if (!push(c, lo, hi, value) || (both && !push(c, hi, lo, value))) {
            c->nbr_status = SC_ERR_OUT_OF_MEMORY;
            return 1;
        }
    }
    return 0;
}

/* ---- the finish: entries to their rows' ranks ------------------------------ */

/* The rank whose rows hold internal id v: the last r with firsts[r] <= v
 * (ranks without spheres repeat their successor's first); firsts[ranks]
 * is never read. */
static int rank_of(const sc_mpi_context *c, uint64_t v) {
    int lo = 0, hi = c->ranks; /* firsts[lo] <= v < firsts[hi] */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (c->firsts[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Sends every entry to the rank of its row (by_col 0) or of its column
 * (by_col 1); c->entries becomes what this rank received. Collective. */
static sc_status send(sc_mpi_context *c, int by_col) {
    int p = c->ranks;
    sc_mpi_entries *e = &c->entries;
    memset(c->counts, 0, (size_t)p * sizeof(int));
    sc_status st = e->count <= INT_MAX ? SC_OK : SC_ERR_OUT_OF_MEMORY;
    for (size_t i = 0; st == SC_OK && i < e->count; i++)
        c->counts[rank_of(c, by_col ? e->at[i].col : e->at[i].row)]++;
    if (st == SC_OK)
        st = reserve_entries(c, &c->spare_entries, e->count);
    st = sc_mpi_agree(c, st, UINT64_MAX);
    if (st != SC_OK)
        return st;
    sc_mpi_alltoall(c->counts, 1, MPI_INT, c->rcounts, 1, MPI_INT, c->comm);
    size_t in = 0, out = 0;
    for (int r = 0; r < p; r++) {
        c->displs[r] = (int)out, out += (size_t)c->counts[r];
        c->rdispls[r] = (int)in, in += (size_t)c->rcounts[r];
    }
    int *next = sc_mpi_alloc(c, (size_t)p * sizeof *next);
    st = next && in <= INT_MAX ? SC_OK : SC_ERR_OUT_OF_MEMORY;
    st = sc_mpi_agree(c, st, UINT64_MAX);
    if (st == SC_OK) {
        memcpy(next, c->displs, (size_t)p * sizeof *next);
        sc_mpi_entry *packed = c->spare_entries.at;
        for (size_t i = 0; i < e->count; i++)
            packed[next[rank_of(c, by_col ? e->at[i].col : e->at[i].row)]++] = e->at[i];
        e->count = 0;
        st = reserve_entries(c, e, in);
        st = sc_mpi_agree(c, st, UINT64_MAX);
    }
    if (st == SC_OK) {
        sc_mpi_alltoallv(c->spare_entries.at, c->counts, c->displs, c->entry, e->at, c->rcounts,
                         c->rdispls, c->entry, c->comm);
        e->count = in;
        for (int r = 0; r < p; r++)
            if (r != c->rank && c->counts[r] > 0) {
                c->stats.messages_sent++;
                c->stats.bytes_sent += (uint64_t)c->counts[r] * sizeof(sc_mpi_entry);
            }
    }
    sc_mpi_free(c, next);
    return st;
}

static int by_column(const void *pa, const void *pb) {
    const sc_mpi_entry *a = pa, *b = pb;
    return a->col < b->col ? -1 : a->col > b->col;
}

/* The kept list's arrays for rows rows and m entries (grown, never
 * shrunk). */
static sc_status reserve_list(sc_mpi_context *c, size_t rows, size_t m) {
    sc_mpi_nbr_list *k = &c->kept;
    if (rows + 1 > k->rows_cap) {
        sc_mpi_free(c, k->offsets);
        k->rows_cap = 0;
        if (!(k->offsets = sc_mpi_alloc(c, (rows + 1) * sizeof *k->offsets)))
            return SC_ERR_OUT_OF_MEMORY;
        k->rows_cap = rows + 1;
    }
    if (m > k->entries_cap) {
        sc_mpi_free(c, k->cols);
        sc_mpi_free(c, k->values);
        k->entries_cap = 0;
        k->cols = sc_mpi_alloc(c, m * sizeof *k->cols);
        k->values = sc_mpi_alloc(c, m * sizeof *k->values);
        if (!k->cols || !k->values)
            return SC_ERR_OUT_OF_MEMORY;
        k->entries_cap = m;
    }
    return SC_OK;
}

/* The received entries (rows this rank's) as a CSR list, rows sorted by
 * column; with the caller's ids a half list keeps the larger columns. */
static sc_status build(sc_mpi_context *c, const sc_mpi_query *q) {
    const uint64_t *ids = q->ids[0];
    uint64_t first = c->firsts[c->rank];
    size_t rows = q->v[0]->count, m = 0;
    sc_mpi_entries *e = &c->entries;
    for (size_t i = 0; i < e->count; i++) { /* rows as local indices; the half rule */
        sc_mpi_entry x = e->at[i];
        x.row -= first;
        if (!q->nbr->full && ids && !(x.col > ids[x.row]))
            continue;
        e->at[m++] = x;
    }
    e->count = m;
    sc_status st = reserve_list(c, rows, m);
    st = sc_mpi_agree(c, st, UINT64_MAX);
    if (st != SC_OK)
        return st;
    sc_mpi_nbr_list *k = &c->kept;
    memset(k->offsets, 0, (rows + 1) * sizeof *k->offsets);
    for (size_t i = 0; i < m; i++)
        k->offsets[e->at[i].row + 1]++;
    for (size_t r = 0; r < rows; r++)
        k->offsets[r + 1] += k->offsets[r];
    /* place by row (spare as the rows' order), then sort each row */
    st = reserve_entries(c, &c->spare_entries, m);
    st = sc_mpi_agree(c, st, UINT64_MAX);
    if (st != SC_OK)
        return st;
    sc_mpi_entry *placed = c->spare_entries.at;
    for (size_t i = 0; i < m; i++) /* the offsets as cursors, restored below */
        placed[k->offsets[e->at[i].row]++] = e->at[i];
    for (size_t r = rows; r > 0; r--) /* each offset advanced to its row's end */
        k->offsets[r] = k->offsets[r - 1];
    k->offsets[0] = 0;
    for (size_t r = 0; r < rows; r++) {
        sc_mpi_entry *row = placed + k->offsets[r];
        size_t len = (size_t)(k->offsets[r + 1] - k->offsets[r]);
        if (len > 16) {
            qsort(row, len, sizeof *row, by_column);
        } else {
            for (size_t i = 1; i < len; i++) {
                sc_mpi_entry x = row[i];
                size_t j = i;
                for (; j > 0 && row[j - 1].col > x.col; j--)
                    row[j] = row[j - 1];
                row[j] = x;
            }
        }
    }
    for (size_t i = 0; i < m; i++) {
        k->cols[i] = placed[i].col;
        k->values[i] = placed[i].value;
    }
    k->rows = rows;
    k->spec = *q->nbr;
    k->valid = 1;
    return SC_OK;
}

sc_status sc_mpi_neighbors_finish(sc_mpi_context *c, const sc_mpi_query *q) {
    const uint64_t *ids = q->ids[0];
    sc_status st = SC_OK;
    if (ids) { /* the column's rank names it with the caller's id */
        st = send(c, 1);
        uint64_t first = c->firsts[c->rank];
        for (size_t i = 0; st == SC_OK && i < c->entries.count; i++)
            c->entries.at[i].col = ids[c->entries.at[i].col - first];
    }
    if (st == SC_OK)
        st = send(c, 0);
    if (st == SC_OK)
        st = build(c, q);
    return st;
}

void sc_mpi_neighbors_release(sc_mpi_context *c) {
    sc_mpi_free(c, c->entries.at);
    sc_mpi_free(c, c->spare_entries.at);
    sc_mpi_free(c, c->grown);
    sc_mpi_free(c, c->kept.offsets);
    sc_mpi_free(c, c->kept.cols);
    sc_mpi_free(c, c->kept.values);
}

/* ---- the calls ------------------------------------------------------------- */

static int spec_ok(const sc_nbr_spec *s) {
    return s && (s->full == 0 || s->full == 1) && s->skin >= 0.0 && s->skin <= SC_MAX_ABS_VALUE &&
           (s->value == SC_NBR_NONE || s->value == SC_NBR_OVERLAP || s->value == SC_NBR_DISTANCE);
}

/* The arguments every rank must get right, and the same spec on every
 * rank; an agreed status. */
static sc_status arguments(sc_mpi_context *c, const sc_spheres *local, const sc_nbr_spec *spec,
                           int ok) {
    c->message[0] = '\0';
    ok = ok && local && spec_ok(spec);
    double mine[6] = {0, 0, 0, 0, 0, 0}, all[6];
    if (ok) {
        double v[3] = {spec->skin, (double)spec->full, (double)spec->value};
        for (int k = 0; k < 3; k++)
            mine[k] = v[k], mine[3 + k] = -v[k];
    }
    int bad = !ok, any_bad = 0;
    sc_mpi_allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, c->comm);
    sc_mpi_allreduce(mine, all, 6, MPI_DOUBLE, MPI_MAX, c->comm);
    int same = !any_bad && all[0] == -all[3] && all[1] == -all[4] && all[2] == -all[5];
    return sc_mpi_agree(c, same ? SC_OK : SC_ERR_INVALID_ARGUMENT, UINT64_MAX);
}

sc_status sc_mpi_neighbors_count(sc_mpi_context *ctx, const sc_spheres *local, const uint64_t *ids,
                                 const sc_nbr_spec *spec, uint64_t *offsets) {
    if (!ctx)
        return SC_ERR_INVALID_ARGUMENT;
    sc_status st = arguments(ctx, local, spec, offsets != NULL);
    if (st != SC_OK)
        return st;
    sc_mpi_query q = {.sets = 1, .v = {local}, .ids = {ids}, .nbr = spec};
    st = sc_mpi_enter(ctx, &q, NULL, NULL);
    if (st == SC_OK)
        memcpy(offsets, ctx->kept.offsets, (local->count + 1) * sizeof *offsets);
    return st;
}

sc_status sc_mpi_neighbors_fill(sc_mpi_context *ctx, const sc_spheres *local, const uint64_t *ids,
                                const sc_nbr_spec *spec, const uint64_t *offsets,
                                uint64_t *neighbors, double *values) {
    if (!ctx)
        return SC_ERR_INVALID_ARGUMENT;
    int ok = offsets && local;
    if (ok && offsets[local->count] > 0)
        ok = neighbors && (spec && spec->value != SC_NBR_NONE ? values != NULL : 1);
    sc_status st = arguments(ctx, local, spec, ok);
    if (st != SC_OK)
        return st;
    /* The list the count just kept, if every rank has it; else search. */
    const sc_mpi_nbr_list *k = &ctx->kept;
    int ready = k->valid && k->rows == local->count && k->spec.full == spec->full &&
                k->spec.skin == spec->skin && k->spec.value == spec->value,
        all_ready = 0;
    sc_mpi_allreduce(&ready, &all_ready, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (!all_ready) {
        sc_mpi_query q = {.sets = 1, .v = {local}, .ids = {ids}, .nbr = spec};
        st = sc_mpi_enter(ctx, &q, NULL, NULL);
        if (st != SC_OK)
            return st;
    }
    size_t rows = local->count;
    int match = memcmp(offsets, k->offsets, (rows + 1) * sizeof *offsets) == 0;
    st = sc_mpi_agree(ctx, match ? SC_OK : SC_ERR_INVALID_ARGUMENT, UINT64_MAX);
    if (st != SC_OK)
        return st;
    size_t m = (size_t)offsets[rows];
    if (m)
        memcpy(neighbors, k->cols, m * sizeof *neighbors);
    if (m && spec->value != SC_NBR_NONE)
        memcpy(values, k->values, m * sizeof *values);
    return SC_OK;
}
