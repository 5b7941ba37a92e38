/*
 * cases.c — the problems the benchmark runs: the standard suite, the --quick suite (the same shapes scaled
 * down to odd sizes, plus a ceil-mode overhang case) and the --sweep sizes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

const bench_case standard_suite[] = {
    BENCH_CASE("resnet_k3s2p1", 2, 32, 64, DIMS(56, 56), 3, 2, 1, false, true),
    BENCH_CASE("k2s2p0", 2, 32, 64, DIMS(56, 56), 2, 2, 0, false, true),
    BENCH_CASE("inception_k3s1p1_excl", 2, 32, 192, DIMS(35, 35), 3, 1, 1, false, false),
    BENCH_CASE("global_k7s7", 2, 32, 2048, DIMS(7, 7), 7, 7, 0, false, true),
    BENCH_CASE("3d_k3s2p1", 3, 4, 64, DIMS(16, 56, 56), 3, 2, 1, false, true),
    BENCH_CASE("3d_k2s2p0", 3, 4, 64, DIMS(16, 56, 56), 2, 2, 0, false, true),
    BENCH_CASE("3d_k3s1p1_ceil_excl", 3, 2, 32, DIMS(32, 64, 64), 3, 1, 1, true, false),
};

const bench_case quick_suite[] = { /* odd sizes around the vector widths (C or W = 35, 37, 33) */
    BENCH_CASE("resnet_k3s2p1", 2, 2, 35, DIMS(15, 37), 3, 2, 1, false, true),
    BENCH_CASE("k2s2p0", 2, 2, 35, DIMS(17, 37), 2, 2, 0, false, true),
    BENCH_CASE("inception_k3s1p1_excl", 2, 2, 19, DIMS(13, 35), 3, 1, 1, false, false),
    BENCH_CASE("global_k7s7", 2, 2, 35, DIMS(7, 7), 7, 7, 0, false, true),
    BENCH_CASE("3d_k3s2p1", 3, 1, 16, DIMS(6, 14, 33), 3, 2, 1, false, true),
    BENCH_CASE("3d_k2s2p0", 3, 1, 35, DIMS(6, 14, 14), 2, 2, 0, false, true),
    BENCH_CASE("3d_k3s1p1_ceil_excl", 3, 1, 8, DIMS(8, 15, 13), 3, 1, 1, true, false),
    BENCH_CASE("ceil_overhang_k3s2", 2, 1, 24, DIMS(10, 10), 3, 2, 0, true, true),
};

const int n_standard_suite = (int)(sizeof standard_suite / sizeof standard_suite[0]);
const int n_quick_suite = (int)(sizeof quick_suite / sizeof quick_suite[0]);

/* Sweep cases: gradInput element count 2^e, e = 16..26 */
int make_sweep(bench_case *out, char names[][48])
{
    int n = 0;
    for (int e = 16; e <= 26; e++) { /* 2D: N=1, C=64, H*W = 2^(e-6) */
        int s = e - 6;
        bench_case bc = BENCH_CASE(NULL, 2, 1, 64, DIMS(1LL << (s / 2), 1LL << (s - s / 2)), 3, 2, 1, false, true);
        snprintf(names[n], 48, "sweep2d_k3s2p1_2^%d", e);
        bc.name = names[n];
        out[n++] = bc;
    }
    for (int e = 16; e <= 26; e++) { /* 3D: N=1, C=32, D*H*W = 2^(e-5) */
        int s = e - 5, d = s / 3, h = (s - d) / 2, w = s - d - h;
        bench_case bc = BENCH_CASE(NULL, 3, 1, 32, DIMS(1LL << d, 1LL << h, 1LL << w), 3, 2, 1, false, true);
        snprintf(names[n], 48, "sweep3d_k3s2p1_2^%d", e);
        bc.name = names[n];
        out[n++] = bc;
    }
    return n;
}

/* ------------------------------------------------------------------ problem descriptors */

/*
 * A benchdnn-style descriptor: <key><value> pairs, e.g. mb32ic64ih56iw56kh3kw3sh2sw2ph1pw1, optionally
 * ending in n<name>. Keys: mb (batch, default 2), ic (channels), id/ih/iw (input), kd/kh/kw (kernel),
 * sd/sh/sw (stride, default 1), pd/ph/pw (padding, default 0), od/oh/ow (output, only checked), dd/dh/dw
 * (dilation, benchdnn's convention: only 0 accepted). A missing W entry copies H, a missing D entry copies H;
 * any D key makes the problem 3D.
 */
enum { K_MB, K_IC, K_ID, K_IH, K_IW, K_OD, K_OH, K_OW, K_KD, K_KH, K_KW, K_SD, K_SH, K_SW, K_PD, K_PH, K_PW,
       K_DD, K_DH, K_DW, K_COUNT };
static const char *const keys[K_COUNT] = { "mb", "ic", "id", "ih", "iw", "od", "oh", "ow", "kd", "kh",
                                           "kw", "sd", "sh", "sw", "pd", "ph", "pw", "dd", "dh", "dw" };

