/*
 * main.c — poolgrad_bench, the poolgrad benchmark, side by side with oneDNN (and PyTorch, from a file):
 * options and the main loop.
 *
 * USAGE
 *   poolgrad_bench                 the standard suite: 7 cases x {f32, f16, bf16} x
 *                                  {NCHW/NCDHW, channels-last}, 1 thread, plus 2 threads for the 3D cases
 *   poolgrad_bench --quick         a tiny suite (same case shapes, scaled down, odd sizes, plus a ceil-mode
 *                                  overhang case) for CI: a few seconds, exit status 1 on any FAIL
 *   poolgrad_bench --sweep         one 2D and one 3D case (k3 s2 p1, f32) with the gradInput element count
 *                                  doubling 2^16 .. 2^26: time per element
 *   poolgrad_bench --problem DESC  your own shapes instead of a suite (repeatable, or a comma list), in the
 *                                  benchdnn style: mb32ic64ih56iw56kh3kw3sh2sw2ph1pw1 (2D), with id/kd/sd/pd
 *                                  for 3D (mb4ic64id16ih56iw56kd3kh3kw3sd2sh2sw2pd1ph1pw1); od/oh/ow are
 *                                  checked, dd/dh/dw must be 0; defaults mb2, W and D entries copy H,
 *                                  stride 1, padding 0; a trailing n<name> names the rows. --dtype,
 *                                  --layout, --threads, --isa apply as for the suite, and to every
 *                                  descriptor:
 *     --ceil          ceil mode
 *     --exclude-pad   count_include_pad off
 *     --divisor N     divisor_override N
 *                     A bad descriptor is an error (exit status 2) naming the token.
 *   --filter SUBSTR   keep rows whose "case op dtype layout" contains SUBSTR (repeatable: any match)
 *   --dtype LIST      f32,f16,bf16          --layout LIST   nchw,cl   (nchw means NCHW or NCDHW)
 *                     (LIST: comma- or space-separated, e.g. --dtype f32,bf16 or --dtype f32 bf16)
 *   --threads LIST    thread counts, e.g. 1,2 (default: 1, and also 2 for 3D cases)
 *   --isa LIST        POOLGRAD_ISA caps to run, e.g. scalar,avx2,avx512 (default: $POOLGRAD_ISA, else auto);
 *                     the target summary is judged on the first one. The isa column is the ISA that ran,
 *                     read from the kernel's name (poolgrad_plan_kernel_name); a cap other than auto that is
 *                     not what ran (the CPU lacks it: poolgrad_active_isa under the cap; or the plan chose a
 *                     kernel below it) gives one warning on stderr; CSV/JSON keep the cap as isa_requested.
 *                     When every cap is scalar, sse2 or avx2 (x86), oneDNN is capped too (at avx2, else sse41:
 *                     dnnl_set_max_cpu_isa), so that a capped run compares as on a CPU without AVX-512; the
 *                     oneDNN version in the header, JSON and Markdown then says "capped at ..."
 *   --reps N          timed repetitions (default: adaptive, 5..101 (3 on slow rows), ~1.5 s per row)
 *   --csv FILE / --json FILE / --md FILE   write the rows (JSON and Markdown: also the environment and the
 *                     target summary) to FILE. The JSON "context" has the CPU model and flags, cpu0's caches
 *                     (/sys/devices/system/cpu/cpu0/cache, else CPUID, each with its "source"), the cpufreq
 *                     governor and frequencies ("unknown" without cpufreq) and the ISA poolgrad detects
 *   --compare OLD.json  after the run, per-row deltas against an earlier --json file: old and new poolgrad
 *                     time and new/old, rows matched by case/dtype/layout/threads/isa, and their geomean
 *   --no-onednn       skip the oneDNN columns even when built with oneDNN
 *   --dump DIR        no timed rows: write every problem's gradOutput and reference gradInput (raw, memory
 *                     order) and DIR/manifest.json, for bench/torch_bench.py
 *   --torch FILE      add the PyTorch columns (torch = PyTorch's median time, x_torch = torch / poolgrad's median
 *                     timed as PyTorch is: alone, call after call, one thread) from
 *                     the TORCH.json that bench/torch_bench.py wrote; its bit check against the reference is
 *                     noted on rows where it is not "bit-identical". The PyTorch column, in three steps (or
 *                     the first two in one: torch_bench.py --bench build/bench/poolgrad_bench ... -- OPTIONS):
 *                       poolgrad_bench OPTIONS --dump DIR
 *                       python3 bench/torch_bench.py --inputs DIR --json TORCH.json   (skipped without torch)
 *                       poolgrad_bench OPTIONS --torch TORCH.json
 *                     with the same OPTIONS (suite, --quick, --problem, --dtype ...): rows match on case,
 *                     dtype, layout, threads and element counts. PyTorch runs in its own process, so unlike
 *                     oneDNN it does not alternate with poolgrad. The f32 check compares PyTorch's gradInput
 *                     with the dumped reference, which every poolgrad row matches by memcmp. PyTorch 1.13 has
 *                     no f16 CPU kernel and no bf16 3D one (n/a); its bf16 2D results differ where windows
 *                     overlap.
 *   --selftest        check the benchmark's own logic (ISA labels, descriptors, the JSON reader) and exit
 *   --help
 *
 * WHAT A ROW MEANS
 *   Buffers are 64-byte aligned and first-touched before any timing. gradOutput is random in [-1, 1)
 *   (fixed seed). Each row: a warm-up, then repetitions in which poolgrad, oneDNN and the memcpy limit
 *   run alternately in the same process (poolgrad and oneDNN swap order every rep, so neither always finds
 *   gradOutput warm from the other); every column is the median.
 *     time     poolgrad_execute() wall time (plan created once, outside the timing)
 *     GB/s     (bytes of gradOutput read + bytes of gradInput written) / time
 *     %memcpy  GB/s divided by the memcpy limit of the same row: 2 x gradInput bytes / memcpy time, the
 *              memcpy of a gradInput-sized buffer split over the row's thread count (contiguous shares).
 *              Measured so that thread start-up does not count: inside one OpenMP parallel region, after
 *              a barrier, each thread copies its share memcpy_inner times in up to 32 timed batches; a
 *              measurement is the largest over the threads of their median time per copy. memcpy_inner
 *              is chosen from one untimed copy: 1 when that copy takes 50 us or more, so each copy starts
 *              from the cache the other reps left, as each poolgrad rep does; otherwise enough that a
 *              measurement lasts about 2 ms (at most 4096). memcpy time = the median over the reps of
 *              these measurements; memcpy_inner is in CSV/JSON. A small buffer thus gives its in-cache
 *              copy bandwidth at that thread count.
 *     limit    the model's lower bound on this row's time on this CPU (roofline.c): the larger of
 *                memory      (gradOutput + gradInput bytes) / the memcpy GB/s of %memcpy above (same size,
 *                            same thread count, same run)
 *                arithmetic  ( gradOutput elements x div[dtype]    load, f16/bf16 widening, IEEE f32 division
 *                                                                (mul[dtype], a multiplication, when every divisor is
 *                                                                a power of two: what the kernels then do)
 *                            + adds x addload                    one load + one f32 add per term
 *                            + results x narrow[dtype] ) / threads    f16/bf16 narrowing + store
 *              a term is a (gradInput element, window covering it) pair, counted exactly from the geometry
 *              (per axis the windows covering each position, multiplied over the axes, times N*C; CSV/JSON
 *              "terms"). An element covered by one window only is 0 + that window's quotient, the same value
 *              for every such element of the window, so those are priced once per window: adds = the terms
 *              of elements with two or more, plus one per window covering any single-covered element; results
 *              = the elements with two or more terms, plus those windows (CSV/JSON "adds", "results";
 *              uncovered elements are +0.0 and cost only their store). The per-lane costs are measured at
 *              start-up by small in-cache loops at the vector width of each ISA asked for (GCC vector types
 *              under target attributes, -ffp-contract=off: no FMA; the exact integer conversion sequences, no
 *              F16C), the fastest of 9 batches; the heading and the JSON context ("roofline") print them, and
 *              a row uses those of the ISA that ran.
 *     by       which part is larger: mem or arith (CSV/JSON: limit_bound, and every part in seconds:
 *              limit_memory_s, limit_div_s, limit_addload_s, limit_convert_s, limit_arith_s, limit_s)
 *     %lim     limit / time (frac_limit): 100% would be a kernel at the limit
 *     ref      the scalar golden reference: a plan created with POOLGRAD_ISA=scalar, at the row's thread
 *              count. It is slow, so it is timed with few repetitions (1 on big cases; see ref_reps in
 *              CSV/JSON). x_ref = ref time / poolgrad time.
 *     check    the gradInput of the last timed poolgrad run compared bit for bit with the reference
 *              output (computed single-threaded, once per case/dtype/layout): memcmp of the whole buffer,
 *              and poolgrad_compare for the first mismatch and its distance in ulp; "verified" or FAIL.
 *              The buffer is filled with a NaN sentinel before the warm-up, so unwritten elements show.
 *     onednn   pooling_avg_include_padding / _exclude_padding backward (oneDNN C API), primitive created
 *              once per row (forward primitive descriptor as hint), the same memory layout (nchw/nhwc/
 *              ncdhw/ndhwc tags over the same gradOutput buffer), thread count set with omp_set_num_threads.
 *              Every dtype is asked for; "no implementation" where oneDNN has none on this CPU (2.6: no
 *              f16 pooling, bf16 only with AVX-512); it has no divisor override ("n/a (divisor
 *              override)"). ceilMode is expressed as extra right padding (as PyTorch does). With a
 *              ceil-mode overhang and countIncludePad, oneDNN divides by the full kernel volume,
 *              PyTorch/poolgrad by the window clipped at I + pad: the time is still comparable, the values
 *              differ (onednn_max_abs_err in CSV/JSON is oneDNN's largest absolute difference from the
 *              reference, for information; a row notes it when it exceeds 1e-4 (f32) / 2e-2 (bf16)
 *              without an explanation).
 *   CSV/JSON also carry the fastest rep (time_min_s, onednn_time_min_s), the memcpy time, ref_reps and
 *   oneDNN's implementation string (e.g. jit:avx512_core, or simple_nchw:any when oneDNN has no JIT path
 *   for that problem and layout — the output says so).
 *   At the end a "targets" block evaluates the performance targets on the rows that were run (standard
 *   suite only; the --quick and --problem sizes say nothing about them), each PASS/MISS with the measured
 *   figure, on the rows of 1 thread unless stated: every row >= 50% of its limit and the geomean >= 70%;
 *   ahead of oneDNN (f32, and bf16 where it has an implementation) by a geomean >= 2x and no row below 1.2x;
 *   ahead of PyTorch (--torch) by >= 1.5x on every row; f16/bf16 <= 0.6x the f32 time on the memory-bound
 *   rows (k <= s, global; the median ratio of f32 runs of the same problem paired with the 16-bit row's
 *   timed runs: time_vs_f32); 2 threads >= 1.7x one thread on the rows one thread runs below 50% of memcpy
 *   (the median ratio of one-thread runs paired with the 2-thread row's timed runs: speedup_vs_1thread);
 *   the memory-bound rows >= 70% of memcpy; the best ISA >= 4x the scalar reference (geomean, f32). The
 *   sweep's reference runs multi-threaded, for the check only (no ref column).
 *   Exit status: 0 all rows verified, 1 any FAIL (listed at the end), 2 usage/setup error.
 *
 * BUILD
 *   Built when -Dbench=true (the default). oneDNN: -Dbench_onednn=enabled|auto|disabled; Debian's
 *   libdnnl-dev ships no pkg-config file, so it is found with cc.find_library('dnnl') + dnnl.h, else
 *   through its CMake package (dependency('dnnl', method: 'cmake')). Meson then compiles peer_onednn.c,
 *   otherwise peer_none.c (see peer.h). `meson test -C build --benchmark` runs the standard suite (suite
 *   'suite') and the quick one (suite 'quick'); `meson test -C build --suite bench` runs --selftest.
 *
 * FILES (one concern each; bench.h lists what they share)
 *   main.c      options and the loop              cases.c     suites, sweep, --problem descriptors
 *   run.c       one row: plans, timing, checks    timing.c    clock, medians, the memcpy limit
 *   roofline.c  the limit: memory vs arithmetic, the per-lane costs measured at start-up
 *   peer.h      the side-by-side library: peer_onednn.c, or peer_none.c without oneDNN
 *   report.c    table, CSV, JSON, Markdown        env.c       the machine (CPU, caches, frequency, ISA)
 *   targets.c   PASS/MISS verdicts                compare.c   --compare OLD.json
 *   json.c      reading JSON back                 torch_io.c  --dump and --torch
 *   common.c    errors, allocation, random fill, progress line
 *   torch_bench.py  the PyTorch timing and bit check
 *
 * NOISE
 *   This is a 2-core machine shared during development: 2-thread rows in particular are meaningless when
 *   anything else runs. Take the published numbers from one full run on a quiet machine.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"
#include "peer.h"

/* ------------------------------------------------------------------ options */

