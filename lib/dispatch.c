/* Run-time ISA detection (once, cached, thread-safe) and kernel selection. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernel_list.h"

const char *poolgrad_isa_name(poolgrad_isa isa)
{
    switch (isa) {
    case POOLGRAD_ISA_SCALAR: return "scalar";
    case POOLGRAD_ISA_SSE2: return "sse2";
    case POOLGRAD_ISA_AVX2: return "avx2";
    case POOLGRAD_ISA_AVX512: return "avx512";
    case POOLGRAD_ISA_NEON: return "neon";
    }
    return "unknown";
}

/* Best ISA of the CPU, ignoring the cap. */
static poolgrad_isa detect_cpu_isa(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        return POOLGRAD_ISA_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return POOLGRAD_ISA_AVX2;
    if (__builtin_cpu_supports("sse2"))
        return POOLGRAD_ISA_SSE2;
    return POOLGRAD_ISA_SCALAR;
#elif defined(__aarch64__)
    return POOLGRAD_ISA_NEON; /* Advanced SIMD is mandatory on AArch64 */
#else
    return POOLGRAD_ISA_SCALAR;
#endif
}

/* The only global state of the library: written once with the same value by whoever comes first. */
static atomic_int cpu_isa_cache = -1;

static poolgrad_isa cpu_isa(void)
{
    int v = atomic_load_explicit(&cpu_isa_cache, memory_order_relaxed);
    if (v < 0) {
        v = (int)detect_cpu_isa();
        atomic_store_explicit(&cpu_isa_cache, v, memory_order_relaxed);
    }
    return (poolgrad_isa)v;
}

int poolgrad_isa_level(poolgrad_isa isa)
{
    switch (isa) {
    case POOLGRAD_ISA_SCALAR: return 0;
    case POOLGRAD_ISA_SSE2: return 1;
    case POOLGRAD_ISA_AVX2: return 2;
    case POOLGRAD_ISA_AVX512: return 3;
    case POOLGRAD_ISA_NEON: return 1;
    }
    return 0;
}

int poolgrad_isa_cap_level(const char *cap)
{
    if (!cap)
        return POOLGRAD_ISA_LEVEL_ANY;
    if (strcmp(cap, "scalar") == 0)
        return 0;
    if (strcmp(cap, "sse2") == 0 || strcmp(cap, "neon") == 0)
        return 1;
    if (strcmp(cap, "avx2") == 0)
        return 2;
    if (strcmp(cap, "avx512") == 0)
        return 3;
    return POOLGRAD_ISA_LEVEL_ANY; /* auto, empty and unknown names */
}

poolgrad_isa poolgrad_active_isa(void)
{
    poolgrad_isa best = cpu_isa();
    const char *cap = getenv("POOLGRAD_ISA");
    const int cap_level = poolgrad_isa_cap_level(cap);
    if (poolgrad_isa_level(best) <= cap_level)
        return best;
#if defined(__x86_64__) || defined(__i386__)
    static const poolgrad_isa ladder[] = { POOLGRAD_ISA_SCALAR, POOLGRAD_ISA_SSE2, POOLGRAD_ISA_AVX2, POOLGRAD_ISA_AVX512 };
    return ladder[cap_level];
#else
    return cap_level >= 1 ? best : POOLGRAD_ISA_SCALAR;
#endif
}

#define POOLGRAD_KERNEL_ENTRY(sym) &sym,
static const poolgrad_kernel *const kernel_table[] = { POOLGRAD_FOREACH_KERNEL(POOLGRAD_KERNEL_ENTRY) };
#undef POOLGRAD_KERNEL_ENTRY

const poolgrad_kernel *poolgrad_select_kernel(const poolgrad_problem *pr)
{
    const int cap = poolgrad_isa_level(poolgrad_active_isa());
    const size_t count = sizeof kernel_table / sizeof kernel_table[0];
    /* the first kernel of the best allowed ISA that supports the problem and prefers it ... */
    for (size_t i = 0; i < count; i++) {
        const poolgrad_kernel *k = kernel_table[i];
        if (poolgrad_isa_level(k->isa) <= cap && k->supports(pr) && (!k->preferred || k->preferred(pr)))
            return k;
    }
    /* ... else the first that supports it (the scalar reference supports everything) */
    for (size_t i = 0; i < count; i++) {
        const poolgrad_kernel *k = kernel_table[i];
        if (poolgrad_isa_level(k->isa) <= cap && k->supports(pr))
            return k;
    }
    return &poolgrad_kernel_reference;
}
