/*
 * targets.c — the performance targets judged PASS/MISS on the rows of the standard suite that were run, each
 * with the measured figure: % of the limit (roofline.c), oneDNN and PyTorch ratios, 16-bit against f32 on the
 * memory-bound rows, 2-thread scaling where one thread leaves memory bandwidth unused, % of memcpy, and the
 * speedup over the scalar reference.
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

/* memory-bound by geometry: no window overlap (k <= s on every axis), or a global pooling */
static bool memory_bound(const row *r) { return !r->overlap || r->global; }

static void row_label(char *buf, size_t n, const row *r)
{
    snprintf(buf, n, "%s %s %s", r->case_name, r->dtype, r->layout);
}

void evaluate_targets(void)
{
    n_targets = 0;
    char w[160];
    /* 1. % of the limit, every 1-thread row: >= 50%; geomean >= 70% */
    {
        target *t1 = add_target("every row >= 50% of its limit (1 thread)");
        target *t2 = add_target("geomean >= 70% of the limit (1 thread)");
        double lg = 0, mn = INFINITY;
        int n = 0, below = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || !(r->frac_limit > 0))
                continue;
            lg += log(r->frac_limit);
            n++;
            below += r->frac_limit < 0.5;
            if (r->frac_limit < mn) {
                mn = r->frac_limit;
                worst = r;
            }
        }
        if (n) {
            double gm = exp(lg / n);
            row_label(w, sizeof w, worst);
            snprintf(t1->value, sizeof t1->value, "min %.0f%% (%s, %s-bound), %d of %d rows below 50%%", 100 * mn, w,
                     worst->arith_bound ? "arithmetic" : "memory", below, n);
            t1->status = mn >= 0.5 ? "PASS" : "MISS";
            snprintf(t2->value, sizeof t2->value, "geomean %.0f%% over %d rows", 100 * gm, n);
            t2->status = gm >= 0.7 ? "PASS" : "MISS";
        }
    }
    /* 2. vs oneDNN, f32 and bf16 where it has an implementation, both layouts: geomean >= 2, every row >= 1.2 */
    {
        target *t = add_target("ahead of oneDNN (f32 + bf16 where it has an implementation, 1 thread): geomean >= 2x, "
                               "every row >= 1.2x");
        double lg = 0, mn = INFINITY;
        int n = 0, below = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || isnan(r->x_dnnl) || !strcmp(r->dtype, "f16"))
                continue;
            lg += log(r->x_dnnl);
            n++;
            below += r->x_dnnl < 1.2;
            if (r->x_dnnl < mn) {
                mn = r->x_dnnl;
                worst = r;
            }
        }
        if (n) {
            double gm = exp(lg / n);
            row_label(w, sizeof w, worst);
            snprintf(t->value, sizeof t->value, "geomean %.2fx over %d rows, min %.2fx (%s), %d rows below 1.2x", gm, n,
                     mn, w, below);
            t->status = gm >= 2.0 && mn >= 1.2 ? "PASS" : "MISS";
        }
    }
    /* 3. vs PyTorch (--torch), every row: >= 1.5x */
    {
        target *t = add_target("ahead of PyTorch CPU (--torch, 1 thread): every row >= 1.5x");
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
            row_label(w, sizeof w, worst);
            snprintf(t->value, sizeof t->value, "min %.2fx (%s), geomean %.2fx over %d rows", mn, w, exp(lg / n), n);
            t->status = mn >= 1.5 ? "PASS" : "MISS";
        }
    }
    /* 4. f16/bf16 time <= 0.6 x f32 time on the memory-bound rows (k <= s, global) */
    {
        target *t =
            add_target("f16/bf16 time <= 0.6x the f32 time on the memory-bound rows (k <= s, global; 1 thread)");
        double mx = 0, lg = 0;
        int n = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || !strcmp(r->dtype, "f32") || !memory_bound(r))
                continue;
            /* the back-to-back pairs' ratio (run.c); the two rows' medians only where it is missing */
            const row *f = find_row(r, "f32", 1);
            if (isnan(r->x_f32) && !f)
                continue;
            double q = isnan(r->x_f32) ? r->t_pg / f->t_pg : r->x_f32;
            lg += log(q);
            n++;
            if (q > mx) {
                mx = q;
                worst = r;
            }
        }
        if (n) {
            row_label(w, sizeof w, worst);
            snprintf(t->value, sizeof t->value, "max %.2f (%s), geomean %.2f over %d rows (f32 runs of the same "
                     "problem paired with each timed run)", mx, w, exp(lg / n), n);
            t->status = mx <= 0.6 ? "PASS" : "MISS";
        }
    }
    /* 5. 2 threads >= 1.7x one thread where one thread runs below 50% of the memory limit */
    {
        target *t =
            add_target("2 threads >= 1.7x one thread on the rows one thread runs below 50% of the memory limit");
        double mn = INFINITY, lg = 0;
        int n = 0, skipped = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (r->sweep || r->threads != 2 || strcmp(r->isa_req, target_isa))
                continue;
            const row *one = find_row(r, r->dtype, 1);
            if (!one)
                continue;
            if (!(one->frac_memcpy < 0.5)) {
                skipped++;
                continue;
            }
            /* the back-to-back pairs' ratio (run.c); the two rows' medians only where it is missing */
            double q = isnan(r->x_threads) ? one->t_pg / r->t_pg : r->x_threads;
            lg += log(q);
            n++;
            if (q < mn) {
                mn = q;
                worst = r;
            }
        }
        if (n) {
            row_label(w, sizeof w, worst);
            snprintf(t->value, sizeof t->value, "min %.2fx (%s), geomean %.2fx over %d rows (one-thread runs paired "
                     "with each timed run; %d at >= 50%% of memcpy with one thread not judged)", mn, w, exp(lg / n), n,
                     skipped);
            t->status = mn >= 1.7 ? "PASS" : "MISS";
        } else if (skipped) {
            snprintf(t->value, sizeof t->value, "no row: all %d 2-thread rows run >= 50%% of memcpy with one thread",
                     skipped);
        }
    }
    /* 6. non-overlapping and global: >= 70% of memcpy (the memory part of the limit, kept from earlier runs) */
    {
        target *t = add_target("non-overlapping (k<=s) and global cases: >= 70% of memcpy bandwidth (1 thread)");
        double mn = INFINITY;
        int n = 0;
        const row *worst = NULL;
        for (int i = 0; i < n_rows; i++) {
            const row *r = &rows[i];
            if (!is_1t_auto(r) || !memory_bound(r))
                continue;
            n++;
            if (r->frac_memcpy < mn) {
                mn = r->frac_memcpy;
                worst = r;
            }
        }
        if (n) {
            row_label(w, sizeof w, worst);
            snprintf(t->value, sizeof t->value, "min %.0f%% over %d rows (%s)", 100 * mn, n, w);
            t->status = mn >= 0.70 ? "PASS" : "MISS";
        }
    }
    /* 7. SIMD >= 4x scalar reference, geomean over f32 */
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
}

void print_targets(FILE *f)
{
    const char *granted = granted_isa(target_isa);
    const bool capped = strcmp(target_isa, "auto") && strcmp(granted, ctx.isa_detected);
    fprintf(f, "\ntargets, on the rows of this run with isa %s (%s on %s%s%s):\n", target_isa, granted, cpu_name,
            capped ? "; capped figures: this CPU has " : "", capped ? ctx.isa_detected : "");
    for (int i = 0; i < n_targets; i++)
        fprintf(f, "  [%-4s] %s\n         %s\n", targets[i].status, targets[i].name, targets[i].value);
}