bool parse_problem(const char *desc, bool ceil, bool cip, int64_t divisor, bench_case *out, char *name_buf,
                   size_t name_size, char *err, size_t err_size)
{
    int64_t v[K_COUNT];
    bool set[K_COUNT] = { false };
    const char *p = desc, *name = NULL;
    while (*p) {
        const char *tok = p;
        if (*p == 'n' && p[1] && !(p[1] >= '0' && p[1] <= '9')) { /* n<name>, the rest of the descriptor */
            name = p + 1;
            if (*name == '"')
                name++;
            break;
        }
        int k = -1;
        for (int i = 0; i < K_COUNT; i++)
            if (p[0] == keys[i][0] && p[1] == keys[i][1]) {
                k = i;
                break;
            }
        size_t tl = 0; /* the token as written: letters, then digits */
        while (tok[tl] && !(tok[tl] >= '0' && tok[tl] <= '9'))
            tl++;
        while (tok[tl] >= '0' && tok[tl] <= '9')
            tl++;
        if (k < 0 || !(p[2] >= '0' && p[2] <= '9')) {
            snprintf(err, err_size,
                     "bad token '%.*s' at offset %d of '%s' (keys: mb ic id ih iw od oh ow kd kh kw sd sh sw pd ph pw "
                     "dd dh dw, each followed by a number, then optionally n<name>)",
                     (int)(tl ? tl : 1), tok, (int)(tok - desc), desc);
            return false;
        }
        p += 2;
        char *end;
        errno = 0;
        long long x = strtoll(p, &end, 10);
        if (errno || x < 0 || x > (1LL << 40)) {
            snprintf(err, err_size, "bad value in token '%.*s' of '%s'", (int)(end - tok), tok, desc);
            return false;
        }
        if (set[k]) {
            snprintf(err, err_size, "token '%.*s' of '%s': %s given twice", (int)(end - tok), tok, desc, keys[k]);
            return false;
        }
        if (k >= K_DD && x != 0) {
            snprintf(err, err_size, "token '%.*s' of '%s': dilation is not supported by average pooling",
                     (int)(end - tok), tok, desc);
            return false;
        }
        set[k] = true;
        v[k] = x;
        p = end;
    }
    const bool d3 = set[K_ID] || set[K_OD] || set[K_KD] || set[K_SD] || set[K_PD];
    if (!set[K_IC] || !set[K_IH] || !set[K_KH]) {
        snprintf(err, err_size, "'%s' needs at least ic, ih and kh (e.g. mb32ic64ih56kh3sh2ph1)", desc);
        return false;
    }
    /* defaults: W from H, D from H, stride 1, padding 0, mb 2 */
#define DEFAULT(key, from, dflt)                                                                                  \
    if (!set[key]) {                                                                                                 \
        v[key] = (from) >= 0 && set[from] ? v[from] : (dflt);                                                        \
        set[key] = (from) >= 0 && set[from];                                                                         \
    }
    DEFAULT(K_MB, -1, 2)
    DEFAULT(K_IW, K_IH, 0)
    DEFAULT(K_ID, K_IH, 0)
    DEFAULT(K_KW, K_KH, 0)
    DEFAULT(K_KD, K_KH, 0)
    DEFAULT(K_SH, -1, 1)
    DEFAULT(K_SW, K_SH, 1)
    DEFAULT(K_SD, K_SH, 1)
    DEFAULT(K_PH, -1, 0)
    DEFAULT(K_PW, K_PH, 0)
    DEFAULT(K_PD, K_PH, 0)
#undef DEFAULT
    memset(out, 0, sizeof *out);
    out->ceil = ceil;
    out->cip = cip;
    out->divisor = divisor;
    out->sd = d3 ? 3 : 2;
    out->n = v[K_MB];
    out->c = v[K_IC];
    const int in_k[3] = { K_ID, K_IH, K_IW }, k_k[3] = { K_KD, K_KH, K_KW }, s_k[3] = { K_SD, K_SH, K_SW },
              p_k[3] = { K_PD, K_PH, K_PW }, o_k[3] = { K_OD, K_OH, K_OW };
    const int first = d3 ? 0 : 1; /* 2D: H, W */
    for (int a = first; a < 3; a++) {
        out->in[a - first] = v[in_k[a]];
        out->k[a - first] = v[k_k[a]];
        out->s[a - first] = v[s_k[a]];
        out->p[a - first] = v[p_k[a]];
    }
    snprintf(name_buf, name_size, "%s", name && *name ? name : desc);
    name_buf[strcspn(name_buf, "\"")] = 0;
    out->name = name_buf;
    /* the output shape is poolgrad's to judge; od/oh/ow, when given, must agree */
    poolgrad_params prm;
    memset(&prm, 0, sizeof prm);
    prm.spatial_dims = out->sd;
    prm.ceil_mode = ceil;
    prm.count_include_pad = cip;
    prm.divisor_override = divisor;
    for (int a = 0; a < out->sd; a++) {
        prm.kernel[a] = out->k[a];
        prm.stride[a] = out->s[a];
        prm.padding[a] = out->p[a];
    }
    int64_t shape[5] = { out->n, out->c, out->in[0], out->in[1], out->in[2] }, oshape[5];
    poolgrad_status st = poolgrad_output_shape(&prm, 2 + out->sd, shape, oshape);
    if (st != POOLGRAD_OK) {
        snprintf(err, err_size, "'%s': %s: %s", desc, poolgrad_status_string(st), poolgrad_last_error_message());
        return false;
    }
    for (int a = first; a < 3; a++)
        if (oshape[2 + a - first] < 1) {
            snprintf(err, err_size, "'%s': output %s would be %lld (the kernel is larger than the padded input)",
                     desc, keys[o_k[a]], (long long)oshape[2 + a - first]);
            return false;
        }
    for (int a = first; a < 3; a++)
        if (set[o_k[a]] && v[o_k[a]] != oshape[2 + a - first]) {
            snprintf(err, err_size, "'%s': %s%lld given, but the output is %lld", desc,
                     keys[o_k[a]], (long long)v[o_k[a]], (long long)oshape[2 + a - first]);
            return false;
        }
    return true;
}

