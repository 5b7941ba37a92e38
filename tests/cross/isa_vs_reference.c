/*
 * The dispatched kernel (best ISA of this machine) against the scalar reference (POOLGRAD_ISA=scalar)
 * on random problems, through the public API only and without Criterion, so it also runs where only
 * the library can be built (an AArch64 cross build under qemu, for the NEON kernels). TAP output.
 * Equal means the whole storages, guard zones included, are byte-identical (memcmp: every NaN is canonical).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

static int check_case(pgt_rng *r, int index)
{
    const poolgrad_dtype dt = (poolgrad_dtype)pgt_range(r, 0, 2);
    const int sd = (int)pgt_range(r, 2, 3);
    const bool batched = pgt_range(r, 0, 1);
    const int rank = sd + (batched ? 2 : 1);
    const int64_t k = pgt_range(r, 1, 4), s = pgt_range(r, 1, 4), p = pgt_range(r, 0, k / 2);
    poolgrad_params pa = pgt_params(sd, k, s, p, pgt_range(r, 0, 1), pgt_range(r, 0, 1),
                                    pgt_range(r, 0, 5) == 0 ? pgt_range(r, -9, 9) : 0);
    int64_t in[5], out[5];
    for (int d = 0; d < rank; d++) /* channels and widths around the vector lengths (4, 8, 16 lanes) */
        in[d] = d < rank - sd ? pgt_range(r, 1, 19) : pgt_range(r, 1, sd == 2 ? 37 : 13);
    if (poolgrad_output_shape(&pa, rank, in, out) != POOLGRAD_OK)
        return -1;
    int64_t gi_n = 1, go_n = 1;
    for (int d = 0; d < rank; d++) {
        if (out[d] < 0)
            return -1;
        gi_n *= in[d];
        go_n *= out[d];
    }
    pgt_buffer go = pgt_alloc(dt, go_n), ref = pgt_alloc(dt, gi_n), got = pgt_alloc(dt, gi_n);
    for (int64_t i = 0; i < go_n; i++)
        pgt_store(dt, go.data, i, pgt_value(r, true));
    const bool go_cl = pgt_range(r, 0, 1), gi_cl = pgt_range(r, 0, 1);
    poolgrad_tensor tgo, tref, tgot;
    if (go_cl)
        poolgrad_tensor_init_channels_last(&tgo, dt, rank, sd, out, go.data);
    else
        poolgrad_tensor_init_contiguous(&tgo, dt, rank, out, go.data);
    if (gi_cl) {
        poolgrad_tensor_init_channels_last(&tref, dt, rank, sd, in, ref.data);
        poolgrad_tensor_init_channels_last(&tgot, dt, rank, sd, in, got.data);
    } else {
        poolgrad_tensor_init_contiguous(&tref, dt, rank, in, ref.data);
        poolgrad_tensor_init_contiguous(&tgot, dt, rank, in, got.data);
    }
    setenv("POOLGRAD_ISA", "scalar", 1);
    poolgrad_status st_ref = poolgrad_avgpool_backward(&pa, &tgo, &tref, 1);
    unsetenv("POOLGRAD_ISA");
    poolgrad_plan *plan = NULL;
    poolgrad_status st = poolgrad_plan_create(&pa, &tgo, &tgot, &plan);
    const char *kname = plan ? poolgrad_plan_kernel_name(plan) : "none";
    size_t wsz = plan ? poolgrad_plan_workspace_size(plan) : 0;
    void *ws = wsz ? malloc(wsz) : NULL;
    if (st == POOLGRAD_OK)
        st = poolgrad_execute(plan, ws, wsz, (int)pgt_range(r, 1, 3));
    const int64_t diff = pgt_first_difference(&got, &ref);
    const bool ok = st_ref == POOLGRAD_OK && st == POOLGRAD_OK && diff == PGT_NO_DIFFERENCE;
    printf("%s %d - %s dtype %d %dD rank %d k%lld s%lld p%lld %s/%s", ok ? "ok" : "not ok", index, kname, (int)dt,
           sd, rank, (long long)k, (long long)s, (long long)p, go_cl ? "cl" : "nchw", gi_cl ? "cl" : "nchw");
    if (!ok)
        printf(" (status %d/%d, first differing storage element %lld)", (int)st_ref, (int)st,
               diff == PGT_NO_DIFFERENCE ? -1LL : (long long)diff);
    printf("\n");
    free(ws);
    poolgrad_plan_destroy(plan);
    pgt_free(&go);
    pgt_free(&ref);
    pgt_free(&got);
    return ok ? 1 : 0;
}

int main(int argc, char **argv)
{
    const int cases = argc > 1 ? atoi(argv[1]) : 300;
    pgt_rng r = { pgt_seed("isa_vs_reference", 0x15AC0DE) };
    printf("# best ISA: %s\n", poolgrad_isa_name(poolgrad_active_isa()));
    /* the CPU's ISA as dispatch detects it (POOLGRAD_ISA unset; check_case unsets it anyway), which must
     * be POOLGRAD_EXPECT_ISA when set: proves cpuid-driven selection under qemu's CPU models */
    unsetenv("POOLGRAD_ISA");
    const char *detected = poolgrad_isa_name(poolgrad_active_isa());
    const char *expect = getenv("POOLGRAD_EXPECT_ISA");
    const bool isa_ok = !expect || !*expect || strcmp(expect, detected) == 0;
    int done = 0, failed = 0;
    while (done < cases) {
        int res = check_case(&r, done + 1);
        if (res < 0)
            continue; /* parameters with no valid output shape: draw again */
        done++;
        failed += res == 0;
    }
    printf("%s %d - detected ISA %s (POOLGRAD_ISA unset)%s%s\n", isa_ok ? "ok" : "not ok", done + 1, detected,
           expect && *expect ? ", POOLGRAD_EXPECT_ISA=" : "", expect && *expect ? expect : "");
    printf("1..%d\n", done + 1);
    return failed || !isa_ok ? 1 : 0;
}
