/*
 * poolgrad_bench — the poolgrad benchmark, side by side with oneDNN.
 *
 * USAGE
 *   poolgrad_bench                 the standard suite (issue 4): 7 cases x {f32, f16, bf16} x
 *                                  {NCHW/NCDHW, channels-last}, 1 thread, plus 2 threads for the 3D cases
 *   poolgrad_bench --quick         a tiny suite (same case shapes, scaled down, odd sizes, plus a ceil-mode
 *                                  overhang case) for CI: a few seconds, exit status 1 on any FAIL
 *   poolgrad_bench --sweep         one 2D and one 3D case (k3 s2 p1, f32) with the gradInput element count
 *                                  doubling 2^16 .. 2^26: time per element
 *   --filter SUBSTR   keep rows whose "case op dtype layout" contains SUBSTR (repeatable: any match)
 *   --dtype LIST      f32,f16,bf16          --layout LIST   nchw,cl   (nchw means NCHW or NCDHW)
 *                     (LIST: comma- or space-separated, e.g. --dtype f32,bf16 or --dtype f32 bf16)
 *   --threads LIST    thread counts, e.g. 1,2 (default: 1, and also 2 for 3D cases)
 *   --isa LIST        POOLGRAD_ISA caps to run, e.g. scalar,avx2,avx512 (default: $POOLGRAD_ISA, else auto);
 *                     the target summary is judged on the first one
 *   --reps N          timed repetitions (default: adaptive, 5..101 (3 on slow rows), ~1.5 s per row)
 *   --csv FILE / --json FILE / --md FILE   write the rows (JSON and Markdown: also the environment and the
 *                     target summary) to FILE
 *   --no-onednn       skip the oneDNN columns even when built with oneDNN
 *   --help
 *
 * WHAT A ROW MEANS
 *   Buffers are 64-byte aligned and first-touched before any timing. gradOutput is random in [-1, 1)
 *   (fixed seed). Each row: a warm-up, then repetitions in which poolgrad, oneDNN and a memcpy of a
 *   buffer of gradInput's size run alternately in the same process (poolgrad and oneDNN swap order
 *   every rep, so neither always finds gradOutput warm from the other); every column is the median.
 *     time     poolgrad_execute() wall time (plan created once, outside the timing)
 *     GB/s     (bytes of gradOutput read + bytes of gradInput written) / time
 *     %memcpy  GB/s divided by the memcpy bandwidth of the same row (2 x gradInput bytes / memcpy time,
 *              memcpy split over the row's thread count)
 *     ref      the scalar golden reference: a plan created with POOLGRAD_ISA=scalar, at the row's thread
 *              count. It is slow, so it is timed with few repetitions (1 on big cases; see ref_reps in
 *              CSV/JSON). x_ref = ref time / poolgrad time.
 *     check    the gradInput of the last timed poolgrad run compared bit for bit (poolgrad_compare) with
 *              the reference output (computed single-threaded, once per case/dtype/layout); "verified" or FAIL.
 *              The buffer is filled with a NaN sentinel before the warm-up, so unwritten elements show.
 *     onednn   pooling_avg_include_padding / _exclude_padding backward (oneDNN C API), primitive created
 *              once per row (forward primitive descriptor as hint), the same memory layout (nchw/nhwc/
 *              ncdhw/ndhwc tags over the same gradOutput buffer), thread count set with omp_set_num_threads.
 *              f32 and bf16 only: oneDNN 2.6 has no f16 pooling on the CPU (n/a). ceilMode is expressed as
 *              extra right padding (as PyTorch does); oneDNN has no divisor override. With a ceil-mode
 *              overhang and countIncludePad, oneDNN divides by the full kernel volume, PyTorch/poolgrad by
 *              the window clipped at I + pad: the time is still comparable, the values differ (onednn_max_abs_err
 *              in CSV/JSON is oneDNN's largest absolute difference from the reference, for information;
 *              a row notes it when it exceeds 1e-4 (f32) / 2e-2 (bf16) without an explanation).
 *   CSV/JSON also carry the fastest rep (time_min_s, onednn_time_min_s), the memcpy time, ref_reps and
 *   oneDNN's implementation string (e.g. jit:avx512_core, or simple_nchw:any when oneDNN has no JIT path
 *   for that problem and layout — the output says so).
 *   At the end a "targets" block evaluates the issue-4 targets on the rows that were run (standard suite
 *   only; the --quick sizes say nothing about speed). The sweep's reference runs multi-threaded, for the
 *   check only (no ref column).
 *   Exit status: 0 all rows verified, 1 any FAIL (listed at the end), 2 usage/setup error.
 *
 * BUILD
 *   Built when -Dbench=true (the default). oneDNN: -Dbench_onednn=enabled|auto|disabled; Debian's
 *   libdnnl-dev ships no pkg-config file, so it is found with cc.find_library('dnnl') + dnnl.h, else
 *   through its CMake package (dependency('dnnl', method: 'cmake')). `meson test -C build --benchmark` runs the standard suite (suite 'suite') and the quick one
 *   (suite 'quick').
 *
 * NOISE
 *   This is a 2-core machine shared during development: 2-thread rows in particular are meaningless when
 *   anything else runs. Take the published numbers from one full run on a quiet machine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "poolgrad/poolgrad.h"

#ifdef POOLGRAD_BENCH_ONEDNN
#include <dnnl.h>
#endif

/* ------------------------------------------------------------------ utilities */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "poolgrad_bench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static void *xalloc(size_t bytes)
{
    size_t sz = (bytes + 63) / 64 * 64;
    if (sz == 0)
        sz = 64;
    void *p = aligned_alloc(64, sz);
    if (!p)
        die("out of memory (%zu bytes)", sz);
    memset(p, 0, sz); /* first touch */
    return p;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static void fill_random(void *buf, poolgrad_dtype dt, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        float f = (float)((double)(rng_next() >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
        switch (dt) {
        case POOLGRAD_F32: ((float *)buf)[i] = f; break;
        case POOLGRAD_F16: ((uint16_t *)buf)[i] = poolgrad_f32_to_f16(f); break;
        case POOLGRAD_BF16: ((uint16_t *)buf)[i] = poolgrad_f32_to_bf16(f); break;
        }
    }
}

static const char *dtype_name(poolgrad_dtype dt)
{
    return dt == POOLGRAD_F32 ? "f32" : dt == POOLGRAD_F16 ? "f16" : "bf16";
}

/* omp_get_max_threads() at start-up (the oneDNN rows change the OpenMP default with omp_set_num_threads) */
static int initial_max_threads = 1;

static int max_threads(void) { return initial_max_threads; }

/* memcpy of `bytes`, split into `threads` contiguous pieces */
static void par_memcpy(char *dst, const char *src, size_t bytes, int threads)
{
#ifdef _OPENMP
    if (threads > 1) {
#pragma omp parallel for num_threads(threads) schedule(static, 1)
        for (int t = 0; t < threads; t++) {
            size_t b = bytes / 64 * (size_t)t / (size_t)threads * 64;
            size_t e = t + 1 == threads ? bytes : bytes / 64 * (size_t)(t + 1) / (size_t)threads * 64;
            memcpy(dst + b, src + b, e - b);
        }
        return;
    }
#endif
    (void)threads;
    memcpy(dst, src, bytes);
}

/* ------------------------------------------------------------------ cases */

typedef struct bench_case {
    const char *name;
    int sd;                 /* spatial dims */
    int64_t n, c, in[3];    /* in: (D,) H, W — for 2D only in[0..1] used */
    int64_t k, s, p;        /* the same on every axis */
    bool ceil, cip;
} bench_case;

static const bench_case standard_suite[] = {
    { "resnet_k3s2p1", 2, 32, 64, { 56, 56 }, 3, 2, 1, false, true },
    { "k2s2p0", 2, 32, 64, { 56, 56 }, 2, 2, 0, false, true },
    { "inception_k3s1p1_excl", 2, 32, 192, { 35, 35 }, 3, 1, 1, false, false },
    { "global_k7s7", 2, 32, 2048, { 7, 7 }, 7, 7, 0, false, true },
    { "3d_k3s2p1", 3, 4, 64, { 16, 56, 56 }, 3, 2, 1, false, true },
    { "3d_k2s2p0", 3, 4, 64, { 16, 56, 56 }, 2, 2, 0, false, true },
    { "3d_k3s1p1_ceil_excl", 3, 2, 32, { 32, 64, 64 }, 3, 1, 1, true, false },
};

static const bench_case quick_suite[] = { /* odd sizes around the vector widths (C or W = 35, 37, 33) */
    { "resnet_k3s2p1", 2, 2, 35, { 15, 37 }, 3, 2, 1, false, true },
    { "k2s2p0", 2, 2, 35, { 17, 37 }, 2, 2, 0, false, true },
    { "inception_k3s1p1_excl", 2, 2, 19, { 13, 35 }, 3, 1, 1, false, false },
    { "global_k7s7", 2, 2, 35, { 7, 7 }, 7, 7, 0, false, true },
    { "3d_k3s2p1", 3, 1, 16, { 6, 14, 33 }, 3, 2, 1, false, true },
    { "3d_k2s2p0", 3, 1, 35, { 6, 14, 14 }, 2, 2, 0, false, true },
    { "3d_k3s1p1_ceil_excl", 3, 1, 8, { 8, 15, 13 }, 3, 1, 1, true, false },
    { "ceil_overhang_k3s2", 2, 1, 24, { 10, 10 }, 3, 2, 0, true, true },
};

/* ------------------------------------------------------------------ options */

#define MAX_LIST 16

typedef struct options {
    bool quick, sweep, no_onednn;
    const char *filters[MAX_LIST];
    int n_filters;
    poolgrad_dtype dtypes[3];
    int n_dtypes;
    bool layout_nchw, layout_cl;
    int threads[MAX_LIST];
    int n_threads; /* 0: default */
    const char *isas[MAX_LIST];
    int n_isas;
    int reps;      /* 0: adaptive */
    double budget; /* seconds per row, adaptive reps */
    const char *csv, *json, *md;
} options;

static void usage(FILE *f)
{
    fputs("usage: poolgrad_bench [options]\n"
          "  (no options)       standard suite: 7 cases x f32/f16/bf16 x nchw/channels-last, 1 thread\n"
          "                     (+2 threads for 3D), verified bit-for-bit against the scalar reference\n"
          "  --quick            tiny suite for CI (a few seconds); exit status 1 on any FAIL\n"
          "  --sweep            2D and 3D k3s2p1 with gradInput elements 2^16..2^26: time per element\n"
          "  --filter SUBSTR    keep rows whose \"case op dtype layout\" contains SUBSTR (repeatable)\n"
          "  --dtype LIST       f32,f16,bf16 (any LIST: comma- or space-separated)\n"
          "  --layout LIST      nchw,cl (nchw = NCHW/NCDHW, cl = NHWC/NDHWC)\n"
          "  --threads N[,M..]  thread counts (default 1, plus 2 for 3D cases)\n"
          "  --isa LIST         POOLGRAD_ISA caps, e.g. scalar,sse2,avx2,avx512,auto (default: $POOLGRAD_ISA\n"
          "                     or auto); the target summary uses the first\n"
          "  --reps N           timed repetitions (default adaptive 5..101, about 1.5 s per row)\n"
          "  --csv FILE         write rows as CSV\n"
          "  --json FILE        write rows and the target summary as JSON\n"
          "  --md FILE          write the table and the target summary as Markdown (for the README)\n"
          "  --no-onednn        skip oneDNN even when built with it\n"
          "  --help             this text\n"
          "Exit status: 0 all verified, 1 a verification FAIL, 2 usage or setup error.\n",
          f);
}

static int split_list(char *s, const char **out, int max)
{
    int n = 0;
    for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ","))
        out[n++] = tok;
    return n;
}

