/*
 * io_particles.c: what the particle codes' text formats share (LAMMPS
 * dumps: io_lammps.c; XYZ: io_xyz.c): one frame of a trajectory, the
 * first or the one sc_io_read_options.frame names (negative: from the
 * end), the frames before it passed over by their counts (io_find_frame),
 * their atom rows unread; the caller's radii by type; atom ids; and the
 * atom rows, plain rows read in runs (io_runs.h) and, from
 * text_split_bytes of them on, in pieces on several threads
 * (read_row_pieces); any other row one at a time, as the serial loops read
 * it (io_fast_atom, io_fast_xyz).
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_decimal.h"
#include "io_particles.h"
#include "io_runs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- lines and tokens ------------------------------------------------------ */

/* ---- frames ----------------------------------------------------------------- */

/* n lines more; 1, or -1 naming the frame's count line when they are not
 * there. */
int io_skip_rows(const char *path, cursor *c, size_t n, size_t count_line, sc_io_status *st,
                 char *err, size_t errcap) {
    span l;
    for (size_t i = 0; i < n; i++)
        if (!next_line(c, &l)) {
            *st = io_fail(err, errcap, SC_IO_ERR_COUNT,
                          "%s: line %zu: the snapshot ends after "
                          "%zu of the %zu atoms of line %zu",
                          path, c->line + 1, i, n, count_line);
            return -1;
        }
    return 1;
}

/* Moves c to the start of frame `frame` (0 the first; negative from the
 * end) past blank lines; SC_IO_ERR_ARGUMENT when there is no such frame. */
sc_io_status io_find_frame(const char *path, cursor *c, long frame, skip_fn skip, char *err,
                           size_t errcap) {
    if (frame == 0)
        return SC_IO_OK;
    sc_io_status st = SC_IO_OK;
    long target = frame, seen = 0;
    int r;
    if (frame < 0) { /* count them first */
        cursor t = *c;
        while ((r = skip(path, &t, &st, err, errcap)) == 1)
            seen++;
        if (r < 0)
            return st;
        target = seen + frame;
        if (target < 0)
            return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                           "%s: %ld snapshots; frame %ld counts back past the first", path, seen,
                           frame);
    }
    for (long k = 0; k < target; k++)
        if ((r = skip(path, c, &st, err, errcap)) != 1)
            return r < 0 ? st
                         : io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                                   "%s: %ld snapshots; frame %ld is past them", path, k, frame);
    for (cursor t = *c;;) { /* blank lines to the frame's first line */
        span l;
        if (!next_line(&t, &l))
            return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                           "%s: %ld snapshots; frame %ld is past them", path, target, frame);
        if (!blank_line(&l))
            break;
        *c = t;
    }
    return SC_IO_OK;
}

/* ---- the caller's radii ---------------------------------------------------- */

sc_io_status io_parse_radii(const char *path, const char *spec, radius_table *t, char *err,
                            size_t errcap) {
    t->all = -1.0;
    t->n = 0;
    char q[128];
    const char *p = spec, *end = spec + strlen(spec);
    while (p < end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *e = comma ? comma : end, *eq = memchr(p, '=', (size_t)(e - p));
        const char *num = eq ? eq + 1 : p;
        double r = 0.0;
        if (io_parse_number(num, (size_t)(e - num), &r) != 0 || io_check_value(r, 1) != VALUE_OK ||
            (eq && eq == p) || (!eq && (p != spec || comma)) || t->n == 64)
            return io_fail(err, errcap, SC_IO_ERR_ARGUMENT,
                           "%s: radius %s must be R (every atom) or TYPE=R,TYPE=R,... (at most "
                           "64 types, R a radius the library accepts)",
                           path, io_quote(spec, strlen(spec), q, sizeof q));
        if (!eq) {
            t->all = r;
            return SC_IO_OK;
        }
        t->e[t->n].name = p;
        t->e[t->n].len = (size_t)(eq - p);
        t->e[t->n].r = r;
        t->n++;
        p = comma ? comma + 1 : end;
    }
    return SC_IO_OK;
}

