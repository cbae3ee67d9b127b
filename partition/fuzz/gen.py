"""Random well-typed numeric Python kernels, with inputs, for differential fuzzing.

A case is a small Python module: one kernel function (and sometimes helper functions and
module-level constants it uses) in the styles the frontend accepts — counted and `while`
loops, `if`/`elif`/`else`, `break`/`continue`, element reads and writes with computed and
negative indices, reductions, whole-array numpy, helper calls, tuples, lists — over
numpy int8..uint64 scalars and arrays, Python ints, bools and (for the C-simulation path)
floats, with array sizes that include 1 and odd lengths. Its inputs mix random values over
each dtype's whole range with the extremes (MIN, MAX, 0, -1, 1).

Every expression is typed while it is built: it carries sample values of its Python/numpy
type (for a Python int, the ends of its interval), and an operation is only generated when
numpy itself, applied to the samples, neither raises nor changes type unexpectedly — so the
kernel runs under Python without OverflowError, ZeroDivisionError or IndexError, Python
ints stay far inside 64 bits, and every variable keeps one type. Undefined behaviour in
numpy (float -> int casts out of range) and results that depend on summation order
(numpy's pairwise float sums, BLAS dot products) are not generated: the golden model must
be exact.
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from partition.fuzz.draw import Draw, SeededDraw

INT_DTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOAT_DTS = ("float32", "float64")
PYINT_LIMIT = 1 << 40  # |Python int| the generator lets an expression reach
MAX_DEPTH = 3  # expression nesting
MAX_NEST = 3  # loop nesting
SIZES_1D = (1, 2, 3, 4, 5, 7, 8, 9, 13, 16)
SHAPES_2D = ((1, 1), (1, 4), (3, 1), (2, 3), (3, 3), (3, 4), (4, 4), (2, 5))

_BIN = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
}
_CMP = ("<", "<=", ">", ">=", "==", "!=")
_RAISES = (TypeError, ValueError, OverflowError, ZeroDivisionError, IndexError, DeprecationWarning)


# ------------------------------------------------------------------ typed expressions


@dataclass(frozen=True)
class Ex:
    """An expression's text and sample values of its type.

    Python ints carry their interval (`lo`, `hi`); their samples are the interval's ends
    (and 0 when inside), so probing an operation on the samples finds the OverflowError
    (value outside a numpy dtype), ZeroDivisionError or ValueError (negative shift) that
    some runtime value would raise. Python floats that are not constants may be 0.0.
    """

    text: str
    samples: tuple[Any, ...]
    lo: int = 0
    hi: int = 0
    const: bool = False

    @property
    def s(self) -> Any:
        return self.samples[0]

    @property
    def kind(self) -> str:
        """np (numpy scalar), arr (numpy array), int, float or bool (Python)."""
        v = self.s
        if isinstance(v, np.ndarray):
            return "arr"
        if isinstance(v, np.generic):
            return "np"
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, int):
            return "int"
        return "float"

    @property
    def dt(self) -> str:
        """The numpy dtype name of a numpy scalar or array ("" for Python values)."""
        v = self.s
        if isinstance(v, (np.ndarray, np.generic)):
            return "bool" if v.dtype == np.bool_ else v.dtype.name
        return ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.dt)

    @property
    def is_float(self) -> bool:
        return self.kind == "float" or self.dt in FLOAT_DTS

    @property
    def is_intlike(self) -> bool:
        """Integer or bool, Python or numpy scalar."""
        return self.kind in ("int", "bool") or (self.kind == "np" and not self.is_float)

    @property
    def is_boolean(self) -> bool:
        return self.kind == "bool" or (self.kind == "np" and self.dt == "bool")


def np_sample(dt: str) -> Any:
    return np.dtype(dt).type(1)


def arr_sample(dt: str, shape: tuple[int, ...]) -> np.ndarray:
    return np.ones(shape, dtype=dt)


def pyint(text: str, lo: int, hi: int, const: bool = False) -> Ex:
    samples = tuple(dict.fromkeys([lo, hi] + ([0] if lo <= 0 <= hi else [])))
    return Ex(text, samples, lo, hi, const)


def pyfloat(text: str, const_value: float | None = None) -> Ex:
    if const_value is not None:
        return Ex(text, (float(const_value),), const=True)
    return Ex(text, (1.0, 0.0))


def npval(text: str, dt: str) -> Ex:
    return Ex(text, (np_sample(dt),))


def pybool(text: str) -> Ex:
    return Ex(text, (True, False), 0, 1)


def np_ctor(dt: str) -> str:
    return "np.bool_" if dt == "bool" else f"np.{dt}"


def _quiet(fn: Callable[[], Any]) -> Any:
    """fn() with numpy's warnings off; None when it raises what a bad operation raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(all="ignore"):
            try:
                return fn()
            except _RAISES:
                return None


def _same_type(results: list[Any]) -> bool:
    t0 = results[0]
    for r in results[1:]:
        if type(r) is not type(t0):
            return False
        if isinstance(r, (np.ndarray, np.generic)) and r.dtype != t0.dtype:
            return False
    return True


def _iv_bits(v: int) -> int:
    return (v if v >= 0 else ~v).bit_length()


