/*
 * Determinism stress test (SEMANTICS.md sections 4-5), framework-free so it also runs under
 * qemu-x86_64 (other CPU models) and on AArch64: random 2D/3D problems in f32/f16/bf16 whose gradOutput
 * is dense in special values (NaNs of every sign, payload and quietness; +-inf; +-0; f32 and f16
 * subnormals; values near the f16 max; f32 values whose sums overflow, against opposite infinities).
 *
 * The scalar reference is computed once per problem into sentinel-guarded storage. Then every kernel of
 * kernels/kernel_list.h this CPU can run (checkasm's rule) that supports the problem is called directly,
 * prepare + run over random work splits (random chunk boundaries, random order, garbage-filled and
 * workspace at a random float-aligned offset), and the public path runs under every POOLGRAD_ISA cap the CPU can run with
 * 1, 2, 3, 5, 7 and 8 threads. Each result's WHOLE storage (guard zones and view gaps included) must be
 * memcmp-equal to the reference's, and every NaN in gradInput must be the dtype's canonical quiet NaN.
 *
 * Environment: POOLGRAD_TEST_SEED (seed, printed), POOLGRAD_STRESS_CASES (total problems, default 4000),
 * POOLGRAD_EXPECT_ISA (fail unless the detected ISA, POOLGRAD_ISA unset, has this name), POOLGRAD_ISA at
 * start (caps which kernels are called directly, like checkasm). TAP output.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv, clock_gettime */
#include <math.h>
#include <stdarg.h>
#include <time.h>

#include "internal.h"
#include "kernel_list.h"
#include "testutil.h"

#define POOLGRAD_KERNEL_ENTRY(sym) &sym,
static const poolgrad_kernel *const all_kernels[] = { POOLGRAD_FOREACH_KERNEL(POOLGRAD_KERNEL_ENTRY) };
#undef POOLGRAD_KERNEL_ENTRY
#define NKERNELS (sizeof all_kernels / sizeof all_kernels[0])

static const int thread_counts[] = { 1, 2, 3, 5, 7, 8 };
#define NTHREADS (sizeof thread_counts / sizeof thread_counts[0])

#if defined(__aarch64__)
static const char *const caps[] = { "scalar", "neon" };
#else
static const char *const caps[] = { "scalar", "sse2", "avx2", "avx512" };
#endif
#define NCAPS (sizeof caps / sizeof caps[0])

static const char *dtype_name(poolgrad_dtype dt) { return dt == POOLGRAD_F32 ? "f32" : dt == POOLGRAD_F16 ? "f16" : "bf16"; }

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------ ISA */

static char start_cap_buf[64];
static const char *start_cap; /* POOLGRAD_ISA at start, NULL if unset */

/* the CPU's ISA: POOLGRAD_ISA unset (cpuid-driven detection) */
static poolgrad_isa cpu_isa(void)
{
    unsetenv("POOLGRAD_ISA");
    poolgrad_isa isa = poolgrad_active_isa();
    if (start_cap)
        setenv("POOLGRAD_ISA", start_cap, 1);
    return isa;
}

static int cpu_level;

/* checkasm's rule: ISA level <= the CPU's (and the start cap's), NEON only on AArch64 */
static bool cpu_runs(const poolgrad_kernel *k)
{
    if (poolgrad_isa_level(k->isa) > poolgrad_isa_cap_level(start_cap))
        return false;
#if defined(__aarch64__)
    return k->isa == POOLGRAD_ISA_SCALAR || k->isa == POOLGRAD_ISA_NEON;
#else
    if (k->isa == POOLGRAD_ISA_NEON)
        return false;
    return poolgrad_isa_level(k->isa) <= cpu_level;
#endif
}

static bool cap_runs(const char *cap)
{
    int level = poolgrad_isa_cap_level(cap);
    return level <= cpu_level && level <= poolgrad_isa_cap_level(start_cap);
}

/* ------------------------------------------------------------------ special values (raw bits) */

static uint32_t canonical_nan(poolgrad_dtype dt)
{
    return dt == POOLGRAD_F32 ? 0x7fc00000u : dt == POOLGRAD_F16 ? 0x7e00u : 0x7fc0u;
}

