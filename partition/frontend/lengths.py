"""Indexing arrays whose leading length is known only at run time (`arrays.values.ParamDyn`).

A kernel built for the longest array of its argument takes every shorter one, so
an index that stayed inside the profiled arrays may leave a shorter one (an odd
length where every profiled length was even: `x[i + 1]` in `range(0, len(x), 2)`).
Python raises IndexError there; the kernel must then hand the call back to the CPU,
and never read or write outside its buffer. So every index into such a
dimension is either proven below the length, or checked: the call's fallback
status is set when it is not, and the index is clamped into the buffer.

The proof is symbolic over the source: an expression bounded above by
`len(x) + k` (`len(x)`, `x.shape[0]`, a name assigned once from one of them, a
variable of a loop whose stop is such an expression, plus or minus constants)
indexes `x` in bounds when k <= -1.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager

from partition import ir
from partition.dtypes import BOOL, INT64, narrowest_signed
from partition.frontend.arrays.values import ParamDyn
from partition.frontend.model import TE, cast, const
from partition.frontend.types import range_of

Bound = tuple[tuple, int]  # (a run-time length's key, k): at most that length + k


class RunTimeLengths:
    """Indices into run-time lengths (part of `Lowerer`)."""

    def dim_of_node(self, node: ast.expr) -> ParamDyn | None:
        """The run-time length `node` is exactly (`len(x)`, `x.shape[0]`, a name assigned once
        from one of them), or None."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
            if len(node.args) == 1 and not node.keywords and not self.is_local_name("len"):
                arr = self.array_of(node.args[0]) if isinstance(node.args[0], ast.Name) else None
                if arr is not None and isinstance(arr.shape[0], ParamDyn):
                    return arr.shape[0]
            return None
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "shape"
            and isinstance(node.value.value, ast.Name)
            and isinstance(node.slice, ast.Constant)
            and node.slice.value == 0
        ):
            arr = self.array_of(node.value.value)
            if arr is not None and isinstance(arr.shape[0], ParamDyn):
                return arr.shape[0]
            return None
        if isinstance(node, ast.Name):
            source = self.single_assignment(node.id)
            if source is not None:
                return self.dim_of_node(source)
        return None

    def dim_less(self, node: ast.expr, line: int) -> ParamDyn | None:
        """`len(x) - c` as an array size (c a constant >= 1): a run-time length c shorter; a call
        where it is negative goes back to the CPU (numpy raises ValueError there)."""
        if not (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Sub)
            and isinstance(node.right, ast.Constant)
            and type(node.right.value) is int
            and node.right.value >= 1
        ):
            return None
        dim = self.dim_of_node(node.left)
        if dim is None or dim.off:
            return None
        c = node.right.value
        if c >= dim.hi:
            return None
        if dim.lo < c:
            self.fallback_if(ir.Cmp("lt", dim.e, const(c, dim.e.dtype)), line)
        return dim.shifted(-c)

    def single_assignment(self, name: str) -> ast.expr | None:
        """What `name` is assigned from when the function assigns it exactly once, by `name = E`
        or `name, ... = x.shape` (then `x.shape[k]`), and nothing else binds it."""
        found: list[ast.expr] = []
        stores = 0
        for n in ast.walk(self.fn):
            if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
                stores += 1
            if isinstance(n, ast.arg) and n.arg == name:
                return None
            if isinstance(n, ast.Assign) and len(n.targets) == 1:
                t = n.targets[0]
                if isinstance(t, ast.Name) and t.id == name:
                    found.append(n.value)
                elif (
                    isinstance(t, ast.Tuple)
                    and isinstance(n.value, ast.Attribute)
                    and n.value.attr == "shape"
                ):
                    for k, elt in enumerate(t.elts):
                        if isinstance(elt, ast.Name) and elt.id == name:
                            found.append(ast.Subscript(n.value, ast.Constant(k), ast.Load()))
        return found[0] if stores == 1 and len(found) == 1 else None

    def upper_bound(self, node: ast.expr) -> Bound | None:
        """(length key, k) with `node` <= that run-time length + k, from the source, or None."""
        dim = self.dim_of_node(node)
        if dim is not None:
            return (dim.key, 0)
        if isinstance(node, ast.Name):
            return self.sc.sym_facts.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            left, right = node.left, node.right
            if isinstance(right, ast.Constant) and type(right.value) is int:
                bound, c = (
                    self.upper_bound(left),
                    right.value if isinstance(node.op, ast.Add) else -right.value,
                )
            elif isinstance(left, ast.Constant) and type(left.value) is int and isinstance(node.op, ast.Add):
                bound, c = self.upper_bound(right), left.value
            else:
                return None
            return (bound[0], bound[1] + c) if bound is not None else None
        return None

    @contextmanager
    def loop_bound(
        self, var: str, stop: ast.expr | None, start: ast.expr | None, step: int
    ) -> Iterator[None]:
        """Inside `for var in range(start, stop, step)` (var not assigned in the body): var is
        below a run-time length when the bound it runs towards is."""
        bound = None
        if step > 0 and stop is not None:
            b = self.upper_bound(stop)
            bound = (b[0], b[1] - 1) if b is not None else None
        elif step < 0 and start is not None:
            bound = self.upper_bound(start)
        facts = self.sc.sym_facts
        prev = facts.pop(var, None)
        if bound is not None:
            facts[var] = bound
        try:
            yield
        finally:
            facts.pop(var, None)
            if prev is not None:
                facts[var] = prev

    def run_time_index(self, te: TE, node: ast.expr, dim: ParamDyn, line: int) -> ir.Expr:
        """The element `te` (the value of `node`) denotes in a dimension of run-time length `dim`
        (a negative index counting from its end, as in Python): proven in bounds, or checked
        (the call goes back to the CPU, where Python raises IndexError) and clamped into the
        kernel's buffer."""
        lo, hi = range_of(te.pt)
        bound = self.upper_bound(node)
        below = bound is not None and bound[0] == dim.key and bound[1] <= -1
        if lo >= 0 and (below or hi <= dim.lo - 1):
            return te.e
        dt = narrowest_signed(min(lo, 0), max(hi, dim.hi)) or INT64
        e, n = cast(te.e, dt), cast(dim.e, dt)
        if lo < 0:  # Python counts a negative index from the end
            e = ir.Select(ir.Cmp("lt", e, const(0, dt)), ir.Bin("add", e, n, dt), e, dt)
        e = self.checked_operand(e, line)
        conds = []
        if lo + dim.lo < 0:  # may stay negative: below -len(x)
            conds.append(ir.Cmp("lt", e, const(0, dt)))
        if not below:
            conds.append(ir.Cmp("ge", e, n))
        if not conds:
            return e
        bad = conds[0] if len(conds) == 1 else ir.Logic("lor", conds[0], conds[1], BOOL)
        self.fallback_if(bad, line)
        return ir.Select(bad, const(0, dt), e, dt)
