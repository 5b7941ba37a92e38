/*
 * poolgrad._core: the CPython/numpy binding of libpoolgrad. Takes numpy arrays of any strides as zero-copy
 * views; the Python layer (__init__.py) handles torch tensors, argument conventions and defaults.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <math.h>
#include <string.h>

#include "poolgrad/poolgrad.h"

static PyObject *raise_lib(const char *what, poolgrad_status st)
{
    (void)what;
    const char *msg = poolgrad_last_error_message();
    PyErr_SetString(PyExc_ValueError, msg[0] ? msg : poolgrad_status_string(st));
    return NULL;
}

/* numpy dtype -> poolgrad dtype; bf16: 2-byte integer arrays hold bfloat16 bits */
static int dtype_of(PyArrayObject *a, int bf16, poolgrad_dtype *dt, const char *name)
{
    int t = PyArray_TYPE(a);
    if (bf16) {
        if (t == NPY_UINT16 || t == NPY_INT16) {
            *dt = POOLGRAD_BF16;
            return 0;
        }
        PyErr_Format(PyExc_ValueError, "%s: dtype='bfloat16' needs a uint16 (or int16) array of bfloat16 bits, got %s",
                     name, PyArray_DESCR(a)->typeobj->tp_name);
        return -1;
    }
    if (t == NPY_FLOAT32) {
        *dt = POOLGRAD_F32;
        return 0;
    }
    if (t == NPY_FLOAT16) {
        *dt = POOLGRAD_F16;
        return 0;
    }
    if (t == NPY_UINT16 || t == NPY_INT16)
        PyErr_Format(PyExc_ValueError, "%s: a 16-bit integer array is bfloat16 only with dtype='bfloat16'", name);
    else
        PyErr_Format(PyExc_ValueError, "%s: dtype %s is not float32, float16 or bfloat16", name,
                     PyArray_DESCR(a)->typeobj->tp_name);
    return -1;
}

/* A zero-copy poolgrad_tensor view of a numpy array (any strides, negative too). */
static int view_of(PyObject *obj, int bf16, int writable, poolgrad_tensor *t, const char *name)
{
    if (!PyArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a numpy array", name);
        return -1;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    memset(t, 0, sizeof *t);
    if (dtype_of(a, bf16, &t->dtype, name) < 0)
        return -1;
    if (!PyArray_ISNOTSWAPPED(a)) {
        PyErr_Format(PyExc_ValueError, "%s: byte-swapped (non-native-endian) arrays are not supported", name);
        return -1;
    }
    if (writable && !PyArray_ISWRITEABLE(a)) {
        PyErr_Format(PyExc_ValueError, "%s: the array is read-only", name);
        return -1;
    }
    int nd = PyArray_NDIM(a);
    if (nd < 1 || nd > POOLGRAD_MAX_RANK) {
        PyErr_Format(PyExc_ValueError, "%s: rank %d is not 1..%d", name, nd, POOLGRAD_MAX_RANK);
        return -1;
    }
    const npy_intp es = PyArray_ITEMSIZE(a);
    int64_t lo = 0, hi = 0, numel = 1;
    t->rank = nd;
    for (int d = 0; d < nd; d++) {
        npy_intp st = PyArray_STRIDE(a, d), n = PyArray_DIM(a, d);
        if (st % es != 0) {
            PyErr_Format(PyExc_ValueError, "%s: stride %zd of axis %d is not a multiple of the element size %zd", name,
                         (Py_ssize_t)st, d, (Py_ssize_t)es);
            return -1;
        }
        t->shape[d] = n;
        t->strides[d] = st / es;
        numel *= n;
        if (n > 0) {
            if (st < 0)
                lo += (n - 1) * (st / es);
            else
                hi += (n - 1) * (st / es);
        }
    }
    if (numel == 0) {
        t->offset = 0;
        t->storage_numel = 0;
        t->storage = PyArray_DATA(a);
    } else {
        t->offset = -lo;
        t->storage_numel = hi - lo + 1;
        t->storage = (char *)PyArray_DATA(a) + lo * es;
    }
    return 0;
}

static int int_tuple(PyObject *o, int64_t *v, int n, const char *name)
{
    PyObject *seq = PySequence_Fast(o, name);
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "%s must have %d entries", name, n);
        Py_DECREF(seq);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        long long x = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (x == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        v[i] = x;
    }
    Py_DECREF(seq);
    return 0;
}

