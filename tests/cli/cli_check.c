/*
 * cli_check.c: helper for the CLI tests (tests/cli/cli_tests.sh). It never
 * calls the engine: it checks what the spherecollide binary wrote.
 *
 *   cli_check json FILE KEY...      FILE is one line holding one valid JSON
 *                                   object that has every KEY ("a.b" for
 *                                   nested); exit 0, else 1 with a reason
 *   cli_check json-get FILE KEY     prints KEY's value (strings unquoted)
 *   cli_check pairs FILE FORMAT N   FORMAT npy|csv|bin; checks the file's
 *                                   structure and 0 <= i < j < N for every
 *                                   pair; prints "K 0xCHECKSUM sorted|unsorted"
 *   cli_check oracle FILE [FORMAT [DIMS]]
 *                                   reads spheres with sc_io, prints
 *                                   "K 0xCHECKSUM" from the sweep oracle
 *   cli_check mkbad DIR             writes bad inputs into DIR and prints one
 *                                   line per case: NAME<TAB>EXIT<TAB>PLACE<TAB>ARGS
 *   cli_check mkseed FILE N SEED    N spheres in the seed's layout: one number
 *                                   per line, CRLF
 *
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "options.h" /* tools/cli: the tool's option table */
#include "sc_io.h"
#include "sc_oracle.h"

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cli_check: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap + 1);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            b = realloc(b, cap + 1);
        }
        size_t got = fread(b + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    b[n] = '\0';
    *len = n;
    return b;
}

/* ---- a small strict JSON parser that records key paths ---------------------- */

typedef struct jkey {
    char path[128];
    const char *value;
    size_t len;
} jkey;

typedef struct jparser {
    const char *p, *end;
    jkey keys[256];
    int nkeys;
    const char *error;
} jparser;

static void jspace(jparser *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int jvalue(jparser *j, const char *path, int depth);

static int jstring(jparser *j, char *out, size_t cap) {
    if (j->p >= j->end || *j->p != '"') {
        j->error = "expected a string";
        return -1;
    }
    j->p++;
    size_t o = 0;
    while (j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p;
        if (c < 0x20) {
            j->error = "control character in a string";
            return -1;
        }
        if (c == '\\') {
            j->p++;
            if (j->p >= j->end || !strchr("\"\\/bfnrtu", *j->p)) {
                j->error = "bad escape";
                return -1;
            }
            if (*j->p == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (j->p + k >= j->end || !strchr("0123456789abcdefABCDEF", j->p[k])) {
                        j->error = "bad \\u escape";
                        return -1;
                    }
                j->p += 4;
            }
        }
        if (out && o + 1 < cap)
            out[o++] = (char)*j->p;
        j->p++;
    }
    if (j->p >= j->end) {
        j->error = "unterminated string";
        return -1;
    }
    j->p++;
    if (out)
        out[o] = '\0';
    return 0;
}

static int jnumber(jparser *j) {
    const char *s = j->p;
    if (j->p < j->end && *j->p == '-')
        j->p++;
    if (j->p >= j->end || *j->p < '0' || *j->p > '9') {
        j->error = "bad number";
        return -1;
    }
    if (*j->p == '0')
        j->p++;
    else
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
            j->p++;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (j->p >= j->end || *j->p < '0' || *j->p > '9') {
            j->error = "bad fraction";
            return -1;
        }
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
            j->p++;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        if (j->p >= j->end || *j->p < '0' || *j->p > '9') {
            j->error = "bad exponent";
            return -1;
        }
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
            j->p++;
    }
    return j->p > s ? 0 : -1;
}

static int jobject(jparser *j, const char *path, int depth) {
    j->p++; /* '{' */
    jspace(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        return 0;
    }
    for (;;) {
        char key[96];
        jspace(j);
        if (jstring(j, key, sizeof key))
            return -1;
        jspace(j);
        if (j->p >= j->end || *j->p != ':') {
            j->error = "expected ':'";
            return -1;
        }
        j->p++;
        jspace(j);
        char sub[128];
        snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", key);
        for (int k = 0; k < j->nkeys; k++)
            if (strcmp(j->keys[k].path, sub) == 0) {
                j->error = "duplicate key";
                return -1;
            }
        int slot = j->nkeys < 256 ? j->nkeys++ : -1;
        const char *vstart = j->p;
        if (jvalue(j, sub, depth + 1))
            return -1;
        if (slot >= 0) {
            snprintf(j->keys[slot].path, sizeof j->keys[slot].path, "%s", sub);
            j->keys[slot].value = vstart;
            j->keys[slot].len = (size_t)(j->p - vstart);
        }
        jspace(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == '}') {
            j->p++;
            return 0;
        }
        j->error = "expected ',' or '}'";
        return -1;
    }
}

