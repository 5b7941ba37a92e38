/*
 * checkasm (after dav1d's tests/checkasm), framework-free: every kernel of kernels/kernel_list.h that this
 * CPU can run is called directly (prepare + run over randomly split work ranges, like poolgrad_execute's
 * chunks) and its whole gradInput storage (values, untouched gaps, guard zones) is compared byte for byte
 * with the scalar reference's. One test per kernel family (the kernel-name suffix after the ISA: global,
 * nchw_x2, nchw, nchw_f, nchw_s1, nchw_s2, nchw_b, nchw_q, nhwc_s1, nhwc_w1, nhwc, nhwc_b, nhwc_q) covers that family's kernels of every ISA on problems the
 * family handles: random problems, vector-width neighbours, special values, every f16/bf16 bit pattern,
 * empty gradOutput; a failure names the family and the ISA. Then the public path: the ISA the CPU is
 * detected as (POOLGRAD_EXPECT_ISA), every ISA cap (poolgrad_set_thread_isa_cap) with 1-7 threads.
 *
 * TAP output, no test framework (tests/checkasm/checkasm.h): it runs under qemu-user too (.ci/qemu-x86.sh,
 * the AArch64 cross build). Options: --test PATTERN, --family NAME, --seed N (POOLGRAD_TEST_SEED),
 * --cases N (POOLGRAD_CHECKASM_CASES), --list, --bench (time every kernel against the reference on fixed
 * problems, verified byte-exact). POOLGRAD_ISA at start caps which kernels are called directly.
 */
#define _POSIX_C_SOURCE 200809L /* sigsetjmp, clock_gettime, fnmatch */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS (guard pages) */

#include "convert.h"
#include "internal.h"
#include "kernel_list.h"
#include "testutil.h"

#include "checkasm.h"

#include <sys/mman.h>

#define POOLGRAD_KERNEL_ENTRY(sym) &sym,
static const poolgrad_kernel *const all_kernels[] = { POOLGRAD_FOREACH_KERNEL(POOLGRAD_KERNEL_ENTRY) };
#undef POOLGRAD_KERNEL_ENTRY
#define NKERNELS (sizeof all_kernels / sizeof all_kernels[0])

static const char *const families[] = { "global", "nchw_x2", "nchw", "nchw_f", "nchw_s1", "nchw_s2", "nchw_b", "nchw_q", "nhwc_s1", "nhwc_w1", "nhwc", "nhwc_b", "nhwc_q" };
#define NFAMILIES (sizeof families / sizeof families[0])

static const char *layout_names[] = { "nchw", "nhwc", "nchw-gapped", "nhwc-gapped", "random" };

static const char *dtype_name(poolgrad_dtype dt) { return dt == POOLGRAD_F32 ? "f32" : dt == POOLGRAD_F16 ? "f16" : "bf16"; }

/* Family of a kernel: its name after the ISA ("avx2_nchw_b" -> "nchw_b"); NULL for the reference. */
static const char *family_of(const poolgrad_kernel *k)
{
    if (k == &poolgrad_kernel_reference)
        return NULL;
    const char *u = strchr(k->name, '_');
    return u ? u + 1 : k->name;
}

/* the POOLGRAD_ISA cap the process was started with: limits which kernels are called directly */
static int start_cap_level(void)
{
    static int level = -2;
    if (level == -2)
        level = poolgrad_isa_cap_level(getenv("POOLGRAD_ISA"));
    return level;
}

/* code of this ISA may be called: the CPU has it and the start cap allows it */
static bool isa_runs(poolgrad_isa isa)
{
    if (poolgrad_isa_level(isa) > start_cap_level())
        return false;
#if defined(__aarch64__)
    return isa == POOLGRAD_ISA_SCALAR || isa == POOLGRAD_ISA_NEON;
#else
    if (isa == POOLGRAD_ISA_NEON)
        return false;
    return poolgrad_isa_level(isa) <= poolgrad_isa_level(poolgrad_cpu_isa());
#endif
}

static bool cpu_runs(const poolgrad_kernel *k) { return isa_runs(k->isa); }

/* The kernels the current test calls directly: those of one family, or the reference alone (NULL). */
static const char *cur_family;
static int ran_count[NKERNELS], mismatch_count[NKERNELS];
static int ran_cases, pow2_cases; /* cases of the current family test that ran a kernel; of them, with every divisor a power of two */

static bool in_scope(const poolgrad_kernel *k)
{
    const char *f = family_of(k);
    return cur_family ? f && strcmp(f, cur_family) == 0 : f == NULL;
}

static pgt_rng rng_for(const char *what)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s/%s", cur_family ? cur_family : "reference", what);
    pgt_rng r = { ca_seed_for(buf) };
    return r;
}

/* ------------------------------------------------------------------ random views */

enum { LAYOUT_ROWMAJOR = PGT_LAYOUT_ROWMAJOR, LAYOUT_CHANNELS_LAST = PGT_LAYOUT_CHANNELS_LAST,
       LAYOUT_GAPPED = PGT_LAYOUT_GAPPED, LAYOUT_GAPPED_CL = PGT_LAYOUT_GAPPED_CL, LAYOUT_RANDOM = PGT_LAYOUT_RANDOM,
       LAYOUT_COUNT };

typedef pgt_view view;

/* a random view; broadcast (gradOutput only): one in 8 gets a zero C stride */
static void make_view(pgt_rng *r, view *v, poolgrad_dtype dt, int rank, int sd, const int64_t *shape, int layout,
                      bool allow_broadcast)
{
    pgt_make_view(r, v, dt, rank, sd, shape, layout, allow_broadcast ? 8 : 0, 0);
}

/* ------------------------------------------------------------------ one case */

typedef struct tcase {
    poolgrad_params pa;
    view go, gi, ref;
    int rank;
    poolgrad_plan *plan;
    poolgrad_problem ref_problem;
    char desc[256];
} tcase;

static const int64_t interesting[] = { 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 19, 24, 31, 32, 33, 35, 37 };

static int64_t pick_size(pgt_rng *r)
{
    if ((pgt_next(r) % 4) == 0)
        return pgt_range(r, 1, 12);
    return interesting[pgt_next(r) % (sizeof interesting / sizeof interesting[0])];
}

/* Random problem of op sd (2 or 3) and dtype dt; false if the random parameters are invalid (retry). */
static bool make_case(pgt_rng *r, tcase *tc, int sd, poolgrad_dtype dt, int gi_layout, int go_layout, bool big_w,
                      bool global)
{
    memset(tc, 0, sizeof *tc);
    poolgrad_params *pa = &tc->pa;
    pa->spatial_dims = sd;
    for (int a = 0; a < sd; a++) {
        pa->kernel[a] = pgt_range(r, 1, (pgt_next(r) % 4) == 0 ? 7 : 4);
        int mode = (int)(pgt_next(r) % 3); /* k < s, k == s, k > s */
        pa->stride[a] = mode == 0 ? pa->kernel[a] + pgt_range(r, 1, 2) : mode == 1 ? pa->kernel[a] : pgt_range(r, 1, pa->kernel[a]);
        pa->padding[a] = (pgt_next(r) & 1) ? pa->kernel[a] / 2 : pgt_range(r, 0, pa->kernel[a] / 2);
    }
    pa->ceil_mode = pgt_next(r) & 1;
    pa->count_include_pad = pgt_next(r) & 1;
    switch (pgt_next(r) % 8) {
    case 0: pa->divisor_override = pgt_range(r, -7, 7); break;
    case 1: pa->divisor_override = pgt_range(r, 1, 1000000) * ((pgt_next(r) & 1) ? -1 : 1); break;
    case 2: pa->divisor_override = ((int64_t)1 << pgt_range(r, 0, 40)) * ((pgt_next(r) & 1) ? -1 : 1); break;
    default: pa->divisor_override = 0; break;
    }
    bool batched = (pgt_next(r) % 4) != 0;
    int rank = sd + (batched ? 2 : 1);
    tc->rank = rank;
    int64_t shape[POOLGRAD_MAX_RANK];
    int d = 0;
    if (batched)
        shape[d++] = pgt_range(r, 1, 2);
    shape[d++] = (gi_layout == LAYOUT_CHANNELS_LAST || gi_layout == LAYOUT_GAPPED_CL || (pgt_next(r) & 1))
                     ? pick_size(r) : pgt_range(r, 1, 3);
    for (int a = 0; a < sd; a++) {
        int64_t lo = pa->kernel[a] - 2 * pa->padding[a];
        int64_t sz = (a == sd - 1 || (pgt_next(r) & 1)) ? pick_size(r) : pgt_range(r, 1, 6);
        if (sd == 3 && a == 0)
            sz = pgt_range(r, 1, 5);
        if (big_w && a == sd - 1)
            sz = pgt_range(r, 1000, 2100);
        if (sz < lo)
            sz = lo; /* output size >= 1 */
        if (sz < 1)
            sz = 1;
        shape[d++] = sz;
    }
    if (big_w)
        shape[rank - sd - 1] = pgt_range(r, 1, 2);
    if (global || (pgt_next(r) % 10) == 0) /* global pooling: one window over everything */
        for (int a = 0; a < sd; a++) {
            pa->kernel[a] = shape[rank - sd + a] + ((pgt_next(r) % 4) == 0);
            pa->stride[a] = pgt_range(r, 1, 3) * pa->kernel[a];
            pa->padding[a] = pa->kernel[a] > shape[rank - sd + a] ? 1 : 0;
            if (2 * pa->padding[a] > pa->kernel[a])
                pa->padding[a] = 0;
        }
    int64_t oshape[POOLGRAD_MAX_RANK];
    if (poolgrad_output_shape(pa, rank, shape, oshape) != POOLGRAD_OK)
        return false;
    for (int i = 0; i < rank; i++)
        if (oshape[i] < 0)
            return false;
    make_view(r, &tc->gi, dt, rank, sd, shape, gi_layout, false);
    make_view(r, &tc->go, dt, rank, sd, oshape, go_layout, true);
    /* the reference output: same view over an identical sentinel-filled buffer */
    tc->ref = tc->gi;
    tc->ref.buf = pgt_alloc(dt, tc->gi.buf.numel);
    tc->ref.t.storage = tc->ref.buf.data;
    bool specials = (pgt_next(r) % 3) == 0;
    int64_t go_numel = tc->go.buf.numel;
    for (int64_t i = 0; i < go_numel; i++)
        pgt_store(dt, tc->go.buf.data, i, pgt_value(r, specials));
    poolgrad_status st = poolgrad_plan_create(pa, &tc->go.t, &tc->gi.t, &tc->plan);
    CA_ASSERT(st == POOLGRAD_OK, "plan_create: %s", poolgrad_status_string(st));
    tc->ref_problem = tc->plan->problem;
    if (tc->ref_problem.gi)
        tc->ref_problem.gi = (char *)tc->ref.buf.data + tc->gi.t.offset * (int64_t)tc->gi.buf.es;
    int n = snprintf(tc->desc, sizeof tc->desc, "%dd %s rank %d shape", sd, dtype_name(dt), rank);
    for (int i = 0; i < rank; i++)
        n += snprintf(tc->desc + n, sizeof tc->desc - (size_t)n, " %lld", (long long)shape[i]);
    n += snprintf(tc->desc + n, sizeof tc->desc - (size_t)n, " k");
    for (int a = 0; a < sd; a++)
        n += snprintf(tc->desc + n, sizeof tc->desc - (size_t)n, " %lld/%lld/%lld", (long long)pa->kernel[a],
                      (long long)pa->stride[a], (long long)pa->padding[a]);
    snprintf(tc->desc + n, sizeof tc->desc - (size_t)n, " ceil %d cip %d div %lld layouts gi %s go %s",
             pa->ceil_mode, pa->count_include_pad, (long long)pa->divisor_override, layout_names[gi_layout],
             layout_names[go_layout]);
    if (tc->ref_problem.gi)
        poolgrad_reference(&tc->ref_problem);
    return true;
}

static void free_case(tcase *tc)
{
    poolgrad_plan_destroy(tc->plan);
    pgt_free(&tc->go.buf);
    pgt_free(&tc->gi.buf);
    pgt_free(&tc->ref.buf);
}

/*
 * Whole raw buffers (guards, gaps, values) equal the reference's, byte for byte: every stored NaN is the
 * canonical one (docs/SEMANTICS.md section 4), so there is nothing to tolerate. Records a failure naming
 * `who` and returns false on a difference.
 */
static bool expect_same(const tcase *tc, const char *who)
{
    const pgt_buffer *a = &tc->gi.buf, *b = &tc->ref.buf;
    if (!pgt_guards_intact(a)) {
        CA_EXPECT(false, "%s: guard zone written; case %s", who, tc->desc);
        return false;
    }
    int64_t e = pgt_first_difference(a, b);
    if (e != PGT_NO_DIFFERENCE) {
        uint32_t va = 0, vb = 0;
        memcpy(&va, a->raw + (size_t)(e + PGT_GUARD) * a->es, a->es);
        memcpy(&vb, b->raw + (size_t)(e + PGT_GUARD) * a->es, a->es);
        CA_EXPECT(false, "%s: storage element %lld is 0x%0*x, reference 0x%0*x%s; case %s", who, (long long)e,
                  (int)(2 * a->es), va, (int)(2 * a->es), vb, pgt_untouched(a, e) ? " (not written)" : "", tc->desc);
        return false;
    }
    return true;
}

/* Reset the output buffer to the sentinel pattern. */
static void reset_output(tcase *tc)
{
    size_t bytes = ((size_t)tc->gi.buf.numel + 2 * PGT_GUARD) * tc->gi.buf.es;
    for (size_t i = 0; i < bytes; i++)
        tc->gi.buf.raw[i] = pgt_sentinel_byte(i);
}

/* Bytes of the buffer run() gets: the shared workspace, or a thread's scratch slot for kinds with one, which
 * half the time gets none (a thread past the plan's slots must compute without it, same bits). */
static size_t run_buffer_bytes(pgt_rng *r, const poolgrad_kernel_conf *conf)
{
    return conf->workspace_size + (conf->scratch_size && pgt_range(r, 0, 1) ? conf->scratch_size : 0);
}

