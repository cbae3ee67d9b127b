"""Arrays whose elements are another's, reordered: flattening, sorting, flips and transposes
(gathers by index arrays are in `selections`).

* `a.flatten()` is a copy in row-major order. `np.ravel(a)`, `a.ravel()` and
  `a.reshape(-1)` are views when numpy makes views (a C-contiguous array or
  block; reshape also of a 1-D view), so writes through them reach `a`; each
  element is found by the quotient and remainder of its position. Otherwise
  ravel copies, as numpy does, and reshape is rejected. `a.reshape(d0, d1, ...)`
  to N-D (constant lengths, one may be -1) is a row-major re-indexing: a value
  whose element at an index is `a`'s at the same position; bound to a name it is
  a copy, refused where a write in place could tell it from numpy's view.
* `np.sort(a)` / `np.sort(a, axis=None)` of a small array: a copy sorted by an
  odd-even transposition network (n passes of compare-exchange), ascending,
  NaN last as in numpy. Equal values are indistinguishable except float -0.0
  and 0.0, which compare equal (as the float tolerance does).
"""

from __future__ import annotations

import ast
import math

import numpy as np

from partition import ir
from partition.dtypes import INT64, narrowest_signed
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import (
    AV,
    Comp,
    Dyn,
    Ix,
    View,
    affine,
    divmod_ix,
    full_view,
    has_dyn,
    ix_add,
    ix_const,
)
from partition.frontend.model import TE, Reject, cast, const
from partition.frontend.syntax import BINOPS, text
from partition.frontend.types import NP, PyInt, range_of

FLATTENERS = ("flatten", "ravel", "reshape")


