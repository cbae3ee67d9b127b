"""Frontend: every accepted function's IR computes exactly what Python computes."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
from frontend_cases import kernels as K
from frontend_util import profile_calls

from partition import ir, ir_json
from partition.frontend import Rejected, translate
from partition.interp import execute, run_kernel

APP_DIR = Path(__file__).parent
RNG = np.random.default_rng(1234)


def rand(dtype, n, lo=None, hi=None):
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    return RNG.integers(lo, hi, size=n, endpoint=True).astype(dtype)


def run_python(fn, args):
    work = copy.deepcopy(args)
    with np.errstate(all="ignore"):
        res = fn(*work)
    return res, work


def run_ir(kernel: ir.Kernel, args):
    named = {}
    for pos in range(len(kernel.py_params)):
        for p in kernel.params:
            if p.origin == ("arg", pos):
                named[p.name] = args[pos]
    outs, ret = run_kernel(kernel, named)

    def as_python(p, arr):
        if p.pytype == "list":
            return arr.tolist()
        if p.pytype == "list_np":
            return list(arr)
        if p.pytype.startswith("scalar_"):  # a boxed scalar return, as the host unboxes it
            v = arr.reshape(-1)[0]
            return {"scalar_int": int, "scalar_float": float, "scalar_bool": bool}.get(p.pytype, lambda x: x)(
                v
            )
        return arr

    results = []
    for kind, what in kernel.returns:
        results.append(as_python(kernel.param(what), outs[what]) if kind == "param" else ret)
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


def same(a, b) -> bool:
    if isinstance(a, list):
        return (
            isinstance(b, list)
            and len(a) == len(b)
            and all(type(x) is type(y) and same(x, y) for x, y in zip(a, b))
        )
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        )
    if a is None or b is None:
        return a is b
    if isinstance(a, float) or isinstance(b, float) or isinstance(a, np.floating):
        return np.float64(a) == np.float64(b) or (np.isnan(a) and np.isnan(b))
    return int(a) == int(b)


def check(fn, calls, extra=()):
    fp = profile_calls(fn, calls, APP_DIR)
    k = translate(fp, APP_DIR)
    assert not isinstance(k, Rejected), k.reason
    # the kernel JSON round-trips
    assert ir_json.to_json(ir_json.from_json(ir_json.to_json(k))) == ir_json.to_json(k)
    for args in list(calls) + list(extra):
        want, want_args = run_python(fn, args)
        got, got_args = run_ir(k, args)
        assert same(got, want), (fn.__name__, got, want)
        for a, b in zip(got_args, want_args):
            if isinstance(b, np.ndarray):
                assert same(a, b), fn.__name__
    return k


def test_fir_int16_int32():
    x, h = rand(np.int16, 64), rand(np.int16, 8)
    k = check(K.fir, [(x, h)])
    assert [p.name for p in k.params] == ["x", "h", "y"]
    assert k.param("y").direction == "out" and k.param("y").origin == ("return", 0)
    loops = [s for s in ir.walk_stmts(k.body) if isinstance(s, ir.For)]
    assert [lp.trip_max for lp in loops] == [57, 57, 8]  # zero fill, outer, taps


def test_weak_python_int_accumulator_becomes_int16():
    x = rand(np.int16, 50)
    k = check(K.weak_acc, [(x,)])
    assert k.ret.name == "int16" and k.ret_pytype == "npscalar"


def test_python_int_accumulator_is_held_in_int64_with_its_adds_checked():
    # sound widths: not the observed range (a later call may sum larger values) but int64, and
    # the adds that may leave it set the fallback status (the call then runs on the CPU)
    x = rand(np.int16, 40, -300, 300)
    extreme = np.full(40, -32768, np.int16)
    k = check(K.py_int_sum, [(x,)], extra=[(extreme,)])
    assert k.ret_pytype == "int" and k.ret.name == "int64"
    assert any("held in int64" in n for n in k.notes)
    assert k.status is not None
    assert execute(k, {"x": extreme}).status == 0  # 40 * 2**30 fits: no spurious fallback


def test_floor_division_and_modulo_follow_python():
    a, b = rand(np.int32, 200), rand(np.int32, 200, -9, 9)
    a[:4] = [np.iinfo(np.int32).min, -7, 7, -7]
    b[:4] = [-1, 2, -2, -2]
    check(K.floor_ops, [(a, b)])
    check(K.py_floor, [(9,), (9,)])


def test_wraparound_int16():
    check(K.wrap16, [(rand(np.int16, 100),)])


def test_shifts_with_scalar():
    x = rand(np.int32, 64)
    check(K.shifts, [(x, 3), (x, 5)])


def test_blur_2d_uint8():
    img = rand(np.uint8, 100).reshape(10, 10)
    k = check(K.blur2d, [(img,)])
    assert k.param("out_r").shape == (10, 10)


def test_min_max_abs_int16():
    x = rand(np.int16, 100)
    x[0] = np.iinfo(np.int16).min
    check(K.minmax_abs, [(x,)])


def test_true_division_float64():
    a, b = rand(np.int16, 40), rand(np.int16, 40, 1, 50)
    check(K.true_div, [(a, b)])


def test_float32_accumulation():
    a = RNG.standard_normal(33).astype(np.float32)
    k = check(K.floats32, [(a,)])
    assert k.ret.name == "float32"


def test_globals_become_roms_and_constants():
    k = check(K.uses_globals, [(rand(np.int16, 30),)])
    assert {loc.name for loc in k.locals} == {"TAPS", "COEFS"}


def test_in_place_update_is_inout_and_constant_specialised():
    buf = rand(np.int32, 20)
    k = check(K.in_place, [(buf, 3)])
    assert k.param("buf_r").direction == "inout"
    assert k.specialised == {"k": 3}


def test_scalar_param_that_varies_stays_a_register():
    buf = rand(np.int32, 20)
    k = check(K.in_place, [(buf, 3), (buf, -4)])
    assert k.param("k").kind == "scalar" and k.param("k").dtype.name == "int64"  # any int64 works
    narrow = translate(profile_calls(K.in_place, [(buf, 3), (buf, -4)], APP_DIR), APP_DIR, observed_ints=True)
    assert narrow.param("k").dtype.name == "int8"  # --int-widths observed: the host checks each call


def test_negative_indices():
    check(K.negative_index, [(rand(np.int16, 17),)])


def test_reverse_range():
    check(K.reverse_step, [(rand(np.uint16, 9),)])


def test_tuple_return():
    k = check(K.tuple_out, [(rand(np.int32, 12, 0, 65535),)])
    assert k.return_tuple and [r[0] for r in k.returns] == ["param", "param", "scalar"]


def test_branches_elif_ifexp():
    check(K.branches, [(rand(np.int16, 80, -20, 20), 5), (rand(np.int16, 80, -20, 20), 7)])


def test_boolean_logic():
    check(K.bools, [(rand(np.int8, 60, -5, 15),)])


def test_break_continue():
    x = rand(np.int16, 30, -50, 120)
    check(K.breaks, [(x,)], extra=[(np.full(30, 5, dtype=np.int16),)])


def test_integer_power():
    check(K.power, [(rand(np.int64, 10, -1000, 1000),)])


@pytest.mark.parametrize(
    "fn,args,needle",
    [
        (K.uses_print, (np.zeros(3, np.int8),), "call to print()"),
        (K.whole_array, (np.zeros(3, np.int8),), "a boolean-mask selection"),
        (K.mixed_types, (np.zeros(3, np.int32),), "holds both"),
        (K.calls_helper, (np.zeros(3, np.int32),), "helper() never ran in the profiled run"),
    ],
)
def test_rejections_name_line_and_construct(fn, args, needle):
    fp = profile_calls(fn, [args], APP_DIR)
    r = translate(fp, APP_DIR)
    assert isinstance(r, Rejected)
    assert needle in r.construct
    assert r.reason.startswith("frontend_cases/kernels.py:")
    src_lines = Path(APP_DIR / "frontend_cases/kernels.py").read_text().splitlines()
    assert fn.__name__ in "\n".join(src_lines[r.line - 30 : r.line])


def test_border_guard_removes_negative_index_handling():
    k = check(K.guarded, [(rand(np.int16, 40), rand(np.int16, 5))])
    loads = [
        x
        for s in ir.walk_stmts(k.body)
        for e in ir.stmt_exprs(s)
        for x in ir.walk_expr(e)
        if isinstance(x, ir.Load) and x.array == "x"
    ]
    assert loads and not any(isinstance(i, ir.Select) for ld in loads for i in ld.index)


def translate_with_helpers(fn, calls, helpers):
    """Profile `fn` and its helpers (each with its own calls), then translate `fn`."""
    functions = {h.__name__: profile_calls(h, hc, APP_DIR) for h, hc in helpers}
    fp = profile_calls(fn, calls, APP_DIR)
    functions[fn.__name__] = fp
    return translate(fp, APP_DIR, functions), fp


def check_with_helpers(fn, calls, helpers):
    k, _ = translate_with_helpers(fn, calls, helpers)
    assert not isinstance(k, Rejected), k.reason
    for args in calls:
        want, want_args = run_python(fn, args)
        got, got_args = run_ir(k, args)
        assert same(got, want), (fn.__name__, got, want)
        for a, b in zip(got_args, want_args):
            if isinstance(b, np.ndarray):
                assert same(a, b)
    return k


def test_inlined_scalar_helper():
    x = rand(np.int16, 40, -100, 100)
    k = check_with_helpers(K.clamp_all, [(x,)], [(K.clamp, [(np.int16(3), np.int16(-50), np.int16(50))])])
    assert any("clamp() inlined" in n for n in k.notes)


def test_inlined_helper_writes_the_array_it_is_given():
    check_with_helpers(K.uses_fill, [(np.zeros(9, np.int32),)], [(K.fill_ramp, [(np.zeros(9, np.int32), 7)])])


def test_inlined_helpers_returning_arrays_and_tuples():
    x = rand(np.int16, 25, -300, 300)
    k = check_with_helpers(
        K.pipeline_of_helpers,
        [(x,)],
        [(K.make_sq, [(x,)]), (K.minmax_of, [(np.zeros(3, np.int32),)])],
    )
    assert [r[0] for r in k.returns] == ["param", "scalar"]


def test_recursion_is_rejected():
    r, _ = translate_with_helpers(K.uses_recursion, [(np.zeros(4, np.int8),)], [(K.fact, [(4,)])])
    assert isinstance(r, Rejected) and "recursive call to fact()" in r.construct


def test_side_effect_inside_an_expression_is_rejected():
    r, _ = translate_with_helpers(
        K.bad_side_effect,
        [(np.zeros(4, np.int32),)],
        [(K.fill_and_count, [(np.zeros(4, np.int32),)]), (K.fill_ramp, [(np.zeros(4, np.int32), 1)])],
    )
    assert isinstance(r, Rejected) and "writes to an array it is given" in r.construct


def test_early_returns_from_nested_loops():
    x = rand(np.int16, 30, -100, 100)
    check(K.find_first, [(x, 90), (x, 50)], extra=[(x, 127), (x, -128)])  # t is passed as int8


def test_early_returns_in_an_inlined_helper():
    check_with_helpers(K.classify, [(rand(np.int16, 20, -3, 3),)], [(K.sign_class, [(2,), (-2,), (0,)])])


def test_while_with_a_proven_bound():
    k = check(K.while_counted, [(rand(np.int16, 21),)])
    assert any("proven from its condition" in n for n in k.notes)


def test_while_with_a_marked_bound():
    x = np.array([1000, 5], dtype=np.int32)
    k = check(K.while_marked, [(x, 3), (x, 100)])
    assert any("max-iterations mark" in n for n in k.notes)


def test_while_without_a_provable_bound_is_bounded_by_the_profile_and_checked():
    # the profiled calls ran 6 iterations at most: the kernel allows 6 + 6 // 4 + 8 = 15, and a
    # call whose loop still runs after that hands itself back to the CPU
    k = check(K.while_unbounded, [(np.array([100], np.int32),)], extra=[(np.array([2**14], np.int32),)])
    assert any("at most 6 in the profiled calls" in n for n in k.notes)
    assert k.status is not None
    assert execute(k, {"x": np.array([2**15 - 1], np.int32)}).status == 0  # 14 iterations
    assert execute(k, {"x": np.array([2**31 - 1], np.int32)}).status == 1  # 30 iterations
    never = translate(profile_calls(K.while_unbounded, [(np.array([1], np.int32),)], APP_DIR), APP_DIR)
    assert isinstance(never, Rejected) and "never ran in the profiled calls" in never.construct


def test_simple_while_counter():
    check(K.uses_while, [(np.zeros(3, np.int8),)])


def test_list_argument_and_python_int_semantics():
    big = [2**62, 2**62, 0, 1]  # beyond int64 in Python's sum: the kernel hands the call back
    k = check(K.uses_list, [([1, 2, 3, 200],), ([5, -7, 0, 1],)])
    assert k.param("xs").pytype == "list" and k.param("xs").dtype.name == "int64"
    assert execute(k, {"xs": np.array(big, np.int64)}).status == 1
    assert execute(k, {"xs": np.array([2**62, -(2**62), 5, 1], np.int64)}).status == 0
    fp = profile_calls(K.uses_list, [([1, 2, 3, 200],), ([5, -7, 0, 1],)], APP_DIR)
    assert translate(fp, APP_DIR, observed_ints=True).param("xs").dtype.name == "int16"


def test_local_lists_and_list_results():
    k = check(K.list_hist, [(rand(np.uint8, 50, 0, 7),)])
    out = next(p for p in k.params if p.origin[0] == "return")
    assert out.pytype == "list"
    check(K.grid_sum, [([[1, 2, 3], [4, 5, 6]],)])


def test_list_of_numpy_scalars_comes_back_as_numpy_scalars():
    k = check(K.doubled, [(rand(np.int16, 6),)])
    out = next(p for p in k.params if p.origin[0] == "return")
    assert out.pytype == "list_np"