/* [0, items) in random consecutive pieces, run in random order (items are independent). */
static void run_split(pgt_rng *r, const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int64_t items,
                      void (*fn)(const poolgrad_problem *, const poolgrad_kernel_conf *, void *, int64_t, int64_t))
{
    if (items <= 0)
        return;
    int64_t cuts[8];
    int nc = (int)pgt_range(r, 1, items < 6 ? items : 6);
    cuts[0] = 0;
    for (int i = 1; i < nc; i++)
        cuts[i] = pgt_range(r, 0, items);
    cuts[nc] = items;
    for (int i = 1; i < nc; i++) /* sort */
        for (int j = i; j > 0 && cuts[j] < cuts[j - 1]; j--) {
            int64_t x = cuts[j]; cuts[j] = cuts[j - 1]; cuts[j - 1] = x;
        }
    bool reverse = pgt_next(r) & 1;
    for (int i = 0; i < nc; i++) {
        int p = reverse ? nc - 1 - i : i;
        if (cuts[p + 1] > cuts[p])
            fn(pr, conf, ws, cuts[p], cuts[p + 1]);
    }
}

/* poolgrad_execute's pipelined order for kernels with prepare_needed, over 1 to 4 parts (threads) in random
 * steps: every part's halo, then the parts one after another, first to last or last to first (so that a part
 * reading another's own items reads them unprepared in one of the two), each step preparing only the part's own
 * items prepare_needed says its rows read. The workspace starts as sentinel bytes, so an undercount in
 * prepare_needed or an overcount in prepare_first changes the result. */
static void run_pipelined_steps(pgt_rng *r, const poolgrad_problem *pr, const poolgrad_kernel_conf *conf,
                                const poolgrad_kernel *k, void *ws, const char *who)
{
    const int64_t items = conf->work_items;
    const int nt = (int)pgt_range(r, 1, items < 4 ? items : 4);
    poolgrad_pipe_part parts[4];
    bool parted = true;
    for (int t = 0; t < nt; t++)
        parted = poolgrad_pipe_part_of(k, pr, conf, t, nt, &parts[t]) && parted;
    if (!parted) { /* execute() prepares everything first */
        k->prepare(pr, conf, ws, 0, conf->prepare_items);
        k->run(pr, conf, ws, 0, items);
        return;
    }
    for (int t = 1; t < nt; t++) {
        CA_EXPECT(parts[t].halo_begin >= parts[t - 1].own_end && parts[t].halo_end == parts[t].own_begin,
                  "%s: part %d of %d: halo [%lld, %lld) does not follow part %d's own items [%lld, %lld)", who, t, nt,
                  (long long)parts[t].halo_begin, (long long)parts[t].halo_end, t - 1,
                  (long long)parts[t - 1].own_begin, (long long)parts[t - 1].own_end);
        if (parts[t].halo_end > parts[t].halo_begin)
            k->prepare(pr, conf, ws, parts[t].halo_begin, parts[t].halo_end);
    }
    const bool reverse = pgt_next(r) & 1;
    for (int i = 0; i < nt; i++) {
        const poolgrad_pipe_part *pp = &parts[reverse ? nt - 1 - i : i];
        const int64_t n = pp->rows_end - pp->rows_begin, maxstep = n / 3 > 1 ? n / 3 : 1;
        int64_t done = pp->own_begin;
        for (int64_t r0 = pp->rows_begin; r0 < pp->rows_end;) {
            const int64_t r1 = pgt_range(r, r0 + 1, pp->rows_end - r0 > maxstep ? r0 + maxstep : pp->rows_end);
            int64_t need = r1 == items ? conf->prepare_items : k->prepare_needed(pr, r1 - 1);
            CA_EXPECT(r1 == items || need >= done || need >= pp->own_end,
                      "%s: prepare_needed(%lld) = %lld is below an earlier step's %lld", who, (long long)(r1 - 1),
                      (long long)need, (long long)done);
            if (need > pp->own_end)
                need = pp->own_end;
            if (need > done) {
                k->prepare(pr, conf, ws, done, need);
                done = need;
            }
            k->run(pr, conf, ws, r0, r1);
            r0 = r1;
        }
        CA_EXPECT(done == pp->own_end, "%s: part [%lld, %lld) of %d prepared its own items to %lld, not %lld", who,
                  (long long)pp->rows_begin, (long long)pp->rows_end, nt, (long long)done, (long long)pp->own_end);
    }
}

/* Every kernel in scope that this CPU runs and that supports the case, called directly over random work
 * splits; each result compared with the reference. Returns how many ran. */
static int check_kernels(pgt_rng *r, tcase *tc)
{
    const poolgrad_problem *pr = &tc->plan->problem;
    int ran = 0;
    if (!pr->gi)
        return 0;
    for (size_t i = 0; i < NKERNELS; i++) {
        const poolgrad_kernel *k = all_kernels[i];
        poolgrad_kernel_conf conf;
        if (!in_scope(k) || !cpu_runs(k) || !k->configure(pr, &conf))
            continue;
        /* configure() streams only large gradInputs; either way on any case, the bits must not change */
        conf.stream_stores = pgt_range(r, 0, 1) != 0;
        char who[96];
        if (family_of(k))
            snprintf(who, sizeof who, "family %s, isa %s (kernel %s)", family_of(k), poolgrad_isa_name(k->isa), k->name);
        else
            snprintf(who, sizeof who, "reference kernel (work split)");
        ca_set_context("%s on %s", who, tc->desc);
        reset_output(tc);
        const size_t wsb = run_buffer_bytes(r, &conf);
        pgt_buffer ws = pgt_alloc(POOLGRAD_F32, (int64_t)((wsb + 3) / 4));
        if (k->prepare && k->prepare_needed && pgt_range(r, 0, 1)) { /* whether or not this size is pipelined */
            run_pipelined_steps(r, pr, &conf, k, ws.data, who);
        } else {
            if (k->prepare)
                run_split(r, pr, &conf, ws.data, conf.prepare_items, k->prepare);
            run_split(r, pr, &conf, wsb ? ws.data : NULL, conf.work_items, k->run);
        }
        bool ok = pgt_guards_intact(&ws);
        CA_EXPECT(ok, "%s: workspace guard written; case %s", who, tc->desc);
        pgt_free(&ws);
        ok = expect_same(tc, who) && ok;
        mismatch_count[i] += !ok;
        ran_count[i]++;
        ran++;
    }
    ca_set_context(NULL);
    ran_cases += ran > 0;
    pow2_cases += ran > 0 && pr->divisors_pow2;
    return ran;
}

/* ------------------------------------------------------------------ per-family tests */

static bool family_is(const char *prefix_kind)
{
    return cur_family && strncmp(cur_family, prefix_kind, strlen(prefix_kind)) == 0;
}

/* A gradInput layout the family's kernels handle (any for the reference). */
static int pick_gi_layout(pgt_rng *r)
{
    static const int rows[] = { LAYOUT_ROWMAJOR, LAYOUT_GAPPED }, cl[] = { LAYOUT_CHANNELS_LAST, LAYOUT_GAPPED_CL },
                     global[] = { LAYOUT_ROWMAJOR, LAYOUT_CHANNELS_LAST, LAYOUT_GAPPED, LAYOUT_GAPPED_CL };
    if (family_is("nchw"))
        return rows[pgt_next(r) % 2];
    if (family_is("nhwc"))
        return cl[pgt_next(r) % 2];
    if (family_is("global"))
        return global[pgt_next(r) % 4];
    return (int)(pgt_next(r) % LAYOUT_COUNT);
}

static bool global_only(void) { return family_is("global"); }

/* Random problems of op sd and dtype dt: layouts of the family, gradOutput sometimes in another one. */
static void part_random(int sd, poolgrad_dtype dt, int default_cases)
{
    char what[64];
    snprintf(what, sizeof what, "random %dd %s", sd, dtype_name(dt));
    pgt_rng r = rng_for(what);
    const int cases = ca_cases(default_cases);
    for (int c = 0; c < cases; c++) {
        tcase tc;
        int gl = pick_gi_layout(&r);
        int ol = (pgt_next(&r) % 3) == 0 ? (int)(pgt_next(&r) % LAYOUT_COUNT) : gl; /* mixed sometimes */
        bool big_w = (c % 50) == 49;
        if (!make_case(&r, &tc, sd, dt, gl, ol, big_w, global_only())) {
            c--;
            continue;
        }
        check_kernels(&r, &tc);
        free_case(&tc);
    }
}

/* A fixed problem (gradInput and gradOutput in layout lay, random values with specials) with its plan
 * and reference result, in tc (free_case releases it). */
static void make_fixed_case(pgt_rng *r, tcase *tc, const poolgrad_params *pa, int rank, const int64_t *shape, int lay,
                            poolgrad_dtype dt, const char *desc)
{
    memset(tc, 0, sizeof *tc);
    int64_t oshape[POOLGRAD_MAX_RANK];
    CA_ASSERT(poolgrad_output_shape(pa, rank, shape, oshape) == POOLGRAD_OK, "output shape of %s", desc);
    tc->pa = *pa;
    tc->rank = rank;
    make_view(r, &tc->gi, dt, rank, pa->spatial_dims, shape, lay, false);
    make_view(r, &tc->go, dt, rank, pa->spatial_dims, oshape, lay, false);
    tc->ref = tc->gi;
    tc->ref.buf = pgt_alloc(dt, tc->gi.buf.numel);
    tc->ref.t.storage = tc->ref.buf.data;
    for (int64_t i = 0; i < tc->go.buf.numel; i++)
        pgt_store(dt, tc->go.buf.data, i, pgt_value(r, true));
    CA_ASSERT(poolgrad_plan_create(&tc->pa, &tc->go.t, &tc->gi.t, &tc->plan) == POOLGRAD_OK, "plan_create of %s", desc);
    tc->ref_problem = tc->plan->problem;
    tc->ref_problem.gi = (char *)tc->ref.buf.data + tc->gi.t.offset * (int64_t)tc->gi.buf.es;
    snprintf(tc->desc, sizeof tc->desc, "%s %s %s", desc, layout_names[lay], dtype_name(dt));
    poolgrad_reference(&tc->ref_problem);
}

/* The fixed problem checked on every kernel in scope. */
static void check_fixed_case(pgt_rng *r, const poolgrad_params *pa, int rank, const int64_t *shape, int lay,
                             poolgrad_dtype dt, const char *desc)
{
    tcase tc;
    make_fixed_case(r, &tc, pa, rank, shape, lay, dt, desc);
    check_kernels(r, &tc);
    free_case(&tc);
}

/* Targeted shapes: vector-width neighbours along C and W, with and without overlap. */
static void part_vector_widths(void)
{
    pgt_rng r = rng_for("vector_widths");
    static const int64_t sizes[] = { 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 35 };
    static const int64_t ks[][2] = { { 2, 2 }, { 3, 2 }, { 3, 1 }, { 1, 2 }, { 5, 1 } };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
            for (int layout = 0; layout < 2; layout++) {
                if ((layout == 0 && family_is("nhwc")) || (layout == 1 && family_is("nchw")))
                    continue;
                for (int dt = 0; dt < 3; dt++) {
                    poolgrad_params pa = pgt_params(2, ks[ki][0], ks[ki][1], ks[ki][0] / 2, (si & 1), (ki & 1), 0);
                    int64_t shape[4] = { 1, layout ? sizes[si] : 2, 5, layout ? 6 : sizes[si] };
                    if (global_only()) { /* one window over H x W */
                        pa.kernel[0] = shape[2];
                        pa.kernel[1] = shape[3];
                        pa.stride[0] = pa.kernel[0];
                        pa.stride[1] = pa.kernel[1];
                        pa.padding[0] = pa.padding[1] = 0;
                    }
                    char desc[96];
                    snprintf(desc, sizeof desc, "vector widths: size %lld k %lld s %lld", (long long)sizes[si],
                             (long long)pa.kernel[1], (long long)pa.stride[1]);
                    check_fixed_case(&r, &pa, 4, shape, layout ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR,
                                     (poolgrad_dtype)dt, desc);
                }
            }
}

/*
 * The two band modes of _nchw_b, each reached on purpose (the test fails if configure() no longer picks
 * the mode): whole od slabs on a plane taller than the per-call row-block schedule (its last blocks are
 * planned as the walk reaches them), and per-row tags when the slabs do not fit (3D, k3 s1).
 */