class Reordered:
    """Gathers, flattened arrays and sorts (part of `ArrayLowering`)."""

    lw: ScalarLowering  # the function's lowerer, whose tables and scalar rules these methods use

    # ------------------------------------------------------------ flattening

    def flattened(self, how: str, a: AV, node: ast.Call) -> AV:
        """a.flatten() (a copy), np.ravel(a) / a.ravel() / a.reshape(-1) (views where numpy's are)."""
        line = node.lineno
        n = math.prod(a.shape)
        if how == "reshape":
            shape = self.new_shape(a.shape, node)
            if len(shape) != 1:
                return self.reshaped(a, shape, line)
        elif node.args or node.keywords:
            raise Reject(line, f"{text(node)} with arguments")
        if how != "flatten" and a.view is not None:
            flat = self.flat_view(a.view)
            if flat is not None:
                return self.view_av(flat)
            if len(a.shape) == 1 and how == "reshape":
                return a
            if how == "reshape":
                raise Reject(
                    line,
                    f"{text(node)}: reshape of a non-contiguous slice (numpy makes a view or a copy "
                    "depending on its strides; use .flatten() for a copy)",
                )
        if len(a.shape) == 1 and a.view is None:
            return a
        dt = a.dtype

        def fill(target: View) -> list[ir.Stmt]:
            def body(idx: tuple[Ix, ...]) -> list[ir.Stmt]:
                value = self.lw.store_value(a.at(idx), target.base, line)
                return [ir.Store(target.base.name, target.index((self.position(idx, a.shape),)), value, line)]

            target.base.stored = True
            return self.loop_nest(a.shape, line, body)

        return self.produced((n,), dt, fill, line)

    def new_shape(self, shape: tuple, node: ast.Call) -> tuple[int, ...]:
        """The shape `.reshape(d0, d1, ...)` / `.reshape((d0, ...))` asks for: constant lengths,
        at most one -1 (the rest), and as many elements as the array has (numpy raises otherwise)."""
        line = node.lineno
        if has_dyn(shape):
            raise Reject(line, f"{text(node)}: reshape of a slice whose length is known only at run time")
        n = math.prod(shape)
        args = list(node.args)
        if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
            args = list(args[0].elts)
        if not args or node.keywords or any(isinstance(x, ast.Starred) for x in args):
            raise Reject(line, f"{text(node)}: reshape takes the new lengths (no keywords)")
        dims = []
        for x in args:
            te = self.lw.expr(x)
            r = range_of(te.pt) if isinstance(te.pt, (PyInt, NP)) and te.e.dtype.is_int else None
            if r is None or r[0] != r[1]:
                raise Reject(line, f"{text(node)}: a new length {text(x)} that is not a constant int")
            dims.append(int(r[0]))
        if dims.count(-1) > 1 or any(d < -1 for d in dims):
            raise Reject(line, f"{text(node)}: numpy raises ValueError (lengths {tuple(dims)})")
        known = math.prod(d for d in dims if d != -1)
        if -1 in dims:
            if known == 0 or n % known:
                raise Reject(line, f"{text(node)}: numpy raises ValueError (cannot reshape {n} elements)")
            dims[dims.index(-1)] = n // known
        if math.prod(dims) != n:
            raise Reject(
                line,
                f"{text(node)}: numpy raises ValueError (cannot reshape {n} elements into {tuple(dims)})",
            )
        if 0 in dims:
            raise Reject(line, f"{text(node)}: an empty array (a kernel has no empty arrays)")
        return tuple(dims)

    def reshaped(self, a: AV, shape: tuple[int, ...], line: int) -> AV:
        """a.reshape(shape): the element at an index is the one at the same row-major position
        of `a`. A value, not a view: a name bound to it gets a copy, where `copy_bind`'s check of
        writes in place says a copy is what Python's view would show (`source`)."""
        src = a.shape

        def at(idx: tuple[Ix, ...]) -> TE:
            pos = self.position(idx, shape)
            out = []
            stride = math.prod(src)
            for d in src:
                stride //= d
                out.append(divmod_ix(pos, stride, d))
            return a.at(tuple(out))

        return AV(shape, a.dtype, at, source=a.view)

    @staticmethod
    def position(idx: tuple[Ix, ...], shape: tuple[int, ...]) -> Ix:
        """The row-major position of idx in an array of `shape`."""
        pos = ix_const(0)
        stride = 1
        for i, d in reversed(list(zip(idx, shape))):
            lo, hi = i.lo * stride, i.hi * stride
            dt = narrowest_signed(0, hi) or INT64
            term = Ix(
                cast(i.e, dt) if stride == 1 else ir.Bin("mul", cast(i.e, dt), const(stride, dt), dt), lo, hi
            )
            if i.lo == i.hi:
                term = ix_const(i.lo * stride)
            pos = ix_add(pos, term)
            stride *= d
        return pos

    def flat_view(self, v: View) -> View | None:
        """The 1-D view numpy's ravel gives of a C-contiguous view `v` (None when `v` is not one)."""
        base = v.base.shape
        extents = []
        dims = []
        for c in v.comps:
            if c.mod:
                return v if len(v.shape) == 1 else None
            if c.fixed is not None:
                extents.append((1, 1))
                continue
            dims.append(c.dim)
            extents.append((v.shape[c.dim], c.step))
        if dims != sorted(dims):
            return None
        k = next((b for b, (e, _) in enumerate(extents) if e > 1), len(base))
        for b, (e, step) in enumerate(extents):
            if b > k and (e != base[b] or step != 1):
                return None
            if b == k and step != 1:
                return None
        first = tuple(c.fixed if c.fixed is not None else self.first(c) for c in v.comps)
        offset = self.position(first, base)
        n = math.prod(v.shape)
        comps = []
        stride = 1
        strides = []
        for d in reversed(base):
            strides.append(stride)
            stride *= d
        strides.reverse()
        for d, st in zip(base, strides):
            off = None if offset.lo == offset.hi else offset
            start = offset.lo if offset.lo == offset.hi else 0
            comps.append(Comp(0, start, 1, off=off, div=st, mod=d))
        return View(v.base, (n,), tuple(comps))

    @staticmethod
    def first(c: Comp) -> Ix:
        """The index a sliced dimension starts at."""
        start = ix_const(c.start)
        return start if c.off is None else ix_add(c.off, start)

    # ------------------------------------------------------------ sorting

    def sort(self, a: AV, node: ast.Call) -> AV:
        """np.sort(a) of a 1-D array (or np.sort(a, axis=None) of any): an odd-even transposition network."""
        lw = self.lw
        line = node.lineno
        flat_all = False
        for kw in node.keywords:
            if kw.arg == "axis" and isinstance(kw.value, ast.Constant) and kw.value.value is None:
                flat_all = True
                continue
            if kw.arg == "kind":
                continue  # every kind sorts ascending; they differ only in the order of equal values
            raise Reject(line, f"np.sort() with {kw.arg}=")
        if len(node.args) > 1:
            raise Reject(line, "np.sort() with an axis argument")
        if len(a.shape) != 1 and not flat_all:
            raise Reject(
                line, f"np.sort() of a {len(a.shape)}-D array (along the last axis is not supported)"
            )
        if len(a.shape) != 1:
            a = self.flattened("flatten", a, ast.Call(ast.Name("flatten"), [], [], lineno=line))
        n = a.shape[0]
        dt = a.dtype
        tmp = full_view(self.temp_array(dt, (n,)))
        stmts = self.store_loop(tmp, a, line)
        lw.r.temp_counter += 1
        lw.r.loop_counter += 2
        pv = lw.irname(f"__p{lw.r.temp_counter}")
        iv = lw.irname(f"__q{lw.r.temp_counter}")
        idt = narrowest_signed(0, n + 1) or INT64
        p, i = ir.Var(pv, idt), ir.Var(iv, idt)
        x = self.scalar_temp("lo", dt)
        y = self.scalar_temp("hi", dt)
        name = tmp.base.name
        nxt = ir.Bin("add", i, const(1, idt), idt)
        swap: ir.Expr = ir.Cmp("lt", y, x)
        if dt.is_float:  # NaN goes last: swap when x is NaN and y is not
            swap = ir.Logic("lor", swap, ir.Logic("land", ir.Cmp("ne", x, x), ir.Cmp("eq", y, y)))
        body = [
            ir.Assign(x.name, ir.Load(name, (i,), dt), line),
            ir.Assign(y.name, ir.Load(name, (nxt,), dt), line),
            ir.If(swap, [ir.Store(name, (i,), y, line), ir.Store(name, (nxt,), x, line)], [], line),
        ]
        start = ir.Bin("mod", p, const(2, idt), idt)
        inner = ir.For(iv, start, const(n - 1, idt), 2, body, n // 2, line, f"L{lw.r.loop_counter}")
        outer = ir.For(pv, const(0, idt), const(n, idt), 1, [inner], n, line, f"L{lw.r.loop_counter - 1}")
        tmp.base.loaded = True
        self.emit([*stmts, outer], line, "np.sort()")
        return self.view_av(tmp)

    # ------------------------------------------------------------ dispatch

    # ------------------------------------------------------------ flips and outer products

    def flipped(self, name: str, node: ast.Call) -> AV:
        """np.flip(a) / np.flip(a, axis) / np.flipud(a) / np.fliplr(a): a's elements in reverse
        order along the axes (all of them for np.flip without an axis)."""
        line = node.lineno
        if not node.args or isinstance(node.args[0], ast.Starred) or len(node.args) > 2:
            raise Reject(line, f"np.{name}() needs one array (and for np.flip an axis)")
        a = self.av(node.args[0])
        rank = len(a.shape)
        axis_node = node.args[1] if len(node.args) > 1 else None
        for kw in node.keywords:
            if kw.arg == "axis" and name == "flip" and axis_node is None:
                axis_node = kw.value
            else:
                raise Reject(line, f"np.{name}() with {kw.arg}=")
        if name == "flipud":
            axes = {0}
        elif name == "fliplr":
            if rank < 2:
                raise Reject(line, "np.fliplr() of a 1-D array (numpy raises)")
            axes = {1}
        elif axis_node is None or (isinstance(axis_node, ast.Constant) and axis_node.value is None):
            axes = set(range(rank))
        else:
            k = self.slice_bound(axis_node)
            if type(k) is not int or not -rank <= k < rank:
                raise Reject(line, f"np.flip(): the axis must be one constant int in -{rank}..{rank - 1}")
            axes = {k % rank}
        if has_dyn(tuple(a.shape[d] for d in axes)):
            return self.flipped_run_time(a, axes)
        # a view, as numpy's (writes through it reach a), like a[::-1]
        comps = tuple(Comp(d, a.shape[d] - 1, -1) if d in axes else Comp(d) for d in range(rank))
        return self.reindex(a, a.shape, comps)

    def transpose_call(self, name: str | None, node: ast.Call) -> AV:
        """np.transpose(a[, axes]) / a.transpose([axes] or *axes): a view with the axes
        permuted (reversed without axes), as numpy's."""
        line = node.lineno
        if node.keywords and any(k.arg != "axes" for k in node.keywords):
            raise Reject(line, "transpose() with keywords other than axes=")
        if name == "transpose":
            if not node.args:
                raise Reject(line, "np.transpose() without an array")
            a, rest = self.av(node.args[0]), list(node.args[1:])
        else:
            a, rest = self.av(node.func.value), list(node.args)  # type: ignore[attr-defined]
        rest += [k.value for k in node.keywords]
        rank = len(a.shape)
        if not rest or (len(rest) == 1 and isinstance(rest[0], ast.Constant) and rest[0].value is None):
            axes = tuple(reversed(range(rank)))
        else:
            try:
                value = (
                    ast.literal_eval(rest[0]) if len(rest) == 1 else tuple(ast.literal_eval(x) for x in rest)
                )
            except (ValueError, SyntaxError):
                raise Reject(line, "transpose(): the axes must be written as constants") from None
            axes = tuple(value) if isinstance(value, (tuple, list)) else (value,)
            if sorted(x % rank if isinstance(x, int) and -rank <= x < rank else -1 for x in axes) != list(
                range(rank)
            ):
                raise Reject(line, f"transpose(): {axes} is not a permutation of the {rank} axes")
            axes = tuple(x % rank for x in axes)
        return self.transposed(a, axes, line)

    def transposed(self, a: AV, axes: tuple[int, ...], line: int) -> AV:
        """`a` with result axis j being source axis axes[j] (a view where `a` is one)."""
        shape = tuple(a.shape[d] for d in axes)
        comps = tuple(Comp(axes.index(d)) for d in range(len(axes)))
        return self.reindex(a, shape, comps)

    def flipped_run_time(self, a: AV, axes: set[int]) -> AV:
        """A flip along axes of run-time length (`np.flip(r[:k])`): element i of such an axis is
        element (length - 1 - i); read-only (a statement that also writes `a` reads it first
        into a temporary, as for any overlap)."""

        def at(idx: tuple[Ix, ...]) -> TE:
            src = []
            for d, ix in enumerate(idx):
                n = a.shape[d]
                if d not in axes:
                    src.append(ix)
                elif isinstance(n, Dyn):
                    dt = narrowest_signed(-n.hi, n.hi) or INT64
                    e = ir.Bin("sub", ir.Bin("sub", cast(n.e, dt), const(1, dt), dt), cast(ix.e, dt), dt)
                    src.append(Ix(e, 0, n.hi - 1))
                else:
                    src.append(affine(ix, n - 1, -1))
            return a.at(tuple(src))

        return AV(a.shape, a.dtype, at)

    def outer(self, ufunc: str, node: ast.Call) -> AV:
        """np.outer(a, b) (1-D a and b) and np.<ufunc>.outer(a, b): the ufunc of every pair, of
        shape a.shape + b.shape, in numpy's dtype for the ufunc of the two."""
        line = node.lineno
        what = (
            "np.outer()"
            if ufunc == "multiply" and self.lw.numpy_attr(node.func) == "outer"
            else f"np.{ufunc}.outer()"
        )
        if len(node.args) != 2 or node.keywords or any(isinstance(x, ast.Starred) for x in node.args):
            raise Reject(line, f"{what} takes two arrays (and no keywords)")
        a, b = (self.operand(x) for x in node.args)
        if what == "np.outer()" and any(not isinstance(x, AV) or len(x.shape) != 1 for x in (a, b)):
            raise Reject(line, "np.outer() of arrays that are not 1-D (numpy flattens them: pass x.ravel())")
        ra = len(a.shape) if isinstance(a, AV) else 0
        shape = (*(a.shape if isinstance(a, AV) else ()), *(b.shape if isinstance(b, AV) else ()))

        def spread(x: AV | TE, first: bool) -> AV | TE:
            if not isinstance(x, AV):
                return x
            return AV(shape, x.dtype, (lambda idx: x.at(idx[:ra])) if first else (lambda idx: x.at(idx[ra:])))

        sa, sb = spread(a, True), spread(b, False)
        op_node = OUTER_UFUNCS[ufunc]
        if op_node is None:  # maximum / minimum
            which = "max" if ufunc == "maximum" else "min"
            _, element = self.minmax_parts(which, [sa, sb], node)
            return self.elementwise([sa, sb], element, getattr(np, ufunc), what, line)
        return self.binary(BINOPS[type(op_node)], sa, sb, node)

    def reordered_rank(self, node: ast.Call) -> int | None:
        """The rank of a flattening or sorting call (1), a flip (its argument's) or an outer
        product (the sum of its arguments'), None for other calls."""
        f = node.func
        name = self.lw.numpy_attr(f)
        if name in ("flip", "flipud", "fliplr", "transpose") and node.args:
            return self.rank_of(node.args[0])
        if name is None and isinstance(f, ast.Attribute) and f.attr == "transpose":
            return self.rank_of(f.value)
        if (name == "outer" or ufunc_outer(f) is not None) and len(node.args) == 2:
            ra, rb = (self.rank_of(a) for a in node.args)
            return (ra or 0) + (rb or 0) or None
        if name in ("ravel", "sort"):
            if name == "sort" and node.args and not node.keywords:
                return self.rank_of(node.args[0])
            return 1
        if isinstance(f, ast.Attribute) and f.attr in FLATTENERS and self.rank_of(f.value) is not None:
            if (
                f.attr == "reshape"
                and len(node.args) == 1
                and isinstance(node.args[0], (ast.Tuple, ast.List))
            ):
                return len(node.args[0].elts)
            return len(node.args) if f.attr == "reshape" and node.args else 1
        return None

    def reordered_call(self, node: ast.Call) -> AV | None:
        """The array value of np.ravel/np.sort/.flatten/.ravel/.reshape(-1), None for other calls."""
        lw = self.lw
        f = node.func
        name = lw.numpy_attr(f)
        if name in ("flip", "flipud", "fliplr"):
            return self.flipped(name, node)
        if name == "transpose" or (
            name is None
            and isinstance(f, ast.Attribute)
            and f.attr == "transpose"
            and self.rank_of(f.value) is not None
        ):
            return self.transpose_call(name, node)
        ufunc = "multiply" if name == "outer" else ufunc_outer(f)
        if ufunc is not None:
            return self.outer(ufunc, node)
        if name in ("ravel", "sort"):
            if not node.args or isinstance(node.args[0], ast.Starred):
                raise Reject(node.lineno, f"np.{name}() without an array")
            a = self.av(node.args[0])
            if name == "sort":
                return self.sort(a, ast.Call(f, node.args[1:], node.keywords, lineno=node.lineno))
            rest = ast.Call(f, node.args[1:], node.keywords, lineno=node.lineno)
            return self.flattened("ravel", a, rest)
        if isinstance(f, ast.Attribute) and f.attr in FLATTENERS and self.rank_of(f.value) is not None:
            return self.flattened(f.attr, self.av(f.value), node)
        return None


# ufunc.outer: np.<ufunc>.outer(a, b) for the ufuncs of arithmetic and comparison
OUTER_UFUNCS = {
    "add": ast.Add(), "subtract": ast.Sub(), "multiply": ast.Mult(), "divide": ast.Div(),
    "true_divide": ast.Div(), "floor_divide": ast.FloorDiv(), "power": ast.Pow(), "mod": ast.Mod(),
    "remainder": ast.Mod(), "bitwise_and": ast.BitAnd(), "bitwise_or": ast.BitOr(),
    "bitwise_xor": ast.BitXor(), "left_shift": ast.LShift(), "right_shift": ast.RShift(),
    "maximum": None, "minimum": None,
}  # fmt: skip


def ufunc_outer(f: ast.expr) -> str | None:
    """`u` of a call `np.u.outer` (a ufunc the outer product takes), else None."""
    if (
        isinstance(f, ast.Attribute)
        and f.attr == "outer"
        and isinstance(f.value, ast.Attribute)
        and f.value.attr in OUTER_UFUNCS
        and isinstance(f.value.value, ast.Name)
        and f.value.value.id in ("np", "numpy")
    ):
        return f.value.attr
    return None
