"""Frontend: whole-array numpy code lowered to loops computes exactly what numpy computes.

Each kernel is profiled on direct calls, translated, and its IR run by the
reference interpreter on the profiled calls and extra edge inputs (every
integer width, MIN/MAX, negatives, odd and size-1 shapes, NaN). Results must
match numpy exactly, dtypes included; float sums, means and products
(np.sum/mean, np.dot, @) are compared within the HLS backend's float
tolerance, since numpy adds pairwise or in BLAS order and the kernel adds in
index order. A few kernels also go through the HLS C++ backend and must pass
C simulation against numpy's outputs.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from frontend_cases import numpy_kernels as N
from frontend_util import profile_calls

from partition import ir, ir_json
from partition.codegen import CSIM_BINARY, FLOAT_TOLERANCE, csim_command, generate_hls
from partition.frontend import Rejected, translate
from partition.interp import run_kernel
from partition.resources import resource_dir
from partition.vectors import kernel_vectors

APP_DIR = Path(__file__).parent
RNG = np.random.default_rng(20250214)
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]


def ints(dt: str, shape, lo: int | None = None, hi: int | None = None) -> np.ndarray:
    """Random integers with the edges (MIN, MAX, 0, -1, 1) first."""
    info = np.iinfo(dt)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    a = RNG.integers(lo, hi, size=shape, endpoint=True, dtype=dt)
    flat = a.reshape(-1)
    edges = [e for e in (lo, hi, 0, -1, 1, lo + 1, hi - 1) if lo <= e <= hi]
    flat[: min(len(edges), flat.size)] = edges[: flat.size]
    return a


def floats(dt: str, shape, scale: float = 10.0, nan: bool = False) -> np.ndarray:
    a = (RNG.standard_normal(size=shape) * scale).astype(dt)
    if nan and a.size > 2:
        a.reshape(-1)[[1, -1]] = np.nan
    return a


# ------------------------------------------------------------------ harness


def run_python(fn, args):
    work = copy.deepcopy(args)
    with np.errstate(all="ignore"):
        res = fn(*work)
    return res, work


def run_ir(kernel: ir.Kernel, args):
    named = {}
    for p in kernel.params:
        if p.origin[0] == "arg":
            named[p.name] = args[p.origin[1]]
    outs, ret = run_kernel(kernel, named)
    results = [outs[what] if kind == "param" else ret for kind, what in kernel.returns]
    if not kernel.returns:
        res = None
    elif kernel.return_tuple:
        res = tuple(results)
    else:
        res = results[0]
    mutated = list(copy.deepcopy(args))
    for p in kernel.params:
        if p.kind == "array" and p.origin[0] == "arg" and p.direction != "in":
            mutated[p.origin[1]] = outs[p.name]
    return res, mutated


def close(got, want, tol: bool) -> bool:
    """Equal (NaN equals NaN); floats within FLOAT_TOLERANCE when `tol`. Arrays must have numpy's dtype."""
    if isinstance(want, tuple):
        return (
            isinstance(got, tuple)
            and len(got) == len(want)
            and all(close(g, w, tol) for g, w in zip(got, want))
        )
    if isinstance(want, np.ndarray):
        if not (isinstance(got, np.ndarray) and got.dtype == want.dtype and got.shape == want.shape):
            return False
        if want.dtype.kind == "f":
            if tol:
                rtol, atol = FLOAT_TOLERANCE[want.dtype.name]
                return bool(np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True))
            return bool(np.array_equal(got, want, equal_nan=True))
        return bool(np.array_equal(got, want))
    if want is None or got is None:
        return want is got
    w = np.asarray(want)
    if w.dtype.kind == "f":
        g = np.float64(got)
        if np.isnan(w):
            return bool(np.isnan(g))
        if tol:
            rtol, atol = FLOAT_TOLERANCE[w.dtype.name]
            return bool(abs(g - np.float64(want)) <= atol + rtol * abs(np.float64(want)))
        return bool(g == np.float64(want))
    return int(got) == int(want)


