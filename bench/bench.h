/*
 * bench.h — what the files of the benchmark share: the problem list entry (bench_case), the options, a row
 * of results, one case/dtype/layout group of buffers, and the functions each file offers.
 *
 *   cases.c    the standard suite, the --quick and --sweep problem lists
 *   timing.c   the clock, medians, the memcpy reference copy
 *   roofline.c the limit of a row: memory time vs the arithmetic the contract needs, per-lane costs
 *   peer.h     the side-by-side library (peer_onednn.c, or peer_none.c when built without oneDNN)
 *   run.c      one row: plans, warm-up, timed repetitions, verification against the scalar reference
 *   report.c   the table on stdout, CSV, JSON, Markdown
 *   env.c      the description of the machine and the run (CPU, versions, load average)
 *   targets.c  the target verdicts (PASS/MISS) on the rows of the standard suite
 *   common.c   errors, allocation, the random fill, the progress line
 *   main.c     options and the loop over cases, dtypes, layouts, thread counts and ISAs
 */
#ifndef POOLGRAD_BENCH_H
#define POOLGRAD_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "poolgrad/poolgrad.h"

/* ------------------------------------------------------------------ cases (cases.c) */

typedef struct bench_case {
    const char *name;
    int sd;                       /* spatial dims */
    int64_t n, c, in[3];          /* in: (D,) H, W — for 2D only in[0..1] used */
    int64_t k[3], s[3], p[3];     /* kernel, stride, padding per axis, in the order of in[] */
    bool ceil, cip;
    int64_t divisor;              /* divisor_override, 0: none */
} bench_case;

/* a case with the same kernel, stride and padding on every axis */
#define BENCH_CASE(name, sd, n, c, in, k, s, p, ceil, cip)                                                        \
    { name, sd, n, c, in, { k, k, k }, { s, s, s }, { p, p, p }, ceil, cip, 0 }
#define DIMS(...) { __VA_ARGS__ }

extern const bench_case standard_suite[];
extern const int n_standard_suite;
extern const bench_case quick_suite[];
extern const int n_quick_suite;
/* Sweep cases: gradInput element count 2^e, e = 16..26; names written into `names` */
int make_sweep(bench_case *out, char names[][48]);
/*
 * Parse a benchdnn-style problem descriptor (e.g. mb32ic64ih56iw56kh3kw3sh2sw2ph1pw1, 3D with id/kd/sd/pd)
 * into *out with ceil mode, count_include_pad and divisor_override as given, named by its n<name> suffix or
 * the descriptor itself (kept in name_buf). On error, false and a message naming the bad token in err.
 */
bool parse_problem(const char *desc, bool ceil, bool cip, int64_t divisor, bench_case *out, char *name_buf,
                   size_t name_size, char *err, size_t err_size);
bool selftest_problems(void);

/* ------------------------------------------------------------------ options (main.c) */

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
    const char *problems[MAX_LIST]; /* --problem descriptors: run these instead of a suite */
    int n_problems;
    bool p_ceil, p_exclude_pad;     /* --ceil, --exclude-pad: for the --problem descriptors */
    int64_t p_divisor;              /* --divisor N */
    const char *compare;            /* --compare OLD.json */
    const char *dump;               /* --dump DIR: write inputs and reference outputs for torch_bench.py */
    const char *torch;              /* --torch TORCH.json: the PyTorch column */
} options;

/* ------------------------------------------------------------------ rows (run.c) */

