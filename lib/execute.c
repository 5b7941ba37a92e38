/* Execution: the plan's kernel over its work items, split into chunks across OpenMP threads. */
#include <stdint.h>
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"

/* [begin, end) split in nt contiguous parts, the first n % nt one longer: part t (no n * t product that
 * could overflow) */
static void split_part(int64_t begin, int64_t end, int t, int nt, int64_t *b, int64_t *e)
{
    const int64_t n = end - begin, q = n / nt, r = n % nt;
    *b = begin + t * q + (t < r ? t : r);
    *e = *b + q + (t < r);
}

/* slot_stride > 0: ws holds `slots` per-thread slots that far apart, thread t runs with slot t (NULL past them) */
static void run_parallel(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, size_t slot_stride,
                         int slots, int64_t items, int threads,
                         void (*fn)(const poolgrad_problem *, const poolgrad_kernel_conf *, void *, int64_t, int64_t))
{
    if (items <= 0)
        return;
    /* contiguous chunks, a few per thread; which thread runs a chunk never changes the bits */
    if ((int64_t)threads > items)
        threads = (int)items;
    int64_t chunks = (int64_t)threads * 4;
    if (chunks > items)
        chunks = items;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && chunks > 1)
#endif
    for (int64_t i = 0; i < chunks; i++) {
        void *w = ws;
        if (slot_stride > 0) {
            int t = 0;
#ifdef _OPENMP
            t = omp_get_thread_num();
#endif
            w = t < slots ? (char *)ws + (size_t)t * slot_stride : NULL;
        }
        int64_t b, e;
        split_part(0, items, (int)i, (int)chunks, &b, &e);
        fn(pr, conf, w, b, e);
    }
}

/* The prepare items read on both sides of the cut before run item cut (0 < cut < work_items): [*a, *b) */
static void pipe_cut(const poolgrad_kernel *k, const poolgrad_problem *pr, const poolgrad_kernel_conf *conf,
                     int64_t cut, int64_t *a, int64_t *b)
{
    int64_t need = k->prepare_needed(pr, cut - 1), first = k->prepare_first(pr, cut);
    if (need > conf->prepare_items)
        need = conf->prepare_items;
    *b = need;
    *a = first < need ? first : need;
}

bool poolgrad_pipe_part_of(const poolgrad_kernel *k, const poolgrad_problem *pr, const poolgrad_kernel_conf *conf,
                           int t, int nt, poolgrad_pipe_part *part)
{
    int64_t rb, re, a0 = 0, b0 = 0, a1 = conf->prepare_items, b1 = conf->prepare_items;
    split_part(0, conf->work_items, t, nt, &rb, &re);
    if (rb >= re)
        return false;
    if (t > 0)
        pipe_cut(k, pr, conf, rb, &a0, &b0);
    if (t + 1 < nt)
        pipe_cut(k, pr, conf, re, &a1, &b1);
    *part = (poolgrad_pipe_part){ .rows_begin = rb, .rows_end = re, .halo_begin = a0, .halo_end = b0,
                                  .own_begin = b0, .own_end = a1 };
    return b0 <= a1;
}

/* One part's steps of conf->pipeline_items run items: each prepares the part's own items its rows read that no
 * earlier step prepared, then runs them (the halos are already prepared) */
static void run_part_steps(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws,
                           const poolgrad_kernel *k, const poolgrad_pipe_part *part)
{
    const int64_t items = conf->work_items, step = conf->pipeline_items;
    int64_t done = part->own_begin;
    for (int64_t r0 = part->rows_begin; r0 < part->rows_end; r0 += step) {
        const int64_t r1 = part->rows_end - r0 > step ? r0 + step : part->rows_end;
        int64_t need = r1 == items ? conf->prepare_items : k->prepare_needed(pr, r1 - 1);
        if (need > part->own_end)
            need = part->own_end;
        if (need > done) {
            k->prepare(pr, conf, ws, done, need);
            done = need;
        }
        k->run(pr, conf, ws, r0, r1);
    }
}

/* The prepare and run passes alternated in steps (poolgrad_pipe_part_of): each thread pipelines its own rows and
 * the items only they read, so the threads meet once, after the halos, instead of at every step. The bits never
 * depend on the steps or the parts. Returns false, having done nothing, when the rows are too few to part. */
