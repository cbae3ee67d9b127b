"""Array values and how they index their elements, with no lowering state.

`Ix` is an index expression with the interval it takes; `Comp` says how one
dimension of a source array is indexed by a result's dimensions (an affine
map, or a fixed index), so slices of slices and transposes compose without
code. `View` is stored elements seen through such maps (numpy's basic
indexing), `AV` an array value (a shape, a dtype and the IR of the element at
an index) and `Region` a loop body or branch being lowered. These are plain
values every part of the array lowering builds and reads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np

from partition import ir
from partition.dtypes import INT64, DType, narrowest_signed
from partition.frontend.model import TE, ArrayInfo, Reject, cast, const
from partition.frontend.types import NP, PyFloat, PyInt, describe

# ---------------------------------------------------------------- indices


@dataclass(frozen=True)
class Ix:
    """An index expression and the interval of values it takes (in bounds by construction)."""

    e: ir.Expr
    lo: int
    hi: int


@dataclass(frozen=True, eq=False)
class Dyn:
    """A dimension whose length is known only at run time: a slice with run-time bounds
    (`A[i, :i + 1]`, `A[j + 1:, j]`), the triangular iteration spaces of factorisations.

    `e` computes the length (>= 0), `hi` is the largest it can be (what storage takes), and
    `key` the length as a linear form of the slice bounds' terms: two dimensions are equal
    when their keys are, which within one statement (where names do not change) means
    equal lengths. Only values within one statement have such dimensions (a name is never
    bound to one)."""

    e: ir.Expr
    hi: int
    key: tuple

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dyn) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"<run-time length up to {self.hi}>"

    def _refuse(self, *_: object) -> NoReturn:
        """Arithmetic on a run-time length where a construct expects a known one: a refusal
        (the construct does not take such slices yet), never a wrong shape."""
        raise Reject(0, "a slice whose length is known only at run time, where a fixed length is needed")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _refuse
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __neg__ = _refuse
    __int__ = __index__ = __float__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse


class CountDyn(Dyn):
    """A run-time length computed only where something reads it: the number of elements a
    boolean mask selects (`x[mask]`). A reduction of the selection loops over the mask
    itself and never needs it; `len()`, a loop over the compacted elements or an empty check
    reads `e`, and the first read emits the counting loop (`make`) before the statement."""

    def __init__(self, make: Callable[[], ir.Expr], hi: int, key: tuple):
        object.__setattr__(self, "_make", make)
        object.__setattr__(self, "_e", None)
        object.__setattr__(self, "hi", hi)
        object.__setattr__(self, "key", key)

    @property
    def e(self) -> ir.Expr:  # type: ignore[override]
        if self._e is None:
            object.__setattr__(self, "_e", self._make())
        return self._e


class ParamDyn(Dyn):
    """The leading length of an array argument called with several lengths: a kernel register
    (`ir.Param.dyn`) the host sets from the argument's shape at every call, or that length
    plus a constant `off` <= 0 clipped at 0 (`x[1:]`, `np.diff(x)`: max(n + off, 0) rows).
    Unlike a slice's run-time length it holds for the whole call, so names may hold such
    arrays and a kernel may return them. `lo` is the shortest it can be (the host takes any
    register value from 1); `hi` the longest the kernel takes (what storage takes)."""

    def __init__(self, reg: str, dt: DType, lo: int, hi: int, off: int = 0):
        e: ir.Expr = ir.Var(reg, dt)
        if off:
            e = ir.Bin("max", ir.Bin("add", e, const(off, dt), dt), const(0, dt), dt)
        object.__setattr__(self, "e", e)
        object.__setattr__(self, "hi", hi + off)
        object.__setattr__(self, "lo", max(lo + off, 0))
        object.__setattr__(self, "off", off)
        object.__setattr__(self, "reg_lo", lo)
        object.__setattr__(self, "key", ("dim", reg, off) if off else ("dim", reg))

    @property
    def reg(self) -> str:
        return self.key[1]

    def shifted(self, c: int) -> ParamDyn:
        """The length max(this + c, 0) for c <= 0 (this length is never negative)."""
        return ParamDyn(self.reg, self.e.dtype, self.reg_lo, self.hi - self.off, self.off + c)

    def te(self) -> TE:
        """The length as the Python int `len()` gives."""
        return TE(PyInt(self.lo, self.hi), self.e)

    def __repr__(self) -> str:
        return f"<run-time length {self.lo}..{self.hi}>"


def static(shape: tuple) -> tuple[int, ...]:
    """The storage a shape takes: each run-time length at its largest."""
    return tuple(d.hi if isinstance(d, Dyn) else d for d in shape)


def has_dyn(shape: tuple) -> bool:
    return any(isinstance(d, Dyn) for d in shape)


def broadcast(shapes: list[tuple]) -> tuple | None:
    """numpy's broadcast of `shapes` (run-time lengths equal only to themselves, or
    stretched from 1), or None where they do not broadcast or it cannot be told."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for k in range(rank):
        dims = [s[len(s) - rank + k] for s in shapes if len(s) - rank + k >= 0]
        big = [d for d in dims if not (isinstance(d, int) and d == 1)]
        if not big:
            out.append(1)
        elif all(d == big[0] for d in big):
            out.append(big[0])
        else:
            return None
    return tuple(out)


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


