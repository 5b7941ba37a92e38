/*
 * Instruction sets: the table of kernels/isa_table.h with each ISA's CPU test, detection of the CPU's best
 * built ISA (once, cached: the library's only global state), POOLGRAD_ISA caps, and the per-thread cap
 * override the tests use instead of setenv.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "internal.h"


/* CPU tests. x86: the kernels need exactly these feature bits (kernels/meson.build's flags). AArch64:
 * Advanced SIMD is mandatory. Other architectures run the scalar reference only. */
static bool cpu_has_avx512(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
#else
    return false;
#endif
}

/* F16C (the avx2 kernels' f16 conversions): CPUID leaf 1, ECX bit 29. Every AVX2 CPU made has it, but
 * the kernels are compiled with -mf16c, so it is tested, not assumed. (clang's __builtin_cpu_supports
 * does not know "f16c".) */
static bool cpu_has_f16c(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
#else
    return false;
#endif
}

static bool cpu_has_avx2(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && cpu_has_f16c();
#else
    return false;
#endif
}

static bool cpu_has_sse2(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse2");
#else
    return false;
#endif
}

static bool cpu_has_neon(void)
{
#if defined(__aarch64__)
    return true;
#else
    return false;
#endif
}

#define ISA_ROW(E, nm, lvl, arch) { POOLGRAD_ISA_##E, #nm, lvl, POOLGRAD_HAVE_##E, cpu_has_##nm },
static const poolgrad_isa_info isa_table[] = {
    POOLGRAD_FOREACH_SIMD_ISA(ISA_ROW)
    { POOLGRAD_ISA_SCALAR, "scalar", 0, true, NULL },
};
#undef ISA_ROW
#define ISA_COUNT (sizeof isa_table / sizeof isa_table[0])

const poolgrad_isa_info *poolgrad_isa_info_of(poolgrad_isa isa)
{
    for (size_t i = 0; i < ISA_COUNT; i++)
        if (isa_table[i].isa == isa)
            return &isa_table[i];
    return NULL;
}

const char *poolgrad_isa_name(poolgrad_isa isa)
{
    const poolgrad_isa_info *in = poolgrad_isa_info_of(isa);
    return in ? in->name : "unknown";
}

int poolgrad_isa_level(poolgrad_isa isa)
{
    const poolgrad_isa_info *in = poolgrad_isa_info_of(isa);
    return in ? in->level : 0;
}

int poolgrad_isa_cap_level(const char *cap)
{
    if (!cap)
        return POOLGRAD_ISA_LEVEL_ANY;
    for (size_t i = 0; i < ISA_COUNT; i++)
        if (strcmp(cap, isa_table[i].name) == 0)
            return isa_table[i].level;
    return POOLGRAD_ISA_LEVEL_ANY; /* auto, empty and unknown names */
}

/* Best built ISA the CPU runs, ignoring any cap: the table is ordered best first. */
static poolgrad_isa detect_cpu_isa(void)
{
    for (size_t i = 0; i < ISA_COUNT; i++)
        if (isa_table[i].built && (!isa_table[i].cpu_has || isa_table[i].cpu_has()))
            return isa_table[i].isa;
    return POOLGRAD_ISA_SCALAR;
}

/* The only global state of the library: written once with the same value by whoever comes first. */
static atomic_int cpu_isa_cache = -1;

poolgrad_isa poolgrad_cpu_isa(void)
{
    int v = atomic_load_explicit(&cpu_isa_cache, memory_order_relaxed);
    if (v < 0) {
        v = (int)detect_cpu_isa();
        atomic_store_explicit(&cpu_isa_cache, v, memory_order_relaxed);
    }
    return (poolgrad_isa)v;
}

/* A test's cap for the calling thread only (not shared state); NULL = read POOLGRAD_ISA. */
static _Thread_local const char *thread_cap;
static _Thread_local char thread_cap_buf[16];

void poolgrad_set_thread_isa_cap(const char *cap)
{
    if (!cap) {
        thread_cap = NULL;
        return;
    }
    strncpy(thread_cap_buf, cap, sizeof thread_cap_buf - 1);
    thread_cap_buf[sizeof thread_cap_buf - 1] = '\0';
    thread_cap = thread_cap_buf;
}

poolgrad_isa poolgrad_active_isa(void)
{
    const poolgrad_isa best = poolgrad_cpu_isa();
    const int cap_level = poolgrad_isa_cap_level(thread_cap ? thread_cap : getenv("POOLGRAD_ISA"));
    /* the best built ISA of the CPU's architecture not above the cap; the table is ordered best first */
    const poolgrad_isa_info *b = poolgrad_isa_info_of(best);
    for (size_t i = 0; i < ISA_COUNT; i++) {
        const poolgrad_isa_info *in = &isa_table[i];
        if (in->level <= cap_level && in->level <= b->level && in->built &&
            (!in->cpu_has || in->cpu_has()))
            return in->isa;
    }
    return POOLGRAD_ISA_SCALAR;
}

bool poolgrad_isa_built(poolgrad_isa isa)
{
    const poolgrad_isa_info *in = poolgrad_isa_info_of(isa);
    return in && in->built;
}
