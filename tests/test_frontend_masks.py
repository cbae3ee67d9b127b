"""Boolean-mask selections, index-array gathers and constant powers: kernels that compute exactly
what Python computes, or hand the call back to the CPU (the fallback status) where NumPy raises.

Each kernel is profiled on random calls with edge values among them (empty selections,
negatives, odd sizes, wrapping products) and its IR is run by the reference interpreter on
every call and on unseen ones; a kernel of each construct also goes through the HLS C++ backend
and must pass C simulation against Python's results.
"""

from __future__ import annotations

import copy
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
from frontend_cases import mask_kernels as M
from frontend_util import check_close, csim_pass, profile_calls

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


# ---------------------------------------------------------------- boolean-mask selections

F = RNG.uniform(0, 10, 9)
P = RNG.uniform(0, 1, 9)
X = RNG.standard_normal(12)
XI = np.array([2**31 - 1, 2**31 - 1, -(2**31), 7, -3, 0, 1, 2**31 - 1], np.int32)
NAN = np.array([np.nan, 1.0, -1.0, 3.0, np.nan, -2.0, 0.5, 0.0, -0.0, np.inf, -np.inf, 2.0])
CLS = RNG.integers(0, 3, 11)
A2 = RNG.integers(-20, 20, (3, 5)).astype(np.int16)

# name: (function, profiled calls, unseen calls); empty selections among both
SELECTIONS = {
    "band_sum": (M.band_sum, [(F, P, 2.0, 7.0), (F, P, 0.0, 10.0), (F, P, 20.0, 30.0)], [(F, P, 5.0, 5.5)]),
    "band_mean": (M.band_mean, [(F, 2.0, 7.0), (F, 0.0, 10.0), (F, 20.0, 30.0)], [(-F, 0.0, 1.0)]),
    "count_by_class": (M.count_by_class, [(CLS, 4, RNG.uniform(0, 1, 11)), (CLS * 0, 4, np.ones(11))], []),
    "int_sum_above": (M.int_sum_above, [(XI, 0), (XI, 10), (XI, 2**31 - 1)], [(XI, -(2**31)), (XI, 5)]),
    "spread_of_inliers": (M.spread_of_inliers, [(X, 1.0), (X, 2.0)], [(X, 0.0), (X, -1.0)]),
    "var_ddof": (M.var_ddof, [(X,), (-np.abs(X),), (np.where(np.arange(12) == 3, 1.0, -1.0),)], [(NAN,)]),
    "max_below": (M.max_below, [(X, 0.0), (X, 1.0), (NAN, 0.5)], [(X, -100.0)]),
    "min_of_2d": (M.min_of_2d, [(A2,), (A2 + 1,)], [(np.zeros((3, 5), np.int16),)]),
    "count_selected": (M.count_selected, [(X, 0.0), (X, 5.0), (X, -5.0)], [(NAN, 0.0)]),
    "count_nonzero_mask": (M.count_nonzero_mask, [(XI, 0), (XI, 7)], [(XI * 0, 0)]),
    "class_centroids": (M.class_centroids, [(RNG.standard_normal((9, 3)), CLS[:9], 4)], [(np.ones((9, 3)), CLS[:9] * 0, 4)]),
    "selected_rows_total": (M.selected_rows_total, [(A2, np.array([1, 0, 1])), (A2, np.array([0, 1, 1]))], [(A2, np.array([0, 0, 0]))]),
    "row_sums_of_selection": (M.row_sums_of_selection, [(A2, np.array([1, 0, 1])), (A2, np.array([1, 1, 1]))], [(A2, np.array([0, 0, 0]))]),
    "argmax_selected": (M.argmax_selected, [(XI,), (XI[::-1].copy(),)], [(XI * 0,)]),
    "scaled_mean": (M.scaled_mean, [(XI,), (-np.abs(XI),)], []),
}  # fmt: skip


def check_all(fn, calls, unseen):
    """The kernel on every profiled and unseen call: Python's result with status 0, or (where
    Python raises, or a compiled-in scalar differs) the call handed to the CPU."""
    k = kernel_of(fn, calls)
    for args in [*calls, *unseen]:
        got, status = run(k, args)
        try:
            want = python(fn, args)
        except (ValueError, IndexError):
            assert status == 1, (fn.__name__, args)
            continue
        if status == "cpu":
            continue
        assert status == 0 and same(got, want), (fn.__name__, args, got, want)
    return k


@pytest.mark.parametrize("name", sorted(SELECTIONS))
def test_mask_selections_reduce_as_numpy_does(name):
    check_all(*SELECTIONS[name])


