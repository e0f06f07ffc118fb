/* _mpi.c: spherecollide.mpi's C half, libspherecollide_mpi on mpi4py's C
 * API (python3-mpi4py). The Python half (spherecollide/mpi.py) turns the
 * caller's arrays into C-contiguous float64 rows and uint64 ids; this file
 * takes their buffers, runs one collective call on a context made for it
 * (the library duplicates the communicator) with the GIL released, and
 * gives back this rank's pairs or the totals. Every rank gets the same
 * status, so every rank raises the same error with the same message. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <mpi4py/mpi4py.h>
#include <string.h>

#include "spherecollide_mpi.h"

/* One set as mpi.py passes it: rows (n, dims + 1) float64 as bytes-like,
 * ids uint64 or None. */
typedef struct set {
    Py_buffer rows, ids;
    int has_ids;
    sc_spheres view;
} set;

static int get_set(PyObject *rows, PyObject *ids, int dims, set *s) {
    memset(s, 0, sizeof *s);
    if (PyObject_GetBuffer(rows, &s->rows, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    size_t n = (size_t)s->rows.len / (sizeof(double) * (size_t)(dims + 1));
    s->view = sc_spheres_rows_f64(n, dims, (const double *)s->rows.buf);
    if (ids != Py_None) {
        if (PyObject_GetBuffer(ids, &s->ids, PyBUF_C_CONTIGUOUS) < 0)
            return -1;
        s->has_ids = 1;
    }
    return 0;
}

static void release_set(set *s) {
    if (s->rows.obj)
        PyBuffer_Release(&s->rows);
    if (s->has_ids)
        PyBuffer_Release(&s->ids);
}

static const uint64_t *ids_of(const set *s) {
    return s->has_ids ? (const uint64_t *)s->ids.buf : NULL;
}

/* run(comm, want_pairs, dims, a_rows, a_ids, b_rows_or_None, b_ids, layout,
 *     threads, box_or_None) -> (pairs_bytes_or_None, total, checksum)
 * box: ((lo0, lo1, lo2), (hi0, hi1, hi2), (p0, p1, p2)). */
static PyObject *mod_run(PyObject *m, PyObject *args) {
    (void)m;
    PyObject *comm_obj, *a_rows, *a_ids, *b_rows, *b_ids, *box;
    int want_pairs, dims, layout, threads;
    if (!PyArg_ParseTuple(args, "OpiOOOOiiO", &comm_obj, &want_pairs, &dims, &a_rows, &a_ids,
                          &b_rows, &b_ids, &layout, &threads, &box))
        return NULL;
    MPI_Comm *comm = PyMPIComm_Get(comm_obj);
    if (!comm)
        return NULL;
    sc_mpi_options o = sc_mpi_options_default();
    o.layout = layout ? SC_MPI_LAYOUT_CALLER : SC_MPI_LAYOUT_RCB;
    o.search.threads = threads;
    if (box != Py_None &&
        !PyArg_ParseTuple(box, "(ddd)(ddd)(iii)", &o.search.box.lo[0], &o.search.box.lo[1],
                          &o.search.box.lo[2], &o.search.box.hi[0], &o.search.box.hi[1],
                          &o.search.box.hi[2], &o.search.box.periodic[0], &o.search.box.periodic[1],
                          &o.search.box.periodic[2]))
        return NULL;
    set a, b;
    int two = b_rows != Py_None;
    memset(&b, 0, sizeof b);
    if (get_set(a_rows, a_ids, dims, &a) < 0 || (two && get_set(b_rows, b_ids, dims, &b) < 0)) {
        release_set(&a);
        release_set(&b);
        return NULL;
    }
    sc_mpi_context *ctx = NULL;
    sc_summary sum = {0};
    uint64_t *pairs = NULL;
    size_t need = 0;
    char message[256] = "";
    sc_status st;
    Py_BEGIN_ALLOW_THREADS;
    st = sc_mpi_context_create(*comm, &o, &ctx);
    if (st == SC_OK && !want_pairs)
        st = two ? sc_mpi_count_between(ctx, &a.view, ids_of(&a), &b.view, ids_of(&b), &sum)
                 : sc_mpi_count_pairs(ctx, &a.view, ids_of(&a), &sum);
    if (st == SC_OK && want_pairs) { /* a size query, then the fill */
        st = two ? sc_mpi_fill_between(ctx, &a.view, ids_of(&a), &b.view, ids_of(&b), NULL, 0,
                                       &need, &sum)
                 : sc_mpi_fill_pairs(ctx, &a.view, ids_of(&a), NULL, 0, &need, &sum);
        if (st == SC_OK || st == SC_ERR_BUFFER_TOO_SMALL) {
            pairs = PyMem_RawMalloc(2 * (need ? need : 1) * sizeof *pairs);
            st = two ? sc_mpi_fill_between(ctx, &a.view, ids_of(&a), &b.view, ids_of(&b), pairs,
                                           pairs ? need : 0, &need, &sum)
                     : sc_mpi_fill_pairs(ctx, &a.view, ids_of(&a), pairs, pairs ? need : 0, &need,
                                         &sum);
        }
    }
    if (ctx)
        snprintf(message, sizeof message, "%s", sc_mpi_message(ctx));
    sc_mpi_context_destroy(ctx);
    Py_END_ALLOW_THREADS;
    release_set(&a);
    release_set(&b);
    if (st != SC_OK) {
        PyMem_RawFree(pairs);
        PyObject *e = Py_BuildValue("(iss)", (int)st, sc_status_string(st), message);
        if (e)
            PyErr_SetObject(PyExc_RuntimeError, e);
        Py_XDECREF(e);
        return NULL;
    }
    PyObject *bytes = Py_None;
    Py_INCREF(bytes);
    if (want_pairs) {
        Py_DECREF(bytes);
        bytes =
            PyBytes_FromStringAndSize((const char *)pairs, (Py_ssize_t)(2 * need * sizeof *pairs));
        PyMem_RawFree(pairs);
        if (!bytes)
            return NULL;
    }
    return Py_BuildValue("(NKK)", bytes, (unsigned long long)sum.pairs,
                         (unsigned long long)sum.checksum);
}

static PyObject *mod_pair_mix(PyObject *m, PyObject *args) {
    (void)m;
    unsigned long long i, j;
    if (!PyArg_ParseTuple(args, "KK", &i, &j))
        return NULL;
    return PyLong_FromUnsignedLongLong(sc_mpi_pair_mix(i, j));
}

static PyMethodDef methods[] = {
    {"run", mod_run, METH_VARARGS, "One collective call (spherecollide.mpi)."},
    {"pair_mix", mod_pair_mix, METH_VARARGS, "sc_mpi_pair_mix(i, j)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_mpi", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__mpi(void); /* the one exported symbol */
PyMODINIT_FUNC PyInit__mpi(void) {
    if (import_mpi4py() < 0)
        return NULL;
    return PyModule_Create(&module);
}
