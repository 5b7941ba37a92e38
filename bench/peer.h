/*
 * peer.h — the library timed side by side with poolgrad (oneDNN), behind one small interface.
 *
 * bench/meson.build compiles exactly one implementation: peer_onednn.c when oneDNN is found, else
 * peer_none.c, whose peer_init() reports "not built". The rest of the benchmark has no #ifdef for it.
 */
#ifndef POOLGRAD_BENCH_PEER_H
#define POOLGRAD_BENCH_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "poolgrad/poolgrad.h"

typedef enum peer_state {
    PEER_NOT_BUILT, /* built without it (peer_none.c) */
    PEER_FAILED,    /* built with it, but it cannot run here (e.g. engine creation failed) */
    PEER_READY
} peer_state;

/* One problem, in the same memory as poolgrad's: gradOutput `go` read, gradInput `gi` written. */
typedef struct peer_problem {
    int sd;                    /* spatial dims, 2 or 3 */
    poolgrad_dtype dt;
    bool cl;                   /* channels-last (NHWC/NDHWC) rather than NCHW/NCDHW */
    const int64_t *gi_shape;   /* N, C, (D,) H, W */
    const int64_t *go_shape;
    const int64_t *k, *s, *p;  /* kernel, stride, padding per spatial axis, (D,) H, W */
    bool cip;                  /* count_include_pad */
    int64_t divisor;           /* divisor_override, 0: none */
    bool ceil_overhang;        /* ceil mode makes a window start in the right padding */
    const void *go;
    void *gi;
    int threads;
} peer_problem;

typedef struct peer_run peer_run;

/* The peer's display name ("oneDNN"). */
const char *peer_name(void);
/* Create the peer's engine; call once before any other call. max_isa ("avx2", "sse41" or NULL: all the CPU
 * has) caps the instruction sets it may use; false in *capped when it could not be capped. */
peer_state peer_init(const char *max_isa, bool *capped);
/* Its version (e.g. "2.6.3 (cpu runtime OpenMP)"), or "not built"; needs no peer_init(). */
const char *peer_version(void);
/*
 * Prepare one problem at pp->threads threads (outside any timing). On success the implementation name goes
 * to impl and a remark on comparability (or "") to note; on failure NULL, and impl says why: "no
 * implementation" when the peer has none for the problem on this CPU, "n/a (divisor override)" when it
 * cannot express the parameters.
 */
peer_run *peer_setup(const peer_problem *pp, char *impl, size_t impl_size, char *note, size_t note_size);
/* Run it once, to completion. */
void peer_exec(peer_run *r);
/* Free it and restore the thread settings peer_setup changed (also when r is NULL: after a failed setup). */
void peer_destroy(peer_run *r);
void peer_fini(void);

#endif /* POOLGRAD_BENCH_PEER_H */