/* A list option's value: "a,b" or "a b" (following arguments up to the next option) or both. */
static int take_list(int argc, char **argv, int *i, const char **out, int max)
{
    const char *opt = argv[*i];
    if (*i + 1 >= argc)
        die("%s needs an argument", opt);
    int n = split_list(argv[++*i], out, max);
    while (*i + 1 < argc && argv[*i + 1][0] != '-' && n < max)
        n += split_list(argv[++*i], out + n, max - n);
    return n;
}

static void parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->budget = 1.5;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (die("%s needs an argument", a), (char *)NULL))
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--quick")) {
            o->quick = true;
        } else if (!strcmp(a, "--sweep")) {
            o->sweep = true;
        } else if (!strcmp(a, "--no-onednn")) {
            o->no_onednn = true;
        } else if (!strcmp(a, "--filter")) {
            if (o->n_filters < MAX_LIST)
                o->filters[o->n_filters++] = NEXT();
        } else if (!strcmp(a, "--dtype")) {
            const char *l[MAX_LIST];
            int n = take_list(argc, argv, &i, l, MAX_LIST);
            o->n_dtypes = 0;
            for (int j = 0; j < n; j++) {
                poolgrad_dtype dt;
                if (!strcmp(l[j], "f32")) dt = POOLGRAD_F32;
                else if (!strcmp(l[j], "f16")) dt = POOLGRAD_F16;
                else if (!strcmp(l[j], "bf16")) dt = POOLGRAD_BF16;
                else die("unknown dtype '%s' (f32, f16, bf16)", l[j]);
                if (o->n_dtypes < 3)
                    o->dtypes[o->n_dtypes++] = dt;
            }
        } else if (!strcmp(a, "--layout")) {
            const char *l[MAX_LIST];
            int n = take_list(argc, argv, &i, l, MAX_LIST);
            for (int j = 0; j < n; j++) {
                if (!strcmp(l[j], "nchw") || !strcmp(l[j], "ncdhw")) o->layout_nchw = true;
                else if (!strcmp(l[j], "cl") || !strcmp(l[j], "nhwc") || !strcmp(l[j], "ndhwc")) o->layout_cl = true;
                else die("unknown layout '%s' (nchw, cl)", l[j]);
            }
        } else if (!strcmp(a, "--threads")) {
            const char *l[MAX_LIST];
            int n = take_list(argc, argv, &i, l, MAX_LIST);
            o->n_threads = 0;
            for (int j = 0; j < n; j++) {
                char *end;
                long v = strtol(l[j], &end, 10);
                if (*end || v < 1 || v > 1024)
                    die("bad thread count '%s'", l[j]);
                o->threads[o->n_threads++] = (int)v;
            }
        } else if (!strcmp(a, "--isa")) {
            o->n_isas = take_list(argc, argv, &i, o->isas, MAX_LIST);
        } else if (!strcmp(a, "--reps")) {
            char *end;
            long v = strtol(NEXT(), &end, 10);
            if (*end || v < 1 || v > 100000)
                die("bad --reps");
            o->reps = (int)v;
        } else if (!strcmp(a, "--csv")) {
            o->csv = NEXT();
        } else if (!strcmp(a, "--json")) {
            o->json = NEXT();
        } else if (!strcmp(a, "--md")) {
            o->md = NEXT();
        } else {
            usage(stderr);
            die("unknown option '%s'", a);
        }
#undef NEXT
    }
    if (o->n_dtypes == 0) {
        if (o->sweep) {
            o->dtypes[0] = POOLGRAD_F32;
            o->n_dtypes = 1;
        } else {
            o->dtypes[0] = POOLGRAD_F32;
            o->dtypes[1] = POOLGRAD_F16;
            o->dtypes[2] = POOLGRAD_BF16;
            o->n_dtypes = 3;
        }
    }
    if (!o->layout_nchw && !o->layout_cl)
        o->layout_nchw = o->layout_cl = true;
    if (o->n_isas == 0) { /* default: the POOLGRAD_ISA of the environment, else auto */
        const char *env = getenv("POOLGRAD_ISA");
        o->isas[0] = env && *env ? env : "auto";
        o->n_isas = 1;
    }
    if (o->quick) {
        o->budget = 0.05;
        if (o->reps == 0)
            o->reps = 3;
    }
}

/* ------------------------------------------------------------------ rows */

typedef struct row {
    char case_name[48];
    char op[12];
    char dtype[8];
    char layout[8];
    int threads;
    char isa[12];
    char kernel[64];
    int64_t gi_numel, go_numel;
    double bytes;      /* go read + gi written */
    double t_pg;       /* median seconds */
    double t_pg_min, t_dnnl_min; /* fastest rep, CSV/JSON only (a hint on a noisy machine) */
    double gbs;
    double t_memcpy, memcpy_gbs, frac_memcpy;
    double t_ref;      /* NAN if not timed */
    int ref_reps;
    double x_ref;
    bool has_dnnl;
    double t_dnnl, x_dnnl;
    char dnnl_impl[64];
    char dnnl_note[64];
    double dnnl_maxabs; /* max |oneDNN - reference| over finite elements, NAN if none */
    int reps;
    double ns_per_elem;
    bool verified;
    char check[96];
    bool sweep;
    bool overlap;      /* k > s */
    bool global;
} row;