/* (spatial_dims, kernel, stride, padding, ceil_mode, count_include_pad, divisor) -> params */
static int params_of(int sd, PyObject *k, PyObject *s, PyObject *p, int ceil_mode, int cip, long long divisor,
                     poolgrad_params *pa)
{
    memset(pa, 0, sizeof *pa);
    pa->spatial_dims = sd;
    if (sd != 2 && sd != 3) {
        PyErr_Format(PyExc_ValueError, "spatial_dims = %d is not 2 or 3", sd);
        return -1;
    }
    if (int_tuple(k, pa->kernel, sd, "kernel_size") < 0 || int_tuple(s, pa->stride, sd, "stride") < 0 ||
        int_tuple(p, pa->padding, sd, "padding") < 0)
        return -1;
    pa->ceil_mode = ceil_mode;
    pa->count_include_pad = cip;
    pa->divisor_override = divisor;
    return 0;
}

static PyObject *py_output_shape(PyObject *self, PyObject *args)
{
    (void)self;
    int sd, ceil_mode;
    PyObject *shape_o, *k, *s, *p;
    if (!PyArg_ParseTuple(args, "iOOOOp", &sd, &shape_o, &k, &s, &p, &ceil_mode))
        return NULL;
    poolgrad_params pa;
    if (params_of(sd, k, s, p, ceil_mode, 1, 0, &pa) < 0)
        return NULL;
    Py_ssize_t rank = PySequence_Size(shape_o);
    if (rank < 0)
        return NULL;
    if (rank < 1 || rank > POOLGRAD_MAX_RANK)
        return PyErr_Format(PyExc_ValueError, "input_shape has %zd dims; %dD pooling needs %d or %d", rank, sd, sd + 1,
                            sd + 2);
    int64_t in[POOLGRAD_MAX_RANK], out[POOLGRAD_MAX_RANK];
    if (int_tuple(shape_o, in, (int)rank, "input_shape") < 0)
        return NULL;
    poolgrad_status st = poolgrad_output_shape(&pa, (int32_t)rank, in, out);
    if (st != POOLGRAD_OK)
        return raise_lib("poolgrad", st);
    PyObject *r = PyTuple_New(rank);
    for (Py_ssize_t i = 0; r && i < rank; i++)
        PyTuple_SET_ITEM(r, i, PyLong_FromLongLong(out[i]));
    return r;
}

