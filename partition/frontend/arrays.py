"""Whole-array numpy code lowered to element loops.

numpy evaluates `y = np.maximum(W @ x + b, 0)` on whole arrays; a kernel
computes it one element at a time. This module gives the frontend an array
value, `AV`: a static shape, an element dtype, and a function from index
expressions to the IR of one element. Names, slices, elementwise operators and
the supported numpy functions build AVs without emitting code; statements
materialise them through one loop-nest emitter (`loop_nest`), reductions
become loops with an accumulator whose value the expression then reads.

Semantics are numpy 2's (NEP 50):

* Result dtypes and broadcast shapes are numpy's own. Every operation is first
  applied by numpy to one-element arrays of the operand dtypes (and to the
  actual values of constant Python scalars, so numpy's OverflowError for
  `int8_array + 300` rejects the expression as numpy would fail it); the
  element expression, built with the frontend's scalar rules, must produce
  the same dtype. Shapes broadcast with `np.broadcast_shapes`.
* np.minimum/np.maximum/np.clip propagate NaN, unlike Python's min/max.
  np.max/np.min of floats propagate NaN; argmax/argmin return the first
  extreme index, or the first NaN.
* np.sum accumulates in the dtype numpy picks (int8/16/32 -> int64, unsigned ->
  uint64, bool -> int64, or `dtype=`), in index order. Integer sums wrap, so
  any order gives numpy's result; numpy adds floats pairwise, so float sums
  (and means) may differ in the last bits: they are compared within the float
  tolerance, and the kernel notes say so. np.dot/@ accumulate in the result
  dtype in index order: exact for integers (wrapping), BLAS order for floats
  (again within tolerance).
* astype and stores into an array cast as numpy does (int->int wraps,
  float->int truncates; numpy leaves NaN and out-of-range values undefined,
  the kernel notes it). In-place operators follow numpy's `same_kind` rule
  (numpy's own check decides, so `int_array += 0.5` is rejected as numpy
  raises).
* Slices are views: `v = x[1:]` binds `v` to x's elements (writes through `v`
  change x); `return x[1:]` of an argument is rejected, since numpy returns a
  view sharing the argument's memory. A name assigned a computed array gets an
  on-chip array of its own (one per name, dtype and shape).
* Overlap: numpy evaluates a right-hand side whole before assigning (and
  in-place ufuncs behave as if their inputs were copied). An assignment whose
  right-hand side reads the target array at any element other than the one
  being written (`a[1:] = a[:-1]`, `a[:] = a[::-1] + a[0]`) first computes the
  right-hand side into a temporary array; reading the same element is safe.
* A name bound to an array inside a loop or a branch must keep naming the same
  array it named before (or be new there): otherwise the code after the loop
  or the next iteration would see either array, depending on the path.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from partition import ir
from partition.dtypes import BOOL, DTYPES, INT64, DType, dtype, narrowest_signed
from partition.frontend.model import TE, ArrayInfo, Reject, VarState, cast, const
from partition.frontend.returns import VALUE as RET_VALUE
from partition.frontend.syntax import (
    ARRAY_MAKERS,
    BINOPS,
    CMP_TEXT,
    CMPS,
    ELEMENTWISE_FUNCS,
    METHOD_REDUCTIONS,
    NUMPY_SCALAR_TYPES,
    OP_TEXT,
    PY_CMPS,
    PY_IOPS,
    PY_OPS,
    PY_UN,
    REDUCTIONS,
    SCALAR_ALIASES,
    SUPPORTED_TEXT,
    text,
)
from partition.frontend.types import NP, PyFloat, PyInt, describe, fits, ir_dtype, range_of
from partition.names import c_name

if TYPE_CHECKING:
    from partition.frontend.lower import Lowerer


# ---------------------------------------------------------------- indices


@dataclass(frozen=True)
class Ix:
    """An index expression and the interval of values it takes (in bounds by construction)."""

    e: ir.Expr
    lo: int
    hi: int


def ix_const(k: int) -> Ix:
    return Ix(const(k, narrowest_signed(k, k) or INT64), k, k)


def affine(ix: Ix, start: int, step: int) -> Ix:
    """start + step * ix, folded, in the narrowest type holding every intermediate value."""
    if start == 0 and step == 1:
        return ix
    lo, hi = sorted((start + step * ix.lo, start + step * ix.hi))
    if ix.lo == ix.hi:
        return ix_const(lo)
    plo, phi = sorted((step * ix.lo, step * ix.hi))
    dt = narrowest_signed(min(ix.lo, plo, lo, start), max(ix.hi, phi, hi, start)) or INT64
    e = cast(ix.e, dt)
    if step == -1:
        e = ir.Bin("sub", const(start, dt), e, dt)
    else:
        if step != 1:
            e = ir.Bin("mul", e, const(step, dt), dt)
        if start != 0:
            e = ir.Bin("add", e, const(start, dt), dt)
    return Ix(e, lo, hi)


@dataclass(frozen=True)
class Comp:
    """How one source dimension is indexed: by result dimension `dim` as
    start + step * i, or (dim == -1) by the fixed index `fixed`."""

    dim: int = -1
    start: int = 0
    step: int = 1
    fixed: Ix | None = None


def map_index(comps: tuple[Comp, ...], idx: tuple[Ix, ...]) -> tuple[Ix, ...]:
    out = []
    for c in comps:
        if c.fixed is not None:
            out.append(c.fixed)
        else:
            out.append(affine(idx[c.dim], c.start, c.step))
    return tuple(out)


def compose(outer: tuple[Comp, ...], inner: tuple[Comp, ...]) -> tuple[Comp, ...]:
    """`outer` indexes a base by a view's dimensions, `inner` the view by new ones."""
    out = []
    for c in outer:
        if c.fixed is not None:
            out.append(c)
            continue
        i = inner[c.dim]
        if i.fixed is not None:
            out.append(Comp(fixed=affine(i.fixed, c.start, c.step)))
        else:
            out.append(Comp(i.dim, c.start + c.step * i.start, c.step * i.step))
    return tuple(out)


def identity(rank: int) -> tuple[Comp, ...]:
    return tuple(Comp(d) for d in range(rank))


def bcast(idx: tuple[Ix, ...], shape: tuple[int, ...], out: tuple[int, ...]) -> tuple[Ix, ...]:
    """Indices into an operand of `shape` broadcast to `out` (numpy aligns trailing dimensions)."""
    r = len(out) - len(shape)
    return tuple(ix_const(0) if d == 1 and out[r + j] != 1 else idx[r + j] for j, d in enumerate(shape))


# ----------------------------------------------------------------- values


@dataclass(eq=False)
class View:
    """Elements of an IR array seen through slices and integer indices (numpy's basic indexing)."""

    base: ArrayInfo
    shape: tuple[int, ...]
    comps: tuple[Comp, ...]

    @property
    def dtype(self) -> DType:
        return self.base.dtype

    @property
    def pyname(self) -> str:
        return self.base.pyname

    def same(self, other: object) -> bool:
        return (
            isinstance(other, View)
            and other.base is self.base
            and other.shape == self.shape
            and other.comps == self.comps
        )

    def index(self, idx: tuple[Ix, ...]) -> tuple[ir.Expr, ...]:
        return tuple(i.e for i in map_index(self.comps, idx))


def full_view(info: ArrayInfo) -> View:
    return View(info, info.shape, identity(len(info.shape)))


