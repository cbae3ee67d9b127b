"""Frontend: arguments that are small records of numbers (tuples, namedtuples, dataclasses, lists
of tuples) become scalar parameters or constants, and the kernel computes what Python computes.

Each function is profiled on direct calls and translated; its IR runs in the reference
interpreter on the profiled calls and on extra calls, the record's fields put into the
parameters the kernel declares for them.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
from frontend_cases import records as R
from frontend_util import profile_calls

from partition import ir, ir_json
from partition.frontend import Rejected, translate
from partition.interp import run_kernel

APP_DIR = Path(__file__).parent
RNG = np.random.default_rng(18)


def translated(fn, calls, helpers=()):
    functions = {h.__name__: profile_calls(h, hc, APP_DIR) for h, hc in helpers}
    fp = profile_calls(fn, calls, APP_DIR)
    functions[fn.__name__] = fp
    return translate(fp, APP_DIR, functions)


def kernel_inputs(k: ir.Kernel, args) -> dict:
    """The kernel's inputs for a Python call: arrays and scalars by position, fields read out of records."""
    named = {}
    for p in k.params:
        if p.origin[0] != "arg":
            continue
        v = args[p.origin[1]]
        if p.field is not None:
            v = k.structs[k.py_params[p.origin[1]]].read(v, p.field)
        named[p.name] = v
    return named


def run_ir(k: ir.Kernel, args):
    outs, ret = run_kernel(k, kernel_inputs(k, args))
    items = [outs[what] if kind == "param" else ret for kind, what in k.returns]
    return tuple(items) if k.return_tuple else (items[0] if items else None)


def same(got, want) -> bool:
    if isinstance(want, np.ndarray):
        return (
            isinstance(got, np.ndarray)
            and got.dtype == want.dtype
            and np.array_equal(got, want, equal_nan=True)
        )
    if isinstance(want, float):
        return float(got) == want or (want != want and got != got)
    return bool(got == want)


def check(fn, calls, extra=(), helpers=()) -> ir.Kernel:
    k = translated(fn, calls, helpers)
    assert not isinstance(k, Rejected), k.reason
    assert ir_json.from_json(ir_json.to_json(k)) == k  # the IR (structs and fields too) round-trips
    for args in list(calls) + list(extra):
        with np.errstate(all="ignore"):
            want = fn(*copy.deepcopy(args))
        got = run_ir(k, args)
        assert same(got, want), (fn.__name__, args, got, want)
    return k


def rejected(fn, calls) -> str:
    r = translated(fn, calls)
    assert isinstance(r, Rejected), f"{fn.__name__} was accepted"
    assert r.reason.startswith("frontend_cases/records.py:"), r.reason
    return r.reason


def scalar_params(k: ir.Kernel) -> list[tuple[str, str, str | None]]:
    return [(p.name, p.dtype.name, p.field) for p in k.scalar_params]


# ------------------------------------------------------------------ accepted


def test_dataclass_fields_become_int_registers():
    calls = [(R.Rect(0, 0, 10, 10), R.Rect(5, 5, 10, 10)), (R.Rect(-3, -3, 20, 2), R.Rect(0, -10, 3, 30))]
    extra = [(R.Rect(0, 0, 4, 4), R.Rect(4, 0, 4, 4)), (R.Rect(-5, 7, 1, 1), R.Rect(-5, 7, 1, 1))]
    k = check(R.rect_overlap_area, calls, extra)
    # Python ints travel in int64: any value up to 64 bits works
    assert scalar_params(k) == [
        ("a_x", "int64", "x"), ("a_y", "int64", "y"), ("a_w", "int64", "w"), ("a_h", "int64", "h"),
        ("b_x", "int64", "x"), ("b_y", "int64", "y"), ("b_w", "int64", "w"), ("b_h", "int64", "h"),
    ]  # fmt: skip
    assert [p.origin for p in k.params] == [("arg", 0)] * 4 + [("arg", 1)] * 4
    assert k.structs == {
        "a": ir.StructArg("dataclass", "Rect", ["x", "y", "w", "h"]),
        "b": ir.StructArg("dataclass", "Rect", ["x", "y", "w", "h"]),
    }


