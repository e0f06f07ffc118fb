/*
 * study_floor.c: the byte-floor model. For each stage, the fewest bytes it
 * must move between memory and the core, counted the way STREAM counts
 * (bytes named in the program; no write-allocate traffic, no index or key
 * re-reads the engine happens to do). With the machine's measured
 * bandwidth it gives the shortest time a stage could take; the study
 * reports measured / floor. The constants are in study.h and the reasoning
 * in docs/study.md, section "The byte-floor model".
 */
#include "study.h"

#include <string.h>

void study_floor_bytes(uint64_t n, int passes, uint64_t rows, int gathered, int packed,
                       study_floor *out) {
    memset(out, 0, sizeof *out);
    const double N = (double)n;
    if (passes < 0)
        passes = 0;
    /* bounds: one read of the caller's float64 spheres */
    out->bytes[STUDY_STAGE_BOUNDS] = STUDY_B_INPUT * N;
    /* keys: read the spheres again, write (key, index) or the packed word */
    out->bytes[STUDY_STAGE_KEYS] =
        (STUDY_B_INPUT + (packed ? STUDY_B_WORD : STUDY_B_KEY_WRITE)) * N;
    /* sort: each radix pass reads and writes every (key, index) or word */
    out->bytes[STUDY_STAGE_SORT] =
        (double)passes * (packed ? 2 * STUDY_B_WORD : STUDY_B_PASS_READ + STUDY_B_PASS_WRITE) * N;
    /* row table: read the sorted keys (words), write x quantised (and the
     * index split from each word), one entry per row */
    out->bytes[STUDY_STAGE_CELLS] =
        (STUDY_B_SORTED_KEY + STUDY_B_XQ + (packed ? STUDY_B_INDEX : 0)) * N +
        STUDY_B_ROW * (double)rows;
    if (gathered) {
        /* gather: the permutation, the input in sorted (random) order, the copy */
        out->bytes[STUDY_STAGE_GATHER] = (STUDY_B_INDEX + STUDY_B_INPUT + STUDY_B_WORK) * N;
        /* search: the working copy and x quantised, each at least once */
        out->bytes[STUDY_STAGE_SEARCH] = (STUDY_B_WORK + STUDY_B_XQ) * N;
    } else {
        /* indirect: no copy; the search reads the input through the permutation */
        out->bytes[STUDY_STAGE_SEARCH] = (STUDY_B_INPUT + STUDY_B_INDEX + STUDY_B_XQ) * N;
    }
    /* merge: per-thread totals only */
    out->bytes[STUDY_STAGE_MERGE] = 0.0;
    for (int s = 0; s < STUDY_STAGES; s++)
        out->total += out->bytes[s];
}

int study_radix_passes(uint64_t n, int key_bits, uint64_t varying, int max_digit_bits) {
    if (n < 2 || key_bits <= 0 || max_digit_bits <= 0)
        return 0;
    if (key_bits > 64)
        key_bits = 64;
    const int passes = (key_bits + max_digit_bits - 1) / max_digit_bits;
    const int dbits = (key_bits + passes - 1) / passes;
    const uint64_t mask = dbits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << dbits) - 1);
    int run = 0;
    for (int p = 0; p < passes; p++) {
        const int shift = p * dbits;
        if (shift < 64 && ((varying >> shift) & mask) != 0)
            run++;
    }
    return run;
}
