/*
 * poolgrad — the command-line oracle over .npy files.
 *   poolgrad golden GO.npy --input-shape N,C,H,W -k K [-s S] [-p P] [--ceil-mode] [--exclude-pad]
 *                   [--divisor D] [--3d] [--dtype bf16] [--threads T] -o GI.npy
 *   poolgrad compare ACTUAL.npy EXPECTED.npy [--max-ulp N] [--atol X] [--rtol X] [--dtype bf16]
 *                   [--bound MODEL --grad-output GO.npy --input-shape ... -k ... (as golden)]
 *   poolgrad info
 * Exit status: 0 success / pass, 1 mismatch, 2 bad input or usage.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "poolgrad/poolgrad.h"

#define EXIT_MISMATCH 1
#define EXIT_BAD 2

static const char usage[] =
    "usage:\n"
    "  poolgrad golden GO.npy --input-shape N,C,H,W -k K[,K..] [-s S..] [-p P..] [--ceil-mode] [--exclude-pad]\n"
    "                  [--divisor D] [--3d] [--dtype bf16] [--threads T] -o GI.npy\n"
    "  poolgrad compare ACTUAL.npy EXPECTED.npy [--max-ulp N] [--atol X] [--rtol X] [--dtype bf16]\n"
    "                  [--bound MODEL --grad-output GO.npy --input-shape ... -k ... (as golden)]\n"
    "  poolgrad info\n"
    "Pooling parameters follow torch.nn.functional.avg_pool2d/3d: -k/-s/-p take one value or one per spatial\n"
    "axis; stride defaults to the kernel; --exclude-pad is count_include_pad=False; the pooling is 3D when\n"
    "--input-shape has 5 dims, or 4 dims with --3d or with 3 values in -k/-s/-p.\n"
    "Bound models: f32-any-order, f32-any-order-div, dtype-any-order, dtype-any-order-div (docs/ERROR_BOUNDS.md).\n"
    "Exit status: 0 pass, 1 mismatch, 2 bad input.\n";

static int bad(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "poolgrad: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n");
    return EXIT_BAD;
}

/* "2,3,9,11" -> up to max values; false on anything else */
static bool parse_list(const char *s, int64_t *v, int max, int *count)
{
    int n = 0;
    const char *p = s;
    for (;;) {
        char *end;
        errno = 0;
        long long x = strtoll(p, &end, 10);
        if (end == p || errno || n == max)
            return false;
        v[n++] = x;
        if (*end == '\0')
            break;
        if (*end != ',')
            return false;
        p = end + 1;
    }
    *count = n;
    return true;
}

typedef struct pool_args {
    int64_t in_shape[POOLGRAD_MAX_RANK];
    int in_rank;
    int64_t k[3], s[3], p[3];
    int nk, ns, np;
    bool ceil_mode, exclude_pad, force_3d, bf16;
    int64_t divisor;
    int threads;
} pool_args;

