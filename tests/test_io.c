/*
 * test_io.c: unit tests of tools/sc_io (readers and writers). Needs no engine.
 *
 * Usage: test_io GROUP WORKDIR [DATADIR]
 * Groups: numbers text npy raw writers spheres oracle spheres_dat.
 * Every check asserts on values; a failing check prints FAIL with the line.
 *
 * SPDX-License-Identifier: MIT
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h" /* io_line_ends */
#include "sc_io.h"
#include "sc_oracle.h"
#include "check.h"

static const char *workdir;

#undef CHECK /* this file's checks name their condition too */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* ---- small helpers ------------------------------------------------------- */

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rng(void) {
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}
static double rng_unit(void) {
    return (double)(rng() >> 11) / 9007199254740992.0;
}

static const char *path_in(const char *name) {
    static char bufs[8][1024];
    static int k;
    char *b = bufs[k++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", workdir, name);
    return b;
}

static void write_bytes(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (f == NULL || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        fprintf(stderr, "cannot write test file %s: %s\n", path, strerror(errno));
        exit(2);
    }
}

static void write_text(const char *path, const char *text) {
    write_bytes(path, text, strlen(text));
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    for (;;) {
        if (n == cap)
            b = realloc(b, cap *= 2);
        size_t got = fread(b + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    *len = n;
    return b;
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Number of entries in workdir whose name contains `part`. */
static int count_entries(const char *part) {
    DIR *d = opendir(workdir);
    int n = 0;
    if (d == NULL)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, part))
            n++;
    closedir(d);
    return n;
}

static void make_workdir(const char *dir) {
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0777);
            *p = '/';
        }
    }
    mkdir(tmp, 0777);
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "cannot create %s: %s\n", dir, strerror(errno));
        exit(2);
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[2048];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0)
            rmdir(p);
    }
    closedir(d);
}

/* Reads and expects success; returns the spheres (caller frees). */
static sc_io_spheres read_ok(const char *path, sc_io_format fmt, int dims) {
    sc_io_read_options o = {fmt, dims, 0, 0, NULL, NULL, 0, 0, 0, 0, 0};
    sc_io_spheres s;
    char err[512] = "";
    sc_io_status st = sc_io_read_spheres(path, &o, &s, err, sizeof err);
    CHECK(st == SC_IO_OK, "%s: %s", path, err);
    return s;
}

/* Expects a failure of category `want` whose one-line message names the file,
 * contains `place` ("line 4", "byte 128") and, if not NULL, `token`. */
static void expect_fail_opts(const char *path, const sc_io_read_options *o, sc_io_status want,
                             const char *place, const char *token, int line) {
    sc_io_spheres s;
    char err[512] = "";
    memset(&s, 0xAB, sizeof s);
    sc_io_status st = sc_io_read_spheres(path, o, &s, err, sizeof err);
    checks++;
    int ok = st == want && strstr(err, path) == err && strchr(err, '\n') == NULL &&
             (place == NULL || strstr(err, place) != NULL) &&
             (token == NULL || strstr(err, token) != NULL) && s.rows == NULL && s.n == 0;
    if (!ok) {
        failures++;
        fprintf(stderr,
                "FAIL %s:%d: %s: status %d (%s), want %d (%s), place \"%s\", token %s; message: "
                "%s\n",
                __FILE__, line, path, (int)st, sc_io_status_name(st), (int)want,
                sc_io_status_name(want), place ? place : "", token ? token : "(none)", err);
    }
    if (st == SC_IO_OK)
        sc_io_spheres_free(&s);
}

static void expect_fail_line(const char *path, sc_io_format fmt, int dims, sc_io_status want,
                             const char *place, const char *token, int line) {
    sc_io_read_options o = {fmt, dims, 0, 0, NULL, NULL, 0, 0, 0, 0, 0};
    expect_fail_opts(path, &o, want, place, token, line);
}
#define EXPECT_FAIL(path, fmt, dims, want, place, token)                                           \
    expect_fail_line(path, fmt, dims, want, place, token, __LINE__)

/* With defer_value_check the binary read succeeds without looking at the
 * values; sc_io_check_spheres must then give what the plain read gives:
 * the same status and the same message, word for word. */
static void expect_deferred_line(const char *path, sc_io_format fmt, int line) {
    sc_io_read_options plain = {fmt, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0},
                       defer = {fmt, 0, 0, 1, NULL, NULL, 0, 0, 0, 0, 0};
    sc_io_spheres a, b;
    char ea[512] = "", eb[512] = "";
    const sc_io_status sa = sc_io_read_spheres(path, &plain, &a, ea, sizeof ea);
    const sc_io_status sb = sc_io_read_spheres(path, &defer, &b, eb, sizeof eb);
    checks++;
    sc_io_status sc = SC_IO_ERR_INTERNAL;
    if (sb == SC_IO_OK) {
        sc = sc_io_check_spheres(path, &b, eb, sizeof eb);
        sc_io_spheres_free(&b);
    }
    if (sb != SC_IO_OK || sc != sa || (sa != SC_IO_OK && strcmp(ea, eb) != 0)) {
        failures++;
        fprintf(stderr, "FAIL %s:%d: %s: deferred read %d, check %d (%s), plain read %d (%s)\n",
                __FILE__, line, path, (int)sb, (int)sc, eb, (int)sa, ea);
    }
    if (sa == SC_IO_OK)
        sc_io_spheres_free(&a);
}
#define EXPECT_DEFERRED(path, fmt) expect_deferred_line(path, fmt, __LINE__)

static int same_bits(double a, double b) {
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ---- numbers: the text parser agrees with strtod bit for bit -------------- */

static void random_token(char *buf, size_t cap) {
    int kind = (int)(rng() % 6);
    char digits[64];
    if (kind == 0) {
        /* "%.17g" of a random double over many magnitudes: the generator's form. */
        double v = rng_unit() * pow(10.0, (double)(int)(rng() % 160) - 30.0);
        snprintf(buf, cap, "%s%.17g", rng() & 1 ? "-" : "", v);
        return;
    }
    if (kind == 1) {
        /* exact ties of binary64: 2^52 + k + 0.5 (ulp 1) and 2^54 + 4k + 2 (ulp 4) */
        uint64_t k = rng() % 100000;
        if (rng() & 1)
            snprintf(buf, cap, "%llu.5", (unsigned long long)(((uint64_t)1 << 52) + k));
        else
            snprintf(buf, cap, "%llu", (unsigned long long)(((uint64_t)1 << 54) + 4 * k + 2));
        return;
    }
    if (kind == 2) {
        /* short decimals like the seed's data */
        snprintf(buf, cap, "%.*f", (int)(rng() % 8), rng_unit() * 10000.0);
        return;
    }
    /* random digit strings: 1..25 digits, a point somewhere, maybe leading
     * zeros, maybe an exponent, maybe a sign */
    int nd = 1 + (int)(rng() % 25);
    for (int k = 0; k < nd; k++)
        digits[k] = (char)('0' + rng() % 10);
    if (rng() % 4 == 0)
        for (int k = 0; k < nd && k < 3; k++)
            digits[k] = '0';
    digits[nd] = '\0';
    int point = (int)(rng() % (unsigned)(nd + 2)) - 1; /* -1: no point */
    int e = (rng() % 3 == 0) ? (int)(rng() % 81) - 40 : 0;
    if (point > nd)
        point = nd;
    size_t o = 0;
    if (rng() % 5 == 0)
        buf[o++] = rng() & 1 ? '-' : '+';
    for (int k = 0; k <= nd; k++) {
        if (k == point)
            buf[o++] = '.';
        if (k < nd)
            buf[o++] = digits[k];
    }
    if (e != 0 || rng() % 7 == 0)
        o += (size_t)snprintf(buf + o, cap - o, "%c%d", rng() & 1 ? 'e' : 'E', e);
    buf[o] = '\0';
}

static void group_numbers(void) {
    static const char *fixed[] = {"0",
                                  "-0",
                                  "0.0",
                                  "+1",
                                  "1.",
                                  ".5",
                                  "1e0",
                                  "1E+2",
                                  "00000123",
                                  "1e22",
                                  "1e23",
                                  "9007199254740993",
                                  "9007199254740992",
                                  "9007199254740995",
                                  "4503599627370496.5",
                                  "4503599627370497.5",
                                  "123456789012345678901234567890",
                                  "0.1",
                                  "0.30000000000000004",
                                  "2.2250738585072014e-308",
                                  "4.9e-324",
                                  "1e-400",
                                  "0x1p-3",
                                  "1e150",
                                  "-1e150",
                                  "844.6859",
                                  "9891.674",
                                  "0.06448378",
                                  "18446744073709551615",
                                  "18446744073709551616",
                                  "1e-19",
                                  "9999999999999999999e19",
                                  "1.7976931348623157e100",
                                  "0.000000000000000000000000000001",
                                  "5e-1",
                                  "-.75e+3"};
    const size_t nfixed = sizeof fixed / sizeof fixed[0];
    const size_t ntok = 150000;
    size_t cap = (ntok + nfixed) * 48 + 64;
    char *text = malloc(cap);
    char(*toks)[40] = malloc((ntok + nfixed) * sizeof *toks);
    size_t o = 0, count = 0;
    for (size_t k = 0; k < ntok + nfixed; k++) {
        if (k < nfixed)
            snprintf(toks[k], sizeof toks[k], "%s", fixed[k]);
        else
            random_token(toks[k], sizeof toks[k]);
        /* three tokens per line, then the radius "0" */
        o += (size_t)snprintf(text + o, cap - o, "%s%s", toks[k], count % 3 == 2 ? " 0\n" : " ");
        count++;
    }
    while (count % 3 != 0) {
        snprintf(toks[count], sizeof toks[count], "0");
        o += (size_t)snprintf(text + o, cap - o, "0%s", count % 3 == 2 ? " 0\n" : " ");
        count++;
    }
    const char *path = path_in("numbers.txt");
    write_bytes(path, text, o);
    sc_io_spheres s = read_ok(path, SC_IO_FORMAT_AUTO, 0);
    CHECK(s.n == count / 3, "n %zu, want %zu", s.n, count / 3);
    CHECK(s.dtype == SC_F64 && s.dims == 3, "dtype %d dims %d", (int)s.dtype, s.dims);
    size_t bad = 0;
    for (size_t k = 0; k < count && s.rows; k++) {
        double want = strtod(toks[k], NULL);
        double got = ((const double *)s.rows)[(k / 3) * 4 + k % 3];
        if (!same_bits(want, got) && bad++ < 10)
            CHECK(same_bits(want, got), "token %s: got %.17g want %.17g", toks[k], got, want);
    }
    CHECK(bad == 0, "%zu tokens differ from strtod", bad);
    sc_io_spheres_free(&s);
    free(text);
    free(toks);
}

/* ---- the text reader's one-pass line path against its general path --------
 *
 * Once the layout is known, plain lines take a one-pass path that hands each
 * position straight to the decimal parser, and a line it declines (a
 * comment, a comma, \v, a token fast_float does not take whole, a bad
 * value) is read again by the general path. Lines of both kinds are mixed
 * here, one number per line and one sphere per line, with every line ending;
 * the values must equal strtod's, and an error after many plain lines must
 * still name its own line. */
static void group_fastlines(void) {
    static const char *const endings[] = {"\n", "\r\n", "\r"};
    static const char *const decor[] = {"", " ", "\t", "  \t ", " # note", "\v", ","};
    const size_t nvals = 40000;
    char *text = malloc(nvals * 96 + 64);
    char(*toks)[40] = malloc(nvals * sizeof *toks);
    for (int flat = 0; flat < 2; flat++) {
        size_t o = 0, line = 0;
        for (size_t k = 0; k < nvals; k++) {
            if (k % 4 == 3) /* the radius column: finite and >= 0 */
                snprintf(toks[k], sizeof toks[k], "%.*g", 1 + (int)(rng() % 17), rng_unit() * 50.0);
            else
                random_token(toks[k], sizeof toks[k]);
            const int begin = flat || k % 4 == 0, finish = flat || k % 4 == 3;
            if (begin && rng() % 50 == 0) { /* an empty or blank line */
                o += (size_t)sprintf(text + o, "%s%s", rng() & 1 ? "" : " \t", endings[rng() % 3]);
                line++;
            }
            const char *lead = begin ? decor[rng() % 4] : " ";
            /* a trailing decoration the one-pass path declines, now and then */
            /* (a comma only where the line holds one number: a comma splits a
             * line at commas, not blanks) */
            const char *trail =
                finish ? decor[rng() % 20 < 17 ? rng() % 4 : 4 + rng() % (flat ? 3 : 2)] : "";
            o += (size_t)sprintf(text + o, "%s%s%s%s", lead, toks[k], trail,
                                 finish ? endings[rng() % 3] : "");
            line += finish;
        }
        const char *path = path_in(flat ? "fast_flat.txt" : "fast_rows.txt");
        write_bytes(path, text, o);
        sc_io_spheres s = read_ok(path, SC_IO_FORMAT_AUTO, 0);
        CHECK(s.n == nvals / 4 && s.dims == 3, "%s: n %zu, want %zu", path, s.n, nvals / 4);
        size_t bad = 0;
        for (size_t k = 0; k < nvals && s.rows && s.n == nvals / 4; k++) {
            const double want = strtod(toks[k], NULL), got = ((const double *)s.rows)[k];
            if (!same_bits(want, got) && bad++ < 5)
                CHECK(0, "%s: value %zu (%s): got %.17g want %.17g", path, k, toks[k], got, want);
        }
        CHECK(bad == 0, "%s: %zu values differ from strtod", path, bad);
        sc_io_spheres_free(&s);

        /* Errors after thousands of one-pass lines name their own line. */
        char place[64];
        size_t e = (size_t)sprintf(text, flat ? "1\n2\n3\n4\n" : "1 2 3 4\n");
        size_t at = 1 + (flat ? 3 : 0);
        for (size_t k = 0; k < 3000; k++) {
            /* \r\n on every other line: it ends one line, not two */
            if (flat)
                e += (size_t)sprintf(text + e, "%zu.25\r\n2\n3\r\n0.5\n", k);
            else
                e += (size_t)sprintf(text + e, "%zu.25 2 3 0.5%s", k, k % 2 ? "\r\n" : "\n");
            at += flat ? 4 : 1;
        }
        const size_t good = e;
        /* a negative radius: the one-pass path declines it, the general path words it */
        sprintf(text + e, flat ? "7\n8\n9\n-1\n" : "7 8 9 -1\n");
        write_text(path, text);
        snprintf(place, sizeof place, "line %zu", at + (flat ? 4 : 1));
        EXPECT_FAIL(path, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_NEGATIVE_RADIUS, place, "-1");
        /* junk glued to a number */
        sprintf(text + good, flat ? "7\n8x\n" : "7 8x 9 1\n");
        write_text(path, text);
        snprintf(place, sizeof place, "line %zu", at + (flat ? 2 : 1));
        EXPECT_FAIL(path, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_SYNTAX, place, "8x");
        /* too many values on a line */
        sprintf(text + good, flat ? "7 8\n" : "7 8 9 1 2\n");
        write_text(path, text);
        snprintf(place, sizeof place, "line %zu", at + 1);
        EXPECT_FAIL(path, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_COUNT, place, NULL);
        /* an incomplete last sphere names the last token read */
        sprintf(text + good, flat ? "7\n8.5\n" : "7 8 9\n");
        write_text(path, text);
        snprintf(place, sizeof place, "line %zu", at + (flat ? 2 : 1));
        EXPECT_FAIL(path, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_COUNT, place, flat ? "8.5" : NULL);
    }
    free(text);
    free(toks);
}

/* ---- text on several threads ---------------------------------------------
 * Files past io_text.c's piece size are read a piece per thread once their
 * layout is known. Whatever the thread count, the reader must give what it
 * gives on one thread: the same status, the same message word for word,
 * the same values bit for bit. Files of 3.3-3.6 MB (up to 7 pieces of
 * 512 KiB), some with lines the pieces' fast path declines (comments,
 * commas, blank lines, \r endings), and errors planted past the first
 * fifth of the file. */

/* Reads path with opts on `threads` threads: status, message, spheres. Text
 * is split from 1 MiB on (the reader's default is 8 MiB), so that the files
 * here, of a few MB, are read in pieces. */
static sc_io_status read_threads(const char *path, sc_io_read_options o, int threads,
                                 sc_io_spheres *s, char *err, size_t cap) {
    o.threads = threads;
    o.text_split_bytes = (size_t)1 << 20;
    err[0] = '\0';
    memset(s, 0, sizeof *s);
    return sc_io_read_spheres(path, &o, s, err, cap);
}

static sc_io_status expect_same_read(const char *path, const sc_io_read_options *o,
                                     const char *what) {
    sc_io_spheres one, many;
    char e1[512], e2[512];
    const sc_io_status s1 = read_threads(path, *o, 1, &one, e1, sizeof e1);
    static const int threads[] = {2, 3, 7};
    for (int t = 0; t < 3; t++) {
        const sc_io_status s2 = read_threads(path, *o, threads[t], &many, e2, sizeof e2);
        const size_t nv = s1 == SC_IO_OK ? one.n * (size_t)(one.dims + 1) : 0;
        CHECK(s1 == s2 && strcmp(e1, e2) == 0,
              "%s, %d threads: status %d \"%s\", one thread %d \"%s\"", what, threads[t], (int)s2,
              e2, (int)s1, e1);
        CHECK(s1 != SC_IO_OK ||
                  (many.n == one.n && many.dims == one.dims &&
                   (nv == 0 || memcmp(many.rows, one.rows, nv * sizeof(double)) == 0)),
              "%s, %d threads: %zu spheres, one thread %zu, or other values", what, threads[t],
              many.n, one.n);
        if (s2 == SC_IO_OK)
            sc_io_spheres_free(&many);
    }
    if (s1 == SC_IO_OK)
        sc_io_spheres_free(&one);
    return s1;
}

static void group_pieces(void) {
    static const char *const endings[] = {"\n", "\r\n", "\r"};
    static const char *const decor[] = {"", " ", "\t", " # note", ","};
    const size_t nvals = 280000;
    char *text = malloc(nvals * 48 + 256);
    for (int flat = 0; flat < 2; flat++) {
        for (int variant = 0; variant < 9; variant++) {
            /* 0: plain lines; 1: declined lines now and then; 2: no newline
             * at the end; 3-8: an error or the sphere limit at a random
             * place past the first fifth of the file */
            const size_t plant = variant >= 3 ? nvals / 5 + rng() % (nvals * 4 / 5 - 8) : SIZE_MAX;
            const size_t plant_at = plant / 4 * 4; /* a sphere's first value */
            size_t o = 0, spheres = 0;
            for (size_t k = 0; k < nvals; k++) {
                const int begin = flat || k % 4 == 0, finish = flat || k % 4 == 3;
                char tok[48];
                snprintf(tok, sizeof tok, "%.*g", 1 + (int)(rng() % 17),
                         k % 4 == 3 ? rng_unit() * 5.0 : (rng_unit() - 0.5) * 1e4);
                if (k >= plant_at && k < plant_at + 4) {
                    if (variant == 3 && k % 4 == 3) /* a negative radius */
                        snprintf(tok, sizeof tok, "-0.5");
                    else if (variant == 4 && k % 4 == 1) /* junk glued to a number */
                        snprintf(tok, sizeof tok, "12x");
                    else if (variant == 5 && k % 4 == 2) /* a value past the limit */
                        snprintf(tok, sizeof tok, "1e200");
                    else if (variant == 6 && k % 4 == 0 && begin) /* a stray comma-free field */
                        o += (size_t)sprintf(text + o, "%s", flat ? "1 2\n" : "1 2 3 4 5\n");
                }
                if (variant == 1 && begin && rng() % 40 == 0)
                    o += (size_t)sprintf(text + o, "%s%s", rng() & 1 ? "" : " \t",
                                         endings[rng() % 3]);
                const char *trail = variant == 1 && finish && rng() % 30 == 0
                                        ? decor[3 + (flat ? rng() % 2 : 0)]
                                        : "";
                o += (size_t)sprintf(text + o, "%s%s%s%s", begin ? decor[rng() % 3] : " ", tok,
                                     trail, finish ? endings[variant == 1 ? rng() % 3 : 0] : "");
                spheres += k % 4 == 3;
            }
            if (variant == 2) /* the last line without its newline */
                o -= 1;
            if (variant == 7) /* an incomplete last sphere */
                o += (size_t)sprintf(text + o, flat ? "7\n8.5\n" : "7 8 9\n");
            text[o] = '\0';
            char name[64], what[96];
            snprintf(name, sizeof name, "pieces_%s_%d.txt", flat ? "flat" : "rows", variant);
            const char *path = path_in(name);
            write_bytes(path, text, o);
            sc_io_read_options opts = {SC_IO_FORMAT_AUTO, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0};
            if (variant == 8) /* the sphere limit falls past the first piece */
                opts.max_spheres = plant / 4;
            snprintf(what, sizeof what, "%s (%zu bytes)", name, o);
            const sc_io_status st = expect_same_read(path, &opts, what);
            CHECK((st == SC_IO_OK) == (variant < 3), "%s: status %d", what, (int)st);
            if (variant == 0) { /* and it is read right */
                sc_io_spheres s = read_ok(path, SC_IO_FORMAT_AUTO, 0);
                CHECK(s.n == spheres, "%s: %zu spheres, want %zu", name, s.n, spheres);
                sc_io_spheres_free(&s);
            }
            /* The sphere limit at the file's own count, one below it and
             * half of it: the values' reservation is then sized by the
             * limit, not by the bytes (a value per two bytes), as a text
             * file of more than 2^26 spheres is, and the pieces' line ends
             * must say whether their values fit it (at half, they do
             * not). */
            if (variant <= 2 && spheres > 0)
                for (int k = 0; k < 3; k++) {
                    const size_t below = k < 2 ? (size_t)k : spheres / 2;
                    sc_io_read_options lim = opts;
                    lim.max_spheres = spheres - below;
                    snprintf(what, sizeof what, "%s (%zu bytes), at most %zu spheres", name, o,
                             lim.max_spheres);
                    const sc_io_status sl = expect_same_read(path, &lim, what);
                    CHECK(below ? sl == SC_IO_ERR_TOO_MANY : sl == SC_IO_OK, "%s: status %d", what,
                          (int)sl);
                }
        }
    }
    free(text);
}

/* ---- short decimals: the word-at-a-time path and its edges ---------------
 *
 * Plain decimals of at most 8 digits before and after the point are read a
 * word at a time and divided once (io_text.c, short_decimal); the rest goes
 * to fast_float. Tokens on both sides of every limit of that path (8 and 9
 * digits on either side, no digits on one side, a digit count m at and past
 * 2^53, an exponent, a sign) must read as strtod reads them, on one thread
 * and on several, one sphere a line and one number a line; and a file that
 * ends in a number with no newline at a page's end must not be read past. */
static void short_token(char *buf, size_t cap, int radius) {
    static const uint64_t two53 = (uint64_t)1 << 53;
    size_t o = 0;
    if (!radius && rng() % 4 == 0)
        buf[o++] = '-';
    else if (rng() % 40 == 0)
        buf[o++] = '+';
    int ni = (int)(rng() % 10), nf = (int)(rng() % 11) - 1; /* nf -1: no point */
    if (ni == 0 && nf <= 0)
        ni = 1;
    char digits[24];
    const int kind = (int)(rng() % 8);
    if (kind == 0 && ni + (nf > 0 ? nf : 0) >= 16) {
        /* m near 2^53: 16 digits, the point after the 8th */
        snprintf(digits, sizeof digits, "%llu", (unsigned long long)(two53 - 4 + rng() % 9));
        ni = 8;
        nf = 8;
    } else {
        for (int k = 0; k < ni + (nf > 0 ? nf : 0); k++)
            digits[k] = (char)('0' + (kind == 1 ? 9 : kind == 2 && k < 3 ? 0 : (int)(rng() % 10)));
    }
    for (int k = 0; k < ni; k++)
        buf[o++] = digits[k];
    if (nf >= 0)
        buf[o++] = '.';
    for (int k = 0; k < nf; k++)
        buf[o++] = digits[ni + k];
    if (rng() % 12 == 0)
        o +=
            (size_t)snprintf(buf + o, cap - o, "%c%d", rng() & 1 ? 'e' : 'E', (int)(rng() % 9) - 4);
    buf[o] = '\0';
}

static void group_decimals(void) {
    static const char *const seps[] = {" ", "\t", "  "};
    static const char *const endings[] = {"\n", "\r\n", "\r"};
    const size_t nvals = 200000;
    char *text = malloc(nvals * 40 + 64);
    char(*toks)[32] = malloc(nvals * sizeof *toks);
    for (int flat = 0; flat < 2; flat++) {
        size_t o = 0;
        for (size_t k = 0; k < nvals; k++) {
            short_token(toks[k], sizeof toks[k], k % 4 == 3);
            const int finish = flat || k % 4 == 3;
            o += (size_t)sprintf(text + o, "%s%s", toks[k],
                                 finish ? endings[rng() % 20 == 0 ? 1 + rng() % 2 : 0]
                                        : seps[rng() % 10 == 0 ? 1 + rng() % 2 : 0]);
        }
        const char *path = path_in(flat ? "decimals_flat.txt" : "decimals_rows.txt");
        write_bytes(path, text, o);
        for (int threads = 1; threads <= 2; threads++) {
            sc_io_read_options opts = {SC_IO_FORMAT_AUTO, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0};
            sc_io_spheres s;
            char err[512];
            const sc_io_status st = read_threads(path, opts, threads, &s, err, sizeof err);
            CHECK(st == SC_IO_OK && s.n == nvals / 4, "%s, %d threads: status %d (%s), n %zu", path,
                  threads, (int)st, err, s.n);
            if (st != SC_IO_OK)
                continue;
            size_t bad = 0;
            for (size_t k = 0; k < nvals && s.n == nvals / 4; k++) {
                const double want = strtod(toks[k], NULL), got = ((const double *)s.rows)[k];
                if (!same_bits(want, got) && bad++ < 5)
                    CHECK(0, "%s, %d threads: value %zu (%s): got %.17g want %.17g", path, threads,
                          k, toks[k], got, want);
            }
            CHECK(bad == 0, "%s, %d threads: %zu values differ from strtod", path, threads, bad);
            sc_io_spheres_free(&s);
        }
    }
    /* Tokens that start like a short decimal and are none, with room after
     * them: the line's error, not a value. */
    static const char *const bad[] = {".", "-.", "-", "1..5", "1.5.", "--1", "-+1"};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        for (int flat = 0; flat < 2; flat++) {
            size_t o = 0;
            for (int k = 0; k < 40; k++)
                o += (size_t)sprintf(text + o, flat ? "%s\n1.5\n2\n0.25\n" : "%s 1.5 2 0.25\n",
                                     k == 30 ? bad[b] : "844.6859");
            const char *path = path_in("decimals_bad.txt");
            write_bytes(path, text, o);
            char place[32], token[48];
            snprintf(place, sizeof place, "line %d", flat ? 121 : 31);
            snprintf(token, sizeof token, "\"%s\"", bad[b]);
            EXPECT_FAIL(path, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_SYNTAX, place, token);
        }
    }
    /* A file of exactly one page whose last number ends it, no newline. */
    for (int len = 1; len <= 17; len++) {
        char last[24];
        for (int k = 0; k < len; k++)
            last[k] = (char)('1' + k % 9);
        if (len > 2)
            last[len / 2] = '.';
        last[len] = '\0';
        const size_t page = 4096;
        size_t o = 0;
        while (o + 11 + 6 + (size_t)len <= page) /* lines of 11 bytes */
            o += (size_t)sprintf(text + o, "%s", "1.25 2 3 4\n");
        o += (size_t)sprintf(text + o, "%s", "1 2 3");
        while (o + (size_t)len < page) /* blanks up to the last radius */
            text[o++] = ' ';
        memcpy(text + o, last, (size_t)len);
        const char *path = path_in("decimals_page.txt");
        write_bytes(path, text, page);
        sc_io_spheres s = read_ok(path, SC_IO_FORMAT_AUTO, 0);
        CHECK(s.n > 0 && s.rows &&
                  same_bits(((const double *)s.rows)[4 * s.n - 1], strtod(last, NULL)),
              "a page ending in %s: n %zu", last, s.n);
        sc_io_spheres_free(&s);
    }
    free(text);
    free(toks);
}

