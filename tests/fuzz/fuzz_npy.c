/*
 * fuzz_npy.c: the .npy reader on arbitrary bytes (headers, versions, dtypes,
 * shapes, truncation); a successful read holds valid values only, read in
 * place or from an aligned copy, never past the input.
 *
 * SPDX-License-Identifier: MIT
 */
#include "fuzz_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct bytes {
    uint8_t *p;
    size_t n;
} bytes;

static sc_io_status read_again(const sc_io_read_options *o, sc_io_spheres *s, char *err,
                               size_t errcap, void *user) {
    const bytes *b = user;
    io_file f = {b->p, b->n, NULL, 0, NULL};
    return io_read_npy("fuzz.npy", &f, o, s, err, errcap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* an exact heap copy: the reader must not read past it */
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    io_file f = {copy, size, NULL, 0, NULL};
    sc_io_read_options o = {SC_IO_FORMAT_NPY, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0};
    sc_io_spheres s;
    memset(&s, 0, sizeof s);
    char err[512] = "";
    sc_io_status st = io_read_npy("fuzz.npy", &f, &o, &s, err, sizeof err);
    double *vals = check_read(st, &s, err);
    bytes b = {copy, size};
    check_deferred("fuzz.npy", st, err, o, read_again, &b);
    if (vals) {
        if ((const uint8_t *)s.rows >= copy && (const uint8_t *)s.rows < copy + size &&
            (const uint8_t *)s.rows + s.n * (size_t)(s.dims + 1) * (s.dtype == SC_F32 ? 4 : 8) >
                copy + size)
            reader_fail("rows in place run past the data");
        free(vals);
        sc_io_spheres_free(&s); /* frees an aligned copy; rows in place are the copy's */
    }
    free(copy);
    return 0;
}