static int jvalue(jparser *j, const char *path, int depth) {
    if (depth > 32) {
        j->error = "too deep";
        return -1;
    }
    jspace(j);
    if (j->p >= j->end) {
        j->error = "unexpected end";
        return -1;
    }
    char c = *j->p;
    if (c == '{')
        return jobject(j, path, depth);
    if (c == '[') {
        j->p++;
        jspace(j);
        if (j->p < j->end && *j->p == ']') {
            j->p++;
            return 0;
        }
        for (;;) {
            if (jvalue(j, path, depth + 1))
                return -1;
            jspace(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == ']') {
                j->p++;
                return 0;
            }
            j->error = "expected ',' or ']'";
            return -1;
        }
    }
    if (c == '"')
        return jstring(j, NULL, 0);
    static const char *const words[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++) {
        size_t l = strlen(words[k]);
        if ((size_t)(j->end - j->p) >= l && memcmp(j->p, words[k], l) == 0) {
            j->p += l;
            return 0;
        }
    }
    return jnumber(j);
}

static int parse_json_file(const char *path, jparser *j, unsigned char **buf) {
    size_t len;
    *buf = slurp(path, &len);
    if (*buf == NULL)
        return -1;
    const char *s = (const char *)*buf;
    const char *nl = memchr(s, '\n', len);
    if (len == 0 || nl == NULL || nl != s + len - 1) {
        fprintf(stderr, "cli_check: %s: not exactly one line\n", path);
        return -1;
    }
    memset(j, 0, sizeof *j);
    j->p = s;
    j->end = s + len - 1;
    jspace(j);
    if (j->p >= j->end || *j->p != '{') {
        fprintf(stderr, "cli_check: %s: not a JSON object\n", path);
        return -1;
    }
    if (jvalue(j, "", 0) == 0) {
        jspace(j);
        if (j->p != j->end)
            j->error = "text after the object";
    } else if (j->error == NULL) {
        j->error = "syntax error";
    }
    if (j->error) {
        fprintf(stderr, "cli_check: %s: invalid JSON at byte %ld: %s\n", path, (long)(j->p - s),
                j->error);
        return -1;
    }
    return 0;
}

static const jkey *find_key(const jparser *j, const char *path) {
    for (int k = 0; k < j->nkeys; k++)
        if (strcmp(j->keys[k].path, path) == 0)
            return &j->keys[k];
    return NULL;
}

static int cmd_json(int argc, char **argv, int get) {
    if (argc < 3)
        return 2;
    jparser j;
    unsigned char *buf = NULL;
    int rc = 0;
    if (parse_json_file(argv[2], &j, &buf) != 0) {
        free(buf);
        return 1;
    }
    for (int a = 3; a < argc; a++) {
        const jkey *k = find_key(&j, argv[a]);
        if (k == NULL) {
            fprintf(stderr, "cli_check: %s: missing key \"%s\"\n", argv[2], argv[a]);
            rc = 1;
            continue;
        }
        if (get) {
            if (k->len >= 2 && k->value[0] == '"')
                printf("%.*s\n", (int)k->len - 2, k->value + 1);
            else
                printf("%.*s\n", (int)k->len, k->value);
        }
    }
    free(buf);
    return rc;
}

/* ---- pair files --------------------------------------------------------------- */

