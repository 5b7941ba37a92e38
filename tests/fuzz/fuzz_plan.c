/*
 * libFuzzer target: bytes -> an avg-pool backward problem (shapes, strides, offsets, storage sizes,
 * parameters, dtypes, aliasing, executor misuse), run through the native API and the aclnn front.
 *
 * Every storage the problem claims is allocated with exactly storage_numel * elemsize bytes
 * (so ASan sees any access outside it) whenever it fits the budget; larger claims are planned only
 * (planning never touches the data). A crash, a sanitizer report or an abort() below is a finding:
 *   - execute wrote outside gradInput's view (checked byte by byte against a fill pattern),
 *   - results differ between the dispatched kernel, the scalar reference and the aclnn front,
 *   - an execute-phase status differs from the documented one.
 * Built by tests/fuzz/meson.build (clang) and replayed by replay.c (any compiler).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_avgpool3d_backward.h"
#include "poolgrad/poolgrad.h"

#define STORAGE_BUDGET (16 << 20) /* bytes per buffer actually allocated */
#define WORK_BUDGET 4.0e6         /* window visits per execute */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

extern void omp_set_num_threads(int) __attribute__((weak));

#define FINDING(...)                                                                                                   \
    do {                                                                                                               \
        fprintf(stderr, "fuzz_plan finding: " __VA_ARGS__);                                                            \
        fputc('\n', stderr);                                                                                           \
        abort();                                                                                                       \
    } while (0)

static void dump_tensor(const char *name, const poolgrad_tensor *t)
{
    fprintf(stderr, "  %s: dtype %d rank %d shape", name, (int)t->dtype, (int)t->rank);
    for (int d = 0; d < t->rank && d < POOLGRAD_MAX_RANK; d++)
        fprintf(stderr, " %lld", (long long)t->shape[d]);
    fprintf(stderr, " strides");
    for (int d = 0; d < t->rank && d < POOLGRAD_MAX_RANK; d++)
        fprintf(stderr, " %lld", (long long)t->strides[d]);
    fprintf(stderr, " offset %lld storage %lld\n", (long long)t->offset, (long long)t->storage_numel);
}

static void dump_problem(const poolgrad_params *pa, const poolgrad_tensor *go, const poolgrad_tensor *gi)
{
    fprintf(stderr, "  params: sd %d k %lld %lld %lld s %lld %lld %lld p %lld %lld %lld ceil %d cip %d div %lld\n",
            (int)pa->spatial_dims, (long long)pa->kernel[0], (long long)pa->kernel[1], (long long)pa->kernel[2],
            (long long)pa->stride[0], (long long)pa->stride[1], (long long)pa->stride[2], (long long)pa->padding[0],
            (long long)pa->padding[1], (long long)pa->padding[2], (int)pa->ceil_mode, (int)pa->count_include_pad,
            (long long)pa->divisor_override);
    dump_tensor("gradOutput", go);
    dump_tensor("gradInput", gi);
}

/* ---------------------------------------------------------------- byte source */
typedef struct src {
    const uint8_t *p;
    size_t n, i;
} src;

static uint8_t u8(src *s) { return s->i < s->n ? s->p[s->i++] : 0; }

static uint64_t u64(src *s)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | u8(s);
    return v;
}

static const int64_t extremes[] = {
    INT64_MIN, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1, INT64_MAX / 2, INT64_MAX / 2 + 1, -1, -2,
    (int64_t)1 << 31, ((int64_t)1 << 31) + 1, (int64_t)1 << 32, ((int64_t)1 << 32) + 1, INT32_MAX, UINT32_MAX,
    (int64_t)1 << 62, -((int64_t)1 << 62), ((int64_t)1 << 62) + 1, (int64_t)1 << 40, (int64_t)3037000500,
    (int64_t)-3037000500, 65536, 1000003, 0, 1, 2, 3, 7, 8, 16, 100,
};
#define N_EXTREMES ((int)(sizeof extremes / sizeof extremes[0]))

