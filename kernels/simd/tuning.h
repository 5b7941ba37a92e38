/*
 * Internal: every tuning constant of the SIMD kernels, in one place. None of them changes a bit of the
 * results (each gradInput element still gets its own terms in ascending (od, oh, ow) order); they only
 * bound stack buffers and decide how work is blocked.
 *
 * Each entry: value and unit; what bounds it; where the value comes from. "Measured" means the commit
 * that introduced or changed the value reports a before/after benchmark (single thread, AVX-512 kernels,
 * chosen on AMD EPYC Zen 4 as the commit history records it); the other values were set when the code
 * was written and no measurement of alternatives is recorded.
 *
 * The budget: every kernel call (run or prepare) uses less than PG_STACK_BUDGET bytes of stack. It is
 * enforced at build time on the kernel libraries (kernels/meson.build: gcc -Werror=stack-usage=,
 * clang -Werror=frame-larger-than=), and the _Static_asserts below and in the templates check the
 * largest buffers against it.
 */
#ifndef POOLGRAD_KERNELS_SIMD_TUNING_H
#define POOLGRAD_KERNELS_SIMD_TUNING_H

/* Stack bytes one kernel call may use: execute() runs kernels on OpenMP threads, whose stacks are
 * often small (OMP_STACKSIZE). Bound: the build-time check. */
#ifndef PG_STACK_BUDGET /* kernels/meson.build passes the value it enforces */
#define PG_STACK_BUDGET 65536
#endif

/* ---- shared by the W-vectorized kinds (_nchw, _nchw_b, _nchw_q) */

/* W chunks (of VL gradInput elements) per W block: the per-chunk window tables (pg_wchunk, ~150 B at
 * VL 16) live on the stack. Unit: chunks (a W block is PG_WCH * VL elements). Bound: stack. Origin: set
 * with the first SIMD kernels, no measurement recorded. */
#define PG_WCH 64

/* Windows per lane with precomputed lane selectors (vsel_at once per chunk, not per window row);
 * a lane with more windows is picked with selectors made on the fly. Unit: windows. Bound: registers
 * and the unrolled cases 1..3 of the _nchw chunk loop (needs >= 3). Origin: set with the per-chunk
 * selectors, no measurement recorded. */
#define PG_JMAX 4

/* Longest axis (input or output extent) with per-call window tables (pg_axis: 2 x int32 + int64 per
 * index, 8 KiB per axis at 512); longer axes compute ranges and factors on the fly. Unit: indices.
 * Bound: stack (lowered from 1024 to make room for the _nchw_b band, commit d7bc95b). */
#define PG_AXMAX 512

/* Window rows (od, oh) per gradInput row (or row block) the row walks can hold: offset, divisor and
 * mask tables of this many entries live on the stack; problems with more are not supported by the SIMD
 * kernels (the reference takes them). Unit: window rows. Bound: stack. Origin: no measurement
 * recorded. */
#define PG_TMAX 512

/* _nchw: consecutive gradInput rows of one (n, c) plane with the same windows, computed once and
 * stored to each. Unit: rows. Bound: the dst pointer table. Origin: no measurement recorded. */
#define PG_GROUP 8

/* _nchw_q prepare pass: W factors tabulated per block of this many gradOutput columns. Unit: columns
 * (floats on the stack: PG_OWB + VL). Bound: stack. Origin: set with the first SIMD kernels, no
 * measurement recorded. */
#define PG_OWB 1024

/* _nchw_b / _nchw_q: consecutive gradInput rows of one (n, c, d) plane run as one block, sharing
 * loads and picks of the window rows they have in common. Unit: rows. Bound: accumulators in registers
 * (PG_RB per chunk) and the row mask (unsigned, <= 32 bits). Origin: commit 6174a65, no numbers
 * recorded. */
#define PG_RB 4

/* _nchw_b band: q floats cached on the stack (16 KiB, half of a 32 KiB L1D), the longest cached q row
 * (floats) and the number of cached rows (tags). Bound: stack and L1D. Origin: measured, commit d7bc95b
 * (against the workspace kernel: resnet f32 nchw 3.12 -> 2.43 ms, inception f32 7.2 -> 6.4 ms, 3D k3s1
 * bf16 14.4 -> 10.8 ms). */
