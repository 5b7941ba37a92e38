/*
 * checkasm-style tests: every kernel of kernels/kernel_list.h that this CPU can run is called directly
 * (prepare + run over randomly split work ranges, like poolgrad_execute's chunks) on randomized problems
 * and its gradInput storage is compared byte for byte with the scalar reference: values, untouched gaps,
 * guard zones. Then the public path under each POOLGRAD_ISA cap the CPU can run, with several thread counts.
 * Seed printed; POOLGRAD_TEST_SEED overrides it. POOLGRAD_CHECKASM_CASES scales the case count.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "internal.h"
#include "kernel_list.h"
#include "testutil.h"

#define POOLGRAD_KERNEL_ENTRY(sym) &sym,
static const poolgrad_kernel *const all_kernels[] = { POOLGRAD_FOREACH_KERNEL(POOLGRAD_KERNEL_ENTRY) };
#undef POOLGRAD_KERNEL_ENTRY
#define NKERNELS (sizeof all_kernels / sizeof all_kernels[0])

/* ISA of the CPU, without any cap */
static poolgrad_isa cpu_isa(void)
{
    const char *saved = getenv("POOLGRAD_ISA");
    char buf[64] = "";
    if (saved)
        snprintf(buf, sizeof buf, "%s", saved);
    unsetenv("POOLGRAD_ISA");
    poolgrad_isa isa = poolgrad_active_isa();
    if (saved)
        setenv("POOLGRAD_ISA", buf, 1);
    return isa;
}

/* the POOLGRAD_ISA cap the process was started with ("" = none): limits which kernels are called directly */
static int start_cap_rank(void)
{
    static int rank = -2;
    if (rank == -2) {
        rank = poolgrad_isa_cap_level(getenv("POOLGRAD_ISA"));
    }
    return rank;
}

static bool cpu_runs(const poolgrad_kernel *k)
{
    poolgrad_isa cpu = cpu_isa();
    if (poolgrad_isa_level(k->isa) > start_cap_rank())
        return false;
#if defined(__aarch64__)
    return k->isa == POOLGRAD_ISA_SCALAR || k->isa == POOLGRAD_ISA_NEON;
#else
    if (k->isa == POOLGRAD_ISA_NEON)
        return false;
    return poolgrad_isa_level(k->isa) <= poolgrad_isa_level(cpu);
#endif
}

static int case_scale(int n)
{
    const char *e = getenv("POOLGRAD_CHECKASM_CASES");
    if (e && *e)
        return atoi(e);
    return n;
}

/* ------------------------------------------------------------------ random views */

enum { LAYOUT_ROWMAJOR, LAYOUT_CHANNELS_LAST, LAYOUT_GAPPED, LAYOUT_RANDOM, LAYOUT_COUNT };

typedef struct view {
    poolgrad_tensor t;
    pgt_buffer buf;
} view;

/*
 * A view of logical `shape` (rank dims) in a fresh sentinel-filled buffer. layout picks the memory order;
 * gapped adds unused elements between rows/planes; broadcast (gradOutput only) may give a zero stride.
 */