typedef struct row {
    char case_name[96];
    char op[12];
    char dtype[8];
    char layout[8];
    int threads;
    char isa[12];      /* the ISA that ran: the one in the kernel's name */
    char isa_req[12];  /* the --isa cap asked for ("auto" by default) */
    char kernel[64];
    int64_t gi_numel, go_numel;
    double bytes;      /* go read + gi written */
    double t_pg;       /* median seconds */
    double t_pg_min, t_dnnl_min; /* fastest rep, CSV/JSON only (a hint on a noisy machine) */
    double t_pg_solo;  /* with --torch: median of poolgrad alone, repeated back to back as torch_bench.py times
                        * PyTorch (caches as warm as a repeated call leaves them); NAN otherwise */
    double gbs;
    double t_memcpy, memcpy_gbs, frac_memcpy;
    int memcpy_inner;  /* copies per memcpy measurement (memcpy_limit_time) */
    /* the limit (roofline.c): seconds; t_limit = max(t_lim_mem, t_lim_arith), frac_limit = t_limit / t_pg */
    int64_t terms;     /* (gradInput element, covering window) pairs */
    int64_t adds;      /* terms priced as add+load: those of elements with two or more, one per window for the rest */
    int64_t results;   /* values priced as narrowed: elements with two or more terms, one per window for the rest */
    double t_lim_mem, t_lim_div, t_lim_add, t_lim_conv, t_lim_arith, t_limit, frac_limit;
    bool divisors_pow2; /* every divisor a power of two: the division part priced as a multiplication */
    bool arith_bound;  /* the arithmetic time is the larger */
    char limit_isa[12]; /* the per-lane costs used: those of the ISA that ran */
    double t_ref;      /* NAN if not timed */
    int ref_reps;
    double x_ref;
    bool has_dnnl;
    double t_dnnl, x_dnnl;
    char dnnl_impl[64];
    char dnnl_note[64];
    double dnnl_maxabs; /* max |oneDNN - reference| over finite elements, NAN if none */
    bool has_torch;     /* a row of --torch TORCH.json matched */
    double t_torch, x_torch; /* PyTorch's median time (separate process, see torch_io.c), t_torch / t_pg */
    char torch_check[48];    /* torch_bench.py's bit comparison with the reference */
    double x_threads;   /* threads > 1: median over the reps of (one-thread time / this row's time), the plan run
                         * on one thread next to each timed run (after it, then before it); NAN otherwise */
    double x_f32;       /* f16/bf16 rows of memory-bound cases (k <= s, global) on one thread: median over the reps of
                         * (this row's time / the f32 time of the same problem and layout, run next to it); NAN
                         * otherwise */
    int reps;
    double ns_per_elem;
    bool verified;
    char check[96];
    bool sweep;
    bool overlap;      /* k > s */
    bool global;
} row;

extern row *rows;
extern int n_rows;

/* one case/dtype/layout: the buffers and views every row of it shares */
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

typedef struct run_cfg {
    int threads;
    const char *isa;
    bool sweep;
    bool use_dnnl;
} run_cfg;

/* pair_only: gradOutput and poolgrad's gradInput only, for a plan timed next to another group's rows */
bool group_init(group *g, const bench_case *bc, poolgrad_dtype dt, bool cl, bool pair_only);
void group_free(group *g);
void fill_sentinel(void *buf, size_t bytes);
/* Run the reference plan into `gi` with `threads`, up to `reps` times within `budget` s; the median time. */
double run_reference(group *g, const poolgrad_tensor *gi, int threads, int reps, int *reps_done, double budget);
/* Time and verify one row; appends it to rows[]. */
void run_row(group *g, const run_cfg *rc, const options *o);
/* The ISA in a kernel name "avgpool2d_bwd_<dtype>__<isa>[_<kind>]" ("avx2", "scalar"); "?" if none. */
void kernel_isa(const char *kernel, char *out, size_t out_size);
/*
 * The label of a row that asked for cap `requested` and ran `kernel` while the cap granted `granted` (the
 * best ISA the CPU and the build allow under it, poolgrad_active_isa()): the ISA that ran goes to label.
 * Returns true, with the reason in why, when a cap other than auto was asked for and something else ran
 * (the CPU lacks it, or the plan chose a kernel below it).
 */
bool isa_label(const char *requested, const char *kernel, const char *granted, char *label, size_t label_size,
               char *why, size_t why_size);
bool selftest_isa_label(void);
/* poolgrad_active_isa()'s name under POOLGRAD_ISA cap `isa` (NULL or "auto": the environment's) */
const char *granted_isa(const char *isa);
/* Remember the POOLGRAD_ISA of the environment (restored after every plan made under a cap). */
void isa_env_save(void);
void isa_env_free(void);

/* ------------------------------------------------------------------ timing (timing.c) */

double now_s(void);
/* median of v[0..n) (sorts v); NAN when n <= 0 */
double median(double *v, int n);
/* timed repetitions for a row whose warm-up (poolgrad + peer + memcpy) took `est` s: about `budget` s of
 * them, 5..101 (3 when one round exceeds 0.25 s) */
