/*
 * compare.c — --compare OLD.json: this run's rows against those of an earlier --json file.
 *
 * Rows match on case, dtype, layout, threads and isa (the ISA that ran). A file written before rows were
 * labelled with the ISA that ran has no "isa_requested" and says e.g. "auto": its isa is then matched
 * against the cap this run asked for. For each matched row: the old and new poolgrad median times and
 * new/old (< 1: faster now), the % of the limit then and now ("-" for a file written before the limit was
 * measured: no frac_limit), and the geomean of new/old over the matched rows.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static bool matches(const jv *o, const row *r)
{
    if (strcmp(jv_str(o, "case", ""), r->case_name) || strcmp(jv_str(o, "dtype", ""), r->dtype) ||
        strcmp(jv_str(o, "layout", ""), r->layout) || jv_num(o, "threads") != r->threads)
        return false;
    const char *isa = jv_str(o, "isa", "");
    if (!strcmp(isa, r->isa))
        return true;
    return !jv_get(o, "isa_requested") && !strcmp(isa, r->isa_req);
}

void compare_with(FILE *f, const char *old_json)
{
    char err[300];
    jv *doc = json_read_file(old_json, err, sizeof err);
    if (!doc) {
        fprintf(f, "\ncompare: %s\n", err);
        return;
    }
    const jv *orows = jv_get(doc, "rows");
    if (!orows || orows->type != JV_ARR) {
        fprintf(f, "\ncompare: %s has no \"rows\" array (not a poolgrad_bench --json file?)\n", old_json);
        jv_free(doc);
        return;
    }
    fprintf(f, "\ncompare with %s (%s, %s):\n", old_json, jv_str(doc, "date", "date unknown"),
            jv_str(doc, "cpu", "cpu unknown"));
    if (strcmp(jv_str(doc, "cpu", ""), cpu_name))
        fprintf(f, "  note: recorded on another CPU (%s); this one is %s\n", jv_str(doc, "cpu", "unknown"), cpu_name);
    fprintf(f, "  %-22s %-9s %-4s %-5s %3s %-6s %10s %10s %8s %6s %6s  %s\n", "case", "op", "type", "lay", "thr", "isa",
            "old", "new", "new/old", "%lim", "%lim", "old check");
    fprintf(f, "  %-22s %-9s %-4s %-5s %3s %-6s %10s %10s %8s %6s %6s\n", "", "", "", "", "", "", "", "", "", "old",
            "new");
    char *used = calloc((size_t)orows->n + 1, 1);
    if (!used)
        die("out of memory");
    double lg = 0, mn = INFINITY, mx = 0;
    int n = 0, only_new = 0;
    const row *best = NULL, *worst = NULL;
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        const jv *o = NULL;
        for (int j = 0; j < orows->n && !o; j++)
            if (!used[j] && matches(&orows->items[j], r)) {
                o = &orows->items[j];
                used[j] = 1;
            }
        if (!o) {
            only_new++;
            continue;
        }
        double t_old = jv_num(o, "time_s"), q = r->t_pg / t_old;
        char a[24], b[24], c[16];
        fmt_time(a, sizeof a, t_old);
        fmt_time(b, sizeof b, r->t_pg);
        if (isnan(q) || isinf(q) || q <= 0)
            snprintf(c, sizeof c, "-");
        else {
            snprintf(c, sizeof c, "%.3f", q);
            lg += log(q);
            n++;
            if (q < mn) {
                mn = q;
                best = r;
            }
            if (q > mx) {
                mx = q;
                worst = r;
            }
        }
        /* % of the limit: an old file from before the limit has none ("-") */
        char lo[16], ln[16];
        double fl_old = jv_num(o, "frac_limit");
        if (isnan(fl_old))
            snprintf(lo, sizeof lo, "-");
        else
            snprintf(lo, sizeof lo, "%.0f%%", 100 * fl_old);
        snprintf(ln, sizeof ln, "%.0f%%", 100 * r->frac_limit);
        fprintf(f, "  %-22s %-9s %-4s %-5s %3d %-6s %10s %10s %8s %6s %6s  %s\n", r->case_name, r->op, r->dtype,
                r->layout, r->threads, r->isa, a, b, c, lo, ln, jv_str(o, "check", "?"));
    }
    int only_old = 0;
    for (int j = 0; j < orows->n; j++)
        only_old += !used[j];
    if (n)
        fprintf(f, "  geomean new/old %.3f over %d rows (< 1: faster now); best %.3f (%s %s %s t%d), worst %.3f "
                   "(%s %s %s t%d)\n",
                exp(lg / n), n, mn, best->case_name, best->dtype, best->layout, best->threads, mx, worst->case_name,
                worst->dtype, worst->layout, worst->threads);
    else
        fprintf(f, "  no row of this run matches a row of %s\n", old_json);
    if (only_new || only_old)
        fprintf(f, "  %d row(s) only in this run, %d only in %s\n", only_new, only_old, old_json);
    free(used);
    jv_free(doc);
}