CR, CI = np.meshgrid(np.linspace(-2, 1, 7), np.linspace(-1.2, 1.2, 5))


def test_selections_combine_in_masked_assignments():
    """`z[m] = z[m] * z[m] + c[m]`: the value at each true position (numpy packs both sides)."""
    check_all(M.escape_counts, [(CR, CI, 20), (CR * 0.5, CI * 0.5, 9)], [(CR, CI, 3)])
    x, y = RNG.integers(-9, 9, 10).astype(np.int32), RNG.integers(-9, 9, 10).astype(np.int32)
    check_all(M.scale_selected, [(x, y, 0), (x, y, 5), (x, y, 100)], [(x, y, -100)])


def test_a_reduced_selection_stores_nothing():
    """A reduction of a selection reads the mask and the elements where they are: no array."""
    k = kernel_of(M.band_mean, SELECTIONS["band_mean"][1])
    assert k.locals == []


def test_an_empty_selection():
    k = kernel_of(M.band_mean, [(F, 2.0, 7.0), (F, 20.0, 30.0)])
    got, status = run(k, (F, 20.0, 30.0))
    assert status == 0 and np.isnan(got)  # numpy: NaN, with a RuntimeWarning
    k = kernel_of(M.max_below, [(X, 0.0), (X, 1.0)])
    assert run(k, (X, -100.0))[1] == 1  # numpy raises ValueError: the CPU runs the call


@pytest.mark.parametrize(
    "fn, args, needle",
    [
        (M.kept, (X,), "a boolean-mask selection"),
        (M.named_selection, (X,), "not kept under a name"),
        (M.mixed_index_slice, (A2, np.array([0, 2])), "mixed with slices"),
        (M.row_selection_stats, (A2, np.array([1, 0, 1])), "not kept under a name"),
        (M.first_positive, (X,), "known only at run time"),
        (M.loop_over_selection, (X,), "known only at run time"),
        (M.other_mask_value, (X, X[::-1].copy()), "write y[mask] with the same mask"),
    ],
)
def test_what_a_kernel_cannot_hold_is_refused(fn, args, needle):
    fp = profile_calls(fn, [args], APP_DIR)
    r = translate(fp, APP_DIR)
    assert isinstance(r, Rejected) and needle in r.reason, getattr(r, "reason", r)


# ---------------------------------------------------------------- index arrays

TAB = RNG.standard_normal((10, 4))
IDS = RNG.integers(0, 10, 6)
LG = RNG.standard_normal((5, 4))
LB = RNG.integers(0, 4, 5)

GATHERS = {
    "embedding_bag": (
        M.embedding_bag,
        [(TAB, IDS), (TAB, -IDS - 1)],
        [(TAB, np.array([0, 10, 1, 2, 3, 4])), (TAB, np.array([-11, 1, 1, 2, 3, 4])),
         (TAB, np.array([2**63 - 1, 0, 0, 0, 0, -(2**63)]))],
    ),
    "pick_rows": (M.pick_rows, [(TAB, IDS)], [(TAB, IDS * 2)]),
    "pick_rows_u16": (M.pick_rows, [(TAB, IDS.astype(np.uint16))], [(TAB, np.array([9, 10, 0, 0, 0, 65535], np.uint16))]),
    "cross_entropy": (M.cross_entropy, [(LG, LB), (LG * 30, LB[::-1].copy())], [(LG, LB + 1), (LG, LB - 4), (LG, LB - 5)]),
    "row_entries": (M.row_entries, [(LG, LB, 1), (LG, -LB, -1)], [(LG, LB + 1, 3), (LG, LB - 5, 0)]),
    "gathered_len": (M.gathered_len, [(TAB, IDS)], []),
    "loop_over_gather": (M.loop_over_gather, [(TAB, IDS), (TAB, -IDS - 1)], [(TAB, IDS + 1)]),
    "pairs": (M.pairs, [(LG, LB, LB), (LG, LB, -LB)], [(LG, LB * 2, LB), (LG, LB, LB + 4)]),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(GATHERS))
def test_index_arrays_gather_or_fall_back_where_numpy_raises(name):
    check_all(*GATHERS[name])


# ---------------------------------------------------------------- C simulation


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_masks_and_gathers_pass_c_simulation(tmp_path):
    cases = {
        name: (fn, calls)
        for name, (fn, calls, _) in {**SELECTIONS, **GATHERS}.items()
        if name != "gathered_len"  # reads no element of its table: nothing to simulate
    }
    cases["q31_mul"] = (M.q31_mul, [(XI, XI[::-1].copy())])
    cases["escape_counts"] = (M.escape_counts, [(CR, CI, 20)])
    csim_pass(tmp_path, cases)
