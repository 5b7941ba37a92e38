/*
 * run.c — one row of the benchmark: the group's buffers, a plan under the row's ISA cap, warm-up, timed
 * repetitions of poolgrad, the peer (oneDNN) and the memcpy alternating in one process, the bit-exact
 * check against the scalar reference, and the reference's own timing.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "peer.h"

row *rows;
int n_rows;
static int cap_rows;

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
    r->t_pg_solo = NAN;
    r->t_torch = r->x_torch = NAN;
    r->x_threads = r->x_f32 = NAN;
    return r;
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

void isa_env_save(void)
{
    const char *env_isa = getenv("POOLGRAD_ISA");
    saved_isa_env = env_isa ? strdup(env_isa) : NULL;
}

void isa_env_free(void) { free(saved_isa_env); }

/* poolgrad_active_isa() under cap `isa` */
const char *granted_isa(const char *isa)
{
    set_isa(isa);
    const char *name = poolgrad_isa_name(poolgrad_active_isa());
    set_isa(NULL);
    return name;
}

void kernel_isa(const char *kernel, char *out, size_t out_size)
{
    const char *p = strstr(kernel, "__");
    if (!p) {
        snprintf(out, out_size, "?");
        return;
    }
    p += 2;
    snprintf(out, out_size, "%.*s", (int)strcspn(p, "_"), p);
}

static bool is_auto(const char *isa) { return !isa || !*isa || !strcmp(isa, "auto"); }

bool isa_label(const char *requested, const char *kernel, const char *granted, char *label, size_t label_size,
               char *why, size_t why_size)
{
    kernel_isa(kernel, label, label_size);
    why[0] = 0;
    if (is_auto(requested) || !strcmp(requested, label))
        return false;
    if (strcmp(requested, granted))
        snprintf(why, why_size, "--isa %s: this CPU has no %s, poolgrad runs %s kernels (rows say %s)", requested,
                 requested, granted, label);
    else /* the cap was granted, but the plan chose a kernel below it (e.g. an ISA not built, or no kernel) */
        snprintf(why, why_size, "--isa %s: the plan chose %s, a kernel below the cap; rows say %s", requested,
                 kernel, label);
    return true;
}

bool selftest_isa_label(void)
{
    static const struct {
        const char *req, *kernel, *granted, *label;
        bool warn;
    } t[] = {
        { "avx512", "avgpool2d_bwd_f32__avx2_nchw_b", "avx2", "avx2", true },  /* AVX2-only CPU */
        { "avx512", "avgpool3d_bwd_bf16__avx512_nhwc_q", "avx512", "avx512", false },
        { "auto", "avgpool2d_bwd_f32__avx512_global", "avx512", "avx512", false },
        { "avx2", "avgpool2d_bwd_f16__scalar", "avx2", "scalar", true }, /* below the cap granted */
        { "scalar", "avgpool2d_bwd_f32__scalar", "scalar", "scalar", false },
        { "neon", "avgpool2d_bwd_f32__avx512_nchw", "avx512", "avx512", true }, /* a cap of another architecture */
        { "avx2", "no_isa_here", "avx2", "?", true },
    };
    bool ok = true;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char label[16], why[160];
        bool w = isa_label(t[i].req, t[i].kernel, t[i].granted, label, sizeof label, why, sizeof why);
        if (w != t[i].warn || strcmp(label, t[i].label)) {
            printf("selftest isa_label(%s, %s, %s): got %s%s, want %s%s\n", t[i].req, t[i].kernel, t[i].granted,
                   label, w ? " + warning" : "", t[i].label, t[i].warn ? " + warning" : "");
            ok = false;
        }
    }
    return ok;
}

/* ------------------------------------------------------------------ one case/dtype/layout group */

static poolgrad_status make_views(group *g)
{
    const bench_case *bc = g->bc;
    poolgrad_status st;
#define VIEW(t, buf)                                                                                          \
    (g->cl ? poolgrad_tensor_init_channels_last(&(t), g->dt, g->rank, bc->sd, g->gi_shape, (buf))          \
           : poolgrad_tensor_init_contiguous(&(t), g->dt, g->rank, g->gi_shape, (buf)))
    /* the views of the buffers that exist (a pair group has gradOutput and poolgrad's gradInput only) */
    if ((g->gi_ref && (st = VIEW(g->t_gi_ref, g->gi_ref)) != POOLGRAD_OK) ||
        (st = VIEW(g->t_gi_pg, g->gi_pg)) != POOLGRAD_OK ||
        (g->gi_dnnl && (st = VIEW(g->t_gi_dnnl, g->gi_dnnl)) != POOLGRAD_OK))
        return st;
#undef VIEW
    st = g->cl ? poolgrad_tensor_init_channels_last(&g->t_go, g->dt, g->rank, bc->sd, g->go_shape, g->go)
               : poolgrad_tensor_init_contiguous(&g->t_go, g->dt, g->rank, g->go_shape, g->go);
    return st;
}

