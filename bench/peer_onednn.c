/*
 * peer_onednn.c — oneDNN (C API, 2.x) as the side-by-side peer.
 *
 * pooling_avg_include_padding / _exclude_padding backward, the primitive created once per row (forward
 * primitive descriptor as hint), the same memory layout (nchw/nhwc/ncdhw/ndhwc tags over poolgrad's
 * gradOutput buffer), thread count set with omp_set_num_threads. Every dtype is asked for; where oneDNN
 * has no implementation on this CPU (2.6: f16 never, bf16 only with AVX-512) the row says "no
 * implementation". ceilMode is expressed as extra right padding (as PyTorch does); oneDNN has no
 * divisor override. With a ceil-mode overhang and countIncludePad, oneDNN divides by the full kernel
 * volume, PyTorch/poolgrad by the window clipped at I + pad: the time is comparable, the values differ.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dnnl.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"
#include "peer.h"

static dnnl_engine_t dnnl_eng;
static dnnl_stream_t dnnl_strm;
static bool dnnl_ok;
static char version[64];

struct peer_run {
    dnnl_primitive_desc_t fwd_pd, bwd_pd;
    dnnl_primitive_t prim;
    dnnl_memory_t m_dst, m_src;
};

const char *peer_name(void) { return "oneDNN"; }

peer_state peer_init(const char *max_isa, bool *capped)
{
    *capped = false;
#if defined(__x86_64__) || defined(__i386__)
    /* before the engine: oneDNN takes the cap only before it generates any code */
    if (max_isa)
        *capped = dnnl_set_max_cpu_isa(!strcmp(max_isa, "avx2") ? dnnl_cpu_isa_avx2 : dnnl_cpu_isa_sse41) ==
                  dnnl_success;
#else
    (void)max_isa;
#endif
    if (dnnl_engine_create(&dnnl_eng, dnnl_cpu, 0) != dnnl_success)
        return PEER_FAILED;
    if (dnnl_stream_create(&dnnl_strm, dnnl_eng, dnnl_stream_default_flags) != dnnl_success)
        return PEER_FAILED;
    dnnl_ok = true;
    return PEER_READY;
}