/* Mostly a small value in [lo, hi], sometimes an extreme one, sometimes 8 raw bytes. */
static int64_t val(src *s, int64_t lo, int64_t hi)
{
    uint8_t b = u8(s);
    if (b < 232)
        return lo + (int64_t)(b % (uint64_t)(hi - lo + 1));
    if (b < 232 + 20)
        return extremes[(b - 232 + u8(s)) % N_EXTREMES];
    return (int64_t)u64(s);
}

/* ---------------------------------------------------------------- problem */
typedef struct buf {
    unsigned char *mem; /* exactly bytes long, or NULL if not allocated */
    size_t bytes;
} buf;

static const unsigned char FILL = 0xA5;

/* Reach [lo, hi] of a view relative to its offset; false on overflow. */
static bool span_of(const int64_t *shape, const int64_t *strides, int rank, int64_t *lo, int64_t *hi)
{
    int64_t l = 0, h = 0;
    for (int d = 0; d < rank; d++) {
        int64_t sp;
        if (shape[d] <= 0)
            return false;
        if (__builtin_mul_overflow(shape[d] - 1, strides[d], &sp))
            return false;
        if (sp < 0 ? __builtin_add_overflow(l, sp, &l) : __builtin_add_overflow(h, sp, &h))
            return false;
    }
    *lo = l;
    *hi = h;
    return true;
}

/* Decode strides, offset and storage size for a view of `shape`. */
static void decode_view(src *s, poolgrad_tensor *t)
{
    const int rank = t->rank >= 0 && t->rank <= POOLGRAD_MAX_RANK ? t->rank : 0;
    uint8_t mode = u8(s) % 8;
    int64_t st = 1;
    bool ok = true;
    /* contiguous (or with gaps / channels-last / random) */
    int order[POOLGRAD_MAX_RANK];
    for (int i = 0; i < rank; i++)
        order[i] = rank - 1 - i;
    if (mode == 1 && rank >= 3) { /* channels-last: C innermost */
        int c = rank >= 4 ? 1 : 0, k = 0;
        order[k++] = c;
        for (int d = rank - 1; d >= 0; d--)
            if (d != c)
                order[k++] = d;
    }
    int64_t gap = mode == 2 ? 1 + (u8(s) % 3) : 1;
    for (int i = 0; i < rank; i++) {
        int d = order[i];
        t->strides[d] = st;
        int64_t e = t->shape[d] > 0 ? t->shape[d] : 1;
        if (__builtin_mul_overflow(st, e, &st) || __builtin_mul_overflow(st, gap, &st))
            ok = false, st = 1;
    }
    if (mode == 3) { /* flip some dims to negative strides */
        uint8_t m = u8(s);
        for (int d = 0; d < rank; d++)
            if (m >> d & 1)
                t->strides[d] = -t->strides[d];
    } else if (mode == 4) { /* random small signed strides (may overlap) */
        for (int d = 0; d < rank; d++)
            t->strides[d] = val(s, -6, 6);
    } else if (mode == 5) { /* one hostile stride */
        t->strides[u8(s) % (rank ? rank : 1)] = val(s, -3, 3);
    } else if (mode == 6) { /* swap two strides (a permuted view) */
        int a = u8(s) % (rank ? rank : 1), b = u8(s) % (rank ? rank : 1);
        int64_t x = t->strides[a];
        t->strides[a] = t->strides[b];
        t->strides[b] = x;
    }
    int64_t lo = 0, hi = 0;
    bool empty = false;
    for (int d = 0; d < rank; d++)
        if (t->shape[d] == 0)
            empty = true;
    if (!empty && !span_of(t->shape, t->strides, rank, &lo, &hi))
        ok = false;
    /* offset so that the lowest element is at 0, then some slack or a hostile value */
    uint8_t om = u8(s);
    t->offset = lo == INT64_MIN ? 0 : -lo;
    if (om >= 200)
        t->offset = val(s, -2, 4);
    else if (om >= 150 && __builtin_add_overflow(t->offset, om % 4, &t->offset))
        t->offset = INT64_MAX;
    int64_t need;
    if (!ok || __builtin_add_overflow(t->offset, hi, &need) || __builtin_add_overflow(need, 1, &need))
        need = INT64_MAX;
    if (empty)
        need = 0;
    uint8_t sm = u8(s);
    t->storage_numel = need;
    if (sm >= 220)
        t->storage_numel = val(s, -1, 8);
    else if (sm >= 180)
        t->storage_numel = need - 1 - (sm % 3); /* too small */
    else if (sm >= 160 && need < INT64_MAX - 8)
        t->storage_numel = need + sm % 8;
}