/* Reads a file as written (plain, its one-pass path) and again as
 * `other` (the same lines made to take the general path) into the same
 * path: status, message and values must agree, and a clean file must read
 * with `n` spheres. `what` names the case in a failure. */
static void expect_both_ways(const char *path, const char *plain, size_t np, const char *other,
                             size_t no, sc_io_read_options opts, int threads, int clean, size_t n,
                             const char *what) {
    sc_io_spheres a, b;
    char ea[512], eb[512];
    write_bytes(path, plain, np);
    const sc_io_status sa = read_threads(path, opts, threads, &a, ea, sizeof ea);
    write_bytes(path, other, no);
    const sc_io_status sb = read_threads(path, opts, threads, &b, eb, sizeof eb);
    CHECK(sa == sb && strcmp(ea, eb) == 0,
          "%s, %d thread(s): one pass %d \"%s\", general path %d \"%s\"", what, threads, (int)sa,
          ea, (int)sb, eb);
    if (clean)
        CHECK(sa == SC_IO_OK && a.n == n, "%s: status %d (%s), %zu spheres, want %zu", what,
              (int)sa, ea, a.n, n);
    if (sa == SC_IO_OK && sb == SC_IO_OK) {
        const size_t nv = a.n * (size_t)(a.dims + 1);
        CHECK(a.n == b.n && a.dims == b.dims && memcmp(a.rows, b.rows, nv * sizeof(double)) == 0,
              "%s, %d thread(s): %zu spheres against %zu, or other values", what, threads, a.n,
              b.n);
    }
    if (sa == SC_IO_OK)
        sc_io_spheres_free(&a);
    if (sb == SC_IO_OK)
        sc_io_spheres_free(&b);
}

/* ---- runs of the plainest lines: 64 bytes at a time ----------------------
 *
 * Lines of nothing but short decimals, one space or one comma between them
 * and \n or \r\n after them, are read in runs whose field ends come from a
 * 64-byte mask (io_text.c, line_run); any other line goes to the one-line
 * path. Each file below is read as written and again with every plain line
 * led by a blank (which only the one-line path takes): status, message and
 * values must agree, on 1 and 2 threads, one sphere a line, one number a
 * line, and under three headers (the columns in order, x and y swapped,
 * and fields it does not name among them). Each file plants one line the
 * runs must leave to the one-line path, or nothing, or ends on an
 * incomplete sphere. */
static size_t run_token(char *out, int radius) {
    /* 8 and 8 digits at most, 15 in all, so that a run takes them; 16 now
     * and then, which may pass 2^53 and end a run */
    const int ni = 1 + (int)(rng() % 8), nf = rng() % 64 ? (int)(rng() % (ni == 8 ? 8 : 9)) : 8;
    size_t o = 0;
    if (!radius && rng() % 3 == 0)
        out[o++] = '-';
    for (int k = 0; k < ni; k++)
        out[o++] = (char)('0' + (k == 0 && ni > 1 ? 1 + rng() % 9 : rng() % 10));
    if (nf > 0 || rng() % 4 == 0)
        out[o++] = '.';
    for (int k = 0; k < nf; k++)
        out[o++] = (char)('0' + rng() % 10);
    out[o] = '\0';
    return o;
}

/* io_line_ends, which places the pieces' values, counts lines as the
 * reader does: against a byte loop on random runs of '\n', '\r' and other
 * bytes, at every length and offset (the 16-byte blocks and the tail). */
static void check_line_ends(void) {
    char buf[600];
    size_t bad = 0;
    for (int round = 0; round < 400; round++) {
        for (size_t k = 0; k < sizeof buf; k++) {
            const uint64_t r = rng() % 8;
            buf[k] = r == 0 ? '\n' : r == 1 ? '\r' : (char)('0' + r);
        }
        const size_t b = rng() % 40, e = b + rng() % (sizeof buf - b);
        size_t want = 0;
        for (size_t k = b; k < e; k++)
            want += buf[k] == '\n' || (buf[k] == '\r' && (k + 1 == e || buf[k + 1] != '\n'));
        bad += io_line_ends(buf + b, buf + e) != want;
    }
    /* a run of 300 x 16 line ends: the per-byte counts must not wrap */
    static char many[300 * 16 + 1];
    memset(many, '\n', sizeof many - 1);
    CHECK(io_line_ends(many, many + sizeof many - 1) == sizeof many - 1, "%zu line ends, want %zu",
          io_line_ends(many, many + sizeof many - 1), sizeof many - 1);
    CHECK(bad == 0, "io_line_ends: %zu of 400 random spans miscounted", bad);
}

static void group_runs(void) {
    /* planted lines, one sphere a line, and one number a line */
    static const char *const odd_rows[] = {
        NULL,                   /* none */
        "1e3 2 3 0.25",         /* an exponent */
        "123456789.5 2 3 0.25", /* nine digits */
        "1.5  2 3 0.25",        /* two blanks */
        "1.5 2 3 0.25\t",       /* a tab at the end */
        "1.5,2,3,0.25,",        /* a comma ending the line */
        "1.5 2 3 -0.25",        /* a negative radius */
        "1.5,2 3,0.25",         /* separators mixed */
        "1.5 2 3 0.25\r",       /* a lone \r ending the line */
        "1 2 3 4 5",            /* five fields */
        "1 2 3",                /* three */
        "",                     /* an empty line */
        "1.5,,3,0.25",          /* an empty field */
        "+1.5 2 3 0.25",        /* a plus sign */
        "1.5 2 3 0.25x",        /* junk */
    };
    static const char *const odd_flat[] = {NULL,   "1e3",   "123456789.5", "1.5\t",
                                           "1.5 ", "-0.25", "1.5\r",       "1 2",
                                           "",     "1,2",   "+1.5",        "1.5x"};
    /* under id,el,x,y,z,radius,vx: the fields the header does not name */
    static const char *const odd_named[] = {
        NULL, "7,He,1,2,3,0.5,1e3", "7, He,1,2,3,0.5,0", "7,He,1,2,3,0.5,0 ", "7,C#,1,2,3,0.5,0",
        "7,,1,2,3,0.5,0", "7,C\t,1,2,3,0.5,0", "7,C,1,2,3,-0.5,0", "7,C,1,2,3,0.5,0\r",
        "7,C,1,2,3,0.5", "7,C\v,1,2,3,0.5,0", "7,C 1,2,3,0.5,0", "7,C\r,1,2,3,0.5,0",
        /* blanks between fields: where the one-line path splits */
        "7  1 2 3 0.5 0", "7 C\tX 1 2 3 0.5 0", "7 C\vX 1 2 3 0.5 0", "7 C\fX 1 2 3 0.5 0"};
    enum { ROWS_CLEAN = 6, FLAT_CLEAN = 5, NAMED_CLEAN = 4 }; /* the kinds before read cleanly */
    check_line_ends();
    const size_t cap = 8 << 20;
    char *a = malloc(cap), *b = malloc(cap);
    /* rows, one a line, rows under a header, under one that swaps x and y,
     * and under one with fields it does not name */
    for (int mode = 0; mode < 5; mode++) {
        const int flat = mode == 1, named = mode == 4, per = flat ? 1 : named ? 7 : 4;
        const char *const *odds = flat ? odd_flat : named ? odd_named : odd_rows;
        const size_t kinds = flat    ? sizeof odd_flat / sizeof odd_flat[0]
                             : named ? sizeof odd_named / sizeof odd_named[0]
                                     : sizeof odd_rows / sizeof odd_rows[0];
        for (size_t kind = 0; kind <= kinds; kind++) {
            /* kind == kinds: an incomplete last sphere (the last 19 bytes of
             * a piece are never a run's: short_decimal wants that room, so
             * the token named is the one-line path's either way) */
            const int tail = kind == kinds;
            const size_t lines = tail ? 400 : flat ? 240000 : 60000;
            const size_t plant = lines / 3 + rng() % (lines / 2);
            const int clean = kind < (flat ? FLAT_CLEAN : named ? NAMED_CLEAN : ROWS_CLEAN);
            size_t na = 0, nb = 0, values = 0;
            static const char *const headers[] = {"", "", "x,y,z,r\n", "y,x,z,r\n",
                                                  "id,el,x,y,z,radius,vx\n"};
            na += (size_t)sprintf(a + na, "%s", headers[mode]);
            nb += (size_t)sprintf(b + nb, "%s", headers[mode]);
            for (size_t line = 0; line < lines; line++) {
                const char *odd = tail ? NULL : odds[kind];
                if (odd && line == plant) {
                    na += (size_t)sprintf(a + na, "%s\n", odd);
                    nb += (size_t)sprintf(b + nb, "%s\n", odd);
                    values += clean ? (size_t)(named ? 4 : per) : 0;
                    continue;
                }
                const char sep = mode >= 2 || rng() % 2 ? ',' : ' ';
                b[nb++] = ' ';
                for (int f = 0; f < per; f++) {
                    char tok[32];
                    static const char *const el[] = {"C", "He", "Na", "O"};
                    const size_t len =
                        named && f == 0 ? (size_t)sprintf(tok, "%zu", line + 1)
                        : named && f == 1
                            ? (size_t)sprintf(tok, "%s", el[rng() % 4])
                            : run_token(tok, flat ? values % 4 == 3 : f == (named ? 5 : 3));
                    memcpy(a + na, tok, len);
                    memcpy(b + nb, tok, len);
                    na += len;
                    nb += len;
                    if (f + 1 < per)
                        a[na++] = b[nb++] = sep;
                }
                const char *end = rng() % 3 == 0 ? "\r\n" : "\n";
                na += (size_t)sprintf(a + na, "%s", end);
                nb += (size_t)sprintf(b + nb, "%s", end);
                values += (size_t)(named ? 4 : per);
            }
            if (tail) { /* a value short of a sphere, or a field short under the names */
                const char *short_end = flat ? "7\n8.5\n9\n" : named ? "7,C,8,9,1\n" : "7,8,9\n";
                na += (size_t)sprintf(a + na, "%s", short_end);
                for (const char *l = short_end; *l;
                     l = strchr(l, '\n') + 1) /* each line led by a blank */
                    nb += (size_t)sprintf(b + nb, " %.*s", (int)(strchr(l, '\n') + 1 - l), l);
            }
            char name[64], what[128];
            snprintf(name, sizeof name, "runs_%d.txt", mode);
            snprintf(what, sizeof what, "runs: %s, kind %zu",
                     flat        ? "one a line"
                     : mode == 0 ? "rows"
                     : mode == 2 ? "header"
                     : mode == 3 ? "header y,x"
                                 : "named",
                     kind);
            sc_io_read_options opts = {SC_IO_FORMAT_AUTO, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0};
            for (int threads = 1; threads <= 2; threads++)
                expect_both_ways(path_in(name), a, na, b, nb, opts, threads, clean, values / 4,
                                 what);
            if (clean && kind == 0 && !named) { /* and the values are strtod's */
                write_bytes(path_in(name), a, na);
                sc_io_spheres s = read_ok(path_in(name), SC_IO_FORMAT_AUTO, 0);
                size_t bad = 0;
                const char *t = a + (mode >= 2 ? 8 : 0);
                for (size_t k = 0; k < values && s.n == values / 4; k++) {
                    char *next;
                    const double want = strtod(t, &next);
                    const size_t slot = mode == 3 && k % 4 < 2 ? k ^ 1 : k; /* y,x */
                    if (!same_bits(want, ((const double *)s.rows)[slot]))
                        bad++;
                    t = next + 1 + (next[0] == '\r');
                }
                CHECK(s.n == values / 4 && bad == 0,
                      "%s: %zu spheres, %zu values differ from strtod", what, s.n, bad);
                sc_io_spheres_free(&s);
            }
        }
    }
    free(a);
    free(b);
}

