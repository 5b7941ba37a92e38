/* The per-thread message of the last failing call: which argument is wrong and why. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Per thread, so the API stays thread-safe; not shared state. */
static _Thread_local char last_error[POOLGRAD_ERROR_MESSAGE_MAX];

const char *poolgrad_last_error_message(void) { return last_error; }

poolgrad_status poolgrad_fail(poolgrad_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

/* "[a, b, c]" into buf (always terminated; long shapes are cut with "...") */
const char *poolgrad_format_dims(char *buf, size_t size, const int64_t *dims, int rank)
{
    size_t n = 0;
    buf[0] = '\0';
    n += (size_t)snprintf(buf + n, size - n, "[");
    for (int d = 0; d < rank && n < size; d++)
        n += (size_t)snprintf(buf + n, size - n, d ? ", %lld" : "%lld", (long long)dims[d]);
    if (n < size)
        snprintf(buf + n, size - n, "]");
    return buf;
}

void poolgrad_error_rename(const char *from, const char *to)
{
    char out[POOLGRAD_ERROR_MESSAGE_MAX];
    size_t n = 0, fl = strlen(from), tl = strlen(to);
    for (const char *p = last_error; *p && n + 1 < sizeof out;) {
        if (strncmp(p, from, fl) == 0 && n + tl + 1 < sizeof out) {
            memcpy(out + n, to, tl);
            n += tl;
            p += fl;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    memcpy(last_error, out, n + 1);
}