/* The radius of a type (or element) token from the caller's table. */
/* The radius the caller's table gives the type (or element) [b, e): 1,
 * or 0 when it gives none. */
static int radius_of(const radius_table *radii, const char *b, const char *e, double *r) {
    const size_t len = (size_t)(e - b);
    for (size_t k = 0; k < radii->n; k++)
        if (len == radii->e[k].len && memcmp(b, radii->e[k].name, len) == 0) {
            *r = radii->e[k].r;
            return 1;
        }
    return 0;
}

sc_io_status io_type_radius(const char *path, size_t line, size_t atom, const char *what,
                            const radius_table *radii, const span *t, double *r, char *err,
                            size_t errcap) {
    if (radius_of(radii, t->b, t->e, r))
        return SC_IO_OK;
    const size_t len = (size_t)(t->e - t->b);
    char q[128];
    return io_fail(err, errcap, SC_IO_ERR_SYNTAX,
                   "%s: line %zu: %s %s has no radius given (atom %zu)", path, line, what,
                   io_quote(t->b, len, q, sizeof q), atom);
}

/* A field's number (*overflow: a finite literal beyond the doubles), or
 * the syntax error naming the line, the atom and the column. */
sc_io_status io_field_number(const char *path, size_t line, size_t atom, const char *col,
                             const span *t, double *v, int *overflow, char *err, size_t errcap) {
    const int pr = io_parse_number(t->b, (size_t)(t->e - t->b), v);
    *overflow = pr == 2;
    if (pr != 1)
        return SC_IO_OK;
    char q[128];
    return io_fail(err, errcap, SC_IO_ERR_SYNTAX,
                   "%s: line %zu: non-numeric token %s (atom %zu, column %s)", path, line,
                   io_quote(t->b, (size_t)(t->e - t->b), q, sizeof q), atom, col);
}

/* A field's value (as the reader will store it) checked as the other
 * readers check theirs. */
sc_io_status io_field_check(const char *path, size_t line, size_t atom, const char *col,
                            const span *t, double v, int overflow, int is_radius, char *err,
                            size_t errcap) {
    const io_value_check vc = overflow ? VALUE_OUT_OF_RANGE : io_check_value(v, is_radius);
    if (vc == VALUE_OK)
        return SC_IO_OK;
    char q[128];
    return io_fail(err, errcap, io_value_status(vc), "%s: line %zu: %s %s (atom %zu, column %s)",
                   path, line, io_value_problem(vc),
                   io_quote(t->b, (size_t)(t->e - t->b), q, sizeof q), atom, col);
}

/* ---- ids --------------------------------------------------------------------
 * Read apart from the rows, in one more pass over the frame's atom lines,
 * only when asked (sc_io_read_options.ids): the rows' fast paths stay as
 * they are, and the lines were checked by the rows' read (each has the
 * columns' fields). */

/* A whole number within int64 ([-+]digits); 0 otherwise. */
static int whole_int64(const span *t, int64_t *out) {
    const char *p = t->b;
    const int neg = p < t->e && *p == '-';
    p += p < t->e && (*p == '-' || *p == '+');
    if (p == t->e)
        return 0;
    uint64_t v = 0;
    const uint64_t max = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    for (; p < t->e; p++) {
        if (*p < '0' || *p > '9' || v > (max - (uint64_t)(*p - '0')) / 10)
            return 0;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v; /* -2^63 converts in two's complement */
    return 1;
}

static int cmp_id_row(const void *a, const void *b) {
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] > y[1]) - (x[1] < y[1]);
}

/* The first atom whose id an earlier one has: 1 with *first and *again,
 * 0 when all differ (or when the check's memory is not there: *nomem). A
 * bitmap over the ids' range where it is at most 64 bits per atom (the
 * usual 1..N, in any order), else a sort of (id, atom). */