/* ---- comma-separated lines: the one-pass path against the general one -----
 *
 * The one-pass path reads lines separated by commas too (CSV), with blanks
 * around the commas and a comma that may end the line, and declines a line
 * that mixes blanks and commas as separators or has an empty field. The same
 * lines led by a vertical tab (a blank to the general path, a byte the
 * one-pass path declines at once) never take the one-pass path, so
 * each file is read both ways: status, message and values must agree, on 1
 * and 2 threads, with and without a header line (in order, out of order,
 * with more columns, some of them words). */
static void csv_line(char *out, size_t cap, int odd) {
    static const char *const seps[] = {",", ", ", " ,", " , ", ",\t", "\t,"};
    size_t o = 0;
    const int n = 4;
    if (rng() % 8 == 0)
        o += (size_t)snprintf(out + o, cap - o, "%s", rng() & 1 ? " " : "\t");
    for (int k = 0; k < n; k++) {
        char tok[40];
        if (rng() % 3 == 0)
            short_token(tok, sizeof tok, k == 3);
        else
            snprintf(tok, sizeof tok, "%.*g", 1 + (int)(rng() % 17),
                     k == 3 ? rng_unit() * 5.0 : (rng_unit() - 0.5) * 1e4);
        if (odd == 0 && k == 2) /* an empty field */
            tok[0] = '\0';
        if (odd == 1 && k == 1) /* junk */
            snprintf(tok, sizeof tok, "1.5x");
        if (odd == 2 && k == 3) /* a negative radius */
            snprintf(tok, sizeof tok, "-2.5");
        o += (size_t)snprintf(out + o, cap - o, "%s", tok);
        if (k + 1 < n) {
            const char *sep = seps[rng() % 6];
            if (odd == 3 && k == 1) /* blanks where the line's commas are */
                sep = " ";
            if (odd == 8 && k > 0) /* blanks after a first comma */
                sep = rng() & 1 ? " " : "\t";
            if (odd == 9 && k == 0) /* a comma after a first blank */
                sep = " ";
            o += (size_t)snprintf(out + o, cap - o, "%s", sep);
        }
    }
    if (odd == 4) /* a fifth field */
        o += (size_t)snprintf(out + o, cap - o, ",7");
    else if (odd == 5 || odd == 6) /* a comma that ends the line */
        o += (size_t)snprintf(out + o, cap - o, "%s", odd == 5 ? "," : " , ");
    else if (odd == 7) /* a field after a comma that ends nothing */
        o += (size_t)snprintf(out + o, cap - o, ", ,");
    out[o] = '\0';
}

static void group_csv(void) {
    static const char *const headers[] = {"",          "x,y,z,r\n",   "x, y, z, r\n",
                                          "y,x,z,r\n", "x,y,z,r,w\n", "id,el,x,y,z,radius,vx\n",
                                          "x y z r\n"};
    enum { HEADERS = sizeof headers / sizeof headers[0] };
    static const char *const endings[] = {"\n", "\r\n", "\r"};
    const size_t big_lines = 40000;
    char *plain = malloc(big_lines * 128 + 256), *noted = malloc(big_lines * 160 + 256);
    for (int variant = 0; variant < 40; variant++) {
        /* clean files meet every header; each odd kind no header (lines of
         * numbers only) and one of the others (lines read by their fields) */
        const int clean = variant % 2 == 0, big = variant == 2 || variant == 7;
        const int h = clean          ? (variant / 2) % HEADERS
                      : variant < 20 ? 0
                                     : 1 + (variant / 2) % (HEADERS - 1);
        const size_t lines = big ? big_lines : 1500;
        /* an odd variant plants one kind of odd line (csv_line) at a random line */
        const int kind = (variant / 2) % 10;
        const size_t plant = clean ? SIZE_MAX : rng() % lines;
        size_t o = 0, on = 0;
        o += (size_t)sprintf(plain + o, "%s", headers[h]);
        on += (size_t)sprintf(noted + on, "%s", headers[h]);
        for (size_t l = 0; l < lines; l++) {
            char line[240], wide[240];
            csv_line(line, sizeof line, l == plant ? kind : -1);
            if (h == 4) /* five columns: the fifth is w */
                strcat(line, ",0.5");
            if (h == 5) { /* an id and an element before, a velocity after */
                /* an odd file's element halfway to its odd line holds a '#',
                 * which starts a comment there */
                snprintf(wide, sizeof wide, "%zu,%s,", l,
                         !clean && l == plant / 2 ? "X#1"
                         : l % 3                  ? "C"
                                                  : "He");
                strcat(wide, line);
                strcat(wide, ",0.0");
                memcpy(line, wide, sizeof line);
            }
            const char *end = endings[rng() % 10 == 0 ? 1 + rng() % 2 : 0];
            o += (size_t)sprintf(plain + o, "%s%s", line, end);
            on += (size_t)sprintf(noted + on, "\v%s%s", line, end);
        }
        char what[64];
        snprintf(what, sizeof what, "csv variant %d", variant);
        for (int threads = 1; threads <= 2; threads++) {
            const sc_io_read_options opts = {SC_IO_FORMAT_TEXT, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0};
            expect_both_ways(path_in("csv.txt"), plain, o, noted, on, opts, threads, clean, lines,
                             what);
        }
    }
    free(plain);
    free(noted);
}

/* ---- text ---------------------------------------------------------------- */

static void check_values(const sc_io_spheres *s, const double *want, size_t nvals,
                         const char *what) {
    CHECK(s->n * (size_t)(s->dims + 1) == nvals, "%s: %zu values, want %zu", what,
          s->n * (size_t)(s->dims + 1), nvals);
    if (s->n * (size_t)(s->dims + 1) != nvals || s->dtype != SC_F64)
        return;
    for (size_t k = 0; k < nvals; k++)
        CHECK(same_bits(((const double *)s->rows)[k], want[k]),
              "%s: value %zu is %.17g, want %.17g", what, k, ((const double *)s->rows)[k], want[k]);
}

static void group_text(void) {
    const double v8[8] = {1, 2, 3, 4, 5.5, -6, 7e-3, 0};
    static const struct {
        const char *name, *text;
    } same[] = {
        {"lf.txt", "1 2 3 4\n5.5 -6 7e-3 0\n"},
        {"crlf.txt", "1 2 3 4\r\n5.5 -6 7e-3 0\r\n"},
        {"cr.txt", "1 2 3 4\r5.5 -6 7e-3 0\r"},
        {"mixed.dat", "1\r\n2\n3\r4\r\n5.5\n\n\r\n-6\r7e-3\n0"},
        {"comments.txt", "# x y z r\n1 2 3 4 # first\n#only a comment\r\n5.5 -6 7e-3 0#end"},
        {"commas.csv", "1,2,3,4\n5.5, -6 ,7e-3,0,\n"},
        {"tabs.txt", "\t1\t2\t3\t4\n\f\v5.5 -6 7e-3 0   \n\n"},
        {"bom.txt", "\xEF\xBB\xBF"
                    "1 2 3 4\n5.5 -6 7e-3 0"},
        /* a header of names, in any order, with extra and unnamed columns */
        {"header.csv", "x,y,z,r\n1,2,3,4\n5.5,-6,7e-3,0\n"},
        {"header-order.csv", "r,z,y,x\n4,3,2,1\n0,7e-3,-6,5.5\n"},
        {"pandas.csv", ",x,y,z,r,type\n0,1,2,3,4,7\n1,5.5,-6,7e-3,0,8\n"},
        {"quoted.csv", "\"id\",\"X\",\"Y\",\"Z\",\"Radius\"\r\n10,1,2,3,4\r\n11,5.5,-6,7e-3,0\r\n"},
        {"header-words.txt",
         "# exported\nid x y z r label\n1 1 2 3 4 big\n2 5.5 -6 7e-3 0 small\n"},
        {"onecol.dat", "1\r\n2\r\n3\r\n4\r\n5.5\r\n-6\r\n7e-3\r\n0\r\n"},
        {"hash.txt", "1 2 3 4#c\n5.5 -6 7e-3 0#"},
    };
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++) {
        const char *p = path_in(same[k].name);
        write_text(p, same[k].text);
        sc_io_spheres s = read_ok(p, SC_IO_FORMAT_AUTO, 0);
        CHECK(s.n == 2 && s.dims == 3 && s.dtype == SC_F64 && s.format == SC_IO_FORMAT_TEXT,
              "%s: n %zu dims %d", same[k].name, s.n, s.dims);
        check_values(&s, v8, 8, same[k].name);
        sc_io_spheres_free(&s);
    }

    /* 2-D: three numbers per circle */
    const char *p2 = path_in("circles.txt");
    write_text(p2, "1 2 3\n4 5 6\n");
    sc_io_spheres c = read_ok(p2, SC_IO_FORMAT_AUTO, 2);
    const double v6[6] = {1, 2, 3, 4, 5, 6};
    CHECK(c.n == 2 && c.dims == 2, "circles: n %zu dims %d", c.n, c.dims);
    check_values(&c, v6, 6, "circles");
    sc_io_spheres_free(&c);
    /* without --2d, lines of three numbers are an error, not 3-D spheres
     * made of shifted values (it read 4 lines of x y r as 3 spheres) */
    write_text(p2, "1 2 3\n4 5 6\n7 8 9\n10 11 12\n");
    EXPECT_FAIL(p2, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_COUNT, "line 1", "use --2d");
    write_text(p2, "1 2 3\n4 5 6\n7 8\n");
    EXPECT_FAIL(p2, SC_IO_FORMAT_AUTO, 2, SC_IO_ERR_COUNT, "line 3", "2 values on a line");
    /* a header without z: circles */
    write_text(p2, "x,y,r\n1,2,3\n4,5,6\n");
    c = read_ok(p2, SC_IO_FORMAT_AUTO, 0);
    CHECK(c.n == 2 && c.dims == 2, "header x,y,r: n %zu dims %d", c.n, c.dims);
    check_values(&c, v6, 6, "header x,y,r");
    sc_io_spheres_free(&c);
    write_text(p2, "1 2 -3\n");
    EXPECT_FAIL(p2, SC_IO_FORMAT_AUTO, 2, SC_IO_ERR_NEGATIVE_RADIUS, "line 1", "\"-3\"");

    /* empty inputs are fine: n = 0 */
    static const char *empties[] = {"", "\n\r\n", "# nothing\n#\n", "   \t"};
    for (size_t k = 0; k < 4; k++) {
        const char *p = path_in("empty.txt");
        write_text(p, empties[k]);
        sc_io_spheres s = read_ok(p, SC_IO_FORMAT_AUTO, 0);
        CHECK(s.n == 0 && s.rows == NULL, "empty %zu: n %zu", k, s.n);
        sc_io_spheres_free(&s);
    }
    /* zero and negative-zero radii are allowed */
    const char *pz = path_in("zero.txt");
    write_text(pz, "0 0 0 0\n1 1 1 -0\n");
    sc_io_spheres z = read_ok(pz, SC_IO_FORMAT_AUTO, 0);
    CHECK(z.n == 2, "zero radii: n %zu", z.n);
    sc_io_spheres_free(&z);
    /* a long but valid number goes through strtod */
    {
        char big[400];
        memset(big, '1', 300);
        big[0] = '0';
        big[1] = '.';
        memcpy(big + 300, " 2 3 4\n", 8);
        const char *p = path_in("long.txt");
        write_text(p, big);
        sc_io_spheres s = read_ok(p, SC_IO_FORMAT_AUTO, 0);
        big[300] = '\0';
        CHECK(s.n == 1 && same_bits(((const double *)s.rows)[0], strtod(big, NULL)),
              "300-digit number");
        sc_io_spheres_free(&s);
    }

    /* a 5000-character number is a number (tokens of 4096+ were "non-numeric") */
    {
        const size_t digits = 5000;
        char *big = malloc(digits + 16);
        big[0] = '0';
        big[1] = '.';
        memset(big + 2, '0', digits - 3);
        big[digits - 1] = '5';
        memcpy(big + digits, " 2 3 4\n", 8);
        const char *p = path_in("long5000.txt");
        write_text(p, big);
        sc_io_spheres s = read_ok(p, SC_IO_FORMAT_AUTO, 0);
        big[digits] = '\0';
        CHECK(s.n == 1 && same_bits(((const double *)s.rows)[0], strtod(big, NULL)),
              "5000-digit number");
        sc_io_spheres_free(&s);
        free(big);
    }

    /* every error names the file, the line and the token, for each line ending */
    static const char *endings[] = {"\n", "\r\n", "\r"};
    for (int e = 0; e < 3; e++) {
        char t[256];
        const char *nl = endings[e];
        snprintf(t, sizeof t, "1 2 3 4%s# comment%s%s5 6 7 8%sabc 1 2 3%s", nl, nl, nl, nl, nl);
        const char *p = path_in("bad_token.txt");
        write_text(p, t);
        EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_SYNTAX, "line 5", "\"abc\"");
    }
    static const struct {
        const char *text;
        sc_io_status want;
        const char *place, *token;
    } bad[] = {
        {"1 2 3 4\n1.2.3 4 5 6\n", SC_IO_ERR_SYNTAX, "line 2", "\"1.2.3\""},
        {"1 2 3 4\n5 6 7 8x\n", SC_IO_ERR_SYNTAX, "line 2", "\"8x\""},
        {"1 2 3 4\n5 6 7 --8\n", SC_IO_ERR_SYNTAX, "line 2", "\"--8\""},
        {"1 2 3 4\n5 6 7 e5\n", SC_IO_ERR_SYNTAX, "line 2", "\"e5\""},
        {"1 2 3 4\n5 6 7 1e\n", SC_IO_ERR_SYNTAX, "line 2", "\"1e\""},
        {"x,y,z\n1,2,3\n", SC_IO_ERR_SYNTAX, "line 1", "no column r"},
        {"x,y,x,r\n1,2,3,4\n", SC_IO_ERR_SYNTAX, "line 1", "\"x\" twice"},
        {"x y z r\n1 2 3 4\n5 6 7\n", SC_IO_ERR_COUNT, "line 3", "header on line 1 names 4"},
        {"name value\n1 2\n", SC_IO_ERR_SYNTAX, "line 1", "\"name\""},
        {"1 2 3 4\nx y z r\n", SC_IO_ERR_SYNTAX, "line 2", "\"x\""},
        /* a CSV with an index column, no header: 5 values, not shifted spheres */
        {"0,1,2,3,4\n1,5,6,7,8\n", SC_IO_ERR_COUNT, "line 1", "5 values"},
        /* x y z without a radius */
        {"1 2 3\n4 5 6\n7 8 9\n10 11 12\n", SC_IO_ERR_COUNT, "line 1", "3 values"},
        /* one number per line, then a line of four */
        {"1\n2\n3\n4\n5 6 7 8\n", SC_IO_ERR_COUNT, "line 5", "one number each"},
        {"1,2,,3,4\n", SC_IO_ERR_SYNTAX, "line 1", "empty field"},
        {"1 2 3 4\n\n5 6 7 nan\n", SC_IO_ERR_NON_FINITE, "line 3", "\"nan\""},
        {"1 2 3 4\n5 NaN 7 8\n", SC_IO_ERR_NON_FINITE, "line 2", "\"NaN\""},
        {"inf 2 3 4\n", SC_IO_ERR_NON_FINITE, "line 1", "\"inf\""},
        {"1 -Infinity 3 4\n", SC_IO_ERR_NON_FINITE, "line 1", "\"-Infinity\""},
        {"1 2 3 4\r\n5 6 7 1e999\r\n", SC_IO_ERR_OUT_OF_RANGE, "line 2", "\"1e999\""},
        {"1 2 3 4\r\n-1e151 6 7 8\r\n", SC_IO_ERR_OUT_OF_RANGE, "line 2", "\"-1e151\""},
        {"1 2 3 1.0000000000000001e150\n", SC_IO_ERR_OUT_OF_RANGE, "line 1", "e150\""},
        {"1 2 3 4\n5 6 7 -0.5\n", SC_IO_ERR_NEGATIVE_RADIUS, "line 2", "\"-0.5\""},
        {"1 2 3 4\n5 6 7 -1e-300\n", SC_IO_ERR_NEGATIVE_RADIUS, "line 2", "\"-1e-300\""},
        {"1 2 3 4\n5 6 7\n", SC_IO_ERR_COUNT, "line 2", "3 values"},
        {"1 2 3 4 5 # five numbers\n# end\n", SC_IO_ERR_COUNT, "line 1", "5 values"},
        {"1\n2\n3\n4\n5\n", SC_IO_ERR_COUNT, "line 5", "not a multiple of 4"},
        {"1 2 3 4\n5 6 \"7\" 8\n", SC_IO_ERR_SYNTAX, "line 2", "\"\\\"7\\\"\""},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const char *p = path_in("bad.txt");
        write_text(p, bad[k].text);
        EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, bad[k].want, bad[k].place, bad[k].token);
    }
    /* a NUL byte inside a token is shown escaped */
    {
        const char t[] = "1 2 3 4\n5 6 7 8\n9 1\0 2 3\n";
        const char *p = path_in("nul.txt");
        write_bytes(p, t, sizeof t - 1);
        EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_SYNTAX, "line 3", "\"1\\x00\"");
    }
    /* the sphere limit, lowered for the test */
    {
        const char *p = path_in("three.txt");
        write_text(p, "1 2 3 4\n5 6 7 8\n9 10 11 12\n");
        sc_io_read_options o = {SC_IO_FORMAT_AUTO, 0, 2, 0, NULL, NULL, 0, 0, 0, 0, 0};
        expect_fail_opts(p, &o, SC_IO_ERR_TOO_MANY, "line 3", "more than 2", __LINE__);
        o.max_spheres = 3;
        sc_io_spheres s;
        char err[256];
        CHECK(sc_io_read_spheres(p, &o, &s, err, sizeof err) == SC_IO_OK, "%s", err);
        sc_io_spheres_free(&s);
    }
    /* missing file, a directory, and an explicit format that is not for spheres */
    EXPECT_FAIL(path_in("no-such-file.txt"), SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_OPEN, "cannot open",
                "No such file");
    mkdir(path_in("adir.txt"), 0777);
    EXPECT_FAIL(path_in("adir.txt"), SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_OPEN, "directory", NULL);
    rmdir(path_in("adir.txt"));
    EXPECT_FAIL(path_in("lf.txt"), SC_IO_FORMAT_BIN, 0, SC_IO_ERR_ARGUMENT, "f32 or f64", NULL);
    /* text through an explicit format overrides the extension */
    write_text(path_in("numbers.npy"), "1 2 3 4\n");
    sc_io_spheres t = read_ok(path_in("numbers.npy"), SC_IO_FORMAT_TEXT, 0);
    CHECK(t.n == 1, "explicit text format: n %zu", t.n);
    sc_io_spheres_free(&t);
}