#define PG_BQ 4096
#define PG_BL 1024
#define PG_BSLOTS 512

/* _nchw_b with whole od slabs in the band: the oh rows and row masks of the row blocks at multiples of
 * row_block, computed once per run call (a plane's rows all share them). Units: row blocks, entries
 * (one oh row of one block each). Bound: stack; taller planes compute each block's rows as they go.
 * Origin: set with the slab schedule: 64 blocks (256 rows at PG_RB 4) and 256 entries cover the
 * standard suite's planes and leave the -Dportable AVX-512 build (larger frames) under the stack budget. */
#define PG_HSB 64
#define PG_HSE 256

/* _nchw_s1 (stride 1 along W): the band (floats, 32 KiB with the zero row: a tile's oh rows of the od
 * slabs, small enough to stay in L1D), the widest W kernel it takes (its q rows carry k - 1 extra
 * columns), od slots, chunks per W block, rows per block, and the shortest tile along H taken before a
 * narrower W block (more halo columns) is tried. One element's sum is a chain of dependent adds, so
 * several chains (rows x chunks) hide the add latency. Bound: stack, L1D and registers. Origin: set with
 * the kernel; its commit reports the speed against _nchw_b. */
#define PG_S1Q 8192
#define PG_S1K 16
#define PG_S1SD 64
#define PG_S1G 4
#define PG_S1R 4
#define PG_S1TH 8
/* _nchw_s1/_s2: the W factors of rows up to this many windows are tabulated once per call (floats on the
 * stack). Origin: the standard suite's rows (OW 28-56) with room, under the stack budget. */
#define PG_S1FW 256
/* _nchw_s1 accumulators in registers: 16 of the 32 registers at 512 bits, 8 of the 16 elsewhere (blocks
 * of PG_S1R rows when G x PG_S1R fit, else PG_S1R / 2) */
#define PG_S1ACC (PG_VEC_LEVEL == 3 ? 16 : 8)
#define PG_S1RG(G) ((G) * PG_S1R <= PG_S1ACC ? PG_S1R : PG_S1R / 2)

/* _nchw_f (flat planes): band floats (16 KiB: the plane's q with its zero rows, in L1D; the divisor plane
 * takes as much), the widest W kernel (one lane mask per term column) and vectors in flight (chains of
 * dependent adds). Bound: stack, L1D and registers (more vectors spill the lane masks). Origin: measured
 * with the kernel on AMD Zen 5, AVX-512, 64 planes of 35x35 k3 in cache, ns per element f32 / bf16:
 * PG_FR 1: 0.342 / 0.328, 2: 0.327 / 0.314, 3: 0.392 / 0.358, 4: 0.386 / 0.348, 6: 0.415 / 0.387. */
#define PG_FQ 4096
#define PG_FK 7
#define PG_FR 2

/* ---- channels-last kinds (_nhwc, _nhwc_b, _nhwc_q) */

/* Vectors per channel block (accumulators in registers). Unit: vectors of VL channels. Bound:
 * registers (16 at 128/256 bits). Origin: set with the first SIMD kernels, no measurement recorded. */
#define PG_CU 4

/* _nhwc_q: gradInput elements per step of the pipelined execution (the q a step prepares is read by the step's
 * rows and the next ones while cached, instead of a workspace pass through memory). Unit: elements (rows of
 * IW x C, at least one). Bound: L2 (the q planes of a step and its neighbours). Origin: AMD Zen 4, 3D k3s1p1
 * ceil NDHWC (32 MiB of q): 65536 and 262144 0.83-0.97 of the time of the whole prepare pass first, 16384
 * slower than 65536 (1.03-1.4); 1048576 against 262144 (2026-12-06, 4 alternating pairs, f32 and f16)
 * 0.99-1.08 with one thread, 0.97-0.99 with two in the quiet pairs. */