/* Consumes a pooling option at argv[*i]; 1 = consumed, 0 = not a pooling option, -1 = bad value (message printed). */
static int pool_option(pool_args *a, int argc, char **argv, int *i)
{
    const char *o = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strcmp(o, "--ceil-mode") == 0)
        return a->ceil_mode = true, 1;
    if (strcmp(o, "--exclude-pad") == 0)
        return a->exclude_pad = true, 1;
    if (strcmp(o, "--3d") == 0)
        return a->force_3d = true, 1;
    bool list = strcmp(o, "-k") == 0 || strcmp(o, "--kernel-size") == 0 || strcmp(o, "-s") == 0 ||
                strcmp(o, "--stride") == 0 || strcmp(o, "-p") == 0 || strcmp(o, "--padding") == 0 ||
                strcmp(o, "--input-shape") == 0;
    bool scalar = strcmp(o, "--divisor") == 0 || strcmp(o, "--threads") == 0 || strcmp(o, "--dtype") == 0;
    if (!list && !scalar)
        return 0;
    if (!val) {
        bad("%s needs a value%s", o, "");
        return -1;
    }
    (*i)++;
    if (strcmp(o, "--dtype") == 0) {
        if (strcmp(val, "bf16") == 0)
            a->bf16 = true;
        else if (strcmp(val, "f32") != 0 && strcmp(val, "f16") != 0) {
            bad("--dtype %s is not bf16, f16 or f32%s", val, "");
            return -1;
        }
        return 1;
    }
    int64_t v[POOLGRAD_MAX_RANK];
    int n;
    if (!parse_list(val, v, list ? (strcmp(o, "--input-shape") == 0 ? POOLGRAD_MAX_RANK : 3) : 1, &n)) {
        bad("%s %s: expected comma-separated integers (one value or one per axis)", o, val);
        return -1;
    }
    if (strcmp(o, "--input-shape") == 0) {
        memcpy(a->in_shape, v, sizeof(int64_t) * (size_t)n);
        a->in_rank = n;
    } else if (o[1] == 'k' || strcmp(o, "--kernel-size") == 0) {
        memcpy(a->k, v, sizeof(int64_t) * (size_t)n);
        a->nk = n;
    } else if (o[1] == 's' || strcmp(o, "--stride") == 0) {
        memcpy(a->s, v, sizeof(int64_t) * (size_t)n);
        a->ns = n;
    } else if (o[1] == 'p' || strcmp(o, "--padding") == 0) {
        memcpy(a->p, v, sizeof(int64_t) * (size_t)n);
        a->np = n;
    } else if (strcmp(o, "--divisor") == 0) {
        a->divisor = v[0];
        if (v[0] == 0) {
            bad("--divisor 0: the divisor override must be non-zero%s%s", "", "");
            return -1;
        }
    } else {
        if (v[0] < 0 || v[0] > 1024) {
            bad("--threads %s: expected 0 (default) .. 1024%s", val, "");
            return -1;
        }
        a->threads = (int)v[0];
    }
    return 1;
}

/* Build poolgrad_params; false with a message. */
static bool make_params(const pool_args *a, poolgrad_params *pa)
{
    if (a->in_rank == 0 || a->nk == 0) {
        bad("%s is required%s", a->in_rank == 0 ? "--input-shape" : "-k (kernel size)", "");
        return false;
    }
    int sd = a->in_rank == 5 || (a->in_rank == 4 && (a->force_3d || a->nk == 3 || a->ns == 3 || a->np == 3)) ? 3 : 2;
    if (a->in_rank < sd + 1 || a->in_rank > sd + 2) {
        fprintf(stderr, "poolgrad: --input-shape has %d dims; %dD pooling needs %d (unbatched) or %d (batched)\n",
                a->in_rank, sd, sd + 1, sd + 2);
        return false;
    }
    memset(pa, 0, sizeof *pa);
    pa->spatial_dims = sd;
    const int64_t *src[3] = { a->k, a->s, a->p };
    const int cnt[3] = { a->nk, a->ns, a->np };
    int64_t *dst[3] = { pa->kernel, pa->stride, pa->padding };
    const char *names[3] = { "-k", "-s", "-p" };
    for (int w = 0; w < 3; w++) {
        if (cnt[w] != 0 && cnt[w] != 1 && cnt[w] != sd) {
            fprintf(stderr, "poolgrad: %s has %d values; %dD pooling takes 1 or %d\n", names[w], cnt[w], sd, sd);
            return false;
        }
        for (int x = 0; x < sd; x++)
            dst[w][x] = cnt[w] == 0 ? (w == 1 ? pa->kernel[x] : 0) : src[w][cnt[w] == 1 ? 0 : x];
    }
    pa->ceil_mode = a->ceil_mode;
    pa->count_include_pad = !a->exclude_pad;
    pa->divisor_override = a->divisor;
    return true;
}

static int cmd_info(void)
{
    printf("poolgrad %s\n", poolgrad_version_string());
    printf("ISAs built:");
    for (int i = POOLGRAD_ISA_SCALAR; i <= POOLGRAD_ISA_NEON; i++)
        if (poolgrad_isa_built((poolgrad_isa)i))
            printf(" %s", poolgrad_isa_name((poolgrad_isa)i));
    printf("\n");
    printf("active ISA: %s\n", poolgrad_isa_name(poolgrad_active_isa()));
    return 0;
}