def int_interval(op: str, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int] | None:
    """Interval of an exact Python int operation (None when not bounded here)."""
    alo, ahi = a
    blo, bhi = b
    corners = [(x, y) for x in (alo, ahi) for y in (blo, bhi)]
    if op in ("+", "-", "*", "min", "max"):
        fn = {"+": operator.add, "-": operator.sub, "*": operator.mul, "min": min, "max": max}[op]
        vals = [fn(x, y) for x, y in corners]
        return (min(vals), max(vals))
    if op == "//":
        if blo <= 0 <= bhi:
            return None
        vals = [x // y for x, y in corners]
        return (min(vals), max(vals))
    if op == "%":
        if blo > 0:
            return (alo, ahi) if alo >= 0 and ahi < blo else (0, bhi - 1)
        if bhi < 0:
            return (blo + 1, 0)
        return None
    if op in ("<<", ">>"):
        if blo < 0:
            return None
        fn = operator.lshift if op == "<<" else operator.rshift
        vals = [fn(x, y) for x, y in corners]
        return (min(vals), max(vals))
    if op in ("&", "|", "^"):
        if alo >= 0 and blo >= 0:
            top = (1 << max(ahi, bhi).bit_length()) - 1
            return (0, min(ahi, bhi)) if op == "&" else (0, top)
        bits = max(_iv_bits(alo), _iv_bits(ahi), _iv_bits(blo), _iv_bits(bhi))
        return (-(1 << bits), (1 << bits) - 1)
    return None


# ------------------------------------------------------------------ kernel parts


@dataclass
class Arr:
    """An array the kernel can read (and write, when `writable`)."""

    name: str
    dt: str  # numpy dtype name; for lists the element type below decides
    shape: tuple[int, ...]
    kind: str = "ndarray"  # ndarray | list | rom
    writable: bool = False
    elem: Ex | None = None  # lists: what reading an element gives
    lo: int = 0  # input value range (Python int lists)
    hi: int = 0

    @property
    def is_list(self) -> bool:
        return self.kind == "list"

    def sample(self) -> np.ndarray:
        return arr_sample(self.dt, self.shape)


@dataclass
class Param:
    name: str
    what: str  # array | list | npscalar | int | float | bool
    dt: str = ""
    shape: tuple[int, ...] = ()
    lo: int = 0
    hi: int = 0
    flo: float = 0.0
    fhi: float = 0.0
    mode: str = "full"  # input values: full (whole dtype range), small, bits (0..7)


@dataclass
class Var:
    """A local scalar: its type stays `ex`'s for the whole function."""

    name: str
    ex: Ex
    mode: str = "np"  # np | pyint_mod | pyint_count | pyfloat | bool
    modulus: int = 0


@dataclass
class Loop:
    var: str
    lo: int
    hi: int  # interval of the loop variable
    trips: int
    is_while: bool = False
    elem: Ex | None = None  # `for v in a:`: v is an element, not an index


@dataclass
class Case:
    """One generated kernel: the module text, the function's name and its calls."""

    seed: int
    name: str
    source: str
    calls: list[tuple[Any, ...]]
    floats: bool
    helpers: list[str] = field(default_factory=list)
    features: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ the generator


class Gen:
    def __init__(self, draw: Draw, name: str, floats: bool):
        self.d = draw
        self.name = name
        self.floats = floats
        self.lines: list[str] = []
        self.ind = 1
        self.arrays: dict[str, Arr] = {}
        self.vars: dict[str, Var] = {}
        self.params: list[Param] = []
        self.scalars: dict[str, Ex] = {}  # scalar parameters
        self.loops: list[Loop] = []
        self.globals_src: list[str] = []
        self.helpers_src: list[str] = []
        self.helper_names: list[str] = []
        self.features: set[str] = set()
        self.counter = 0
        self.n_counts = 0
        self.work = 0  # rough count of loop iterations, to keep kernels small
        self.cond_depth = 0  # inside if/elif/else: a helper called there might never run
        self.early_return = False

    # ------------------------------------------------------------ plumbing

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"{base}{self.counter}"

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.ind + text)

    @contextmanager
    def block(self) -> Iterator[None]:
        self.ind += 1
        mark = len(self.lines)
        try:
            yield
        finally:
            if len(self.lines) == mark:
                self.emit("pass")
            self.ind -= 1

    def int_dt(self) -> str:
        return self.d.weighted([(t, 3 if t in ("int8", "int16", "int32", "uint8") else 2) for t in INT_DTS])

    def any_dt(self) -> str:
        if self.floats and self.d.chance(0.4):
            return self.d.choice(FLOAT_DTS)
        if self.d.chance(0.06):
            return "bool"
        return self.int_dt()

    @property
    def trips(self) -> int:
        n = 1
        for lp in self.loops:
            n *= max(1, lp.trips)
        return n

    # ------------------------------------------------------------ parameters

    def make_params(self) -> None:
        n_arr = self.d.weighted([(1, 3), (2, 4), (3, 3), (4, 1)])
        for _ in range(n_arr):
            name = self.fresh(self.d.choice(("x", "a", "b", "w", "data", "v")))
            if self.d.chance(0.12):
                self.add_list_param(name)
                continue
            dt = self.any_dt()
            shape = (self.d.choice(SIZES_1D),) if self.d.chance(0.7) else self.d.choice(SHAPES_2D)
            mode = self.d.weighted([("full", 6), ("small", 3), ("bits", 1)])
            self.params.append(Param(name, "array", dt, shape, mode=mode))
            self.arrays[name] = Arr(name, dt, shape, writable=self.d.chance(0.3))
        for _ in range(self.d.weighted([(0, 2), (1, 4), (2, 3), (3, 1)])):
            self.add_scalar_param()

    def add_list_param(self, name: str) -> None:
        shape = (self.d.choice(SIZES_1D),) if self.d.chance(0.8) else self.d.choice(SHAPES_2D)
        if self.floats and self.d.chance(0.3):
            self.params.append(Param(name, "list", "float64", shape, flo=-100.0, fhi=100.0))
            self.arrays[name] = Arr(name, "float64", shape, "list", elem=pyfloat("_"))
            return
        if self.d.chance(0.1):
            self.params.append(Param(name, "list", "bool", shape))
            self.arrays[name] = Arr(name, "bool", shape, "list", elem=pybool("_"))
            return
        lo, hi = self.d.choice(((-100, 100), (0, 255), (-30000, 30000), (-(10**9), 10**9), (0, 15)))
        self.params.append(Param(name, "list", "int64", shape, lo=lo, hi=hi))
        self.arrays[name] = Arr(name, "int64", shape, "list", writable=self.d.chance(0.3),
                                elem=pyint("_", lo, hi), lo=lo, hi=hi)  # fmt: skip

    def add_scalar_param(self) -> None:
        what = self.d.weighted([("npscalar", 4), ("int", 4), ("float", 2 if self.floats else 0), ("bool", 1)])
        name = self.fresh(self.d.choice(("s", "k", "n", "t", "c")))
        if what == "npscalar":
            dt = self.any_dt()
            self.params.append(Param(name, what, dt, mode=self.d.choice(("full", "small", "bits"))))
            self.scalars[name] = npval(name, dt)
        elif what == "int":
            lo, hi = self.d.choice(((0, 16), (-8, 8), (0, 7), (-1000, 1000), (1, 5), (0, 1 << 20)))
            self.params.append(Param(name, what, lo=lo, hi=hi))
            self.scalars[name] = pyint(name, lo, hi)
        elif what == "float":
            self.params.append(Param(name, what, flo=-4.0, fhi=4.0))
            self.scalars[name] = pyfloat(name)
        else:
            self.params.append(Param(name, what))
            self.scalars[name] = pybool(name)

    # ------------------------------------------------------------ leaves

    def const(self, like: Ex | None = None) -> Ex:
        """A constant; shaped to combine with `like` when given."""
        d = self.d
        if like is not None and like.dt in INT_DTS and d.chance(0.5):
            info = np.iinfo(like.dt)
            v = d.choice((0, 1, 2, 3, 7, int(info.max), int(info.min), -1, -3, 5, 100, -128, 255))
            if info.min <= v <= info.max:
                return pyint(str(v) if v >= 0 else f"({v})", v, v, True)
        r = d.int(0, 9)
        if r < 5:
            v = d.choice((0, 1, 2, 3, 5, 7, 9, 15, 16, 31, 100, 127, -1, -2, -3, -7, -8, -100))
            return pyint(str(v) if v >= 0 else f"({v})", v, v, True)
        if r < 7 and not (self.floats and d.chance(0.3)):
            dt = self.int_dt()
            info = np.iinfo(dt)
            v = d.choice((0, 1, 3, -1, -5, int(info.max), int(info.min), 42))
            v = v if info.min <= v <= info.max else 7
            return npval(f"{np_ctor(dt)}({v})", dt)
        if r < 8 and self.floats:
            v = d.choice((0.5, -1.25, 3.0, 0.1, -2.0, 1e3, 1e-3))
            if d.chance(0.3):
                dt = d.choice(FLOAT_DTS)
                return npval(f"{np_ctor(dt)}({v!r})", dt)
            return pyfloat(repr(v) if v >= 0 else f"({v!r})", v)
        if r < 9:
            b = d.chance(0.5)
            if d.chance(0.3):
                return Ex(f"np.bool_({b})", (np.bool_(b),))
            return Ex(str(b), (b,), int(b), int(b), True)
        return pyint("4", 4, 4, True)

    def index(self, n: int, dim_text: str) -> Ex:
        """An in-bounds index (possibly negative, as Python allows) of a dimension of size n."""
        d = self.d
        loops = [lp for lp in self.loops if lp.elem is None and lp.hi - lp.lo < 4 * n + 64]
        opts: list[tuple[str, int]] = [("const", 2), ("mod", 2)]
        fits = [lp for lp in loops if lp.lo >= 0 and lp.hi <= n - 1]
        if fits:
            opts += [("var", 10), ("rev", 3), ("neg", 1), ("clamp", 1)]
        if loops:
            opts += [("shift", 2)]
        data = self.data_int()
        if data is not None:
            opts += [("data", 1), ("dataneg", 1 if data.dt.startswith("int") else 0)]
        how = d.weighted(opts)
        if how == "const":
            v = d.int(-n, n - 1)
            return pyint(str(v) if v >= 0 else f"({v})", v, v, True)
        if how == "var":
            lp = d.choice(fits)
            return pyint(lp.var, lp.lo, lp.hi)
        if how == "rev":
            lp = d.choice(fits)
            return pyint(f"{dim_text} - 1 - {lp.var}", n - 1 - lp.hi, n - 1 - lp.lo)
        if how == "neg":
            lp = d.choice(fits)
            return pyint(f"-1 - {lp.var}", -1 - lp.hi, -1 - lp.lo)
        if how == "clamp":
            lp = d.choice(fits)
            return pyint(f"max({lp.var} - 1, 0)", max(lp.lo - 1, 0), max(lp.hi - 1, 0))
        if how == "mod" and loops:
            lp = d.choice(loops)
            return pyint(f"{lp.var} % {dim_text}", 0, n - 1)
        if how == "shift":
            lp = d.choice(loops)
            c = d.int(0, 3)
            return pyint(f"({lp.var} + {c}) % {dim_text}", 0, n - 1)
        if how in ("data", "dataneg"):
            assert data is not None
            e = f"{data.text} % {n}" if how == "data" else f"{data.text} % {n} - {n}"
            return Ex(f"({e})", (np_sample(data.dt),))
        return pyint(f"{dim_text} // 2", n // 2, n // 2)

    def data_int(self) -> Ex | None:
        """An integer element of an input array (for data-dependent indices)."""
        cands = [
            a for a in self.arrays.values() if a.kind == "ndarray" and a.dt in INT_DTS and not a.writable
        ]
        if not cands:
            return None
        a = self.d.choice(cands)
        return self.load(a, allow_data=False)

    def dim_text(self, a: Arr, k: int) -> str:
        """How the kernel spells the size of a's dimension k."""
        n = str(a.shape[k])
        if a.kind == "rom":
            return n
        if a.is_list:
            return f"len({a.name})" if k == 0 else self.d.choice((n, f"len({a.name}[0])"))
        if k == 0:
            return self.d.choice((n, f"{a.name}.shape[0]", f"len({a.name})"))
        return self.d.choice((n, f"{a.name}.shape[{k}]"))

    def load(self, a: Arr, allow_data: bool = True) -> Ex:
        saved = None
        if not allow_data:
            saved, self.arrays = self.arrays, {}
        try:
            idx = [self.index(n, self.dim_text(a, k)) for k, n in enumerate(a.shape)]
        finally:
            if saved is not None:
                self.arrays = saved
        if len(idx) == 1:
            text = f"{a.name}[{idx[0].text}]"
        elif a.is_list or self.d.chance(0.3):
            text = f"{a.name}[{idx[0].text}][{idx[1].text}]"
        else:
            text = f"{a.name}[{idx[0].text}, {idx[1].text}]"
        if a.is_list:
            assert a.elem is not None
            return Ex(text, a.elem.samples, a.elem.lo, a.elem.hi)
        return npval(text, a.dt)

    def leaf(self) -> Ex:
        d = self.d
        opts: list[tuple[str, int]] = [("const", 3)]
        if self.arrays:
            opts.append(("load", 8))
        if self.scalars:
            opts.append(("param", 3))
        if self.vars:
            opts.append(("var", 3))
        if self.loops:
            opts.append(("loop", 3))
        how = d.weighted(opts)
        if how == "load":
            return self.load(d.choice(list(self.arrays.values())))
        if how == "param":
            name = d.choice(list(self.scalars))
            return self.scalars[name]
        if how == "var":
            v = self.vars[d.choice(list(self.vars))]
            return v.ex
        if how == "loop":
            lp = d.choice(self.loops)
            if lp.elem is not None:
                return lp.elem
            return pyint(lp.var, lp.lo, lp.hi)
        return self.const()

    # ------------------------------------------------------------ operations

    def binop(self, op: str, a: Ex, b: Ex) -> Ex | None:
        """`a op b` when every sample combination works and gives one type."""
        fn = _BIN[op]
        results = [_quiet(lambda x=x, y=y: fn(x, y)) for x in a.samples for y in b.samples]
        if any(r is None for r in results) or not _same_type(results):
            return None
        r = results[0]
        text = f"({a.text} {op} {b.text})"
        if isinstance(r, (np.generic, np.ndarray)):  # first: np.float64 is a float too
            return Ex(text, (r,))
        if isinstance(r, bool):
            return Ex(text, (r, not r), 0, 1)
        if isinstance(r, int):
            iv = int_interval(op, (a.lo, a.hi), (b.lo, b.hi))
            if iv is None or max(abs(iv[0]), abs(iv[1])) > PYINT_LIMIT:
                return None
            return pyint(text, *iv)
        if isinstance(r, float):
            if op in ("/", "//", "%") and b.kind == "float" and not b.const:
                return None
            return pyfloat(text)
        return None

    def cmp(self, op: str, a: Ex, b: Ex) -> Ex | None:
        signed = {a.dt, b.dt} & {"int8", "int16", "int32", "int64"} or min(a.lo, b.lo) < 0
        pyint_var = (a.kind == "int" and not a.const) or (b.kind == "int" and not b.const)
        if "uint64" in (a.dt, b.dt) and (signed or pyint_var):
            return None  # numpy compares these through float64
        fn = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
              "==": operator.eq, "!=": operator.ne}[op]  # fmt: skip
        r = _quiet(lambda: fn(a.s, b.s))
        if r is None:
            return None
        text = f"({a.text} {op} {b.text})"
        if isinstance(r, np.ndarray):
            return Ex(text, (r,))
        if isinstance(r, np.generic):
            return Ex(text, (np.bool_(True),))
        return pybool(text)

    def unop(self, op: str, a: Ex) -> Ex | None:
        if op == "abs":
            fn, text = abs, f"abs({a.text})"
        elif op == "-":
            fn, text = operator.neg, f"(-{a.text})"
        else:
            if a.kind == "bool":
                return None  # ~True is deprecated
            fn, text = operator.invert, f"(~{a.text})"
        results = [_quiet(lambda x=x: fn(x)) for x in a.samples]
        if any(r is None for r in results) or not _same_type(results):
            return None
        r = results[0]
        if isinstance(r, (np.generic, np.ndarray)):
            return Ex(text, (r,))
        if isinstance(r, bool):
            return pybool(text)
        if isinstance(r, int):
            vals = [fn(a.lo), fn(a.hi)]
            lo, hi = min(vals), max(vals)
            if op == "abs" and a.lo < 0 < a.hi:
                lo = 0
            return pyint(text, lo, hi)
        if isinstance(r, float):
            return pyfloat(text)
        return Ex(text, (r,))

    def cast(self, a: Ex, to: str) -> Ex | None:
        """np.<dt>(a), int(a), float(a) or bool(a), where numpy defines the result."""
        if to in ("py_int", "py_float", "py_bool"):
            if to == "py_int":
                if a.is_float:
                    return None
                if a.kind == "np" and a.dt in INT_DTS:
                    info = np.iinfo(a.dt)
                    if info.bits > 32:
                        return None
                    return pyint(f"int({a.text})", int(info.min), int(info.max))
                return pyint(f"int({a.text})", a.lo, a.hi)
            if to == "py_float":
                return pyfloat(f"float({a.text})")
            return pybool(f"bool({a.text})")
        if a.is_float and to not in FLOAT_DTS:
            return None
        if a.kind == "arr":
            return None
        if a.kind in ("int", "bool") and to in INT_DTS:
            info = np.iinfo(to)
            if not (info.min <= a.lo and a.hi <= info.max):
                return None
        return npval(f"{np_ctor(to)}({a.text})", to)

    def expr(self, depth: int = 0, want: str = "") -> Ex:
        """A scalar expression; `want` = "int" keeps floats out, "bool" asks for a condition."""
        if not self.floats and not want:
            want = "int"
        for _ in range(12):
            e = self._expr(depth, want)
            if e is None:
                continue
            if want == "int" and e.is_float:
                continue
            if want == "bool" and not e.is_boolean:
                continue
            return e
        if want == "bool":
            return pybool("True")
        return self.const()

    def _expr(self, depth: int, want: str) -> Ex | None:
        d = self.d
        if want == "bool":
            return self.condition(depth)
        if depth >= MAX_DEPTH or d.chance(0.25 + 0.2 * depth):
            e = self.leaf()
            return None if want == "int" and e.is_float else e
        r = d.weighted([("arith", 8), ("div", 3), ("bits", 3), ("shift", 3), ("un", 2), ("minmax", 2),
                        ("ternary", 2), ("cast", 3), ("pow", 1), ("cmp", 1),
                        ("helper", 1 if len(self.helper_names) < 2 and not self.cond_depth else 0)])  # fmt: skip
        if r == "cmp":
            a, b = self.expr(depth + 1, want), self.operand(depth + 1, want)
            return self.cmp(d.choice(_CMP), a, b)
        if r == "arith":
            a, b = self.expr(depth + 1, want), self.operand(depth + 1, want)
            return self.binop(d.choice(("+", "-", "*", "+", "-")), a, b)
        if r == "div":
            a = self.expr(depth + 1, want)
            b = self.divisor(depth + 1, want)
            op = d.choice(("//", "%", "/")) if self.floats else d.choice(("//", "%"))
            return self.binop(op, a, b)
        if r == "bits":
            a, b = self.expr(depth + 1, "int"), self.operand(depth + 1, "int")
            return self.binop(d.choice(("&", "|", "^")), a, b)
        if r == "shift":
            a = self.expr(depth + 1, "int")
            return self.binop(d.choice(("<<", ">>")), a, self.shift_amount(a))
        if r == "un":
            return self.unop(d.choice(("-", "~", "abs")), self.expr(depth + 1, want))
        if r == "minmax":
            a, b = self.expr(depth + 1, want), self.operand(depth + 1, want)
            return self.minmax(d.choice(("min", "max")), a, b)
        if r == "ternary":
            c = self.condition(depth + 1)
            a = self.expr(depth + 1, want)
            b = self.like(a, depth + 1)
            if b is None:
                return None
            if a.kind == "int":
                return pyint(f"({a.text} if {c.text} else {b.text})", min(a.lo, b.lo), max(a.hi, b.hi))
            return Ex(f"({a.text} if {c.text} else {b.text})", a.samples)
        if r == "cast":
            a = self.expr(depth + 1, want)
            to = d.choice(
                (*INT_DTS, "py_int", "py_bool", "bool", *(("py_float", *FLOAT_DTS) if self.floats else ()))
            )
            return self.cast(a, to)
        if r == "pow":
            a = self.expr(depth + 1, want)
            if a.is_boolean:
                return None
            e = 2 if a.is_float else d.choice((2, 3))
            if a.kind == "int":
                vals = [a.lo**e, a.hi**e] + ([0] if a.lo <= 0 <= a.hi else [])
                if max(abs(v) for v in vals) > PYINT_LIMIT:
                    return None
                return pyint(f"({a.text} ** {e})", min(vals), max(vals))
            r2 = _quiet(lambda: a.s**e)
            return None if r2 is None else Ex(f"({a.text} ** {e})", (r2,))
        return self.helper_call(depth + 1, want)

    def operand(self, depth: int, want: str) -> Ex:
        return self.leaf() if self.d.chance(0.5) else self.expr(depth, want)

    def like(self, a: Ex, depth: int) -> Ex | None:
        """An expression of exactly a's type (Python ints: any interval)."""
        for _ in range(8):
            b = self.expr(depth, "int" if not a.is_float else "")
            if b.key == a.key:
                return b
        if a.kind == "np":
            return self.cast(self.expr(depth, "int" if a.dt not in FLOAT_DTS else ""), a.dt)
        return None

    def minmax(self, fn: str, a: Ex, b: Ex) -> Ex | None:
        if a.key != b.key:
            b2 = self.cast(b, a.dt) if a.kind == "np" else None
            if b2 is None or b2.key != a.key:
                return None
            b = b2
        text = f"{fn}({a.text}, {b.text})"
        if a.kind == "int":
            iv = int_interval(fn, (a.lo, a.hi), (b.lo, b.hi))
            assert iv is not None
            return pyint(text, *iv)
        if a.kind == "bool":
            return pybool(text)
        return Ex(text, a.samples)

    def divisor(self, depth: int, want: str) -> Ex:
        d = self.d
        if d.chance(0.4):
            v = d.choice((1, 2, 3, 4, 7, 8, 16, -1, -2, -3, -7, 10))
            return pyint(str(v) if v > 0 else f"({v})", v, v, True)
        return self.operand(depth, want)

    def shift_amount(self, a: Ex) -> Ex:
        d = self.d
        bits = np.dtype(a.dt).itemsize * 8 if a.dt in INT_DTS else 8
        r = d.int(0, 4)
        if r <= 1:
            v = d.choice((0, 1, 2, 3, 4, 5, 7, bits - 1, bits, bits + 1))
            return pyint(str(v), v, v, True)
        if r == 2 and a.kind == "np":
            dt = self.int_dt()
            v = d.choice((0, 1, 3, bits - 1, bits, 70, -1))
            info = np.iinfo(dt)
            v = v if info.min <= v <= info.max else 1
            return npval(f"{np_ctor(dt)}({v})", dt)
        if r == 3:
            lps = [lp for lp in self.loops if lp.elem is None and lp.lo >= 0 and lp.hi <= 16]
            if lps:
                lp = d.choice(lps)
                return pyint(lp.var, lp.lo, lp.hi)
        data = self.data_int()
        if data is not None and a.kind == "np":
            return Ex(f"({data.text} & 7)", (np_sample(data.dt),))
        return pyint("1", 1, 1, True)

    def condition(self, depth: int) -> Ex:
        d = self.d
        r = d.int(0, 9)
        if r < 6 or depth >= MAX_DEPTH:
            a = self.expr(min(depth + 1, MAX_DEPTH), "")
            b = self.operand(min(depth + 1, MAX_DEPTH), "" if a.is_float else "int")
            c = self.cmp(d.choice(_CMP), a, b)
            return c if c is not None else pybool("True")
        if r < 8:
            a, b = self.condition(depth + 1), self.condition(depth + 1)
            op = d.choice(("and", "or"))
            if a.key == b.key:  # `and`/`or` give one of their operands: keep one type
                return Ex(f"({a.text} {op} {b.text})", a.samples, 0, 1)
            return pybool(f"(bool({a.text}) {op} bool({b.text}))")
        if r < 9:
            return pybool(f"(not {self.condition(depth + 1).text})")
        bools = [e for e in [*self.scalars.values(), *(v.ex for v in self.vars.values())] if e.is_boolean]
        if bools:
            return d.choice(bools)
        return pybool("True")

    # ------------------------------------------------------------ helpers

    def helper_call(self, depth: int, want: str) -> Ex | None:
        """A call of a new helper function over two scalar arguments (inlined by the frontend)."""
        a = self.expr(depth, want)
        b = self.operand(depth, want)
        name = self.fresh("helper")
        params = ("p", "q")
        saved = (self.arrays, self.vars, self.scalars, self.loops)
        self.arrays, self.vars, self.loops = {}, {}, []
        pa = a if a.kind != "int" else pyint("p", a.lo, a.hi)
        pb = b if b.kind != "int" else pyint("q", b.lo, b.hi)
        self.scalars = {"p": Ex("p", pa.samples, pa.lo, pa.hi), "q": Ex("q", pb.samples, pb.lo, pb.hi)}
        self.helper_names.append(name)
        try:
            body = self.expr(1, want)
            cond = self.condition(2)
            other = self.like(body, 2)
        finally:
            self.arrays, self.vars, self.scalars, self.loops = saved
        if other is None or body.kind == "int":
            src = [f"def {name}({params[0]}, {params[1]}):", f"    return {body.text}"]
            result = body
        else:
            src = [
                f"def {name}({params[0]}, {params[1]}):",
                f"    r = {body.text}",
                f"    if {cond.text}:",
                f"        r = {other.text}",
                "    return r",
            ]
            result = body
        self.helpers_src.append("\n".join(src))
        self.features.add("helper")
        call = f"{name}({a.text}, {b.text})"
        if result.kind == "int":
            return pyint(call, result.lo, result.hi)
        return Ex(call, result.samples, result.lo, result.hi)

    def stmt_tuple_helper(self) -> None:
        """`q, r = helper(a, b)` with a helper returning a tuple, then a statement using q and r."""
        d = self.d
        a = self.expr(1)
        b = self.operand(1, "")
        name = self.fresh("pair")
        shapes = [("//", "%"), ("min", "max"), ("+", "-")]
        ops = d.choice(shapes)
        pa = Ex("p", a.samples, a.lo, a.hi)
        pb = Ex("q", b.samples, b.lo, b.hi)
        outs = []
        for op in ops:
            e = self.minmax(op, pa, pb) if op in ("min", "max") else self.binop(op, pa, pb)
            if e is None:
                return
            outs.append(e)
        self.helpers_src.append(
            "\n".join([f"def {name}(p, q):", f"    return {outs[0].text}, {outs[1].text}"])
        )
        self.helper_names.append(name)
        q, r = self.fresh("q"), self.fresh("r")
        self.emit(f"{q}, {r} = {name}({a.text}, {b.text})")
        self.features.update(("helper", "tuple-unpack"))
        for v, e in ((q, outs[0]), (r, outs[1])):
            self.vars[v] = Var(v, Ex(v, e.samples, e.lo, e.hi), "pyint_ro")
        try:
            self.stmt_store() if d.chance(0.5) else self.stmt_assign()
        finally:
            del self.vars[q], self.vars[r]

    def stmt_inplace_helper(self) -> None:
        """`helper(arr, c)` where the helper updates a 1-D array in place (an in/out argument)."""
        d = self.d
        cands = [a for a in self.arrays.values() if a.writable and a.kind == "ndarray" and len(a.shape) == 1]
        if not cands:
            return
        arr = d.choice(cands)
        c = self.operand(1, "")
        name = self.fresh("update")
        saved = (self.arrays, self.vars, self.scalars, self.loops)
        v = Arr("v", arr.dt, arr.shape, writable=True)
        self.arrays, self.vars = {"v": v}, {}
        self.scalars = {"c": Ex("c", c.samples, c.lo, c.hi)}
        self.loops = [Loop("k", 0, arr.shape[0] - 1, arr.shape[0])]
        try:
            value = None
            for _ in range(6):
                value = self.store_value(v, self.expr(1, "int" if arr.dt in INT_DTS else ""))
                if value is not None:
                    break
        finally:
            self.arrays, self.vars, self.scalars, self.loops = saved
        if value is None:
            return
        self.helpers_src.append(
            "\n".join([f"def {name}(v, c):", "    for k in range(len(v)):", f"        v[k] = {value.text}"])
        )
        self.helper_names.append(name)
        self.emit(f"{name}({arr.name}, {c.text})")
        self.features.update(("helper", "inplace-helper"))

    def maybe_early_return(self) -> None:
        """`if cond: return <what the function returns>` (filled in at the end)."""
        if self.early_return or not self.d.chance(0.15):
            return
        c = self.condition(0)
        self.emit(f"if {c.text}:")
        with self.branch():
            self.emit("return @RETURN@")
        self.early_return = True
        self.features.add("early-return")

    # ------------------------------------------------------------ statements

    def declare_vars(self) -> None:
        d = self.d
        for _ in range(d.int(1, 3)):
            kind = d.weighted([("np", 6), ("pyint_mod", 2), ("pyint_count", 1), ("bool", 1),
                               ("pyfloat", 2 if self.floats else 0)])  # fmt: skip
            if kind == "np":
                dt = self.any_dt() if self.d.chance(0.8) else self.int_dt()
                name = self.fresh("acc")
                init = d.choice(("0", "1", "-1")) if dt != "bool" else "False"
                if dt.startswith("uint") and init == "-1":
                    init = "0"
                if d.chance(0.2):  # a = b = value
                    other = self.fresh("acc")
                    self.emit(f"{name} = {other} = {np_ctor(dt)}({init})")
                    self.vars[other] = Var(other, npval(other, dt))
                    self.features.add("chained assignment")
                else:
                    self.emit(f"{name} = {np_ctor(dt)}({init})")
                self.vars[name] = Var(name, npval(name, dt))
            elif kind == "pyint_mod":
                name = self.fresh("h")
                m = d.choice((7, 251, 1000, 65521, 1 << 20))
                self.emit(f"{name} = {d.int(0, min(m - 1, 5))}")
                self.vars[name] = Var(name, pyint(name, 0, m - 1), "pyint_mod", m)
            elif kind == "pyint_count":
                name = self.fresh("cnt")
                self.emit(f"{name} = 0")
                self.vars[name] = Var(name, pyint(name, 0, 1 << 17), "pyint_count")
            elif kind == "bool":
                name = self.fresh("flag")
                self.emit(f"{name} = False")
                self.vars[name] = Var(name, pybool(name), "bool")
            else:
                name = self.fresh("f")
                self.emit(f"{name} = 0.0")
                self.vars[name] = Var(name, pyfloat(name), "pyfloat")

    def declare_out(self) -> Arr | None:
        d = self.d
        if d.chance(0.15):
            return None
        if d.chance(0.15):
            # a Python list output
            n = d.choice(SIZES_1D)
            name = self.fresh("res")
            self.emit(f"{name} = [0] * {n}")
            lo, hi = -(1 << 31), (1 << 31) - 1
            a = Arr(name, "int64", (n,), "list", writable=True, elem=pyint("_", lo, hi), lo=lo, hi=hi)
            self.arrays[name] = a
            self.features.add("list-out")
            return a
        dt = self.any_dt()
        shape = (d.choice(SIZES_1D),) if d.chance(0.75) else d.choice(SHAPES_2D)
        name = self.fresh(d.choice(("out", "y", "r")))
        shape_text = str(shape[0]) if len(shape) == 1 else str(shape)
        maker = d.weighted([("zeros", 5), ("full", 2), ("ones", 1), ("empty", 2 if len(shape) == 1 else 0)])
        if maker == "empty":
            # contents undefined until written: every element is written first
            self.emit(f"{name} = np.empty({shape_text}, dtype={np_ctor(dt)})")
            a = Arr(name, dt, shape, writable=True)
            i = self.fresh("i")
            self.emit(f"for {i} in range({shape[0]}):")
            self.loops.append(Loop(i, 0, shape[0] - 1, shape[0]))
            try:
                with self.block():
                    for _ in range(6):
                        v = self.store_value(a, self.expr(1, "int" if dt in INT_DTS else ""))
                        if v is not None:
                            self.emit(f"{name}[{i}] = {v.text}")
                            break
                    else:
                        self.emit(f"{name}[{i}] = {'True' if dt == 'bool' else '0'}")
            finally:
                self.loops.pop()
            self.arrays[name] = a
            self.features.add("np.empty")
            return a
        if maker == "full":
            v = self.const().text if dt not in INT_DTS else str(d.choice((1, 3, 7)))
            if dt == "bool":
                v = "True"
            self.emit(f"{name} = np.full({shape_text}, {v}, dtype={np_ctor(dt)})")
        else:
            self.emit(f"{name} = np.{maker}({shape_text}, dtype={np_ctor(dt)})")
        a = Arr(name, dt, shape, writable=True)
        self.arrays[name] = a
        return a

    def store_value(self, a: Arr, e: Ex) -> Ex | None:
        """e as a value storable in a's elements (None when numpy would raise or be undefined).

        A list keeps one element type: Python ints (an output list within 32 bits), floats
        or bools; numpy values are converted with int()/float()/bool() first.
        """
        if a.is_list:
            assert a.elem is not None
            want = a.elem.kind
            if e.kind != want:
                conv = self.cast(e, f"py_{want}")
                if conv is None or conv.kind != want:
                    return None
                e = conv
            if want == "int" and (e.lo < a.lo or e.hi > a.hi):
                return None
            return e
        if a.dt in INT_DTS:
            if e.is_float:
                return None
            if e.kind in ("int", "bool"):
                info = np.iinfo(a.dt)
                return e if info.min <= e.lo and e.hi <= info.max else None
            if e.dt != "bool" and not np.can_cast(e.dt, a.dt, "safe"):
                # numpy raises OverflowError storing a value outside the array's dtype
                return self.cast(e, a.dt)
            return e
        return e

    def stmt_store(self) -> None:
        cands = [a for a in self.arrays.values() if a.writable]
        if not cands:
            self.stmt_assign()
            return
        a = self.d.choice(cands)
        target = self.load(a)
        aug = self.d.chance(0.35) and not a.is_list
        for _ in range(6):
            e = self.expr(0, "int" if a.dt in INT_DTS else "")
            if aug:
                op = self.d.choice(("+", "-", "*", "^", "|", "&") if a.dt in INT_DTS else ("+", "-", "*"))
                r = self.binop(op, npval(target.text, a.dt), e)
                if r is None or r.key != ("np", a.dt):
                    continue  # the result is stored back: numpy raises when it does not fit
                self.emit(f"{target.text} {op}= {e.text}")
                return
            v = self.store_value(a, e)
            if v is None:
                continue
            self.emit(f"{target.text} = {v.text}")
            return

    def assign_to(self, v: Var, e: Ex) -> str | None:
        """Text of `v = e` keeping v's type, or None."""
        if v.mode == "np":
            if e.key == v.ex.key:
                return f"{v.name} = {e.text}"
            c = self.cast(e, v.ex.dt)
            return None if c is None else f"{v.name} = {c.text}"
        if v.mode == "pyint_mod":
            if e.kind not in ("int", "bool"):
                e2 = self.cast(e, "py_int")
                if e2 is None:
                    return None
                e = e2
            r = self.binop("+", pyint(v.name, v.ex.lo, v.ex.hi), e)
            if r is None:
                return None
            return f"{v.name} = {r.text} % {v.modulus}"
        if v.mode == "pyint_count":
            return f"{v.name} += 1" if self.n_counts < 8 else None
        if v.mode == "bool":
            if e.kind == "bool":
                return f"{v.name} = {e.text}"
            return f"{v.name} = bool({e.text})"
        if v.mode == "pyfloat":
            if e.kind == "float":
                return f"{v.name} = {e.text}"
            if e.kind in ("int", "bool") or (e.kind == "np" and e.dt != "bool"):
                return f"{v.name} = float({e.text})"
        return None

    def stmt_assign(self) -> None:
        if not self.vars:
            self.stmt_store()
            return
        names = [n for n, v in self.vars.items() if v.mode != "pyint_ro"]
        if not names:
            return
        v = self.vars[self.d.choice(names)]
        for _ in range(6):
            if v.mode == "bool":
                e = self.condition(0)
                if e.kind != "bool":
                    e = pybool(f"bool({e.text})")
            else:
                e = self.expr(0, "int" if not (v.ex.is_float) else "")
            if v.mode == "np" and self.d.chance(0.5) and v.ex.dt != "bool":
                # accumulate: v = v op e
                op = self.d.choice(("+", "-", "^", "+", "*") if v.ex.dt in INT_DTS else ("+", "-", "*"))
                r = self.binop(op, v.ex, e)
                if r is None:
                    continue
                if r.key == v.ex.key and self.d.chance(0.5):
                    self.emit(f"{v.name} {op}= {e.text}")
                    return
                e = r
            text = self.assign_to(v, e)
            if text is not None:
                if v.mode == "pyint_count":
                    self.n_counts += 1
                self.emit(text)
                return
        self.emit(f"{v.name} = {v.name}")

    @contextmanager
    def branch(self) -> Iterator[None]:
        self.cond_depth += 1
        try:
            with self.block():
                yield
        finally:
            self.cond_depth -= 1

    def stmt_if(self, depth: int) -> None:
        c = self.condition(0)
        self.emit(f"if {c.text}:")
        with self.branch():
            self.stmts(depth + 1, self.d.int(1, 2))
        k = self.d.weighted([(0, 3), (1, 2), (2, 1)])
        for _ in range(k if self.d.chance(0.5) else 0):
            c = self.condition(0)
            self.emit(f"elif {c.text}:")
            with self.branch():
                self.stmts(depth + 1, self.d.int(1, 2))
        if self.d.chance(0.5):
            self.emit("else:")
            with self.branch():
                self.stmts(depth + 1, self.d.int(1, 2))

    def loop_header(self) -> Loop | None:
        """`for v in range(...)` over something the arrays give; None when there is nothing to loop over."""
        d = self.d
        arrs = list(self.arrays.values())
        if not arrs:
            return None
        a = d.choice(arrs)
        k = d.int(0, len(a.shape) - 1)
        n = a.shape[k]
        dim = self.dim_text(a, k)
        var = self.fresh(d.choice(("i", "j", "k", "m")))
        pints = [(nm, e) for nm, e in self.scalars.items() if e.kind == "int" and e.lo >= 0 and e.hi <= n]
        form = d.weighted([("n", 6), ("start", 2), ("rev", 2), ("step", 2), ("param", 3 if pints else 0)])
        if form == "n":
            hdr, lo, hi, trips = f"range({dim})", 0, n - 1, n
        elif form == "start":
            s = d.int(0, min(2, n))
            hdr, lo, hi, trips = f"range({s}, {dim})", s, n - 1, max(0, n - s)
        elif form == "rev":
            hdr, lo, hi, trips = f"range({dim} - 1, -1, -1)", 0, n - 1, n
        elif form == "step":
            st = d.choice((2, 3))
            s = d.int(0, 1)
            hdr, lo, hi, trips = f"range({s}, {dim}, {st})", s, n - 1, max(0, -(-(n - s) // st))
        else:
            pname, pe = d.choice(pints)
            hdr, lo, hi, trips = f"range({pname})", 0, max(0, pe.hi - 1), pe.hi
        if hi < lo:
            lo = hi = 0
        self.emit(f"for {var} in {hdr}:")
        return Loop(var, lo, hi, trips)

    def elements_header(self) -> Loop | None:
        """`for v in a:` over a 1-D array or list."""
        cands = [a for a in self.arrays.values() if len(a.shape) == 1 and a.kind != "rom"]
        if not cands:
            return None
        a = self.d.choice(cands)
        var = self.fresh("e")
        self.emit(f"for {var} in {a.name}:")
        elem = a.elem if a.is_list and a.elem is not None else npval(var, a.dt)
        self.features.add("for v in array")
        return Loop(var, 0, 0, a.shape[0], elem=Ex(var, elem.samples, elem.lo, elem.hi))

    def stmt_for(self, depth: int) -> None:
        lp = self.elements_header() if self.d.chance(0.15) else None
        lp = lp or self.loop_header()
        if lp is None:
            self.stmt_assign()
            return
        self.loops.append(lp)
        self.work += self.trips
        try:
            with self.block():
                n = self.d.int(1, 3)
                exit_at = self.d.int(0, n) if self.d.chance(0.25) else -1
                for k in range(n):
                    if k == exit_at:
                        self.loop_exit()
                    self.stmt(depth + 1)
                if exit_at == n:
                    self.loop_exit()
                if depth == 0 and not self.cond_depth:
                    self.maybe_early_return()
        finally:
            self.loops.pop()

    def loop_exit(self) -> None:
        c = self.condition(0)
        kw = self.d.choice(("break", "continue")) if not self.loops[-1].is_while else "break"
        self.features.add(kw)
        self.emit(f"if {c.text}:")
        with self.branch():
            if self.d.chance(0.3):
                self.stmt_assign()
            self.emit(kw)

    def stmt_while(self, depth: int) -> None:
        d = self.d
        arrs = list(self.arrays.values())
        if not arrs:
            self.stmt_assign()
            return
        a = d.choice(arrs)
        n = a.shape[0]
        w = self.fresh("w")
        step = d.choice((1, 1, 2))
        self.emit(f"{w} = 0")
        self.emit(f"while {w} < {self.dim_text(a, 0)}:")
        lp = Loop(w, 0, n - 1, -(-n // step), is_while=True)
        self.features.add("while")
        self.loops.append(lp)
        self.work += self.trips
        try:
            with self.block():
                for _ in range(d.int(1, 2)):
                    self.stmt(depth + 1)
                if d.chance(0.2):
                    self.loop_exit()
                self.emit(f"{w} += {step}")
        finally:
            self.loops.pop()

    def stmt_marked_while(self) -> None:
        """A data-dependent `while` with a max-iterations mark the loop provably respects."""
        d = self.d
        name = self.fresh("u")
        src = self.expr(1, "int")
        if src.kind != "np" or src.dt not in INT_DTS:
            return
        bits = np.iinfo(src.dt).bits
        self.emit(
            f"{name} = abs(int({src.text}))" if bits <= 32 else f"{name} = abs(int({src.text} % 1000000))"
        )
        n = self.fresh("z")
        self.emit(f"{n} = 0")
        self.emit(f"while {name} > 0:  # partition: max-iterations {bits + 2}")
        with self.block():
            self.emit(f"{name} = {name} // {d.choice((2, 3, 4))}")
            self.emit(f"{n} += 1")
        self.vars[n] = Var(n, pyint(n, 0, bits + 2), "pyint_ro")
        self.features.add("while-marked")

    def stmt(self, depth: int) -> None:
        d = self.d
        nest = sum(1 for _ in self.loops)
        opts = [("store", 6), ("assign", 5), ("if", 3 if depth < 4 else 0)]
        if nest < MAX_NEST and self.work < 1500:
            opts += [("for", 3), ("while", 1)]
        if not self.cond_depth and len(self.helper_names) < 2:
            opts += [("divmod", 1), ("inplace_helper", 1)]
        what = d.weighted(opts)
        if what == "divmod":
            self.stmt_tuple_helper()
        elif what == "inplace_helper":
            self.stmt_inplace_helper()
        elif what == "store":
            self.stmt_store()
        elif what == "assign":
            self.stmt_assign()
        elif what == "if":
            self.stmt_if(depth)
        elif what == "for":
            self.stmt_for(depth)
        else:
            self.stmt_while(depth)

    def stmts(self, depth: int, n: int) -> None:
        for _ in range(n):
            self.stmt(depth)

    # ------------------------------------------------------------ whole-array numpy

    def array_operand(self, shape: tuple[int, ...]) -> Ex | None:
        """An array of exactly `shape` (a whole array or a slice of a longer 1-D one), or a scalar."""
        d = self.d
        cands = [a for a in self.arrays.values() if not a.is_list and a.kind != "rom"]
        same = [a for a in cands if a.shape == shape]
        longer = [a for a in cands if len(shape) == 1 and len(a.shape) == 1 and a.shape[0] > shape[0]]
        r = d.int(0, 9)
        if r < 6 and same:
            a = d.choice(same)
            return Ex(a.name, (a.sample(),))
        if r < 8 and longer:
            a = d.choice(longer)
            n, m = a.shape[0], shape[0]
            if d.chance(0.5):
                s = d.int(0, n - m)
                text = f"{a.name}[{s}:{s + m}]"
            else:
                st = d.choice((2, 3))
                if (n - 1) // st + 1 < m:
                    text = f"{a.name}[{n - m}:]"
                else:
                    s = d.int(0, n - 1 - (m - 1) * st)
                    text = f"{a.name}[{s}:{s + (m - 1) * st + 1}:{st}]"
            return Ex(text, (arr_sample(a.dt, shape),))
        e = self.expr(2, "int" if not self.floats else "")
        if e.kind == "int" and not e.const:
            return None
        return e

    def array_expr(self, shape: tuple[int, ...], depth: int = 0) -> Ex | None:
        d = self.d
        if depth >= 2 or d.chance(0.3):
            e = self.array_operand(shape)
            return e if e is not None and e.kind == "arr" else None
        r = d.weighted(
            [("bin", 6), ("where", 2), ("minmax", 2), ("abs", 1), ("clip", 1), ("astype", 1), ("neg", 1)]
        )
        a = self.array_expr(shape, depth + 1)
        if a is None:
            return None
        if r == "bin":
            b = self.array_operand(shape) if d.chance(0.6) else self.array_expr(shape, depth + 1)
            if b is None:
                return None
            op = d.choice(("+", "-", "*", "//", "%", "&", "|", "^", ">>", "+", "-"))
            if op == ">>" and b.kind != "arr":
                b = pyint(str(d.int(0, 9)), 0, 9, True)
            res = self.binop(op, a, b)
            return res if res is not None and res.kind == "arr" and res.s.shape == shape else None
        if r == "where":
            b = self.array_operand(shape)
            c = self.array_operand(shape)
            if b is None or c is None:
                return None
            cond = self.cmp(d.choice(_CMP), a, b)
            if cond is None or cond.kind != "arr":
                return None
            v = _quiet(lambda: np.where(cond.s, a.s, c.s))
            return None if v is None else Ex(f"np.where({cond.text}, {a.text}, {c.text})", (v,))
        if r == "minmax":
            b = self.array_operand(shape)
            if b is None:
                return None
            fn = d.choice(("minimum", "maximum"))
            v = _quiet(lambda: getattr(np, fn)(a.s, b.s))
            return None if v is None else Ex(f"np.{fn}({a.text}, {b.text})", (v,))
        if r == "abs":
            v = _quiet(lambda: np.abs(a.s))
            return None if v is None else Ex(f"np.abs({a.text})", (v,))
        if r == "clip":
            if a.dt not in INT_DTS:
                return None
            info = np.iinfo(a.dt)
            lo = d.choice((0, -5, 1, -100))
            hi = d.choice((10, 100, 7, 255))
            if not (info.min <= lo <= hi <= info.max):
                return None
            return Ex(f"np.clip({a.text}, {lo}, {hi})", a.samples)
        if r == "astype":
            to = self.int_dt() if not a.is_float else d.choice(FLOAT_DTS)
            return Ex(f"{a.text}.astype({np_ctor(to)})", (arr_sample(to, shape),))
        v = _quiet(lambda: -a.s)
        return None if v is None else Ex(f"(-{a.text})", (v,))

    def stmt_numpy(self) -> None:
        """One whole-array statement: a new array, an in-place update or a reduction."""
        d = self.d
        cands = [a for a in self.arrays.values() if not a.is_list and a.kind != "rom"]
        if not cands:
            return
        base = d.choice(cands)
        shape = base.shape
        r = d.weighted([("new", 4), ("inplace", 3), ("reduce", 3), ("dot", 2)])
        if r == "new":
            for _ in range(4):
                e = self.array_expr(shape)
                if e is not None and not e.text.isidentifier():
                    break  # (`t = x` makes an alias, which the frontend asks to avoid)
            else:
                return
            name = self.fresh("t")
            self.emit(f"{name} = {e.text}")
            dt = e.dt
            self.arrays[name] = Arr(name, dt, shape, writable=False)
            return
        if r == "inplace":
            targets = [a for a in cands if a.writable and len(a.shape) == 1 and a.shape[0] >= 2]
            if not targets:
                return
            t = d.choice(targets)
            n = t.shape[0]
            s = d.int(0, n - 2)
            m = d.int(1, n - s)
            e = self.array_operand((m,)) if d.chance(0.6) else self.array_expr((m,))
            if e is None:
                return
            op = d.choice(("+", "-", "*") if t.dt in FLOAT_DTS else ("+", "-", "*", "&", "|", "^"))

            def probe() -> Any:
                buf = arr_sample(t.dt, (m,))
                fn = {"+": operator.iadd, "-": operator.isub, "*": operator.imul,
                      "&": operator.iand, "|": operator.ior, "^": operator.ixor}[op]  # fmt: skip
                for smp in e.samples:
                    fn(buf, smp)
                return buf

            if _quiet(probe) is None:
                return
            if e.kind == "int" and not (
                np.iinfo(t.dt).min <= e.lo and e.hi <= np.iinfo(t.dt).max if t.dt in INT_DTS else True
            ):
                return
            self.emit(f"{t.name}[{s}:{s + m}] {op}= {e.text}")
            return
        if r == "reduce":
            ints = [
                v
                for v in self.vars.values()
                if v.mode == "np" and v.ex.dt in ("int32", "int64", "uint64", "uint32")
            ]
            if not ints:
                return
            v = d.choice(ints)
            e = self.array_expr(shape)
            if e is None:
                return
            if e.is_float:
                return  # numpy sums floats pairwise; the kernel adds in order
            fn = d.choice(
                ("np.sum({})", "{}.max()", "{}.min()", "np.argmax({})", "np.max({})", "np.argmin({})")
            )
            red = fn.format(e.text)
            if e.dt == "bool" and "arg" not in fn:
                return
            val = _quiet(lambda: eval(fn.format("x"), {"np": np, "x": e.s}))
            if val is None:
                return
            rv = Ex(red, (val,))
            res = self.binop("+", v.ex, rv)
            if res is None:
                return
            text = self.assign_to(v, res)
            if text:
                self.emit(text)
            return
        # dot products of integer vectors (exact), or a small integer matrix product
        ints = [a for a in cands if a.dt in INT_DTS and len(a.shape) == 1]
        targets = [v for v in self.vars.values() if v.mode == "np" and v.ex.dt in INT_DTS]
        mats = [a for a in cands if a.dt in INT_DTS and len(a.shape) == 2]
        r2 = d.int(0, 2)
        if r2 == 0 and ints and targets:
            # integer dot product (exact: numpy wraps in the operands' type) of equal lengths
            a = d.choice(ints)
            b = self.array_operand(a.shape)
            if b is None or b.kind != "arr" or b.dt not in INT_DTS:
                return
            prod = d.choice((f"np.dot({a.name}, {b.text})", f"({a.name} @ {b.text})"))
            val = _quiet(lambda: np.dot(a.sample(), b.s))
            if val is None:
                return
            v = d.choice(targets)
            res = self.binop("+", v.ex, Ex(prod, (val,)))
            text = None if res is None else self.assign_to(v, res)
            if text:
                self.emit(text)
                self.features.add("dot")
            return
        pairs = [(a, b) for a in mats for b in mats + ints if a.shape[1] == b.shape[0]]
        pairs += [(a, b) for a in ints for b in mats if a.shape[0] == b.shape[0]]
        if pairs:
            a, b = d.choice(pairs)
            val = _quiet(lambda: a.sample() @ b.sample())
            if val is None:
                return
            name = self.fresh("mm")
            self.emit(f"{name} = " + d.choice((f"{a.name} @ {b.name}", f"np.dot({a.name}, {b.name})")))
            self.arrays[name] = Arr(name, val.dtype.name, val.shape)
            self.features.add("matmul")

    # ------------------------------------------------------------ the function

    def rom(self) -> None:
        """A module-level constant table (a ROM in the kernel)."""
        d = self.d
        name = f"TAB{self.fresh('_')}".upper()
        dt = self.int_dt()
        n = d.choice((3, 4, 5, 8))
        info = np.iinfo(dt)
        vals = [int(np.clip(d.int(-300, 300), info.min, info.max)) for _ in range(n)]
        self.globals_src.append(f"{name} = np.array({vals}, dtype={np_ctor(dt)})")
        self.arrays[name] = Arr(name, dt, (n,), "rom")
        self.features.add("rom")

    def returns(self, out: Arr | None) -> None:
        d = self.d
        items: list[str] = []
        if out is not None:
            items.append(out.name)
        scal = [v for v in self.vars.values() if v.mode != "pyint_ro"]
        if scal and (out is None or d.chance(0.6)):
            items.append(d.choice(scal).name)
        extra = [a for a in self.arrays.values() if a.kind == "ndarray" and a.name.startswith(("t", "mm"))]
        if extra and d.chance(0.3):
            items.append(d.choice(extra).name)
        if not items:
            if any(a.writable for a in self.arrays.values()):
                self.lines = [ln.replace("return @RETURN@", "return") for ln in self.lines]
                return  # the kernel works in place
            items.append(self.expr(0).text)
        if len(items) > 1:
            self.features.add("tuple")
        text = f"return {', '.join(items)}"
        self.emit(text)
        early = text
        if any(x in self.arrays for x in items):
            early = "pass"  # the frontend returns an array from one place only
            self.features.discard("early-return")
        self.lines = [ln.replace("return @RETURN@", early) for ln in self.lines]

    def function(self) -> str:
        d = self.d
        self.make_params()
        if d.chance(0.2):
            self.rom()
        self.declare_vars()
        out = self.declare_out()
        for _ in range(d.int(1, 3)):
            for _attempt in range(5):  # some choices find nothing to do: try another
                mark = len(self.lines)
                r = d.weighted([("loop", 8), ("numpy", 6), ("while", 1), ("marked", 1), ("straight", 2)])
                if r == "loop":
                    self.stmt_for(0)
                elif r == "numpy":
                    self.stmt_numpy()
                    if len(self.lines) > mark:
                        self.features.add("numpy")
                elif r == "while":
                    self.stmt_while(0)
                elif r == "marked":
                    self.stmt_marked_while()
                else:
                    self.stmts(0, 2)
                if len(self.lines) > mark:
                    break
        self.returns(out)
        args = ", ".join(p.name for p in self.params)
        head = [f"def {self.name}({args}):"]
        return "\n".join(head + self.lines)

    # ------------------------------------------------------------ inputs

    def values(self, p: Param, rng: np.random.Generator, style: str) -> Any:
        if p.what in ("array", "list") and p.dt in INT_DTS:
            info = np.iinfo(p.dt)
            lo, hi = (int(info.min), int(info.max)) if p.what == "array" else (p.lo, p.hi)
            if p.what == "array" and p.mode == "small":
                lo, hi = max(lo, -20), min(hi, 20)
            elif p.what == "array" and p.mode == "bits":
                lo, hi = 0, 7
            n = math.prod(p.shape)
            if style == "extremes":
                cyc = [v for v in (lo, hi, 0, -1, 1, lo + 1, hi - 1) if lo <= v <= hi]
                flat = [cyc[i % len(cyc)] for i in range(n)]
                rng.shuffle(flat)
            elif style == "small":
                flat = [int(x) for x in rng.integers(max(lo, -9), min(hi, 9), size=n, endpoint=True)]
            else:
                big = np.uint64 if hi > np.iinfo(np.int64).max else np.int64
                flat = [int(x) for x in rng.integers(lo, hi, size=n, endpoint=True, dtype=big)]
            arr = np.array(flat, dtype=p.dt if p.what == "array" else np.int64).reshape(p.shape)
            return arr if p.what == "array" else arr.tolist()
        if p.what in ("array", "list") and p.dt in FLOAT_DTS:
            n = math.prod(p.shape)
            if style == "extremes":
                vals = np.resize(np.array([0.0, -0.0, 1.5, -2.25, 1e6, -1e6, 3.0]), n)
            elif style == "small":
                vals = rng.integers(-9, 9, size=n).astype(np.float64) / 2
            else:
                vals = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, size=n)
            arr = vals.astype(p.dt).reshape(p.shape)
            return arr if p.what == "array" else arr.astype(np.float64).tolist()
        if p.what in ("array", "list"):  # bool
            n = math.prod(p.shape)
            arr = (rng.integers(0, 2, size=n) == 1).reshape(p.shape)
            return arr if p.what == "array" else arr.tolist()
        if p.what == "npscalar":
            if p.dt in FLOAT_DTS:
                return np.dtype(p.dt).type(rng.normal() * 4)
            if p.dt == "bool":
                return np.bool_(rng.integers(0, 2) == 1)
            info = np.iinfo(p.dt)
            lo, hi = int(info.min), int(info.max)
            if p.mode == "small" or style == "small":
                lo, hi = max(lo, -9), min(hi, 9)
            if p.mode == "bits":
                lo, hi = 0, 7
            if style == "extremes":
                return np.dtype(p.dt).type([lo, hi, 0, 1][int(rng.integers(0, 4))])
            big = np.uint64 if hi > np.iinfo(np.int64).max else np.int64
            return np.dtype(p.dt).type(int(rng.integers(lo, hi, endpoint=True, dtype=big)))
        if p.what == "int":
            if style == "extremes":
                return [p.lo, p.hi][int(rng.integers(0, 2))]
            return int(rng.integers(p.lo, p.hi, endpoint=True))
        if p.what == "float":
            return float(rng.uniform(p.flo, p.fhi))
        return bool(rng.integers(0, 2) == 1)

    def calls(self, seed: int, n: int) -> list[tuple[Any, ...]]:
        rng = np.random.default_rng(seed)
        styles = ["full", "extremes", "small", "full", "extremes", "full"]
        return [tuple(self.values(p, rng, styles[k % len(styles)]) for p in self.params) for k in range(n)]


def generate(seed: int, *, float_fraction: float = 0.25, draw: Draw | None = None, calls: int = 4) -> Case:
    """The case of `seed` (a pure function of it, or of `draw` when given)."""
    d = draw or SeededDraw(seed)
    floats = d.chance(float_fraction)
    name = f"fz{seed}"
    g = Gen(d, name, floats)
    fn = g.function()
    parts = [f'"""Generated by partition.fuzz (seed {seed})."""', "", "import numpy as np", ""]
    if g.globals_src:
        parts += [*g.globals_src, ""]
    for h in g.helpers_src:
        parts += ["", h, ""]
    parts += ["", fn, ""]
    source = "\n".join(parts)
    return Case(seed, name, source, g.calls(seed, calls), floats, list(g.helper_names), sorted(g.features))


_SOURCE_FEATURES = {
    "floor division //": r"\s//\s",
    "modulo %": r"\s%\s",
    "shift << / >>": r"\s(<<|>>)\s",
    "bitwise and / or / xor / invert": r"\s[&|^]\s|\(~",
    "min() / max()": r"\b(min|max)\(",
    "abs()": r"\babs\(",
    "x if c else y": r"\sif\s.*\selse\s",
    "** power": r"\*\*",
    "numpy scalar cast np.<type>(...)": r"np\.(u?int\d+|float\d+|bool_)\(",
    "int() / float() / bool()": r"\b(int|float|bool)\(",
    "negative index": r"\[\(-\d|\[-1 - ",
    "data-dependent index": r"\[\([^\]]*\[[^\]]*\] %",
    "np.where": r"np\.where\(",
    "np.clip": r"np\.clip\(",
    "np.minimum / np.maximum": r"np\.(minimum|maximum)\(",
    "np.abs": r"np\.abs\(",
    "reduction (sum/max/min/argmax/argmin)": r"np\.(sum|max|argmax|argmin)\(|\.(max|min)\(\)",
    "slice with a step": r"\[\d*:\d*:\d+\]",
    "slice update a[i:j] op= ...": r"\[\d+:\d+\] [-+*&|^]= ",
    "astype": r"\.astype\(",
    "np.dot / @ (1-D)": r"np\.dot\(|\s@\s",
    "np.zeros / np.ones / np.full / np.empty": r"np\.(zeros|ones|full|empty)\(",
    "range with a step or downward": r"range\([^)]*,[^)]*,",
    "nested loops": r"\n(\s{8,})for .*\n",
    "elif": r"\belif\b",
}


def describe(case: Case) -> list[str]:
    """The constructs a case uses: the generator's tags, what its source spells, its input types."""
    import re

    out = set(case.features)
    for name, pattern in _SOURCE_FEATURES.items():
        if re.search(pattern, case.source):
            out.add(name)
    for v in case.calls[0] if case.calls else ():
        if isinstance(v, np.ndarray):
            out.add(f"array {v.dtype.name}")
            out.add(f"{v.ndim}-D array")
            if v.size == 1:
                out.add("array of size 1")
            elif v.shape[-1] % 2 == 1:
                out.add("odd array length")
        elif isinstance(v, np.generic):
            out.add(f"numpy scalar {v.dtype.name}")
        elif isinstance(v, list):
            out.add("list argument")
        elif isinstance(v, bool):
            out.add("Python bool argument")
        elif isinstance(v, int):
            out.add("Python int argument")
        elif isinstance(v, float):
            out.add("Python float argument")
    if case.floats:
        out.add("floats allowed")
    return sorted(out)