/* backward(go, gi, spatial_dims, k, s, p, ceil, cip, divisor, threads, bf16) -> kernel name */
static PyObject *py_backward(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *go_o, *gi_o, *k, *s, *p;
    int sd, ceil_mode, cip, threads, bf16;
    long long divisor;
    if (!PyArg_ParseTuple(args, "OOiOOOppLip", &go_o, &gi_o, &sd, &k, &s, &p, &ceil_mode, &cip, &divisor, &threads,
                          &bf16))
        return NULL;
    poolgrad_params pa;
    poolgrad_tensor go, gi;
    if (params_of(sd, k, s, p, ceil_mode, cip, divisor, &pa) < 0 || view_of(go_o, bf16, 0, &go, "grad_output") < 0 ||
        view_of(gi_o, bf16, 1, &gi, "out") < 0)
        return NULL;
    poolgrad_plan *plan = NULL;
    poolgrad_status st = poolgrad_plan_create(&pa, &go, &gi, &plan);
    if (st != POOLGRAD_OK)
        return raise_lib("poolgrad", st);
    size_t ws_size = poolgrad_plan_workspace_size(plan);
    void *ws = ws_size ? PyMem_RawMalloc(ws_size) : NULL;
    if (ws_size && !ws) {
        poolgrad_plan_destroy(plan);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    st = poolgrad_execute(plan, ws, ws_size, threads);
    Py_END_ALLOW_THREADS
    PyObject *name = st == POOLGRAD_OK ? PyUnicode_FromString(poolgrad_plan_kernel_name(plan)) : NULL;
    PyMem_RawFree(ws);
    poolgrad_plan_destroy(plan);
    if (st != POOLGRAD_OK)
        return raise_lib("poolgrad", st);
    return name;
}

/* error_bound(go, input_shape, spatial_dims, k, s, p, ceil, cip, divisor, model, bf16) -> (reference, bound) */
static PyObject *py_error_bound(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *go_o, *shape_o, *k, *s, *p;
    int sd, ceil_mode, cip, bf16;
    long long divisor;
    const char *model_name;
    if (!PyArg_ParseTuple(args, "OOiOOOppLsp", &go_o, &shape_o, &sd, &k, &s, &p, &ceil_mode, &cip, &divisor,
                          &model_name, &bf16))
        return NULL;
    poolgrad_params pa;
    poolgrad_tensor go;
    if (params_of(sd, k, s, p, ceil_mode, cip, divisor, &pa) < 0 || view_of(go_o, bf16, 0, &go, "grad_output") < 0)
        return NULL;
    poolgrad_bound_model model;
    poolgrad_status st = poolgrad_bound_model_parse(model_name, &model);
    if (st != POOLGRAD_OK || model == POOLGRAD_BOUND_NONE)
        return raise_lib("bound", st == POOLGRAD_OK ? POOLGRAD_ERR_PARAM : st);
    Py_ssize_t rank = PySequence_Size(shape_o);
    if (rank < 1 || rank > POOLGRAD_MAX_RANK) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "input_shape has %zd dims", rank);
        return NULL;
    }
    int64_t in[POOLGRAD_MAX_RANK];
    npy_intp dims[POOLGRAD_MAX_RANK];
    if (int_tuple(shape_o, in, (int)rank, "input_shape") < 0)
        return NULL;
    for (int d = 0; d < rank; d++) {
        if (in[d] < 0)
            return PyErr_Format(PyExc_ValueError, "input_shape[%d] = %lld is negative", d, (long long)in[d]);
        dims[d] = (npy_intp)in[d];
    }
    PyArrayObject *ref = (PyArrayObject *)PyArray_SimpleNew((int)rank, dims, NPY_FLOAT64);
    PyArrayObject *bnd = ref ? (PyArrayObject *)PyArray_SimpleNew((int)rank, dims, NPY_FLOAT64) : NULL;
    if (!bnd) {
        Py_XDECREF(ref);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    st = poolgrad_error_bound(&pa, &go, (int32_t)rank, in, model, PyArray_DATA(ref), PyArray_DATA(bnd));
    Py_END_ALLOW_THREADS
    if (st != POOLGRAD_OK) {
        Py_DECREF(ref);
        Py_DECREF(bnd);
        return raise_lib("bound", st);
    }
    return Py_BuildValue("NN", ref, bnd);
}

static PyObject *element_dict(const poolgrad_compare_element *el, int rank)
{
    PyObject *mi = PyTuple_New(rank);
    if (!mi)
        return NULL;
    for (int d = 0; d < rank; d++)
        PyTuple_SET_ITEM(mi, d, PyLong_FromLongLong(el->multi_index[d]));
    PyObject *ulp = el->ulp == UINT64_MAX ? (Py_INCREF(Py_None), Py_None) : PyLong_FromUnsignedLongLong(el->ulp);
    return Py_BuildValue("{s:L,s:N,s:d,s:d,s:k,s:k,s:N,s:d,s:d,s:d,s:d,s:O}", "index", (long long)el->index,
                         "multi_index", mi, "actual", el->actual, "expected", el->expected, "actual_bits",
                         (unsigned long)el->actual_bits, "expected_bits", (unsigned long)el->expected_bits, "ulp", ulp,
                         "abs_error", el->abs_error, "rel_error", el->rel_error, "reference", el->reference, "bound",
                         el->bound, "passed", el->passed ? Py_True : Py_False);
}

