"""Math functions: Python's math module, numpy's ufuncs and float powers, through every stage.

Each kernel is translated from profiled calls and its IR is run by the reference
interpreter on those calls and on edge inputs (0, -0.0, negatives, NaN, +-inf,
huge and tiny values); it must give Python's / numpy's values: bit for bit where
the function is exact or the interpreter computes it as Python does (math.* on
float64 is glibc's libm on both sides), within the float tolerance for numpy's
own transcendental loops. math.* calls that Python would raise on for some
input (math.sqrt of a negative, math.exp overflowing, math.floor of NaN) are
translated only where the interval analysis proves the argument in the domain;
the rest stay on the CPU with the reason. C simulation runs the generated C++
against Python's outputs, and fails when a math function is wrong.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from frontend_cases import math_kernels as M
from test_frontend_numpy import _build_and_run, close, run_ir, run_python, translated

from partition import ir, ir_json
from partition.boards import load_board
from partition.codegen import FLOAT_TOLERANCE, generate_hls
from partition.dtypes import dtype
from partition.estimate import estimate_kernel
from partition.estimate.tables import math_cost, table_entries
from partition.frontend import Rejected
from partition.frontend import intervals as iv
from partition.frontend.domains import RangeAnalysis, Requirement
from partition.interp import execute
from partition.resources import resource_dir
from partition.rtl.support import RtlUnsupported, check
from partition.vectors import kernel_vectors

RNG = np.random.default_rng(20250611)
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.5, 1e-300, -1e-300, 1e300, -1e300, math.inf, -math.inf, math.nan]


def floats(dt: str, n: int, scale: float = 3.0, edges: bool = True) -> np.ndarray:
    a = (RNG.standard_normal(n) * scale).astype(dt)
    if edges:
        with np.errstate(over="ignore"):
            e = np.array(EDGES[: min(n, len(EDGES))], dtype=dt)
        a[: len(e)] = e
    return a


def accepted(fn, calls, extra=(), tol=False) -> ir.Kernel:
    """`fn` translates, and its IR reproduces Python on `calls` and `extra`."""
    k, _ = translated(fn, calls)
    assert not isinstance(k, Rejected), k.reason
    assert ir_json.to_json(ir_json.from_json(ir_json.to_json(k))) == ir_json.to_json(k)
    for args in list(calls) + list(extra):
        want, _ = run_python(fn, args)
        got, _ = run_ir(k, args)
        assert close(got, want, tol), (fn.__name__, args, got, want)
    return k


def rejected(fn, calls) -> Rejected:
    r, _ = translated(fn, calls)
    assert isinstance(r, Rejected), f"{fn.__name__} was accepted"
    assert r.reason.startswith("frontend_cases/math_kernels.py:"), r.reason
    return r


def calls_of(*values) -> list[tuple]:
    return [(v,) for v in values]


def result(k: ir.Kernel) -> ir.Param:
    """The array the kernel returns."""
    ((kind, name),) = k.returns
    assert kind == "param"
    return k.param(name)


def math_nodes(k: ir.Kernel) -> list[ir.Math]:
    return [
        x
        for s in ir.walk_stmts(k.body)
        for e in ir.stmt_exprs(s)
        for x in ir.walk_expr(e)
        if isinstance(x, ir.Math)
    ]


# ------------------------------------------------------------- Python's math


SCALARS = [2.0, -3.25, 0.125, 7.0, -0.5]
SCALAR_EDGES = calls_of(0.0, -0.0, 1e-300, -1e300, 1e300, math.inf, -math.inf, math.nan, 123.456)


def test_every_unary_math_function():
    k = accepted(M.m_unary, calls_of(*SCALARS), SCALAR_EDGES)
    fns = {x.fn for x in math_nodes(k)}
    want = {"sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "atan", "tanh", "asin", "acos"}
    assert want | {"sinh", "cosh", "copysign"} <= fns
    assert all(x.dtype.name == "float64" for x in math_nodes(k))
    assert k.ret_pytype == "float"
    assert any("within a few ulp" in n for n in k.notes)


def test_trigonometric_functions_of_a_bounded_argument():
    accepted(M.m_trig, calls_of(*SCALARS), SCALAR_EDGES)


def test_binary_math_functions():
    pairs = [(1.0, 2.0), (-3.0, 0.5), (0.0, -0.0), (math.inf, 1.0), (math.nan, 2.0), (-1e300, 1e300)]
    k = accepted(M.m_binary, pairs[:2], pairs[2:])
    assert {x.fn for x in math_nodes(k)} == {"atan2", "hypot", "copysign"}


def test_floor_ceil_trunc_are_python_ints():
    k = accepted(M.m_floor, calls_of(2.5, -2.5, 0.0), calls_of(-0.5, 1e20, -1e20, math.inf, -math.inf, 7.0))
    assert k.ret_pytype == "int" and k.ret.name == "int64"


def test_isnan_isinf_isfinite_are_comparisons():
    k = accepted(M.m_predicates, calls_of(1.0, math.nan, math.inf), calls_of(-math.inf, 0.0))
    assert not math_nodes(k)


def test_constant_calls_are_folded_by_python():
    k = accepted(M.m_constants, [()])
    assert not math_nodes(k)
    ret = k.body[-1]
    assert isinstance(ret, ir.Return)
    assert all(isinstance(x, (ir.Const, ir.Bin, ir.Cast)) for x in ir.walk_expr(ret.value))
    assert math.sqrt(2.0) in [x.value for x in ir.walk_expr(ret.value) if isinstance(x, ir.Const)]


def test_float_powers():
    k = accepted(M.m_powers, calls_of(*SCALARS), calls_of(0.0, -0.0, 1e-300, 1e150, math.inf, math.nan))
    pows = [x for x in math_nodes(k) if x.fn == "pow"]
    assert sorted(float(x.args[1].value) for x in pows) == [-2.0, 1.5, 3.0]
    assert any(x.fn == "sqrt" for x in math_nodes(k))  # ** 0.5
    # x ** 2 is x * x; Python's raises OverflowError beyond 1.3e154, which the kernel notes
    assert any("** 2: the base may" in n and "the kernel gives inf" in n for n in k.notes)


def test_int_sqrt_under_a_guard():
    accepted(M.m_int_sqrt, calls_of(10, 99, 2, 2**31 - 1), calls_of(0, -5, 1, -(2**31), 2**31 - 2))


def test_early_returns_guard_the_loop_bound():
    """is_prime's sqrt is reached only for number >= 5: the folded return flag keeps its paths apart."""
    accepted(M.is_prime, calls_of(97, 91, 2, 1, 25, 7919), calls_of(-7, 0, 3, 4, 49, 7907, 7917))


