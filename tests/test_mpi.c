/* test_mpi.c: the distributed pair search against one process's answer.
 * Run under mpirun with any number of ranks (tests/mpi.cmake: 1, 2, 3, 4,
 * 5 and 8, oversubscribed). Every rank generates the whole set, takes its
 * share (a block of rows, a random assignment, or everything on one rank),
 * and checks the distributed count, checksum and, gathered on rank 0, the
 * whole pair set against the core library's on the whole set. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sc_gen.h"
#include "spherecollide_mpi.h"

static int rank, ranks;

/* compare() checks the fill calls too (off for most of the generators'
 * variants, which the stream already covers, to keep the suite short) */
static int fill_checks = 1;

/* The box of the group running now (periodic: test_periodic), used by the
 * reference and by context(). */
static sc_box box;

/* ---- the whole set and one rank's share ----------------------------------- */

typedef struct set {
    size_t n;
    int dims, f32;
    double *d; /* rows x, y, z, r (double) */
    float *f;  /* the same as float, when f32 */
} set;

static set make(const char *dist, size_t n, uint64_t seed, int dims, int f32) {
    set s = {n, dims, f32, calloc(4 * n + 4, sizeof(double)), NULL};
    sc_gen_generate(dist, n, seed, s.d);
    if (dims == 2)
        for (size_t i = 0; i < n; i++)
            s.d[4 * i + 2] = 0;
    if (f32) {
        s.f = calloc(4 * n + 4, sizeof(float));
        for (size_t i = 0; i < 4 * n; i++) {
            s.f[i] = (float)s.d[i];
            s.d[i] = s.f[i];
        }
    }
    return s;
}

static void drop(set *s) {
    free(s->d);
    free(s->f);
}

/* A view of rows rows[0, n) of the set (x, y, z, r, stride 4 values). */
static sc_spheres view_rows(const set *s, size_t first, size_t n) {
    sc_spheres v;
    if (s->f32) {
        const float *b = s->f + 4 * first;
        v = (sc_spheres){n, SC_F32, 4 * sizeof(float), b, b + 1, b + 2, b + 3, 0};
    } else {
        const double *b = s->d + 4 * first;
        v = (sc_spheres){n, SC_F64, 4 * sizeof(double), b, b + 1, b + 2, b + 3, 0};
    }
    if (s->dims == 2)
        v.z = NULL;
    return v;
}

/* How the spheres are spread over ranks. */
typedef enum share { BLOCKS, RANDOM, ONE_RANK, SLABS } share;

/* SLABS: the set's extent on x cut into `ranks` equal slabs, rank k's the
 * k-th, every boundary moved down by slab_shift of the extent. */
static double slab_shift;

/* This rank's rows, copied (with their ids) into *mine. */
typedef struct part {
    set mine;
    uint64_t *ids;
    size_t *rows; /* each sphere's row in the whole set */
} part;

static uint64_t mix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int rank_of(share how, size_t i, size_t n, uint64_t seed) {
    if (how == ONE_RANK)
        return ranks - 1;
    if (how == RANDOM)
        return (int)(mix(seed ^ (i * 0x100000001b3ull)) % (uint64_t)ranks);
    return (int)((uint64_t)i * (uint64_t)ranks / (n ? n : 1));
}

/* ids: NULL (rows), or the row's id through `id_of` */
static part take(const set *s, share how, uint64_t seed, uint64_t (*id_of)(size_t)) {
    part p = {{0, s->dims, s->f32, calloc(4 * s->n + 4, sizeof(double)), NULL},
              calloc(s->n + 1, sizeof(uint64_t)),
              calloc(s->n + 1, sizeof(size_t))};
    if (s->f32)
        p.mine.f = calloc(4 * s->n + 4, sizeof(float));
    double lo = s->n ? s->d[0] : 0, hi = lo;
    for (size_t i = 0; i < s->n; i++)
        lo = s->d[4 * i] < lo ? s->d[4 * i] : lo, hi = s->d[4 * i] > hi ? s->d[4 * i] : hi;
    for (size_t i = 0; i < s->n; i++) {
        int owner = rank_of(how, i, s->n, seed);
        if (how == SLABS) {
            double t = ((s->d[4 * i] - lo) / (hi - lo) + slab_shift) * ranks;
            owner = t < 0 ? 0 : t >= ranks ? ranks - 1 : (int)t;
        }
        if (owner != rank)
            continue;
        size_t k = p.mine.n++;
        memcpy(p.mine.d + 4 * k, s->d + 4 * i, 4 * sizeof(double));
        if (s->f32)
            memcpy(p.mine.f + 4 * k, s->f + 4 * i, 4 * sizeof(float));
        p.ids[k] = id_of ? id_of(i) : i;
        p.rows[k] = i;
    }
    return p;
}

static void drop_part(part *p) {
    drop(&p->mine);
    free(p->ids);
    free(p->rows);
}

/* ---- the reference ---------------------------------------------------------- */

