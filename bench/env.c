/*
 * env.c — the description of the machine and the run that heads the table, the JSON and the Markdown:
 * CPU model, the command line, the date, the peer's version, the load average.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
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
char cmdline[512];
char datestr[64];

void describe_env(int argc, char **argv)
{
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