# ------------------------------------------------------------------- loops


def test_accumulated_squares_are_non_negative():
    tr, q = RNG.standard_normal((6, 4)), RNG.standard_normal(4)
    tr[0, 0] = math.nan
    accepted(M.knn_distances, [(tr, q)], [(np.full((6, 4), math.inf), q)])


def test_branches_bound_exp():
    x = floats("float64", 12, 30.0)
    accepted(M.sigmoid_stable, [(x,)], [(x[::-1].copy(),)])


def test_branch_guard_bounds_log():
    x = floats("float64", 12)
    accepted(M.log_guarded, [(x,)])


def test_max_with_a_positive_constant_bounds_log():
    p = [0.25, 0.0, 0.75]
    accepted(M.cross_entropy, [(p, 0), (p, 1)], [([math.nan, 0.5, -1.0], 0), ([0.5, 0.5, -1.0], 2)])


def test_clamped_cosine_bounds_acos():
    a, b = RNG.standard_normal(5), RNG.standard_normal(5)
    accepted(M.angle_between, [(a, b), (b, a)], [(a, a), (a, -a)], tol=True)


def test_sum_of_integer_squares():
    img = RNG.integers(0, 256, (5, 6), dtype=np.uint8)
    accepted(M.roberts_cross, [(img,)], [(np.full((5, 6), 255, np.uint8),)])