bool group_init(group *g, const bench_case *bc, poolgrad_dtype dt, bool cl, bool pair_only)
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
        p->kernel[a] = bc->k[a];
        p->stride[a] = bc->s[a];
        p->padding[a] = bc->p[a];
    }
    p->ceil_mode = bc->ceil;
    p->count_include_pad = bc->cip;
    p->divisor_override = bc->divisor;
    poolgrad_status st = poolgrad_output_shape(p, g->rank, g->gi_shape, g->go_shape);
    if (st != POOLGRAD_OK) {
        fprintf(stderr, "poolgrad_bench: %s: output shape: %s: %s\n", bc->name, poolgrad_status_string(st), poolgrad_last_error_message());
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
    g->gi_pg = xalloc(g->gi_bytes);
    if (!pair_only) {
        g->gi_ref = xalloc(g->gi_bytes);
        g->gi_dnnl = xalloc(g->gi_bytes);
        g->mc_dst = xalloc(g->gi_bytes);
    }
    fill_random(g->go, dt, g->go_numel);
    if ((st = make_views(g)) != POOLGRAD_OK) {
        fprintf(stderr, "poolgrad_bench: %s: views: %s: %s\n", bc->name, poolgrad_status_string(st), poolgrad_last_error_message());
        return false;
    }
    return true;
}

void group_free(group *g)
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
        fprintf(stderr, "\npoolgrad_bench: %s: plan: %s: %s\n", g->bc->name, poolgrad_status_string(st), poolgrad_last_error_message());
        return NULL;
    }
    return plan;
}

void fill_sentinel(void *buf, size_t bytes) { memset(buf, 0xFF, bytes); /* NaN in every dtype */ }

/* Run the reference plan into `gi` with `threads`, `reps` times; returns the median time. */
double run_reference(group *g, const poolgrad_tensor *gi, int threads, int reps, int *reps_done,
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
    /* poolgrad_compare counts any NaN equal to any NaN; the check is on the bits: both buffers are dense
     * views of the same shape and layout, so one memcmp covers every element */
    if (cr.mismatches == 0 && memcmp(gi->storage, g->t_gi_ref.storage, g->gi_bytes) != 0) {
        snprintf(msg, msgsz, "FAIL(bits differ: NaN payload)");
        return false;
    }
    if (cr.mismatches == 0) {
        snprintf(msg, msgsz, "verified");
        return true;
    }
    snprintf(msg, msgsz, "FAIL(%lld diff, first %lld, %llu ulp)", (long long)cr.mismatches,
             (long long)cr.first_mismatch, (unsigned long long)cr.max_ulp);
    return false;
}

static bool ceil_overhang(const group *g)
{
    const bench_case *bc = g->bc;
    if (!bc->ceil)
        return false;
    for (int a = 0; a < bc->sd; a++) {
        int64_t I = g->gi_shape[2 + a], O = g->go_shape[2 + a];
        if ((O - 1) * bc->s[a] + bc->k[a] > I + bc->p[a])
            return true;
    }
    return false;
}

/* seconds of one poolgrad_execute */
static double time_execute(const poolgrad_plan *plan, void *ws, size_t wsz, int threads)
{
    const double t0 = now_s();
    poolgrad_execute(plan, ws, wsz, threads);
    return now_s() - t0;
}