static bool run_pipelined(const poolgrad_problem *pr, const poolgrad_kernel_conf *conf, void *ws, int threads,
                          const poolgrad_kernel *k)
{
    const int nt = (int64_t)threads < conf->work_items ? threads : (int)conf->work_items;
    poolgrad_pipe_part part;
    for (int t = 0; t < nt; t++)
        if (!poolgrad_pipe_part_of(k, pr, conf, t, nt, &part))
            return false;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1) private(part)
#endif
    {
        int t = 0, nth = 1; /* OpenMP may start fewer threads than nt: a thread then runs several parts */
#ifdef _OPENMP
        t = omp_get_thread_num();
        nth = omp_get_num_threads();
#endif
        for (int h = 1; h < nt; h++) {
            int64_t b, e;
            poolgrad_pipe_part_of(k, pr, conf, h, nt, &part);
            split_part(part.halo_begin, part.halo_end, t, nth, &b, &e);
            if (e > b)
                k->prepare(pr, conf, ws, b, e);
        }
#ifdef _OPENMP
#pragma omp barrier
#endif
        for (int p = t; p < nt; p += nth) {
            poolgrad_pipe_part_of(k, pr, conf, p, nt, &part);
            run_part_steps(pr, conf, ws, k, &part);
        }
    }
    return true;
}

poolgrad_status poolgrad_execute(const poolgrad_plan *plan, void *workspace, size_t workspace_size, int num_threads)
{
    if (!plan)
        return poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "plan is NULL");
    if (num_threads < 0)
        return poolgrad_fail(POOLGRAD_ERR_THREADS, "num_threads = %d is negative (0 = the OpenMP default)", num_threads);
    if (plan->workspace_size > 0 && !workspace)
        return poolgrad_fail(POOLGRAD_ERR_WORKSPACE, "workspace is NULL but the plan needs %zu bytes", plan->workspace_size);
    if (plan->workspace_size > 0 && workspace_size < plan->workspace_size)
        return poolgrad_fail(POOLGRAD_ERR_WORKSPACE, "workspace_size = %zu is smaller than the planned %zu bytes",
                             workspace_size, plan->workspace_size);
    if (!plan->kernel)
        return POOLGRAD_OK;
    int threads = 1;
#ifdef _OPENMP
    threads = num_threads > 0 ? num_threads : omp_get_max_threads();
    if (threads > POOLGRAD_THREAD_CAP)
        threads = POOLGRAD_THREAD_CAP;
    if (threads < 1)
        threads = 1;
#endif
    const poolgrad_kernel *k = plan->kernel;
    const poolgrad_problem *pr = &plan->problem;
    /* kernels get an aligned workspace whatever the caller's address (planned with the slack) */
    void *ws = workspace ? (void *)(((uintptr_t)workspace + POOLGRAD_WORKSPACE_ALIGN - 1) &
                                    ~(uintptr_t)(POOLGRAD_WORKSPACE_ALIGN - 1)) : NULL;
    const poolgrad_kernel_conf *conf = &plan->conf;
    if (k->prepare && k->prepare_needed && k->prepare_first && conf->pipeline_items > 0 && conf->prepare_items > 0 &&
        run_pipelined(pr, conf, ws, threads, k))
        return POOLGRAD_OK;
    if (k->prepare)
        run_parallel(pr, conf, ws, 0, 0, conf->prepare_items, threads, k->prepare);
    run_parallel(pr, conf, ws, plan->scratch_stride, plan->scratch_slots, conf->work_items, threads, k->run);
    return POOLGRAD_OK;
}

poolgrad_status poolgrad_avgpool_backward(const poolgrad_params *params, const poolgrad_tensor *grad_output,
                                          const poolgrad_tensor *grad_input, int num_threads)
{
    if (num_threads < 0)
        return poolgrad_fail(POOLGRAD_ERR_THREADS, "num_threads = %d is negative (0 = the OpenMP default)", num_threads);
    poolgrad_plan *plan;
    poolgrad_status st = poolgrad_plan_create(params, grad_output, grad_input, &plan);
    if (st != POOLGRAD_OK)
        return st;
    void *ws = NULL;
    size_t wsz = poolgrad_plan_workspace_size(plan);
    if (wsz > 0 && !(ws = malloc(wsz))) {
        poolgrad_plan_destroy(plan);
        return poolgrad_fail(POOLGRAD_ERR_OUT_OF_MEMORY, "cannot allocate the %zu-byte workspace", wsz);
    }
    st = poolgrad_execute(plan, ws, wsz, num_threads);
    free(ws);
    poolgrad_plan_destroy(plan);
    return st;
}
