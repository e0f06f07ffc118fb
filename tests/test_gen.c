/*
 * test_gen.c: the scenario generators (tools/gen/sc_gen.h) are deterministic,
 * stay within their documented radius bounds, give O(n) pairs (dense: all
 * n(n-1)/2), and reject unknown names. Pair counts come from a brute-force
 * oracle using exactly the predicate of spherecollide.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sc_gen.h"

/* The predicate of spherecollide.h, in double, no FMA (-ffp-contract=off). */
static uint64_t brute_pairs(const double *rows, size_t n) {
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const double *a = rows + 4 * i, *b = rows + 4 * j;
            double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
            double d2 = (dx * dx + dy * dy) + dz * dz;
            double s = a[3] + b[3];
            k += d2 <= s * s;
        }
    return k;
}

/* FNV-1a over the bytes: a fingerprint for the known-answer test. */
static uint64_t fnv1a(const void *data, size_t len) {
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static double *gen(const char *dist, size_t n, uint64_t seed) {
    double *rows = malloc((n ? n : 1) * 4 * sizeof *rows);
    if (!rows) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    int rc = sc_gen_generate(dist, n, seed, rows);
    CHECK(rc == 0, "sc_gen_generate(%s, %zu) = %d", dist, n, rc);
    return rows;
}

static void test_names(void) {
    const char *const *names = sc_gen_names();
    const char *expect[] = {"uniform",     "shell", "wide",   "powerlaw", "clustered",
                            "farclusters", "dense", "sparse", "seed002",  "heavytail"};
    size_t count = 0;
    while (names[count])
        count++;
    CHECK(count == sizeof expect / sizeof expect[0], "%zu names", count);
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        int found = 0;
        for (size_t k = 0; k < count; k++)
            found |= strcmp(names[k], expect[i]) == 0;
        CHECK(found, "missing generator %s", expect[i]);
        CHECK(sc_gen_describe(expect[i]) != NULL, "%s has no description", expect[i]);
    }
    double row[4] = {7, 7, 7, 7};
    CHECK(sc_gen_generate("nope", 1, 1, row) == -1, "unknown name accepted");
    CHECK(row[0] == 7 && row[3] == 7, "unknown name wrote rows");
    CHECK(sc_gen_generate("", 1, 1, row) == -1, "empty name accepted");
    CHECK(sc_gen_generate(NULL, 1, 1, row) == -1, "NULL name accepted");
    CHECK(sc_gen_generate("Uniform", 1, 1, row) == -1, "names are case-sensitive");
    CHECK(sc_gen_generate("uniform", 1, 1, NULL) == -1, "NULL rows with n = 1 accepted");
    CHECK(sc_gen_describe("nope") == NULL, "description of an unknown name");
    double lo, hi;
    CHECK(sc_gen_radius_bounds("nope", &lo, &hi) == -1, "bounds of an unknown name");
}

static void test_each(const char *dist) {
    double rmin, rmax;
    CHECK(sc_gen_radius_bounds(dist, &rmin, &rmax) == 0, "%s bounds", dist);
    CHECK(sc_gen_generate(dist, 0, 1, NULL) == 0, "%s n = 0, rows NULL", dist);

    /* n = 1: one finite sphere, in bounds. */
    double one[4];
    CHECK(sc_gen_generate(dist, 1, 1, one) == 0, "%s n = 1", dist);
    CHECK(isfinite(one[0]) && isfinite(one[1]) && isfinite(one[2]), "%s n = 1 centre", dist);
    CHECK(one[3] >= rmin && one[3] <= rmax, "%s n = 1 radius %g", dist, one[3]);

    /* Determinism and bounds at a few sizes. */
    const size_t sizes[] = {2, 3, 1000, 4001};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        double *a = gen(dist, n, 42), *b = gen(dist, n, 42), *c = gen(dist, n, 43);
        CHECK(memcmp(a, b, n * 4 * sizeof *a) == 0, "%s n = %zu: same seed, different bytes", dist,
              n);
        CHECK(memcmp(a, c, n * 4 * sizeof *a) != 0, "%s n = %zu: seeds 42 and 43 agree", dist, n);
        size_t bad = 0;
        for (size_t k = 0; k < n; k++) {
            const double *p = a + 4 * k;
            if (!(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]) && p[3] >= rmin &&
                  p[3] <= rmax))
                bad++;
        }
        CHECK(bad == 0, "%s n = %zu: %zu spheres non-finite or radius outside [%g, %g]", dist, n,
              bad, rmin, rmax);
        free(a);
        free(b);
        free(c);
    }
}