static void make_view(pgt_rng *r, view *v, poolgrad_dtype dt, int rank, int sd, const int64_t *shape, int layout,
                      bool allow_broadcast)
{
    int order[POOLGRAD_MAX_RANK]; /* innermost first */
    int lead = rank - sd, cdim = lead - 1;
    int no = 0;
    if (layout == LAYOUT_CHANNELS_LAST || (layout == LAYOUT_GAPPED && (pgt_next(r) & 1))) {
        order[no++] = cdim;
        for (int d = rank - 1; d >= 0; d--)
            if (d != cdim)
                order[no++] = d;
    } else {
        for (int d = rank - 1; d >= 0; d--)
            order[no++] = d;
        if (layout == LAYOUT_RANDOM)
            for (int i = rank - 1; i > 0; i--) {
                int j = (int)pgt_range(r, 0, i);
                int x = order[i]; order[i] = order[j]; order[j] = x;
            }
    }
    int64_t stride = 1, strides[POOLGRAD_MAX_RANK];
    for (int i = 0; i < rank; i++) {
        int d = order[i];
        strides[d] = stride;
        int64_t ext = shape[d] > 0 ? shape[d] : 1;
        if (layout == LAYOUT_GAPPED && i > 0 && (pgt_next(r) % 3) == 0)
            strides[d] += pgt_range(r, 1, 3); /* gap */
        stride = strides[d] * ext;
        if (layout == LAYOUT_GAPPED && (pgt_next(r) % 3) == 0)
            stride += pgt_range(r, 1, 5);
    }
    if (allow_broadcast && (pgt_next(r) % 8) == 0)
        strides[cdim] = 0; /* every channel reads the same gradOutput values */
    int64_t offset = pgt_range(r, 0, 3), numel = 0;
    bool empty = false;
    for (int d = 0; d < rank; d++)
        if (shape[d] == 0)
            empty = true;
    if (!empty) {
        int64_t hi = offset;
        for (int d = 0; d < rank; d++)
            hi += (shape[d] - 1) * strides[d];
        numel = hi + 1 + pgt_range(r, 0, 2);
    }
    v->buf = pgt_alloc(dt, numel);
    memset(&v->t, 0, sizeof v->t);
    v->t.dtype = dt;
    v->t.rank = rank;
    for (int d = 0; d < rank; d++) {
        v->t.shape[d] = shape[d];
        v->t.strides[d] = strides[d];
    }
    v->t.offset = offset;
    v->t.storage_numel = numel;
    v->t.storage = v->buf.data;
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
static bool make_case(pgt_rng *r, tcase *tc, int sd, poolgrad_dtype dt, int gi_layout, int go_layout, bool big_w)
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
    default: pa->divisor_override = 0; break;
    }
    bool batched = (pgt_next(r) % 4) != 0;
    int rank = sd + (batched ? 2 : 1);
    tc->rank = rank;
    int64_t shape[POOLGRAD_MAX_RANK];
    int d = 0;
    if (batched)
        shape[d++] = pgt_range(r, 1, 2);
    shape[d++] = (gi_layout == LAYOUT_CHANNELS_LAST || (pgt_next(r) & 1)) ? pick_size(r) : pgt_range(r, 1, 3);
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
    if ((pgt_next(r) % 10) == 0) /* global pooling: one window over everything */
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
    cr_assert_eq(st, POOLGRAD_OK, "plan_create: %s", poolgrad_status_string(st));
    tc->ref_problem = tc->plan->problem;
    if (tc->ref_problem.gi)
        tc->ref_problem.gi = (char *)tc->ref.buf.data + tc->gi.t.offset * (int64_t)tc->gi.buf.es;
    int n = snprintf(tc->desc, sizeof tc->desc, "%dd %s rank %d shape", sd,
                     dt == POOLGRAD_F32 ? "f32" : dt == POOLGRAD_F16 ? "f16" : "bf16", rank);
    for (int i = 0; i < rank; i++)
        n += snprintf(tc->desc + n, sizeof tc->desc - (size_t)n, " %lld", (long long)shape[i]);
    n += snprintf(tc->desc + n, sizeof tc->desc - (size_t)n, " k");
    for (int a = 0; a < sd; a++)
        n += snprintf(tc->desc + n, sizeof tc->desc - (size_t)n, " %lld/%lld/%lld", (long long)pa->kernel[a],
                      (long long)pa->stride[a], (long long)pa->padding[a]);
    snprintf(tc->desc + n, sizeof tc->desc - (size_t)n, " ceil %d cip %d div %lld layouts gi %d go %d",
             pa->ceil_mode, pa->count_include_pad, (long long)pa->divisor_override, gi_layout, go_layout);
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
 * canonical one (docs/SEMANTICS.md section 4), so there is nothing to tolerate.
 */
