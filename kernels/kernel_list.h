/*
 * The single list of kernels: it drives the declarations, the dispatch order (best first),
 * the checkasm-style tests and the benchmark. Only kernels whose ISA translation unit was built
 * are listed (POOLGRAD_HAVE_* from the generated poolgrad_config.h). Within an ISA: global pooling,
 * W-vectorized direct, banded pre-divided and workspace pre-divided, then the same three channels-last.
 * The scalar reference is last and supports everything.
 */
#ifndef POOLGRAD_KERNELS_KERNEL_LIST_H
#define POOLGRAD_KERNELS_KERNEL_LIST_H

#include "poolgrad_config.h"
#include "problem.h"

#define POOLGRAD_ISA_KERNELS(X, isa) \
    X(poolgrad_kernel_##isa##_global) \
    X(poolgrad_kernel_##isa##_nchw) \
    X(poolgrad_kernel_##isa##_nchw_b) \
    X(poolgrad_kernel_##isa##_nchw_q) \
    X(poolgrad_kernel_##isa##_nhwc) \
    X(poolgrad_kernel_##isa##_nhwc_b) \
    X(poolgrad_kernel_##isa##_nhwc_q)

#if POOLGRAD_HAVE_AVX512
#define POOLGRAD_KERNELS_AVX512(X) POOLGRAD_ISA_KERNELS(X, avx512)
#else
#define POOLGRAD_KERNELS_AVX512(X)
#endif
#if POOLGRAD_HAVE_AVX2
#define POOLGRAD_KERNELS_AVX2(X) POOLGRAD_ISA_KERNELS(X, avx2)
#else
#define POOLGRAD_KERNELS_AVX2(X)
#endif
#if POOLGRAD_HAVE_SSE2
#define POOLGRAD_KERNELS_SSE2(X) POOLGRAD_ISA_KERNELS(X, sse2)
#else
#define POOLGRAD_KERNELS_SSE2(X)
#endif
#if POOLGRAD_HAVE_NEON
#define POOLGRAD_KERNELS_NEON(X) POOLGRAD_ISA_KERNELS(X, neon)
#else
#define POOLGRAD_KERNELS_NEON(X)
#endif

#define POOLGRAD_FOREACH_KERNEL(X) \
    POOLGRAD_KERNELS_AVX512(X) \
    POOLGRAD_KERNELS_AVX2(X) \
    POOLGRAD_KERNELS_SSE2(X) \
    POOLGRAD_KERNELS_NEON(X) \
    X(poolgrad_kernel_reference)

#define POOLGRAD_DECLARE_KERNEL(sym) extern const poolgrad_kernel sym;
POOLGRAD_FOREACH_KERNEL(POOLGRAD_DECLARE_KERNEL)
#undef POOLGRAD_DECLARE_KERNEL

#endif
