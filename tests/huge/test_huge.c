/*
 * Huge tensors: a bf16 gradInput of more than 2^31 elements (4 GiB + 4 MiB), so
 * element indices pass 2^31 and byte offsets pass 2^32. k = s = 2, no padding: every element gets
 * gradOutput[n, c, h/2, w/2] / 4, which is exact in bf16 for the values used. Checks a sample
 * (random, the last channel, around the 2^31 and 2^32 element boundaries) against that formula.
 * Runs the dispatched kernel, then the scalar reference. Suite 'slow'. Uses every core (num_threads 0).
 */
#include "base_problem.h"

#include <time.h>

#define C ((int64_t)1 << 20 | 1) /* 1048577 channels */
#define H 32
#define W 64
#define OH (H / 2)
#define OW (W / 2)

static uint16_t go_value(int64_t i, const uint16_t *table)
{
    return table[(uint64_t)(i * (int64_t)2654435761u) % 251u];
}

/* Returns 1 on a mismatch (reported), 0 otherwise. Plain checks: millions of passing
 * cr_assert calls would each be an event for Criterion's runner. */
static int check_elem(const uint16_t *gi, const uint16_t *go, int64_t i, const uint16_t *table)
{
    int64_t w = i % W, h = i / W % H, c = i / (W * H);
    int64_t o = (c * OH + h / 2) * OW + w / 2;
    uint16_t want = poolgrad_f32_to_bf16(poolgrad_bf16_to_f32(go_value(o, table)) / 4.0f);
    if (go[o] == go_value(o, table) && gi[i] == want)
        return 0;
    fprintf(stderr, "element %lld (c %lld, h %lld, w %lld): 0x%04x, want 0x%04x\n", (long long)i, (long long)c,
            (long long)h, (long long)w, gi[i], want);
    return 1;
}

/* Plan and execute under the ISA cap `isa` (NULL = best), then check the sample. */
static void run_and_check(const char *isa, uint16_t *gi, const uint16_t *go, const uint16_t *table)
{
    const int64_t gi_n = C * H * W;
    if (isa)
        setenv("POOLGRAD_ISA", isa, 1);
    else
        unsetenv("POOLGRAD_ISA");
    /* sentinels in the sampled regions so an unwritten element cannot pass */
    memset(gi + gi_n - 8192, 0xff, 8192 * 2);
    memset(gi + ((int64_t)1 << 31) - 4096, 0xff, (size_t)(gi_n - ((int64_t)1 << 31) + 4096) * 2); /* to the end */
    const int64_t shape[4] = { 1, C, H, W }, oshape[4] = { 1, C, OH, OW };
    poolgrad_tensor tgi, tgo;
    cr_assert_eq(poolgrad_tensor_init_contiguous(&tgi, POOLGRAD_BF16, 4, shape, gi), POOLGRAD_OK);
    cr_assert_eq(poolgrad_tensor_init_contiguous(&tgo, POOLGRAD_BF16, 4, oshape, (void *)go), POOLGRAD_OK);
    poolgrad_params pa = pgt_params(2, 2, 2, 0, false, true, 0);
    poolgrad_plan *plan;
    cr_assert_eq(poolgrad_plan_create(&pa, &tgo, &tgi, &plan), POOLGRAD_OK);
    unsetenv("POOLGRAD_ISA");
    size_t wsz = poolgrad_plan_workspace_size(plan);
    void *ws = wsz ? malloc(wsz) : NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cr_assert_eq(poolgrad_execute(plan, ws, wsz, 0), POOLGRAD_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr, "# huge: %lld bf16 elements with kernel %s in %.1f s\n", (long long)gi_n,
            poolgrad_plan_kernel_name(plan), (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    free(ws);
    poolgrad_plan_destroy(plan);
    pgt_rng r = { pgt_seed("huge", 0x4247) };
    int64_t bad = 0, checked = 0;
    for (int i = 0; i < 1000000 && bad < 10; i++, checked++)
        bad += check_elem(gi, go, pgt_range(&r, 0, gi_n - 1), table);
    for (int64_t i = gi_n - 8192; i < gi_n && bad < 10; i++, checked++)
        bad += check_elem(gi, go, i, table);
    const int64_t marks[] = { (int64_t)1 << 31, gi_n / 2 };
    for (size_t m = 0; m < sizeof marks / sizeof marks[0]; m++)
        for (int64_t i = marks[m] - 4096; i < marks[m] + 4096 && i < gi_n && bad < 10; i++, checked++)
            bad += check_elem(gi, go, i, table);
    cr_assert_eq(bad, 0, "%s: %lld of %lld sampled elements wrong", isa ? isa : "auto", (long long)bad,
                 (long long)checked);
}

/* The dispatched (SIMD) kernel, then the scalar reference, over the same buffers. */
Test(huge, bf16_more_than_2e31_elements, .timeout = 1100)
{
    const int64_t gi_n = C * H * W, go_n = C * OH * OW;
    cr_assert_gt(gi_n, (int64_t)1 << 31);
    uint16_t table[251];
    for (int m = 0; m < 251; m++)
        table[m] = poolgrad_f32_to_bf16((float)(m - 125) * 0.25f);
    uint16_t *go = malloc((size_t)go_n * 2), *gi = malloc((size_t)gi_n * 2);
    if (!go || !gi)
        cr_skip("cannot allocate %lld MiB", (long long)((go_n + gi_n) * 2 >> 20));
    for (int64_t i = 0; i < go_n; i++)
        go[i] = go_value(i, table);
    run_and_check(NULL, gi, go, table);
    run_and_check("scalar", gi, go, table);
    free(go);
    free(gi);
}