static void expect_same(const tcase *tc, const char *who)
{
    const pgt_buffer *a = &tc->gi.buf, *b = &tc->ref.buf;
    size_t bytes = ((size_t)a->numel + 2 * PGT_GUARD) * a->es;
    cr_assert(pgt_guards_intact(a), "%s: guard zone written; case %s", who, tc->desc);
    int64_t e = pgt_first_difference(a, b);
    if (e != PGT_NO_DIFFERENCE) {
        uint32_t va = 0, vb = 0;
        memcpy(&va, a->raw + (size_t)(e + PGT_GUARD) * a->es, a->es);
        memcpy(&vb, b->raw + (size_t)(e + PGT_GUARD) * a->es, a->es);
        cr_assert_fail("%s: element %lld of storage differs: 0x%08x vs reference 0x%08x; case %s", who,
                       (long long)e, va, vb, tc->desc);
    }
    (void)bytes;
}

/* Reset the output buffer to the sentinel pattern. */
static void reset_output(tcase *tc)
{
    size_t bytes = ((size_t)tc->gi.buf.numel + 2 * PGT_GUARD) * tc->gi.buf.es;
    for (size_t i = 0; i < bytes; i++)
        tc->gi.buf.raw[i] = pgt_sentinel_byte(i);
}

/* [0, items) in random consecutive pieces, run in random order (items are independent). */
static void run_split(pgt_rng *r, const poolgrad_problem *pr, void *ws, int64_t items,
                      void (*fn)(const poolgrad_problem *, void *, int64_t, int64_t))
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
            fn(pr, ws, cuts[p], cuts[p + 1]);
    }
}

/* Every runnable kernel that supports the case, called directly. Returns how many ran. */
static int check_kernels(pgt_rng *r, tcase *tc, int *per_kernel)
{
    const poolgrad_problem *pr = &tc->plan->problem;
    int ran = 0;
    if (!pr->gi)
        return 0;
    for (size_t i = 0; i < NKERNELS; i++) {
        const poolgrad_kernel *k = all_kernels[i];
        if (!cpu_runs(k) || !k->supports(pr))
            continue;
        reset_output(tc);
        size_t wsz = k->workspace_size ? k->workspace_size(pr) : 0;
        pgt_buffer ws = pgt_alloc(POOLGRAD_F32, (int64_t)((wsz + 3) / 4));
        if (k->prepare)
            run_split(r, pr, ws.data, k->prepare_items(pr), k->prepare);
        run_split(r, pr, ws.data, k->work_items(pr), k->run);
        cr_assert(pgt_guards_intact(&ws), "%s: workspace guard written; case %s", k->name, tc->desc);
        pgt_free(&ws);
        expect_same(tc, k->name);
        per_kernel[i]++;
        ran++;
    }
    return ran;
}

static void report(const char *what, const int *per_kernel)
{
    char line[2048];
    int n = snprintf(line, sizeof line, "# %s:", what);
    for (size_t i = 0; i < NKERNELS; i++)
        if (cpu_runs(all_kernels[i]))
            n += snprintf(line + n, sizeof line - (size_t)n, " %s=%d", all_kernels[i]->name, per_kernel[i]);
    fprintf(stderr, "%s\n", line);
}

/* ------------------------------------------------------------------ kernel tests */

struct kparam {
    int sd;
    poolgrad_dtype dt;
    int cases;
};

ParameterizedTestParameters(checkasm, kernels)
{
    static struct kparam params[] = {
        { 2, POOLGRAD_F32, 1500 }, { 2, POOLGRAD_F16, 800 }, { 2, POOLGRAD_BF16, 800 },
        { 3, POOLGRAD_F32, 800 }, { 3, POOLGRAD_F16, 500 }, { 3, POOLGRAD_BF16, 500 },
    };
    return cr_make_param_array(struct kparam, params, sizeof params / sizeof params[0]);
}

