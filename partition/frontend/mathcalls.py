"""Math: Python's `math` module, numpy's math ufuncs on scalars and arrays, float powers.

Each call becomes an `ir.Math` node (or plain arithmetic where that is exactly
what Python or numpy computes: `math.radians(x)` is `x * (pi / 180)`,
`np.square(x)` is `x * x`, `math.isnan(x)` is `x != x`), typed as Python or
numpy types it: `math` functions convert their arguments to float and return a
Python float (`math.floor`/`ceil`/`trunc` a Python int); numpy ufuncs follow
NEP 50, which `probe` asks numpy itself (np.sqrt of float32 stays float32, of
int16 is float32, of int32 float64).

numpy returns NaN or inf where a function is undefined or overflows; Python's
`math` raises instead. A kernel cannot raise, so every `math` call with a
restricted domain records a `Requirement` (`partition.frontend.domains`), and
the function is translated only when the analysis proves every argument it can
receive lies inside (`math.sqrt(x * x + y * y)`, `math.exp(-abs(x))`,
`math.log(max(p, 1e-12))`, a call under `if x > 0:`). Calls on constants are
computed now, by Python or numpy themselves.
"""

from __future__ import annotations

import ast
import functools
import math
import warnings
from typing import Any

import numpy as np

from partition import ir
from partition.dtypes import BOOL, FLOAT64, INT64, DType
from partition.frontend.domains import EXP_MAX, HYPERBOLIC_MAX, Requirement
from partition.frontend.model import TE, Reject, cast, const
from partition.frontend.types import NP, PyBool, PyFloat, PyInt, PyType, describe, ir_dtype, range_of
from partition.interp import Interpreter

# math.<name> -> (IR function, the domain Python's call needs; None: it never raises)
PY_MATH: dict[str, tuple[str, str | None]] = {
    "sqrt": ("sqrt", "nonneg"),
    "exp": ("exp", "exp"),
    "expm1": ("expm1", "exp"),
    "log": ("log", "positive"),
    "log2": ("log2", "positive"),
    "log10": ("log10", "positive"),
    "log1p": ("log1p", "above_minus_one"),
    "sin": ("sin", "finite"),
    "cos": ("cos", "finite"),
    "tan": ("tan", "finite"),
    "asin": ("asin", "unit"),
    "acos": ("acos", "unit"),
    "atan": ("atan", None),
    "sinh": ("sinh", "hyperbolic"),
    "cosh": ("cosh", "hyperbolic"),
    "tanh": ("tanh", None),
    "atan2": ("atan2", None),
    "copysign": ("copysign", None),
    "fmod": ("fmod", "fmod"),
}
PY_MATH_OTHER = (
    "floor",
    "ceil",
    "trunc",
    "fabs",
    "hypot",
    "pow",
    "radians",
    "degrees",
    "isnan",
    "isinf",
    "isfinite",
)
MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}

# np.<name> -> IR function (numpy's ufuncs that are one C function)
NP_DIRECT = {
    **{n: n for n in ("sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan")},
    **{n: n for n in ("sinh", "cosh", "tanh", "floor", "ceil", "trunc", "rint", "hypot", "fmod", "copysign")},
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arctan2": "atan2",
    "power": "pow",
    "round": "rint",
    "around": "rint",
}
NP_OTHER = ("fabs", "square", "reciprocal", "sign", "deg2rad", "rad2deg", "radians", "degrees")
NP_PREDICATES = ("isnan", "isinf", "isfinite")
NP_MATH = (*NP_DIRECT, *NP_OTHER, *NP_PREDICATES)
NP_ARITY = {"arctan2": 2, "hypot": 2, "fmod": 2, "copysign": 2, "power": 2}
_ROUNDING = ("floor", "ceil", "trunc", "rint")


@functools.lru_cache(maxsize=64)
def _math_imports(module: ast.Module) -> tuple[set[str], dict[str, str]]:
    """Names bound to the math module, and names imported from it (-> math attribute)."""
    aliases: set[str] = set()
    names: dict[str, str] = {}
    for n in ast.walk(module):
        if isinstance(n, ast.Import):
            aliases |= {a.asname or "math" for a in n.names if a.name == "math"}
        elif isinstance(n, ast.ImportFrom) and n.module == "math" and n.level == 0:
            names.update({a.asname or a.name: a.name for a in n.names})
    return aliases, names