def scalar_types_match(k: ir.Kernel, want) -> bool:
    """The kernel's scalar return has the type numpy returned (numpy scalar of that dtype, or Python's)."""
    items = want if k.return_tuple else (want,)
    for (kind, _), w in zip(k.returns, items):
        if kind != "scalar":
            continue
        if isinstance(w, np.generic):
            if not (k.ret_pytype == "npscalar" and k.ret.np == w.dtype):
                return False
        elif k.ret_pytype != {bool: "bool", int: "int", float: "float"}[type(w)]:
            return False
    return True


def translated(fn, calls, helpers=()):
    functions = {h.__name__: profile_calls(h, hc, APP_DIR) for h, hc in helpers}
    fp = profile_calls(fn, calls, APP_DIR)
    functions[fn.__name__] = fp
    return translate(fp, APP_DIR, functions), fp


def check(fn, calls, extra=(), tol=False, helpers=()):
    """Translate `fn` from `calls`; its IR must reproduce numpy on the calls and on `extra`."""
    k, _ = translated(fn, calls, helpers)
    assert not isinstance(k, Rejected), k.reason
    assert ir_json.to_json(ir_json.from_json(ir_json.to_json(k))) == ir_json.to_json(k)
    for args in list(calls) + list(extra):
        want, want_args = run_python(fn, args)
        got, got_args = run_ir(k, args)
        assert close(got, want, tol), (fn.__name__, args, got, want)
        assert scalar_types_match(k, want), (fn.__name__, k.ret, k.ret_pytype, type(want))
        for g, w in zip(got_args, want_args):
            if isinstance(w, np.ndarray):
                assert close(g, w, tol), (fn.__name__, "argument", g, w)
    return k


def rejected(fn, calls, helpers=()) -> Rejected:
    r, _ = translated(fn, calls, helpers)
    assert isinstance(r, Rejected), f"{fn.__name__} was accepted"
    assert r.reason.startswith("frontend_cases/numpy_kernels.py:")
    return r


def loads_and_stores(k: ir.Kernel) -> list[str]:
    return [s.array for s in ir.walk_stmts(k.body) if isinstance(s, ir.Store)]


# -------------------------------------------------------------- elementwise


@pytest.mark.parametrize("dt", INTS + FLOATS)
def test_arithmetic_every_dtype(dt):
    if dt in FLOATS:
        a, b = floats(dt, 13), floats(dt, 13)
        extra = [(floats(dt, 13, nan=True), floats(dt, 13))]
    else:
        a, b = ints(dt, 13), ints(dt, 13)
        extra = [(ints(dt, 13), ints(dt, 13)), (ints(dt, 13)[::-1].copy(), ints(dt, 13))]
    k = check(N.ew_arith, [(a, b)], extra)
    out = k.param("result")
    assert out.dtype.name == dt and out.shape == (13,) and out.origin == ("return", 0)


@pytest.mark.parametrize(
    "pair", [("int8", "uint8"), ("int16", "uint32"), ("uint64", "int64"), ("int8", "float32")]
)
def test_arithmetic_mixed_dtypes_promote_as_numpy(pair):
    da, db = pair
    a = ints(da, 9) if da in INTS else floats(da, 9)
    b = ints(db, 9) if db in INTS else floats(db, 9)
    k = check(N.ew_arith, [(a, b)])
    assert k.param("result").dtype.np == (a + b).dtype


@pytest.mark.parametrize("dt", ["int8", "int32", "uint16", "int64", "float32", "float64"])
def test_floor_division_and_modulo(dt):
    if dt in FLOATS:
        a, b = floats(dt, 12), floats(dt, 12)
        b[:3] = [0.0, -0.0, np.inf]
    else:
        a, b = ints(dt, 12), ints(dt, 12, -9 if dt[0] == "i" else 0, 9)
        b[:4] = [0, 0, 1, 3]
        if dt[0] == "i":
            b[0] = -1  # MIN // -1 wraps
    check(N.ew_divmod, [(a, b)])


@pytest.mark.parametrize("dt", ["int8", "uint8", "int32", "uint64"])
def test_shifts_and_bitwise(dt):
    a = ints(dt, 10)
    check(N.ew_bits, [(a, 2), (a, 5)], extra=[(ints(dt, 10), 3)])


