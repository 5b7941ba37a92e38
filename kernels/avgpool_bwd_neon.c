/* The gather kernels for AArch64 NEON: the 128-bit SIMDe x86 API, which SIMDe lowers to Advanced SIMD
 * (SIMDe 0.7 has no vdivq_f32 wrapper, its _mm_div_ps maps to it). Own translation unit and flags. */
#define PG_VEC_LEVEL 1
#define PG_ISA POOLGRAD_ISA_NEON
#define PG_ISA_NAME "neon"
#define PG_KSYM(x) poolgrad_kernel_neon_##x
#include "simd/kernels_tmpl.h"