static uint32_t le32(const unsigned char *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static int cmd_pairs(int argc, char **argv) {
    if (argc < 5)
        return 2;
    const char *path = argv[2], *format = argv[3];
    unsigned long long n = strtoull(argv[4], NULL, 10);
    size_t len;
    unsigned char *b = slurp(path, &len);
    if (b == NULL)
        return 1;
    uint32_t *pairs = NULL;
    size_t k = 0;
    if (strcmp(format, "npy") == 0) {
        if (len < 10 || memcmp(b, "\x93NUMPY\x01\x00", 8) != 0) {
            fprintf(stderr, "cli_check: %s: not an .npy 1.0 file\n", path);
            return 1;
        }
        size_t hlen = (size_t)b[8] | (size_t)b[9] << 8;
        if ((10 + hlen) % 64 != 0 || 10 + hlen > len || b[10 + hlen - 1] != '\n') {
            fprintf(stderr, "cli_check: %s: header length %zu not padded to 64\n", path, hlen);
            return 1;
        }
        char hdr[1024];
        size_t hl = hlen < sizeof hdr - 1 ? hlen : sizeof hdr - 1;
        memcpy(hdr, b + 10, hl);
        hdr[hl] = '\0';
        unsigned long long rows = 0;
        if (strstr(hdr, "'descr': '<u4'") == NULL ||
            strstr(hdr, "'fortran_order': False") == NULL) {
            fprintf(stderr, "cli_check: %s: header is not '<u4' C order: %s\n", path, hdr);
            return 1;
        }
        const char *sh = strstr(hdr, "'shape': (");
        if (sh == NULL || sscanf(sh, "'shape': (%llu, 2)", &rows) != 1 ||
            strstr(sh, ", 2)") == NULL) {
            fprintf(stderr, "cli_check: %s: bad shape in header: %s\n", path, hdr);
            return 1;
        }
        if (len - 10 - hlen != rows * 8) {
            fprintf(stderr, "cli_check: %s: shape (%llu, 2) but %zu data bytes\n", path, rows,
                    len - 10 - hlen);
            return 1;
        }
        k = (size_t)rows;
        pairs = malloc((2 * k + 1) * sizeof *pairs);
        for (size_t q = 0; q < 2 * k; q++)
            pairs[q] = le32(b + 10 + hlen + 4 * q);
    } else if (strcmp(format, "bin") == 0) {
        if (len % 8 != 0) {
            fprintf(stderr, "cli_check: %s: %zu bytes is not whole pairs\n", path, len);
            return 1;
        }
        k = len / 8;
        pairs = malloc((2 * k + 1) * sizeof *pairs);
        for (size_t q = 0; q < 2 * k; q++)
            pairs[q] = le32(b + 4 * q);
    } else if (strcmp(format, "csv") == 0) {
        size_t cap = 1024;
        pairs = malloc(cap * sizeof *pairs);
        const char *p = (const char *)b, *end = p + len;
        size_t line = 1;
        while (p < end) {
            unsigned long long v[2];
            for (int c = 0; c < 2; c++) {
                if (p >= end || *p < '0' || *p > '9' ||
                    (*p == '0' && p + 1 < end && p[1] >= '0' && p[1] <= '9')) {
                    fprintf(stderr, "cli_check: %s: line %zu: expected a decimal index\n", path,
                            line);
                    return 1;
                }
                v[c] = 0;
                while (p < end && *p >= '0' && *p <= '9')
                    v[c] = v[c] * 10 + (unsigned)(*p++ - '0');
                if (p >= end || *p != (c == 0 ? ',' : '\n') || v[c] > UINT32_MAX) {
                    fprintf(stderr, "cli_check: %s: line %zu: expected \"i,j\\n\"\n", path, line);
                    return 1;
                }
                p++;
            }
            if (2 * k + 2 > cap) {
                cap *= 2;
                pairs = realloc(pairs, cap * sizeof *pairs);
            }
            pairs[2 * k] = (uint32_t)v[0];
            pairs[2 * k + 1] = (uint32_t)v[1];
            k++;
            line++;
        }
    } else {
        fprintf(stderr, "cli_check: unknown pair format %s\n", format);
        return 2;
    }
    uint64_t sum = 0;
    int sorted = 1;
    for (size_t q = 0; q < k; q++) {
        uint32_t i = pairs[2 * q], j = pairs[2 * q + 1];
        if (!(i < j && j < n)) {
            fprintf(stderr, "cli_check: %s: pair %zu is (%u, %u), not i < j < %llu\n", path, q, i,
                    j, n);
            return 1;
        }
        if (q > 0) {
            uint32_t pi = pairs[2 * q - 2], pj = pairs[2 * q - 1];
            if (!(pi < i || (pi == i && pj < j)))
                sorted = 0;
        }
        sum += sc_oracle_mix(i, j);
    }
    printf("%zu 0x%016llx %s\n", k, (unsigned long long)sum, sorted ? "sorted" : "unsorted");
    free(pairs);
    free(b);
    return 0;
}

/* ---- oracle ------------------------------------------------------------------------ */

static int cmd_oracle(int argc, char **argv) {
    if (argc < 3)
        return 2;
    sc_io_read_options o = {SC_IO_FORMAT_AUTO, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0};
    if (argc > 3 && strcmp(argv[3], "auto") != 0 && sc_io_format_parse(argv[3], &o.format) != 0)
        return 2;
    if (argc > 4)
        o.dims = atoi(argv[4]);
    sc_io_spheres s;
    char err[1024];
    sc_io_status st = sc_io_read_spheres(argv[2], &o, &s, err, sizeof err);
    if (st != SC_IO_OK) {
        fprintf(stderr, "cli_check: %s\n", err);
        return 1;
    }
    sc_oracle_summary sum;
    if (sc_oracle_sweep(s.n, s.dims, s.dtype, s.rows, &sum) != 0) {
        fprintf(stderr, "cli_check: out of memory\n");
        return 1;
    }
    printf("%llu 0x%016llx\n", (unsigned long long)sum.pairs, (unsigned long long)sum.checksum);
    sc_io_spheres_free(&s);
    return 0;
}

/* ---- neighbour lists ---------------------------------------------------------------- */

/* cli_check nbrlist SPHERES LIST.csv FULL SKIN VALUES(none|overlap|distance):
 * the list file must hold exactly the brute-force list, row by row, each
 * row sorted, values equal to the double the oracle computes (read back
 * with strtod). Prints the entry count. */
static int cmd_nbrlist(int argc, char **argv) {
    if (argc < 7)
        return 2;
    sc_io_read_options o = {SC_IO_FORMAT_AUTO, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0};
    sc_io_spheres s;
    char err[1024];
    if (sc_io_read_spheres(argv[2], &o, &s, err, sizeof err) != SC_IO_OK) {
        fprintf(stderr, "cli_check: %s\n", err);
        return 1;
    }
    const int full = atoi(argv[4]);
    const double skin = strtod(argv[5], NULL);
    const int values = strcmp(argv[6], "none") != 0, overlap = strcmp(argv[6], "overlap") == 0;
    sc_oracle_sphere *sp = sc_oracle_load(s.n, s.dims, s.dtype, s.rows);
    FILE *f = fopen(argv[3], "r");
    if (!sp || !f) {
        fprintf(stderr, "cli_check: cannot read %s\n", argv[3]);
        return 1;
    }
    unsigned long long entries = 0;
    char line[256];
    int bad = 0;
    for (size_t i = 0; i < s.n && !bad; i++) {
        for (size_t j = 0; j < s.n && !bad; j++) {
            if (j == i || (!full && j < i))
                continue;
            const sc_oracle_sphere *a = &sp[i < j ? i : j], *b = &sp[i < j ? j : i];
            const double dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
            const double d2 = (dx * dx + dy * dy) + dz * dz, t = (a->r + b->r) + skin;
            if (!(d2 <= t * t))
                continue;
            const double d = sqrt(d2), v = overlap ? (a->r + b->r) - d : d;
            unsigned long gi = 0, gj = 0;
            double gv = 0;
            char *p = fgets(line, sizeof line, f) ? line : NULL, *end = NULL;
            if (p) {
                gi = strtoul(p, &end, 10);
                gj = end && *end == ',' ? strtoul(end + 1, &end, 10) : 0;
                if (values && end && *end == ',')
                    gv = strtod(end + 1, &end);
            }
            if (!p || gi != i || gj != j || (values && gv != v)) {
                fprintf(stderr, "cli_check: entry %llu: got \"%s\", want %zu,%zu%s%.17g\n", entries,
                        p ? strtok(line, "\n") : "(end of file)", i, j, values ? "," : "",
                        values ? v : 0.0);
                bad = 1;
            }
            entries++;
        }
    }
    if (!bad && fgets(line, sizeof line, f)) {
        fprintf(stderr, "cli_check: more entries than the list has: \"%s\"\n", strtok(line, "\n"));
        bad = 1;
    }
    fclose(f);
    free(sp);
    sc_io_spheres_free(&s);
    if (!bad)
        printf("%llu\n", entries);
    return bad;
}

/* ---- bad inputs ---------------------------------------------------------------------- */

static void put(const char *dir, const char *name, const void *data, size_t len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        fprintf(stderr, "cli_check: cannot write %s\n", path);
        exit(2);
    }
}

