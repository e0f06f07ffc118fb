/*
 * study_csv.c: the study's CSV writer. RFC 4180 quoting, a fixed column
 * count checked on every row, numbers in a locale-independent %.9g (the
 * study never calls setlocale, so the C locale's '.' is the decimal point).
 */
#include "study.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static int needs_quotes(const char *s) {
    return strpbrk(s, ",\"\r\n") != NULL;
}

size_t study_csv_escape(const char *s, char *out, size_t cap) {
    if (!s)
        s = "";
    const int quote = needs_quotes(s);
    size_t need = 0;
#define PUT(ch)                                                                                    \
    do {                                                                                           \
        if (cap > 0 && need + 1 < cap)                                                             \
            out[need] = (ch);                                                                      \
        need++;                                                                                    \
    } while (0)
    if (quote)
        PUT('"');
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            PUT('"');
        PUT(*p);
    }
    if (quote)
        PUT('"');
#undef PUT
    if (cap > 0)
        out[need < cap ? need : cap - 1] = 0;
    return need;
}

static void sep(study_csv *w) {
    if (w->col > 0 && fputc(',', w->f) == EOF)
        w->errors++;
    w->col++;
}

static void raw(study_csv *w, const char *s) {
    if (fputs(s, w->f) == EOF)
        w->errors++;
}

void study_csv_str(study_csv *w, const char *s) {
    sep(w);
    if (!s || !*s)
        return;
    if (!needs_quotes(s)) {
        raw(w, s);
        return;
    }
    if (fputc('"', w->f) == EOF)
        w->errors++;
    for (const char *p = s; *p; p++) {
        if (*p == '"' && fputc('"', w->f) == EOF)
            w->errors++;
        if (fputc(*p, w->f) == EOF)
            w->errors++;
    }
    if (fputc('"', w->f) == EOF)
        w->errors++;
}

int study_csv_begin(study_csv *w, FILE *f, const char *const *names, int ncols) {
    memset(w, 0, sizeof *w);
    if (!f || !names || ncols < 1)
        return -1;
    for (int k = 0; k < ncols; k++)
        if (!names[k])
            return -1;
    w->f = f;
    w->ncols = ncols;
    for (int k = 0; k < ncols; k++)
        study_csv_str(w, names[k]);
    return study_csv_end_row(w);
}

void study_csv_int(study_csv *w, long long v) {
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    sep(w);
    raw(w, b);
}

void study_csv_u64(study_csv *w, uint64_t v) {
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, v);
    sep(w);
    raw(w, b);
}

void study_csv_hex(study_csv *w, uint64_t v) {
    char b[32];
    snprintf(b, sizeof b, "0x%016" PRIx64, v);
    sep(w);
    raw(w, b);
}

void study_csv_num(study_csv *w, double v) {
    sep(w);
    if (!isfinite(v))
        return;
    char b[40];
    snprintf(b, sizeof b, "%.9g", v);
    raw(w, b);
}

int study_csv_end_row(study_csv *w) {
    const int ok = w->col == w->ncols;
    if (!ok)
        w->errors++;
    if (fputc('\n', w->f) == EOF)
        w->errors++;
    w->col = 0;
    return ok ? 0 : -1;
}
