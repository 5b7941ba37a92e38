/*
 * The single list of kernels: it drives the declarations, the dispatch order (best first),
 * the checkasm-style tests and the benchmark. Each entry: X(symbol, build-macro) where the
 * build macro says whether that ISA's translation unit was compiled in.
 */
#ifndef POOLGRAD_KERNELS_KERNEL_LIST_H
#define POOLGRAD_KERNELS_KERNEL_LIST_H

#include "problem.h"

#define POOLGRAD_FOREACH_KERNEL(X) \
    X(poolgrad_kernel_reference)

#define POOLGRAD_DECLARE_KERNEL(sym) extern const poolgrad_kernel sym;
POOLGRAD_FOREACH_KERNEL(POOLGRAD_DECLARE_KERNEL)
#undef POOLGRAD_DECLARE_KERNEL

#endif
