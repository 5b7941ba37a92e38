/*
 * Concurrency: many threads plan and execute at once through both APIs, each on
 * its own problems, and every result must equal the single-threaded computation bit for bit
 * (byte for byte: every stored NaN is canonical).
 * Expected results are computed on the main thread first (same library, same dispatch), then the
 * workers redo everything concurrently, also with OpenMP teams inside (num_threads 2 / 0).
 */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
#include <pthread.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_avgpool3d_backward.h"
#include "base_problem.h"

#define THREADS 12
#define PER_THREAD 32

typedef struct job {
    poolgrad_params pa;
    poolgrad_dtype dt;
    int rank;
    int64_t gi_shape[5], go_shape[5];
    int64_t gi_n, go_n;
    pgt_buffer go, expect;
} job;

static job jobs[THREADS][PER_THREAD];
static int failures[THREADS];

static int64_t prod(int rank, const int64_t *s)
{
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= s[d];
    return n;
}

static void make_job(pgt_rng *r, job *j)
{
    for (;;) {
        j->dt = (poolgrad_dtype)pgt_range(r, 0, 2);
        int sd = (int)pgt_range(r, 2, 3);
        j->rank = sd + 2;
        int64_t k = pgt_range(r, 1, 3), s = pgt_range(r, 1, 3), p = pgt_range(r, 0, k / 2);
        j->pa = pgt_params(sd, k, s, p, pgt_range(r, 0, 1), pgt_range(r, 0, 1), 0);
        for (int d = 0; d < j->rank; d++)
            j->gi_shape[d] = d < 2 ? pgt_range(r, 1, 4) : pgt_range(r, 1, sd == 2 ? 64 : 16);
        if (poolgrad_output_shape(&j->pa, j->rank, j->gi_shape, j->go_shape) != POOLGRAD_OK)
            continue;
        bool ok = true;
        for (int d = 0; d < j->rank; d++)
            ok = ok && j->go_shape[d] >= 0;
        if (ok)
            break;
    }
    j->gi_n = prod(j->rank, j->gi_shape);
    j->go_n = prod(j->rank, j->go_shape);
    j->go = pgt_alloc(j->dt, j->go_n);
    for (int64_t i = 0; i < j->go_n; i++)
        pgt_store(j->dt, j->go.data, i, pgt_value(r, true));
    j->expect = pgt_alloc(j->dt, j->gi_n);
    poolgrad_tensor go, gi;
    cr_assert_eq(poolgrad_tensor_init_contiguous(&go, j->dt, j->rank, j->go_shape, j->go.data), POOLGRAD_OK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&gi, j->dt, j->rank, j->gi_shape, j->expect.data), POOLGRAD_OK);
    cr_assert_eq(poolgrad_avgpool_backward(&j->pa, &go, &gi, 1), POOLGRAD_OK);
}

static int acl_dt(poolgrad_dtype dt) { return dt == POOLGRAD_F32 ? ACL_FLOAT : dt == POOLGRAD_F16 ? ACL_FLOAT16 : ACL_BF16; }

/* One job through the aclnn front into gi. */
static int run_aclnn(const job *j, void *gi_data)
{
    const int sd = j->pa.spatial_dims;
    const int fmt = sd == 2 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCDHW;
    aclTensor *go = aclCreateTensor(j->go_shape, (uint64_t)j->rank, (aclDataType)acl_dt(j->dt), NULL, 0, (aclFormat)fmt,
                                    &j->go_n, 1, j->go.data);
    aclTensor *gi = aclCreateTensor(j->gi_shape, (uint64_t)j->rank, (aclDataType)acl_dt(j->dt), NULL, 0, (aclFormat)fmt,
                                    &j->gi_n, 1, gi_data);
    aclIntArray *k = aclCreateIntArray(j->pa.kernel, (uint64_t)sd), *s = aclCreateIntArray(j->pa.stride, (uint64_t)sd),
                *p = aclCreateIntArray(j->pa.padding, (uint64_t)sd);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus r = sd == 2 ? aclnnAvgPool2dBackwardGetWorkspaceSize(go, gi, k, s, p, j->pa.ceil_mode,
                                                                     j->pa.count_include_pad, 0, 0, gi, &ws, &ex)
                            : aclnnAvgPool3dBackwardGetWorkspaceSize(go, gi, k, s, p, j->pa.ceil_mode,
                                                                     j->pa.count_include_pad, 0, gi, &ws, &ex);
    aclDestroyTensor(go);
    aclDestroyTensor(gi);
    aclDestroyIntArray(k);
    aclDestroyIntArray(s);
    aclDestroyIntArray(p);
    if (r != ACLNN_SUCCESS)
        return 1;
    void *w = ws ? malloc((size_t)ws) : NULL;
    r = sd == 2 ? aclnnAvgPool2dBackward(w, ws, ex, NULL) : aclnnAvgPool3dBackward(w, ws, ex, NULL);
    free(w);
    return r != ACLNN_SUCCESS;
}