static row *rows;
static int n_rows, cap_rows;

static row *new_row(void)
{
    if (n_rows == cap_rows) {
        cap_rows = cap_rows ? 2 * cap_rows : 64;
        rows = realloc(rows, (size_t)cap_rows * sizeof *rows);
        if (!rows)
            die("out of memory");
    }
    row *r = &rows[n_rows++];
    memset(r, 0, sizeof *r);
    r->t_ref = r->x_ref = r->t_dnnl = r->x_dnnl = r->dnnl_maxabs = r->ns_per_elem = r->t_pg_min = r->t_dnnl_min = NAN;
    return r;
}

/* ------------------------------------------------------------------ progress (stderr) */

static bool stderr_tty;
static int progress_total, progress_done;

static void progress_v(bool major, const char *fmt, va_list ap)
{
    char buf[256];
    if (!stderr_tty && !major)
        return;
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (stderr_tty)
        fprintf(stderr, "\r\033[K[%d/%d] %s", progress_done + 1, progress_total, buf);
    else
        fprintf(stderr, "[%d/%d] %s\n", progress_done + 1, progress_total, buf);
    fflush(stderr);
}

/* a phase of a row: shown on a terminal only */
static void progress(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    progress_v(false, fmt, ap);
    va_end(ap);
}

/* the start of a row: also logged when stderr is not a terminal */
static void progress_major(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    progress_v(true, fmt, ap);
    va_end(ap);
}

static void progress_end(void)
{
    if (stderr_tty)
        fprintf(stderr, "\r\033[K");
}

/* ------------------------------------------------------------------ ISA cap via the environment */

static char *saved_isa_env;

static void set_isa(const char *isa)
{
    if (!isa || !strcmp(isa, "")) {
        if (saved_isa_env)
            setenv("POOLGRAD_ISA", saved_isa_env, 1);
        else
            unsetenv("POOLGRAD_ISA");
    } else {
        setenv("POOLGRAD_ISA", isa, 1);
    }
}

/* ------------------------------------------------------------------ oneDNN */

#ifdef POOLGRAD_BENCH_ONEDNN
static dnnl_engine_t dnnl_eng;
static dnnl_stream_t dnnl_strm;
static bool dnnl_ok;

typedef struct dnnl_run {
    dnnl_primitive_desc_t fwd_pd, bwd_pd;
    dnnl_primitive_t prim;
    dnnl_memory_t m_dst, m_src;
    char impl[48];
    char err[64];
} dnnl_run;

static void dnnl_init(void)
{
    if (dnnl_engine_create(&dnnl_eng, dnnl_cpu, 0) != dnnl_success)
        return;
    if (dnnl_stream_create(&dnnl_strm, dnnl_eng, dnnl_stream_default_flags) != dnnl_success)
        return;
    dnnl_ok = true;
}

static void dnnl_run_destroy(dnnl_run *d)
{
    if (d->prim) dnnl_primitive_destroy(d->prim);
    if (d->bwd_pd) dnnl_primitive_desc_destroy(d->bwd_pd);
    if (d->fwd_pd) dnnl_primitive_desc_destroy(d->fwd_pd);
    if (d->m_dst) dnnl_memory_destroy(d->m_dst);
    if (d->m_src) dnnl_memory_destroy(d->m_src);
    memset(d, 0, sizeof *d);
}