const char *peer_version(void)
{
    const dnnl_version_t *v = dnnl_version();
    snprintf(version, sizeof version, "%d.%d.%d (cpu runtime %s)", v->major, v->minor, v->patch,
             v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other");
    return version;
}

static void run_free(peer_run *d)
{
    if (d->prim) dnnl_primitive_destroy(d->prim);
    if (d->bwd_pd) dnnl_primitive_desc_destroy(d->bwd_pd);
    if (d->fwd_pd) dnnl_primitive_desc_destroy(d->fwd_pd);
    if (d->m_dst) dnnl_memory_destroy(d->m_dst);
    if (d->m_src) dnnl_memory_destroy(d->m_src);
    free(d);
}

peer_run *peer_setup(const peer_problem *pp, char *impl, size_t impl_size, char *note, size_t note_size)
{
    snprintf(impl, impl_size, "%s", "");
    snprintf(note, note_size, "%s", "");
#ifdef _OPENMP
    omp_set_num_threads(pp->threads);
#endif
    if (!dnnl_ok) {
        snprintf(impl, impl_size, "no engine");
        return NULL;
    }
    if (pp->divisor) {
        snprintf(impl, impl_size, "n/a (divisor override)");
        return NULL;
    }
    peer_run *d = calloc(1, sizeof *d);
    if (!d)
        die("out of memory");
    const int nd = 2 + pp->sd;
    dnnl_dims_t src_dims, dst_dims, strides, kernel, pl, pr;
    for (int i = 0; i < nd; i++) {
        src_dims[i] = pp->gi_shape[i];
        dst_dims[i] = pp->go_shape[i];
    }
    for (int a = 0; a < pp->sd; a++) {
        int64_t I = pp->gi_shape[2 + a], O = pp->go_shape[2 + a];
        strides[a] = pp->s[a];
        kernel[a] = pp->k[a];
        pl[a] = pp->p[a];
        int64_t need = (O - 1) * pp->s[a] + pp->k[a] - I - pp->p[a]; /* right padding: oneDNN's floor gives O */
        pr[a] = need > pp->p[a] ? need : pp->p[a];
    }
    dnnl_format_tag_t tag = pp->sd == 2 ? (pp->cl ? dnnl_nhwc : dnnl_nchw) : (pp->cl ? dnnl_ndhwc : dnnl_ncdhw);
    dnnl_data_type_t ddt = pp->dt == POOLGRAD_F32 ? dnnl_f32 : pp->dt == POOLGRAD_F16 ? dnnl_f16 : dnnl_bf16;
    dnnl_memory_desc_t src_md, dst_md;
    dnnl_alg_kind_t alg = pp->cip ? dnnl_pooling_avg_include_padding : dnnl_pooling_avg_exclude_padding;
    dnnl_pooling_desc_t fd, bd;
    dnnl_status_t st;
    if ((st = dnnl_memory_desc_init_by_tag(&src_md, nd, src_dims, ddt, tag)) != dnnl_success ||
        (st = dnnl_memory_desc_init_by_tag(&dst_md, nd, dst_dims, ddt, tag)) != dnnl_success ||
        (st = dnnl_pooling_forward_desc_init(&fd, dnnl_forward_training, alg, &src_md, &dst_md, strides, kernel, pl,
                                             pr)) != dnnl_success ||
        (st = dnnl_primitive_desc_create(&d->fwd_pd, &fd, NULL, dnnl_eng, NULL)) != dnnl_success ||
        (st = dnnl_pooling_backward_desc_init(&bd, alg, &src_md, &dst_md, strides, kernel, pl, pr)) != dnnl_success ||
        (st = dnnl_primitive_desc_create(&d->bwd_pd, &bd, NULL, dnnl_eng, d->fwd_pd)) != dnnl_success ||
        (st = dnnl_primitive_create(&d->prim, d->bwd_pd)) != dnnl_success ||
        (st = dnnl_memory_create(&d->m_dst, &dst_md, dnnl_eng, (void *)pp->go)) != dnnl_success ||
        (st = dnnl_memory_create(&d->m_src, &src_md, dnnl_eng, pp->gi)) != dnnl_success) {
        run_free(d);
        /* oneDNN asked about every dtype: no f16 pooling on the CPU in 2.6, no bf16 without AVX-512 */
        if (st == dnnl_unimplemented)
            snprintf(impl, impl_size, "no implementation");
        else
            snprintf(impl, impl_size, "unsupported (status %d)", (int)st);
        return NULL;
    }
    const char *s = NULL;
    if (dnnl_primitive_desc_query(d->bwd_pd, dnnl_query_impl_info_str, 0, &s) == dnnl_success && s)
        snprintf(impl, impl_size, "%.47s", s);
    if (pp->ceil_overhang && pp->cip)
        snprintf(note, note_size, "ceil overhang: oneDNN divisor differs");
    return d;
}

void peer_exec(peer_run *d)
{
    dnnl_exec_arg_t args[2] = { { DNNL_ARG_DIFF_DST, d->m_dst }, { DNNL_ARG_DIFF_SRC, d->m_src } };
    dnnl_primitive_execute(d->prim, dnnl_strm, 2, args);
    dnnl_stream_wait(dnnl_strm);
}

void peer_destroy(peer_run *d)
{
    if (d)
        run_free(d);
#ifdef _OPENMP
    omp_set_num_threads(max_threads());
#endif
}

void peer_fini(void)
{
    if (dnnl_strm)
        dnnl_stream_destroy(dnnl_strm);
    if (dnnl_eng)
        dnnl_engine_destroy(dnnl_eng);
}