/* compare(actual, expected, bf16, max_ulp, atol, rtol, reference|None, bound|None, model) -> dict */
static PyObject *py_compare(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *a_o, *e_o, *ref_o, *bnd_o;
    int bf16, model;
    long long max_ulp;
    double atol, rtol;
    if (!PyArg_ParseTuple(args, "OOpLddOOi", &a_o, &e_o, &bf16, &max_ulp, &atol, &rtol, &ref_o, &bnd_o, &model))
        return NULL;
    poolgrad_tensor at, et;
    if (view_of(a_o, bf16, 0, &at, "actual") < 0 || view_of(e_o, bf16, 0, &et, "expected") < 0)
        return NULL;
    poolgrad_compare_options opt = { sizeof opt, max_ulp, atol, rtol, NULL, NULL, model };
    PyArrayObject *ref = NULL, *bnd = NULL;
    if (ref_o != Py_None) {
        ref = (PyArrayObject *)PyArray_FROMANY(ref_o, NPY_FLOAT64, 0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
        bnd = ref ? (PyArrayObject *)PyArray_FROMANY(bnd_o, NPY_FLOAT64, 0, 0, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED)
                  : NULL;
        if (!bnd) {
            Py_XDECREF(ref);
            return NULL;
        }
        int64_t n = 1;
        for (int d = 0; d < at.rank; d++)
            n *= at.shape[d];
        if (PyArray_SIZE(ref) != n || PyArray_SIZE(bnd) != n) {
            Py_DECREF(ref);
            Py_DECREF(bnd);
            return PyErr_Format(PyExc_ValueError, "the bound has %zd elements, actual has %lld",
                                (Py_ssize_t)PyArray_SIZE(ref), (long long)n);
        }
        opt.reference = PyArray_DATA(ref);
        opt.bound = PyArray_DATA(bnd);
    }
    poolgrad_compare_report rep;
    rep.size = sizeof rep;
    poolgrad_status st;
    Py_BEGIN_ALLOW_THREADS
    st = poolgrad_compare_report_run(&at, &et, &opt, &rep);
    Py_END_ALLOW_THREADS
    Py_XDECREF(ref);
    Py_XDECREF(bnd);
    if (st != POOLGRAD_OK)
        return raise_lib("compare", st);
    size_t len = poolgrad_compare_report_format(&rep, NULL, 0);
    char *text = PyMem_Malloc(len + 1);
    if (!text)
        return PyErr_NoMemory();
    poolgrad_compare_report_format(&rep, text, len + 1);
    PyObject *worst = PyList_New(0);
    for (int w = 0; worst && w < rep.worst_count; w++) {
        PyObject *d = element_dict(&rep.worst[w], rep.rank);
        if (!d || PyList_Append(worst, d) < 0) {
            Py_XDECREF(d);
            Py_CLEAR(worst);
            break;
        }
        Py_DECREF(d);
    }
    if (!worst) {
        PyMem_Free(text);
        return NULL;
    }
    PyObject *r = Py_BuildValue(
        "{s:L,s:L,s:L,s:L,s:L,s:K,s:L,s:d,s:d,s:d,s:N,s:O,s:s}", "count", (long long)rep.count, "differing",
        (long long)rep.differing, "failed", (long long)rep.failed, "nan_mismatches", (long long)rep.nan_mismatches,
        "inf_mismatches", (long long)rep.inf_mismatches, "max_ulp", (unsigned long long)rep.max_ulp, "max_ulp_index",
        (long long)rep.max_ulp_index, "max_abs_error", rep.max_abs_error, "max_rel_error", rep.max_rel_error,
        "max_bound_ratio", rep.max_bound_ratio, "worst", worst, "passed", rep.passed ? Py_True : Py_False, "text", text);
    PyMem_Free(text);
    return r;
}

static PyObject *py_active_isa(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyUnicode_FromString(poolgrad_isa_name(poolgrad_active_isa()));
}

static PyObject *py_isas_built(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PyObject *l = PyList_New(0);
    for (int i = POOLGRAD_ISA_SCALAR; l && i <= POOLGRAD_ISA_NEON; i++)
        if (poolgrad_isa_built((poolgrad_isa)i)) {
            PyObject *s = PyUnicode_FromString(poolgrad_isa_name((poolgrad_isa)i));
            if (!s || PyList_Append(l, s) < 0) {
                Py_XDECREF(s);
                Py_CLEAR(l);
                break;
            }
            Py_DECREF(s);
        }
    return l;
}

static PyMethodDef methods[] = {
    { "backward", py_backward, METH_VARARGS, "backward(go, gi, sd, k, s, p, ceil, cip, divisor, threads, bf16) -> kernel" },
    { "output_shape", py_output_shape, METH_VARARGS, "output_shape(sd, input_shape, k, s, p, ceil) -> tuple" },
    { "error_bound", py_error_bound, METH_VARARGS, "error_bound(go, shape, sd, k, s, p, ceil, cip, div, model, bf16)" },
    { "compare", py_compare, METH_VARARGS, "compare(actual, expected, bf16, max_ulp, atol, rtol, ref, bound, model)" },
    { "active_isa", py_active_isa, METH_NOARGS, "the ISA plans use now" },
    { "isas_built", py_isas_built, METH_NOARGS, "the ISAs whose kernels are in the library" },
    { NULL, NULL, 0, NULL }
};

static struct PyModuleDef module = { PyModuleDef_HEAD_INIT, "poolgrad._core", "libpoolgrad binding", -1, methods,
                                     NULL, NULL, NULL, NULL };

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    PyModule_AddStringConstant(m, "library_version", poolgrad_version_string());
    return m;
}
