// Example: aclnnAvgPool2dBackward with poolgrad-aclnn, following the CANN call flow
// (init, allocate, create tensors, GetWorkspaceSize, execute, synchronize, copy back, destroy).
// gradOutput 1x16x1x1 of ones, self 1x16x4x4, kernel 4x4, stride 1, no padding:
// every gradInput element is 1/16 = 0.0625.
// Build: g++ avgpool2d_backward_example.cpp $(pkg-config --cflags --libs --static poolgrad-aclnn)
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"

#define CHECK(cond, ...)                 \
    do {                                 \
        if (!(cond)) {                   \
            std::printf(__VA_ARGS__);    \
            return 1;                    \
        }                                \
    } while (0)

static int64_t numel(const std::vector<int64_t> &shape)
{
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

// Copies host data to "device" memory and wraps it in a contiguous NCHW aclTensor.
static int make_tensor(const std::vector<float> &host, const std::vector<int64_t> &shape, void **dev, aclTensor **t)
{
    size_t bytes = host.size() * sizeof(float);
    if (aclrtMalloc(dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 1;
    if (aclrtMemcpy(*dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) return 1;
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = (int64_t)shape.size() - 2; i >= 0; i--) strides[i] = shape[i + 1] * strides[i + 1];
    *t = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_NCHW, shape.data(),
                         shape.size(), *dev);
    return *t ? 0 : 1;
}

int main()
{
    aclrtStream stream = nullptr;
    CHECK(aclInit(nullptr) == ACL_SUCCESS, "aclInit failed\n");
    CHECK(aclrtSetDevice(0) == ACL_SUCCESS, "aclrtSetDevice failed\n");
    CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS, "aclrtCreateStream failed\n");

    const std::vector<int64_t> goShape = {1, 16, 1, 1}, inShape = {1, 16, 4, 4};
    const int64_t k[2] = {4, 4}, s[2] = {1, 1}, p[2] = {0, 0};
    void *goDev = nullptr, *selfDev = nullptr, *giDev = nullptr;
    aclTensor *gradOutput = nullptr, *self = nullptr, *gradInput = nullptr;
    CHECK(make_tensor(std::vector<float>(numel(goShape), 1.0f), goShape, &goDev, &gradOutput) == 0, "gradOutput\n");
    CHECK(make_tensor(std::vector<float>(numel(inShape), 1.0f), inShape, &selfDev, &self) == 0, "self\n");
    CHECK(make_tensor(std::vector<float>(numel(inShape), -1.0f), inShape, &giDev, &gradInput) == 0, "gradInput\n");
    aclIntArray *kernelSize = aclCreateIntArray(k, 2), *stride = aclCreateIntArray(s, 2),
                *padding = aclCreateIntArray(p, 2);

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    aclnnStatus st = aclnnAvgPool2dBackwardGetWorkspaceSize(gradOutput, self, kernelSize, stride, padding,
                                                            /*ceilMode=*/false, /*countIncludePad=*/true,
                                                            /*divisorOverride=*/0, /*cubeMathType=*/1, gradInput,
                                                            &workspaceSize, &executor);
    CHECK(st == ACLNN_SUCCESS, "GetWorkspaceSize failed: %d: %s\n", st, aclGetRecentErrMsg());
    void *workspace = nullptr;
    if (workspaceSize > 0)
        CHECK(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "workspace\n");
    st = aclnnAvgPool2dBackward(workspace, workspaceSize, executor, stream);
    CHECK(st == ACLNN_SUCCESS, "aclnnAvgPool2dBackward failed: %d: %s\n", st, aclGetRecentErrMsg());
    CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS, "synchronize failed\n");

    std::vector<float> out(numel(inShape));
    CHECK(aclrtMemcpy(out.data(), out.size() * sizeof(float), giDev, out.size() * sizeof(float),
                      ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "copy back failed\n");
    int bad = 0;
    for (size_t i = 0; i < out.size(); i++) {
        std::printf("out result[%zu] is: %f\n", i, out[i]);
        bad += out[i] != 0.0625f;
    }

    aclDestroyTensor(gradOutput);
    aclDestroyTensor(self);
    aclDestroyTensor(gradInput);
    aclDestroyIntArray(kernelSize);
    aclDestroyIntArray(stride);
    aclDestroyIntArray(padding);
    aclrtFree(goDev);
    aclrtFree(selfDev);
    aclrtFree(giDev);
    if (workspaceSize > 0) aclrtFree(workspace);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    CHECK(bad == 0, "%d elements differ from 0.0625\n", bad);
    return 0;
}