static void put_npy(const char *dir, const char *name, const char *dict, const void *data,
                    size_t len) {
    unsigned char b[4096];
    size_t dl = strlen(dict);
    size_t total = (10 + dl + 1 + 63) / 64 * 64;
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (unsigned char)(total - 10);
    b[9] = (unsigned char)((total - 10) >> 8);
    memcpy(b + 10, dict, dl);
    memset(b + 10 + dl, ' ', total - 10 - dl);
    b[total - 1] = '\n';
    memcpy(b + total, data, len);
    put(dir, name, b, total + len);
}

static int cmd_mkbad(int argc, char **argv) {
    if (argc < 3)
        return 2;
    const char *d = argv[2];
    double v[20];
    for (int k = 0; k < 20; k++)
        v[k] = k % 4 == 3 ? 1.0 : (double)k;
    float f[20];
    for (int k = 0; k < 20; k++)
        f[k] = (float)v[k];

#define CASE(name, code, place, args) printf("%s\t%d\t%s\t%s\n", name, code, place, args)
    CASE("missing.txt", 3, "cannot open", "");
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/adir.txt", d);
    mkdir(sub, 0777);
    CASE("adir.txt", 3, "directory", "");
    put(d, "token.txt", "1 2 3 4\r\n5 6 x 8\r\n", 18);
    CASE("token.txt", 4, "line 2", "");
    put(d, "count.txt", "1 2 3 4 5\n", 10);
    CASE("count.txt", 4, "line 1", "");
    put(d, "nan.txt", "1 2 3 nan\n", 10);
    CASE("nan.txt", 5, "line 1", "");
    put(d, "inf.csv", "# x,y,z,r\n1,2,inf,4\n", 20);
    CASE("inf.csv", 5, "line 2", "");
    put(d, "negr.dat", "1\r\n2\r\n3\r\n-4\r\n", 13);
    CASE("negr.dat", 5, "line 4", "");
    put(d, "range.txt", "1e151 0 0 1\n", 12);
    CASE("range.txt", 5, "line 1", "");
    put(d, "count2d.txt", "1 2 3\n4 5 6\n7\n", 14);
    CASE("count2d.txt", 4, "line 3", "--2d");
    put(d, "trunc.f64", v, 33);
    CASE("trunc.f64", 4, "byte 32", "");
    put(d, "trunc.bin", f, 18);
    CASE("trunc.bin", 4, "byte 16", "--format f32");
    put_npy(d, "trunc.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 4), }", v, 96);
    CASE("trunc.npy", 4, "byte 224", "");
    put(d, "magic.npy", "\x93NUMPX\x01\x00\x06\x00{}    ", 16);
    CASE("magic.npy", 4, "byte 0", "");
    put_npy(d, "dtype.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (5, 4), }", v, 160);
    CASE("dtype.npy", 4, "byte 20", "");
    put_npy(d, "fortran.npy", "{'descr': '<f8', 'fortran_order': True, 'shape': (5, 4), }", v, 160);
    CASE("fortran.npy", 4, "byte 44", "");
    put_npy(d, "shape.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (20,), }", v, 160);
    CASE("shape.npy", 4, "byte 60", "");
    put_npy(d, "dict.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 4), 'x': 1}", v,
            160);
    CASE("dict.npy", 4, "byte 68", "");
    put_npy(d, "toomany.npy",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4), }", v, 160);
    CASE("toomany.npy", 5, "byte 60", "");
    double vn[20];
    memcpy(vn, v, sizeof v);
    vn[6] = NAN;
    put_npy(d, "nan.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 4), }", vn, 160);
    CASE("nan.npy", 5, "byte 176", "");
    float fn[20];
    memcpy(fn, f, sizeof f);
    fn[7] = -2.0f;
    put(d, "negr.f32", fn, sizeof fn);
    CASE("negr.f32", 5, "byte 28", "");
    put(d, "range.bin", vn, 0);
    vn[6] = 3e200;
    put(d, "range.bin", vn, sizeof vn);
    CASE("range.bin", 5, "byte 48", "--format f64");