/* returns true if the primitive is ready; else d->err says why */
static bool dnnl_setup(dnnl_run *d, const bench_case *bc, poolgrad_dtype dt, bool cl, const int64_t *gi_shape,
                       const int64_t *go_shape, const void *go, void *gi)
{
    memset(d, 0, sizeof *d);
    if (!dnnl_ok) {
        snprintf(d->err, sizeof d->err, "no engine");
        return false;
    }
    if (dt == POOLGRAD_F16) {
        snprintf(d->err, sizeof d->err, "n/a");
        return false;
    }
    const int nd = 2 + bc->sd;
    dnnl_dims_t src_dims, dst_dims, strides, kernel, pl, pr;
    for (int i = 0; i < nd; i++) {
        src_dims[i] = gi_shape[i];
        dst_dims[i] = go_shape[i];
    }
    for (int a = 0; a < bc->sd; a++) {
        int64_t I = gi_shape[2 + a], O = go_shape[2 + a];
        strides[a] = bc->s;
        kernel[a] = bc->k;
        pl[a] = bc->p;
        int64_t need = (O - 1) * bc->s + bc->k - I - bc->p; /* right padding making oneDNN's floor give O */
        pr[a] = need > bc->p ? need : bc->p;
    }
    dnnl_format_tag_t tag = bc->sd == 2 ? (cl ? dnnl_nhwc : dnnl_nchw) : (cl ? dnnl_ndhwc : dnnl_ncdhw);
    dnnl_data_type_t ddt = dt == POOLGRAD_F32 ? dnnl_f32 : dnnl_bf16;
    dnnl_memory_desc_t src_md, dst_md;
    dnnl_alg_kind_t alg = bc->cip ? dnnl_pooling_avg_include_padding : dnnl_pooling_avg_exclude_padding;
    dnnl_pooling_desc_t fd, bd;
    dnnl_status_t st;
    if ((st = dnnl_memory_desc_init_by_tag(&src_md, nd, src_dims, ddt, tag)) != dnnl_success ||
        (st = dnnl_memory_desc_init_by_tag(&dst_md, nd, dst_dims, ddt, tag)) != dnnl_success ||
        (st = dnnl_pooling_forward_desc_init(&fd, dnnl_forward_training, alg, &src_md, &dst_md, strides, kernel, pl,
                                             pr)) != dnnl_success ||
        (st = dnnl_primitive_desc_create(&d->fwd_pd, &fd, NULL, dnnl_eng, NULL)) != dnnl_success ||
        (st = dnnl_pooling_backward_desc_init(&bd, alg, &src_md, &dst_md, strides, kernel, pl, pr)) != dnnl_success ||
        (st = dnnl_primitive_desc_create(&d->bwd_pd, &bd, NULL, dnnl_eng, d->fwd_pd)) != dnnl_success ||
        (st = dnnl_primitive_create(&d->prim, d->bwd_pd)) != dnnl_success ||
        (st = dnnl_memory_create(&d->m_dst, &dst_md, dnnl_eng, (void *)go)) != dnnl_success ||
        (st = dnnl_memory_create(&d->m_src, &src_md, dnnl_eng, gi)) != dnnl_success) {
        snprintf(d->err, sizeof d->err, "unsupported (status %d)", (int)st);
        dnnl_run_destroy(d);
        snprintf(d->err, sizeof d->err, "unsupported (status %d)", (int)st);
        return false;
    }
    const char *impl = NULL;
    if (dnnl_primitive_desc_query(d->bwd_pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl)
        snprintf(d->impl, sizeof d->impl, "%s", impl);
    return true;
}

static void dnnl_exec(dnnl_run *d)
{
    dnnl_exec_arg_t args[2] = { { DNNL_ARG_DIFF_DST, d->m_dst }, { DNNL_ARG_DIFF_SRC, d->m_src } };
    dnnl_primitive_execute(d->prim, dnnl_strm, 2, args);
    dnnl_stream_wait(dnnl_strm);
}
#endif

/* ------------------------------------------------------------------ one case/dtype/layout group */

typedef struct group {
    const bench_case *bc;
    poolgrad_dtype dt;
    bool cl;
    int rank;
    int64_t gi_shape[5], go_shape[5];
    int64_t gi_numel, go_numel;
    size_t gi_bytes, go_bytes;
    void *go, *gi_ref, *gi_pg, *gi_dnnl, *mc_dst;
    poolgrad_params params;
    poolgrad_tensor t_go, t_gi_ref, t_gi_pg, t_gi_dnnl;
    double t_ref1;  /* single-thread reference time of the verification run */
    bool ref_ok;
} group;

static poolgrad_status make_views(group *g)
{
    const bench_case *bc = g->bc;
    poolgrad_status st;
#define VIEW(t, buf)                                                                                          \
    (g->cl ? poolgrad_tensor_init_channels_last(&(t), g->dt, g->rank, bc->sd, g->gi_shape, (buf))          \
           : poolgrad_tensor_init_contiguous(&(t), g->dt, g->rank, g->gi_shape, (buf)))
    if ((st = VIEW(g->t_gi_ref, g->gi_ref)) != POOLGRAD_OK || (st = VIEW(g->t_gi_pg, g->gi_pg)) != POOLGRAD_OK ||
        (st = VIEW(g->t_gi_dnnl, g->gi_dnnl)) != POOLGRAD_OK)
        return st;
#undef VIEW
    st = g->cl ? poolgrad_tensor_init_channels_last(&g->t_go, g->dt, g->rank, bc->sd, g->go_shape, g->go)
               : poolgrad_tensor_init_contiguous(&g->t_go, g->dt, g->rank, g->go_shape, g->go);
    return st;
}

static bool group_init(group *g, const bench_case *bc, poolgrad_dtype dt, bool cl)
{
    memset(g, 0, sizeof *g);
    g->bc = bc;
    g->dt = dt;
    g->cl = cl;
    g->rank = 2 + bc->sd;
    g->gi_shape[0] = bc->n;
    g->gi_shape[1] = bc->c;
    for (int a = 0; a < bc->sd; a++)
        g->gi_shape[2 + a] = bc->in[a];
    poolgrad_params *p = &g->params;
    p->spatial_dims = bc->sd;
    for (int a = 0; a < 3; a++) {
        p->kernel[a] = bc->k;
        p->stride[a] = bc->s;
        p->padding[a] = bc->p;
    }
    p->ceil_mode = bc->ceil;
    p->count_include_pad = bc->cip;
    p->divisor_override = 0;
    poolgrad_status st = poolgrad_output_shape(p, g->rank, g->gi_shape, g->go_shape);
    if (st != POOLGRAD_OK) {
        fprintf(stderr, "poolgrad_bench: %s: output shape: %s\n", bc->name, poolgrad_status_string(st));
        return false;
    }
    g->gi_numel = g->go_numel = 1;
    for (int i = 0; i < g->rank; i++) {
        g->gi_numel *= g->gi_shape[i];
        g->go_numel *= g->go_shape[i];
    }
    size_t es = poolgrad_dtype_size(dt);
    g->gi_bytes = (size_t)g->gi_numel * es;
    g->go_bytes = (size_t)g->go_numel * es;
    g->go = xalloc(g->go_bytes);
    g->gi_ref = xalloc(g->gi_bytes);
    g->gi_pg = xalloc(g->gi_bytes);
    g->gi_dnnl = xalloc(g->gi_bytes);
    g->mc_dst = xalloc(g->gi_bytes);
    fill_random(g->go, dt, g->go_numel);
    if ((st = make_views(g)) != POOLGRAD_OK) {
        fprintf(stderr, "poolgrad_bench: %s: views: %s\n", bc->name, poolgrad_status_string(st));
        return false;
    }
    return true;
}

static void group_free(group *g)
{
    free(g->go);
    free(g->gi_ref);
    free(g->gi_pg);
    free(g->gi_dnnl);
    free(g->mc_dst);
    memset(g, 0, sizeof *g);
}

/* A plan under ISA cap `isa` (NULL = the user's environment). */
static poolgrad_plan *make_plan(group *g, const poolgrad_tensor *gi, const char *isa)
{
    set_isa(isa);
    poolgrad_plan *plan = NULL;
    poolgrad_status st = poolgrad_plan_create(&g->params, &g->t_go, gi, &plan);
    set_isa(NULL);
    if (st != POOLGRAD_OK) {
        fprintf(stderr, "\npoolgrad_bench: %s: plan: %s\n", g->bc->name, poolgrad_status_string(st));
        return NULL;
    }
    return plan;
}

static void fill_sentinel(void *buf, size_t bytes) { memset(buf, 0xFF, bytes); /* NaN in every dtype */ }

/* Run the reference plan into `gi` with `threads`, `reps` times; returns the median time. */
static double run_reference(group *g, const poolgrad_tensor *gi, int threads, int reps, int *reps_done,
                            double budget)
{
    poolgrad_plan *plan = make_plan(g, gi, "scalar");
    if (!plan)
        return NAN;
    if (!strstr(poolgrad_plan_kernel_name(plan), "scalar"))
        fprintf(stderr, "\npoolgrad_bench: warning: POOLGRAD_ISA=scalar selected '%s'\n",
                poolgrad_plan_kernel_name(plan));
    size_t wsz = poolgrad_plan_workspace_size(plan);
    void *ws = wsz ? xalloc(wsz) : NULL;
    double t[64];
    int n = 0;
    double spent = 0;
    do {
        double t0 = now_s();
        poolgrad_execute(plan, ws, wsz, threads);
        t[n] = now_s() - t0;
        spent += t[n++];
    } while (n < reps && n < 64 && spent + t[0] < budget);
    free(ws);
    poolgrad_plan_destroy(plan);
    *reps_done = n;
    return median(t, n);
}

/* Count and describe mismatches of `gi` against the reference. */
static bool verify(group *g, const poolgrad_tensor *gi, char *msg, size_t msgsz, double *maxabs)
{
    poolgrad_compare_result cr;
    poolgrad_status st = poolgrad_compare(gi, &g->t_gi_ref, &cr);
    if (st != POOLGRAD_OK) {
        snprintf(msg, msgsz, "FAIL(compare: %s)", poolgrad_status_string(st));
        return false;
    }
    if (maxabs)
        *maxabs = cr.max_ulp == UINT64_MAX ? INFINITY : cr.max_abs_error;
    if (cr.mismatches == 0) {
        snprintf(msg, msgsz, "verified");
        return true;
    }
    snprintf(msg, msgsz, "FAIL(%lld diff, first %lld, %llu ulp)", (long long)cr.mismatches,
             (long long)cr.first_mismatch, (unsigned long long)cr.max_ulp);
    return false;
}

static __attribute__((unused)) bool ceil_overhang(const group *g)
{
    const bench_case *bc = g->bc;
    if (!bc->ceil)
        return false;
    for (int a = 0; a < bc->sd; a++) {
        int64_t I = g->gi_shape[2 + a], O = g->go_shape[2 + a];
        if ((O - 1) * bc->s + bc->k > I + bc->p)
            return true;
    }
    return false;
}

typedef struct run_cfg {
    int threads;
    const char *isa;
    bool sweep;
    bool use_dnnl;
} run_cfg;

static void run_row(group *g, const run_cfg *rc, const options *o)
{
    const bench_case *bc = g->bc;
    row *r = new_row();
    snprintf(r->case_name, sizeof r->case_name, "%s", bc->name);
    snprintf(r->op, sizeof r->op, "avgpool%dd", bc->sd);
    snprintf(r->dtype, sizeof r->dtype, "%s", dtype_name(g->dt));
    snprintf(r->layout, sizeof r->layout, "%s", g->cl ? (bc->sd == 2 ? "nhwc" : "ndhwc") : (bc->sd == 2 ? "nchw" : "ncdhw"));
    snprintf(r->isa, sizeof r->isa, "%s", rc->isa);
    r->threads = rc->threads;
    r->gi_numel = g->gi_numel;
    r->go_numel = g->go_numel;
    r->bytes = (double)(g->gi_bytes + g->go_bytes);
    r->sweep = rc->sweep;
    r->overlap = bc->k > bc->s;
    r->global = true;
    for (int a = 0; a < bc->sd; a++)
        if (g->go_shape[2 + a] != 1)
            r->global = false;

    progress_major("%s %s %s t%d %s", bc->name, r->dtype, r->layout, rc->threads, rc->isa);
    poolgrad_plan *plan = make_plan(g, &g->t_gi_pg, rc->isa);
    if (!plan) {
        r->verified = false;
        snprintf(r->check, sizeof r->check, "FAIL(plan)");
        return;
    }
    snprintf(r->kernel, sizeof r->kernel, "%s", poolgrad_plan_kernel_name(plan));
    size_t wsz = poolgrad_plan_workspace_size(plan);
    void *ws = wsz ? xalloc(wsz) : NULL;

    bool dnnl_on = false;
#ifdef POOLGRAD_BENCH_ONEDNN
    dnnl_run dr;
    memset(&dr, 0, sizeof dr);
    if (rc->use_dnnl) {
        r->has_dnnl = true;
#ifdef _OPENMP
        omp_set_num_threads(rc->threads);
#endif
        dnnl_on = dnnl_setup(&dr, bc, g->dt, g->cl, g->gi_shape, g->go_shape, g->go, g->gi_dnnl);
        if (dnnl_on) {
            snprintf(r->dnnl_impl, sizeof r->dnnl_impl, "%s", dr.impl);
            if (ceil_overhang(g) && bc->cip)
                snprintf(r->dnnl_note, sizeof r->dnnl_note, "ceil overhang: oneDNN divisor differs");
        } else {
            snprintf(r->dnnl_impl, sizeof r->dnnl_impl, "%s", dr.err);
        }
    }
#endif

    /* warm-up: poolgrad (into a sentinel-filled buffer), oneDNN, memcpy */
    fill_sentinel(g->gi_pg, g->gi_bytes);
    progress("%s %s %s t%d %s: warm-up", bc->name, r->dtype, r->layout, rc->threads, rc->isa);
    double t0 = now_s();
    poolgrad_execute(plan, ws, wsz, rc->threads);
    double est = now_s() - t0;
#ifdef POOLGRAD_BENCH_ONEDNN
    if (dnnl_on) {
        t0 = now_s();
        dnnl_exec(&dr);
        est += now_s() - t0;
    }
#endif
    t0 = now_s();
    par_memcpy(g->mc_dst, g->gi_ref, g->gi_bytes, rc->threads);
    est += now_s() - t0;
    if (est < 0.02) { /* small problems: a few more warm-up rounds */
        for (int i = 0; i < 3; i++) {
            poolgrad_execute(plan, ws, wsz, rc->threads);
#ifdef POOLGRAD_BENCH_ONEDNN
            if (dnnl_on)
                dnnl_exec(&dr);
#endif
            par_memcpy(g->mc_dst, g->gi_ref, g->gi_bytes, rc->threads);
        }
    }

    int reps = o->reps;
    if (reps == 0) {
        reps = est > 0 ? (int)(o->budget / est) : 101;
        int min_reps = est > 0.25 ? 3 : 5; /* slow rows (the scalar kernel on big cases): fewer */
        if (reps < min_reps) reps = min_reps;
        if (reps > 101) reps = 101;
    }
    r->reps = reps;
    double *tp = calloc((size_t)reps, sizeof *tp), *td = calloc((size_t)reps, sizeof *td),
           *tm = calloc((size_t)reps, sizeof *tm);
    if (!tp || !td || !tm)
        die("out of memory");
    progress("%s %s %s t%d %s: timing %d reps", bc->name, r->dtype, r->layout, rc->threads, rc->isa, reps);
    for (int i = 0; i < reps; i++) {
        /* the order alternates (poolgrad first on even reps, oneDNN first on odd ones) so that neither
         * always finds gradOutput warm in the cache from the other */
        for (int k = 0; k < 2; k++) {
            if ((k == 0) == (i % 2 == 0)) {
                t0 = now_s();
                poolgrad_execute(plan, ws, wsz, rc->threads);
                tp[i] = now_s() - t0;
            }
#ifdef POOLGRAD_BENCH_ONEDNN
            else if (dnnl_on) {
                t0 = now_s();
                dnnl_exec(&dr);
                td[i] = now_s() - t0;
            }
#endif
        }
        t0 = now_s();
        par_memcpy(g->mc_dst, g->gi_ref, g->gi_bytes, rc->threads);
        tm[i] = now_s() - t0;
    }
    r->t_pg = median(tp, reps); /* sorts */
    r->t_pg_min = tp[0];
    r->t_memcpy = median(tm, reps);
    if (dnnl_on) {
        r->t_dnnl = median(td, reps);
        r->t_dnnl_min = td[0];
    }
    free(tp);
    free(td);
    free(tm);
    r->gbs = r->bytes / r->t_pg * 1e-9;
    r->memcpy_gbs = 2.0 * (double)g->gi_bytes / r->t_memcpy * 1e-9;
    r->frac_memcpy = r->gbs / r->memcpy_gbs;
    r->ns_per_elem = r->t_pg / (double)g->gi_numel * 1e9;
    if (dnnl_on)
        r->x_dnnl = r->t_dnnl / r->t_pg;

    /* verification of the last timed run */
    if (!g->ref_ok) {
        r->verified = false;
        snprintf(r->check, sizeof r->check, "FAIL(no reference)");
    } else {
        r->verified = verify(g, &g->t_gi_pg, r->check, sizeof r->check, NULL);
    }
#ifdef POOLGRAD_BENCH_ONEDNN
    if (dnnl_on) {
        char msg[64];
        verify(g, &g->t_gi_dnnl, msg, sizeof msg, &r->dnnl_maxabs);
        /* oneDNN is not bit-exact, but a large difference means a setup error here, unless explained */
        double tol = g->dt == POOLGRAD_F32 ? 1e-4 : 2e-2;
        if (!r->dnnl_note[0] && !(r->dnnl_maxabs <= tol))
            snprintf(r->dnnl_note, sizeof r->dnnl_note, "oneDNN result differs: max abs err %.3g", r->dnnl_maxabs);
        dnnl_run_destroy(&dr);
    }
#ifdef _OPENMP
    omp_set_num_threads(max_threads());
#endif
#endif
    free(ws);
    poolgrad_plan_destroy(plan);

    /* the scalar reference at this thread count */
    if (!rc->sweep) {
        if (rc->threads == 1 && !isnan(g->t_ref1) && g->t_ref1 > 0.5) {
            r->t_ref = g->t_ref1; /* the verification run, reused */
            r->ref_reps = 1;
        } else {
            progress("%s %s %s t%d: scalar reference", bc->name, r->dtype, r->layout, rc->threads);
            int reps_ref = o->reps ? o->reps : 5;
            if (o->quick)
                reps_ref = 1;
            fill_sentinel(g->gi_dnnl, g->gi_bytes);
            r->t_ref = run_reference(g, &g->t_gi_dnnl, rc->threads, reps_ref, &r->ref_reps, o->quick ? 0 : 1.0);
            char msg[64];
            if (!verify(g, &g->t_gi_dnnl, msg, sizeof msg, NULL)) {
                r->verified = false;
                snprintf(r->check, sizeof r->check, "FAIL(ref t%d %s)", rc->threads, msg);
            }
        }
        r->x_ref = r->t_ref / r->t_pg;
    }
}

/* ------------------------------------------------------------------ output */

static void fmt_time(char *buf, size_t n, double s)
{
    if (isnan(s))
        snprintf(buf, n, "-");
    else if (s < 1e-3)
        snprintf(buf, n, "%.1fus", s * 1e6);
    else if (s < 1)
        snprintf(buf, n, "%.3fms", s * 1e3);
    else
        snprintf(buf, n, "%.3fs", s);
}

static void print_header(FILE *f, bool sweep, bool dnnl)
{
    fprintf(f, "%-22s %-9s %-4s %-5s %3s %-6s %-34s %10s %7s %6s %10s %6s", "case", "op", "type", "lay", "thr",
            "isa", "kernel", "time", "GB/s", "%mcpy", sweep ? "ns/elem" : "ref", sweep ? "" : "x_ref");
    if (dnnl)
        fprintf(f, " %10s %6s %-18s", "onednn", "x_dnnl", "onednn_impl");
    fprintf(f, " %s\n", "check");
}

static void print_row(FILE *f, const row *r, bool dnnl)
{
    char tp[24], tr[24], td[24], xr[16], xd[16];
    fmt_time(tp, sizeof tp, r->t_pg);
    if (r->sweep) {
        snprintf(tr, sizeof tr, "%.3f", r->ns_per_elem);
        xr[0] = 0;
    } else {
        fmt_time(tr, sizeof tr, r->t_ref);
        if (isnan(r->x_ref))
            snprintf(xr, sizeof xr, "-");
        else
            snprintf(xr, sizeof xr, "%.2fx", r->x_ref);
    }
    fprintf(f, "%-22s %-9s %-4s %-5s %3d %-6s %-34s %10s %7.2f %5.0f%% %10s %6s", r->case_name, r->op, r->dtype,
            r->layout, r->threads, r->isa, r->kernel, tp, r->gbs, 100.0 * r->frac_memcpy, tr, xr);
    if (dnnl) {
        if (isnan(r->t_dnnl)) {
            snprintf(td, sizeof td, "n/a");
            snprintf(xd, sizeof xd, "-");
        } else {
            fmt_time(td, sizeof td, r->t_dnnl);
            snprintf(xd, sizeof xd, "%.2fx", r->x_dnnl);
        }
        fprintf(f, " %10s %6s %-18s", td, xd, r->dnnl_impl);
    }
    fprintf(f, " %s%s%s\n", r->check, r->dnnl_note[0] ? "  note: " : "", r->dnnl_note);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isnan(v) || isinf(v))
        fprintf(f, "null");
    else
        fprintf(f, "%.9g", v);
}