@dataclass(eq=False)
class AV:
    """An array value: `at(idx)` is the element at `idx` (one Ix per dimension).

    `view` is set when the value is stored elements (a name or slice); `fill`
    when it is produced by loops of its own (a matrix product), which can write
    straight into a target.
    """

    shape: tuple[int, ...]
    dtype: DType
    at: Callable[[tuple[Ix, ...]], TE]
    view: View | None = None
    fill: Callable[[View], list[ir.Stmt]] | None = None


Operand = AV | TE


@dataclass(eq=False)
class Region:
    """A loop body or a branch being lowered: the names bound to arrays as it began, and the
    arrays names were rebound to inside it (name, array, line)."""

    bound: set[str]
    loop: bool
    rebound: list[tuple[str, ArrayInfo, int]] = field(default_factory=list)


def _sample(x: Operand) -> Any:
    """A value numpy sees in place of an operand when it decides a result dtype."""
    if isinstance(x, AV):
        return np.ones(1, dtype=x.dtype.np)
    known = x.e.value if isinstance(x.e, ir.Const) else None
    if isinstance(x.pt, NP):
        return x.pt.dtype.np.type(1 if known is None else known)
    if isinstance(x.pt, PyInt):
        return 1 if known is None else int(known)
    if isinstance(x.pt, PyFloat):
        return 1.0 if known is None else float(known)
    return True if known is None else bool(known)


def _describe(x: Operand) -> str:
    if isinstance(x, AV):
        return f"{x.dtype.name} array"
    return describe(x.pt)