static int repeated_id(const int64_t *ids, size_t n, size_t *first, size_t *again, int *nomem) {
    *nomem = 0;
    if (n < 2)
        return 0;
    int64_t lo = ids[0], hi = ids[0];
    for (size_t i = 1; i < n; i++) {
        lo = ids[i] < lo ? ids[i] : lo;
        hi = ids[i] > hi ? ids[i] : hi;
    }
    const uint64_t range = (uint64_t)hi - (uint64_t)lo; /* no overflow in uint64 */
    if (range / 64 <= n) {
        uint64_t *seen = calloc(range / 64 + 1, sizeof *seen);
        if (seen == NULL)
            return *nomem = 1, 0;
        size_t k = n;
        for (size_t i = 0; i < n && k == n; i++) {
            const uint64_t b = (uint64_t)ids[i] - (uint64_t)lo;
            if (seen[b / 64] >> (b % 64) & 1u)
                k = i;
            seen[b / 64] |= (uint64_t)1 << (b % 64);
        }
        free(seen);
        if (k == n)
            return 0;
        for (*first = 0; ids[*first] != ids[k]; ++*first)
            ;
        *again = k;
        return 1;
    }
    int64_t(*pr)[2] = malloc(n * sizeof *pr);
    if (pr == NULL)
        return *nomem = 1, 0;
    for (size_t i = 0; i < n; i++) {
        pr[i][0] = ids[i];
        pr[i][1] = (int64_t)i;
    }
    qsort(pr, n, sizeof *pr, cmp_id_row);
    size_t best = SIZE_MAX;
    for (size_t i = 1; i < n; i++)
        if (pr[i][0] == pr[i - 1][0] && (size_t)pr[i][1] < best) {
            best = (size_t)pr[i][1];
            *first = (size_t)pr[i - 1][1];
        }
    free(pr);
    *again = best;
    return best != SIZE_MAX;
}

/* The ids of the n atom lines from c (column col, counted from 0 in each
 * line's blank-separated fields) into out->ids, every one checked. */
sc_io_status io_read_ids(const char *path, cursor c, size_t n, int col, sc_io_spheres *out,
                         char *err, size_t errcap) {
    int64_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (ids == NULL)
        return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: no memory for %zu ids", path, n);
    const size_t first_line = c.line + 1;
    for (size_t i = 0; i < n; i++) {
        span l = {NULL, NULL}, t = {NULL, NULL};
        const int ok = next_line(&c, &l);
        int k = 0; /* fields read; t is field col once k passes it */
        for (const char *at = l.b; ok && k <= col && next_token(&at, l.e, &t); k++)
            ;
        if (k != col + 1 || !whole_int64(&t, &ids[i])) {
            char q[128];
            free(ids);
            return io_fail(
                err, errcap, SC_IO_ERR_SYNTAX,
                "%s: line %zu: the id %s is not a whole number within int64 (atom %zu)", path,
                c.line, k == col + 1 ? io_quote(t.b, (size_t)(t.e - t.b), q, sizeof q) : "\"\"", i);
        }
    }
    size_t a = 0, b = 0;
    int nomem = 0;
    if (repeated_id(ids, n, &a, &b, &nomem) || nomem) {
        const int64_t id = nomem ? 0 : ids[b];
        free(ids);
        if (nomem)
            return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: no memory to check %zu ids", path, n);
        return io_fail(err, errcap, SC_IO_ERR_DUPLICATE_ID,
                       "%s: line %zu: id %lld again (atom %zu; atom %zu on line %zu has it)", path,
                       first_line + b, (long long)id, b, a, first_line + a);
    }
    out->ids = ids;
    out->owned_ids_ = ids;
    return SC_IO_OK;
}

/* ---- the reader ------------------------------------------------------------- */

/* Skips the token at *p (a byte other than a blank or a line end at *p);
 * 0 when it holds a byte next_token reads as a blank and the one-pass
 * paths do not ('\v', '\f'). */
