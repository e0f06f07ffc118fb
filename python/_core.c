/*
 * _core.c: the C side of the Python module `spherecollide`, on the NumPy C
 * API. The package's __init__.py normalises the caller's arrays (shape,
 * dtype, byte order, alignment) and names; this file checks them again
 * (it must never crash on what a caller hands _core directly), points a
 * library view at the arrays as they are (no copy: centres at their row
 * stride, radii at their own, r_stride), and runs the library with the GIL
 * released.
 *
 * Objects:
 *   Context(algorithm, threads, kernel, sorted, chunk_pairs)
 *       one library context, reused by every call on it (its scratch stays
 *       warm, as a C caller's does); one call at a time.
 *     .count(centres, radii)  -> (pairs, checksum)
 *     .pairs(centres, radii, wide=True) -> (K, 2) intp ndarray (uint32 when
 *                                not wide), the stream order
 *     .chunks(centres, radii) -> an iterator of (k, 2) uint32 ndarrays
 *     .stats()                -> dict of the last query's statistics
 *     .trim()                 frees the scratch
 *   Error(ValueError): .status (int), .status_name (str), .index (int or None)
 *
 * The chunk iterator runs the search on a thread of its own: the library's
 * stream callback hands each chunk over and waits until Python has copied
 * it, so memory stays at one chunk per library thread whatever K.
 *
 * SPDX-License-Identifier: MIT
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spherecollide.h"

static PyObject *error_type; /* spherecollide.Error */

/* ---- errors ---------------------------------------------------------------- */

/* The first sphere of view the library refuses (its values, or in a
 * periodic box a radius above SC_MAX_ABS_VALUE / 2), or SIZE_MAX; *box_limit
 * says which. On the error path only. */
static size_t first_refused(const sc_spheres *view, int periodic, int *box_limit) {
    size_t bad = SIZE_MAX;
    *box_limit = 0;
    if (sc_spheres_validate(view, &bad) != SC_OK || !periodic)
        return bad;
    const int f64 = view->dtype == SC_F64;
    const size_t rs = view->r_stride ? view->r_stride
                      : view->stride ? view->stride
                                     : (f64 ? sizeof(double) : sizeof(float));
    for (size_t i = 0; i < view->count; i++) {
        const char *p = (const char *)view->r + i * rs;
        const double r =
            f64 ? *(const double *)(const void *)p : (double)*(const float *)(const void *)p;
        if (r > SC_MAX_ABS_VALUE / 2) {
            *box_limit = 1;
            return i;
        }
    }
    return SIZE_MAX;
}

/* Raises Error for a library status. For a bad value the view is checked
 * again (on the error path only) to name the first offending sphere. */
static PyObject *raise_status(sc_status st, const sc_spheres *view, int periodic) {
    size_t bad = SIZE_MAX;
    int box_limit = 0;
    if (view &&
        (st == SC_ERR_NON_FINITE || st == SC_ERR_NEGATIVE_RADIUS || st == SC_ERR_OUT_OF_RANGE))
        bad = first_refused(view, periodic, &box_limit);
    PyObject *msg =
        box_limit ? PyUnicode_FromFormat("sphere %zu: radius above %s, the limit in a periodic box "
                                         "(status %d)",
                                         bad, "5e149", (int)st)
        : bad != SIZE_MAX
            ? PyUnicode_FromFormat("sphere %zu: %s (status %d)", bad, sc_status_string(st), (int)st)
            : PyUnicode_FromFormat("%s (status %d)", sc_status_string(st), (int)st);
    if (!msg)
        return NULL;
    PyObject *exc = PyObject_CallOneArg(error_type, msg);
    Py_DECREF(msg);
    if (!exc)
        return NULL;
    PyObject *index = bad != SIZE_MAX ? PyLong_FromSize_t(bad) : Py_NewRef(Py_None);
    PyObject *code = PyLong_FromLong((long)st);
    PyObject *name = PyUnicode_FromString(sc_status_string(st));
    if (index && code && name && PyObject_SetAttrString(exc, "status", code) == 0 &&
        PyObject_SetAttrString(exc, "status_name", name) == 0 &&
        PyObject_SetAttrString(exc, "index", index) == 0)
        PyErr_SetObject(error_type, exc);
    Py_XDECREF(index);
    Py_XDECREF(code);
    Py_XDECREF(name);
    Py_DECREF(exc);
    return NULL;
}

