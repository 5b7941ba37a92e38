/*
 * report.c — the rows written out: the table on stdout, CSV, JSON (with the environment and the target
 * summary) and Markdown (for the README).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

void fmt_time(char *buf, size_t n, double s)
{
    if (isnan(s))
        snprintf(buf, n, "-");
    else if (s < 1e-3)
        snprintf(buf, n, "%.1fus", s * 1e6);
    else if (s < 1)
        snprintf(buf, n, "%.3fms", s * 1e3);
    else
        snprintf(buf, n, "%.3fs", s);
}

bool report_torch;

void print_header(FILE *f, bool sweep, bool dnnl)
{
    fprintf(f, "%-22s %-9s %-4s %-5s %3s %-6s %-34s %10s %7s %6s %10s %-5s %5s %10s %6s", "case", "op", "type", "lay",
            "thr", "isa", "kernel", "time", "GB/s", "%mcpy", "limit", "by", "%lim", sweep ? "ns/elem" : "ref",
            sweep ? "" : "x_ref");
    if (dnnl)
        fprintf(f, " %10s %6s %-18s", "onednn", "x_dnnl", "onednn_impl");
    if (report_torch)
        fprintf(f, " %10s %7s", "torch", "x_torch");
    fprintf(f, " %s\n", "check");
}

void print_row(FILE *f, const row *r, bool dnnl)
{
    char tp[24], tr[24], td[24], xr[16], xd[16];
    fmt_time(tp, sizeof tp, r->t_pg);
    if (r->sweep) {
        snprintf(tr, sizeof tr, "%.3f", r->ns_per_elem);
        xr[0] = 0;
    } else {
        fmt_time(tr, sizeof tr, r->t_ref);
        if (isnan(r->x_ref))
            snprintf(xr, sizeof xr, "-");
        else
            snprintf(xr, sizeof xr, "%.2fx", r->x_ref);
    }
    char tl[24];
    fmt_time(tl, sizeof tl, r->t_limit);
    fprintf(f, "%-22s %-9s %-4s %-5s %3d %-6s %-34s %10s %7.2f %5.0f%% %10s %-5s %4.0f%% %10s %6s", r->case_name, r->op,
            r->dtype, r->layout, r->threads, r->isa, r->kernel, tp, r->gbs, 100.0 * r->frac_memcpy, tl,
            r->arith_bound ? "arith" : "mem", 100.0 * r->frac_limit, tr, xr);
    if (dnnl) {
        if (isnan(r->t_dnnl)) {
            snprintf(td, sizeof td, "n/a");
            snprintf(xd, sizeof xd, "-");
        } else {
            fmt_time(td, sizeof td, r->t_dnnl);
            snprintf(xd, sizeof xd, "%.2fx", r->x_dnnl);
        }
        fprintf(f, " %10s %6s %-18s", td, xd, r->dnnl_impl);
    }
    const bool torch_differs = r->has_torch && strcmp(r->torch_check, "bit-identical");
    if (report_torch) {
        if (r->has_torch && !isnan(r->t_torch)) {
            fmt_time(td, sizeof td, r->t_torch);
            snprintf(xd, sizeof xd, "%.2fx", r->x_torch);
        } else {
            snprintf(td, sizeof td, r->has_torch ? "n/a" : "-");
            snprintf(xd, sizeof xd, "-");
        }
        fprintf(f, " %10s %7s", td, xd);
    }
    fprintf(f, " %s%s%s%s%s\n", r->check, r->dnnl_note[0] ? "  note: " : "", r->dnnl_note,
            torch_differs ? "  torch: " : "", torch_differs ? r->torch_check : "");
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isnan(v) || isinf(v))
        fprintf(f, "null");
    else
        fprintf(f, "%.9g", v);
}

static const char *csv_header =
    "case,op,dtype,layout,threads,isa,isa_requested,kernel,gi_numel,go_numel,bytes,reps,time_s,time_min_s,gbs,memcpy_time_s,memcpy_gbs,memcpy_inner,"
    "frac_memcpy,terms,adds,results,limit_isa,limit_memory_s,limit_div_s,limit_addload_s,limit_convert_s,limit_arith_s,limit_s,"
    "limit_bound,frac_limit,ns_per_elem,speedup_vs_1thread,time_vs_f32,ref_time_s,ref_reps,speedup_vs_ref,onednn_time_s,onednn_time_min_s,"
    "speedup_vs_onednn,onednn_impl,"
    "onednn_max_abs_err,onednn_note,torch_time_s,speedup_vs_torch,torch_check,verified,check\n";

static void csv_num(FILE *f, double v)
{
    if (!isnan(v) && !isinf(v))
        fprintf(f, "%.9g", v);
    fputc(',', f);
}

void write_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s: %s", path, strerror(errno));
    fputs(csv_header, f);
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        fprintf(f, "%s,%s,%s,%s,%d,%s,%s,%s,%lld,%lld,%.0f,%d,", r->case_name, r->op, r->dtype, r->layout,
                r->threads, r->isa, r->isa_req, r->kernel, (long long)r->gi_numel, (long long)r->go_numel, r->bytes, r->reps);
        csv_num(f, r->t_pg);
        csv_num(f, r->t_pg_min);
        csv_num(f, r->gbs);
        csv_num(f, r->t_memcpy);
        csv_num(f, r->memcpy_gbs);
        fprintf(f, "%d,", r->memcpy_inner);
        csv_num(f, r->frac_memcpy);
        fprintf(f, "%lld,%lld,%lld,%s,", (long long)r->terms, (long long)r->adds, (long long)r->results, r->limit_isa);
        csv_num(f, r->t_lim_mem);
        csv_num(f, r->t_lim_div);
        csv_num(f, r->t_lim_add);
        csv_num(f, r->t_lim_conv);
        csv_num(f, r->t_lim_arith);
        csv_num(f, r->t_limit);
        fprintf(f, "%s,", r->arith_bound ? "arith" : "memory");
        csv_num(f, r->frac_limit);
        csv_num(f, r->ns_per_elem);
        csv_num(f, r->x_threads);
        csv_num(f, r->x_f32);
        csv_num(f, r->t_ref);
        fprintf(f, "%d,", r->ref_reps);
        csv_num(f, r->x_ref);
        csv_num(f, r->t_dnnl);
        csv_num(f, r->t_dnnl_min);
        csv_num(f, r->x_dnnl);
        fprintf(f, "\"%s\",", r->dnnl_impl);
        csv_num(f, r->dnnl_maxabs);
        fprintf(f, "\"%s\",", r->dnnl_note);
        csv_num(f, r->t_torch);
        csv_num(f, r->x_torch);
        fprintf(f, "\"%s\",%s,\"%s\"\n", r->torch_check, r->verified ? "true" : "false", r->check);
    }
    fclose(f);
}

/* a number, or "unknown" */
static void json_num_or_unknown(FILE *f, double v)
{
    if (isnan(v) || isinf(v))
        json_str(f, "unknown");
    else
        fprintf(f, "%.9g", v);
}