static const char *csv_header =
    "case,op,dtype,layout,threads,isa,kernel,gi_numel,go_numel,bytes,reps,time_s,time_min_s,gbs,memcpy_time_s,memcpy_gbs,"
    "frac_memcpy,ns_per_elem,ref_time_s,ref_reps,speedup_vs_ref,onednn_time_s,onednn_time_min_s,speedup_vs_onednn,onednn_impl,"
    "onednn_max_abs_err,onednn_note,verified,check\n";

static void csv_num(FILE *f, double v)
{
    if (!isnan(v) && !isinf(v))
        fprintf(f, "%.9g", v);
    fputc(',', f);
}

static void write_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s: %s", path, strerror(errno));
    fputs(csv_header, f);
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        fprintf(f, "%s,%s,%s,%s,%d,%s,%s,%lld,%lld,%.0f,%d,", r->case_name, r->op, r->dtype, r->layout, r->threads,
                r->isa, r->kernel, (long long)r->gi_numel, (long long)r->go_numel, r->bytes, r->reps);
        csv_num(f, r->t_pg);
        csv_num(f, r->t_pg_min);
        csv_num(f, r->gbs);
        csv_num(f, r->t_memcpy);
        csv_num(f, r->memcpy_gbs);
        csv_num(f, r->frac_memcpy);
        csv_num(f, r->ns_per_elem);
        csv_num(f, r->t_ref);
        fprintf(f, "%d,", r->ref_reps);
        csv_num(f, r->x_ref);
        csv_num(f, r->t_dnnl);
        csv_num(f, r->t_dnnl_min);
        csv_num(f, r->x_dnnl);
        fprintf(f, "\"%s\",", r->dnnl_impl);
        csv_num(f, r->dnnl_maxabs);
        fprintf(f, "\"%s\",%s,\"%s\"\n", r->dnnl_note, r->verified ? "true" : "false", r->check);
    }
    fclose(f);
}