def test_floor_of_a_bounded_index():
    img = RNG.integers(0, 256, (6, 5), dtype=np.uint8)
    accepted(M.resize_rows, [(img, 11), (img, 8)], [(img, 1), (img, 9), (img, 40), (img, 127)])


def test_cosine_of_an_angle_from_loop_indices():
    x = RNG.standard_normal(9)
    accepted(M.dft_real, [(x,)])


# ----------------------------------------------------------- numpy ufuncs


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_numpy_unary_ufuncs_keep_the_dtype(dt):
    x = floats(dt, 20)
    k = accepted(M.np_unary, [(x,)], [(floats(dt, 20, 0.5, edges=False),)], tol=True)
    assert result(k).dtype.name == dt
    assert all(n.dtype.name == dt for n in math_nodes(k))


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_numpy_rounding_is_exact(dt):
    x = floats(dt, 16)
    x[-4:] = [0.5, 1.5, 2.5, -2.5]  # half to even
    accepted(M.np_rounding, [(x,)])


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_numpy_binary_ufuncs(dt):
    x, y = floats(dt, 16), floats(dt, 16)[::-1].copy()
    accepted(M.np_binary, [(x, y)], [(np.abs(x), y)], tol=True)


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_numpy_square_reciprocal_sign_angles(dt):
    accepted(M.np_misc, [(floats(dt, 16),)])


def test_numpy_predicates():
    accepted(M.np_predicates, [(floats("float64", 16),)], [(floats("float32", 16),)])


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_array_power_fast_paths(dt):
    x = floats(dt, 16)
    k = accepted(M.np_power_paths, [(x,)], tol=True)
    assert [n.fn for n in math_nodes(k) if n.fn == "pow"] == ["pow"]


def test_numpy_ufuncs_of_scalars_give_numpy_scalars():
    k = accepted(M.np_scalar, [(2.0, 0.5), (9.0, -1.0)], [(-1.0, 800.0), (math.nan, -math.inf)], tol=True)
    assert k.ret_pytype == "npscalar" and k.ret.name == "float64"


@pytest.mark.parametrize("dt", ["int8", "int16", "uint8", "int64"])
def test_numpy_integer_sign_square_floor(dt):
    info = np.iinfo(dt)
    x = RNG.integers(info.min, info.max, 12, endpoint=True, dtype=dt)
    x[:3] = [info.min, info.max, 0]
    k = accepted(M.np_int_sign, [(x,)])
    assert not math_nodes(k)


def test_numpy_rounding_of_bools():
    accepted(M.np_bool_rounding, [(np.array([True, False, True]),)])


@pytest.mark.parametrize(("dt", "want"), [("int16", "float32"), ("int32", "float64"), ("uint8", None)])
def test_numpy_promotes_integers(dt, want):
    x = np.arange(1, 9, dtype=dt)
    if want is None:  # np.sqrt(uint8) is float16: no kernel dtype
        rejected(M.np_int_to_float, [(x,)])
        return
    k = accepted(M.np_int_to_float, [(x,)])
    assert result(k).dtype.name == want


def test_corpus_shaped_numpy_kernels():
    accepted(M.softmax, [(floats("float64", 10, edges=False),)], tol=True)
    accepted(M.sobel_hypot, [(RNG.integers(0, 256, (6, 7), dtype=np.uint8),)], tol=True)


# ---------------------------------------- where Python raises: the call goes to the CPU


def _inputs(k: ir.Kernel, args: tuple) -> dict:
    return {p.name: args[p.origin[1]] for p in k.params if p.origin[0] == "arg"}


