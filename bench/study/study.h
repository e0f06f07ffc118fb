/*
 * study.h: the performance study's own computations, kept apart from the
 * driver (sc_study.c) so that tests/test_study.c can check them by value:
 *
 *   study_median         median of a sample, the statistic every table shows
 *   study_csv_*          an RFC 4180 CSV writer (quoting, fixed columns)
 *   study_floor_*        the byte-floor model: the least memory traffic each
 *                        pipeline stage must cause, from n, the radix sort's
 *                        passes and the row count
 *   study_counters_*     hardware cache counters through PAPI when the build
 *                        has it, behind a small backend interface; a counter
 *                        that cannot be read is "unavailable", never 0
 *   study_perm_*         bench-side input orders: shuffled, Morton-sorted
 *
 * None of it touches the engine; sc_study.c glues it to the library.
 */
#ifndef SC_STUDY_H
#define SC_STUDY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- statistics ---------------------------------------------------------- */

/* Median of v[0..n): the middle value, or the mean of the two middle values
 * when n is even; NaN when n == 0 (or when scratch memory cannot be had).
 * v is left as it was. NaNs in v are not expected. */
double study_median(const double *v, size_t n);

/* ---- CSV writer ------------------------------------------------------------ */

/* Writes one header row, then rows of exactly `ncols` fields. Fields are
 * quoted only when they contain a comma, a double quote, CR or LF; quotes
 * inside are doubled (RFC 4180). Rows end with "\n". */
typedef struct study_csv {
    FILE *f;
    int ncols;
    int col;    /* fields written in the current row */
    int errors; /* rows whose field count was wrong, or write failures */
} study_csv;

/* Starts a CSV on f with the given column names (written as the header).
 * Returns 0, or -1 if ncols < 1 or a name is NULL. */
int study_csv_begin(study_csv *w, FILE *f, const char *const *names, int ncols);
void study_csv_str(study_csv *w, const char *s); /* NULL writes an empty field */
void study_csv_int(study_csv *w, long long v);
void study_csv_u64(study_csv *w, uint64_t v);
void study_csv_hex(study_csv *w, uint64_t v); /* 0x + 16 lowercase hex digits */
/* %.9g; NaN and infinities write an empty field (a missing value). */
void study_csv_num(study_csv *w, double v);
/* Ends the row. Returns 0, or -1 when the row had a field count other than
 * ncols (the row is still terminated so the file stays line-aligned). */
int study_csv_end_row(study_csv *w);
/* Escapes one field into out (always NUL-terminated when cap > 0); returns
 * the length the escaped field needs (like snprintf). */
size_t study_csv_escape(const char *s, char *out, size_t cap);

/* ---- the byte-floor model --------------------------------------------------- */

/* Stages, in the order of sc_stage (spherecollide.h). */
enum {
    STUDY_STAGE_BOUNDS,
    STUDY_STAGE_KEYS,
    STUDY_STAGE_SORT,
    STUDY_STAGE_GATHER,
    STUDY_STAGE_CELLS,
    STUDY_STAGE_SEARCH,
    STUDY_STAGE_MERGE,
    STUDY_STAGES
};

/* Bytes per sphere (or per row) of the model; see docs/study.md. */
#define STUDY_B_INPUT 32      /* x, y, z, r as float64 */
#define STUDY_B_KEY_WRITE 12  /* 64-bit key + 32-bit index */
#define STUDY_B_PASS_READ 12  /* one radix pass reads (key, index) ... */
#define STUDY_B_PASS_WRITE 12 /* ... and writes it */
#define STUDY_B_WORD                                                                               \
    8                        /* packed: key << b | index, one 64-bit word,
                                   which the keys write and each pass reads
                                   and writes; the row stage writes the index */
#define STUDY_B_INDEX 4      /* the sorted permutation */
#define STUDY_B_WORK 32      /* the gathered float64 working copy */
#define STUDY_B_XQ 4         /* quantised x per sphere (row table stage) */
#define STUDY_B_SORTED_KEY 8 /* the row stage reads each sorted key */
#define STUDY_B_ROW 12       /* row table entry: 64-bit key + 32-bit start */

