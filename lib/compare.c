/* poolgrad_compare: ULP and error statistics of two views, for foreign results (any NaN equals any NaN). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "internal.h"

static double load_f64(poolgrad_dtype dt, const char *p, uint32_t *bits)
{
    if (dt == POOLGRAD_F32) {
        float f;
        memcpy(&f, p, 4);
        memcpy(bits, &f, 4);
        return f;
    }
    uint16_t h;
    memcpy(&h, p, 2);
    *bits = h;
    return dt == POOLGRAD_F16 ? poolgrad_f16_to_f32_inline(h) : poolgrad_bf16_to_f32_inline(h);
}

/* Map sign-magnitude bits to a monotonic integer line (+0 and -0 both to 0). */
static int64_t ordered(uint32_t bits, int width)
{
    uint32_t sign = bits >> (width - 1);
    int64_t mag = (int64_t)(bits & ((width == 32 ? 0x7fffffffu : 0x7fffu)));
    return sign ? -mag : mag;
}

poolgrad_status poolgrad_compare(const poolgrad_tensor *actual, const poolgrad_tensor *expected,
                                 poolgrad_compare_result *result)
{
    if (!actual || !expected || !result)
        return poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "%s is NULL", !actual ? "actual" : !expected ? "expected" : "result");
    poolgrad_status st;
    if ((st = poolgrad_check_tensor_basics(actual, "actual")) != POOLGRAD_OK ||
        (st = poolgrad_check_tensor_basics(expected, "expected")) != POOLGRAD_OK)
        return st;
    if (actual->dtype != expected->dtype)
        return poolgrad_fail(POOLGRAD_ERR_DTYPE, "actual dtype %d differs from expected dtype %d", (int)actual->dtype,
                             (int)expected->dtype);
    if (actual->rank != expected->rank)
        return poolgrad_fail(POOLGRAD_ERR_RANK, "actual rank %d differs from expected rank %d", (int)actual->rank,
                             (int)expected->rank);
    for (int d = 0; d < actual->rank; d++)
        if (actual->shape[d] != expected->shape[d]) {
            char a[POOLGRAD_DIMS_BUF], e[POOLGRAD_DIMS_BUF];
            return poolgrad_fail(POOLGRAD_ERR_SHAPE, "actual shape %s differs from expected shape %s",
                                 poolgrad_format_dims(a, sizeof a, actual->shape, actual->rank),
                                 poolgrad_format_dims(e, sizeof e, expected->shape, expected->rank));
        }
    int64_t numel, lo, hi;
    if (!poolgrad_view_numel(actual, &numel))
        return poolgrad_fail(POOLGRAD_ERR_OVERFLOW, "the element count of actual overflows int64");
    if (numel > 0 && ((st = poolgrad_view_reach(actual, "actual", &lo, &hi)) != POOLGRAD_OK ||
                      (st = poolgrad_view_reach(expected, "expected", &lo, &hi)) != POOLGRAD_OK))
        return st;
    poolgrad_compare_result r = { numel, 0, -1, 0, -1, 0.0, 0.0 };
    const int rank = actual->rank;
    const int64_t es = (int64_t)poolgrad_dtype_size(actual->dtype);
    const int width = es == 4 ? 32 : 16;
    int64_t idx[POOLGRAD_MAX_RANK] = { 0 };
    for (int64_t i = 0; i < numel; i++) {
        int64_t oa = actual->offset, oe = expected->offset;
        for (int d = 0; d < rank; d++) {
            oa += idx[d] * actual->strides[d];
            oe += idx[d] * expected->strides[d];
        }
        uint32_t ba, be;
        double a = load_f64(actual->dtype, (const char *)actual->storage + oa * es, &ba);
        double e = load_f64(expected->dtype, (const char *)expected->storage + oe * es, &be);
        bool nan_a = isnan(a), nan_e = isnan(e);
        if (ba != be && !(nan_a && nan_e)) {
            r.mismatches++;
            if (r.first_mismatch < 0)
                r.first_mismatch = i;
            uint64_t ulp;
            if (nan_a || nan_e) {
                ulp = UINT64_MAX;
            } else {
                int64_t diff = ordered(ba, width) - ordered(be, width);
                ulp = (uint64_t)(diff < 0 ? -diff : diff);
            }
            if (ulp > r.max_ulp || r.max_ulp_index < 0) {
                r.max_ulp = ulp;
                r.max_ulp_index = i;
            }
            if (isfinite(a) && isfinite(e)) {
                double abs_err = fabs(a - e);
                if (abs_err > r.max_abs_error)
                    r.max_abs_error = abs_err;
                if (e != 0.0 && abs_err / fabs(e) > r.max_rel_error)
                    r.max_rel_error = abs_err / fabs(e);
            }
        }
        for (int d = rank - 1; d >= 0; d--) { /* row-major increment */
            if (++idx[d] < actual->shape[d])
                break;
            idx[d] = 0;
        }
    }
    *result = r;
    return POOLGRAD_OK;
}

