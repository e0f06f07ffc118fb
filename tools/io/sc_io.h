/*
 * sc_io.h: sphere readers and pair writers for the spherecollide tool, its
 * tests and its benchmark.
 *
 * Depends on the engine only for the public header's types (sc_dtype and the
 * limits SC_MAX_SPHERES, SC_MAX_ABS_VALUE); it links without the library.
 *
 * Reading: .npy (N,4) x,y,z,r or (N,3) x,y,r, '<f4' or '<f8', C order,
 * versions 1.0/2.0/3.0; text (numbers separated by whitespace or commas, any
 * line ending, '#' comments); raw little-endian float32 or float64 rows. The
 * reader validates every value (finite, radius >= 0, |v| <= SC_MAX_ABS_VALUE),
 * so a successful read is a batch the library accepts; a caller that hands
 * the rows to the library, which checks them again, may defer the binary
 * formats' check (sc_io_read_options.defer_value_check, sc_io_check_spheres).
 *
 * Writing: pair writers stream (i, j) uint32 pairs to .npy (K x 2 '<u4'),
 * .csv ("i,j" lines) or raw binary through one fixed 1 MiB buffer
 * (SC_IO_BUFFER_BYTES), whatever K is, or the atoms' own int64 ids
 * (sc_pair_writer_use_ids). Every writer, and the sphere writer,
 * writes to a temporary file in the destination's directory and renames it
 * onto the requested name only on success.
 *
 * Errors: every fallible call returns a category (sc_io_status) and writes ONE
 * line into the caller's buffer naming the file and the place: "line L" and
 * the offending token (quoted) for text, "byte B" for binary and .npy.
 *
 * Thread safety: all functions are reentrant; a reader result or a writer is
 * used by one thread at a time. Text parsing uses strtod and assumes the
 * "C" LC_NUMERIC locale (the default of a program that never calls setlocale).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SC_IO_H
#define SC_IO_H

#include <stddef.h>
#include <stdint.h>

#include "spherecollide.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Size of the one output buffer a writer holds: its whole memory bound. */
#define SC_IO_BUFFER_BYTES ((size_t)1 << 20)

/** Result categories. sc_io_exit_code maps them onto the CLI's exit codes. */
typedef enum sc_io_status {
    SC_IO_OK = 0,
    SC_IO_ERR_ARGUMENT,  /**< bad format argument or option (exit 2) */
    SC_IO_ERR_OPEN,      /**< missing or unreadable input file (exit 3) */
    SC_IO_ERR_SYNTAX,    /**< non-numeric token in text (exit 4) */
    SC_IO_ERR_COUNT,     /**< number count not a multiple of 4 (or 3) (exit 4) */
    SC_IO_ERR_TRUNCATED, /**< binary size not whole rows, npy data short (exit 4) */
    SC_IO_ERR_HEADER, /**< malformed .npy magic, version or header dict, or LAMMPS dump items (exit 4) */
    SC_IO_ERR_DTYPE,           /**< .npy dtype other than '<f4' / '<f8' (exit 4) */
    SC_IO_ERR_ORDER,           /**< .npy fortran_order True (exit 4) */
    SC_IO_ERR_SHAPE,           /**< .npy shape other than (N,4) / (N,3) (exit 4) */
    SC_IO_ERR_NON_FINITE,      /**< NaN or infinity (exit 5) */
    SC_IO_ERR_NEGATIVE_RADIUS, /**< radius < 0 (exit 5) */
    SC_IO_ERR_OUT_OF_RANGE,    /**< |value| > SC_MAX_ABS_VALUE (exit 5) */
    SC_IO_ERR_TOO_MANY,        /**< more than the allowed spheres (exit 5) */
    SC_IO_ERR_WRITE,           /**< output cannot be created or written (exit 6) */
    SC_IO_ERR_NOMEM,           /**< allocation failed (exit 7) */
    SC_IO_ERR_INTERNAL,        /**< a bug or inconsistent call (exit 1) */
    SC_IO_ERR_DUPLICATE_ID     /**< two atoms with one id (read_options.ids) (exit 5) */
} sc_io_status;

/** Short English name of a status ("non-finite value", ...). Thread-safe. */
const char *sc_io_status_name(sc_io_status status);

/** The spherecollide CLI exit code for a status: 0 ok, 1 internal, 2 usage,
 *  3 cannot open/read input, 4 malformed input, 5 invalid values,
 *  6 cannot write output, 7 out of memory. Thread-safe. */
int sc_io_exit_code(sc_io_status status);

