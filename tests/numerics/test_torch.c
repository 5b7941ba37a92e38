/*
 * PyTorch parity: the vectors in torch/vectors.bin were generated once by torch/gen_vectors.py with
 * Debian's python3-torch 1.13 (CPU), see that script for the format. No Python at run time.
 *  - f32: poolgrad's gradInput equals torch.ops.aten.avg_pool{2,3}d_backward's bit for bit, in the
 *    case's layout (contiguous or channels-last views) and also contiguous, native API and aclnn front.
 *  - f16 / bf16: torch's RNE conversion of the gradOutput equals poolgrad's conversion, and poolgrad's
 *    gradInput is within 1 ULP of torch's float64 gradInput rounded once (the file's half-precision
 *    gradOutputs have one sign per case, so the f32 accumulation error cannot reach half an f16 ULP).
 */
#include <criterion/criterion.h>

#include "testutil.h"
#include "aclnn_runner.h"
#include "oracle.h"

#ifndef PGT_SOURCE_DIR
#error "PGT_SOURCE_DIR must point at tests/numerics"
#endif

typedef struct tcase {
    int sd, rank;
    int64_t ishape[5], oshape[5];
    int64_t k[3], s[3], p[3];
    bool ceil_mode, cip;
    int64_t div;
    int layout, sign;
    int64_t ni, no;
    const float *go32, *gi32, *goh;
    const uint16_t *go16, *gob16;
    const double *gi64_f16, *gi64_bf16;
} tcase;

static unsigned char *blob;
static tcase *cases;
static int64_t ncases;

