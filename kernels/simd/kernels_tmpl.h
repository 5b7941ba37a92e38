/*
 * The SIMD gather kernels of one ISA: the body of each ISA translation unit
 * (avgpool_bwd_{sse2,avx2,avx512,neon}.c), written once (dav1d *_tmpl.c style) and compiled once per ISA
 * with that ISA's flags (kernels/meson.build).
 *
 * Template parameters, defined by the including translation unit before inclusion:
 *   PG_VEC_LEVEL   1 (128-bit), 2 (256-bit) or 3 (512-bit): the vector layer, simd/vec.h
 *   PG_ISA         the poolgrad_isa the kernels are dispatched as
 *   PG_ISA_NAME    "sse2", "avx2", "avx512", "neon" (kernel name prefix)
 *   PG_KSYM(x)     the symbol of kernel x, e.g. poolgrad_kernel_avx512_##x
 * Defines the kernels of kernel_list.h's POOLGRAD_ISA_KERNELS for this ISA, and its exactness-critical
 * operations for the tests (PG_KSYM(exact)).
 *
 * Exactness (docs/SEMANTICS.md section 4): every gradInput element is produced once, by one work item:
 *   acc = +0.0f; for each covering window in ascending (od, oh, ow): acc = acc + (float)g / (float)divisor;
 *   one round-to-nearest-even store, every NaN stored as the dtype's canonical NaN.
 * Vector lanes are independent gradInput elements; a lane without a j-th window adds +0.0, which is
 * exact because acc is never -0.0 (it starts at +0.0 and x + y is -0.0 only if both are -0.0).
 * Divisions are IEEE divisions of the same operands (the divisor is the exact integer in float: either
 * (float)int64 computed in scalar code like the reference, or a product of two exact float factors whose
 * integer product is <= 2^24, hence exact); when every divisor is a power of two they multiply by the exact
 * reciprocal instead, the same bits (pg_quot, simd/common.h). The pre-divided kinds (_b, _q) divide once per gradOutput
 * element (same division) into a stack band or an f32 workspace, then only add.
 *
 * The design is 3 x 2: vectorized axis (W rows: _nchw*, channels-last: _nhwc*) x where q = go / divisor
 * is divided (in the run loop: direct; into a stack band: _b; a prepare pass into the workspace: _q),
 * plus _global, _nchw_f (a whole narrow plane as one flat vector array), _nchw_x2 (k = s = 2 along W: q
 * rows doubled), and _nchw_s1 / _nchw_s2: W rows with
 * stride 1 or 2 along W, a band of zero-padded q rows read by shifted loads instead of lane picks (stride 2: even
 * and odd columns summed apart). Files, in inclusion order:
 *   simd/vec.h          the vector layer (the only file naming SIMDe)
 *   simd/tuning.h       every tuning constant (unit, bound, origin) and the stack budget
 *   simd/common.h       problem facts shared by the kinds, the dtype dispatch, the row walk
 *   simd/mem.h          dtype-generic loads and stores (full, partial, strided, several rows)
 *   simd/axis.h         per-call window tables: axis ranges and factors, W chunks
 *   simd/qsource.h      q = go / divisor: the one division, the prepare pass, the band cache
 *   simd/global_tmpl.h  _global
 *   simd/nchw_tmpl.h    _nchw, _nchw_b, _nchw_q
 *   simd/nchw_s1_tmpl.h _nchw_s1, _nchw_s2 (stride 1 or 2 along W: shifted loads of zero-padded q rows)
 *   simd/nchw_f_tmpl.h  _nchw_f (narrow planes, stride 1, OW == IW: shifted loads of one flat q plane)
 *   simd/nchw_x2_tmpl.h _nchw_x2 (k = s = 2 along W, one window row per row: each q stored twice)
 *   simd/nhwc_tmpl.h    _nhwc, _nhwc_s1, _nhwc_b, _nhwc_q
 *   simd/exact_tmpl.h   conversions and quotients as array functions, for the exhaustive tests
 * All kernels handle any C / W (vector tails), empty gradOutput (out size 0: every element +0.0, gradOutput
 * never read), gapped views. Full-vector loads never leave the gradOutput view or the workspace (+ slack);
 * stores never touch an element outside the work item. Stack use per call is below PG_STACK_BUDGET.
 * Work items: rows (n, c, d, h) for the W-vectorized kernels, rows (n, d, h) for the channels-last ones,
 * so batch 1 with few channels still splits over all threads; items are independent, so the bits do not
 * depend on how they are split.
 */
#if !defined(PG_VEC_LEVEL) || !defined(PG_ISA) || !defined(PG_ISA_NAME) || !defined(PG_KSYM)
#error "define PG_VEC_LEVEL, PG_ISA, PG_ISA_NAME and PG_KSYM before including simd/kernels_tmpl.h"
#endif

#include "simd/vec.h"

#include "simd/common.h"
#include "simd/mem.h"
#include "simd/axis.h"
#include "simd/qsource.h"

#include "simd/global_tmpl.h"
#include "simd/nchw_tmpl.h"
#include "simd/nchw_s1_tmpl.h"
#include "simd/nchw_f_tmpl.h"
#include "simd/nchw_x2_tmpl.h"
#include "simd/nhwc_tmpl.h"
#include "simd/exact_tmpl.h"