ParameterizedTest(struct kparam *p, checkasm, kernels, .timeout = 300)
{
    char what[64];
    snprintf(what, sizeof what, "checkasm kernels %dd dtype %d", p->sd, (int)p->dt);
    pgt_rng r = { pgt_seed(what, 0x5eed0000u + (uint64_t)p->sd * 16 + (uint64_t)p->dt) };
    int per_kernel[NKERNELS] = { 0 };
    int cases = case_scale(p->cases);
    for (int c = 0; c < cases; c++) {
        tcase tc;
        int gl = (int)(pgt_next(&r) % LAYOUT_COUNT);
        int ol = (pgt_next(&r) % 3) == 0 ? (int)(pgt_next(&r) % LAYOUT_COUNT) : gl; /* mixed sometimes */
        bool big_w = (c % 50) == 49;
        if (!make_case(&r, &tc, p->sd, p->dt, gl, ol, big_w)) {
            c--;
            continue;
        }
        check_kernels(&r, &tc, per_kernel);
        free_case(&tc);
    }
    report(what, per_kernel);
    for (size_t i = 0; i < NKERNELS; i++)
        if (cpu_runs(all_kernels[i]) && cases >= 100)
            cr_expect(per_kernel[i] > 0, "kernel %s was never exercised", all_kernels[i]->name);
}

/* Targeted shapes: vector-width neighbours along C and W, for both layouts, with and without overlap. */
Test(checkasm, vector_widths, .timeout = 300)
{
    pgt_rng r = { pgt_seed("checkasm vector_widths", 0x77aa11u) };
    static const int64_t sizes[] = { 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 35 };
    static const int64_t ks[][2] = { { 2, 2 }, { 3, 2 }, { 3, 1 }, { 1, 2 }, { 5, 1 } };
    int per_kernel[NKERNELS] = { 0 };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
            for (int layout = 0; layout < 2; layout++)
                for (int dt = 0; dt < 3; dt++) {
                    tcase tc;
                    memset(&tc, 0, sizeof tc);
                    poolgrad_params pa = pgt_params(2, ks[ki][0], ks[ki][1], ks[ki][0] / 2, (si & 1), (ki & 1), 0);
                    int64_t shape[4] = { 1, layout ? sizes[si] : 2, 5, layout ? 6 : sizes[si] };
                    int64_t oshape[4];
                    cr_assert_eq(poolgrad_output_shape(&pa, 4, shape, oshape), POOLGRAD_OK);
                    tc.pa = pa;
                    tc.rank = 4;
                    make_view(&r, &tc.gi, (poolgrad_dtype)dt, 4, 2, shape, layout ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR, false);
                    make_view(&r, &tc.go, (poolgrad_dtype)dt, 4, 2, oshape, layout ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR, false);
                    tc.ref = tc.gi;
                    tc.ref.buf = pgt_alloc((poolgrad_dtype)dt, tc.gi.buf.numel);
                    tc.ref.t.storage = tc.ref.buf.data;
                    for (int64_t i = 0; i < tc.go.buf.numel; i++)
                        pgt_store((poolgrad_dtype)dt, tc.go.buf.data, i, pgt_value(&r, true));
                    cr_assert_eq(poolgrad_plan_create(&tc.pa, &tc.go.t, &tc.gi.t, &tc.plan), POOLGRAD_OK);
                    tc.ref_problem = tc.plan->problem;
                    tc.ref_problem.gi = (char *)tc.ref.buf.data + tc.gi.t.offset * (int64_t)tc.gi.buf.es;
                    snprintf(tc.desc, sizeof tc.desc, "size %lld k %lld s %lld layout %d dt %d", (long long)sizes[si],
                             (long long)ks[ki][0], (long long)ks[ki][1], layout, dt);
                    poolgrad_reference(&tc.ref_problem);
                    check_kernels(&r, &tc, per_kernel);
                    free_case(&tc);
                }
    report("checkasm vector_widths", per_kernel);
}

