/*
 * fuzz_particles.c: the particle formats' readers (io_lammps.c, io_xyz.c on io_particles.c). The
 * first byte picks --2d (bit 0), the caller's radius (bits 1-2: none, one
 * for every atom, by type number, by element), the reader (bit 3: a
 * LAMMPS dump or an XYZ file) and the snapshot (bits 4-5: the first, the
 * second, the last, the third); the rest is the file. Beyond "no crash, no
 * leak, valid values, a one-line message naming the input": the dimensions
 * asked for, and a box only where the file gives one (BOX BOUNDS, or an
 * extended XYZ Lattice), with lo <= hi on every axis.
 *
 * SPDX-License-Identifier: MIT
 */
#include "fuzz_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether the bytes hold `key` (lower case) in any case: the XYZ reader
 * matches the comment line's keys case-blind. */
static int has_key_caseless(const uint8_t *data, size_t size, const char *key) {
    const size_t n = strlen(key);
    for (size_t i = 0; i + n <= size; i++) {
        size_t k = 0;
        while (k < n && (data[i + k] | 0x20) == (unsigned char)key[k])
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 16)
        return 0;
    const unsigned flags = size > 0 ? data[0] : 0;
    if (size > 0) {
        data++;
        size--;
    }
    static const char *const radii[4] = {NULL, "0.5", "1=0.5,2=1.5", "Ar=2,He=0,O=0.7"};
    io_file f = {data, size, NULL, 0, NULL};
    static const long frames[4] = {0, 1, -1, 2}; /* bits 4-5: the snapshot read */
    sc_io_read_options o = {SC_IO_FORMAT_LAMMPS,
                            (flags & 1) ? 2 : 0,
                            0,
                            0,
                            radii[(flags >> 1) & 3],
                            NULL,
                            frames[(flags >> 4) & 3],
                            0,
                            0,
                            0,
                            0};
    sc_io_spheres s;
    memset(&s, 0, sizeof s);
    char err[512] = "";
    const int xyz = (flags >> 3) & 1;
    o.format = xyz ? SC_IO_FORMAT_XYZ : SC_IO_FORMAT_LAMMPS;
    sc_io_status st = xyz ? io_read_xyz("fuzz.xyz", &f, &o, &s, err, sizeof err)
                          : io_read_lammps("fuzz.dump", &f, &o, &s, err, sizeof err);
    double *vals = check_read(st, &s, err);
    if (vals) {
        if (!xyz && !memmem(data, size, "ITEM: NUMBER OF ATOMS", 21))
            reader_fail("a dump read without a NUMBER OF ATOMS item");
        if (s.dims != ((flags & 1) ? 2 : 3))
            reader_fail("dims other than asked");
        const int boxed = xyz ? has_key_caseless(data, size, "lattice=")
                              : memmem(data, size, "ITEM: BOX BOUNDS", 16) != NULL;
        if (s.has_box && !boxed)
            reader_fail("a box without BOX BOUNDS");
        for (int a = 0; a < 3 && s.has_box; a++)
            if (!(s.box.lo[a] <= s.box.hi[a]))
                reader_fail("box bounds out of order");
        free(vals);
        sc_io_spheres_free(&s);
    }
    return 0;
}