typedef struct study_floor {
    double bytes[STUDY_STAGES]; /* least bytes each stage must move */
    double total;
} study_floor;

/* Least bytes moved per stage for n spheres whose sort runs `passes` radix
 * passes and whose row table has `rows` entries. gathered != 0: the engine's
 * default layout (working copy); 0: the indirect layout, where the gather is
 * skipped and the search reads the input through the permutation.
 * packed != 0: the sort moves packed words (key << b | index, 8 bytes)
 * instead of (key, index) pairs (12), and the row stage writes the index. */
void study_floor_bytes(uint64_t n, int passes, uint64_t rows, int gathered, int packed,
                       study_floor *out);

/* The engine's radix pass count (src/stages/radix_sort.c): digits of at most
 * max_digit_bits over key_bits bits, split evenly, and only the digits in
 * which some key differs from the first (`varying` = OR of key ^ key[0]) are
 * run. n < 2 or key_bits <= 0: 0 passes. */
int study_radix_passes(uint64_t n, int key_bits, uint64_t varying, int max_digit_bits);

/* ---- cache counters ------------------------------------------------------- */

#define STUDY_MAX_COUNTERS 4
#define STUDY_UNAVAILABLE "unavailable"

/* A counter source. init returns 0 when usable (else fills why); add returns
 * 0 when the named event could be added (each add takes the next slot);
 * stop writes one value per added event. */
typedef struct study_counter_backend {
    const char *name;
    int (*init)(void *self, char *why, size_t cap);
    int (*add)(void *self, const char *event);
    int (*start)(void *self);
    int (*stop)(void *self, long long *values);
    void (*close)(void *self);
    void *self;
} study_counter_backend;

typedef struct study_counters {
    study_counter_backend be;
    int nevents;
    const char *events[STUDY_MAX_COUNTERS];
    int slot[STUDY_MAX_COUNTERS]; /* index into the backend's values, -1: unavailable */
    int nslots;
    int usable; /* backend initialised and at least one event added */
    int running;
    long long value[STUDY_MAX_COUNTERS]; /* of the last start/stop */
    int have_value;                      /* the last stop succeeded */
    char why[160];                       /* why counters are unavailable */
} study_counters;

/* The backend this build has: PAPI when compiled with SC_STUDY_HAVE_PAPI,
 * otherwise one whose init fails with "built without PAPI". */
study_counter_backend study_counters_default_backend(void);

/* Opens the events on a backend. Never fails: whatever cannot be had is
 * reported as unavailable by study_counters_get. */
void study_counters_open(study_counters *c, const study_counter_backend *be,
                         const char *const *events, int nevents);
/* Starts / stops counting around a measured region. A failed start or stop
 * makes the values of that region unavailable. */
void study_counters_start(study_counters *c);
void study_counters_stop(study_counters *c);
/* 1 and *v set when event k of the last region was counted; 0 otherwise. */
int study_counters_get(const study_counters *c, int k, long long *v);
void study_counters_close(study_counters *c);

/* A counter value for the CSV: the number (%.6g) when available, else
 * "unavailable". Never writes "0" for a counter that was not read. */
const char *study_counter_format(int available, double value, char *buf, size_t cap);

/* ---- input orders (bench-side permutations) ------------------------------ */

/* perm[k] = k. */
void study_perm_identity(uint32_t *perm, size_t n);
/* A uniformly random permutation (Fisher-Yates, xoshiro-free splitmix64
 * stream from seed): deterministic for a given (n, seed). */
void study_perm_shuffle(uint32_t *perm, size_t n, uint64_t seed);
/* Sphere order along a Morton (Z-order) curve of the centres, 21 bits per
 * axis over the centres' bounding box; ties keep input order. rows holds
 * x, y, z, r per sphere. Returns 0, or -1 when memory is short. */
int study_perm_morton(uint32_t *perm, const double *rows, size_t n);
/* The 63-bit Morton code of quantised coordinates (each < 2^21). */
uint64_t study_morton3(uint32_t qx, uint32_t qy, uint32_t qz);
/* out[k] = in[perm[k]] for rows of 4 doubles. */
void study_perm_apply_rows(double *out, const double *in, const uint32_t *perm, size_t n);

#endif /* SC_STUDY_H */