#define PG_QPIPE 262144
/* _nhwc_q: the smallest workspace that is pipelined. Unit: bytes. Bound: below it the workspace stays
 * largely cached between the passes and the steps' barriers cost more than they save. Origin: AMD Zen 4
 * (32 MB L3), 3D k3s2p1 NDHWC (6.1 MiB of q) pipelined: 1.02 the time with 1 thread, 1.12-1.14 with 2. */
#define PG_QPIPE_MIN_BYTES (16 << 20)

/* f16/bf16: consecutive pixels of a row with the same windows, computed and narrowed once. Unit:
 * pixels. Bound: the dst pointer table. Origin: commit 09f6fe9, no numbers recorded. */
#define PG_CLP 32

/* _nhwc_b and _nhwc_q: rows with at most this many window rows take the constant-shape pixel walk
 * (nhwc_row_few) when W is k2s1 or k3s2. Unit: window rows. Bound: code size (an inlined pixel body per
 * shape). Origin: 4 covers k3s2 along D and H (3D k3s2p1 NDHWC: f16/bf16 0.84-0.94 of the time before) and
 * 2D (resnet). */
#define PG_FEWT 4

/* _nchw_x2: the widest gradOutput row (its W factors are tabulated on the stack). Unit: windows (4 bytes
 * each). Bound: stack. Origin: set with the kernel (gradInput rows up to 8192 columns). */
#define PG_X2OW 4096
/* _nchw_x2: consecutive rows with one window row, computed once and stored to each (k = s = 2 along H: 2).
 * Bound: none that matters (a pointer each). Origin: set with the kernel. */
#define PG_X2R 4
/* _nchw_x2 streaming (conf->stream_stores): the widest gradInput row built on the stack and streamed. Unit:
 * floats. Bound: stack (PG_X2SW + 16 floats beside the W factors). Origin: set with the streaming path (the
 * standard rows are 56 floats wide). */
#define PG_X2SW 2048
/* ... and only with vectors of this many bytes or more. Unit: bytes. Bound: a 64-byte line per store.
 * Origin: measured on an Intel Xeon (AVX-512 F/BW/VL/FP16, 2 cores of a VM, alternating suite runs, 3 rounds
 * against the unstreamed kernel, 2026-12-06): AVX-512, one thread, k2s2 f32 NCHW (24.5 MiB) 2.17-2.78 ->
 * 1.38-1.51 ms, 3D k2s2 f32 NCDHW (49 MiB) 7.25-7.51 -> 2.87-2.94 ms; two threads 0.69-0.71 -> 0.69-0.76 ms
 * and 2.50-3.16 -> 1.35-1.38 ms. Under the AVX2 cap (32-byte stores, 2 rounds) one thread gained too (2D
 * 2.97-3.72 -> 2.39-2.58 ms, 3D 7.6-7.7 -> 5.5 ms), but the 2D row with two threads took 1.15 ms against
 * 0.79-0.86. On AMD Zen 4 (AVX-512, same protocol, 10 rounds, 2026-12-06) streaming costs instead: one thread
 * 3D 2.48-3.78 -> 2.96-4.77 ms (the 4 quietest rounds 2.62-2.72 -> 2.96-2.99), 2D 1.27-2.11 -> 1.40-1.53 ms; two
 * threads 3D 1.35-2.65 -> 2.01-2.48, 2D 0.91-1.14 -> 1.02-1.18. Kept for every CPU: the Xeon's gain is the
 * larger, and no choice here depends on the CPU's vendor. */
#define PG_X2_STREAM_MIN_VECTOR_BYTES 64

/* _nhwc_b band: q floats cached on the stack (24 KiB), slots (tags) and gradInput rows per group (the
 * group's rows stay in cache between channel blocks). Bound: stack and L1/L2. Origin: measured, commit
 * cfee2ca (inception bf16 nhwc 6.25 -> 3.05 ms, resnet f16 nhwc 2.41 -> 1.28 ms against _nhwc_q). */
#define PG_CBQ 6144
#define PG_CBS 64
#define PG_CBR 16

/* _nhwc_s1: window rows per gradInput row (each keeps three q registers per vector) and vectors per channel
 * block. Bound: registers (3 x PG_WS1T x PG_WS1V of them). Origin: set with the kernel. */