/* ---- the view ---------------------------------------------------------------- */

/* Points *v at centres (n, 2|3) and radii (n,), both of one float dtype in
 * native byte order, aligned, with non-negative leading strides (any
 * column stride, even negative). Returns 0, or -1 with an exception set. */
static int make_view(PyObject *c_obj, PyObject *r_obj, sc_spheres *v) {
    if (!PyArray_Check(c_obj) || !PyArray_Check(r_obj)) {
        PyErr_SetString(PyExc_TypeError, "centres and radii must be numpy arrays");
        return -1;
    }
    PyArrayObject *c = (PyArrayObject *)c_obj, *r = (PyArrayObject *)r_obj;
    if (PyArray_NDIM(c) != 2 || (PyArray_DIM(c, 1) != 2 && PyArray_DIM(c, 1) != 3)) {
        PyErr_SetString(PyExc_ValueError, "centres must have shape (N, 3) or (N, 2)");
        return -1;
    }
    const npy_intp n = PyArray_DIM(c, 0);
    if (PyArray_NDIM(r) != 1 || PyArray_DIM(r, 0) != n) {
        PyErr_SetString(PyExc_ValueError, "radii must have shape (N,), N = len(centres)");
        return -1;
    }
    const int t = PyArray_TYPE(c);
    if ((t != NPY_FLOAT32 && t != NPY_FLOAT64) || PyArray_TYPE(r) != t) {
        PyErr_SetString(PyExc_TypeError, "centres and radii must both be float32 or both float64");
        return -1;
    }
    if (!PyArray_ISNOTSWAPPED(c) || !PyArray_ISNOTSWAPPED(r) || !PyArray_ISALIGNED(c) ||
        !PyArray_ISALIGNED(r)) {
        PyErr_SetString(PyExc_ValueError,
                        "centres and radii must be aligned and in native byte order");
        return -1;
    }
    const npy_intp s0 = PyArray_STRIDE(c, 0), s1 = PyArray_STRIDE(c, 1), rs = PyArray_STRIDE(r, 0);
    if (n > 1 && (s0 <= 0 || rs <= 0)) {
        PyErr_SetString(PyExc_ValueError, "centres and radii need positive strides along N");
        return -1;
    }
    const char *base = PyArray_BYTES(c);
    memset(v, 0, sizeof *v);
    v->count = (size_t)n;
    v->dtype = t == NPY_FLOAT64 ? SC_F64 : SC_F32;
    /* n <= 1 reads element 0 only; any stride will do, but 0 means packed */
    v->stride = n > 1 ? (size_t)s0 : (size_t)PyArray_ITEMSIZE(c);
    v->r_stride = n > 1 ? (size_t)rs : (size_t)PyArray_ITEMSIZE(r);
    v->x = n ? base : NULL;
    v->y = n ? base + s1 : NULL;
    v->z = n && PyArray_DIM(c, 1) == 3 ? base + 2 * s1 : NULL;
    v->r = n ? PyArray_BYTES(r) : NULL;
    if (n == 0) { /* the library accepts NULL arrays at n = 0 */
        static const double none[1] = {0};
        v->x = v->y = v->r = none;
    }
    return 0;
}

/* ---- Context ------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD sc_context *ctx;
    int busy;     /* a call or a chunk iterator is using ctx (checked under the GIL) */
    int periodic; /* its box has a periodic axis (radii above 5e149 refused) */
} Context;

