"""Elements of arrays: which array a name is, element reads and targets, and indices.

An index is checked against its dimension using the intervals of its value
and the facts that guards around it establish (`if i >= 1:`); negative indices
count from the end as in Python. Subscripts with slices, or of views, are the
array lowering's.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from partition import ir
from partition.dtypes import INT64, narrowest_signed
from partition.frontend.arrays.values import ParamDyn
from partition.frontend.model import TE, ArrayInfo, Reject, cast, const
from partition.frontend.types import NP, PyBool, PyFloat, PyInt, describe, range_of


class Indexing:
    """Array names, element reads and index expressions (part of `Lowerer`)."""

    def lookup_array(self, name: str) -> ArrayInfo | None:
        if name in self.arrays:
            return self.arrays[name]
        if name in self.global_values and not self.is_local_name(name):
            g = self.global_ref(name, self.fn)
            if isinstance(g, ArrayInfo):
                return g
        return None

    def array_of(self, node: ast.expr) -> Any:
        """The array a name refers to: an ArrayInfo, or an arrays.values.View for a name bound to a slice."""
        if isinstance(node, ast.Name):
            return self.sc.views.get(node.id) or self.lookup_array(node.id)
        return None

    def load(self, node: ast.Subscript) -> TE:
        line = node.lineno
        rec = self.record_of(node.value)
        if rec is not None:
            return self.record_item(rec, node)
        # a.shape[k]
        if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            arr = self.array_of(node.value.value)
            if arr is not None:
                k = self.int_expr(node.slice)
                r = range_of(k.pt)
                if r[0] != r[1] or not -len(arr.shape) <= r[0] < len(arr.shape):
                    raise Reject(line, "shape index that is not a constant in range")
                return self.dim_te(arr.shape[r[0]], line)
        if self.arr.needs_view(node):
            return self.arr.scalar_load(node)
        arr, idx = self.subscript_target(node)
        arr.loaded = True
        pt = self.elem_type(arr)
        return TE(pt, ir.Load(arr.name, idx, arr.dtype))

    def subscript_target(self, node: ast.Subscript) -> tuple[ArrayInfo, tuple[ir.Expr, ...]]:
        if self.arr.needs_view(node):
            return self.arr.scalar_target(node)
        base, index_nodes = self.flatten_subscript(node)
        arr = self.array_of(base)
        line = node.lineno
        if arr is None:
            rec = self.record_of(base)
            if rec is not None:
                raise Reject(line, f"assignment into {rec.what} (its items cannot change)")
            what = base.id if isinstance(base, ast.Name) else type(base).__name__
            raise Reject(line, f"subscript of {what}, which is not a numpy array")
        if len(index_nodes) != len(arr.shape):
            raise Reject(
                line,
                f"{arr.pyname} is {len(arr.shape)}-D but indexed with {len(index_nodes)} index(es) "
                "(whole rows and slices are not supported yet)",
            )
        idx = tuple(self.index(i, d, line) for i, d in zip(index_nodes, arr.shape))
        return arr, idx

    def flatten_subscript(self, node: ast.Subscript) -> tuple[ast.expr, list[ast.expr]]:
        chain: list[ast.expr] = []
        cur: ast.expr = node
        while isinstance(cur, ast.Subscript):
            sl = cur.slice
            parts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            chain = list(parts) + chain
            cur = cur.value
        for p in chain:
            if isinstance(p, ast.Slice):
                raise Reject(node.lineno, "array slice (slicing is not supported yet)")
        return cur, chain

    @contextmanager
    def facts_from(self, test: ast.expr, holds: bool) -> Iterator[None]:
        """Inside `if E >= K:` (and similar) E is known to be >= K: index checks use that.

        Only bounds on expressions compared with constants are kept, keyed by the
        expression's source form; they refine intervals where the same
        expression is used as an index (the usual border guard of a stencil).
        """
        added: list[tuple[str, tuple[int, int] | None]] = []
        for key, lo, hi in self._bounds(test, holds):
            prev = self.facts.get(key)
            added.append((key, prev))
            cur = prev or (INT64.min, INT64.max)
            self.facts[key] = (max(cur[0], lo), min(cur[1], hi))
        try:
            yield
        finally:
            for key, prev in reversed(added):
                if prev is None:
                    self.facts.pop(key, None)
                else:
                    self.facts[key] = prev

    def _bounds(self, test: ast.expr, holds: bool) -> list[tuple[str, int, int]]:
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and holds:
            return [b for v in test.values for b in self._bounds(v, True)]
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) and not holds:
            return [b for v in test.values for b in self._bounds(v, False)]
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self._bounds(test.operand, not holds)
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return []
        left, op, right = test.left, type(test.ops[0]), test.comparators[0]
        flip = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}
        if isinstance(left, ast.Constant) and op in flip:
            left, right, op = right, left, flip[op]
        if not (isinstance(right, ast.Constant) and isinstance(right.value, int)) or isinstance(
            right.value, bool
        ):
            return []
        if not holds:
            neg = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt}
            if op not in neg:
                return []
            op = neg[op]
        k = right.value
        key = ast.dump(left)
        lo, hi = INT64.min, INT64.max
        if op is ast.GtE:
            lo = k
        elif op is ast.Gt:
            lo = k + 1
        elif op is ast.LtE:
            hi = k
        elif op is ast.Lt:
            hi = k - 1
        else:
            return []
        return [(key, lo, hi)]

    def fact_lower_bound(self, node: ast.expr, line: int) -> int:
        """The least value of the Python int expression `node` from the facts known here about
        its names (loop variables' ranges, guards), as a sum of terms; INT64's least if none."""
        try:
            return self.arr.linear(node, "an index", line).interval()[0]
        except Reject:
            return INT64.min

    def index(self, node: ast.expr, dim: int, line: int) -> ir.Expr:
        return self.index_of(self.expr(node), node, dim, line)

    def index_of(self, te: TE, node: ast.expr, dim: int, line: int) -> ir.Expr:
        """The in-bounds index `te` (the value of `node`) denotes in a dimension of size `dim`."""
        fact = self.facts.get(ast.dump(node))
        if fact is not None and isinstance(te.pt, PyInt):
            te = TE(PyInt(max(te.pt.lo, fact[0]), min(te.pt.hi, fact[1])), te.e)
        if isinstance(te.pt, (PyBool,)) or (isinstance(te.pt, NP) and not te.pt.dtype.is_int):
            raise Reject(line, f"index of type {describe(te.pt)}")
        if isinstance(te.pt, PyFloat):
            raise Reject(line, "float used as an index")
        if isinstance(dim, ParamDyn):
            return self.run_time_index(te, node, dim, line)
        lo, hi = range_of(te.pt)
        if lo < 0 and isinstance(te.pt, PyInt):  # `x[n - k]` inside loops that keep n >= k
            lo = max(lo, self.fact_lower_bound(node, line))
        e = te.e
        if e.dtype.kind == "uint" or lo >= 0:
            return e
        # Python's negative indices count from the end
        dt = narrowest_signed(min(lo, 0), max(hi, dim)) or INT64
        e = cast(e, dt)
        wrapped = ir.Bin("add", e, const(dim, dt), dt)
        if hi < 0:
            return wrapped
        return ir.Select(ir.Cmp("lt", e, const(0, dt)), wrapped, e, dt)
