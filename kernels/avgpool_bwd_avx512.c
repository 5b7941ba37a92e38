/* The gather kernels for avx512: one translation unit compiled with its own flags (kernels/meson.build). */
#define PG_VEC_LEVEL 3
#define PG_ISA POOLGRAD_ISA_AVX512
#define PG_ISA_NAME "avx512"
#define PG_KSYM(x) poolgrad_kernel_avx512_##x
#include "simd/kernels_tmpl.h"
