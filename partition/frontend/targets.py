"""Tuple assignment: `a, b = ...` to names, elements and nested targets.

Python evaluates the whole right-hand side first, then assigns the targets
left to right, each target's own subscript being evaluated when it is
assigned: `a[i], a[j] = a[j], a[i]` swaps, and in `x, a[x] = a[i], x` the
element stored is the one the new `x` names. So every value goes into a
temporary first and the targets are assigned from the temporaries in order.

A right-hand side with a tuple value is a tuple display (nested displays for
nested targets), `divmod(a, b)` (`(a // b, a % b)`, both exactly Python's and
numpy's operators), a call of an app function returning a tuple, an array's
`.shape`, or a 1-D array of the target's length (unpacked element by element).
Arrays among the items of a display to names (`r, g = img[..., 0], img[..., 1]`,
`src, dst = dst, src`) are bound as `name = item` is, after every item is evaluated
(`ArrayLowering.assign_tuple`: a swap exchanges the buffers' contents).
"""

from __future__ import annotations

import ast
from typing import Any

from partition import ir
from partition.frontend.arrays.values import ix_const
from partition.frontend.model import TE, ArrayInfo, Reject

Item = TE | ArrayInfo | list  # a value to assign: a scalar, an array, or a tuple of items


class Targets:
    """Tuple assignments (part of `Lowerer`)."""

    def tuple_assign(
        self, target: ast.Tuple | ast.List, value: ast.expr, line: int, top: bool
    ) -> list[ir.Stmt]:
        names = target.elts
        if any(isinstance(t, ast.Starred) for t in names):
            raise Reject(line, "starred assignment target (*rest)")
        if all(isinstance(n, ast.Name) for n in names):
            rec = self.record_of(value)
            if rec is not None:
                return self.record_unpack(rec, names, line)
        value = self.row_items(value, len(names)) or value
        dims = self.shape_items(value, line) if all(isinstance(n, ast.Name) for n in names) else None
        if dims is not None:
            if len(dims) != len(names):
                raise Reject(line, f"unpacking {len(dims)} lengths of a shape into {len(names)} targets")
            return [self.assign_var(n.id, self.dim_te(d, line), line, value) for n, d in zip(names, dims)]
        helper = self.resolve_helper(value.func) if isinstance(value, ast.Call) else None
        if helper is not None:
            results = self.inline(value, *helper)
            if not isinstance(results, list) or len(results) != len(names):
                raise Reject(line, "unpacking a helper's result that is not a tuple of the same length")
            if all(isinstance(n, ast.Name) for n in names):
                out: list[ir.Stmt] = []
                for n, r in zip(names, results):
                    out.extend(self.bind_result(n.id, r, line))
                return out
            return self.assign_items(target, self.hold_items(results, line), line)
        held: list[ir.Stmt] = []
        if (
            all(isinstance(n, ast.Name) for n in names)
            and isinstance(value, (ast.Tuple, ast.List))
            and len(value.elts) == len(names)
            and any(self.is_array_item(v) for v in value.elts)
        ):  # arrays among the items: bound as `name = item` after every item is evaluated
            out = self.arr.assign_tuple(
                names, value.elts, line, lambda v: self.hold(self.expr(v), v, line, held)
            )
            return held + out
        items = self.tuple_items(value, len(names), line, held)
        return held + self.assign_items(target, items, line)

    def tuple_items(self, value: ast.expr, n: int, line: int, held: list[ir.Stmt]) -> list[Any]:
        """The right-hand side's values, each held in a temporary (assigned by the statements `held`)."""
        if isinstance(value, (ast.Tuple, ast.List)):
            if len(value.elts) != n:
                raise Reject(line, f"unpacking {len(value.elts)} values into {n} targets")
            out: list[Any] = []
            for v in value.elts:
                if isinstance(v, (ast.Tuple, ast.List)):
                    out.append(self.tuple_items(v, len(v.elts), line, held))
                    continue
                out.append(self.hold(self.item_value(v, line), v, line, held))
            return out
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "divmod":
            if self.is_local_name("divmod"):
                raise Reject(line, "divmod is a local name here")
            if n != 2:
                raise Reject(line, f"unpacking divmod() into {n} targets")
            return [self.hold(te, value, line, held) for te in self.divmod(value)]
        rank = self.arr.rank_of(value)
        if rank is not None:
            if rank != 1:
                raise Reject(line, f"unpacking a {rank}-D array into {n} targets (its rows are arrays)")
            a = self.arr.av(value)
            if a.shape[0] != n:
                raise Reject(line, f"unpacking {a.shape[0]} elements into {n} targets")
            elems = [a.at((ix_const(k),)) for k in range(n)]
            return [self.hold(te, value, line, held) for te in elems]
        raise Reject(line, "tuple assignment from something other than a tuple of the same length")

    def shape_items(self, value: ast.expr, line: int) -> list[int] | None:
        """The lengths `x.shape` or `x.shape[a:b]` unpacks to (None: not a shape)."""
        part = None
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
            value, part = value.value, value.slice
        if not (isinstance(value, ast.Attribute) and value.attr == "shape"):
            return None
        if self.arr.rank_of(value.value) is None:
            return None
        dims = list(self.arr.av(value.value).shape) if not isinstance(value.value, ast.Name) else None
        if dims is None:
            arr = self.array_of(value.value)
            if arr is None:
                return None
            dims = list(arr.shape)
        if part is None:
            return dims
        bounds = []
        for b in (part.lower, part.upper, part.step):
            te = None if b is None else self.expr(b)
            if te is not None and not isinstance(te.e, ir.Const):
                raise Reject(line, "a slice of a shape with bounds that are not constants")
            bounds.append(None if te is None else int(te.e.value))
        return dims[slice(*bounds)]

    def is_array_item(self, v: ast.expr) -> bool:
        return (isinstance(v, ast.Name) and self.lookup_array(v.id) is not None) or self.arr.rank_of(
            v
        ) is not None

    def item_value(self, v: ast.expr, line: int) -> TE:
        if (isinstance(v, ast.Name) and self.lookup_array(v.id) is not None) or self.arr.rank_of(
            v
        ) is not None:
            raise Reject(
                line,
                f"tuple assignment of array {ast.unparse(v)[:40]} (it would change which array a name "
                "refers to, e.g. a buffer swap src, dst = dst, src; a kernel's arrays are fixed buffers: "
                "copy the elements instead)",
            )
        return self.expr(v)

    def hold(self, te: TE, node: ast.expr, line: int, held: list[ir.Stmt]) -> TE:
        """`te` in a new temporary (so that assigning the targets cannot change it)."""
        self.r.temp_counter += 1
        tmp = f"__t{self.r.temp_counter}"
        held.append(self.assign_var(tmp, te, line, node))
        return self.read_var(tmp, node)

    def hold_items(self, results: list[Any], line: int) -> list[Any]:
        out: list[Any] = []
        for r in results:
            if isinstance(r, TE):
                out.append(r)  # an inlined helper's results are in its own variables already
            else:
                raise Reject(line, "unpacking an array a helper returns into an element or a nested target")
        return out

    def assign_items(self, target: ast.Tuple | ast.List, items: list[Any], line: int) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for t, item in zip(target.elts, items):
            out.extend(self.assign_item(t, item, line))
        return out

    def assign_item(self, t: ast.expr, item: Any, line: int) -> list[ir.Stmt]:
        """One target given one held value."""
        if isinstance(t, (ast.Tuple, ast.List)):
            if not isinstance(item, list):
                raise Reject(line, "unpacking a scalar into a nested target")
            if len(item) != len(t.elts):
                raise Reject(line, f"unpacking {len(item)} values into {len(t.elts)} targets")
            return self.assign_items(t, item, line)
        if isinstance(item, list):
            raise Reject(
                line, f"assigning a tuple to {ast.unparse(t)[:40]} (tuples are not values in a kernel)"
            )
        if isinstance(t, ast.Name):
            if t.id in self.arrays or t.id in self.sc.views:
                raise Reject(line, f"{t.id} is an array here and a scalar elsewhere")
            return [self.assign_var(t.id, item, line, t)]
        if isinstance(t, ast.Subscript):
            if self.arr.rank_of(t) is not None:
                raise Reject(
                    line, f"assigning a scalar of a tuple to the array elements {ast.unparse(t)[:40]}"
                )
            outer, self.pending = self.pending, []
            try:
                arr, idx = self.subscript_target(t)
                value = self.store_value(item, arr, line)
                arr.stored = True
                return [*self.pending, ir.Store(arr.name, idx, value, line)]
            finally:
                self.pending = outer
        raise Reject(line, f"assignment to {type(t).__name__}")

    def divmod(self, node: ast.Call) -> list[TE]:
        """divmod(a, b) as (a // b, a % b): Python's (and numpy's) own pair for ints and floats."""
        line = node.lineno
        if node.keywords or len(node.args) != 2:
            raise Reject(line, "divmod() with other than two arguments")
        a, b = (self.expr(x) for x in node.args)
        return [self.binop("floordiv", a, b, node), self.binop("mod", a, b, node)]