static int by_pair(const void *pa, const void *pb) {
    const uint64_t *a = pa, *b = pb;
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* One process on one thread, in the group's box. */
static sc_context *reference_context(void) {
    sc_options o = sc_options_default();
    o.threads = 1;
    o.box = box;
    sc_context *ctx = NULL;
    sc_context_create(&o, &ctx);
    return ctx;
}

/* One process's pairs on the whole set, as sorted global-id pairs. */
static uint64_t *reference(const set *s, uint64_t (*id_of)(size_t), size_t *count,
                           sc_summary *sum) {
    sc_context *ctx = reference_context();
    sc_spheres v = view_rows(s, 0, s->n);
    size_t need = 0;
    sc_fill_pairs(ctx, &v, NULL, 0, &need, NULL);
    uint32_t *p32 = malloc(2 * need * sizeof *p32 + 8);
    sc_fill_pairs(ctx, &v, p32, need, &need, NULL);
    sc_context_destroy(ctx);
    uint64_t *p = malloc(2 * need * sizeof *p + 16);
    sum->pairs = need;
    sum->checksum = 0;
    for (size_t k = 0; k < need; k++) {
        uint64_t a = id_of ? id_of(p32[2 * k]) : p32[2 * k];
        uint64_t b = id_of ? id_of(p32[2 * k + 1]) : p32[2 * k + 1];
        p[2 * k] = a < b ? a : b;
        p[2 * k + 1] = a < b ? b : a;
        sum->checksum += sc_mpi_pair_mix(p[2 * k], p[2 * k + 1]);
    }
    free(p32);
    qsort(p, need, 2 * sizeof *p, by_pair);
    *count = need;
    return p;
}

/* ---- the distributed run ------------------------------------------------------ */

typedef struct collected {
    uint64_t *at;
    size_t count, cap;
    int stop_after; /* > 0: stop at that chunk (this rank only) */
    int chunks;
} collected;

static int collect(const uint64_t *pairs, size_t count, void *user) {
    collected *c = user;
    if (c->count + count > c->cap) {
        c->cap = 2 * (c->count + count);
        c->at = realloc(c->at, 2 * c->cap * sizeof *c->at);
    }
    memcpy(c->at + 2 * c->count, pairs, 2 * count * sizeof *pairs);
    c->count += count;
    return c->stop_after > 0 && ++c->chunks >= c->stop_after;
}

/* Gathers every rank's pairs on rank 0, sorted; NULL elsewhere. */
static uint64_t *gather(const collected *c, MPI_Comm comm, size_t *total) {
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    int mine = (int)(2 * c->count), *counts = calloc((size_t)p, sizeof(int)),
        *displs = calloc((size_t)p, sizeof(int));
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    size_t sum = 0;
    for (int k = 0; k < p; k++)
        displs[k] = (int)sum, sum += (size_t)counts[k];
    uint64_t *all = r == 0 ? malloc(sum * sizeof *all + 16) : NULL;
    MPI_Gatherv(c->at, mine, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0, comm);
    free(counts);
    free(displs);
    if (all)
        qsort(all, sum / 2, 2 * sizeof *all, by_pair);
    *total = sum / 2;
    return all;
}

/* Every rank's streamed pairs, gathered and sorted on rank 0, are the
 * reference's rp[0, nref). */
static void check_gathered(const char *what, const collected *c, const uint64_t *rp, size_t nref) {
    size_t total;
    uint64_t *all = gather(c, MPI_COMM_WORLD, &total);
    if (rank == 0)
        CHECK(total == nref && memcmp(all, rp, 2 * nref * sizeof *rp) == 0,
              "%s: gathered %zu pairs, one process %zu (or they differ)", what, total, nref);
    free(all);
}

/* sc_mpi_fill_pairs (b NULL) or sc_mpi_fill_between: a size query, a
 * buffer one pair short on the last rank with pairs (every rank
 * SC_ERR_BUFFER_TOO_SMALL, totals kept), then the whole fill, which holds
 * exactly the pairs this rank streamed (c), in the stream's order. */
static void check_fill(const char *what, sc_mpi_context *ctx, const sc_spheres *a,
                       const uint64_t *ids_a, const sc_spheres *b, const uint64_t *ids_b,
                       const collected *c, const sc_summary *ref) {
#define FILL(buf, cap, need, sum)                                                                  \
    (b ? sc_mpi_fill_between(ctx, a, ids_a, b, ids_b, buf, cap, need, sum)                         \
       : sc_mpi_fill_pairs(ctx, a, ids_a, buf, cap, need, sum))
    size_t need = 7;
    sc_summary sum = {0};
    sc_status st = FILL(NULL, 0, &need, &sum);
    int any = 0, mine = need > 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(st == (any ? SC_ERR_BUFFER_TOO_SMALL : SC_OK) && need == c->count &&
              sum.pairs == ref->pairs && sum.checksum == ref->checksum,
          "%s: fill size query %d, needed %zu, streamed %zu", what, (int)st, need, c->count);
    uint64_t *buf = malloc(2 * (need + 1) * sizeof *buf);
    /* the last rank that has pairs gets one pair too few */
    int last = need > 0 ? rank : -1, short_rank = -1;
    MPI_Allreduce(&last, &short_rank, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (short_rank >= 0) {
        size_t cap = rank == short_rank ? need - 1 : need;
        st = FILL(buf, cap, &need, &sum);
        CHECK(st == SC_ERR_BUFFER_TOO_SMALL && need == c->count && sum.pairs == ref->pairs,
              "%s: a short buffer on rank %d: %d", what, short_rank, (int)st);
    }
    buf[2 * need] = buf[2 * need + 1] = 0xAB;
    st = FILL(buf, need, &need, &sum);
    CHECK(st == SC_OK && need == c->count && sum.pairs == ref->pairs &&
              sum.checksum == ref->checksum &&
              (need == 0 || memcmp(buf, c->at, 2 * need * sizeof *buf) == 0) &&
              buf[2 * need] == 0xAB,
          "%s: fill %d, %zu pairs, or not the stream's", what, (int)st, need);
    free(buf);
#undef FILL
}

/* Runs count and stream on this rank's part and checks them against the
 * reference (the pair set for n <= full_below). */
static void compare(const char *what, sc_mpi_context *ctx, const set *whole, const part *p,
                    int pass_ids, uint64_t (*id_of)(size_t)) {
    size_t nref;
    sc_summary ref;
    uint64_t *rp = reference(whole, id_of, &nref, &ref);
    sc_spheres v = view_rows(&p->mine, 0, p->mine.n);
    sc_summary got = {1, 1};
    sc_status st = sc_mpi_count_pairs(ctx, &v, pass_ids ? p->ids : NULL, &got);
    CHECK(st == SC_OK, "%s: count status %d (%s)", what, (int)st, sc_mpi_message(ctx));
    CHECK(got.pairs == ref.pairs && got.checksum == ref.checksum,
          "%s (rank %d of %d): count %llu/%016llx, one process %llu/%016llx", what, rank, ranks,
          (unsigned long long)got.pairs, (unsigned long long)got.checksum,
          (unsigned long long)ref.pairs, (unsigned long long)ref.checksum);
    collected c = {0};
    sc_summary streamed = {0};
    st = sc_mpi_stream_pairs(ctx, &v, pass_ids ? p->ids : NULL, collect, &c, &streamed);
    CHECK(st == SC_OK && streamed.pairs == ref.pairs && streamed.checksum == ref.checksum,
          "%s: stream status %d, %llu pairs", what, (int)st, (unsigned long long)streamed.pairs);
    sc_mpi_stats stats = {.size = sizeof stats};
    CHECK(sc_mpi_stats_get(ctx, &stats) == SC_OK && stats.pairs == c.count &&
              stats.found >= stats.pairs,
          "%s: stats pairs %llu, streamed here %zu", what, (unsigned long long)stats.pairs,
          c.count);
    check_gathered(what, &c, rp, nref);
    if (fill_checks)
        check_fill(what, ctx, &v, pass_ids ? p->ids : NULL, NULL, NULL, &c, &ref);
    free(c.at);
    free(rp);
}

static sc_mpi_context *context(sc_mpi_layout layout, size_t giants) {
    sc_mpi_options o = sc_mpi_options_default();
    o.layout = layout;
    o.giants = giants;
    o.search.threads = 1;
    o.search.box = box;
    o.sample = 512;
    sc_mpi_context *ctx = NULL;
    sc_status st = sc_mpi_context_create(MPI_COMM_WORLD, &o, &ctx);
    CHECK(st == SC_OK && ctx, "context: status %d", (int)st);
    return ctx;
}

/* ---- groups ----------------------------------------------------------------- */

/* Every generator, 2-D and 3-D, float and double, both layouts, blocks of
 * rows and a random assignment. */
static void test_generators(void) {
    const char *const *names = sc_gen_names();
    sc_mpi_context *rcb = context(SC_MPI_LAYOUT_RCB, 1024);
    sc_mpi_context *own = context(SC_MPI_LAYOUT_CALLER, 1024);
    sc_mpi_options o = sc_mpi_options_default(); /* RCB on counts: 2-D variants */
    o.weight = SC_MPI_WEIGHT_COUNT;
    o.search.threads = 1;
    o.sample = 512;
    sc_mpi_context *counted = NULL;
    CHECK(sc_mpi_context_create(MPI_COMM_WORLD, &o, &counted) == SC_OK, "context on counts");
    for (int g = 0; names[g]; g++) {
        size_t n = strcmp(names[g], "dense") == 0 ? 1500 : 4000;
        for (int variant = 0; variant < 4; variant++) {
            int dims = variant & 1 ? 2 : 3, f32 = variant & 2 ? 1 : 0;
            set s = make(names[g], n, 7 + (uint64_t)variant, dims, f32);
            fill_checks = variant == 0;
            for (int how = BLOCKS; how <= RANDOM; how++) {
                part p = take(&s, (share)how, 11 + (uint64_t)g, NULL);
                char what[128];
                snprintf(what, sizeof what, "%s %dD %s %s", names[g], dims, f32 ? "f32" : "f64",
                         how == BLOCKS ? "blocks" : "random");
                char a[160], b[160];
                snprintf(a, sizeof a, "%s rcb %s", what, dims == 2 ? "counts" : "costs");
                snprintf(b, sizeof b, "%s caller", what);
                compare(a, dims == 2 ? counted : rcb, &s, &p, how == RANDOM, NULL);
                compare(b, own, &s, &p, how == RANDOM, NULL);
                drop_part(&p);
            }
            drop(&s);
        }
    }
    fill_checks = 1;
    /* Every sphere a sample of weight 1: the count-weighted cuts split the
     * spheres themselves, so each rank owns n / ranks up to one sphere a
     * level of the cut tree (a wrong descent to the owner leaves a rank
     * empty or doubled). */
    o.sample = 1 << 16;
    sc_mpi_context *exact = NULL;
    CHECK(sc_mpi_context_create(MPI_COMM_WORLD, &o, &exact) == SC_OK, "context, every sample");
    set s = make("uniform", 4000, 5, 3, 0);
    part p = take(&s, RANDOM, 3, NULL);
    compare("uniform exact counts", exact, &s, &p, 1, NULL);
    sc_mpi_stats stats = {.size = sizeof stats};
    CHECK(sc_mpi_stats_get(exact, &stats) == SC_OK, "stats");
    double fair = 4000.0 / ranks, off = (double)stats.owned - fair;
    CHECK(off <= ranks && off >= -ranks, "rank %d owns %llu of 4000 spheres, its share %.1f", rank,
          (unsigned long long)stats.owned, fair);
    /* The halo of a region that holds the moved spheres (their own box):
     * far from all the others' spheres. A region taken before the move (the
     * spheres in random order span the whole set) would still be exact,
     * but would take in every other rank's spheres. */
    CHECK(2 * stats.ghosts <= 4000 - stats.owned,
          "rank %d received %llu ghosts of the others' %llu spheres", rank,
          (unsigned long long)stats.ghosts, (unsigned long long)(4000 - stats.owned));
    drop_part(&p);
    drop(&s);
    sc_mpi_context_destroy(exact);
    sc_mpi_context_destroy(counted);
    sc_mpi_context_destroy(rcb);
    sc_mpi_context_destroy(own);
}

static uint64_t wide_id(size_t i) {
    return ((uint64_t)i << 33) + 0x5DEECE66Dull * (i & 7);
}

/* Ids past 2^32 (the checksum's 64-bit mix) and ids given as rows. */
static void test_ids(void) {
    sc_mpi_context *ctx = context(SC_MPI_LAYOUT_RCB, 1024);
    set s = make("clustered", 3000, 5, 3, 0);
    part p = take(&s, RANDOM, 3, wide_id);
    compare("ids past 2^32", ctx, &s, &p, 1, wide_id);
    drop_part(&p);
    p = take(&s, BLOCKS, 3, NULL);
    compare("rows as ids", ctx, &s, &p, 1, NULL);
    compare("rows numbered by the library", ctx, &s, &p, 0, NULL);
    drop_part(&p);
    drop(&s);
    CHECK(sc_mpi_pair_mix(0, 1) == sc_pair_mix(0, 1) &&
              sc_mpi_pair_mix(0xFFFFFFFFull, 7) == sc_pair_mix(0xFFFFFFFFu, 7),
          "the mix below 2^32 is sc_pair_mix");
    sc_mpi_context_destroy(ctx);
}

/* Giants: heavy-tailed radii with few and no giants allowed, one sphere
 * larger than the whole domain, all centres identical. */
static void test_giants(void) {
    size_t limits[3] = {0, 4, 1024};
    for (int l = 0; l < 3; l++)
        for (int layout = 0; layout < 2; layout++) {
            sc_mpi_context *ctx = context((sc_mpi_layout)layout, limits[l]);
            set s = make("heavytail", 4000, 9, 3, 0);
            s.d[4 * 17 + 3] = 1e6; /* larger than the domain */
            part p = take(&s, layout ? RANDOM : BLOCKS, 5, NULL);
            compare("heavytail with a giant", ctx, &s, &p, layout != 0, NULL);
            drop_part(&p);
            drop(&s);
            s = make("heavytail", 500, 9, 3, 0);
            for (size_t i = 0; i < s.n; i++)
                s.d[4 * i] = s.d[4 * i + 1] = s.d[4 * i + 2] = 0.5;
            p = take(&s, BLOCKS, 5, NULL);
            compare("identical centres", ctx, &s, &p, 0, NULL);
            drop_part(&p);
            drop(&s);
            sc_mpi_context_destroy(ctx);
        }
}

static void extent(const set *s, double *lo, double *hi);

/* compare() with the layout's name before the case's. */
static void hint_compare(const char *layout, const char *label, sc_mpi_context *ctx, const set *s,
                         const part *p) {
    char what[128];
    snprintf(what, sizeof what, "%s: %s", layout, label);
    compare(what, ctx, s, p, 1, NULL);
}

/* The routing's hint (docs/mpi.md, "Routing"): a call's first pass over
 * its owned records (the check's copy in the caller's layout, the ghost
 * phase's extent under RCB) copies aside the spheres that may be ghosts
 * by the last call's regions. Five generators in slabs (compare's later
 * calls take the hint), then calls that break each premise of the hint
 * after a call in slabs: a sphere deep in slab 0 grows past its slab (a
 * radius above the hint's bound for this rank's spheres), the boundaries
 * move by half a slab (the regions cross the hint's planes), and the radii
 * past slab 0 grow sixteenfold (the other regions' radii pass their
 * bounds). In the caller's layout and under RCB (whose move ignores the
 * slabs; its cuts move with the data). */
static void hint_cases(sc_mpi_layout layout) {
    const char *name = layout == SC_MPI_LAYOUT_RCB ? "rcb" : "caller";
    const char *const dists[] = {"uniform", "clustered", "heavytail", "powerlaw", "sparse"};
    sc_mpi_context *ctx = context(layout, 1024);
    for (int d = 0; d < 5; d++)
        for (int dims = 3; dims >= 2; dims--) {
            set s = make(dists[d], 4000, 21, dims, 0);
            part p = take(&s, SLABS, 0, NULL);
            char what[96];
            snprintf(what, sizeof what, "%s: %s %dD in slabs", name, dists[d], dims);
            compare(what, ctx, &s, &p, 1, NULL);
            drop_part(&p);
            drop(&s);
        }
    /* a quarter of the generator's radii, so each premise's break moves
     * spheres farther than the hint's distance from its planes */
    set s = make("uniform", 30000, 23, 3, 0);
    for (size_t i = 0; i < s.n; i++)
        s.d[4 * i + 3] *= 0.25;
    part p = take(&s, SLABS, 0, NULL);
    hint_compare(name, "uniform in slabs", ctx, &s, &p);
    drop_part(&p);
    /* the sphere of slab 0 nearest its middle, a radius of 0.3 of the
     * extent: past its slab, below the giants' floor (half a slab's side) */
    double lo, hi;
    extent(&s, &lo, &hi);
    size_t big = 0;
    double mid = lo + (hi - lo) / (2.0 * ranks);
    for (size_t i = 1; i < s.n; i++)
        big = fabs(s.d[4 * i] - mid) < fabs(s.d[4 * big] - mid) ? i : big;
    double r = s.d[4 * big + 3];
    s.d[4 * big + 3] = 0.3 * (hi - lo);
    p = take(&s, SLABS, 0, NULL);
    hint_compare(name, "a sphere deep in slab 0 grows", ctx, &s, &p);
    drop_part(&p);
    s.d[4 * big + 3] = r;
    p = take(&s, SLABS, 0, NULL);
    hint_compare(name, "uniform in slabs again", ctx, &s, &p);
    drop_part(&p);
    slab_shift = -0.5 / ranks;
    p = take(&s, SLABS, 0, NULL);
    hint_compare(name, "the slabs' boundaries move down", ctx, &s, &p);
    drop_part(&p);
    slab_shift = 0;
    set t = make("uniform", 30000, 23, 3, 0), q = make("uniform", 30000, 23, 3, 0);
    for (size_t i = 0; i < q.n; i++)
        q.d[4 * i + 3] *= (q.d[4 * i] - lo) / (hi - lo) * ranks >= 1 ? 0.0625 : 1;
    p = take(&q, SLABS, 0, NULL);
    hint_compare(name, "radii a sixteenth past slab 0", ctx, &q, &p);
    drop_part(&p);
    p = take(&t, SLABS, 0, NULL);
    hint_compare(name, "radii past slab 0 grow sixteenfold", ctx, &t, &p);
    drop_part(&p);
    drop(&q);
    drop(&t);
    drop(&s);
    sc_mpi_context_destroy(ctx);
}

static void test_hint(void) {
    hint_cases(SC_MPI_LAYOUT_CALLER);
    hint_cases(SC_MPI_LAYOUT_RCB);
}

/* Fewer spheres than ranks, everything on one rank, the extremes of double. */
static void test_small(void) {
    for (int layout = 0; layout < 2; layout++) {
        sc_mpi_context *ctx = context((sc_mpi_layout)layout, 1024);
        size_t sizes[4] = {0, 1, 3, 2000};
        for (int k = 0; k < 4; k++) {
            set s = make("uniform", sizes[k], 3, 3, 0);
            part p = take(&s, BLOCKS, 1, NULL);
            compare("few spheres", ctx, &s, &p, 0, NULL);
            drop_part(&p);
            p = take(&s, ONE_RANK, 1, NULL);
            compare("all on one rank", ctx, &s, &p, 1, NULL);
            drop_part(&p);
            drop(&s);
        }
        /* subnormal gaps, huge coordinates, zero radii */
        set s = make("uniform", 64, 4, 3, 0);
        for (size_t i = 0; i < s.n; i++) {
            double base = i % 2 ? 9e149 : -9e149;
            s.d[4 * i] = i < 32 ? (double)(i % 4) * 4e-323 : base;
            s.d[4 * i + 1] = i < 32 ? 0 : base / 3;
            s.d[4 * i + 2] = 0;
            s.d[4 * i + 3] = i % 3 == 0 ? 0 : i < 32 ? 5e-324 : 4e149;
        }
        part p = take(&s, RANDOM, 2, NULL);
        compare("extremes of double", ctx, &s, &p, 1, NULL);
        drop_part(&p);
        drop(&s);
        sc_mpi_context_destroy(ctx);
    }
}

/* ---- boxes ---------------------------------------------------------------------- */

/* The box [lo, lo + L) on the given axes (others open). */
static sc_box make_box(int axes, double lo, double L) {
    sc_box b = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (int a = 0; a < 3; a++)
        if (axes & (1 << a)) {
            b.periodic[a] = 1;
            b.lo[a] = lo;
            b.hi[a] = lo + L;
        }
    return b;
}

/* The extent of the set's centres on axis 0 (generators fill a cube). */
static void extent(const set *s, double *lo, double *hi) {
    *lo = *hi = s->n ? s->d[0] : 0;
    for (size_t i = 0; i < s->n; i++)
        for (int a = 0; a < s->dims; a++) {
            double v = s->d[4 * i + a];
            *lo = v < *lo ? v : *lo;
            *hi = v > *hi ? v : *hi;
        }
}

/* ---- two sets ------------------------------------------------------------------ */

/* One process's pairs between the whole sets a and b, (a id, b id) sorted. */
static uint64_t *reference_between(const set *a, const set *b, size_t *count, sc_summary *sum) {
    sc_options o = sc_options_default();
    o.threads = 1;
    o.box = box;
    sc_context *ctx = NULL;
    sc_context_create(&o, &ctx);
    sc_spheres va = view_rows(a, 0, a->n), vb = view_rows(b, 0, b->n);
    size_t need = 0;
    sc_fill_between(ctx, &va, &vb, NULL, 0, &need, NULL);
    uint32_t *p32 = malloc(2 * need * sizeof *p32 + 8);
    sc_fill_between(ctx, &va, &vb, p32, need, &need, sum);
    sc_context_destroy(ctx);
    uint64_t *p = malloc(2 * need * sizeof *p + 16);
    for (size_t k = 0; k < 2 * need; k++)
        p[k] = p32[k];
    free(p32);
    qsort(p, need, 2 * sizeof *p, by_pair);
    *count = need;
    return p;
}

/* Count, stream (gathered) and fill between this rank's parts of a and b. */
static void compare_between(const char *what, sc_mpi_context *ctx, const set *a, const part *pa,
                            const set *b, const part *pb, int pass_ids) {
    size_t nref;
    sc_summary ref;
    uint64_t *rp = reference_between(a, b, &nref, &ref);
    sc_spheres va = view_rows(&pa->mine, 0, pa->mine.n), vb = view_rows(&pb->mine, 0, pb->mine.n);
    const uint64_t *ia = pass_ids ? pa->ids : NULL, *ib = pass_ids ? pb->ids : NULL;
    sc_summary got = {1, 1};
    sc_status st = sc_mpi_count_between(ctx, &va, ia, &vb, ib, &got);
    CHECK(st == SC_OK && got.pairs == ref.pairs && got.checksum == ref.checksum,
          "%s (rank %d of %d): %d, count %llu/%016llx, one process %llu/%016llx", what, rank, ranks,
          (int)st, (unsigned long long)got.pairs, (unsigned long long)got.checksum,
          (unsigned long long)ref.pairs, (unsigned long long)ref.checksum);
    collected c = {0};
    st = sc_mpi_stream_between(ctx, &va, ia, &vb, ib, collect, &c, &got);
    CHECK(st == SC_OK && got.pairs == ref.pairs && got.checksum == ref.checksum,
          "%s: stream %d, %llu pairs", what, (int)st, (unsigned long long)got.pairs);
    check_gathered(what, &c, rp, nref);
    check_fill(what, ctx, &va, ia, &vb, ib, &c, &ref);
    free(c.at);
    free(rp);
}

/* Two sets, each spread over the ranks: comparable sizes, a small a or a
 * small b, every shape of set, both layouts, a periodic box, heavy tails
 * with few and no giants, an empty a, b on one rank; a bad sphere in each
 * set on different ranks names a's. */
static void test_between(void) {
    static const struct {
        const char *da, *db;
        size_t na, nb;
        int dims, f32;
        size_t giants;
    } cases[] = {
        {"uniform", "uniform", 3000, 3000, 3, 0, 1024},
        {"clustered", "uniform", 300, 4000, 3, 1, 1024},
        {"uniform", "clustered", 4000, 200, 2, 0, 1024},
        {"heavytail", "uniform", 3000, 3000, 3, 0, 4},
        {"uniform", "heavytail", 3000, 3000, 3, 1, 0},
        {"powerlaw", "shell", 2000, 2000, 3, 0, 1024},
        {"sparse", "dense", 3000, 500, 3, 0, 1024},
        {"uniform", "uniform", 0, 3000, 3, 0, 1024},
        {"heavytail", "heavytail", 3000, 3000, 3, 0, 8},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (int layout = 0; layout < 2; layout++) {
            set a = make(cases[k].da, cases[k].na, 41 + k, cases[k].dims, cases[k].f32);
            set b = make(cases[k].db, cases[k].nb, 51 + k, cases[k].dims, cases[k].f32);
            part pa = take(&a, layout ? RANDOM : BLOCKS, 5 + k, NULL);
            part pb = take(&b, layout ? RANDOM : k == 2 ? ONE_RANK : BLOCKS, 9 + k, NULL);
            sc_mpi_context *ctx = context((sc_mpi_layout)layout, cases[k].giants);
            char what[128];
            snprintf(what, sizeof what, "between %s %zu, %s %zu, %dD %s %s", cases[k].da,
                     cases[k].na, cases[k].db, cases[k].nb, cases[k].dims,
                     cases[k].f32 ? "f32" : "f64", layout ? "caller random" : "rcb");
            compare_between(what, ctx, &a, &pa, &b, &pb, layout != 0);
            if (k == 0) { /* the same in a periodic box the centres overhang */
                double lo, hi;
                extent(&a, &lo, &hi);
                box = make_box(7, lo + 0.1 * (hi - lo), 0.8 * (hi - lo));
                sc_mpi_context *pctx = context((sc_mpi_layout)layout, cases[k].giants);
                compare_between("between in a periodic box", pctx, &a, &pa, &b, &pb, layout != 0);
                sc_mpi_context_destroy(pctx);
                box = (sc_box){{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
            }
            sc_mpi_context_destroy(ctx);
            drop_part(&pa);
            drop_part(&pb);
            drop(&a);
            drop(&b);
        }
    /* a NaN in b on rank 0 and in a on the last rank: a's is named */
    set a = make("uniform", 2000, 3, 3, 0), b = make("uniform", 2000, 4, 3, 0);
    part pa = take(&a, BLOCKS, 1, NULL), pb = take(&b, BLOCKS, 1, NULL);
    if (rank == 0 && pb.mine.n > 0)
        pb.mine.d[3] = NAN;
    if (rank == ranks - 1 && pa.mine.n > 1)
        pa.mine.d[4 + 3] = NAN;
    uint64_t bad = pa.mine.n > 1 ? pa.ids[1] : 0;
    MPI_Bcast(&bad, 1, MPI_UINT64_T, ranks - 1, MPI_COMM_WORLD);
    char expect[64];
    snprintf(expect, sizeof expect, "rank %d: sphere id %llu:", ranks - 1, (unsigned long long)bad);
    sc_mpi_context *ctx = context(SC_MPI_LAYOUT_RCB, 1024);
    sc_spheres va = view_rows(&pa.mine, 0, pa.mine.n), vb = view_rows(&pb.mine, 0, pb.mine.n);
    sc_summary sum = {1, 1};
    sc_status st = sc_mpi_count_between(ctx, &va, NULL, &vb, NULL, &sum);
    CHECK(st == SC_ERR_NON_FINITE && sum.pairs == 0 && strstr(sc_mpi_message(ctx), expect),
          "bad spheres in both sets: %d '%s', want '%s'", (int)st, sc_mpi_message(ctx), expect);
    /* 2-D a with 3-D b */
    vb = view_rows(&b, 0, 10);
    vb.z = NULL;
    va = view_rows(&a, 0, 10);
    st = sc_mpi_count_between(ctx, &va, NULL, &vb, NULL, &sum);
    CHECK(st == SC_ERR_INVALID_ARGUMENT, "a 3-D a with a 2-D b: %d", (int)st);
    sc_mpi_context_destroy(ctx);
    drop_part(&pa);
    drop_part(&pb);
    drop(&a);
    drop(&b);
}

/* ---- periodic boxes ------------------------------------------------------------ */

/* Periodic boxes: the centres' own box, a box the centres overhang (they
 * wrap), one periodic axis, a box smaller than twice a reach (spheres
 * meet across several faces and their own images), heavy tails with few
 * giants; a radius over the periodic limit on one rank. */
static void test_periodic(void) {
    static const struct {
        const char *dist;
        size_t n;
        int axes, dims;
        double shrink; /* box = [lo + shrink ext, hi - shrink ext) */
        double small;  /* > 0: a box of this side instead */
        size_t giants;
    } cases[] = {
        {"uniform", 4000, 7, 3, 0.0, 0, 1024},   {"uniform", 4000, 7, 3, 0.2, 0, 1024},
        {"clustered", 4000, 7, 3, 0.1, 0, 1024}, {"uniform", 3000, 1, 2, 0.1, 0, 1024},
        {"uniform", 3000, 3, 2, 0.0, 0, 1024},   {"uniform", 300, 7, 3, 0, 4.0, 1024},
        {"uniform", 200, 5, 3, 0, 2.5, 0},       {"heavytail", 4000, 7, 3, 0.05, 0, 4},
        {"heavytail", 4000, 7, 3, 0.05, 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (int f32 = 0; f32 < 2; f32++) {
            set s = make(cases[k].dist, cases[k].n, 31 + k, cases[k].dims, f32);
            double lo, hi;
            extent(&s, &lo, &hi);
            double ext = hi - lo, sh = cases[k].shrink;
            box = cases[k].small > 0 ? make_box(cases[k].axes, lo + 0.3 * ext, cases[k].small)
                                     : make_box(cases[k].axes, lo + sh * ext,
                                                (1 - 2 * sh) * ext + (sh == 0 ? 1e-9 : 0));
            for (int layout = 0; layout < 2; layout++) {
                sc_mpi_context *ctx = context((sc_mpi_layout)layout, cases[k].giants);
                part p = take(&s, layout ? RANDOM : BLOCKS, 3 + k, NULL);
                char what[128];
                snprintf(what, sizeof what, "periodic %s %zu axes %d %dD %s %s", cases[k].dist,
                         cases[k].n, cases[k].axes, cases[k].dims, f32 ? "f32" : "f64",
                         layout ? "caller random" : "rcb blocks");
                compare(what, ctx, &s, &p, layout != 0, NULL);
                drop_part(&p);
                sc_mpi_context_destroy(ctx);
            }
            drop(&s);
        }
    /* Rule 3's periodic margin at the last bits: two spheres across the
     * face of an x-periodic box, one on rank 0 and one on another, whose
     * pair the box's expression accepts while the reach test without the
     * margin (docs/mpi.md, "Periodic boxes") rejects it both ways. Found
     * by a search over random boxes. */
    static const double edge[3][6] = {
        {-345.8568942500108, 297.1049568680738, 297.10487549930843, -345.8566134632872,
         0.0002511007570388354, 0.00011105473188567561},
        {-292.394883131009, 674.5265138518164, 674.52579537489, -292.394577635128,
         0.0003507661588134578, 0.0006732066485949762},
        {-496.0183051217431, 402.3154184258728, 402.315249828294, -496.0180734044305,
         0.0002514217702616855, 0.00014889312105544967},
    };
    for (int k = 0; k < 3; k++) {
        const double *e = edge[k];
        box = make_box(1, e[0], e[1] - e[0]);
        set two = make("uniform", 2, 1, 3, 0);
        memset(two.d, 0, 8 * sizeof(double));
        two.d[0] = e[2], two.d[3] = e[4], two.d[4] = e[3], two.d[7] = e[5];
        size_t nref;
        sc_summary ref;
        free(reference(&two, NULL, &nref, &ref));
        CHECK(ref.pairs == 1, "edge case %d: the box's expression accepts the pair", k);
        sc_mpi_context *ctx = context(SC_MPI_LAYOUT_CALLER, 0); /* no giants */
        part p = take(&two, BLOCKS, 1, NULL);
        compare("the periodic margin at the last bits", ctx, &two, &p, 0, NULL);
        drop_part(&p);
        sc_mpi_context_destroy(ctx);
        drop(&two);
    }
    /* a radius over SC_MAX_ABS_VALUE / 2 on the last rank: named by id */
    box = make_box(7, 0, 100);
    set s = make("uniform", 500, 2, 3, 0);
    part p = take(&s, BLOCKS, 1, NULL);
    if (rank == ranks - 1 && p.mine.n > 2)
        p.mine.d[4 * 2 + 3] = 0.6 * SC_MAX_ABS_VALUE;
    sc_mpi_context *ctx = context(SC_MPI_LAYOUT_RCB, 1024);
    sc_spheres v = view_rows(&p.mine, 0, p.mine.n);
    sc_summary sum;
    sc_status st = sc_mpi_count_pairs(ctx, &v, NULL, &sum);
    uint64_t bad = p.mine.n > 2 ? p.ids[2] : 0;
    MPI_Bcast(&bad, 1, MPI_UINT64_T, ranks - 1, MPI_COMM_WORLD);
    char expect[64];
    snprintf(expect, sizeof expect, "sphere id %llu:", (unsigned long long)bad);
    CHECK(st == SC_ERR_OUT_OF_RANGE && strstr(sc_mpi_message(ctx), expect) &&
              strstr(sc_mpi_message(ctx), "5e149"),
          "a periodic radius over the limit: %d '%s'", (int)st, sc_mpi_message(ctx));
    sc_mpi_context_destroy(ctx);
    drop_part(&p);
    drop(&s);
    box = (sc_box){{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
}

/* ---- neighbour lists ------------------------------------------------------------- */

/* One process's full list on the whole set (sc_neighbors_*, the spec's
 * skin and value), for the reference rows. */
typedef struct ref_list {
    uint64_t *off;
    uint32_t *idx;
    double *val;
} ref_list;

static ref_list ref_neighbors(const set *s, const sc_nbr_spec *spec) {
    sc_context *ctx = reference_context();
    sc_spheres v = view_rows(s, 0, s->n);
    sc_nbr_spec full = *spec;
    full.full = 1;
    full.value = spec->value == SC_NBR_NONE ? SC_NBR_DISTANCE : spec->value;
    ref_list r = {calloc(s->n + 1, sizeof *r.off), NULL, NULL};
    sc_status st = sc_neighbors_count(ctx, &v, &full, r.off);
    r.idx = malloc(r.off[s->n] * sizeof *r.idx + 4);
    r.val = malloc(r.off[s->n] * sizeof *r.val + 8);
    if (st == SC_OK)
        st = sc_neighbors_fill(ctx, &v, &full, r.off, r.idx, r.val);
    CHECK(st == SC_OK, "reference list: %d", (int)st);
    sc_context_destroy(ctx);
    return r;
}

typedef struct nbr_entry {
    uint64_t id;
    double value;
} nbr_entry;

static int by_id(const void *pa, const void *pb) {
    const nbr_entry *a = pa, *b = pb;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* The distributed list on this rank's part against the reference rows:
 * row lengths, ids (sorted) and values bit for bit; then the fill's
 * failures (offsets of another list), a fill that searches again, and
 * the pair count against sc_mpi_count_pairs for skin 0. */
static void compare_list(const char *what, sc_mpi_context *ctx, const set *whole, const part *p,
                         int pass_ids, uint64_t (*id_of)(size_t), const sc_nbr_spec *spec) {
    ref_list r = ref_neighbors(whole, spec);
    sc_spheres v = view_rows(&p->mine, 0, p->mine.n);
    const uint64_t *ids = pass_ids ? p->ids : NULL;
    size_t n = p->mine.n;
    uint64_t *off = calloc(n + 1, sizeof *off);
    sc_status st = sc_mpi_neighbors_count(ctx, &v, ids, spec, off);
    CHECK(st == SC_OK, "%s: count %d (%s)", what, (int)st, sc_mpi_message(ctx));
    uint64_t m = off[n];
    uint64_t *nb = malloc(m * sizeof *nb + 8);
    double *val = malloc(m * sizeof *val + 8);
    st = sc_mpi_neighbors_fill(ctx, &v, ids, spec, off, nb, val);
    CHECK(st == SC_OK, "%s: fill %d (%s)", what, (int)st, sc_mpi_message(ctx));
    size_t bad = 0, rows_checked = 0;
    nbr_entry *want = malloc((whole->n + 1) * sizeof *want);
    for (size_t k = 0; st == SC_OK && k < n; k++) {
        size_t g = p->rows[k], w = 0;
        uint64_t me = id_of ? id_of(g) : g;
        for (uint64_t e = r.off[g]; e < r.off[g + 1]; e++) {
            uint64_t j = id_of ? id_of(r.idx[e]) : r.idx[e];
            if (spec->full || j > me)
                want[w++] = (nbr_entry){j, r.val[e]};
        }
        qsort(want, w, sizeof *want, by_id);
        int ok = off[k + 1] - off[k] == w;
        for (size_t i = 0; ok && i < w; i++) {
            ok = nb[off[k] + i] == want[i].id;
            if (ok && spec->value != SC_NBR_NONE)
                ok = memcmp(&val[off[k] + i], &want[i].value, sizeof(double)) == 0;
        }
        bad += !ok;
        rows_checked++;
    }
    CHECK(bad == 0, "%s (rank %d of %d): %zu of %zu rows differ from one process's", what, rank,
          ranks, bad, rows_checked);
    /* a half list with skin 0 holds each pair once: the pair count */
    uint64_t mine = m, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    uint64_t pairs = 0;
    for (size_t g = 0; g < whole->n; g++)
        pairs += r.off[g + 1] - r.off[g];
    CHECK(total == (spec->full ? pairs : pairs / 2), "%s: %llu entries over ranks, expected %llu",
          what, (unsigned long long)total, (unsigned long long)(spec->full ? pairs : pairs / 2));
    /* offsets of another list on one rank: every rank refuses, writes nothing */
    int last = n > 0 ? rank : -1, victim = -1;
    MPI_Allreduce(&last, &victim, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (victim >= 0) {
        if (rank == victim)
            off[n] += 1;
        uint64_t *guard = calloc(m + 2, sizeof *guard);
        st = sc_mpi_neighbors_fill(ctx, &v, ids, spec, off, guard, val);
        CHECK(st == SC_ERR_INVALID_ARGUMENT && (m == 0 || guard[0] == 0),
              "%s: offsets of another list on rank %d: %d", what, victim, (int)st);
        if (rank == victim)
            off[n] -= 1;
        free(guard);
    }
    /* a pair search in between: the fill searches again, same list */
    sc_summary sum;
    st = sc_mpi_count_pairs(ctx, &v, ids, &sum);
    uint64_t *again = malloc(m * sizeof *again + 8);
    sc_status st2 = sc_mpi_neighbors_fill(ctx, &v, ids, spec, off, again, val);
    CHECK(st == SC_OK && st2 == SC_OK && memcmp(again, nb, m * sizeof *nb) == 0,
          "%s: a fill after another call: %d %d", what, (int)st, (int)st2);
    if (spec->skin == 0)
        CHECK(sum.pairs == pairs / 2, "%s: the list's pairs %llu, the count's %llu", what,
              (unsigned long long)(pairs / 2), (unsigned long long)sum.pairs);
    free(again);
    free(want);
    free(off);
    free(nb);
    free(val);
    free(r.off);
    free(r.idx);
    free(r.val);
}

/* Neighbour lists: half and full, skins, values, both layouts, the
 * caller's ids and rows, 2-D and float32, a periodic box, heavy tails
 * with few giants, fewer spheres than ranks; bad specs and a grown
 * radius over the limit. */
static void test_neighbors(void) {
    static const struct {
        const char *dist;
        size_t n;
        int dims, f32, full;
        double skin;
        sc_nbr_value value;
        size_t giants;
        int periodic;
    } cases[] = {
        {"uniform", 3000, 3, 0, 0, 0.0, SC_NBR_NONE, 1024, 0},
        {"uniform", 3000, 3, 0, 1, 0.3, SC_NBR_OVERLAP, 1024, 0},
        {"clustered", 3000, 2, 1, 0, 0.2, SC_NBR_DISTANCE, 1024, 0},
        {"heavytail", 3000, 3, 0, 1, 0.0, SC_NBR_OVERLAP, 4, 0},
        {"heavytail", 3000, 3, 1, 0, 0.5, SC_NBR_DISTANCE, 0, 0},
        {"powerlaw", 2000, 3, 0, 0, 0.1, SC_NBR_OVERLAP, 1024, 0},
        {"uniform", 3000, 3, 0, 1, 0.25, SC_NBR_DISTANCE, 1024, 1},
        {"uniform", 3, 3, 0, 1, 0.5, SC_NBR_OVERLAP, 1024, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        set s = make(cases[k].dist, cases[k].n, 41 + k, cases[k].dims, cases[k].f32);
        if (cases[k].periodic) {
            double lo, hi;
            extent(&s, &lo, &hi);
            box = make_box(7, lo + 0.1 * (hi - lo), 0.8 * (hi - lo));
        }
        sc_nbr_spec spec = {cases[k].full, cases[k].skin, cases[k].value};
        for (int layout = 0; layout < 2; layout++) {
            sc_mpi_context *ctx = context((sc_mpi_layout)layout, cases[k].giants);
            uint64_t (*id_of)(size_t) = layout ? wide_id : NULL;
            part p = take(&s, layout ? RANDOM : BLOCKS, 5 + k, id_of);
            char what[160];
            snprintf(what, sizeof what, "list %s %zu %dD %s %s skin %g value %d %s%s",
                     cases[k].dist, cases[k].n, cases[k].dims, cases[k].f32 ? "f32" : "f64",
                     cases[k].full ? "full" : "half", cases[k].skin, (int)cases[k].value,
                     layout ? "caller random wide ids" : "rcb blocks rows",
                     cases[k].periodic ? " periodic" : "");
            compare_list(what, ctx, &s, &p, layout != 0, id_of, &spec);
            drop_part(&p);
            sc_mpi_context_destroy(ctx);
        }
        box = (sc_box){{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
        drop(&s);
    }
    /* a spec that differs on one rank, a bad spec, a grown radius over
     * the limit on the last rank (named by id) */
    set s = make("uniform", 500, 2, 3, 0);
    part p = take(&s, BLOCKS, 1, NULL);
    sc_mpi_context *ctx = context(SC_MPI_LAYOUT_RCB, 1024);
    sc_spheres v = view_rows(&p.mine, 0, p.mine.n);
    uint64_t *off = calloc(p.mine.n + 1, sizeof *off);
    sc_nbr_spec spec = {0, rank == ranks - 1 ? 0.5 : 0.25, SC_NBR_NONE};
    sc_status st = sc_mpi_neighbors_count(ctx, &v, NULL, &spec, off);
    CHECK(ranks == 1 || st == SC_ERR_INVALID_ARGUMENT, "skins differ over ranks: %d", (int)st);
    spec.skin = -1;
    CHECK(sc_mpi_neighbors_count(ctx, &v, NULL, &spec, off) == SC_ERR_INVALID_ARGUMENT,
          "a negative skin");
    spec.skin = 0.5 * SC_MAX_ABS_VALUE;
    if (rank == ranks - 1 && p.mine.n > 2)
        p.mine.d[4 * 2 + 3] = 0.75 * SC_MAX_ABS_VALUE;
    st = sc_mpi_neighbors_count(ctx, &v, NULL, &spec, off);
    uint64_t bad = p.mine.n > 2 ? p.ids[2] : 0;
    MPI_Bcast(&bad, 1, MPI_UINT64_T, ranks - 1, MPI_COMM_WORLD);
    char expect[64];
    snprintf(expect, sizeof expect, "sphere id %llu:", (unsigned long long)bad);
    CHECK(st == SC_ERR_OUT_OF_RANGE && strstr(sc_mpi_message(ctx), expect),
          "a grown radius over the limit: %d '%s'", (int)st, sc_mpi_message(ctx));
    free(off);
    sc_mpi_context_destroy(ctx);
    drop_part(&p);
    drop(&s);
}

/* ---- faults ------------------------------------------------------------------ */

/* An allocator hook that fails while armed and counts what is live: the
 * library's own leak check (ASan's is off under mpiexec, whose runtime
 * leaves its own allocations at exit). */
typedef struct failing {
    int armed; /* fail every allocation while set */
    int after; /* > 0: fail the after-th allocation from now, once */
    long live;
    size_t bytes; /* live bytes */
} failing;

/* Before each block, in the `head` bytes added for it: head, then size. */
static void *fail_alloc(size_t size, size_t alignment, void *user) {
    failing *f = user;
    size_t head = alignment < 16 ? 16 : alignment;
    void *p = NULL;
    if (f->armed || (f->after > 0 && --f->after == 0) || posix_memalign(&p, head, head + size) != 0)
        return NULL;
    f->live++;
    f->bytes += size;
    size_t *at = (size_t *)((char *)p + head);
    at[-2] = head;
    at[-1] = size;
    return at;
}

static void fail_free(void *p, void *user) {
    failing *f = user;
    const size_t *at = p;
    f->live--;
    f->bytes -= at[-1];
    free((char *)p - at[-2]);
}

static void test_faults(void) {
    set s = make("uniform", 3000, 8, 3, 0);
    sc_mpi_context *ctx = context(SC_MPI_LAYOUT_RCB, 1024);
    /* a NaN on the last rank only: every rank the same status and message */
    part p = take(&s, BLOCKS, 1, NULL);
    int bad_rank = ranks - 1;
    if (rank == bad_rank && p.mine.n > 1)
        p.mine.d[4 * 1 + 1] = NAN;
    sc_spheres v = view_rows(&p.mine, 0, p.mine.n);
    sc_summary sum = {1, 1};
    sc_status st = sc_mpi_count_pairs(ctx, &v, NULL, &sum);
    CHECK(st == SC_ERR_NON_FINITE && sum.pairs == 0, "NaN on rank %d: status %d", bad_rank,
          (int)st);
    char expect[96];
    uint64_t first = 0;
    for (size_t i = 0; i < s.n; i++)
        if (rank_of(BLOCKS, i, s.n, 1) == bad_rank) {
            first = i;
            break;
        }
    snprintf(expect, sizeof expect, "rank %d: sphere id %llu: ", bad_rank,
             (unsigned long long)(first + 1));
    CHECK(strncmp(sc_mpi_message(ctx), expect, strlen(expect)) == 0, "message '%s', want '%s...'",
          sc_mpi_message(ctx), expect);
    drop_part(&p);
    /* every kind of bad value in every column, on the last rank only: the
     * library's status for it, and the id of the first bad sphere there
     * (the values are checked as they are copied: each column and limit) */
    static const struct {
        int column;
        double value;
        sc_status want;
    } bad[] = {
        {0, NAN, SC_ERR_NON_FINITE},       {1, INFINITY, SC_ERR_NON_FINITE},
        {2, -INFINITY, SC_ERR_NON_FINITE}, {3, NAN, SC_ERR_NON_FINITE},
        {0, 2e150, SC_ERR_OUT_OF_RANGE},   {1, -2e150, SC_ERR_OUT_OF_RANGE},
        {2, 1.5e150, SC_ERR_OUT_OF_RANGE}, {3, 2e150, SC_ERR_OUT_OF_RANGE},
        {3, -0.5, SC_ERR_NEGATIVE_RADIUS}, {3, -0x1p-1074, SC_ERR_NEGATIVE_RADIUS},
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        p = take(&s, BLOCKS, 1, NULL);
        if (rank == bad_rank && p.mine.n > 2)
            p.mine.d[4 * 2 + bad[b].column] = bad[b].value;
        v = view_rows(&p.mine, 0, p.mine.n);
        st = sc_mpi_count_pairs(ctx, &v, NULL, &sum);
        snprintf(expect, sizeof expect, "rank %d: sphere id %llu: ", bad_rank,
                 (unsigned long long)(first + 2));
        CHECK(st == bad[b].want && strncmp(sc_mpi_message(ctx), expect, strlen(expect)) == 0,
              "%g in column %d on rank %d: status %d (want %d), '%s'", bad[b].value, bad[b].column,
              bad_rank, (int)st, (int)bad[b].want, sc_mpi_message(ctx));
        drop_part(&p);
    }
    /* the context is usable after it; a callback that stops on one rank */
    p = take(&s, BLOCKS, 1, NULL);
    v = view_rows(&p.mine, 0, p.mine.n);
    collected c = {.stop_after = rank == 0 ? 1 : 0};
    st = sc_mpi_stream_pairs(ctx, &v, NULL, collect, &c, &sum);
    CHECK(st == SC_ERR_STOPPED && strstr(sc_mpi_message(ctx), "rank 0") != NULL,
          "stop on rank 0: status %d, '%s'", (int)st, sc_mpi_message(ctx));
    free(c.at);
    compare("after the faults", ctx, &s, &p, 0, NULL);
    sc_mpi_context_destroy(ctx);
    /* an allocation failure on the last rank, through the allocator hook */
    failing f = {0};
    sc_mpi_options o = sc_mpi_options_default();
    o.search.threads = 1;
    o.search.allocator = (sc_allocator){fail_alloc, fail_free, &f};
    st = sc_mpi_context_create(MPI_COMM_WORLD, &o, &ctx);
    CHECK(st == SC_OK, "context with a hook: %d", (int)st);
    /* repeated calls on the same spheres hold what the first one grew, no
     * more: one buffer of records reused, not a second one per call */
    size_t held[4];
    for (int k = 0; k < 4; k++) {
        st = sc_mpi_count_pairs(ctx, &v, NULL, &sum);
        held[k] = f.bytes;
        CHECK(st == SC_OK, "call %d with a hook: %d", k, (int)st);
    }
    CHECK(held[1] == held[0] && held[2] == held[0] && held[3] == held[0],
          "bytes held after calls 1-4: %zu %zu %zu %zu", held[0], held[1], held[2], held[3]);
    sc_mpi_context_destroy(ctx);
    CHECK(f.live == 0 && f.bytes == 0, "%ld allocations live after destroy", f.live);
    st = sc_mpi_context_create(MPI_COMM_WORLD, &o, &ctx); /* cold again: the first call allocates */
    CHECK(st == SC_OK, "context with a hook: %d", (int)st);
    f.armed = rank == ranks - 1;
    st = sc_mpi_count_pairs(ctx, &v, NULL, &sum);
    CHECK(st == SC_ERR_OUT_OF_MEMORY, "allocation failure on rank %d: status %d", ranks - 1,
          (int)st);
    f.armed = 0;
    compare("after an allocation failure", ctx, &s, &p, 0, NULL);
    /* a neighbour list whose k-th allocation on the last rank fails, for
     * every k its phases make (the kept list, the entries' moves): every
     * rank the same status, then the whole list */
    sc_nbr_spec spec = {1, 0.1, SC_NBR_OVERLAP};
    uint64_t *off = calloc(p.mine.n + 1, sizeof *off);
    int failed = 0, agreed = 1;
    for (int k = 1; k <= 40; k++) {
        f.after = rank == ranks - 1 ? k : 0;
        st = sc_mpi_neighbors_count(ctx, &v, NULL, &spec, off);
        int mine = (int)st, lo = 0, hi = 0;
        MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        agreed &= lo == hi && (st == SC_OK || st == SC_ERR_OUT_OF_MEMORY);
        failed += st == SC_ERR_OUT_OF_MEMORY;
    }
    f.after = 0;
    CHECK(agreed && failed > 0, "a list's allocation failing on one rank: %d failures, agreed %d",
          failed, agreed);
    free(off);
    compare("after a list's allocation failures", ctx, &s, &p, 0, NULL);
    sc_mpi_context_destroy(ctx);
    CHECK(f.live == 0, "%ld allocations live after the context was destroyed", f.live);
    drop_part(&p);
    /* the context's creation fails on one rank: every rank gets the status */
    f.armed = rank == ranks - 1;
    ctx = (sc_mpi_context *)&f;
    st = sc_mpi_context_create(MPI_COMM_WORLD, &o, &ctx);
    CHECK(st == SC_ERR_OUT_OF_MEMORY && ctx == NULL && f.live == 0,
          "creation failing on one rank: %d, %ld live", (int)st, f.live);
    /* a bad periodic box on every rank; 2-D on one rank, 3-D on another */
    f.armed = 0;
    o = sc_mpi_options_default();
    o.search.box.periodic[0] = 1;
    o.search.box.hi[0] = -10;
    ctx = (sc_mpi_context *)&f;
    CHECK(sc_mpi_context_create(MPI_COMM_WORLD, &o, &ctx) == SC_ERR_INVALID_ARGUMENT && !ctx,
          "a periodic box with hi < lo is refused");
    o = sc_mpi_options_default();
    o.weight = (sc_mpi_weight)2;
    ctx = (sc_mpi_context *)&f;
    CHECK(sc_mpi_context_create(MPI_COMM_WORLD, &o, &ctx) == SC_ERR_INVALID_ARGUMENT && !ctx,
          "an unknown weight is refused");
    ctx = context(SC_MPI_LAYOUT_CALLER, 1024);
    p = take(&s, BLOCKS, 1, NULL);
    v = view_rows(&p.mine, 0, p.mine.n);
    if (rank == 0)
        v.z = NULL;
    st = sc_mpi_count_pairs(ctx, &v, NULL, &sum);
    CHECK(ranks == 1 || st == SC_ERR_INVALID_ARGUMENT, "mixed dimensions: %d", (int)st);
    drop_part(&p);
    sc_mpi_context_destroy(ctx);
    drop(&s);
}

/* Two queries at once on split communicators, and repeated calls. */
static void test_split(void) {
    MPI_Comm half;
    int colour = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, colour, rank, &half);
    int hr, hp;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hp);
    sc_mpi_options o = sc_mpi_options_default();
    o.search.threads = 1;
    sc_mpi_context *ctx = NULL;
    CHECK(sc_mpi_context_create(half, &o, &ctx) == SC_OK, "context on a split");
    set s = make(colour ? "powerlaw" : "clustered", 3000, 21, 3, 0);
    size_t nref;
    sc_summary ref;
    uint64_t *rp = reference(&s, NULL, &nref, &ref);
    size_t first = s.n * (size_t)hr / (size_t)hp, last = s.n * (size_t)(hr + 1) / (size_t)hp;
    sc_spheres v = view_rows(&s, first, last - first);
    for (int round = 0; round < 3; round++) {
        sc_summary got;
        sc_status st = sc_mpi_count_pairs(ctx, &v, NULL, &got);
        CHECK(st == SC_OK && got.pairs == ref.pairs && got.checksum == ref.checksum,
              "split %d round %d: %d, %llu pairs, want %llu", colour, round, (int)st,
              (unsigned long long)got.pairs, (unsigned long long)ref.pairs);
    }
    sc_mpi_context_destroy(ctx);
    MPI_Comm_free(&half);
    free(rp);
    drop(&s);
}

int main(int argc, char **argv) {
    static const sc_test_group groups[] = {
        {"generators", test_generators}, {"ids", test_ids},
        {"giants", test_giants},         {"small", test_small},
        {"between", test_between},       {"periodic", test_periodic},
        {"faults", test_faults},         {"split", test_split},
        {"neighbors", test_neighbors},   {"hint", test_hint},
    };
    if (argc > 1 && strcmp(argv[1], "--list") == 0)
        return sc_test_main(argc, argv, "test_mpi", groups, sizeof groups / sizeof *groups);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int rc = sc_test_main(argc, argv, "test_mpi", groups, sizeof groups / sizeof *groups);
    MPI_Finalize();
    return rc;
}