/* "context": the machine as env.c found it */
static void write_json_context(FILE *f)
{
    fprintf(f, ",\n  \"context\": {\n    \"cpu_model\": {\"name\": ");
    json_str(f, cpu_name);
    fprintf(f, ", \"vendor\": ");
    json_str(f, ctx.vendor);
    fprintf(f, ", \"family\": ");
    json_num_or_unknown(f, ctx.family < 0 ? NAN : ctx.family);
    fprintf(f, ", \"model\": ");
    json_num_or_unknown(f, ctx.model < 0 ? NAN : ctx.model);
    fprintf(f, ", \"stepping\": ");
    json_num_or_unknown(f, ctx.stepping < 0 ? NAN : ctx.stepping);
    fprintf(f, ", \"cpuinfo_mhz\": ");
    json_num_or_unknown(f, ctx.cpuinfo_mhz);
    fprintf(f, "},\n    \"cpu_flags\": ");
    json_str(f, ctx.flags);
    fprintf(f, ",\n    \"isa_detected\": ");
    json_str(f, ctx.isa_detected);
    fprintf(f, ", \"isa_cap_env\": ");
    json_str(f, ctx.isa_cap_env);
    fprintf(f, ",\n    \"threads_available\": %d", max_threads());
    fprintf(f, ",\n    \"caches\": [");
    for (int i = 0; i < ctx.n_caches; i++) {
        const cache_info *c = &ctx.caches[i];
        fprintf(f, "%s\n      {\"level\": %d, \"type\": ", i ? "," : "", c->level);
        json_str(f, c->type);
        fprintf(f, ", \"size\": ");
        json_str(f, c->size);
        fprintf(f, ", \"ways\": ");
        json_num_or_unknown(f, c->ways ? c->ways : NAN);
        fprintf(f, ", \"line_bytes\": ");
        json_num_or_unknown(f, c->line ? c->line : NAN);
        fprintf(f, ", \"shared_cpu_list\": ");
        json_str(f, c->shared);
        fprintf(f, ", \"source\": ");
        json_str(f, c->source);
        fprintf(f, "}");
    }
    fprintf(f, "%s],\n    \"cpufreq\": {\"governor\": ", ctx.n_caches ? "\n    " : "");
    json_str(f, ctx.governor);
    fprintf(f, ", \"cur_mhz\": ");
    json_num_or_unknown(f, ctx.freq_cur_mhz);
    fprintf(f, ", \"min_mhz\": ");
    json_num_or_unknown(f, ctx.freq_min_mhz);
    fprintf(f, ", \"max_mhz\": ");
    json_num_or_unknown(f, ctx.freq_max_mhz);
    fprintf(f, ", \"hw_max_mhz\": ");
    json_num_or_unknown(f, ctx.freq_hw_max_mhz);
    fprintf(f, "},\n    \"roofline\": {\"model\": ");
    json_str(f, "limit = max(memory: (gradOutput + gradInput bytes) / memcpy bandwidth of the row; arithmetic: "
                "(go_numel * div[dtype] (mul[dtype] when every divisor is a power of two) + adds * addload + "
                "results * narrow[dtype]) / threads), ns per lane of the ISA that ran; div/mul[f16/bf16] include "
                "the widening; adds = terms of the elements with two or more, plus one per window for the "
                "elements it alone covers; results = elements with two or more terms, plus one per such window");
    fprintf(f, ", \"ns_per_lane\": [");
    for (int i = 0; i < n_roof; i++) {
        const roof_costs *c = &roof_table[i];
        fprintf(f, "%s\n      {\"isa\": ", i ? "," : "");
        json_str(f, c->isa);
        fprintf(f, ", \"vector_bytes\": %d, \"f32_lanes\": %d, \"div_f32\": %.6g, \"widen_div_f16\": %.6g, "
                   "\"widen_div_bf16\": %.6g, \"mul_f32\": %.6g, \"widen_mul_f16\": %.6g, \"widen_mul_bf16\": %.6g, "
                   "\"addload\": %.6g, \"narrow_f16\": %.6g, \"narrow_bf16\": %.6g}",
                4 * c->lanes, c->lanes, c->div[POOLGRAD_F32], c->div[POOLGRAD_F16], c->div[POOLGRAD_BF16],
                c->mul[POOLGRAD_F32], c->mul[POOLGRAD_F16], c->mul[POOLGRAD_BF16], c->addload,
                c->narrow[POOLGRAD_F16], c->narrow[POOLGRAD_BF16]);
    }
    fprintf(f, "%s]}\n  }", n_roof ? "\n    " : "");
}

