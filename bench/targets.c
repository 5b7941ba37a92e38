/*
 * targets.c — the performance targets judged PASS/MISS on the rows of the standard suite that were run.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

target targets[16];
int n_targets;

static target *add_target(const char *name)
{
    target *t = &targets[n_targets++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->status = "n/a";
    snprintf(t->value, sizeof t->value, "not measured in this run");
    return t;
}

/* the targets are judged on the first --isa of the list (default auto) */
const char *target_isa = "auto";

static bool is_1t_auto(const row *r) { return !r->sweep && r->threads == 1 && !strcmp(r->isa_req, target_isa); }

static const row *find_row(const row *like, const char *dtype, int threads)
{
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        if (!r->sweep && !strcmp(r->case_name, like->case_name) && !strcmp(r->layout, like->layout) &&
            !strcmp(r->isa_req, like->isa_req) && !strcmp(r->dtype, dtype) && r->threads == threads)
            return r;
    }
    return NULL;
}

void evaluate_targets(void)
{
    n_targets = 0;
    /* 1. vs oneDNN, f32 and bf16, both layouts: geomean >= 1.5, min >= 1.0 */
    {
        target *t = add_target("faster than oneDNN (f32+bf16, 1 thread): geomean >= 1.5x, every case >= 1.0x");
        double lg = 0, mn = INFINITY;
        int n = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || isnan(r->x_dnnl) || !strcmp(r->dtype, "f16"))
                continue;
            lg += log(r->x_dnnl);
            n++;
            if (r->x_dnnl < mn) {
                mn = r->x_dnnl;
                worst = r;
            }
        }
        if (n) {
            double gm = exp(lg / n);
            snprintf(t->value, sizeof t->value, "geomean %.2fx over %d rows, min %.2fx (%s %s %s)", gm, n, mn,
                     worst->case_name, worst->dtype, worst->layout);
            t->status = gm >= 1.5 && mn >= 1.0 ? "PASS" : "MISS";
        }
    }
    /* 1b. vs PyTorch (--torch), every row: >= 1.5x */
    {
        target *t = add_target("faster than PyTorch CPU (--torch, 1 thread): every row >= 1.5x");
        double lg = 0, mn = INFINITY;
        int n = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || isnan(r->x_torch))
                continue;
            lg += log(r->x_torch);
            n++;
            if (r->x_torch < mn) {
                mn = r->x_torch;
                worst = r;
            }
        }
        if (n) {
            snprintf(t->value, sizeof t->value, "min %.2fx (%s %s %s), geomean %.2fx over %d rows", mn,
                     worst->case_name, worst->dtype, worst->layout, exp(lg / n), n);
            t->status = mn >= 1.5 ? "PASS" : "MISS";
        }
    }
    /* 2. non-overlapping and global: >= 70% of memcpy */
    {
        target *t = add_target("non-overlapping (k<=s) and global cases: >= 70% of memcpy bandwidth (1 thread)");
        double mn = INFINITY;
        int n = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || (r->overlap && !r->global))
                continue;
            n++;
            if (r->frac_memcpy < mn) {
                mn = r->frac_memcpy;
                worst = r;
            }
        }
        if (n) {
            snprintf(t->value, sizeof t->value, "min %.0f%% over %d rows (%s %s %s)", 100 * mn, n, worst->case_name,
                     worst->dtype, worst->layout);
            t->status = mn >= 0.70 ? "PASS" : "MISS";
        }
    }
    /* 3. f16/bf16 time <= 0.6 x f32 time */
    {
        target *t = add_target("f16/bf16 time <= 0.6x the f32 time of the same case (1 thread)");
        double mx = 0, lg = 0;
        int n = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || !strcmp(r->dtype, "f32"))
                continue;
            const row *f = find_row(r, "f32", 1);
            if (!f)
                continue;
            double q = r->t_pg / f->t_pg;
            lg += log(q);
            n++;
            if (q > mx) {
                mx = q;
                worst = r;
            }
        }
        if (n) {
            snprintf(t->value, sizeof t->value, "max %.2f (%s %s %s), geomean %.2f over %d rows", mx,
                     worst->case_name, worst->dtype, worst->layout, exp(lg / n), n);
            t->status = mx <= 0.6 ? "PASS" : "MISS";
        }
    }
    /* 4. SIMD >= 4x scalar reference, geomean over f32 */
    {
        target *t = add_target("best ISA >= 4x the scalar reference, geomean over the f32 suite (1 thread)");
        double lg = 0;
        int n = 0;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || strcmp(r->dtype, "f32") || isnan(r->x_ref))
                continue;
            lg += log(r->x_ref);
            n++;
        }
        if (n) {
            double gm = exp(lg / n);
            snprintf(t->value, sizeof t->value, "geomean %.2fx over %d rows", gm, n);
            t->status = gm >= 4.0 ? "PASS" : "MISS";
        }
    }
    /* 5. 2 threads >= 1.6x one thread on 3D */
    {
        target *t = add_target("2 threads >= 1.6x one thread on the 3D cases");
        double mn = INFINITY, lg = 0;
        int n = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (r->sweep || r->threads != 2 || strcmp(r->op, "avgpool3d") || strcmp(r->isa_req, target_isa))
                continue;
            const row *one = find_row(r, r->dtype, 1);
            if (!one)
                continue;
            double q = one->t_pg / r->t_pg;
            lg += log(q);
            n++;
            if (q < mn) {
                mn = q;
                worst = r;
            }
        }
        if (n) {
            snprintf(t->value, sizeof t->value, "min %.2fx (%s %s %s), geomean %.2fx over %d rows", mn,
                     worst->case_name, worst->dtype, worst->layout, exp(lg / n), n);
            t->status = mn >= 1.6 ? "PASS" : "MISS";
        }
    }
}

void print_targets(FILE *f)
{
    fprintf(f, "\ntargets, on the rows of this run with isa %s:\n", target_isa);
    for (int i = 0; i < n_targets; i++)
        fprintf(f, "  [%-4s] %s\n         %s\n", targets[i].status, targets[i].name, targets[i].value);
}
