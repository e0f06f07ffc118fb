/*
 * runner_util.h: what the C and C++ comparison runners share besides the
 * .npy reader: a monotonic clock, the median of the repeat times, the
 * process's peak resident set, the outward rounding of box bounds, and the
 * one result line every runner prints on stdout:
 *
 *   pairs=K checksum=0x%016x seconds=S peak_rss_mb=M threads=T repeats=R times=t1,t2,...
 *
 * seconds is the median of the R repeat times (each excludes reading the
 * file); peak_rss_mb is getrusage's ru_maxrss of the whole process (the input
 * rows included), in MiB. run-compare.sh parses this line.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SC_COMPARE_RUNNER_UTIL_H
#define SC_COMPARE_RUNNER_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static inline double runner_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int runner_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/** Median of t[0..k-1] (k >= 1; the mean of the middle two when k is even).
 *  Sorts a copy; t is left as measured. */
static inline double runner_median(const double *t, int k) {
    double *c = (double *)malloc((size_t)k * sizeof *c);
    if (!c)
        return t[0];
    for (int i = 0; i < k; i++)
        c[i] = t[i];
    qsort(c, (size_t)k, sizeof *c, runner_cmp_double);
    double m = k % 2 ? c[k / 2] : 0.5 * (c[k / 2 - 1] + c[k / 2]);
    free(c);
    return m;
}

/** Peak resident set of this process so far, MiB (Linux: ru_maxrss in KiB). */
static inline double runner_peak_rss_mb(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1.0;
    return (double)ru.ru_maxrss / 1024.0;
}

/*
 * Outward rounding of a bound derived from x and r. The double predicate
 * accepts a pair whose real distance exceeds ri + rj by up to about
 * 4 ulp(ri + rj), and x - r, x + r rounded to nearest are off by up to half an
 * ulp of |x| + r; so a box computed as [x - r, x + r] can miss a pair that the
 * predicate accepts (the exact test afterwards cannot recover a pair the broad
 * phase never proposed). Each bound is moved out by 8 u (|x| + r), u = 2^-53,
 * plus 2^-536 (below that, squares underflow and the predicate may accept
 * distinct points of radius 0), then one more ulp with nextafter to cover the
 * rounding of that subtraction or addition.
 */
static inline double runner_box_lo(double x, double r) {
    double e = (fabs(x) + r) * 0x1p-50 + 0x1p-536;
    return nextafter((x - r) - e, -INFINITY);
}

static inline double runner_box_hi(double x, double r) {
    double e = (fabs(x) + r) * 0x1p-50 + 0x1p-536;
    return nextafter((x + r) + e, INFINITY);
}

/** The result line (see the header comment). */
static inline void runner_print_result(uint64_t pairs, uint64_t checksum, const double *times,
                                       int repeats, int threads) {
    printf(
        "pairs=%llu checksum=0x%016llx seconds=%.9g peak_rss_mb=%.1f threads=%d repeats=%d times=",
        (unsigned long long)pairs, (unsigned long long)checksum, runner_median(times, repeats),
        runner_peak_rss_mb(), threads, repeats);
    for (int k = 0; k < repeats; k++)
        printf("%s%.6g", k ? "," : "", times[k]);
    printf("\n");
    fflush(stdout);
}

#endif /* SC_COMPARE_RUNNER_UTIL_H */
