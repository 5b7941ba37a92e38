/* Internal to libpoolgrad: the plan object, checked int64 arithmetic, dispatch. */
#ifndef POOLGRAD_LIB_INTERNAL_H
#define POOLGRAD_LIB_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "poolgrad/poolgrad.h"
#include "problem.h"

struct poolgrad_plan {
    poolgrad_problem problem;
    const poolgrad_kernel *kernel; /* NULL: nothing to compute (empty gradInput) */
    size_t workspace_size;
    char kernel_name[64];
};

/* Checked int64 arithmetic: return false on overflow. */
static inline bool poolgrad_add_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
static inline bool poolgrad_mul_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

/* Forward output size of one axis (section 3); false if it overflows. *out may be negative. */
bool poolgrad_axis_output_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode, int64_t *out);

/*
 * A plan that writes +0.0 to every element of grad_input and reads nothing else (the aclnn 3D
 * front's empty-gradOutput case, which must succeed before the parameters are validated).
 * grad_input is fully validated (dtype, rank, view bounds, no self-overlap).
 */
poolgrad_status poolgrad_plan_create_zero_fill(const poolgrad_tensor *grad_input, poolgrad_plan **plan);

/* Rank of an ISA on its architecture (scalar 0, sse2/neon 1, avx2 2, avx512 3): a cap above what the CPU
 * has means the best below it. */
int poolgrad_isa_level(poolgrad_isa isa);
/* Level a POOLGRAD_ISA value caps at; POOLGRAD_ISA_LEVEL_ANY for NULL, "auto", "" and unknown names. */
#define POOLGRAD_ISA_LEVEL_ANY 99
int poolgrad_isa_cap_level(const char *cap);

/* Dispatch: best kernel for the problem under the active ISA cap; never NULL. */
const poolgrad_kernel *poolgrad_select_kernel(const poolgrad_problem *pr);

#endif