void write_json(const char *path, const options *o)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s: %s", path, strerror(errno));
    fprintf(f, "{\n  \"program\": \"poolgrad_bench\",\n  \"command\": ");
    json_str(f, cmdline);
    fprintf(f, ",\n  \"date\": ");
    json_str(f, datestr);
    fprintf(f, ",\n  \"cpu\": ");
    json_str(f, cpu_name);
    fprintf(f, ",\n  \"compiler\": ");
    json_str(f, __VERSION__);
    fprintf(f, ",\n  \"poolgrad_version\": ");
    json_str(f, poolgrad_version_string());
    fprintf(f, ",\n  \"active_isa\": ");
    json_str(f, poolgrad_isa_name(poolgrad_active_isa()));
    write_json_context(f);
    fprintf(f, ",\n  \"onednn\": ");
    json_str(f, onednn_version);
    fprintf(f, ",\n  \"torch\": ");
    json_str(f, report_torch ? torch_version : "not run");
    fprintf(f, ",\n  \"loadavg_start\": ");
    json_num(f, load_start);
    fprintf(f, ",\n  \"loadavg_end\": ");
    json_num(f, load_end);
    fprintf(f, ",\n  \"mode\": \"%s\",\n  \"rows\": [\n",
            o->sweep ? "sweep" : o->quick ? "quick" : o->n_problems ? "problems" : "suite");
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        fprintf(f, "    {\"case\": ");
        json_str(f, r->case_name);
        fprintf(f, ", \"op\": \"%s\", \"dtype\": \"%s\", \"layout\": \"%s\", \"threads\": %d, \"isa\": ", r->op,
                r->dtype, r->layout, r->threads);
        json_str(f, r->isa);
        fprintf(f, ", \"isa_requested\": ");
        json_str(f, r->isa_req);
        fprintf(f, ", \"kernel\": ");
        json_str(f, r->kernel);
        fprintf(f, ", \"gi_numel\": %lld, \"go_numel\": %lld, \"bytes\": %.0f, \"reps\": %d", (long long)r->gi_numel,
                (long long)r->go_numel, r->bytes, r->reps);
