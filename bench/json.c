/*
 * json.c — a small JSON reader for the files the benchmark reads back (--compare OLD.json, --torch
 * TORCH.json): the whole document into a tree of jv values. Strings keep \uXXXX escapes below 0x80 only
 * (others become '?'), which is all these files contain.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct parser {
    const char *s, *p;
    char *err;
    size_t err_size;
} parser;

static bool fail(parser *ps, const char *what)
{
    if (!ps->err[0]) {
        int line = 1;
        for (const char *q = ps->s; q < ps->p; q++)
            line += *q == '\n';
        snprintf(ps->err, ps->err_size, "%s at line %d", what, line);
    }
    return false;
}

static void ws(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p)
        die("out of memory");
    return p;
}

static bool parse_value(parser *ps, jv *v, int depth);

static bool parse_string(parser *ps, char **out)
{
    if (*ps->p != '"')
        return fail(ps, "expected a string");
    ps->p++;
    size_t cap = 16, n = 0;
    char *b = xrealloc(NULL, cap);
    while (*ps->p != '"') {
        char c = *ps->p++;
        if (!c) {
            free(b);
            return fail(ps, "unterminated string");
        }
        if (c == '\\') {
            char e = *ps->p++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned x = 0;
                for (int i = 0; i < 4; i++) {
                    char h = *ps->p++;
                    if (!isxdigit((unsigned char)h)) {
                        free(b);
                        return fail(ps, "bad \\u escape");
                    }
                    x = x * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0' : tolower((unsigned char)h) - 'a' + 10);
                }
                c = x < 0x80 ? (char)x : '?';
                break;
            }
            case '"': case '\\': case '/': c = e; break;
            default:
                free(b);
                return fail(ps, "bad escape");
            }
        }
        if (n + 1 >= cap)
            b = xrealloc(b, cap *= 2);
        b[n++] = c;
    }
    ps->p++;
    b[n] = 0;
    *out = b;
    return true;
}

static bool parse_value(parser *ps, jv *v, int depth)
{
    memset(v, 0, sizeof *v);
    if (depth > 32)
        return fail(ps, "nested too deeply");
    ws(ps);
    char c = *ps->p;
    if (c == '{' || c == '[') {
        const bool obj = c == '{';
        v->type = obj ? JV_OBJ : JV_ARR;
        ps->p++;
        ws(ps);
        if (*ps->p == (obj ? '}' : ']')) {
            ps->p++;
            return true;
        }
        for (;;) {
            char *key = NULL;
            if (obj) {
                ws(ps);
                if (!parse_string(ps, &key))
                    return false;
                ws(ps);
                if (*ps->p != ':') {
                    free(key);
                    return fail(ps, "expected ':'");
                }
                ps->p++;
            }
            v->items = xrealloc(v->items, (size_t)(v->n + 1) * sizeof *v->items);
            v->keys = xrealloc(v->keys, (size_t)(v->n + 1) * sizeof *v->keys);
            v->keys[v->n] = key;
            if (!parse_value(ps, &v->items[v->n++], depth + 1))
                return false;
            ws(ps);
            if (*ps->p == ',') {
                ps->p++;
                continue;
            }
            if (*ps->p == (obj ? '}' : ']')) {
                ps->p++;
                return true;
            }
            return fail(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
    if (c == '"') {
        v->type = JV_STR;
        return parse_string(ps, &v->str);
    }
    if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
        v->type = JV_BOOL;
        v->b = c == 't';
        ps->p += v->b ? 4 : 5;
        return true;
    }
    if (!strncmp(ps->p, "null", 4)) {
        v->type = JV_NULL;
        ps->p += 4;
        return true;
    }
    char *end;
    errno = 0;
    double x = strtod(ps->p, &end);
    if (end == ps->p || errno)
        return fail(ps, "expected a value");
    v->type = JV_NUM;
    v->num = x;
    ps->p = end;
    return true;
}

jv *json_parse(const char *text, char *err, size_t err_size)
{
    parser ps = { text, text, err, err_size };
    err[0] = 0;
    jv *v = xrealloc(NULL, sizeof *v);
    bool ok = parse_value(&ps, v, 0);
    if (ok) {
        ws(&ps);
        if (*ps.p)
            ok = fail(&ps, "trailing characters");
    }
    if (!ok) {
        jv_free(v);
        return NULL;
    }
    return v;
}

jv *json_read_file(const char *path, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *b = xrealloc(NULL, cap);
    size_t got;
    while ((got = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0)
            b = xrealloc(b, cap *= 2);
    }
    fclose(f);
    b[n] = 0;
    char e[200];
    jv *v = json_parse(b, e, sizeof e);
    free(b);
    if (!v)
        snprintf(err, err_size, "%s: %s", path, e);
    return v;
}

static void jv_clear(jv *v)
{
    for (int i = 0; i < v->n; i++) {
        jv_clear(&v->items[i]);
        free(v->keys ? v->keys[i] : NULL);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

void jv_free(jv *v)
{
    if (v) {
        jv_clear(v);
        free(v);
    }
}

const jv *jv_get(const jv *obj, const char *key)
{
    if (!obj || obj->type != JV_OBJ)
        return NULL;
    for (int i = 0; i < obj->n; i++)
        if (obj->keys[i] && !strcmp(obj->keys[i], key))
            return &obj->items[i];
    return NULL;
}

const char *jv_str(const jv *obj, const char *key, const char *dflt)
{
    const jv *v = jv_get(obj, key);
    return v && v->type == JV_STR ? v->str : dflt;
}

double jv_num(const jv *obj, const char *key)
{
    const jv *v = jv_get(obj, key);
    return v && v->type == JV_NUM ? v->num : NAN;
}

bool selftest_json(void)
{
    char err[200];
    jv *v = json_parse("{\"a\": [1, 2.5e3, -3], \"s\": \"x\\\"y\\u0041\", \"t\": true, \"n\": null, \"o\": {}}", err,
                       sizeof err);
    bool ok = v && jv_get(v, "a") && jv_get(v, "a")->n == 3 && jv_get(v, "a")->items[1].num == 2500 &&
              !strcmp(jv_str(v, "s", ""), "x\"yA") && jv_get(v, "t")->b && jv_get(v, "n")->type == JV_NULL &&
              jv_get(v, "o")->type == JV_OBJ && isnan(jv_num(v, "missing"));
    jv_free(v);
    static const char *const bad[] = { "{\"a\": }", "[1, 2", "{\"a\" 1}", "\"abc", "[1] x" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        jv *b = json_parse(bad[i], err, sizeof err);
        if (b || !err[0]) {
            printf("selftest json_parse('%s') accepted\n", bad[i]);
            ok = false;
        }
        jv_free(b);
    }
    if (!ok)
        printf("selftest json: FAIL\n");
    return ok;
}
