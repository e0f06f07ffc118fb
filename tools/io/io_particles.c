/*
 * io_particles.c: the particle codes' text formats, one frame of a
 * trajectory: LAMMPS dumps and (extended) XYZ files, sharing lines, tokens
 * and the caller's radii by type. The frame is the first, or the one
 * sc_io_read_options.frame names (negative: from the end); the frames
 * before it are passed over by their counts (find_frame), their atom rows
 * unread.
 *
 * LAMMPS text dumps (`dump atom` or `dump custom`). A snapshot is read:
 *
 *   ITEM: TIMESTEP / ITEM: UNITS / ITEM: TIME ...   (skipped)
 *   ITEM: NUMBER OF ATOMS     N
 *   ITEM: BOX BOUNDS [flags]  xlo xhi / ylo yhi / zlo zhi
 *   ITEM: ATOMS name name ... then N rows of as many fields
 *
 * Columns are found by name, in any order: x, xu (unwrapped) or xs, xsu
 * (scaled: lo + s (hi - lo) in double), the same for y and z; radius, or
 * diameter (halved, exactly); or, without either, the radius given by the
 * caller (sc_io_read_options.radius: one for every atom, or per the type
 * column's text). Other columns are skipped unread. The box's bounds and its
 * boundary flags (pp: periodic) are returned for a periodic query; a
 * triclinic box (xy xz yz) is read with unscaled positions and gives no box
 * (scaled ones are refused: they need the tilt). Values are checked as the text reader checks
 * them; every error names the file, the line and the column.
 *
 * In both formats plain rows are read in runs (io_runs.h) and, from
 * text_split_bytes of them on, in pieces on several threads
 * (read_row_pieces); any other row one at a time, as the serial loops read
 * it.
 *
 * XYZ: a count line, a comment line, then one atom per line: an element (or
 * type) name and x y z, other columns ignored. Extended XYZ's comment line
 * may name the columns (Properties=species:S:1:pos:R:3:radius:R:1, any
 * order and other properties between) and the cell (Lattice="ax ay az bx by
 * bz cx cy cz", orthogonal only, from the origin; pbc="T T F"). The radius
 * is the radius property's, else the caller's (for all, or per element).
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_decimal.h"
#include "io_internal.h"
#include "io_runs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int io_looks_lammps(const io_file *f) {
    return f->size >= 5 && memcmp(f->data, "ITEM:", 5) == 0;
}

/* ---- lines and tokens ------------------------------------------------------ */

typedef struct cursor {
    const char *p, *end;
    size_t line; /* of the line last returned */
} cursor;

typedef struct span {
    const char *b, *e;
} span;

/* The next line (without its \n, \r\n or \r); 0 at the end of the data. */
static int next_line(cursor *c, span *l) {
    if (c->p >= c->end)
        return 0;
    const char *b = c->p, *e = b;
    while (e < c->end && *e != '\n' && *e != '\r')
        e++;
    const char *p = e;
    if (p < c->end && *p == '\r')
        p++;
    if (p < c->end && *p == '\n' && (p == e || p[-1] == '\r'))
        p++;
    c->p = p;
    c->line++;
    l->b = b;
    l->e = e;
    return 1;
}

static int blank(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f';
}

/* The next blank-separated token of *l from *at; 0 when none is left. */
static int next_token(const char **at, const char *end, span *t) {
    const char *p = *at;
    while (p < end && blank(*p))
        p++;
    if (p >= end)
        return 0;
    const char *b = p;
    while (p < end && !blank(*p))
        p++;
    t->b = b;
    t->e = p;
    *at = p;
    return 1;
}

static int token_is(const span *t, const char *word) {
    const size_t n = strlen(word);
    return (size_t)(t->e - t->b) == n && memcmp(t->b, word, n) == 0;
}

/* Whether line l starts with "ITEM: " + what; *rest gets what follows. */
static int item(const span *l, const char *what, const char **rest) {
    const size_t n = strlen(what);
    if ((size_t)(l->e - l->b) < 6 + n || memcmp(l->b, "ITEM: ", 6) != 0 ||
        memcmp(l->b + 6, what, n) != 0)
        return 0;
    *rest = l->b + 6 + n;
    return 1;
}

