/*
 * Consumer of an installed poolgrad: the native API and the aclnn front, one small avg_pool2d
 * backward each (kernel 2, stride 2, f32 ones in: every gradInput element is 1/4). Built by
 * tests/consumers/{cmake,make,meson-parent} against the installed (or subproject) libraries.
 * Prints the library versions and "consumer ok"; exits 0 only if both results are right.
 */
#include <stdio.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "poolgrad/poolgrad.h"

/* poolgrad's OpenMP is private: it must never switch the consumer's own code to OpenMP. */
#ifdef _OPENMP
#error "the consumer is compiled with OpenMP enabled: poolgrad leaked -fopenmp into its flags"
#endif

#define N 1
#define C 2
#define H 4
#define W 4

static int check(const char *what, const float *gi)
{
    for (int i = 0; i < N * C * H * W; i++)
        if (gi[i] != 0.25f) {
            printf("%s: gradInput[%d] = %g, expected 0.25\n", what, i, gi[i]);
            return 1;
        }
    printf("%s: %d elements of 0.25\n", what, N * C * H * W);
    return 0;
}

static int native(void)
{
    static float go[N * C * (H / 2) * (W / 2)], gi[N * C * H * W];
    for (size_t i = 0; i < sizeof go / sizeof go[0]; i++)
        go[i] = 1.0f;
    const int64_t gi_shape[4] = { N, C, H, W }, go_shape[4] = { N, C, H / 2, W / 2 };
    poolgrad_params params = { .spatial_dims = 2, .kernel = { 2, 2 }, .stride = { 2, 2 } };
    poolgrad_tensor t_go, t_gi;
    poolgrad_tensor_init_contiguous(&t_go, POOLGRAD_F32, 4, go_shape, go);
    poolgrad_tensor_init_contiguous(&t_gi, POOLGRAD_F32, 4, gi_shape, gi);
    poolgrad_status st = poolgrad_avgpool_backward(&params, &t_go, &t_gi, 0);
    if (st != POOLGRAD_OK) {
        printf("poolgrad_avgpool_backward: %s\n", poolgrad_status_string(st));
        return 1;
    }
    return check("native", gi);
}

static int aclnn(void)
{
    static float go[N * C * (H / 2) * (W / 2)], gi[N * C * H * W], self[N * C * H * W];
    for (size_t i = 0; i < sizeof go / sizeof go[0]; i++)
        go[i] = 1.0f;
    const int64_t gi_shape[4] = { N, C, H, W }, go_shape[4] = { N, C, H / 2, W / 2 };
    const int64_t two[2] = { 2, 2 }, zero[2] = { 0, 0 };
    aclrtStream stream = NULL;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS)
        return 1;
    aclTensor *t_go = aclCreateTensor(go_shape, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, go_shape, 4, go);
    aclTensor *t_self = aclCreateTensor(gi_shape, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, gi_shape, 4, self);
    aclTensor *t_gi = aclCreateTensor(gi_shape, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, gi_shape, 4, gi);
    aclIntArray *k = aclCreateIntArray(two, 2), *s = aclCreateIntArray(two, 2), *p = aclCreateIntArray(zero, 2);
    uint64_t ws_size = 0;
    aclOpExecutor *exec = NULL;
    aclnnStatus st = aclnnAvgPool2dBackwardGetWorkspaceSize(t_go, t_self, k, s, p, false, true, 0, 1, t_gi, &ws_size, &exec);
    void *ws = NULL;
    if (st == ACLNN_SUCCESS && ws_size > 0 && aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        st = ACLNN_ERR_INNER;
    if (st == ACLNN_SUCCESS)
        st = aclnnAvgPool2dBackward(ws, ws_size, exec, stream);
    aclrtFree(ws);
    aclDestroyTensor(t_go);
    aclDestroyTensor(t_self);
    aclDestroyTensor(t_gi);
    aclDestroyIntArray(k);
    aclDestroyIntArray(s);
    aclDestroyIntArray(p);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (st != ACLNN_SUCCESS) {
        printf("aclnnAvgPool2dBackward: status %d\n", (int)st);
        return 1;
    }
    return check("aclnn", gi);
}

int main(void)
{
    printf("poolgrad headers %s, library %s\n", POOLGRAD_VERSION_STRING, poolgrad_version_string());
    if (poolgrad_version_number() != POOLGRAD_VERSION_NUMBER)
        return 1;
    int bad = native() + aclnn();
    if (!bad)
        printf("consumer ok\n");
    return bad ? 1 : 0;
}