def test_namedtuple_points_by_attribute():
    calls = [tuple(R.Point(*map(float, p)) for p in tri) for tri in RNG.normal(0, 10, (3, 3, 2))]
    k = check(R.triangle_area, calls)
    assert [p.name for p in k.params] == ["a_x", "a_y", "b_x", "b_y", "c_x", "c_y"]
    assert all(p.dtype.name == "float64" and p.pytype == "float" for p in k.params)


def test_typing_namedtuple_coefficients_and_a_constant_field():
    x = RNG.normal(size=32)
    calls = [
        (x, R.BiquadCoeffs(0.2, 0.4, 0.2, -0.5, 0.25)),
        (x[::-1].copy(), R.BiquadCoeffs(1.0, 0.0, 0.5, 0.3, 0.25)),
    ]
    k = check(R.biquad_df2t, calls, [(x, R.BiquadCoeffs(1.5, -2.0, 0.0, 0.1, 0.25))])
    # a2 was 0.25 in every profiled call: compiled in, and the host must see it unchanged
    assert [p.field for p in k.scalar_params] == ["b0", "b1", "b2", "a1"]
    assert k.structs["coeffs"].constants == {"a2": {"value": 0.25, "pytype": "float", "dtype": "float64"}}
    assert "coeffs.a2 specialised to 0.25 (the only value observed)" in k.notes


def test_frozen_dataclass_with_float_and_int_fields():
    q = RNG.integers(-128, 128, 64).astype(np.int8)
    calls = [(q, R.QuantParams(0.05, 3)), (q, R.QuantParams(0.1, -5))]
    k = check(R.dequantize, calls)
    assert scalar_params(k) == [
        ("params_scale", "float64", "scale"),
        ("params_zero_point", "int64", "zero_point"),
    ]


def test_tuple_unpacked_constant_shape():
    img = RNG.integers(0, 256, (9, 11)).astype(np.uint8)
    k = check(R.box_sum, [(img, (3, 3)), (img[::-1].copy(), (3, 3))])
    assert k.scalar_params == [] and k.structs["kernel_size"].constants == {
        "0": {"value": 3, "pytype": "int", "dtype": "int8"},
        "1": {"value": 3, "pytype": "int", "dtype": "int8"},
    }
    loops = [s for s in ir.walk_stmts(k.body) if isinstance(s, ir.For)]
    assert all(isinstance(lp.stop, ir.Const) for lp in loops)  # the window is constant


def test_iteration_is_unrolled_and_len_is_constant():
    x = RNG.integers(-50, 50, 10).astype(np.int16)
    k = check(R.horner, [(x, (3, -2, 5, 1)), (x, (1, 0, -4, 7))], [(x, (-9, 9, -9, 9))])
    assert [p.field for p in k.scalar_params] == ["0", "1", "2", "3"]
    assert [p.name for p in k.scalar_params] == ["coeffs_0", "coeffs_1", "coeffs_2", "coeffs_3"]
    assert sum(isinstance(s, ir.For) for s in ir.walk_stmts(k.body)) == 2  # no loop over coeffs
    assert any("unrolled (4 items)" in n for n in k.notes)


def test_run_time_index_enumerate_and_max():
    x = RNG.integers(-100, 100, 12).astype(np.int32)
    k = check(R.pick, [(x, (3, -1, 4, 1, -5)), (x, (2, 7, 1, 8, 2))], [(x, (-9, -9, -9, -9, -9))])
    assert len([p for p in k.scalar_params if p.field is not None]) == 5
    selects = [e for s in ir.walk_stmts(k.body) for x in ir.stmt_exprs(s) for e in ir.walk_expr(x)
               if isinstance(e, ir.Select)]  # fmt: skip
    assert selects