/** File formats, for input spheres and output pairs. */
typedef enum sc_io_format {
    SC_IO_FORMAT_AUTO = 0, /**< from the file name's extension */
    SC_IO_FORMAT_NPY,      /**< NumPy .npy */
    SC_IO_FORMAT_TEXT,     /**< text numbers (spheres); "i,j" lines are CSV */
    SC_IO_FORMAT_CSV,      /**< pairs: "i,j\n" lines; spheres: text with commas */
    SC_IO_FORMAT_F32,      /**< spheres: raw little-endian float32 rows */
    SC_IO_FORMAT_F64,      /**< spheres: raw little-endian float64 rows */
    SC_IO_FORMAT_BIN,      /**< pairs: raw little-endian uint32 (i, j) */
    SC_IO_FORMAT_LAMMPS,   /**< spheres: a LAMMPS text dump's snapshot (frame) */
    SC_IO_FORMAT_XYZ,      /**< spheres: an (extended) XYZ file's frame */
    SC_IO_FORMAT_HDF5      /**< spheres: HDF5 datasets (read_options.dataset) */
} sc_io_format;

/** Parses a format name: npy, txt/text, csv, f32, f64, bin. Returns 0 and sets
 *  *out, or -1 for an unknown name. Thread-safe. */
int sc_io_format_parse(const char *name, sc_io_format *out);
/** Name of a format ("npy", "text", "csv", "f32", "f64", "bin", "auto"). */
const char *sc_io_format_name(sc_io_format format);

/** The sphere input format a path implies: .npy -> NPY, .f32 -> F32,
 *  .f64 -> F64, .bin -> AUTO (ambiguous: needs an explicit f32 or f64),
 *  anything else (.txt, .dat, .csv, none) -> TEXT. Case-insensitive. */
sc_io_format sc_io_spheres_format_for_path(const char *path);
/** The pair output format a path implies: .npy -> NPY, .csv -> CSV,
 *  .bin -> BIN, anything else -> AUTO (needs an explicit format). */
sc_io_format sc_io_pairs_format_for_path(const char *path);

/* ======================================================================== */
/* Reading spheres                                                          */
/* ======================================================================== */

typedef struct sc_io_read_options {
    sc_io_format format;     /**< AUTO: by extension (sc_io_spheres_format_for_path) */
    int dims;                /**< 0: 3 for text/raw, from the shape for .npy;
                              2: circles (x, y, r); 3: spheres (x, y, z, r) */
    size_t max_spheres;      /**< 0: SC_MAX_SPHERES; smaller values serve tests */
    int defer_value_check;   /**< 1: .npy and raw rows are not checked for
                              non-finite, out-of-range values or negative
                              radii here (text always is). The rows go
                              straight from the mapping to the caller, which
                              must check them: the library does on every
                              query (its status says so), and then
                              sc_io_check_spheres words the file's error.
                              Saves a pass over the file that would be the
                              first touch of every page. */
    const char *radius;      /**< LAMMPS dumps and XYZ files without a radius
                              (or diameter) column: "R" (every atom) or
                              "T=R,T=R,..." (by the type column's or the
                              element's text); NULL: none */
    const char *dataset;     /**< HDF5: "PATH" (a 2-D dataset, columns x y z r
                              = 0 1 2 3), "PATH:X,Y,Z,R" (its columns), or
                              "PX,PY,PZ,PR" (one 1-D dataset per column);
                              x y r for circles */
    long frame;              /**< LAMMPS dumps and XYZ files (trajectories):
                              the snapshot read, 0 the first; negative
                              counts from the end (-1: the last). Past the
                              snapshots there are: SC_IO_ERR_ARGUMENT.
                              Other formats: must be 0 (else
                              SC_IO_ERR_ARGUMENT) */
    int threads;             /**< text, LAMMPS dumps and XYZ files: threads
                              for the lines once their layout is known
                              (from text_split_bytes on); 0: one per
                              processor, 1: none */
    int huge_pages;          /**< text: 1 offers the parsed values' reservation
                              (from 2 MiB) to transparent huge pages, 0
                              keeps it in base pages; callers that link the
                              library pass sc_huge_pages() */
    size_t text_split_bytes; /**< text, LAMMPS dumps and XYZ files: the
                              least size of the lines left once their
                              layout is known that is read on several
                              threads; 0: 8 MiB (io_text.c says why);
                              tests pass less */
    int ids;                 /**< 1: also read each atom's own id into
                              sc_io_spheres.ids (a LAMMPS dump's id column,
                              an extended XYZ file's id property); every id
                              a whole number within int64 and no two alike
                              (else SC_IO_ERR_DUPLICATE_ID). A file
                              without ids: SC_IO_ERR_HEADER; other
                              formats: SC_IO_ERR_ARGUMENT */
} sc_io_read_options;

/** Spheres read from a file. rows holds n * (dims + 1) values of dtype, row
 *  by row, ready for sc_spheres_rows_f64 / sc_spheres_rows_f32. Text always
 *  gives SC_F64; .npy and raw keep their precision (float32 is not widened). */