/* Special values: every element a special, f16 overflow sums, subnormal quotients, NaN payloads. */
Test(checkasm, special_values, .timeout = 300)
{
    pgt_rng r = { pgt_seed("checkasm special_values", 0xbadf00du) };
    static const float specials[] = { NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -1e-40f, 6e-8f, -3e-8f,
                                      2.9802322e-8f, 65504.0f, 65519.0f, 65520.0f, -65536.0f, 3.0e38f, -3.4e38f,
                                      1.0f, -1.5f, 6.1e-5f, 1.17e-38f };
    const int ns = (int)(sizeof specials / sizeof specials[0]);
    int per_kernel[NKERNELS] = { 0 };
    for (int c = 0; c < case_scale(400); c++) {
        tcase tc;
        poolgrad_dtype dt = (poolgrad_dtype)(c % 3);
        int layout = (c / 3) % 2 ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR;
        if (!make_case(&r, &tc, 2 + (c % 2), dt, layout, layout, false)) {
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
            cr_assert(pgt_untouched(&tc.ref.buf, i) || !pgt_noncanonical_nan(dt, tc.ref.buf.data, i),
                      "reference stored a non-canonical NaN at element %lld; case %s", (long long)i, tc.desc);
        check_kernels(&r, &tc, per_kernel);
        free_case(&tc);
    }
    report("checkasm special_values", per_kernel);
}

/* ------------------------------------------------------------------ public path: ISA caps, threads */

static const char *const caps[] = { "scalar", "sse2", "avx2", "avx512", "neon", "auto" };

Test(checkasm, isa_caps_and_threads, .timeout = 300)
{
    pgt_rng r = { pgt_seed("checkasm isa_caps_and_threads", 0xc0ffeeu) };
    const char *saved = getenv("POOLGRAD_ISA");
    char saved_buf[64] = "";
    if (saved)
        snprintf(saved_buf, sizeof saved_buf, "%s", saved);
    for (int c = 0; c < case_scale(150); c++) {
        tcase tc;
        poolgrad_dtype dt = (poolgrad_dtype)(c % 3);
        int gl = (int)(pgt_next(&r) % LAYOUT_COUNT);
        if (!make_case(&r, &tc, 2 + (c / 3) % 2, dt, gl, gl, false)) {
            c--;
            continue;
        }
        for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++) {
            setenv("POOLGRAD_ISA", caps[ci], 1);
            poolgrad_plan *plan;
            cr_assert_eq(poolgrad_plan_create(&tc.pa, &tc.go.t, &tc.gi.t, &plan), POOLGRAD_OK);
            const char *name = poolgrad_plan_kernel_name(plan);
            if (strcmp(caps[ci], "scalar") == 0 && tc.plan->kernel)
                cr_assert(strstr(name, "__scalar") != NULL, "cap scalar chose %s", name);
            size_t wsz = poolgrad_plan_workspace_size(plan);
            void *ws = wsz ? malloc(wsz) : NULL;
            for (int threads = 1; threads <= 2; threads++) {
                reset_output(&tc);
                cr_assert_eq(poolgrad_execute(plan, ws, wsz, threads), POOLGRAD_OK);
                char who[128];
                snprintf(who, sizeof who, "%s (cap %s, %d threads)", name, caps[ci], threads);
                expect_same(&tc, who);
            }
            free(ws);
            poolgrad_plan_destroy(plan);
        }
        free_case(&tc);
    }
    if (saved)
        setenv("POOLGRAD_ISA", saved_buf, 1);
    else
        unsetenv("POOLGRAD_ISA");
}

/* Large enough that several threads really split the rows (chunks of several rows each); under every
 * ISA cap the CPU can run, so the result never depends on which ISA is the host's best. */