@pytest.mark.parametrize("dt", INTS)
def test_unary_minus_abs_invert(dt):
    check(N.ew_unary, [(ints(dt, 8),)])


def test_power():
    check(N.ew_power, [(ints("int16", 9),)], extra=[(ints("int16", 9),)])
    check(N.ew_power, [(floats("float32", 9),)])


def test_numpy2_promotion_rules():
    a8 = ints("int8", 7)
    b16 = ints("int16", 7)
    b16[0] = 0  # int / 0 -> inf
    u8 = ints("uint8", 7)
    f32 = floats("float32", 7)
    k = check(N.promote, [(a8, b16, u8, f32)])
    want, _ = run_python(N.promote, (a8, b16, u8, f32))
    dts = [k.param(name).dtype.np for kind, name in k.returns]
    assert dts == [w.dtype for w in want]
    assert [d.name for d in dts] == ["int16", "float64", "float64", "float32", "int16", "int32", "float64"]


@pytest.mark.parametrize("dt", ["int8", "uint16", "int64", "float32"])
def test_comparisons(dt):
    if dt in FLOATS:
        a, b = floats(dt, 11, nan=True), floats(dt, 11)
        a[4] = 2.5
    else:
        a, b = ints(dt, 11), ints(dt, 11)
        a[5] = 2
    k = check(N.compare_ops, [(a, b)])
    assert all(k.param(n).dtype.name == "bool" for _, n in k.returns)


def test_bool_arrays():
    m, n = RNG.integers(0, 2, 10).astype(bool), RNG.integers(0, 2, 10).astype(bool)
    check(N.bool_arrays, [(m, n)])


# ---------------------------------------------------------- numpy functions


@pytest.mark.parametrize("dt", ["int8", "uint8", "int32", "float32", "float64"])
def test_threshold_with_where(dt):
    x = floats(dt, 15, nan=True) if dt in FLOATS else ints(dt, 15)
    t = 0.5 if dt in FLOATS else 3
    check(N.threshold, [(x, t), (x, t + 1)])


def test_where_mixed_operands():
    c = RNG.integers(0, 2, 9).astype(bool)
    a = ints("uint8", 9)
    b = ints("int16", 9)
    k = check(N.where_mixed, [(c, a, b)])
    # uint8 with a Python -1 stays uint8 in numpy (the -1 wraps to 255)
    assert k.param(k.returns[2][1]).dtype.name == "uint8"


@pytest.mark.parametrize("dt", ["int8", "uint8", "int64", "float32"])
def test_clip(dt):
    x = floats(dt, 14) * 20 if dt in FLOATS else ints(dt, 14)
    check(N.clip_ops, [(x,)])


def test_clip_minimum_maximum_propagate_nan():
    x = floats("float64", 12, scale=1.0, nan=True)
    x[3] = -0.0
    check(N.clip_float, [(x,)], extra=[(floats("float64", 12, nan=True),)])
    check(N.clip_float, [(floats("float32", 12, nan=True),)])


@pytest.mark.parametrize("pair", [("int8", "int8"), ("uint8", "int8"), ("int64", "uint32")])
def test_minimum_maximum_ints(pair):
    check(N.minmax_int, [(ints(pair[0], 10), ints(pair[1], 10))])


def test_numpy_functions_on_scalars():
    a = floats("float64", 3)
    k = check(N.scalar_numpy_funcs, [(a, a[::-1].copy())], extra=[(floats("float64", 3, nan=True), a)])
    assert k.ret.name == "float64" and k.ret_pytype == "npscalar"


@pytest.mark.parametrize("dt", ["int8", "uint16", "int64", "float32"])
def test_astype(dt):
    if dt in FLOATS:
        x = floats(dt, 10, scale=50)
        x[0] = 0.0
    else:
        x = ints(dt, 10)
    check(N.astype_ops, [(x,)])