typedef struct sc_io_spheres {
    size_t n;
    int dims;            /**< 3 (x, y, z, r) or 2 (x, y, r) */
    sc_dtype dtype;      /**< SC_F64 or SC_F32 */
    const void *rows;    /**< NULL when n == 0 */
    sc_io_format format; /**< the format that was read */
    int has_box;         /**< a LAMMPS dump's box bounds, or an extended XYZ
                              file's orthogonal Lattice, were read into box */
    sc_box box;          /**< its orthogonal box: lo, hi per axis, periodic
                              where the dump's boundary flag is pp (XYZ:
                              where pbc is T; all axes when pbc is absent) */
    const int64_t *ids;  /**< n ids when read_options.ids asked, else NULL */
    size_t first, total; /**< rows holds the file's rows [first, first + n) of
                              total: a slice (sc_io_read_spheres_slice),
                              else 0 and n */
    /* private: what sc_io_spheres_free releases */
    void *owned_;
    int64_t *owned_ids_;
    void *map_;
    size_t map_len_;
    size_t data_offset_; /* file offset of rows[0] (binary formats) */
    int unchecked_;      /* values not checked yet (defer_value_check) */
} sc_io_spheres;

/** Reads and validates a sphere file. On success returns SC_IO_OK and fills
 *  *out (release it with sc_io_spheres_free). On failure returns the category,
 *  leaves *out empty and writes one line "PATH: PLACE: problem" into err
 *  (if err != NULL and errcap > 0; truncated to errcap). opts may be NULL. */
sc_io_status sc_io_read_spheres(const char *path, const sc_io_read_options *opts,
                                sc_io_spheres *out, char *err, size_t errcap);

/** As sc_io_read_spheres, but of an HDF5 file's N rows only [N slice /
 *  slices, N (slice + 1) / slices) are read (an MPI rank its own share);
 *  out->first and out->total say which. Other formats read every row (a
 *  .npy or raw file is mapped, so a caller that takes a slice touches only
 *  its pages). slices 0 or 1: every row. */
sc_io_status sc_io_read_spheres_slice(const char *path, const sc_io_read_options *opts,
                                      size_t slice, size_t slices, sc_io_spheres *out, char *err,
                                      size_t errcap);

/** Checks the values of spheres read with defer_value_check as the reader
 *  would have, and words the first bad one as it would have ("PATH: byte B:
 *  ... (sphere K, column C)"), with the same status. SC_IO_OK when every
 *  value is good or the reader checked them already. */
sc_io_status sc_io_check_spheres(const char *path, const sc_io_spheres *spheres, char *err,
                                 size_t errcap);

/** Releases what sc_io_read_spheres holds; accepts a zeroed or freed struct. */
void sc_io_spheres_free(sc_io_spheres *spheres);

/* ======================================================================== */
/* Writing spheres (spherecollide gen)                                      */
/* ======================================================================== */

/** Writes n spheres given as double rows (dims + 1 values each) to path:
 *  NPY ('<f8', shape (n, dims+1)), TEXT (one sphere per line, "%.17g"
 *  separated by spaces), CSV (the same with commas), F64 or F32 (raw
 *  little-endian; F32 rounds to nearest). AUTO picks by extension as the
 *  reader does (a .bin name needs an explicit F32 or F64). Temporary file +
 *  rename: on failure nothing is left under path. */
sc_io_status sc_io_write_spheres(const char *path, sc_io_format format, size_t n, int dims,
                                 const double *rows, char *err, size_t errcap);

/* ======================================================================== */
/* Streaming pair writers                                                   */
/* ======================================================================== */

typedef struct sc_pair_writer sc_pair_writer;

/** Checks, without creating anything, that an output could be created at
 *  path: not a directory, not an existing read-only file, and its directory
 *  exists and is writable. SC_IO_OK or SC_IO_ERR_WRITE with the path named.
 *  (The writers check again when they open; this lets a tool fail before a
 *  long read.) */
sc_io_status sc_io_check_writable(const char *path, char *err, size_t errcap);

/** Opens a pair writer on a temporary file beside path (".NAME.tmp.PID.K" in
 *  path's directory). format: NPY, CSV, BIN, or AUTO for the extension
 *  (sc_io_pairs_format_for_path; AUTO with another extension is
 *  SC_IO_ERR_ARGUMENT). n is the sphere count, used to check indices.
 *  An unwritable path (missing directory, no permission, a directory) is
 *  SC_IO_ERR_WRITE with the path named. *out is NULL on failure. */
sc_io_status sc_pair_writer_open(const char *path, sc_io_format format, size_t n,
                                 sc_pair_writer **out, char *err, size_t errcap);

/** Appends count pairs (pairs[2k], pairs[2k+1]). Memory stays bounded by the
 *  writer's one buffer (SC_IO_BUFFER_BYTES). On failure the writer must still
 *  be aborted. */