int adaptive_reps(double est, double budget);
/* memcpy of `bytes`, split into `threads` contiguous pieces (one OpenMP parallel region: warm-up only) */
void par_memcpy(char *dst, const char *src, size_t bytes, int threads);
/*
 * The memcpy limit of a row: seconds per copy of `bytes` at `threads` threads. Inside one parallel region,
 * after a barrier that all threads have reached, each thread copies its contiguous share (cut at 64 bytes)
 * `inner` times in up to MEMCPY_SAMPLES equal batches, reading the clock around each batch; the result is
 * the largest over the threads of each thread's median time per copy (the slowest share bounds a parallel
 * copy). Starting the team and the barrier are never timed, and a batch interrupted by another process does
 * not move a median: a small buffer split over two threads measures copying, not thread start-up.
 */
double memcpy_limit_time(char *dst, const char *src, size_t bytes, int threads, int inner);
/*
 * The number of copies per memcpy_limit_time() call: one when a copy takes MEMCPY_SINGLE_S or more, so
 * that each copy starts, like each poolgrad rep, from the cache the other reps left (copies back to back
 * find their buffers in the L3 when two of them fit, which no poolgrad rep does); otherwise enough that
 * one call lasts about MEMCPY_BATCH_S, so that reading the clock does not count against in-cache copies.
 */
#define MEMCPY_SINGLE_S 50e-6
#define MEMCPY_BATCH_S 2e-3
#define MEMCPY_INNER_MAX 4096
#define MEMCPY_SAMPLES 32
int memcpy_limit_inner(double t_one_copy);

/* ------------------------------------------------------------------ the limit (roofline.c) */

/* per-lane costs in ns, measured on this CPU at the vector width of `isa` (in-cache loops) */
typedef struct roof_costs {
    char isa[12];
    int lanes;                 /* f32 lanes per vector */
    double div[3];             /* by poolgrad_dtype: load, widen (f16/bf16), an IEEE f32 division, store */
    double mul[3];             /* the same with a multiplication (rows whose divisors are all powers of two) */
    double addload;            /* one load + one f32 add */
    double narrow[3];          /* by poolgrad_dtype: f32 0; f16, bf16 the exact sequences with their stores */
} roof_costs;

extern roof_costs roof_table[8]; /* every ISA measured in this run, in order */
extern int n_roof;
/* the costs of ISA `isa` ("avx512", "avx2", "sse2", "neon"; anything else: scalar), measured on first use */
const roof_costs *roof_costs_for(const char *isa);
/* counted exactly from the geometry of the group's problem */
typedef struct roof_counts {
    int64_t terms;          /* (gradInput element, covering window) pairs */
    int64_t single;         /* gradInput elements covered by exactly one window */
    int64_t covered;        /* gradInput elements covered by at least one window */
    int64_t single_windows; /* windows covering at least one of the single-covered elements */
} roof_counts;
roof_counts roof_count(const group *g);
/* roof_count's counts against brute-force ones on small geometries (--selftest) */
bool selftest_roofline(void);
/* every window divisor of the group's problem is + or - a power of two (the kernels multiply) */
bool roof_divisors_pow2(const group *g);
/* fill the limit fields of a timed row (needs bytes, memcpy_gbs, t_pg, isa, threads) */
void roof_row(row *r, const group *g);
/* "avx512, 16 f32 lanes: div ..., add+load ... ns per lane" */
void roof_describe(char *buf, size_t n, const roof_costs *c);

/* ------------------------------------------------------------------ report (report.c) */

extern bool report_torch; /* the torch columns (--torch) */
void fmt_time(char *buf, size_t n, double s);
void print_header(FILE *f, bool sweep, bool dnnl);
void print_row(FILE *f, const row *r, bool dnnl);
void write_csv(const char *path);
void write_json(const char *path, const options *o);
void write_md(const char *path, const options *o, bool dnnl);

/* ------------------------------------------------------------------ environment (env.c) */