class MathCalls:
    """Math functions and float powers (part of `Lowerer`)."""

    def math_attr(self, node: ast.expr) -> str | None:
        """'sqrt' for math.sqrt, or for `sqrt` imported from math; None otherwise."""
        aliases, names = _math_imports(self.src.module)
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and not self.is_local_name(node.value.id)
        ):
            return node.attr
        if isinstance(node, ast.Name) and node.id in names and not self.is_local_name(node.id):
            return names[node.id]
        return None

    def math_constant(self, node: ast.expr) -> TE | None:
        name = self.math_attr(node)
        if name in MATH_CONSTANTS:
            return self.const_te(MATH_CONSTANTS[name], self.where(node))
        return None

    def require(
        self,
        e: ir.Expr,
        line: int,
        call: str,
        kind: str,
        exponent: float | None = None,
        note_only: bool = False,
    ) -> None:
        file = self.src.rel if self.src.rel != self.top.src.rel else ""
        req = Requirement(line, call, kind, exponent, file, note_only)
        self.r.requirements.setdefault(e, []).append(req)
        outside = None if note_only or not isinstance(e, ir.Math) else domain_violation(kind, e.args)
        if outside is not None:
            # where the range analysis cannot prove the domain, this check hands such a call to the
            # CPU (Python raises there); where it can, the check is dropped (Lowerer.lower)
            n = len(self.pending)
            self.fallback_if(outside, line)
            self.r.domain_checks[req] = self.pending[n]

    def approximate(self, fn: str, line: int, call: str) -> None:
        if fn not in ir.EXACT_MATH:
            self.note(
                f"line {line}: {call} is computed within a few ulp of Python's value (on the FPGA by "
                "Vitis HLS hls_math), not bit for bit: a comparison or int() of its result may differ from "
                "Python's at a boundary"
            )

    # ------------------------------------------------------- Python's math

    def math_call(self, name: str, node: ast.Call) -> TE:
        """math.<name>(...) (`name` from `math_attr`)."""
        line = node.lineno
        call = f"math.{name}()"
        if name not in PY_MATH and name not in PY_MATH_OTHER:
            raise Reject(line, f"call to {call}")
        args = [self.expr(a) for a in node.args]
        for a in args:
            if not isinstance(a.pt, (NP, PyInt, PyFloat, PyBool)):
                raise Reject(line, f"{call} of {describe(a.pt)}")
        arity = 2 if name in ("atan2", "copysign", "fmod", "pow") else None if name == "hypot" else 1
        if arity is not None and len(args) != arity:
            raise Reject(line, f"{call} with {len(args)} argument(s)")
        values = [_constant_value(a) for a in args]
        if all(v is not None for v in values):
            return self._fold_math(name, values, line)
        if name in ("floor", "ceil", "trunc"):
            return self._to_int(name, args[0], line)
        xs = [cast(a.e, FLOAT64) for a in args]
        if name in ("isnan", "isinf", "isfinite"):
            return TE(PyBool(), _predicate(name, xs[0]))
        if name == "fabs":
            return TE(PyFloat(), ir.Un("abs", xs[0], FLOAT64))
        if name in ("radians", "degrees"):
            factor = math.pi / 180.0 if name == "radians" else 180.0 / math.pi  # CPython's degToRad/radToDeg
            return TE(PyFloat(), ir.Bin("mul", xs[0], const(factor, FLOAT64), FLOAT64))
        if name == "hypot":
            return self._hypot(xs, line)
        if name == "pow":
            return self.python_power(TE(PyFloat(), xs[0]), args[1], line, call)
        fn, domain = PY_MATH[name]
        e = ir.Math(fn, tuple(xs), FLOAT64)
        if domain is not None:
            self.require(e, line, call, domain)
        self.approximate(fn, line, call)
        return TE(PyFloat(), e)

    def _fold_math(self, name: str, values: list[Any], line: int) -> TE:
        try:
            v = getattr(math, name)(*values)
        except (ValueError, OverflowError, ZeroDivisionError) as err:
            shown = ", ".join(repr(x) for x in values)
            raise Reject(line, f"math.{name}({shown}) raises {type(err).__name__} in Python") from None
        return self.const_te(v, line)

    def _to_int(self, name: str, a: TE, line: int) -> TE:
        """math.floor/ceil/trunc: a Python int (an int argument is returned as it is)."""
        if isinstance(a.pt, (PyInt, PyBool)):
            lo, hi = range_of(a.pt)
            pt = PyInt(lo, hi)
            return TE(pt, cast(a.e, ir_dtype(pt)))
        dt = a.e.dtype
        if dt.is_int:
            if dt.bits > 32:
                raise Reject(line, f"math.{name}() of a numpy {dt.name} (Python converts it to float first)")
            return TE(PyInt(dt.min, dt.max), cast(a.e, ir_dtype(PyInt(dt.min, dt.max))))
        e = ir.Math(name, (cast(a.e, FLOAT64),), FLOAT64)
        self.require(e, line, f"math.{name}()", "int64")
        return TE(PyInt(INT64.min, INT64.max), ir.Cast(e, INT64))

    def _hypot(self, xs: list[ir.Expr], line: int) -> TE:
        if not xs:
            return TE(PyFloat(), const(0.0, FLOAT64))
        if len(xs) == 1:
            return TE(PyFloat(), ir.Un("abs", xs[0], FLOAT64))
        if len(xs) > 2:
            raise Reject(line, f"math.hypot() of {len(xs)} values (two are supported)")
        self.approximate("hypot", line, "math.hypot()")
        return TE(PyFloat(), ir.Math("hypot", tuple(xs), FLOAT64))

    # ---------------------------------------------------------------- powers

    def float_power(self, a: TE, b: TE, kind: PyType, line: int) -> TE:
        """a ** b with a float result, as the scalar operator computes it (libm pow)."""
        if isinstance(kind, NP):
            exponent = _constant(b)
            dt = kind.dtype
            if exponent in (0.0, 1.0, 2.0):
                return TE(kind, _small_power(cast(a.e, dt), exponent, dt))
            self.approximate("pow", line, "**")
            return TE(kind, ir.Math("pow", (cast(a.e, dt), cast(b.e, dt)), dt))
        return self.python_power(TE(PyFloat(), cast(a.e, FLOAT64)), b, line, "**")

    def python_power(self, a: TE, b: TE, line: int, call: str) -> TE:
        """Python's float ** (and math.pow): libm pow, raising outside its domain."""
        exponent = _constant(b)
        x = cast(a.e, FLOAT64)
        if exponent is None:
            # libm pow; where Python raises (a zero base to a negative power, a negative base to
            # a fractional one, an overflow) the call goes to the CPU
            e = ir.Math("pow", (x, cast(b.e, FLOAT64)), FLOAT64)
            self.require(e, line, call, "pow")
            self.approximate("pow", line, call)
            return TE(PyFloat(), e)
        if call == "**" and exponent in (0.0, 1.0, 2.0):
            e = _small_power(x, exponent, FLOAT64)
            if exponent == 2.0:  # x * x: within 1 ulp of libm's pow(x, 2), which raises on overflow
                self.require(e, line, "** 2", "pow", 2.0, note_only=True)
            return TE(PyFloat(), e)
        if exponent == 0.5:  # pow(x, 0.5): sqrt(x) within 1 ulp, +0.0 for -0.0
            e = ir.Math("sqrt", (x,), FLOAT64)
            self.require(e, line, f"{call} 0.5", "nonneg")
            return TE(PyFloat(), ir.Bin("add", e, const(0.0, FLOAT64), FLOAT64))
        e = ir.Math("pow", (x, const(exponent, FLOAT64)), FLOAT64)
        self.require(e, line, call, "pow", exponent)
        self.approximate("pow", line, call)
        return TE(PyFloat(), e)

    def array_power(self, a: TE, b: TE, rdt: DType, line: int) -> TE:
        """An element of `array ** b` with a float result: numpy's fast paths for the
        exponents 0.5 (sqrt), -1 (reciprocal), 1 and 2 (square), else its pow loop."""
        x = cast(a.e, rdt)
        exponent = _constant(b)
        if exponent in (0.0, 1.0, 2.0):
            return TE(NP(rdt), _small_power(x, exponent, rdt))
        if exponent == 0.5:
            return TE(NP(rdt), ir.Math("sqrt", (x,), rdt))
        if exponent == -1.0:
            return TE(NP(rdt), ir.Bin("div", const(1.0, rdt), x, rdt))
        self.approximate("pow", line, "**")
        return TE(NP(rdt), ir.Math("pow", (x, cast(b.e, rdt)), rdt))

    # ------------------------------------------------------------- numpy's

    def numpy_math(self, name: str, node: ast.Call) -> TE:
        """np.<name>(...) of scalars: a numpy scalar of the dtype numpy gives."""
        line = node.lineno
        args = self.numpy_math_args(name, node)
        tes = [self.expr(a) for a in args]
        rdt = self.arr.probe(getattr(np, name), tes, f"np.{name}()", line)
        values = [_constant_value(t) for t in tes]
        if all(v is not None for v in values):
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                v = getattr(np, name)(*values)
            return self.const_te(v, line)
        return self.np_math_element(name, tes, rdt, line)

    def numpy_math_args(self, name: str, node: ast.Call) -> list[ast.expr]:
        """The operands of np.<name>(...): np.round(x) and np.round(x, 0) round to an integer."""
        args = list(node.args)
        if name in ("round", "around") and len(args) == 2:
            d = args[1]
            if not (isinstance(d, ast.Constant) and d.value == 0 and not isinstance(d.value, bool)):
                raise Reject(node.lineno, f"np.{name}() to {ast.unparse(d)} decimals (only 0 is supported)")
            args = args[:1]
        if len(args) != NP_ARITY.get(name, 1):
            raise Reject(node.lineno, f"np.{name}() with {len(args)} arguments")
        return args

    def np_math_element(self, name: str, tes: list[TE], rdt: DType, line: int) -> TE:
        """np.<name> of one element of each operand, with numpy's result dtype `rdt`."""
        what = f"np.{name}()"
        x = tes[0]
        if name in NP_PREDICATES:
            if not x.e.dtype.is_float:
                return TE(NP(BOOL), const(name == "isfinite", BOOL))
            return TE(NP(BOOL), _predicate(name, x.e))
        if not rdt.is_float and name in ("floor", "ceil", "trunc", "round", "around", "rint"):
            return TE(NP(rdt), cast(x.e, rdt))  # numpy returns an integer or bool as it is
        if rdt.is_bool:
            raise Reject(line, f"{what} of {describe(x.pt)}")
        xe = cast(x.e, rdt)
        if name == "square":
            return TE(NP(rdt), ir.Bin("mul", xe, xe, rdt))
        if name == "sign":
            return TE(NP(rdt), _sign(xe, rdt))
        if not rdt.is_float:
            if name == "power":
                return self._int_power(tes, rdt, line)
            raise Reject(line, f"{what} of {describe(x.pt)} (integer {name} is not supported)")
        if name == "fabs":
            return TE(NP(rdt), ir.Un("abs", xe, rdt))
        if name == "reciprocal":
            return TE(NP(rdt), ir.Bin("div", const(1.0, rdt), xe, rdt))
        if name in ("deg2rad", "radians", "rad2deg", "degrees"):
            return TE(NP(rdt), ir.Bin("mul", xe, const(_angle_factor(name, rdt), rdt), rdt))
        fn = NP_DIRECT[name]
        if fn == "pow":
            exponent = _constant(tes[1])
            if exponent in (0.0, 1.0, 2.0):  # np.power(x, 2) is numpy's square, 0.5 its sqrt
                return TE(NP(rdt), _small_power(xe, exponent, rdt))
            if exponent == 0.5:
                return TE(NP(rdt), ir.Math("sqrt", (xe,), rdt))
        self.approximate(fn, line, what)
        return TE(NP(rdt), ir.Math(fn, tuple(cast(t.e, rdt) for t in tes), rdt))

    def _int_power(self, tes: list[TE], rdt: DType, line: int) -> TE:
        base = TE(NP(rdt), cast(tes[0].e, rdt))
        r = self.power(base, tes[1], line)
        return TE(NP(rdt), cast(r.e, rdt))