#define JN(key, v) do { fprintf(f, ", \"" key "\": "); json_num(f, v); } while (0)
        JN("time_s", r->t_pg);
        JN("time_min_s", r->t_pg_min);
        JN("gbs", r->gbs);
        JN("memcpy_time_s", r->t_memcpy);
        JN("memcpy_gbs", r->memcpy_gbs);
        fprintf(f, ", \"memcpy_inner\": %d", r->memcpy_inner);
        JN("frac_memcpy", r->frac_memcpy);
        fprintf(f, ", \"terms\": %lld, \"adds\": %lld, \"results\": %lld, \"limit_isa\": ", (long long)r->terms,
                (long long)r->adds, (long long)r->results);
        json_str(f, r->limit_isa);
        JN("limit_memory_s", r->t_lim_mem);
        JN("limit_div_s", r->t_lim_div);
        fprintf(f, ", \"divisors_pow2\": %s", r->divisors_pow2 ? "true" : "false");
        JN("limit_addload_s", r->t_lim_add);
        JN("limit_convert_s", r->t_lim_conv);
        JN("limit_arith_s", r->t_lim_arith);
        JN("limit_s", r->t_limit);
        fprintf(f, ", \"limit_bound\": \"%s\"", r->arith_bound ? "arith" : "memory");
        JN("frac_limit", r->frac_limit);
        JN("ns_per_elem", r->ns_per_elem);
        JN("speedup_vs_1thread", r->x_threads);
        JN("time_vs_f32", r->x_f32);
        JN("ref_time_s", r->t_ref);
        fprintf(f, ", \"ref_reps\": %d", r->ref_reps);
        JN("speedup_vs_ref", r->x_ref);
        JN("onednn_time_s", r->t_dnnl);
        JN("onednn_time_min_s", r->t_dnnl_min);
        JN("speedup_vs_onednn", r->x_dnnl);
        JN("onednn_max_abs_err", r->dnnl_maxabs);
        JN("time_solo_s", r->t_pg_solo);
        JN("torch_time_s", r->t_torch);
        JN("speedup_vs_torch", r->x_torch);
