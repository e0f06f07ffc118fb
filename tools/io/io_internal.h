/*
 * io_internal.h: what the files of the tool's I/O layer share (not part of
 * sc_io.h). One file per job:
 *   io_common.c        status names and exit codes, formats, one-line
 *                      messages, value validation, the reader entry point
 *   io_file.c          loading an input: mmap, read(), standard input
 *   io_raw.c           raw little-endian rows (and the in-place adoption of
 *                      binary rows that .npy shares)
 *   io_npy.c           the .npy reader and the .npy header writer
 *   io_text.c          the text reader and its exact number parser
 *   io_particles.c     the particle codes' text formats: LAMMPS dumps and
 *                      (extended) XYZ, one frame and its box
 *   io_hdf5.c          HDF5 datasets (with libhdf5-dev)
 *   io_output.c        where output goes: a temporary file renamed onto a
 *                      regular file, or straight to standard output, a FIFO
 *                      or a device; the temporaries a signal must remove
 *   io_write_spheres.c the sphere writer (spherecollide gen)
 *   io_write_pairs.c   the streaming pair writers
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SC_IO_INTERNAL_H
#define SC_IO_INTERNAL_H

#include "sc_io.h"

#include <stdint.h>
#include <sys/types.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SC_IO_BIG_ENDIAN 1
#else
#define SC_IO_BIG_ENDIAN 0
#endif

#define IO_HIDDEN __attribute__((visibility("hidden")))

/* ---- messages (io_common.c) ----------------------------------------------- */

/* Formats one message line into err (control characters become '?', so it
 * stays one line) and returns status. */
