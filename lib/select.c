/*
 * Kernel selection, in one place: the kernel list (kernels/kernel_list.h) walked best ISA first under the
 * active cap; within an ISA, the kinds in list order. A kernel is taken when its configure() accepts the
 * problem (it supports it and decided its blocking) and its kind's speed rule below prefers it. The scalar
 * reference, last, takes whatever every SIMD kernel passed over. POOLGRAD_VERBOSE=1 prints every candidate
 * with the reason it was passed over, and the chosen blocking.
 *
 * ISA first, then kind: whether a band fits depends on the vector width, so a wider ISA's workspace kind
 * is taken before a narrower ISA's band kind (never measured the other way round).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernel_list.h"
#include "simd/tuning.h"

#define POOLGRAD_KERNEL_ENTRY(sym) &sym,
static const poolgrad_kernel *const kernel_table[] = { POOLGRAD_FOREACH_KERNEL(POOLGRAD_KERNEL_ENTRY) };
#undef POOLGRAD_KERNEL_ENTRY

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* window rows (od, oh) covering one gradInput row, at most; and terms (od, oh, ow) per element, at most */
static int64_t window_rows(const poolgrad_problem *pr) { return ceil_div(pr->k[0], pr->s[0]) * ceil_div(pr->k[1], pr->s[1]); }
static int64_t terms(const poolgrad_problem *pr) { return window_rows(pr) * ceil_div(pr->k[2], pr->s[2]); }

/*
 * The speed rules: ISA-independent facts about the problem (and the blocking configure() chose). They
 * never change a bit, only which kernel computes them. All were measured single-threaded with the
 * AVX-512 kernels, on AMD EPYC Zen 4 in the commit named, the channels-last rule on Zen 5; they are
 * applied to every ISA unmeasured.
 */

/* be86978: the direct W-row kernel wins while each gradInput row has one window row; with more,
 * dividing once (band or workspace) wins */
static bool nchw_prefers(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf)
{
    (void)conf;
    return window_rows(pr) <= 1;
}

/* The stride-2 shifted-load kind (k = 3 along W: even and odd columns summed apart, every add a real term)
 * has no speed rule. Against what the rule before it chose (its zero-stuffed predecessor, or _nchw_b for bf16 2D,
 * rows of several W blocks and k > 3 along H) it took 0.55-0.70 of the time on the standard suite's k3s2p1
 * NCHW/NCDHW rows (AVX-512, every dtype), 0.58-0.98 under the AVX2 cap and 0.15-0.37 under the SSE2 cap (rows of
 * two W blocks, from _nchw_b), 0.55-1.05 on 112x112, 80x80, 28x28, 14x14, p 0, kh 5 and 7, and stride 1 along H
 * (AMD Zen 4, single thread, medians of 4-8 interleaved rounds, 2026-12-04). */

/* One term per element (k <= s on every axis) goes to the one-window kind, _nhwc_w1, with no speed rule:
 * against _nhwc, which took those problems before it, the standard suite's k2s2 NHWC and 3D k2s2 NDHWC rows
 * took 0.69-0.94 of the time in f16/bf16 and 0.90-1.08 in f32 (AVX-512, one and two threads), 0.55-1.13
 * under the AVX2 cap and 0.51-1.28 under the SSE2 cap, where most rows took 0.5-0.9 and the few above 1 came
 * out below 1 in the other run (AMD Zen 4, two runs of medians of 3-6 interleaved rounds, 2026-12-04).
 *
 * The direct channels-last kernel divides (and widens f16/bf16) once per term; the band and workspace
 * kinds divide once per gradOutput element but re-read q. Measured on AMD Zen 5 (AVX-512, single thread,
 * min over 4 interleaved rounds, every kind forced on the standard suite's channels-last rows):
 * - one term per element (k <= s): direct, every dtype (k2s2 f32 0.74 ms against 0.82-0.85), before _nhwc_w1;
 * - two or more od rows per element (3D k3s2p1): dividing once wins (f32 _q 1.84 against direct 2.58 ms);
 * - one od row, up to 9 terms: the band, unless it cannot hold every channel of the window rows
 *   (inception f16 3.16 against band 4.34 ms: a channel-blocked band reads each gradOutput line and writes
 *   each gradInput line once per block), then direct (resnet f16 0.80 against direct 1.07 ms). f32 once
 *   took direct here (Zen 5: resnet 0.90 against 0.88-1.05 ms), but on Zen 4 the band wins:
 *   resnet f32 NHWC band / direct 0.80 (AVX-512), 0.91 (AVX2), 0.85 (SSE2); C = 16: 0.56; k5s3: 0.86
 *   (medians of 4 interleaved bench rounds, 2026-12-04). */
