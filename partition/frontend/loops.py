"""Loops: `for` over range() (or over an array's elements) and bounded `while`.

A `for` loop's variable gets a type holding its bounds, and its trip count is
estimated from the profiled values of the bounds. A `while` loop becomes a
counted loop over a bound that is proven from its condition or given by a
`# partition: max-iterations N` mark, leaving when the condition fails.
"""

from __future__ import annotations

import ast
import re

from partition import ir
from partition.dtypes import BOOL
from partition.frontend.model import Reject, VarState, cast, const
from partition.frontend.types import PyInt, describe, ir_dtype, range_of


class Loops:
    """for and while loops (part of `Lowerer`)."""

    def indexed_for(self, s: ast.For) -> ast.For:
        """`for v in a:` over a 1-D array or list as `for i in range(len(a)): v = a[i]` (numpy and
        lists both yield the element at each position as the loop reaches it)."""
        it = s.iter
        if s.orelse or not isinstance(s.target, ast.Name) or not isinstance(it, ast.Name):
            return s
        arr = self.array_of(it)
        if arr is None or len(arr.shape) != 1:
            return s
        idx = f"__{s.target.id}_at{s.lineno}"
        self.sc.local_names.add(idx)
        load = ast.Load()
        rng = ast.Call(
            ast.Name("range", load), [ast.Call(ast.Name("len", load), [ast.Name(it.id, load)], [])], []
        )
        elem = ast.Assign(
            [ast.Name(s.target.id, ast.Store())],
            ast.Subscript(ast.Name(it.id, load), ast.Name(idx, load), load),
        )
        loop = ast.For(ast.Name(idx, ast.Store()), rng, [elem, *s.body], [])
        for node in (rng, elem, loop, *ast.walk(rng), *ast.walk(elem)):
            ast.copy_location(node, s)
        ast.copy_location(loop.target, s)
        return loop

    def for_loop(self, s: ast.For) -> ir.For:
        line = s.lineno
        if s.orelse:
            raise Reject(line, "for ... else")
        if not isinstance(s.target, ast.Name):
            raise Reject(line, "for loop target is not a simple name")
        it = s.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
            what = self.callee_text(it.func) + "()" if isinstance(it, ast.Call) else type(it).__name__
            raise Reject(line, f"for loop over {what} (only range() is supported)")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise Reject(line, "range() with unusual arguments")
        args = [self.int_expr(a) for a in it.args]
        if len(args) == 1:
            start, stop, step = self.const_te(0, line), args[0], self.const_te(1, line)
        elif len(args) == 2:
            start, stop, step = args[0], args[1], self.const_te(1, line)
        else:
            start, stop, step = args
        sr = range_of(step.pt)
        if sr is None or sr[0] != sr[1]:
            raise Reject(line, "range() step is not a constant")
        stepv = sr[0]
        if stepv == 0:
            raise Reject(line, "range() step is zero")
        lo_s, hi_s = range_of(start.pt)
        lo_e, hi_e = range_of(stop.pt)
        # the loop variable's type must hold the bounds and one step past them
        iv = (min(lo_s, lo_e) + min(stepv, 0), max(hi_s, hi_e) + max(stepv, 0))
        trip = self.trip_estimate(it.args, stepv)
        pyvar = s.target.id
        if pyvar in self.arrays:
            raise Reject(line, f"loop variable {pyvar} is also an array")
        if pyvar in self.scalar_params or pyvar in self.consts:
            raise Reject(line, f"loop variable {pyvar} is a parameter (use a new local name)")
        var = self.key(pyvar)
        assign_pt = PyInt(*iv)
        self.r.dead_loop_vars.discard(var)
        self.defined.add(var)
        prev = self.r.assigned.get(var)
        self.r.assigned[var] = assign_pt if prev is None else self.join_round(prev, assign_pt, var)
        vt = self.var_type(var, fallback=assign_pt)
        if not isinstance(vt, PyInt):
            raise Reject(line, f"loop variable {pyvar} also holds {describe(vt)} values")
        vdt = ir_dtype(vt)
        self.r.loop_counter += 1
        label = f"L{self.r.loop_counter}"
        with self.nested(loop=True):
            body = self.block(s.body)
        self.r.dead_loop_vars.add(var)
        return ir.For(self.irname(var), cast(start.e, vdt), cast(stop.e, vdt), stepv, body, trip, line, label)

    def while_loop(self, s: ast.While) -> ir.For:
        """`while c:` as a counted loop over its bound whose first statement leaves when c is false.

        The bound is proven (`while i < n` with `i` stepped by a constant once per
        iteration and assigned nowhere else in the loop) or given on the `while`
        line as `# partition: max-iterations N`.
        """
        line = s.lineno
        if s.orelse:
            raise Reject(line, "while ... else")
        bound, how = self.while_bound(s)
        self.note(f"line {line}: while loop bounded by {bound:,} iterations ({how})")
        outer, self.pending = self.pending, []
        cond = self.truth(self.expr(s.test), s.test)
        before, self.pending = self.pending, outer  # what the condition computes runs every iteration
        self.r.temp_counter += 1
        counter = f"__w{self.r.temp_counter}"
        key = self.key(counter)
        pt = PyInt(0, bound)
        self.r.assigned[key] = pt
        self.vars.setdefault(key, VarState(pt=pt))
        dt = ir_dtype(pt)
        self.r.loop_counter += 1
        label = f"L{self.r.loop_counter}"
        leave = ir.If(ir.Un("not", cond.e, BOOL), [ir.Break(line)], [], line)
        with self.nested(loop=True):
            body = [*before, leave, *self.block(s.body)]
        return ir.For(self.irname(key), const(0, dt), const(bound, dt), 1, body, bound, line, label)

    def while_bound(self, s: ast.While) -> tuple[int, str]:
        line = s.lineno
        text = self.src.path.read_text().splitlines()[line - 1] if self.src.path.exists() else ""
        mark = re.search(r"#\s*partition:\s*max-iterations\s+(\d+)", text)
        if mark:
            return int(mark.group(1)), "max-iterations mark"
        proven = self.proven_while_bound(s)
        if proven is not None:
            return proven, "proven from its condition"
        raise Reject(
            line,
            "while loop without a provable bound (add `# partition: max-iterations N` on the while line, "
            "or write it as a for loop over range())",
        )

    def proven_while_bound(self, s: ast.While) -> int | None:
        t = s.test
        if not (isinstance(t, ast.Compare) and len(t.ops) == 1):
            return None
        left, op, right = t.left, t.ops[0], t.comparators[0]
        if isinstance(right, ast.Name) and not isinstance(left, ast.Name):
            left, right = right, left
            op = {ast.Lt: ast.Gt(), ast.LtE: ast.GtE(), ast.Gt: ast.Lt(), ast.GtE: ast.LtE()}.get(
                type(op), op
            )
        if not isinstance(left, ast.Name) or type(op) not in (ast.Lt, ast.LtE, ast.Gt, ast.GtE):
            return None
        var = left.id
        steps = []
        for n in ast.walk(ast.Module(body=s.body, type_ignores=[])):
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                for tg in targets:
                    # only a binding of the name counts (not `a[var] = ...`, which reads it)
                    if any(
                        isinstance(x, ast.Name) and x.id == var and isinstance(x.ctx, ast.Store)
                        for x in ast.walk(tg)
                    ):
                        steps.append(n)
        if len(steps) != 1 or steps[0] not in s.body:
            return None
        step = steps[0]
        if not (isinstance(step, ast.AugAssign) and isinstance(step.value, ast.Constant)):
            return None
        c = step.value.value
        if not isinstance(c, int) or isinstance(c, bool) or c == 0:
            return None
        if isinstance(step.op, ast.Sub):
            c = -c
        elif not isinstance(step.op, ast.Add):
            return None
        # no continue may skip the step
        idx = s.body.index(step)
        if any(_continues(b) for b in s.body[:idx]):
            return None
        ivar = range_of(self.var_type(self.key(var))) if var in self.local_names else None
        outer, self.pending = self.pending, []
        try:
            other = range_of(self.expr(right).pt)
        finally:
            self.pending = outer  # only the interval matters here; the condition is lowered later
        if ivar is None or other is None:
            return None
        upward = isinstance(op, (ast.Lt, ast.LtE))
        if upward != (c > 0):
            return None
        inclusive = isinstance(op, (ast.LtE, ast.GtE))
        span = (other[1] - ivar[0]) if upward else (ivar[1] - other[0])
        span += 1 if inclusive else 0
        return max(0, -(-span // abs(c)))

    def trip_estimate(self, args: list[ast.expr], step: int) -> int:
        """Iterations from the bounds, using observed values of scalar parameters."""
        self.observed_mode = True
        outer, self.pending = self.pending, []
        try:
            ivs = [range_of(self.int_expr(a).pt) for a in args]
        finally:
            self.observed_mode = False
            self.pending = outer  # the bounds' statements were made already; this pass reads intervals
        if len(ivs) == 1:
            start, stop = (0, 0), ivs[0]
        else:
            start, stop = ivs[0], ivs[1]
        if step > 0:
            span = stop[1] - start[0]
        else:
            span = start[1] - stop[0]
        return max(0, -(-span // abs(step)))


def _continues(s: ast.stmt) -> bool:
    """A `continue` in `s` that belongs to the loop around `s` (not to a loop inside it)."""
    if isinstance(s, ast.Continue):
        return True
    if isinstance(s, (ast.For, ast.While, ast.AsyncFor, ast.FunctionDef, ast.ClassDef)):
        return any(_continues(b) for b in s.orelse) if isinstance(s, (ast.For, ast.While)) else False
    return any(
        _continues(b) for f in ("body", "orelse", "finalbody", "handlers") for b in getattr(s, f, []) or []
    )
