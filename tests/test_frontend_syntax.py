"""Frontend: Python as algorithm collections write it becomes kernels that compute exactly what
Python computes.

Tuple assignment to elements and nested targets, divmod, builtins over sequences (sum, min,
max, any, all of arrays, lists, ranges, slices and generator expressions), loops over
enumerate/zip/reversed/displays/rows/slices with `for ... else` and the loop variable kept
after the loop, list displays and comprehensions, rebound parameters, math/sys constants,
round(), bit_length(), pow(a, b, m) and default arguments. Each kernel is profiled on many
random calls with the edge values (MIN, MAX, 0, -1, 1, NaN) among them and its IR is run by
the reference interpreter on every call; constructs outside the subset are rejected with
the construct named. A kernel of each construct also goes through the HLS C++ backend and
must pass C simulation against Python's results.
"""

from __future__ import annotations

import math
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from frontend_cases import syntax_kernels as S
from frontend_util import profile_calls
from test_frontend import check, check_with_helpers
from test_frontend_numpy import _build_and_run

from partition import ir
from partition.codegen import generate_hls
from partition.frontend import Rejected, translate
from partition.resources import resource_dir
from partition.vectors import kernel_vectors

APP_DIR = Path(__file__).parent
RNG = np.random.default_rng(20260412)


def ints(dt: str, n: int, lo: int | None = None, hi: int | None = None) -> np.ndarray:
    """Random integers of dtype `dt`, the edges (MIN, MAX, 0, -1, 1) first."""
    info = np.iinfo(dt)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    a = RNG.integers(lo, hi, size=n, endpoint=True, dtype=dt)
    edges = [e for e in (lo, hi, 0, -1, 1) if lo <= e <= hi]
    RNG.shuffle(edges)
    a[: min(len(edges), n)] = edges[:n]
    return a


def floats(n: int, nan: bool = False) -> np.ndarray:
    a = RNG.standard_normal(n) * 10
    a[0] = -0.0
    if nan:
        a[RNG.integers(0, n)] = np.nan
    return a


def pylist(a: np.ndarray) -> list:
    return a.tolist()


def many(make, n: int = 24) -> list[tuple]:
    return [make() for _ in range(n)]


def perm_list(n: int) -> list[int]:
    return [int(v) for v in RNG.integers(-1000, 1000, n)]