#undef CASE
    return 0;
}

/* ---- the seed's layout ------------------------------------------------------------ */

static int cmd_mkseed(int argc, char **argv) {
    if (argc < 5)
        return 2;
    size_t n = (size_t)strtoull(argv[3], NULL, 10);
    uint64_t s = strtoull(argv[4], NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
    FILE *f = fopen(argv[2], "wb");
    if (f == NULL)
        return 1;
    for (size_t k = 0; k < 4 * n; k++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        double u = (double)(s >> 11) / 9007199254740992.0;
        /* like spheres.dat: a box of 1000 (denser than the seed's 10000, so
         * there are pairs), radii up to 5, 4 to 8 decimals */
        if (k % 4 == 3)
            fprintf(f, "%.6f\r\n", u * 5.0);
        else
            fprintf(f, "%.*f\r\n", 4 + (int)(k % 5), u * 1000.0);
    }
    return fclose(f) == 0 ? 0 : 1;
}

/* ---- two sets ---------------------------------------------------------------------- */

/* Reads the next "i,j" line of a pair file: 0 when it is (i, j), counted
 * into *k and *sum; else 1, with the difference on stderr. */
static int next_pair_is(FILE *f, size_t i, size_t j, unsigned long long *k, uint64_t *sum) {
    char line[256];
    unsigned long gi = 0, gj = 0;
    char *p = fgets(line, sizeof line, f) ? line : NULL, *end = NULL;
    if (p) {
        gi = strtoul(p, &end, 10);
        gj = end && *end == ',' ? strtoul(end + 1, &end, 10) : 0;
    }
    if (!p || gi != i || gj != j) {
        fprintf(stderr, "cli_check: pair %llu: got \"%s\", want %zu,%zu\n", *k,
                p ? strtok(line, "\n") : "(end of file)", i, j);
        return 1;
    }
    *sum += sc_oracle_mix((uint32_t)i, (uint32_t)j);
    (*k)++;
    return 0;
}

/* 0 when the pair file has no line left after the oracle's k pairs. */
static int no_more_pairs(FILE *f, unsigned long long k) {
    char line[256];
    if (!fgets(line, sizeof line, f))
        return 0;
    fprintf(stderr, "cli_check: more pairs than the oracle's %llu: \"%s\"\n", k,
            strtok(line, "\n"));
    return 1;
}

static sc_oracle_sphere *load_set(const char *path, int dims, size_t *n) {
    sc_io_read_options o = {SC_IO_FORMAT_AUTO, dims, 0, 0, NULL, NULL, 0, 0, 0, 0, 0};
    sc_io_spheres s;
    char err[1024];
    if (sc_io_read_spheres(path, &o, &s, err, sizeof err) != SC_IO_OK) {
        fprintf(stderr, "cli_check: %s\n", err);
        return NULL;
    }
    sc_oracle_sphere *sp = sc_oracle_load(s.n, s.dims, s.dtype, s.rows);
    *n = s.n;
    sc_io_spheres_free(&s);
    return sp;
}

/* cli_check between A B PAIRS.csv: the file must hold exactly the pairs
 * (i in A, j in B) of a double loop over A x B, in (i, j) order (the CLI's
 * --sorted). Prints the pair count and the checksum. */
static int cmd_between(int argc, char **argv) {
    if (argc < 5)
        return 2;
    size_t na = 0, nb = 0;
    sc_oracle_sphere *a = load_set(argv[2], 0, &na), *b = load_set(argv[3], 0, &nb);
    FILE *f = fopen(argv[4], "r");
    if (!a || !b || !f) {
        fprintf(stderr, "cli_check: cannot read the sets or %s\n", argv[4]);
        return 1;
    }
    unsigned long long k = 0;
    uint64_t sum = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            if (!sc_oracle_hits(&a[i], &b[j]))
                continue;
            if (next_pair_is(f, i, j, &k, &sum) != 0)
                return 1;
        }
    if (no_more_pairs(f, k) != 0)
        return 1;
    fclose(f);
    free(a);
    free(b);
    printf("%llu 0x%016llx\n", k, (unsigned long long)sum);
    return 0;
}

