"""np.array of run-time values (`np.array([[c, -s], [s, c]])`): numpy's dtype for values of
those types, each element stored into an array of its own; a Python int that numpy would
refuse to put into the dtype (OverflowError) hands the call back to the CPU. np.eye and
np.identity of constant sizes, as numpy builds them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from frontend_cases import run_time_arrays as A
from frontend_util import check_close, csim_pass, profile_calls

from partition.frontend import Rejected, translate
from partition.interp import execute

RNG = np.random.default_rng(3)
CASES = {
    "rotate": (A.rotate, [(0.3, np.array([1.0, 2.0])), (-1.2, np.array([-1.0, 0.5]))]),
    "pack_header": (A.pack_header, [(np.int16(3), np.int16(-4), 5), (np.int16(30), np.int16(4), 9)]),
    "state_step": (A.state_step, [(np.arange(4.0), 3), (RNG.normal(size=4), -2)]),
    "covariance_update": (
        A.covariance_update,
        [(RNG.normal(size=(2, 2)), RNG.normal(size=(2, 1)), RNG.normal(size=(1, 2))) for _ in range(2)],
    ),
    "shifted_identity": (
        A.shifted_identity,
        [(RNG.integers(-9, 9, (3, 3)).astype(np.int32),) for _ in range(2)],
    ),
    "bounds": (A.bounds, [(RNG.integers(-9, 9, 7).astype(np.int8),), (np.arange(7, dtype=np.int8),)]),
}


def test_run_time_arrays_agree_with_python():
    for fn, calls in CASES.values():
        check_close(fn, calls)


def test_run_time_arrays_in_c_simulation(tmp_path):
    csim_pass(tmp_path, CASES)


def test_a_python_int_beyond_the_dtype_falls_back():
    fn, calls = CASES["pack_header"]
    app = Path(__file__).parent
    k = translate(profile_calls(fn, calls, app), app)
    assert not isinstance(k, Rejected) and k.status is not None
    scalars = [p.name for p in k.params if p.kind == "scalar"]
    assert scalars == ["a", "b", "n"]
    for n, want in ((5, 0), (2**31 - 1, 0), (2**31, 1), (-(2**31) - 1, 1)):
        run = execute(k, {"a": np.int16(1), "b": np.int16(2), "n": n})
        assert run.status == want, n
