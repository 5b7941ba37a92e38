/*
 * Example: aclnnAvgPool3dBackward from C with poolgrad-aclnn, following the CANN call flow.
 * gradOutput 1x16x1x1x1 of ones, self 1x16x4x4x4, kernel {4,4,4}, stride {1,1,1}, padding {0,0,0},
 * countIncludePad false, format ND: every output element is 1/64 = 0.015625.
 * Build: cc avgpool3d_backward_example.c $(pkg-config --cflags --libs --static poolgrad-aclnn)
 */
#include <stdio.h>
#include <stdlib.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool3d_backward.h"

#define CHECK(cond, ...)          \
    do {                          \
        if (!(cond)) {            \
            printf(__VA_ARGS__);  \
            return 1;             \
        }                         \
    } while (0)

/* Copies host data to "device" memory and wraps it in a contiguous ND aclTensor (strides NULL). */
static int make_tensor(const float *host, const int64_t *shape, uint64_t rank, void **dev, aclTensor **t)
{
    size_t n = 1;
    for (uint64_t i = 0; i < rank; i++)
        n *= (size_t)shape[i];
    if (aclrtMalloc(dev, n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return 1;
    if (aclrtMemcpy(*dev, n * sizeof(float), host, n * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
        return 1;
    *t = aclCreateTensor(shape, rank, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, rank, *dev);
    return *t ? 0 : 1;
}

int main(void)
{
    aclrtStream stream = NULL;
    CHECK(aclInit(NULL) == ACL_SUCCESS, "aclInit failed\n");
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice failed\n");
    CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS, "aclrtCreateStream failed\n");

    const int64_t goShape[5] = { 1, 16, 1, 1, 1 }, inShape[5] = { 1, 16, 4, 4, 4 };
    const int64_t k[3] = { 4, 4, 4 }, s[3] = { 1, 1, 1 }, p[3] = { 0, 0, 0 };
    enum { GO_N = 16, IN_N = 16 * 64 };
    static float goHost[GO_N], inHost[IN_N], outHost[IN_N];
    for (int i = 0; i < GO_N; i++)
        goHost[i] = 1.0f;
    for (int i = 0; i < IN_N; i++)
        inHost[i] = -1.0f;

    void *goDev = NULL, *selfDev = NULL, *outDev = NULL;
    aclTensor *gradOutput = NULL, *self = NULL, *output = NULL;
    CHECK(make_tensor(goHost, goShape, 5, &goDev, &gradOutput) == 0, "gradOutput\n");
    CHECK(make_tensor(inHost, inShape, 5, &selfDev, &self) == 0, "self\n");
    CHECK(make_tensor(inHost, inShape, 5, &outDev, &output) == 0, "output\n");
    aclIntArray *kernelSize = aclCreateIntArray(k, 3), *stride = aclCreateIntArray(s, 3),
                *padding = aclCreateIntArray(p, 3);

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = NULL;
    aclnnStatus st = aclnnAvgPool3dBackwardGetWorkspaceSize(gradOutput, self, kernelSize, stride, padding,
                                                            /*ceilMode=*/false, /*countIncludePad=*/false,
                                                            /*divisorOverride=*/0, output, &workspaceSize, &executor);
    CHECK(st == ACLNN_SUCCESS, "GetWorkspaceSize failed: %d: %s\n", st, aclGetRecentErrMsg());
    void *workspace = NULL;
    if (workspaceSize > 0)
        CHECK(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "workspace\n");
    st = aclnnAvgPool3dBackward(workspace, workspaceSize, executor, stream);
    CHECK(st == ACLNN_SUCCESS, "aclnnAvgPool3dBackward failed: %d: %s\n", st, aclGetRecentErrMsg());
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "synchronize failed\n");
    CHECK(aclrtMemcpy(outHost, sizeof outHost, outDev, sizeof outHost, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS,
          "copy back failed\n");
    int bad = 0;
    for (int i = 0; i < IN_N; i++) {
        printf("out result[%d] is: %f\n", i, outHost[i]);
        bad += outHost[i] != 0.015625f;
    }

    aclDestroyTensor(gradOutput);
    aclDestroyTensor(self);
    aclDestroyTensor(output);
    aclDestroyIntArray(kernelSize);
    aclDestroyIntArray(stride);
    aclDestroyIntArray(padding);
    aclrtFree(goDev);
    aclrtFree(selfDev);
    aclrtFree(outDev);
    if (workspaceSize > 0)
        aclrtFree(workspace);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    CHECK(bad == 0, "%d elements differ from 0.015625\n", bad);
    return 0;
}