/* ---- the full report (poolgrad_compare_report_run) ---- */

/* Ranking key of a worst-element candidate: failing elements first, then the larger ULP (bound ratio). */
static bool worse_than(const poolgrad_compare_element *a, double ka, const poolgrad_compare_element *b, double kb)
{
    if (a->passed != b->passed)
        return !a->passed;
    return ka > kb;
}

static void keep_worst(poolgrad_compare_report *r, double keys[], const poolgrad_compare_element *el, double key)
{
    int n = r->worst_count;
    if (n == POOLGRAD_COMPARE_WORST && !worse_than(el, key, &r->worst[n - 1], keys[n - 1]))
        return;
    int i = n < POOLGRAD_COMPARE_WORST ? n : n - 1;
    while (i > 0 && worse_than(el, key, &r->worst[i - 1], keys[i - 1])) {
        r->worst[i] = r->worst[i - 1];
        keys[i] = keys[i - 1];
        i--;
    }
    r->worst[i] = *el;
    keys[i] = key;
    if (n < POOLGRAD_COMPARE_WORST)
        r->worst_count = n + 1;
}

poolgrad_status poolgrad_compare_report_run(const poolgrad_tensor *actual, const poolgrad_tensor *expected,
                                            const poolgrad_compare_options *options, poolgrad_compare_report *report)
{
    if (!report)
        return poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "report is NULL");
    if (report->size < sizeof(poolgrad_compare_report))
        return poolgrad_fail(POOLGRAD_ERR_PARAM, "report->size = %zu is smaller than sizeof(poolgrad_compare_report) = %zu",
                             report->size, sizeof(poolgrad_compare_report));
    poolgrad_compare_options opt = { sizeof opt, -1, 0.0, 0.0, NULL, NULL, 0 };
    if (options) {
        if (options->size < sizeof(poolgrad_compare_options))
            return poolgrad_fail(POOLGRAD_ERR_PARAM,
                                 "options->size = %zu is smaller than sizeof(poolgrad_compare_options) = %zu",
                                 options->size, sizeof(poolgrad_compare_options));
        opt = *options;
        opt.size = sizeof opt;
        if (opt.reference && !opt.bound)
            return poolgrad_fail(POOLGRAD_ERR_NULL_POINTER, "options->bound is NULL while options->reference is set");
        if (!opt.reference)
            opt.bound = NULL;
        if (!(opt.atol > 0.0)) /* NaN too */
            opt.atol = 0.0;
        if (!(opt.rtol > 0.0))
            opt.rtol = 0.0;
    }
    poolgrad_compare_result basic;
    poolgrad_status st = poolgrad_compare(actual, expected, &basic); /* validates both views */
    if (st != POOLGRAD_OK)
        return st;
    poolgrad_compare_report r;
    memset(&r, 0, sizeof r);
    r.size = sizeof r;
    r.dtype = actual->dtype;
    r.rank = actual->rank;
    memcpy(r.shape, actual->shape, sizeof r.shape);
    for (int d = r.rank; d < POOLGRAD_MAX_RANK; d++)
        r.shape[d] = 0;
    r.count = basic.count;
    r.max_ulp_index = -1;
    r.options = opt;
    r.options.reference = r.options.bound = NULL;
    double keys[POOLGRAD_COMPARE_WORST];
    const bool use_tol = opt.atol > 0.0 || opt.rtol > 0.0;
    const int rank = actual->rank;
    const int64_t es = (int64_t)poolgrad_dtype_size(actual->dtype);
    const int width = es == 4 ? 32 : 16;
    int64_t idx[POOLGRAD_MAX_RANK] = { 0 };
    for (int64_t i = 0; i < r.count; i++) {
        int64_t oa = actual->offset, oe = expected->offset;
        for (int d = 0; d < rank; d++) {
            oa += idx[d] * actual->strides[d];
            oe += idx[d] * expected->strides[d];
        }
        poolgrad_compare_element el;
        memset(&el, 0, sizeof el);
        el.actual = load_f64(actual->dtype, (const char *)actual->storage + oa * es, &el.actual_bits);
        el.expected = load_f64(expected->dtype, (const char *)expected->storage + oe * es, &el.expected_bits);
        el.reference = el.bound = NAN;
        const double a = el.actual, e = el.expected;
        const bool nan_a = isnan(a), nan_e = isnan(e);
        const bool differ = el.actual_bits != el.expected_bits && !(nan_a && nan_e);
        if (nan_a != nan_e)
            el.ulp = UINT64_MAX;
        else if (!nan_a) {
            int64_t diff = ordered(el.actual_bits, width) - ordered(el.expected_bits, width);
            el.ulp = (uint64_t)(diff < 0 ? -diff : diff);
        }
        if (isfinite(a) && isfinite(e)) {
            el.abs_error = fabs(a - e);
            el.rel_error = e != 0.0 ? el.abs_error / fabs(e) : el.abs_error > 0.0 ? INFINITY : 0.0;
        } else {
            el.abs_error = el.rel_error = differ ? INFINITY : 0.0;
        }
        double key = el.ulp == UINT64_MAX ? INFINITY : (double)el.ulp;
        bool nan_mis, inf_mis;
        if (opt.bound) {
            const double ref = opt.reference[i], b = opt.bound[i];
            el.reference = ref;
            el.bound = b;
            nan_mis = nan_a != (bool)isnan(ref);
            if (nan_mis)
                el.passed = false, inf_mis = false;
            else if (nan_a)
                el.passed = true, inf_mis = false;
            else if (!isfinite(ref) || !isfinite(a)) {
                el.passed = a == ref || (isinf(b) && isfinite(ref)); /* an infinity only where overflow is possible */
                inf_mis = !el.passed;
            } else {
                double dev = fabs(a - ref);
                el.passed = dev <= b;
                inf_mis = false;
                double ratio = b > 0.0 ? dev / b : dev > 0.0 ? INFINITY : 0.0;
                if (ratio > r.max_bound_ratio)
                    r.max_bound_ratio = ratio;
                key = ratio;
            }
        } else {
            nan_mis = nan_a != nan_e;
            inf_mis = !nan_mis && (isinf(a) || isinf(e)) && a != e;
            if (!differ)
                el.passed = true;
            else if (nan_mis || inf_mis)
                el.passed = false;
            else
                el.passed = (opt.max_ulp >= 0 && el.ulp <= (uint64_t)opt.max_ulp) ||
                            (use_tol && el.abs_error <= opt.atol + opt.rtol * fabs(e));
        }
        if (differ) {
            r.differing++;
            if (el.ulp != UINT64_MAX && (el.ulp > r.max_ulp || r.max_ulp_index < 0)) {
                r.max_ulp = el.ulp;
                r.max_ulp_index = i;
            }
            if (isfinite(a) && isfinite(e)) {
                if (el.abs_error > r.max_abs_error)
                    r.max_abs_error = el.abs_error;
                if (el.rel_error > r.max_rel_error)
                    r.max_rel_error = el.rel_error;
            }
        }
        r.nan_mismatches += nan_mis;
        r.inf_mismatches += inf_mis;
        r.failed += !el.passed;
        if (differ || !el.passed) {
            el.index = i;
            memcpy(el.multi_index, idx, sizeof el.multi_index);
            keep_worst(&r, keys, &el, key);
        }
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < actual->shape[d])
                break;
            idx[d] = 0;
        }
    }
    r.passed = r.failed == 0;
    *report = r;
    return POOLGRAD_OK;
}

