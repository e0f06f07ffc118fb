/*
 * fuzz_raw.c: the raw float32 / float64 reader: any length (whole rows or
 * a truncation error naming the byte), any alignment, any values.
 *
 * SPDX-License-Identifier: MIT
 */
#include "fuzz_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct bytes {
    uint8_t *p;
    size_t n;
    sc_dtype dtype;
    int dims;
} bytes;

static sc_io_status read_again(const sc_io_read_options *o, sc_io_spheres *s, char *err,
                               size_t errcap, void *user) {
    const bytes *b = user;
    io_file f = {b->p, b->n, NULL, 0, NULL};
    return io_read_raw("fuzz.bin", &f, b->dtype, b->dims, o, s, err, errcap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0)
        return 0;
    const unsigned flags = data[0];
    const sc_dtype dtype = flags & 1 ? SC_F32 : SC_F64;
    const int dims = flags & 2 ? 2 : 3;
    const size_t misalign = (flags >> 2) & 7; /* rows at any address */
    size--;
    uint8_t *buf = malloc(size + misalign + 1);
    memcpy(buf + misalign, data + 1, size);
    io_file f = {buf + misalign, size, NULL, 0, NULL};
    sc_io_read_options o = {dtype == SC_F32 ? SC_IO_FORMAT_F32 : SC_IO_FORMAT_F64,
                            dims,
                            0,
                            0,
                            NULL,
                            NULL,
                            0,
                            0,
                            0,
                            0,
                            0};
    sc_io_spheres s;
    memset(&s, 0, sizeof s);
    char err[512] = "";
    sc_io_status st = io_read_raw("fuzz.bin", &f, dtype, dims, &o, &s, err, sizeof err);
    double *vals = check_read(st, &s, err);
    bytes b = {buf + misalign, size, dtype, dims};
    check_deferred("fuzz.bin", st, err, o, read_again, &b);
    if (vals) {
        const size_t item = dtype == SC_F32 ? 4 : 8, cols = (size_t)dims + 1;
        if (s.n * cols * item != size)
            reader_fail("rows do not cover the input");
        for (size_t k = 0; k < s.n * cols; k++) { /* the bytes, as they were */
            double v;
            if (dtype == SC_F32) {
                float fv;
                memcpy(&fv, buf + misalign + k * 4, 4);
                v = fv;
            } else {
                memcpy(&v, buf + misalign + k * 8, 8);
            }
            if (memcmp(&v, &vals[k], sizeof v) != 0)
                reader_fail("a value differs from its bytes");
        }
        free(vals);
        sc_io_spheres_free(&s); /* frees an aligned copy; rows in place are buf's */
    }
    free(buf);
    return 0;
}
