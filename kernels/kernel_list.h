/*
 * The single list of kernels: it drives the declarations, the dispatch order (best first),
 * the checkasm-style tests and the benchmark. Only kernels whose ISA translation unit was built
 * are listed (POOLGRAD_HAVE_* from the generated poolgrad_config.h). Within an ISA: global pooling,
 * W-vectorized doubled q rows (k = s = 2 along W), direct, flat narrow planes, W stride 1 and 2 (shifted
 * loads), banded pre-divided and workspace pre-divided, then channels-last register-window (stride 1, k 3
 * along W), one window per element (k <= s), direct, banded and workspace.
 * The scalar reference is last and supports everything.
 */
#ifndef POOLGRAD_KERNELS_KERNEL_LIST_H
#define POOLGRAD_KERNELS_KERNEL_LIST_H

#include "poolgrad_config.h"
#include "problem.h"

#define POOLGRAD_ISA_KERNELS(X, isa) \
    X(poolgrad_kernel_##isa##_global) \
    X(poolgrad_kernel_##isa##_nchw_x2) \
    X(poolgrad_kernel_##isa##_nchw) \
    X(poolgrad_kernel_##isa##_nchw_f) \
    X(poolgrad_kernel_##isa##_nchw_s1) \
    X(poolgrad_kernel_##isa##_nchw_s2) \
    X(poolgrad_kernel_##isa##_nchw_b) \
    X(poolgrad_kernel_##isa##_nchw_q) \
    X(poolgrad_kernel_##isa##_nhwc_s1) \
    X(poolgrad_kernel_##isa##_nhwc_w1) \
    X(poolgrad_kernel_##isa##_nhwc) \
    X(poolgrad_kernel_##isa##_nhwc_b) \
    X(poolgrad_kernel_##isa##_nhwc_q)

/* The exactness-critical vector operations of one ISA (simd/exact_tmpl.h), for the exhaustive tests. */
#define POOLGRAD_ISA_EXACT(X, isa) X(poolgrad_kernel_##isa##_exact)

/* LIST(X, isa) if the ISA's translation unit was built (POOLGRAD_HAVE_<ISA> is 0 or 1). */
#define POOLGRAD_IF_BUILT_0(LIST, X, isa)
#define POOLGRAD_IF_BUILT_1(LIST, X, isa) LIST(X, isa)
#define POOLGRAD_IF_BUILT(have, LIST, X, isa) POOLGRAD_IF_BUILT_EXPAND(have, LIST, X, isa)
#define POOLGRAD_IF_BUILT_EXPAND(have, LIST, X, isa) POOLGRAD_IF_BUILT_##have(LIST, X, isa)

/* LIST(X, isa) for every built SIMD ISA, in the ISA order of isa_table.h (a preprocessor list cannot be
 * walked with another list's callback, so the four rows name the ISAs again). */
#define POOLGRAD_FOREACH_BUILT_SIMD(LIST, X) \
    POOLGRAD_IF_BUILT(POOLGRAD_HAVE_AVX512, LIST, X, avx512) \
    POOLGRAD_IF_BUILT(POOLGRAD_HAVE_AVX2, LIST, X, avx2) \
    POOLGRAD_IF_BUILT(POOLGRAD_HAVE_SSE2, LIST, X, sse2) \
    POOLGRAD_IF_BUILT(POOLGRAD_HAVE_NEON, LIST, X, neon)

/* Every built kernel, best ISA first, the scalar reference last. */
#define POOLGRAD_FOREACH_KERNEL(X) POOLGRAD_FOREACH_BUILT_SIMD(POOLGRAD_ISA_KERNELS, X) X(poolgrad_kernel_reference)
/* The vector operations of every built SIMD ISA, in the same order. */
#define POOLGRAD_FOREACH_VEC_EXACT(X) POOLGRAD_FOREACH_BUILT_SIMD(POOLGRAD_ISA_EXACT, X)

#define POOLGRAD_DECLARE_EXACT(sym) extern const poolgrad_vec_exact sym;
POOLGRAD_FOREACH_VEC_EXACT(POOLGRAD_DECLARE_EXACT)
#undef POOLGRAD_DECLARE_EXACT

#define POOLGRAD_DECLARE_KERNEL(sym) extern const poolgrad_kernel sym;
POOLGRAD_FOREACH_KERNEL(POOLGRAD_DECLARE_KERNEL)
#undef POOLGRAD_DECLARE_KERNEL

#endif