/* ---- the report as text */

typedef struct text { char *buf; size_t size, len; } text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char dummy[1];
    size_t room = t->len < t->size ? t->size - t->len : 0;
    int n = vsnprintf(room ? t->buf + t->len : dummy, room ? room : 1, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

static void put_index(text *t, const int64_t *mi, int rank)
{
    put(t, "[");
    for (int d = 0; d < rank; d++)
        put(t, d ? ", %lld" : "%lld", (long long)mi[d]);
    put(t, "]");
}

static void put_value(text *t, double v, uint32_t bits, int width)
{
    put(t, "%.9g (0x%0*x)", v, width / 4, (unsigned)bits);
}

size_t poolgrad_compare_report_format(const poolgrad_compare_report *r, char *buf, size_t size)
{
    text t = { buf, buf ? size : 0, 0 };
    if (t.size)
        buf[0] = '\0';
    if (!r) {
        put(&t, "no report\nFAIL\n");
        return t.len;
    }
    const int width = r->dtype == POOLGRAD_F32 ? 32 : 16;
    put(&t, "compared %lld %s elements, shape ", (long long)r->count, poolgrad_dtype_name(r->dtype));
    put_index(&t, r->shape, r->rank);
    put(&t, "\ntolerance: ");
    const poolgrad_compare_options *o = &r->options;
    bool any = false;
    if (o->bound_model > 0) {
        put(&t, "per-element error bound %s (|actual - exact| <= bound, exact = float64 sum of the terms)",
            poolgrad_bound_model_name((poolgrad_bound_model)o->bound_model));
        any = true;
    } else {
        if (o->max_ulp >= 0)
            put(&t, "%smax_ulp %lld", any ? ", " : "", (long long)o->max_ulp), any = true;
        if (o->atol > 0.0 || o->rtol > 0.0)
            put(&t, "%s|a - e| <= atol %.3g + rtol %.3g * |e|", any ? " or " : "", o->atol, o->rtol), any = true;
    }
    if (!any)
        put(&t, "none (bits must be equal; any NaN equals any NaN)");
    const double frac = r->count ? (double)r->failed / (double)r->count : 0.0;
    put(&t, "\nmismatches: %lld of %lld (%.4g%%) outside the tolerance; %lld differ in bits\n", (long long)r->failed,
        (long long)r->count, 100.0 * frac, (long long)r->differing);
    put(&t, "NaN position mismatches: %lld; inf position mismatches: %lld\n", (long long)r->nan_mismatches,
        (long long)r->inf_mismatches);
    if (r->max_ulp_index >= 0)
        put(&t, "max ulp distance %llu at flat index %lld; max abs error %.6g; max rel error %.6g\n",
            (unsigned long long)r->max_ulp, (long long)r->max_ulp_index, r->max_abs_error, r->max_rel_error);
    if (o->bound_model > 0)
        put(&t, "largest |actual - exact| / bound: %.4g\n", r->max_bound_ratio);
    if (r->worst_count > 0)
        put(&t, "worst elements:\n");
    for (int w = 0; w < r->worst_count; w++) {
        const poolgrad_compare_element *el = &r->worst[w];
        put(&t, "  %s index ", el->passed ? "ok  " : "FAIL");
        put_index(&t, el->multi_index, r->rank);
        put(&t, " (flat %lld): actual ", (long long)el->index);
        put_value(&t, el->actual, el->actual_bits, width);
        put(&t, " expected ");
        put_value(&t, el->expected, el->expected_bits, width);
        if (el->ulp == UINT64_MAX)
            put(&t, " ulp NaN-vs-number");
        else
            put(&t, " ulp %llu", (unsigned long long)el->ulp);
        put(&t, " abs %.6g rel %.6g", el->abs_error, el->rel_error);
        if (!isnan(el->bound))
            put(&t, " exact %.17g |actual - exact| %.6g bound %.6g", el->reference, fabs(el->actual - el->reference),
                el->bound);
        put(&t, "\n");
    }
    put(&t, "%s\n", r->passed ? "PASS" : "FAIL");
    return t.len;
}