bool selftest_problems(void)
{
    static const struct {
        const char *desc;
        int sd;
        int64_t n, c, in[3], k[3], s[3], p[3];
        const char *name, *err; /* err: a substring of the expected message, NULL: must parse */
    } t[] = {
        { "mb32ic64ih56iw56kh3kw3sh2sw2ph1pw1", 2, 32, 64, { 56, 56 }, { 3, 3 }, { 2, 2 }, { 1, 1 }, NULL, NULL },
        { "mb4ic64id16ih56iw56kd3kh3kw3sd2sh2sw2pd1ph1pw1", 3, 4, 64, { 16, 56, 56 }, { 3, 3, 3 }, { 2, 2, 2 },
          { 1, 1, 1 }, NULL, NULL },
        { "mb2ic16id8ih10kh3sd2sh2", 3, 2, 16, { 8, 10, 10 }, { 3, 3, 3 }, { 2, 2, 2 }, { 0, 0, 0 }, NULL, NULL },
        { "ic8ih7kh7", 2, 2, 8, { 7, 7 }, { 7, 7 }, { 1, 1 }, { 0, 0 }, NULL, NULL },
        { "mb1ic4ih9iw8kh3kw2sh2sw1ph1pw0oh5ow7", 2, 1, 4, { 9, 8 }, { 3, 2 }, { 2, 1 }, { 1, 0 }, NULL, NULL },
        { "mb1ic4ih8kh2sh2nmy_case", 2, 1, 4, { 8, 8 }, { 2, 2 }, { 2, 2 }, { 0, 0 }, "my_case", NULL },
        { "mb32ic64xx3kh3", 0, 0, 0, { 0 }, { 0 }, { 0 }, { 0 }, NULL, "bad token 'xx3'" },
        { "mb32ic64ih56kh3q", 0, 0, 0, { 0 }, { 0 }, { 0 }, { 0 }, NULL, "bad token 'q'" },
        { "mb32ic64ih56kh", 0, 0, 0, { 0 }, { 0 }, { 0 }, { 0 }, NULL, "bad token 'kh'" },
        { "mb32ic64ih56kh3kh3", 0, 0, 0, { 0 }, { 0 }, { 0 }, { 0 }, NULL, "kh given twice" },
        { "mb32ic64ih56kh3dh1", 0, 0, 0, { 0 }, { 0 }, { 0 }, { 0 }, NULL, "token 'dh1'" },
        { "mb1ic1ih4kh3oh3", 0, 0, 0, { 0 }, { 0 }, { 0 }, { 0 }, NULL, "oh3 given, but the output is 2" },
        { "mb32ic64iw56kh3", 0, 0, 0, { 0 }, { 0 }, { 0 }, { 0 }, NULL, "needs at least ic, ih and kh" },
        { "mb1ic1ih4kh9", 0, 0, 0, { 0 }, { 0 }, { 0 }, { 0 }, NULL, "output oh would be -4" },
        { "mb1ic1ih8kh3ph2", 0, 0, 0, { 0 }, { 0 }, { 0 }, { 0 }, NULL, "invalid pooling parameter" },
    };
    bool ok = true;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        bench_case bc;
        char name[96], err[256] = "";
        bool parsed = parse_problem(t[i].desc, false, true, 0, &bc, name, sizeof name, err, sizeof err);
        bool good;
        if (t[i].err) {
            good = !parsed && strstr(err, t[i].err) != NULL;
        } else {
            good = parsed && bc.sd == t[i].sd && bc.n == t[i].n && bc.c == t[i].c &&
                   !strcmp(bc.name, t[i].name ? t[i].name : t[i].desc);
            for (int a = 0; good && a < bc.sd; a++)
                good = bc.in[a] == t[i].in[a] && bc.k[a] == t[i].k[a] && bc.s[a] == t[i].s[a] && bc.p[a] == t[i].p[a];
        }
        if (!good) {
            printf("selftest parse_problem('%s'): %s%s\n", t[i].desc, parsed ? "parsed" : "error: ", parsed ? "" : err);
            ok = false;
        }
    }
    return ok;
}