static void usage(FILE *f)
{
    fputs("usage: poolgrad_bench [options]\n"
          "  (no options)       standard suite: 7 cases x f32/f16/bf16 x nchw/channels-last, 1 thread\n"
          "                     (+2 threads for 3D), verified bit-for-bit against the scalar reference\n"
          "  --quick            tiny suite for CI (a few seconds); exit status 1 on any FAIL\n"
          "  --sweep            2D and 3D k3s2p1 with gradInput elements 2^16..2^26: time per element\n"
          "  --problem DESC     time your own shape instead of a suite (repeatable, or comma list), benchdnn\n"
          "                     style: mb32ic64ih56iw56kh3kw3sh2sw2ph1pw1; 3D: add id/kd/sd/pd; defaults mb2,\n"
          "                     iw=ih, kw=kh, sw=sh=1, pw=ph=0, D entries copy H; optional trailing n<name>\n"
          "  --ceil / --exclude-pad / --divisor N   ceil mode, count_include_pad off, divisor_override, for\n"
          "                     every --problem\n"
          "  --filter SUBSTR    keep rows whose \"case op dtype layout\" contains SUBSTR (repeatable)\n"
          "  --dtype LIST       f32,f16,bf16 (any LIST: comma- or space-separated)\n"
          "  --layout LIST      nchw,cl (nchw = NCHW/NCDHW, cl = NHWC/NDHWC)\n"
          "  --threads N[,M..]  thread counts (default 1, plus 2 for 3D cases)\n"
          "  --isa LIST         POOLGRAD_ISA caps, e.g. scalar,sse2,avx2,avx512,auto (default: $POOLGRAD_ISA\n"
          "                     or auto); the target summary uses the first. Rows are labelled with the\n"
          "                     ISA that ran (from the kernel name), with a warning when the cap is not what ran;\n"
          "                     caps all below avx512 cap oneDNN too (at avx2, else sse41)\n"
          "  --reps N           timed repetitions (default adaptive 5..101, about 1.5 s per row)\n"
          "  --csv FILE         write rows as CSV\n"
          "  --json FILE        write rows, the target summary and the machine (caches, frequency,\n"
          "                     governor, CPU model, ISA detected) as JSON\n"
          "  --md FILE          write the table and the target summary as Markdown (for the README)\n"
          "  --compare OLD.json per-row deltas against an earlier --json run: old time, new time, new/old\n"
          "                     (rows matched by case, dtype, layout, threads, isa)\n"
          "  --no-onednn        skip oneDNN even when built with it\n"
          "  --dump DIR         no timing: write each problem's gradOutput and reference gradInput and\n"
          "                     DIR/manifest.json for bench/torch_bench.py (PyTorch timing + bit check)\n"
          "  --torch FILE       add the PyTorch columns from torch_bench.py's JSON (same options as the dump)\n"
          "                     i.e. poolgrad_bench OPTS --dump DIR; python3 bench/torch_bench.py --inputs DIR\n"
          "                     --json T.json; poolgrad_bench OPTS --torch T.json\n"
          "  --selftest         check the benchmark's own logic (ISA labels, descriptors, JSON) and exit\n"
          "  --help             this text\n"
          "Every row shows its limit (the larger of the memory time at the row's memcpy bandwidth and the\n"
          "arithmetic time at per-lane costs measured at start-up; bench/roofline.c) and %lim = limit / time.\n"
          "Exit status: 0 all verified, 1 a verification FAIL, 2 usage or setup error.\n",
          f);
}