#define PG_WS1T 3
#define PG_WS1V (PG_VEC_LEVEL == 3 ? 2 : 1)
/* _nhwc_s1 with its ring: whether the walk loads every term from the ring (nhwc_s1_block_ring, PG_WS1L vectors
 * per channel block) instead of rotating them through registers (nhwc_s1_block, PG_WS1V). Bound: registers and
 * load ports. Origin: AMD Zen 4, inception k3s1p1 NHWC, one thread, 3 interleaved rounds (2026-12-06): under
 * the AVX2 cap 0.87 (f32), 0.85 (f16), 0.97 (bf16) of the time with 4 vectors; with AVX-512 1.08-1.17 with 4
 * vectors and 1.12-1.15 with 2, so AVX-512 keeps its registers. */
#define PG_WS1_RING_LOADS (PG_VEC_LEVEL < 3)
#define PG_WS1L 4

/* _nhwc_s1 q ring (per-thread scratch): most bytes of its PG_WS1T slots of OW x C floats. Unit: bytes. Bound:
 * L2 (the ring is read once per pixel and window row). Origin: measured on AMD Zen 4 (AVX-512, one thread,
 * f32 NHWC k3s1p1, medians of 3 interleaved rounds, 2026-12-04): rings of 172, 344 and 688 KiB (C 256, 512,
 * 1024 at 56 x 56) took 0.62-0.68 of the time without; larger rings were not measured. */
#define PG_WS1_RING_MAX (1 << 20)

/* Non-temporal f32 stores (conf->stream_stores): from this many gradInput bytes. Unit: bytes. Bound: half a
 * 32 MiB last-level cache (one Zen 3/4/5 CCD), which the gradOutput being read shares; smaller outputs stay
 * cached for the next operator. Origin: measured on AMD Zen 4 (AVX-512, one thread, standard suite,
 * alternating runs, ratios to oneDNN pairwise): inception f32 NHWC (_nhwc_s1, 28.7 MiB) 0.82-0.91x -> 1.26-1.38x,
 * k2s2 f32 NHWC (24.5 MiB) 1.12-1.19x -> 1.42-1.52x, resnet f32 NHWC (24.5 MiB) unchanged (1.04-1.16x against
 * 1.07-1.15x), 51 MB f32 NDHWC rows 14-28% faster (3D k3s2p1 _nhwc_q 4.0 -> 2.9 ms, 3D k2s2 _nhwc 2.65 ->
 * 2.27 ms); f16/bf16 rows unchanged when streamed, so they are not, except in the pixel walks of _nhwc_b and
 * _nhwc_q with k2s1/k3s2 along W (pg_stream_worth_half; from the same element count, 16 MiB as f32): with the
 * row pairs of nhwc_row_few_pair, 2026-12-05 (3 interleaved rounds against unpaired, unstreamed 0e88c67,
 * AVX-512) resnet NHWC f16 0.81, bf16 0.73, 3D k3s2p1 NDHWC f16 0.82, bf16 0.84 of the time (one thread),
 * 0.78-0.99 with two, the other channels-last rows within noise. At any thread
 * count: with two threads, 3D k2s2 f32 NDHWC once measured 11% slower (1.78 -> 1.99 ms), but 2026-12-04 (10-12
 * interleaved rounds, medians) 3D k3s1p1 ceil f32 NCDHW 8.20 -> 7.28 ms and NDHWC 8.34 -> 7.40 ms streamed, 3D
 * k2s2 f32 NDHWC 2.16 -> 2.10 ms and 3D k3s2p1 f32 NDHWC 2.57 -> 2.54 ms (the unstreamed rows of the same runs
 * moved up to 7%).
 * _nchw_s1 (3D k3s1p1 ceil f32 NCDHW, rows of 64) 17 -> 18-19x oneDNN; _nchw_s2 with rows of 64 unchanged,
 * with rows of 56 (resnet) 1.4x slower, hence pg_stream_worth's whole-lines condition. */
#define PG_STREAM_MIN_BYTES (16LL << 20)