/* ---- periodic boxes ------------------------------------------------------------------- */

/* The header's wrap(x) for a periodic axis [lo, hi). */
static double wrap_into(double x, double lo, double hi) {
    const double L = hi - lo;
    if (x >= lo && x < hi)
        return x;
    const double t = x - floor((x - lo) / L) * L;
    return t < lo || t >= hi ? lo : t;
}

/* Wraps the centres of s[0..n) on the periodic axes. */
static void wrap_set(sc_oracle_sphere *s, size_t n, const int per[3], const double lo[3],
                     const double hi[3]) {
    for (size_t i = 0; i < n; i++) {
        double *c[3] = {&s[i].x, &s[i].y, &s[i].z};
        for (int a = 0; a < 3; a++)
            if (per[a])
                *c[a] = wrap_into(*c[a], lo[a], hi[a]);
    }
}

/* cli_check periodic INPUT SPEC PAIRS.csv [DIMS [B]]: the file must hold
 * exactly the pairs (i, j), i < j, in (i, j) order, that the header's
 * periodic expression accepts, SPEC being the CLI's --box text (one entry
 * for every axis or one per axis: L, LO:HI or -); with B, the pairs (i in
 * INPUT, j in B) of the double loop over both sets (DIMS 0: the files'
 * own). Prints the pair count and the checksum. */
