/*
 * env.c — the description of the machine and the run that heads the table, the JSON and the Markdown:
 * CPU model, caches, frequency and governor, the ISA poolgrad detects, the command line, the date, the peer's
 * version, the load average. Linux sysfs and /proc, and CPUID for the caches when sysfs lacks them (some VMs);
 * what is absent is "unknown" (NAN / -1 in the struct).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "peer.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* one cache read from CPUID (ways or line 0: unknown); none of size 0 */
static void add_cache(int level, const char *type, unsigned kib, int ways, int line, const char *source)
{
    if (!kib || ctx.n_caches >= 8)
        return;
    cache_info *ci = &ctx.caches[ctx.n_caches++];
    ci->level = level;
    snprintf(ci->type, sizeof ci->type, "%s", type);
    snprintf(ci->size, sizeof ci->size, "%uK", kib);
    ci->ways = ways;
    ci->line = line;
    snprintf(ci->shared, sizeof ci->shared, "unknown");
    snprintf(ci->source, sizeof ci->source, "%s", source);
}

/* Caches from CPUID's deterministic cache leaf (4 on Intel, 0x8000001d on AMD), for machines whose sysfs has no
 * cpu0/cache (seen on a VM with an AMD Zen 5). */
static void caches_from_cpuid_leaf(unsigned leaf, const char *source)
{
    for (unsigned i = 0; i < 8; i++) {
        unsigned a, b, c, d;
        if (!__get_cpuid_count(leaf, i, &a, &b, &c, &d) || (a & 31) == 0)
            return;
        const unsigned type = a & 31, ways = (b >> 22) + 1, line = (b & 4095) + 1;
        const unsigned long long bytes = (unsigned long long)ways * (((b >> 12) & 1023) + 1) * line * (c + 1ull);
        add_cache((int)((a >> 5) & 7), type == 1 ? "Data" : type == 2 ? "Instruction" : "Unified",
                  (unsigned)(bytes / 1024), (int)ways, (int)line, source);
    }
}

static void caches_from_cpuid(void)
{
    caches_from_cpuid_leaf(4, "cpuid 4");
    if (!ctx.n_caches)
        caches_from_cpuid_leaf(0x8000001d, "cpuid 0x8000001d");
    unsigned a, b, c, d;
    /* AMD's older leaves, which a hypervisor may fill when it hides the others. L3 there is what the CPU
     * reports: in a VM it can be the socket's total, not the slice one core shares. */
    if (!ctx.n_caches && __get_cpuid(0x80000005, &a, &b, &c, &d)) {
        add_cache(1, "Data", c >> 24, (int)((c >> 16) & 255), (int)(c & 255), "cpuid 0x80000005");
        add_cache(1, "Instruction", d >> 24, (int)((d >> 16) & 255), (int)(d & 255), "cpuid 0x80000005");
        if (__get_cpuid(0x80000006, &a, &b, &c, &d)) {
            /* their associativity is an encoded field; left unknown */
            add_cache(2, "Unified", c >> 16, 0, (int)(c & 255), "cpuid 0x80000006");
            add_cache(3, "Unified", (d >> 18) * 512u, 0, (int)(d & 255), "cpuid 0x80000006");
        }
    }
}
#else
static void caches_from_cpuid(void) {}
#endif

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
        snprintf(c->source, sizeof c->source, "sysfs");
    }
    if (!ctx.n_caches)
        caches_from_cpuid();
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
    else if (strcmp(ctx.caches[0].source, "sysfs") && off < n)
        snprintf(buf + off, n - off, " (%s%s)", ctx.caches[0].source,
                 !strcmp(ctx.caches[0].source, "cpuid 0x80000005") ? "/6; L3 as the CPU reports it, in a VM maybe the socket's" : "");
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