static void *worker(void *arg)
{
    const int t = (int)(intptr_t)arg;
    for (int rep = 0; rep < 3; rep++)
        for (int i = 0; i < PER_THREAD; i++) {
            const job *j = &jobs[t][i];
            pgt_buffer out = pgt_alloc(j->dt, j->gi_n);
            int bad = 0;
            if ((i + rep + t) % 2 == 0) {
                poolgrad_tensor go, gi;
                poolgrad_tensor_init_contiguous(&go, j->dt, j->rank, j->go_shape, j->go.data);
                poolgrad_tensor_init_contiguous(&gi, j->dt, j->rank, j->gi_shape, out.data);
                poolgrad_plan *plan;
                if (poolgrad_plan_create(&j->pa, &go, &gi, &plan) != POOLGRAD_OK) {
                    bad = 1;
                } else {
                    size_t wsz = poolgrad_plan_workspace_size(plan);
                    void *w = wsz ? malloc(wsz) : NULL;
                    bad = poolgrad_execute(plan, w, wsz, (i % 3)) != POOLGRAD_OK; /* 0 = OpenMP default */
                    free(w);
                    poolgrad_plan_destroy(plan);
                }
            } else {
                bad = run_aclnn(j, out.data);
            }
            if (!bad && !pgt_same_results(j->dt, out.data, j->expect.data, j->gi_n))
                bad = 1;
            if (!pgt_guards_intact(&out))
                bad = 1;
            if (bad) {
                fprintf(stderr, "thread %d job %d (rep %d) differs from the single-threaded result\n", t, i, rep);
                failures[t]++;
            }
            pgt_free(&out);
        }
    return NULL;
}

Test(concurrency, many_threads_both_apis, .timeout = 280)
{
    pgt_rng r = { pgt_seed("concurrency", 0xC0C0) };
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < PER_THREAD; i++)
            make_job(&r, &jobs[t][i]);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t), 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    int total = 0;
    int64_t elems = 0;
    for (int t = 0; t < THREADS; t++) {
        total += failures[t];
        for (int i = 0; i < PER_THREAD; i++)
            elems += jobs[t][i].gi_n;
    }
    fprintf(stderr, "# concurrency: %d threads x %d jobs x 3 rounds, %lld gradInput elements per round\n", THREADS,
            PER_THREAD, (long long)elems);
    cr_assert_eq(total, 0, "%d concurrent results differ", total);
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < PER_THREAD; i++) {
            pgt_free(&jobs[t][i].go);
            pgt_free(&jobs[t][i].expect);
        }
}

/* One plan, many threads planning other problems meanwhile; the active ISA query is racing too. */
static void *isa_query(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10000; i++)
        if (poolgrad_active_isa() != poolgrad_active_isa())
            return (void *)1;
    return NULL;
}

Test(concurrency, isa_detection_race)
{
    pthread_t th[8];
    for (int t = 0; t < 8; t++)
        cr_assert_eq(pthread_create(&th[t], NULL, isa_query, NULL), 0);
    for (int t = 0; t < 8; t++) {
        void *ret;
        pthread_join(th[t], &ret);
        cr_assert_null(ret);
    }
}