@pytest.mark.parametrize(
    ("fn", "calls", "raising"),
    [
        (M.reject_sqrt, calls_of(4.0, 9.0), [(-1.0,)]),
        (M.reject_log_zero, calls_of(4.0, -9.0), [(0.0,), (-0.0,)]),
        (M.reject_exp, calls_of(1.0, 2.0), [(800.0,)]),
        (M.reject_floor_nan, calls_of(1.5, 2.5), [(math.nan,), (math.inf,)]),
        (M.reject_asin, calls_of(0.5, -0.5), [(2.0,), (-1.0000001,)]),
        (M.reject_sin_inf, calls_of(0.5, 1.5), [(math.inf,), (-math.inf,)]),
        (M.reject_half_power, calls_of(4.0, 9.0), [(-4.0,)]),
        (M.reject_fmod, [(4.0, 3.0), (9.0, 2.0)], [(1.0, 0.0), (math.inf, 2.0)]),
        (M.reject_loop_negative, [(np.array([0.5, 0.25]),)], [(np.array([2.0, 1.0]),)]),
    ],
)
def test_math_calls_python_may_raise_on_go_to_the_cpu_there(fn, calls, raising):
    """Where the range analysis cannot prove Python's call returns, the kernel checks the
    argument and hands such a call back to the CPU (where Python raises, as it would anyway);
    every other call computes Python's value."""
    k = accepted(fn, calls)
    assert k.status is not None
    for args in calls:
        assert execute(k, _inputs(k, args)).status == 0
    for args in raising:
        with pytest.raises((ValueError, OverflowError, ZeroDivisionError, TypeError)):
            r = fn(*args)
            if isinstance(r, complex):  # x ** 0.5 of a negative float: a complex number, not a float
                raise TypeError(r)
        assert execute(k, _inputs(k, args)).status == 1, args


def test_a_proven_domain_needs_no_check():
    k = accepted(M.norm2, [(3.0, 4.0), (-1.5, 2.0)])
    assert k.status is None  # sqrt of a sum of squares: proven, no fallback register


def test_floor_beyond_64_bits_goes_to_the_cpu():
    k = accepted(M.reject_floor_nan, calls_of(1.5, 2.5))
    assert math.floor(1e19) == 10**19  # Python's int is exact; the kernel's would not be
    assert execute(k, {k.params[0].name: 1e19}).status == 1
    assert execute(k, {k.params[0].name: -9.2e18}).status == 0


@pytest.mark.parametrize(
    ("fn", "calls", "needle"),
    [
        (M.reject_cube, calls_of(4.0, 9.0), "**: the base may be zero with a negative exponent"),
        (M.reject_constant, calls_of(1.0, 2.0), "math.sqrt(-1.0) raises ValueError"),
    ],
)
def test_math_calls_python_may_raise_on_stay_on_the_cpu(fn, calls, needle):
    r = rejected(fn, calls)
    assert needle in r.construct, r.construct
    src = Path(M.__file__).read_text().splitlines()
    assert fn.__name__ in "\n".join(src[max(0, r.line - 12) : r.line])


# ------------------------------------------------------------- intervals


def test_interval_rules():
    f64 = dtype("float64")
    assert iv.fit(iv.fsquare(iv.Iv(-3.0, 2.0, True)), f64).lo == 0.0
    assert iv.fdiv(iv.Iv(1.0, 2.0), iv.Iv(-1.0, 1.0)) == iv.Iv(-iv.INF, iv.INF, True)
    assert iv.fmul(iv.Iv(0.0, 1.0), iv.Iv(1.0, iv.INF)).nan  # 0 * inf
    assert iv.fit(iv.Iv(1e-320, 1.0), f64).lo == 0.0  # subnormals flush to zero
    assert iv.fit(iv.Iv(1.0, 1e309), f64).hi == iv.INF
    # min(a, b) gives a when b is NaN: b's bound does not cap it
    assert iv.fmin(iv.Iv(0.0, 5.0), iv.Iv(1.0, 1.0, True)).hi == 5.0
    assert iv.fmax(iv.Iv(-1.0, -1.0), iv.Iv(-9.0, 9.0, True)) == iv.Iv(-1.0, 9.0, False)
    i8 = dtype("int8")
    assert iv.int_bin("add", iv.Iv(100, 100), iv.Iv(100, 100), i8) == iv.top(i8)  # wraps
    assert iv.cast(iv.Iv(-1.5, 2.5, True), f64, i8) == iv.Iv(-1, 2)  # NaN -> 0