static bool nhwc_band_channel_blocked(const poolgrad_problem *pr)
{
    const int64_t rows = ceil_div(pr->k[0], pr->s[0]) * ceil_div(pr->k[1], pr->s[1]);
    return rows * pr->out[2] > PG_CBQ / (pr->c > 0 ? pr->c : 1);
}
static bool nhwc_prefers(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf)
{
    (void)conf;
    if (ceil_div(pr->k[0], pr->s[0]) > 1 || terms(pr) > 9)
        return false;
    return nhwc_band_channel_blocked(pr);
}

/* cfee2ca: with one od row per gradInput row (2D) the band beats the workspace (inception bf16 NHWC
 * 6.25 -> 3.05 ms); with more (3D k3s2) the other od planes' rows are evicted while h sweeps, and
 * recomputing them loses (2.27 -> 3.17 ms) */
static bool nhwc_b_prefers(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf)
{
    (void)pr;
    return conf->band_sd == 1;
}

/* Per kind: what its configure() needs and what its speed rule prefers, in words (kernels/README.md has
 * the design), and the rule (NULL: whenever configure() accepts). */
static const struct kind_rule {
    const char *kind;
    const char *needs;
    const char *prefers;
    bool (*prefer)(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf);
} kind_rules[] = {
    { "global", "one window covering the whole input (or an empty gradOutput), gradInput contiguous along W or C", NULL, NULL },
    { "nchw_x2", "gradInput rows contiguous along W, gradOutput contiguous along W, k = s = 2 and p = 0 along W "
                 "(OW <= 4096), k <= s along D and H, divisors exact in float", NULL, NULL },
    { "nchw", "gradInput rows contiguous along W, gradOutput contiguous along W, divisors exact in float, "
              "a lane's windows within two vectors", "one window row per gradInput row (k <= s on D and H)", nchw_prefers },
    { "nchw_f", "gradInput planes and gradOutput planes contiguous, stride 1 along H and W, OW == IW (2 p = k - 1, "
                "k <= 7 along W), trivial D (k = s = 1, p = 0), divisors exact in float, the plane fits the stack band",
      NULL, NULL },
    { "nchw_s1", "gradInput rows contiguous along W, stride 1 and k <= 16 along W, divisors exact in float, "
                 "the oh rows of a tile of rows, for the od slabs in use and a W block of one vector or more, fit the stack band", NULL, NULL },
    { "nchw_s2", "gradInput rows contiguous along W, stride 2 and k = 3 along W, divisors exact in float, "
                 "the oh rows of a tile of rows, for the od slabs in use and a W block of one vector or more, fit the stack band",
      NULL, NULL },
    { "nchw_b", "gradInput rows contiguous along W, divisors exact in float, a row block's q rows fit the stack band", NULL, NULL },
    { "nchw_q", "gradInput rows contiguous along W, divisors exact in float", NULL, NULL },
    { "nhwc_s1", "gradInput and gradOutput contiguous along C, stride 1 and k = 3 along W, at most 3 window rows per "
                 "gradInput row, divisors exact in float", NULL, NULL },
    { "nhwc_w1", "gradInput and gradOutput contiguous along C, k <= s on every axis (one window per element)", NULL, NULL },
    { "nhwc", "gradInput and gradOutput contiguous along C",
      "one od row and at most 9 terms when the band would be channel-blocked", nhwc_prefers },
    { "nhwc_b", "gradInput contiguous along C, the stack band holds a vector of channels", "one od row per gradInput row",
      nhwc_b_prefers },
    { "nhwc_q", "gradInput contiguous along C", NULL, NULL },
    { "scalar", "nothing (the reference handles every view)", NULL, NULL },
};

static const struct kind_rule *rule_of(const poolgrad_kernel *k)
{
    const char *kind = k->isa == POOLGRAD_ISA_SCALAR ? k->name : strchr(k->name, '_');
    if (!kind)
        return NULL;
    if (*kind == '_')
        kind++;
    for (size_t i = 0; i < sizeof kind_rules / sizeof kind_rules[0]; i++)
        if (strcmp(kind_rules[i].kind, kind) == 0)
            return &kind_rules[i];
    return NULL;
}