/* ... and only with vectors of this many bytes or more. Unit: bytes. Bound: 16-byte streaming stores (SSE2)
 * measured slower: on AMD Zen 4 under the SSE2 cap (min of 3 interleaved rounds, one thread, f32
 * channels-last) streamed / not: resnet 1.10, k2s2 1.20, 3D k2s2 1.28, 3D k3s2p1 1.07; under the AVX2 cap
 * (32-byte stores) 0.85-1.07 (k2s2 0.85, 3D k3s2p1 0.91, 3D k2s2 0.93, resnet 1.07). On NEON vf_stream is a
 * plain store. */
#define PG_STREAM_MIN_VECTOR_BYTES 32

/* ---- global pooling */

/* Channels per pattern block of the channels-last global fill (one block for usual C, so each pixel
 * is one contiguous copy). Unit: channels (PG_GCB * 4 bytes on the stack). Bound: stack. Origin:
 * measured, commit 93a54ca (256 -> 4096: f32 nhwc 947 -> 376 us, bf16 nhwc 529 -> 161 us). */
#define PG_GCB 4096

/* Pattern bytes per pixel from which the channels-last global fill copies with memcpy (glibc 2.36: rep movsb
 * from 2112 bytes) rather than through vector registers. Unit: bytes. Origin: measured on AMD Zen 5
 * (global_k7s7 NHWC, C = 2048, so 4 KiB a pixel at 16 bits and 8 KiB at f32; interleaved rounds, medians of
 * the time after a memcpy): through registers f16 0.77 and bf16 0.65 of the memcpy time (AVX-512, 5 rounds),
 * 0.84 and 0.67 under the AVX2 cap (5), 0.79 and 0.81 under the SSE2 cap (4); f32 through registers 1.08
 * (8 rounds, within the spread), so 8 KiB stays with memcpy. Not measured on Zen 4 or Intel. */
#define PG_GCOPY_MEMCPY_MIN_BYTES 8192

/* Largest plane (elements) that the 16-bit NCHW global fill at 512 bits picks from a superblock's plane
 * bits by a lane index table (2 PG_GTAB_P vectors on the stack) instead of filling plane by plane.
 * Unit: elements. Bound: stack (8 KiB). Origin: measured (global_k7s7, P = 49, 6 interleaved rounds,
 * medians, AVX-512): f16 0.79-0.85, bf16 0.80-0.92 of the plane-by-plane time; AVX2 cap 1.35, f32 no
 * gain. */
#define PG_GTAB_P 64

/* ---- buffer checks (sizes independent of the vector width; the templates check the rest) */
_Static_assert(PG_JMAX >= 3, "the _nchw chunk loop unrolls windows 0..2 on precomputed selectors");
_Static_assert(PG_RB >= 1 && PG_RB <= 32, "row masks of a block are unsigned bit sets");
_Static_assert(PG_RB <= 8, "the slab schedule keeps row masks in 8 bits");
_Static_assert(PG_BL <= PG_BQ, "a _nchw_b band row must fit the band");
_Static_assert(PG_BSLOTS * 8 + PG_BQ * 4 + PG_BL * 4 <= PG_STACK_BUDGET / 2, "_nchw_b band buffers");
_Static_assert(PG_S1R == 4, "_nchw_s1/_s2: the cover patterns (PG_S1_SLIDE4, PG_S1_ALT4A, ...) are for blocks of 4 or 2 rows");
_Static_assert(PG_CBQ * 4 + PG_CBS * 8 <= PG_STACK_BUDGET / 2, "_nhwc_b band buffers");
_Static_assert(PG_GCB * 4 <= PG_STACK_BUDGET / 2, "global pattern buffer");
_Static_assert(PG_GTAB_P * 2 * 64 <= PG_STACK_BUDGET / 4, "global lane index table (2 PG_GTAB_P vectors of 64 bytes at most)");
_Static_assert(PG_TMAX * (8 + 8) <= PG_STACK_BUDGET / 4, "window-row tables");
_Static_assert(PG_AXMAX * (4 + 4 + 8) * 3 <= PG_STACK_BUDGET, "three axis tables");

#endif
