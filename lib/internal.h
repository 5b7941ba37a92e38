/* Internal to libpoolgrad: the plan object, checked int64 arithmetic, dispatch. */
#ifndef POOLGRAD_LIB_INTERNAL_H
#define POOLGRAD_LIB_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "poolgrad/poolgrad.h"
#include "isa_table.h"
#include "poolgrad_config.h"
#include "problem.h"

/* Kernels receive their workspace aligned to this (a cache line); the caller's may have any address. */
#define POOLGRAD_WORKSPACE_ALIGN 64

/* More threads than this are never started (a hostile num_threads must not exhaust the process). */
#define POOLGRAD_THREAD_CAP 256

struct poolgrad_plan {
    poolgrad_problem problem;
    const poolgrad_kernel *kernel; /* NULL: nothing to compute (empty gradInput) */
    poolgrad_kernel_conf conf;     /* the kernel's blocking, decided here once */
    size_t workspace_size;         /* conf.workspace_size, or scratch_slots slots of scratch_stride bytes, plus the
                                    * alignment slack */
    int scratch_slots;             /* threads that get a slot of conf.scratch_size bytes (0: no scratch) */
    size_t scratch_stride;         /* conf.scratch_size rounded up to POOLGRAD_WORKSPACE_ALIGN */
    char kernel_name[64];
};

/* Checked int64 arithmetic: return false on overflow. */
static inline bool poolgrad_add_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
static inline bool poolgrad_mul_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

/* "f32", "f16", "bf16" (api.c) */
const char *poolgrad_dtype_name(poolgrad_dtype dtype);

/* ---- error messages (error.c) */
#define POOLGRAD_ERROR_MESSAGE_MAX 512
/* Record the calling thread's message (printf-style) and return status. */
poolgrad_status poolgrad_fail(poolgrad_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Rewrite the calling thread's message with `to` for every `from` (a front's names for the native ones). */
void poolgrad_error_rename(const char *from, const char *to);
/* "[a, b, c]" */
const char *poolgrad_format_dims(char *buf, size_t size, const int64_t *dims, int rank);
#define POOLGRAD_DIMS_BUF 160

/* ---- tensor views (tensor.c) */
/* dtype known, 1 <= rank <= POOLGRAD_MAX_RANK, no negative dim */
poolgrad_status poolgrad_check_tensor_basics(const poolgrad_tensor *t, const char *name);
/* element count of a view; false on overflow (dims must be non-negative) */
bool poolgrad_view_numel(const poolgrad_tensor *t, int64_t *numel);
/* lowest and highest element offsets a non-empty view reaches; POOLGRAD_ERR_OVERFLOW if that overflows */
poolgrad_status poolgrad_view_reach(const poolgrad_tensor *t, const char *name, int64_t *lo, int64_t *hi);
/* true if no two elements of the view share storage (conservative: may refuse exotic interleavings) */
bool poolgrad_view_is_one_to_one(const poolgrad_tensor *t);

/* ---- pooling parameters (params.c) */
poolgrad_status poolgrad_check_params(const poolgrad_params *pa);
/* kernel/stride/padding as 3 axes D, H, W (2D: D = 1, 1, 0) */
void poolgrad_params_3d(const poolgrad_params *pa, int64_t k[3], int64_t s[3], int64_t p[3]);

/* Forward output size of one axis (section 3); false if it overflows. *out may be negative. */
bool poolgrad_axis_output_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode, int64_t *out);

/*
 * A plan that writes +0.0 to every element of grad_input and reads nothing else (the aclnn 3D
 * front's empty-gradOutput case, which must succeed before the parameters are validated).
 * grad_input is fully validated (dtype, rank, view bounds, no self-overlap).
 */
poolgrad_status poolgrad_plan_create_zero_fill(const poolgrad_tensor *grad_input, poolgrad_plan **plan);

/* ---- instruction sets (cpu.c; the table is kernels/isa_table.h) */
typedef struct poolgrad_isa_info {
    poolgrad_isa isa;
    const char *name;   /* POOLGRAD_ISA value and kernel-name infix */
    int level;          /* rank on its architecture: scalar 0, sse2/neon 1, avx2 2, avx512 3 */
    bool built;         /* its translation unit is in this library */
    bool (*cpu_has)(void); /* NULL: every CPU (scalar) */
} poolgrad_isa_info;

const poolgrad_isa_info *poolgrad_isa_info_of(poolgrad_isa isa);
int poolgrad_isa_level(poolgrad_isa isa);
/* Level a POOLGRAD_ISA value caps at; POOLGRAD_ISA_LEVEL_ANY for NULL, "auto", "" and unknown names. */
int poolgrad_isa_cap_level(const char *cap);
/* Best built ISA of this CPU, without any cap (detected once). */
poolgrad_isa poolgrad_cpu_isa(void);
/* For tests: cap the calling thread's plans as POOLGRAD_ISA would (NULL: back to the environment). */
void poolgrad_set_thread_isa_cap(const char *cap);

/* ---- execution (execute.c) */
/*
 * The pipelined passes over nt threads (kernels with prepare_needed and prepare_first): thread t runs the run
 * items [rows_begin, rows_end) (contiguous, in order) and alternates their steps with the prepare items only its
 * rows read, [own_begin, own_end); the items its rows and the previous thread's both read, [halo_begin,
 * halo_end), are prepared by all threads first, behind the only barrier. The parts' prepare ranges tile
 * [0, prepare_items) in the order halo, own, next thread's halo... Returns false when they cannot (a thread's
 * rows too few for its neighbours' halos not to meet): then the whole prepare pass runs first.
 */
typedef struct poolgrad_pipe_part {
    int64_t rows_begin, rows_end, halo_begin, halo_end, own_begin, own_end;
} poolgrad_pipe_part;
bool poolgrad_pipe_part_of(const poolgrad_kernel *k, const poolgrad_problem *pr, const poolgrad_kernel_conf *conf,
                           int t, int nt, poolgrad_pipe_part *part);

/* Dispatch: best kernel for the problem under the active ISA cap, never NULL; *conf is its blocking. */
const poolgrad_kernel *poolgrad_select_kernel(const poolgrad_problem *pr, poolgrad_kernel_conf *conf);

#endif
