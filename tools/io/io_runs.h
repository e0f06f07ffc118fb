/*
 * io_runs.h: runs of the plainest lines, many at a time, for the text
 * reader (io_text.c) and the LAMMPS and XYZ readers (io_particles.c),
 * inline in each.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SC_IO_RUNS_H
#define SC_IO_RUNS_H

#include "io_decimal.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum {
    IO_RUN_COMMAS = 1, /* one comma between fields too (text: CSV rows) */
    IO_RUN_TRAIL = 2   /* one space before a '\n' too (LAMMPS's dump custom) */
};

/* A slot for io_line_run: a field that is not a value (-1, skipped) or a
 * name that gives the radius (IO_SLOT_NAME: an XYZ element, a LAMMPS type). */
enum { IO_SLOT_SKIP = -1, IO_SLOT_NAME = -2 };
_Static_assert(sizeof(const char *) <= sizeof(double), "a name's address fits a value");

#if defined(SC_IO_SHORT_DECIMAL)
#include <simde/x86/sse2.h>
#define SC_LINE_RUN 1
/* The bits of the bytes among the 64 at b that may end a field: '\n', ' '
 * and ','. */
static inline uint64_t io_field_ends64(const char *b) {
    const simde__m128i nl = simde_mm_set1_epi8('\n'), sp = simde_mm_set1_epi8(' '),
                       cm = simde_mm_set1_epi8(',');
    uint64_t m = 0;
    for (int i = 0; i < 4; i++) {
        const simde__m128i x =
            simde_mm_loadu_si128((const simde__m128i *)(const void *)(b + 16 * i));
        const simde__m128i e = simde_mm_or_si128(
            simde_mm_cmpeq_epi8(x, nl),
            simde_mm_or_si128(simde_mm_cmpeq_epi8(x, sp), simde_mm_cmpeq_epi8(x, cm)));
        m |= (uint64_t)(uint32_t)simde_mm_movemask_epi8(e) << (16 * i);
    }
    return m;
}

/* The plainest lines, many at a time: `fields` fields a line, one space
 * (with IO_RUN_COMMAS, or one comma) between them, the same all along a
 * line, then '\n' or "\r\n" (the seed's file: "844.6859\r\n"; CSV rows
 * "1.5,2,3,0.5\n"); with IO_RUN_TRAIL, also one space before a '\n'
 * (LAMMPS's dump custom writes each value with a blank after it: "1 1 0.5
 * 0.25 0.75 0.1 \n"). Without IO_RUN_COMMAS a comma anywhere ends the run
 * (the particle formats split at blanks only: a comma is a field's).
 * Field f goes to v[slot[f]] (slot NULL: v[f]; IO_SLOT_SKIP: skipped: any
 * bytes but a blank, '\r', '#', '\v' or '\f', and not none), `want` values a
 * line. An IO_SLOT_NAME field is skipped too, and its first byte's address
 * is parked in the line's last value (want - 1: the radius, which the
 * caller then takes from the name, so it need not find the field again).
 * A kept field is a short decimal, read as the one-line paths read it: the
 * same short_decimal, so the same bits; such a value is always within the
 * readers' limit, and column `rcol` (the radius; none past want) must not
 * be negative. At most `max_lines` lines.
 * A line-at-a-time parser finds each field's start only once the number
 * before it is parsed, a chain of dependent loads per value; here the field
 * ends come from a bit mask of 64 bytes at a time, so the fields are parsed
 * independently and overlap. Stops at the first line that is not such a
 * line (an empty one, blanks, tabs, a lone '\r', an exponent, more digits,
 * a negative radius, the data's last bytes), which the caller reads its own
 * way. Returns where it stopped, at a line's start; *lines: the lines read,
 * *tok and *tok_len the last line's last field. */
static inline const char *io_line_run(const char *p, const char *end, double *v, size_t fields,
                                      const signed char *slot, size_t want, size_t rcol,
                                      size_t max_lines, int flags, size_t *lines, const char **tok,
                                      size_t *tok_len) {
    size_t k = 0, f = 0, taken = 0;
    const char *line = p, *base = p;
    char sep = 0;
    while (taken < max_lines && end - base >= 64) {
        uint64_t m = io_field_ends64(base);
        /* a trailing blank's '\n' may open this window: p is past it */
        if (p > base)
            m &= ~(((uint64_t)1 << (p - base)) - 1);
        while (m) {
            const char *d = base + __builtin_ctzll(m);
            m &= m - 1;
            const char *next = d + 1;
            if (f + 1 < fields) { /* a separator, the line's first or the same */
                if (*d == '\n' || (f > 0 && *d != sep) || (*d == ',' && !(flags & IO_RUN_COMMAS)))
                    goto out;
                sep = *d;
            } else if (*d != '\n') {
                if (!(flags & IO_RUN_TRAIL) || *d != ' ' || end - d < 2 || d[1] != '\n')
                    goto out;
                next = d + 2; /* its '\n': the next bit here, or the next window's first */
                m &= m - 1;
            }
            /* the field's end: d, or the '\r' of a "\r\n" */
            const char *const fe =
                f + 1 == fields && *d == '\n' && d > p && d[-1] == '\r' ? d - 1 : d;
            const int at = slot ? slot[f] : (int)f;
            if (at >= 0) {
                double x;
                if (short_decimal(p, end, &x) != fe || ((size_t)at == rcol && !(x >= 0.0)))
                    goto out;
                v[k + (size_t)at] = x;
            } else { /* a field the caller does not keep as a value */
                if (fe == p)
                    goto out;
                for (const char *c = p; c < fe; c++)
                    if (*c == '\t' || *c == '\r' || *c == '#' || *c == '\v' || *c == '\f')
                        goto out;
                if (at == IO_SLOT_NAME)
                    memcpy(&v[k + want - 1], &p, sizeof p);
            }
            if (++f == fields) {
                *tok = p;
                *tok_len = (size_t)(fe - p);
                k += want;
                f = 0;
                line = next;
                taken++;
            }
            p = next;
            if (taken == max_lines)
                goto out;
        }
        base += 64;
    }
out:
    *lines = taken;
    return line;
}
#endif

#endif
