/* The C comparison report and error bounds, without Python: TAP for meson test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "poolgrad/poolgrad.h"

static int n_test = 0, n_fail = 0;
#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        n_test++;                                                          \
        if (cond)                                                          \
            printf("ok %d - ", n_test);                                    \
        else {                                                             \
            printf("not ok %d - ", n_test);                                \
            n_fail++;                                                      \
        }                                                                  \
        printf(__VA_ARGS__);                                               \
        printf("\n");                                                      \
    } while (0)

static float next_up(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    b += f >= 0 ? 1 : -1;
    memcpy(&f, &b, 4);
    return f;
}

int main(void)
{
    char text[4096];
    /* one ulp at [1, 2] of a 2x3 f32 tensor */
    float e[6] = { 1, 2, 3, 4, 5, 6 }, a[6];
    memcpy(a, e, sizeof a);
    a[5] = next_up(a[5]);
    int64_t shape[2] = { 2, 3 };
    poolgrad_tensor at, et;
    poolgrad_tensor_init_contiguous(&at, POOLGRAD_F32, 2, shape, a);
    poolgrad_tensor_init_contiguous(&et, POOLGRAD_F32, 2, shape, e);
    poolgrad_compare_report r;
    r.size = sizeof r - 1;
    CHECK(poolgrad_compare_report_run(&at, &et, NULL, &r) == POOLGRAD_ERR_PARAM &&
              strstr(poolgrad_last_error_message(), "report->size") != NULL,
          "a too small report size is refused: %s", poolgrad_last_error_message());
    r.size = sizeof r;
    CHECK(poolgrad_compare_report_run(&at, &et, NULL, &r) == POOLGRAD_OK, "report runs");
    CHECK(!r.passed && r.failed == 1 && r.differing == 1 && r.max_ulp == 1 && r.worst_count == 1,
          "one mismatch of one ulp");
    CHECK(r.worst[0].index == 5 && r.worst[0].multi_index[0] == 1 && r.worst[0].multi_index[1] == 2,
          "worst element at [1, 2]");
    poolgrad_compare_report_format(&r, text, sizeof text);
    CHECK(strstr(text, "index [1, 2] (flat 5)") && strstr(text, "(0x40c00001)") && strstr(text, "\nFAIL\n"),
          "text names the index, the bits and the verdict");
    CHECK(poolgrad_compare_report_format(&r, NULL, 0) == strlen(text), "format returns the length it needs");
    poolgrad_compare_options o = { sizeof o, 1, 0.0, 0.0, NULL, NULL, 0 };
    CHECK(poolgrad_compare_report_run(&at, &et, &o, &r) == POOLGRAD_OK && r.passed, "max_ulp 1 passes");
    poolgrad_compare_result old;
    CHECK(poolgrad_compare(&at, &et, &old) == POOLGRAD_OK && old.mismatches == 1 && old.first_mismatch == 5,
          "the original poolgrad_compare is unchanged");

    /* bf16 across zero, +0/-0, NaN and inf positions */
    uint16_t ab[5] = { 0x8001, 0x8000, 0x7fc0, 0x3f80, 0x7f80 }, eb[5] = { 0x0001, 0x0000, 0x3f80, 0x7fc1, 0x3f80 };
    int64_t s5[1] = { 5 };
    poolgrad_tensor_init_contiguous(&at, POOLGRAD_BF16, 1, s5, ab);
    poolgrad_tensor_init_contiguous(&et, POOLGRAD_BF16, 1, s5, eb);
    poolgrad_compare_options big = { sizeof big, 1000000, 0.0, 0.0, NULL, NULL, 0 };
    CHECK(poolgrad_compare_report_run(&at, &et, &big, &r) == POOLGRAD_OK, "bf16 report runs");
    CHECK(r.nan_mismatches == 2 && r.inf_mismatches == 1 && r.failed == 3, "NaN 2, inf 1 counted apart");
    bool across = false, zeros = false;
    for (int w = 0; w < r.worst_count; w++) {
        across |= r.worst[w].index == 0 && r.worst[w].ulp == 2 && r.worst[w].passed;
        zeros |= r.worst[w].index == 1 && r.worst[w].ulp == 0 && r.worst[w].passed;
    }
    CHECK(across && zeros, "-tiny..+tiny is 2 ulps, -0..+0 is 0");

    /* bounds: 1x1x4x4 input, kernel 3, stride 1, pad 1 */
    poolgrad_params pa = { .spatial_dims = 2, .kernel = { 3, 3 }, .stride = { 1, 1 }, .padding = { 1, 1 },
                           .count_include_pad = false };
    int64_t in[4] = { 1, 1, 4, 4 }, out[4];
    poolgrad_output_shape(&pa, 4, in, out);
    float go[16], gi[16], bad[16];
    for (int i = 0; i < 16; i++)
        go[i] = (float)(i * 0.37 - 2.1);
    poolgrad_tensor got, git;
    poolgrad_tensor_init_contiguous(&got, POOLGRAD_F32, 4, out, go);
    poolgrad_tensor_init_contiguous(&git, POOLGRAD_F32, 4, in, gi);
    CHECK(poolgrad_avgpool_backward(&pa, &got, &git, 1) == POOLGRAD_OK, "golden");
    double ref[16], bnd[16];
    CHECK(poolgrad_error_bound(&pa, &got, 4, in, POOLGRAD_BOUND_F32_ANY_ORDER, ref, bnd) == POOLGRAD_OK, "bound");
    poolgrad_compare_options ob = { sizeof ob, -1, 0.0, 0.0, ref, bnd, POOLGRAD_BOUND_F32_ANY_ORDER };
    CHECK(poolgrad_compare_report_run(&git, &git, &ob, &r) == POOLGRAD_OK && r.passed, "golden inside its bound");
    memcpy(bad, gi, sizeof bad);
    bad[5] -= go[0] / 4.0f; /* element [1,1] without window (0,0)'s term (clipped to 2x2: divisor 4) */
    poolgrad_tensor bt;
    poolgrad_tensor_init_contiguous(&bt, POOLGRAD_F32, 4, in, bad);
    CHECK(poolgrad_compare_report_run(&bt, &git, &ob, &r) == POOLGRAD_OK && !r.passed && r.failed == 1 &&
              r.worst[0].index == 5,
          "a dropped term is caught at its element");
    poolgrad_compare_report_format(&r, text, sizeof text);
    CHECK(strstr(text, "f32-any-order") && strstr(text, "bound "), "text names the model and the bound");
    poolgrad_bound_model m;
    CHECK(poolgrad_bound_model_parse("f32-any-order-div", &m) == POOLGRAD_OK && m == POOLGRAD_BOUND_F32_ANY_ORDER_DIV,
          "model names parse");
    CHECK(poolgrad_bound_model_parse("exact", &m) == POOLGRAD_ERR_PARAM &&
              strstr(poolgrad_last_error_message(), "\"exact\" is unknown"),
          "unknown model: %s", poolgrad_last_error_message());
    CHECK(poolgrad_error_bound(&pa, &got, 4, in, (poolgrad_bound_model)9, ref, bnd) == POOLGRAD_ERR_PARAM,
          "bad model value refused");
    printf("1..%d\n", n_test);
    return n_fail != 0;
}