static int cmd_periodic(int argc, char **argv) {
    if (argc < 5)
        return 2;
    size_t n = 0, nb = 0;
    const int dims = argc > 5 ? atoi(argv[5]) : 0;
    sc_oracle_sphere *s = load_set(argv[2], dims, &n);
    sc_oracle_sphere *sb = argc > 6 ? load_set(argv[6], dims, &nb) : NULL;
    FILE *f = fopen(argv[4], "r");
    int per[3] = {0, 0, 0}, axes = 0;
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (const char *p = argv[3]; axes < 3; axes++) {
        if (!(p[0] == '-' && (p[1] == ',' || p[1] == '\0'))) { /* "-" alone: open */
            char *end = NULL;
            double a = strtod(p, &end), b = a;
            if (*end == ':')
                b = strtod(end + 1, &end);
            else
                a = 0.0;
            per[axes] = 1;
            lo[axes] = a;
            hi[axes] = b;
            p = end;
        } else {
            p++;
        }
        if (*p != ',')
            break;
        p++;
    }
    if (axes == 0)
        for (int k = 1; k < 3; k++) {
            per[k] = per[0];
            lo[k] = lo[0];
            hi[k] = hi[0];
        }
    if (!s || !f || (argc > 6 && !sb)) {
        fprintf(stderr, "cli_check: cannot read %s, %s or B\n", argv[2], argv[4]);
        return 1;
    }
    wrap_set(s, n, per, lo, hi);
    if (sb)
        wrap_set(sb, nb, per, lo, hi);
    const sc_oracle_sphere *t = sb ? sb : s;
    const size_t nt = sb ? nb : n;
    unsigned long long k = 0;
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = sb ? 0 : i + 1; j < nt; j++) {
            const double ci[3] = {s[i].x, s[i].y, s[i].z}, cj[3] = {t[j].x, t[j].y, t[j].z};
            double d[3];
            for (int a = 0; a < 3; a++) {
                const double L = hi[a] - lo[a];
                d[a] = cj[a] - ci[a];
                if (per[a] && d[a] > 0.5 * L)
                    d[a] = d[a] - L;
                else if (per[a] && d[a] < -0.5 * L)
                    d[a] = d[a] + L;
            }
            const double d2 = (d[0] * d[0] + d[1] * d[1]) + d[2] * d[2], r = s[i].r + t[j].r;
            if (!(d2 <= r * r))
                continue;
            if (next_pair_is(f, i, j, &k, &sum) != 0)
                return 1;
        }
    if (no_more_pairs(f, k) != 0)
        return 1;
    fclose(f);
    free(s);
    free(sb);
    printf("%llu 0x%016llx\n", k, (unsigned long long)sum);
    return 0;
}

/* ---- HDF5 ------------------------------------------------------------------------------ */