/* ------------------------------------------------------------------ targets */

typedef struct target {
    char name[96];
    char value[160];
    const char *status; /* "PASS", "MISS", "n/a" */
} target;

static target targets[8];
static int n_targets;

static target *add_target(const char *name)
{
    target *t = &targets[n_targets++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->status = "n/a";
    snprintf(t->value, sizeof t->value, "not measured in this run");
    return t;
}

/* the targets are judged on the first --isa of the list (default auto) */
static const char *target_isa = "auto";

static bool is_1t_auto(const row *r) { return !r->sweep && r->threads == 1 && !strcmp(r->isa, target_isa); }

static const row *find_row(const row *like, const char *dtype, int threads)
{
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        if (!r->sweep && !strcmp(r->case_name, like->case_name) && !strcmp(r->layout, like->layout) &&
            !strcmp(r->isa, like->isa) && !strcmp(r->dtype, dtype) && r->threads == threads)
            return r;
    }
    return NULL;
}

static void evaluate_targets(void)
{
    n_targets = 0;
    /* 1. vs oneDNN, f32 and bf16, both layouts: geomean >= 1.5, min >= 1.0 */
    {
        target *t = add_target("faster than oneDNN (f32+bf16, 1 thread): geomean >= 1.5x, every case >= 1.0x");
        double lg = 0, mn = INFINITY;
        int n = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || isnan(r->x_dnnl) || !strcmp(r->dtype, "f16"))
                continue;
            lg += log(r->x_dnnl);
            n++;
            if (r->x_dnnl < mn) {
                mn = r->x_dnnl;
                worst = r;
            }
        }
        if (n) {
            double gm = exp(lg / n);
            snprintf(t->value, sizeof t->value, "geomean %.2fx over %d rows, min %.2fx (%s %s %s)", gm, n, mn,
                     worst->case_name, worst->dtype, worst->layout);
            t->status = gm >= 1.5 && mn >= 1.0 ? "PASS" : "MISS";
        }
    }
    /* 2. non-overlapping and global: >= 70% of memcpy */
    {
        target *t = add_target("non-overlapping (k<=s) and global cases: >= 70% of memcpy bandwidth (1 thread)");
        double mn = INFINITY;
        int n = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || (r->overlap && !r->global))
                continue;
            n++;
            if (r->frac_memcpy < mn) {
                mn = r->frac_memcpy;
                worst = r;
            }
        }
        if (n) {
            snprintf(t->value, sizeof t->value, "min %.0f%% over %d rows (%s %s %s)", 100 * mn, n, worst->case_name,
                     worst->dtype, worst->layout);
            t->status = mn >= 0.70 ? "PASS" : "MISS";
        }
    }
    /* 3. f16/bf16 time <= 0.6 x f32 time */
    {
        target *t = add_target("f16/bf16 time <= 0.6x the f32 time of the same case (1 thread)");
        double mx = 0, lg = 0;
        int n = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || !strcmp(r->dtype, "f32"))
                continue;
            const row *f = find_row(r, "f32", 1);
            if (!f)
                continue;
            double q = r->t_pg / f->t_pg;
            lg += log(q);
            n++;
            if (q > mx) {
                mx = q;
                worst = r;
            }
        }
        if (n) {
            snprintf(t->value, sizeof t->value, "max %.2f (%s %s %s), geomean %.2f over %d rows", mx,
                     worst->case_name, worst->dtype, worst->layout, exp(lg / n), n);
            t->status = mx <= 0.6 ? "PASS" : "MISS";
        }
    }
    /* 4. SIMD >= 4x scalar reference, geomean over f32 */
    {
        target *t = add_target("best ISA >= 4x the scalar reference, geomean over the f32 suite (1 thread)");
        double lg = 0;
        int n = 0;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || strcmp(r->dtype, "f32") || isnan(r->x_ref))
                continue;
            lg += log(r->x_ref);
            n++;
        }
        if (n) {
            double gm = exp(lg / n);
            snprintf(t->value, sizeof t->value, "geomean %.2fx over %d rows", gm, n);
            t->status = gm >= 4.0 ? "PASS" : "MISS";
        }
    }
    /* 5. 2 threads >= 1.6x one thread on 3D */
    {
        target *t = add_target("2 threads >= 1.6x one thread on the 3D cases");
        double mn = INFINITY, lg = 0;
        int n = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (r->sweep || r->threads != 2 || strcmp(r->op, "avgpool3d") || strcmp(r->isa, target_isa))
                continue;
            const row *one = find_row(r, r->dtype, 1);
            if (!one)
                continue;
            double q = one->t_pg / r->t_pg;
            lg += log(q);
            n++;
            if (q < mn) {
                mn = q;
                worst = r;
            }
        }
        if (n) {
            snprintf(t->value, sizeof t->value, "min %.2fx (%s %s %s), geomean %.2fx over %d rows", mn,
                     worst->case_name, worst->dtype, worst->layout, exp(lg / n), n);
            t->status = mn >= 1.6 ? "PASS" : "MISS";
        }
    }
}

static void print_targets(FILE *f)
{
    fprintf(f, "\ntargets (issue 4), on the rows of this run with isa %s:\n", target_isa);
    for (int i = 0; i < n_targets; i++)
        fprintf(f, "  [%-4s] %s\n         %s\n", targets[i].status, targets[i].name, targets[i].value);
}

/* ------------------------------------------------------------------ environment description */

static char cpu_name[128] = "unknown";
static double load_start = NAN, load_end = NAN;

static double loadavg1(void)
{
    double l = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = NAN;
        fclose(f);
    }
    return l;
}
static char onednn_version[64] = "not built";
static char cmdline[512];
static char datestr[64];