CASES = {
    "guarded_search": (
        S.guarded_search,
        lambda: many(lambda: (sorted(perm_list(23)), int(RNG.integers(-1200, 1200)))),
    ),
    "bubble_swaps": (S.bubble_swaps, lambda: many(lambda: (perm_list(9),))),
    "bubble_swaps_array": (S.bubble_swaps, lambda: many(lambda: (ints("int16", 7),))),
    "row_swap": (
        S.row_swap,
        lambda: many(lambda: (ints("int8", 12).reshape(3, 4), *RNG.integers(0, 3, 2).tolist())),
    ),
    "mixed_targets": (
        S.mixed_targets,
        lambda: many(lambda: (ints("int32", 4, -4, 3), int(RNG.integers(0, 4)))),
    ),
    "divmods": (
        S.divmods,
        lambda: [(a, b) for a in (-7, 7, 0, -1, 123456) for b in (2, -2, 3, -5, 1, -1)],
    ),
    "float_divmod": (
        S.float_divmod,
        lambda: [(a, b) for a in (-7.5, 7.25, 0.0, -0.0, 1e10, -3.0) for b in (2.0, -2.5, 0.75, -1.0)],
    ),
    "np_divmod": (S.np_divmod, lambda: [(ints("int16", 9), np.int16(d)) for d in (3, -3, 7, -1, 2)]),
    "unpack_row": (S.unpack_row, lambda: many(lambda: (ints("int8", 9).reshape(3, 3),))),
    "sum_int8": (S.builtin_sum_int8, lambda: many(lambda: (ints("int8", 11),))),
    "sum_uint8": (S.builtin_sum_int8, lambda: many(lambda: (ints("uint8", 5),))),
    "sum_bool": (S.builtin_sum_bool, lambda: many(lambda: (ints("int16", 10), int(RNG.integers(-9, 9))))),
    "sum_list_start": (S.builtin_sum_list, lambda: many(lambda: (perm_list(6), int(RNG.integers(-5, 5))))),
    "sum_list_float_start": (S.builtin_sum_list, lambda: many(lambda: (pylist(floats(6)), 0.5))),
    "sum_floats": (S.builtin_sum_floats, lambda: many(lambda: (pylist(floats(7)),))),
    "sum_float_array": (S.builtin_sum_floats, lambda: many(lambda: (floats(7, nan=RNG.random() < 0.2),))),
    "sum_float32_array": (S.builtin_sum_floats, lambda: many(lambda: (floats(9).astype(np.float32),))),
    "sum_squares": (S.builtin_sum_squares, lambda: many(lambda: (ints("int16", 8),))),
    "sum_range": (S.builtin_sum_range, lambda: [(n,) for n in range(0, 12)]),
    "sum_slice": (S.builtin_sum_slice, lambda: many(lambda: (perm_list(7), int(RNG.integers(-3, 3))))),
    "sum_maybe_empty_ints": (
        S.builtin_sum_empty_int,
        lambda: many(lambda: (perm_list(5), int(RNG.integers(-1000, 1500)))),
    ),
    "minmax_list": (S.builtin_minmax_list, lambda: many(lambda: (perm_list(6),))),
    "minmax_int_array": (S.builtin_minmax_list, lambda: many(lambda: (ints("int16", 6, -30, 30),))),
    "minmax_floats": (S.builtin_minmax_floats, lambda: many(lambda: (floats(6, nan=RNG.random() < 0.4),))),
    "min_gen": (S.builtin_min_gen, lambda: many(lambda: (ints("uint16", 8), int(RNG.integers(1, 9))))),
    "max_zip": (S.builtin_max_zip, lambda: many(lambda: (pylist(floats(4)), pylist(floats(5))))),
    "any": (S.builtin_any, lambda: many(lambda: (ints("int16", 5, -20, 20), int(RNG.integers(-25, 25))))),
    "all": (S.builtin_all, lambda: many(lambda: (ints("int16", 5, -20, 20), int(RNG.integers(-25, 25))))),
    "any_nested": (
        S.builtin_any_nested,
        lambda: many(lambda: (ints("int8", 4, -5, 5), ints("int8", 3, -5, 5))),
    ),
    "last_index": (
        S.last_index,
        lambda: many(lambda: (ints("int16", 6, -50, 50), int(RNG.integers(-60, 60)))),
    ),
    "bound_before": (S.bound_before, lambda: many(lambda: (ints("int8", 6, -2, 2), int(RNG.integers(0, 7))))),
    "loop_var_assigned": (
        S.loop_var_assigned,
        lambda: many(lambda: (ints("int8", 3), int(RNG.integers(0, 9)))),
    ),
    "loop_var_after_branch": (
        S.loop_var_after_branch,
        lambda: many(lambda: (ints("int8", 6, -3, 3), int(RNG.choice([-3, 0, 2, 200])))),
    ),
    "for_else": (S.for_else, lambda: many(lambda: (ints("int16", 6, -50, 50), int(RNG.integers(-60, 60))))),
    "for_else_return": (
        S.for_else_return,
        lambda: many(lambda: (ints("int16", 5, -5, 5), int(RNG.integers(-6, 6)))),
    ),
    "enumerate_zip": (S.enumerate_zip, lambda: many(lambda: (ints("int16", 6), ints("int16", 4)))),
    "enumerate_zip_lists": (S.enumerate_zip, lambda: many(lambda: (perm_list(5), perm_list(7)))),
    "reversed_loops": (S.reversed_loops, lambda: many(lambda: (ints("int16", 6), int(RNG.integers(0, 12))))),
    "literal_loops": (S.literal_loops, lambda: many(lambda: (ints("int16", 6), int(RNG.integers(1, 5))))),
    "row_loops": (S.row_loops, lambda: many(lambda: (ints("int16", 12).reshape(3, 4),))),
    "row_loops_list": (S.row_loops, lambda: many(lambda: (ints("int16", 8).reshape(2, 4).tolist(),))),
    "slice_loops": (S.slice_loops, lambda: many(lambda: (ints("int8", 7),))),
    "comprehensions": (S.comprehensions, lambda: many(lambda: (perm_list(5), 4))),
    "relu_list": (S.relu_list, lambda: many(lambda: (pylist(floats(6)),))),
    "cross_product": (S.cross_product, lambda: many(lambda: (pylist(floats(3)), pylist(floats(3))))),
    "transpose": (S.transpose, lambda: many(lambda: (ints("int16", 6).reshape(2, 3).tolist(),))),
    "rebound_params": (
        S.rebound_params,
        lambda: many(
            lambda: tuple(
                int(v) for v in (RNG.integers(-5000, 5000), RNG.integers(0, 60000), RNG.integers(2, 40000))
            )
        ),
    ),
    "rebound_abs": (
        S.rebound_abs,
        lambda: many(lambda: (int(RNG.integers(-1000, 1000)), int(RNG.integers(-50, 50)))),
    ),
    "rebound_float": (
        S.rebound_abs,
        lambda: many(lambda: (float(RNG.standard_normal()), int(RNG.integers(-50, 50)))),
    ),
    "constants": (S.constants, lambda: many(lambda: (float(RNG.standard_normal() * 100),))),
    "rounding": (
        S.rounding,
        lambda: [
            (v,)
            for v in (
                0.5,
                1.5,
                2.5,
                -0.5,
                -1.5,
                -2.5,
                2.4999999999999996,
                0.49999999999999994,
                1e15 + 0.5,
                -3.7,
                4.2,
                0.0,
                -0.0,
                2.0**52 + 1,
                -(2.0**62),
                7.5e17,
            )
        ],
    ),
    "rounding_float32": (
        S.rounding,
        lambda: [(np.float32(v),) for v in (0.5, 1.5, 2.5, -2.5, 3.4, 16777217.0, -0.0)],
    ),
    "rounding_int": (S.rounding, lambda: many(lambda: (int(RNG.integers(-9, 9)),))),
    "bit_lengths": (
        S.bit_lengths,
        lambda: [(v,) for v in (0, 1, -1, 255, 256, -256, 2**62, -(2**63), 2**63 - 1, 12345, -7)],
    ),
    "modular_pow": (
        S.modular_pow,
        lambda: many(lambda: (int(RNG.integers(-(10**6), 10**6)), int(RNG.integers(-(10**5), 10**5)))),
    ),
    "identity_bool": (S.identity_bool, lambda: many(lambda: (perm_list(2), int(RNG.integers(-1000, 1000))))),
    "normalise": (S.normalise, lambda: [*many(lambda: (pylist(floats(4)),)), ([0.0, -0.0, 0.0, 0.0],)]),
    "trace": (S.trace, lambda: many(lambda: (ints("int32", 12).reshape(3, 4),))),
    "row_copies": (S.row_copies, lambda: many(lambda: (ints("int16", 6).reshape(2, 3).tolist(),))),
    "enumerate_rows": (
        S.enumerate_rows,
        lambda: many(lambda: (ints("int16", 6, -99, 99).reshape(3, 2).tolist(),)),
    ),
    "lengths": (S.lengths, lambda: many(lambda: (ints("int8", 7), *RNG.integers(-9, 9, 2).tolist()))),
    "list_slice_loop": (S.list_slice_loop, lambda: many(lambda: (perm_list(5), np.zeros(4, np.int64)))),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_construct_matches_python(case):
    fn, make = CASES[case]
    k = check(fn, make())
    assert not any(isinstance(s, ir.Break) for s in k.body)  # sanity: the IR is a body of statements


REJECTED = [
    (S.swap_buffers, [(np.zeros(3),)], "swapping an argument's"),
    (S.builtin_sum_maybe_empty_floats, [(pylist(floats(4)), 0.0)], "may be empty"),
    (S.builtin_min_key, [(ints("int8", 4),)], "key="),
    (S.maybe_unbound, [(ints("int8", 3), 2), (ints("int8", 3), 3)], "may be unbound"),
    (S.copy_slice_written, [([1, 2, 3],)], "slice of a list is a copy"),
    (S.filtered, [([1, -2, 3],)], "length depends on the data"),
    (S.round_digits, [(1.2345,)], "round(x, ndigits)"),
]


@pytest.mark.parametrize("fn,calls,needle", REJECTED, ids=[r[0].__name__ for r in REJECTED])
def test_rejected_with_the_construct_named(fn, calls, needle):
    fp = profile_calls(fn, calls, APP_DIR)
    r = translate(fp, APP_DIR)
    assert isinstance(r, Rejected)
    assert needle in r.construct, r.reason
    assert r.reason.startswith("frontend_cases/syntax_kernels.py:")


def test_helper_returning_a_tuple_unpacked_in_a_loop():
    calls = [(ints("int16", 6),) for _ in range(12)]
    pairs = [(int(a), int(b)) for a, b in RNG.integers(-99, 99, (8, 2))]
    check_with_helpers(S.uses_lo_hi, calls, [(S.lo_hi, pairs)])


def test_loop_over_a_helper_s_result():
    check_with_helpers(S.count_sieve, [(9,)], [(S.sieve, [(9,)])])  # a list of the one size profiled


def test_loop_variable_assigned_in_its_body_does_not_change_the_count():
    k = check(S.loop_var_assigned, [(ints("int8", 3), 5), (ints("int8", 3), 7)])
    loop = next(s for s in ir.walk_stmts(k.body) if isinstance(s, ir.For))
    assert not any(isinstance(s, ir.Assign) and s.var == loop.var for s in ir.walk_stmts(loop.body))


def test_builtin_sum_of_an_int8_array_wraps_in_int8():
    x = np.array([100, 100, -128, 5], dtype=np.int8)
    k = check(S.builtin_sum_int8, [(x,)])
    assert k.ret.name == "int8" and k.ret_pytype == "npscalar"


def test_default_argument_no_call_passed_is_a_constant():
    calls = [(int(a), int(b), 3) for a, b in RNG.integers(-50, 50, (6, 2))]
    fp = profile_calls(S.with_default, calls, APP_DIR)
    fp.arg_sigs = fp.arg_sigs[:2]  # the profile saw only the arguments the calls passed
    for s in fp.samples:
        s.args = s.args[:2]
    k = translate(fp, APP_DIR)
    assert not isinstance(k, Rejected), k.reason
    assert k.specialised == {"scale": 3} and [p.name for p in k.params] == ["x", "n"]


def test_display_of_constants_is_a_rom():
    k = check(S.literal_loops, [(ints("int16", 6), 2)])
    assert any(a.init == [701, 301, 132, 57, 23, 10, 4, 1] for a in k.locals)


HLS_CASES = {
    "tuple_swap": "bubble_swaps_array",
    "tuple_mixed": "mixed_targets",
    "divmod_float": "float_divmod",
    "sum_int8": "sum_int8",
    "sum_floats": "sum_float_array",
    "minmax_nan": "minmax_floats",
    "any_all": "any_nested",
    "loop_after": "last_index",
    "forelse": "for_else",
    "enum_zip": "enumerate_zip",
    "reversed": "reversed_loops",
    "literals": "literal_loops",
    "rows": "row_loops_list",
    "listcomp": "comprehensions",
    "params": "rebound_params",
    "consts": "constants",
    "round_even": "rounding",
    "bit_len": "bit_lengths",
    "powmod": "modular_pow",
    "branch_after": "loop_var_after_branch",
    "guarded": "guarded_search",
}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_hls_csim_matches_python(tmp_path):
    """The generated C++ of a kernel of every construct compiles (UBSan on) and reproduces Python."""
    (tmp_path / "include").mkdir()
    shutil.copy(resource_dir("hls") / "partition_ops.h", tmp_path / "include" / "partition_ops.h")
    tasks = []
    for name, case in HLS_CASES.items():
        fn, make = CASES[case]
        calls = make()[:8]
        fp = profile_calls(fn, calls, APP_DIR)
        k = translate(fp, APP_DIR)
        assert not isinstance(k, Rejected), k.reason
        k.name = name
        vectors = kernel_vectors(k, fp)
        assert len(vectors) == len(calls)
        files = generate_hls(k, vectors, part="xc7z020clg400-1", clock_mhz=100.0)
        for rel, data in files.items():
            (tmp_path / name / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name / rel).write_bytes(data)
        tasks.append((name, len(calls)))
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(tasks, pool.map(lambda t: _build_and_run(tmp_path / t[0], t[0]), tasks)))
    for (name, n), (build, run) in results.items():
        assert build.returncode == 0 and not build.stderr.strip(), (name, build.stderr[-3000:])
        assert run is not None and run.returncode == 0, (name, run.stdout[-3000:], run.stderr[-3000:])
        assert run.stdout.splitlines()[-1] == f"{name} csim: PASS ({n} of {n} vectors)", run.stdout


def test_math_constants_are_exact():
    k = check(S.constants, [(1.5,), (-2.0,)])
    assert any(
        isinstance(e, ir.Const) and e.value == math.tau
        for s in ir.walk_stmts(k.body)
        for x in ir.stmt_exprs(s)
        for e in ir.walk_expr(x)
    )