static void alloc_for(const poolgrad_tensor *t, buf *b)
{
    b->mem = NULL;
    b->bytes = 0;
    size_t es = poolgrad_dtype_size(t->dtype);
    if (es == 0)
        es = 4;
    if (t->storage_numel < 0 || (uint64_t)t->storage_numel > (uint64_t)STORAGE_BUDGET / es)
        return;
    b->bytes = (size_t)t->storage_numel * es;
    b->mem = malloc(b->bytes ? b->bytes : 1);
    if (!b->mem)
        abort();
}

static int acl_dtype(poolgrad_dtype dt)
{
    switch (dt) {
    case POOLGRAD_F32: return ACL_FLOAT;
    case POOLGRAD_F16: return ACL_FLOAT16;
    case POOLGRAD_BF16: return ACL_BF16;
    }
    return (int)dt;
}

/* Estimated window visits of an execute (double: no overflow). */
static double work_of(const poolgrad_params *pa, const poolgrad_tensor *gi)
{
    if (gi->rank < 0 || gi->rank > POOLGRAD_MAX_RANK || (pa->spatial_dims != 2 && pa->spatial_dims != 3))
        return 1e300;
    double w = 1.0;
    for (int d = 0; d < gi->rank; d++)
        w *= (double)gi->shape[d];
    for (int a = 0; a < pa->spatial_dims; a++) {
        if (pa->stride[a] <= 0 || pa->kernel[a] <= 0)
            return 1e300;
        w *= (double)pa->kernel[a] / (double)pa->stride[a] + 1.0;
    }
    return w < 0 ? 1e300 : w;
}

/* Mark every element of a non-empty view (native layout). */
static void mark_view(const poolgrad_tensor *t, unsigned char *mask)
{
    int64_t idx[POOLGRAD_MAX_RANK] = { 0 };
    for (;;) {
        int64_t o = t->offset;
        for (int d = 0; d < t->rank; d++)
            o += idx[d] * t->strides[d];
        mask[o] = 1;
        int d = t->rank - 1;
        for (; d >= 0; d--) {
            if (++idx[d] < t->shape[d])
                break;
            idx[d] = 0;
        }
        if (d < 0)
            return;
    }
}

/* Check that nothing outside gradInput's view changed. */
static void check_untouched(const poolgrad_tensor *gi, const buf *b, const char *who)
{
    size_t es = poolgrad_dtype_size(gi->dtype);
    size_t n = b->bytes / es;
    unsigned char *mask = calloc(n ? n : 1, 1);
    if (!mask)
        abort();
    int64_t numel = 1;
    for (int d = 0; d < gi->rank; d++)
        numel *= gi->shape[d];
    if (numel > 0)
        mark_view(gi, mask);
    for (size_t i = 0; i < n; i++)
        if (!mask[i])
            for (size_t k = 0; k < es; k++)
                if (b->mem[i * es + k] != FILL)
                    FINDING("%s wrote element %zu outside gradInput's view", who, i);
    free(mask);
}

static void fill_go(const buf *b, src *s)
{
    /* deterministic non-trivial values: a byte pattern seeded from the input */
    uint32_t x = 0x9e3779b9u ^ u8(s);
    for (size_t i = 0; i < b->bytes; i++) {
        x = x * 1664525u + 1013904223u;
        b->mem[i] = (unsigned char)(x >> 24);
    }
}

