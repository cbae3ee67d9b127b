"""Kernel IR: the typed loop language between the Python frontend and the backends.

A `Kernel` is what one FPGA task computes. Every expression carries a concrete
dtype (see `partition.dtypes`); Python's width-less ints were already given a
width by the frontend. The semantics below are numpy's, and every backend
(the interpreter in `partition.interp`, the Vitis HLS C++ printer, the RTL
scheduler) implements exactly these:

* Integer arithmetic (add, sub, mul, neg, abs, shl) wraps modulo 2**bits.
* `floordiv` and `mod` round toward minus infinity (Python/numpy, not C).
  Integer division by zero yields 0 for both; MIN // -1 wraps to MIN.
* `shl`/`shr` with a shift amount outside [0, bits) give 0 (shl, and shr of a
  non-negative value) or -1 (shr of a negative value), as numpy does.
* `div` is true division and only exists on floats.
* `min(a, b)` is `b if b < a else a`; `max(a, b)` is `b if b > a else a`
  (Python's builtins: the first operand wins ties and NaN comparisons).
* `Cast` int->int wraps; float->int truncates toward zero, NaN and infinities
  give 0 and finite values beyond the range wrap (numpy leaves this undefined;
  the frontend notes where it can happen); int->float rounds to nearest, once;
  x->bool is `x != 0`.
* Conditions (`If`, `Select`, `Logic` operands) mean `!= 0` when not bool.
* Operands of arithmetic, bitwise and comparison nodes have the node's dtype
  (comparisons: the same dtype as each other); the frontend inserts `Cast`s.
  Shift amounts may have any integer dtype.
* Loads/stores index arrays row-major with non-negative in-bounds indices;
  the frontend already turned Python's negative indices into explicit ones.
* `For` follows Python's `range(start, stop, step)`; `step` is a non-zero
  constant. `trip_max` bounds the iterations for estimation and
  LOOP_TRIPCOUNT: exact for constant bounds, from the profiled values of
  scalar parameters otherwise.
* An `out` array parameter is never loaded before the body stored every
  element (the frontend proves it; otherwise the array is `inout`).
* `Kernel.status`, when set, names a scalar variable (uint8; the body's first
  statement sets it to 0) whose value when the body ends is the kernel's *fallback* register:
  0 means the outputs are exactly Python's; any other value means this call
  left what the kernel was built for (a Python int that needs more than 64
  bits, a loop that ran past the bound the kernel was built with) and must run
  on the CPU instead, its outputs being meaningless. The body sets it with
  ordinary statements (`If(cond, [Assign(status, 1)])`), so every backend
  computes it exactly as the interpreter does.
* `Math(fn, args)` is the C99 function `fn` of `MATH_FUNCS` on operands of the
  node's dtype (float32 or float64; `pow`, `atan2`, `hypot`, `fmod` and
  `copysign` take two), with IEEE 754's total semantics, as numpy computes it:
  an invalid operation gives NaN and an overflow +-inf, never an error (Python's
  `math` module raises there instead; the frontend emits a call of a `math`
  function only where it proves the call does not raise, `partition.frontend.domains`).
  `sqrt`, `floor`, `ceil`, `trunc`, `rint` (half to even), `fmod` and `copysign`
  are exact: IEEE 754 and C99 define one result. Every other function gives the
  exact value rounded to the dtype within a few units in the last place (ulp):
  glibc's libm, which Python's `math` and the g++ C simulation use, states at
  most 1-4 ulp per function; numpy's own loops (np.exp, np.sin ... on float32
  and float64) are within a few ulp of it; Vitis HLS's hls_math is "typically
  1-4 ULP" (UG1399, HLS Math Library Accuracy). Outputs are therefore compared
  with the float tolerance (`FLOAT_TOLERANCE`: relative 1e-5 for float32, about
  84 ulp; 1e-12 for float64, about 4500 ulp; relative to the largest magnitude of
  the array), not bit for bit; a comparison or an
  int conversion of such a result can differ from Python's where the value
  lies within those few ulp of the boundary (the kernel's notes say so).
* A Python argument that is a small record of numbers (a tuple, a namedtuple, a
  dataclass instance: a `StructArg` in `Kernel.structs`) is not one value in the
  kernel: each field it reads is a scalar parameter of its own (`Param.field`
  names it) or a constant compiled in. Inside the body they are ordinary scalars.

The IR is plain dataclasses and round-trips through JSON (`partition.ir_json`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from partition.dtypes import BOOL, DType
from partition.errors import PartitionError

# ---------------------------------------------------------------- expressions

BIN_OPS = ("add", "sub", "mul", "div", "floordiv", "mod", "and", "or", "xor", "shl", "shr", "min", "max")
UN_OPS = ("neg", "invert", "not", "abs")
CMP_OPS = ("lt", "le", "gt", "ge", "eq", "ne")
LOGIC_OPS = ("land", "lor")
# Math functions: name -> number of operands. EXACT_MATH have one IEEE 754 result.
MATH_FUNCS = {
    **dict.fromkeys(
        ("sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos"),
        1,
    ),
    **dict.fromkeys(("atan", "sinh", "cosh", "tanh", "floor", "ceil", "trunc", "rint"), 1),
    **dict.fromkeys(("atan2", "hypot", "pow", "fmod", "copysign"), 2),
}
EXACT_MATH = frozenset(("sqrt", "floor", "ceil", "trunc", "rint", "fmod", "copysign"))


@dataclass(frozen=True)
class Const:
    value: int | float | bool
    dtype: DType


@dataclass(frozen=True)
class Var:
    """A scalar: kernel scalar parameter, local scalar, or loop variable."""

    name: str
    dtype: DType


@dataclass(frozen=True)
class Load:
    array: str
    index: tuple[Expr, ...]
    dtype: DType


@dataclass(frozen=True)
class Bin:
    op: str
    lhs: Expr
    rhs: Expr
    dtype: DType


@dataclass(frozen=True)
class Un:
    op: str
    operand: Expr
    dtype: DType


@dataclass(frozen=True)
class BoolBinary:
    """The fields of a two-operand expression whose value is a bool (`Cmp`, `Logic`)."""

    op: str
    lhs: Expr
    rhs: Expr
    dtype: DType = BOOL


class Cmp(BoolBinary):
    """Comparison of two operands of one dtype."""


class Logic(BoolBinary):
    """Boolean and/or of two bool operands (no short circuit: expressions are pure)."""


@dataclass(frozen=True)
class Cast:
    operand: Expr
    dtype: DType


@dataclass(frozen=True)
class Select:
    cond: Expr
    then: Expr
    orelse: Expr
    dtype: DType


@dataclass(frozen=True)
class Math:
    """A call of the math function `fn` (see `MATH_FUNCS`) on float operands of `dtype`."""

    fn: str
    args: tuple[Expr, ...]
    dtype: DType


Expr = Const | Var | Load | Bin | Un | Cmp | Logic | Cast | Select | Math

# ----------------------------------------------------------------- statements


@dataclass
class Assign:
    var: str
    value: Expr
    line: int = 0


@dataclass
class Store:
    array: str
    index: tuple[Expr, ...]
    value: Expr
    line: int = 0


@dataclass
class For:
    var: str
    start: Expr
    stop: Expr
    step: int
    body: list[Stmt]
    trip_max: int
    line: int = 0
    label: str = ""  # stable loop name for pragmas and reports (L1, L1_1, ...)


@dataclass
class If:
    cond: Expr
    then: list[Stmt]
    orelse: list[Stmt]
    line: int = 0


@dataclass
class Break:
    line: int = 0


@dataclass
class Continue:
    line: int = 0


@dataclass
class Return:
    """Only as the last statement of a kernel body; value is the scalar return."""

    value: Expr | None
    line: int = 0


@dataclass
class Copy:
    """Rows of an array parameter in DDR moved to or from a tile buffer on chip (tiling,
    `partition.estimate.tiling`): direction "in" copies rows `row` .. `row + count - 1` of
    `array` into rows 0 .. count - 1 of the local `buffer` (a `LocalArray` whose `tile_of`
    names `array`), "out" copies them back. Rows are the leading dimension; `count` is never
    negative and the rows lie inside the array (the tiling clamps them). `rows_max` is the rows
    a copy moves on average, what the estimate counts (a tiled loop's `trip_max` is its
    iterations a tile on average); the buffer's rows bound `count`. An array that is tiled
    (`Param.tiled`) is touched by nothing else: it has no whole buffer on chip."""

    buffer: str
    array: str
    row: Expr
    count: Expr
    direction: str
    rows_max: int
    line: int = 0


Stmt = Assign | Store | For | If | Break | Continue | Return | Copy

# --------------------------------------------------------------------- kernel


@dataclass
class Param:
    """A kernel argument.

    kind "array": an m_axi pointer; `shape` is the profiled shape, `direction`
    is in/out/inout. kind "scalar": an s_axilite value, always "in".
    `stream`: the array is an AXI-Stream port instead (an in or out array of a
    kernel in an AXI-Stream chain, see `with_streams`): no pointer register, no
    DDR buffer, its bytes arrive or leave as 64-bit beats.
    `pytype` says how the host converts between Python and the kernel:
    ndarray/list for arrays, int/float/bool/npscalar for scalars.
    `origin` is ("arg", position) for a Python argument, or ("return", k) for
    an output array the Python function creates and returns (k = index in a
    returned tuple, 0 for a single value).
    `field`: for a scalar taken from a record argument (`Kernel.structs` names
    the argument at that position), the name of its field; the argument
    itself is not passed. "list_tuple" arrays are lists of equal-length tuples
    of numbers, passed as a 2-D array (read only: tuples cannot change).
    `dyn`: for an array whose leading length varies between calls, the scalar
    parameter holding that length at run time (its `shape` is the largest the
    kernel takes, and only the first `dyn` rows are loaded, computed and stored;
    with `dyn_offset` k <= 0, max(dyn + k, 0) rows: a returned `np.diff(x)`).
    Such a scalar parameter has pytype "dim" and origin ("dim", position): the
    host sets it from the leading length of the Python argument at that position
    (every array naming it must be that long), not from an argument of its own.
    """

    name: str
    kind: str
    dtype: DType
    shape: tuple[int, ...] = ()
    direction: str = "in"
    pytype: str = "ndarray"
    origin: tuple[str, int] = ("arg", 0)
    stream: bool = False
    field: str | None = None
    dyn: str = ""
    dyn_offset: int = 0
    tiled: bool = False  # moved only by `Copy` statements, a tile at a time: no whole buffer

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.nbytes


@dataclass
class StructArg:
    """A Python argument that is a small record of numbers, taken apart into its fields.

    `kind` is "tuple", "namedtuple" or "dataclass"; `pytype` the class name
    ("tuple" for a plain tuple); `fields` every field name in order (a plain
    tuple's are "0", "1", ...). The host checks that a call passes a record of
    that kind, class and length, reads the fields the kernel uses (by index for
    tuples and namedtuples, by attribute for dataclasses) and puts each into
    the scalar parameter whose `field` names it; `constants` holds the fields
    compiled in as constants ({field: {"value", "pytype", "dtype"}}, as
    `Kernel.specialised` does for whole scalar arguments), which a call must
    pass unchanged.
    """

    kind: str
    pytype: str
    fields: list[str]
    constants: dict[str, dict[str, Any]] = field(default_factory=dict)

    def read(self, value: Any, name: str) -> Any:
        """Field `name` of a Python record `value` of this kind."""
        if self.kind == "dataclass":
            return getattr(value, name)
        return value[self.fields.index(name)]


@dataclass
class LocalArray:
    """A fixed-size on-chip array. `init` is a flat list of constants (a ROM or a
    zero-filled buffer), or None when its contents start undefined (np.empty)."""

    name: str
    dtype: DType
    shape: tuple[int, ...]
    init: list[int | float | bool] | None = None
    tile_of: str = ""  # the tile buffer of this tiled array parameter (laid out as its buffer)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass
class Kernel:
    """One FPGA task. `returns` describes the Python return value in order:
    ("param", name) for an output array, ("scalar", dtype name) for the
    scalar return (at most one; it becomes ap_return at 0x10).

    `py_params` are the Python parameter names; each maps to a `Param` whose
    origin is ("arg", position), or to `specialised` when every profiled call
    passed the same scalar value, which is then compiled in as a constant (the
    host falls back to the CPU when a call passes anything else), or to
    `structs` when it is a record whose fields are scalar parameters (with
    `field` set) or constants."""

    name: str
    params: list[Param]
    scalars: dict[str, DType]
    locals: list[LocalArray]
    body: list[Stmt]
    ret: DType | None = None
    ret_pytype: str = ""
    returns: list[tuple[str, str]] = field(default_factory=list)
    return_tuple: bool = False
    source_file: str = ""
    source_line: int = 0
    notes: list[str] = field(default_factory=list)
    py_params: list[str] = field(default_factory=list)  # the Python function's parameters, in order
    specialised: dict[str, Any] = field(default_factory=dict)  # Python param -> the one value compiled in
    status: str | None = None  # the scalar variable holding the fallback register (see the module doc)
    structs: dict[str, StructArg] = field(default_factory=dict)  # Python param -> its record's fields
    # a method's kernel (partition.frontend.methods): the kernel is that of a plain function whose
    # leading parameters are attributes of self. {"class", "params" (the method's own parameters,
    # self first), "attrs" (the attributes those leading parameters hold), "returns" (items of the
    # method's own result), "return_tuple", "assigned" (attributes set from the kernel's result
    # items after those)}
    method: dict[str, Any] = field(default_factory=dict)
    # run-time length register -> the length profiled calls passed on average: what a typical
    # call's cycles are estimated at (buffers and resources are for the longest, `Param.shape`)
    lengths: dict[str, int] = field(default_factory=dict)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def array_shape(self, name: str) -> tuple[int, ...]:
        for p in self.params:
            if p.name == name:
                return p.shape
        for a in self.locals:
            if a.name == name:
                return a.shape
        raise KeyError(name)

    def array_dtype(self, name: str) -> DType:
        for p in self.params:
            if p.name == name:
                return p.dtype
        for a in self.locals:
            if a.name == name:
                return a.dtype
        raise KeyError(name)

    @property
    def arrays(self) -> list[Param]:
        return [p for p in self.params if p.kind == "array"]

    @property
    def scalar_params(self) -> list[Param]:
        return [p for p in self.params if p.kind == "scalar"]


def with_streams(kernel: Kernel, names: Iterable[str]) -> Kernel:
    """`kernel` with the array parameters `names` as AXI-Stream ports (an AXI-Stream chain).

    Only an array the kernel reads only (direction "in") or writes only ("out")
    can stream: the stream passes once, in order, into or out of its buffer."""
    want = set(names)
    params = []
    for p in kernel.params:
        if p.name in want:
            if p.dyn:
                raise PartitionError(
                    f"kernel {kernel.name}: cannot stream {p.name!r}: its length varies between calls "
                    "(an AXI-Stream chain passes arrays of one length)"
                )
            if p.kind != "array" or p.direction not in ("in", "out"):
                raise PartitionError(
                    f"kernel {kernel.name}: cannot stream {p.name!r}: only an array parameter read only "
                    "(in) or written only (out) can be an AXI-Stream port"
                )
            p = dataclasses.replace(p, stream=True)
            want.discard(p.name)
        params.append(p)
    if want:
        raise PartitionError(f"kernel {kernel.name}: cannot stream {sorted(want)}: no such array parameter")
    return dataclasses.replace(kernel, params=params)


# ------------------------------------------------------------------ traversal


def walk_stmts(body: list[Stmt]) -> Iterator[Stmt]:
    """Every statement, depth first, in program order."""
    for s in body:
        yield s
        if isinstance(s, For):
            yield from walk_stmts(s.body)
        elif isinstance(s, If):
            yield from walk_stmts(s.then)
            yield from walk_stmts(s.orelse)


def stmt_exprs(s: Stmt) -> list[Expr]:
    """The expressions a statement evaluates itself (not those of nested statements)."""
    if isinstance(s, Assign):
        return [s.value]
    if isinstance(s, Store):
        return [*s.index, s.value]
    if isinstance(s, For):
        return [s.start, s.stop]
    if isinstance(s, If):
        return [s.cond]
    if isinstance(s, Return):
        return [s.value] if s.value is not None else []
    if isinstance(s, Copy):
        return [s.row, s.count]
    return []


def walk_expr(e: Expr) -> Iterator[Expr]:
    yield e
    if isinstance(e, Load):
        for i in e.index:
            yield from walk_expr(i)
    elif isinstance(e, (Bin, Cmp, Logic)):
        yield from walk_expr(e.lhs)
        yield from walk_expr(e.rhs)
    elif isinstance(e, (Un, Cast)):
        yield from walk_expr(e.operand)
    elif isinstance(e, Select):
        yield from walk_expr(e.cond)
        yield from walk_expr(e.then)
        yield from walk_expr(e.orelse)
    elif isinstance(e, Math):
        for a in e.args:
            yield from walk_expr(a)


def map_expr(e: Expr, fn: Callable[[Expr], Expr]) -> Expr:
    """`e` rebuilt bottom-up: each node, its operands mapped first, replaced by `fn(node)`."""
    if isinstance(e, Load):
        e = dataclasses.replace(e, index=tuple(map_expr(i, fn) for i in e.index))
    elif isinstance(e, (Bin, Cmp, Logic)):
        e = dataclasses.replace(e, lhs=map_expr(e.lhs, fn), rhs=map_expr(e.rhs, fn))
    elif isinstance(e, (Un, Cast)):
        e = dataclasses.replace(e, operand=map_expr(e.operand, fn))
    elif isinstance(e, Select):
        e = dataclasses.replace(
            e, cond=map_expr(e.cond, fn), then=map_expr(e.then, fn), orelse=map_expr(e.orelse, fn)
        )
    elif isinstance(e, Math):
        e = dataclasses.replace(e, args=tuple(map_expr(a, fn) for a in e.args))
    return fn(e)


def map_stmts(body: list[Stmt], fn: Callable[[Expr], Expr]) -> list[Stmt]:
    """`body` with every expression mapped by `map_expr(., fn)`, nested statements included. A
    store's target is mapped as the load of the element it writes (`fn` renaming an array's
    loads renames its stores alike); the mapped target must still be a load."""
    out: list[Stmt] = []
    for s in body:
        if isinstance(s, Assign):
            s = dataclasses.replace(s, value=map_expr(s.value, fn))
        elif isinstance(s, Store):
            target = map_expr(Load(s.array, s.index, BOOL), fn)
            assert isinstance(target, Load), target
            s = dataclasses.replace(s, array=target.array, index=target.index, value=map_expr(s.value, fn))
        elif isinstance(s, For):
            s = dataclasses.replace(
                s, start=map_expr(s.start, fn), stop=map_expr(s.stop, fn), body=map_stmts(s.body, fn)
            )
        elif isinstance(s, If):
            s = dataclasses.replace(
                s, cond=map_expr(s.cond, fn), then=map_stmts(s.then, fn), orelse=map_stmts(s.orelse, fn)
            )
        elif isinstance(s, Return) and s.value is not None:
            s = dataclasses.replace(s, value=map_expr(s.value, fn))
        elif isinstance(s, Copy):
            s = dataclasses.replace(s, row=map_expr(s.row, fn), count=map_expr(s.count, fn))
        out.append(s)
    return out


def fresh_name(used: set[str], base: str) -> str:
    """`base`, or `base_2`, `base_3`, ...: the first not in `used` (then added to it), for a
    variable, array or loop label an IR rewrite introduces."""
    name, k = base, 2
    while name in used:
        name, k = f"{base}_{k}", k + 1
    used.add(name)
    return name


def dyn_rows(p: Param, length: int) -> int:
    """Rows of array `p` in a call whose run-time length register holds `length`."""
    return max(length + p.dyn_offset, 0) if p.dyn else p.shape[0]