static int skip_token(const char **p, const char *e) {
    const char *q = *p;
    for (; q < e && *q != ' ' && *q != '\t'; q++)
        if (*q == '\v' || *q == '\f')
            return 0;
    *p = q;
    return 1;
}

/* The number of the field at p of line l, read in one pass: its end, or
 * NULL unless the number is the whole field (a blank or the line's end
 * after it). `end` is the data's end. */
static const char *field_number_at(const char *p, const span *l, const char *end, double *v) {
    const char *q = io_scan_number(p, end, v);
    return q == NULL || (q < l->e && *q != ' ' && *q != '\t') ? NULL : q;
}

/* An atom row read in one pass: each named column's number where the
 * general loop below puts it (scaled, halved, checked the same way), other
 * fields skipped unread; r_all is the radius of a dump without a radius or
 * diameter column. 0 for anything the general loop must read or word: a
 * number the one-pass parser does not take whole, a value the checks
 * refuse, another field count, a byte next_token reads as a blank that
 * this path does not ('\v', '\f'). `end` is the data's end. */
int io_fast_atom(const span *l, const char *end, const columns *cols, int dims, const double lo[3],
                 const double hi[3], double r_all, double *row) {
    const char *p = l->b;
    double r = r_all;
    int k = 0;
    for (;; k++) {
        if ((p = io_skip_blanks(p, l->e)) == l->e)
            break;
        int axis = -1;
        for (int a = 0; a < dims; a++)
            axis = k == cols->pos[a] ? a : axis;
        const int is_r = k == cols->radius || k == cols->diameter;
        if (axis < 0 && !is_r) {
            if (!skip_token(&p, l->e))
                return 0;
            continue;
        }
        double v;
        const char *q = field_number_at(p, l, end, &v);
        if (q == NULL)
            return 0;
        if (axis >= 0 && cols->scaled[axis])
            v = lo[axis] + v * (hi[axis] - lo[axis]);
        if (k == cols->diameter && k != cols->radius)
            v = 0.5 * v;
        if (!io_value_ok(v, is_r))
            return 0;
        if (axis >= 0)
            row[axis] = v;
        else if (k == cols->radius || cols->radius == COL_NONE)
            r = v;
        p = q;
    }
    if (k != cols->count)
        return 0;
    row[dims] = r;
    return 1;
}

/* ---- XYZ's columns and one-pass line; runs of either format's rows ------- */

/* An XYZ atom line read in one pass, as the general loop below reads it:
 * the element's radius from the caller's table where the radii go by
 * element, the position's and radius property's numbers (checked the same
 * way), other fields skipped unread, fields past the columns' allowed. 0
 * for anything the general loop must read or word. `end` is the data's
 * end. */
int io_fast_xyz(const span *l, const char *end, const xyz_columns *cols, int dims,
                const radius_table *radii, double *row) {
    const char *p = l->b;
    double r = radii->all;
    int k = 0;
    for (;; k++) {
        if ((p = io_skip_blanks(p, l->e)) == l->e)
            break;
        if (k == cols->species && cols->radius == COL_NONE && radii->all < 0.0) {
            const char *b = p;
            if (!skip_token(&p, l->e) || !radius_of(radii, b, p, &r))
                return 0;
            continue;
        }
        const int axis = k >= cols->pos && k < cols->pos + 3 ? k - cols->pos : -1;
        if ((axis < 0 || axis >= dims) && k != cols->radius) {
            if (!skip_token(&p, l->e))
                return 0;
            continue;
        }
        double v;
        const char *q = field_number_at(p, l, end, &v);
        if (q == NULL)
            return 0;
        const int is_r = axis < 0;
        if (!io_value_ok(v, is_r))
            return 0;
        if (is_r)
            r = v;
        else
            row[axis] = v;
        p = q;
    }
    if (k < cols->count)
        return 0;
    row[dims] = r;
    return 1;
}

