/*
 * io_lammps.c: LAMMPS text dumps (`dump atom` or `dump custom`), one
 * snapshot, on the particle readers' shared pieces (io_particles.h). A
 * snapshot is read:
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
 * (scaled ones are refused: they need the tilt). Values are checked as the
 * text reader checks them; every error names the file, the line and the
 * column.
 *
 * SPDX-License-Identifier: MIT
 */
#include "io_particles.h"
#include "io_runs.h"

#include <math.h>
#include <stdlib.h>

int io_looks_lammps(const io_file *f) {
    return f->size >= 5 && memcmp(f->data, "ITEM:", 5) == 0;
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
            return io_skip_rows(path, c, n, count_line, st, err, errcap);
        }
    }
    if (!any)
        return 0;
    *st = io_fail(err, errcap, SC_IO_ERR_HEADER,
                  "%s: line %zu: a snapshot without ITEM: NUMBER OF ATOMS then ITEM: ATOMS", path,
                  c->line);
    return -1;
}

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

/* One function, though long: a snapshot's items are read in order (count,
 * box, the ATOMS line's columns) and each decides how the rows are read;
 * the row loop then shares the cursor, the columns, the box and the error
 * state that names line and column with them. */
sc_io_status io_read_lammps(const char *path, const io_file *f, const sc_io_read_options *opts,
                            sc_io_spheres *out, char *err, size_t errcap) {
    const int dims = opts && opts->dims == 2 ? 2 : 3;
    cursor c = {(const char *)f->data, (const char *)f->data + f->size, 0};
    sc_io_status fst = io_find_frame(path, &c, opts ? opts->frame : 0, lammps_skip, err, errcap);
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
        sc_io_status st = io_parse_radii(path, opts->radius, &radii, err, errcap);
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
    for (size_t i = io_rows_ahead(&c, rows, n, &rf, &rs, opts); i < n && st == SC_IO_OK; i++) {
        if ((i = io_try_run(&rf, &rs, &c, rows, i, n)) == n)
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
            io_fast_atom(&l, c.end, &cols, dims, lo, hi, radii.all, row))
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
                st = io_type_radius(path, c.line, i, "type", &radii, &t, &r, err, errcap);
            if (st != SC_IO_OK || (axis < 0 && !is_r))
                continue;
            double v = 0.0;
            int overflow = 0;
            const char *col = axis >= 0          ? axis_name[axis]
                              : k == cols.radius ? "radius"
                                                 : "diameter";
            if ((st = io_field_number(path, c.line, i, col, &t, &v, &overflow, err, errcap)) !=
                SC_IO_OK)
                break;
            if (axis >= 0 && cols.scaled[axis])
                v = lo[axis] + v * (hi[axis] - lo[axis]);
            if (k == cols.diameter && k != cols.radius)
                v = 0.5 * v; /* exact, but for a subnormal's last bit */
            if ((st = io_field_check(path, c.line, i, col, &t, v, overflow, is_r, err, errcap)) !=
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
        st = io_read_ids(path, atoms, n, cols.id, out, err, errcap);
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