static bool is_nan_bits(poolgrad_dtype dt, uint32_t v)
{
    switch (dt) {
    case POOLGRAD_F32: return (v & 0x7fffffffu) > 0x7f800000u;
    case POOLGRAD_F16: return (v & 0x7fffu) > 0x7c00u;
    default: return (v & 0x7fffu) > 0x7f80u;
    }
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* bits of value v in dtype dt, through the library's conversions */
static uint32_t to_bits(poolgrad_dtype dt, float v)
{
    return dt == POOLGRAD_F32 ? f32_bits(v) : dt == POOLGRAD_F16 ? poolgrad_f32_to_f16(v) : poolgrad_f32_to_bf16(v);
}

enum {
    SP_QNAN, SP_SNAN, SP_PINF, SP_NINF, SP_PZERO, SP_NZERO, SP_F32_SUB, SP_F16_SUB, SP_NEAR_F16_MAX,
    SP_F32_LARGE, SP_MIN_NORMAL, SP_COUNT
};

/* per-problem value mix: density of specials, a favoured special, a sign bias */
typedef struct value_mix {
    int density;  /* specials per 100 elements */
    int favoured; /* half of the specials are this kind, -1 = none */
    int sign;     /* 0 random, 1 mostly +, 2 mostly - (for sums that overflow) */
} value_mix;

static uint32_t draw_sign(pgt_rng *r, const value_mix *m, uint32_t bit)
{
    uint64_t x = pgt_next(r) % 8;
    if (m->sign == 1)
        return x == 0 ? bit : 0;
    if (m->sign == 2)
        return x == 0 ? 0 : bit;
    return (x & 1) ? bit : 0;
}

static uint32_t special_bits(pgt_rng *r, poolgrad_dtype dt, int kind, const value_mix *m)
{
    const uint32_t sbit = dt == POOLGRAD_F32 ? 0x80000000u : 0x8000u;
    const uint32_t s = draw_sign(r, m, sbit);
    const uint32_t any_s = (pgt_next(r) & 1) ? sbit : 0; /* NaN signs are always random */
    const uint64_t x = pgt_next(r);
    const float sf = s ? -1.0f : 1.0f;
    const float u = fabsf(pgt_unit(r));
    switch (kind) {
    case SP_QNAN: /* quiet bit set, random payload */
        return dt == POOLGRAD_F32 ? any_s | 0x7fc00000u | (uint32_t)(x & 0x3fffffu)
             : dt == POOLGRAD_F16 ? any_s | 0x7e00u | (uint32_t)(x & 0x1ffu)
                                  : any_s | 0x7fc0u | (uint32_t)(x & 0x3fu);
    case SP_SNAN: /* quiet bit clear, nonzero payload */
        return dt == POOLGRAD_F32 ? any_s | 0x7f800000u | (uint32_t)(1 + x % 0x3fffffu)
             : dt == POOLGRAD_F16 ? any_s | 0x7c00u | (uint32_t)(1 + x % 0x1ffu)
                                  : any_s | 0x7f80u | (uint32_t)(1 + x % 0x3fu);
    case SP_PINF: return dt == POOLGRAD_F32 ? 0x7f800000u : dt == POOLGRAD_F16 ? 0x7c00u : 0x7f80u;
    case SP_NINF: return dt == POOLGRAD_F32 ? 0xff800000u : dt == POOLGRAD_F16 ? 0xfc00u : 0xff80u;
    case SP_PZERO: return 0;
    case SP_NZERO: return sbit;
    case SP_F32_SUB: /* f32-range subnormals (bf16 has them too); f16 takes its own */
        return dt == POOLGRAD_F32 ? s | (uint32_t)(1 + x % 0x7fffffu)
             : dt == POOLGRAD_F16 ? s | (uint32_t)(1 + x % 0x3ffu)
                                  : s | (uint32_t)(1 + x % 0x7fu);
    case SP_F16_SUB: /* f16 subnormal range: multiples of 2^-24 below 2^-14, or anything below 2^-14 */
        if (dt == POOLGRAD_F16)
            return s | (uint32_t)(1 + x % 0x3ffu);
        return to_bits(dt, (x & 1) ? sf * (float)(1 + (x >> 1) % 1023) * 0x1p-24f : sf * u * 0x1p-14f);
    case SP_NEAR_F16_MAX: /* two of them overflow f16 after the division by small divisors */
        if (dt == POOLGRAD_F16)
            return s | (uint32_t)(0x7bffu - x % 24);
        return to_bits(dt, sf * (65504.0f - (float)(x % 64) * 8.0f));
    case SP_F32_LARGE: /* sums overflow f32 (f16: its max) */
        if (dt == POOLGRAD_F16)
            return s | 0x7bffu;
        if (dt == POOLGRAD_BF16)
            return s | (uint32_t)(0x7f00u + x % 0x80u); /* 1.7e38 .. 3.4e38 */
        return (x & 7) == 0 ? f32_bits(sf * 3.4028235e38f) : f32_bits(sf * (1.0e38f + u * 2.4e38f));
    case SP_MIN_NORMAL: /* quotients become subnormal */
        return dt == POOLGRAD_F32 ? s | 0x00800000u | (uint32_t)(x & 0x7fffffu)
             : dt == POOLGRAD_F16 ? s | 0x0400u | (uint32_t)(x & 0x3ffu)
                                  : s | 0x0080u | (uint32_t)(x & 0x7fu);
    }
    return 0;
}

static uint32_t draw_value(pgt_rng *r, poolgrad_dtype dt, const value_mix *m)
{
    if ((int)(pgt_next(r) % 100) < m->density) {
        int kind = (m->favoured >= 0 && (pgt_next(r) & 1)) ? m->favoured : (int)(pgt_next(r) % SP_COUNT);
        return special_bits(r, dt, kind, m);
    }
    float v = pgt_unit(r) * 4.0f;
    if (m->sign == 1)
        v = fabsf(v);
    else if (m->sign == 2)
        v = -fabsf(v);
    return to_bits(dt, v);
}

static void put_bits(poolgrad_dtype dt, void *base, int64_t i, uint32_t bits)
{
    if (dt == POOLGRAD_F32) {
        memcpy((char *)base + i * 4, &bits, 4);
    } else {
        uint16_t h = (uint16_t)bits;
        memcpy((char *)base + i * 2, &h, 2);
    }
}

static uint32_t get_bits(const unsigned char *p, size_t es)
{
    if (es == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    uint16_t h;
    memcpy(&h, p, 2);
    return h;
}

/* ------------------------------------------------------------------ views */

enum { LAYOUT_NCHW = PGT_LAYOUT_ROWMAJOR, LAYOUT_CL = PGT_LAYOUT_CHANNELS_LAST, LAYOUT_NCHW_GAPPED = PGT_LAYOUT_GAPPED,
       LAYOUT_CL_GAPPED = PGT_LAYOUT_GAPPED_CL, LAYOUT_COUNT };
static const char *const layout_names[] = { "nchw", "cl", "nchw+gaps", "cl+gaps" };

typedef pgt_view view;

/* a random view; gradOutput (extras) may also get a zero (broadcast) or negative stride, one in 10 each */
static void make_view(pgt_rng *r, view *v, poolgrad_dtype dt, int rank, int sd, const int64_t *shape, int layout,
                      bool extras)
{
    pgt_make_view(r, v, dt, rank, sd, shape, layout, extras ? 10 : 0, extras ? 10 : 0);
}

/* call fn(storage index) for every element of the view */
static void for_each_element(const poolgrad_tensor *t, void (*fn)(int64_t, void *), void *ctx)
{
    int64_t idx[POOLGRAD_MAX_RANK] = { 0 };
    for (;;) {
        int64_t e = t->offset;
        for (int d = 0; d < t->rank; d++)
            e += idx[d] * t->strides[d];
        fn(e, ctx);
        int d = t->rank - 1;
        while (d >= 0 && ++idx[d] == t->shape[d])
            idx[d--] = 0;
        if (d < 0)
            return;
    }
}

/* " at [i0 i1 ...]" if storage element e belongs to the view, else "" (a gap or outside the view) */
static void view_coords(const poolgrad_tensor *t, int64_t e, char *buf, size_t size)
{
    int64_t idx[POOLGRAD_MAX_RANK] = { 0 };
    buf[0] = 0;
    for (;;) {
        int64_t x = t->offset;
        for (int d = 0; d < t->rank; d++)
            x += idx[d] * t->strides[d];
        if (x == e) {
            int n = snprintf(buf, size, " at gradInput[");
            for (int d = 0; d < t->rank && n > 0 && (size_t)n < size; d++)
                n += snprintf(buf + n, size - (size_t)n, d ? " %lld" : "%lld", (long long)idx[d]);
            if (n > 0 && (size_t)n < size)
                snprintf(buf + n, size - (size_t)n, "]");
            return;
        }
        int d = t->rank - 1;
        while (d >= 0 && ++idx[d] == t->shape[d])
            idx[d--] = 0;
        if (d < 0) {
            snprintf(buf, size, " (not in the view: a gap)");
            return;
        }
    }
}

/* ------------------------------------------------------------------ problems */

typedef struct problem {
    int sd, rank, index;
    poolgrad_dtype dt;
    poolgrad_params pa;
    view go, gi, ref;
    poolgrad_plan *plan;
    value_mix mix;
    char desc[512];
} problem;

static const int64_t c_sizes[] = { 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33 };
static const int64_t w_sizes[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 15, 16, 17, 23, 31, 32, 33, 37 };
#define PICK(r, a) ((a)[pgt_next(r) % (sizeof(a) / sizeof((a)[0]))])

static int appendf(char *buf, int n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int appendf(char *buf, int n, const char *fmt, ...)
{
    if (n >= 512)
        return n;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + n, (size_t)(512 - n), fmt, ap);
    va_end(ap);
    return w > 0 ? n + w : n;
}

static int describe_view(char *buf, int n, const char *name, const poolgrad_tensor *t)
{
    n = appendf(buf, n, " %s [", name);
    for (int d = 0; d < t->rank; d++)
        n = appendf(buf, n, d ? " %lld" : "%lld", (long long)t->shape[d]);
    n = appendf(buf, n, "] strides [");
    for (int d = 0; d < t->rank; d++)
        n = appendf(buf, n, d ? " %lld" : "%lld", (long long)t->strides[d]);
    return appendf(buf, n, "] offset %lld of %lld;", (long long)t->offset, (long long)t->storage_numel);
}

/* A random problem; false if its parameters are invalid or it is too big (draw again). */
static bool make_problem(pgt_rng *r, problem *p, int sd, poolgrad_dtype dt)
{
    memset(p, 0, sizeof *p);
    p->sd = sd;
    p->dt = dt;
    poolgrad_params *pa = &p->pa;
    pa->spatial_dims = sd;
    for (int a = 0; a < sd; a++) {
        pa->kernel[a] = pgt_range(r, 1, (pgt_next(r) % 4) == 0 ? 6 : 4);
        int mode = (int)(pgt_next(r) % 3); /* k < s, k == s, k > s (overlap: several terms per element) */
        pa->stride[a] = mode == 0 ? pa->kernel[a] + pgt_range(r, 1, 2) : mode == 1 ? pa->kernel[a]
                                                                      : pgt_range(r, 1, pa->kernel[a]);
        pa->padding[a] = pgt_range(r, 0, pa->kernel[a] / 2);
    }
    pa->ceil_mode = pgt_next(r) & 1;
    pa->count_include_pad = pgt_next(r) & 1;
    switch (pgt_next(r) % 8) {
    case 0: pa->divisor_override = pgt_range(r, -3, 3); break; /* 0 = none; +-1: sums overflow */
    case 1: pa->divisor_override = pgt_range(r, 1, 3000000) * ((pgt_next(r) & 1) ? -1 : 1); break;
    case 2: pa->divisor_override = 1; break;
    default: pa->divisor_override = 0; break;
    }
    const bool batched = (pgt_next(r) % 4) != 0;
    const int rank = sd + (batched ? 2 : 1);
    p->rank = rank;
    int64_t shape[POOLGRAD_MAX_RANK];
    int d = 0;
    if (batched)
        shape[d++] = pgt_range(r, 1, 2);
    shape[d++] = (pgt_next(r) & 1) ? PICK(r, c_sizes) : pgt_range(r, 1, 3);
    for (int a = 0; a < sd; a++) {
        int64_t sz = a == sd - 1 ? PICK(r, w_sizes) : sd == 3 && a == 0 ? pgt_range(r, 1, 4) : pgt_range(r, 1, 9);
        int64_t lo = pa->kernel[a] - 2 * pa->padding[a]; /* output size >= 1 */
        shape[d++] = sz < lo ? lo : sz;
    }
    if ((pgt_next(r) % 12) == 0) /* global pooling: one window over everything */
        for (int a = 0; a < sd; a++) {
            int64_t in = shape[rank - sd + a];
            pa->kernel[a] = in + ((pgt_next(r) % 4) == 0);
            pa->stride[a] = pgt_range(r, 1, 2) * pa->kernel[a];
            pa->padding[a] = pa->kernel[a] > in && pa->kernel[a] >= 2 ? 1 : 0;
        }
    int64_t oshape[POOLGRAD_MAX_RANK], gi_n = 1;
    if (poolgrad_output_shape(pa, rank, shape, oshape) != POOLGRAD_OK)
        return false;
    for (int i = 0; i < rank; i++) {
        if (oshape[i] < 1)
            return false;
        gi_n *= shape[i];
    }
    if (gi_n > 6000)
        return false;
    const int gl = (int)(pgt_next(r) % LAYOUT_COUNT);
    const int ol = (pgt_next(r) % 4) == 0 ? (int)(pgt_next(r) % LAYOUT_COUNT) : gl;
    make_view(r, &p->gi, dt, rank, sd, shape, gl, false);
    make_view(r, &p->go, dt, rank, sd, oshape, ol, true);

    static const int densities[] = { 30, 60, 85, 100 };
    p->mix.density = PICK(r, densities);
    p->mix.favoured = (pgt_next(r) & 1) ? (int)(pgt_next(r) % SP_COUNT) : -1;
    p->mix.sign = (int)(pgt_next(r) % 3);
    for (int64_t i = 0; i < p->go.buf.numel; i++)
        put_bits(dt, p->go.buf.data, i, draw_value(r, dt, &p->mix));

    poolgrad_status st = poolgrad_plan_create(pa, &p->go.t, &p->gi.t, &p->plan);
    if (st != POOLGRAD_OK) {
        printf("# plan_create failed (%s) on a valid random problem\n", poolgrad_status_string(st));
        pgt_free(&p->go.buf);
        pgt_free(&p->gi.buf);
        return false;
    }
    int n = appendf(p->desc, 0, "%dd %s rank %d;", sd, dtype_name(dt), rank);
    n = describe_view(p->desc, n, "gradInput", &p->gi.t);
    n = describe_view(p->desc, n, "gradOutput", &p->go.t);
    n = appendf(p->desc, n, " k/s/p");
    for (int a = 0; a < sd; a++)
        n = appendf(p->desc, n, " %lld/%lld/%lld", (long long)pa->kernel[a], (long long)pa->stride[a],
                    (long long)pa->padding[a]);
    n = appendf(p->desc, n, " ceil %d count_include_pad %d divisor_override %lld; layouts %s/%s;", pa->ceil_mode,
                pa->count_include_pad, (long long)pa->divisor_override, layout_names[gl], layout_names[ol]);
    appendf(p->desc, n, " specials %d%% favoured %d sign %d", p->mix.density, p->mix.favoured, p->mix.sign);

    /* the reference, once: same view over an identical sentinel-filled buffer */
    p->ref = p->gi;
    p->ref.buf = pgt_alloc(dt, p->gi.buf.numel);
    p->ref.t.storage = p->ref.buf.data;
    poolgrad_problem ref_problem = p->plan->problem;
    ref_problem.gi = (char *)p->ref.buf.data + p->gi.t.offset * (int64_t)p->gi.buf.es;
    poolgrad_reference(&ref_problem);
    return true;
}

static void free_problem(problem *p)
{
    poolgrad_plan_destroy(p->plan);
    pgt_free(&p->go.buf);
    pgt_free(&p->gi.buf);
    pgt_free(&p->ref.buf);
}

/* ------------------------------------------------------------------ checks */

typedef struct stats {
    long long comparisons, problems, ref_nan, ref_inf, ref_sub, ref_zero, ref_elems;
    long long per_kernel[NKERNELS];
    uint64_t digest; /* FNV-1a of every reference storage: equal on every machine for one seed and count */
    int failures;
} stats;

static uint64_t g_seed;
static int g_cases;

typedef struct nan_ctx {
    const unsigned char *data;
    size_t es;
    poolgrad_dtype dt;
    int64_t bad;   /* first non-canonical NaN element, -1 if none */
    uint32_t bits;
    stats *st;     /* element census (reference only) */
} nan_ctx;

static void nan_visit(int64_t e, void *vctx)
{
    nan_ctx *c = vctx;
    uint32_t v = get_bits(c->data + (size_t)e * c->es, c->es);
    bool nan = is_nan_bits(c->dt, v);
    if (nan && v != canonical_nan(c->dt) && c->bad < 0) {
        c->bad = e;
        c->bits = v;
    }
    if (c->st) {
        uint32_t mag = v & (c->es == 4 ? 0x7fffffffu : 0x7fffu);
        uint32_t inf = c->dt == POOLGRAD_F32 ? 0x7f800000u : c->dt == POOLGRAD_F16 ? 0x7c00u : 0x7f80u;
        uint32_t min_normal = c->dt == POOLGRAD_F32 ? 0x00800000u : c->dt == POOLGRAD_F16 ? 0x0400u : 0x0080u;
        c->st->ref_elems++;
        c->st->ref_nan += nan;
        c->st->ref_inf += mag == inf;
        c->st->ref_sub += mag != 0 && mag < min_normal;
        c->st->ref_zero += mag == 0;
    }
}

static void report_failure(stats *st, const problem *p, const char *who, int threads, const char *what)
{
    st->failures++;
    if (st->failures > 5)
        return;
    printf("# MISMATCH: %s\n#   kernel %s, threads %d\n#   problem %d of its group: %s\n"
           "#   replay: POOLGRAD_TEST_SEED=0x%llx POOLGRAD_STRESS_CASES=%d\n",
           what, who, threads, p->index, p->desc, (unsigned long long)g_seed, g_cases);
}

/* Canonical NaNs in buffer b's gradInput view; census into st if not NULL. */
static bool check_nans(stats *st, const problem *p, const pgt_buffer *b, const char *who, int threads, stats *census)
{
    nan_ctx c = { b->data, b->es, p->dt, -1, 0, census };
    for_each_element(&p->gi.t, nan_visit, &c);
    if (c.bad < 0)
        return true;
    char where[96], what[256];
    view_coords(&p->gi.t, c.bad, where, sizeof where);
    snprintf(what, sizeof what, "storage element %lld%s is a non-canonical NaN 0x%0*x (canonical 0x%0*x)",
             (long long)c.bad, where, (int)b->es * 2, c.bits, (int)b->es * 2, canonical_nan(p->dt));
    report_failure(st, p, who, threads, what);
    return false;
}

/* The whole storage of the result, guards included, against the reference's. */
static bool compare(stats *st, const problem *p, const char *who, int threads)
{
    const pgt_buffer *a = &p->gi.buf, *b = &p->ref.buf;
    const size_t bytes = ((size_t)a->numel + 2 * PGT_GUARD) * a->es;
    if (memcmp(a->raw, b->raw, bytes) != 0) {
        size_t i = 0;
        while (i < bytes && memcmp(a->raw + i, b->raw + i, a->es) == 0)
            i += a->es;
        int64_t e = (int64_t)(i / a->es) - PGT_GUARD;
        char where[96];
        if (e < 0 || e >= a->numel)
            snprintf(where, sizeof where, " (guard zone)");
        else
            view_coords(&p->gi.t, e, where, sizeof where);
        char what[256];
        snprintf(what, sizeof what, "storage element %lld%s differs: 0x%0*x, reference 0x%0*x", (long long)e, where,
                 (int)a->es * 2, get_bits(a->raw + i, a->es), (int)a->es * 2, get_bits(b->raw + i, a->es));
        report_failure(st, p, who, threads, what);
        return false;
    }
    if (!check_nans(st, p, a, who, threads, NULL))
        return false;
    st->comparisons++; /* counted when byte-identical (and its NaNs canonical) */
    return true;
}

static void reset_output(problem *p)
{
    size_t bytes = ((size_t)p->gi.buf.numel + 2 * PGT_GUARD) * p->gi.buf.es;
    for (size_t i = 0; i < bytes; i++)
        p->gi.buf.raw[i] = pgt_sentinel_byte(i);
}

/* workspace of `size` bytes, float-aligned but at a random offset from 16 (the kernels' contract: the
 * library hands them a 64-byte-aligned workspace), filled with garbage; guard bytes around it */
typedef struct workspace {
    unsigned char *raw;
    void *data;
    size_t size, shift;
} workspace;

#define WS_GUARD 64

static workspace ws_alloc(pgt_rng *r, size_t size)
{
    workspace w;
    w.size = size;
    w.shift = 4 * (size_t)pgt_range(r, 0, 3);
    w.raw = malloc(size + 2 * WS_GUARD + 16);
    for (size_t i = 0; i < size + 2 * WS_GUARD + 16; i++)
        w.raw[i] = (unsigned char)pgt_next(r);
    for (size_t i = 0; i < WS_GUARD + w.shift; i++)
        w.raw[i] = pgt_sentinel_byte(i);
    for (size_t i = WS_GUARD + w.shift + size; i < size + 2 * WS_GUARD + 16; i++)
        w.raw[i] = pgt_sentinel_byte(i);
    w.data = size ? w.raw + WS_GUARD + w.shift : NULL;
    return w;
}

static void ws_garbage(pgt_rng *r, workspace *w)
{
    unsigned char *d = w->raw + WS_GUARD + w->shift;
    for (size_t i = 0; i < w->size; i++)
        d[i] = (unsigned char)pgt_next(r);
}

static bool ws_intact(const workspace *w)
{
    for (size_t i = 0; i < WS_GUARD + w->shift; i++)
        if (w->raw[i] != pgt_sentinel_byte(i))
            return false;
    for (size_t i = WS_GUARD + w->shift + w->size; i < w->size + 2 * WS_GUARD + 16; i++)
        if (w->raw[i] != pgt_sentinel_byte(i))
            return false;
    return true;
}

/* [0, items) cut at random boundaries, the pieces run in a random order (items are independent) */
static void run_split(pgt_rng *r, const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws,
                      int64_t items,
                      void (*fn)(const poolgrad_problem *, const poolgrad_kernel_conf *, void *, int64_t, int64_t))
{
    if (items <= 0)
        return;
    enum { MAXP = 64 };
    int64_t cuts[MAXP + 1];
    int np;
    if (items <= MAXP && (pgt_next(r) % 6) == 0) { /* one item per piece */
        np = (int)items;
        for (int i = 0; i <= np; i++)
            cuts[i] = i;
    } else {
        np = (int)pgt_range(r, 1, items < 12 ? items : 12);
        cuts[0] = 0;
        cuts[np] = items;
        for (int i = 1; i < np; i++)
            cuts[i] = pgt_range(r, 0, items);
        for (int i = 1; i < np; i++) /* sort */
            for (int j = i; j > 1 && cuts[j] < cuts[j - 1]; j--) {
                int64_t x = cuts[j]; cuts[j] = cuts[j - 1]; cuts[j - 1] = x;
            }
    }
    int perm[MAXP];
    for (int i = 0; i < np; i++)
        perm[i] = i;
    for (int i = np - 1; i > 0; i--) {
        int j = (int)pgt_range(r, 0, i);
        int x = perm[i]; perm[i] = perm[j]; perm[j] = x;
    }
    for (int i = 0; i < np; i++) {
        int64_t b = cuts[perm[i]], e = cuts[perm[i] + 1];
        if (e > b)
            fn(pr, conf, ws, b, e);
    }
}

/* Every runnable kernel that supports the problem, called directly over random splits. */
static bool check_kernels(pgt_rng *r, problem *p, stats *st)
{
    const poolgrad_problem *pr = &p->plan->problem;
    for (size_t i = 0; i < NKERNELS; i++) {
        const poolgrad_kernel *k = all_kernels[i];
        poolgrad_kernel_conf conf;
        if (!cpu_runs(k) || !k->configure(pr, &conf))
            continue;
        reset_output(p);
        /* kinds with per-thread scratch: a slot of it half the time, none (a thread past the plan's slots) else */
        workspace ws = ws_alloc(r, conf.workspace_size + (conf.scratch_size && pgt_range(r, 0, 1) ? conf.scratch_size : 0));
        if (k->prepare)
            run_split(r, pr, &conf, ws.data, conf.prepare_items, k->prepare);
        run_split(r, pr, &conf, ws.data, conf.work_items, k->run);
        bool ws_ok = ws_intact(&ws);
        free(ws.raw);
        if (!ws_ok) {
            report_failure(st, p, k->name, 1, "workspace guard bytes written");
            return false;
        }
        if (!compare(st, p, k->name, 1))
            return false;
        st->per_kernel[i]++;
    }
    return true;
}

/* The public path under every POOLGRAD_ISA cap the CPU can run, with every thread count. */
static bool check_public(pgt_rng *r, problem *p, stats *st)
{
    bool ok = true;
    for (size_t ci = 0; ci < NCAPS && ok; ci++) {
        if (!cap_runs(caps[ci]))
            continue;
        setenv("POOLGRAD_ISA", caps[ci], 1);
        poolgrad_plan *plan = NULL;
        poolgrad_status s = poolgrad_plan_create(&p->pa, &p->go.t, &p->gi.t, &plan);
        char who[128];
        snprintf(who, sizeof who, "%s (public API, POOLGRAD_ISA=%s)", plan ? poolgrad_plan_kernel_name(plan) : "none",
                 caps[ci]);
        if (s != POOLGRAD_OK) {
            report_failure(st, p, who, 0, poolgrad_status_string(s));
            ok = false;
            break;
        }
        if (plan->kernel && poolgrad_isa_level(plan->kernel->isa) > poolgrad_isa_cap_level(caps[ci])) {
            report_failure(st, p, who, 0, "the plan's kernel is above the POOLGRAD_ISA cap");
            ok = false;
        }
        workspace ws = ws_alloc(r, poolgrad_plan_workspace_size(plan));
        for (size_t ti = 0; ti < NTHREADS && ok; ti++) {
            reset_output(p);
            ws_garbage(r, &ws);
            s = poolgrad_execute(plan, ws.data, ws.size, thread_counts[ti]);
            if (s != POOLGRAD_OK) {
                report_failure(st, p, who, thread_counts[ti], poolgrad_status_string(s));
                ok = false;
            } else if (!ws_intact(&ws)) {
                report_failure(st, p, who, thread_counts[ti], "workspace guard bytes written");
                ok = false;
            } else {
                ok = compare(st, p, who, thread_counts[ti]);
            }
        }
        free(ws.raw);
        poolgrad_plan_destroy(plan);
    }
    if (start_cap)
        setenv("POOLGRAD_ISA", start_cap, 1);
    else
        unsetenv("POOLGRAD_ISA");
    return ok;
}

/* ------------------------------------------------------------------ main */

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *e = getenv("POOLGRAD_ISA");
    if (e) {
        snprintf(start_cap_buf, sizeof start_cap_buf, "%s", e);
        start_cap = start_cap_buf;
    }
    const char *ce = getenv("POOLGRAD_STRESS_CASES");
    g_cases = ce && *ce ? atoi(ce) : 4000;
    if (g_cases < 6)
        g_cases = 6;
    /* the seed goes to stdout too (meson's TAP log), as a comment before the plan */
    g_seed = pgt_seed("determinism_stress", 0xde7e2a11u);
    printf("# determinism_stress: seed 0x%llx (POOLGRAD_TEST_SEED overrides), %d problems (POOLGRAD_STRESS_CASES)\n",
           (unsigned long long)g_seed, g_cases);

    const int ngroups = 6;
    printf("1..%d\n", ngroups + 2);

    /* 1: the in-process ISA check (cpuid-driven dispatch, POOLGRAD_ISA unset) */
    const poolgrad_isa detected = cpu_isa();
    cpu_level = poolgrad_isa_level(detected);
    const char *expect = getenv("POOLGRAD_EXPECT_ISA");
    const bool isa_ok = !expect || !*expect || strcmp(expect, poolgrad_isa_name(detected)) == 0;
    printf("%s 1 - detected ISA %s (POOLGRAD_ISA unset)%s%s%s\n", isa_ok ? "ok" : "not ok", poolgrad_isa_name(detected),
           expect && *expect ? ", POOLGRAD_EXPECT_ISA=" : "", expect && *expect ? expect : "",
           isa_ok ? "" : " DIFFERS");
    if (start_cap)
        printf("# POOLGRAD_ISA=%s at start: kernels and caps above it are skipped\n", start_cap);

    char kernels_line[1024] = "";
    int nk = 0, kn = 0;
    for (size_t i = 0; i < NKERNELS; i++)
        if (cpu_runs(all_kernels[i])) {
            nk++;
            kn = appendf(kernels_line, kn, " %s", all_kernels[i]->name);
        }
    char caps_line[128] = "";
    int cn = 0;
    for (size_t ci = 0; ci < NCAPS; ci++)
        if (cap_runs(caps[ci]))
            cn = appendf(caps_line, cn, cn ? " %s" : "%s", caps[ci]);
    printf("# %d kernels called directly:%s\n# public API under POOLGRAD_ISA=%s\n", nk, kernels_line, caps_line);

    stats st;
    memset(&st, 0, sizeof st);
    st.digest = 0xcbf29ce484222325ull;
    const double t0 = now_seconds();
    int failed_groups = 0;
    for (int g = 0; g < ngroups; g++) {
        const int sd = 2 + g / 3;
        const poolgrad_dtype dt = (poolgrad_dtype)(g % 3);
        const int count = (g_cases + ngroups - 1 - g) / ngroups;
        /* problems depend only on the seed and the group, never on which kernels ran */
        pgt_rng gen = { g_seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(g + 1)) };
        const int failures_before = st.failures;
        const long long comparisons_before = st.comparisons;
        const double tg = now_seconds();
        for (int c = 0; c < count; c++) {
            problem p;
            if (!make_problem(&gen, &p, sd, dt)) {
                c--;
                continue;
            }
            p.index = c;
            pgt_rng run_rng = { pgt_next(&gen) };
            check_nans(&st, &p, &p.ref.buf, "poolgrad_reference", 1, &st);
            const size_t ref_bytes = ((size_t)p.ref.buf.numel + 2 * PGT_GUARD) * p.ref.buf.es;
            for (size_t i = 0; i < ref_bytes; i++)
                st.digest = (st.digest ^ p.ref.buf.raw[i]) * 0x100000001b3ull;
            if (!pgt_guards_intact(&p.ref.buf))
                report_failure(&st, &p, "poolgrad_reference", 1, "reference wrote a guard zone");
            if (check_kernels(&run_rng, &p, &st))
                check_public(&run_rng, &p, &st);
            st.problems++;
            free_problem(&p);
        }
        const bool ok = st.failures == failures_before;
        failed_groups += !ok;
        printf("%s %d - %dd %s: %d problems, %lld byte-identical comparisons, %.2f s\n", ok ? "ok" : "not ok", g + 2, sd,
               dtype_name(dt), count, st.comparisons - comparisons_before, now_seconds() - tg);
    }

    /* every runnable kernel must have been exercised (when there were enough problems) */
    char unused[1024] = "";
    int un = 0;
    for (size_t i = 0; i < NKERNELS; i++)
        if (cpu_runs(all_kernels[i]) && st.per_kernel[i] == 0)
            un = appendf(unused, un, " %s", all_kernels[i]->name);
    const bool coverage_ok = un == 0 || g_cases < 300;
    printf("%s %d - every runnable kernel exercised%s%s%s\n", coverage_ok ? "ok" : "not ok", ngroups + 2,
           un ? " (never:" : "", unused, un ? ")" : "");
    char per[2048] = "";
    int pn = 0;
    for (size_t i = 0; i < NKERNELS; i++)
        if (cpu_runs(all_kernels[i]))
            pn = appendf(per, pn, " %s=%lld", all_kernels[i]->name, st.per_kernel[i]);
    printf("# problems per kernel:%s\n", per);
    printf("# reference outputs: %lld elements, %lld NaN (all canonical), %lld inf, %lld subnormal, %lld zero\n",
           st.ref_elems, st.ref_nan, st.ref_inf, st.ref_sub, st.ref_zero);
    printf("# reference digest 0x%016llx (seed 0x%llx, %d problems: the same on every machine)\n",
           (unsigned long long)st.digest, (unsigned long long)g_seed, g_cases);
    if (st.failures)
        printf("# %d failures (first 5 shown); replay with POOLGRAD_TEST_SEED=0x%llx POOLGRAD_STRESS_CASES=%d\n",
               st.failures, (unsigned long long)g_seed, g_cases);
    printf("# determinism: %lld byte-identical comparisons (%lld problems, %d kernels + API caps %s, threads 1 2 3 5 7 8)"
           " in %.1f s\n",
           st.comparisons, st.problems, nk, caps_line, now_seconds() - t0);
    return (isa_ok && failed_groups == 0 && coverage_ok) ? 0 : 1;
}