def test_float_to_int_truncates_and_is_noted():
    x = floats("float64", 10, scale=100)
    x[:4] = [-0.99, 0.99, 254.7, -3.5]
    k = check(N.float_to_int, [(x,)])
    assert any("truncates" in n for n in k.notes)


# ------------------------------------------------------------- reductions


@pytest.mark.parametrize("dt", [*INTS[:-1], "bool"])  # uint64 sums do not fit the int64 output
def test_integer_reductions(dt):
    x = RNG.integers(0, 2, 17).astype(bool) if dt == "bool" else ints(dt, 17)
    extra = [] if dt == "bool" else [(np.full(17, np.iinfo(dt).max, dtype=dt),), (ints(dt, 17)[::-1].copy(),)]
    check(N.int_stats, [(x,)], extra)


@pytest.mark.parametrize("dt", ["int8", "uint8", "int32", "uint64", "bool"])
def test_sum_accumulates_in_numpys_dtype(dt):
    x = RNG.integers(0, 2, 40).astype(bool) if dt == "bool" else ints(dt, 40)
    k = check(N.sum_of, [(x,)], extra=[(np.full(40, 1 if dt == "bool" else np.iinfo(dt).max, dtype=dt),)])
    assert k.ret.np == np.sum(x).dtype  # int64 / uint64: no wrap at the array's width


@pytest.mark.parametrize("dt", FLOATS)
def test_float_sum_and_mean_within_tolerance(dt):
    x = floats(dt, 100)
    k = check(N.sum_of, [(x,)], extra=[(floats(dt, 100, nan=True),)], tol=True)
    assert any("pairwise" in n for n in k.notes)
    check(N.mean_of, [(x,)], tol=True)
    check(N.mean_of, [(ints("int16", 33),)], tol=True)


@pytest.mark.parametrize("dt", ["int8", "uint64", "float32", "float64"])
def test_max_argmax_argmin(dt):
    if dt in FLOATS:
        x = floats(dt, 16)
        x[5] = x[9] = x.max() + 1  # ties: the first index wins
        extra = [(floats(dt, 16, nan=True),), (np.full(16, np.nan, dtype=dt),)]
    else:
        x = ints(dt, 16)
        x[7] = x[11] = np.iinfo(dt).max
        extra = [(np.zeros(16, dtype=dt),)]
    check(N.max_of, [(x,)], extra)
    check(N.argmax_of, [(x,)], extra)
    check(N.argmin_of, [(x,)], extra)


def test_count_of_a_bool_expression():
    k = check(N.count_in_range, [(ints("int16", 30, -5, 15),)])
    assert k.ret.name == "int64"


@pytest.mark.parametrize(
    "pair", [("int16", "int16"), ("int8", "uint8"), ("uint64", "uint64"), ("bool", "bool")]
)
def test_dot_of_vectors_integer_exact(pair):
    a = RNG.integers(0, 2, 12).astype(bool) if pair[0] == "bool" else ints(pair[0], 12)
    b = RNG.integers(0, 2, 12).astype(bool) if pair[1] == "bool" else ints(pair[1], 12)
    check(N.dot_1d, [(a, b)])
    if pair[0] != "bool":
        check(N.matmul_1d, [(a, b)])


def test_dot_of_float_vectors_within_tolerance():
    a, b = floats("float64", 50), floats("float64", 50)
    k = check(N.dot_1d, [(a, b)], tol=True)
    assert any("BLAS" in n for n in k.notes)
    check(N.matmul_1d, [(floats("float32", 20), floats("float32", 20))], tol=True)


# -------------------------------------------------------------- products


@pytest.mark.parametrize("dt", ["int8", "int32", "uint16"])
@pytest.mark.parametrize("m,k", [(5, 3), (1, 1), (4, 1), (1, 6)])
def test_matrix_vector_products_exact_for_ints(dt, m, k):
    w, x = ints(dt, (m, k)), ints(dt, k)
    check(N.matvec, [(w, x)], extra=[(ints(dt, (m, k)), ints(dt, k))])
    check(N.vecmat, [(ints(dt, m), w)])