#undef JN
        fprintf(f, ", \"onednn_impl\": ");
        json_str(f, r->has_dnnl ? r->dnnl_impl : "");
        fprintf(f, ", \"onednn_note\": ");
        json_str(f, r->dnnl_note);
        fprintf(f, ", \"torch_check\": ");
        json_str(f, r->torch_check);
        fprintf(f, ", \"verified\": %s, \"check\": ", r->verified ? "true" : "false");
        json_str(f, r->check);
        fprintf(f, "}%s\n", i + 1 < n_rows ? "," : "");
    }
    fprintf(f, "  ],\n  \"targets\": [\n");
    for (int i = 0; i < n_targets; i++) {
        fprintf(f, "    {\"target\": ");
        json_str(f, targets[i].name);
        fprintf(f, ", \"status\": \"%s\", \"value\": ", targets[i].status);
        json_str(f, targets[i].value);
        fprintf(f, "}%s\n", i + 1 < n_targets ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    fclose(f);
}

static void md_time(FILE *f, double s)
{
    char b[24];
    fmt_time(b, sizeof b, s);
    fprintf(f, " %s |", isnan(s) ? "n/a" : b);
}

void write_md(const char *path, const options *o, bool dnnl)
{
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s: %s", path, strerror(errno));
    char caches[160];
    caches_summary(caches, sizeof caches);
    fprintf(f, "CPU: %s (%d threads), %s, gcc %s, poolgrad %s (best ISA %s), oneDNN %s, load average %.2f.  \n"
               "Caches: %s; governor %s.  \nCommand: `%s`\n\n",
            cpu_name, max_threads(), datestr, __VERSION__, poolgrad_version_string(),
            poolgrad_isa_name(poolgrad_active_isa()), dnnl ? onednn_version : "off", load_start, caches, ctx.governor,
            cmdline);
    for (int i = 0; i < n_roof; i++) {
        char d[256];
        roof_describe(d, sizeof d, &roof_table[i]);
        fprintf(f, "Per-lane costs (%s).  \n", d);
    }
    fprintf(f, "\n| case | op | dtype | layout | thr | kernel | time | GB/s | %% memcpy | limit | bound | %% limit | %s "
               "|%s%s check |\n",
            o->sweep ? "ns/elem" : "ref | x ref", dnnl ? " oneDNN | x oneDNN | oneDNN impl |" : "",
            report_torch ? " PyTorch | x PyTorch |" : "");
    fprintf(f, "|---|---|---|---|--:|---|--:|--:|--:|--:|---|--:|--:|%s%s%s---|\n", o->sweep ? "" : "--:|",
            dnnl ? "--:|--:|---|" : "", report_torch ? "--:|--:|" : "");
    for (int i = 0; i < n_rows; i++) {
        const row *r = &rows[i];
        fprintf(f, "| %s | %s | %s | %s | %d | `%s` |", r->case_name, r->op, r->dtype, r->layout, r->threads, r->kernel);
        md_time(f, r->t_pg);
        fprintf(f, " %.2f | %.0f%% |", r->gbs, 100 * r->frac_memcpy);
        md_time(f, r->t_limit);
        fprintf(f, " %s | %.0f%% |", r->arith_bound ? "arith" : "memory", 100 * r->frac_limit);
        if (o->sweep) {
            fprintf(f, " %.3f |", r->ns_per_elem);
        } else {
            md_time(f, r->t_ref);
            if (isnan(r->x_ref))
                fprintf(f, " - |");
            else
                fprintf(f, " %.2fx |", r->x_ref);
        }
        if (dnnl) {
            md_time(f, r->t_dnnl);
            if (isnan(r->x_dnnl))
                fprintf(f, " - | %s |", r->dnnl_impl);
            else
                fprintf(f, " %.2fx | %s |", r->x_dnnl, r->dnnl_impl);
        }
        if (report_torch) {
            md_time(f, r->t_torch);
            if (isnan(r->x_torch))
                fprintf(f, " - |");
            else
                fprintf(f, " %.2fx |", r->x_torch);
        }
        if (r->has_torch && strcmp(r->torch_check, "bit-identical"))
            fprintf(f, " %s (%s%sPyTorch: %s) |\n", r->check, r->dnnl_note, r->dnnl_note[0] ? "; " : "",
                    r->torch_check);
        else if (r->dnnl_note[0])
            fprintf(f, " %s (%s) |\n", r->check, r->dnnl_note);
        else
            fprintf(f, " %s |\n", r->check);
    }
    if (n_targets) {
        fprintf(f, "\n| target | status | measured |\n|---|---|---|\n");
        for (int i = 0; i < n_targets; i++)
            fprintf(f, "| %s | %s | %s |\n", targets[i].name, targets[i].status, targets[i].value);
    }
    fclose(f);
}