#ifdef SC_LINE_RUN
/* The radii of a run's rows by the name io_line_run parked in each row's
 * radius (IO_SLOT_NAME: an element, a type), from the caller's table. The
 * run checked that the name ends at a blank or the line's '\n' (or
 * "\r\n") and holds no '\r'; it may hold a NUL. 0 when a name has none:
 * the caller reads those lines again one at a time, and the message there
 * names the line. */
static int radii_by_name(double *rows, size_t lines, int dims, const radius_table *radii) {
    const size_t width = (size_t)dims + 1;
    for (size_t i = 0; i < lines; i++) {
        double *r = rows + i * width + dims;
        const char *b, *e;
        memcpy(&b, r, sizeof b);
        for (e = b; *e != ' ' && *e != '\r' && *e != '\n'; e++)
            ;
        if (!radius_of(radii, b, e, r))
            return 0;
    }
    return 1;
}

/* The rows a run of plain atom lines left (io_line_run:
 * each named column's short decimal at its place, a radius or diameter not
 * negative) made what the one-line paths make of them: scaled coordinates
 * mapped into the box, a diameter halved, the caller's radius (one for
 * all, or by type) where the dump has none. 0 when a value the checks
 * refuse (a scaled coordinate beyond the limit) or a type without a
 * radius: the caller reads those lines again one at a time, and the checks
 * there name the line. */
static int finish_run(double *rows, size_t lines, int dims, const columns *cols, const double lo[3],
                      const double hi[3], const radius_table *radii) {
    const size_t width = (size_t)dims + 1;
    int ok = 1;
    for (int a = 0; a < dims; a++)
        if (cols->scaled[a])
            for (size_t i = 0; i < lines; i++) {
                double *v = rows + i * width + a;
                *v = lo[a] + *v * (hi[a] - lo[a]);
                ok &= io_value_ok(*v, 0);
            }
    if (cols->radius != COL_NONE)
        return ok;
    if (cols->diameter == COL_NONE && radii->all < 0.0)
        return ok && radii_by_name(rows, lines, dims, radii);
    for (size_t i = 0; i < lines; i++) {
        double *r = rows + i * width + dims;
        *r = cols->diameter != COL_NONE ? 0.5 * *r : radii->all;
    }
    return ok;
}

/* The radii of a run of plain XYZ atom lines, where io_line_run left no
 * radius property: the caller's one for all, or each element's (parked
 * there as IO_SLOT_NAME). 0 when an element has none. */
static int finish_xyz_run(double *rows, size_t lines, int dims, const xyz_columns *cols,
                          const radius_table *radii) {
    if (cols->radius != COL_NONE)
        return 1;
    if (radii->all < 0.0)
        return radii_by_name(rows, lines, dims, radii);
    for (size_t i = 0; i < lines; i++)
        rows[i * ((size_t)dims + 1) + (size_t)dims] = radii->all;
    return 1;
}

/* A run of plain rows from p into rows, at most max: *taken rows, *q past
 * them. 0 where the run's values need the one-line paths (finish_run or
 * finish_xyz_run refused them), *taken 0 and *q p. */
static int run_rows(const row_format *rf, const char *p, const char *end, double *rows, size_t max,
                    size_t *taken, const char **q) {
    size_t tok_len;
    const char *tok;
    *q = io_line_run(p, end, rows, rf->fields, rf->slot, (size_t)rf->dims + 1, rf->rcol, max,
                     rf->flags, taken, &tok, &tok_len);
    if (*taken == 0)
        return 1;
    if (rf->xcols ? finish_xyz_run(rows, *taken, rf->dims, rf->xcols, rf->radii)
                  : finish_run(rows, *taken, rf->dims, rf->cols, rf->lo, rf->hi, rf->radii))
        return 1;
    *taken = 0;
    *q = p;
    return 0;
}