@pytest.mark.parametrize("shapes", [((3, 4), (4, 5)), ((1, 1), (1, 1)), ((2, 7), (7, 1))])
def test_matrix_products(shapes):
    (m, k), (_, n) = shapes
    kern = check(N.matmat, [(ints("int16", (m, k)), ints("int16", (k, n)))])
    # the product is accumulated straight into the result: no temporary array
    assert not kern.locals
    check(N.matmat, [(floats("float64", (m, k)), floats("float64", (k, n)))], tol=True)


def test_dot_with_a_scalar_uses_numpys_dtype():
    k = check(N.dot_scalar, [(ints("int8", 6),)])
    assert k.param("result").dtype.name == "int64"  # np.dot does not treat the 3 as weak


def test_dense_layer_float_relu():
    x, w, b = floats("float32", 6), floats("float32", (4, 6)), floats("float32", 4)
    check(N.dense_relu, [(x, w, b)], extra=[(floats("float32", 6), w, b)], tol=True)


def test_dense_layer_int8_quantised():
    x, w = ints("int8", 8), ints("int8", (5, 8))
    b = ints("int32", 5, -1000, 1000)
    k = check(N.dense_int8, [(x, w, b)], extra=[(ints("int8", 8), ints("int8", (5, 8)), b)])
    assert k.param("result").dtype.name == "int8"


def test_two_layers():
    x, w1, w2 = ints("int16", 5, -50, 50), ints("int16", (6, 5), -50, 50), ints("int16", (3, 6), -50, 50)
    check(N.two_layers, [(x, w1, w2)])


# ---------------------------------------------------------------- slices


@pytest.mark.parametrize("dt", ["int16", "uint8", "float64"])
def test_moving_average(dt):
    x = floats(dt, 11) if dt in FLOATS else ints(dt, 11)
    check(N.moving_average, [(x,)])


def test_moving_average_of_three_elements():
    check(N.moving_average, [(ints("int32", 3),)])


def test_diff_reverse_and_steps():
    check(N.diff_reverse_step, [(ints("int16", 10),)])
    check(N.diff_reverse_step, [(floats("float32", 12, nan=True),)])


def test_slice_bounds_from_the_shape():
    check(N.slice_bounds_from_shape, [(ints("int32", 9),)])


def test_conv3x3_with_slices():
    img = ints("uint8", (9, 7))
    k = check(N.conv3x3, [(img,)], extra=[(np.full((9, 7), 255, np.uint8),), (np.zeros((9, 7), np.uint8),)])
    out = k.param(k.returns[0][1])
    assert out.name == "acc" and out.shape == (7, 5) and out.dtype.name == "int32"


def test_rows_columns_transpose():
    m = ints("int16", (4, 5))
    check(N.rows_cols, [(m, 2), (m, -1)])


def test_row_views_in_a_loop():
    check(N.row_loop, [(ints("int32", (4, 6)),)], extra=[(ints("int32", (4, 6)),)])


def test_broadcasting_2d():
    check(N.broadcast_2d, [(ints("int16", (3, 4)), ints("int16", 4))])
    check(N.broadcast_2d, [(floats("float32", (1, 4)), floats("float32", 4))])


def test_normalise_exact_and_standardise_within_tolerance():
    check(N.normalise, [(floats("float64", 20),)], extra=[(np.full(20, 2.0),)])
    check(N.standardise, [(floats("float32", 20),)], tol=True)


def test_elements_through_chained_views():
    check(N.chained_element, [(ints("int32", (3, 4)),)])


# ---------------------------------------------------------- assignments


@pytest.mark.parametrize("dt", ["int16", "uint8", "float32"])
def test_in_place_updates(dt):
    buf = floats(dt, 10) if dt in FLOATS else ints(dt, 10)
    k = check(N.inplace_ops, [(buf, 3), (buf, 5)])
    assert k.param("buf_r").direction == "inout"


def test_overlapping_assignment_uses_a_temporary():
    a = ints("int32", 9)
    k = check(N.shift_right, [(a,)])
    assert [loc.name for loc in k.locals] == ["tmp"]
    assert any("temporary" in n for n in k.notes)
    k = check(N.prefix_overlap, [(a,)])
    assert k.locals
    check(N.overlap_scalar, [(ints("int16", 6),)])