static int cmd_golden(int argc, char **argv)
{
    pool_args a = { 0 };
    const char *in_path = NULL, *out_path = NULL;
    for (int i = 0; i < argc; i++) {
        int r = pool_option(&a, argc, argv, &i);
        if (r < 0)
            return EXIT_BAD;
        if (r)
            continue;
        if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
            if (i + 1 >= argc)
                return bad("%s needs a file name%s", argv[i], "");
            out_path = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return bad("golden: unknown option %s%s", argv[i], "");
        else if (!in_path)
            in_path = argv[i];
        else
            return bad("golden: more than one input file (%s)%s", argv[i], "");
    }
    if (!in_path || !out_path)
        return bad("golden needs GO.npy and -o GI.npy\n%s%s", usage, "");
    poolgrad_params pa;
    if (!make_params(&a, &pa))
        return EXIT_BAD;
    char err[512];
    npy_array go;
    if (!npy_read(in_path, a.bf16, &go, err, sizeof err))
        return bad("%s%s", err, "");
    poolgrad_tensor got, git;
    npy_view(&go, &got);
    int64_t numel = 1;
    for (int d = 0; d < a.in_rank; d++)
        if (a.in_shape[d] < 0 || __builtin_mul_overflow(numel, a.in_shape[d], &numel) || numel > ((int64_t)1 << 36)) {
            npy_free(&go);
            return bad("--input-shape is negative or too large%s%s", "", "");
        }
    void *gi = calloc((size_t)(numel ? numel : 1), poolgrad_dtype_size(go.dtype));
    if (!gi) {
        npy_free(&go);
        return bad("out of memory for gradInput%s%s", "", "");
    }
    poolgrad_status st = poolgrad_tensor_init_contiguous(&git, go.dtype, a.in_rank, a.in_shape, gi);
    if (st == POOLGRAD_OK)
        st = poolgrad_avgpool_backward(&pa, &got, &git, a.threads);
    int rc = 0;
    if (st != POOLGRAD_OK) {
        fprintf(stderr, "poolgrad: golden: %s: %s\n", poolgrad_status_string(st), poolgrad_last_error_message());
        rc = EXIT_BAD;
    } else if (!npy_write(out_path, go.dtype, a.in_rank, a.in_shape, gi, err, sizeof err)) {
        fprintf(stderr, "poolgrad: %s\n", err);
        rc = EXIT_BAD;
    }
    free(gi);
    npy_free(&go);
    return rc;
}

