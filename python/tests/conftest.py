import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest  # noqa: E402

try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except Exception:  # torch is optional
    HAVE_TORCH = False


def pytest_report_header(config):
    import poolgrad
    return [f"poolgrad {poolgrad.__version__} from {os.path.dirname(poolgrad.__file__)}, active ISA "
            f"{poolgrad.active_isa()}, torch {'available' if HAVE_TORCH else 'not importable: torch tests skip'}"]


@pytest.fixture
def rng():
    import numpy as np
    return np.random.default_rng(12345)
