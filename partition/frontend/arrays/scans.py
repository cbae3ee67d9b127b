"""Arrays numpy computes from another's elements in order: scans, rolls and logical ufuncs.

* `np.cumsum(a)` / `np.cumprod(a)` (and their methods): the running sum or product, in
  numpy's dtype for it (int64 for smaller integers), of a 1-D array, of the flattened array
  (no axis) or along one constant axis; a sequential loop per line. `np.add/multiply/maximum/
  minimum.accumulate(a[, axis])` likewise, along axis 0 by default and in the ufunc's dtype
  (no widening: int8 stays int8), the extremes NaN-propagating as np.maximum/np.minimum.
* `np.roll(a, shift[, axis])` with a constant shift: element i of the result is element
  (i - shift) mod n of the axis (of a 1-D array, or along an axis); a new array, as numpy's.
* `np.logical_and/or/xor(a, b)` and `np.logical_not(a)`: the truth of each element (nonzero,
  NaN true) combined as booleans.
* `np.stack(arrays[, axis])`, `np.concatenate(arrays[, axis])`, `np.hstack`, `np.vstack` of a
  list or tuple of arrays written out: each element picked from its array by the index along
  the axis (the other arrays' reads clamped inside them).
* `np.pad(a, width[, mode="constant", constant_values=c])` and `mode="edge"` with constant
  widths: a new array, each element the source's (its index clamped to the array for "edge",
  the constant outside it for "constant").
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import numpy as np

from partition import ir
from partition.dtypes import INT64, narrowest_signed
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import AV, Dyn, Ix, Operand, View, affine, divmod_ix, has_dyn, ix_const
from partition.frontend.model import TE, Reject, cast, const
from partition.frontend.syntax import text
from partition.frontend.types import NP

SCANS = ("cumsum", "cumprod")
ACCUMULATED = ("add", "multiply", "maximum", "minimum")  # np.<ufunc>.accumulate
JOINS = ("stack", "concatenate", "hstack", "vstack")
LOGICAL = ("logical_and", "logical_or", "logical_xor", "logical_not")


class Scans:
    """Scans, rolls and logical ufuncs (part of `ArrayLowering`)."""

    lw: ScalarLowering

    def scan_rank(self, node: ast.Call) -> int | None:
        """The rank of a scan, roll or logical ufunc call, None for other calls."""
        f = node.func
        name = self.lw.numpy_attr(f)
        args = [a for a in node.args if not isinstance(a, ast.Starred)]
        if name is None and isinstance(f, ast.Attribute) and f.attr in SCANS:
            r = self.rank_of(f.value)
            if r is None:
                return None
            return r if (node.args or node.keywords) else 1
        if name is None and self.accumulated(f) is not None and args:
            return self.rank_of(args[0])  # ufunc.accumulate keeps the shape (axis 0 by default)
        if name in SCANS and args:
            r = self.rank_of(args[0])
            if r is None:
                return None
            return r if (len(args) > 1 or any(k.arg == "axis" for k in node.keywords)) else 1
        if name in ("roll", "pad") and args:
            return self.rank_of(args[0])
        if name in JOINS and args and isinstance(args[0], (ast.List, ast.Tuple)) and args[0].elts:
            ranks = [self.rank_of(x) for x in args[0].elts]
            if any(r is None for r in ranks):
                return None
            r = max(ranks)  # type: ignore[type-var]
            if name == "stack":
                return r + 1
            if name == "vstack":
                return max(r, 2)
            return r
        if name in LOGICAL and args:
            ranks = [r for r in (self.rank_of(a) for a in args) if r is not None]
            return max(ranks) if ranks else None
        return None

    def scan_call(self, node: ast.Call) -> AV | None:
        """The array value of a scan, roll or logical ufunc call, None for other calls."""
        lw = self.lw
        f = node.func
        name = lw.numpy_attr(f)
        if (
            name is None
            and isinstance(f, ast.Attribute)
            and f.attr in SCANS
            and self.rank_of(f.value) is not None
        ):
            return self.scan(f.attr, self.av(f.value), node, list(node.args), f".{f.attr}()")
        if name in SCANS and node.args:
            return self.scan(name, self.av(node.args[0]), node, list(node.args[1:]), f"np.{name}()")
        ufunc = self.accumulated(f) if name is None else None
        if ufunc is not None and node.args:
            what = f"np.{ufunc}.accumulate()"
            return self.scan(ufunc, self.av(node.args[0]), node, list(node.args[1:]), what)
        if name == "roll":
            return self.roll(node)
        if name == "pad":
            return self.pad(node)
        if name in JOINS:
            return self.joined(name, node)
        if name in LOGICAL:
            return self.logical(name, node)
        return None

    def accumulated(self, f: ast.expr) -> str | None:
        """`u` of a call `np.u.accumulate` (add, multiply, maximum, minimum), else None."""
        if (
            isinstance(f, ast.Attribute)
            and f.attr == "accumulate"
            and isinstance(f.value, ast.Attribute)
            and f.value.attr in ACCUMULATED
            and self.lw.numpy_attr(f.value) is not None
        ):
            return f.value.attr
        return None

    def scan(self, kind: str, a: AV, node: ast.Call, extra: list[ast.expr], what: str) -> AV:
        """A running sum, product (cumsum/cumprod, np.add/np.multiply.accumulate) or extreme
        (np.maximum/np.minimum.accumulate: NaN propagates as in np.maximum) along an axis."""
        line = node.lineno
        axis_node = extra[0] if extra else None
        if len(extra) > 1:
            raise Reject(line, f"{what} with more than an axis as positional arguments")
        for kw in node.keywords:
            if kw.arg == "axis" and axis_node is None:
                axis_node = kw.value
            else:
                raise Reject(line, f"{what} with {kw.arg}=")
        if axis_node is None and kind in ACCUMULATED:
            axis_node = ast.Constant(0)  # ufunc.accumulate: axis 0, not the flattened array
        if axis_node is None or (isinstance(axis_node, ast.Constant) and axis_node.value is None):
            if kind in ACCUMULATED:
                raise Reject(line, f"{what} with axis=None (numpy raises for more than one dimension)")
            if len(a.shape) != 1:
                a = self.flattened("flatten", a, ast.Call(ast.Name("flatten"), [], [], lineno=line))
            axis = 0
        else:
            k = self.slice_bound(axis_node)
            rank = len(a.shape)
            if type(k) is not int or not -rank <= k < rank:
                raise Reject(line, f"{what}: the axis must be one constant int in -{rank}..{rank - 1}")
            axis = k % rank
        fn = getattr(np, kind).accumulate if kind in ACCUMULATED else getattr(np, kind)
        rdt = self.probe(fn, [a], f"{what} of a {a.dtype.name} array", line)
        shape = a.shape
        n = shape[axis]
        if n == 0 or isinstance(n, Dyn):
            raise Reject(line, f"{what} along an empty axis or one whose length is known only at run time")
        others = (*shape[:axis], *shape[axis + 1 :])
        op = "add" if kind in ("cumsum", "add") else "mul"
        extreme = {"maximum": "max", "minimum": "min"}.get(kind)

        def fill(target: View) -> list[ir.Stmt]:
            def outer(rest: tuple[Ix, ...]) -> list[ir.Stmt]:
                acc = self.scalar_temp("acc", rdt)

                def step(k: tuple[Ix, ...]) -> list[ir.Stmt]:
                    idx = (*rest[:axis], k[0], *rest[axis:])
                    x = cast(a.at(idx).e, rdt)
                    if extreme is not None:
                        value = self.extremum(extreme, TE(NP(rdt), acc), TE(NP(rdt), x), rdt).e
                    elif rdt.is_bool:
                        value = ir.Bin("or" if op == "add" else "and", acc, x, rdt)
                    else:
                        value = ir.Bin(op, acc, x, rdt)
                    return [
                        ir.Assign(acc.name, value, line),
                        ir.Store(
                            target.base.name,
                            target.index(idx),
                            self.lw.store_value(TE(NP(rdt), acc), target.base, line),
                            line,
                        ),
                    ]

                if extreme is not None:  # the first element itself
                    init = cast(a.at((*rest[:axis], ix_const(0), *rest[axis:])).e, rdt)
                else:
                    init = const(0 if op == "add" else 1, rdt)
                return [ir.Assign(acc.name, init, line), *self.loop_nest((n,), line, step)]

            target.base.stored = True
            return self.loop_nest(others, line, outer) if others else outer(())

        if rdt.is_float and extreme is None:
            self.note_float_order(rdt, what, "numpy accumulates in order too", line)
        return self.produced(shape, rdt, fill, line)

    def roll(self, node: ast.Call) -> AV:
        line = node.lineno
        if not 2 <= len(node.args) <= 3 or any(isinstance(x, ast.Starred) for x in node.args):
            raise Reject(line, "np.roll() takes an array, a shift and an axis")
        a = self.av(node.args[0])
        axis_node = node.args[2] if len(node.args) > 2 else None
        for kw in node.keywords:
            if kw.arg == "axis" and axis_node is None:
                axis_node = kw.value
            else:
                raise Reject(line, f"np.roll() with {kw.arg}=")
        shift = self.slice_bound(node.args[1])
        if type(shift) is not int:
            raise Reject(line, "np.roll(): the shift must be one constant int")
        rank = len(a.shape)
        if axis_node is None or (isinstance(axis_node, ast.Constant) and axis_node.value is None):
            if rank != 1:
                raise Reject(line, "np.roll() of an array of 2 or more dimensions without an axis")
            axis = 0
        else:
            k = self.slice_bound(axis_node)
            if type(k) is not int or not -rank <= k < rank:
                raise Reject(line, f"np.roll(): the axis must be one constant int in -{rank}..{rank - 1}")
            axis = k % rank
        n = a.shape[axis]
        if isinstance(n, Dyn):
            raise Reject(line, "np.roll() along a slice whose length is known only at run time")
        s = (-shift) % n

        def at(idx: tuple[Ix, ...]) -> TE:
            src = divmod_ix(affine(idx[axis], s, 1), 1, n) if s else idx[axis]
            return a.at((*idx[:axis], src, *idx[axis + 1 :]))

        return AV(a.shape, a.dtype, at)

    def logical(self, name: str, node: ast.Call) -> AV:
        line = node.lineno
        arity = 1 if name == "logical_not" else 2
        if len(node.args) != arity or node.keywords or any(isinstance(x, ast.Starred) for x in node.args):
            raise Reject(
                line, f"np.{name}() takes {arity} operand{'s' if arity > 1 else ''} (and no keywords)"
            )
        zero = self.lw.expr(ast.Constant(0, lineno=line))
        ops: list[Operand] = []
        for x in node.args:
            v = self.operand(x)
            if isinstance(v, AV) and v.dtype.is_bool:
                ops.append(v)
            elif isinstance(v, AV):
                ops.append(self.compare("ne", v, zero, node))
            elif v.e.dtype.is_bool:
                ops.append(v)
            else:
                raise Reject(line, f"np.{name}() of a scalar that is not a bool (write x != 0)")
        if name == "logical_not":
            assert isinstance(ops[0], AV)
            return self.unary("invert", ops[0], node)
        op = {"logical_and": "and", "logical_or": "or", "logical_xor": "xor"}[name]
        return self.binary(op, ops[0], ops[1], node)

    def pad(self, node: ast.Call) -> AV:
        line = node.lineno
        if len(node.args) != 2 or any(isinstance(x, ast.Starred) for x in node.args):
            raise Reject(line, "np.pad() takes an array and the pad widths")
        a = self.av(node.args[0])
        rank = len(a.shape)
        if has_dyn(a.shape):
            raise Reject(line, "np.pad() of a slice whose length is known only at run time")
        kw = {k.arg: k.value for k in node.keywords}
        if set(kw) - {"mode", "constant_values"}:
            raise Reject(line, f"np.pad() with {sorted(set(kw) - {'mode', 'constant_values'})[0]}=")
        mode = kw.get("mode")
        mode_name = "constant" if mode is None else (mode.value if isinstance(mode, ast.Constant) else None)
        if mode_name not in ("constant", "edge"):
            raise Reject(
                line, f"np.pad() with mode={text(mode) if mode else ''} (constant and edge are taken)"
            )
        try:
            widths = np.broadcast_to(np.array(ast.literal_eval(node.args[1]), dtype=np.int64), (rank, 2))
        except (ValueError, TypeError, SyntaxError):
            raise Reject(line, "np.pad(): the widths must be written as constants") from None
        if (widths < 0).any():
            raise Reject(line, "np.pad(): negative widths (numpy raises)")
        dt = a.dtype
        fill: ir.Expr | None = None
        if mode_name == "constant":
            cv = kw.get("constant_values")
            te = self.lw.expr(cv) if cv is not None else self.lw.expr(ast.Constant(0, lineno=line))
            if isinstance(te.pt, tuple) or not hasattr(te.e, "dtype"):
                raise Reject(line, "np.pad(): constant_values must be one number")
            if dt.is_int and te.e.dtype.is_float:
                raise Reject(line, "np.pad(): a float constant for an integer array")
            # numpy stores it into the array (NumPy 2 raises for an int beyond the dtype)
            fill = self.lw.fitting(te, dt, line) if dt.is_int else cast(te.e, dt)
        elif "constant_values" in kw:
            raise Reject(line, "np.pad(): constant_values= with mode='edge'")
        shape = tuple(int(n + b + e) for n, (b, e) in zip(a.shape, widths))

        def at(idx: tuple[Ix, ...]) -> TE:
            src, inside = [], []
            for d, ix in enumerate(idx):
                before, n = int(widths[d][0]), a.shape[d]
                if before == 0 and shape[d] == n:
                    src.append(ix)
                    continue
                idt = narrowest_signed(-before, shape[d]) or INT64
                shifted = ir.Bin("sub", cast(ix.e, idt), const(before, idt), idt)
                clamped = ir.Bin("min", ir.Bin("max", shifted, const(0, idt), idt), const(n - 1, idt), idt)
                src.append(Ix(clamped, 0, n - 1))
                if fill is not None:
                    inside.append(
                        ir.Logic(
                            "land", ir.Cmp("ge", shifted, const(0, idt)), ir.Cmp("lt", shifted, const(n, idt))
                        )
                    )
            value = cast(a.at(tuple(src)).e, dt)
            if fill is None or not inside:
                return TE(NP(dt), value)
            cond = inside[0]
            for c in inside[1:]:
                cond = ir.Logic("land", cond, c)
            return TE(NP(dt), ir.Select(cond, value, fill, dt))

        return AV(shape, dt, at)

    def joined(self, name: str, node: ast.Call) -> AV:
        line = node.lineno
        if len(node.args) not in (1, 2) or not isinstance(node.args[0], (ast.List, ast.Tuple)):
            raise Reject(line, f"np.{name}() of a list or tuple of arrays written out")
        kw = {k.arg: k.value for k in node.keywords}
        if set(kw) - {"axis"} or (len(node.args) == 2 and "axis" in kw):
            raise Reject(line, f"np.{name}() with keywords other than axis=")
        parts = [self.av(x) for x in node.args[0].elts]
        if any(has_dyn(p.shape) for p in parts):
            raise Reject(line, f"np.{name}() of a slice whose length is known only at run time")
        if name == "vstack":  # 1-D arrays become rows
            parts = [p if len(p.shape) >= 2 else AV((1, *p.shape), p.dtype, _row_of(p)) for p in parts]
        rank = len(parts[0].shape) + (1 if name == "stack" else 0)
        axis_node = kw.get("axis") or (node.args[1] if len(node.args) == 2 else None)
        if name in ("hstack", "vstack"):
            axis = 0 if name == "vstack" or rank == 1 else 1
        else:
            k = 0 if axis_node is None else self.slice_bound(axis_node)
            if type(k) is not int or not -rank <= k < rank:
                raise Reject(line, f"np.{name}(): the axis must be one constant int in -{rank}..{rank - 1}")
            axis = k % rank
        rdt = (
            self.probe(lambda *xs: getattr(np, name)(list(xs)), parts, f"np.{name}()", line)
            if name != "stack"
            else None
        )
        if name == "stack":
            if any(p.shape != parts[0].shape for p in parts):
                raise Reject(line, "np.stack() of arrays of different shapes (numpy raises)")
            rdt = self.probe(lambda *xs: np.stack(list(xs)), parts, "np.stack()", line)
            shape = (*parts[0].shape[:axis], len(parts), *parts[0].shape[axis:])
            sizes = [1] * len(parts)
        else:
            base = parts[0].shape
            if any(
                len(p.shape) != len(base)
                or p.shape[:axis] + p.shape[axis + 1 :] != base[:axis] + base[axis + 1 :]
                for p in parts
            ):
                raise Reject(line, f"np.{name}() of arrays whose other dimensions differ (numpy raises)")
            sizes = [p.shape[axis] for p in parts]
            shape = (*base[:axis], sum(sizes), *base[axis + 1 :])
        assert rdt is not None
        starts = [sum(sizes[:j]) for j in range(len(parts))]

        def at(idx: tuple[Ix, ...]) -> TE:
            ix = idx[axis]
            idt = narrowest_signed(-shape[axis], shape[axis]) or INT64
            value: ir.Expr | None = None
            for j in reversed(range(len(parts))):
                p, lo, n = parts[j], starts[j], sizes[j]
                if name == "stack":
                    src = (*idx[:axis], *idx[axis + 1 :])
                else:
                    local = ir.Bin("sub", cast(ix.e, idt), const(lo, idt), idt)
                    clamped = ir.Bin("min", ir.Bin("max", local, const(0, idt), idt), const(n - 1, idt), idt)
                    src = (*idx[:axis], Ix(clamped, 0, n - 1), *idx[axis + 1 :])
                e = cast(p.at(src).e, rdt)
                if value is None:
                    value = e
                else:
                    value = ir.Select(ir.Cmp("lt", cast(ix.e, idt), const(lo + n, idt)), e, value, rdt)
            assert value is not None
            return TE(NP(rdt), value)

        return AV(shape, rdt, at)


def _row_of(p: AV) -> Callable[[tuple[Ix, ...]], TE]:
    return lambda idx: p.at(idx[1:])
