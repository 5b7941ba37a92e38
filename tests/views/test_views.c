/*
 * Strided views computed exactly: negative strides, permuted dims, gaps and
 * channels-last, on gradInput and gradOutput, under every ISA cap. Each result is compared bit for
 * bit against the same problem on dense tensors under the scalar reference, and every storage
 * element outside gradInput's view must keep its sentinel.
 */
#include "base_problem.h"

typedef struct view_spec {
    int perm[POOLGRAD_MAX_RANK]; /* memory order, innermost first */
    unsigned flip;               /* dims with a negative stride */
    int64_t gap;                 /* multiply each stride by this (holes between elements) */
    int64_t lead;                /* extra elements before the view */
} view_spec;

static void random_spec(pgt_rng *r, int rank, view_spec *v)
{
    for (int i = 0; i < rank; i++)
        v->perm[i] = rank - 1 - i;
    for (int i = rank - 1; i > 0; i--) { /* shuffle */
        int j = (int)pgt_range(r, 0, i);
        int t = v->perm[i];
        v->perm[i] = v->perm[j];
        v->perm[j] = t;
    }
    v->flip = (unsigned)pgt_range(r, 0, (1 << rank) - 1);
    v->gap = pgt_range(r, 1, 2);
    v->lead = pgt_range(r, 0, 3);
}

/* Describe the view; returns the storage element count it needs. */
static int64_t make_view(poolgrad_tensor *t, poolgrad_dtype dt, int rank, const int64_t *shape, const view_spec *v)
{
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->rank = rank;
    int64_t st = 1;
    for (int i = 0; i < rank; i++) {
        int d = v->perm[i];
        t->shape[d] = shape[d];
        t->strides[d] = st * v->gap;
        st = st * v->gap * (shape[d] > 0 ? shape[d] : 1);
    }
    t->offset = v->lead;
    for (int d = 0; d < rank; d++)
        if (v->flip >> d & 1) {
            t->offset += (shape[d] - 1) * t->strides[d];
            t->strides[d] = -t->strides[d];
        }
    t->storage_numel = v->lead + st + 2;
    return t->storage_numel;
}

static int64_t numel_of(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    return n;
}

/* Storage offset of logical (row-major) element i. */
static int64_t elem_offset(const poolgrad_tensor *t, int64_t i)
{
    int64_t o = t->offset;
    for (int d = t->rank - 1; d >= 0; d--) {
        o += (i % t->shape[d]) * t->strides[d];
        i /= t->shape[d];
    }
    return o;
}