class ArrayLowering:
    """The whole-array part of a `Lowerer` (it reads and extends the lowerer's tables)."""

    def __init__(self, lw: Lowerer):
        self.lw = lw
        self.versions: dict[str, list[tuple[DType, tuple[int, ...]]]] = {}
        self.snapshots: set[str] = set()  # scalars holding the dynamic indices of bound views
        self.bound_in: dict[str, Region | None] = {}  # by variable key: the innermost region it was bound in

    def new_round(self) -> None:
        self.versions = {}
        self.snapshots = set()
        self.bound_in = {}

    @staticmethod
    def is_view(x: object) -> bool:
        return isinstance(x, View)

    # ------------------------------------------------------------ names

    def binding(self, name: str) -> ArrayInfo | View | None:
        view = self.lw.sc.views.get(name)
        if view is not None:
            return view
        return self.lw.lookup_array(name)

    def rank_of(self, node: ast.AST) -> int | None:
        """Rank of an array-valued expression, None for a scalar (decided without lowering it)."""
        if isinstance(node, ast.Name):
            b = self.binding(node.id)
            return len(b.shape) if b is not None else None
        if isinstance(node, ast.Subscript):
            r = self.rank_of(node.value)
            if r is None:
                return None
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            ints = 0
            for p in parts:
                if isinstance(p, ast.Slice):
                    continue
                if (isinstance(p, ast.Constant) and (p.value is None or p.value is Ellipsis)) or (
                    self.rank_of(p) is not None
                ):
                    return max(r, 1)  # newaxis, ellipsis, fancy index: rejected by `subscript`
                ints += 1
            rest = r - ints
            return rest if rest > 0 else None
        if isinstance(node, ast.Attribute):
            return self.rank_of(node.value) if node.attr == "T" else None
        if isinstance(node, ast.BinOp):
            ra, rb = self.rank_of(node.left), self.rank_of(node.right)
            if isinstance(node.op, ast.MatMult):
                return _matmul_rank(ra, rb)
            return _max_rank(ra, rb)
        if isinstance(node, ast.UnaryOp):
            return self.rank_of(node.operand)
        if isinstance(node, ast.Compare):
            return _max_rank(*(self.rank_of(x) for x in [node.left, *node.comparators]))
        if isinstance(node, ast.IfExp):
            return _max_rank(self.rank_of(node.body), self.rank_of(node.orelse))
        if isinstance(node, ast.BoolOp):
            return _max_rank(*(self.rank_of(v) for v in node.values))
        if isinstance(node, ast.Call):
            return self.call_rank(node)
        return None

    def call_rank(self, node: ast.Call) -> int | None:
        lw = self.lw
        f = node.func
        args = [a for a in node.args if not isinstance(a, ast.Starred)]
        np_name = lw.numpy_attr(f)
        if np_name is not None:
            if np_name in ("dot", "matmul") and len(args) == 2:
                ra, rb = self.rank_of(args[0]), self.rank_of(args[1])
                if np_name == "dot" and (ra is None or rb is None):
                    return _max_rank(ra, rb)
                return _matmul_rank(ra, rb)
            if np_name in ELEMENTWISE_FUNCS or np_name in NUMPY_SCALAR_TYPES:
                return _max_rank(*(self.rank_of(a) for a in args))
            return None  # reductions, and functions the scalar path rejects by name
        if isinstance(f, ast.Attribute):
            r = self.rank_of(f.value)
            return r if r is not None and f.attr in ("astype", "copy", "clip") else None
        if isinstance(f, ast.Name) and f.id == "abs" and len(args) == 1 and not lw.is_local_name(f.id):
            return self.rank_of(args[0])
        return None

    def needs_view(self, node: ast.Subscript) -> bool:
        """A subscript the scalar path cannot take: slices, a view or expression as base, or a rank mismatch."""
        count = 0
        cur: ast.expr = node
        while isinstance(cur, ast.Subscript):
            parts = cur.slice.elts if isinstance(cur.slice, ast.Tuple) else [cur.slice]
            if any(isinstance(p, ast.Slice) for p in parts):
                return True
            count += len(parts)
            cur = cur.value
        if not isinstance(cur, ast.Name):
            return self.rank_of(cur) is not None
        b = self.binding(cur.id)
        if isinstance(b, View):
            return True
        return isinstance(b, ArrayInfo) and count != len(b.shape)

    # ------------------------------------------------------- expressions

    def operand(self, node: ast.expr) -> Operand:
        if self.rank_of(node) is not None:
            return self.av(node)
        return self.lw.expr(node)

    def av(self, node: ast.expr) -> AV:
        """The array value of an array-valued expression."""
        lw = self.lw
        line = lw.where(node)
        if isinstance(node, ast.Name):
            b = self.binding(node.id)
            if b is None:
                raise Reject(line, f"{node.id} is not an array")
            return self.view_av(b if isinstance(b, View) else self.whole(b, line))
        if isinstance(node, ast.Subscript):
            base = self.av(node.value)
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            shape, comps = self.subscript(base.shape, parts, node)
            return self.reindex(base, shape, comps)
        if isinstance(node, ast.Attribute):
            if node.attr == "T":
                a = self.av(node.value)
                if len(a.shape) < 2:
                    return a
                return self.reindex(a, a.shape[::-1], (Comp(1), Comp(0)))
            raise Reject(line, f"attribute .{node.attr} of an array in an array expression")
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.MatMult):
                return self.matmul(self.operand(node.left), self.operand(node.right), node, "@")
            op = BINOPS.get(type(node.op))
            if op is None:
                raise Reject(line, f"operator {type(node.op).__name__} on arrays")
            return self.binary(op, self.operand(node.left), self.operand(node.right), node)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                raise Reject(
                    line, f"`not` of array {text(node.operand)} (numpy has no truth value of an array; use ~)"
                )
            op = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert"}[type(node.op)]
            return self.unary(op, self.av(node.operand), node)
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                raise Reject(
                    line, f"chained comparison of arrays {text(node)} (numpy raises; combine with &)"
                )
            op = CMPS.get(type(node.ops[0]))
            if op is None:
                raise Reject(line, f"comparison {type(node.ops[0]).__name__} of arrays")
            return self.compare(op, self.operand(node.left), self.operand(node.comparators[0]), node)
        if isinstance(node, ast.Call):
            return self.call_av(node)
        if isinstance(node, ast.IfExp):
            raise Reject(line, f"conditional expression between arrays {text(node)} (use np.where)")
        if isinstance(node, ast.BoolOp):
            raise Reject(line, f"`and`/`or` on arrays {text(node)} (numpy raises; use & or |)")
        raise Reject(line, f"{type(node).__name__} in an array expression")

    def whole(self, info: ArrayInfo, line: int) -> View:
        if info.pytype != "ndarray" or not isinstance(info.elem, NP):
            what = "global tuple or list" if info.kind == "rom" else "Python list"
            raise Reject(
                line,
                f"{info.pyname} is a {what}, used as a whole (whole-array operations need a numpy array; "
                "on lists + concatenates and * repeats)",
            )
        return full_view(info)

    def view_av(self, v: View) -> AV:
        def at(idx: tuple[Ix, ...]) -> TE:
            v.base.loaded = True
            return TE(NP(v.base.dtype), ir.Load(v.base.name, v.index(idx), v.base.dtype))

        return AV(v.shape, v.base.dtype, at, view=v)

    def reindex(self, a: AV, shape: tuple[int, ...], comps: tuple[Comp, ...]) -> AV:
        if a.view is not None:
            return self.view_av(View(a.view.base, tuple(shape), compose(a.view.comps, comps)))
        return AV(tuple(shape), a.dtype, lambda idx: a.at(map_index(comps, idx)))

    def subscript(
        self, shape: tuple[int, ...], parts: list[ast.expr], node: ast.AST
    ) -> tuple[tuple[int, ...], tuple[Comp, ...]]:
        """numpy basic indexing of an array of `shape`: the result's shape and how it indexes the source."""
        line = self.lw.where(node)
        if len(parts) > len(shape):
            raise Reject(line, f"{text(node)}: {len(parts)} indices for a {len(shape)}-D array")
        new_shape: list[int] = []
        comps: list[Comp] = []
        for d, p in zip(shape, parts):
            if isinstance(p, ast.Slice):
                start, stop, step = (self.slice_bound(x, line) for x in (p.lower, p.upper, p.step))
                if step == 0:
                    raise Reject(line, f"{text(node)}: slice step is zero")
                s, e, st = slice(start, stop, step).indices(d)
                n = len(range(s, e, st))
                if n == 0:
                    raise Reject(line, f"{text(node)} is empty (a kernel has no empty arrays)")
                comps.append(Comp(len(new_shape), s, st))
                new_shape.append(n)
                continue
            if isinstance(p, ast.Constant) and (p.value is None or p.value is Ellipsis):
                raise Reject(line, f"{text(node)}: indexing with {'None' if p.value is None else '...'}")
            if self.rank_of(p) is not None:
                raise Reject(
                    line,
                    f"{text(node)}: indexing with an array (fancy indexing and boolean masks are not "
                    "supported; use np.where or a loop)",
                )
            comps.append(Comp(fixed=self.int_index(p, d, line)))
        for d in shape[len(parts) :]:
            comps.append(Comp(len(new_shape)))
            new_shape.append(d)
        return tuple(new_shape), tuple(comps)

    def slice_bound(self, node: ast.expr | None, line: int) -> int | None:
        if node is None:
            return None
        te = self.lw.expr(node)
        if isinstance(te.e, ir.Const) and te.e.dtype.is_int:
            return int(te.e.value)
        r = range_of(te.pt)
        if r is None or r[0] != r[1] or not isinstance(te.pt, PyInt):
            raise Reject(
                line,
                f"slice bound {text(node)} is not a constant (slice bounds must be known when compiling)",
            )
        return r[0]

    def int_index(self, node: ast.expr, dim: int, line: int) -> Ix:
        te = self.lw.expr(node)
        if isinstance(te.e, ir.Const) and te.e.dtype.is_int:
            k = int(te.e.value)
            if not -dim <= k < dim:
                raise Reject(line, f"index {k} is out of bounds for a dimension of size {dim}")
            return ix_const(k + dim if k < 0 else k)
        return Ix(self.lw.index_of(te, node, dim, line), 0, dim - 1)

    # -------------------------------------------------------- elementwise

    def probe(self, fn: Callable[..., Any], operands: list[Operand], what: str, line: int) -> DType:
        """The dtype numpy gives `fn` on these operands (or the error it raises, as a rejection)."""
        samples = [_sample(x) for x in operands]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                with np.errstate(all="ignore"):
                    r = fn(*samples)
            except (TypeError, ValueError, OverflowError, ZeroDivisionError) as e:
                raise Reject(line, f"{what}: numpy raises {type(e).__name__} ({e})") from None
        try:
            return dtype(np.asarray(r).dtype)
        except KeyError:
            raise Reject(line, f"{what} gives numpy {np.asarray(r).dtype}") from None

    def shape_of(self, operands: list[Operand], line: int, what: str) -> tuple[int, ...]:
        shapes = [x.shape for x in operands if isinstance(x, AV)]
        try:
            return tuple(int(d) for d in np.broadcast_shapes(*shapes))
        except ValueError:
            raise Reject(line, f"{what}: shapes {', '.join(map(str, shapes))} do not broadcast") from None

    def elementwise(
        self,
        operands: list[Operand],
        element: Callable[[list[TE]], TE],
        fn: Callable[..., Any],
        what: str,
        line: int,
    ) -> AV:
        """An array whose element is `element` of the operands' elements (numpy broadcasting)."""
        shape = self.shape_of(operands, line, what)
        rdt = self.probe(fn, operands, what, line)

        def at(idx: tuple[Ix, ...]) -> TE:
            tes = [x.at(bcast(idx, x.shape, shape)) if isinstance(x, AV) else x for x in operands]
            te = element(tes)
            if ir_dtype(te.pt) != rdt:
                raise Reject(
                    line, f"{what}: numpy gives {rdt.name} but the element rule gives {te.e.dtype.name}"
                )
            return te

        return AV(shape, rdt, at)

    def binary(self, op: str, a: Operand, b: Operand, node: ast.AST) -> AV:
        lw = self.lw
        line = lw.where(node)
        what = f"{_describe(a)} {OP_TEXT[op]} {_describe(b)}"
        if op == "pow" and isinstance(b, AV):
            raise Reject(line, f"{text(node)}: ** with an array exponent")
        return self.elementwise([a, b], lambda t: lw.binop(op, t[0], t[1], node), PY_OPS[op], what, line)

    def compare(self, op: str, a: Operand, b: Operand, node: ast.AST) -> AV:
        lw = self.lw
        line = lw.where(node)

        def element(t: list[TE]) -> TE:
            dt = lw.common_cmp_dtype(t[0].pt, t[1].pt, line)
            return TE(NP(BOOL), ir.Cmp(op, cast(t[0].e, dt), cast(t[1].e, dt)))

        what = f"{_describe(a)} {CMP_TEXT[op]} {_describe(b)}"
        return self.elementwise([a, b], element, PY_CMPS[op], what, line)

    def unary(self, op: str, a: AV, node: ast.AST) -> AV:
        lw = self.lw
        line = lw.where(node)
        what = f"{op} of a {a.dtype.name} array"
        return self.elementwise([a], lambda t: lw.unop(op, t[0], line), PY_UN[op], what, line)

    def note_weak(self, te: TE, rdt: DType, line: int) -> None:
        if isinstance(te.pt, PyInt) and rdt.is_int and not fits((te.pt.lo, te.pt.hi), rdt):
            self.lw.note(
                f"line {line}: a Python int meets numpy {rdt.name}; values outside {rdt.name} "
                "would raise OverflowError in Python and wrap in the kernel"
            )

    def extremum(self, which: str, a: TE, b: TE, rdt: DType) -> TE:
        """np.maximum/np.minimum of two elements in `rdt`: NaN propagates, ties keep the first."""
        x, y = cast(a.e, rdt), cast(b.e, rdt)
        if rdt.is_bool:
            return TE(NP(rdt), ir.Bin("or" if which == "max" else "and", x, y, rdt))
        e: ir.Expr = ir.Bin(which, x, y, rdt)
        if rdt.is_float:
            e = ir.Select(ir.Cmp("ne", y, y), y, e, rdt)
        return TE(NP(rdt), e)

    def where_av(self, args: list[Operand], node: ast.AST) -> AV:
        lw = self.lw
        line = lw.where(node)
        rdt = self.probe(np.where, args, "np.where()", line)

        def element(t: list[TE]) -> TE:
            c = lw.truth(t[0], node)
            return TE(NP(rdt), ir.Select(c.e, cast(t[1].e, rdt), cast(t[2].e, rdt), rdt))

        return self.elementwise(args, element, np.where, "np.where()", line)

    def clip_parts(self, args: list[Operand | None], node: ast.AST) -> tuple[list[Operand], Callable]:
        """Operands and element rule of np.clip(a, lo, hi) (a bound may be None)."""
        line = self.lw.where(node)
        ops = [x for x in args if x is not None]
        rdt = self.probe(lambda *v: np.clip(*_with_nones(args, v)), ops, "np.clip()", line)
        bounds: list[TE | AV | None] = []
        for x in args[1:]:
            if isinstance(x, TE) and isinstance(x.pt, PyInt) and rdt.is_int:
                if isinstance(x.e, ir.Const):  # numpy clamps an out-of-range Python int bound
                    x = TE(x.pt, const(min(max(int(x.e.value), rdt.min), rdt.max), rdt))
                elif not fits((x.pt.lo, x.pt.hi), rdt):
                    raise Reject(
                        line,
                        f"np.clip() bound of type Python int that may fall outside {rdt.name} "
                        f"(give it the array's dtype, e.g. np.{rdt.name}(...))",
                    )
            bounds.append(x)
        lo, hi = bounds

        def element(t: list[TE]) -> TE:
            it = iter(t)
            v = next(it)
            lo_t = next(it) if lo is not None else None
            hi_t = next(it) if hi is not None else None
            r = TE(NP(rdt), cast(v.e, rdt))
            if lo_t is not None:
                r = self.extremum("max", r, lo_t, rdt)
            if hi_t is not None:
                r = self.extremum("min", r, hi_t, rdt)
            return r

        return [args[0], *(x for x in bounds if x is not None)], element

    def minmax_parts(self, which: str, args: list[Operand], node: ast.AST) -> tuple[DType, Callable]:
        line = self.lw.where(node)
        fn = np.maximum if which == "max" else np.minimum
        rdt = self.probe(fn, args, f"np.{fn.__name__}()", line)
        for x in args:
            if isinstance(x, TE):
                self.note_weak(x, rdt, line)
        return rdt, lambda t: self.extremum(which, t[0], t[1], rdt)

    def astype(self, a: AV, dt: DType, line: int) -> AV:
        lw = self.lw
        if a.dtype.is_float and dt.is_int:
            lw.note(f"line {line}: {a.dtype.name} to {dt.name} conversion truncates; NaN/overflow undefined")

        def at(idx: tuple[Ix, ...]) -> TE:
            te = a.at(idx)
            if dt.is_bool:
                return TE(NP(BOOL), lw.truth(te, None).e)
            return TE(NP(dt), cast(te.e, dt))

        return AV(a.shape, dt, at)

    def copy(self, a: AV) -> AV:
        return AV(a.shape, a.dtype, a.at)

    def call_av(self, node: ast.Call) -> AV:
        lw = self.lw
        line = node.lineno
        f = node.func
        if node.keywords:
            raise Reject(line, f"{lw.callee_text(f)}() with keyword arguments on arrays")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise Reject(line, f"{lw.callee_text(f)}() with *args")
        np_name = lw.numpy_attr(f)
        if np_name is not None:
            return self.numpy_call(np_name, node)
        if isinstance(f, ast.Attribute):
            a = self.av(f.value)
            if f.attr == "astype":
                lw.nargs(node, 1, "astype")
                return self.astype(a, lw.parse_dtype(node.args[0], line), line)
            if f.attr == "copy":
                lw.nargs(node, 0, "copy")
                return self.copy(a)
            if f.attr == "clip":
                if len(node.args) != 2:
                    raise Reject(line, ".clip() needs both bounds")
                args = [a, *(self.bound(x) for x in node.args)]
                ops, element = self.clip_parts(args, node)
                return self.elementwise(ops, element, _clip_fn(args), "clip()", line)
            raise Reject(line, f"array method .{f.attr}() ({SUPPORTED_TEXT})")
        if isinstance(f, ast.Name) and f.id == "abs":
            lw.nargs(node, 1, "abs")
            return self.unary("abs", self.av(node.args[0]), node)
        raise Reject(line, f"call to {lw.callee_text(f)}() with an array argument")

    def bound(self, node: ast.expr) -> Operand | None:
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        return self.operand(node)

    def numpy_call(self, name: str, node: ast.Call) -> AV:
        lw = self.lw
        line = node.lineno
        nargs = len(node.args)
        if name == "where":
            lw.nargs(node, 3, "np.where")
            args = [self.operand(a) for a in node.args]
            return self.where_av(args, node)
        if name == "clip":
            lw.nargs(node, 3, "np.clip")
            args = [self.operand(node.args[0]), *(self.bound(x) for x in node.args[1:])]
            if not isinstance(args[0], AV):
                raise Reject(line, "np.clip() of a scalar with array bounds")
            ops, element = self.clip_parts(args, node)
            return self.elementwise(ops, element, _clip_fn(args), "np.clip()", line)
        if name in ("minimum", "maximum"):
            lw.nargs(node, 2, f"np.{name}")
            args = [self.operand(a) for a in node.args]
            which = "max" if name == "maximum" else "min"
            _, element = self.minmax_parts(which, args, node)
            fn = np.maximum if which == "max" else np.minimum
            return self.elementwise(args, element, fn, f"np.{name}()", line)
        if name in ("abs", "absolute", "negative", "positive"):
            lw.nargs(node, 1, f"np.{name}")
            op = {"abs": "abs", "absolute": "abs", "negative": "neg", "positive": "pos"}[name]
            return self.unary(op, self.av(node.args[0]), node)
        if name == "copy":
            lw.nargs(node, 1, "np.copy")
            return self.copy(self.av(node.args[0]))
        if name in ("dot", "matmul"):
            lw.nargs(node, 2, f"np.{name}")
            return self.matmul(self.operand(node.args[0]), self.operand(node.args[1]), node, f"np.{name}()")
        scalar_type = SCALAR_ALIASES.get(name, name)
        if name in NUMPY_SCALAR_TYPES and scalar_type in DTYPES and nargs == 1:
            return self.astype(self.av(node.args[0]), DTYPES[scalar_type], line)
        if name in ARRAY_MAKERS:
            raise Reject(line, f"np.{name}() inside an expression (assign it to a name first)")
        raise Reject(line, f"np.{name}() on arrays ({SUPPORTED_TEXT})")

    # ------------------------------------------------------------ matmul

    def matmul(self, a: Operand, b: Operand, node: ast.AST, what: str) -> AV:
        """a @ b with a 2-D operand: an array produced by loops (straight into the target when it can)."""
        lw = self.lw
        line = lw.where(node)
        if not isinstance(a, AV) or not isinstance(b, AV):
            if what == "@":
                raise Reject(line, f"{text(node)}: @ with a scalar operand (numpy raises)")
            return self.scaled(a, b, node, what)
        ra, rb = len(a.shape), len(b.shape)
        k = a.shape[-1]
        kb = b.shape[0]
        if k != kb:
            raise Reject(line, f"{what}: shapes {a.shape} and {b.shape} are not aligned")
        rdt = self.probe(np.dot, [a, b], f"{what} of {a.dtype.name} and {b.dtype.name} arrays", line)
        self.note_float_order(rdt, what, "numpy uses BLAS", line)
        if ra == 2 and rb == 1:
            shape: tuple[int, ...] = (a.shape[0],)
        elif ra == 1 and rb == 2:
            shape = (b.shape[1],)
        else:
            shape = (a.shape[0], b.shape[1])

        def operands(idx: tuple[Ix, ...], kk: Ix) -> tuple[TE, TE]:
            if ra == 2 and rb == 1:
                return a.at((idx[0], kk)), b.at((kk,))
            if ra == 1:
                return a.at((kk,)), b.at((kk, idx[0]))
            return a.at((idx[0], kk)), b.at((kk, idx[1]))

        def fill(target: View) -> list[ir.Stmt]:
            def body(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                acc = self.accumulate(k, rdt, line, lambda kk: operands(idx, kk))
                value = lw.store_value(TE(NP(rdt), acc[1]), target.base, line)
                return [*acc[0], ir.Store(target.base.name, target.index(idx), value, line)]

            target.base.stored = True
            return self.loop_nest(shape, line, body)

        return self.produced(shape, rdt, fill, line)

    def scaled(self, a: Operand, b: Operand, node: ast.AST, what: str) -> AV:
        """np.dot with a scalar operand: a product in numpy's dtype for it (the scalar is not weak here)."""
        line = self.lw.where(node)

        def element(t: list[TE]) -> TE:
            return TE(NP(rdt), _mul(cast(t[0].e, rdt), cast(t[1].e, rdt), rdt))

        rdt = self.probe(np.dot, [a, b], what, line)
        return self.elementwise([a, b], element, np.dot, what, line)

    def accumulate(
        self, n: int, rdt: DType, line: int, pair: Callable[[Ix], tuple[TE, TE]]
    ) -> tuple[list[ir.Stmt], ir.Var]:
        """Statements leaving sum over k < n of pair(k)[0] * pair(k)[1] in an accumulator of `rdt`."""
        acc = self.scalar_temp("acc", rdt)

        def body(kk: tuple[Ix, ...]) -> list[ir.Stmt]:
            x, y = pair(kk[0])
            prod = _mul(cast(x.e, rdt), cast(y.e, rdt), rdt)
            return [ir.Assign(acc.name, _add(acc, prod, rdt), line)]

        return [ir.Assign(acc.name, const(0, rdt), line), *self.loop_nest((n,), line, body)], acc

    def produced(
        self, shape: tuple[int, ...], rdt: DType, fill: Callable[[View], list[ir.Stmt]], line: int
    ) -> AV:
        """An AV made by loops: its elements are read from a temporary filled on first use."""
        temp: list[View] = []

        def at(idx: tuple[Ix, ...]) -> TE:
            if not temp:
                info = self.temp_array(rdt, shape)
                temp.append(full_view(info))
                self.emit(fill(temp[0]), line, "a matrix product")
            return self.view_av(temp[0]).at(idx)

        return AV(shape, rdt, at, fill=fill)

    # --------------------------------------------------------- reductions

    def scalar_call(self, node: ast.Call) -> TE | None:
        """A call with a scalar result computed from arrays (reductions, dot of vectors), or None."""
        lw = self.lw
        f = node.func
        np_name = lw.numpy_attr(f)
        line = node.lineno
        if np_name in REDUCTIONS:
            if not node.args or isinstance(node.args[0], ast.Starred):
                raise Reject(line, f"np.{np_name}() without an array")
            kind = {"amax": "max", "amin": "min"}.get(np_name, np_name)
            arg = node.args[0]
            if self.rank_of(arg) is None:
                raise Reject(line, f"np.{np_name}() of a scalar")
            return self.reduce(kind, self.av(arg), node, node.args[1:], f"np.{np_name}()")
        if np_name in ("dot", "matmul") and len(node.args) == 2 and not node.keywords:
            ra, rb = self.rank_of(node.args[0]), self.rank_of(node.args[1])
            if ra == 1 and rb == 1:
                return self.dot_scalar(node.args[0], node.args[1], node, f"np.{np_name}()")
            if ra is None and rb is None:
                raise Reject(line, f"np.{np_name}() of scalars")
            return None
        if np_name in ("minimum", "maximum", "clip") and not node.keywords:
            if any(self.rank_of(a) is not None for a in node.args):
                return None
            return self.scalar_extremum(np_name, node)
        if isinstance(f, ast.Attribute) and f.attr in METHOD_REDUCTIONS and self.rank_of(f.value) is not None:
            return self.reduce(f.attr, self.av(f.value), node, node.args, f".{f.attr}()")
        return None

    def scalar_extremum(self, name: str, node: ast.Call) -> TE:
        """np.maximum/np.minimum/np.clip of scalars: a numpy scalar, NaN propagating."""
        lw = self.lw
        if name == "clip":
            lw.nargs(node, 3, "np.clip")
            args: list[Operand | None] = [lw.expr(node.args[0]), *(self.bound(x) for x in node.args[1:])]
            ops, element = self.clip_parts(args, node)
        else:
            lw.nargs(node, 2, f"np.{name}")
            ops = [lw.expr(a) for a in node.args]
            _, element = self.minmax_parts("max" if name == "maximum" else "min", ops, node)
        return element(ops)  # type: ignore[arg-type]

    def reduce(self, kind: str, a: AV, node: ast.Call, extra: list[ast.expr], what: str) -> TE:
        lw = self.lw
        line = node.lineno
        if extra:
            raise Reject(line, f"{what} with an axis argument (reductions along one axis are not supported)")
        acc_dt: DType | None = None
        for kw in node.keywords:
            if kw.arg == "axis" and isinstance(kw.value, ast.Constant) and kw.value.value is None:
                continue
            if kw.arg == "dtype" and kind in ("sum", "mean"):
                acc_dt = lw.parse_dtype(kw.value, line)
                continue
            if kw.arg == "axis":
                raise Reject(line, f"{what} with axis= (reductions along one axis are not supported)")
            raise Reject(line, f"{what} with {kw.arg}=")
        sample = np.ones(1, dtype=a.dtype.np)
        fn = getattr(np, kind)
        kwargs = {"dtype": acc_dt.np} if acc_dt is not None else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                rdt = dtype(np.asarray(fn(sample, **kwargs)).dtype)
            except (TypeError, ValueError, KeyError) as e:
                raise Reject(line, f"{what} of a {a.dtype.name} array: {e}") from None
        n = int(np.prod(a.shape))
        if kind in ("sum", "mean"):
            if rdt.is_bool or (kind == "mean" and not rdt.is_float):
                raise Reject(line, f"{what} accumulating in {rdt.name}")
            self.note_float_order(rdt, what, "numpy adds pairwise", line)
            acc = self.scalar_temp("acc", rdt)

            def add(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                return [ir.Assign(acc.name, ir.Bin("add", acc, cast(a.at(idx).e, rdt), rdt), line)]

            self.emit(
                [ir.Assign(acc.name, const(0, rdt), line), *self.loop_nest(a.shape, line, add)], line, what
            )
            if kind == "mean":
                return TE(NP(rdt), ir.Bin("div", acc, const(n, rdt), rdt))
            return TE(NP(rdt), acc)
        first = a.at(tuple(ix_const(0) for _ in a.shape))
        if kind in ("max", "min"):
            acc = self.scalar_temp("acc", rdt)

            def keep(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                return [ir.Assign(acc.name, self.extremum(kind, TE(NP(rdt), acc), a.at(idx), rdt).e, line)]

            self.emit(
                [ir.Assign(acc.name, cast(first.e, rdt), line), *self.loop_nest(a.shape, line, keep)],
                line,
                what,
            )
            return TE(NP(rdt), acc)
        # argmax / argmin: the first extreme element (the first NaN for floats)
        best = self.scalar_temp("best", a.dtype)
        pos = self.scalar_temp("pos", rdt)
        cmp = "gt" if kind == "argmax" else "lt"

        def pick(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
            x = a.at(idx).e
            take: ir.Expr = ir.Cmp(cmp, x, best)
            if a.dtype.is_float:
                take = ir.Logic("land", ir.Cmp("eq", best, best), ir.Logic("lor", take, ir.Cmp("ne", x, x)))
            flat = _flat(idx, a.shape, rdt)
            return [ir.If(take, [ir.Assign(pos.name, flat, line), ir.Assign(best.name, x, line)], [], line)]

        self.emit(
            [
                ir.Assign(best.name, first.e, line),
                ir.Assign(pos.name, const(0, rdt), line),
                *self.loop_nest(a.shape, line, pick),
            ],
            line,
            what,
        )
        return TE(NP(rdt), pos)

    def dot_scalar(self, left: ast.expr, right: ast.expr, node: ast.AST, what: str) -> TE:
        """1-D . 1-D: a scalar sum of products in numpy's result dtype."""
        line = self.lw.where(node)
        a, b = self.av(left), self.av(right)
        if len(a.shape) != 1 or len(b.shape) != 1:
            raise Reject(line, f"{what} of arrays of ranks {len(a.shape)} and {len(b.shape)}")
        if a.shape != b.shape:
            raise Reject(line, f"{what}: shapes {a.shape} and {b.shape} are not aligned")
        rdt = self.probe(np.dot, [a, b], f"{what} of {a.dtype.name} and {b.dtype.name} arrays", line)
        self.note_float_order(rdt, what, "numpy uses BLAS", line)
        stmts, acc = self.accumulate(a.shape[0], rdt, line, lambda kk: (a.at((kk,)), b.at((kk,))))
        self.emit(stmts, line, what)
        return TE(NP(rdt), acc)

    def emit(self, stmts: list[ir.Stmt], line: int, what: str) -> None:
        """Statements computing a value the current expression reads, placed before its statement.

        They run unconditionally: inside a conditional expression (or the right
        side of and/or) that is only safe when they read no element at an index
        the condition might guard.
        """
        if self.lw.cond_depth > 0:
            known = {s.var for s in ir.walk_stmts(stmts) if isinstance(s, ir.For)} | self.snapshots
            for s in ir.walk_stmts(stmts):
                for e in ir.stmt_exprs(s):
                    for x in ir.walk_expr(e):
                        if isinstance(x, ir.Load) and any(
                            isinstance(v, ir.Var) and v.name not in known
                            for i in x.index
                            for v in ir.walk_expr(i)
                        ):
                            raise Reject(
                                line,
                                f"{what} inside a conditional expression or and/or reads elements at an index "
                                "the condition may guard (compute it in a statement of its own)",
                            )
        self.lw.pending.extend(stmts)

    def note_float_order(self, rdt: DType, what: str, how: str, line: int) -> None:
        if rdt.is_float:
            self.lw.note(
                f"line {line}: {what} accumulates {rdt.name} in index order ({how}); the last bits may "
                "differ from numpy's"
            )

    # ------------------------------------------------------------ storage

    def scalar_temp(self, base: str, dt: DType) -> ir.Var:
        lw = self.lw
        lw.r.temp_counter += 1
        key = f"__{base}{lw.r.temp_counter}"
        lw.vars[key] = VarState(pt=NP(dt))
        return ir.Var(lw.irname(key), dt)

    def fresh_name(self, key: str, base: str) -> str:
        """The IR name of a frontend-made array (`key` cannot be a Python name)."""
        lw = self.lw
        if key in lw.ir_names:
            return lw.ir_names[key]
        root = c_name(base)
        name, k = root, 2
        while name in lw.used_names:
            name = f"{root}_{k}"
            k += 1
        lw.used_names.add(name)
        lw.ir_names[key] = name
        return name

    def local(self, irn: str, pyname: str, dt: DType, shape: tuple[int, ...], line: int) -> ArrayInfo:
        lw = self.lw
        info = lw.all_arrays.get(irn)
        if info is None:
            info = ArrayInfo(pyname, irn, dt, shape, "local", NP(dt))
            lw.all_arrays[irn] = info
        elif info.kind != "local" or info.elem_key is not None:
            raise Reject(line, f"{pyname} is a parameter, global or list and an array made here")
        info.dtype, info.shape, info.elem = dt, tuple(shape), NP(dt)
        return info

    def temp_array(self, dt: DType, shape: tuple[int, ...]) -> ArrayInfo:
        lw = self.lw
        lw.r.temp_counter += 1
        key = f"@tmp{lw.r.temp_counter}"
        return self.local(self.fresh_name(key, "tmp"), key, dt, shape, 0)

    def check_not_scalar(self, pyname: str, line: int) -> None:
        lw = self.lw
        key = lw.key(pyname)
        if key in lw.vars or key in lw.r.assigned or pyname in lw.scalar_params or pyname in lw.consts:
            raise Reject(line, f"{pyname} is a scalar elsewhere and an array here")

    def current(self, pyname: str) -> ArrayInfo | View | None:
        sc = self.lw.sc
        return sc.views.get(pyname) or sc.arrays.get(pyname)

    def bind_storage(self, pyname: str, dt: DType, shape: tuple[int, ...], line: int) -> ArrayInfo:
        """`pyname = <new array>`: the on-chip array the name now names (numpy rebinding).

        A name has one array per dtype and shape; the first keeps the name's IR name.
        """
        lw = self.lw
        self.check_not_scalar(pyname, line)
        if len(shape) not in (1, 2) or any(d <= 0 for d in shape):
            raise Reject(line, f"local array {pyname} of shape {shape} (1-D or 2-D, non-empty)")
        key = lw.key(pyname)
        versions = self.versions.setdefault(key, [])
        if (dt, shape) not in versions:
            versions.append((dt, shape))
        k = versions.index((dt, shape))
        taken = key in lw.ir_names and (
            (a := lw.all_arrays.get(lw.ir_names[key])) is not None and a.kind != "local"
        )
        if k == 0 and not taken:
            irn = lw.irname(key)
        else:
            irn = self.fresh_name(f"{key}@{k}", lw.irname(key))
        info = self.local(irn, pyname, dt, shape, line)
        cur = self.current(pyname)
        if cur is not None and cur is not info and self.bound_on_entry(pyname):
            raise Reject(
                line,
                f"{pyname} is rebound inside a loop or branch to an array other than the one it names before "
                "(copy into it with [:] = or use a new name; e.g. x = x.copy() before a loop updating x)",
            )
        self.check_no_alias(pyname, info, line)
        for region in lw.sc.regions:
            region.rebound.append((pyname, info, line))
        lw.sc.views.pop(pyname, None)
        lw.sc.arrays[pyname] = info
        self.bound_in[lw.key(pyname)] = lw.sc.regions[-1] if lw.sc.regions else None
        return info

    def check_no_alias(self, pyname: str, info: ArrayInfo, line: int) -> None:
        sc = self.lw.sc
        for other, b in [*sc.arrays.items(), *sc.views.items()]:
            if other == pyname:
                continue
            if b is info or (isinstance(b, View) and b.base is info):
                raise Reject(
                    line,
                    f"{pyname} gets a new array while {other} still refers to its old one "
                    "(use a new name for the new array)",
                )

    def bind_view(self, pyname: str, view: View, line: int) -> list[ir.Stmt]:
        """`pyname = x[...]`: the name refers to x's elements; dynamic indices are fixed now."""
        lw = self.lw
        self.check_not_scalar(pyname, line)
        stmts: list[ir.Stmt] = []
        comps = []
        for c in view.comps:
            if c.fixed is not None and not isinstance(c.fixed.e, ir.Const):
                v = self.scalar_temp("at", c.fixed.e.dtype)
                self.snapshots.add(v.name)
                stmts.append(ir.Assign(v.name, c.fixed.e, line))
                c = Comp(fixed=Ix(v, c.fixed.lo, c.fixed.hi))
            comps.append(c)
        view = View(view.base, view.shape, tuple(comps))
        cur = self.current(pyname)
        if cur is not None and self.bound_on_entry(pyname) and not (isinstance(cur, View) and cur.same(view)):
            raise Reject(
                line,
                f"{pyname} is bound inside a loop or branch to other elements than it names before "
                "(use a new name)",
            )
        lw.sc.arrays.pop(pyname, None)
        lw.sc.views[pyname] = view
        self.bound_in[lw.key(pyname)] = lw.sc.regions[-1] if lw.sc.regions else None
        return stmts

    # ------------------------------------------------------ loops, branches

    def enter(self, loop: bool) -> Region:
        sc = self.lw.sc
        region = Region(set(sc.arrays) | set(sc.views), loop)
        sc.regions.append(region)
        return region

    def leave(self, region: Region) -> None:
        self.lw.sc.regions.remove(region)

    def bound_on_entry(self, pyname: str) -> bool:
        """True when `pyname` named an array as the innermost loop body or branch began.

        Rebinding such a name there to another array would leave it naming
        either array after the branch (or in the next iteration), depending
        on the path; a name first bound inside may be rebound freely.
        """
        regions = self.lw.sc.regions
        return bool(regions) and pyname in regions[-1].bound

    def check_loop(self, region: Region) -> None:
        """At the end of a loop body: no name may still refer to an array rebound in the loop,
        unless it is bound again in every iteration after that (at the body's own level)."""
        if not region.loop:
            return
        sc = self.lw.sc
        for pyname, info, line in region.rebound:
            for other, b in [*sc.arrays.items(), *sc.views.items()]:
                if other == pyname or not (b is info or (isinstance(b, View) and b.base is info)):
                    continue
                if self.bound_in.get(self.lw.key(other)) is not region:
                    raise Reject(
                        line,
                        f"{pyname} gets a new array in every iteration while {other} may still refer to "
                        "the previous one (use a new name for the new array)",
                    )

    # --------------------------------------------------------- statements

    def loop_nest(
        self, shape: tuple[int, ...], line: int, body: Callable[[tuple[Ix, ...]], list[ir.Stmt]]
    ) -> list[ir.Stmt]:
        """Loops over every index of `shape` (row-major, outer loop first) around body(indices).

        The one place element loops are made: fills, materialised expressions,
        reductions and products all come through here.
        """
        lw = self.lw
        loops = []
        for n in shape:
            lw.r.temp_counter += 1
            lw.r.loop_counter += 1
            dt = narrowest_signed(0, n) or INT64
            loops.append((lw.irname(f"__i{lw.r.temp_counter}"), dt, n, f"L{lw.r.loop_counter}"))
        idx = tuple(Ix(ir.Var(v, dt), 0, n - 1) for v, dt, n, _ in loops)
        stmts = body(idx)
        for v, dt, n, label in reversed(loops):
            stmts = [ir.For(v, const(0, dt), const(n, dt), 1, stmts, n, line, label)]
        return stmts

    def store_loop(self, target: View, value: Operand, line: int, op: str | None = None) -> list[ir.Stmt]:
        """target[...] = value (or target op= value), numpy broadcasting; a temporary when they overlap."""
        lw = self.lw
        base = target.base
        if base.kind == "rom":
            raise Reject(line, f"writes to global array {base.pyname} (kernels may only read globals)")
        shape = target.shape
        if isinstance(value, AV):
            ok = len(value.shape) <= len(shape)
            if ok:
                try:
                    ok = tuple(np.broadcast_shapes(value.shape, shape)) == shape
                except ValueError:
                    ok = False
            if not ok:
                raise Reject(
                    line, f"an array of shape {value.shape} cannot be assigned to elements of shape {shape}"
                )

        def build(val: Operand) -> list[ir.Stmt]:
            def body(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                te = val.at(bcast(idx, val.shape, shape)) if isinstance(val, AV) else val
                where = target.index(idx)
                if op is not None:
                    base.loaded = True
                    cur = TE(NP(base.dtype), ir.Load(base.name, where, base.dtype))
                    te = lw.binop(op, cur, te, ast.Pass(lineno=line))
                return [ir.Store(base.name, where, lw.store_value(te, base, line), line)]

            return self.loop_nest(shape, line, body)

        stmts = build(value)
        clash = self.overlap(stmts, base.name, line)
        if clash:
            lw.note(
                f"line {line}: the right-hand side reads {base.pyname} at other elements than it writes; "
                "it is computed into a temporary first (numpy evaluates it whole before assigning)"
            )
            if isinstance(value, AV):
                tmp = full_view(self.temp_array(value.dtype, value.shape))
                lw.pending.extend(self.store_loop(tmp, value, line))
                value = self.view_av(tmp)
            else:
                v = self.scalar_temp("rhs", value.e.dtype)
                lw.pending.append(ir.Assign(v.name, value.e, line))
                value = TE(value.pt, v)
            stmts = build(value)
        base.stored = True
        return stmts

    def overlap(self, stmts: list[ir.Stmt], name: str, line: int) -> bool:
        """True when a store to `name` reads `name` at another element than it writes."""
        for s in ir.walk_stmts(stmts):
            if isinstance(s, ir.Store) and s.array == name:
                for i in s.index:
                    if any(isinstance(x, ir.Load) and x.array == name for x in ir.walk_expr(i)):
                        raise Reject(line, f"the target's index reads the array being assigned ({name})")
                for x in ir.walk_expr(s.value):
                    if isinstance(x, ir.Load) and x.array == name and x.index != s.index:
                        return True
        return False

    def materialise(self, a: AV, target: View, line: int) -> list[ir.Stmt]:
        """target[...] = a, for a value just computed (a product fills the target directly when it can)."""
        if a.fill is not None and a.shape == target.shape:
            stmts = a.fill(target)
            reads = any(
                isinstance(x, ir.Load) and x.array == target.base.name
                for s in ir.walk_stmts(stmts)
                for e in ir.stmt_exprs(s)
                for x in ir.walk_expr(e)
            )
            if not reads:
                return stmts
        return self.store_loop(target, a, line)

    def target_view(self, node: ast.expr, line: int) -> View:
        a = self.av(node)
        if a.view is None:
            raise Reject(line, f"assignment to {text(node)}, which is a computed array, not stored elements")
        return a.view

    def assign_name(self, pyname: str, value: ast.expr, line: int) -> list[ir.Stmt]:
        """`name = <array expression>`: a view binds the name, anything else makes a new array."""
        if pyname.startswith(RET_VALUE):
            raise Reject(line, "returns an array from more than one place")
        a = self.av(value)
        if a.view is not None:
            return self.bind_view(pyname, a.view, line)
        info = self.bind_storage(pyname, a.dtype, a.shape, line)
        return self.materialise(a, full_view(info), line)

    def assign_elements(self, target: ast.expr, value: ast.expr, line: int) -> list[ir.Stmt]:
        """`x[...] = value` for a slice or row (numpy casts to x's dtype)."""
        view = self.target_view(target, line)
        val = self.operand(value)
        if isinstance(val, AV):
            return (
                self.materialise(val, view, line)
                if val.shape == view.shape
                else self.store_loop(view, val, line)
            )
        return self.store_loop(view, val, line)

    def augassign(self, target: ast.expr, op: str, value: ast.expr, line: int) -> list[ir.Stmt]:
        """`x op= value` / `x[...] op= value`: in place, numpy's same_kind casting."""
        view = self.target_view(target, line)
        val = self.operand(value)
        shape = view.shape
        if isinstance(val, AV):
            try:
                ok = tuple(np.broadcast_shapes(val.shape, shape)) == shape and len(val.shape) <= len(shape)
            except ValueError:
                ok = False
            if not ok:
                raise Reject(line, f"{text(target)} {OP_TEXT[op]}= an array of shape {val.shape}")
        sample = _sample(val)
        self.probe(  # numpy's own in-place operation decides (same_kind casting)
            lambda t: PY_IOPS[op](np.array(t), sample),
            [AV((1,), view.dtype, lambda idx: TE(NP(view.dtype), const(0, view.dtype)))],
            f"{view.dtype.name} array {OP_TEXT[op]}= {_describe(val)}",
            line,
        )
        return self.store_loop(view, val, line, op=op)

    def result_array(self, item: ast.expr, k: int, line: int) -> tuple[ArrayInfo, list[ir.Stmt]]:
        """A returned array expression, made into an output array of its own."""
        a = self.av(item)
        if a.view is not None and a.view.base.kind in ("param", "rom"):
            what = "argument" if a.view.base.kind == "param" else "global array"
            raise Reject(
                line,
                f"returns {text(item)}, a slice of {what} {a.view.base.pyname} that numpy makes a view "
                f"sharing its memory (return a copy: ({text(item)}).copy())",
            )
        key = f"@result{self.lw.sc.prefix}{k}"
        info = self.local(
            self.fresh_name(key, "result" if k == 0 else f"result{k}"), key, a.dtype, a.shape, line
        )
        return info, self.materialise(a, full_view(info), line)

    def argument(self, node: ast.expr) -> ArrayInfo | View | None:
        """An array passed to an inlined function: by reference (a name or a view), or a new array."""
        if isinstance(node, ast.Name):
            b = self.binding(node.id)
            if b is not None:
                return b
        if self.rank_of(node) is None:
            return None
        a = self.av(node)
        if a.view is not None:
            return a.view
        line = self.lw.where(node)
        info = self.temp_array(a.dtype, a.shape)
        self.lw.pending.extend(self.materialise(a, full_view(info), line))
        return info

    def helper_return(self, item: ast.expr, k: int, line: int) -> tuple[ArrayInfo | View, list[ir.Stmt]]:
        """What an inlined function returns for an array expression: a view, or a new array."""
        a = self.av(item)
        if a.view is not None:
            return a.view, []
        key = f"@result{self.lw.sc.prefix}{k}"
        info = self.local(self.fresh_name(key, "result"), key, a.dtype, a.shape, line)
        return info, self.materialise(a, full_view(info), line)

    def scalar_load(self, node: ast.Subscript) -> TE:
        a = self.av(node)
        if a.shape:
            raise Reject(node.lineno, f"array {text(node)} used where a scalar is needed")
        return a.at(())

    def scalar_target(self, node: ast.Subscript) -> tuple[ArrayInfo, tuple[ir.Expr, ...]]:
        view = self.target_view(node, node.lineno)
        if view.shape:
            raise Reject(node.lineno, f"array {text(node)} used where a scalar is needed")
        return view.base, view.index(())


# ------------------------------------------------------------------ helpers


def _max_rank(*ranks: int | None) -> int | None:
    known = [r for r in ranks if r is not None]
    return max(known) if known else None


def _matmul_rank(ra: int | None, rb: int | None) -> int | None:
    if ra is None or rb is None:
        return _max_rank(ra, rb)  # a scalar operand: rejected (or a product) by `matmul`
    if ra == 1 and rb == 1:
        return None
    return 2 if ra == 2 and rb == 2 else 1


def _with_nones(args: list[Any], values: tuple[Any, ...]) -> list[Any]:
    it = iter(values)
    return [None if a is None else next(it) for a in args]


def _clip_fn(args: list[Any]) -> Callable[..., Any]:
    return lambda *v: np.clip(*_with_nones(args, v))


def _mul(x: ir.Expr, y: ir.Expr, dt: DType) -> ir.Expr:
    return ir.Bin("and" if dt.is_bool else "mul", x, y, dt)


def _add(x: ir.Expr, y: ir.Expr, dt: DType) -> ir.Expr:
    return ir.Bin("or" if dt.is_bool else "add", x, y, dt)


def _flat(idx: tuple[Ix, ...], shape: tuple[int, ...], dt: DType) -> ir.Expr:
    """Row-major flat position of idx in `shape`, in `dt` (what argmax returns)."""
    e: ir.Expr | None = None
    for i, n in zip(idx, shape):
        term = cast(i.e, dt)
        e = term if e is None else ir.Bin("add", ir.Bin("mul", e, const(n, dt), dt), term, dt)
    assert e is not None
    return e
