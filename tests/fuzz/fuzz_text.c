/*
 * fuzz_text.c: the text reader. Beyond "no crash, no leak, valid values":
 * where the input has no header line, the values read must be, bit for bit,
 * strtod of the fields a plain reference tokenizer finds (blank- or
 * comma-separated, '#' comments, any line ending).
 *
 * SPDX-License-Identifier: MIT
 */
#include "fuzz_readers.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reference: strtod over every field; -1 when some field is not a number
 * (a header line, or an input the reader must have refused). */
static long reference(const char *t, size_t size, double *out, size_t cap) {
    long count = 0;
    size_t k = 0;
    if (size >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0)
        k = 3;
    while (k < size) {
        char c = t[k];
        if (c == '#') {
            while (k < size && t[k] != '\n' && t[k] != '\r')
                k++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\n' || c == '\r' || c == ',') {
            k++;
            continue;
        }
        size_t b = k;
        while (k < size && !strchr(" \t\v\f\n\r,#", t[k]))
            k++;
        char *tok = malloc(k - b + 1);
        memcpy(tok, t + b, k - b);
        tok[k - b] = '\0';
        char *end;
        errno = 0;
        double v = strtod(tok, &end);
        int whole = *end == '\0' && end != tok && memchr(t + b, '\0', k - b) == NULL;
        free(tok);
        if (!whole)
            return -1;
        if ((size_t)count < cap)
            out[count] = v;
        count++;
    }
    return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 16)
        return 0;
    /* the first byte picks --2d, and a sphere limit of 1 to 64, which also
     * caps the values' reservation below a value per two bytes: the piece's
     * line ends must then say whether its values fit */
    const int dims = size > 0 && (data[0] & 1) ? 2 : 0;
    const size_t limit = size > 0 && (data[0] & 2) ? (size_t)(data[0] >> 2) + 1 : 0;
    if (size > 0) {
        data++;
        size--;
    }
    io_file f = {data, size, NULL, 0, NULL};
    sc_io_read_options o = {SC_IO_FORMAT_TEXT, dims, limit, 0, NULL, NULL, 0, 0, 0, 0, 0};
    sc_io_spheres s;
    memset(&s, 0, sizeof s);
    char err[512] = "";
    sc_io_status st = io_read_text("fuzz.txt", &f, &o, &s, err, sizeof err);
    double *vals = check_read(st, &s, err);
    if (vals) {
        if (limit && s.n > limit)
            reader_fail("more spheres than the limit");
        const size_t total = s.n * (size_t)(s.dims + 1);
        double *ref = malloc((size + 1) * sizeof *ref);
        long rc = reference((const char *)data, size, ref, size + 1);
        if (rc >= 0) { /* no header: the same numbers in the same order */
            if ((size_t)rc != total)
                reader_fail("value count differs from the reference tokenizer");
            for (size_t k = 0; k < total; k++)
                if (memcmp(&ref[k], &vals[k], sizeof(double)) != 0)
                    reader_fail("a value differs from strtod");
        }
        free(ref);
        free(vals);
        sc_io_spheres_free(&s);
    }
    return 0;
}