void run_row(group *g, const run_cfg *rc, const options *o)
{
    const bench_case *bc = g->bc;
    row *r = new_row();
    snprintf(r->case_name, sizeof r->case_name, "%s", bc->name);
    snprintf(r->op, sizeof r->op, "avgpool%dd", bc->sd);
    snprintf(r->dtype, sizeof r->dtype, "%s", dtype_name(g->dt));
    snprintf(r->layout, sizeof r->layout, "%s", g->cl ? (bc->sd == 2 ? "nhwc" : "ndhwc") : (bc->sd == 2 ? "nchw" : "ncdhw"));
    snprintf(r->isa, sizeof r->isa, "%s", rc->isa);
    snprintf(r->isa_req, sizeof r->isa_req, "%s", rc->isa);
    r->threads = rc->threads;
    r->gi_numel = g->gi_numel;
    r->go_numel = g->go_numel;
    r->bytes = (double)(g->gi_bytes + g->go_bytes);
    r->sweep = rc->sweep;
    r->overlap = false;
    for (int a = 0; a < bc->sd; a++)
        r->overlap |= bc->k[a] > bc->s[a];
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
    {
        /* label the row with what ran; warn once per cap the CPU or the build cannot honour */
        static char warned[MAX_LIST][12];
        static int n_warned;
        char why[160];
        if (isa_label(rc->isa, r->kernel, granted_isa(rc->isa), r->isa, sizeof r->isa, why, sizeof why)) {
            bool seen = false;
            for (int i = 0; i < n_warned; i++)
                seen |= !strcmp(warned[i], rc->isa);
            if (!seen && n_warned < MAX_LIST) {
                snprintf(warned[n_warned++], sizeof warned[0], "%s", rc->isa);
                progress_end();
                fprintf(stderr, "poolgrad_bench: warning: %s\n", why);
            }
        }
    }
    size_t wsz = poolgrad_plan_workspace_size(plan);
    void *ws = wsz ? xalloc(wsz) : NULL;

    peer_run *dr = NULL;
    if (rc->use_dnnl) {
        r->has_dnnl = true;
        peer_problem pp = { bc->sd, g->dt, g->cl, g->gi_shape, g->go_shape, bc->k, bc->s, bc->p, bc->cip,
                            bc->divisor, ceil_overhang(g), g->go, g->gi_dnnl, rc->threads };
        dr = peer_setup(&pp, r->dnnl_impl, sizeof r->dnnl_impl, r->dnnl_note, sizeof r->dnnl_note);
    }
    const bool dnnl_on = dr != NULL;

    /* warm-up: poolgrad (into a sentinel-filled buffer), oneDNN, memcpy */
    fill_sentinel(g->gi_pg, g->gi_bytes);
    progress("%s %s %s t%d %s: warm-up", bc->name, r->dtype, r->layout, rc->threads, rc->isa);
    double t0 = now_s();
    poolgrad_execute(plan, ws, wsz, rc->threads);
    double est = now_s() - t0;
    if (dnnl_on) {
        t0 = now_s();
        peer_exec(dr);
        est += now_s() - t0;
    }
    /* Each rep also runs a pair plan back to back with the timed run, and the ratio is the median of those
     * pairs' ratios, which a slow spell of the machine skews far less than two rows timed minutes apart:
     * with several threads, the same plan on one thread (the scaling); for a 16-bit memory-bound row on one
     * thread, the same problem and layout in f32 (the 16-bit target's ratio). */
    const bool pair_one = rc->threads > 1 && !rc->sweep;
    bool pair_f32 = g->dt != POOLGRAD_F32 && rc->threads == 1 && !rc->sweep && (!r->overlap || r->global);
    group g32;
    poolgrad_plan *plan32 = NULL;
    void *ws32 = NULL;
    size_t wsz32 = 0;
    if (pair_f32 && (!group_init(&g32, bc, POOLGRAD_F32, g->cl, true) || !(plan32 = make_plan(&g32, &g32.t_gi_pg, rc->isa)))) {
        fprintf(stderr, "\npoolgrad_bench: warning: %s: no f32 plan to pair with; the 16-bit ratio falls back to the "
                "rows' medians\n", bc->name);
        group_free(&g32);
        pair_f32 = false;
    }
    if (pair_f32) {
        wsz32 = poolgrad_plan_workspace_size(plan32);
        ws32 = wsz32 ? xalloc(wsz32) : NULL;
    }
    const poolgrad_plan *pair_plan = pair_one ? plan : plan32;
    void *pair_ws = pair_one ? ws : ws32;
    const size_t pair_wsz = pair_one ? wsz : wsz32;
    const bool paired = pair_one || pair_f32;
    if (paired)
        est += time_execute(pair_plan, pair_ws, pair_wsz, 1);
    t0 = now_s();
    par_memcpy(g->mc_dst, g->gi_ref, g->gi_bytes, rc->threads);
    est += now_s() - t0;
    /* the memcpy limit: copies per measurement (memcpy_limit_inner) from a first (untimed) measurement
     * at this thread count */
    const int mc_inner = memcpy_limit_inner(memcpy_limit_time(g->mc_dst, g->gi_ref, g->gi_bytes, rc->threads, 1));
    r->memcpy_inner = mc_inner;
    if (est < 0.02) { /* small problems: a few more warm-up rounds */
        for (int i = 0; i < 3; i++) {
            poolgrad_execute(plan, ws, wsz, rc->threads);
            if (dnnl_on)
                peer_exec(dr);
            par_memcpy(g->mc_dst, g->gi_ref, g->gi_bytes, rc->threads);
        }
    }

    const int reps = o->reps ? o->reps : adaptive_reps(est, o->budget);
    r->reps = reps;
    double *tp = calloc((size_t)reps, sizeof *tp), *td = calloc((size_t)reps, sizeof *td),
           *tm = calloc((size_t)reps, sizeof *tm), *t1 = calloc((size_t)reps, sizeof *t1);
    if (!tp || !td || !tm || !t1)
        die("out of memory");
    progress("%s %s %s t%d %s: timing %d reps", bc->name, r->dtype, r->layout, rc->threads, rc->isa, reps);
    for (int i = 0; i < reps; i++) {
        /* the order alternates (even reps: poolgrad, oneDNN, the pair run; odd reps: the pair run, oneDNN,
         * poolgrad) so that none of them always finds gradOutput warm in the cache from another */
        const bool even = i % 2 == 0;
        if (paired && !even)
            t1[i] = time_execute(pair_plan, pair_ws, pair_wsz, 1);
        for (int k = 0; k < 2; k++) {
            if ((k == 0) == even)
                tp[i] = time_execute(plan, ws, wsz, rc->threads);
            else if (dnnl_on) {
                t0 = now_s();
                peer_exec(dr);
                td[i] = now_s() - t0;
            }
        }
        if (paired && even)
            t1[i] = time_execute(pair_plan, pair_ws, pair_wsz, 1);
        tm[i] = memcpy_limit_time(g->mc_dst, g->gi_ref, g->gi_bytes, rc->threads, mc_inner);
    }
    if (pair_one) {
        for (int i = 0; i < reps; i++)
            t1[i] /= tp[i];
        r->x_threads = median(t1, reps);
    }
    if (pair_f32) {
        for (int i = 0; i < reps; i++)
            t1[i] = tp[i] / t1[i];
        r->x_f32 = median(t1, reps);
        poolgrad_plan_destroy(plan32);
        free(ws32);
        group_free(&g32);
    }
    if (dnnl_on) { /* the ratio of each back-to-back pair, before the medians sort the times */
        double *rr = calloc((size_t)reps, sizeof *rr);
        if (!rr)
            die("out of memory");
        for (int i = 0; i < reps; i++)
            rr[i] = td[i] / tp[i];
        r->x_dnnl = median(rr, reps);
        free(rr);
    }
    if (report_torch && rc->threads == 1) { /* PyTorch is timed alone (one thread), call after call: poolgrad
                                               * the same way, for x_torch */
        double *ts = calloc((size_t)reps, sizeof *ts);
        if (!ts)
            die("out of memory");
        for (int i = 0; i < reps; i++) {
            t0 = now_s();
            poolgrad_execute(plan, ws, wsz, rc->threads);
            ts[i] = now_s() - t0;
        }
        r->t_pg_solo = median(ts, reps);
        free(ts);
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
    free(t1);
    r->gbs = r->bytes / r->t_pg * 1e-9;
    r->memcpy_gbs = 2.0 * (double)g->gi_bytes / r->t_memcpy * 1e-9;
    r->frac_memcpy = r->gbs / r->memcpy_gbs;
    r->ns_per_elem = r->t_pg / (double)g->gi_numel * 1e9;
    roof_row(r, g);

    /* verification of the last timed run */
    if (!g->ref_ok) {
        r->verified = false;
        snprintf(r->check, sizeof r->check, "FAIL(no reference)");
    } else {
        r->verified = verify(g, &g->t_gi_pg, r->check, sizeof r->check, NULL);
    }
    if (dnnl_on) {
        char msg[64];
        verify(g, &g->t_gi_dnnl, msg, sizeof msg, &r->dnnl_maxabs);
        /* the peer is not bit-exact, but a large difference means a setup error here, unless explained */
        double tol = g->dt == POOLGRAD_F32 ? 1e-4 : 2e-2;
        if (!r->dnnl_note[0] && !(r->dnnl_maxabs <= tol))
            snprintf(r->dnnl_note, sizeof r->dnnl_note, "%s result differs: max abs err %.3g", peer_name(),
                     r->dnnl_maxabs);
    }
    if (rc->use_dnnl)
        peer_destroy(dr);
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