/* First element (storage index) whose bytes differ (memcmp: every stored NaN is canonical); -1 if none. */
static int64_t first_difference(poolgrad_dtype dt, const unsigned char *a, const unsigned char *b, size_t bytes)
{
    const size_t es = poolgrad_dtype_size(dt);
    if (memcmp(a, b, bytes) == 0)
        return -1;
    for (size_t at = 0; at + es <= bytes; at += es)
        if (memcmp(a + at, b + at, es) != 0)
            return (int64_t)(at / es);
    return -1;
}

/* ---------------------------------------------------------------- aclnn */
static aclTensor *mk_acl(const poolgrad_tensor *t, int dtype, int format, int storage_mode, void *data)
{
    int64_t sdims[2];
    uint64_t ns = 1;
    sdims[0] = t->storage_numel;
    if (storage_mode == 1 && t->storage_numel > 0 && t->storage_numel % 2 == 0) {
        sdims[0] = 2;
        sdims[1] = t->storage_numel / 2;
        ns = 2;
    } else if (storage_mode == 2) { /* product overflows */
        sdims[0] = (int64_t)1 << 40;
        sdims[1] = (int64_t)1 << 40;
        ns = 2;
    }
    int r = t->rank >= 0 && t->rank <= POOLGRAD_MAX_RANK ? t->rank : 0;
    return aclCreateTensor(t->shape, (uint64_t)r, (aclDataType)dtype, t->strides, t->offset, (aclFormat)format, sdims,
                           ns, data);
}

/* An aclIntArray for v[0..axes); *same stays true only if it expands back to exactly v. */
static aclIntArray *mk_arr(src *s, const int64_t *v, int axes, bool *same)
{
    uint8_t m = u8(s);
    if (m < 200)
        return aclCreateIntArray(v, (uint64_t)axes);
    for (int a = 1; a < axes; a++)
        if (v[a] != v[0])
            *same = false;
    if (m < 230)
        return aclCreateIntArray(v, 1);
    *same = false;
    return aclCreateIntArray(v, (uint64_t)(m % 4));
}