static void describe_env(int argc, char **argv)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10)) {
                char *p = strchr(line, ':');
                if (p) {
                    p++;
                    while (*p == ' ')
                        p++;
                    p[strcspn(p, "\n")] = 0;
                    snprintf(cpu_name, sizeof cpu_name, "%s", p);
                }
                break;
            }
        }
        fclose(f);
    }
    size_t off = 0;
    for (int i = 0; i < argc && off < sizeof cmdline - 1; i++)
        off += (size_t)snprintf(cmdline + off, sizeof cmdline - off, "%s%s", i ? " " : "", argv[i]);
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(datestr, sizeof datestr, "%Y-%m-%d %H:%M UTC", &tmv);
#ifdef POOLGRAD_BENCH_ONEDNN
    const dnnl_version_t *v = dnnl_version();
    snprintf(onednn_version, sizeof onednn_version, "%d.%d.%d (cpu runtime %s)", v->major, v->minor, v->patch,
             v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other");
#endif
}

static void write_json(const char *path, const options *o)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s: %s", path, strerror(errno));
    fprintf(f, "{\n  \"program\": \"poolgrad_bench\",\n  \"command\": ");
    json_str(f, cmdline);
    fprintf(f, ",\n  \"date\": ");
    json_str(f, datestr);
    fprintf(f, ",\n  \"cpu\": ");
    json_str(f, cpu_name);
    fprintf(f, ",\n  \"compiler\": ");
    json_str(f, __VERSION__);
    fprintf(f, ",\n  \"poolgrad_version\": ");
    json_str(f, poolgrad_version_string());
    fprintf(f, ",\n  \"active_isa\": ");
    json_str(f, poolgrad_isa_name(poolgrad_active_isa()));
    fprintf(f, ",\n  \"onednn\": ");
    json_str(f, onednn_version);
    fprintf(f, ",\n  \"loadavg_start\": ");
    json_num(f, load_start);
    fprintf(f, ",\n  \"loadavg_end\": ");
    json_num(f, load_end);
    fprintf(f, ",\n  \"mode\": \"%s\",\n  \"rows\": [\n", o->sweep ? "sweep" : o->quick ? "quick" : "suite");
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        fprintf(f, "    {\"case\": ");
        json_str(f, r->case_name);
        fprintf(f, ", \"op\": \"%s\", \"dtype\": \"%s\", \"layout\": \"%s\", \"threads\": %d, \"isa\": ", r->op,
                r->dtype, r->layout, r->threads);
        json_str(f, r->isa);
        fprintf(f, ", \"kernel\": ");
        json_str(f, r->kernel);
        fprintf(f, ", \"gi_numel\": %lld, \"go_numel\": %lld, \"bytes\": %.0f, \"reps\": %d", (long long)r->gi_numel,
                (long long)r->go_numel, r->bytes, r->reps);
#define JN(key, v) do { fprintf(f, ", \"" key "\": "); json_num(f, v); } while (0)
        JN("time_s", r->t_pg);
        JN("time_min_s", r->t_pg_min);
        JN("gbs", r->gbs);
        JN("memcpy_time_s", r->t_memcpy);
        JN("memcpy_gbs", r->memcpy_gbs);
        JN("frac_memcpy", r->frac_memcpy);
        JN("ns_per_elem", r->ns_per_elem);
        JN("ref_time_s", r->t_ref);
        fprintf(f, ", \"ref_reps\": %d", r->ref_reps);
        JN("speedup_vs_ref", r->x_ref);
        JN("onednn_time_s", r->t_dnnl);
        JN("onednn_time_min_s", r->t_dnnl_min);
        JN("speedup_vs_onednn", r->x_dnnl);
        JN("onednn_max_abs_err", r->dnnl_maxabs);
#undef JN
        fprintf(f, ", \"onednn_impl\": ");
        json_str(f, r->has_dnnl ? r->dnnl_impl : "");
        fprintf(f, ", \"onednn_note\": ");
        json_str(f, r->dnnl_note);
        fprintf(f, ", \"verified\": %s, \"check\": ", r->verified ? "true" : "false");
        json_str(f, r->check);
        fprintf(f, "}%s\n", i + 1 < n_rows ? "," : "");
    }
    fprintf(f, "  ],\n  \"targets\": [\n");
    for (int i = 0; i < n_targets; i++) {
        fprintf(f, "    {\"target\": ");
        json_str(f, targets[i].name);
        fprintf(f, ", \"status\": \"%s\", \"value\": ", targets[i].status);
        json_str(f, targets[i].value);
        fprintf(f, "}%s\n", i + 1 < n_targets ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    fclose(f);
}

static void md_time(FILE *f, double s)
{
    char b[24];
    fmt_time(b, sizeof b, s);
    fprintf(f, " %s |", isnan(s) ? "n/a" : b);
}

static void write_md(const char *path, const options *o, bool dnnl)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s: %s", path, strerror(errno));
    fprintf(f, "CPU: %s (%d threads), %s, gcc %s, poolgrad %s (best ISA %s), oneDNN %s, load average %.2f.  \n"
               "Command: `%s`\n\n",
            cpu_name, max_threads(), datestr, __VERSION__, poolgrad_version_string(),
            poolgrad_isa_name(poolgrad_active_isa()), dnnl ? onednn_version : "off", load_start, cmdline);
    fprintf(f, "| case | op | dtype | layout | thr | kernel | time | GB/s | %% memcpy | %s |%s check |\n",
            o->sweep ? "ns/elem" : "ref | x ref", dnnl ? " oneDNN | x oneDNN | oneDNN impl |" : "");
    fprintf(f, "|---|---|---|---|--:|---|--:|--:|--:|--:|%s%s---|\n", o->sweep ? "" : "--:|",
            dnnl ? "--:|--:|---|" : "");
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        fprintf(f, "| %s | %s | %s | %s | %d | `%s` |", r->case_name, r->op, r->dtype, r->layout, r->threads, r->kernel);
        md_time(f, r->t_pg);
        fprintf(f, " %.2f | %.0f%% |", r->gbs, 100 * r->frac_memcpy);
        if (o->sweep) {
            fprintf(f, " %.3f |", r->ns_per_elem);
        } else {
            md_time(f, r->t_ref);
            if (isnan(r->x_ref))
                fprintf(f, " - |");
            else
                fprintf(f, " %.2fx |", r->x_ref);
        }
        if (dnnl) {
            md_time(f, r->t_dnnl);
            if (isnan(r->x_dnnl))
                fprintf(f, " - | %s |", r->dnnl_impl);
            else
                fprintf(f, " %.2fx | %s |", r->x_dnnl, r->dnnl_impl);
        }
        if (r->dnnl_note[0])
            fprintf(f, " %s (%s) |\n", r->check, r->dnnl_note);
        else
            fprintf(f, " %s |\n", r->check);
    }
    if (n_targets) {
        fprintf(f, "\n| target | status | measured |\n|---|---|---|\n");
        for (int i = 0; i < n_targets; i++)
            fprintf(f, "| %s | %s | %s |\n", targets[i].name, targets[i].status, targets[i].value);
    }
    fclose(f);
}

/* ------------------------------------------------------------------ driver */

static bool filter_match(const options *o, const bench_case *bc, poolgrad_dtype dt, bool cl)
{
    if (o->n_filters == 0)
        return true;
    char label[160];
    snprintf(label, sizeof label, "%s avgpool%dd %s %s", bc->name, bc->sd, dtype_name(dt),
             cl ? (bc->sd == 2 ? "nhwc cl" : "ndhwc cl") : (bc->sd == 2 ? "nchw" : "ncdhw nchw"));
    for (int i = 0; i < o->n_filters; i++)
        if (strstr(label, o->filters[i]))
            return true;
    return false;
}

static int threads_for(const options *o, const bench_case *bc, int *out)
{
    if (o->n_threads) {
        memcpy(out, o->threads, (size_t)o->n_threads * sizeof *out);
        return o->n_threads;
    }
    out[0] = 1;
    if (bc->sd == 3 && !o->sweep && max_threads() >= 2) { /* no OpenMP or one CPU: no 2-thread row */
        out[1] = 2;
        return 2;
    }
    return 1;
}

