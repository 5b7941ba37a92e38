/*
 * The one table of instruction sets: X(ENUM, name, level, arch), best first within an architecture.
 *   ENUM   suffix of POOLGRAD_ISA_* (include/poolgrad/poolgrad.h) and of POOLGRAD_HAVE_* (poolgrad_config.h)
 *   name   the POOLGRAD_ISA value, the kernel-name infix (avgpool2d_bwd_f32__<name>_<kind>) and the
 *          translation unit kernels/avgpool_bwd_<name>.c
 *   level  rank on its architecture (a cap at level L allows every ISA of level <= L)
 *   arch   X86 or ARM: which CPUs can have it (the scalar reference is ANY)
 * lib/cpu.c adds the CPU test of each; kernel_list.h, checkasm and the benchmark read the same table.
 * Adding an ISA: a row here, its CPU test in lib/cpu.c, its TU and flags in kernels/meson.build
 * (kernels/README.md has the checklist).
 */
#ifndef POOLGRAD_KERNELS_ISA_TABLE_H
#define POOLGRAD_KERNELS_ISA_TABLE_H

#define POOLGRAD_FOREACH_SIMD_ISA(X) \
    X(AVX512, avx512, 3, X86) \
    X(AVX2, avx2, 2, X86) \
    X(SSE2, sse2, 1, X86) \
    X(NEON, neon, 1, ARM)

/* Level a POOLGRAD_ISA value caps at when it names no ISA (unset, "auto", "", unknown). */
#define POOLGRAD_ISA_LEVEL_ANY 99

#endif
