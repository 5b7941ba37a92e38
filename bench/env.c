/*
 * env.c — the description of the machine and the run that heads the table, the JSON and the Markdown:
 * CPU model, caches, frequency and governor, the ISA poolgrad detects, the command line, the date, the peer's
 * version, the load average. Linux sysfs and /proc; what is absent is "unknown" (NAN / -1 in the struct).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "peer.h"

char cpu_name[128] = "unknown";
double load_start = NAN, load_end = NAN;

double loadavg1(void)
{
    double l = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = NAN;
        fclose(f);
    }
    return l;
}
char onednn_version[64] = "not built";
bench_context ctx;
char torch_version[64] = "not run";
char cmdline[512];
char datestr[64];

/* the first line of a small sysfs file, without the newline; false if absent */
static bool read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool ok = fgets(buf, (int)n, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = 0;
    return ok;
}

static double read_khz_as_mhz(const char *path)
{
    char b[64];
    return read_line(path, b, sizeof b) ? atof(b) / 1000.0 : NAN;
}

static const char *cpuinfo_value(char *line)
{
    char *p = strchr(line, ':');
    if (!p)
        return "";
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    p[strcspn(p, "\n")] = 0;
    return p;
}

static void describe_cpu(void)
{
    ctx.family = ctx.model = ctx.stepping = -1;
    ctx.cpuinfo_mhz = NAN;
    snprintf(ctx.vendor, sizeof ctx.vendor, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        static const char *const wanted[] = { "sse2", "ssse3", "sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c",
                                              "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_bf16",
                                              "avx512_fp16", "amx_bf16", "asimd", "fphp", "asimdhp" };
        char line[8192];
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "processor", 9) && ctx.family >= 0)
                break; /* cpu0 only */
            if (!strncmp(line, "vendor_id", 9))
                snprintf(ctx.vendor, sizeof ctx.vendor, "%s", cpuinfo_value(line));
            else if (!strncmp(line, "cpu family", 10))
                ctx.family = atoi(cpuinfo_value(line));
            else if (!strncmp(line, "model\t", 6) || !strncmp(line, "model :", 7))
                ctx.model = atoi(cpuinfo_value(line));
            else if (!strncmp(line, "stepping", 8))
                ctx.stepping = atoi(cpuinfo_value(line));
            else if (!strncmp(line, "cpu MHz", 7))
                ctx.cpuinfo_mhz = atof(cpuinfo_value(line));
            else if (!strncmp(line, "flags", 5) || !strncmp(line, "Features", 8)) {
                char all[8192];
                snprintf(all, sizeof all, " %s ", cpuinfo_value(line));
                size_t off = 0;
                for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
                    char pat[32];
                    snprintf(pat, sizeof pat, " %s ", wanted[i]);
                    if (strstr(all, pat) && off < sizeof ctx.flags)
                        off += (size_t)snprintf(ctx.flags + off, sizeof ctx.flags - off, "%s%s", off ? " " : "",
                                                wanted[i]);
                }
            }
        }
        fclose(f);
    }
    for (int i = 0; i < 8; i++) {
        char dir[96], path[160], b[64];
        snprintf(dir, sizeof dir, "/sys/devices/system/cpu/cpu0/cache/index%d", i);
        snprintf(path, sizeof path, "%s/level", dir);
        if (!read_line(path, b, sizeof b))
            break;
        cache_info *c = &ctx.caches[ctx.n_caches++];
        c->level = atoi(b);
        snprintf(path, sizeof path, "%s/type", dir);
        if (!read_line(path, c->type, sizeof c->type))
            snprintf(c->type, sizeof c->type, "unknown");
        snprintf(path, sizeof path, "%s/size", dir);
        if (!read_line(path, c->size, sizeof c->size))
            snprintf(c->size, sizeof c->size, "unknown");
        snprintf(path, sizeof path, "%s/ways_of_associativity", dir);
        c->ways = read_line(path, b, sizeof b) ? atoi(b) : 0;
        snprintf(path, sizeof path, "%s/coherency_line_size", dir);
        c->line = read_line(path, b, sizeof b) ? atoi(b) : 0;
        snprintf(path, sizeof path, "%s/shared_cpu_list", dir);
        if (!read_line(path, c->shared, sizeof c->shared))
            snprintf(c->shared, sizeof c->shared, "unknown");
    }
    const char *fq = "/sys/devices/system/cpu/cpu0/cpufreq";
    char path[128];
    snprintf(path, sizeof path, "%s/scaling_governor", fq);
    if (!read_line(path, ctx.governor, sizeof ctx.governor))
        snprintf(ctx.governor, sizeof ctx.governor, "unknown");
    snprintf(path, sizeof path, "%s/scaling_cur_freq", fq);
    ctx.freq_cur_mhz = read_khz_as_mhz(path);
    snprintf(path, sizeof path, "%s/scaling_min_freq", fq);
    ctx.freq_min_mhz = read_khz_as_mhz(path);
    snprintf(path, sizeof path, "%s/scaling_max_freq", fq);
    ctx.freq_max_mhz = read_khz_as_mhz(path);
    snprintf(path, sizeof path, "%s/cpuinfo_max_freq", fq);
    ctx.freq_hw_max_mhz = read_khz_as_mhz(path);

    /* the ISA poolgrad detects, without the environment's cap */
    const char *cap = getenv("POOLGRAD_ISA");
    const bool had_cap = cap != NULL;
    snprintf(ctx.isa_cap_env, sizeof ctx.isa_cap_env, "%s", cap ? cap : "");
    unsetenv("POOLGRAD_ISA");
    snprintf(ctx.isa_detected, sizeof ctx.isa_detected, "%s", poolgrad_isa_name(poolgrad_active_isa()));
    if (had_cap)
        setenv("POOLGRAD_ISA", ctx.isa_cap_env, 1);
}

void caches_summary(char *buf, size_t n)
{
    size_t off = 0;
    buf[0] = 0;
    for (int i = 0; i < ctx.n_caches && off < n; i++) {
        const cache_info *c = &ctx.caches[i];
        const char *t = !strcmp(c->type, "Data") ? "d" : !strcmp(c->type, "Instruction") ? "i" : "";
        off += (size_t)snprintf(buf + off, n - off, "%sL%d%s %s", i ? ", " : "", c->level, t, c->size);
    }
    if (!ctx.n_caches)
        snprintf(buf, n, "unknown");
}

void describe_env(int argc, char **argv)
{
    describe_cpu();
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10)) {
                char *p = strchr(line, ':');
                if (p) {
                    p++;
                    while (*p == ' ')
                        p++;
                    p[strcspn(p, "\n")] = 0;
                    snprintf(cpu_name, sizeof cpu_name, "%s", p);
                }
                break;
            }
        }
        fclose(f);
    }
    size_t off = 0;
    for (int i = 0; i < argc && off < sizeof cmdline - 1; i++)
        off += (size_t)snprintf(cmdline + off, sizeof cmdline - off, "%s%s", i ? " " : "", argv[i]);
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(datestr, sizeof datestr, "%Y-%m-%d %H:%M UTC", &tmv);
    snprintf(onednn_version, sizeof onednn_version, "%s", peer_version());
}
