"""numpy library calls: np.linalg.norm (ord None/1/2/inf, axis, keepdims), np.einsum subscripts,
np.cov, np.array_equal, keyword arguments of np.clip, reductions over a tuple of axes, and
np.<ufunc>.accumulate. Python is the golden model: the IR interpreter must give numpy's
dtype, shape and values (floats within the tolerance of numpy's summation order) on edge
values (negatives, NaN, extremes of integer dtypes, odd sizes), and the C++ passes C simulation."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from frontend_cases import library_kernels as L
from frontend_util import csim_pass, profile_calls
from test_frontend import run_ir, run_python

from partition.frontend import Rejected, translate
from partition.interp import execute

APP_DIR = Path(__file__).parent
RNG = np.random.default_rng(20261206)


def ints(dt, shape):
    info = np.iinfo(dt)
    a = RNG.integers(info.min, info.max, size=shape, endpoint=True, dtype=dt)
    a.flat[:2] = [info.min, info.max]
    return a


def floats(shape, dt=np.float64):
    a = (RNG.standard_normal(shape) * 10).astype(dt)
    a.flat[0] = -0.0
    return a


def _flat(*values):
    """The arrays and scalars of values, tuples opened."""
    out = []
    for v in values:
        out.extend(_flat(*v) if isinstance(v, tuple) else [v])
    return out


def spd(n):
    """A symmetric positive definite matrix."""
    m = RNG.standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


def check_library(fn, calls):
    """The kernel's results have numpy's dtype and shape, and its values (floats within tolerance)."""
    fp = profile_calls(fn, calls, APP_DIR)
    k = translate(fp, APP_DIR)
    assert not isinstance(k, Rejected), k.reason
    for args in calls:
        want, want_args = run_python(fn, args)
        got, got_args = run_ir(k, args)
        for a, b in zip(_flat(got, *got_args), _flat(want, *want_args), strict=True):
            typed = all(isinstance(x, (np.ndarray, np.generic)) for x in (a, b))
            a, b = np.asarray(a), np.asarray(b)
            assert a.shape == b.shape, (fn.__name__, a.shape, b.shape)
            assert a.dtype == b.dtype or not typed, (fn.__name__, a.dtype, b.dtype)
            if b.dtype.kind == "f":
                np.testing.assert_allclose(a, b, rtol=1e-4 if b.dtype == np.float32 else 1e-9, atol=1e-12)
            else:
                assert np.array_equal(a, b), (fn.__name__, a, b)
    return k


CASES = {
    "unit_vector": (L.unit_vector, lambda: [(floats(7),) for _ in range(3)]),
    "unit_vector_f32": (L.unit_vector, lambda: [(floats(5, np.float32),) for _ in range(3)]),
    "row_norms_keep": (L.row_norms_keep, lambda: [(floats((4, 5)),) for _ in range(3)]),
    "column_norms": (L.column_norms, lambda: [(floats((3, 6)),) for _ in range(3)]),
    "frobenius": (L.frobenius, lambda: [(floats((3, 4)),) for _ in range(3)]),
    "norm_int": (L.norm_int, lambda: [(ints(np.int32, 5),) for _ in range(3)]),
    "norm_l1_inf": (L.norm_l1_inf, lambda: [(floats(9),) for _ in range(3)]),
    "norm_l1_inf_int8": (L.norm_l1_inf, lambda: [(ints(np.int8, 4),) for _ in range(3)]),
    "einsum_dot": (L.einsum_dot, lambda: [(floats(6), floats(6)) for _ in range(3)]),
    "einsum_dot_int8": (L.einsum_dot, lambda: [(ints(np.int8, 5), ints(np.int8, 5)) for _ in range(3)]),
    "einsum_matvec": (L.einsum_matvec, lambda: [(floats((3, 4)), floats(4)) for _ in range(3)]),
    "einsum_matmul": (
        L.einsum_matmul,
        lambda: [(ints(np.int16, (3, 5)), ints(np.int16, (5, 2))) for _ in range(3)],
    ),
    "einsum_batched": (L.einsum_batched, lambda: [(floats((2, 3, 4)), floats((2, 4, 3))) for _ in range(3)]),
    "einsum_frobenius_inner": (
        L.einsum_frobenius_inner,
        lambda: [(ints(np.int32, (3, 3)), ints(np.int32, (3, 3))) for _ in range(3)],
    ),
    "einsum_outer": (L.einsum_outer, lambda: [(ints(np.uint8, 3), ints(np.int8, 4)) for _ in range(3)]),
    "einsum_transpose": (L.einsum_transpose, lambda: [(ints(np.int16, (2, 5)),) for _ in range(3)]),
    "covariance_cols": (L.covariance_cols, lambda: [(floats((7, 3)),) for _ in range(3)]),
    "covariance_cols_int": (L.covariance_cols, lambda: [(ints(np.int16, (5, 2)),) for _ in range(3)]),
    "covariance_rows_biased": (
        L.covariance_rows_biased,
        lambda: [(floats((2, 6), np.float32),) for _ in range(3)],
    ),
    "same_after_relu": (L.same_after_relu, lambda: [(np.abs(ints(np.int16, 6)) // 2,), (ints(np.int16, 6),)]),
    "same_after_relu_nan": (
        L.same_after_relu,
        lambda: [(np.array([1.0, np.nan, 2.0]),), (np.array([1.0, 0.0, 2.0]),)],
    ),
    "clip_keywords": (L.clip_keywords, lambda: [(ints(np.uint8, (3, 4)),) for _ in range(3)]),
    "clip_lower_only": (L.clip_lower_only, lambda: [(ints(np.int8, 7),) for _ in range(3)]),
    "channel_means": (L.channel_means, lambda: [(ints(np.uint8, (3, 5, 3)),) for _ in range(3)]),
    "block_sums": (L.block_sums, lambda: [(ints(np.int16, (2, 3, 4)),) for _ in range(3)]),
    "total_over_axes": (L.total_over_axes, lambda: [(ints(np.int8, (3, 3)),) for _ in range(3)]),
    "running_max": (
        L.running_max,
        lambda: [
            (floats(5),),
            (np.array([1.0, np.nan, 3.0, -0.0, 0.0]),),
            (np.array([-0.0, 0.0, 2.0, 1.0, 2.0]),),
        ],
    ),
    "running_max_int": (L.running_max, lambda: [(ints(np.int8, 9),) for _ in range(3)]),
    "running_min_rows": (L.running_min_rows, lambda: [(ints(np.uint16, (3, 5)),) for _ in range(3)]),
    "prefixed_cumsum": (L.prefixed_cumsum, lambda: [(floats(9),) for _ in range(3)]),
    "inserted": (L.inserted, lambda: [(ints(np.int16, 5), v) for v in (-32768, 0, 32767)]),
    "inserted_float": (L.inserted, lambda: [(floats(4), v) for v in (-1.5, 0.0, np.inf)]),
    "inserted_2d": (
        L.inserted_2d,
        lambda: [(ints(np.int8, (2, 3)),) for _ in range(3)],
    ),
    "convolve_modes": (L.convolve_modes, lambda: [(floats(7), floats(3)) for _ in range(3)]),
    "convolve_modes_even": (L.convolve_modes, lambda: [(floats(6), floats(4)) for _ in range(3)]),
    "convolve_modes_int": (
        L.convolve_modes,
        lambda: [(ints(np.int8, 5), ints(np.int16, 2)) for _ in range(3)],
    ),
    "convolve_inf": (
        L.convolve_modes,
        lambda: [(floats(5), np.array([np.inf, 1.0, -2.0])), (floats(5), np.array([1.0, 2.0, np.nan]))],
    ),
    "convolve_swapped": (L.convolve_swapped, lambda: [(floats(2), floats(5)) for _ in range(3)]),
    "convolve_swapped_int": (
        L.convolve_swapped,
        lambda: [(ints(np.int32, 4), ints(np.int32, 7)) for _ in range(3)],
    ),
    "moving_average": (L.moving_average, lambda: [(floats(10),) for _ in range(3)]),
    "conv_patch": (
        L.conv_patch,
        lambda: [(floats((5, 4, 2)), floats((3, 2, 2, 3)), floats(3)) for _ in range(3)],
    ),
    "tensordot_pairs": (
        L.tensordot_pairs,
        lambda: [(ints(np.int16, (3, 2, 4)), ints(np.int8, (4, 3, 2))) for _ in range(3)],
    ),
    "tensordot_default": (
        L.tensordot_default,
        lambda: [(floats((2, 3, 4)), floats((3, 4, 2))) for _ in range(3)],
    ),
    "solve_system": (L.solve_system, lambda: [(spd(4) + floats((4, 4)) / 10, floats(4)) for _ in range(3)]),
    "solve_system_matrix": (
        L.solve_system,
        lambda: [(floats((3, 3)) + 30 * np.eye(3), floats((3, 2))) for _ in range(3)],
    ),
    "solve_system_int": (
        L.solve_system,
        lambda: [
            (ints(np.int8, (3, 3)) // 4 + 40 * np.eye(3, dtype=np.int8), ints(np.int16, 3)) for _ in range(3)
        ],
    ),
    "solve_pivoting": (  # a zero on the diagonal: only a row swap solves it
        L.solve_system,
        lambda: [
            (np.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]]), floats(3)) for _ in range(2)
        ],
    ),
    "solve_f32": (
        L.solve_system,
        lambda: [(spd(3).astype(np.float32), floats(3, np.float32)) for _ in range(2)],
    ),
    "inverse": (L.inverse, lambda: [(floats((4, 4)) + 40 * np.eye(4),) for _ in range(3)]),
    "inverse_times": (
        L.inverse_times,
        lambda: [(floats((3, 3)) + 30 * np.eye(3), floats(3)) for _ in range(3)],
    ),
    "normal_equations": (L.normal_equations, lambda: [(floats((9, 3)), floats(9)) for _ in range(3)]),
    "cholesky_factor": (L.cholesky_factor, lambda: [(spd(5),) for _ in range(3)]),
    "cholesky_factor_upper_ignored": (  # numpy reads the lower triangle only
        L.cholesky_factor,
        lambda: [(np.tril(spd(3)) + np.triu(floats((3, 3)), 1),) for _ in range(2)],
    ),
    "quartiles": (L.quartiles, lambda: [(floats(11),), (floats(11),), (np.arange(11.0) % 4,)]),
    "quartiles_special": (
        L.quartiles,
        lambda: [
            (np.array([1.0, np.nan, 3.0, 0.0]),),
            (np.array([-np.inf, 1.0, np.inf, 2.0]),),
            (np.array([-0.0, 0.0, -0.0, 5.0]),),
        ],
    ),
    "quartiles_2d": (L.quartiles, lambda: [(floats((3, 4)),) for _ in range(3)]),
    "one_percentile": (L.one_percentile, lambda: [(floats(8),) for _ in range(3)]),
    "median_odd": (L.median_of, lambda: [(floats(7),), (np.array([2.0, np.nan, 1.0, 0.0, 4.0, 3.0, 1.0]),)]),
    "median_even": (L.median_of, lambda: [(floats(6),) for _ in range(3)]),
    "median_int": (L.median_of, lambda: [(ints(np.int8, 6),), (ints(np.int8, 6),)]),
    "median_int64_odd": (L.median_of, lambda: [(ints(np.int64, (3, 3)),) for _ in range(2)]),
    "median_f32": (L.median_of, lambda: [(floats(4, np.float32),) for _ in range(3)]),
    "grey_histogram": (L.grey_histogram, lambda: [(ints(np.uint8, (4, 5)),) for _ in range(3)]),
    "signed_counts": (
        L.signed_counts,
        lambda: [(np.r_[0, 127, RNG.integers(0, 128, 7)].astype(np.int8),) for _ in range(3)],
    ),
    "percentile_bins": (
        L.percentile_bins,
        lambda: [(ints(np.uint8, (3, 7)), p) for p in (0.0, 2.5, 50.0, 100.0)],
    ),
    "search_both_sides": (
        L.search_both_sides,
        lambda: [
            (np.array([1.0, 2.0, 2.0, 3.0, np.nan]), 2.0),
            (np.array([1.0, 2.0, 2.0, 3.0, np.nan]), np.nan),
            (np.array([5.0, -1.0, 3.0, 0.0, 2.0]), 1.5),  # unsorted: where numpy's bisection ends
            (np.array([-np.inf, 0.0, 0.0, 0.0, np.inf]), -0.0),
        ],
    ),
    "search_int_array": (
        L.search_both_sides,
        lambda: [(np.sort(ints(np.int16, 6)), v) for v in (-32768, 0, 5, 32767)],
    ),
    "search_beyond_dtype": (  # a Python int outside uint8: numpy compares its value
        L.search_both_sides,
        lambda: [(np.array([0, 10, 200, 255, 255], np.uint8), v) for v in (300, -5, 255, 10)],
    ),
    "best_first": (
        L.best_first,
        lambda: [(RNG.permutation(9).astype(np.float64) - 4.5, 3) for _ in range(3)],
    ),
    "best_first_nan": (L.best_first, lambda: [(np.array([1.0, np.nan, -2.0, 5.0]), 2), (floats(4), 2)]),
    "stable_order": (L.stable_order, lambda: [(RNG.integers(0, 3, 8).astype(np.int16),) for _ in range(3)]),
    "stable_order_float": (
        L.stable_order,
        lambda: [(np.array([0.0, np.nan, -0.0, 1.0, np.nan, 0.0, -1.0, 1.0]),), (floats(8),)],
    ),
    "pair_energy": (L.pair_energy, lambda: [(floats((5, 3)),) for _ in range(3)]),
    "triangles": (L.triangles, lambda: [(ints(np.int16, (4, 5)),) for _ in range(3)]),
    "triangle_rows": (L.triangle_rows, lambda: [(ints(np.uint8, (3, 3, 2)),) for _ in range(3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_library_call_matches_python(name):
    fn, make = CASES[name]
    check_library(fn, make())


@pytest.mark.parametrize(
    "src, shape, why",
    [
        ("np.linalg.norm(a, ord=2)", (3, 3), "ord=2"),  # the spectral norm of a matrix
        ("np.linalg.norm(a, 3)", (4,), "ord=3"),
        ('np.einsum("ii->", a)', (3, 3), "np.einsum takes"),
        ('np.einsum("ij->i", a)', (3, 3), "np.einsum takes"),
        ("np.cov(a, a)", (3, 3), "np.cov of one array"),
        ("np.cov(a, ddof=3)", (3, 3), "ddof=3"),
        ("np.insert(a, 1, a[:2])", (4,), "one scalar"),
        ("np.tensordot(a, a, axes=a.ndim - 1)", (3, 3), "written as constants"),
        ("np.percentile(a.astype(np.int32), 50)", (5,), "float64 is taken"),
        ("np.percentile(a, 50, axis=0)", (3, 3), "no keywords"),
        ("np.median(a, axis=0)", (3, 3), "no axis"),
        ("np.bincount(a.astype(np.uint8), minlength=100)", (4,), "at least 256"),
        ("np.bincount(a.astype(np.uint8))", (4,), "at least 256"),
        ("np.bincount(a.astype(np.uint8), a)", (4,), "weights"),
        ("np.searchsorted(a, a[:2])", (4,), "one scalar"),
        ("a[np.triu_indices(3, int(a[0, 0] > 0))]", (3, 3), "constant ints"),
        ("np.insert(a.astype(np.int32), 1, 0.5)", (4,), "into an integer array"),
    ],
)
def test_refusals_name_the_call(src, shape, why, tmp_path):
    path = tmp_path / "refused.py"
    path.write_text(f"import numpy as np\n\n\ndef f(a):\n    return {src}\n")
    ns: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    fp = profile_calls(ns["f"], [(floats(shape),)], tmp_path)
    k = translate(fp, tmp_path)
    assert isinstance(k, Rejected) and why in k.reason, k


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_library_calls_pass_c_simulation(tmp_path):
    names = (
        "unit_vector",
        "row_norms_keep",
        "norm_int",
        "norm_l1_inf_int8",
        "einsum_dot_int8",
        "einsum_matmul",
        "einsum_outer",
        "covariance_cols",
        "same_after_relu",
        "clip_keywords",
        "channel_means",
        "block_sums",
        "running_max",
        "running_min_rows",
        "prefixed_cumsum",
        "inserted",
        "convolve_modes",
        "convolve_modes_int",
        "convolve_swapped",
        "conv_patch",
        "tensordot_pairs",
        "solve_system_matrix",
        "solve_pivoting",
        "inverse",
        "normal_equations",
        "cholesky_factor",
        "quartiles",
        "quartiles_special",
        "one_percentile",
        "median_even",
        "median_int",
        "grey_histogram",
        "signed_counts",
        "percentile_bins",
        "search_both_sides",
        "search_int_array",
        "best_first",
        "stable_order",
        "stable_order_float",
        "pair_energy",
        "triangles",
    )
    csim_pass(tmp_path, {name: (CASES[name][0], CASES[name][1]()) for name in names})


def test_singular_and_indefinite_matrices_fall_back():
    """numpy raises LinAlgError: the kernel sets its fallback status, so the call runs on the CPU."""
    k = check_library(L.solve_system, [(spd(3), floats(3))])
    assert k.status is not None
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.solve(singular, np.ones(3))
    assert execute(k, {"A": singular, "b": np.ones(3)}).status == 1
    assert execute(k, {"A": np.full((3, 3), np.nan), "b": np.ones(3)}).status == 1
    assert execute(k, {"A": spd(3), "b": np.ones(3)}).status == 0
    k = check_library(L.inverse, [(floats((2, 2)),)])
    assert execute(k, {"A": np.zeros((2, 2))}).status == 1
    k = check_library(L.cholesky_factor, [(spd(3),)])
    for bad in (-spd(3), np.diag([1.0, 0.0, 1.0])):
        with pytest.raises(np.linalg.LinAlgError):
            np.linalg.cholesky(bad)
        assert execute(k, {"A": bad}).status == 1
    assert execute(k, {"A": np.full((3, 3), np.nan)}).status == 1  # numpy gives NaNs: the CPU does
    assert execute(k, {"A": spd(3)}).status == 0


def test_negative_bincount_values_fall_back():
    """numpy raises ValueError for a negative value: the kernel falls back and writes no count."""
    x = np.array([0, 5, 127, 3, 1, 2, 2, 9, 4], np.int8)
    k = check_library(L.signed_counts, [(x,)])
    assert k.status is not None
    assert execute(k, {"x": x}).status == 0
    bad = x.copy()
    bad[4] = -128
    with pytest.raises(ValueError):
        np.bincount(bad, None, 128)
    assert execute(k, {"x": bad}).status == 1


def test_argsort_ties_fall_back_unless_stable():
    """numpy's default argsort orders ties its own way: a tie hands the call to the CPU."""
    x = np.array([3.0, -1.0, 2.0, 0.5])
    k = check_library(L.best_first, [(x, 2)])
    assert k.status is not None
    assert execute(k, {"scores": x, "k": 2}).status == 0
    for tied in ([3.0, -1.0, 3.0, 0.5], [0.0, -0.0, 1.0, 2.0], [np.nan, 1.0, np.nan, 2.0]):
        assert execute(k, {"scores": np.array(tied), "k": 2}).status == 1
    k = check_library(L.stable_order, [(np.array([1, 1, 0, 1], np.int16),)])
    assert k.status is None  # kind="stable": numpy's order is the network's
