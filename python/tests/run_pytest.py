"""Run the pytest suite for `meson test`: exit 77 (skip) with the reason when numpy or pytest is missing,
and fail when pytest collects no tests (its exit 5) instead of passing silently."""
import os
import sys

MIN_TESTS = 20


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for mod in ("numpy", "pytest"):
        try:
            __import__(mod)
        except ImportError as e:
            print(f"SKIP: {mod} is not importable by {sys.executable} ({e}); install python3-{mod}")
            return 77
    import pytest

    class Count:
        passed = 0

        def pytest_runtest_logreport(self, report):
            if report.when == "call" and report.passed:
                Count.passed += 1

    rc = pytest.main([here, "-q", "-rs", "-p", "no:cacheprovider"], plugins=[Count()])
    if rc == 5:
        print("FAIL: pytest collected no tests (exit 5)")
        return 1
    if rc == 0 and Count.passed < MIN_TESTS:
        print(f"FAIL: only {Count.passed} tests passed, expected at least {MIN_TESTS}")
        return 1
    return int(rc)


if __name__ == "__main__":
    sys.exit(main())