def test_requirement_checked_on_every_occurrence():
    """A Math node the frontend required is checked wherever an equal node appears in the IR."""
    f64 = dtype("float64")
    x = ir.Var("x", f64)
    call = ir.Math("sqrt", (x,), f64)
    k = ir.Kernel(
        "k", [ir.Param("x", "scalar", f64, pytype="float")], {"y": f64}, [], [ir.Assign("y", call, 3)]
    )
    failures = RangeAnalysis(k, {call: [Requirement(3, "math.sqrt()", "nonneg")]}).run()
    assert list(failures.values()) == ["the argument may be negative (Python raises ValueError)"]
    guarded = [ir.If(ir.Cmp("ge", x, ir.Const(0.0, f64)), [ir.Assign("y", call, 3)], [])]
    k.body = guarded
    assert not RangeAnalysis(k, {call: [Requirement(3, "math.sqrt()", "nonneg")]}).run()


# ----------------------------------------------------------- backends


def test_estimates_every_function_with_a_source():
    for fam in ("xc7", "xczu"):
        for bits in (32, 64):
            for fn in ir.MATH_FUNCS:
                c = math_cost(fn, bits, fam, 100.0)
                assert c.source and c.latency >= 0 and c.ii == 1, (fn, bits, fam)
    names = {c.op for c in table_entries()}
    assert set(ir.MATH_FUNCS) <= names
    # cores from public Vitis HLS figures; composites are the sum of their parts
    assert math_cost("sqrt", 32, "xc7", 100.0).latency == 15
    assert math_cost("exp", 32, "xc7", 100.0).dsp == 7
    exp, fadd = math_cost("exp", 64, "xc7", 100.0), math_cost("expm1", 64, "xc7", 100.0)
    assert fadd.latency > exp.latency and fadd.lut > exp.lut
    assert "CORDIC" in math_cost("sin", 32, "xczu", 100.0).source


def test_kernel_with_math_is_estimated():
    k, _ = translated(M.knn_distances, [(RNG.standard_normal((6, 4)), RNG.standard_normal(4))])
    e = estimate_kernel(k, load_board("pynq-z2"))
    assert e.cycles > 0 and e.lut > 0
    assert any("floating point" in n for n in e.notes)


def test_rtl_backend_declines_math_with_the_reason():
    img = RNG.integers(0, 256, (6, 5), dtype=np.uint8)
    k, _ = translated(M.resize_rows, [(img, 11)])  # integer arguments and result, a float inside
    with pytest.raises(RtlUnsupported, match="float64: the RTL backend builds integer kernels"):
        check(k)


def test_cpp_calls_hls_math_and_includes_the_header():
    k, fp = translated(M.sigmoid_stable, [(floats("float64", 8),)])
    files = generate_hls(k, kernel_vectors(k, fp), part="xc7z020clg400-1", clock_mhz=100.0)
    cpp = files[f"{k.name}.cpp"].decode()
    assert "hls::exp(" in cpp and '#include "partition_math.h"' in cpp
    k2, fp2 = translated(M.np_rounding, [(floats("float64", 8),)])
    k2.name = "plain"
    plain = generate_hls(k2, kernel_vectors(k2, fp2), part="xc7z020clg400-1", clock_mhz=100.0)
    assert "partition_math.h" in plain["plain.cpp"].decode()  # floor, rint ... are hls:: too


CSIM_CASES = {
    "m_unary": (M.m_unary, calls_of(*SCALARS) + SCALAR_EDGES),
    "m_floor": (M.m_floor, calls_of(2.5, -2.5, 1e20, -0.5)),
    "knn": (M.knn_distances, [(RNG.standard_normal((6, 4)), RNG.standard_normal(4))]),
    "sigmoid": (M.sigmoid_stable, [(floats("float64", 12, 30.0),)]),
    "np32": (M.np_unary, [(floats("float32", 20),), (floats("float32", 20, 0.5, edges=False),)]),
    "np64": (M.np_binary, [(floats("float64", 16), floats("float64", 16)[::-1].copy())]),
    "powers": (M.np_power_paths, [(floats("float32", 16),)]),
    "is_prime": (M.is_prime, calls_of(97, 91, 7919, 1, 2)),
    "exp32": (M.np_float32_exp, [(floats("float32", 16, 10.0),)]),
}


