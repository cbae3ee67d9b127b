"""Slices whose length is known only at run time (`A[i, :j]`, `A[i + 1:, i]`, `C[i, :i + 1]`):
loops that run that many times, equal only to themselves within a statement, checked by the
reference interpreter against Python and through C simulation; what cannot be shown safe is
refused with the reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from frontend_cases import triangular_kernels as T
from frontend_util import check_close, csim_pass, profile_calls

from partition import ir
from partition.frontend import Rejected, translate

APP_DIR = Path(__file__).parent
RNG = np.random.default_rng(7)


def spd(n):
    """A symmetric positive definite matrix (Cholesky's input)."""
    m = RNG.standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


def lower(n):
    m = np.tril(RNG.standard_normal((n, n)))
    m[np.diag_indices(n)] = RNG.uniform(1.0, 2.0, n)
    return m


CASES = {
    "syrk": (T.syrk, lambda: [(1.5, 1.2, RNG.standard_normal((5, 5)), RNG.standard_normal((5, 3))) for _ in range(3)]),
    "syr2k": (T.syr2k, lambda: [(1.5, 1.2, RNG.standard_normal((4, 4)), RNG.standard_normal((4, 3)),
                                 RNG.standard_normal((4, 3))) for _ in range(3)]),
    "syrk_int": (T.syrk, lambda: [(3, 2, RNG.integers(-50, 50, (5, 5)), RNG.integers(-50, 50, (5, 4))) for _ in range(3)]),
    "trmm": (T.trmm, lambda: [(1.5, RNG.standard_normal((5, 5)), RNG.standard_normal((5, 3))) for _ in range(3)]),
    "cholesky": (T.cholesky, lambda: [(spd(5),) for _ in range(3)]),
    "lu": (T.lu, lambda: [(spd(4),) for _ in range(3)]),
    "trisolv": (T.trisolv, lambda: [(lower(6), np.zeros(6), RNG.standard_normal(6)) for _ in range(3)]),
    "prefix_sums_int": (T.prefix_sums_int, lambda: [(RNG.integers(-9, 9, 7).astype(np.int16), np.zeros(7, np.int64)) for _ in range(3)]),
    "growing_window_sum": (T.growing_window_sum, lambda: [(RNG.integers(-99, 99, 9).astype(np.int16),) for _ in range(3)]),
    "band_update": (T.band_update, lambda: [(RNG.integers(-9, 9, (4, 4)).astype(np.int32), 3) for _ in range(3)]),
    "durbin": (T.durbin, lambda: [(np.array([1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125]) * RNG.uniform(0.5, 1.0),) for _ in range(3)]),
    "reversed_prefix_int": (T.reversed_prefix_int, lambda: [(RNG.integers(-9, 9, 6).astype(np.int32), np.zeros(6, np.int32)) for _ in range(3)]),
    "nussinov_row": (T.nussinov_row, lambda: [(RNG.integers(0, 4, 7).astype(np.int32), RNG.integers(0, 9, (7, 7)).astype(np.int32)) for _ in range(3)]),
    "max_of_prefix": (T.max_of_prefix, lambda: [(RNG.standard_normal(6), np.zeros(6)) for _ in range(3)]),
    "argmin_of_suffix": (T.argmin_of_suffix, lambda: [(RNG.integers(-5, 5, 7).astype(np.int8), np.zeros(7, np.int64)) for _ in range(3)]),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_run_time_slices_match_python(name):
    fn, make = CASES[name]
    k = check_close(fn, make())
    # the slices' loops run a run-time number of times, at most the dimension
    runtime = [s for s in ir.walk_stmts(k.body) if isinstance(s, ir.For) and not isinstance(s.stop, ir.Const)]
    assert runtime, name


def test_a_slice_of_run_time_length_is_not_kept_under_a_name():
    def keep(A):
        s = 0.0
        for i in range(A.shape[0]):
            row = A[i, :i]
            s += row.sum()
        return s

    fp = profile_calls(keep, [(np.ones((3, 3)),)], APP_DIR)
    k = translate(fp, APP_DIR)
    assert isinstance(k, Rejected) and "known only at run time" in k.reason


def test_lengths_that_cannot_be_shown_equal_are_refused():
    def mismatch(A, x):
        for i in range(A.shape[0]):
            m = i
            x[:m] += A[i, :i]  # equal lengths, but through another name

    fp = profile_calls(mismatch, [(np.ones((4, 4)), np.zeros(8))], APP_DIR)
    k = translate(fp, APP_DIR)
    assert isinstance(k, Rejected) and "cannot be shown equal" in k.reason


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_run_time_slices_pass_c_simulation(tmp_path):
    names = sorted(CASES)
    csim_pass(tmp_path, {name: (CASES[name][0], CASES[name][1]()) for name in names})
