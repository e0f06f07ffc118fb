/*
 * io_particles.h: what the particle codes' readers share (io_particles.c):
 * lines and tokens, frames, the caller's radii by type, ids, and atom rows
 * read in runs or one at a time; io_lammps.c and io_xyz.c read their
 * formats on them.
 */
#ifndef SC_IO_PARTICLES_H
#define SC_IO_PARTICLES_H

#include "io_internal.h"

#include <stdint.h>
#include <string.h>

/* ---- lines and tokens ---- */

typedef struct cursor {
    const char *p, *end;
    size_t line; /* of the line last returned */
} cursor;

typedef struct span {
    const char *b, *e;
} span;

/* The next line (without its \n, \r\n or \r); 0 at the end of the data. */
static inline int next_line(cursor *c, span *l) {
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

static inline int blank(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f';
}

/* The next blank-separated token of *l from *at; 0 when none is left. */
static inline int next_token(const char **at, const char *end, span *t) {
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

static inline int token_is(const span *t, const char *word) {
    const size_t n = strlen(word);
    return (size_t)(t->e - t->b) == n && memcmp(t->b, word, n) == 0;
}

/* Whether line l starts with "ITEM: " + what; *rest gets what follows. */
static inline int item(const span *l, const char *what, const char **rest) {
    const size_t n = strlen(what);
    if ((size_t)(l->e - l->b) < 6 + n || memcmp(l->b, "ITEM: ", 6) != 0 ||
        memcmp(l->b + 6, what, n) != 0)
        return 0;
    *rest = l->b + 6 + n;
    return 1;
}

/* Whether line l holds only blanks. */
static inline int blank_line(const span *l) {
    for (const char *p = l->b; p < l->e; p++)
        if (!blank(*p))
            return 0;
    return 1;
}

/* A whole number line (TIMESTEP's, NUMBER OF ATOMS'). */
static inline int whole_number(const span *l, size_t *out) {
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

/* ---- frames ---- */

/* Passes over one frame from c; 1 when it did, 0 at the end of the data
 * (blank lines at most), -1 on a malformed frame (*st, err set). */
typedef int (*skip_fn)(const char *path, cursor *c, sc_io_status *st, char *err, size_t errcap);
/* Moves c to the start of frame `frame` (0 the first; negative from the
 * end) past blank lines, passing frames over with skip;
 * SC_IO_ERR_ARGUMENT when there is no such frame. */
sc_io_status io_find_frame(const char *path, cursor *c, long frame, skip_fn skip, char *err,
                           size_t errcap);
/* n lines more; 1, or -1 naming the frame's count line when they are not
 * there. */
int io_skip_rows(const char *path, cursor *c, size_t n, size_t count_line, sc_io_status *st,
                 char *err, size_t errcap);

/* ---- the caller's radii, values, ids ----
 * (each function is described at its definition in io_particles.c) */

typedef struct radius_table {
    double all; /* >= 0: every atom; -1: by type */
    size_t n;
    struct {
        const char *name;
        size_t len;
        double r;
    } e[64];
} radius_table;

sc_io_status io_parse_radii(const char *path, const char *spec, radius_table *t, char *err,
                            size_t errcap);
sc_io_status io_type_radius(const char *path, size_t line, size_t atom, const char *what,
                            const radius_table *radii, const span *t, double *r, char *err,
                            size_t errcap);
sc_io_status io_field_number(const char *path, size_t line, size_t atom, const char *col,
                             const span *t, double *v, int *overflow, char *err, size_t errcap);
sc_io_status io_field_check(const char *path, size_t line, size_t atom, const char *col,
                            const span *t, double v, int overflow, int is_radius, char *err,
                            size_t errcap);
sc_io_status io_read_ids(const char *path, cursor c, size_t n, int col, sc_io_spheres *out,
                         char *err, size_t errcap);

/* ---- atom rows ----
 * (each function is described at its definition in io_particles.c) */

enum { COL_NONE = -1 };

typedef struct columns {
    int pos[3];    /* column of x, y, z */
    int scaled[3]; /* 1: xs/xsu (a fraction of the box) */
    int radius, diameter, type, id;
    int count;
} columns;

typedef struct xyz_columns {
    int species, pos, radius, id, count; /* first column of each (pos: 3) */
} xyz_columns;

int io_fast_atom(const span *l, const char *end, const columns *cols, int dims, const double lo[3],
                 const double hi[3], double r_all, double *row);
int io_fast_xyz(const span *l, const char *end, const xyz_columns *cols, int dims,
                const radius_table *radii, double *row);

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

size_t io_try_run(const row_format *rf, run_state *rs, cursor *c, double *rows, size_t i, size_t n);
size_t io_rows_ahead(cursor *c, double *rows, size_t n, const row_format *rf, const run_state *rs,
                     const sc_io_read_options *opts);

#endif /* SC_IO_PARTICLES_H */
