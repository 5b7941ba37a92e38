/* .npy parsing: every length, count and product is checked before use; nothing is trusted. */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPY_HEADER_MAX (1u << 20)
#define NPY_FILE_MAX ((int64_t)1 << 40)

static bool fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return false;
}

typedef struct cursor { const char *p, *end; } cursor;

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static bool eat(cursor *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

/* a '...' or "..." literal without escapes, at most cap-1 characters */
static bool parse_str(cursor *c, char *out, size_t cap)
{
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return false;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || n + 1 >= cap)
            return false;
        out[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return false;
    c->p++;
    out[n] = '\0';
    return true;
}

static bool parse_word(cursor *c, const char *w)
{
    skip_ws(c);
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, w, n) == 0) {
        c->p += n;
        return true;
    }
    return false;
}

static bool parse_int(cursor *c, int64_t *v)
{
    skip_ws(c);
    int64_t x = 0;
    const char *s = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        if (x > (INT64_MAX - 9) / 10)
            return false;
        x = x * 10 + (*c->p++ - '0');
    }
    if (c->p == s)
        return false;
    if (c->p < c->end && *c->p == 'L') /* Python 2 writers */
        c->p++;
    *v = x;
    return true;
}

static bool parse(const unsigned char *buf, size_t len, bool want_bf16, npy_array *out, char *err, size_t en);

