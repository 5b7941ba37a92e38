/* The gather kernels for sse2: one translation unit compiled with its own flags (kernels/meson.build). */
#define PG_VEC_LEVEL 1
#define PG_ISA POOLGRAD_ISA_SSE2
#define PG_ISA_NAME "sse2"
#define PG_KSYM(x) poolgrad_kernel_sse2_##x
#include "simd/kernels_tmpl.h"
