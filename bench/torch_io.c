/*
 * torch_io.c — the files exchanged with bench/torch_bench.py, the PyTorch column.
 *
 * --dump DIR writes, for every case/dtype/layout of the run, gradOutput as poolgrad read it and the scalar
 * reference's gradInput (the output every poolgrad row is checked against, bit for bit), both raw in
 * memory order, plus DIR/manifest.json describing each problem (shapes, kernel, stride, padding, ceil mode,
 * count_include_pad, divisor, layout, file names). torch_bench.py reads them, times PyTorch's CPU
 * avg_pool2d/3d backward on the same gradOutput, compares PyTorch's gradInput bit for bit with the dumped
 * reference (so with poolgrad), and writes TORCH.json; --torch TORCH.json reads that back into the torch
 * column. Rows match on case, dtype, layout, threads and the gradInput/gradOutput element counts (so a
 * --quick TORCH.json never lends its times to the standard suite).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"

static FILE *manifest;
static int n_dumped;
static char dump_dir[512];

static const char *layout_name(const group *g)
{
    return g->cl ? (g->bc->sd == 2 ? "nhwc" : "ndhwc") : (g->bc->sd == 2 ? "nchw" : "ncdhw");
}

static void write_file(const char *path, const void *buf, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, bytes, f) != bytes || fclose(f) != 0)
        die("--dump: cannot write %s: %s", path, strerror(errno));
}

static void json_ints(FILE *f, const int64_t *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
    fputc(']', f);
}

void torch_dump_group(const group *g, const char *dir)
{
    if (!manifest) {
        snprintf(dump_dir, sizeof dump_dir, "%s", dir);
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            die("--dump: cannot create %s: %s", dir, strerror(errno));
        char path[600];
        snprintf(path, sizeof path, "%s/manifest.json", dir);
        manifest = fopen(path, "w");
        if (!manifest)
            die("--dump: cannot write %s: %s", path, strerror(errno));
        fprintf(manifest, "{\n  \"program\": \"poolgrad_bench --dump\",\n  \"command\": \"");
        for (const char *c = cmdline; *c; c++)
            fprintf(manifest, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
        fprintf(manifest, "\",\n  \"problems\": [");
    }
    const bench_case *bc = g->bc;
    char base[200], go_path[800], gi_path[800];
    snprintf(base, sizeof base, "%s.%s.%s", bc->name, dtype_name(g->dt), layout_name(g));
    snprintf(go_path, sizeof go_path, "%s/%s.go.bin", dir, base);
    snprintf(gi_path, sizeof gi_path, "%s/%s.gi.bin", dir, base);
    write_file(go_path, g->go, g->go_bytes);
    write_file(gi_path, g->gi_ref, g->gi_bytes);
    FILE *m = manifest;
    fprintf(m, "%s\n    {\"case\": \"%s\", \"op\": \"avgpool%dd\", \"dtype\": \"%s\", \"layout\": \"%s\", "
               "\"spatial_dims\": %d,\n     \"gi_shape\": ",
            n_dumped ? "," : "", bc->name, bc->sd, dtype_name(g->dt), layout_name(g), bc->sd);
    json_ints(m, g->gi_shape, g->rank);
    fprintf(m, ", \"go_shape\": ");
    json_ints(m, g->go_shape, g->rank);
    fprintf(m, ", \"gi_numel\": %lld, \"go_numel\": %lld,\n     \"kernel\": ", (long long)g->gi_numel,
            (long long)g->go_numel);
    json_ints(m, bc->k, bc->sd);
    fprintf(m, ", \"stride\": ");
    json_ints(m, bc->s, bc->sd);
    fprintf(m, ", \"padding\": ");
    json_ints(m, bc->p, bc->sd);
    fprintf(m, ", \"ceil_mode\": %s, \"count_include_pad\": %s, \"divisor_override\": %lld,\n"
               "     \"go_file\": \"%s.go.bin\", \"gi_ref_file\": \"%s.gi.bin\"}",
            bc->ceil ? "true" : "false", bc->cip ? "true" : "false", (long long)bc->divisor, base, base);
    n_dumped++;
}

int torch_dump_finish(void)
{
    if (manifest) {
        fprintf(manifest, "\n  ]\n}\n");
        if (fclose(manifest) != 0)
            die("--dump: cannot write %s/manifest.json", dump_dir);
        manifest = NULL;
    }
    return n_dumped;
}

static jv *torch_doc;

void torch_load(const char *path)
{
    char err[300];
    torch_doc = json_read_file(path, err, sizeof err);
    if (!torch_doc)
        die("--torch: %s", err);
    const jv *tr = jv_get(torch_doc, "rows");
    if (!tr || tr->type != JV_ARR)
        die("--torch: %s has no \"rows\" array (not written by bench/torch_bench.py?)", path);
    snprintf(torch_version, sizeof torch_version, "%s", jv_str(torch_doc, "torch_version", "unknown"));
}

bool torch_attach(row *r)
{
    const jv *tr = jv_get(torch_doc, "rows");
    for (int j = 0; tr && j < tr->n; j++) {
        const jv *t = &tr->items[j];
        if (strcmp(jv_str(t, "case", ""), r->case_name) || strcmp(jv_str(t, "dtype", ""), r->dtype) ||
            strcmp(jv_str(t, "layout", ""), r->layout) || jv_num(t, "threads") != r->threads ||
            jv_num(t, "gi_numel") != (double)r->gi_numel || jv_num(t, "go_numel") != (double)r->go_numel)
            continue;
        r->has_torch = true;
        r->t_torch = jv_num(t, "time_s");
        r->x_torch = r->t_torch / (isnan(r->t_pg_solo) ? r->t_pg : r->t_pg_solo);
        snprintf(r->torch_check, sizeof r->torch_check, "%s", jv_str(t, "check", "?"));
        return true;
    }
    return false;
}

void torch_unload(void)
{
    jv_free(torch_doc);
    torch_doc = NULL;
}