static int Context_init(Context *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"algorithm", "threads", "kernel", "sorted", "chunk_pairs", "box", NULL};
    int algorithm = 0, threads = 0, kernel = 0, sorted = 0;
    Py_ssize_t chunk = 65536;
    PyObject *box = Py_None; /* None, or (periodic x3, lo x3, hi x3) from the module */
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|iiipnO", names, &algorithm, &threads, &kernel,
                                     &sorted, &chunk, &box))
        return -1;
    sc_box b = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    if (box != Py_None &&
        !PyArg_ParseTuple(box, "(iii)(ddd)(ddd)", &b.periodic[0], &b.periodic[1], &b.periodic[2],
                          &b.lo[0], &b.lo[1], &b.lo[2], &b.hi[0], &b.hi[1], &b.hi[2]))
        return -1;
    if (algorithm < 0 || algorithm >= sc_algorithm_count() || threads < 0 || kernel < 0 ||
        kernel > 2 || chunk < 1) {
        PyErr_SetString(PyExc_ValueError, "bad algorithm, threads, kernel or chunk_pairs");
        return -1;
    }
    sc_options o = sc_options_default();
    o.algorithm = (sc_algorithm)algorithm;
    o.threads = threads;
    o.kernel = (sc_kernel)kernel;
    o.sorted = sorted;
    o.chunk_pairs = (size_t)chunk;
    o.box = b;
    sc_context_destroy(self->ctx);
    self->ctx = NULL;
    const sc_status st = sc_context_create(&o, &self->ctx);
    if (st != SC_OK) {
        raise_status(st, NULL, 0);
        return -1;
    }
    self->periodic = b.periodic[0] || b.periodic[1] || b.periodic[2];
    return 0;
}