static void run_case(pgt_rng *r, const char *isa, int *checked)
{
    const poolgrad_dtype dt = (poolgrad_dtype)pgt_range(r, 0, 2);
    const int sd = (int)pgt_range(r, 2, 3);
    const int rank = sd + (int)pgt_range(r, 1, 2);
    int64_t k = pgt_range(r, 1, 3), s = pgt_range(r, 1, 3), p = pgt_range(r, 0, k / 2);
    poolgrad_params pa = pgt_params(sd, k, s, p, pgt_range(r, 0, 1), pgt_range(r, 0, 1),
                                    pgt_range(r, 0, 5) == 0 ? pgt_range(r, -3, 5) : 0);
    int64_t gi_shape[5], go_shape[5];
    for (int d = 0; d < rank; d++)
        gi_shape[d] = d < rank - sd ? pgt_range(r, 1, 3) : pgt_range(r, 1, 7);
    if (poolgrad_output_shape(&pa, rank, gi_shape, go_shape) != POOLGRAD_OK)
        return;
    for (int d = 0; d < rank; d++)
        if (go_shape[d] < 0)
            return;
    const int64_t gi_n = numel_of(rank, gi_shape), go_n = numel_of(rank, go_shape);

    /* expected: dense tensors, scalar reference */
    pgt_buffer ego = pgt_alloc(dt, go_n), egi = pgt_alloc(dt, gi_n);
    for (int64_t i = 0; i < go_n; i++)
        pgt_store(dt, ego.data, i, pgt_value(r, true));
    poolgrad_tensor dgo, dgi;
    cr_assert_eq(poolgrad_tensor_init_contiguous(&dgo, dt, rank, go_shape, ego.data), POOLGRAD_OK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&dgi, dt, rank, gi_shape, egi.data), POOLGRAD_OK);
    setenv("POOLGRAD_ISA", "scalar", 1);
    cr_assert_eq(poolgrad_avgpool_backward(&pa, &dgo, &dgi, 1), POOLGRAD_OK);

    /* the strided views */
    view_spec vgo, vgi;
    random_spec(r, rank, &vgo);
    random_spec(r, rank, &vgi);
    poolgrad_tensor sgo, sgi;
    int64_t go_store = make_view(&sgo, dt, rank, go_shape, &vgo);
    int64_t gi_store = make_view(&sgi, dt, rank, gi_shape, &vgi);
    pgt_buffer bgo = pgt_alloc(dt, go_store), bgi = pgt_alloc(dt, gi_store);
    sgo.storage = bgo.data;
    sgi.storage = bgi.data;
    for (int64_t i = 0; i < go_n; i++)
        memcpy((char *)bgo.data + elem_offset(&sgo, i) * (int64_t)bgo.es, (char *)ego.data + i * (int64_t)ego.es, ego.es);
    if (isa)
        setenv("POOLGRAD_ISA", isa, 1);
    else
        unsetenv("POOLGRAD_ISA");
    poolgrad_plan *plan;
    cr_assert_eq(poolgrad_plan_create(&pa, &sgo, &sgi, &plan), POOLGRAD_OK);
    size_t wsz = poolgrad_plan_workspace_size(plan);
    void *ws = wsz ? malloc(wsz) : NULL;
    cr_assert_eq(poolgrad_execute(plan, ws, wsz, (int)pgt_range(r, 1, 3)), POOLGRAD_OK);
    char kname[64];
    snprintf(kname, sizeof kname, "%s", poolgrad_plan_kernel_name(plan));
    free(ws);
    poolgrad_plan_destroy(plan);
    unsetenv("POOLGRAD_ISA");

    unsigned char *in_view = calloc((size_t)gi_store, 1);
    for (int64_t i = 0; i < gi_n; i++) {
        int64_t o = elem_offset(&sgi, i);
        in_view[o] = 1;
        cr_assert(pgt_same_results(dt, (char *)bgi.data + o * (int64_t)bgi.es, (char *)egi.data + i * (int64_t)egi.es, 1),
                     "kernel %s (cap %s), dtype %d, %dD rank %d, element %lld: strided result differs from dense",
                     kname, isa ? isa : "auto", (int)dt, sd, rank, (long long)i);
    }
    for (int64_t o = 0; o < gi_store; o++)
        cr_assert(in_view[o] || pgt_untouched(&bgi, o), "kernel %s wrote storage element %lld outside the view", kname,
                  (long long)o);
    cr_assert(pgt_guards_intact(&bgi), "kernel %s wrote outside the storage", kname);
    cr_assert(pgt_guards_intact(&bgo));
    free(in_view);
    pgt_free(&ego);
    pgt_free(&egi);
    pgt_free(&bgo);
    pgt_free(&bgi);
    (*checked)++;
}

static void views_under(const char *isa, uint64_t seed_base)
{
    pgt_rng r = { pgt_seed(isa ? isa : "auto", seed_base) };
    int checked = 0;
    for (int i = 0; i < 400; i++)
        run_case(&r, isa, &checked);
    cr_assert_gt(checked, 200);
}

Test(views, negative_permuted_gapped_scalar) { views_under("scalar", 0x5101); }
Test(views, negative_permuted_gapped_sse2) { views_under("sse2", 0x5102); }
Test(views, negative_permuted_gapped_avx2) { views_under("avx2", 0x5103); }
Test(views, negative_permuted_gapped_avx512) { views_under("avx512", 0x5104); }
Test(views, negative_permuted_gapped_auto) { views_under(NULL, 0x5105); }

/* Fully reversed views of a 2D problem: every stride negative, offset at the far end. */
Test(views, fully_reversed_exact)
{
    const int64_t gi_shape[4] = { 1, 1, 4, 4 }, go_shape[4] = { 1, 1, 2, 2 };
    float go[4] = { 1, 2, 3, 4 }, gi[16];
    poolgrad_params pa = pgt_params(2, 2, 2, 0, false, true, 0);
    poolgrad_tensor tgo, tgi;
    poolgrad_tensor_init_contiguous(&tgo, POOLGRAD_F32, 4, go_shape, go);
    poolgrad_tensor_init_contiguous(&tgi, POOLGRAD_F32, 4, gi_shape, gi);
    tgi.strides[2] = -4;
    tgi.strides[3] = -1;
    tgi.offset = 15;
    cr_assert_eq(poolgrad_avgpool_backward(&pa, &tgo, &tgi, 1), POOLGRAD_OK);
    /* logical gi[y][x] lives at 15 - 4y - x: storage is the dense result rotated by 180 degrees */
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++)
            cr_assert_eq(gi[15 - 4 * y - x], go[(y / 2) * 2 + x / 2] / 4.0f);
}