static void run_aclnn(src *s, const poolgrad_params *pa, const poolgrad_tensor *go, const poolgrad_tensor *gi,
                      const buf *gib, bool shared, const unsigned char *native_result,
                      bool exec_ok)
{
    const int sd = pa->spatial_dims;
    uint8_t fm = u8(s);
    int fmt_go, fmt_gi;
    if (sd == 2)
        fmt_go = fmt_gi = gi->rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCL;
    else
        fmt_go = fmt_gi = (fm & 1) ? ACL_FORMAT_ND : ACL_FORMAT_NCDHW;
    if (fm >= 240)
        fmt_go = (int)val(s, -1, 54);
    if (fm >= 230 && fm < 240)
        fmt_gi = (int)val(s, -1, 54);
    int dt = acl_dtype(gi->dtype), dt_self = dt;
    uint8_t dm = u8(s);
    if (dm >= 240)
        dt = (int)val(s, -1, 30);
    else if (dm >= 200)
        dt_self = (int)(dm % 3 == 0 ? ACL_FLOAT : dm % 3 == 1 ? ACL_FLOAT16 : ACL_BF16);
    const size_t acl_es = dt == ACL_FLOAT ? 4 : dt == ACL_FLOAT16 || dt == ACL_BF16 ? 2 : 0;
    int smode = u8(s) % 8;
    void *gi_data = gi->storage, *go_data = go->storage;
    aclTensor *tgo = mk_acl(go, dt, fmt_go, smode == 2 ? 2 : smode & 1, go_data);
    aclTensor *tgi = mk_acl(gi, dt, fmt_gi, smode & 1, gi_data);
    aclTensor *tself = mk_acl(gi, dt_self, fmt_gi, 0, NULL);
    bool same = true;
    aclIntArray *k = mk_arr(s, pa->kernel, sd, &same);
    uint8_t sm = u8(s);
    aclIntArray *st = sm < 200 ? mk_arr(s, pa->stride, sd, &same) : sm < 230 ? aclCreateIntArray(NULL, 0) : NULL;
    if (sm >= 200)
        for (int a = 0; a < sd; a++)
            if (pa->stride[a] != pa->kernel[a])
                same = false;
    aclIntArray *p = mk_arr(s, pa->padding, sd, &same);
    int8_t cube = (int8_t)(u8(s) >= 240 ? (int)val(s, -4, 6) : 0);
    uint64_t wsz = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus r;
    if (sd == 2)
        r = aclnnAvgPool2dBackwardGetWorkspaceSize(tgo, tself, k, st, p, pa->ceil_mode, pa->count_include_pad,
                                                   pa->divisor_override, cube, tgi, &wsz, &ex);
    else
        r = aclnnAvgPool3dBackwardGetWorkspaceSize(tgo, tself, k, st, p, pa->ceil_mode, pa->count_include_pad,
                                                   pa->divisor_override, tgi, &wsz, &ex);
    if (r != ACLNN_SUCCESS && r != ACLNN_ERR_PARAM_NULLPTR && r != ACLNN_ERR_PARAM_INVALID)
        FINDING("aclnn GetWorkspaceSize returned %d", (int)r);
    if ((r == ACLNN_SUCCESS) != (ex != NULL))
        FINDING("aclnn GetWorkspaceSize status %d with executor %p", (int)r, (void *)ex);
    if (r == ACLNN_SUCCESS) {
        aclnnStatus (*run)(void *, uint64_t, aclOpExecutor *, aclrtStream) =
            sd == 2 ? aclnnAvgPool2dBackward : aclnnAvgPool3dBackward;
        uint8_t misuse = u8(s) % 6;
        bool can_run = exec_ok && !shared && acl_es == poolgrad_dtype_size(gi->dtype);
        if (misuse == 5 || !can_run) {
            if (aclDestroyAclOpExecutor(ex) != ACLNN_SUCCESS)
                FINDING("aclDestroyAclOpExecutor failed");
        } else {
            void *ws = wsz ? malloc((size_t)wsz) : NULL;
            if (wsz && !ws)
                abort();
            if (misuse == 1 && wsz > 0 && run(NULL, wsz, ex, NULL) != ACLNN_ERR_PARAM_NULLPTR)
                FINDING("NULL workspace not refused with 161001");
            if (misuse == 2 && wsz > 0 && run(ws, wsz - 1, ex, NULL) != ACLNN_ERR_PARAM_INVALID)
                FINDING("short workspace not refused with 161002");
            if (misuse == 3 && run(ws, wsz, NULL, NULL) != ACLNN_ERR_PARAM_NULLPTR)
                FINDING("NULL executor not refused with 161001");
            memset(gib->mem, FILL, gib->bytes);
            r = run(ws, wsz, ex, NULL);
            if (r != ACLNN_SUCCESS)
                FINDING("aclnn execute failed with %d", (int)r);
            free(ws);
            check_untouched(gi, gib, "aclnn execute");
            if (native_result && same && dt == acl_dtype(gi->dtype) && memcmp(native_result, gib->mem, gib->bytes) != 0)
                FINDING("aclnn result differs from the native one");
        }
    }
    aclDestroyTensor(tgo);
    aclDestroyTensor(tgi);
    aclDestroyTensor(tself);
    aclDestroyIntArray(k);
    aclDestroyIntArray(st);
    aclDestroyIntArray(p);
}

/* ---------------------------------------------------------------- entry */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (omp_set_num_threads)
        omp_set_num_threads(1);
    return 0;
}