/* Whether line l holds only blanks. */
static int blank_line(const span *l) {
    for (const char *p = l->b; p < l->e; p++)
        if (!blank(*p))
            return 0;
    return 1;
}

/* A whole number line (TIMESTEP's, NUMBER OF ATOMS'). */
static int whole_number(const span *l, size_t *out) {
    const char *at = l->b;
    span t;
    if (!next_token(&at, l->e, &t) || next_token(&at, l->e, &(span){0, 0}))
        return 0;
    size_t v = 0;
    for (const char *p = t.b; p < t.e; p++) {
        if (*p < '0' || *p > '9' || v > (SIZE_MAX - 9) / 10)
            return 0;
        v = v * 10 + (size_t)(*p - '0');
    }
    *out = v;
    return 1;
}

/* ---- frames ----------------------------------------------------------------- */

/* Passes over one frame from c; 1 when it did, 0 at the end of the data
 * (blank lines at most), -1 on a malformed frame (*st, err set). */
typedef int (*skip_fn)(const char *path, cursor *c, sc_io_status *st, char *err, size_t errcap);

/* n lines more; 1, or -1 naming the frame's count line when they are not
 * there. */
static int skip_rows(const char *path, cursor *c, size_t n, size_t count_line, sc_io_status *st,
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

/* A LAMMPS snapshot: items up to ITEM: ATOMS, then NUMBER OF ATOMS rows. */
static int lammps_skip(const char *path, cursor *c, sc_io_status *st, char *err, size_t errcap) {
    span l;
    size_t n = SIZE_MAX, count_line = 0;
    int any = 0;
    while (next_line(c, &l)) {
        if (!any && blank_line(&l))
            continue;
        any = 1;
        const char *rest;
        if (item(&l, "NUMBER OF ATOMS", &rest)) {
            if (!next_line(c, &l) || !whole_number(&l, &n)) {
                *st = io_fail(err, errcap, SC_IO_ERR_SYNTAX,
                              "%s: line %zu: the number of atoms must be a whole number", path,
                              c->line);
                return -1;
            }
            count_line = c->line;
        } else if (item(&l, "ATOMS", &rest)) {
            if (n == SIZE_MAX)
                break;
            return skip_rows(path, c, n, count_line, st, err, errcap);
        }
    }
    if (!any)
        return 0;
    *st = io_fail(err, errcap, SC_IO_ERR_HEADER,
                  "%s: line %zu: a snapshot without ITEM: NUMBER OF ATOMS then ITEM: ATOMS", path,
                  c->line);
    return -1;
}

/* An XYZ frame: the count line, the comment line, count atom lines. */
static int xyz_skip(const char *path, cursor *c, sc_io_status *st, char *err, size_t errcap) {
    span l;
    size_t n = 0;
    do
        if (!next_line(c, &l))
            return 0;
    while (blank_line(&l));
    if (!whole_number(&l, &n)) {
        *st = io_fail(err, errcap, SC_IO_ERR_HEADER,
                      "%s: line %zu: an XYZ frame starts with the atom count", path, c->line);
        return -1;
    }
    const size_t count_line = c->line;
    if (!next_line(c, &l)) {
        *st = io_fail(err, errcap, SC_IO_ERR_COUNT,
                      "%s: line %zu: no comment line after the "
                      "count",
                      path, c->line + 1);
        return -1;
    }
    return skip_rows(path, c, n, count_line, st, err, errcap);
}

/* Moves c to the start of frame `frame` (0 the first; negative from the
 * end) past blank lines; SC_IO_ERR_ARGUMENT when there is no such frame. */
static sc_io_status find_frame(const char *path, cursor *c, long frame, skip_fn skip, char *err,
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

typedef struct radius_table {
    double all; /* >= 0: every atom; -1: by type */
    size_t n;
    struct {
        const char *name;
        size_t len;
        double r;
    } e[64];
} radius_table;

static sc_io_status parse_radii(const char *path, const char *spec, radius_table *t, char *err,
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

static sc_io_status type_radius(const char *path, size_t line, size_t atom, const char *what,
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
static sc_io_status field_number(const char *path, size_t line, size_t atom, const char *col,
                                 const span *t, double *v, int *overflow, char *err,
                                 size_t errcap) {
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
static sc_io_status field_check(const char *path, size_t line, size_t atom, const char *col,
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
static sc_io_status read_ids(const char *path, cursor c, size_t n, int col, sc_io_spheres *out,
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

enum { COL_NONE = -1 };

typedef struct columns {
    int pos[3];    /* column of x, y, z */
    int scaled[3]; /* 1: xs/xsu (a fraction of the box) */
    int radius, diameter, type, id;
    int count;
} columns;

static void find_columns(const char *rest, const char *end, columns *c) {
    static const char *const names[3][4] = {
        {"x", "xu", "xs", "xsu"}, {"y", "yu", "ys", "ysu"}, {"z", "zu", "zs", "zsu"}};
    for (int a = 0; a < 3; a++) {
        c->pos[a] = COL_NONE;
        c->scaled[a] = 0;
    }
    c->radius = c->diameter = c->type = c->id = COL_NONE;
    c->count = 0;
    span t;
    for (const char *at = rest; next_token(&at, end, &t); c->count++) {
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 4; k++)
                if (token_is(&t, names[a][k]) && c->pos[a] == COL_NONE) {
                    c->pos[a] = c->count;
                    c->scaled[a] = k >= 2;
                }
        if (token_is(&t, "radius") && c->radius == COL_NONE)
            c->radius = c->count;
        if (token_is(&t, "diameter") && c->diameter == COL_NONE)
            c->diameter = c->count;
        if (token_is(&t, "type") && c->type == COL_NONE)
            c->type = c->count;
        if (token_is(&t, "id") && c->id == COL_NONE)
            c->id = c->count;
    }
}

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
static int fast_atom(const span *l, const char *end, const columns *cols, int dims,
                     const double lo[3], const double hi[3], double r_all, double *row) {
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

typedef struct xyz_columns {
    int species, pos, radius, id, count; /* first column of each (pos: 3) */
} xyz_columns;

/* An XYZ atom line read in one pass, as the general loop below reads it:
 * the element's radius from the caller's table where the radii go by
 * element, the position's and radius property's numbers (checked the same
 * way), other fields skipped unread, fields past the columns' allowed. 0
 * for anything the general loop must read or word. `end` is the data's
 * end. */
static int fast_xyz(const span *l, const char *end, const xyz_columns *cols, int dims,
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

/* One format's atom rows as runs and single lines read them: a LAMMPS
 * dump's (cols, lo, hi) or an XYZ file's (xcols). */
typedef struct row_format {
    int dims, flags;           /* flags: io_line_run's */
    size_t fields, rcol;       /* io_line_run's */
    const signed char *slot;   /* io_line_run's */
    const columns *cols;       /* LAMMPS, else NULL */
    const double *lo, *hi;     /* LAMMPS: the box */
    const xyz_columns *xcols;  /* XYZ, else NULL */
    const radius_table *radii; /* the caller's */
} row_format;

/* Whether runs still pay: tried 16 times, they average 4 lines or more. */
typedef struct run_state {
    int on;
    size_t tries, lines;
} run_state;

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
        return fast_xyz(l, data_end, rf->xcols, rf->dims, rf->radii, row);
    const columns *cols = rf->cols;
    if (rf->radii->all >= 0.0 || cols->radius != COL_NONE || cols->diameter != COL_NONE)
        return fast_atom(l, data_end, cols, rf->dims, rf->lo, rf->hi, rf->radii->all, row);
    /* radii by type: the type's token as the general loop splits the line */
    if (!fast_atom(l, data_end, cols, rf->dims, rf->lo, rf->hi, 0.0, row))
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
static size_t try_run(const row_format *rf, run_state *rs, cursor *c, double *rows, size_t i,
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
static size_t rows_ahead(cursor *c, double *rows, size_t n, const row_format *rf,
                         const run_state *rs, const sc_io_read_options *opts) {
#if defined(SC_LINE_RUN) && defined(_OPENMP)
    return rs->on ? read_row_pieces(c, rows, n, rf, opts) : 0;
#else
    (void)c, (void)rows, (void)n, (void)rf, (void)rs, (void)opts;
    return 0;
#endif
}

sc_io_status io_read_lammps(const char *path, const io_file *f, const sc_io_read_options *opts,
                            sc_io_spheres *out, char *err, size_t errcap) {
    const int dims = opts && opts->dims == 2 ? 2 : 3;
    cursor c = {(const char *)f->data, (const char *)f->data + f->size, 0};
    sc_io_status fst = find_frame(path, &c, opts ? opts->frame : 0, lammps_skip, err, errcap);
    if (fst != SC_IO_OK)
        return fst;
    span l;
    size_t n = SIZE_MAX;
    int have_box = 0, triclinic = 0;
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    int periodic[3] = {0, 0, 0};
    columns cols;
    int have_atoms = 0;
    while (!have_atoms && next_line(&c, &l)) {
        const char *rest;
        if (item(&l, "NUMBER OF ATOMS", &rest)) {
            if (!next_line(&c, &l) || !whole_number(&l, &n))
                return io_fail(err, errcap, SC_IO_ERR_SYNTAX,
                               "%s: line %zu: the number of atoms must be a whole number", path,
                               c.line);
            if (n > io_max_spheres(opts))
                return io_fail(err, errcap, SC_IO_ERR_TOO_MANY,
                               "%s: line %zu: %zu atoms, more than %zu", path, c.line, n,
                               io_max_spheres(opts));
        } else if (item(&l, "BOX BOUNDS", &rest)) {
            span t;
            int k = 0;
            for (const char *at = rest; next_token(&at, l.e, &t);) {
                /* a triclinic box: its lines add a tilt factor after the
                 * bounding box's lo and hi; unscaled positions do not need it */
                if (token_is(&t, "xy") || token_is(&t, "xz") || token_is(&t, "yz")) {
                    triclinic = 1;
                    continue;
                }
                if (k < 3)
                    periodic[k] = token_is(&t, "pp");
                k++;
            }
            for (int a = 0; a < 3; a++) {
                span tl, tu;
                const char *at;
                double v[2];
                if (!next_line(&c, &l) || (at = l.b, !next_token(&at, l.e, &tl)) ||
                    !next_token(&at, l.e, &tu) ||
                    io_parse_number(tl.b, (size_t)(tl.e - tl.b), &v[0]) ||
                    io_parse_number(tu.b, (size_t)(tu.e - tu.b), &v[1]) ||
                    io_check_value(v[0], 0) != VALUE_OK || io_check_value(v[1], 0) != VALUE_OK ||
                    !(v[0] <= v[1]))
                    return io_fail(err, errcap, SC_IO_ERR_SYNTAX,
                                   "%s: line %zu: box bounds must be two finite numbers lo <= hi "
                                   "within 1e150",
                                   path, c.line);
                lo[a] = v[0];
                hi[a] = v[1];
            }
            have_box = 1;
        } else if (item(&l, "ATOMS", &rest)) {
            find_columns(rest, l.e, &cols);
            have_atoms = 1;
        } else if (l.e - l.b >= 5 && memcmp(l.b, "ITEM:", 5) == 0) {
            /* TIMESTEP, UNITS, TIME, ...: the value lines that follow are
             * not ITEM lines and are skipped by this loop */
        } else if (c.line == 1) {
            return io_fail(err, errcap, SC_IO_ERR_HEADER,
                           "%s: line 1: a LAMMPS dump starts with \"ITEM:\"", path);
        }
    }
    if (!have_atoms || n == SIZE_MAX)
        return io_fail(err, errcap, SC_IO_ERR_HEADER, "%s: line %zu: no %s line before the end",
                       path, c.line, n == SIZE_MAX ? "ITEM: NUMBER OF ATOMS" : "ITEM: ATOMS");
    const char *const axis_name[3] = {"x", "y", "z"};
    for (int a = 0; a < dims; a++) {
        if (cols.pos[a] == COL_NONE)
            return io_fail(err, errcap, SC_IO_ERR_HEADER,
                           "%s: line %zu: no %s column (x, xu, xs or xsu and the like)", path,
                           c.line, axis_name[a]);
        if (cols.scaled[a] && !have_box)
            return io_fail(err, errcap, SC_IO_ERR_HEADER,
                           "%s: line %zu: scaled coordinates need the BOX BOUNDS item first", path,
                           c.line);
        if (cols.scaled[a] && triclinic)
            return io_fail(err, errcap, SC_IO_ERR_HEADER,
                           "%s: line %zu: scaled coordinates (%ss) in a triclinic box are not "
                           "read (they need the tilt factors); dump x y z or xu yu zu instead",
                           path, c.line, axis_name[a]);
    }
    if (opts && opts->ids && cols.id == COL_NONE)
        return io_fail(err, errcap, SC_IO_ERR_HEADER, "%s: line %zu: no id column for the ids",
                       path, c.line);
    radius_table radii = {-1.0, 0, {{0}}};
    if (cols.radius == COL_NONE && cols.diameter == COL_NONE) {
        if (!opts || !opts->radius)
            return io_fail(err, errcap, SC_IO_ERR_HEADER,
                           "%s: line %zu: no radius or diameter column; give the radius (one "
                           "for every atom, or TYPE=R,... per type)",
                           path, c.line);
        sc_io_status st = parse_radii(path, opts->radius, &radii, err, errcap);
        if (st != SC_IO_OK)
            return st;
        if (radii.all < 0.0 && cols.type == COL_NONE)
            return io_fail(err, errcap, SC_IO_ERR_HEADER,
                           "%s: line %zu: radii by type need a type column", path, c.line);
    }
    /* a row is at least a character and a line end: a count the rest of
     * the file cannot hold is refused before the allocation (at most 16
     * bytes of rows per byte of file), the rows themselves say the rest */
    if (n > (size_t)(c.end - c.p) / 2)
        return io_fail(err, errcap, SC_IO_ERR_COUNT,
                       "%s: line %zu: %zu atoms declared, more rows than the rest of the file "
                       "can hold",
                       path, c.line, n);
    const size_t width = (size_t)dims + 1;
    double *rows = malloc((n ? n : 1) * width * sizeof(double));
    if (!rows)
        return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: no memory for %zu atoms", path, n);
    const cursor atoms = c;
    sc_io_status st = SC_IO_OK;
    /* Runs of plain atom lines (io_runs.h), each odd line read below, and
     * pieces on several threads. A dump with both a radius and a diameter
     * column takes the lines below. */
    signed char slot[64];
    const row_format rf = {
        dims, IO_RUN_TRAIL, (size_t)cols.count, (size_t)dims, slot, &cols, lo, hi, NULL, &radii};
    run_state rs = {cols.count <= 64 && !(cols.radius != COL_NONE && cols.diameter != COL_NONE), 0,
                    0};
    const int by_type = cols.radius == COL_NONE && cols.diameter == COL_NONE && radii.all < 0.0;
    for (int k = 0; rs.on && k < cols.count; k++) {
        slot[k] = k == cols.radius || k == cols.diameter ? (signed char)dims
                  : k == cols.type && by_type            ? IO_SLOT_NAME
                                                         : IO_SLOT_SKIP;
        for (int a = 0; a < dims; a++)
            slot[k] = k == cols.pos[a] ? (signed char)a : slot[k];
    }
    for (size_t i = rows_ahead(&c, rows, n, &rf, &rs, opts); i < n && st == SC_IO_OK; i++) {
        if ((i = try_run(&rf, &rs, &c, rows, i, n)) == n)
            break;
        if (!next_line(&c, &l)) {
            st = io_fail(err, errcap, SC_IO_ERR_COUNT,
                         "%s: line %zu: %zu atom rows, not the %zu "
                         "the header gives",
                         path, c.line + 1, i, n);
            break;
        }
        double *row = rows + i * width;
        /* radii by type take the general loop */
        if ((radii.all >= 0.0 || cols.radius != COL_NONE || cols.diameter != COL_NONE) &&
            fast_atom(&l, c.end, &cols, dims, lo, hi, radii.all, row))
            continue;
        double r = radii.all;
        span t;
        int k = 0;
        for (const char *at = l.b; st == SC_IO_OK && next_token(&at, l.e, &t); k++) {
            int axis = -1, is_r = k == cols.radius || k == cols.diameter;
            for (int a = 0; a < dims; a++)
                axis = k == cols.pos[a] ? a : axis;
            if (k == cols.type && radii.all < 0.0 && !is_r && cols.radius == COL_NONE &&
                cols.diameter == COL_NONE)
                st = type_radius(path, c.line, i, "type", &radii, &t, &r, err, errcap);
            if (st != SC_IO_OK || (axis < 0 && !is_r))
                continue;
            double v = 0.0;
            int overflow = 0;
            const char *col = axis >= 0          ? axis_name[axis]
                              : k == cols.radius ? "radius"
                                                 : "diameter";
            if ((st = field_number(path, c.line, i, col, &t, &v, &overflow, err, errcap)) !=
                SC_IO_OK)
                break;
            if (axis >= 0 && cols.scaled[axis])
                v = lo[axis] + v * (hi[axis] - lo[axis]);
            if (k == cols.diameter && k != cols.radius)
                v = 0.5 * v; /* exact, but for a subnormal's last bit */
            if ((st = field_check(path, c.line, i, col, &t, v, overflow, is_r, err, errcap)) !=
                SC_IO_OK)
                break;
            if (axis >= 0)
                row[axis] = v;
            else if (k == cols.radius || cols.radius == COL_NONE)
                r = v;
        }
        if (st == SC_IO_OK && k != cols.count)
            st = io_fail(err, errcap, SC_IO_ERR_COUNT,
                         "%s: line %zu: %d fields, but the ATOMS line names %d (atom %zu)", path,
                         c.line, k, cols.count, i);
        row[dims] = r;
    }
    if (st == SC_IO_OK && opts && opts->ids)
        st = read_ids(path, atoms, n, cols.id, out, err, errcap);
    if (st != SC_IO_OK) {
        free(rows);
        return st;
    }
    io_give_rows(out, rows, n, dims);
    out->has_box = have_box && !triclinic; /* a triclinic box is read, but gives no box */
    for (int a = 0; a < 3; a++) {
        out->box.periodic[a] = have_box && periodic[a] && a < dims;
        out->box.lo[a] = lo[a];
        out->box.hi[a] = hi[a];
    }
    return SC_IO_OK;
}

/* ---- XYZ ------------------------------------------------------------------------ */

/* The value of key=... in the comment line [b, e): quoted "...", or up to
 * the next blank; 0 when the key is not there. Keys match case-blind. */
static int comment_value(const char *b, const char *e, const char *key, span *v) {
    const size_t n = strlen(key);
    for (const char *p = b; p + n < e; p++) {
        if ((p != b && !blank(p[-1])) || p[n] != '=')
            continue;
        size_t k = 0;
        while (k < n && (p[k] | 0x20) == (key[k] | 0x20))
            k++;
        if (k != n)
            continue;
        const char *q = p + n + 1;
        if (q < e && *q == '"') {
            const char *end = memchr(q + 1, '"', (size_t)(e - q - 1));
            if (!end)
                return 0;
            v->b = q + 1;
            v->e = end;
        } else {
            v->b = q;
            while (q < e && !blank(*q))
                q++;
            v->e = q;
        }
        return 1;
    }
    return 0;
}

/* Properties=name:type:count:... to columns; 0 when malformed. */
static int xyz_properties(const span *v, xyz_columns *c) {
    c->species = c->pos = c->radius = c->id = COL_NONE;
    c->count = 0;
    const char *p = v->b;
    while (p < v->e) {
        const char *f[3];
        size_t len[3];
        for (int k = 0; k < 3; k++) {
            const char *colon = memchr(p, ':', (size_t)(v->e - p));
            const char *end = colon && k < 2 ? colon : (colon ? colon : v->e);
            f[k] = p;
            len[k] = (size_t)(end - p);
            if (k < 2 && !colon)
                return 0;
            p = end < v->e ? end + 1 : v->e;
        }
        int count = 0;
        for (size_t k = 0; k < len[2]; k++) {
            if (f[2][k] < '0' || f[2][k] > '9' || count > 1000)
                return 0;
            count = count * 10 + (f[2][k] - '0');
        }
        if (count < 1)
            return 0;
#define IS(w) (len[0] == strlen(w) && memcmp(f[0], w, len[0]) == 0)
        if ((IS("species") || IS("type") || IS("element")) && c->species == COL_NONE)
            c->species = c->count;
        if (IS("pos") && count == 3 && c->pos == COL_NONE)
            c->pos = c->count;
        if ((IS("radius") || IS("radii")) && count == 1 && c->radius == COL_NONE)
            c->radius = c->count;
        if (IS("id") && count == 1 && c->id == COL_NONE)
            c->id = c->count;
#undef IS
        c->count += count;
    }
    return 1;
}

sc_io_status io_read_xyz(const char *path, const io_file *f, const sc_io_read_options *opts,
                         sc_io_spheres *out, char *err, size_t errcap) {
    const int dims = opts && opts->dims == 2 ? 2 : 3;
    cursor c = {(const char *)f->data, (const char *)f->data + f->size, 0};
    sc_io_status fst = find_frame(path, &c, opts ? opts->frame : 0, xyz_skip, err, errcap);
    if (fst != SC_IO_OK)
        return fst;
    span l, comment;
    size_t n = 0;
    if (!next_line(&c, &l) || !whole_number(&l, &n))
        return io_fail(err, errcap, SC_IO_ERR_HEADER,
                       "%s: line %zu: an XYZ file starts with the atom count", path,
                       c.line ? c.line : 1);
    const size_t count_line = c.line, comment_line = c.line + 1;
    if (n > io_max_spheres(opts))
        return io_fail(err, errcap, SC_IO_ERR_TOO_MANY, "%s: line %zu: %zu atoms, more than %zu",
                       path, count_line, n, io_max_spheres(opts));
    if (!next_line(&c, &comment))
        comment.b = comment.e = c.end;
    xyz_columns cols = {0, 1, COL_NONE, COL_NONE, 4};
    span v;
    if (comment_value(comment.b, comment.e, "Properties", &v) && !xyz_properties(&v, &cols))
        return io_fail(err, errcap, SC_IO_ERR_HEADER,
                       "%s: line %zu: Properties must be name:type:count triples", path,
                       comment_line);
    if (cols.pos == COL_NONE || cols.species == COL_NONE)
        return io_fail(err, errcap, SC_IO_ERR_HEADER, "%s: line %zu: Properties names no %s", path,
                       comment_line, cols.pos == COL_NONE ? "pos:R:3" : "species:S:1");
    /* the cell: an orthogonal Lattice from the origin, periodic per pbc */
    int has_box = 0, periodic[3] = {1, 1, 1};
    double hi[3] = {0, 0, 0};
    if (comment_value(comment.b, comment.e, "Lattice", &v)) {
        double m[9];
        int k = 0, diagonal = 1;
        span t;
        for (const char *at = v.b; k < 10 && next_token(&at, v.e, &t); k++)
            if (k >= 9 || io_parse_number(t.b, (size_t)(t.e - t.b), &m[k]) != 0 ||
                io_check_value(m[k], 0) != VALUE_OK)
                k = 10;
        if (k != 9)
            return io_fail(err, errcap, SC_IO_ERR_HEADER,
                           "%s: line %zu: Lattice must hold 9 numbers within 1e150", path,
                           comment_line);
        for (int a = 0; a < 9; a++)
            diagonal &= a % 4 == 0 ? m[a] > 0.0 : m[a] == 0.0;
        has_box = diagonal; /* a skewed cell is read, but gives no box */
        for (int a = 0; a < 3; a++)
            hi[a] = m[4 * a];
        if (comment_value(comment.b, comment.e, "pbc", &v)) {
            int a = 0;
            for (const char *at = v.b; a < 3 && next_token(&at, v.e, &t); a++)
                periodic[a] = t.e - t.b == 1 && (*t.b == 'T' || *t.b == 't');
        }
    }
    if (opts && opts->ids && cols.id == COL_NONE)
        return io_fail(err, errcap, SC_IO_ERR_HEADER,
                       "%s: line %zu: Properties names no id:I:1 for the ids", path, comment_line);
    radius_table radii = {-1.0, 0, {{0}}};
    if (cols.radius == COL_NONE) {
        if (!opts || !opts->radius)
            return io_fail(err, errcap, SC_IO_ERR_HEADER,
                           "%s: line %zu: no radius property; give the radius (one for every "
                           "atom, or ELEMENT=R,... per element)",
                           path, comment_line);
        sc_io_status st = parse_radii(path, opts->radius, &radii, err, errcap);
        if (st != SC_IO_OK)
            return st;
    }
    /* a line is at least a character and a line end: a count the rest of
     * the file cannot hold is refused before the allocation (at most 16
     * bytes of rows per byte of file), the lines themselves say the rest */
    if (n > (size_t)(c.end - c.p) / 2)
        return io_fail(err, errcap, SC_IO_ERR_COUNT,
                       "%s: line %zu: %zu atoms declared, more lines than the rest of the file "
                       "can hold",
                       path, count_line, n);
    const size_t width = (size_t)dims + 1;
    double *rows = malloc((n ? n : 1) * width * sizeof(double));
    if (!rows)
        return io_fail(err, errcap, SC_IO_ERR_NOMEM, "%s: no memory for %zu atoms", path, n);
    const cursor atoms = c;
    static const char *const names[4] = {"x", "y", "z", "radius"};
    sc_io_status st = SC_IO_OK;
    /* Runs of plain atom lines (io_runs.h: exactly the columns' fields),
     * each odd line read below, and pieces on several threads. */
    signed char slot[64];
    const row_format rf = {dims,
                           0,
                           (size_t)cols.count,
                           cols.radius != COL_NONE ? (size_t)dims : SIZE_MAX,
                           slot,
                           NULL,
                           NULL,
                           NULL,
                           &cols,
                           &radii};
    run_state rs = {cols.count <= 64, 0, 0};
    const int by_element = cols.radius == COL_NONE && radii.all < 0.0;
    for (int k = 0; rs.on && k < cols.count; k++) {
        const int axis = k >= cols.pos && k < cols.pos + 3 ? k - cols.pos : -1;
        slot[k] = axis >= 0 && axis < dims          ? (signed char)axis
                  : k == cols.radius                ? (signed char)dims
                  : k == cols.species && by_element ? IO_SLOT_NAME
                                                    : IO_SLOT_SKIP;
    }
    for (size_t i = rows_ahead(&c, rows, n, &rf, &rs, opts); i < n && st == SC_IO_OK; i++) {
        if ((i = try_run(&rf, &rs, &c, rows, i, n)) == n)
            break;
        if (!next_line(&c, &l)) {
            st = io_fail(err, errcap, SC_IO_ERR_COUNT,
                         "%s: line %zu: %zu atom lines, not the %zu of line %zu", path, c.line + 1,
                         i, n, count_line);
            break;
        }
        double *row = rows + i * width, r = radii.all;
        if (fast_xyz(&l, c.end, &cols, dims, &radii, row))
            continue;
        span t;
        int k = 0;
        for (const char *at = l.b; st == SC_IO_OK && next_token(&at, l.e, &t); k++) {
            if (k == cols.species && cols.radius == COL_NONE && radii.all < 0.0) {
                st = type_radius(path, c.line, i, "element", &radii, &t, &r, err, errcap);
                continue;
            }
            const int axis = k >= cols.pos && k < cols.pos + 3 ? k - cols.pos : -1;
            if ((axis < 0 || axis >= dims) && k != cols.radius)
                continue;
            const int which = axis >= 0 ? axis : 3;
            double x = 0.0;
            int overflow = 0;
            if ((st = field_number(path, c.line, i, names[which], &t, &x, &overflow, err,
                                   errcap)) != SC_IO_OK ||
                (st = field_check(path, c.line, i, names[which], &t, x, overflow, which == 3, err,
                                  errcap)) != SC_IO_OK)
                break;
            if (which == 3)
                r = x;
            else
                row[which] = x;
        }
        if (st == SC_IO_OK && k < cols.count)
            st = io_fail(err, errcap, SC_IO_ERR_COUNT,
                         "%s: line %zu: %d fields, fewer than the %d the columns need (atom %zu)",
                         path, c.line, k, cols.count, i);
        row[dims] = r;
    }
    if (st == SC_IO_OK && opts && opts->ids)
        st = read_ids(path, atoms, n, cols.id, out, err, errcap);
    if (st != SC_IO_OK) {
        free(rows);
        return st;
    }
    io_give_rows(out, rows, n, dims);
    out->has_box = has_box;
    for (int a = 0; a < 3; a++) {
        out->box.periodic[a] = has_box && periodic[a] && a < dims;
        out->box.lo[a] = 0.0;
        out->box.hi[a] = hi[a];
    }
    return SC_IO_OK;
}