def test_same_element_update_needs_no_temporary():
    k = check(N.two_layers, [(ints("int16", 5), ints("int16", (6, 5)), ints("int16", (3, 6)))])
    assert not any("temporary" in n for n in k.notes)


def test_writes_through_views():
    check(N.view_writes, [(ints("int32", 8),)])


def test_local_arrays_and_slice_assignment():
    check(N.local_arrays, [(ints("int16", 10),)])


def test_rebinding_makes_new_arrays():
    x = ints("int16", 7)
    k = check(N.rebinding, [(x,)])
    assert k.param("x").direction == "in"  # the argument itself is never written
    check(N.loop_rebinding, [(floats("float64", 5),)])


def test_names_first_bound_in_a_loop_or_branch_may_be_rebound_there():
    check(N.loop_local_rebinding, [(ints("int16", (3, 5)),)])
    x = ints("int16", 6)
    check(N.branch_bindings, [(x, 0), (x, 1), (x, 2)])


def test_row_and_block_assignment():
    check(N.row_assign, [(ints("int16", (4, 5)), ints("int16", 5))])


def test_returning_a_copy_of_a_slice():
    check(N.returns_element_copy, [(ints("int8", 5),)])


def test_helpers_take_views_and_return_arrays():
    x = ints("int16", 8)
    check(
        N.uses_array_helpers,
        [(x,)],
        helpers=[(N.helper_scale, [(x[1:], 3)]), (N.helper_zero, [(x[:2].copy(),)])],
    )


def test_reductions_of_2d_arrays_and_views():
    m = ints("int16", (3, 4))
    check(N.argmax_transposed, [(m,)], extra=[(np.zeros((3, 4), np.int16),)])
    check(N.sum_of, [(ints("int8", (5, 3)),)])


def test_reduction_in_a_while_condition_runs_every_iteration():
    x = ints("int32", 6, 0, 400)
    k = check(N.halve_until_small, [(x,)], extra=[(np.zeros(6, np.int32),), (np.full(6, 1000, np.int32),)])
    loop = next(s for s in k.body if isinstance(s, ir.For) and s.trip_max == 41)  # the mark's 40, checked
    assert isinstance(loop.body[0], ir.Assign) and isinstance(loop.body[1], ir.For)  # the sum, in the loop


def test_reduction_in_a_branch_condition():
    check(N.rows_with_positive_sum, [(ints("int8", (5, 4), -3, 3),)])


def test_reduction_in_a_conditional_expression():
    x = ints("int16", 7)
    check(N.conditional_reduction, [(x, 1), (x, -1)])


def test_size_one_shapes():
    check(N.ew_arith, [(ints("int8", 1), ints("int8", 1))])
    check(N.int_stats, [(ints("int32", 1),)])
    check(N.conv3x3, [(ints("uint8", (3, 3)),)])
    check(N.broadcast_2d, [(ints("int16", (1, 1)), ints("int16", 1))])


# ------------------------------------------------------------ rejections


@pytest.mark.parametrize(
    "fn,args,needle",
    [
        (N.reject_mask, (np.arange(5, dtype=np.int16),), "a boolean-mask selection"),
        (N.reject_dynamic_slice, (np.arange(6, dtype=np.int16),), "and it has a step"),
        (N.reject_cbrt, (np.arange(4, dtype=np.float64),), "call to np.cbrt() (not supported"),
        (N.reject_axis, (np.ones((2, 3), np.int32),), "tuple"),
        (N.reject_inplace_cast, (np.arange(3, dtype=np.int32),), "Cannot cast ufunc 'add' output"),
        (N.reject_rebind_param_in_loop, (np.arange(3, dtype=np.int32),), "rebound inside a loop"),
        (N.reject_matmul_scalar, (np.arange(3, dtype=np.int32),), "@ with a scalar operand"),
        (N.reject_truth, (np.arange(1, dtype=np.int32),), "used as a value where a scalar is needed"),
        (N.reject_alias_rebind, (np.arange(4, dtype=np.int32),), "while v still refers to its old one"),
        (N.reject_chained, (np.arange(3, dtype=np.int32),), "chained comparison of arrays"),
        (N.reject_overflow, (np.arange(3, dtype=np.int8),), "Python integer 300 out of bounds for int8"),
        (N.reject_branch_views, (np.arange(4, dtype=np.int32), 1), "inside a loop or branch"),
        (N.reject_loop_carried_alias, (np.arange(4, dtype=np.int32),), "may still refer to the previous one"),
        (N.reject_guarded_reduction, (np.ones((2, 3), np.int16), 3), "an index the condition may guard"),
    ],
)
def test_rejections_say_line_and_construct(fn, args, needle):
    r = rejected(fn, [args])
    assert needle in r.construct, r.construct
    lines = (APP_DIR / "frontend_cases" / "numpy_kernels.py").read_text().splitlines()
    assert fn.__name__ in "\n".join(lines[max(0, r.line - 12) : r.line])