static void part_band_modes(void)
{
    if (!family_is("nchw_b"))
        return;
    pgt_rng r = rng_for("band_modes");
    static const struct { int sd; int64_t shape[5]; int64_t k, s, p; bool slabs; const char *desc; } cases[] = {
        { 2, { 1, 2, 1100, 9 }, 13, 13, 0, true, "band of whole od slabs, 1100 rows" },
        { 3, { 1, 2, 4, 60, 40 }, 3, 1, 1, false, "band of tagged rows, 3D k3 s1" },
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (int dt = 0; dt < 3; dt++) {
            const int sd = cases[ci].sd, rank = sd + 2;
            poolgrad_params pa = pgt_params(sd, cases[ci].k, cases[ci].s, cases[ci].p, false, true, 0);
            tcase tc;
            make_fixed_case(&r, &tc, &pa, rank, cases[ci].shape, LAYOUT_ROWMAJOR, (poolgrad_dtype)dt, cases[ci].desc);
            for (size_t i = 0; i < NKERNELS; i++) {
                poolgrad_kernel_conf conf;
                if (in_scope(all_kernels[i]) && cpu_runs(all_kernels[i]) && all_kernels[i]->configure(&tc.plan->problem, &conf))
                    CA_EXPECT(conf.band_slabs == cases[ci].slabs, "%s: %s configured %s", cases[ci].desc,
                              all_kernels[i]->name, conf.band_slabs ? "whole od slabs" : "tagged rows");
            }
            check_kernels(&r, &tc);
            free_case(&tc);
        }
}

/*
 * The blockings of the shifted-load kinds (_nchw_s1, _nchw_s2: stride 1 or 2 along W), each reached on purpose
 * on every ISA (the test fails if configure() no longer picks them): tiles along H shorter than the plane (the
 * band holds only a tile's oh rows), every row in one tile, and several W blocks (halo columns divided twice);
 * blocks with their own code (k = 3 along H with stride 1 or 2) and others; stride 2 with either parity of p along
 * W, and a W block with a half-used pair of accumulators; stride 2 with k != 3 along W rejected.
 */
static void expect_taken(const tcase *tc, bool ok, const char *desc);
static void part_s1_blockings(void)
{
    const bool s2 = family_is("nchw_s2");
    if (!family_is("nchw_s1") && !s2)
        return;
    pgt_rng r = rng_for("s1_blockings");
    enum { TILED = 1, ONE_TILE = 2, W_BLOCKS = 4 };
    typedef struct { int sd; int64_t shape[5]; int64_t k, s, p; int expect; const char *desc; } s1_case;
    static const s1_case cases1[] = {
        { 3, { 1, 2, 5, 200, 20 }, 3, 1, 1, TILED, "3D k3 s1, tiles along H" },
        { 2, { 2, 3, 35, 35 }, 3, 1, 1, ONE_TILE, "2D k3 s1, one tile" },
        { 2, { 1, 2, 9, 300 }, 5, 1, 2, ONE_TILE | W_BLOCKS, "2D k5 s1, W blocks" },
        { 3, { 1, 1, 5, 200, 150 }, 3, 1, 0, TILED | W_BLOCKS, "3D k3 s1 p0, tiles and W blocks" },
    }, cases2[] = {
        { 3, { 1, 2, 5, 900, 20 }, 3, 2, 1, TILED, "3D k3 s2, tiles along H" },
        { 2, { 2, 3, 56, 56 }, 3, 2, 1, ONE_TILE, "2D k3 s2 p1, one tile" },
        { 2, { 1, 2, 9, 301 }, 3, 2, 1, ONE_TILE | W_BLOCKS, "2D k3 s2 p1, W blocks" },
        { 3, { 1, 1, 5, 900, 151 }, 3, 2, 0, TILED | W_BLOCKS, "3D k3 s2 p0, tiles and W blocks" },
        { 2, { 1, 2, 11, 40 }, 3, 2, 1, ONE_TILE, "2D k3 s2 p1, W 40 (3 chunks at 512 bits: a half-used pair)" },
        { 2, { 1, 2, 7, 9 }, 3, 2, 0, ONE_TILE, "2D k3 s2 p0, W 9" },
        { 2, { 1, 2, 9, 301 }, 5, 2, 2, 0, "2D k5 s2: rejected (k = 3 only)" },
        { 2, { 1, 2, 17, 70 }, 2, 2, 0, 0, "2D k2 s2: rejected (k = 3 only)" },
    };
    const s1_case *cases = s2 ? cases2 : cases1;
    const size_t ncases = s2 ? sizeof cases2 / sizeof cases2[0] : sizeof cases1 / sizeof cases1[0];
    for (size_t ci = 0; ci < ncases; ci++)
        for (int dt = 0; dt < 3; dt++) {
            const int sd = cases[ci].sd, rank = sd + 2;
            poolgrad_params pa = pgt_params(sd, cases[ci].k, cases[ci].s, cases[ci].p, false, dt != 1, 0);
            tcase tc;
            make_fixed_case(&r, &tc, &pa, rank, cases[ci].shape, LAYOUT_ROWMAJOR, (poolgrad_dtype)dt, cases[ci].desc);
            const poolgrad_problem *pr = &tc.plan->problem;
            if (cases[ci].expect == 0) { /* rejected */
                expect_taken(&tc, false, cases[ci].desc);
                check_kernels(&r, &tc);
                free_case(&tc);
                continue;
            }
            for (size_t i = 0; i < NKERNELS; i++) {
                poolgrad_kernel_conf conf;
                if (!in_scope(all_kernels[i]) || !cpu_runs(all_kernels[i]))
                    continue;
                const bool ok = all_kernels[i]->configure(pr, &conf);
                CA_EXPECT(ok, "%s: %s does not take it", cases[ci].desc, all_kernels[i]->name);
                if (!ok)
                    continue;
                /* the tiling exactly; W blocks where expected (narrower vectors may split any row) */
                const int got = (conf.tile_h < pr->in[1] ? TILED : ONE_TILE) | (conf.w_block < pr->in[2] ? W_BLOCKS : 0);
                CA_EXPECT((got & ~W_BLOCKS) == (cases[ci].expect & ~W_BLOCKS) && (got & cases[ci].expect) == cases[ci].expect, "%s: %s configured tiles of %lld of %lld rows, W blocks of %lld of %lld",
                          cases[ci].desc, all_kernels[i]->name, (long long)conf.tile_h, (long long)pr->in[1],
                          (long long)conf.w_block, (long long)pr->in[2]);
            }
            check_kernels(&r, &tc);
            free_case(&tc);
        }
}

/* Every kernel of the family that this CPU runs takes the case (ok) or rejects it (!ok). */
static void expect_taken(const tcase *tc, bool ok, const char *desc)
{
    for (size_t i = 0; i < NKERNELS; i++) {
        poolgrad_kernel_conf conf;
        if (in_scope(all_kernels[i]) && cpu_runs(all_kernels[i]))
            CA_EXPECT(all_kernels[i]->configure(&tc->plan->problem, &conf) == ok, "%s: %s %s it", desc, all_kernels[i]->name,
                      ok ? "does not take" : "takes");
    }
}

/*
 * The flat-plane kind (_nchw_f), reached on purpose on every ISA (the test fails if configure() no longer takes
 * a shape it should, or takes one it should not): planes narrower and wider than a vector, narrower than the
 * kernel, every odd k along W (2 p = k - 1, OW == IW) with other k and p along H, ceil mode, excluded padding,
 * divisor overrides, a 3D problem with k = 1 along D, the largest plane the band holds; random work splits cut
 * planes anywhere. Rejected: the plane one row too tall, even k along W (random cases reach gapped views).
 */
static void part_flat_planes(void)
{
    if (!family_is("nchw_f"))
        return;
    pgt_rng r = rng_for("flat_planes");
    typedef struct { int sd; int64_t shape[5]; int64_t kh, kw, ph; bool ceil, cip; int64_t div; int lay; bool ok; const char *desc; } f_case;
    static const f_case cases[] = {
        { 2, { 2, 3, 35, 35 }, 3, 3, 1, false, false, 0, LAYOUT_ROWMAJOR, true, "35x35 k3 excl" },
        { 2, { 1, 2, 9, 16 }, 3, 3, 1, false, true, 0, LAYOUT_ROWMAJOR, true, "W = VL (AVX-512)" },
        { 2, { 1, 3, 6, 17 }, 5, 3, 0, true, false, 0, LAYOUT_ROWMAJOR, true, "kh 5 ph 0 ceil" },
        { 2, { 2, 2, 7, 7 }, 3, 3, 1, false, true, 0, LAYOUT_ROWMAJOR, true, "7x7: rows shorter than a vector" },
        { 2, { 1, 2, 5, 1 }, 3, 1, 1, false, false, 0, LAYOUT_ROWMAJOR, true, "W = 1, k 1 along W" },
        { 2, { 1, 2, 4, 2 }, 1, 5, 0, false, false, 0, LAYOUT_ROWMAJOR, true, "W = 2 < k 5" },
        { 2, { 1, 2, 3, 3 }, 7, 7, 3, false, false, 0, LAYOUT_ROWMAJOR, true, "3x3 < k 7 (every term clipped)" },
        { 2, { 2, 2, 13, 33 }, 7, 7, 2, true, true, -3, LAYOUT_ROWMAJOR, true, "k7 ph 2, divisor -3" },
        { 2, { 1, 2, 11, 37 }, 5, 5, 2, false, true, 64, LAYOUT_ROWMAJOR, true, "k5, divisor 64 (multiplied)" },
        { 3, { 1, 2, 3, 9, 21 }, 3, 3, 1, false, false, 0, LAYOUT_ROWMAJOR, true, "3D, k 1 along D" },
        { 2, { 1, 1, 4070 / 64 - 2, 64 }, 3, 3, 1, false, true, 0, LAYOUT_ROWMAJOR, true, "the tallest 64-wide plane the band holds" },
        { 2, { 1, 1, 4070 / 64 - 1, 64 }, 3, 3, 1, false, true, 0, LAYOUT_ROWMAJOR, false, "one row taller: rejected" },
        { 2, { 1, 2, 9, 20 }, 3, 2, 1, false, true, 0, LAYOUT_ROWMAJOR, false, "k 2 along W (OW != IW): rejected" },
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (int dt = 0; dt < 3; dt++) {
            const f_case *fc = &cases[ci];
            const int sd = fc->sd, rank = sd + 2;
            poolgrad_params pa = pgt_params(sd, fc->kw, 1, fc->kw / 2, fc->ceil, fc->cip, fc->div);
            pa.kernel[sd - 2] = fc->kh; /* H */
            pa.padding[sd - 2] = fc->ph;
            if (sd == 3) { /* D: k 1 */
                pa.kernel[0] = 1;
                pa.padding[0] = 0;
            }
            tcase tc;
            make_fixed_case(&r, &tc, &pa, rank, fc->shape, fc->lay, (poolgrad_dtype)dt, fc->desc);
            expect_taken(&tc, fc->ok, fc->desc);
            check_kernels(&r, &tc);
            free_case(&tc);
        }
}

/*
 * A W-row kernel run over the rows [b, e) alone writes exactly those gradInput rows (n, c, d, h), with the
 * reference's bits, and nothing else: a store to another work item's row, even of the same value, would
 * race with the thread that owns it. Random b, e; kernels of the family that take the case.
 */
static void expect_rows_only(pgt_rng *r, tcase *tc)
{
    const poolgrad_problem *pr = &tc->plan->problem;
    const int64_t *gs = pr->gi_stride;
    const int64_t numel = tc->gi.buf.numel;
    unsigned char *mine = malloc((size_t)numel);
    CA_ASSERT(mine != NULL, "out of memory");
    for (size_t i = 0; i < NKERNELS; i++) {
        const poolgrad_kernel *k = all_kernels[i];
        poolgrad_kernel_conf conf;
        if (!in_scope(k) || !cpu_runs(k) || !k->configure(pr, &conf) || conf.work_items < 1)
            continue;
        for (int rep = 0; rep < 2; rep++) {
            int64_t b = pgt_range(r, 0, conf.work_items - 1), e = pgt_range(r, b + 1, conf.work_items);
            reset_output(tc);
            const size_t wsb = run_buffer_bytes(r, &conf);
            pgt_buffer ws = pgt_alloc(POOLGRAD_F32, (int64_t)((wsb + 3) / 4));
            k->run(pr, &conf, wsb ? ws.data : NULL, b, e);
            pgt_free(&ws);
            memset(mine, 0, (size_t)numel);
            for (int64_t row = b; row < e; row++) {
                const int64_t h = row % pr->in[1], d = row / pr->in[1] % pr->in[0], c = row / pr->in[1] / pr->in[0] % pr->c,
                              n = row / pr->in[1] / pr->in[0] / pr->c;
                for (int64_t w = 0; w < pr->in[2]; w++)
                    mine[tc->gi.t.offset + n * gs[PG_N] + c * gs[PG_C] + d * gs[PG_D] + h * gs[PG_H] + w * gs[PG_W]] = 1;
            }
            int64_t bad = -1;
            for (int64_t x = 0; x < numel && bad < 0; x++) {
                const size_t off = ((size_t)PGT_GUARD + (size_t)x) * tc->gi.buf.es;
                if (mine[x] ? memcmp(tc->gi.buf.raw + off, tc->ref.buf.raw + off, tc->gi.buf.es) != 0 : !pgt_untouched(&tc->gi.buf, x))
                    bad = x;
            }
            CA_EXPECT(bad < 0 && pgt_guards_intact(&tc->gi.buf), "%s over rows [%lld, %lld): storage element %lld %s; case %s",
                      k->name, (long long)b, (long long)e, (long long)bad,
                      bad >= 0 && mine[bad] ? "differs from the reference" : "written outside its rows", tc->desc);
            mismatch_count[i] += bad >= 0;
        }
    }
    free(mine);
}

/* A fixed case of the parts that reach a kind on purpose: k, s, p per axis (p 0 along D), the layout, and
 * whether the family's kernels take it (ok). */
typedef struct axis_case {
    int sd;
    int64_t shape[5];
    int64_t kd, sd_, kh, sh, ph, kw, sw, pw;
    bool ceil, cip;
    int64_t div;
    int lay;
    bool ok;
    const char *desc;
} axis_case;

/* Each case in every dtype: taken or rejected as it says, checked on every kernel in scope, and when
 * rows_only also run over one random range of rows alone (expect_rows_only). */
static void check_axis_cases(pgt_rng *r, const axis_case *cases, size_t n, bool rows_only)
{
    for (size_t ci = 0; ci < n; ci++)
        for (int dt = 0; dt < 3; dt++) {
            const axis_case *c = &cases[ci];
            poolgrad_params pa = pgt_params(c->sd, c->kw, c->sw, c->pw, c->ceil, c->cip, c->div);
            pa.kernel[c->sd - 2] = c->kh;
            pa.stride[c->sd - 2] = c->sh;
            pa.padding[c->sd - 2] = c->ph;
            if (c->sd == 3) {
                pa.kernel[0] = c->kd;
                pa.stride[0] = c->sd_;
                pa.padding[0] = 0;
            }
            tcase tc;
            make_fixed_case(r, &tc, &pa, c->sd + 2, c->shape, c->lay, (poolgrad_dtype)dt, c->desc);
            expect_taken(&tc, c->ok, c->desc);
            check_kernels(r, &tc);
            if (rows_only)
                expect_rows_only(r, &tc);
            free_case(&tc);
        }
}

/*
 * The doubled-row kind (_nchw_x2: k = s = 2 along W), reached on purpose on every ISA (the test fails if configure()
 * no longer takes a shape it should, or takes one it should not): widths even and odd (the last column outside
 * every window, or in a one-column window with ceil mode), around and below the vector widths, the widest row it
 * takes; along H windows k = s (rows in pairs), k < s (rows of no window) and padding; 3D with k = s = 2 along D;
 * excluded padding, divisor overrides, gapped views; random work splits cut row pairs, and a run over a random
 * range of rows writes those rows alone (expect_rows_only). Rejected: p 1, k 3 or stride 3 along W, k > s
 * along H or D, a row one window wider.
 */
static void part_x2_rows(void)
{
    if (!family_is("nchw_x2"))
        return;
    pgt_rng r = rng_for("x2_rows");
        static const axis_case cases[] = {
        { 2, { 2, 3, 56, 56 }, 1, 1, 2, 2, 0, 2, 2, 0, false, true, 0, LAYOUT_ROWMAJOR, true, "k2s2 56x56" },
        { 2, { 1, 3, 7, 37 }, 1, 1, 2, 2, 0, 2, 2, 0, false, true, 0, LAYOUT_ROWMAJOR, true, "W 37: last column in no window" },
        { 2, { 1, 3, 7, 37 }, 1, 1, 2, 2, 0, 2, 2, 0, true, false, 0, LAYOUT_ROWMAJOR, true, "W 37 ceil: a one-column window" },
        { 2, { 1, 2, 5, 33 }, 1, 1, 2, 2, 1, 2, 2, 0, true, true, 0, LAYOUT_ROWMAJOR, true, "W 33, ph 1, ceil" },
        { 2, { 1, 2, 4, 3 }, 1, 1, 2, 2, 0, 2, 2, 0, false, false, 0, LAYOUT_ROWMAJOR, true, "W 3" },
        { 2, { 1, 2, 4, 2 }, 1, 1, 2, 2, 0, 2, 2, 0, false, true, -3, LAYOUT_ROWMAJOR, true, "W 2, divisor -3" },
        { 2, { 2, 2, 9, 17 }, 1, 1, 1, 2, 0, 2, 2, 0, false, true, 0, LAYOUT_ROWMAJOR, true, "kh 1 sh 2: rows of no window" },
        { 2, { 1, 2, 11, 100 }, 1, 1, 2, 3, 1, 2, 2, 0, true, false, 5, LAYOUT_ROWMAJOR, true, "kh 2 sh 3 ph 1, divisor 5" },
        { 2, { 1, 3, 6, 64 }, 1, 1, 2, 2, 0, 2, 2, 0, false, true, 0, LAYOUT_GAPPED, true, "W 64, gapped" },
        { 2, { 1, 1, 3, 8192 }, 1, 1, 2, 2, 0, 2, 2, 0, false, true, 0, LAYOUT_ROWMAJOR, true, "the widest row it takes" },
        { 2, { 1, 2, 601, 6 }, 1, 1, 2, 2, 0, 2, 2, 0, true, false, 0, LAYOUT_ROWMAJOR, true, "H 601: ranges and factors computed, not tabulated" },
        { 3, { 1, 2, 6, 5, 30 }, 2, 2, 2, 2, 0, 2, 2, 0, false, true, 0, LAYOUT_ROWMAJOR, true, "3D k2s2" },
        { 3, { 1, 2, 7, 6, 31 }, 2, 3, 2, 2, 1, 2, 2, 0, true, false, 0, LAYOUT_ROWMAJOR, true, "3D kd 2 sd 3, ceil, excl" },
        { 2, { 1, 1, 3, 8194 }, 1, 1, 2, 2, 0, 2, 2, 0, false, true, 0, LAYOUT_ROWMAJOR, false, "one window wider: rejected" },
        { 2, { 1, 2, 6, 20 }, 1, 1, 2, 2, 0, 2, 2, 1, false, true, 0, LAYOUT_ROWMAJOR, false, "p 1 along W: rejected" },
        { 2, { 1, 2, 6, 20 }, 1, 1, 2, 2, 0, 3, 2, 1, false, true, 0, LAYOUT_ROWMAJOR, false, "k 3 along W: rejected" },
        { 2, { 1, 2, 6, 20 }, 1, 1, 2, 2, 0, 2, 3, 0, false, true, 0, LAYOUT_ROWMAJOR, false, "stride 3 along W: rejected" },
        { 2, { 1, 2, 6, 20 }, 1, 1, 3, 2, 1, 2, 2, 0, false, true, 0, LAYOUT_ROWMAJOR, false, "k 3 s 2 along H: rejected" },
        { 3, { 1, 2, 5, 6, 20 }, 3, 2, 2, 2, 0, 2, 2, 0, false, true, 0, LAYOUT_ROWMAJOR, false, "k 3 s 2 along D: rejected" },
    };
    check_axis_cases(&r, cases, sizeof cases / sizeof cases[0], true);
}

/*
 * The channels-last register-window kind (_nhwc_s1), reached on purpose on every ISA (the test fails if
 * configure() no longer takes a shape it should, or takes one it should not): channel counts around the vector
 * widths (full blocks, single vectors, tails), p = 0 and 1 along W, rows narrower than the window, one to three
 * window rows per gradInput row (3D included), ceil mode, excluded padding, divisor overrides; random work splits.
 * Rejected: k 2 or stride 2 along W, four window rows.
 */
static void part_nhwc_window(void)
{
    if (!family_is("nhwc_s1"))
        return;
    pgt_rng r = rng_for("nhwc_window");
    static const axis_case cases[] = {
        { 2, { 2, 192, 9, 35 }, 1, 1, 3, 1, 1, 3, 1, 1, false, false, 0, LAYOUT_CHANNELS_LAST, true, "inception-like, C 192" },
        { 2, { 1, 35, 6, 17 }, 1, 1, 3, 1, 0, 3, 1, 0, true, true, 0, LAYOUT_CHANNELS_LAST, true, "C 35 (tail), p 0, ceil" },
        { 2, { 1, 17, 5, 1 }, 1, 1, 3, 1, 1, 3, 1, 1, false, false, 0, LAYOUT_CHANNELS_LAST, true, "W 1 < k" },
        { 2, { 1, 33, 4, 2 }, 1, 1, 2, 2, 0, 3, 1, 1, false, true, -5, LAYOUT_CHANNELS_LAST, true, "W 2, one window row, divisor -5" },
        { 2, { 2, 48, 7, 9 }, 1, 1, 3, 2, 1, 3, 1, 1, false, true, 8, LAYOUT_CHANNELS_LAST, true, "k3 s2 along H, divisor 8" },
        { 3, { 1, 20, 3, 5, 11 }, 3, 3, 3, 1, 1, 3, 1, 1, true, false, 0, LAYOUT_CHANNELS_LAST, true, "3D: three window rows" },
        { 2, { 1, 16, 6, 12 }, 1, 1, 3, 1, 1, 2, 1, 1, false, true, 0, LAYOUT_CHANNELS_LAST, false, "k 2 along W: rejected" },
        { 2, { 1, 16, 6, 12 }, 1, 1, 3, 1, 1, 3, 2, 1, false, true, 0, LAYOUT_CHANNELS_LAST, false, "stride 2 along W: rejected" },
        { 2, { 1, 16, 8, 12 }, 1, 1, 4, 1, 1, 3, 1, 1, false, true, 0, LAYOUT_CHANNELS_LAST, false, "four window rows: rejected" },
    };
    check_axis_cases(&r, cases, sizeof cases / sizeof cases[0], false);
}

/*
 * The row chains of the channels-last pixel walks (_nhwc_b and _nhwc_q with k2s1 or k3s2 along W), reached on
 * purpose on every ISA: rows 2o and 2o + 1 of k3s2 along H walked as a pair, and (_nhwc_q) two planes of k3s2
 * along D with their rows four at a time; p 0 and 1 along H (pairs from even or from odd rows; along D p is 0,
 * so planes pair from odd ones), odd H and D (a row or a plane left alone), channel blocks and tails, ceil mode,
 * excluded padding, divisor overrides, a gapped view; random work splits cut pairs and quads. And the pixel
 * pairs of the general walk (nhwc_row: pixels w and w + 1 whose windows along W overlap, k3s1 unrolled) with
 * up to nine window rows (3D k3s1): odd and even W, channel blocks, single vectors and tails.
 */
static void part_nhwc_chains(void)
{
    const bool q = family_is("nhwc_q");
    if (!q && !family_is("nhwc_b"))
        return;
    pgt_rng r = rng_for("nhwc_chains");
    static const axis_case cases2[] = {
        { 2, { 2, 64, 9, 13 }, 1, 1, 3, 2, 1, 3, 2, 1, false, true, 0, LAYOUT_CHANNELS_LAST, true, "k3s2p1, C 64" },
        { 2, { 1, 35, 8, 9 }, 1, 1, 3, 2, 0, 2, 1, 0, true, false, 0, LAYOUT_CHANNELS_LAST, true, "k3s2p0 along H, k2s1 along W, C 35, ceil, excl" },
        { 2, { 3, 16, 7, 6 }, 1, 1, 3, 2, 1, 3, 2, 1, false, true, -6, LAYOUT_GAPPED_CL, true, "k3s2p1, gapped, divisor -6" },
        { 2, { 1, 35, 6, 11 }, 1, 1, 3, 1, 1, 3, 1, 1, true, false, 0, LAYOUT_CHANNELS_LAST, true, "k3s1p1, C 35, W 11, ceil, excl" },
        { 2, { 2, 70, 5, 8 }, 1, 1, 3, 1, 1, 4, 2, 1, false, true, 0, LAYOUT_CHANNELS_LAST, true, "k3s1 along H, k4s2p1 along W, C 70" },
    }, cases3[] = {
        { 3, { 2, 32, 6, 7, 10 }, 3, 1, 3, 1, 1, 3, 1, 1, true, false, 0, LAYOUT_CHANNELS_LAST, true, "3D k3s1, C 32, ceil, excl" },
        { 3, { 1, 70, 5, 6, 9 }, 3, 1, 3, 1, 1, 3, 1, 1, false, true, -7, LAYOUT_GAPPED_CL, true, "3D k3s1, C 70, gapped, divisor -7" },
        { 3, { 1, 5, 4, 5, 7 }, 3, 1, 3, 1, 0, 3, 1, 1, false, false, 0, LAYOUT_CHANNELS_LAST, true, "3D k3s1, C 5, ph 0, excl" },
        { 3, { 1, 64, 7, 9, 11 }, 3, 2, 3, 2, 1, 3, 2, 1, false, true, 0, LAYOUT_CHANNELS_LAST, true, "3D k3s2, C 64" },
        { 3, { 2, 35, 6, 8, 9 }, 3, 2, 3, 2, 0, 3, 2, 1, true, false, 0, LAYOUT_CHANNELS_LAST, true, "3D k3s2, C 35, ph 0, ceil, excl" },
        { 3, { 1, 20, 5, 7, 6 }, 3, 2, 3, 2, 1, 2, 1, 0, false, true, 5, LAYOUT_CHANNELS_LAST, true, "3D k3s2, k2s1 along W, divisor 5" },
    };
    check_axis_cases(&r, cases2, sizeof cases2 / sizeof cases2[0], false);
    if (q)
        check_axis_cases(&r, cases3, sizeof cases3 / sizeof cases3[0], false);
}

/*
 * The channels-last one-window kind (_nhwc_w1), reached on purpose on every ISA: full channel blocks, single
 * vectors and tails; windows clipped by padding and by ceil mode, gaps between windows (k < s) and pixels past
 * the last window zeroed, whole gradInput rows with no window (k < s along H and D), W 1, excluded padding,
 * divisor overrides (negative, not a power of two); random work splits. Rejected: k > s along W, H or D.
 */
static void part_nhwc_one_window(void)
{
    if (!family_is("nhwc_w1"))
        return;
    pgt_rng r = rng_for("nhwc_one_window");
    static const axis_case cases[] = {
        { 2, { 2, 64, 8, 12 }, 1, 1, 2, 2, 0, 2, 2, 0, false, true, 0, LAYOUT_CHANNELS_LAST, true, "k2s2, C 64" },
        { 2, { 1, 35, 7, 9 }, 1, 1, 2, 2, 1, 2, 2, 1, true, false, 0, LAYOUT_CHANNELS_LAST, true, "C 35 (tail), p 1, ceil, excluded padding" },
        { 2, { 1, 200, 5, 11 }, 1, 1, 2, 3, 0, 2, 3, 1, false, true, 0, LAYOUT_CHANNELS_LAST, true, "C 200, k2s3: gaps and empty rows" },
        { 2, { 2, 17, 4, 10 }, 1, 1, 1, 1, 0, 1, 4, 0, true, true, -5, LAYOUT_CHANNELS_LAST, true, "k1s4 along W, ceil, divisor -5" },
        { 2, { 1, 48, 6, 1 }, 1, 1, 3, 3, 1, 1, 1, 0, false, false, 3, LAYOUT_CHANNELS_LAST, true, "W 1, k3s3 p1 along H, divisor 3" },
        { 2, { 1, 16, 9, 13 }, 1, 1, 3, 3, 0, 3, 3, 1, true, true, 0, LAYOUT_GAPPED_CL, true, "k3s3, gapped, ceil: last window clipped" },
        { 3, { 1, 20, 5, 6, 7 }, 2, 3, 2, 2, 0, 2, 2, 0, true, false, 0, LAYOUT_CHANNELS_LAST, true, "3D k2s3 along D, ceil" },
        { 2, { 1, 16, 6, 12 }, 1, 1, 2, 2, 0, 3, 2, 1, false, true, 0, LAYOUT_CHANNELS_LAST, false, "k 3 s 2 along W: rejected" },
        { 2, { 1, 16, 6, 12 }, 1, 1, 3, 2, 1, 2, 2, 0, false, true, 0, LAYOUT_CHANNELS_LAST, false, "k 3 s 2 along H: rejected" },
        { 3, { 1, 16, 5, 6, 8 }, 2, 1, 2, 2, 0, 2, 2, 0, false, true, 0, LAYOUT_CHANNELS_LAST, false, "k 2 s 1 along D: rejected" },
    };
    check_axis_cases(&r, cases, sizeof cases / sizeof cases[0], false);
}

/* Special values: every element a special, f16 overflow sums, subnormal quotients, NaN payloads; the
 * reference must store only canonical NaNs (and the kernels equal it byte for byte). */
static void part_special_values(int default_cases)
{
    pgt_rng r = rng_for("special_values");
    static const float specials[] = { NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -1e-40f, 6e-8f, -3e-8f,
                                      2.9802322e-8f, 65504.0f, 65519.0f, 65520.0f, -65536.0f, 3.0e38f, -3.4e38f,
                                      1.0f, -1.5f, 6.1e-5f, 1.17e-38f };
    const int ns = (int)(sizeof specials / sizeof specials[0]);
    for (int c = 0; c < ca_cases(default_cases); c++) {
        tcase tc;
        poolgrad_dtype dt = (poolgrad_dtype)(c % 3);
        int layout = pick_gi_layout(&r);
        if (!make_case(&r, &tc, 2 + (c % 2), dt, layout, layout, false, global_only())) {
            c--;
            continue;
        }
        /* overwrite gradOutput with specials and raw bit patterns (incl. signalling NaNs) */
        for (int64_t i = 0; i < tc.go.buf.numel; i++) {
            if (pgt_next(&r) & 1) {
                pgt_store(dt, tc.go.buf.data, i, specials[pgt_next(&r) % (uint64_t)ns]);
            } else if (dt == POOLGRAD_F32) {
                uint32_t bits = (uint32_t)pgt_next(&r);
                memcpy((char *)tc.go.buf.data + i * 4, &bits, 4);
            } else {
                uint16_t bits = (uint16_t)pgt_next(&r);
                memcpy((char *)tc.go.buf.data + i * 2, &bits, 2);
            }
        }
        /* recompute the reference on the new data */
        size_t bytes = ((size_t)tc.ref.buf.numel + 2 * PGT_GUARD) * tc.ref.buf.es;
        for (size_t i = 0; i < bytes; i++)
            tc.ref.buf.raw[i] = pgt_sentinel_byte(i);
        if (tc.ref_problem.gi)
            poolgrad_reference(&tc.ref_problem);
        for (int64_t i = 0; i < tc.ref.buf.numel; i++)
            CA_ASSERT(pgt_untouched(&tc.ref.buf, i) || !pgt_noncanonical_nan(dt, tc.ref.buf.data, i),
                      "reference stored a non-canonical NaN at element %lld; case %s", (long long)i, tc.desc);
        check_kernels(&r, &tc);
        free_case(&tc);
    }
}

/* An empty gradOutput (out size 0) fills +0.0 and never reads gradOutput: the zero-fill plan. */
static void part_empty_grad_output(void)
{
    pgt_rng r = rng_for("empty_grad_output");
    for (int dt = 0; dt < 3; dt++)
        for (int layout = 0; layout < 2; layout++) {
            tcase tc;
            memset(&tc, 0, sizeof tc);
            int64_t shape[5] = { 2, 19, 3, 5, 17 };
            const int lay = layout ? LAYOUT_CHANNELS_LAST : LAYOUT_GAPPED;
            make_view(&r, &tc.gi, (poolgrad_dtype)dt, 5, 3, shape, lay, false);
            tc.ref = tc.gi;
            tc.ref.buf = pgt_alloc((poolgrad_dtype)dt, tc.gi.buf.numel);
            tc.ref.t.storage = tc.ref.buf.data;
            CA_ASSERT(poolgrad_plan_create_zero_fill(&tc.gi.t, &tc.plan) == POOLGRAD_OK, "zero-fill plan");
            tc.ref_problem = tc.plan->problem;
            tc.ref_problem.gi = (char *)tc.ref.buf.data + tc.gi.t.offset * (int64_t)tc.gi.buf.es;
            snprintf(tc.desc, sizeof tc.desc, "empty gradOutput (zero fill) %s %s", dtype_name((poolgrad_dtype)dt),
                     layout_names[lay]);
            poolgrad_reference(&tc.ref_problem);
            check_kernels(&r, &tc);
            free_case(&tc);
        }
}

/*
 * Global pooling over planes of P elements (NCHW, W = 1, so a work item is one element) cut one element before,
 * at and after each boundary of a 32-plane block, the superblock that the 512-bit 16-bit fill stores as P
 * whole vectors from a lane index table (PG_GTAB_P = 64 elements at most): the first and last element of a
 * superblock, a head or tail one element long, planes of 1, odd, 41 (a remainder of 9 per 32 lanes), 49, and
 * 64 / 65 elements (the largest taken, the smallest not).
 */
static void part_global_superblocks(void)
{
    if (!family_is("global"))
        return;
    pgt_rng r = rng_for("global_superblocks");
    static const int64_t planes[] = { 1, 7, 41, 49, 64, 65 };
    for (size_t pi = 0; pi < sizeof planes / sizeof planes[0]; pi++)
        for (int dt = 0; dt < 3; dt++) {
            const int64_t P = planes[pi], shape[4] = { 2, 40, P, 1 }; /* 80 planes: two whole superblocks and a part */
            poolgrad_params pa = pgt_params(2, 1, 1, 0, false, true, 0);
            pa.kernel[0] = pa.stride[0] = P; /* H: one window over the plane */
            char desc[64];
            snprintf(desc, sizeof desc, "global, planes of %lld elements", (long long)P);
            tcase tc;
            make_fixed_case(&r, &tc, &pa, 4, shape, LAYOUT_ROWMAJOR, (poolgrad_dtype)dt, desc);
            const poolgrad_problem *pr = &tc.plan->problem;
            for (size_t i = 0; i < NKERNELS; i++) {
                const poolgrad_kernel *kn = all_kernels[i];
                poolgrad_kernel_conf conf;
                if (!in_scope(kn) || !cpu_runs(kn) || !kn->configure(pr, &conf))
                    continue;
                const int64_t sb = 32 * P, cuts[] = { sb - 1, sb, sb + 1, 2 * sb - 1, 2 * sb + 1, conf.work_items - 1 };
                for (size_t ci = 0; ci < sizeof cuts / sizeof cuts[0]; ci++) {
                    const int64_t c = cuts[ci];
                    if (c <= 0 || c >= conf.work_items)
                        continue;
                    char who[128];
                    snprintf(who, sizeof who, "%s over [0, %lld) and [%lld, %lld)", kn->name, (long long)c, (long long)c,
                             (long long)conf.work_items);
                    ca_set_context("%s on %s", who, tc.desc);
                    reset_output(&tc);
                    kn->run(pr, &conf, NULL, 0, c);
                    kn->run(pr, &conf, NULL, c, conf.work_items);
                    const bool ok = expect_same(&tc, who);
                    mismatch_count[i] += !ok;
                    ran_count[i]++;
                }
            }
            ca_set_context(NULL);
            free_case(&tc);
        }
}

/*
 * Every f16 / bf16 bit pattern through every kernel: k = s = 1 (one term per element), divided by a few
 * divisors so that f32 -> f16/bf16 rounding (ties, subnormals, overflow, NaN quieting) is exercised on
 * quotients that are not representable. For the global family the 65536 elements are channels of a 1x1
 * input (one window over each), otherwise a 256x256 plane (NCHW) or 256 channels x 256 pixels (NHWC).
 */
static void part_conversions_exhaustive(void)
{
    pgt_rng r = rng_for("conversions_exhaustive");
    static const int64_t divisors[] = { 1, 3, -7, 10, 1000003, -65537 };
    for (int dt = 1; dt <= 2; dt++)
        for (size_t di = 0; di < sizeof divisors / sizeof divisors[0]; di++)
            for (int layout = 0; layout < 2; layout++) {
                if ((layout == 0 && family_is("nhwc")) || (layout == 1 && family_is("nchw")))
                    continue;
                tcase tc;
                memset(&tc, 0, sizeof tc);
                tc.pa = pgt_params(2, 1, 1, 0, false, true, divisors[di]);
                tc.rank = 4;
                int64_t shape[4] = { 1, layout ? 256 : 1, layout ? 1 : 256, 256 };
                if (global_only()) {
                    shape[1] = 65536;
                    shape[2] = shape[3] = 1;
                }
                const int lay = layout ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR;
                make_view(&r, &tc.gi, (poolgrad_dtype)dt, 4, 2, shape, lay, false);
                make_view(&r, &tc.go, (poolgrad_dtype)dt, 4, 2, shape, lay, false);
                tc.ref = tc.gi;
                tc.ref.buf = pgt_alloc((poolgrad_dtype)dt, tc.gi.buf.numel);
                tc.ref.t.storage = tc.ref.buf.data;
                uint16_t *g = (uint16_t *)tc.go.t.storage + tc.go.t.offset;
                for (int64_t i = 0; i < 65536; i++) /* both layouts are dense here: element i = pattern i */
                    g[i] = (uint16_t)i;
                CA_ASSERT(poolgrad_plan_create(&tc.pa, &tc.go.t, &tc.gi.t, &tc.plan) == POOLGRAD_OK, "plan_create");
                tc.ref_problem = tc.plan->problem;
                tc.ref_problem.gi = (char *)tc.ref.buf.data + tc.gi.t.offset * (int64_t)tc.gi.buf.es;
                snprintf(tc.desc, sizeof tc.desc, "all %s patterns / %lld, %s", dtype_name((poolgrad_dtype)dt),
                         (long long)divisors[di], layout_names[lay]);
                poolgrad_reference(&tc.ref_problem);
                check_kernels(&r, &tc);
                free_case(&tc);
            }
}

/* Default random cases per (op, dtype) of each family test (--cases / POOLGRAD_CHECKASM_CASES replace them). */
static const struct { int sd; poolgrad_dtype dt; int cases; } random_parts[] = {
    { 2, POOLGRAD_F32, 1500 }, { 2, POOLGRAD_F16, 800 }, { 2, POOLGRAD_BF16, 800 },
    { 3, POOLGRAD_F32, 800 }, { 3, POOLGRAD_F16, 500 }, { 3, POOLGRAD_BF16, 500 },
};

static void run_family(const char *family)
{
    cur_family = family;
    memset(ran_count, 0, sizeof ran_count);
    memset(mismatch_count, 0, sizeof mismatch_count);
    ran_cases = pow2_cases = 0;
    int random_cases = 0;
    for (size_t i = 0; i < sizeof random_parts / sizeof random_parts[0]; i++) {
        part_random(random_parts[i].sd, random_parts[i].dt, random_parts[i].cases);
        random_cases += ca_cases(random_parts[i].cases);
    }
    part_vector_widths();
    part_band_modes();
    part_s1_blockings();
    part_flat_planes();
    part_x2_rows();
    part_nhwc_window();
    part_nhwc_one_window();
    part_nhwc_chains();
    part_special_values(400);
    part_empty_grad_output();
    part_conversions_exhaustive();
    part_global_superblocks();

    char line[512];
    int n = snprintf(line, sizeof line, "%s: cases per kernel:", family ? family : "reference");
    for (size_t i = 0; i < NKERNELS; i++)
        if (in_scope(all_kernels[i]) && cpu_runs(all_kernels[i])) {
            n += snprintf(line + n, sizeof line - (size_t)n, " %s=%d", all_kernels[i]->name, ran_count[i]);
            if (mismatch_count[i])
                n += snprintf(line + n, sizeof line - (size_t)n, " (%d FAILED)", mismatch_count[i]);
            CA_EXPECT(random_cases < 100 || ran_count[i] > 0, "family %s, isa %s: kernel %s was never exercised",
                      family ? family : "-", poolgrad_isa_name(all_kernels[i]->isa), all_kernels[i]->name);
        }
    ca_note("%s", line);
    ca_note("%s: %d cases with every divisor a power of two (multiplied by the reciprocal)", family ? family : "reference",
            pow2_cases);
    CA_EXPECT(random_cases < 100 || ran_cases < 100 || pow2_cases > 0, "family %s: no case had power-of-two divisors", family ? family : "-");
    for (size_t i = 0; i < NKERNELS; i++)
        if (mismatch_count[i])
            ca_note("FAILED: family %s, isa %s (kernel %s): %d of %d cases differ from the reference",
                    family ? family : "reference", poolgrad_isa_name(all_kernels[i]->isa), all_kernels[i]->name,
                    mismatch_count[i], ran_count[i]);
    cur_family = NULL;
}

#define FAMILY_TEST(f) static void test_##f(void) { run_family(#f); }
FAMILY_TEST(global)
FAMILY_TEST(nchw_x2)
FAMILY_TEST(nchw)
FAMILY_TEST(nchw_f)
FAMILY_TEST(nchw_s1)
FAMILY_TEST(nchw_s2)
FAMILY_TEST(nchw_b)
FAMILY_TEST(nchw_q)
FAMILY_TEST(nhwc_s1)
FAMILY_TEST(nhwc_w1)
FAMILY_TEST(nhwc)
FAMILY_TEST(nhwc_b)
FAMILY_TEST(nhwc_q)
#undef FAMILY_TEST

/* The reference kernel itself over random work splits (its rows are independent) vs the whole problem. */
static void test_reference(void) { run_family(NULL); }

/* ------------------------------------------------------------------ the vector conversions, every input */

#define POOLGRAD_EXACT_ENTRY(sym) &sym,
static const poolgrad_vec_exact *const all_exact[] = { POOLGRAD_FOREACH_VEC_EXACT(POOLGRAD_EXACT_ENTRY) NULL };
#undef POOLGRAD_EXACT_ENTRY

/* the first index where two arrays of n 16- or 32-bit values differ, or -1 */
static int64_t first_diff(const void *a, const void *b, int64_t n, size_t es)
{
    if (memcmp(a, b, (size_t)n * es) == 0)
        return -1;
    for (int64_t i = 0;; i++)
        if (memcmp((const char *)a + i * es, (const char *)b + i * es, es) != 0)
            return i;
}

/* POOLGRAD_EXHAUSTIVE_STEP: check every Nth block of 2^16 f32 bit patterns (default 1: all of them) */
static long exhaustive_step(void)
{
    const char *env = getenv("POOLGRAD_EXHAUSTIVE_STEP");
    return env && atol(env) > 0 ? atol(env) : 1;
}

/* the ISAs whose vector operations this process may call */
static int exact_isas(const poolgrad_vec_exact **cv)
{
    int n = 0;
    for (int i = 0; all_exact[i]; i++)
        if (isa_runs(all_exact[i]->isa) && n < 8)
            cv[n++] = all_exact[i];
    if (n == 0)
        ca_note("no SIMD ISA runs here: nothing to compare");
    return n;
}

/*
 * Each ISA's vector conversions (its kernels' gradOutput load and result store, simd/exact_tmpl.h) against
 * convert.h: all 65536 f16 widenings, and all 2^32 f32 values narrowed to f16 and to bf16 with the
 * canonical NaN rule (every POOLGRAD_EXHAUSTIVE_STEP-th block of 65536 consecutive bit patterns when that is
 * set: the sampled runs under qemu and the ISA caps). Where an ISA narrows f16 with the CPU's conversion
 * instructions, this is the proof that they give the library's bits.
 */
static void test_conversions(void)
{
    enum { B = 65536 };
    static uint16_t h[B], want16[B], wantb[B], got16[B];
    static float x[B], wantf[B], gotf[B];
    const long step = exhaustive_step();
    const poolgrad_vec_exact *cv[8];
    const int ncv = exact_isas(cv);
    if (ncv == 0)
        return;
    for (int64_t i = 0; i < B; i++) {
        h[i] = (uint16_t)i;
        wantf[i] = poolgrad_f16_to_f32_inline((uint16_t)i);
    }
    for (int c = 0; c < ncv; c++) {
        ca_set_context("%s widen_f16", poolgrad_isa_name(cv[c]->isa));
        cv[c]->widen_f16(h, gotf, B);
        const int64_t d = first_diff(gotf, wantf, B, 4);
        CA_EXPECT(d < 0, "%s (f16 by %s): f16 0x%04x widens to 0x%08x, convert.h gives 0x%08x",
                  poolgrad_isa_name(cv[c]->isa), cv[c]->f16_by, (unsigned)(d < 0 ? 0 : d),
                  d < 0 ? 0u : poolgrad_f32_bits(gotf[d]), d < 0 ? 0u : poolgrad_f32_bits(wantf[d]));
    }
    long long narrowed = 0;
    for (long blk = 0; blk < B; blk += step) {
        for (int64_t i = 0; i < B; i++) {
            x[i] = poolgrad_bits_f32((uint32_t)blk << 16 | (uint32_t)i);
            const float v = poolgrad_canonical_nan_f32(x[i]);
            want16[i] = poolgrad_f32_to_f16_inline(v);
            wantb[i] = poolgrad_f32_to_bf16_inline(v);
        }
        for (int c = 0; c < ncv; c++) {
            for (int bf = 0; bf < 2; bf++) {
                ca_set_context("%s narrow %s, block 0x%04lx", poolgrad_isa_name(cv[c]->isa), bf ? "bf16" : "f16", blk);
                cv[c]->narrow(bf ? POOLGRAD_BF16 : POOLGRAD_F16, x, got16, B);
                const uint16_t *want = bf ? wantb : want16;
                const int64_t d = first_diff(got16, want, B, 2);
                CA_ASSERT(d < 0, "%s (f16 by %s): f32 0x%08x narrows to %s 0x%04x, convert.h gives 0x%04x",
                          poolgrad_isa_name(cv[c]->isa), cv[c]->f16_by, (unsigned)blk << 16 | (unsigned)(d < 0 ? 0 : d),
                          bf ? "bf16" : "f16", d < 0 ? 0u : got16[d], d < 0 ? 0u : want[d]);
            }
        }
        narrowed += B;
    }
    ca_set_context(NULL);
    for (int c = 0; c < ncv; c++)
        ca_note("%s: f16 by %s; 65536 f16 widenings and %lld f32 values narrowed to f16 and to bf16 (%s), identical to convert.h",
                poolgrad_isa_name(cv[c]->isa), cv[c]->f16_by, narrowed, step == 1 ? "all of them" : "sampled");
}

/*
 * The kernels multiply by 1/d instead of dividing by d when every divisor is + or - 2^j (pg_quot): the
 * same bits for every x because 1/d is exact and both operations round the same real number once. Shown
 * here: each ISA's reciprocal (pg_recip_pow2, built from the bits) is 1.0f / d for every +-2^j, j <= 62;
 * then on each ISA's vector mul and div: every f32 x (all 2^32, also NaNs, infinities, zeros, subnormal
 * quotients) for the divisor 4 (2x2 windows), every 61st block of 2^16 for the others (times
 * POOLGRAD_EXHAUSTIVE_STEP). NaN quotients only need to be NaN (results are stored canonical).
 */
static void test_pow2_reciprocals(void)
{
    enum { B = 65536 };
    static float x[B], qd[B], qm[B];
    static const double divisors[] = { 4, 8, 1, 2, -2, 16, 65536, 16777216.0, -4611686018427387904.0 };
    const long step = exhaustive_step();
    const poolgrad_vec_exact *cv[8];
    const int ncv = exact_isas(cv);
    long long checked = 0;
    for (int c = 0; c < ncv; c++) /* the kernels' reciprocal (from the bits) is 1 / d for every d = +-2^j */
        for (int j = 0; j <= 62; j++)
            for (int sign = 1; sign >= -1; sign -= 2) {
                const int64_t f = sign * ((int64_t)1 << j);
                const float want = 1.0f / (float)f, got = cv[c]->recip_pow2(f);
                CA_ASSERT(poolgrad_f32_bits(got) == poolgrad_f32_bits(want), "%s: reciprocal of %lld is 0x%08x, 1/d is 0x%08x",
                          poolgrad_isa_name(cv[c]->isa), (long long)f, poolgrad_f32_bits(got), poolgrad_f32_bits(want));
            }
    for (size_t di = 0; di < sizeof divisors / sizeof divisors[0]; di++) {
        const float d = (float)divisors[di], r = ncv ? cv[0]->recip_pow2((int64_t)divisors[di]) : 1.0f / d;
        const long dstep = step * (di == 0 ? 1 : 61);
        for (long blk = 0; blk < B; blk += dstep) {
            for (int64_t i = 0; i < B; i++)
                x[i] = poolgrad_bits_f32((uint32_t)blk << 16 | (uint32_t)i);
            for (int c = 0; c < ncv; c++) {
                ca_set_context("%s quotients by %g, block 0x%04lx", poolgrad_isa_name(cv[c]->isa), (double)d, blk);
                cv[c]->quotients(x, qd, B, d, r, false);
                cv[c]->quotients(x, qm, B, d, r, true);
                if (memcmp(qd, qm, sizeof qd) == 0)
                    continue;
                for (int64_t i = 0; i < B; i++) {
                    const bool same = poolgrad_f32_bits(qd[i]) == poolgrad_f32_bits(qm[i]) || (isnan(qd[i]) && isnan(qm[i]));
                    CA_ASSERT(same, "%s: f32 0x%08x / %g = 0x%08x but * %g = 0x%08x", poolgrad_isa_name(cv[c]->isa),
                              poolgrad_f32_bits(x[i]), (double)d, poolgrad_f32_bits(qd[i]), (double)r,
                              poolgrad_f32_bits(qm[i]));
                }
            }
            checked += B;
        }
    }
    ca_set_context(NULL);
    if (ncv)
        ca_note("x / d == x * (1/d) for %lld (x, d) pairs on each of %d ISAs (d = 4: every f32 x%s)", checked, ncv, step == 1 ? "" : ", sampled");
}

/* ------------------------------------------------------------------ guard pages */

/*
 * bytes of storage placed against an inaccessible page: the storage ends where the page begins (at_end), or
 * begins where it ends. A kernel that reads or writes one byte outside its views (a tail load or store
 * wider than the row, a prefetch is harmless) faults, which the runner reports naming the kernel. The
 * sentinel guard zones of the other tests catch writes only.
 */
typedef struct guarded {
    unsigned char *map;
    size_t maplen;
    void *data;
} guarded;

static guarded guarded_alloc(size_t bytes, bool at_end)
{
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = (bytes + pg - 1) / pg * pg;
    guarded g = { 0 };
    g.maplen = n + 2 * pg;
    void *m = mmap(NULL, g.maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CA_ASSERT(m != MAP_FAILED, "mmap of %zu bytes failed", g.maplen);
    g.map = m;
    CA_ASSERT(mprotect(g.map, pg, PROT_NONE) == 0 && mprotect(g.map + pg + n, pg, PROT_NONE) == 0, "mprotect failed");
    g.data = at_end ? g.map + pg + n - bytes : g.map + pg;
    return g;
}

static void guarded_free(guarded *g)
{
    if (g->map)
        munmap(g->map, g->maplen);
    g->map = NULL;
}

/* One dense (row-major or channels-last) random problem with gradOutput, gradInput and the workspace
 * against guard pages; every kernel of every family the CPU runs, against the reference. */
static void guard_page_case(pgt_rng *r, int sd, poolgrad_dtype dt, bool cl, bool at_end)
{
    poolgrad_params pa;
    memset(&pa, 0, sizeof pa);
    pa.spatial_dims = sd;
    for (int a = 0; a < sd; a++) {
        pa.kernel[a] = pgt_range(r, 1, 4);
        const int mode = (int)(pgt_next(r) % 3); /* k < s, k == s, k > s */
        pa.stride[a] = mode == 0 ? pa.kernel[a] + 1 : mode == 1 ? pa.kernel[a] : pgt_range(r, 1, pa.kernel[a]);
        pa.padding[a] = pgt_range(r, 0, pa.kernel[a] / 2);
    }
    pa.ceil_mode = pgt_next(r) & 1;
    pa.count_include_pad = pgt_next(r) & 1;
    pa.divisor_override = (pgt_next(r) % 4) == 0 ? pgt_range(r, 1, 9) : 0;
    const int rank = sd + 2;
    int64_t shape[5], oshape[5];
    shape[0] = pgt_range(r, 1, 2);
    shape[1] = cl ? pick_size(r) : pgt_range(r, 1, 3);
    for (int a = 0; a < sd; a++)
        shape[2 + a] = a == sd - 1 ? pick_size(r) + (int64_t)pa.kernel[a] : pgt_range(r, pa.kernel[a], sd == 3 ? 5 : 9);
    if ((pgt_next(r) % 8) == 0) /* global pooling: one window over the input */
        for (int a = 0; a < sd; a++) {
            pa.kernel[a] = shape[2 + a];
            pa.stride[a] = shape[2 + a];
            pa.padding[a] = 0;
        }
    if (poolgrad_output_shape(&pa, rank, shape, oshape) != POOLGRAD_OK)
        return;
    int64_t ni = 1, no = 1;
    for (int d = 0; d < rank; d++) {
        ni *= shape[d];
        no *= oshape[d];
    }
    const size_t es = poolgrad_dtype_size(dt);
    guarded go = guarded_alloc((size_t)no * es, at_end), gi = guarded_alloc((size_t)ni * es, at_end);
    for (int64_t i = 0; i < no; i++)
        pgt_store(dt, go.data, i, pgt_value(r, (pgt_next(r) % 4) == 0));
    poolgrad_tensor tgo, tgi;
    CA_ASSERT((cl ? poolgrad_tensor_init_channels_last(&tgo, dt, rank, sd, oshape, go.data)
                  : poolgrad_tensor_init_contiguous(&tgo, dt, rank, oshape, go.data)) == POOLGRAD_OK, "gradOutput view");
    CA_ASSERT((cl ? poolgrad_tensor_init_channels_last(&tgi, dt, rank, sd, shape, gi.data)
                  : poolgrad_tensor_init_contiguous(&tgi, dt, rank, shape, gi.data)) == POOLGRAD_OK, "gradInput view");
    poolgrad_plan *plan = NULL;
    CA_ASSERT(poolgrad_plan_create(&pa, &tgo, &tgi, &plan) == POOLGRAD_OK, "plan_create: %s", poolgrad_last_error_message());
    unsigned char *ref = malloc((size_t)ni * es);
    CA_ASSERT(ref != NULL, "out of memory");
    poolgrad_problem rp = plan->problem;
    rp.gi = (char *)ref;
    poolgrad_reference(&rp);
    char desc[200];
    snprintf(desc, sizeof desc, "%dd %s %s %lldx%lldx%lldx%lldx%lld k %lld/%lld/%lld ceil %d cip %d div %lld, storage %s a guard page",
             sd, dtype_name(dt), cl ? "channels-last" : "row-major", (long long)shape[0], (long long)shape[1],
             (long long)shape[2], (long long)shape[3], (long long)(sd == 3 ? shape[4] : 1), (long long)pa.kernel[sd - 1],
             (long long)pa.stride[sd - 1], (long long)pa.padding[sd - 1], pa.ceil_mode, pa.count_include_pad,
             (long long)pa.divisor_override, at_end ? "ending at" : "starting after");
    const poolgrad_problem *pr = &plan->problem;
    for (size_t i = 0; i < NKERNELS; i++) {
        const poolgrad_kernel *k = all_kernels[i];
        poolgrad_kernel_conf conf;
        if (!family_of(k) || !cpu_runs(k) || !k->configure(pr, &conf))
            continue;
        /* a kind with per-thread scratch runs with its slot and without (a thread past the plan's slots) */
        for (int slot = 1; slot >= (conf.scratch_size ? 0 : 1); slot--) {
            ca_set_context("kernel %s%s on %s", k->name, slot ? "" : " (no scratch slot)", desc);
            memset(gi.data, 0xA5, (size_t)ni * es);
            const size_t wsb = conf.workspace_size + conf.scratch_size;
            guarded ws = guarded_alloc(wsb ? wsb : 1, at_end);
            if (k->prepare)
                k->prepare(pr, &conf, ws.data, 0, conf.prepare_items);
            k->run(pr, &conf, slot ? ws.data : NULL, 0, conf.work_items);
            guarded_free(&ws);
            CA_EXPECT(memcmp(gi.data, ref, (size_t)ni * es) == 0, "kernel %s%s differs from the reference on %s", k->name,
                      slot ? "" : " (no scratch slot)", desc);
        }
        ran_count[i]++;
    }
    ca_set_context(NULL);
    free(ref);
    poolgrad_plan_destroy(plan);
    guarded_free(&go);
    guarded_free(&gi);
}

/* A contiguous 2D problem built by hand (no storage: configure() reads only the geometry). */
static poolgrad_problem geometry_only(poolgrad_dtype dt, bool cl, int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
                                      int64_t s, int64_t p)
{
    poolgrad_problem pr;
    memset(&pr, 0, sizeof pr);
    pr.dtype = dt;
    pr.spatial_dims = 2;
    pr.n = n;
    pr.c = c;
    const int64_t in[3] = { 1, h, w }, out[3] = { 1, (h + 2 * p - k) / s + 1, (w + 2 * p - k) / s + 1 };
    for (int a = 0; a < 3; a++) {
        pr.in[a] = in[a];
        pr.out[a] = out[a];
        pr.k[a] = a ? k : 1;
        pr.s[a] = a ? s : 1;
        pr.p[a] = a ? p : 0;
    }
    pr.count_include_pad = true;
    for (int t = 0; t < 2; t++) {
        int64_t *st = t ? pr.go_stride : pr.gi_stride;
        const int64_t H = t ? out[1] : h, W = t ? out[2] : w;
        st[PG_N] = c * H * W;
        st[PG_D] = H * W * (cl ? c : 1);
        st[PG_H] = W * (cl ? c : 1);
        st[PG_W] = cl ? c : 1;
        st[PG_C] = cl ? 1 : H * W;
    }
    return pr;
}

/* When configure() chooses non-temporal stores: f32, a gradInput of 16 MiB or more stored in whole 64-byte
 * lines, and only the kinds that implement them; every other kind leaves the flag false (conf is filled with
 * 1 bytes first, so a kind that does not set it fails). Whole lines include each store pass: _nhwc_s1 stores
 * channel blocks of 2 vectors on AVX-512 (32 floats); below it, of 4 vectors with its q ring (32 floats on
 * AVX2) and of one without (8 floats, a quarter of a line), so it streams on AVX-512, and on AVX2 with the
 * ring; _nchw_s1/_nchw_s2 store W blocks of conf.w_block floats
 * (rows of 48: 48 on AVX-512, 24 on AVX2), _nhwc_b channel blocks of conf.channel_block. Nothing streams
 * with 16-byte vectors (SSE2, NEON). f16/bf16 results stream only in _nhwc_b and _nhwc_q with k2s1 or k3s2
 * along W (their pixel walks) and 32-byte vectors of 16-bit lanes (AVX-512), in whole lines of 32 elements,
 * from the same element count (16 MiB as f32). _nchw_x2 streams blocks of adjacent identical rows, whatever
 * the row width up to 2048 floats, and only with 64-byte vectors (AVX-512). */
static void test_stream_policy(void)
{
    static const char *const streaming[] = { "nhwc",    "nhwc_b",  "nhwc_q",  "nhwc_s1",
                                             "nhwc_w1", "nchw_s1", "nchw_s2", "nchw_x2" };
    static const struct {
        const char *desc;
        poolgrad_dtype dt;
        bool cl;
        int64_t n, c, h, w, k, s, p;
        bool expect;
    } cases[] = {
        { "f32 NHWC 32x64x56x56 k3s2p1 (24.5 MiB)", POOLGRAD_F32, true, 32, 64, 56, 56, 3, 2, 1, true },
        { "f32 NHWC 32x64x35x35 k3s1p1 (9.6 MiB)", POOLGRAD_F32, true, 32, 64, 35, 35, 3, 1, 1, false },
        { "bf16 NHWC 64x64x56x56 k3s2p1", POOLGRAD_BF16, true, 64, 64, 56, 56, 3, 2, 1, true },
        { "f16 NHWC 32x64x56x56 k3s2p1", POOLGRAD_F16, true, 32, 64, 56, 56, 3, 2, 1, true },
        { "f16 NHWC 16x64x56x56 k3s2p1 (12.25 MiB as f32)", POOLGRAD_F16, true, 16, 64, 56, 56, 3, 2, 1, false },
        { "bf16 NHWC 32x48x56x56 k3s2p1 (lines split between pixels)", POOLGRAD_BF16, true, 32, 48, 56, 56, 3, 2, 1, false },
        { "f32 NHWC C 56 (lines split between pixels)", POOLGRAD_F32, true, 32, 56, 64, 64, 3, 2, 1, false },
        { "f32 NCHW 32x64x64x64 k3s1p1 (rows of 64)", POOLGRAD_F32, false, 32, 64, 64, 64, 3, 1, 1, true },
        { "f32 NCHW 32x64x64x64 k3s2p1 (rows of 64)", POOLGRAD_F32, false, 32, 64, 64, 64, 3, 2, 1, true },
        { "f32 NCHW 32x64x56x56 k3s2p1 (rows of 56)", POOLGRAD_F32, false, 32, 64, 56, 56, 3, 2, 1, false },
        { "f32 NHWC 32x64x56x56 k3s1p1 (24.5 MiB)", POOLGRAD_F32, true, 32, 64, 56, 56, 3, 1, 1, true },
        { "f32 NHWC 1x2048x56x56 k3s1p1 (no _nhwc_s1 ring: 1.3 MiB)", POOLGRAD_F32, true, 1, 2048, 56, 56, 3, 1, 1, true },
        { "f32 NCHW 32x64x48x48 k3s1p1 (rows of 48, 18 MiB)", POOLGRAD_F32, false, 32, 64, 48, 48, 3, 1, 1, true },
        { "f32 NHWC 32x64x56x56 k2s2 (24.5 MiB)", POOLGRAD_F32, true, 32, 64, 56, 56, 2, 2, 0, true },
        { "bf16 NHWC 64x64x56x56 k2s2", POOLGRAD_BF16, true, 64, 64, 56, 56, 2, 2, 0, false },
        { "f32 NCHW 32x64x56x56 k2s2 (rows of 56, pairs of 7 lines)", POOLGRAD_F32, false, 32, 64, 56, 56, 2, 2, 0,
          true },
        { "f32 NCHW 1x1x4096x4096 k2s2 (rows wider than the stack row)", POOLGRAD_F32, false, 1, 1, 4096, 4096, 2, 2,
          0, false },
        { "bf16 NCHW 64x64x56x56 k2s2", POOLGRAD_BF16, false, 64, 64, 56, 56, 2, 2, 0, false },
    };
    int checked = 0, wide = 0, streamed = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const poolgrad_problem pr = geometry_only(cases[ci].dt, cases[ci].cl, cases[ci].n, cases[ci].c, cases[ci].h,
                                                  cases[ci].w, cases[ci].k, cases[ci].s, cases[ci].p);
        for (size_t i = 0; i < NKERNELS; i++) {
            const poolgrad_kernel *k = all_kernels[i];
            poolgrad_kernel_conf conf;
            memset(&conf, 1, sizeof conf);
            if (!family_of(k) || !cpu_runs(k) || !k->configure(&pr, &conf))
                continue;
            bool kind_streams = false;
            for (size_t j = 0; j < sizeof streaming / sizeof streaming[0]; j++)
                kind_streams = kind_streams || strcmp(family_of(k), streaming[j]) == 0;
            bool want = kind_streams && cases[ci].expect && k->isa != POOLGRAD_ISA_SSE2 && k->isa != POOLGRAD_ISA_NEON;
            if (strcmp(family_of(k), "nhwc_s1") == 0)
                want = want && (k->isa == POOLGRAD_ISA_AVX512 || conf.scratch_size > 0);
            if (strcmp(family_of(k), "nchw_x2") == 0)
                want = want && k->isa == POOLGRAD_ISA_AVX512;
            if (strncmp(family_of(k), "nchw_s", 6) == 0)
                want = want && (conf.w_block % 16 == 0 || conf.w_block >= cases[ci].w);
            if (strcmp(family_of(k), "nhwc_b") == 0)
                want = want && (conf.channel_block % 16 == 0 || conf.channel_block >= cases[ci].c);
            if (cases[ci].dt != POOLGRAD_F32)
                want = want && (strcmp(family_of(k), "nhwc_b") == 0 || strcmp(family_of(k), "nhwc_q") == 0) &&
                       k->isa == POOLGRAD_ISA_AVX512;
            CA_EXPECT(conf.stream_stores == want, "%s: %s configured stream_stores %d, expected %d", cases[ci].desc,
                      k->name, (int)conf.stream_stores, (int)want);
            checked++;
            wide += k->isa == POOLGRAD_ISA_AVX2 || k->isa == POOLGRAD_ISA_AVX512;
            streamed += conf.stream_stores;
        }
    }
    /* none under the SSE2 and scalar caps, on NEON */
    CA_EXPECT(wide == 0 || streamed > 0, "no AVX2/AVX-512 kernel chose non-temporal stores on any case");
    printf("# stream_policy: %d configurations checked, %d streaming\n", checked, streamed);
}

/* Row and channel tails of every kernel against guard pages on both sides of the storage. */
static void test_guard_pages(void)
{
    cur_family = NULL;
    memset(ran_count, 0, sizeof ran_count);
    pgt_rng r = rng_for("guard_pages");
    const int n = ca_cases(96);
    for (int c = 0; c < n; c++)
        for (int v = 0; v < 8; v++)
            guard_page_case(&r, 2 + (v & 1), (poolgrad_dtype)(c % 3), (v >> 1) & 1, (v >> 2) & 1);
    int kernels = 0, runs = 0;
    for (size_t i = 0; i < NKERNELS; i++) {
        kernels += ran_count[i] > 0;
        runs += ran_count[i];
    }
    printf("# guard_pages: %d kernel runs of %d kernels, every view ending at or starting after an inaccessible page\n",
           runs, kernels);
    bool simd = false; /* none under POOLGRAD_ISA=scalar */
    for (size_t i = 0; i < NKERNELS; i++)
        simd |= family_of(all_kernels[i]) && cpu_runs(all_kernels[i]);
    CA_EXPECT(kernels > 0 || !simd, "no kernel ran");
}

/* ------------------------------------------------------------------ public path: ISA, caps, threads */

#if defined(__aarch64__)
static const char *const caps[] = { "scalar", "neon", "auto" };
#else
static const char *const caps[] = { "scalar", "sse2", "avx2", "avx512", "neon", "auto" };
#endif
#define NCAPS (sizeof caps / sizeof caps[0])

/* ISA of a dispatched kernel, from its name "avgpool2d_bwd_f32__<isa>_<family>" */
static poolgrad_isa isa_of_name(const char *name)
{
    const char *p = strstr(name, "__");
    if (!p)
        return POOLGRAD_ISA_SCALAR;
    for (size_t i = 0; i < NKERNELS; i++) {
        if (strcmp(p + 2, all_kernels[i]->name) == 0)
            return all_kernels[i]->isa;
    }
    return POOLGRAD_ISA_SCALAR;
}

/* The ISA detected through CPUID (no cap) is POOLGRAD_EXPECT_ISA when that is set: proves CPUID-driven
 * selection under qemu's CPU models. */
static void test_isa_detection(void)
{
    poolgrad_set_thread_isa_cap("auto");
    const poolgrad_isa active = poolgrad_active_isa();
    poolgrad_set_thread_isa_cap(NULL);
    const char *detected = poolgrad_isa_name(active);
    const char *expect = getenv("POOLGRAD_EXPECT_ISA");
    ca_note("detected ISA %s (no cap)%s%s; process cap POOLGRAD_ISA=%s, active %s", detected,
            expect && *expect ? ", POOLGRAD_EXPECT_ISA=" : "", expect && *expect ? expect : "",
            getenv("POOLGRAD_ISA") ? getenv("POOLGRAD_ISA") : "(unset)", poolgrad_isa_name(poolgrad_active_isa()));
    CA_EXPECT(active == poolgrad_cpu_isa(), "active ISA without cap %s, CPU's best built ISA %s", detected,
              poolgrad_isa_name(poolgrad_cpu_isa()));
    CA_EXPECT(!expect || !*expect || strcmp(expect, detected) == 0, "detected ISA %s, POOLGRAD_EXPECT_ISA=%s",
              detected, expect);
}

static void test_isa_caps_and_threads(void)
{
    pgt_rng r = rng_for("isa_caps_and_threads");
    const int cpu_level = poolgrad_isa_level(poolgrad_cpu_isa());
    int plans[NCAPS] = { 0 }, at_best[NCAPS] = { 0 };
    for (int c = 0; c < ca_cases(150); c++) {
        tcase tc;
        poolgrad_dtype dt = (poolgrad_dtype)(c % 3);
        int gl = (int)(pgt_next(&r) % LAYOUT_COUNT);
        if (!make_case(&r, &tc, 2 + (c / 3) % 2, dt, gl, gl, false, false)) {
            c--;
            continue;
        }
        for (size_t ci = 0; ci < NCAPS; ci++) {
            poolgrad_set_thread_isa_cap(caps[ci]);
            poolgrad_plan *plan;
            poolgrad_status st = poolgrad_plan_create(&tc.pa, &tc.go.t, &tc.gi.t, &plan);
            poolgrad_set_thread_isa_cap(NULL);
            CA_ASSERT(st == POOLGRAD_OK, "cap %s: plan_create: %s", caps[ci], poolgrad_status_string(st));
            const char *name = poolgrad_plan_kernel_name(plan);
            int cap_level = poolgrad_isa_cap_level(caps[ci]);
            int max_level = cap_level < cpu_level ? cap_level : cpu_level;
            if (tc.plan->kernel) {
                poolgrad_isa isa = isa_of_name(name);
                CA_EXPECT(poolgrad_isa_level(isa) <= max_level, "cap %s chose %s (above the cap or the CPU)", caps[ci], name);
                if (strcmp(caps[ci], "scalar") == 0)
                    CA_EXPECT(strstr(name, "__scalar") != NULL, "cap scalar chose %s", name);
                plans[ci]++;
                at_best[ci] += poolgrad_isa_level(isa) == max_level;
            }
            size_t wsz = poolgrad_plan_workspace_size(plan);
            void *ws = wsz ? malloc(wsz) : NULL;
            for (int threads = 1; threads <= 2; threads++) {
                reset_output(&tc);
                ca_set_context("%s (cap %s, %d threads) on %s", name, caps[ci], threads, tc.desc);
                CA_ASSERT(poolgrad_execute(plan, ws, wsz, threads) == POOLGRAD_OK, "execute");
                char who[128];
                snprintf(who, sizeof who, "%s (cap %s, %d threads)", name, caps[ci], threads);
                expect_same(&tc, who);
            }
            ca_set_context(NULL);
            free(ws);
            poolgrad_plan_destroy(plan);
        }
        free_case(&tc);
    }
    char line[512];
    int n = snprintf(line, sizeof line, "dispatch: plans on a kernel of the cap's (or the CPU's) level:");
    for (size_t ci = 0; ci < NCAPS; ci++)
        n += snprintf(line + n, sizeof line - (size_t)n, " %s %d/%d", caps[ci], at_best[ci], plans[ci]);
    ca_note("%s", line);
}

/* Large enough that several threads really split the rows (chunks of several rows each); under every
 * ISA cap the CPU can run, so the result never depends on which ISA is the host's best. The last case
 * (3D k3s1p1 ceil, channels-last: _nhwc_q) runs execute()'s pipelined passes, in steps of 37 rows (its
 * workspace is below the size the plan pipelines: the step is set here). */
static void test_threads_large(void)
{
    pgt_rng r = rng_for("threads_large");
    const int cpu_level = poolgrad_isa_level(poolgrad_cpu_isa());
    int compared = 0, pipelined = 0;
    for (int c = 0; c < 7; c++) {
        const bool piped = c == 6;
        poolgrad_dtype dt = piped ? POOLGRAD_F32 : (poolgrad_dtype)(c % 3);
        int sd = piped ? 3 : 2 + (c / 3);
        poolgrad_params pa = piped ? pgt_params(3, 3, 1, 1, true, false, 0)
                                   : pgt_params(sd, 3, c % 2 ? 1 : 2, 1, c % 2, c % 2 == 0, 0);
        int64_t shape2[4] = { 1, 3, 61, 67 }, shape3[5] = { 1, 2, 9, 23, 37 }, shape_piped[5] = { 2, 32, 8, 32, 64 };
        const int64_t *shape = piped ? shape_piped : sd == 2 ? shape2 : shape3;
        int rank = sd + 2;
        int64_t oshape[5];
        CA_ASSERT(poolgrad_output_shape(&pa, rank, shape, oshape) == POOLGRAD_OK, "output shape");
        for (int layout = piped; layout < 2; layout++) {
            view gi, go;
            make_view(&r, &gi, dt, rank, sd, shape, layout ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR, false);
            make_view(&r, &go, dt, rank, sd, oshape, layout ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR, false);
            for (int64_t i = 0; i < go.buf.numel; i++)
                pgt_store(dt, go.buf.data, i, pgt_value(&r, true));
            /* the reference, in its own sentinel storage laid out like gradInput's */
            poolgrad_plan *ref_plan;
            CA_ASSERT(poolgrad_plan_create(&pa, &go.t, &gi.t, &ref_plan) == POOLGRAD_OK, "plan_create");
            poolgrad_problem ref = ref_plan->problem;
            pgt_buffer rb = pgt_alloc(dt, gi.buf.numel);
            ref.gi = (char *)rb.data + gi.t.offset * (int64_t)gi.buf.es;
            poolgrad_reference(&ref);
            poolgrad_plan_destroy(ref_plan);
            for (size_t ci = 0; ci < NCAPS; ci++) {
                const int level = poolgrad_isa_cap_level(caps[ci]);
                if (level > cpu_level && strcmp(caps[ci], "auto") != 0)
                    continue; /* the CPU cannot run it: the cap would only repeat a lower one */
                poolgrad_set_thread_isa_cap(caps[ci]);
                poolgrad_plan *plan;
                poolgrad_status st = poolgrad_plan_create(&pa, &go.t, &gi.t, &plan);
                poolgrad_set_thread_isa_cap(NULL);
                CA_ASSERT(st == POOLGRAD_OK, "cap %s: plan_create", caps[ci]);
                if (piped && plan->kernel && plan->kernel->prepare_needed) {
                    plan->conf.pipeline_items = 37;
                    pipelined++;
                }
                size_t wsz = poolgrad_plan_workspace_size(plan);
                void *ws = wsz ? malloc(wsz) : NULL;
                static const int thread_counts[] = { 1, 2, 3, 7 };
                for (size_t ti = 0; ti < sizeof thread_counts / sizeof thread_counts[0]; ti++) {
                    for (size_t i = 0; i < ((size_t)gi.buf.numel + 2 * PGT_GUARD) * gi.buf.es; i++)
                        gi.buf.raw[i] = pgt_sentinel_byte(i);
                    for (size_t i = 0; i < wsz; i++) /* nothing left from the previous thread count's run */
                        ((unsigned char *)ws)[i] = pgt_sentinel_byte(i);
                    ca_set_context("%s (cap %s, %d threads)", poolgrad_plan_kernel_name(plan), caps[ci], thread_counts[ti]);
                    CA_ASSERT(poolgrad_execute(plan, ws, wsz, thread_counts[ti]) == POOLGRAD_OK, "execute");
                    int64_t e = pgt_first_difference(&gi.buf, &rb);
                    if (e != PGT_NO_DIFFERENCE) {
                        uint32_t va = 0, vb = 0;
                        memcpy(&va, gi.buf.raw + (size_t)(e + PGT_GUARD) * gi.buf.es, gi.buf.es);
                        memcpy(&vb, rb.raw + (size_t)(e + PGT_GUARD) * gi.buf.es, gi.buf.es);
                        CA_EXPECT(false, "%s (cap %s, %d threads): storage element %lld is 0x%x, reference 0x%x",
                                  poolgrad_plan_kernel_name(plan), caps[ci], thread_counts[ti], (long long)e, va, vb);
                    }
                    compared++;
                }
                ca_set_context(NULL);
                free(ws);
                poolgrad_plan_destroy(plan);
            }
            pgt_free(&rb);
            pgt_free(&gi.buf);
            pgt_free(&go.buf);
        }
    }
    ca_note("threads_large: %d runs (every cap the CPU runs, 1/2/3/7 threads) compared with the reference, %d plans "
            "pipelined", compared, pipelined);
}

/* ------------------------------------------------------------------ --bench */

typedef struct bench_problem {
    const char *label;
    int sd;
    int64_t shape[5];
    int64_t k[3], s[3], p[3];
    bool global; /* the global family's problems (one window over the input), only for it */
} bench_problem;

static const bench_problem bench_problems[] = {
    { "2d_8x64x56x56_k3s2p1", 2, { 8, 64, 56, 56 }, { 3, 3 }, { 2, 2 }, { 1, 1 }, false },
    { "2d_8x64x56x56_k2s2", 2, { 8, 64, 56, 56 }, { 2, 2 }, { 2, 2 }, { 0, 0 }, false },
    { "3d_1x32x16x56x56_k3s2p1", 3, { 1, 32, 16, 56, 56 }, { 3, 3, 3 }, { 2, 2, 2 }, { 1, 1, 1 }, false },
    { "2d_8x64x56x56_global", 2, { 8, 64, 56, 56 }, { 56, 56 }, { 56, 56 }, { 0, 0 }, true },
    { "3d_1x32x16x56x56_global", 3, { 1, 32, 16, 56, 56 }, { 16, 56, 56 }, { 16, 56, 56 }, { 0, 0, 0 }, true },
};
#define NBENCH (sizeof bench_problems / sizeof bench_problems[0])

static void run_whole(const poolgrad_kernel *k, const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws)
{
    if (k->prepare)
        k->prepare(pr, conf, ws, 0, conf->prepare_items);
    k->run(pr, conf, ws, 0, conf->work_items);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* CPU time of the calling thread: on a shared machine, time spent preempted does not count. */
static double thread_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Median ns (thread CPU time) of one single-threaded run of the whole problem: at least 5 runs, more
 * while under 0.2 s of CPU time, at most 41. */
static double time_kernel(const poolgrad_kernel *k, const poolgrad_problem *pr, const poolgrad_kernel_conf *conf,
                          void *ws)
{
    double t[41];
    int n = 0;
    const double start = thread_seconds();
    while (n < 41 && (n < 5 || thread_seconds() - start < 0.2)) {
        const double t0 = thread_seconds();
        run_whole(k, pr, conf, ws);
        t[n++] = (thread_seconds() - t0) * 1e9;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    return t[n / 2];
}

typedef struct bench_result {
    int family;     /* index into families[] */
    int problem;    /* index into bench_problems[] */
    poolgrad_dtype dt;
    int layout;
    const poolgrad_kernel *k;
    double ns_per_elem, speedup;
    bool exact;
} bench_result;

static bool family_selected(int f) { return !ca_opt.family || strcmp(ca_opt.family, families[f]) == 0; }

static bool family_applies(int f, const bench_problem *bp, int layout)
{
    if (strcmp(families[f], "global") == 0)
        return bp->global;
    if (bp->global)
        return false;
    return layout == (strncmp(families[f], "nhwc", 4) == 0 ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR);
}

static int bench(void)
{
    enum { MAXRES = NBENCH * 3 * 2 * (NKERNELS + NFAMILIES) };
    static bench_result res[MAXRES];
    int nres = 0, mismatches = 0, timed = 0;
    printf("# checkasm --bench: median CPU ns per gradInput element of one single-threaded run (prepare + run\n"
           "# over all work items), speedup over the scalar reference (ref); every result verified byte-exact.\n"
           "# CPU's best ISA: %s%s%s\n", poolgrad_isa_name(poolgrad_cpu_isa()),
           getenv("POOLGRAD_ISA") ? ", kernels capped by POOLGRAD_ISA=" : "",
           getenv("POOLGRAD_ISA") ? getenv("POOLGRAD_ISA") : "");
    const double t_start = ca_now();
    for (size_t bi = 0; bi < NBENCH; bi++) {
        const bench_problem *bp = &bench_problems[bi];
        for (int layout = 0; layout < 2; layout++) {
            bool wanted = false;
            for (int f = 0; f < (int)NFAMILIES; f++)
                wanted |= family_selected(f) && family_applies(f, bp, layout);
            if (!wanted)
                continue;
            for (int dti = 0; dti < 3; dti++) {
                const poolgrad_dtype dt = (poolgrad_dtype)dti;
                pgt_rng r = { ca_seed_for(bp->label) + (uint64_t)dti };
                tcase tc;
                memset(&tc, 0, sizeof tc);
                poolgrad_params pa = pgt_params(bp->sd, 1, 1, 0, false, true, 0);
                for (int a = 0; a < bp->sd; a++) {
                    pa.kernel[a] = bp->k[a];
                    pa.stride[a] = bp->s[a];
                    pa.padding[a] = bp->p[a];
                }
                const int rank = bp->sd + 2;
                int64_t oshape[5];
                CA_ASSERT(poolgrad_output_shape(&pa, rank, bp->shape, oshape) == POOLGRAD_OK, "%s: output shape", bp->label);
                const int lay = layout ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR;
                make_view(&r, &tc.gi, dt, rank, bp->sd, bp->shape, lay, false);
                make_view(&r, &tc.go, dt, rank, bp->sd, oshape, lay, false);
                tc.ref = tc.gi;
                tc.ref.buf = pgt_alloc(dt, tc.gi.buf.numel);
                tc.ref.t.storage = tc.ref.buf.data;
                for (int64_t i = 0; i < tc.go.buf.numel; i++)
                    pgt_store(dt, tc.go.buf.data, i, pgt_value(&r, false));
                CA_ASSERT(poolgrad_plan_create(&pa, &tc.go.t, &tc.gi.t, &tc.plan) == POOLGRAD_OK, "%s: plan_create", bp->label);
                tc.ref_problem = tc.plan->problem;
                tc.ref_problem.gi = (char *)tc.ref.buf.data + tc.gi.t.offset * (int64_t)tc.gi.buf.es;
                snprintf(tc.desc, sizeof tc.desc, "bench %s %s %s", bp->label, dtype_name(dt), layout_names[lay]);
                poolgrad_reference(&tc.ref_problem);
                const poolgrad_problem *pr = &tc.plan->problem;
                int64_t numel = 1;
                for (int d = 0; d < rank; d++)
                    numel *= bp->shape[d];
                /* the reference kernel's time, then every kernel of a selected family that applies */
                double ref_ns = 0;
                for (size_t n = 0; n < NKERNELS; n++) {
                    const poolgrad_kernel *k = all_kernels[(n + NKERNELS - 1) % NKERNELS]; /* the reference (last) first */
                    const char *fam = family_of(k);
                    int f = -1;
                    for (int j = 0; fam && j < (int)NFAMILIES; j++)
                        if (strcmp(fam, families[j]) == 0)
                            f = j;
                    if (fam && (f < 0 || !family_selected(f) || !family_applies(f, bp, layout)))
                        continue;
                    poolgrad_kernel_conf conf;
                    if (!cpu_runs(k) || !k->configure(pr, &conf))
                        continue;
                    const size_t wsb = conf.workspace_size + conf.scratch_size; /* one thread: its slot */
                    void *ws = wsb ? malloc(wsb) : NULL;
                    reset_output(&tc);
                    ca_set_context("bench: %s on %s", k->name, tc.desc);
                    run_whole(k, pr, &conf, ws);
                    const bool exact = pgt_guards_intact(&tc.gi.buf) && pgt_first_difference(&tc.gi.buf, &tc.ref.buf) == PGT_NO_DIFFERENCE;
                    const double ns = time_kernel(k, pr, &conf, ws);
                    ca_set_context(NULL);
                    free(ws);
                    timed++;
                    if (!fam) {
                        ref_ns = ns;
                        if (!exact) {
                            printf("FAIL: the reference kernel differs from poolgrad_reference on %s\n", tc.desc);
                            mismatches++;
                        }
                        /* one reference row per family that applies */
                        for (int j = 0; j < (int)NFAMILIES; j++)
                            if (family_selected(j) && family_applies(j, bp, layout) && nres < MAXRES)
                                res[nres++] = (bench_result){ j, (int)bi, dt, lay, k, ns / (double)numel, 1.0, exact };
                        continue;
                    }
                    mismatches += !exact;
                    if (nres < MAXRES)
                        res[nres++] = (bench_result){ f, (int)bi, dt, lay, k, ns / (double)numel, ref_ns > 0 ? ref_ns / ns : 0, exact };
                }
                free_case(&tc);
            }
        }
    }
    /* dav1d's layout: one line per kernel, grouped by family and problem, the reference first */
    for (int f = 0; f < (int)NFAMILIES; f++) {
        if (!family_selected(f))
            continue;
        printf("%s:\n", families[f]);
        for (int i = 0; i < nres; i++) {
            const bench_result *b = &res[i];
            if (b->family != f)
                continue;
            char name[128];
            snprintf(name, sizeof name, "%s_%s_%s_%s", bench_problems[b->problem].label, dtype_name(b->dt),
                     layout_names[b->layout], family_of(b->k) ? poolgrad_isa_name(b->k->isa) : "ref");
            printf("  %-44s %8.3f ns/elem (%6.2fx)%s\n", name, b->ns_per_elem, b->speedup,
                   b->exact ? "" : "  MISMATCH: differs from the reference");
        }
    }
    printf("# checkasm --bench: %d kernel timings, %d mismatches, %.1f s\n", timed, mismatches, ca_now() - t_start);
    return mismatches;
}

/* ------------------------------------------------------------------ the tests */

static const ca_test tests[] = {
    { "isa_detection", NULL, test_isa_detection },
    { "conversions", NULL, test_conversions },
    { "pow2_reciprocals", NULL, test_pow2_reciprocals },
    { "reference", NULL, test_reference },
    { "global", "global", test_global },
    { "nchw_x2", "nchw_x2", test_nchw_x2 },
    { "nchw", "nchw", test_nchw },
    { "nchw_f", "nchw_f", test_nchw_f },
    { "nchw_s1", "nchw_s1", test_nchw_s1 },
    { "nchw_s2", "nchw_s2", test_nchw_s2 },
    { "nchw_b", "nchw_b", test_nchw_b },
    { "nchw_q", "nchw_q", test_nchw_q },
    { "nhwc_s1", "nhwc_s1", test_nhwc_s1 },
    { "nhwc_w1", "nhwc_w1", test_nhwc_w1 },
    { "nhwc", "nhwc", test_nhwc },
    { "nhwc_b", "nhwc_b", test_nhwc_b },
    { "nhwc_q", "nhwc_q", test_nhwc_q },
    { "stream_policy", NULL, test_stream_policy },
    { "guard_pages", NULL, test_guard_pages },
    { "isa_caps_and_threads", NULL, test_isa_caps_and_threads },
    { "threads_large", NULL, test_threads_large },
};

static void print_header(void)
{
    printf("# kernels called directly:"); /* no line buffer: the list grows with every kind */
    for (size_t i = 0; i < NKERNELS; i++)
        if (cpu_runs(all_kernels[i]))
            printf(" %s", all_kernels[i]->name);
    printf("\n# CPU's best ISA %s; POOLGRAD_ISA at start: %s\n", poolgrad_isa_name(poolgrad_cpu_isa()),
           getenv("POOLGRAD_ISA") ? getenv("POOLGRAD_ISA") : "(unset)");
}

int main(int argc, char **argv)
{
    return ca_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]), bench, print_header);
}