static int split_list(char *s, const char **out, int max)
{
    int n = 0;
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (n == max)
            die("too many list items (at most %d): '%s'", MAX_LIST, tok);
        out[n++] = tok;
    }
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
        } else if (!strcmp(a, "--selftest")) {
            bool ok = selftest_isa_label();
            ok &= selftest_problems();
            ok &= selftest_json();
            ok &= selftest_roofline();
            printf("selftest: %s\n", ok ? "ok" : "FAIL");
            exit(ok ? 0 : 1);
        } else if (!strcmp(a, "--problem")) {
            int n = take_list(argc, argv, &i, o->problems + o->n_problems, MAX_LIST - o->n_problems);
            if (n == 0)
                die(o->n_problems == MAX_LIST ? "--problem: at most %d descriptors" : "--problem needs a descriptor",
                    MAX_LIST);
            o->n_problems += n;
        } else if (!strcmp(a, "--ceil")) {
            o->p_ceil = true;
        } else if (!strcmp(a, "--exclude-pad")) {
            o->p_exclude_pad = true;
        } else if (!strcmp(a, "--divisor")) {
            char *end;
            long long v = strtoll(NEXT(), &end, 10);
            if (*end || v < 1 || v > (1LL << 40))
                die("bad --divisor '%s' (a positive integer)", argv[i]);
            o->p_divisor = v;
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
            /* poolgrad reads an unknown POOLGRAD_ISA as no cap: a typo would silently run the best ISA */
            for (int j = 0; j < o->n_isas; j++) {
                bool known = !strcmp(o->isas[j], "auto");
                char names[96] = "";
                /* the library's own ISA names: poolgrad_isa values are stable and dense from 0 */
                for (int v = 0; strcmp(poolgrad_isa_name((poolgrad_isa)v), "unknown") != 0; v++) {
                    known = known || !strcmp(o->isas[j], poolgrad_isa_name((poolgrad_isa)v));
                    snprintf(names + strlen(names), sizeof names - strlen(names), "%s, ", poolgrad_isa_name((poolgrad_isa)v));
                }
                if (!known)
                    die("unknown ISA '%s' (%sauto)", o->isas[j], names);
            }
        } else if (!strcmp(a, "--reps")) {
            char *end;
            long v = strtol(NEXT(), &end, 10);
            if (*end || v < 1 || v > 100000)
                die("bad --reps");
            o->reps = (int)v;
        } else if (!strcmp(a, "--compare")) {
            o->compare = NEXT();
        } else if (!strcmp(a, "--dump")) {
            o->dump = NEXT();
        } else if (!strcmp(a, "--torch")) {
            o->torch = NEXT();
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

/* oneDNN's cap when every POOLGRAD_ISA cap of the run is below AVX-512 on x86 ("avx2", or "sse41", its lowest):
 * a capped run stands for a CPU without AVX-512, where oneDNN has no AVX-512 code either (and no bf16 pooling),
 * so its rows must not compare poolgrad's AVX2 code with oneDNN's AVX-512 code. NULL: no cap. */
static const char *peer_max_isa(const options *o)
{
#if defined(__x86_64__) || defined(__i386__)
    bool avx2 = false;
    for (int j = 0; j < o->n_isas; j++) {
        if (!strcmp(o->isas[j], "avx2"))
            avx2 = true;
        else if (strcmp(o->isas[j], "scalar") && strcmp(o->isas[j], "sse2"))
            return NULL;
    }
    return avx2 ? "avx2" : "sse41";
#else
    (void)o;
    return NULL;
#endif
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
    isa_env_save();

    bool use_dnnl = false;
    if (!o.no_onednn) {
        const char *max_isa = peer_max_isa(&o);
        bool capped;
        peer_state ps = peer_init(max_isa, &capped);
        use_dnnl = ps == PEER_READY;
        if (use_dnnl && max_isa) {
            if (capped)
                snprintf(onednn_version + strlen(onednn_version), sizeof onednn_version - strlen(onednn_version),
                         ", capped at %s", max_isa);
            else
                fprintf(stderr, "poolgrad_bench: warning: oneDNN could not be capped at %s; its rows run every ISA "
                                "the CPU has\n", max_isa);
        }
        if (ps == PEER_FAILED)
            fprintf(stderr, "poolgrad_bench: oneDNN engine creation failed; oneDNN columns disabled\n");
    }

    const bench_case *cases;
    int n_cases;
    static bench_case sweep_cases[32];
    static char sweep_names[32][48];
    static bench_case problem_cases[MAX_LIST];
    static char problem_names[MAX_LIST][96];
    if (o.compare) { /* a bad path or file is an error before the run, not after it */
        char err[300];
        jv *old = json_read_file(o.compare, err, sizeof err);
        if (!old)
            die("--compare: %s", err);
        bool has_rows = jv_get(old, "rows") && jv_get(old, "rows")->type == JV_ARR;
        jv_free(old);
        if (!has_rows)
            die("--compare: %s has no \"rows\" array (not a poolgrad_bench --json file?)", o.compare);
    }
    if (o.torch) {
        torch_load(o.torch);
        report_torch = true;
    }
    if (o.dump && (o.sweep || o.torch || o.compare))
        die("--dump writes the problems and their reference outputs only: not with --sweep, --torch or --compare");
    if ((o.p_ceil || o.p_exclude_pad || o.p_divisor) && !o.n_problems)
        die("--ceil, --exclude-pad and --divisor apply to --problem descriptors only");
    if (o.n_problems && (o.sweep || o.quick))
        die("--problem replaces the suite: not with --quick or --sweep");
    if (o.n_problems) {
        for (int i = 0; i < o.n_problems; i++) {
            char err[320];
            if (!parse_problem(o.problems[i], o.p_ceil, !o.p_exclude_pad, o.p_divisor, &problem_cases[i],
                               problem_names[i], sizeof problem_names[i], err, sizeof err))
                die("--problem: %s", err);
        }
        cases = problem_cases;
        n_cases = o.n_problems;
    } else if (o.sweep) {
        n_cases = make_sweep(sweep_cases, sweep_names);
        cases = sweep_cases;
    } else if (o.quick) {
        cases = quick_suite;
        n_cases = n_quick_suite;
    } else {
        cases = standard_suite;
        n_cases = n_standard_suite;
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

    printf("poolgrad_bench %s — %s\n",
           o.sweep ? "sweep" : o.quick ? "quick suite" : o.n_problems ? "problems" : "standard suite", cmdline);
    printf("cpu: %s (%d threads available) | %s | compiler: gcc %s | poolgrad %s, best ISA %s | oneDNN: %s\n",
           cpu_name, max_threads(), datestr, __VERSION__, poolgrad_version_string(),
           poolgrad_isa_name(poolgrad_active_isa()), use_dnnl ? onednn_version : "off");
    {
        char caches[160], freq[96];
        caches_summary(caches, sizeof caches);
        if (isnan(ctx.freq_cur_mhz))
            snprintf(freq, sizeof freq, "frequency unknown (no cpufreq; /proc/cpuinfo says %.0f MHz)", ctx.cpuinfo_mhz);
        else
            snprintf(freq, sizeof freq, "%.0f MHz (max %.0f)", ctx.freq_cur_mhz, ctx.freq_max_mhz);
        printf("caches (cpu0): %s | %s, governor %s | ISA detected %s%s%s\n", caches, freq, ctx.governor,
               ctx.isa_detected, ctx.isa_cap_env[0] ? ", POOLGRAD_ISA=" : "", ctx.isa_cap_env);
    }
    int n_roof_start = 0;
    if (!o.dump) { /* the per-lane costs of the limit, at the width of every ISA asked for */
        for (int i = 0; i < o.n_isas; i++)
            roof_costs_for(granted_isa(o.isas[i]));
        for (int i = 0; i < n_roof; i++) {
            char d[256];
            roof_describe(d, sizeof d, &roof_table[i]);
            printf("per-lane costs measured now (in-cache loops, fastest of 9 batches): %s\n", d);
        }
        n_roof_start = n_roof;
    }
    printf("time = median of the timed reps; GB/s = (gradOutput + gradInput bytes) / time; %%mcpy = GB/s / memcpy GB/s "
           "(memcpy of gradInput's size at the row's thread count,\n       repeated inside one parallel region so "
           "that thread start-up is not timed, same run);\n");
    printf("limit = max(memory: (gradOutput + gradInput bytes) / memcpy GB/s of the row; arithmetic: (gradOutput "
           "elements x (widen+)div + adds x add+load\n        + results x narrow) / "
           "threads, priced with the per-lane costs above of the ISA that ran);\n        a term = one (gradInput "
           "element, window covering it) pair, counted exactly; adds = the terms of elements with two or more, "
           "results = those elements,\n        each plus one per window for the elements it alone covers (they share "
           "its value); by = the larger part; %%lim = limit / time;\n");
    if (o.sweep)
        printf("ns/elem = time per gradInput element; the scalar reference (multi-threaded) is used for the check only.\n");
    else
        printf("ref = scalar reference (POOLGRAD_ISA=scalar) at the row's thread count, few reps (1 on slow cases), "
               "x_ref = ref / time;\n");
    printf("check = gradInput bit-exact vs the scalar reference (verified / FAIL).%s\n\n",
           use_dnnl ? " onednn = oneDNN backward pooling, same problem and layout, timed alternately; "
                      "x_dnnl = the median over the reps of onednn / poolgrad\n       timed back to back (a pair shares the machine's load, so a burst of "
                      "noise from other processes moves both; the ratio of the medians can differ)." : "");
    load_start = loadavg1();
    if (load_start > 0.5)
        printf("warning: load average %.2f at start: other processes are running, timings will be noisy "
               "(2-thread rows most of all:\n         OpenMP threads spinning at barriers lose whole scheduler ticks; "
               "OMP_WAIT_POLICY=passive softens that)\n\n", load_start);
    if (o.dump)
        printf("--dump %s: gradOutput and the reference gradInput of every problem below, no timed rows\n", o.dump);
    else
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
                if (!group_init(&g, bc, o.dtypes[di], cl, false)) {
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
                if (o.dump) { /* inputs and reference outputs for bench/torch_bench.py, no timed rows */
                    if (g.ref_ok)
                        torch_dump_group(&g, o.dump);
                    else
                        fails++;
                    progress_done += threads_for(&o, bc, (int[MAX_LIST]){ 0 }) * o.n_isas;
                    group_free(&g);
                    continue;
                }

                int th[MAX_LIST];
                int nth = threads_for(&o, bc, th);
                for (int ti = 0; ti < nth; ti++) {
                    for (int ii = 0; ii < o.n_isas; ii++) {
                        run_cfg rc = { th[ti], o.isas[ii], o.sweep, use_dnnl };
                        run_row(&g, &rc, &o);
                        progress_done++;
                        row *r = &rows[n_rows - 1];
                        if (o.torch)
                            torch_attach(r);
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
    if (o.dump) {
        int n = torch_dump_finish();
        printf("%d problem(s) written to %s (manifest.json, *.go.bin, *.gi.bin), %d FAIL, %.1f s\n"
               "next: python3 bench/torch_bench.py --inputs %s --json TORCH.json, then poolgrad_bench ... --torch "
               "TORCH.json\n", n, o.dump, fails, elapsed, o.dump);
        if (!o.no_onednn)
            peer_fini();
        isa_env_free();
        return fails ? 1 : 0;
    }

    {
        /* a row faster than its limit: the model is wrong there, say so rather than hide it */
        int above = 0;
        const row *first = NULL;
        for (int i = 0; i < n_rows; i++)
            if (rows[i].frac_limit > 1.05) {
                if (!above++)
                    first = &rows[i];
            }
        if (above)
            printf("\nnote: %d row(s) ran faster than their limit (first: %s %s %s t%d, %.0f%%): the memory part "
                   "prices every byte at the memcpy\n      bandwidth measured between the reps, and memcpy reads as "
                   "much as it writes; a row that mostly writes (global) or\n      whose memcpy measurement was "
                   "slowed by the machine's load can beat it. The limit is a model there, not a bound.\n",
                   above, first->case_name, first->dtype, first->layout, first->threads, 100 * first->frac_limit);
    }
    for (int i = n_roof_start; i < n_roof; i++) { /* a plan ran a kernel of another ISA than the caps granted */
        char d[256];
        roof_describe(d, sizeof d, &roof_table[i]);
        printf("\nper-lane costs measured during the run (a kernel of this ISA ran): %s\n", d);
    }
    if (!o.sweep && !o.quick && !o.n_problems) { /* targets are about the standard suite, not tiny or own sizes */
        target_isa = o.isas[0];
        evaluate_targets();
        print_targets(stdout);
    }
    bool any_note = false;
    for (int i = 0; i < n_rows; i++)
        any_note |= rows[i].dnnl_note[0] != 0;
    int no_impl = 0;
    for (int i = 0; i < n_rows; i++)
        no_impl += !strcmp(rows[i].dnnl_impl, "no implementation");
    if (use_dnnl)
        printf("\noneDNN: %s;%s oneDNN results are not bit-compared%s.\n", onednn_version,
               no_impl ? " 'no implementation': oneDNN has none for that row on this CPU (2.6: no f16 pooling, "
                         "bf16 only with AVX-512)." : "",
               any_note ? "; 'ceil overhang' rows: oneDNN divides by the full kernel there, poolgrad/PyTorch by "
                          "the window clipped at I+pad" : "");
    if (o.torch) {
        int matched = 0, same = 0, na = 0, f32 = 0, f32_same = 0;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!r->has_torch)
                continue;
            matched++;
            bool s = !strcmp(r->torch_check, "bit-identical");
            same += s;
            na += !strncmp(r->torch_check, "n/a", 3);
            f32 += !strcmp(r->dtype, "f32");
            f32_same += s && !strcmp(r->dtype, "f32");
        }
        printf("\nPyTorch %s (from %s, timed by bench/torch_bench.py in its own process, not alternating with "
               "poolgrad): %d of %d rows matched, x_torch = torch / poolgrad's median timed the same way\n(alone, call after "
               "call, after the alternating reps; JSON time_solo_s).\nPyTorch's gradInput vs the reference "
               "(= poolgrad's): f32 %d of %d bit-identical; all dtypes %d identical, %d differ, %d n/a (no PyTorch "
               "CPU kernel).\n", torch_version, o.torch, matched, n_rows, f32_same, f32, same, matched - same - na, na);
        torch_unload();
    }
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

    if (o.compare)
        compare_with(stdout, o.compare);
    if (o.csv)
        write_csv(o.csv);
    if (o.json)
        write_json(o.json, &o);
    if (o.md)
        write_md(o.md, &o, use_dnnl);
    if (!o.no_onednn)
        peer_fini();
    free(rows);
    isa_env_free();
    return fails ? 1 : 0;
}