/* One plain row as fast_atom or fast_xyz reads it; 0 when it declines. */
static int one_row(const row_format *rf, const span *l, const char *data_end, double *row) {
    if (rf->xcols)
        return io_fast_xyz(l, data_end, rf->xcols, rf->dims, rf->radii, row);
    const columns *cols = rf->cols;
    if (rf->radii->all >= 0.0 || cols->radius != COL_NONE || cols->diameter != COL_NONE)
        return io_fast_atom(l, data_end, cols, rf->dims, rf->lo, rf->hi, rf->radii->all, row);
    /* radii by type: the type's token as the general loop splits the line */
    if (!io_fast_atom(l, data_end, cols, rf->dims, rf->lo, rf->hi, 0.0, row))
        return 0;
    span t;
    const char *at = l->b;
    for (int k = 0; next_token(&at, l->e, &t); k++)
        if (k == cols->type)
            return radius_of(rf->radii, t.b, t.e, row + rf->dims);
    return 0;
}

#endif

#if defined(SC_LINE_RUN) && defined(_OPENMP)
/* ---- rows on several threads --------------------------------------------------
 * As the text reader's pieces (io_text.c): from IO_SPLIT_MIN bytes of rows
 * on (sc_io_read_options.text_split_bytes), the bytes the snapshot's rows
 * take (estimated from its first lines, so a long trajectory is not
 * scanned for one snapshot) are cut at line ends into a piece per thread.
 * The line ends of every piece but the last are counted first, so each
 * piece knows its first row and reads into its place. A piece reads runs
 * and the lines fast_atom or fast_xyz takes, and stops at any other line
 * (or a run the finish refuses); the serial loop goes on from the first
 * piece that stopped short, so every later row is read there again and
 * every error is worded as the serial loop words it. */
typedef struct row_piece {
    const char *begin, *end, *stop;
    size_t first, rows, done; /* its first row, the rows it may read, those it read */
} row_piece;

static void read_row_piece(row_piece *pc, const row_format *rf, const char *data_end,
                           double *rows) {
    const size_t width = (size_t)rf->dims + 1;
    const char *p = pc->begin;
    size_t i = 0;
    run_state rs = {1, 0, 0};
    while (i < pc->rows) {
        if (rs.on) {
            size_t taken;
            const char *q;
            if (!run_rows(rf, p, pc->end, rows + (pc->first + i) * width, pc->rows - i, &taken, &q))
                break;
            p = q;
            i += taken;
            rs.tries++;
            rs.lines += taken;
            rs.on = rs.tries < 16 || rs.lines >= 4 * rs.tries;
            if (i == pc->rows)
                break;
        }
        /* one line; a lone '\r' (a line end to next_line) is the serial loop's */
        const char *nl = memchr(p, '\n', (size_t)(pc->end - p));
        if (nl == NULL)
            break;
        const span l = {p, nl > p && nl[-1] == '\r' ? nl - 1 : nl};
        if (memchr(l.b, '\r', (size_t)(l.e - l.b)) != NULL ||
            !one_row(rf, &l, data_end, rows + (pc->first + i) * width))
            break;
        p = nl + 1;
        i++;
    }
    pc->done = i;
    pc->stop = p;
}

/* Reads a prefix of the n rows at c on several threads; returns how many,
 * c moved past them (0 and c unmoved when the rows are too few bytes for
 * pieces, or one thread is asked for). */
