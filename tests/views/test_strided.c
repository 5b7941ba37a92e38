/*
 * Strided views: gradInput and gradOutput as channels-last, permuted, gapped (strides larger than
 * dense), offset, reversed (negative stride) and broadcast (stride 0, gradOutput only) views inside
 * sentinel-filled storage (testutil's pgt_alloc). For random problems, both operators, all dtypes,
 * through the native API and the aclnn front:
 *  - the gradInput read through the view equals the contiguous computation bit for bit,
 *  - no storage element outside the gradInput view changes (and the guard zones stay intact),
 *  - gradOutput's storage is not modified at all.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "testutil.h"
#include "aclnn_runner.h"
#include "oracle.h"

enum { K_DENSE, K_CHANNELS_LAST, K_PERMUTED_GAPPED, K_GAPPED_OFFSET, K_REVERSED, K_BROADCAST, K_COUNT };
static const char *const kind_name[K_COUNT] = { "dense", "channels-last", "permuted+gapped", "gapped+offset",
                                                "reversed", "broadcast" };

typedef struct view {
    int rank;
    int64_t shape[5], strides[5], offset, storage_numel;
} view;

/* A one-to-one (or, for K_BROADCAST, stride-0 on C) view of `shape`; sd locates the channel dim. */
static view make_view(pgt_rng *r, int rank, int sd, const int64_t *shape, int kind)
{
    view v;
    memset(&v, 0, sizeof v);
    v.rank = rank;
    memcpy(v.shape, shape, sizeof(int64_t) * (size_t)rank);
    int order[5], n = 0; /* memory order, innermost first */
    const int cdim = rank - sd - 1;
    if (kind == K_CHANNELS_LAST)
        order[n++] = cdim;
    for (int d = rank - 1; d >= 0; d--)
        if (!(kind == K_CHANNELS_LAST && d == cdim))
            order[n++] = d;
    if (kind == K_PERMUTED_GAPPED)
        for (int i = rank - 1; i > 0; i--) {
            int j = (int)pgt_range(r, 0, i), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    const bool gaps = kind == K_PERMUTED_GAPPED || kind == K_GAPPED_OFFSET || kind == K_REVERSED;
    int64_t ext = 1; /* reach of the dims placed so far, + 1 */
    for (int i = 0; i < rank; i++) {
        int d = order[i];
        int64_t st = ext + (gaps ? pgt_range(r, 0, 3) : 0);
        v.strides[d] = st;
        ext = st * (shape[d] - 1) + ext;
    }
    if (kind == K_BROADCAST)
        v.strides[cdim] = 0;
    v.offset = kind == K_GAPPED_OFFSET || kind == K_REVERSED ? pgt_range(r, 1, 9) : 0;
    if (kind == K_REVERSED) { /* flip W and one random other axis */
        int flip[2] = { rank - 1, (int)pgt_range(r, 0, rank - 2) };
        for (int f = 0; f < 2; f++) {
            int d = flip[f];
            if (v.strides[d] > 0) {
                v.offset += v.strides[d] * (shape[d] - 1);
                v.strides[d] = -v.strides[d];
            }
        }
    }
    int64_t hi = v.offset;
    for (int d = 0; d < rank; d++)
        if (v.strides[d] > 0)
            hi += v.strides[d] * (shape[d] - 1);
    v.storage_numel = hi + 1 + (gaps ? pgt_range(r, 0, 5) : 0);
    return v;
}

static int64_t numel_of(int rank, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    return n;
}

static int64_t elem_offset(const view *v, int64_t i)
{
    int64_t off = v->offset;
    for (int d = v->rank - 1; d >= 0; d--) {
        off += (i % v->shape[d]) * v->strides[d];
        i /= v->shape[d];
    }
    return off;
}

static poolgrad_tensor native_of(const view *v, poolgrad_dtype dt, void *storage)
{
    poolgrad_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dt;
    t.rank = v->rank;
    for (int d = 0; d < v->rank; d++) {
        t.shape[d] = v->shape[d];
        t.strides[d] = v->strides[d];
    }
    t.offset = v->offset;
    t.storage_numel = v->storage_numel;
    t.storage = storage;
    return t;
}

typedef struct sparam {
    int sd, dtype;
} sparam;

ParameterizedTestParameters(strided, random_views)
{
    static sparam p[6];
    int n = 0;
    for (int sd = 2; sd <= 3; sd++)
        for (int dt = 0; dt < 3; dt++)
            p[n++] = (sparam){ sd, dt };
    return cr_make_param_array(sparam, p, (size_t)n);
}

ParameterizedTest(sparam *sp, strided, random_views, .timeout = 60)
{
    const poolgrad_dtype dt = (poolgrad_dtype)sp->dtype;
    const int sd = sp->sd;
    const size_t es = poolgrad_dtype_size(dt);
    char what[48];
    snprintf(what, sizeof what, "strided %dD dtype %d", sd, sp->dtype);
    pgt_rng rng = { pgt_seed(what, 0x57d0000u + (uint64_t)sd * 16 + (uint64_t)sp->dtype) };
    int runs = 0;
    for (int it = 0; it < 60; it++) {
        /* a random problem, output >= 1 on every axis */
        const int rank = sd + (pgt_range(&rng, 0, 2) ? 2 : 1);
        int64_t ishape[5], oshape[5];
        poolgrad_params pa;
        pgt_problem u;
        for (;;) {
            int i = 0;
            if (rank == sd + 2)
                ishape[i++] = pgt_range(&rng, 1, 2);
            ishape[i++] = pgt_range(&rng, 1, it % 4 == 0 ? 37 : 3);
            for (int a = 0; a < sd; a++)
                ishape[i++] = pgt_range(&rng, 1, sd == 2 ? (it % 3 == 0 ? 40 : 9) : 6);
            int64_t k[3], s[3], p[3];
            for (int a = 0; a < sd; a++) {
                k[a] = pgt_range(&rng, 1, 4);
                s[a] = pgt_range(&rng, 1, 3);
                p[a] = pgt_range(&rng, 0, k[a] / 2);
            }
            int64_t div = pgt_range(&rng, 0, 5) == 0 ? pgt_range(&rng, -5, 5) : 0;
            pa = pgt_params_axes(sd, k, s, p, pgt_range(&rng, 0, 1), pgt_range(&rng, 0, 1), div);
            u = pgt_problem_make(&pa, rank, ishape);
            if (u.out[0] >= 1 && u.out[1] >= 1 && u.out[2] >= 1)
                break;
        }
        const int lead = rank - sd;
        for (int d = 0; d < rank; d++)
            oshape[d] = d < lead ? ishape[d] : u.out[3 - sd + d - lead];
        const int64_t ni = numel_of(rank, ishape), no = numel_of(rank, oshape);

        /* logical gradOutput values; the contiguous reference */
        pgt_buffer go_logical = pgt_alloc(dt, no);
        for (int64_t i = 0; i < no; i++)
            pgt_store(dt, go_logical.data, i, pgt_value(&rng, pgt_range(&rng, 0, 7) == 0));
        const int go_kind = (int)pgt_range(&rng, 0, K_COUNT - 1);
        const int gi_kind = (int)pgt_range(&rng, 0, K_REVERSED);
        view vgo = make_view(&rng, rank, sd, oshape, go_kind), vgi = make_view(&rng, rank, sd, ishape, gi_kind);
        if (go_kind == K_BROADCAST) /* the logical values repeat along C: make the reference see the same */
            for (int64_t i = 0; i < no; i++) {
                int64_t inner = 1;
                for (int d = lead; d < rank; d++)
                    inner *= oshape[d];
                int64_t c = (i / inner) % oshape[lead - 1], base = i - c * inner;
                memcpy((char *)go_logical.data + i * (int64_t)es, (char *)go_logical.data + base * (int64_t)es, es);
            }
        pgt_buffer ref = pgt_alloc(dt, ni);
        poolgrad_tensor tref_go, tref_gi;
        cr_assert_eq(poolgrad_tensor_init_contiguous(&tref_go, dt, rank, oshape, go_logical.data), POOLGRAD_OK);
        cr_assert_eq(poolgrad_tensor_init_contiguous(&tref_gi, dt, rank, ishape, ref.data), POOLGRAD_OK);
        cr_assert_eq(poolgrad_avgpool_backward(&pa, &tref_go, &tref_gi, 1), POOLGRAD_OK);

        for (int api = 0; api <= 1; api++) {
            pgt_buffer sgo = pgt_alloc(dt, vgo.storage_numel), sgi = pgt_alloc(dt, vgi.storage_numel);
            for (int64_t i = 0; i < no; i++)
                memcpy((char *)sgo.data + elem_offset(&vgo, i) * (int64_t)es, (char *)go_logical.data + i * (int64_t)es,
                       es);
            const size_t go_bytes = ((size_t)vgo.storage_numel + 2 * PGT_GUARD) * es;
            unsigned char *go_snapshot = malloc(go_bytes);
            memcpy(go_snapshot, sgo.raw, go_bytes);

            if (api == 0) {
                poolgrad_tensor tgo = native_of(&vgo, dt, sgo.data), tgi = native_of(&vgi, dt, sgi.data);
                poolgrad_status st = poolgrad_avgpool_backward(&pa, &tgo, &tgi, 0);
                cr_assert_eq(st, POOLGRAD_OK, "native %s/%s: %s", kind_name[go_kind], kind_name[gi_kind],
                             poolgrad_status_string(st));
            } else {
                aclFormat fmt = sd == 3 ? ACL_FORMAT_NCDHW : rank == 4 ? ACL_FORMAT_NCHW : ACL_FORMAT_NCL;
                aclTensor *ago = aclCreateTensor(vgo.shape, (uint64_t)rank, pgt_acl_dtype(dt), vgo.strides, vgo.offset,
                                                 fmt, &vgo.storage_numel, 1, sgo.data);
                aclTensor *agi = aclCreateTensor(vgi.shape, (uint64_t)rank, pgt_acl_dtype(dt), vgi.strides, vgi.offset,
                                                 fmt, &vgi.storage_numel, 1, sgi.data);
                pgt_acl_result r = pgt_acl_run_arrays(sd, ago, agi, agi, pa.kernel, sd, pa.stride, sd, pa.padding, sd,
                                                    pa.ceil_mode, pa.count_include_pad, pa.divisor_override, 0);
                cr_assert(r.plan == ACLNN_SUCCESS && r.exec == ACLNN_SUCCESS, "aclnn %s/%s: plan %d exec %d",
                          kind_name[go_kind], kind_name[gi_kind], r.plan, r.exec);
                aclDestroyTensor(ago);
                aclDestroyTensor(agi);
            }
            runs++;

            /* results through the view == contiguous, bit for bit */
            bool *in_view = calloc((size_t)vgi.storage_numel, sizeof(bool));
            for (int64_t i = 0; i < ni; i++) {
                int64_t off = elem_offset(&vgi, i);
                in_view[off] = true;
                uint32_t got = pgt_bits_at(dt, sgi.data, off), want = pgt_bits_at(dt, ref.data, i);
                bool both_nan = isnan(pgt_decode(dt, sgi.data, off)) && isnan(pgt_decode(dt, ref.data, i));
                cr_assert(got == want || both_nan,
                          "%s gradInput %s (gradOutput %s), element %" PRId64 ": 0x%x, contiguous 0x%x",
                          api ? "aclnn" : "native", kind_name[gi_kind], kind_name[go_kind], i, got, want);
            }
            /* nothing outside the view changed */
            cr_assert(pgt_guards_intact(&sgi), "write into the guard zone around gradInput's storage");
            for (int64_t e = 0; e < vgi.storage_numel; e++)
                if (!in_view[e])
                    cr_assert(pgt_untouched(&sgi, e), "%s: storage element %" PRId64 " outside the %s view was written",
                              api ? "aclnn" : "native", e, kind_name[gi_kind]);
            cr_assert(memcmp(go_snapshot, sgo.raw, go_bytes) == 0, "gradOutput's storage was modified");
            free(in_view);
            free(go_snapshot);
            pgt_free(&sgo);
            pgt_free(&sgi);
        }
        pgt_free(&ref);
        pgt_free(&go_logical);
    }
    cr_assert_eq(runs, 120);
}

/* A hand-made example: a 1x2x3x4 channels-last gradInput sitting at offset 5 in a storage of 40 with
   a row gap, gradOutput global 1x2x1x1. Every view element gets go/12, the 16 others keep the sentinel. */
Test(strided, hand_made_gapped_channels_last)
{
    pgt_buffer s = pgt_alloc(POOLGRAD_F32, 40);
    float go[2] = { 12.0f, -24.0f };
    poolgrad_tensor tgo, tgi;
    const int64_t oshape[4] = { 1, 2, 1, 1 };
    cr_assert_eq(poolgrad_tensor_init_contiguous(&tgo, POOLGRAD_F32, 4, oshape, go), POOLGRAD_OK);
    memset(&tgi, 0, sizeof tgi);
    tgi.dtype = POOLGRAD_F32;
    tgi.rank = 4;
    const int64_t shape[4] = { 1, 2, 3, 4 }, strides[4] = { 40, 1, 10, 2 }; /* C innermost, W 2, H 10 (gap 2) */
    memcpy(tgi.shape, shape, sizeof shape);
    memcpy(tgi.strides, strides, sizeof strides);
    tgi.offset = 5;
    tgi.storage_numel = 40;
    tgi.storage = s.data;
    poolgrad_params pa = pgt_params(2, 3, 1, 0, false, true, 0);
    pa.kernel[1] = 4;
    cr_assert_eq(poolgrad_avgpool_backward(&pa, &tgo, &tgi, 0), POOLGRAD_OK);
    int written = 0;
    for (int64_t e = 0; e < 40; e++) {
        int64_t rel = e - 5;
        bool in = rel >= 0 && rel % 10 < 8 && rel / 10 < 3;
        if (in) {
            float want = rel % 2 == 0 ? 1.0f : -2.0f; /* C = rel % 2 */
            cr_assert_eq(((float *)s.data)[e], want, "element %" PRId64, e);
            written++;
        } else {
            cr_assert(pgt_untouched(&s, e), "element %" PRId64 " outside the view written", e);
        }
    }
    cr_assert_eq(written, 24);
    cr_assert(pgt_guards_intact(&s));
    pgt_free(&s);
}