/* ---- npy ----------------------------------------------------------------- */

/* Builds an .npy file: magic, version, header length, `dict` padded with
 * spaces and '\n' so that the total is a multiple of `align` (0: no padding,
 * no newline), then `data`. */
static void make_npy(const char *path, int major, const char *dict, size_t align, const void *data,
                     size_t datalen) {
    size_t prefix = major == 1 ? 10 : 12;
    size_t dl = strlen(dict);
    size_t total = prefix + dl + (align ? 1 : 0);
    if (align)
        total = (total + align - 1) / align * align;
    unsigned char *b = malloc(total + datalen + 1);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = 0;
    size_t hlen = total - prefix;
    b[8] = (unsigned char)hlen;
    b[9] = (unsigned char)(hlen >> 8);
    if (major != 1) {
        b[10] = (unsigned char)(hlen >> 16);
        b[11] = (unsigned char)(hlen >> 24);
    }
    memcpy(b + prefix, dict, dl);
    memset(b + prefix + dl, ' ', total - prefix - dl);
    if (align)
        b[total - 1] = '\n';
    if (datalen)
        memcpy(b + total, data, datalen);
    write_bytes(path, b, total + datalen);
    free(b);
}

static void group_npy(void) {
    double d[20];
    float f[15];
    for (int k = 0; k < 20; k++)
        d[k] = (k % 4 == 3) ? 0.25 * k : 1.0 / (k + 1) - 0.3;
    for (int k = 0; k < 15; k++)
        f[k] = (k % 3 == 2) ? 0.5f * (float)k : (float)(1.0 / (k + 3)) - 0.1f;
    const char *p = path_in("a.npy");

    /* versions 1.0, 2.0, 3.0; key order, quotes and spacing vary */
    make_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 4), }", 64, d, sizeof d);
    sc_io_spheres s = read_ok(p, SC_IO_FORMAT_AUTO, 0);
    CHECK(s.n == 5 && s.dims == 3 && s.dtype == SC_F64 && s.format == SC_IO_FORMAT_NPY, "v1 f8");
    check_values(&s, d, 20, "v1 f8");
    sc_io_spheres_free(&s);

    make_npy(p, 2, "{\"shape\":(5,4),\"fortran_order\":False,\"descr\":\"<f8\"}", 64, d, sizeof d);
    s = read_ok(p, SC_IO_FORMAT_NPY, 0);
    CHECK(s.n == 5 && s.dims == 3, "v2 f8");
    check_values(&s, d, 20, "v2 f8");
    sc_io_spheres_free(&s);

    make_npy(p, 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (5, 3)}", 16, f, sizeof f);
    s = read_ok(p, SC_IO_FORMAT_AUTO, 0);
    CHECK(s.n == 5 && s.dims == 2 && s.dtype == SC_F32, "v3 f4 (N,3): n %zu dims %d dtype %d", s.n,
          s.dims, (int)s.dtype);
    for (int k = 0; k < 15 && s.n == 5; k++)
        CHECK(((const float *)s.rows)[k] == f[k], "float32 kept: value %d", k);
    sc_io_spheres_free(&s);
    s = read_ok(p, SC_IO_FORMAT_AUTO, 2);
    CHECK(s.n == 5 && s.dims == 2, "--2d with (N,3)");
    sc_io_spheres_free(&s);

    /* an unaligned data offset (no padding) is copied, values intact */
    make_npy(p, 1, "{'descr':'<f8','fortran_order':False,'shape':(5,4)}", 0, d, sizeof d);
    s = read_ok(p, SC_IO_FORMAT_AUTO, 0);
    check_values(&s, d, 20, "unaligned data");
    sc_io_spheres_free(&s);
    /* Python 2 style long integers, and an empty array */
    make_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5L, 4L), }", 64, d,
             sizeof d);
    s = read_ok(p, SC_IO_FORMAT_AUTO, 0);
    CHECK(s.n == 5, "5L");
    sc_io_spheres_free(&s);
    make_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }", 64, NULL, 0);
    s = read_ok(p, SC_IO_FORMAT_AUTO, 0);
    CHECK(s.n == 0 && s.rows == NULL, "empty npy");
    sc_io_spheres_free(&s);

    /* malformed headers: category and byte offset */
    static const unsigned char badmagic[] = "\x93NUMPZ\x01\x00\x10\x00{}";
    write_bytes(p, badmagic, sizeof badmagic - 1);
    EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_HEADER, "byte 0", "magic");
    static const unsigned char badver[] = "\x93NUMPY\x04\x00\x10\x00{}";
    write_bytes(p, badver, sizeof badver - 1);
    EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_HEADER, "byte 6", "version 4.0");
    static const unsigned char shortlen[] = "\x93NUMPY\x01\x00\xff\x00{}";
    write_bytes(p, shortlen, sizeof shortlen - 1);
    EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_HEADER, "byte 10", "past the end");
    write_bytes(p, "\x93NUMPY\x01", 7);
    EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_HEADER, "byte 6", NULL);
    write_bytes(p, "", 0);
    EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_HEADER, "byte 0", NULL);
    static const struct {
        const char *dict;
        sc_io_status want;
        const char *place, *what;
    } hdr[] = {
        /* offsets: the dict starts at byte 10 */
        {"'descr': '<f8', 'fortran_order': False, 'shape': (5, 4)", SC_IO_ERR_HEADER, "byte 10",
         "'{'"},
        {"{'descr': '<f8', 'fortran_order': False}", SC_IO_ERR_HEADER, "byte 10", "'shape'"},
        {"{'descr': '<f8', 'shape': (5, 4)}", SC_IO_ERR_HEADER, "byte 10", "'fortran_order'"},
        {"{'fortran_order': False, 'shape': (5, 4)}", SC_IO_ERR_HEADER, "byte 10", "'descr'"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (5, 4), 'foo': 1}", SC_IO_ERR_HEADER,
         "byte 68", "unexpected key"},
        {"{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (5, 4)}",
         SC_IO_ERR_HEADER, "byte 27", "duplicate"},
        {"{'descr': '<f8, 'fortran_order': False, 'shape': (5, 4)}", SC_IO_ERR_HEADER, NULL, NULL},
        {"{'descr': '<f8', 'fortran_order': Maybe, 'shape': (5, 4)}", SC_IO_ERR_HEADER, "byte 44",
         "True or False"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': [5, 4]}", SC_IO_ERR_HEADER, "byte 60",
         "tuple"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (5, -4)}", SC_IO_ERR_HEADER, "byte 64",
         "tuple"},
        {"{'descr': '<f8', 'fortran_order': False 'shape': (5, 4)}", SC_IO_ERR_HEADER, "byte 50",
         "','"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (5, 4)} x", SC_IO_ERR_HEADER, "byte 68",
         "after the header"},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (5, 4)}", SC_IO_ERR_DTYPE, "byte 20",
         "\"<i4\""},
        {"{'descr': '>f8', 'fortran_order': False, 'shape': (5, 4)}", SC_IO_ERR_DTYPE, "byte 20",
         "\">f8\""},
        {"{'descr': '<f2', 'fortran_order': False, 'shape': (5, 4)}", SC_IO_ERR_DTYPE, "byte 20",
         NULL},
        {"{'descr': [('x', '<f8')], 'fortran_order': False, 'shape': (5, 4)}", SC_IO_ERR_DTYPE,
         "byte 20", "structured"},
        {"{'descr': '<f8', 'fortran_order': True, 'shape': (5, 4)}", SC_IO_ERR_ORDER, "byte 44",
         "fortran_order True"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (20,)}", SC_IO_ERR_SHAPE, "byte 60",
         "(20,)"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (5, 4, 1)}", SC_IO_ERR_SHAPE, "byte 60",
         "(5, 4, 1)"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (4, 5)}", SC_IO_ERR_SHAPE, "byte 60",
         "(4, 5)"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': ()}", SC_IO_ERR_SHAPE, "byte 60", NULL},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4)}", SC_IO_ERR_TOO_MANY,
         "byte 60", "too many"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999, 4)}",
         SC_IO_ERR_SHAPE, "byte 60", NULL},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (6, 4)}", SC_IO_ERR_TRUNCATED,
         "byte 288", "truncated"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (4, 4)}", SC_IO_ERR_HEADER, "byte 256",
         "after the data"},
    };
    for (size_t k = 0; k < sizeof hdr / sizeof hdr[0]; k++) {
        make_npy(p, 1, hdr[k].dict, 64, d, sizeof d); /* data: 5 x 4 doubles at byte 74 */
        /* the header is 10 + dict + padding; data starts at 64 or 128 */
        EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, hdr[k].want, hdr[k].place, hdr[k].what);
    }
    /* shape (N,4) against --2d, (N,3) against an explicit 3 */
    make_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 4), }", 64, d, sizeof d);
    EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 2, SC_IO_ERR_SHAPE, "byte 60", "(N, 3)");
    make_npy(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5, 3), }", 64, f, sizeof f);
    EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 3, SC_IO_ERR_SHAPE, "byte 60", "(N, 4)");
    /* a NUL byte inside the header */
    {
        make_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }", 64, NULL, 0);
        size_t len = 0;
        unsigned char *raw = slurp(p, &len);
        raw[40] = 0;
        write_bytes(p, raw, len);
        free(raw);
        EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_HEADER, "byte 40", NULL);
    }
    /* invalid values: byte offset of the value (data at byte 64) */
    double dv[20];
    memcpy(dv, d, sizeof d);
    dv[9] = NAN; /* sphere 2, y */
    make_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 4), }", 64, dv,
             sizeof dv);
    EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_NON_FINITE, "byte 200", "sphere 2, column y");
    EXPECT_DEFERRED(p, SC_IO_FORMAT_AUTO);
    memcpy(dv, d, sizeof d);
    dv[15] = -1.0; /* sphere 3, r */
    make_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 4), }", 64, dv,
             sizeof dv);
    EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_NEGATIVE_RADIUS, "byte 248", "column r");
    EXPECT_DEFERRED(p, SC_IO_FORMAT_AUTO);
    memcpy(dv, d, sizeof d);
    dv[2] = -2e150; /* sphere 0, z */
    make_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 4), }", 64, dv,
             sizeof dv);
    EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_OUT_OF_RANGE, "byte 144", "column z");
    EXPECT_DEFERRED(p, SC_IO_FORMAT_AUTO);
    float fv[15];
    memcpy(fv, f, sizeof f);
    fv[13] = -INFINITY; /* circle 4, y */
    make_npy(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5, 3), }", 64, fv,
             sizeof fv);
    EXPECT_FAIL(p, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_NON_FINITE, "byte 180", "sphere 4, column y");
    EXPECT_DEFERRED(p, SC_IO_FORMAT_AUTO);
    /* a lower limit */
    make_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 4), }", 64, d, sizeof d);
    sc_io_read_options o = {SC_IO_FORMAT_AUTO, 0, 4, 0, NULL, NULL, 0, 0, 0, 0, 0};
    EXPECT_DEFERRED(p, SC_IO_FORMAT_AUTO); /* good values: both OK */
    expect_fail_opts(p, &o, SC_IO_ERR_TOO_MANY, "byte 60", "at most 4", __LINE__);
}

/* ---- raw ----------------------------------------------------------------- */

static void group_raw(void) {
    double d[12] = {1, 2, 3, 0.5, -4, 5, 6, 0, 7.25, 8, 9, 1e-3};
    float f[12];
    for (int k = 0; k < 12; k++)
        f[k] = (float)d[k] + 0.1f;
    const char *p64 = path_in("a.f64"), *p32 = path_in("a.f32"), *pbin = path_in("a.bin");
    write_bytes(p64, d, sizeof d);
    write_bytes(p32, f, sizeof f);
    write_bytes(pbin, d, sizeof d);
    sc_io_spheres s = read_ok(p64, SC_IO_FORMAT_AUTO, 0);
    CHECK(s.n == 3 && s.dims == 3 && s.dtype == SC_F64 && s.format == SC_IO_FORMAT_F64, "f64");
    check_values(&s, d, 12, "f64");
    sc_io_spheres_free(&s);
    s = read_ok(p64, SC_IO_FORMAT_AUTO, 2);
    CHECK(s.n == 4 && s.dims == 2, "f64 2-D: n %zu", s.n);
    check_values(&s, d, 12, "f64 2-D");
    sc_io_spheres_free(&s);
    s = read_ok(p32, SC_IO_FORMAT_AUTO, 0);
    CHECK(s.n == 3 && s.dtype == SC_F32 && s.format == SC_IO_FORMAT_F32, "f32");
    for (int k = 0; k < 12 && s.n == 3; k++)
        CHECK(((const float *)s.rows)[k] == f[k], "f32 value %d", k);
    sc_io_spheres_free(&s);
    s = read_ok(pbin, SC_IO_FORMAT_F64, 0);
    CHECK(s.n == 3, "bin with f64");
    sc_io_spheres_free(&s);
    EXPECT_FAIL(pbin, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_ARGUMENT, "f32 or f64", NULL);
    /* a text file given as raw: 4 bytes is not a row */
    write_bytes(p64, d, 33);
    EXPECT_FAIL(p64, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_TRUNCATED, "byte 32", "truncated");
    write_bytes(p32, f, 47);
    EXPECT_FAIL(p32, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_TRUNCATED, "byte 32", NULL);
    write_bytes(p32, f, 44);
    EXPECT_FAIL(p32, SC_IO_FORMAT_AUTO, 2, SC_IO_ERR_TRUNCATED, "byte 36", NULL);
    write_bytes(p64, "", 0);
    s = read_ok(p64, SC_IO_FORMAT_AUTO, 0);
    CHECK(s.n == 0, "empty f64");
    sc_io_spheres_free(&s);
    double dv[12];
    memcpy(dv, d, sizeof d);
    dv[7] = -0.5;
    write_bytes(p64, dv, sizeof dv);
    EXPECT_FAIL(p64, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_NEGATIVE_RADIUS, "byte 56", "sphere 1");
    memcpy(dv, d, sizeof d);
    dv[4] = INFINITY;
    write_bytes(p64, dv, sizeof dv);
    EXPECT_FAIL(p64, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_NON_FINITE, "byte 32", "column x");
    memcpy(dv, d, sizeof d);
    dv[10] = 1e151;
    write_bytes(p64, dv, sizeof dv);
    EXPECT_FAIL(p64, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_OUT_OF_RANGE, "byte 80", "column z");
    EXPECT_DEFERRED(p64, SC_IO_FORMAT_AUTO);
    float fv[12];
    memcpy(fv, f, sizeof f);
    fv[5] = NAN;
    write_bytes(p32, fv, sizeof fv);
    EXPECT_FAIL(p32, SC_IO_FORMAT_AUTO, 0, SC_IO_ERR_NON_FINITE, "byte 20", "column y");
    EXPECT_DEFERRED(p32, SC_IO_FORMAT_AUTO);
    write_bytes(p64, d, sizeof d);
    sc_io_read_options o = {SC_IO_FORMAT_AUTO, 0, 2, 0, NULL, NULL, 0, 0, 0, 0, 0};
    expect_fail_opts(p64, &o, SC_IO_ERR_TOO_MANY, "byte 64", "at most 2", __LINE__);
}

/* ---- writers ------------------------------------------------------------- */

/* Checks an .npy pair file: header 128 bytes, version 1.0, shape (K, 2)
 * '<u4', then the pairs. */
static void check_npy_pairs(const char *path, const uint32_t *pairs, size_t k) {
    size_t len = 0;
    unsigned char *b = slurp(path, &len);
    CHECK(b != NULL, "%s missing", path);
    if (b == NULL)
        return;
    CHECK(len == 128 + 8 * k, "%s: size %zu, want %zu", path, len, 128 + 8 * k);
    CHECK(memcmp(b, "\x93NUMPY\x01\x00", 8) == 0, "magic/version");
    size_t hlen = (size_t)b[8] | (size_t)b[9] << 8;
    CHECK(10 + hlen == 128 && (10 + hlen) % 64 == 0, "header length %zu", hlen);
    char want[160];
    int wl = snprintf(want, sizeof want,
                      "{'descr': '<u4', 'fortran_order': False, 'shape': (%zu, 2), }", k);
    CHECK(len >= 128 && memcmp(b + 10, want, (size_t)wl) == 0, "header dict: %.*s", 100, b + 10);
    int spaces = 1;
    for (size_t q = 10 + (size_t)wl; q < 127 && len >= 128; q++)
        spaces &= b[q] == ' ';
    CHECK(spaces && len >= 128 && b[127] == '\n', "padding and newline");
    if (len == 128 + 8 * k)
        for (size_t q = 0; q < 2 * k; q++) {
            uint32_t v = (uint32_t)b[128 + 4 * q] | (uint32_t)b[129 + 4 * q] << 8 |
                         (uint32_t)b[130 + 4 * q] << 16 | (uint32_t)b[131 + 4 * q] << 24;
            if (v != pairs[q]) {
                CHECK(v == pairs[q], "value %zu: %u, want %u", q, v, pairs[q]);
                break;
            }
        }
    /* and the reader agrees that this is an npy header (of the wrong dtype) */
    char e[256];
    sc_io_spheres s;
    sc_io_status st = sc_io_read_spheres(path, NULL, &s, e, sizeof e);
    CHECK(st == SC_IO_ERR_DTYPE && strstr(e, "\"<u4\""), "reader on pair file: %s", e);
    free(b);
}

