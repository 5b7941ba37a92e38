/* The gather kernels for avx2: one translation unit compiled with its own flags (kernels/meson.build). */
#define PG_VEC_LEVEL 2
#define PG_ISA POOLGRAD_ISA_AVX2
#define PG_ISA_NAME "avx2"
#define PG_KSYM(x) poolgrad_kernel_avx2_##x
#include "simd/kernels_tmpl.h"