#ifdef SC_HAVE_HDF5
#include <hdf5.h>
#endif

/* cli_check mkh5 OUT.h5 INPUT [ROW COL VALUE]: writes INPUT's spheres as
 * the (N, 4) float64 dataset /particles/spheres of a new HDF5 file, with
 * VALUE (strtod: "nan" too) planted at ROW, COL if given; exit 77 when
 * this build has no HDF5. */
static int cmd_mkh5(int argc, char **argv) {
    if (argc < 4)
        return 2;
#ifndef SC_HAVE_HDF5
    (void)argv;
    return 77;
#else
    size_t n = 0;
    sc_oracle_sphere *s = load_set(argv[3], 0, &n);
    if (!s)
        return 1;
    double *rows = malloc((n ? n : 1) * 4 * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        rows[4 * i] = s[i].x;
        rows[4 * i + 1] = s[i].y;
        rows[4 * i + 2] = s[i].z;
        rows[4 * i + 3] = s[i].r;
    }
    if (argc >= 7) {
        const size_t row = strtoull(argv[4], NULL, 10), col = strtoull(argv[5], NULL, 10);
        if (row >= n || col >= 4) {
            free(rows);
            free(s);
            return 2;
        }
        rows[4 * row + col] = strtod(argv[6], NULL);
    }
    const hsize_t dims[2] = {n, 4};
    hid_t file = H5Fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(file, "/particles/spheres", H5T_IEEE_F64LE, space, lcpl, H5P_DEFAULT,
                         H5P_DEFAULT);
    const int ok =
        d >= 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0;
    H5Dclose(d);
    H5Sclose(space);
    H5Pclose(lcpl);
    H5Fclose(file);
    free(rows);
    free(s);
    return ok ? 0 : 1;
#endif
}

/* options COMMAND [aliases]: the option names the tool's table
 * (tools/cli/options.c) gives COMMAND, one a line; with "aliases", their
 * other spellings. */
static int cmd_options(int argc, char **argv) {
    static const struct {
        const char *name;
        unsigned flag;
    } commands[] = {{"pairs", CLI_PAIRS},
                    {"neighbors", CLI_NEIGHBORS},
                    {"gen", CLI_GEN},
                    {"simulate", CLI_SIMULATE},
                    {"info", CLI_INFO}};
    if (argc != 3 && !(argc == 4 && strcmp(argv[3], "aliases") == 0))
        return 2;
    const int aliases = argc == 4;
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
        if (strcmp(argv[2], commands[c].name) != 0)
            continue;
        for (const cli_option *o = cli_options; o->name; o++)
            if (o->commands & commands[c].flag && (!aliases || o->alias))
                printf("%s\n", aliases ? o->alias : o->name);
        return 0;
    }
    fprintf(stderr, "cli_check options: unknown command %s\n", argv[2]);
    return 2;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(
            stderr,
            "usage: cli_check "
            "json|json-get|pairs|nbrlist|between|periodic|mkh5|oracle|mkbad|mkseed|options ...\n");
        return 2;
    }
    if (strcmp(argv[1], "json") == 0)
        return cmd_json(argc, argv, 0);
    if (strcmp(argv[1], "json-get") == 0)
        return cmd_json(argc, argv, 1);
    if (strcmp(argv[1], "pairs") == 0)
        return cmd_pairs(argc, argv);
    if (strcmp(argv[1], "nbrlist") == 0)
        return cmd_nbrlist(argc, argv);
    if (strcmp(argv[1], "between") == 0)
        return cmd_between(argc, argv);
    if (strcmp(argv[1], "periodic") == 0)
        return cmd_periodic(argc, argv);
    if (strcmp(argv[1], "mkh5") == 0)
        return cmd_mkh5(argc, argv);
    if (strcmp(argv[1], "oracle") == 0)
        return cmd_oracle(argc, argv);
    if (strcmp(argv[1], "mkbad") == 0)
        return cmd_mkbad(argc, argv);
    if (strcmp(argv[1], "mkseed") == 0)
        return cmd_mkseed(argc, argv);
    if (strcmp(argv[1], "options") == 0)
        return cmd_options(argc, argv);
    fprintf(stderr, "cli_check: unknown command %s\n", argv[1]);
    return 2;
}