static void write_pairs_in_chunks(sc_pair_writer *w, const uint32_t *pairs, size_t k) {
    size_t done = 0, step = 1;
    char err[256];
    while (done < k) {
        size_t c = step < k - done ? step : k - done;
        sc_io_status st = sc_pair_writer_write(w, pairs + 2 * done, c, err, sizeof err);
        CHECK(st == SC_IO_OK, "write: %s", err);
        done += c;
        step = step * 7 + 3; /* 1, 10, 73, ... crosses the 1 MiB buffer at odd places */
    }
}

static void group_writers(void) {
    const size_t k = 300000, n = 1000000;
    uint32_t *pairs = malloc(2 * k * sizeof *pairs);
    for (size_t q = 0; q < k; q++) {
        pairs[2 * q] = (uint32_t)(rng() % (n - 1));
        pairs[2 * q + 1] = pairs[2 * q] + 1 + (uint32_t)(rng() % (n - 1 - pairs[2 * q]));
    }
    char err[512];
    const char *formats[] = {"out.npy", "out.csv", "out.bin"};
    for (int f = 0; f < 3; f++) {
        for (int big = 0; big < 2; big++) {
            size_t kk = big ? k : 0;
            const char *p = path_in(formats[f]);
            unlink(p);
            sc_pair_writer *w = NULL;
            sc_io_status st = sc_pair_writer_open(p, SC_IO_FORMAT_AUTO, n, &w, err, sizeof err);
            CHECK(st == SC_IO_OK && w, "open %s: %s", p, err);
            if (!w)
                continue;
            /* the temporary file sits beside the output, the output does not exist yet */
            const char *tmp = sc_pair_writer_temp_path(w);
            char prefix[1100];
            snprintf(prefix, sizeof prefix, "%s/.%s.tmp.", workdir, formats[f]);
            CHECK(tmp && strncmp(tmp, prefix, strlen(prefix)) == 0, "temp path %s",
                  tmp ? tmp : "(none)");
            CHECK(tmp && file_exists(tmp) && !file_exists(p), "temp exists, output not yet");
            write_pairs_in_chunks(w, pairs, kk);
            CHECK(sc_pair_writer_count(w) == kk, "count");
            st = sc_pair_writer_finish(w, kk, err, sizeof err);
            CHECK(st == SC_IO_OK, "finish %s: %s", p, err);
            CHECK(count_entries(".tmp.") == 0, "no temp file left after finish");
            if (f == 0) {
                check_npy_pairs(p, pairs, kk);
            } else {
                size_t len = 0;
                unsigned char *b = slurp(p, &len);
                if (f == 1) {
                    size_t o = 0, cap = kk * 24 + 1;
                    char *want = malloc(cap);
                    for (size_t q = 0; q < kk; q++)
                        o += (size_t)snprintf(want + o, cap - o, "%u,%u\n", pairs[2 * q],
                                              pairs[2 * q + 1]);
                    CHECK(b && len == o && memcmp(b, want, o) == 0, "csv content (%zu bytes)", len);
                    free(want);
                } else {
                    int same = b && len == 8 * kk;
                    for (size_t q = 0; same && q < 2 * kk; q++)
                        same = ((uint32_t)b[4 * q] | (uint32_t)b[4 * q + 1] << 8 |
                                (uint32_t)b[4 * q + 2] << 16 | (uint32_t)b[4 * q + 3] << 24) ==
                               pairs[q];
                    CHECK(same, "bin content (%zu bytes)", len);
                }
                free(b);
            }
        }
    }
    /* explicit formats override the extension */
    {
        const char *p = path_in("pairs.dat");
        sc_pair_writer *w = NULL;
        CHECK(sc_pair_writer_open(p, SC_IO_FORMAT_AUTO, n, &w, err, sizeof err) ==
                      SC_IO_ERR_ARGUMENT &&
                  w == NULL && strstr(err, p) == err && strstr(err, "npy|csv|bin"),
              "unknown extension: %s", err);
        CHECK(sc_pair_writer_open(p, SC_IO_FORMAT_F64, n, &w, err, sizeof err) ==
                  SC_IO_ERR_ARGUMENT,
              "f64 pairs: %s", err);
        CHECK(sc_pair_writer_open(p, SC_IO_FORMAT_CSV, n, &w, err, sizeof err) == SC_IO_OK, "%s",
              err);
        uint32_t two[4] = {0, 1, 5, 999999};
        CHECK(sc_pair_writer_write(w, two, 2, err, sizeof err) == SC_IO_OK, "%s", err);
        CHECK(sc_pair_writer_finish(w, 2, err, sizeof err) == SC_IO_OK, "%s", err);
    }
    /* n limits the indices; that last pair exceeds n = 1e6, so check separately */
    {
        const char *p = path_in("idx.csv");
        sc_pair_writer *w = NULL;
        uint32_t bad[2] = {3, 3};
        CHECK(sc_pair_writer_open(p, SC_IO_FORMAT_AUTO, 10, &w, err, sizeof err) == SC_IO_OK, "%s",
              err);
        CHECK(sc_pair_writer_write(w, bad, 1, err, sizeof err) == SC_IO_ERR_INTERNAL, "i == j");
        bad[1] = 10;
        CHECK(sc_pair_writer_write(w, bad, 1, err, sizeof err) == SC_IO_ERR_INTERNAL, "j == n");
        sc_pair_writer_abort(w);
        CHECK(!file_exists(p) && count_entries(".tmp.") == 0, "abort leaves nothing");
    }
    /* a failure never touches an existing file under the name */
    {
        const char *p = path_in("keep.npy");
        write_text(p, "precious");
        sc_pair_writer *w = NULL;
        CHECK(sc_pair_writer_open(p, SC_IO_FORMAT_AUTO, n, &w, err, sizeof err) == SC_IO_OK, "%s",
              err);
        write_pairs_in_chunks(w, pairs, 1000);
        sc_pair_writer_abort(w);
        size_t len = 0;
        unsigned char *b = slurp(p, &len);
        CHECK(b && len == 8 && memcmp(b, "precious", 8) == 0, "old content kept on abort");
        free(b);
        CHECK(count_entries(".tmp.") == 0, "abort removes the temp file");
        /* finish with a total that disagrees: an error, nothing replaced */
        CHECK(sc_pair_writer_open(p, SC_IO_FORMAT_AUTO, n, &w, err, sizeof err) == SC_IO_OK, "%s",
              err);
        write_pairs_in_chunks(w, pairs, 10);
        CHECK(sc_pair_writer_finish(w, 11, err, sizeof err) == SC_IO_ERR_INTERNAL && strstr(err, p),
              "total mismatch: %s", err);
        b = slurp(p, &len);
        CHECK(b && len == 8, "old content kept on a failed finish");
        free(b);
        CHECK(count_entries(".tmp.") == 0, "failed finish removes the temp file");
        /* and a successful write replaces it */
        CHECK(sc_pair_writer_open(p, SC_IO_FORMAT_AUTO, n, &w, err, sizeof err) == SC_IO_OK, "%s",
              err);
        write_pairs_in_chunks(w, pairs, 10);
        CHECK(sc_pair_writer_finish(w, 10, err, sizeof err) == SC_IO_OK, "%s", err);
        check_npy_pairs(p, pairs, 10);
    }
    /* unwritable paths name the path */
    {
        const char *missing = path_in("no/such/dir/out.npy");
        sc_pair_writer *w = (sc_pair_writer *)1;
        sc_io_status st = sc_pair_writer_open(missing, SC_IO_FORMAT_AUTO, n, &w, err, sizeof err);
        CHECK(st == SC_IO_ERR_WRITE && w == NULL && strstr(err, missing) == err &&
                  strstr(err, "No such file"),
              "missing dir: %s", err);
        write_text(path_in("plainfile"), "x");
        const char *under = path_in("plainfile/out.csv");
        st = sc_pair_writer_open(under, SC_IO_FORMAT_AUTO, n, &w, err, sizeof err);
        CHECK(st == SC_IO_ERR_WRITE && strstr(err, under) == err, "under a file: %s", err);
        mkdir(path_in("adir.npy"), 0777);
        st = sc_pair_writer_open(path_in("adir.npy"), SC_IO_FORMAT_AUTO, n, &w, err, sizeof err);
        CHECK(st == SC_IO_ERR_WRITE && strstr(err, "directory"), "a directory: %s", err);
        rmdir(path_in("adir.npy"));
        st = sc_pair_writer_open(path_in("dir/"), SC_IO_FORMAT_NPY, n, &w, err, sizeof err);
        CHECK(st == SC_IO_ERR_WRITE, "trailing slash: %s", err);
        CHECK(sc_io_exit_code(SC_IO_ERR_WRITE) == 6, "exit code of a write error");
        /* the same verdicts without creating anything */
        CHECK(sc_io_check_writable(missing, err, sizeof err) == SC_IO_ERR_WRITE &&
                  strstr(err, missing) == err,
              "check missing dir: %s", err);
        CHECK(sc_io_check_writable(under, err, sizeof err) == SC_IO_ERR_WRITE,
              "check under a file");
        mkdir(path_in("adir.npy"), 0777);
        CHECK(sc_io_check_writable(path_in("adir.npy"), err, sizeof err) == SC_IO_ERR_WRITE,
              "check a directory");
        rmdir(path_in("adir.npy"));
        CHECK(sc_io_check_writable(path_in("fine.npy"), err, sizeof err) == SC_IO_OK &&
                  !file_exists(path_in("fine.npy")),
              "check a fine path: %s", err);
        CHECK(sc_io_check_writable("relative-name.npy", err, sizeof err) == SC_IO_OK,
              "check a relative name: %s", err);
    }
    free(pairs);
    CHECK(count_entries(".tmp.") == 0, "no temp files at the end");
}

/* ---- sphere writer round trips -------------------------------------------- */

static void group_spheres(void) {
    /* text is formatted in blocks of 2^15 values on all threads: 40,000
     * spheres make several blocks and several rounds of them */
    const size_t n = 40000;
    for (int dims = 2; dims <= 3; dims++) {
        size_t cols = (size_t)dims + 1;
        double *rows = malloc(n * cols * sizeof *rows);
        for (size_t k = 0; k < n * cols; k++)
            rows[k] = (k % cols == cols - 1) ? rng_unit() * 3.0
                                             : (rng_unit() - 0.5) * pow(10.0, (double)(k % 13) - 4);
        rows[0] = -0.0;
        rows[cols - 1] = 0.0;
        static const struct {
            const char *name;
            sc_io_format write, read;
        } forms[] = {{"g.npy", SC_IO_FORMAT_AUTO, SC_IO_FORMAT_AUTO},
                     {"g.txt", SC_IO_FORMAT_AUTO, SC_IO_FORMAT_AUTO},
                     {"g.dat", SC_IO_FORMAT_AUTO, SC_IO_FORMAT_AUTO},
                     {"g.csv", SC_IO_FORMAT_AUTO, SC_IO_FORMAT_AUTO},
                     {"g.f64", SC_IO_FORMAT_AUTO, SC_IO_FORMAT_AUTO},
                     {"g.bin", SC_IO_FORMAT_F64, SC_IO_FORMAT_F64},
                     {"g.f32", SC_IO_FORMAT_AUTO, SC_IO_FORMAT_AUTO}};
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            const char *p = path_in(forms[f].name);
            char err[512];
            sc_io_status st =
                sc_io_write_spheres(p, forms[f].write, n, dims, rows, err, sizeof err);
            CHECK(st == SC_IO_OK, "write %s: %s", p, err);
            sc_io_spheres s =
                read_ok(p, forms[f].read,
                        forms[f].write == SC_IO_FORMAT_AUTO && strstr(p, ".npy") ? 0 : dims);
            CHECK(s.n == n && s.dims == dims, "%s: n %zu dims %d", p, s.n, s.dims);
            if (s.n != n || s.dims != dims) {
                sc_io_spheres_free(&s);
                continue;
            }
            size_t bad = 0;
            for (size_t k = 0; k < n * cols; k++) {
                double got = sc_oracle_value(s.rows, s.dtype, k);
                double want = s.dtype == SC_F32 ? (double)(float)rows[k] : rows[k];
                bad += !same_bits(got, want);
            }
            CHECK(bad == 0, "%s: %zu values differ", p, bad);
            if (strstr(p, ".csv")) {
                size_t len = 0;
                unsigned char *b = slurp(p, &len);
                CHECK(b && memchr(b, ',', len) != NULL, "csv uses commas");
                free(b);
            }
            if (strstr(p, ".txt") || strstr(p, ".csv")) { /* byte for byte, in order */
                size_t len = 0, o = 0;
                unsigned char *b = slurp(p, &len);
                char *want = malloc(n * cols * 32);
                for (size_t k = 0; k < n * cols; k++) {
                    o += (size_t)snprintf(want + o, 32, "%.17g", rows[k]);
                    want[o++] = k % cols == cols - 1 ? '\n' : strstr(p, ".csv") ? ',' : ' ';
                }
                CHECK(b && len == o && memcmp(b, want, o) == 0,
                      "%s: %zu bytes, not the %zu of \"%%.17g\" a value in order", p, len, o);
                free(want);
                free(b);
            }
            sc_io_spheres_free(&s);
        }
        char err[512];
        CHECK(sc_io_write_spheres(path_in("h.bin"), SC_IO_FORMAT_AUTO, n, dims, rows, err,
                                  sizeof err) == SC_IO_ERR_ARGUMENT,
              ".bin needs a format: %s", err);
        const char *missing = path_in("missing/dir/g.npy");
        CHECK(sc_io_write_spheres(missing, SC_IO_FORMAT_AUTO, n, dims, rows, err, sizeof err) ==
                      SC_IO_ERR_WRITE &&
                  strstr(err, missing) == err,
              "unwritable: %s", err);
        free(rows);
    }
    CHECK(count_entries(".tmp.") == 0, "no temp files");
}

/* ---- the oracle itself ---------------------------------------------------- */

static void group_oracle(void) {
    for (int trial = 0; trial < 8; trial++) {
        int dims = trial % 2 ? 2 : 3;
        size_t cols = (size_t)dims + 1, n = 1500;
        double *rows = malloc(n * cols * sizeof *rows);
        for (size_t k = 0; k < n; k++) {
            double *r = rows + k * cols;
            /* integer grid points and radii: many exactly touching pairs and equal x */
            for (int c = 0; c < dims; c++)
                r[c] = (double)(rng() % 40) * (trial < 4 ? 1.0 : 0.1);
            r[dims] = (double)(rng() % 4) * 0.5 * (trial < 4 ? 1.0 : 0.1);
        }
        sc_oracle_summary a, b;
        sc_oracle_brute(n, dims, SC_F64, rows, &a);
        sc_oracle_sweep(n, dims, SC_F64, rows, &b);
        CHECK(a.pairs == b.pairs && a.checksum == b.checksum && a.pairs > 0,
              "trial %d: brute %llu, sweep %llu", trial, (unsigned long long)a.pairs,
              (unsigned long long)b.pairs);
        free(rows);
    }
    /* two spheres exactly touching count; one ulp further does not */
    double t[8] = {0, 0, 0, 1, 2, 0, 0, 1};
    sc_oracle_summary s;
    sc_oracle_sweep(2, 3, SC_F64, t, &s);
    CHECK(s.pairs == 1 && s.checksum == sc_oracle_mix(0, 1), "touching");
    t[4] = nextafter(2.0, 3.0);
    sc_oracle_sweep(2, 3, SC_F64, t, &s);
    CHECK(s.pairs == 0, "apart by one ulp");
    /* the checksum formula on known values (splitmix64 of 0 is 0xE220A8397B1DCDAF) */
    CHECK(sc_oracle_mix(0, 0) == 0xE220A8397B1DCDAFull, "mix(0,0) = %llx",
          (unsigned long long)sc_oracle_mix(0, 0));
}

/* ---- spheres.dat and a file in its format ----------------------------------- */

/* The seed's layout: one number per line, CRLF. */
static void group_crlf_like_seed(void) {
    const size_t n = 20000;
    double *rows = malloc(n * 4 * sizeof *rows);
    char *text = malloc(n * 4 * 32);
    size_t o = 0;
    for (size_t k = 0; k < n * 4; k++) {
        /* a box of 10000 and radii up to 10, like the seed; short and long forms */
        double v = (k % 4 == 3) ? rng_unit() * 10.0 : rng_unit() * 10000.0;
        if (k % 3 == 0) {
            o += (size_t)snprintf(text + o, 32, "%.4f\r\n", v);
        } else {
            o += (size_t)snprintf(text + o, 32, "%.17g\r\n", v);
        }
        rows[k] = v;
    }
    /* recover the exact values that the text holds, with strtod */
    {
        const char *p = text;
        for (size_t k = 0; k < n * 4; k++) {
            char *e;
            rows[k] = strtod(p, &e);
            p = e + 2;
        }
    }
    const char *path = path_in("seedlike.dat");
    write_bytes(path, text, o);
    sc_io_spheres s = read_ok(path, SC_IO_FORMAT_AUTO, 0);
    CHECK(s.n == n && s.dims == 3 && s.dtype == SC_F64, "seed-like: n %zu", s.n);
    check_values(&s, rows, n * 4, "seed-like");
    if (s.n == n) {
        sc_oracle_summary a, b;
        sc_oracle_sweep(n, 3, SC_F64, s.rows, &a);
        sc_oracle_brute(2000, 3, SC_F64, s.rows, &b); /* brute on a prefix, sweep on the same */
        sc_oracle_summary c;
        sc_oracle_sweep(2000, 3, SC_F64, s.rows, &c);
        CHECK(b.pairs == c.pairs && b.checksum == c.checksum, "prefix: brute vs sweep");
        printf("seed-like file: %zu spheres, %llu pairs\n", n, (unsigned long long)a.pairs);
    }
    sc_io_spheres_free(&s);
    free(rows);
    free(text);
}