/* Pair counts: dense gives every pair; the others O(n), about one per sphere. */
static void test_pairs(void) {
    const size_t dense_sizes[] = {2, 3, 17, 500, 2000};
    for (size_t s = 0; s < sizeof dense_sizes / sizeof dense_sizes[0]; s++) {
        size_t n = dense_sizes[s];
        for (uint64_t seed = 1; seed <= 3; seed++) {
            double *rows = gen("dense", n, seed);
            uint64_t k = brute_pairs(rows, n);
            CHECK(k == (uint64_t)n * (n - 1) / 2, "dense n = %zu seed %llu: %llu pairs", n,
                  (unsigned long long)seed, (unsigned long long)k);
            free(rows);
        }
    }
    const char *const *names = sc_gen_names();
    for (size_t i = 0; names[i]; i++) {
        if (strcmp(names[i], "dense") == 0)
            continue;
        size_t n = 4000;
        double *rows = gen(names[i], n, 1);
        double per = (double)brute_pairs(rows, n) / (double)n;
        if (strcmp(names[i], "sparse") == 0) {
            /* volume fraction 1e-4: almost no pairs, and the centres' box
             * holds the spheres at about that fraction */
            double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL},
                   hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
            double vol = 0.0;
            for (size_t k = 0; k < n; k++) {
                for (int a = 0; a < 3; a++) {
                    lo[a] = fmin(lo[a], rows[4 * k + a]);
                    hi[a] = fmax(hi[a], rows[4 * k + a]);
                }
                vol += 4.0 / 3.0 * 3.14159265358979 * pow(rows[4 * k + 3], 3);
            }
            const double phi = vol / ((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
            CHECK(per <= 0.01 && phi > 0.9e-4 && phi < 1.1e-4,
                  "sparse n = %zu: %.4f pairs per sphere, "
                  "volume fraction %.3g",
                  n, per, phi);
        } else {
            CHECK(per >= 0.4 && per <= 2.0, "%s n = %zu: %.3f pairs per sphere", names[i], n, per);
        }
        free(rows);
    }
}

/* Known answers: FNV-1a of the bytes for seed 1, n = 1000, as produced on
 * x86-64 (gcc and clang, -O0 to -O3 -march=native). A change here means the
 * generators changed (update the table, SC_GEN_PRINT_KNOWN=1 prints it, and
 * say so in the commit) or the platform rounds differently (a portability
 * bug). */
static void test_known_answers(void) {
    static const struct {
        const char *dist;
        uint64_t fnv;
    } known[] = {
        {"uniform", 0xee269937986c0698ull},   {"shell", 0x4611310f5771830cull},
        {"wide", 0x1098d20278c4f068ull},      {"powerlaw", 0x3c3fb10a5e5a35a5ull},
        {"clustered", 0x5bb718a8fd42d449ull}, {"farclusters", 0x86ae426e518a7b75ull},
        {"dense", 0x5f479359ab5357dbull},     {"sparse", 0xae0539a190461a12ull},
        {"seed002", 0x072c74c17f955324ull},   {"heavytail", 0xdd02c21f3cabfb8dull},
    };
    int print = getenv("SC_GEN_PRINT_KNOWN") != NULL;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        double *rows = gen(known[i].dist, 1000, 1);
        uint64_t h = fnv1a(rows, 1000 * 4 * sizeof *rows);
        if (print)
            printf("        {\"%s\", 0x%016llxull},\n", known[i].dist, (unsigned long long)h);
        else
            CHECK(h == known[i].fnv, "%s: fingerprint 0x%016llx, expected 0x%016llx", known[i].dist,
                  (unsigned long long)h, (unsigned long long)known[i].fnv);
        free(rows);
    }
}

static void run_each(void) {
    const char *const *names = sc_gen_names();
    for (size_t i = 0; names[i]; i++)
        test_each(names[i]);
}

int main(int argc, char **argv) {
    static const sc_test_group groups[] = {
        {"names", test_names},
        {"each", run_each},
        {"pairs", test_pairs},
        {"known_answers", test_known_answers},
    };
    return sc_test_main(argc, argv, "test_gen", groups, sizeof groups / sizeof groups[0]);
}