def ix_add(a: Ix, b: Ix) -> Ix:
    """a + b, folded when either is a constant, in the narrowest type holding both and the sum."""
    if a.lo == a.hi:
        return affine(b, a.lo, 1)
    if b.lo == b.hi:
        return affine(a, b.lo, 1)
    lo, hi = a.lo + b.lo, a.hi + b.hi
    dt = narrowest_signed(min(lo, a.lo, b.lo), max(hi, a.hi, b.hi)) or INT64
    return Ix(ir.Bin("add", cast(a.e, dt), cast(b.e, dt), dt), lo, hi)


@dataclass(frozen=True)
class Comp:
    """How one source dimension is indexed: by result dimension `dim` as
    off + start + step * i (`off` a run-time offset, None for 0: a window
    `x[y:y + 3]`), or (dim == -1) by the fixed index `fixed`. A flattened
    array (`a.ravel()`) indexes each dimension of its base by the quotient
    and remainder of its own position (`div`, `mod`)."""

    dim: int = -1
    start: int = 0
    step: int = 1
    fixed: Ix | None = None
    off: Ix | None = None
    div: int = 1  # with mod > 0: ((off + start + step * i) // div) % mod (a flattened array's index)
    mod: int = 0


def map_index(comps: tuple[Comp, ...], idx: tuple[Ix, ...]) -> tuple[Ix, ...]:
    out = []
    for c in comps:
        if c.fixed is not None:
            out.append(c.fixed)
        else:
            ix = affine(idx[c.dim], c.start, c.step)
            out.append(divmod_ix(ix if c.off is None else ix_add(ix, c.off), c.div, c.mod))
    return tuple(out)


def divmod_ix(ix: Ix, div: int, mod: int) -> Ix:
    """(ix // div) % mod for a non-negative ix (mod 0: unchanged)."""
    if mod == 0:
        return ix
    if ix.lo == ix.hi:
        return ix_const((ix.lo // div) % mod)
    e, lo, hi = ix.e, ix.lo // div, ix.hi // div
    if div != 1:
        e = ir.Bin("floordiv", e, const(div, e.dtype), e.dtype)
    if hi - lo + 1 >= mod or lo // mod != hi // mod:
        e, lo, hi = ir.Bin("mod", e, const(mod, e.dtype), e.dtype), 0, mod - 1
    elif lo >= mod:
        e = ir.Bin("sub", e, const(lo // mod * mod, e.dtype), e.dtype)
        lo, hi = lo % mod, hi % mod
    return Ix(e, lo, hi)


def compose(outer: tuple[Comp, ...], inner: tuple[Comp, ...]) -> tuple[Comp, ...]:
    """`outer` indexes a base by a view's dimensions, `inner` the view by new ones."""
    out = []
    for c in outer:
        if c.fixed is not None:
            out.append(c)
            continue
        i = inner[c.dim]
        assert i.mod == 0, "only a base's own view is flattened"
        if i.fixed is not None:
            ix = affine(i.fixed, c.start, c.step)
            out.append(Comp(fixed=divmod_ix(ix if c.off is None else ix_add(ix, c.off), c.div, c.mod)))
            continue
        off = c.off
        if i.off is not None:
            scaled = affine(i.off, 0, c.step)
            off = scaled if off is None else ix_add(off, scaled)
        out.append(Comp(i.dim, c.start + c.step * i.start, c.step * i.step, off=off, div=c.div, mod=c.mod))
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


def full_view(info: ArrayInfo, shape: tuple | None = None) -> View:
    """All of `info`'s elements (with `shape`: the leading run-time lengths of a temporary
    stored at its largest)."""
    return View(info, info.shape if shape is None else tuple(shape), identity(len(info.shape)))


@dataclass(eq=False)
class Selection:
    """The elements a boolean mask selects, not yet packed together: `value(idx)` and
    `mask(idx)` at every index of the mask's `shape`. A reduction of a selection loops over
    `shape` and takes the elements where the mask holds, in numpy's (row-major) order,
    without storing them; selections with equal `key` (the same mask) combine elementwise
    position by position, as numpy combines the packed arrays element by element."""

    shape: tuple[int, ...]
    mask: Callable[[tuple[Ix, ...]], ir.Expr]
    value: Callable[[tuple[Ix, ...]], TE]
    key: tuple


@dataclass(eq=False)
class AV:
    """An array value: `at(idx)` is the element at `idx` (one Ix per dimension).

    `view` is set when the value is stored elements (a name or slice); `fill`
    when it is produced by loops of its own (a matrix product), which can write
    straight into a target. `sel` is set for a boolean-mask selection (`x[mask]`, a 1-D
    array of run-time length): `at` then reads the selected elements packed into a
    temporary (made on first use), while reductions read `sel` directly.
    """

    shape: tuple[int, ...]
    dtype: DType
    at: Callable[[tuple[Ix, ...]], TE]
    view: View | None = None
    fill: Callable[[View], list[ir.Stmt]] | None = None
    sel: Selection | None = None
    source: View | None = None  # stored elements this value shows reordered, which numpy may view


Operand = AV | TE


@dataclass(eq=False)
class Region:
    """A loop body or a branch being lowered: the names bound to arrays as it began, and the
    arrays names were rebound to inside it (name, array, line)."""

    bound: set[str]
    loop: bool
    rebound: list[tuple[str, ArrayInfo, int]] = field(default_factory=list)


def numpy_sample(x: Operand) -> Any:
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


def describe_operand(x: Operand) -> str:
    if isinstance(x, AV):
        return f"{x.dtype.name} array"
    return describe(x.pt)