static void group_spheres_dat(const char *datadir) {
    char path[2048];
    snprintf(path, sizeof path, "%s/spheres.dat", datadir);
    CHECK(access(path, R_OK) == 0,
          "%s: the seed's data file is missing (-DSC_TEST_DATA_DIR=FOLDER names its folder)", path);
    sc_io_spheres s = read_ok(path, SC_IO_FORMAT_AUTO, 0);
    CHECK(s.n == 100000 && s.dims == 3 && s.dtype == SC_F64, "spheres.dat: n %zu", s.n);
    if (s.n == 100000) {
        const double *r = s.rows;
        CHECK(r[0] == 844.6859 && r[1] == 9891.674 && r[2] == 1396.232 && r[3] == 4.727857,
              "first sphere %.17g %.17g %.17g %.17g", r[0], r[1], r[2], r[3]);
        sc_oracle_summary a;
        sc_oracle_sweep(s.n, 3, SC_F64, s.rows, &a);
        CHECK(a.pairs == 33, "spheres.dat: %llu pairs, the seed says 33",
              (unsigned long long)a.pairs);
        printf("spheres.dat: 100000 spheres, %llu pairs, checksum 0x%016llx\n",
               (unsigned long long)a.pairs, (unsigned long long)a.checksum);
    }
    sc_io_spheres_free(&s);
}

/* ---- LAMMPS dumps ---------------------------------------------------------- */

/* ---- LAMMPS atom rows: the one-pass path against the general one ---------
 *
 * Atom rows whose named columns hold numbers the one-pass parser takes are
 * read in one pass (io_particles.c, io_fast_atom); the rest by the general
 * loop, which words any error. Each dump is read as written and again with
 * every atom row led by a vertical tab (a blank to the general loop, a byte
 * the one-pass path declines at once): status, message and values must
 * agree. Columns in several orders, scaled, diameters, both radius and
 * diameter, no radius column (the caller's radius, one for all or by
 * type), and one odd row planted in half the dumps. */
static void group_lammps_rows(void) {
    static const char *const layouts[] = {"id type x y z radius", "radius xs id ys type zs",
                                          "id diameter xu yu zu", "x y z radius diameter",
                                          "id type x y z",        "xsu ysu zsu radius"};
    enum { LAYOUTS = sizeof layouts / sizeof layouts[0] };
    const size_t atoms = 3000;
    char *plain = malloc(atoms * 200 + 512), *led = malloc(atoms * 200 + 512);
    for (int variant = 0; variant < 8 * LAYOUTS; variant++) {
        /* each odd kind below meets three layouts */
        const int lay = (variant / 2) % LAYOUTS, clean = variant % 2 == 0, kind = (variant / 2) % 8;
        const size_t plant = clean ? SIZE_MAX : rng() % atoms;
        /* the columns' roles, from the layout's names */
        char names[64];
        snprintf(names, sizeof names, "%s", layouts[lay]);
        char role[8][12];
        int ncol = 0;
        for (char *t = strtok(names, " "); t && ncol < 8; t = strtok(NULL, " "))
            snprintf(role[ncol++], sizeof role[0], "%s", t);
        const char *head = "ITEM: TIMESTEP\n5\nITEM: NUMBER OF ATOMS\n%zu\n"
                           "ITEM: BOX BOUNDS pp pp pp\n-50 50\n0 100\n-1.5 2.5\n"
                           "ITEM: ATOMS %s\n";
        size_t o = (size_t)sprintf(plain, head, atoms, layouts[lay]);
        size_t ol = (size_t)sprintf(led, head, atoms, layouts[lay]);
        for (size_t a = 0; a < atoms; a++) {
            char line[256];
            size_t lo = 0;
            for (int c = 0; c < ncol; c++) {
                char tok[48];
                const char *r = role[c];
                if (strcmp(r, "id") == 0)
                    snprintf(tok, sizeof tok, "%zu", a + 1);
                else if (strcmp(r, "type") == 0)
                    snprintf(tok, sizeof tok, "%d", 1 + (int)(a % 3));
                else if (r[0] == 'r' || r[0] == 'd') /* radius, diameter */
                    short_token(tok, sizeof tok, 1);
                else if (strchr(r, 's')) /* scaled */
                    snprintf(tok, sizeof tok, "%.*g", 1 + (int)(rng() % 9), rng_unit());
                else
                    short_token(tok, sizeof tok, 0);
                if (a == plant && c == ncol - 1) {
                    static const char *const odd[] = {"1.5x", "-2",  "1e200", "7 8",
                                                      "",     "2\f", "nan",   "0x10"};
                    if ((r[0] == 'r' || r[0] == 'd' || kind != 1) && (kind != 5 || lay != 1))
                        snprintf(tok, sizeof tok, "%s", odd[kind]);
                }
                /* a form feed inside a field the row skips: two fields */
                if (a == plant && kind == 5 && (!strcmp(r, "id") || !strcmp(r, "type")))
                    snprintf(tok, sizeof tok, "1\f2");
                lo += (size_t)snprintf(line + lo, sizeof line - lo, "%s%s",
                                       c ? (rng() % 9 ? " " : "\t ") : "", tok);
            }
            const char *end = rng() % 10 ? "\n" : "\r\n";
            o += (size_t)sprintf(plain + o, "%s%s", line, end);
            ol += (size_t)sprintf(led + ol, "\v%s%s", line, end);
        }
        char what[96];
        snprintf(what, sizeof what, "%s, variant %d", layouts[lay], variant);
        for (int radius = 0; radius < 2; radius++) {
            const sc_io_read_options opts = {
                SC_IO_FORMAT_AUTO, 0, 0, 0, radius ? "1=0.5,2=1,3=2" : "0.75", NULL, 0, 0, 0, 0, 0};
            expect_both_ways(path_in("rows.dump"), plain, o, led, ol, opts, 1, clean, atoms, what);
        }
    }
    free(plain);
    free(led);
}

/* One atom row of io.lammps_runs (kind `odd`, 0 for a plain one) for the
 * columns role[0..ncol): its text to line, its line end to *end, the
 * values the reader must make of it to w (x, y, z, r). */
static size_t lammps_run_row(char *line, size_t cap, char role[][8], int ncol, size_t at, int odd,
                             int short_tokens, int trail, const double lo[3], const double hi[3],
                             const double *el_radii, double w[4], const char **end) {
    /* names that begin with another ("Ca" and "Cl" with "C", "12" with "1"),
     * so that a name read one byte short is read wrong, not refused */
    static const char *const elements[3] = {"C", "Ca", "Cl"}, *const types[3] = {"1", "2", "12"};
    size_t o = 0;
    w[3] = 0.75; /* the caller's radius, for "x y z" */
    for (int c = 0; c < ncol; c++) {
        const char *r = role[c];
        const int axis = r[0] >= 'x' && r[0] <= 'z' ? r[0] - 'x' : -1;
        const int scaled = axis >= 0 && strchr(r, 's') != NULL;
        const int rad = r[0] == 'r' || r[0] == 'd';
        char tok[48];
        if (!strcmp(r, "id"))
            snprintf(tok, sizeof tok, "%zu", at + 1);
        else if (!strcmp(r, "el")) { /* XYZ's element, its radius the caller's */
            snprintf(tok, sizeof tok, "%s", elements[at % 3]);
            if (el_radii)
                w[3] = el_radii[at % 3];
        } else if (!strcmp(r, "type")) { /* its radius the caller's, by type, where given */
            snprintf(tok, sizeof tok, "%s", types[at % 3]);
            if (el_radii)
                w[3] = el_radii[at % 3];
        } else if (scaled)
            snprintf(tok, sizeof tok, "0.%0*llu", 1 + (int)(rng() % 8),
                     (unsigned long long)(rng() % 10000000));
        else if (short_tokens)
            snprintf(tok, sizeof tok, "%d.5", (int)(rng() % 10));
        else
            run_token(tok, rad);
        if (odd == 1 && c == ncol - 1 - !strcmp(role[ncol - 1], "el"))
            snprintf(tok, sizeof tok, "1.5e-3"); /* an exponent, in the last number */
        if (odd == 2 && axis == 1 && !scaled)
            snprintf(tok, sizeof tok, "123456789.25"); /* nine digits */
        if (odd == 3 && axis == 2 && !scaled)
            snprintf(tok, sizeof tok, "+1.5");
        if (odd == 6 && c == 0 && ncol > 3 && (!strcmp(r, "id") || !strcmp(r, "radius")))
            snprintf(tok, sizeof tok, "%s", !strcmp(r, "id") ? "7#" : "0.5");
        if (odd == 8 && (rad || (ncol == 3 && c == 0)))
            snprintf(tok, sizeof tok, "%s", rad ? "-0.5" : "1.5x");
        if (odd == 9 && scaled && axis == 0)
            snprintf(tok, sizeof tok, "9.5"); /* beyond 1e150 once mapped */
        if (odd == 10 && c == ncol - 1)
            continue; /* a field short */
        if (odd == 12 && c == 0)
            snprintf(tok, sizeof tok, "7x");
        if (odd == 12 && !strcmp(r, "type"))
            snprintf(tok, sizeof tok, "9"); /* a type the radii by type do not name */
        if (odd == 13 && c == 0)
            snprintf(tok, sizeof tok, "7\r8"); /* a lone \r: a line end, two rows */
        const double v = strtod(tok, NULL);
        if (axis >= 0)
            w[axis] = scaled ? lo[axis] + v * (hi[axis] - lo[axis]) : v;
        else if (r[0] == 'r')
            w[3] = v;
        else if (r[0] == 'd')
            w[3] = 0.5 * v;
        const char *sep = c == 0               ? ""
                          : odd == 4 && c == 1 ? "  "
                          : odd == 5 && c == 1 ? "\t"
                          : odd == 14          ? "," /* one field to the serial loop */
                                               : " ";
        o += (size_t)snprintf(line + o, cap - o, "%s%s", sep, tok);
        if (odd == 16 && c == ncol - 2) /* a NUL ending the field before the last: */
            line[o - 1] = '\0';         /* a number's junk, or a skipped field's byte */
    }
    if (odd == 15) /* a field more: past XYZ's columns, beyond a dump's */
        o += (size_t)snprintf(line + o, cap - o, " 9");

    *end = odd == 7         ? " \r\n" /* a blank, then CRLF */
           : trail          ? " \n"
           : rng() % 4 == 0 ? "\r\n"
                            : "\n";
    if (odd == 11) /* an empty row */
        o = 0, *end = "\n";
    return o;
}

/* ---- LAMMPS atom rows in runs ----------------------------------------------
 *
 * Plain atom rows (short decimals in the named columns, one space between
 * fields, '\n' or "\r\n" after them, or " \n" as dump custom writes them)
 * are read in runs (io_runs.h, io_line_run, with io_particles.c's
 * finish_run for scaled coordinates, diameters and the caller's radius),
 * and from text_split_bytes of rows on in pieces on several threads
 * (read_atom_pieces). Each dump below is read as written and again with
 * every atom row led by a blank (which only the one-line paths take):
 * status, message and values must agree, on 1 and 3 threads (over 1 MiB of
 * rows: pieces), in five column layouts, with and without dump custom's
 * trailing blank; in the first layout the first 300 rows are short, so
 * the pieces' estimate of the rows' bytes falls short. A second snapshot
 * follows the first (its rows the first's: the runs must stop at the
 * count). Each dump plants one row the runs must leave to the one-line
 * paths, or none, or ends three rows short, or holds five rows more than
 * its count; the clean dumps' values are strtod's, mapped and halved as the
 * reader documents. */
static void group_particle_runs(int xyz) {
    static const char *const dumps[] = {"id type x y z radius",         "radius xs id ys type zs",
                                        "id diameter xu yu zu",         "x y z",
                                        "id type xsu ysu zsu diameter", "id type x y z"};
    /* the last dump's radii by type, the first XYZ's by element */
    static const char *const dump_radius[] = {"0.75", "0.75", "0.75",
                                              "0.75", "0.75", "1=0.5,2=1,12=2"};
    /* XYZ: the columns, the comment line naming them, the caller's radii */
    static const char *const xyzs[] = {"el x y z", "el x y z", "el x y z radius",
                                       "x y z vx vy vz el"};
    static const char *const comments[] = {
        "plain", "plain, one radius", "Properties=species:S:1:pos:R:3:radius:R:1",
        "Properties=pos:R:3:vel:R:3:species:S:1 Lattice=\"1 0 0 0 1 0 0 0 1\""};
    static const char *const xyz_radius[] = {"C=1.5,Ca=0.5,Cl=1", "0.75", NULL,
                                             "C=1.5,Ca=0.5,Cl=1"};
    static const double el_radii[3] = {1.5, 0.5, 1}, type_radii[3] = {0.5, 1, 2};
    const char *const *layouts = xyz ? xyzs : dumps;
    const int LAYOUTS = xyz ? 4 : 6;
    enum { KINDS = 17 };
    const double lo[3] = {-1e149, 0, -1.5}, hi[3] = {1e149, 100, 2.5};
    /* over 1 MiB of rows (read_threads' split): two or three pieces */
    const size_t atoms = 40000;
    enum { ROW = 192 }; /* at most 7 fields of 18 bytes, and a field more */
    char *a = malloc(atoms * 2 * ROW + 4096), *b = malloc(atoms * 2 * ROW + 4096);
    char *text = malloc(atoms * ROW);
    size_t *at_text = malloc((atoms + 1) * sizeof(size_t));
    const char **ends = malloc(atoms * sizeof *ends);
    double *want = malloc(atoms * 4 * sizeof(double));
    for (int lay = 0; lay < LAYOUTS; lay++)
        for (int trail = 0; trail < 2 - xyz; trail++) {
            const char *radius = xyz ? xyz_radius[lay] : dump_radius[lay];
            const double *elr = radius && radius[0] == 'C'   ? el_radii
                                : radius && radius[0] == '1' ? type_radii
                                                             : NULL;
            char names[64], role[8][8];
            snprintf(names, sizeof names, "%s", layouts[lay]);
            int ncol = 0;
            for (char *t = strtok(names, " "); t && ncol < 8; t = strtok(NULL, " "))
                snprintf(role[ncol++], sizeof role[0], "%s", t);
            /* the plain rows, once for every kind */
            at_text[0] = 0;
            for (size_t at = 0; at < atoms; at++)
                at_text[at + 1] =
                    at_text[at] + lammps_run_row(text + at_text[at], ROW, role, ncol, at, 0,
                                                 lay == 0 && at < 300, trail, lo, hi, elr,
                                                 want + at * 4, &ends[at]);
            for (int kind = 0; kind <= KINDS + 1; kind++) {
                /* kind 0 none; 1-7 rows the runs leave but the one-line paths
                 * read; 8-14 rows refused; 15 a field more (XYZ reads it,
                 * a dump refuses it); 16 a NUL byte; KINDS: three rows short; KINDS + 1:
                 * five rows more than the count, no snapshot after them (the
                 * runs must stop at the count all the same) */
                const int short_end = kind == KINDS, extra = kind == KINDS + 1;
                const int clean = kind < 8 || extra || (xyz && kind == 15);
                const size_t declared = extra ? atoms - 5 : atoms;
                const size_t plant =
                    kind && kind < KINDS ? atoms / 3 + rng() % (atoms / 2) : SIZE_MAX;
                const size_t rows = short_end ? atoms - 3 : atoms;
                const char *head = "ITEM: TIMESTEP\n5\nITEM: NUMBER OF ATOMS\n%zu\n"
                                   "ITEM: BOX BOUNDS pp pp pp\n-1e149 1e149\n0 100\n-1.5 2.5\n"
                                   "ITEM: ATOMS %s%s\n";
                double planted[4];
                size_t na = 0, nb = 0;
                for (int snap = 0; snap < (short_end || extra ? 1 : 2); snap++) {
                    if (xyz) {
                        na += (size_t)sprintf(a + na, "%zu\n%s\n", declared, comments[lay]);
                        nb += (size_t)sprintf(b + nb, "%zu\n%s\n", declared, comments[lay]);
                    } else {
                        na +=
                            (size_t)sprintf(a + na, head, declared, layouts[lay], trail ? " " : "");
                        nb +=
                            (size_t)sprintf(b + nb, head, declared, layouts[lay], trail ? " " : "");
                    }
                    for (size_t at = 0; at < rows; at++) {
                        char line[256];
                        const char *line_end = ends[at], *t = text + at_text[at];
                        size_t len = at_text[at + 1] - at_text[at];
                        if (snap == 0 && at == plant) {
                            len = lammps_run_row(line, sizeof line, role, ncol, at, kind, 0, trail,
                                                 lo, hi, elr, planted, &line_end);
                            t = line;
                        }
                        memcpy(a + na, t, len);
                        na += len;
                        na += (size_t)sprintf(a + na, "%s", line_end);
                        b[nb++] = ' ';
                        memcpy(b + nb, t, len);
                        nb += len;
                        nb += (size_t)sprintf(b + nb, "%s", line_end);
                    }
                }
                char what[96];
                snprintf(what, sizeof what, "%s runs: %s%s, kind %d", xyz ? "xyz" : "lammps",
                         xyz ? comments[lay] : layouts[lay], trail ? " (trailing blanks)" : "",
                         kind);
                const sc_io_read_options opts = {
                    SC_IO_FORMAT_AUTO, 0, 0, 0, radius, NULL, 0, 0, 0, 0, 0};
                const char *file = path_in(xyz ? "runs.xyz" : "runs.dump");
                for (int threads = 1; threads <= 3; threads += 2)
                    expect_both_ways(file, a, na, b, nb, opts, threads, clean, declared, what);
                if (!clean)
                    continue;
                /* the values: strtod's, mapped and halved */
                write_bytes(file, a, na);
                sc_io_spheres sp;
                char err[512];
                if (read_threads(file, opts, 3, &sp, err, sizeof err) != SC_IO_OK) {
                    CHECK(0, "%s: %s", what, err);
                    continue;
                }
                size_t bad = 0;
                const double *got = sp.rows;
                for (size_t k = 0; k < declared * 4 && sp.n == declared; k++)
                    bad += !same_bits(got[k], plant == k / 4 ? planted[k % 4] : want[k]);
                CHECK(sp.n == declared && bad == 0,
                      "%s: %zu atoms, %zu values differ from strtod's", what, sp.n, bad);
                sc_io_spheres_free(&sp);
            }
        }
    free(a);
    free(b);
    free(text);
    free(at_text);
    free(ends);
    free(want);
}

static void group_lammps_runs(void) {
    group_particle_runs(0);
}

static void group_xyz_runs(void) {
    group_particle_runs(1);
}

/* ---- XYZ atom lines: the one-pass path against the general one ------------
 *
 * As io.lammps_rows for XYZ files (io_particles.c, io_fast_xyz): plain lines
 * with radii by element or one for all, extended XYZ with a radius
 * property before or after other properties, fields past the columns; one
 * odd line planted in half the files; every file read as written and with
 * a vertical tab before every atom's x. */
