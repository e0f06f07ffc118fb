/*
 * test_study.c: the performance study's own computations (bench/study/),
 * checked by value, never by time: the median, the CSV writer, the
 * byte-floor model and the radix pass count, the counter fallback (PAPI
 * absent or failing gives "unavailable", never 0) and the input orders.
 *
 * Built from the study's sources without PAPI (tests/study.cmake), so it
 * runs the same wherever CI runs. Usage: test_study [group] (all groups
 * when none is named).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "study.h"

#undef CHECK /* this file's checks word their own failure */

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        checks++;                                                                                  \
        if (strcmp(g_, w_) != 0) {                                                                 \
            fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, g_, w_);       \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define CHECK_NUM(got, want)                                                                       \
    do {                                                                                           \
        const double g_ = (got), w_ = (want);                                                      \
        checks++;                                                                                  \
        if (!(g_ == w_)) {                                                                         \
            fprintf(stderr, "%s:%d: got %.17g, want %.17g\n", __FILE__, __LINE__, g_, w_);         \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* ---- median ---------------------------------------------------------------- */

static void test_median(void) {
    CHECK(isnan(study_median(NULL, 0)));
    const double one[] = {5.0};
    CHECK_NUM(study_median(one, 1), 5.0);
    double odd[] = {3.0, 1.0, 2.0};
    CHECK_NUM(study_median(odd, 3), 2.0);
    /* the input is left as it was */
    CHECK_NUM(odd[0], 3.0);
    CHECK_NUM(odd[1], 1.0);
    CHECK_NUM(odd[2], 2.0);
    const double even[] = {4.0, 1.0, 3.0, 2.0};
    CHECK_NUM(study_median(even, 4), 2.5);
    const double dup[] = {2.0, 9.0, 2.0, 2.0};
    CHECK_NUM(study_median(dup, 4), 2.0);
    const double outlier[] = {0.010, 0.011, 5.0, 0.012, 0.009};
    CHECK_NUM(study_median(outlier, 5), 0.011);
    const double neg[] = {-1.0, -3.0};
    CHECK_NUM(study_median(neg, 2), -2.0);
}

/* ---- CSV writer -------------------------------------------------------------- */

/* Runs fill(w) on a CSV in memory and returns the text (caller frees). */
static char *csv_text(const char *const *names, int ncols, void (*fill)(study_csv *), int *begin_rc,
                      int *errors) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    study_csv w;
    *begin_rc = study_csv_begin(&w, f, names, ncols);
    if (*begin_rc == 0 && fill)
        fill(&w);
    *errors = w.errors;
    fclose(f);
    return buf;
}

static void fill_escapes(study_csv *w) {
    study_csv_str(w, "plain");
    study_csv_str(w, "a,b");
    study_csv_str(w, "say \"hi\"");
    study_csv_str(w, "two\nlines");
    CHECK(study_csv_end_row(w) == 0);
    study_csv_str(w, "");
    study_csv_str(w, NULL);
    study_csv_str(w, "cr\r");
    study_csv_str(w, "\"");
    CHECK(study_csv_end_row(w) == 0);
}

static void fill_numbers(study_csv *w) {
    study_csv_num(w, 0.1);
    study_csv_num(w, NAN);
    study_csv_num(w, 1e10);
    study_csv_int(w, -42);
    CHECK(study_csv_end_row(w) == 0);
    study_csv_u64(w, UINT64_MAX);
    study_csv_hex(w, 0x926e529353aa73a8ull);
    study_csv_num(w, INFINITY);
    study_csv_num(w, 0.0);
    CHECK(study_csv_end_row(w) == 0);
}

static void fill_wrong_counts(study_csv *w) {
    study_csv_str(w, "x");
    CHECK(study_csv_end_row(w) == -1); /* 1 of 4 fields */
    for (int k = 0; k < 5; k++)
        study_csv_int(w, k);
    CHECK(study_csv_end_row(w) == -1); /* 5 of 4 */
    for (int k = 0; k < 4; k++)
        study_csv_int(w, k);
    CHECK(study_csv_end_row(w) == 0);
}

static void test_csv(void) {
    const char *const names[] = {"machine", "total_s", "note,with comma", "q\"uote"};
    int rc = -1, errors = -1;
    char *t = csv_text(names, 4, fill_escapes, &rc, &errors);
    CHECK(t != NULL && rc == 0 && errors == 0);
    if (t)
        CHECK_STR(t, "machine,total_s,\"note,with comma\",\"q\"\"uote\"\n"
                     "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\"\n"
                     ",,\"cr\r\",\"\"\"\"\n");
    free(t);

    t = csv_text(names, 4, fill_numbers, &rc, &errors);
    CHECK(t != NULL && rc == 0 && errors == 0);
    if (t)
        CHECK_STR(t, "machine,total_s,\"note,with comma\",\"q\"\"uote\"\n"
                     "0.1,,1e+10,-42\n"
                     "18446744073709551615,0x926e529353aa73a8,,0\n");
    free(t);

    t = csv_text(names, 4, fill_wrong_counts, &rc, &errors);
    CHECK(t != NULL && rc == 0 && errors == 2);
    if (t) /* rows stay line-aligned even when their field count is wrong */
        CHECK_STR(t, "machine,total_s,\"note,with comma\",\"q\"\"uote\"\nx\n0,1,2,3,4\n0,1,2,3\n");
    free(t);

    /* header validation */
    const char *const bad[] = {"a", NULL};
    study_csv w;
    CHECK(study_csv_begin(&w, stdout, bad, 2) == -1);
    CHECK(study_csv_begin(&w, stdout, names, 0) == -1);
    CHECK(study_csv_begin(&w, NULL, names, 4) == -1);

    /* escape into a buffer: length needed, truncation, NULL */
    char out[64];
    CHECK(study_csv_escape("a,b", out, sizeof out) == 5);
    CHECK_STR(out, "\"a,b\"");
    CHECK(study_csv_escape("x\"y", out, sizeof out) == 6);
    CHECK_STR(out, "\"x\"\"y\"");
    CHECK(study_csv_escape("plain", out, sizeof out) == 5);
    CHECK_STR(out, "plain");
    CHECK(study_csv_escape(NULL, out, sizeof out) == 0);
    CHECK_STR(out, "");
    char small[4];
    CHECK(study_csv_escape("a,bcdef", small, sizeof small) == 9);
    CHECK_STR(small, "\"a,");
    CHECK(study_csv_escape("abc", NULL, 0) == 3);
}

/* ---- byte-floor model ------------------------------------------------------- */

static void test_floor(void) {
    study_floor f;
    /* 10^6 spheres, 3 passes, 250,000 rows, gathered layout */
    study_floor_bytes(1000000, 3, 250000, 1, 0, &f);
    CHECK_NUM(f.bytes[STUDY_STAGE_BOUNDS], 32e6);
    CHECK_NUM(f.bytes[STUDY_STAGE_KEYS], 44e6);        /* 32 + 12 */
    CHECK_NUM(f.bytes[STUDY_STAGE_SORT], 72e6);        /* 3 x (12 + 12) */
    CHECK_NUM(f.bytes[STUDY_STAGE_CELLS], 12e6 + 3e6); /* (8 + 4) n + 12 rows */
    CHECK_NUM(f.bytes[STUDY_STAGE_GATHER], 68e6);      /* 4 + 32 + 32 */
    CHECK_NUM(f.bytes[STUDY_STAGE_SEARCH], 36e6);      /* 32 + 4 */
    CHECK_NUM(f.bytes[STUDY_STAGE_MERGE], 0.0);
    CHECK_NUM(f.total, 267e6);

    /* indirect layout: no gather; the search reads input + permutation + xq */
    study_floor_bytes(1000000, 3, 250000, 0, 0, &f);
    CHECK_NUM(f.bytes[STUDY_STAGE_GATHER], 0.0);
    CHECK_NUM(f.bytes[STUDY_STAGE_SEARCH], 40e6);
    CHECK_NUM(f.total, 203e6);

    /* no passes (all keys equal in every digit), one row */
    study_floor_bytes(1000, 0, 1, 1, 0, &f);
    CHECK_NUM(f.bytes[STUDY_STAGE_SORT], 0.0);
    CHECK_NUM(f.total, 32e3 + 44e3 + 12e3 + 12 + 68e3 + 36e3);
    study_floor_bytes(1000, -2, 1, 1, 0, &f); /* negative passes count as none */
    CHECK_NUM(f.bytes[STUDY_STAGE_SORT], 0.0);

    study_floor_bytes(0, 5, 0, 1, 0, &f);
    CHECK_NUM(f.total, 0.0);

    /* 10^7 spheres, 5 passes: per sphere 32+44+120+12+68+36 = 312 B, + 12 per row */
    study_floor_bytes(10000000, 5, 2000000, 1, 0, &f);
    CHECK_NUM(f.total, 312e7 + 24e6);

    /* packed words (key << b | index): keys write 8, each pass moves 8 + 8,
     * the row stage reads 8 and writes x quantised and the index (4 + 4) */
    study_floor_bytes(1000000, 3, 250000, 1, 1, &f);
    CHECK_NUM(f.bytes[STUDY_STAGE_BOUNDS], 32e6);
    CHECK_NUM(f.bytes[STUDY_STAGE_KEYS], 40e6);        /* 32 + 8 */
    CHECK_NUM(f.bytes[STUDY_STAGE_SORT], 48e6);        /* 3 x (8 + 8) */
    CHECK_NUM(f.bytes[STUDY_STAGE_CELLS], 16e6 + 3e6); /* (8 + 4 + 4) n + 12 rows */
    CHECK_NUM(f.bytes[STUDY_STAGE_GATHER], 68e6);
    CHECK_NUM(f.bytes[STUDY_STAGE_SEARCH], 36e6);
    CHECK_NUM(f.total, 243e6);
    study_floor_bytes(1000000, 3, 250000, 0, 1, &f); /* packed, indirect */
    CHECK_NUM(f.bytes[STUDY_STAGE_GATHER], 0.0);
    CHECK_NUM(f.total, 179e6);

    /* radix passes, engine rule: 11-bit digits split evenly over key_bits */
    CHECK(study_radix_passes(1000, 40, ~0ull, 11) == 4);      /* 4 digits of 10 bits */
    CHECK(study_radix_passes(1000, 40, 0x3ffull, 11) == 1);   /* only digit 0 varies */
    CHECK(study_radix_passes(1000, 40, 1ull << 39, 11) == 1); /* only digit 3 */
    CHECK(study_radix_passes(1000, 40, (1ull << 10) | 1, 11) == 2);
    CHECK(study_radix_passes(1000, 40, 0, 11) == 0);  /* all keys equal */
    CHECK(study_radix_passes(1, 40, ~0ull, 11) == 0); /* n < 2: nothing to sort */
    CHECK(study_radix_passes(1000, 0, ~0ull, 11) == 0);
    CHECK(study_radix_passes(1000, 64, ~0ull, 11) == 6);      /* 6 digits of 11 bits */
    CHECK(study_radix_passes(1000, 22, 1ull << 11, 11) == 1); /* 2 digits of 11 bits */
    CHECK(study_radix_passes(1000, 23, 1ull << 11, 11) == 1); /* 3 digits of 8 bits: digit 1 */
    CHECK(study_radix_passes(1000, 23, 1ull << 8, 11) == 1);
    CHECK(study_radix_passes(1000, 11, ~0ull, 11) == 1);
    CHECK(study_radix_passes(1000, 12, ~0ull, 11) == 2);
}

/* ---- counter fallback --------------------------------------------------------- */

typedef struct fake {
    int init_rc, start_rc, stop_rc;
    int refuse_event; /* index of the event add refuses, -1 none */
    int adds, closes;
    long long base; /* values reported: base + slot */
} fake;

static int fake_init(void *self, char *why, size_t cap) {
    fake *f = self;
    if (f->init_rc)
        snprintf(why, cap, "fake: no counters on this virtual machine");
    return f->init_rc;
}

static int fake_add(void *self, const char *event) {
    fake *f = self;
    (void)event;
    const int k = f->adds++;
    return k == f->refuse_event ? -1 : 0;
}

static int fake_start(void *self) {
    return ((fake *)self)->start_rc;
}

static int fake_stop(void *self, long long *values) {
    fake *f = self;
    for (int k = 0; k < STUDY_MAX_COUNTERS; k++)
        values[k] = f->base + k;
    return f->stop_rc;
}

static void fake_close(void *self) {
    ((fake *)self)->closes++;
}

static const char *const events[] = {"PAPI_L1_DCM", "PAPI_L2_DCM", "PAPI_L3_TCM"};

/* Opens, measures one region, and returns the formatted value of each event. */
static void measure(const study_counter_backend *be, char out[3][32]) {
    study_counters c;
    study_counters_open(&c, be, events, 3);
    study_counters_start(&c);
    study_counters_stop(&c);
    for (int k = 0; k < 3; k++) {
        long long v = -7;
        const int ok = study_counters_get(&c, k, &v);
        study_counter_format(ok, ok ? (double)v : 0.0, out[k], sizeof out[k]);
    }
    study_counters_close(&c);
}

static study_counter_backend fake_backend(fake *f) {
    study_counter_backend b = {"fake", fake_init, fake_add, fake_start, fake_stop, fake_close, f};
    return b;
}

static void test_counters(void) {
    char out[3][32];
    char buf[32];

    /* formatting: unavailable is never printed as 0, a true 0 is */
    CHECK_STR(study_counter_format(0, 0.0, buf, sizeof buf), STUDY_UNAVAILABLE);
    CHECK_STR(study_counter_format(0, 123.0, buf, sizeof buf), "unavailable");
    CHECK_STR(study_counter_format(1, 0.0, buf, sizeof buf), "0");
    CHECK_STR(study_counter_format(1, 12345.0, buf, sizeof buf), "12345");
    CHECK_STR(study_counter_format(1, 2.5e9, buf, sizeof buf), "2.5e+09");
    CHECK_STR(study_counter_format(1, -1.0, buf, sizeof buf), "unavailable");
    CHECK_STR(study_counter_format(1, NAN, buf, sizeof buf), "unavailable");

    /* this test is built without PAPI: the default backend must refuse */
    study_counter_backend def = study_counters_default_backend();
    study_counters c;
    study_counters_open(&c, &def, events, 3);
    CHECK(!c.usable);
    CHECK(strstr(c.why, "without PAPI") != NULL);
    study_counters_start(&c);
    study_counters_stop(&c);
    long long v = 99;
    for (int k = 0; k < 3; k++)
        CHECK(study_counters_get(&c, k, &v) == 0);
    CHECK(v == 99); /* untouched */
    study_counters_close(&c);
    measure(&def, out);
    for (int k = 0; k < 3; k++)
        CHECK_STR(out[k], "unavailable");

    /* no backend at all */
    study_counters_open(&c, NULL, events, 3);
    CHECK(!c.usable && c.why[0]);
    study_counters_close(&c);

    /* PAPI_library_init failing (what these VMs do) */
    fake f = {-1, 0, 0, -1, 0, 0, 100};
    study_counter_backend b = fake_backend(&f);
    measure(&b, out);
    for (int k = 0; k < 3; k++)
        CHECK_STR(out[k], "unavailable");
    CHECK(f.closes == 0); /* nothing was opened */
    study_counters_open(&c, &b, events, 3);
    CHECK_STR(c.why, "fake: no counters on this virtual machine");
    study_counters_close(&c);

    /* a working backend whose counters read zero: a real 0 is reported */
    fake z = {0, 0, 0, -1, 0, 0, 0};
    b = fake_backend(&z);
    measure(&b, out);
    CHECK_STR(out[0], "0");
    CHECK_STR(out[1], "1");
    CHECK_STR(out[2], "2");
    CHECK(z.closes == 1);

    /* one event refused: that one is unavailable, the others map to their slots */
    fake r = {0, 0, 0, 1, 0, 0, 1000};
    b = fake_backend(&r);
    measure(&b, out);
    CHECK_STR(out[0], "1000");
    CHECK_STR(out[1], "unavailable");
    CHECK_STR(out[2], "1001"); /* second added event: slot 1 */

    /* every event refused */
    fake all = {0, 0, 0, -1, 0, 0, 5};
    study_counter_backend none_added = fake_backend(&all);
    none_added.add = NULL;
    study_counters_open(&c, &none_added, events, 3);
    CHECK(!c.usable && strstr(c.why, "none of the events") != NULL);
    study_counters_close(&c);
    measure(&none_added, out);
    for (int k = 0; k < 3; k++)
        CHECK_STR(out[k], "unavailable");

    /* start fails, stop fails */
    fake s1 = {0, -1, 0, -1, 0, 0, 5};
    b = fake_backend(&s1);
    measure(&b, out);
    for (int k = 0; k < 3; k++)
        CHECK_STR(out[k], "unavailable");
    fake s2 = {0, 0, -1, -1, 0, 0, 5};
    b = fake_backend(&s2);
    measure(&b, out);
    for (int k = 0; k < 3; k++)
        CHECK_STR(out[k], "unavailable");

    /* a failed region does not keep the previous region's values */
    fake flip = {0, 0, 0, -1, 0, 0, 7};
    b = fake_backend(&flip);
    study_counters_open(&c, &b, events, 3);
    study_counters_start(&c);
    study_counters_stop(&c);
    CHECK(study_counters_get(&c, 0, &v) == 1 && v == 7);
    flip.stop_rc = -1;
    study_counters_start(&c);
    study_counters_stop(&c);
    CHECK(study_counters_get(&c, 0, &v) == 0);
    CHECK(study_counters_get(&c, 5, &v) == 0); /* out of range */
    CHECK(study_counters_get(&c, -1, &v) == 0);
    study_counters_close(&c);
}

/* ---- input orders --------------------------------------------------------------- */

static int is_permutation(const uint32_t *p, size_t n) {
    unsigned char *seen = calloc(n ? n : 1, 1);
    int ok = seen != NULL;
    for (size_t k = 0; ok && k < n; k++) {
        if (p[k] >= n || seen[p[k]])
            ok = 0;
        else
            seen[p[k]] = 1;
    }
    free(seen);
    return ok;
}

static void test_perm(void) {
    CHECK(study_morton3(0, 0, 0) == 0);
    CHECK(study_morton3(1, 0, 0) == 1);
    CHECK(study_morton3(0, 1, 0) == 2);
    CHECK(study_morton3(0, 0, 1) == 4);
    CHECK(study_morton3(1, 1, 1) == 7);
    CHECK(study_morton3(2, 0, 0) == 8);
    /* x=011 y=101 z=110 -> z2y2x2 z1y1x1 z0y0x0 = 110 101 011 */
    CHECK(study_morton3(3, 5, 6) == 0x1ab);
    CHECK(study_morton3(0x1fffff, 0x1fffff, 0x1fffff) == 0x7fffffffffffffffull);
    CHECK(study_morton3(0x200000, 0, 0) == 0); /* only 21 bits are used */

    enum { N = 1000 };
    uint32_t a[N], b[N], c[N];
    study_perm_shuffle(a, N, 1);
    study_perm_shuffle(b, N, 1);
    study_perm_shuffle(c, N, 2);
    CHECK(is_permutation(a, N));
    CHECK(is_permutation(c, N));
    CHECK(memcmp(a, b, sizeof a) == 0); /* deterministic */
    CHECK(memcmp(a, c, sizeof a) != 0); /* seeds differ */
    int fixed = 0;
    for (int k = 0; k < N; k++)
        fixed += a[k] == (uint32_t)k;
    CHECK(fixed < 20); /* a shuffle, not the identity (expected about 1) */
    study_perm_shuffle(a, 1, 3);
    CHECK(a[0] == 0);
    study_perm_shuffle(a, 0, 3); /* n = 0 writes nothing, must not crash */

    /* Morton: the 8 corners of a cube, given in reverse Z order */
    double rows[8 * 4];
    for (int k = 0; k < 8; k++) {
        const int code = 7 - k;
        rows[4 * k + 0] = code & 1 ? 10.0 : 0.0;
        rows[4 * k + 1] = code & 2 ? 10.0 : 0.0;
        rows[4 * k + 2] = code & 4 ? 10.0 : 0.0;
        rows[4 * k + 3] = 1.0;
    }
    uint32_t p[8];
    CHECK(study_perm_morton(p, rows, 8) == 0);
    for (int k = 0; k < 8; k++)
        CHECK(p[k] == (uint32_t)(7 - k));
    double out[8 * 4];
    study_perm_apply_rows(out, rows, p, 8);
    CHECK_NUM(out[0], 0.0);
    CHECK_NUM(out[4 * 7 + 0], 10.0);
    CHECK_NUM(out[4 * 7 + 2], 10.0);
    /* ties (all spheres at one point) keep input order */
    double same[5 * 4];
    for (int k = 0; k < 20; k++)
        same[k] = 1.0;
    uint32_t q[5];
    CHECK(study_perm_morton(q, same, 5) == 0);
    for (int k = 0; k < 5; k++)
        CHECK(q[k] == (uint32_t)k);
    CHECK(study_perm_morton(q, same, 0) == 0);
}

int main(int argc, char **argv) {
    static const sc_test_group groups[] = {{"median", test_median},
                                           {"csv", test_csv},
                                           {"floor", test_floor},
                                           {"counters", test_counters},
                                           {"perm", test_perm}};
    return sc_test_main(argc, argv, "test_study", groups, sizeof groups / sizeof groups[0]);
}