def test_list_of_tuples_is_a_2d_array():
    pts = [[(int(a), int(b)) for a, b in RNG.integers(-100, 100, (6, 2))] for _ in range(3)]
    k = check(R.shift_points, [(p, (3, -4 + j)) for j, p in enumerate(pts)], [([(-1, 1)] * 6, (3, -4))])
    p = k.param("points")
    assert p.kind == "array" and p.shape == (6, 2) and p.pytype == "list_tuple" and p.direction == "in"
    assert p.dtype.name == "int64"  # Python ints: any value up to 64 bits


def test_rows_of_an_array_unpacked():
    pts = RNG.normal(size=(7, 2))
    check(R.polygon_area, [(pts,), (pts * 2,)])


def test_rows_of_a_list_of_tuples_in_a_loop():
    pts = [[(int(a), int(b)) for a, b in RNG.integers(-9, 9, (5, 2))] for _ in range(2)]
    check(R.bounding_box, [(p,) for p in pts])


def test_records_pass_into_inlined_helpers():
    calls = [(R.Point(1.5, -2.0), R.Point(0.25, 4.0)), (R.Point(-3.0, 1.0), R.Point(2.0, 2.0))]
    k = check(R.inlined_helper, calls, helpers=[(R._dot, [c for c in calls])])
    assert [p.name for p in k.params] == ["p_x", "p_y", "q_x", "q_y"]


def test_field_names_stay_unique():
    calls = [(R.Rect(1, 2, 3, 4), 5), (R.Rect(-1, 0, 3, 4), 6)]
    k = check(R.uses_mixed, calls)
    names = [p.name for p in k.params]
    assert names == ["r_x", "r_y", "s"] and "r_x" not in k.scalars and len(set(k.scalars)) == len(k.scalars)


def test_fields_that_are_not_read_may_be_anything():
    x = RNG.integers(-99, 99, 8).astype(np.int16)
    calls = [(x, R.Labeled("a", 3, R.Rect(0, 0, 1, 1))), (x, R.Labeled("b", -2, R.Rect(1, 0, 1, 1)))]
    k = check(R.scaled, calls)
    assert [p.name for p in k.scalar_params] == ["cfg_gain"] and k.structs["cfg"].constants == {}


# ------------------------------------------------------------------ rejected, with the reason


@pytest.mark.parametrize(
    "fn, calls, reason",
    [
        (R.mixed_index, [((1, 2.5), 0), ((3, 0.5), 1)], "a run-time index into tuple t, whose items have different types"),
        (R.iterate_dataclass, [(R.Rect(1, 2, 3, 4), False)], "for loop over Rect r (a dataclass is not iterable)"),
        (R.not_a_field, [(R.Point(1, 2), False)], "attribute p.z is not a field of Point"),
        (R.break_in_unrolled, [((1, -2, 3),)], "break or continue in a loop over tuple t (the loop is unrolled)"),
        (R.record_as_value, [(R.Point(1, 2),)], "Point p used as a value"),
        (R.writes_rows, [([(1, 2), (3, 4)],)], "points"),
        (R.unpack_wrong_length, [((1, 2, 3), False)], "unpacking tuple t of 3 items into 2 names"),
        (R.triangle_area, [(R.Point(np.zeros(2), 1.0), R.Point(0.0, 1.0), R.Point(0.0, 1.0))],
         "field x of argument a is a ndarray (fields that are numbers are read)"),
        (R.reads_nested, [(R.Labeled("a", 3, R.Rect(0, 0, 1, 1)),)],
         "field tone of argument cfg is a Rect (fields that are numbers are read)"),
    ],
)  # fmt: skip
def test_rejections_name_the_construct(fn, calls, reason):
    assert reason in rejected(fn, calls)
