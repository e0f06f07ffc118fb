/*
 * io_hdf5_module.h: the HDF5 reading module (spherecollide-hdf5.so,
 * io_hdf5_module.c). libhdf5 brings about forty shared libraries with it
 * (curl, TLS, Kerberos, LDAP); linked into the tool, loading them cost
 * every run more than reading a small file takes
 * (docs/decisions/0003-stage-tuning.md). So the calls into HDF5 live in a
 * module that io_hdf5.c loads the first time an
 * HDF5 file is read, as simulate's pictures module is (sim_frames.h).
 *
 * The module exports one function, SC_HDF5_ENTRY, that returns this table.
 */
#ifndef SC_IO_HDF5_MODULE_H
#define SC_IO_HDF5_MODULE_H

#include "sc_io.h"

#include <stddef.h>

typedef struct sc_hdf5_api {
    /* Opens path read-only (HDF5's own error printing off): a handle, or
     * NULL when it is not an HDF5 file. */
    void *(*open)(const char *path);
    /* Dataset `name` of rank want_rank (1 or 2) as doubles (HDF5's own
     * conversion) in a new malloc'd array: of its *total rows, with slices
     * > 1 only [total slice / slices, total (slice + 1) / slices) (a
     * hyperslab; *first the first of them), else all; *rows the rows read
     * and *cols the columns (1 for rank 1): SC_IO_OK, or a status and what
     * is wrong with the dataset in err ("not found", "rank 3, needs 2",
     * ...), which the caller prefixes with the file and dataset. */
    sc_io_status (*read)(void *file, const char *name, int want_rank, size_t slice, size_t slices,
                         double **data, size_t *first, size_t *rows, size_t *total, size_t *cols,
                         char *err, size_t errcap);
    void (*close)(void *file);
} sc_hdf5_api;

#define SC_HDF5_ENTRY "sc_hdf5_module"
#define SC_HDF5_MODULE "spherecollide-hdf5.so"

#endif /* SC_IO_HDF5_MODULE_H */