static void group_xyz_rows(void) {
    static const char *const comments[] = {"plain", "Properties=species:S:1:pos:R:3:radius:R:1",
                                           "Properties=species:S:1:pos:R:3:vel:R:3:radius:R:1",
                                           "plain, a fifth field"};
    static const char *const elements[] = {"C", "He", "O"};
    const size_t atoms = 3000;
    char *plain = malloc(atoms * 200 + 512), *led = malloc(atoms * 200 + 512);
    for (int variant = 0; variant < 32; variant++) {
        /* each odd kind below meets two layouts */
        const int lay = (variant / 2 + variant / 16) % 4, clean = variant % 2 == 0;
        const int kind = (variant / 2) % 8;
        const size_t plant = clean ? SIZE_MAX : rng() % atoms;
        size_t o = (size_t)sprintf(plain, "%zu\n%s\n", atoms, comments[lay]);
        size_t ol = (size_t)sprintf(led, "%zu\n%s\n", atoms, comments[lay]);
        for (size_t a = 0; a < atoms; a++) {
            char tok[8][48];
            int nt = 0;
            snprintf(tok[nt++], sizeof tok[0], "%s", elements[a % 3]);
            for (int c = 0; c < 3; c++)
                short_token(tok[nt++], sizeof tok[0], 0);
            if (lay == 2)
                for (int c = 0; c < 3; c++)
                    short_token(tok[nt++], sizeof tok[0], 0);
            if (lay == 1 || lay == 2)
                short_token(tok[nt++], sizeof tok[0], 1);
            if (lay == 3)
                short_token(tok[nt++], sizeof tok[0], 0);
            if (a == plant) {
                switch (kind) {
                case 0: snprintf(tok[0], sizeof tok[0], "Xe"); break;      /* no radius given */
                case 1: snprintf(tok[2], sizeof tok[0], "1.5x"); break;    /* junk */
                case 2: snprintf(tok[nt - 1], sizeof tok[0], "-2"); break; /* a radius or a spare */
                case 3: snprintf(tok[3], sizeof tok[0], "1e200"); break;
                case 4: nt = 3; break;                                  /* fewer fields */
                case 5: snprintf(tok[0], sizeof tok[0], "C\f2"); break; /* two fields */
                case 6: snprintf(tok[1], sizeof tok[0], "nan"); break;
                default: snprintf(tok[1], sizeof tok[0], "2\f"); break;
                }
            }
            /* the general loop's copy: a vertical tab before x, a number's
             * place, which the one-pass path declines whatever it skips */
            char line[400], lline[400];
            size_t lo = 0, llo = 0;
            for (int c = 0; c < nt; c++) {
                const char *sep = c ? (rng() % 9 ? " " : "\t") : "";
                lo += (size_t)snprintf(line + lo, sizeof line - lo, "%s%s", sep, tok[c]);
                llo += (size_t)snprintf(lline + llo, sizeof lline - llo, "%s%s%s", sep,
                                        c == 1 ? "\v" : "", tok[c]);
            }
            const char *end = rng() % 10 ? "\n" : "\r\n";
            o += (size_t)sprintf(plain + o, "%s%s", line, end);
            ol += (size_t)sprintf(led + ol, "%s%s", lline, end);
        }
        char what[64];
        snprintf(what, sizeof what, "xyz layout %d, variant %d", lay, variant);
        for (int radius = 0; radius < 2; radius++) {
            const sc_io_read_options opts = {SC_IO_FORMAT_AUTO,
                                             0,
                                             0,
                                             0,
                                             radius ? "C=1.5,He=0.5,O=1" : "0.75",
                                             NULL,
                                             0,
                                             0,
                                             0,
                                             0,
                                             0};
            expect_both_ways(path_in("rows.xyz"), plain, o, led, ol, opts, 1, clean, atoms, what);
        }
    }
    free(plain);
    free(led);
}

/* A dump's ids (read_options.ids): n atoms with ids base + step * k in a
 * shuffled order, atom `dup` (when < n) given atom 0's id; frame 1 of two. */
static void write_ids_dump(const char *path, size_t n, int64_t base, int64_t step, size_t dup) {
    FILE *f = fopen(path, "w");
    for (int frame = 0; frame < 2 && f; frame++) {
        fprintf(f, "ITEM: TIMESTEP\n%d\nITEM: NUMBER OF ATOMS\n%zu\nITEM: ATOMS id x y z radius\n",
                frame, n);
        for (size_t i = 0; i < n; i++) {
            const size_t k = (i * 37 + 11) % n; /* n not a multiple of 37 */
            const size_t kk = i == dup ? (0 * 37 + 11) % n : k;
            fprintf(f, "%lld %zu 0 0 0.5\n", frame ? (long long)(base + step * (int64_t)kk) : 0LL,
                    i);
        }
    }
    if (f)
        fclose(f);
}

static void lammps_ids(void) {
    sc_io_read_options o = {SC_IO_FORMAT_AUTO, 0, 0, 0, NULL, NULL, 1, 0, 0, 0, 1};
    sc_io_spheres s;
    char err[512] = "";
    /* the bitmap's range (ids 1..n) and the sort's (ids a 10^15 apart) */
    static const int64_t step[2] = {1, 1000000000000000LL};
    for (int w = 0; w < 2; w++) {
        const size_t n = 300;
        write_ids_dump(path_in("ids.dump"), n, -7, step[w], n);
        CHECK(sc_io_read_spheres(path_in("ids.dump"), &o, &s, err, sizeof err) == SC_IO_OK, "%s",
              err);
        int good = s.ids != NULL && s.n == n;
        for (size_t i = 0; good && i < n; i++)
            good = s.ids[i] == -7 + step[w] * (int64_t)((i * 37 + 11) % n) &&
                   ((const double *)s.rows)[4 * i] == (double)i;
        CHECK(good, "ids.dump (step %lld): the ids of frame 1, in the rows' order",
              (long long)step[w]);
        sc_io_spheres_free(&s);
        /* atom 250 (frame 1's header takes lines 306-310, its atom 0 line
         * 311) repeats atom 0's id */
        write_ids_dump(path_in("ids.dump"), n, -7, step[w], 250);
        expect_fail_opts(path_in("ids.dump"), &o, SC_IO_ERR_DUPLICATE_ID, "line 561", "on line 311",
                         __LINE__);
    }
    /* int64's ends, and one past them */
    write_text(path_in("ends.dump"),
               "ITEM: NUMBER OF ATOMS\n2\nITEM: ATOMS x y z radius id\n"
               "0 0 0 1 -9223372036854775808\n1 0 0 1 +9223372036854775807\n");
    o.frame = 0;
    CHECK(sc_io_read_spheres(path_in("ends.dump"), &o, &s, err, sizeof err) == SC_IO_OK, "%s", err);
    CHECK(s.ids && s.ids[0] == INT64_MIN && s.ids[1] == INT64_MAX, "ends.dump: int64's ends");
    sc_io_spheres_free(&s);
    write_text(path_in("over.dump"), "ITEM: NUMBER OF ATOMS\n2\nITEM: ATOMS x y z radius id\n"
                                     "0 0 0 1 -9223372036854775809\n1 0 0 1 2\n");
    expect_fail_opts(path_in("over.dump"), &o, SC_IO_ERR_SYNTAX, "line 4", "-9223372036854775809",
                     __LINE__);
    write_text(path_in("over.dump"), "ITEM: NUMBER OF ATOMS\n2\nITEM: ATOMS x y z radius id\n"
                                     "0 0 0 1 1\n1 0 0 1 9223372036854775808\n");
    expect_fail_opts(path_in("over.dump"), &o, SC_IO_ERR_SYNTAX, "line 5", "9223372036854775808",
                     __LINE__);
    /* without ids asked, none are read */
    o.ids = 0;
    CHECK(sc_io_read_spheres(path_in("ends.dump"), &o, &s, err, sizeof err) == SC_IO_OK &&
              s.ids == NULL,
          "ends.dump without ids: %s", err);
    sc_io_spheres_free(&s);
}

static void group_lammps(void) {
    /* dump custom: scaled x and y, plain z, diameters, any column order,
     * a second snapshot after the first (not read), CRLF line ends */
    write_text(path_in("a.dump"), "ITEM: TIMESTEP\r\n100\r\nITEM: NUMBER OF ATOMS\r\n3\r\n"
                                  "ITEM: BOX BOUNDS pp pp ff\r\n-2.0 8.0\r\n0 4\r\n-1e3 1e3\r\n"
                                  "ITEM: ATOMS id diameter xs type z ys\r\n"
                                  "1 1.0 0.25 1 7.5 0.5\r\n2 3e-5 0.1 2 -1 0.125\r\n3 0 1 1 0 0\r\n"
                                  "ITEM: TIMESTEP\r\n200\r\n");
    sc_io_spheres s = read_ok(path_in("a.dump"), SC_IO_FORMAT_AUTO, 0);
    const double want[12] = {-2.0 + 0.25 * 10.0,
                             0.0 + 0.5 * 4.0,
                             7.5,
                             0.5,
                             -2.0 + 0.1 * 10.0,
                             0.0 + 0.125 * 4.0,
                             -1.0,
                             0.5 * 3e-5,
                             -2.0 + 1.0 * 10.0,
                             0.0,
                             0.0,
                             0.0};
    check_values(&s, want, 12, "a.dump");
    CHECK(s.format == SC_IO_FORMAT_LAMMPS && s.has_box, "a.dump: lammps with a box");
    CHECK(s.box.periodic[0] && s.box.periodic[1] && !s.box.periodic[2] && s.box.lo[0] == -2.0 &&
              s.box.hi[0] == 8.0 && s.box.hi[1] == 4.0 && s.box.lo[2] == -1e3,
          "a.dump: the box (pp pp ff)");
    sc_io_spheres_free(&s);
    /* as circles: z ignored */
    s = read_ok(path_in("a.dump"), SC_IO_FORMAT_AUTO, 2);
    const double want2[9] = {want[0], want[1], want[3], want[4], want[5], want[7], want[8], 0, 0};
    check_values(&s, want2, 9, "a.dump --2d");
    CHECK(!s.box.periodic[2], "a.dump --2d: no z axis");
    sc_io_spheres_free(&s);

    /* dump atom with unscaled unwrapped coordinates, no radius column: the
     * caller's radii, one for all or by type; a .txt name is sniffed */
    const char *atom = "ITEM: TIMESTEP\n0\nITEM: UNITS\nlj\nITEM: NUMBER OF ATOMS\n2\n"
                       "ITEM: BOX BOUNDS ff ff ff\n0 1\n0 1\n0 1\n"
                       "ITEM: ATOMS id type xu yu zu\n7 Ar 0.5 0.25 -3\n8 He 1 2 3\n";
    write_text(path_in("b.txt"), atom);
    sc_io_read_options o = {SC_IO_FORMAT_AUTO, 0, 0, 0, "0.75", NULL, 0, 0, 0, 0, 0};
    char err[512] = "";
    CHECK(sc_io_read_spheres(path_in("b.txt"), &o, &s, err, sizeof err) == SC_IO_OK, "%s", err);
    const double wb[8] = {0.5, 0.25, -3, 0.75, 1, 2, 3, 0.75};
    check_values(&s, wb, 8, "b.txt, one radius");
    CHECK(s.has_box && !s.box.periodic[0], "b.txt: ff: not periodic");
    sc_io_spheres_free(&s);
    o.radius = "Ar=1.5,He=0.25";
    CHECK(sc_io_read_spheres(path_in("b.txt"), &o, &s, err, sizeof err) == SC_IO_OK, "%s", err);
    const double wt[8] = {0.5, 0.25, -3, 1.5, 1, 2, 3, 0.25};
    check_values(&s, wt, 8, "b.txt, radii by type");
    sc_io_spheres_free(&s);

    /* errors: the file, the line and the column */
    o.radius = "Ar=1.5";
    expect_fail_opts(path_in("b.txt"), &o, SC_IO_ERR_SYNTAX, "line 13", "He", __LINE__);
    o.radius = "Ar=-1";
    expect_fail_opts(path_in("b.txt"), &o, SC_IO_ERR_ARGUMENT, "radius", NULL, __LINE__);
    o.radius = NULL;
    expect_fail_opts(path_in("b.txt"), &o, SC_IO_ERR_HEADER, "line 11", "no radius", __LINE__);
    static const struct {
        const char *name, *text, *place, *token;
        sc_io_status st;
    } bad[] = {
        {"tri.dump",
         "ITEM: NUMBER OF ATOMS\n1\nITEM: BOX BOUNDS xy xz yz pp pp pp\n0 1 0\n0 1 0\n0 1 0\n"
         "ITEM: ATOMS ys xs zs radius\n0.5 0.5 0.5 1\n",
         "line 7", "triclinic", SC_IO_ERR_HEADER},
        {"count.dump", "ITEM: NUMBER OF ATOMS\nthree\n", "line 2", "whole number",
         SC_IO_ERR_SYNTAX},
        {"short.dump", "ITEM: NUMBER OF ATOMS\n3\nITEM: ATOMS x y z radius\n1 2 3 4\n", "line 5",
         "1 atom rows", SC_IO_ERR_COUNT},
        {"fields.dump", "ITEM: NUMBER OF ATOMS\n1\nITEM: ATOMS x y z radius\n1 2 3\n", "line 4",
         "3 fields", SC_IO_ERR_COUNT},
        {"token.dump", "ITEM: NUMBER OF ATOMS\n1\nITEM: ATOMS x y z radius\n1 abc 3 4\n", "line 4",
         "column y", SC_IO_ERR_SYNTAX},
        {"neg.dump", "ITEM: NUMBER OF ATOMS\n1\nITEM: ATOMS x y z radius\n1 2 3 -4\n", "line 4",
         "column radius", SC_IO_ERR_NEGATIVE_RADIUS},
        {"nan.dump", "ITEM: NUMBER OF ATOMS\n1\nITEM: ATOMS x y z diameter\n1 nan 3 4\n", "line 4",
         "column y", SC_IO_ERR_NON_FINITE},
        {"big.dump", "ITEM: NUMBER OF ATOMS\n1\nITEM: ATOMS x y z radius\n1e151 0 0 1\n", "line 4",
         "column x", SC_IO_ERR_OUT_OF_RANGE},
        {"noz.dump", "ITEM: NUMBER OF ATOMS\n1\nITEM: ATOMS x y radius\n1 2 3\n", "line 3",
         "no z column", SC_IO_ERR_HEADER},
        {"scaled.dump", "ITEM: NUMBER OF ATOMS\n1\nITEM: ATOMS xs y z radius\n1 2 3 4\n", "line 3",
         "BOX BOUNDS", SC_IO_ERR_HEADER},
        {"bounds.dump", "ITEM: BOX BOUNDS pp pp pp\n0 1\n2 1\n0 1\n", "line 3", "lo <= hi",
         SC_IO_ERR_SYNTAX},
        {"noatoms.dump", "ITEM: TIMESTEP\n1\nITEM: NUMBER OF ATOMS\n1\n", "line 4", "ITEM: ATOMS",
         SC_IO_ERR_HEADER},
        {"notdump.dump", "1 2 3 4\n", "line 1", "ITEM:", SC_IO_ERR_HEADER},
        {"huge.dump", "ITEM: NUMBER OF ATOMS\n3333333330\nITEM: ATOMS x y z radius\n1 2 3 4\n",
         "line 3", "more rows than the rest of the file", SC_IO_ERR_COUNT},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        write_text(path_in(bad[k].name), bad[k].text);
        EXPECT_FAIL(path_in(bad[k].name), SC_IO_FORMAT_AUTO, 0, bad[k].st, bad[k].place,
                    bad[k].token);
    }
    /* a trajectory: frames by index, from the end, past the end; the
     * frames passed over are not read (frame 0's bad value is not seen),
     * but their counts are */
    {
        const char *traj =
            "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp pp\n"
            "0 10\n0 10\n0 10\nITEM: ATOMS id x y z radius\n1 1 1 1 bad\n2 2 2 2 0.5\n"
            "ITEM: TIMESTEP\n10\nITEM: NUMBER OF ATOMS\n1\nITEM: BOX BOUNDS pp pp ff\n"
            "0 20\n0 20\n0 20\nITEM: ATOMS id x y z radius\n1 3 4 5 0.25\n\n"
            "ITEM: TIMESTEP\n20\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS ff ff ff\n"
            "0 30\n0 30\n0 30\nITEM: ATOMS id radius z y x\n1 1.5 6 7 8\n2 2.5 9 10 11\n\n";
        write_text(path_in("t.dump"), traj);
        sc_io_read_options fo = {SC_IO_FORMAT_AUTO, 0, 0, 0, NULL, NULL, 1, 0, 0, 0, 0};
        char ferr[512] = "";
        sc_io_spheres t;
        const double w1[4] = {3, 4, 5, 0.25}, w2[8] = {8, 7, 6, 1.5, 11, 10, 9, 2.5};
        CHECK(sc_io_read_spheres(path_in("t.dump"), &fo, &t, ferr, sizeof ferr) == SC_IO_OK,
              "t.dump frame 1: %s", ferr);
        check_values(&t, w1, 4, "t.dump frame 1");
        CHECK(t.has_box && t.box.periodic[1] && !t.box.periodic[2] && t.box.hi[0] == 20.0,
              "t.dump frame 1: its own box");
        sc_io_spheres_free(&t);
        const long pick[3] = {2, -1, -2};
        for (int k = 0; k < 3; k++) {
            fo.frame = pick[k];
            CHECK(sc_io_read_spheres(path_in("t.dump"), &fo, &t, ferr, sizeof ferr) == SC_IO_OK,
                  "t.dump frame %ld: %s", pick[k], ferr);
            if (k < 2)
                check_values(&t, w2, 8, "t.dump frame 2 / last");
            else
                check_values(&t, w1, 4, "t.dump frame -2");
            sc_io_spheres_free(&t);
        }
        fo.frame = 0;
        expect_fail_opts(path_in("t.dump"), &fo, SC_IO_ERR_SYNTAX, "line 10", "\"bad\"", __LINE__);
        fo.frame = 3;
        expect_fail_opts(path_in("t.dump"), &fo, SC_IO_ERR_ARGUMENT, "3 snapshots",
                         "frame 3 is past them", __LINE__);
        fo.frame = -4;
        expect_fail_opts(path_in("t.dump"), &fo, SC_IO_ERR_ARGUMENT, "3 snapshots", "counts back",
                         __LINE__);
        /* a frame passed over that ends early, or has no count */
        write_text(path_in("t2.dump"), "ITEM: NUMBER OF ATOMS\n3\nITEM: ATOMS x y z radius\n"
                                       "0 0 0 1\n");
        fo.frame = 1;
        expect_fail_opts(path_in("t2.dump"), &fo, SC_IO_ERR_COUNT, "line 5",
                         "1 of the 3 atoms of line 2", __LINE__);
        write_text(path_in("t3.dump"), "ITEM: TIMESTEP\n0\nITEM: ATOMS x y z radius\n0 0 0 1\n");
        expect_fail_opts(path_in("t3.dump"), &fo, SC_IO_ERR_HEADER, "line 3",
                         "without ITEM: NUMBER OF ATOMS", __LINE__);
        /* other formats take no frame */
        write_text(path_in("t.txt"), "0 0 0 1\n");
        expect_fail_opts(path_in("t.txt"), &fo, SC_IO_ERR_ARGUMENT, NULL, "LAMMPS dumps and XYZ",
                         __LINE__);
    }
    /* no atoms: an empty set */
    write_text(path_in("empty.dump"), "ITEM: NUMBER OF ATOMS\n0\nITEM: ATOMS x y z radius\n");
    s = read_ok(path_in("empty.dump"), SC_IO_FORMAT_AUTO, 0);
    CHECK(s.n == 0 && s.rows == NULL && !s.has_box, "empty.dump");
    sc_io_spheres_free(&s);
    /* the format's name */
    sc_io_format f = SC_IO_FORMAT_AUTO;
    CHECK(sc_io_format_parse("lammps", &f) == 0 && f == SC_IO_FORMAT_LAMMPS &&
              strcmp(sc_io_format_name(f), "lammps") == 0 &&
              sc_io_spheres_format_for_path("x.lammpstrj") == SC_IO_FORMAT_LAMMPS,
          "format names");
    /* a row longer than the rows' pieces (a 1.5 MB type): the pieces swallow
     * one another and the rows are read on the calling thread, first or last */
    const size_t big = 1500000;
    char *t = malloc(big + 256);
    for (int last = 0; last < 2; last++) {
        size_t len =
            (size_t)sprintf(t, "ITEM: NUMBER OF ATOMS\n2\nITEM: ATOMS id type x y z radius\n");
        if (last)
            len += (size_t)sprintf(t + len, "1 1 1 2 3 0.5\n2 ");
        else
            len += (size_t)sprintf(t + len, "1 ");
        memset(t + len, 'a', big);
        len += big;
        len += (size_t)sprintf(t + len, last ? " 4 5 6 0.25\n" : " 1 2 3 0.5\n2 1 4 5 6 0.25\n");
        write_bytes(path_in("long.dump"), t, len);
        const sc_io_read_options lopts = {SC_IO_FORMAT_AUTO, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0};
        char lerr[512];
        if (read_threads(path_in("long.dump"), lopts, 3, &s, lerr, sizeof lerr) == SC_IO_OK) {
            const double *r = s.rows;
            CHECK(s.n == 2 && r[0] == 1 && r[3] == 0.5 && r[4] == 4 && r[6] == 6 && r[7] == 0.25,
                  "long.dump (long row %s): %zu atoms", last ? "last" : "first", s.n);
            sc_io_spheres_free(&s);
        } else {
            CHECK(0, "long.dump: %s", lerr);
        }
    }
    free(t);
    lammps_ids();
}