/* Execute a plan with the ISA cap `isa` (NULL = auto), return a copy of gradInput's storage. */
static unsigned char *exec_native(const poolgrad_params *pa, const poolgrad_tensor *go, const poolgrad_tensor *gi,
                                  const buf *gib, const char *isa, int threads)
{
    if (isa)
        setenv("POOLGRAD_ISA", isa, 1);
    else
        unsetenv("POOLGRAD_ISA");
    poolgrad_plan *plan = NULL;
    poolgrad_status st = poolgrad_plan_create(pa, go, gi, &plan);
    unsetenv("POOLGRAD_ISA");
    if (st != POOLGRAD_OK)
        FINDING("plan status changed with the ISA cap: %d", (int)st);
    size_t wsz = poolgrad_plan_workspace_size(plan);
    void *ws = wsz ? malloc(wsz) : NULL;
    if (wsz && !ws)
        abort();
    if (wsz && poolgrad_execute(plan, NULL, wsz, threads) != POOLGRAD_ERR_WORKSPACE)
        FINDING("NULL workspace not refused");
    if (wsz && poolgrad_execute(plan, ws, wsz - 1, threads) != POOLGRAD_ERR_WORKSPACE)
        FINDING("short workspace not refused");
    memset(gib->mem, FILL, gib->bytes);
    st = poolgrad_execute(plan, ws, wsz, threads);
    if (st != POOLGRAD_OK)
        FINDING("execute failed with %d", (int)st);
    free(ws);
    poolgrad_plan_destroy(plan);
    check_untouched(gi, gib, isa ? isa : "execute");
    unsigned char *copy = malloc(gib->bytes ? gib->bytes : 1);
    if (!copy)
        abort();
    memcpy(copy, gib->mem, gib->bytes);
    return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    src s = { data, size, 0 };
    uint8_t f = u8(&s);
    const bool use_aclnn = f & 1;
    poolgrad_params pa;
    memset(&pa, 0, sizeof pa);
    pa.spatial_dims = (f & 2) ? 3 : 2;
    pa.ceil_mode = (f >> 4) & 1;
    pa.count_include_pad = (f >> 5) & 1;
    poolgrad_dtype dt = (poolgrad_dtype)((f >> 2) & 3);
    if (dt == 3)
        dt = (poolgrad_dtype)val(&s, -2, 5);
    int sd = pa.spatial_dims;
    int rank = (f & 64) ? sd + 1 : sd + 2;
    if (f & 128) /* a hostile rank now and then */
        rank = (int)val(&s, 0, 7);
    poolgrad_tensor gi, go;
    memset(&gi, 0, sizeof gi);
    memset(&go, 0, sizeof go);
    gi.dtype = go.dtype = dt;
    gi.rank = go.rank = rank;
    const int r5 = rank >= 0 && rank <= POOLGRAD_MAX_RANK ? rank : 0;
    for (int d = 0; d < r5; d++)
        gi.shape[d] = val(&s, 0, d < r5 - sd ? 3 : 7);
    for (int a = 0; a < sd; a++) {
        pa.kernel[a] = val(&s, 1, 4);
        pa.stride[a] = val(&s, 1, 4);
        pa.padding[a] = val(&s, 0, 2);
    }
    uint8_t dv = u8(&s);
    pa.divisor_override = dv < 200 ? 0 : val(&s, -3, 3);
    /* gradOutput's shape: inferred (mostly) or raw */
    uint8_t gm = u8(&s);
    if (gm < 200 && poolgrad_output_shape(&pa, rank, gi.shape, go.shape) == POOLGRAD_OK) {
        if (gm >= 180) { /* off by one somewhere (down at the top of int64: an extreme input shape) */
            int64_t *e = &go.shape[gm % (r5 ? r5 : 1)];
            *e = *e < INT64_MAX ? *e + 1 : *e - 1;
        }
    } else {
        for (int d = 0; d < r5; d++)
            go.shape[d] = val(&s, 0, 7);
    }
    decode_view(&s, &gi);
    decode_view(&s, &go);
    /* buffers: separate, or one shared storage (aliasing) */
    uint8_t sh = u8(&s);
    const bool shared = sh >= 220;
    buf gib, gob = { NULL, 0 };
    if (shared) {
        if (go.storage_numel > gi.storage_numel)
            gi.storage_numel = go.storage_numel;
        go.storage_numel = gi.storage_numel;
    }
    alloc_for(&gi, &gib);
    if (!shared)
        alloc_for(&go, &gob);
    /* a claim too big to allocate is planned against a dummy pointer, never executed */
    static unsigned char dummy[8];
    gi.storage = gib.mem ? (void *)gib.mem : (void *)dummy;
    go.storage = shared ? gi.storage : gob.mem ? (void *)gob.mem : (void *)dummy;
    uint8_t hostile = u8(&s);
    if (hostile >= 250)
        gi.storage = NULL;
    else if (hostile >= 245)
        go.dtype = (poolgrad_dtype)((dt + 1) % 3);
    if (gob.mem)
        fill_go(&gob, &s);
    else if (shared && gib.mem)
        fill_go(&gib, &s);

    if (getenv("FUZZ_PLAN_DUMP")) /* describe the decoded problem (for triaging an input) */
        dump_problem(&pa, &go, &gi);
    poolgrad_plan *plan = (poolgrad_plan *)&dummy;
    poolgrad_status st = poolgrad_plan_create(&pa, &go, &gi, &plan);
    if ((st == POOLGRAD_OK) != (plan != NULL))
        FINDING("plan status %d with plan %p", (int)st, (void *)plan);
    if ((unsigned)st > POOLGRAD_ERR_THREADS)
        FINDING("unknown status %d", (int)st);
    const bool really_allocated = gib.mem && gi.storage && (gob.mem || shared || go.storage_numel <= 0);
    const bool exec_ok = really_allocated && work_of(&pa, &gi) <= WORK_BUDGET;
    unsigned char *native_result = NULL;
    if (st == POOLGRAD_OK) {
        poolgrad_plan_destroy(plan);
        if (exec_ok) {
            if (shared) {
                /* planning refuses any overlap, so a shared storage that passed is disjoint: it must run */
                poolgrad_plan *p2;
                if (poolgrad_plan_create(&pa, &go, &gi, &p2) != POOLGRAD_OK)
                    FINDING("plan not repeatable");
                size_t wsz = poolgrad_plan_workspace_size(p2);
                void *ws = wsz ? malloc(wsz) : NULL;
                if (poolgrad_execute(p2, ws, wsz, 1) != POOLGRAD_OK)
                    FINDING("shared-storage execute failed");
                free(ws);
                poolgrad_plan_destroy(p2);
            } else {
                native_result = exec_native(&pa, &go, &gi, &gib, NULL, 1);
                unsigned char *ref = exec_native(&pa, &go, &gi, &gib, "scalar", 1);
                unsigned char *mt = exec_native(&pa, &go, &gi, &gib, NULL, 3);
                int64_t at = first_difference(gi.dtype, native_result, ref, gib.bytes);
                if (at >= 0) {
                    size_t es = poolgrad_dtype_size(gi.dtype);
                    uint32_t a = 0, b = 0;
                    memcpy(&a, native_result + (size_t)at * es, es);
                    memcpy(&b, ref + (size_t)at * es, es);
                    dump_problem(&pa, &go, &gi);
                    fprintf(stderr, "  first difference at storage element %lld: dispatched 0x%x, reference 0x%x\n",
                            (long long)at, (unsigned)a, (unsigned)b);
                    FINDING("dispatched kernel differs from the scalar reference");
                }
                if (memcmp(native_result, mt, gib.bytes) != 0)
                    FINDING("result depends on the thread count");
                free(ref);
                free(mt);
            }
        }
    }
    if (use_aclnn)
        run_aclnn(&s, &pa, &go, &gi, &gib, shared, native_result, exec_ok);
    free(native_result);
    free(gib.mem);
    free(gob.mem);
    return 0;
}