IO_HIDDEN sc_io_status io_fail(char *err, size_t errcap, sc_io_status status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A token quoted for a message: printable ASCII as is, other bytes \xHH, at
 * most about 40 characters. */
IO_HIDDEN const char *io_quote(const char *t, size_t len, char *buf, size_t cap);

/* A decimal token [b, e) to the correctly rounded double with fast_float
 * (io_number.cpp, built when libfast-float-dev is there): 0, or -1 when the
 * token is not taken whole or its value is not finite (the caller's own path
 * decides those). */
#ifdef __cplusplus
extern "C" {
#endif
IO_HIDDEN int io_parse_decimal(const char *b, const char *e, double *out);
/* The longest decimal at p (p < end) as fast_float reads it: returns the end
 * of the number, or NULL when none starts at p or its value is not finite.
 * The caller decides whether what follows ends the token. */
IO_HIDDEN const char *io_scan_decimal(const char *p, const char *end, double *out);
#ifdef __cplusplus
}
#endif
IO_HIDDEN const char *io_column_name(size_t column, int dims);
/* One token with strtod's semantics, exactly (io_text.c): 0, 1 when it is
 * not a number, 2 when it is a finite literal beyond the doubles. */
IO_HIDDEN int io_parse_number(const char *t, size_t len, double *out);
/* Line ends in [b, e), as the text reader counts lines: each '\n', and each
 * '\r' not followed by '\n' (a '\r' at e - 1 is one) (io_text.c). */
IO_HIDDEN size_t io_line_ends(const char *b, const char *e);
/* Text on several threads (io_text.c's lines, io_particles.c's atom rows):
 * pieces of at least IO_PIECE_MIN bytes, at most IO_PIECES_MAX of them, and
 * only from IO_SPLIT_MIN bytes of lines on (sc_io_read_options.
 * text_split_bytes; io_text.c says why). */
enum { IO_PIECE_MIN = 1 << 19, IO_SPLIT_MIN = 8 << 20, IO_PIECES_MAX = 64 };
IO_HIDDEN int io_str_ieq(const char *a, const char *b);
IO_HIDDEN const char *io_path_extension(const char *path);
/* How a path is named in messages: "standard input" / "standard output"
 * for "-", else the path itself. */
IO_HIDDEN const char *io_display_name(const char *path, int output);

/* ---- value validation (io_common.c) ----------------------------------------- */

typedef enum io_value_check {
    VALUE_OK = 0,
    VALUE_NON_FINITE,
    VALUE_OUT_OF_RANGE,
    VALUE_NEGATIVE_RADIUS
} io_value_check;

IO_HIDDEN io_value_check io_check_value(double v, int is_radius);
IO_HIDDEN sc_io_status io_value_status(io_value_check c);
IO_HIDDEN const char *io_value_problem(io_value_check c);
IO_HIDDEN size_t io_max_spheres(const sc_io_read_options *o);
/* Hands n rows of dims + 1 doubles (malloc'd; the result frees them) to out. */
IO_HIDDEN void io_give_rows(sc_io_spheres *out, double *rows, size_t n, int dims);

/* ---- input files (io_file.c) ---------------------------------------------- */

typedef struct io_file {
    const unsigned char *data;
    size_t size;
    void *map;
    size_t map_len;
    unsigned char *heap;
} io_file;

/* Maps a regular file, or reads whatever else it is (a pipe, standard input
 * for "-") into memory. */
IO_HIDDEN sc_io_status io_file_load(const char *path, io_file *f, char *err, size_t errcap);
IO_HIDDEN void io_file_release(io_file *f);

/* ---- binary rows (io_raw.c) ------------------------------------------------- */

IO_HIDDEN sc_io_status io_check_rows(const char *path, const void *rows, sc_dtype dtype, size_t n,
                                     int dims, size_t base, char *err, size_t errcap);
/* Gives out n rows of dtype at f->data + offset: in place when aligned and
 * little endian, else an aligned copy; validates every value. Takes the file
 * data over on success. */
IO_HIDDEN sc_io_status io_adopt_rows(io_file *f, size_t offset, size_t n, int dims, sc_dtype dtype,
                                     const sc_io_read_options *opts, sc_io_spheres *out,
                                     const char *path, char *err, size_t errcap);

/* ---- the three readers ---------------------------------------------------- */

IO_HIDDEN sc_io_status io_read_raw(const char *path, io_file *f, sc_dtype dtype, int dims,
                                   const sc_io_read_options *opts, sc_io_spheres *out, char *err,
                                   size_t errcap);
IO_HIDDEN sc_io_status io_read_npy(const char *path, io_file *f, const sc_io_read_options *opts,
                                   sc_io_spheres *out, char *err, size_t errcap);
IO_HIDDEN sc_io_status io_read_text(const char *path, const io_file *f,
                                    const sc_io_read_options *opts, sc_io_spheres *out, char *err,
                                    size_t errcap);
/* A snapshot of a LAMMPS text dump, opts->frame's (io_particles.c). */
IO_HIDDEN sc_io_status io_read_lammps(const char *path, const io_file *f,
                                      const sc_io_read_options *opts, sc_io_spheres *out, char *err,
                                      size_t errcap);
/* A frame of an (extended) XYZ file, opts->frame's (io_particles.c). */
IO_HIDDEN sc_io_status io_read_xyz(const char *path, const io_file *f,
                                   const sc_io_read_options *opts, sc_io_spheres *out, char *err,
                                   size_t errcap);
/* Spheres from an HDF5 file's datasets (io_hdf5.c; without libhdf5 at
 * build time, an error that says so). Reads the path itself. */
IO_HIDDEN sc_io_status io_read_hdf5(const char *path, const sc_io_read_options *opts, size_t slice,
                                    size_t slices, sc_io_spheres *out, char *err, size_t errcap);
/* Whether loaded data starts as a LAMMPS dump does ("ITEM:"). */
IO_HIDDEN int io_looks_lammps(const io_file *f);

/* ---- .npy headers written (io_npy.c) ---------------------------------------- */

/* Room for the longest shape (20 digits) with the total a multiple of 64. */
#define NPY_HEADER_BYTES 128
/* Version 1.0 header of exactly `total` bytes (a multiple of 64). */
IO_HIDDEN void io_npy_header(unsigned char *out, size_t total, const char *descr, uint64_t rows,
                             unsigned cols);
IO_HIDDEN void io_put_le32(unsigned char *b, uint32_t v);
IO_HIDDEN void io_put_le64(unsigned char *b, uint64_t v);

/* ---- output (io_output.c) ------------------------------------------------------ */

/* Where an output goes. A regular file (existing or new, reached through any
 * symlinks) is written as a temporary file in the target's directory and
 * renamed onto it on success, with the old file's mode kept; standard output
 * ("-"), a FIFO, a character device or a socket is written directly, as a
 * stream. One fixed buffer of SC_IO_BUFFER_BYTES either way. */
typedef struct io_sink {
    int fd;
    int direct;       /* no temporary file: writes reach the target at once */
    int seekable;     /* pwrite at `base` can rewrite what was written */
    off_t base;       /* offset of the sink's first byte in fd */
    const char *name; /* for messages (points into final_path or a literal) */
    char *final_path; /* the target, symlinks resolved (NULL for "-") */
    char *temp_path;  /* NULL when direct */
    int temp_slot;    /* slot in the signal-cleanup table, or -1 */
    int keep_mode;    /* an existing file's mode (and owner) to keep */
    mode_t mode;
    uid_t uid;
    gid_t gid;
    unsigned char *buf;
    size_t used;
    uint64_t written; /* bytes that reached write() successfully */
} io_sink;

IO_HIDDEN sc_io_status io_sink_open(io_sink *s, const char *path, char *err, size_t errcap);
IO_HIDDEN sc_io_status io_sink_flush(io_sink *s, char *err, size_t errcap);
/* Room for at least need (<= SC_IO_BUFFER_BYTES) more bytes in the buffer. */
IO_HIDDEN sc_io_status io_sink_reserve(io_sink *s, size_t need, char *err, size_t errcap);
IO_HIDDEN sc_io_status io_sink_put(io_sink *s, const void *data, size_t len, char *err,
                                   size_t errcap);
/* Rewrites len bytes at offset `at` from the sink's start (after a flush);
 * only when s->seekable. */
IO_HIDDEN sc_io_status io_sink_rewrite(io_sink *s, uint64_t at, const void *data, size_t len,
                                       char *err, size_t errcap);
/* Flushes and, for a temporary file, renames it onto the target; on any
 * failure discards. Always releases the sink. */
IO_HIDDEN sc_io_status io_sink_commit(io_sink *s, char *err, size_t errcap);
/* Closes and removes the temporary file (a direct output keeps what it got). */
IO_HIDDEN void io_sink_discard(io_sink *s);

#endif /* SC_IO_INTERNAL_H */