Test(checkasm, threads_large, .timeout = 300)
{
    pgt_rng r = { pgt_seed("checkasm threads_large", 0x7447u) };
    const char *saved = getenv("POOLGRAD_ISA");
    char saved_buf[64] = "";
    if (saved)
        snprintf(saved_buf, sizeof saved_buf, "%s", saved);
    const int cpu_level = poolgrad_isa_level(cpu_isa());
    int compared = 0;
    for (int c = 0; c < 6; c++) {
        poolgrad_dtype dt = (poolgrad_dtype)(c % 3);
        int sd = 2 + (c / 3);
        poolgrad_params pa = pgt_params(sd, 3, c % 2 ? 1 : 2, 1, c % 2, c % 2 == 0, 0);
        int64_t shape2[4] = { 1, 3, 61, 67 }, shape3[5] = { 1, 2, 9, 23, 37 };
        const int64_t *shape = sd == 2 ? shape2 : shape3;
        int rank = sd + 2;
        int64_t oshape[5];
        cr_assert_eq(poolgrad_output_shape(&pa, rank, shape, oshape), POOLGRAD_OK);
        for (int layout = 0; layout < 2; layout++) {
            view gi, go;
            make_view(&r, &gi, dt, rank, sd, shape, layout ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR, false);
            make_view(&r, &go, dt, rank, sd, oshape, layout ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR, false);
            for (int64_t i = 0; i < go.buf.numel; i++)
                pgt_store(dt, go.buf.data, i, pgt_value(&r, true));
            /* the reference, in its own sentinel storage laid out like gradInput's */
            poolgrad_plan *ref_plan;
            setenv("POOLGRAD_ISA", "scalar", 1);
            cr_assert_eq(poolgrad_plan_create(&pa, &go.t, &gi.t, &ref_plan), POOLGRAD_OK);
            poolgrad_problem ref = ref_plan->problem;
            pgt_buffer rb = pgt_alloc(dt, gi.buf.numel);
            ref.gi = (char *)rb.data + gi.t.offset * (int64_t)gi.buf.es;
            poolgrad_reference(&ref);
            poolgrad_plan_destroy(ref_plan);
            for (size_t ci = 0; ci < sizeof caps / sizeof caps[0]; ci++) {
                const int level = poolgrad_isa_cap_level(caps[ci]);
                if (level > cpu_level && strcmp(caps[ci], "auto") != 0)
                    continue; /* the CPU cannot run it: the cap would only repeat a lower one */
                setenv("POOLGRAD_ISA", caps[ci], 1);
                poolgrad_plan *plan;
                cr_assert_eq(poolgrad_plan_create(&pa, &go.t, &gi.t, &plan), POOLGRAD_OK);
                size_t wsz = poolgrad_plan_workspace_size(plan);
                void *ws = wsz ? malloc(wsz) : NULL;
                static const int thread_counts[] = { 1, 2, 3, 7 };
                for (size_t ti = 0; ti < sizeof thread_counts / sizeof thread_counts[0]; ti++) {
                    for (size_t i = 0; i < ((size_t)gi.buf.numel + 2 * PGT_GUARD) * gi.buf.es; i++)
                        gi.buf.raw[i] = pgt_sentinel_byte(i);
                    cr_assert_eq(poolgrad_execute(plan, ws, wsz, thread_counts[ti]), POOLGRAD_OK);
                    int64_t e = pgt_first_difference(&gi.buf, &rb);
                    if (e != PGT_NO_DIFFERENCE) {
                        uint32_t va = 0, vb = 0;
                        memcpy(&va, gi.buf.raw + (size_t)(e + PGT_GUARD) * gi.buf.es, gi.buf.es);
                        memcpy(&vb, rb.raw + (size_t)(e + PGT_GUARD) * gi.buf.es, gi.buf.es);
                        cr_assert_fail("%s (cap %s, %d threads): storage element %lld is 0x%x, reference 0x%x",
                                       poolgrad_plan_kernel_name(plan), caps[ci], thread_counts[ti], (long long)e, va, vb);
                    }
                    compared++;
                }
                free(ws);
                poolgrad_plan_destroy(plan);
            }
            pgt_free(&rb);
            pgt_free(&gi.buf);
            pgt_free(&go.buf);
        }
    }
    cr_log_info("threads_large: %d runs byte-identical to the reference", compared);
    if (saved)
        setenv("POOLGRAD_ISA", saved_buf, 1);
    else
        unsetenv("POOLGRAD_ISA");
}