def _predicate(name: str, x: ir.Expr) -> ir.Expr:
    """isnan / isinf / isfinite of a float as comparisons (exact; NaN compares unequal)."""
    dt = x.dtype
    if name == "isnan":
        return ir.Cmp("ne", x, x)
    mag = ir.Un("abs", x, dt)
    return ir.Cmp("eq" if name == "isinf" else "lt", mag, const(math.inf, dt))


def _sign(x: ir.Expr, dt: DType) -> ir.Expr:
    """np.sign: 1, -1, +0 for a zero of either sign, NaN for NaN (numpy's rule)."""
    zero, one = const(0, dt), const(1, dt)
    if dt.kind == "uint":
        return ir.Select(ir.Cmp("gt", x, zero), one, zero, dt)
    rest: ir.Expr = zero
    if dt.is_float:
        rest = ir.Select(ir.Cmp("eq", x, zero), zero, x, dt)
    neg = ir.Select(ir.Cmp("lt", x, zero), const(-1, dt), rest, dt)
    return ir.Select(ir.Cmp("gt", x, zero), one, neg, dt)


def _small_power(x: ir.Expr, exponent: float, dt: DType) -> ir.Expr:
    """x ** 0 (1 even for NaN), x ** 1 and x ** 2 as x * x."""
    if exponent == 0.0:
        return const(1.0, dt)
    if exponent == 1.0:
        return x
    return ir.Bin("mul", x, x, dt)