/* Sweep cases: gradInput element count 2^e, e = 16..26 */
static int make_sweep(bench_case *out, char names[][48])
{
    int n = 0;
    for (int e = 16; e <= 26; e++) { /* 2D: N=1, C=64, H*W = 2^(e-6) */
        int s = e - 6;
        bench_case bc = { NULL, 2, 1, 64, { 1LL << (s / 2), 1LL << (s - s / 2) }, 3, 2, 1, false, true };
        snprintf(names[n], 48, "sweep2d_k3s2p1_2^%d", e);
        bc.name = names[n];
        out[n++] = bc;
    }
    for (int e = 16; e <= 26; e++) { /* 3D: N=1, C=32, D*H*W = 2^(e-5) */
        int s = e - 5, d = s / 3, h = (s - d) / 2, w = s - d - h;
        bench_case bc = { NULL, 3, 1, 32, { 1LL << d, 1LL << h, 1LL << w }, 3, 2, 1, false, true };
        snprintf(names[n], 48, "sweep3d_k3s2p1_2^%d", e);
        bc.name = names[n];
        out[n++] = bc;
    }
    return n;
}

int main(int argc, char **argv)
{
    options o;
    describe_env(argc, argv); /* first: parse_args splits lists in place */
    parse_args(argc, argv, &o);
    stderr_tty = isatty(2);
#ifdef _OPENMP
    initial_max_threads = omp_get_max_threads();
#endif
    const char *env_isa = getenv("POOLGRAD_ISA");
    saved_isa_env = env_isa ? strdup(env_isa) : NULL;

    bool use_dnnl = false;
#ifdef POOLGRAD_BENCH_ONEDNN
    if (!o.no_onednn) {
        dnnl_init();
        use_dnnl = dnnl_ok;
        if (!dnnl_ok)
            fprintf(stderr, "poolgrad_bench: oneDNN engine creation failed; oneDNN columns disabled\n");
    }
#endif

    const bench_case *cases;
    int n_cases;
    static bench_case sweep_cases[32];
    static char sweep_names[32][48];
    if (o.sweep) {
        n_cases = make_sweep(sweep_cases, sweep_names);
        cases = sweep_cases;
    } else if (o.quick) {
        cases = quick_suite;
        n_cases = (int)(sizeof quick_suite / sizeof quick_suite[0]);
    } else {
        cases = standard_suite;
        n_cases = (int)(sizeof standard_suite / sizeof standard_suite[0]);
    }

    /* count the rows for the progress line */
    for (int ci = 0; ci < n_cases; ci++)
        for (int di = 0; di < o.n_dtypes; di++)
            for (int l = 0; l < 2; l++) {
                bool cl = l == 1;
                if ((cl && !o.layout_cl) || (!cl && !o.layout_nchw) || !filter_match(&o, &cases[ci], o.dtypes[di], cl))
                    continue;
                int th[MAX_LIST];
                progress_total += threads_for(&o, &cases[ci], th) * o.n_isas;
            }
    if (progress_total == 0)
        die("no case matches the filters");

    printf("poolgrad_bench %s — %s\n", o.sweep ? "sweep" : o.quick ? "quick suite" : "standard suite", cmdline);
    printf("cpu: %s (%d threads available) | %s | compiler: gcc %s | poolgrad %s, best ISA %s | oneDNN: %s\n",
           cpu_name, max_threads(), datestr, __VERSION__, poolgrad_version_string(),
           poolgrad_isa_name(poolgrad_active_isa()), use_dnnl ? onednn_version : "off");
    printf("time = median of the timed reps; GB/s = (gradOutput + gradInput bytes) / time; %%mcpy = GB/s / memcpy GB/s "
           "(memcpy of gradInput's size, same run);\n");
    if (o.sweep)
        printf("ns/elem = time per gradInput element; the scalar reference (multi-threaded) is used for the check only.\n");
    else
        printf("ref = scalar reference (POOLGRAD_ISA=scalar) at the row's thread count, few reps (1 on slow cases), "
               "x_ref = ref / time;\n");
    printf("check = gradInput bit-exact vs the scalar reference (verified / FAIL).%s\n\n",
           use_dnnl ? " onednn = oneDNN backward pooling, same problem and layout, timed alternately; "
                      "x_dnnl = onednn / time." : "");
    load_start = loadavg1();
    if (load_start > 0.5)
        printf("warning: load average %.2f at start: other processes are running, timings will be noisy "
               "(2-thread rows most of all:\n         OpenMP threads spinning at barriers lose whole scheduler ticks; "
               "OMP_WAIT_POLICY=passive softens that)\n\n", load_start);
    print_header(stdout, o.sweep, use_dnnl);
    fflush(stdout);

    int fails = 0;
    double t_start = now_s();
    for (int ci = 0; ci < n_cases; ci++) {
        const bench_case *bc = &cases[ci];
        for (int di = 0; di < o.n_dtypes; di++) {
            for (int l = 0; l < 2; l++) {
                bool cl = l == 1;
                if ((cl && !o.layout_cl) || (!cl && !o.layout_nchw) || !filter_match(&o, bc, o.dtypes[di], cl))
                    continue;
                group g;
                progress("%s %s %s: allocate", bc->name, dtype_name(o.dtypes[di]), cl ? "cl" : "nchw");
                if (!group_init(&g, bc, o.dtypes[di], cl)) {
                    fails++;
                    group_free(&g);
                    continue;
                }
                /* the reference output, single-threaded and timed (multi-threaded, untimed, in the sweep) */
                progress("%s %s %s: scalar reference (verification)", bc->name, dtype_name(o.dtypes[di]),
                         cl ? "cl" : "nchw");
                int rr;
                fill_sentinel(g.gi_ref, g.gi_bytes);
                double t = run_reference(&g, &g.t_gi_ref, o.sweep ? max_threads() : 1, 1, &rr, 0);
                g.ref_ok = !isnan(t);
                g.t_ref1 = o.sweep ? NAN : t;

                int th[MAX_LIST];
                int nth = threads_for(&o, bc, th);
                for (int ti = 0; ti < nth; ti++) {
                    for (int ii = 0; ii < o.n_isas; ii++) {
                        run_cfg rc = { th[ti], o.isas[ii], o.sweep, use_dnnl };
                        run_row(&g, &rc, &o);
                        progress_done++;
                        const row *r = &rows[n_rows - 1];
                        if (!r->verified)
                            fails++;
                        progress_end();
                        print_row(stdout, r, use_dnnl);
                        fflush(stdout);
                    }
                }
                group_free(&g);
            }
        }
    }
    progress_end();
    double elapsed = now_s() - t_start;
    load_end = loadavg1();

    if (!o.sweep && !o.quick) { /* the quick suite's tiny sizes say nothing about the targets */
        target_isa = o.isas[0];
        evaluate_targets();
        print_targets(stdout);
    }
    bool any_note = false;
    for (int i = 0; i < n_rows; i++)
        any_note |= rows[i].dnnl_note[0] != 0;
    if (use_dnnl)
        printf("\noneDNN: %s; f16 pooling is not available in oneDNN on the CPU (n/a). oneDNN results are not "
               "bit-compared%s.\n",
               onednn_version,
               any_note ? "; 'ceil overhang' rows: oneDNN divides by the full kernel there, poolgrad/PyTorch by "
                          "the window clipped at I+pad" : "");
    for (int i = 0; i < n_rows; i++)
        if (!rows[i].verified)
            printf("FAIL: %s %s %s %s threads %d isa %s kernel %s: %s\n", rows[i].case_name, rows[i].op, rows[i].dtype,
                   rows[i].layout, rows[i].threads, rows[i].isa, rows[i].kernel, rows[i].check);
    int non_jit = 0;
    for (int i = 0; i < n_rows; i++)
        if (!isnan(rows[i].t_dnnl) && strncmp(rows[i].dnnl_impl, "jit", 3) != 0)
            non_jit++;
    if (non_jit)
        printf("oneDNN chose a non-JIT implementation (e.g. simple_nchw:any) on %d row(s): that is what oneDNN does "
               "for that problem and layout, so it is what poolgrad is compared with.\n", non_jit);
    printf("%d rows, %d FAIL, %.1f s (load average %.2f at start, %.2f at the end, this run included)\n", n_rows,
           fails, elapsed, load_start, load_end);

    if (o.csv)
        write_csv(o.csv);
    if (o.json)
        write_json(o.json, &o);
    if (o.md)
        write_md(o.md, &o, use_dnnl);
#ifdef POOLGRAD_BENCH_ONEDNN
    if (dnnl_strm)
        dnnl_stream_destroy(dnnl_strm);
    if (dnnl_eng)
        dnnl_engine_destroy(dnnl_eng);
#endif
    free(rows);
    free(saved_isa_env);
    return fails ? 1 : 0;
}