/* Messages quote header text from the file: show only printable ASCII of it. */
bool npy_parse(const unsigned char *buf, size_t len, bool want_bf16, npy_array *out, char *err, size_t en)
{
    bool ok = parse(buf, len, want_bf16, out, err, en);
    if (!ok)
        for (char *c = err; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
                *c = '?';
    return ok;
}

static bool parse(const unsigned char *buf, size_t len, bool want_bf16, npy_array *out, char *err, size_t en)
{
    memset(out, 0, sizeof *out);
    if (len < 10)
        return fail(err, en, "file too short (%zu bytes) for a .npy header", len);
    if (memcmp(buf, "\x93NUMPY", 6) != 0)
        return fail(err, en, "not a .npy file (magic string \\x93NUMPY missing)");
    unsigned major = buf[6], minor = buf[7];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return fail(err, en, "file too short (%zu bytes) for a version %u .npy header", len, major);
        hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
        hstart = 12;
    } else {
        return fail(err, en, ".npy format version %u.%u is not supported (1.x, 2.x, 3.x are)", major, minor);
    }
    if (hlen > NPY_HEADER_MAX)
        return fail(err, en, "header length %zu exceeds the limit of %u bytes", hlen, NPY_HEADER_MAX);
    if (hlen > len - hstart)
        return fail(err, en, "truncated header: it claims %zu bytes, the file has %zu after the preamble", hlen,
                    len - hstart);
    const char *h = (const char *)buf + hstart;
    for (size_t i = 0; i < hlen; i++)
        if (h[i] == '\0')
            return fail(err, en, "header contains a NUL byte at offset %zu", i);
    cursor c = { h, h + hlen };
    bool have_descr = false, have_order = false, have_shape = false;
    if (!eat(&c, '{'))
        return fail(err, en, "header is not a Python dict literal (no '{')");
    while (!eat(&c, '}')) {
        char key[32];
        if (!parse_str(&c, key, sizeof key) || !eat(&c, ':'))
            return fail(err, en, "malformed header near offset %td: expected 'key':", c.p - h);
        if (strcmp(key, "descr") == 0) {
            if (have_descr || !parse_str(&c, out->descr, sizeof out->descr))
                return fail(err, en, "header 'descr' is missing, repeated or not a short string (structured dtypes "
                                     "are not supported)");
            have_descr = true;
        } else if (strcmp(key, "fortran_order") == 0) {
            if (have_order)
                return fail(err, en, "header repeats 'fortran_order'");
            if (parse_word(&c, "True"))
                out->fortran_order = true;
            else if (parse_word(&c, "False"))
                out->fortran_order = false;
            else
                return fail(err, en, "header 'fortran_order' is not True or False");
            have_order = true;
        } else if (strcmp(key, "shape") == 0) {
            if (have_shape || !eat(&c, '('))
                return fail(err, en, "header 'shape' is missing, repeated or not a tuple");
            int r = 0;
            while (!eat(&c, ')')) {
                int64_t v;
                if (r == POOLGRAD_MAX_RANK)
                    return fail(err, en, "shape has more than %d dimensions", POOLGRAD_MAX_RANK);
                if (!parse_int(&c, &v))
                    return fail(err, en, "shape[%d] is not a non-negative integer below 2^63", r);
                out->shape[r++] = v;
                if (!eat(&c, ',')) {
                    if (!eat(&c, ')'))
                        return fail(err, en, "malformed shape tuple after dimension %d", r - 1);
                    break;
                }
            }
            out->rank = r;
            have_shape = true;
        } else {
            return fail(err, en, "header has an unknown key '%s'", key);
        }
        if (!eat(&c, ',')) {
            if (!eat(&c, '}'))
                return fail(err, en, "malformed header near offset %td: expected ',' or '}'", c.p - h);
            break;
        }
    }
    skip_ws(&c);
    if (c.p != c.end)
        return fail(err, en, "trailing bytes after the header dict");
    if (!have_descr || !have_order || !have_shape)
        return fail(err, en, "header lacks '%s'", !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
    const char *d = out->descr;
    if (d[0] == '>' || d[0] == '!')
        return fail(err, en, "dtype '%s' is big-endian; only little-endian ('<') data is supported", d);
    if (strcmp(d, "<f4") == 0)
        out->dtype = POOLGRAD_F32;
    else if (strcmp(d, "<f2") == 0)
        out->dtype = POOLGRAD_F16;
    else if (strcmp(d, "<u2") == 0 || strcmp(d, "<i2") == 0) {
        if (!want_bf16)
            return fail(err, en, "dtype '%s' is 16-bit integer data: pass --dtype bf16 if it holds bfloat16 bits", d);
        out->dtype = POOLGRAD_BF16;
    } else
        return fail(err, en, "dtype '%s' is not supported (expected '<f4', '<f2', or '<u2'/'<i2' with --dtype bf16)", d);
    if (want_bf16 && out->dtype != POOLGRAD_BF16)
        return fail(err, en, "--dtype bf16 given but the file holds '%s' (bf16 travels as '<u2' or '<i2')", d);
    if (out->rank < 1)
        return fail(err, en, "shape has rank 0 (a scalar); rank 1..%d expected", POOLGRAD_MAX_RANK);
    int64_t numel = 1;
    for (int i = 0; i < out->rank; i++)
        if (__builtin_mul_overflow(numel, out->shape[i], &numel) || numel > NPY_FILE_MAX)
            return fail(err, en, "shape's element count overflows the limit of 2^40");
    size_t es = poolgrad_dtype_size(out->dtype);
    size_t data_off = hstart + hlen, want = (size_t)numel * es;
    if (len - data_off != want)
        return fail(err, en, "%s data: shape needs %zu bytes, the file has %zu after the header",
                    len - data_off < want ? "truncated" : "excess", want, len - data_off);
    out->numel = numel;
    out->data = malloc(want ? want : 1);
    if (!out->data)
        return fail(err, en, "out of memory for %zu bytes", want);
    memcpy(out->data, buf + data_off, want);
    return true;
}

bool npy_read(const char *path, bool want_bf16, npy_array *out, char *err, size_t en)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(err, en, "%s: %s", path, strerror(errno));
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 65536) {
            if (cap > (size_t)NPY_FILE_MAX) {
                fclose(f);
                free(buf);
                return fail(err, en, "%s: file larger than 2^40 bytes", path);
            }
            size_t ncap = cap ? cap * 2 : 1 << 16;
            unsigned char *nb = realloc(buf, ncap);
            if (!nb) {
                fclose(f);
                free(buf);
                return fail(err, en, "%s: out of memory", path);
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    bool io_err = ferror(f);
    fclose(f);
    if (io_err) {
        free(buf);
        return fail(err, en, "%s: read error", path);
    }
    char inner[400];
    bool ok = npy_parse(buf, len, want_bf16, out, inner, sizeof inner);
    free(buf);
    if (!ok)
        return fail(err, en, "%s: %s", path, inner);
    return true;
}

bool npy_write(const char *path, poolgrad_dtype dtype, int rank, const int64_t *shape, const void *data, char *err,
               size_t en)
{
    char dict[400];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     dtype == POOLGRAD_F32 ? "<f4" : dtype == POOLGRAD_F16 ? "<f2" : "<u2");
    int64_t numel = 1;
    for (int i = 0; i < rank; i++) {
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld,%s", (long long)shape[i], i + 1 < rank ? " " : "");
        numel *= shape[i];
    }
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = (size_t)n + pad + 1;
    unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                              (unsigned char)(hlen >> 8) };
    FILE *f = fopen(path, "wb");
    if (!f)
        return fail(err, en, "%s: %s", path, strerror(errno));
    bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(dict, 1, (size_t)n, f) == (size_t)n;
    for (size_t i = 0; ok && i < pad; i++)
        ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF;
    size_t bytes = (size_t)numel * poolgrad_dtype_size(dtype);
    ok = ok && (bytes == 0 || fwrite(data, 1, bytes, f) == bytes);
    ok = (fclose(f) == 0) && ok;
    if (!ok)
        return fail(err, en, "%s: write error", path);
    return true;
}

void npy_view(const npy_array *a, poolgrad_tensor *t)
{
    memset(t, 0, sizeof *t);
    t->dtype = a->dtype;
    t->rank = a->rank;
    int64_t st = 1;
    for (int k = 0; k < a->rank; k++) {
        int d = a->fortran_order ? k : a->rank - 1 - k;
        t->shape[d] = a->shape[d];
        t->strides[d] = st;
        st *= a->shape[d] > 0 ? a->shape[d] : 1;
    }
    t->offset = 0;
    t->storage_numel = a->numel;
    t->storage = a->data;
}

void npy_free(npy_array *a)
{
    free(a->data);
    a->data = NULL;
}