static int cmd_compare(int argc, char **argv)
{
    pool_args a = { 0 };
    const char *files[2] = { NULL, NULL }, *go_path = NULL, *model_name = NULL;
    int nfiles = 0;
    poolgrad_compare_options opt = { sizeof opt, -1, 0.0, 0.0, NULL, NULL, 0 };
    for (int i = 0; i < argc; i++) {
        int r = pool_option(&a, argc, argv, &i);
        if (r < 0)
            return EXIT_BAD;
        if (r)
            continue;
        const char *o = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--max-ulp") == 0 || strcmp(o, "--atol") == 0 || strcmp(o, "--rtol") == 0 ||
            strcmp(o, "--bound") == 0 || strcmp(o, "--grad-output") == 0) {
            if (!val)
                return bad("%s needs a value%s", o, "");
            i++;
            char *end;
            errno = 0;
            if (strcmp(o, "--max-ulp") == 0) {
                long long x = strtoll(val, &end, 10);
                if (*end || end == val || errno || x < 0)
                    return bad("--max-ulp %s: expected a non-negative integer%s", val, "");
                opt.max_ulp = x;
            } else if (strcmp(o, "--atol") == 0 || strcmp(o, "--rtol") == 0) {
                double x = strtod(val, &end);
                if (*end || end == val || errno || !(x >= 0.0) || isinf(x))
                    return bad("%s %s: expected a finite non-negative number", o, val);
                *(o[2] == 'a' ? &opt.atol : &opt.rtol) = x;
            } else if (strcmp(o, "--bound") == 0)
                model_name = val;
            else
                go_path = val;
        } else if (o[0] == '-' && o[1] != '\0')
            return bad("compare: unknown option %s%s", o, "");
        else if (nfiles < 2)
            files[nfiles++] = o;
        else
            return bad("compare: more than two files (%s)%s", o, "");
    }
    if (nfiles != 2)
        return bad("compare needs ACTUAL.npy and EXPECTED.npy\n%s%s", usage, "");
    poolgrad_bound_model model = POOLGRAD_BOUND_NONE;
    poolgrad_params pa;
    if (model_name) {
        if (poolgrad_bound_model_parse(model_name, &model) != POOLGRAD_OK || model == POOLGRAD_BOUND_NONE)
            return bad("--bound: %s%s", poolgrad_last_error_message(), "");
        if (!go_path)
            return bad("--bound needs --grad-output GO.npy and the pooling parameters%s%s", "", "");
        if (!make_params(&a, &pa))
            return EXIT_BAD;
    } else if (go_path)
        return bad("--grad-output is only used with --bound%s%s", "", "");
    char err[512];
    npy_array act, exp, go = { 0 };
    if (!npy_read(files[0], a.bf16, &act, err, sizeof err))
        return bad("%s%s", err, "");
    if (!npy_read(files[1], a.bf16, &exp, err, sizeof err)) {
        npy_free(&act);
        return bad("%s%s", err, "");
    }
    int rc = EXIT_BAD;
    double *ref = NULL, *bnd = NULL;
    poolgrad_tensor at, et, gt;
    npy_view(&act, &at);
    npy_view(&exp, &et);
    if (act.dtype != exp.dtype) {
        fprintf(stderr, "poolgrad: %s holds '%s' but %s holds '%s'\n", files[0], act.descr, files[1], exp.descr);
        goto done;
    }
    if (model) {
        if (!npy_read(go_path, a.bf16, &go, err, sizeof err)) {
            fprintf(stderr, "poolgrad: %s\n", err);
            goto done;
        }
        if (go.dtype != act.dtype) {
            fprintf(stderr, "poolgrad: %s holds '%s' but %s holds '%s'\n", go_path, go.descr, files[0], act.descr);
            goto done;
        }
        bool same = a.in_rank == act.rank;
        for (int d = 0; same && d < a.in_rank; d++)
            same = a.in_shape[d] == act.shape[d];
        if (!same) {
            fprintf(stderr, "poolgrad: --input-shape differs from the shape of %s\n", files[0]);
            goto done;
        }
        npy_view(&go, &gt);
        size_t n = (size_t)(act.numel ? act.numel : 1);
        ref = malloc(n * sizeof(double));
        bnd = malloc(n * sizeof(double));
        if (!ref || !bnd) {
            fprintf(stderr, "poolgrad: out of memory\n");
            goto done;
        }
        poolgrad_status st = poolgrad_error_bound(&pa, &gt, a.in_rank, a.in_shape, model, ref, bnd);
        if (st != POOLGRAD_OK) {
            fprintf(stderr, "poolgrad: --bound: %s: %s\n", poolgrad_status_string(st), poolgrad_last_error_message());
            goto done;
        }
        opt.reference = ref;
        opt.bound = bnd;
        opt.bound_model = (int32_t)model;
    }
    poolgrad_compare_report rep;
    rep.size = sizeof rep;
    poolgrad_status st = poolgrad_compare_report_run(&at, &et, &opt, &rep);
    if (st != POOLGRAD_OK) {
        fprintf(stderr, "poolgrad: compare: %s: %s\n", poolgrad_status_string(st), poolgrad_last_error_message());
        goto done;
    }
    size_t len = poolgrad_compare_report_format(&rep, NULL, 0);
    char *text = malloc(len + 1);
    if (!text) {
        fprintf(stderr, "poolgrad: out of memory\n");
        goto done;
    }
    poolgrad_compare_report_format(&rep, text, len + 1);
    fputs(text, stdout);
    free(text);
    rc = rep.passed ? 0 : EXIT_MISMATCH;
done:
    free(ref);
    free(bnd);
    npy_free(&act);
    npy_free(&exp);
    npy_free(&go);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BAD : 0;
    }
    if (strcmp(argv[1], "info") == 0)
        return cmd_info();
    if (strcmp(argv[1], "--version") == 0) {
        printf("poolgrad %s\n", poolgrad_version_string());
        return 0;
    }
    if (strcmp(argv[1], "golden") == 0)
        return cmd_golden(argc - 2, argv + 2);
    if (strcmp(argv[1], "compare") == 0)
        return cmd_compare(argc - 2, argv + 2);
    return bad("unknown command '%s'\n%s", argv[1], usage);
}
