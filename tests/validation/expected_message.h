/* Expected error messages of the validation tables: "{}" in a row's message stands for the row's value. */
#ifndef POOLGRAD_TESTS_EXPECTED_MESSAGE_H
#define POOLGRAD_TESTS_EXPECTED_MESSAGE_H

#include <stdint.h>
#include <stdio.h>

/* msg with each "{}" replaced by v */
static inline void pgt_expand_msg(char *out, size_t size, const char *msg, int64_t v)
{
    size_t n = 0;
    for (const char *m = msg; *m && n + 1 < size; m++) {
        if (m[0] == '{' && m[1] == '}') {
            n += (size_t)snprintf(out + n, size - n, "%lld", (long long)v);
            m++;
        } else {
            out[n++] = *m;
        }
    }
    out[n < size ? n : size - 1] = '\0';
}

#endif