# ------------------------------------------------------------- HLS csim

HLS_CASES = {
    "moving_average": (N.moving_average, [(floats("float64", 11),), (floats("float64", 11, nan=True),)]),
    "dense_int8": (N.dense_int8, [(ints("int8", 8), ints("int8", (5, 8)), ints("int32", 5, -999, 999))]),
    "conv3x3": (N.conv3x3, [(ints("uint8", (9, 7)),), (np.full((9, 7), 255, np.uint8),)]),
    "threshold": (N.threshold, [(ints("int16", 15), 3), (ints("int16", 15), -2)]),
    "dense_relu": (N.dense_relu, [(floats("float32", 6), floats("float32", (4, 6)), floats("float32", 4))]),
    "stats": (N.int_stats, [(ints("int8", 17),), (ints("int8", 17),)]),
    "inplace": (N.inplace_ops, [(ints("int16", 10), 3), (ints("int16", 10), 5)]),
    "clip_nan": (N.clip_float, [(floats("float64", 12, nan=True),), (floats("float64", 12),)]),
    "argmax_nan": (N.argmax_of, [(floats("float32", 16, nan=True),), (floats("float32", 16),)]),
}


def _build_and_run(
    task_dir: Path, task: str
) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess | None]:
    flags = ("-Werror", "-fsanitize=undefined,float-cast-overflow", "-fno-sanitize-recover=all")
    build = subprocess.run(
        csim_command(task, "../include", flags), cwd=task_dir, capture_output=True, text=True, timeout=300
    )
    if build.returncode != 0:
        return build, None
    run = subprocess.run([f"./{CSIM_BINARY}"], cwd=task_dir, capture_output=True, text=True, timeout=120)
    return build, run


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_hls_csim_matches_numpy(tmp_path):
    """Generated C++ of whole-array kernels compiles warning-free (UBSan on) and reproduces numpy's outputs."""
    (tmp_path / "include").mkdir()
    shutil.copy(resource_dir("hls") / "partition_ops.h", tmp_path / "include" / "partition_ops.h")
    tasks = []
    for name, (fn, calls) in HLS_CASES.items():
        k, fp = translated(fn, calls)
        assert not isinstance(k, Rejected), k.reason
        k.name = name
        vectors = kernel_vectors(k, fp)  # expected outputs are what numpy returned
        assert len(vectors) == len(calls)
        files = generate_hls(k, vectors, part="xc7z020clg400-1", clock_mhz=100.0)
        for rel, data in files.items():
            (tmp_path / name / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name / rel).write_bytes(data)
        tasks.append(name)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(tasks, pool.map(lambda t: _build_and_run(tmp_path / t, t), tasks)))
    for name, (build, run) in results.items():
        assert build.returncode == 0 and not build.stderr.strip(), (name, build.stderr[-3000:])
        assert run is not None and run.returncode == 0, (name, run.stdout[-3000:], run.stderr[-3000:])
        n = len(HLS_CASES[name][1])
        assert run.stdout.splitlines()[-1] == f"{name} csim: PASS ({n} of {n} vectors)", run.stdout