/*
 * Per-thread scratch (the channels-last k3s1 kind's ring of divided window rows): the plan's workspace holds
 * a slot per thread an execution starts by default when it is planned; an execution with more threads runs
 * the extra ones without a slot. Any thread count, either plan: the reference's bytes, nothing written past
 * the workspace.
 */
Test(concurrency, scratch_slots)
{
    pgt_rng r = { pgt_seed("scratch_slots", 0x5107) };
    const int64_t shape[4] = { 3, 40, 9, 9 }; /* k3s1p1: gradOutput has the same shape */
    const int64_t n = 3 * 40 * 9 * 9;
    const poolgrad_params pa = pgt_params(2, 3, 1, 1, false, true, 0);
    pgt_buffer go = pgt_alloc(POOLGRAD_F32, n), expect = pgt_alloc(POOLGRAD_F32, n);
    for (int64_t i = 0; i < n; i++)
        pgt_store(POOLGRAD_F32, go.data, i, pgt_value(&r, true));
    poolgrad_tensor tgo, tgi;
    cr_assert_eq(poolgrad_tensor_init_channels_last(&tgo, POOLGRAD_F32, 4, 2, shape, go.data), POOLGRAD_OK);
    cr_assert_eq(poolgrad_tensor_init_channels_last(&tgi, POOLGRAD_F32, 4, 2, shape, expect.data), POOLGRAD_OK);
    const char *cap = getenv("POOLGRAD_ISA");
    char *saved = cap ? strdup(cap) : NULL;
    setenv("POOLGRAD_ISA", "scalar", 1);
    cr_assert_eq(poolgrad_avgpool_backward(&pa, &tgo, &tgi, 1), POOLGRAD_OK);
    if (saved)
        setenv("POOLGRAD_ISA", saved, 1);
    else
        unsetenv("POOLGRAD_ISA");
    free(saved);
#ifdef _OPENMP
    const int default_threads = omp_get_max_threads();
#endif
    size_t planned_ws[3] = { 0 };
    for (int planned = 1; planned <= 2; planned++) {
#ifdef _OPENMP
        omp_set_num_threads(planned);
#endif
        pgt_buffer out = pgt_alloc(POOLGRAD_F32, n);
        tgi.storage = out.data;
        poolgrad_plan *plan;
        cr_assert_eq(poolgrad_plan_create(&pa, &tgo, &tgi, &plan), POOLGRAD_OK);
        const char *kname = poolgrad_plan_kernel_name(plan);
        if (!strstr(kname, "nhwc_s1")) {
            poolgrad_plan_destroy(plan);
            cr_skip_test("kernel %s has no scratch (ISA capped below SIMD?)", kname);
        }
        const size_t wsz = planned_ws[planned] = poolgrad_plan_workspace_size(plan);
        cr_assert_gt(wsz, 0, "%s planned no workspace", kname);
        for (int threads = 1; threads <= 3; threads++) {
            unsigned char *ws = malloc(wsz + 64);
            memset(ws, 0xA5, wsz + 64); /* stale bytes in the slots, a guard after them */
            memset(out.data, 0xA5, (size_t)n * 4);
            cr_assert_eq(poolgrad_execute(plan, ws, wsz, threads), POOLGRAD_OK);
            cr_assert(pgt_same_results(POOLGRAD_F32, out.data, expect.data, n),
                      "%s planned for %d thread(s), run on %d: differs from the reference", kname, planned, threads);
            for (int i = 0; i < 64; i++)
                cr_assert_eq(ws[wsz + i], 0xA5, "%s wrote past its %zu-byte workspace", kname, wsz);
            free(ws);
        }
        poolgrad_plan_destroy(plan);
        pgt_free(&out);
    }
#ifdef _OPENMP
    omp_set_num_threads(default_threads);
    /* two slots where one was planned; the alignment slack (63 bytes) counted once */
    cr_assert_eq(planned_ws[2] - 63, 2 * (planned_ws[1] - 63), "workspace %zu for 1 thread, %zu for 2", planned_ws[1],
                 planned_ws[2]);
#endif
    pgt_free(&go);
    pgt_free(&expect);
}
