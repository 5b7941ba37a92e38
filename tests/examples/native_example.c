/*
 * Example: the native poolgrad API. avg_pool2d backward, kernel 3, stride 2, padding 1,
 * countIncludePad false, on a channels-last bf16 gradInput, gradOutput contiguous NCHW.
 * Build: cc native_example.c $(pkg-config --cflags --libs --static poolgrad)
 */
#include <stdio.h>
#include <stdlib.h>

#include "poolgrad/poolgrad.h"

int main(void)
{
    printf("poolgrad %s\n", poolgrad_version_string());
    const int64_t in_shape[4] = { 2, 8, 7, 7 };
    poolgrad_params params = { .spatial_dims = 2,
                               .kernel = { 3, 3 }, .stride = { 2, 2 }, .padding = { 1, 1 },
                               .ceil_mode = false, .count_include_pad = false, .divisor_override = 0 };
    int64_t out_shape[4];
    poolgrad_status st = poolgrad_output_shape(&params, 4, in_shape, out_shape);
    if (st != POOLGRAD_OK) {
        printf("output_shape: %s: %s\n", poolgrad_status_string(st), poolgrad_last_error_message());
        return 1;
    }
    int64_t go_n = out_shape[0] * out_shape[1] * out_shape[2] * out_shape[3];
    int64_t gi_n = in_shape[0] * in_shape[1] * in_shape[2] * in_shape[3];
    uint16_t *go = malloc((size_t)go_n * sizeof *go), *gi = malloc((size_t)gi_n * sizeof *gi);
    if (!go || !gi)
        return 1;
    for (int64_t i = 0; i < go_n; i++)
        go[i] = poolgrad_f32_to_bf16(1.0f);

    poolgrad_tensor t_go, t_gi;
    poolgrad_tensor_init_contiguous(&t_go, POOLGRAD_BF16, 4, out_shape, go);
    poolgrad_tensor_init_channels_last(&t_gi, POOLGRAD_BF16, 4, 2, in_shape, gi);

    poolgrad_plan *plan = NULL;
    st = poolgrad_plan_create(&params, &t_go, &t_gi, &plan);
    if (st != POOLGRAD_OK) {
        printf("plan: %s: %s\n", poolgrad_status_string(st), poolgrad_last_error_message());
        return 1;
    }
    size_t ws_size = poolgrad_plan_workspace_size(plan);
    void *ws = ws_size ? malloc(ws_size) : NULL;
    st = poolgrad_execute(plan, ws, ws_size, 0);
    printf("kernel %s, workspace %zu bytes: %s\n", poolgrad_plan_kernel_name(plan), ws_size,
           poolgrad_status_string(st));
    /* element (n=0, c=0, h=0, w=0) is covered by one window of 4 valid elements: 1/4 */
    float corner = poolgrad_bf16_to_f32(gi[0]);
    /* element (h=1, w=1) (channels-last offset (1*7+1)*8) is covered by 4 windows: 1/4 + 1/6 + 1/6 + 1/9 */
    float center = poolgrad_bf16_to_f32(gi[(1 * 7 + 1) * 8]);
    float expect = poolgrad_bf16_to_f32(poolgrad_f32_to_bf16(1.0f / 4 + 1.0f / 6 + 1.0f / 6 + 1.0f / 9));
    printf("gradInput[0,0,0,0] = %g, gradInput[0,0,1,1] = %g (expected 0.25, %g)\n", corner, center, expect);
    free(ws);
    poolgrad_plan_destroy(plan);
    free(go);
    free(gi);
    return st == POOLGRAD_OK && corner == 0.25f && center == expect ? 0 : 1;
}