/* An empty gradOutput (out size 0) fills +0.0 and never reads gradOutput; the zero-fill plan too. */
Test(checkasm, empty_grad_output)
{
    pgt_rng r = { pgt_seed("checkasm empty_grad_output", 0xe0u) };
    int per_kernel[NKERNELS] = { 0 };
    for (int dt = 0; dt < 3; dt++)
        for (int layout = 0; layout < 2; layout++) {
            tcase tc;
            memset(&tc, 0, sizeof tc);
            /* W = 1 with k = 3, p = 1, stride 1, floor: O = 1; use H = 1, k 4 p 1 ... simpler: the zero-fill plan */
            int64_t shape[5] = { 2, 19, 3, 5, 17 };
            make_view(&r, &tc.gi, (poolgrad_dtype)dt, 5, 3, shape, layout ? LAYOUT_CHANNELS_LAST : LAYOUT_GAPPED, false);
            tc.ref = tc.gi;
            tc.ref.buf = pgt_alloc((poolgrad_dtype)dt, tc.gi.buf.numel);
            tc.ref.t.storage = tc.ref.buf.data;
            cr_assert_eq(poolgrad_plan_create_zero_fill(&tc.gi.t, &tc.plan), POOLGRAD_OK);
            tc.ref_problem = tc.plan->problem;
            tc.ref_problem.gi = (char *)tc.ref.buf.data + tc.gi.t.offset * (int64_t)tc.gi.buf.es;
            snprintf(tc.desc, sizeof tc.desc, "zero fill dt %d layout %d", dt, layout);
            poolgrad_reference(&tc.ref_problem);
            int ran = check_kernels(&r, &tc, per_kernel);
            cr_assert(ran >= 1);
            free_case(&tc);
        }
    report("checkasm empty_grad_output", per_kernel);
}

/*
 * Every f16 / bf16 bit pattern through every kernel: k = s = 1 (one term per element), divided by a few
 * divisors so that f32 -> f16/bf16 rounding (ties, subnormals, overflow, NaN quieting) is exercised on
 * quotients that are not representable, in both layouts.
 */
Test(checkasm, conversions_exhaustive, .timeout = 300)
{
    pgt_rng r = { pgt_seed("checkasm conversions_exhaustive", 0xc0de16u) };
    static const int64_t divisors[] = { 1, 3, -7, 10, 1000003, -65537 };
    int per_kernel[NKERNELS] = { 0 };
    for (int dt = 1; dt <= 2; dt++)
        for (size_t di = 0; di < sizeof divisors / sizeof divisors[0]; di++)
            for (int layout = 0; layout < 2; layout++) {
                tcase tc;
                memset(&tc, 0, sizeof tc);
                tc.pa = pgt_params(2, 1, 1, 0, false, true, divisors[di]);
                tc.rank = 4;
                int64_t shape[4] = { 1, layout ? 256 : 1, layout ? 1 : 256, 256 };
                make_view(&r, &tc.gi, (poolgrad_dtype)dt, 4, 2, shape, layout ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR, false);
                make_view(&r, &tc.go, (poolgrad_dtype)dt, 4, 2, shape, layout ? LAYOUT_CHANNELS_LAST : LAYOUT_ROWMAJOR, false);
                tc.ref = tc.gi;
                tc.ref.buf = pgt_alloc((poolgrad_dtype)dt, tc.gi.buf.numel);
                tc.ref.t.storage = tc.ref.buf.data;
                uint16_t *g = (uint16_t *)tc.go.t.storage + tc.go.t.offset;
                for (int64_t i = 0; i < 65536; i++) /* both layouts are dense here: element i = pattern i */
                    g[i] = (uint16_t)i;
                cr_assert_eq(poolgrad_plan_create(&tc.pa, &tc.go.t, &tc.gi.t, &tc.plan), POOLGRAD_OK);
                tc.ref_problem = tc.plan->problem;
                tc.ref_problem.gi = (char *)tc.ref.buf.data + tc.gi.t.offset * (int64_t)tc.gi.buf.es;
                snprintf(tc.desc, sizeof tc.desc, "all %s patterns / %lld, layout %d", dt == 1 ? "f16" : "bf16",
                         (long long)divisors[di], layout);
                poolgrad_reference(&tc.ref_problem);
                check_kernels(&r, &tc, per_kernel);
                free_case(&tc);
            }
    report("checkasm conversions_exhaustive", per_kernel);
}