def _csim_tree(root: Path, cases: dict, math_header: bytes) -> list[str]:
    (root / "include").mkdir(parents=True)
    shutil.copy(resource_dir("hls") / "partition_ops.h", root / "include" / "partition_ops.h")
    (root / "include" / "partition_math.h").write_bytes(math_header)
    for name, (fn, calls) in cases.items():
        k, fp = translated(fn, calls)
        assert not isinstance(k, Rejected), k.reason
        k.name = name
        for rel, data in generate_hls(
            k, kernel_vectors(k, fp), part="xc7z020clg400-1", clock_mhz=100.0
        ).items():
            (root / name / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / name / rel).write_bytes(data)
    return list(cases)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_csim_reproduces_python(tmp_path):
    """The generated C++ with hls/partition_math.h compiles warning-free (UBSan on) and matches Python."""
    header = (resource_dir("hls") / "partition_math.h").read_bytes()
    for name in _csim_tree(tmp_path, CSIM_CASES, header):
        build, run = _build_and_run(tmp_path / name, name)
        assert build.returncode == 0 and not build.stderr.strip(), (name, build.stderr[-3000:])
        assert run is not None and run.returncode == 0, (name, run.stdout[-3000:], run.stderr[-3000:])
        n = len(CSIM_CASES[name][1])
        assert run.stdout.splitlines()[-1] == f"{name} csim: PASS ({n} of {n} vectors)", run.stdout


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
@pytest.mark.parametrize(("fn", "factor"), [("exp", "1.001"), ("sqrt", "(1 + 1e-11)")])
def test_csim_fails_with_a_wrong_math_function(tmp_path, fn, factor):
    """The float comparison is a real check: exp off by 0.1 % in float32, or sqrt off by 1e-11
    (about 45000 ulp, beyond float64's 1e-12 relative tolerance), fails C simulation."""
    header = (resource_dir("hls") / "partition_math.h").read_text()
    wrong = header.replace(
        f"PT_MATH_UNARY({fn})",
        f"inline float {fn}(float x) {{ return std::{fn}(x) * static_cast<float>({factor}); }}\n"
        f"inline double {fn}(double x) {{ return std::{fn}(x) * {factor}; }}",
    )
    assert wrong != header
    cases = {"exp32": CSIM_CASES["exp32"]} if fn == "exp" else {"knn": CSIM_CASES["knn"]}
    assert FLOAT_TOLERANCE["float64"][0] < 1e-11 and FLOAT_TOLERANCE["float32"][0] < 1e-3
    for name in _csim_tree(tmp_path, cases, wrong.encode()):
        build, run = _build_and_run(tmp_path / name, name)
        assert build.returncode == 0, build.stderr[-3000:]
        assert run is not None and run.returncode != 0, run.stdout
        assert "FAIL" in run.stdout, run.stdout


def test_float_power_with_a_run_time_exponent_hands_python_errors_back():
    """0.0 ** -1.0 (ZeroDivisionError) and 1000.0 ** 400.0 (OverflowError) go to the CPU; other
    calls compute libm's pow."""
    from partition.interp import execute

    calls = [(0.5, 1.5), (-1.25, 2.0), (3.0, -0.5), (0.0, 2.5)]
    k, _ = translated(M.variable_powers, calls)
    assert k.status is not None
    for x, y in [*calls, (0.0, -1.0), (1000.0, 400.0), (-2.0, 0.5), (2.0, 3.0)]:
        run = execute(k, {"x": x, "y": y})
        try:
            want = M.variable_powers(x, y)
        except (ZeroDivisionError, OverflowError):
            assert run.status == 1, (x, y)
            continue
        assert run.status == 0 and math.isclose(run.ret, want, rel_tol=1e-12), (x, y, run.ret, want)