sc_io_status sc_pair_writer_write(sc_pair_writer *w, const uint32_t *pairs, size_t count, char *err,
                                  size_t errcap);

/** Writes each pair's ids instead of its row numbers: (ids_i[i], ids_j[j]);
 *  ids_j is the second set's for a two-set writer (ignored otherwise). One
 *  set's pairs are written with the smaller id first. The files hold int64:
 *  .npy '<i8' (K x 2), raw little-endian int64, or decimal CSV. Call before
 *  the first pair; the arrays must outlive the writer. */
sc_io_status sc_pair_writer_use_ids(sc_pair_writer *w, const int64_t *ids_i, const int64_t *ids_j,
                                    char *err, size_t errcap);
/** Non-zero when the writer is .npy on a stream (standard output, a FIFO, a
 *  device): the header holds the shape and cannot be rewritten, so the caller
 *  must count the pairs first and call sc_pair_writer_declare_total before
 *  the first write. */
int sc_pair_writer_needs_total(const sc_pair_writer *w);
/** Writes the .npy header for `total` pairs (see sc_pair_writer_needs_total);
 *  finish() checks that exactly that many were written. */
sc_io_status sc_pair_writer_declare_total(sc_pair_writer *w, uint64_t total, char *err,
                                          size_t errcap);

/** The bytes of the .npy header the pair writer gives `total` pairs of row
 *  numbers (K x 2 '<u4'): SC_IO_PAIRS_NPY_HEADER bytes, for a writer of its
 *  own (spherecollide-mpi writes each rank's share at its offset after it). */
#define SC_IO_PAIRS_NPY_HEADER 128
void sc_io_pairs_npy_header(unsigned char out[SC_IO_PAIRS_NPY_HEADER], uint64_t total);

/** A file of any bytes, written as the pair writers write theirs: to a
 *  temporary file beside path, renamed onto it by commit (standard output,
 *  FIFOs and devices directly), removed by discard, by a failed commit and
 *  by sc_io_remove_temporaries. An existing file at path is untouched until
 *  commit. */
typedef struct sc_file_writer sc_file_writer;
sc_io_status sc_file_writer_open(const char *path, sc_file_writer **out, char *err, size_t errcap);
sc_io_status sc_file_writer_put(sc_file_writer *w, const void *data, size_t len, char *err,
                                size_t errcap);
/** Flushes and renames; frees w whatever the outcome. */
sc_io_status sc_file_writer_commit(sc_file_writer *w, char *err, size_t errcap);
/** Removes the temporary file and frees w (NULL: nothing). */
void sc_file_writer_discard(sc_file_writer *w);

/** Removes every temporary output file this process has open (unlink only:
 *  async-signal-safe). A tool's handler for fatal signals calls it, so an
 *  interrupted run leaves nothing behind. */
void sc_io_remove_temporaries(void);

/** Opens a pair writer for two sets' pairs (i, j): i < na indexes the
 *  first set, j < nb the second, in any order. Otherwise a pair writer. */
sc_io_status sc_between_writer_open(const char *path, sc_io_format format, size_t na, size_t nb,
                                    sc_pair_writer **out, char *err, size_t errcap);

/** Opens a writer for a neighbour list (the same files as the pair writer):
 *  entries (row, neighbour) with row != neighbour, both < n, in the order
 *  given. with_values adds a third column, written only as csv
 *  ("i,j,value" lines, the shortest text that reads back as the same
 *  double); another format with values is SC_IO_ERR_ARGUMENT. Finished or
 *  aborted like a pair writer. */
sc_io_status sc_list_writer_open(const char *path, sc_io_format format, size_t n, int with_values,
                                 sc_pair_writer **out, char *err, size_t errcap);
/** Appends one row's entries: (row, nbr[k]) with values[k] when the writer
 *  has values. */
sc_io_status sc_list_writer_row(sc_pair_writer *w, uint32_t row, const uint32_t *nbr,
                                const double *values, size_t count, char *err, size_t errcap);

/** Pairs written so far. */
uint64_t sc_pair_writer_count(const sc_pair_writer *w);

/** The temporary file's path, or NULL when the output is written directly
 *  (standard output, a FIFO, a device). The string lives as long as the
 *  writer. */
const char *sc_pair_writer_temp_path(const sc_pair_writer *w);

/** Finishes: checks that total equals the pairs written, rewrites the .npy
 *  header with the final shape, flushes, closes and renames the temporary
 *  file onto the requested path. Frees the writer in every case; on failure
 *  the temporary file is removed and nothing is left under path. */
sc_io_status sc_pair_writer_finish(sc_pair_writer *w, uint64_t total, char *err, size_t errcap);

/** Abandons the output: closes and removes the temporary file, frees the
 *  writer. Accepts NULL. */
void sc_pair_writer_abort(sc_pair_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* SC_IO_H */
