/*
 * io_xyz.c: (extended) XYZ files, one frame, on the particle readers'
 * shared pieces (io_particles.h): a count line, a comment line, then one
 * atom per line: an element (or type) name and x y z, other columns
 * ignored. Extended XYZ's comment line may name the columns
 * (Properties=species:S:1:pos:R:3:radius:R:1, any order and other
 * properties between) and the cell (Lattice="ax ay az bx by bz cx cy cz",
 * orthogonal only, from the origin; pbc="T T F"). The radius is the radius
 * property's, else the caller's (for all, or per element).
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_particles.h"
#include "io_runs.h"

#include <math.h>
#include <stdlib.h>

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
    return io_skip_rows(path, c, n, count_line, st, err, errcap);
}

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

/* One function, though long: as io_read_lammps, the count and comment
 * lines decide the columns and the cell, and the row loop shares them with
 * the cursor and the error state. */
sc_io_status io_read_xyz(const char *path, const io_file *f, const sc_io_read_options *opts,
                         sc_io_spheres *out, char *err, size_t errcap) {
    const int dims = opts && opts->dims == 2 ? 2 : 3;
    cursor c = {(const char *)f->data, (const char *)f->data + f->size, 0};
    sc_io_status fst = io_find_frame(path, &c, opts ? opts->frame : 0, xyz_skip, err, errcap);
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
        sc_io_status st = io_parse_radii(path, opts->radius, &radii, err, errcap);
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
    for (size_t i = io_rows_ahead(&c, rows, n, &rf, &rs, opts); i < n && st == SC_IO_OK; i++) {
        if ((i = io_try_run(&rf, &rs, &c, rows, i, n)) == n)
            break;
        if (!next_line(&c, &l)) {
            st = io_fail(err, errcap, SC_IO_ERR_COUNT,
                         "%s: line %zu: %zu atom lines, not the %zu of line %zu", path, c.line + 1,
                         i, n, count_line);
            break;
        }
        double *row = rows + i * width, r = radii.all;
        if (io_fast_xyz(&l, c.end, &cols, dims, &radii, row))
            continue;
        span t;
        int k = 0;
        for (const char *at = l.b; st == SC_IO_OK && next_token(&at, l.e, &t); k++) {
            if (k == cols.species && cols.radius == COL_NONE && radii.all < 0.0) {
                st = io_type_radius(path, c.line, i, "element", &radii, &t, &r, err, errcap);
                continue;
            }
            const int axis = k >= cols.pos && k < cols.pos + 3 ? k - cols.pos : -1;
            if ((axis < 0 || axis >= dims) && k != cols.radius)
                continue;
            const int which = axis >= 0 ? axis : 3;
            double x = 0.0;
            int overflow = 0;
            if ((st = io_field_number(path, c.line, i, names[which], &t, &x, &overflow, err,
                                      errcap)) != SC_IO_OK ||
                (st = io_field_check(path, c.line, i, names[which], &t, x, overflow, which == 3,
                                     err, errcap)) != SC_IO_OK)
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
        st = io_read_ids(path, atoms, n, cols.id, out, err, errcap);
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
