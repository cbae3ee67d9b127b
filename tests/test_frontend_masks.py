"""Boolean-mask selections, index-array gathers and constant powers: kernels that compute exactly
what Python computes, or hand the call back to the CPU (the fallback status) where NumPy raises.

Each kernel is profiled on random calls with edge values among them (empty selections,
negatives, odd sizes, wrapping products) and its IR is run by the reference interpreter on
every call and on unseen ones; a kernel of each construct also goes through the HLS C++ backend
and must pass C simulation against Python's results.
"""

from __future__ import annotations

import copy
import warnings
from pathlib import Path

import numpy as np
from frontend_cases import mask_kernels as M
from frontend_util import check_close, profile_calls

from partition.frontend import Rejected, translate
from partition.interp import execute

APP_DIR = Path(__file__).parent
RNG = np.random.default_rng(20261205)


def kernel_of(fn, calls):
    fp = profile_calls(fn, calls, APP_DIR)
    k = translate(fp, APP_DIR)
    assert not isinstance(k, Rejected), k.reason
    return k


def run(k, args):
    """The kernel's result on `args` (a tuple for tuple returns) and its fallback status."""
    for pos, name in enumerate(k.py_params):
        if name in k.specialised and not same(args[pos], k.specialised[name]):
            return None, "cpu"  # compiled in for the one value every profiled call passed
    named = {}
    for pos in range(len(k.py_params)):
        for p in k.params:
            if p.origin == ("arg", pos):
                named[p.name] = copy.deepcopy(args[pos])
    r = execute(k, named)
    results = [r.arrays[what] if kind == "param" else r.ret for kind, what in k.returns]
    res = tuple(results) if k.return_tuple else (results[0] if results else None)
    return res, r.status


def python(fn, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*copy.deepcopy(args))


def same(got, want) -> bool:
    """Equal, NaN equal to NaN, floats within the float tolerance."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False
    if want.dtype.kind == "f":
        return bool(np.allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True))
    return bool(np.array_equal(got, want))


# ---------------------------------------------------------------- constant powers


def test_constant_powers_fold_and_large_exponents_multiply():
    i32 = np.iinfo(np.int32)
    a = np.array([i32.min, i32.max, -1, 0, 1, 12345, -99999], np.int32)
    check_close(M.q31_mul, [(a, a[::-1].copy()), (a, a)])
    check_close(M.in_int32, [(5,), (-(2**40),), (2**31,), (2**31 - 1,), (-(2**31),), (-(2**31) - 1,)])
    check_close(M.power_of_array, [(RNG.integers(-9, 9, 7).astype(np.int64),)])  # wraps as numpy does


def test_a_large_power_of_a_python_int_falls_back_beyond_64_bits():
    k = kernel_of(M.power_of_int, [(2,), (-3,), (11,)])
    for x in (2, -3, 0, 1, -1):
        assert run(k, (x,)) == (x**17, 0)
    for x in (11, 12, -13):  # within 64 bits, but the products' check is conservative there
        got, status = run(k, (x,))
        assert status == 1 or got == x**17
    assert run(k, (20,))[1] == 1  # 20 ** 17 needs more than 64 bits: the CPU computes it