static void Context_dealloc(Context *self) {
    sc_context_destroy(self->ctx);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Takes the context for one call: 0, or -1 with an exception set. */
static int take(Context *self) {
    if (!self->ctx) {
        PyErr_SetString(PyExc_RuntimeError, "Context was not initialised");
        return -1;
    }
    if (self->busy) {
        PyErr_SetString(
            PyExc_RuntimeError,
            "this Context is in use (by another thread, or by an unfinished chunk iterator)");
        return -1;
    }
    self->busy = 1;
    return 0;
}

/* The arguments (centres, radii) of one set, or (a, ra, b, rb) of two
 * (then *two is 1): 0, or -1 with an exception set. */
static int make_views(PyObject *args, sc_spheres *a, sc_spheres *b, int *two) {
    PyObject *c, *r, *cb = NULL, *rb = NULL;
    if (!PyArg_ParseTuple(args, "OO|OO", &c, &r, &cb, &rb))
        return -1;
    if (cb && !rb) {
        PyErr_SetString(PyExc_TypeError, "a second set needs its centres and its radii");
        return -1;
    }
    *two = cb != NULL;
    if (make_view(c, r, a) < 0 || (*two && make_view(cb, rb, b) < 0))
        return -1;
    if (*two && a->count && b->count && (a->z == NULL) != (b->z == NULL)) {
        PyErr_SetString(PyExc_ValueError, "the two sets must both be 3-D or both 2-D");
        return -1;
    }
    return 0;
}

/* raise_status for a call on one set or two: the set with the bad value. */
static PyObject *raise_status_of(sc_status st, const sc_spheres *a, const sc_spheres *b, int two,
                                 int periodic) {
    int box_limit;
    return raise_status(st, !two || first_refused(a, periodic, &box_limit) != SIZE_MAX ? a : b,
                        periodic);
}

static PyObject *Context_count(Context *self, PyObject *args) {
    sc_spheres v, vb;
    int two = 0;
    if (make_views(args, &v, &vb, &two) < 0 || take(self) < 0)
        return NULL;
    sc_summary s;
    sc_status st;
    Py_BEGIN_ALLOW_THREADS st =
        two ? sc_count_between(self->ctx, &v, &vb, &s) : sc_count_pairs(self->ctx, &v, &s);
    Py_END_ALLOW_THREADS self->busy = 0;
    if (st != SC_OK)
        return raise_status_of(st, &v, &vb, two, self->periodic);
    return Py_BuildValue("(KK)", (unsigned long long)s.pairs, (unsigned long long)s.checksum);
}

/* cell_order(): sc_cell_order into a new uint32 array of n. */
static PyObject *Context_cell_order(Context *self, PyObject *args) {
    sc_spheres v, vb;
    int two = 0;
    if (make_views(args, &v, &vb, &two) < 0)
        return NULL;
    if (two) {
        PyErr_SetString(PyExc_TypeError, "cell_order takes one set");
        return NULL;
    }
    npy_intp n = (npy_intp)v.count;
    PyObject *out = PyArray_SimpleNew(1, &n, NPY_UINT32);
    if (!out)
        return NULL;
    if (take(self) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    uint32_t *o = PyArray_DATA((PyArrayObject *)out);
    sc_status st;
    Py_BEGIN_ALLOW_THREADS st = sc_cell_order(self->ctx, &v, o);
    Py_END_ALLOW_THREADS self->busy = 0;
    if (st != SC_OK) {
        Py_DECREF(out);
        return raise_status(st, &v, self->periodic);
    }
    return out;
}

/* pairs(): the stream appended to one growing block, handed to NumPy,
 * as uint32 or, widened as it is appended, as intp (int64) indices.
 * A block's capacity in bytes sits in a header before them. The block of
 * the last array released is kept (`spare`, under the GIL) and the next
 * pairs() call appends to it: its pages are resident, where a fresh
 * block's every page is first touched during the call, and a steady
 * state of calls allocates nothing new. It holds at most the last
 * released result's pairs; a call with fewer gives the slack back. */
enum { BLOCK_HEAD = 64 };
static void *spare;

static size_t block_cap(const void *p) {
    size_t cap;
    memcpy(&cap, (const char *)p - BLOCK_HEAD, sizeof cap);
    return cap;
}

static void block_free(void *p) {
    if (p)
        free((char *)p - BLOCK_HEAD);
}

/* p (a block, or NULL) with room for cap bytes, or NULL (p unchanged). */
static void *block_resize(void *p, size_t cap) {
    char *b = realloc(p ? (char *)p - BLOCK_HEAD : NULL, BLOCK_HEAD + cap);
    if (!b)
        return NULL;
    memcpy(b, &cap, sizeof cap);
    return b + BLOCK_HEAD;
}

/* A block no array holds any more: kept for the next call (GIL held). */
static void block_keep(void *p) {
    if (!p)
        return;
    block_free(spare);
    spare = p;
}

typedef struct {
    void *p;
    size_t n, cap; /* pairs; capacity in bytes */
    size_t width;  /* bytes per index: 4 (uint32) or 8 (intp) */
} grow;

static int grow_append(const uint32_t *pairs, size_t count, void *user) {
    grow *g = user;
    const size_t pair = 2 * g->width;
    if ((g->n + count) * pair > g->cap) {
        size_t cap = g->cap > pair ? g->cap : (size_t)1 << 19;
        while (cap < (g->n + count) * pair)
            cap *= 2;
        void *p = block_resize(g->p, cap);
        if (!p)
            return 1; /* SC_ERR_STOPPED, reported as out of memory below */
        g->p = p;
        g->cap = cap;
    }
    if (g->width == sizeof(uint32_t)) {
        memcpy((uint32_t *)g->p + 2 * g->n, pairs, count * 2 * sizeof *pairs);
    } else {
        npy_intp *out = (npy_intp *)g->p + 2 * g->n;
        for (size_t k = 0; k < 2 * count; k++)
            out[k] = (npy_intp)pairs[k];
    }
    g->n += count;
    return 0;
}

static void free_capsule(PyObject *cap) {
    block_keep(PyCapsule_GetPointer(cap, "spherecollide.pairs"));
}

/* A (n, 2) array of type `type` owning block p (kept for the next call
 * when the array is released). */
static PyObject *own_pairs(void *p, size_t n, int type) {
    npy_intp dims[2] = {(npy_intp)n, 2};
    if (!p || !n) { /* no pairs */
        block_keep(p);
        return PyArray_SimpleNew(2, dims, type);
    }
    PyObject *arr = PyArray_SimpleNewFromData(2, dims, type, p);
    if (!arr) {
        block_keep(p);
        return NULL;
    }
    PyObject *cap = PyCapsule_New(p, "spherecollide.pairs", free_capsule);
    if (!cap) {
        Py_DECREF(arr);
        block_keep(p);
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)arr, cap) < 0) { /* steals cap */
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

/* pairs(centres, radii[, cb, rb], wide=True): intp indices when wide,
 * uint32 otherwise. */
static PyObject *Context_pairs(Context *self, PyObject *args, PyObject *kw) {
    int wide = 1;
    if (kw) {
        PyObject *w = PyDict_GetItemString(kw, "wide");
        if (PyDict_Size(kw) != (w != NULL)) {
            PyErr_SetString(PyExc_TypeError, "pairs() takes only the keyword wide");
            return NULL;
        }
        if (w && (wide = PyObject_IsTrue(w)) < 0)
            return NULL;
    }
    sc_spheres v, vb;
    int two = 0;
    if (make_views(args, &v, &vb, &two) < 0 || take(self) < 0)
        return NULL;
    grow g = {spare, 0, spare ? block_cap(spare) : 0, wide ? sizeof(npy_intp) : sizeof(uint32_t)};
    spare = NULL;
    sc_summary s;
    sc_status st;
    Py_BEGIN_ALLOW_THREADS st = two ? sc_stream_between(self->ctx, &v, &vb, grow_append, &g, &s)
                                    : sc_stream_pairs(self->ctx, &v, grow_append, &g, &s);
    const size_t used = g.n * 2 * g.width;
    if (st == SC_OK && g.n && g.cap > used + used / 4) { /* give back the slack */
        void *p = block_resize(g.p, used + used / 8);
        if (p)
            g.p = p;
    }
    Py_END_ALLOW_THREADS self->busy = 0;
    if (st != SC_OK) {
        block_keep(g.p);
        if (st == SC_ERR_STOPPED)
            return PyErr_NoMemory();
        return raise_status_of(st, &v, &vb, two, self->periodic);
    }
    return own_pairs(g.p, g.n, wide ? NPY_INTP : NPY_UINT32);
}

/* neighbors(centres, radii, full, skin, value) -> (offsets int64, indices
 * uint32, values float64 or None): the count pass, the arrays sized by it,
 * the fill pass; the GIL is released during both passes (the context stays
 * taken in between, so the fill follows its count directly). */
static PyObject *Context_neighbors(Context *self, PyObject *args) {
    PyObject *c, *r;
    int full, value;
    double skin;
    sc_spheres v;
    if (!PyArg_ParseTuple(args, "OOpdi", &c, &r, &full, &skin, &value) || make_view(c, r, &v) < 0)
        return NULL;
    const sc_nbr_spec spec = {full, skin, (sc_nbr_value)value};
    npy_intp n1 = (npy_intp)v.count + 1;
    PyObject *off = PyArray_SimpleNew(1, &n1, NPY_INT64);
    if (!off)
        return NULL;
    if (take(self) < 0) {
        Py_DECREF(off);
        return NULL;
    }
    uint64_t *o =
        PyArray_DATA((PyArrayObject *)off); /* int64 and uint64: the same bits below 2^63 */
    sc_status st;
    Py_BEGIN_ALLOW_THREADS st = sc_neighbors_count(self->ctx, &v, &spec, o);
    Py_END_ALLOW_THREADS PyObject *idx = NULL, *val = NULL;
    if (st == SC_OK) {
        npy_intp m = (npy_intp)o[v.count];
        idx = PyArray_SimpleNew(1, &m, NPY_UINT32);
        val = value ? PyArray_SimpleNew(1, &m, NPY_FLOAT64) : (Py_INCREF(Py_None), Py_None);
        if (!idx || !val) {
            self->busy = 0;
            Py_DECREF(off);
            Py_XDECREF(idx);
            Py_XDECREF(val);
            return NULL; /* MemoryError from NumPy, naming the size */
        }
        uint32_t *ip = PyArray_DATA((PyArrayObject *)idx);
        double *vp = value ? PyArray_DATA((PyArrayObject *)val) : NULL;
        Py_BEGIN_ALLOW_THREADS st = sc_neighbors_fill(self->ctx, &v, &spec, o, ip, vp);
        Py_END_ALLOW_THREADS
    }
    self->busy = 0;
    if (st != SC_OK) {
        Py_DECREF(off);
        Py_XDECREF(idx);
        Py_XDECREF(val);
        return raise_status(st, &v, self->periodic);
    }
    return Py_BuildValue("(NNN)", off, idx, val);
}

static PyObject *Context_trim(Context *self, PyObject *unused) {
    (void)unused;
    if (take(self) < 0)
        return NULL;
    sc_context_trim(self->ctx);
    self->busy = 0;
    Py_RETURN_NONE;
}

static PyObject *Context_stats(Context *self, PyObject *unused) {
    (void)unused;
    sc_stats s = {.size = sizeof s};
    if (!self->ctx || sc_context_stats(self->ctx, &s) != SC_OK) {
        PyErr_SetString(PyExc_RuntimeError, "no statistics");
        return NULL;
    }
    PyObject *stages = PyDict_New();
    if (!stages)
        return NULL;
    for (int k = 0; k < SC_STAGE_COUNT; k++) {
        PyObject *t = PyFloat_FromDouble(s.seconds[k]);
        if (!t || PyDict_SetItemString(stages, sc_stage_name((sc_stage)k), t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(stages);
            return NULL;
        }
        Py_DECREF(t);
    }
    return Py_BuildValue("{s:N,s:d,s:K,s:K,s:K,s:K,s:K,s:K,s:i,s:i,s:s,s:s,s:d}", "seconds", stages,
                         "total_seconds", s.total_seconds, "spheres", (unsigned long long)s.spheres,
                         "pairs", (unsigned long long)s.pairs, "checksum",
                         (unsigned long long)s.checksum, "cells", (unsigned long long)s.cells,
                         "candidate_tests", (unsigned long long)s.candidate_tests, "scratch_bytes",
                         (unsigned long long)s.scratch_bytes, "levels", s.levels, "threads",
                         s.threads, "kernel", sc_kernel_name(s.kernel), "pin", sc_pin_name(s.pin),
                         "cell_size", s.cell_size);
}

/* ---- the chunk iterator ----------------------------------------------------------- */

typedef struct {
    PyObject_HEAD Context *owner; /* holds the context busy until the search thread ends */
    PyObject *c, *r;              /* the arrays stay alive while the search reads them */
    sc_spheres view;
    pthread_t thread;
    int started, joined, in_next;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const uint32_t *chunk; /* the library's chunk, valid while the callback waits */
    size_t count;
    int full, done, cancel;
    sc_status status;
} Chunks;

static int hand_over(const uint32_t *pairs, size_t count, void *user) {
    Chunks *it = user;
    pthread_mutex_lock(&it->mu);
    if (!it->cancel) {
        it->chunk = pairs;
        it->count = count;
        it->full = 1;
        pthread_cond_broadcast(&it->cv);
        while (it->full && !it->cancel)
            pthread_cond_wait(&it->cv, &it->mu);
    }
    const int stop = it->cancel;
    pthread_mutex_unlock(&it->mu);
    return stop;
}

static void *search_thread(void *arg) {
    Chunks *it = arg;
    const sc_status st = sc_stream_pairs(it->owner->ctx, &it->view, hand_over, it, NULL);
    pthread_mutex_lock(&it->mu);
    it->status = st;
    it->done = 1;
    pthread_cond_broadcast(&it->cv);
    pthread_mutex_unlock(&it->mu);
    return NULL;
}

/* Stops the search (if it runs) and joins its thread; frees the context for
 * other calls. Call with the GIL held. */
static void chunks_finish(Chunks *it) {
    if (!it->started || it->joined)
        return;
    Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&it->mu);
    if (!it->done) {
        it->cancel = 1;
        pthread_cond_broadcast(&it->cv);
    }
    pthread_mutex_unlock(&it->mu);
    pthread_join(it->thread, NULL);
    Py_END_ALLOW_THREADS it->joined = 1;
    it->owner->busy = 0;
}

static PyTypeObject ChunksType;

static PyObject *Context_chunks(Context *self, PyObject *args) {
    PyObject *c, *r;
    sc_spheres v;
    if (!PyArg_ParseTuple(args, "OO", &c, &r) || make_view(c, r, &v) < 0 || take(self) < 0)
        return NULL;
    Chunks *it = PyObject_New(Chunks, &ChunksType);
    if (!it) {
        self->busy = 0;
        return NULL;
    }
    it->owner = (Context *)Py_NewRef(self);
    it->c = Py_NewRef(c);
    it->r = Py_NewRef(r);
    it->view = v;
    it->started = it->joined = it->in_next = 0;
    it->chunk = NULL;
    it->count = 0;
    it->full = it->done = it->cancel = 0;
    it->status = SC_OK;
    pthread_mutex_init(&it->mu, NULL);
    pthread_cond_init(&it->cv, NULL);
    if (pthread_create(&it->thread, NULL, search_thread, it) != 0) {
        self->busy = 0;
        Py_DECREF(it);
        PyErr_SetString(PyExc_RuntimeError, "could not start the search thread");
        return NULL;
    }
    it->started = 1;
    return (PyObject *)it;
}

static PyObject *Chunks_next(Chunks *it) {
    if (it->in_next) {
        PyErr_SetString(PyExc_RuntimeError, "this chunk iterator is being read by another thread");
        return NULL;
    }
    if (!it->started || it->joined)
        return NULL; /* exhausted (or closed): StopIteration */
    it->in_next = 1;
    int have;
    size_t count;
    Py_BEGIN_ALLOW_THREADS pthread_mutex_lock(&it->mu);
    while (!it->full && !it->done)
        pthread_cond_wait(&it->cv, &it->mu);
    have = it->full;
    count = it->count;
    pthread_mutex_unlock(&it->mu);
    Py_END_ALLOW_THREADS PyObject *out = NULL;
    if (have) {
        npy_intp dims[2] = {(npy_intp)count, 2};
        out = PyArray_SimpleNew(2, dims, NPY_UINT32);
        if (out) /* the callback waits: it->chunk stays valid until full = 0 */
            memcpy(PyArray_DATA((PyArrayObject *)out), it->chunk, count * 2 * sizeof(uint32_t));
        pthread_mutex_lock(&it->mu);
        it->full = 0;
        if (!out)
            it->cancel = 1;
        pthread_cond_broadcast(&it->cv);
        pthread_mutex_unlock(&it->mu);
        it->in_next = 0;
        if (!out)
            chunks_finish(it);
        return out;
    }
    /* done */
    const sc_status st = it->status;
    chunks_finish(it);
    it->in_next = 0;
    if (st != SC_OK)
        return raise_status(st, &it->view, it->owner->periodic);
    return NULL;
}

static PyObject *Chunks_close(Chunks *it, PyObject *unused) {
    (void)unused;
    if (it->in_next) {
        PyErr_SetString(PyExc_RuntimeError, "this chunk iterator is being read by another thread");
        return NULL;
    }
    chunks_finish(it);
    Py_RETURN_NONE;
}

static void Chunks_dealloc(Chunks *it) {
    chunks_finish(it);
    pthread_mutex_destroy(&it->mu);
    pthread_cond_destroy(&it->cv);
    Py_XDECREF(it->owner);
    Py_XDECREF(it->c);
    Py_XDECREF(it->r);
    PyObject_Free(it);
}

static PyMethodDef Chunks_methods[] = {
    {"close", (PyCFunction)Chunks_close, METH_NOARGS,
     "Stops the search and frees the context (also done when the iterator is exhausted or freed)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ChunksType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "spherecollide._core.Chunks",
    .tp_basicsize = sizeof(Chunks),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An iterator of (k, 2) uint32 arrays: the pair stream, chunk by chunk.",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)Chunks_next,
    .tp_dealloc = (destructor)Chunks_dealloc,
    .tp_methods = Chunks_methods,
};

static PyMethodDef Context_methods[] = {
    {"count", (PyCFunction)Context_count, METH_VARARGS,
     "count(centres, radii[, centres_b, radii_b]) -> (pairs, checksum)"},
    {"pairs", (PyCFunction)(void (*)(void))Context_pairs, METH_VARARGS | METH_KEYWORDS,
     "pairs(centres, radii[, centres_b, radii_b], wide=True) -> (K, 2) intp (uint32 when not wide) "
     "array"},
    {"chunks", (PyCFunction)Context_chunks, METH_VARARGS,
     "chunks(centres, radii) -> iterator of arrays"},
    {"neighbors", (PyCFunction)Context_neighbors, METH_VARARGS,
     "neighbors(centres, radii, full, skin, value) -> (offsets, indices, values or None)"},
    {"cell_order", (PyCFunction)Context_cell_order, METH_VARARGS,
     "cell_order(centres, radii) -> (N,) uint32 array: the grid's cell order"},
    {"stats", (PyCFunction)Context_stats, METH_NOARGS, "statistics of the last query, a dict"},
    {"trim", (PyCFunction)Context_trim, METH_NOARGS, "frees the context's scratch memory"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "spherecollide._core.Context",
    .tp_basicsize = sizeof(Context),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context(algorithm=0, threads=0, kernel=0, sorted=False, chunk_pairs=65536)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Context_init,
    .tp_dealloc = (destructor)Context_dealloc,
    .tp_methods = Context_methods,
};

/* ---- module -------------------------------------------------------------------------- */

static PyObject *mod_version(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    return PyUnicode_FromString(sc_version());
}

static PyObject *mod_names(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    PyObject *algos = PyTuple_New(sc_algorithm_count());
    if (!algos)
        return NULL;
    for (int k = 0; k < sc_algorithm_count(); k++)
        PyTuple_SET_ITEM(algos, k, PyUnicode_FromString(sc_algorithm_name((sc_algorithm)k)));
    return Py_BuildValue("{s:N,s:(sss)}", "algorithms", algos, "kernels",
                         sc_kernel_name(SC_KERNEL_AUTO), sc_kernel_name(SC_KERNEL_SCALAR),
                         sc_kernel_name(SC_KERNEL_AVX2));
}

static PyObject *mod_pair_mix(PyObject *m, PyObject *args) {
    (void)m;
    unsigned int i, j;
    if (!PyArg_ParseTuple(args, "II", &i, &j))
        return NULL;
    return PyLong_FromUnsignedLongLong(sc_pair_mix(i, j));
}

static PyObject *mod_system_info(PyObject *m, PyObject *args) {
    (void)m;
    int threads = 0;
    if (!PyArg_ParseTuple(args, "|i", &threads))
        return NULL;
    sc_options o = sc_options_default();
    o.threads = threads > 0 ? threads : 0;
    const size_t need = sc_system_info(&o, NULL, 0) + 1;
    char *buf = PyMem_Malloc(need);
    if (!buf)
        return PyErr_NoMemory();
    sc_system_info(&o, buf, need);
    PyObject *r = PyUnicode_FromString(buf);
    PyMem_Free(buf);
    return r;
}

static PyMethodDef module_methods[] = {
    {"version", mod_version, METH_NOARGS, "the library's version string"},
    {"system_info", mod_system_info, METH_VARARGS,
     "system_info(threads=0): sc_system_info's text (CPU, kernel, page policy, topology, binding)"},
    {"names", mod_names, METH_NOARGS, "the algorithm and kernel names, in enum order"},
    {"pair_mix", mod_pair_mix, METH_VARARGS, "sc_pair_mix(i, j): one pair's checksum term"},
    {NULL, NULL, 0, NULL},
};

static void module_free(void *m) {
    (void)m;
    block_free(spare);
    spare = NULL;
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_core",
    "The C side of spherecollide (use the package's functions).",
    -1,
    module_methods,
    NULL,
    NULL,
    NULL,
    module_free,
};

PyMODINIT_FUNC PyInit__core(void); /* the one exported symbol */
PyMODINIT_FUNC PyInit__core(void) {
    import_array();
    if (PyType_Ready(&ContextType) < 0 || PyType_Ready(&ChunksType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    error_type = PyErr_NewExceptionWithDoc("spherecollide.Error",
                                           "A library status: .status (int), .status_name (str), "
                                           ".index (the first offending sphere, or None).",
                                           PyExc_ValueError, NULL);
    if (!error_type || PyModule_AddObjectRef(m, "Error", error_type) < 0 ||
        PyModule_AddObjectRef(m, "Context", (PyObject *)&ContextType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