static size_t read_row_pieces(cursor *c, double *rows, size_t n, const row_format *rf,
                              const sc_io_read_options *opts) {
    int threads = opts && opts->threads > 0 ? opts->threads : omp_get_num_procs();
    threads = threads < IO_PIECES_MAX ? threads : IO_PIECES_MAX;
    const size_t split = opts && opts->text_split_bytes ? opts->text_split_bytes : IO_SPLIT_MIN;
    const size_t rest = (size_t)(c->end - c->p);
    if (threads < 2 || n == 0 || rest < split)
        return 0;
    /* the rows' bytes: the first lines' mean, an eighth more, whole lines */
    const char *q = c->p;
    size_t seen = 0;
    for (; seen < 256 && seen < n && q < c->end; seen++) {
        const char *nl = memchr(q, '\n', (size_t)(c->end - q));
        q = nl ? nl + 1 : c->end;
    }
    const size_t mean = (size_t)(q - c->p) / (seen ? seen : 1) + 1;
    const size_t bytes = n < rest / mean ? n * mean + n * mean / 8 + 4096 : rest;
    if ((bytes < rest ? bytes : rest) < split)
        return 0;
    const char *const end = c->p + (bytes < rest ? bytes : rest);
    size_t np = (size_t)(end - c->p) / IO_PIECE_MIN;
    np = np < (size_t)threads ? np : (size_t)threads;
    if (np < 2)
        return 0;
    row_piece pcs[IO_PIECES_MAX];
    const char *b = c->p;
    size_t made = 0;
    for (size_t k = 0; k < np && b < end; k++) {
        const char *e = k + 1 == np ? end : c->p + (size_t)(end - c->p) * (k + 1) / np;
        e = e < b ? b : e;
        while (e < c->end && e[-1] != '\n')
            e++;
        pcs[made].begin = b;
        pcs[made].end = e;
        made++;
        b = e;
    }
    if (made < 2) /* a line longer than the rest's pieces */
        return 0;
    size_t lines[IO_PIECES_MAX];
#pragma omp parallel for num_threads((int)made - 1) schedule(dynamic, 1)
    for (int k = 0; k < (int)made - 1; k++)
        lines[k] = io_line_ends(pcs[k].begin, pcs[k].end);
    size_t first = 0;
    for (size_t k = 0; k < made; k++) {
        pcs[k].first = first < n ? first : n;
        pcs[k].rows = n - pcs[k].first;
        if (k + 1 < made) {
            pcs[k].rows = lines[k] < pcs[k].rows ? lines[k] : pcs[k].rows;
            first += lines[k];
        }
        pcs[k].done = 0;
        pcs[k].stop = pcs[k].begin;
    }
#pragma omp parallel for num_threads((int)made) schedule(dynamic, 1)
    for (int k = 0; k < (int)made; k++)
        if (pcs[k].rows)
            read_row_piece(&pcs[k], rf, c->end, rows);
    /* the prefix every piece before read whole */
    size_t done = 0;
    const char *stop = c->p;
    for (size_t k = 0; k < made; k++) {
        done = pcs[k].first + pcs[k].done;
        stop = pcs[k].stop;
        if (pcs[k].done < pcs[k].rows || done == n)
            break;
    }
    c->p = stop;
    c->line += done;
    return done;
}
#endif

/* Rows i.. of n as a run, where runs still pay; returns the next row, c
 * moved past the run. A run the finish refused turns runs off: its lines
 * are read one at a time, and the checks there name the line. */
size_t io_try_run(const row_format *rf, run_state *rs, cursor *c, double *rows, size_t i,
                  size_t n) {
#ifndef SC_LINE_RUN
    (void)rf, (void)rs, (void)c, (void)rows, (void)n;
    return i;
#else
    if (!rs->on)
        return i;
    size_t taken;
    const char *q;
    if (!run_rows(rf, c->p, c->end, rows + i * ((size_t)rf->dims + 1), n - i, &taken, &q)) {
        rs->on = 0;
        return i;
    }
    c->p = q;
    c->line += taken;
    rs->tries++;
    rs->lines += taken;
    rs->on = rs->tries < 16 || rs->lines >= 4 * rs->tries;
    return i + taken;
#endif
}
/* The rows read before the serial loop: a prefix on several threads,
 * where pieces pay (read_row_pieces); returns how many, c moved past them. */
size_t io_rows_ahead(cursor *c, double *rows, size_t n, const row_format *rf, const run_state *rs,
                     const sc_io_read_options *opts) {
#if defined(SC_LINE_RUN) && defined(_OPENMP)
    return rs->on ? read_row_pieces(c, rows, n, rf, opts) : 0;
#else
    (void)c, (void)rows, (void)n, (void)rf, (void)rs, (void)opts;
    return 0;
#endif
}

/* ---- XYZ ------------------------------------------------------------------------ */