static void load(void)
{
    const char *path = PGT_SOURCE_DIR "/torch/vectors.bin";
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    blob = malloc((size_t)size);
    cr_assert_eq(fread(blob, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    cr_assert(size >= 16 && memcmp(blob, "PGTV0001", 8) == 0, "bad magic in %s", path);
    memcpy(&ncases, blob + 8, 8);
    cr_assert(ncases > 100 && ncases < 100000);
    cases = calloc((size_t)ncases, sizeof *cases);
    size_t off = 16;
    for (int64_t i = 0; i < ncases; i++) {
        int64_t h[32];
        cr_assert(off + sizeof h <= (size_t)size);
        memcpy(h, blob + off, sizeof h);
        off += sizeof h;
        tcase *c = &cases[i];
        c->sd = (int)h[0];
        c->rank = (int)h[1];
        cr_assert((c->sd == 2 || c->sd == 3) && (c->rank == c->sd + 1 || c->rank == c->sd + 2));
        c->ni = c->no = 1;
        for (int d = 0; d < c->rank; d++) {
            c->ishape[d] = h[2 + d];
            c->oshape[d] = h[7 + d];
            c->ni *= c->ishape[d];
            c->no *= c->oshape[d];
        }
        for (int a = 0; a < c->sd; a++) {
            c->k[a] = h[12 + a];
            c->s[a] = h[15 + a];
            c->p[a] = h[18 + a];
        }
        c->ceil_mode = h[21];
        c->cip = h[22];
        c->div = h[23];
        c->layout = (int)h[24];
        c->sign = (int)h[25];
        /* the arrays follow each other unpadded: copy them into aligned storage */
        size_t bytes = (size_t)(c->no * 4 + c->ni * 4 + c->no * 4 + c->no * 2 + c->ni * 8 + c->no * 2 + c->ni * 8);
        cr_assert(off + bytes <= (size_t)size, "truncated case %" PRId64, i);
        float *go32 = malloc((size_t)c->no * 4), *gi32 = malloc((size_t)c->ni * 4), *goh = malloc((size_t)c->no * 4);
        uint16_t *go16 = malloc((size_t)c->no * 2), *gob16 = malloc((size_t)c->no * 2);
        double *g64a = malloc((size_t)c->ni * 8), *g64b = malloc((size_t)c->ni * 8);
        memcpy(go32, blob + off, (size_t)c->no * 4); off += (size_t)c->no * 4;
        memcpy(gi32, blob + off, (size_t)c->ni * 4); off += (size_t)c->ni * 4;
        memcpy(goh, blob + off, (size_t)c->no * 4); off += (size_t)c->no * 4;
        memcpy(go16, blob + off, (size_t)c->no * 2); off += (size_t)c->no * 2;
        memcpy(g64a, blob + off, (size_t)c->ni * 8); off += (size_t)c->ni * 8;
        memcpy(gob16, blob + off, (size_t)c->no * 2); off += (size_t)c->no * 2;
        memcpy(g64b, blob + off, (size_t)c->ni * 8); off += (size_t)c->ni * 8;
        c->go32 = go32;
        c->gi32 = gi32;
        c->goh = goh;
        c->go16 = go16;
        c->gob16 = gob16;
        c->gi64_f16 = g64a;
        c->gi64_bf16 = g64b;
    }
    cr_assert_eq(off, (size_t)size, "trailing bytes in %s", path);
}

static poolgrad_params params_of(const tcase *c)
{
    return pgt_params_axes(c->sd, c->k, c->s, c->p, c->ceil_mode, c->cip, c->div);
}

/* Element offset of logical row-major index i in view t. */
static int64_t view_offset(const poolgrad_tensor *t, int64_t i)
{
    int64_t off = t->offset;
    for (int d = t->rank - 1; d >= 0; d--) {
        off += (i % t->shape[d]) * t->strides[d];
        i /= t->shape[d];
    }
    return off;
}

static void init_view(poolgrad_tensor *t, poolgrad_dtype dt, const tcase *c, const int64_t *shape, int layout, void *data)
{
    poolgrad_status st = layout ? poolgrad_tensor_init_channels_last(t, dt, c->rank, c->sd, shape, data)
                                : poolgrad_tensor_init_contiguous(t, dt, c->rank, shape, data);
    cr_assert_eq(st, POOLGRAD_OK);
}

/*
 * Run case c in dtype dt with gradOutput `go` (logical dense, dtype bits), layout 0/1, through
 * api 0 (native) or 1 (aclnn); write the logical dense gradInput to `gi`.
 */
static void run(const tcase *c, poolgrad_dtype dt, const void *go, int layout, int api, void *gi)
{
    const size_t es = poolgrad_dtype_size(dt);
    pgt_buffer bgo = pgt_alloc(dt, c->no), bgi = pgt_alloc(dt, c->ni);
    poolgrad_tensor tgo, tgi;
    init_view(&tgo, dt, c, c->oshape, layout, bgo.data);
    init_view(&tgi, dt, c, c->ishape, layout, bgi.data);
    for (int64_t i = 0; i < c->no; i++)
        memcpy((char *)bgo.data + view_offset(&tgo, i) * (int64_t)es, (const char *)go + i * (int64_t)es, es);
    if (api == 0) {
        poolgrad_params pa = params_of(c);
        cr_assert_eq(poolgrad_avgpool_backward(&pa, &tgo, &tgi, 0), POOLGRAD_OK);
    } else {
        aclFormat fmt = c->sd == 3 ? ACL_FORMAT_NCDHW : ACL_FORMAT_NCHW;
        aclTensor *ago = aclCreateTensor(c->oshape, (uint64_t)c->rank, pgt_acl_dtype(dt), tgo.strides, 0, fmt,
                                         &c->no, 1, bgo.data);
        aclTensor *agi = aclCreateTensor(c->ishape, (uint64_t)c->rank, pgt_acl_dtype(dt), tgi.strides, 0, fmt,
                                         &c->ni, 1, bgi.data);
        aclTensor *aself = pgt_acl_dense(c->ishape, c->rank, ACL_FLOAT, fmt, NULL);
        pgt_acl_result r = pgt_acl_run_arrays(c->sd, ago, aself, agi, c->k, c->sd, c->s, c->sd, c->p, c->sd, c->ceil_mode,
                                            c->cip, c->div, 0);
        cr_assert(r.plan == ACLNN_SUCCESS && r.exec == ACLNN_SUCCESS, "aclnn plan %d exec %d", r.plan, r.exec);
        aclDestroyTensor(ago);
        aclDestroyTensor(agi);
        aclDestroyTensor(aself);
    }
    cr_assert(pgt_guards_intact(&bgi), "write outside gradInput");
    for (int64_t i = 0; i < c->ni; i++)
        memcpy((char *)gi + i * (int64_t)es, (const char *)bgi.data + view_offset(&tgi, i) * (int64_t)es, es);
    pgt_free(&bgo);
    pgt_free(&bgi);
}

static void describe(int64_t idx, const tcase *c)
{
    cr_log_error("torch case %" PRId64 ": %dD rank %d in [%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
                 "] k %" PRId64 ",%" PRId64 ",%" PRId64 " s %" PRId64 ",%" PRId64 ",%" PRId64 " p %" PRId64
                 ",%" PRId64 ",%" PRId64 " ceil %d cip %d div %" PRId64 " layout %d",
                 idx, c->sd, c->rank, c->ishape[0], c->ishape[1], c->ishape[2], c->ishape[3], c->ishape[4], c->k[0],
                 c->k[1], c->k[2], c->s[0], c->s[1], c->s[2], c->p[0], c->p[1], c->p[2], c->ceil_mode, c->cip, c->div,
                 c->layout);
}

static void f32_parity(int sd)
{
    load();
    int64_t n = 0;
    for (int64_t ci = 0; ci < ncases; ci++) {
        const tcase *c = &cases[ci];
        if (c->sd != sd)
            continue;
        n++;
        float *gi = malloc((size_t)c->ni * 4);
        for (int layout = 0; layout <= 1; layout++) {
            if (layout == 1 && !c->layout)
                continue; /* contiguous cases are also run contiguous only; channels-last ones both ways */
            for (int api = 0; api <= 1; api++) {
                run(c, POOLGRAD_F32, c->go32, layout, api, gi);
                for (int64_t i = 0; i < c->ni; i++)
                    if (pgt_f32_bits(gi[i]) != pgt_f32_bits(c->gi32[i])) {
                        describe(ci, c);
                        cr_assert_fail("f32 %s layout %d: gradInput[%" PRId64 "] = %a, torch %a", api ? "aclnn" : "native",
                                       layout, i, (double)gi[i], (double)c->gi32[i]);
                    }
            }
        }
        free(gi);
    }
    cr_assert(n > 50, "only %" PRId64 " %dD cases", n, sd);
    cr_log_info("%" PRId64 " %dD cases bit-identical to torch", n, sd);
}

Test(torch, f32_2d_bit_identical, .timeout = 60) { f32_parity(2); }
Test(torch, f32_3d_bit_identical, .timeout = 60) { f32_parity(3); }

static void half_parity(bool bf16)
{
    load();
    const poolgrad_dtype dt = bf16 ? POOLGRAD_BF16 : POOLGRAD_F16;
    int64_t exact = 0, total = 0;
    for (int64_t ci = 0; ci < ncases; ci++) {
        const tcase *c = &cases[ci];
        const uint16_t *go = bf16 ? c->gob16 : c->go16;
        const double *ref = bf16 ? c->gi64_bf16 : c->gi64_f16;
        /* torch's conversion (RNE) and poolgrad's agree */
        for (int64_t i = 0; i < c->no; i++) {
            uint16_t mine = bf16 ? poolgrad_f32_to_bf16(c->goh[i]) : poolgrad_f32_to_f16(c->goh[i]);
            cr_assert_eq(mine, go[i], "case %" PRId64 ": %s(%a) = 0x%04x, torch 0x%04x", ci, bf16 ? "bf16" : "f16",
                         (double)c->goh[i], mine, go[i]);
        }
        uint16_t *gi = malloc((size_t)c->ni * 2);
        for (int api = 0; api <= 1; api++) {
            run(c, dt, go, c->layout, api, gi);
            for (int64_t i = 0; i < c->ni; i++) {
                uint16_t once = pgt_round_half(ref[i], bf16);
                int64_t d = pgt_ulp_diff(gi[i], once, 16);
                if (d > 1) {
                    describe(ci, c);
                    cr_assert_fail("%s %s: gradInput[%" PRId64 "] = 0x%04x, torch f64 %.17g rounded once 0x%04x (%" PRId64
                                   " ULP)",
                                   bf16 ? "bf16" : "f16", api ? "aclnn" : "native", i, gi[i], ref[i], once, d);
                }
                if (api == 0) {
                    total++;
                    exact += d == 0;
                }
            }
        }
        free(gi);
    }
    cr_log_info("%s: %" PRId64 " of %" PRId64 " elements equal torch's f64 result rounded once, the rest 1 ULP",
                bf16 ? "bf16" : "f16", exact, total);
    cr_assert(total > 1000);
}

Test(torch, f16_within_1ulp_of_f64, .timeout = 60) { half_parity(false); }
Test(torch, bf16_within_1ulp_of_f64, .timeout = 60) { half_parity(true); }
