/*
 * example.c: the public API end to end on six spheres whose pairs are known.
 *
 * Counts the pairs (sc_count_pairs), streams them (sc_stream_pairs) and prints
 * them, then checks that both calls agree with each other and with the pairs
 * worked out by hand. Exit status 0 when everything agrees, 1 otherwise.
 *
 * Build against an installed spherecollide:
 *   cmake -S examples -B build-example -DCMAKE_PREFIX_PATH=/your/prefix
 *   cc example.c $(pkg-config --cflags --libs spherecollide)
 *
 * SPDX-License-Identifier: MIT
 */
#include <spherecollide.h>

#include <inttypes.h>
#include <stdio.h>

#define N_SPHERES 6
#define N_EXPECTED 4

/* What the stream callback accumulates. */
typedef struct seen_pairs {
    uint32_t pairs[2 * N_EXPECTED];
    size_t count; /* every pair streamed, even those beyond the array */
    uint64_t checksum;
} seen_pairs;

static int on_pairs(const uint32_t *pairs, size_t count, void *user) {
    seen_pairs *seen = user;
    for (size_t k = 0; k < count; k++) {
        uint32_t i = pairs[2 * k], j = pairs[2 * k + 1];
        printf("  pair %u %u\n", (unsigned)i, (unsigned)j);
        if (seen->count < N_EXPECTED) {
            seen->pairs[2 * seen->count] = i;
            seen->pairs[2 * seen->count + 1] = j;
        }
        seen->count++;
        seen->checksum += sc_pair_mix(i, j);
    }
    return 0; /* non-zero would stop the search with SC_ERR_STOPPED */
}

int main(void) {
    /* Structure of arrays, float64. Sphere 1 touches 0 and 2 exactly (touching
     * counts), 5 is a point (radius 0) at the centre of 0, and 3 and 4 overlap
     * far from the rest. */
    static const double x[N_SPHERES] = {0.0, 1.5, 3.0, 10.0, 10.0, 0.0};
    static const double y[N_SPHERES] = {0.0, 0.0, 0.0, 10.0, 10.0, 0.0};
    static const double z[N_SPHERES] = {0.0, 0.0, 0.0, 10.0, 11.5, 0.0};
    static const double r[N_SPHERES] = {1.0, 0.5, 1.0, 1.0, 1.0, 0.0};
    static const uint32_t expected[2 * N_EXPECTED] = {0, 1, 0, 5, 1, 2, 3, 4};

    printf("spherecollide %s\n", sc_version());

    sc_spheres spheres = sc_spheres_soa_f64(N_SPHERES, x, y, z, r);
    size_t bad = 0;
    sc_status st = sc_spheres_validate(&spheres, &bad);
    if (st != SC_OK) {
        fprintf(stderr, "sphere %zu: %s\n", bad, sc_status_string(st));
        return 1;
    }

    sc_options options = sc_options_default();
    options.sorted = 1; /* stream in (i, j) order, so the pairs compare directly */
    sc_context *ctx = NULL;
    st = sc_context_create(&options, &ctx);
    if (st != SC_OK) {
        fprintf(stderr, "sc_context_create: %s\n", sc_status_string(st));
        return 1;
    }

    int failed = 0;
    sc_summary counted = {0, 0};
    st = sc_count_pairs(ctx, &spheres, &counted);
    if (st != SC_OK) {
        fprintf(stderr, "sc_count_pairs: %s\n", sc_status_string(st));
        failed = 1;
    }
    printf("sc_count_pairs:  %" PRIu64 " pairs, checksum 0x%016" PRIx64 "\n", counted.pairs,
           counted.checksum);

    seen_pairs seen = {{0}, 0, 0};
    sc_summary streamed = {0, 0};
    printf("sc_stream_pairs:\n");
    st = sc_stream_pairs(ctx, &spheres, on_pairs, &seen, &streamed);
    if (st != SC_OK) {
        fprintf(stderr, "sc_stream_pairs: %s\n", sc_status_string(st));
        failed = 1;
    }
    printf("  %" PRIu64 " pairs, checksum 0x%016" PRIx64 "\n", streamed.pairs, streamed.checksum);

    sc_stats stats = {.size = sizeof stats};
    if (sc_context_stats(ctx, &stats) == SC_OK)
        printf("kernel %s, %d thread(s), %.6f s\n", sc_kernel_name(stats.kernel), stats.threads,
               stats.total_seconds);
    sc_context_destroy(ctx);

    /* The two calls, the callback's own tally and the hand-made answer agree. */
    uint64_t expected_checksum = 0;
    for (size_t k = 0; k < N_EXPECTED; k++)
        expected_checksum += sc_pair_mix(expected[2 * k], expected[2 * k + 1]);
    if (counted.pairs != N_EXPECTED || streamed.pairs != N_EXPECTED || seen.count != N_EXPECTED) {
        fprintf(stderr,
                "mismatch: counted %" PRIu64 ", streamed %" PRIu64
                ", callback saw %zu, expected %d pairs\n",
                counted.pairs, streamed.pairs, seen.count, N_EXPECTED);
        failed = 1;
    }
    if (counted.checksum != expected_checksum || streamed.checksum != expected_checksum ||
        seen.checksum != expected_checksum) {
        fprintf(stderr, "mismatch: checksums differ from 0x%016" PRIx64 "\n", expected_checksum);
        failed = 1;
    }
    for (size_t k = 0; k < 2 * N_EXPECTED && k < 2 * seen.count; k++) {
        if (seen.pairs[k] != expected[k]) {
            fprintf(stderr, "mismatch: pair %zu is (%u, %u), expected (%u, %u)\n", k / 2,
                    (unsigned)seen.pairs[k & ~(size_t)1], (unsigned)seen.pairs[k | 1],
                    (unsigned)expected[k & ~(size_t)1], (unsigned)expected[k | 1]);
            failed = 1;
            break;
        }
    }
    printf("%s\n", failed ? "FAILED" : "ok: count and stream agree");
    return failed;
}
