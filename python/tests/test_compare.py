"""poolgrad.compare / testing.assert_close: the report."""
import numpy as np
import pytest

import poolgrad
from poolgrad.testing import assert_close


def test_equal_passes_and_any_nan_equals_any_nan():
    a = np.array([[1.0, np.nan, -0.0]], np.float32)
    e = np.array([[1.0, np.nan, -0.0]], np.float32)
    e.view(np.uint32)[0, 1] = 0xFFC00001
    r = poolgrad.compare(a, e)
    assert r.passed and r.mismatches == 0 and r.differing == 0 and "PASS" in str(r)
    assert_close(a, e)


def test_one_ulp_reported_with_multi_index_hex_and_values():
    e = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7
    a = e.copy()
    a[1, 2, 3] = np.nextafter(a[1, 2, 3], np.float32(np.inf))
    r = poolgrad.compare(a, e)
    assert not r.passed and r.mismatches == 1 and r.max_ulp == 1
    w = r.worst[0]
    assert w.multi_index == (1, 2, 3) and w.index == 23 and w.ulp == 1
    assert w.actual_bits == int(a.view(np.uint32)[1, 2, 3]) and w.expected_bits == int(e.view(np.uint32)[1, 2, 3])
    text = str(r)
    assert "[1, 2, 3]" in text and f"0x{w.actual_bits:08x}" in text and "FAIL" in text
    assert "1 of 24" in text and "tolerance: none" in text
    assert poolgrad.compare(a, e, max_ulp=1).passed
    with pytest.raises(AssertionError, match=r"\[1, 2, 3\]"):
        assert_close(a, e)
    assert_close(a, e, max_ulp=1)


def test_ulp_on_the_ordered_integer_line_across_zero():
    tiny = np.array([1], np.uint16).view(np.float16)[0]
    e = np.array([tiny, 0.0, 0.0], np.float16)
    a = np.array([-tiny, -0.0, np.array(3, np.uint16).view(np.float16)], np.float16)
    r = poolgrad.compare(a, e)
    ulps = {w.index: w.ulp for w in r.worst}
    assert ulps[0] == 2            # -tiny .. +tiny: two steps through zero
    assert ulps[1] == 0            # +0 vs -0 differ in bits but are 0 ulp apart
    assert r.differing == 3
    assert poolgrad.compare(a[1:2], e[1:2], max_ulp=0).passed
    assert ulps[2] == 3
    # bf16 across zero: the "max_ulp 14891" meant nothing; here it is the integer-line distance
    ab = np.array([0x8001], np.uint16)
    eb = np.array([0x0001], np.uint16)
    rb = poolgrad.compare(ab, eb, dtype="bfloat16")
    assert rb.max_ulp == 2


def test_atol_floor_and_rtol():
    e = np.array([1e-30, 1.0, 100.0], np.float32)
    a = np.array([-1e-30, 1.0001, 100.0], np.float32)
    assert not poolgrad.compare(a, e, max_ulp=4).passed
    assert poolgrad.compare(a, e, atol=1e-29, rtol=2e-4).passed
    r = poolgrad.compare(a, e, atol=1e-29)
    assert r.mismatches == 1 and r.worst[0].index == 1
    assert "atol" in str(r)


def test_nan_and_inf_position_mismatches_counted_separately():
    e = np.array([1.0, np.nan, np.inf, 2.0, -np.inf], np.float32)
    a = np.array([np.nan, 1.0, 3.0, np.inf, -np.inf], np.float32)
    r = poolgrad.compare(a, e, max_ulp=10 ** 9, atol=1e30)
    assert r.nan_mismatches == 2 and r.inf_mismatches == 2 and r.mismatches == 4
    assert "NaN position mismatches: 2; inf position mismatches: 2" in str(r)


def test_worst_elements_sorted_and_limited():
    e = np.zeros((4, 5), np.float32)
    a = e.copy()
    a.view(np.uint32)[:] = np.arange(20, dtype=np.uint32).reshape(4, 5)
    r = poolgrad.compare(a, e)
    assert r.mismatches == 19 and len(r.worst) == 8
    assert [w.ulp for w in r.worst] == list(range(19, 11, -1))
    assert r.worst[0].multi_index == (3, 4)


def test_shape_or_dtype_mismatch_is_value_error():
    with pytest.raises(ValueError, match="shape"):
        poolgrad.compare(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError, match="dtype"):
        poolgrad.compare(np.zeros(3, np.float32), np.zeros(3, np.float16))