def _angle_factor(name: str, dt: DType) -> float:
    """numpy's deg2rad multiplies by pi/180, rad2deg by 180/pi, computed in the dtype."""
    t = dt.np.type
    pi, half_turn = t(np.pi), t(180.0)
    return float(pi / half_turn) if name in ("deg2rad", "radians") else float(half_turn / pi)


def _constant(te: TE) -> float | None:
    if isinstance(te.e, ir.Const) and not te.e.dtype.is_bool:
        return float(te.e.value)
    r = range_of(te.pt)
    if r is not None and r[0] == r[1] and isinstance(te.pt, PyInt):
        return float(r[0])
    return None


def _constant_value(te: TE) -> Any:
    """The value of an expression of constants (`-1.0`, `2 * 3`) as Python or numpy has it, or None."""
    if any(isinstance(x, (ir.Var, ir.Load)) for x in ir.walk_expr(te.e)):
        return None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        v = Interpreter(None).eval(te.e)  # the IR's own semantics, which are Python's and numpy's
    if isinstance(te.pt, NP):
        return te.pt.dtype.np.type(v)
    if isinstance(te.pt, PyFloat):
        return float(v)
    if isinstance(te.pt, PyBool):
        return bool(v)
    return int(v)


def domain_violation(kind: str, args: tuple[ir.Expr, ...]) -> ir.Expr | None:
    """The condition on a `math` call's float arguments under which Python raises (the
    complement of domain `kind` of partition.frontend.domains), or None where no simple
    condition says it (pow: the analysis must prove it)."""
    x = args[0]
    dt = x.dtype

    def c(v: float) -> ir.Expr:
        return const(v, dt)

    def lor(a: ir.Expr, b: ir.Expr) -> ir.Expr:
        return ir.Logic("lor", a, b)

    infinite = ir.Cmp("eq", ir.Un("abs", x, dt), c(math.inf))
    if kind == "nonneg":
        return ir.Cmp("lt", x, c(0.0))
    if kind == "positive":
        return ir.Cmp("le", x, c(0.0))
    if kind == "above_minus_one":
        return ir.Cmp("le", x, c(-1.0))
    if kind == "exp":
        return ir.Cmp("gt", x, c(EXP_MAX))
    if kind == "hyperbolic":
        return lor(ir.Cmp("lt", x, c(-HYPERBOLIC_MAX)), ir.Cmp("gt", x, c(HYPERBOLIC_MAX)))
    if kind == "finite":
        return infinite
    if kind == "unit":
        return lor(ir.Cmp("lt", x, c(-1.0)), ir.Cmp("gt", x, c(1.0)))
    if kind == "int64":  # NaN fails both comparisons
        inside = ir.Logic("land", ir.Cmp("ge", x, c(-(2.0**63))), ir.Cmp("lt", x, c(2.0**63)))
        return ir.Un("not", inside, BOOL)
    if kind == "fmod":
        return lor(ir.Cmp("eq", args[1], const(0.0, args[1].dtype)), infinite)
    if kind == "pow" and not isinstance(args[1], ir.Const):
        # Python's float ** raises ZeroDivisionError for 0.0 ** negative, gives a complex number
        # for a negative base to a fractional power and raises OverflowError when a finite base
        # and exponent overflow (an infinite argument gives inf, as libm does)
        y = args[1]
        result = ir.Math("pow", args, dt)

        def finite(v: ir.Expr) -> ir.Expr:
            return ir.Cmp("lt", ir.Un("abs", v, v.dtype), const(math.inf, v.dtype))

        zero_neg = ir.Logic("land", ir.Cmp("eq", x, c(0.0)), ir.Cmp("lt", y, c(0.0)))
        fractional = ir.Logic("land", ir.Cmp("lt", x, c(0.0)), ir.Cmp("ne", ir.Math("floor", (y,), dt), y))
        overflow = ir.Logic(
            "land",
            ir.Logic("land", finite(x), finite(y)),
            ir.Cmp("eq", ir.Un("abs", result, dt), c(math.inf)),
        )
        return lor(lor(zero_neg, fractional), overflow)
    return None
