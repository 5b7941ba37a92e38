"""Assertions for test suites: poolgrad.testing.assert_close(actual, expected, ...)."""
from . import compare as _compare

__all__ = ["assert_close"]


def assert_close(actual, expected, *, max_ulp=None, atol=None, rtol=None, bound=None, msg=None, **kwargs):
    """Raise AssertionError with poolgrad's report unless every element passes (see poolgrad.compare).

    With no tolerance the bits must be equal (any NaN equals any NaN). Returns the Report when it passes.
    """
    report = _compare(actual, expected, max_ulp=max_ulp, atol=atol, rtol=rtol, bound=bound, **kwargs)
    if not report.passed:
        raise AssertionError((msg + "\n" if msg else "") + str(report))
    return report