/* ---- XYZ ------------------------------------------------------------------- */

static void group_xyz(void) {
    /* plain XYZ: element x y z, extra columns ignored, the caller's radii */
    write_text(path_in("w.xyz"), "3\nwater, one frame\nO 0 0 0\nH 0.75 -0.5e0 0 1 2\n"
                                 "H -0.75 0.5 0\n2\nnext frame\nO 1 1 1\nH 2 2 2\n");
    sc_io_read_options o = {SC_IO_FORMAT_AUTO, 0, 0, 0, "O=0.7,H=0.3", NULL, 0, 0, 0, 0, 0};
    sc_io_spheres s;
    char err[512] = "";
    CHECK(sc_io_read_spheres(path_in("w.xyz"), &o, &s, err, sizeof err) == SC_IO_OK, "%s", err);
    const double ww[12] = {0, 0, 0, 0.7, 0.75, -0.5, 0, 0.3, -0.75, 0.5, 0, 0.3};
    check_values(&s, ww, 12, "w.xyz by element");
    CHECK(s.format == SC_IO_FORMAT_XYZ && !s.has_box, "w.xyz: xyz, no box");
    sc_io_spheres_free(&s);
    o.radius = "1.5";
    o.dims = 2;
    CHECK(sc_io_read_spheres(path_in("w.xyz"), &o, &s, err, sizeof err) == SC_IO_OK, "%s", err);
    const double w2[9] = {0, 0, 1.5, 0.75, -0.5, 1.5, -0.75, 0.5, 1.5};
    check_values(&s, w2, 9, "w.xyz --2d, one radius");
    sc_io_spheres_free(&s);

    /* its second frame, by index and from the end; a third is not there */
    o.radius = "O=0.7,H=0.3";
    o.dims = 0;
    const long wpick[2] = {1, -1};
    for (int k = 0; k < 2; k++) {
        o.frame = wpick[k];
        CHECK(sc_io_read_spheres(path_in("w.xyz"), &o, &s, err, sizeof err) == SC_IO_OK,
              "w.xyz frame %ld: %s", wpick[k], err);
        const double wf[8] = {1, 1, 1, 0.7, 2, 2, 2, 0.3};
        check_values(&s, wf, 8, "w.xyz frame 1");
        sc_io_spheres_free(&s);
    }
    o.frame = 2;
    expect_fail_opts(path_in("w.xyz"), &o, SC_IO_ERR_ARGUMENT, "2 snapshots", "past them",
                     __LINE__);
    write_text(path_in("w2.xyz"), "1\nc\nO 0 0 0\n\nx\nc\nO 1 1 1\n");
    o.frame = 1;
    expect_fail_opts(path_in("w2.xyz"), &o, SC_IO_ERR_HEADER, "line 5", "atom count", __LINE__);
    o.frame = 0;

    /* extended XYZ: columns by Properties (any order), the radius property,
     * an orthogonal Lattice and pbc */
    write_text(path_in("e.extxyz"),
               "2\r\nLattice=\"10 0 0 0 20 0 0 0 30\" Properties=id:I:1:radius:R:1:species:S:1:"
               "pos:R:3:forces:R:3 energy=-1.5 pbc=\"T F T\"\r\n"
               "1 0.5 Ar 1 2 3 0 0 0\r\n2 0.25 Ar 9.5 2 3 0 0 0\r\n");
    s = read_ok(path_in("e.extxyz"), SC_IO_FORMAT_AUTO, 0);
    const double we[8] = {1, 2, 3, 0.5, 9.5, 2, 3, 0.25};
    check_values(&s, we, 8, "e.extxyz");
    CHECK(s.has_box && s.box.periodic[0] && !s.box.periodic[1] && s.box.periodic[2] &&
              s.box.lo[0] == 0.0 && s.box.hi[0] == 10.0 && s.box.hi[1] == 20.0 &&
              s.box.hi[2] == 30.0,
          "e.extxyz: the box from Lattice and pbc");
    sc_io_spheres_free(&s);
    /* a skewed cell: read, but no box */
    write_text(path_in("k.xyz"),
               "1\nLattice=\"10 1 0 0 10 0 0 0 10\" Properties=species:S:1:pos:R:3\n"
               "H 1 2 3\n");
    o.dims = 0;
    o.radius = "H=1";
    CHECK(sc_io_read_spheres(path_in("k.xyz"), &o, &s, err, sizeof err) == SC_IO_OK && !s.has_box,
          "k.xyz: a skewed cell gives no box (%s)", err);
    sc_io_spheres_free(&s);

    /* errors */
    o.radius = "O=0.7";
    expect_fail_opts(path_in("w.xyz"), &o, SC_IO_ERR_SYNTAX, "line 4", "\"H\"", __LINE__);
    o.radius = NULL;
    expect_fail_opts(path_in("w.xyz"), &o, SC_IO_ERR_HEADER, "line 2", "no radius", __LINE__);
    static const struct {
        const char *name, *text, *place, *token;
        sc_io_status st;
    } bad[] = {
        {"count.xyz", "three\nc\nH 0 0 0 1\n", "line 1", "atom count", SC_IO_ERR_HEADER},
        {"huge.xyz", "3333333330\nProperties=species:S:1:pos:R:3:radius:R:1\nH 0 0 0 1\n", "line 1",
         "more lines than the rest", SC_IO_ERR_COUNT},
        {"short.xyz", "3\nProperties=species:S:1:pos:R:3:radius:R:1\nH 0 0 0 1\n", "line 4",
         "1 atom lines", SC_IO_ERR_COUNT},
        {"fields.xyz", "1\nProperties=species:S:1:pos:R:3:radius:R:1\nH 0 0 1\n", "line 3",
         "4 fields", SC_IO_ERR_COUNT},
        {"token.xyz", "1\nProperties=species:S:1:pos:R:3:radius:R:1\nH 0 x 0 1\n", "line 3",
         "column y", SC_IO_ERR_SYNTAX},
        {"neg.xyz", "1\nProperties=species:S:1:pos:R:3:radius:R:1\nH 0 0 0 -1\n", "line 3",
         "column radius", SC_IO_ERR_NEGATIVE_RADIUS},
        {"inf.xyz", "1\nProperties=species:S:1:pos:R:3:radius:R:1\nH 0 0 inf 1\n", "line 3",
         "column z", SC_IO_ERR_NON_FINITE},
        {"props.xyz", "1\nProperties=species:S\nH 0 0 0 1\n", "line 2", "triples",
         SC_IO_ERR_HEADER},
        {"nopos.xyz", "1\nProperties=species:S:1:radius:R:1\nH 1\n", "line 2", "pos:R:3",
         SC_IO_ERR_HEADER},
        {"lattice.xyz",
         "1\nLattice=\"1 0 0\" Properties=species:S:1:pos:R:3:radius:R:1\nH 0 0 0 1\n", "line 2",
         "9 numbers", SC_IO_ERR_HEADER},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        write_text(path_in(bad[k].name), bad[k].text);
        EXPECT_FAIL(path_in(bad[k].name), SC_IO_FORMAT_AUTO, 0, bad[k].st, bad[k].place,
                    bad[k].token);
    }
    sc_io_format f = SC_IO_FORMAT_AUTO;
    CHECK(sc_io_format_parse("xyz", &f) == 0 && f == SC_IO_FORMAT_XYZ &&
              strcmp(sc_io_format_name(f), "xyz") == 0 &&
              sc_io_spheres_format_for_path("a.EXTXYZ") == SC_IO_FORMAT_XYZ,
          "format names");
}

/* ---- HDF5 ------------------------------------------------------------------- */

#ifdef SC_HAVE_HDF5
#include <hdf5.h>

/* Writes dataset name (rank 1 or 2) of `type` from doubles converted by HDF5. */
static void h5_put(hid_t file, const char *name, int rank, size_t rows, size_t cols, hid_t type,
                   const double *v) {
    const hsize_t dims[2] = {rows, cols};
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(file, name, type, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0,
          "writing %s", name);
    H5Dclose(d);
    H5Sclose(space);
    H5Pclose(lcpl);
}

static void group_hdf5(void) {
    const char *path = path_in("p.h5");
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const double rows4[12] = {1, 2, 3, 0.5, -4, 5.25, 6, 0, 1e-300, 0, 0, 1e150};
    h5_put(file, "/spheres", 2, 3, 4, H5T_IEEE_F64LE, rows4);
    const double wide[18] = {0.5, 9, 9, 9, 1,  2, /* r . . . x y */ 0.25, 9, 9, 9, 3, 4,
                             0,   9, 9, 9, -1, -2};
    h5_put(file, "/g/wide", 2, 3, 6, H5T_IEEE_F32LE, wide);
    const double xs[3] = {1, 2, 3}, ys[3] = {4, 5, 6}, zs[3] = {-7, 8, 9}, rs[3] = {1, 0.5, 0};
    h5_put(file, "/cols/x", 1, 3, 1, H5T_STD_I32LE, xs);
    h5_put(file, "/cols/y", 1, 3, 1, H5T_STD_I64LE, ys);
    h5_put(file, "/cols/z", 1, 3, 1, H5T_IEEE_F64BE, zs); /* big-endian: HDF5 converts */
    h5_put(file, "/cols/r", 1, 3, 1, H5T_IEEE_F32LE, rs);
    h5_put(file, "/cols/short", 1, 2, 1, H5T_IEEE_F64LE, rs);
    const double bad[8] = {0, 0, 0, 1, 0, NAN, 0, 1};
    h5_put(file, "/bad", 2, 2, 4, H5T_IEEE_F64LE, bad);
    H5Fclose(file);

    sc_io_read_options o = {SC_IO_FORMAT_AUTO, 0, 0, 0, NULL, "/spheres", 0, 0, 0, 0, 0};
    sc_io_spheres s;
    char err[512] = "";
    CHECK(sc_io_read_spheres(path, &o, &s, err, sizeof err) == SC_IO_OK, "%s", err);
    check_values(&s, rows4, 12, "p.h5 /spheres");
    CHECK(s.format == SC_IO_FORMAT_HDF5, "p.h5: hdf5");
    sc_io_spheres_free(&s);
    o.dataset = "/g/wide:4,5,0";
    o.dims = 2;
    CHECK(sc_io_read_spheres(path, &o, &s, err, sizeof err) == SC_IO_OK, "%s", err);
    const double w2[9] = {1, 2, 0.5, 3, 4, 0.25, -1, -2, 0};
    check_values(&s, w2, 9, "p.h5 /g/wide:4,5,0 as circles");
    sc_io_spheres_free(&s);
    o.dataset = "/cols/x,/cols/y,/cols/z,/cols/r";
    o.dims = 0;
    CHECK(sc_io_read_spheres(path, &o, &s, err, sizeof err) == SC_IO_OK, "%s", err);
    const double wc[12] = {1, 4, -7, 1, 2, 5, 8, 0.5, 3, 6, 9, 0};
    check_values(&s, wc, 12, "p.h5 one dataset per column");
    sc_io_spheres_free(&s);

    static const struct {
        const char *dataset, *place, *token;
        int dims;
        sc_io_status st;
    } fails[] = {
        {"/nope", "/nope", "not found", 0, SC_IO_ERR_HEADER},
        {"/g", "/g", "not a dataset", 0, SC_IO_ERR_HEADER},
        {"/cols/x", "/cols/x", "rank 1, needs 2", 0, SC_IO_ERR_SHAPE},
        {"/spheres,/cols/y,/cols/z,/cols/r", "/spheres", "rank 2, needs 1", 0, SC_IO_ERR_SHAPE},
        {"/g/wide:4,5,6,0", "/g/wide", "column 6", 0, SC_IO_ERR_SHAPE},
        {"/cols/x,/cols/y,/cols/short,/cols/r", "/cols/short", "2 values", 0, SC_IO_ERR_SHAPE},
        {"/bad", "row 1", "non-finite", 0, SC_IO_ERR_NON_FINITE},
        {"/g/wide:4,5,0,4", "row 2", "column r", 0, SC_IO_ERR_NEGATIVE_RADIUS}, /* r: x again */
        {"/a,/b", "dataset", "one path per column", 0, SC_IO_ERR_ARGUMENT},
        {"/g/wide:1,2", "dataset", "PATH:X,Y,Z,R", 0, SC_IO_ERR_ARGUMENT},
        {NULL, "dataset named", NULL, 0, SC_IO_ERR_ARGUMENT},
    };
    for (size_t k = 0; k < sizeof fails / sizeof fails[0]; k++) {
        o.dataset = fails[k].dataset;
        o.dims = fails[k].dims;
        expect_fail_opts(path, &o, fails[k].st, fails[k].place, fails[k].token, __LINE__);
    }
    write_text(path_in("not.h5"), "1 2 3 4\n");
    o.dataset = "/spheres";
    o.dims = 0;
    expect_fail_opts(path_in("not.h5"), &o, SC_IO_ERR_OPEN, "HDF5", NULL, __LINE__);
}
#else
/* Without libhdf5 at build time: a clear refusal. */
static void group_hdf5(void) {
    write_text(path_in("p.h5"), "not read\n");
    sc_io_read_options o = {SC_IO_FORMAT_AUTO, 0, 0, 0, NULL, "/spheres", 0, 0, 0, 0, 0};
    expect_fail_opts(path_in("p.h5"), &o, SC_IO_ERR_ARGUMENT, "libhdf5-dev", NULL, __LINE__);
}
#endif

/* Each group in a folder of its own under the WORKDIR given after its name. */
static char group_dir[1024];

static int enter(const char *group) {
    if (sc_test_argc < 1) {
        CHECK(0, "test_io %s: no WORKDIR after the group's name", group);
        return 0;
    }
    snprintf(group_dir, sizeof group_dir, "%s/%s", sc_test_argv[0], group);
    make_workdir(group_dir);
    workdir = group_dir;
    return 1;
}

#define IO_GROUP(name, fn)                                                                         \
    static void run_##name(void) {                                                                 \
        if (enter(#name))                                                                          \
            fn();                                                                                  \
    }
IO_GROUP(numbers, group_numbers)
IO_GROUP(fastlines, group_fastlines)
IO_GROUP(decimals, group_decimals)
IO_GROUP(csv, group_csv)
IO_GROUP(runs, group_runs)
IO_GROUP(pieces, group_pieces)
IO_GROUP(text, group_text)
IO_GROUP(npy, group_npy)
IO_GROUP(raw, group_raw)
IO_GROUP(writers, group_writers)
IO_GROUP(spheres, group_spheres)
IO_GROUP(oracle, group_oracle)
IO_GROUP(seedlike, group_crlf_like_seed)
IO_GROUP(lammps, group_lammps)
IO_GROUP(lammps_rows, group_lammps_rows)
IO_GROUP(lammps_runs, group_lammps_runs)
IO_GROUP(xyz, group_xyz)
IO_GROUP(xyz_rows, group_xyz_rows)
IO_GROUP(xyz_runs, group_xyz_runs)
IO_GROUP(hdf5, group_hdf5)

/* The seed's file: DATADIR after WORKDIR; without it the group fails. */
static void run_spheres_dat(void) {
    if (!enter("spheres_dat"))
        return;
    CHECK(sc_test_argc >= 2, "test_io spheres_dat: no DATADIR after WORKDIR");
    if (sc_test_argc >= 2)
        group_spheres_dat(sc_test_argv[1]);
}

int main(int argc, char **argv) {
    static const sc_test_group groups[] = {
        {"numbers", run_numbers},
        {"fastlines", run_fastlines},
        {"decimals", run_decimals},
        {"csv", run_csv},
        {"runs", run_runs},
        {"pieces", run_pieces},
        {"text", run_text},
        {"npy", run_npy},
        {"raw", run_raw},
        {"writers", run_writers},
        {"spheres", run_spheres},
        {"oracle", run_oracle},
        {"seedlike", run_seedlike},
        {"lammps", run_lammps},
        {"lammps_rows", run_lammps_rows},
        {"lammps_runs", run_lammps_runs},
        {"xyz", run_xyz},
        {"xyz_rows", run_xyz_rows},
        {"xyz_runs", run_xyz_runs},
        {"hdf5", run_hdf5},
        {"spheres_dat", run_spheres_dat},
    };
    return sc_test_main(argc, argv, "test_io", groups, sizeof groups / sizeof groups[0]);
}