static bool verbose(void)
{
    const char *v = getenv("POOLGRAD_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

static void describe_problem(const poolgrad_problem *pr, poolgrad_isa active)
{
    fprintf(stderr,
            "poolgrad: plan avgpool%dd %s N=%lld C=%lld in=%lldx%lldx%lld out=%lldx%lldx%lld k=%lldx%lldx%lld "
            "s=%lldx%lldx%lld p=%lldx%lldx%lld gradInput strides N,C,D,H,W=%lld,%lld,%lld,%lld,%lld; active ISA %s\n",
            (int)pr->spatial_dims, poolgrad_dtype_name(pr->dtype), (long long)pr->n, (long long)pr->c,
            (long long)pr->in[0], (long long)pr->in[1], (long long)pr->in[2], (long long)pr->out[0],
            (long long)pr->out[1], (long long)pr->out[2], (long long)pr->k[0], (long long)pr->k[1], (long long)pr->k[2],
            (long long)pr->s[0], (long long)pr->s[1], (long long)pr->s[2], (long long)pr->p[0], (long long)pr->p[1],
            (long long)pr->p[2], (long long)pr->gi_stride[0], (long long)pr->gi_stride[1], (long long)pr->gi_stride[2],
            (long long)pr->gi_stride[3], (long long)pr->gi_stride[4], poolgrad_isa_name(active));
}

/* the blocking configure() decided, as the kernels will read it */
static void describe_conf(const poolgrad_kernel *k, const poolgrad_kernel_conf *c)
{
    fprintf(stderr, "poolgrad:   %-14s chosen: %lld work items", k->name, (long long)c->work_items);
    if (c->prepare_items)
        fprintf(stderr, ", prepare pass of %lld items into a %zu-byte workspace", (long long)c->prepare_items,
                c->workspace_size);
    if (c->prepare_items && k->prepare_needed && c->pipeline_items > 0)
        fprintf(stderr, ", alternated with the run in steps of %lld work items", (long long)c->pipeline_items);
    if (c->scratch_size)
        fprintf(stderr, ", %zu bytes of scratch per thread", c->scratch_size);
    if (c->w_block)
        fprintf(stderr, ", W blocks of %lld columns", (long long)c->w_block);
    if (c->row_block)
        fprintf(stderr, ", row blocks of <= %lld rows", (long long)c->row_block);
    if (c->tile_h)
        fprintf(stderr, ", tiles of %lld rows along H", (long long)c->tile_h);
    if (c->channel_block)
        fprintf(stderr, ", channel blocks of %lld", (long long)c->channel_block);
    if (c->band_len)
        fprintf(stderr, ", band of %lldx%lld slots of %lld floats", (long long)c->band_sd, (long long)c->band_sh,
                (long long)c->band_len);
    if (c->band_slabs)
        fputs(" (whole od slabs)", stderr);
    if (c->stream_stores)
        fputs(", non-temporal stores", stderr);
    fputc('\n', stderr);
}

const poolgrad_kernel *poolgrad_select_kernel(const poolgrad_problem *pr, poolgrad_kernel_conf *conf)
{
    const poolgrad_isa active = poolgrad_active_isa();
    const int cap = poolgrad_isa_level(active);
    const bool log = verbose();
    if (log)
        describe_problem(pr, active);
    /* every entry but the last, the scalar reference, which takes whatever they all pass over */
    const size_t count = sizeof kernel_table / sizeof kernel_table[0] - 1;
    for (size_t i = 0; i < count; i++) {
        const poolgrad_kernel *k = kernel_table[i];
        const struct kind_rule *rule = rule_of(k);
        if (poolgrad_isa_level(k->isa) > cap) {
            if (log)
                fprintf(stderr, "poolgrad:   %-14s rejected: ISA %s is above the active %s\n", k->name,
                        poolgrad_isa_name(k->isa), poolgrad_isa_name(active));
            continue;
        }
        if (!k->configure(pr, conf)) {
            if (log)
                fprintf(stderr, "poolgrad:   %-14s rejected: does not support the problem (needs %s)\n", k->name,
                        rule ? rule->needs : "?");
            continue;
        }
        if (rule && rule->prefer && !rule->prefer(pr, conf)) {
            if (log)
                fprintf(stderr, "poolgrad:   %-14s rejected: supports it but prefers %s (a speed rule, same bits)\n",
                        k->name, rule && rule->prefers ? rule->prefers : "other problems");
            continue;
        }
        if (log)
            describe_conf(k, conf);
        return k;
    }
    const poolgrad_kernel *ref = kernel_table[count];
    ref->configure(pr, conf);
    if (log)
        describe_conf(ref, conf);
    return ref;
}