typedef struct cache_info {
    int level;          /* 1, 2, 3 */
    char type[16];      /* Data, Instruction, Unified */
    char size[24];      /* as sysfs says it, e.g. 48K (from CPUID: KiB, the same form) */
    int ways, line;     /* associativity, line size in bytes (0: unknown) */
    char shared[32];    /* shared_cpu_list, e.g. 0-1 ("unknown" from CPUID) */
    char source[24];    /* where it was read: "sysfs", "cpuid 4", "cpuid 0x8000001d", "cpuid 0x80000006" */
} cache_info;

/* What the JSON "context" says about the machine (sysfs and /proc; "unknown" where absent). */
typedef struct bench_context {
    char vendor[32];
    int family, model, stepping;       /* -1: unknown */
    char flags[256];                   /* the ISA-relevant /proc/cpuinfo flags present */
    double cpuinfo_mhz;                /* /proc/cpuinfo "cpu MHz", NAN: unknown */
    cache_info caches[8];              /* cpu0's: sysfs cpu0/cache/index*, else CPUID */
    int n_caches;
    char governor[32];                 /* cpu0/cpufreq/scaling_governor, "unknown" without cpufreq */
    double freq_cur_mhz, freq_min_mhz, freq_max_mhz, freq_hw_max_mhz; /* cpufreq, NAN: unknown */
    char isa_detected[16];             /* poolgrad_active_isa() without a POOLGRAD_ISA cap */
    char isa_cap_env[16];              /* POOLGRAD_ISA at start ("" if unset) */
} bench_context;

extern bench_context ctx;
extern char cpu_name[128];
extern char onednn_version[64];
extern char cmdline[512];
extern char datestr[64];
extern double load_start, load_end;
void describe_env(int argc, char **argv);
/* "L1d 48K, L1i 32K, L2 2048K, L3 266240K" */
void caches_summary(char *buf, size_t n);
double loadavg1(void);

/* ------------------------------------------------------------------ targets (targets.c) */

typedef struct target {
    char name[128];
    char value[320];
    const char *status; /* "PASS", "MISS", "n/a" */
} target;

extern target targets[16];
extern int n_targets;
/* the targets are judged on the rows of this ISA (the first --isa of the list, default auto) */
extern const char *target_isa;
void evaluate_targets(void);
void print_targets(FILE *f);

/* ------------------------------------------------------------------ reading JSON back (json.c) */

typedef enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ } jv_type;
typedef struct jv {
    jv_type type;
    bool b;
    double num;
    char *str;
    struct jv *items; /* array elements or object values */
    char **keys;      /* object keys (NULL entries in an array) */
    int n;
} jv;

jv *json_parse(const char *text, char *err, size_t err_size);
jv *json_read_file(const char *path, char *err, size_t err_size);
void jv_free(jv *v);
const jv *jv_get(const jv *obj, const char *key);              /* NULL if absent or obj is no object */
const char *jv_str(const jv *obj, const char *key, const char *dflt); /* dflt unless a string */
double jv_num(const jv *obj, const char *key);                  /* NAN unless a number */
bool selftest_json(void);

/* ------------------------------------------------------------------ --compare (compare.c) */

/* Print per-row deltas of this run's rows against the rows of a previous --json file. */
void compare_with(FILE *f, const char *old_json);

/* ------------------------------------------------------------------ PyTorch files (torch_io.c) */

/* --dump DIR: gradOutput and the reference gradInput of one group, and its manifest entry */
void torch_dump_group(const group *g, const char *dir);
/* close DIR/manifest.json; the number of problems written */
int torch_dump_finish(void);
/* --torch TORCH.json: read it (exits on a bad file); torch_attach fills the torch fields of a row from its
 * matching entry, false if there is none */
void torch_load(const char *path);
bool torch_attach(row *r);
void torch_unload(void);
extern char torch_version[64];

/* ------------------------------------------------------------------ common (common.c) */

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *xalloc(size_t bytes);
void fill_random(void *buf, poolgrad_dtype dt, int64_t n);
const char *dtype_name(poolgrad_dtype dt);
/* omp_get_max_threads() at start-up (the oneDNN rows change the OpenMP default with omp_set_num_threads) */
extern int initial_max_threads;
int max_threads(void);

extern bool stderr_tty;
extern int progress_total, progress_done;
/* a phase of a row: shown on a terminal only */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* the start of a row: also logged when stderr is not a terminal */
void progress_major(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void progress_end(void);

#endif /* POOLGRAD_BENCH_H */
