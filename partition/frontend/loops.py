"""Loops: `for` over range() (or over an array's elements) and bounded `while`.

A `for` loop's variable gets a type holding its bounds, and its trip count is
estimated from the profiled values of the bounds. A `while` loop becomes a
counted loop over a bound that is proven from its condition or given by a
`# partition: max-iterations N` mark, leaving when the condition fails.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from partition import ir
from partition.dtypes import BOOL, UINT8
from partition.frontend.model import Reject, VarState, cast, const
from partition.frontend.source import read_source
from partition.frontend.syntax import jumps
from partition.frontend.types import PyInt, describe, ir_dtype, range_of
from partition.profile.ranges import while_key

PROVEN = "proven from its condition"
MAX_PROVEN_TRIPS = 1 << 32  # a while bound beyond this is no bound a kernel can use


class Loops:
    """for and while loops (part of `Lowerer`)."""

    def indexed_for(self, s: ast.For) -> ast.For:
        """`for v in a:` over a 1-D array or list as `for i in range(len(a)): v = a[i]` (numpy and
        lists both yield the element at each position as the loop reaches it); over a numpy array
        of more dimensions v is each row (a view); over `a.flatten()`, `a.ravel()`, `np.ravel(a)`
        or `a.reshape(-1)` v is each element in row-major order (see `flat_for`); and
        `for x, y in a:` over the rows of a 2-D array or list (of tuples) of two columns as
        `for i in range(len(a)): x, y = a[i]`."""
        it, target = s.iter, s.target
        if s.orelse:
            return s
        if isinstance(it, ast.Call):
            return self.flat_for(s) if isinstance(target, ast.Name) else s
        if not isinstance(it, ast.Name):
            return s
        arr = self.array_of(it)
        if arr is None:
            return s
        if isinstance(target, ast.Name) and (len(arr.shape) == 1 or arr.pytype == "ndarray"):
            idx = f"__{target.id}_at{s.lineno}"
        elif (
            isinstance(target, ast.Tuple)
            and all(isinstance(t, ast.Name) for t in target.elts)
            and len(arr.shape) == 2
            and arr.shape[1] == len(target.elts)
        ):
            idx = f"__{it.id}_row{s.lineno}"
        else:
            return s
        self.sc.local_names.add(idx)
        load = ast.Load()
        rng = ast.Call(
            ast.Name("range", load), [ast.Call(ast.Name("len", load), [ast.Name(it.id, load)], [])], []
        )
        elem = ast.Assign([target], ast.Subscript(ast.Name(it.id, load), ast.Name(idx, load), load))
        loop = ast.For(ast.Name(idx, ast.Store()), rng, [elem, *s.body], [])
        for node in (rng, elem, loop, *ast.walk(rng), *ast.walk(elem)):
            ast.copy_location(node, s)
        ast.copy_location(loop.target, s)
        return loop

    def flat_for(self, s: ast.For) -> ast.For:
        """`for v in a.flatten():` (and ravel, reshape(-1)) as loops over a's dimensions reading
        `v = a[i0, i1, ...]`: numpy yields the elements in row-major order. flatten (and ravel of
        a non-contiguous slice) iterates over a copy, so the body must not write a; a `break`
        would leave only the innermost loop, so it is rejected."""
        it = s.iter
        assert isinstance(it, ast.Call)
        f = it.func
        line = s.lineno
        np_name = self.numpy_attr(f)
        if np_name == "ravel" and len(it.args) == 1 and not it.keywords:
            how, src = "ravel", it.args[0]
        elif isinstance(f, ast.Attribute) and f.attr in ("flatten", "ravel", "reshape"):
            how, src = f.attr, f.value
            if how == "reshape" and not (
                len(it.args) == 1 and isinstance(it.args[0], ast.UnaryOp) and not it.keywords
            ):
                return s
            if how != "reshape" and (it.args or it.keywords):
                return s
        else:
            return s
        if not isinstance(src, ast.Name):
            return s
        b = self.arr.binding(src.id)
        if b is None or (not self.arr.is_view(b) and b.pytype != "ndarray"):
            return s
        if how == "reshape" and not (
            isinstance(it.args[0].operand, ast.Constant) and it.args[0].operand.value == 1
        ):
            return s
        if _breaks(s.body):
            raise Reject(line, f"break (or return) inside a loop over {ast.unparse(it)}")
        view = b if self.arr.is_view(b) else None
        copy = how == "flatten" or (view is not None and self.arr.flat_view(view) is None)
        if copy and self.may_write(s.body, b):
            raise Reject(
                line,
                f"the loop over {ast.unparse(it)} may write {src.id} (numpy iterates over a copy; "
                "write the loop over the indices)",
            )
        load = ast.Load()
        names = []
        for k in range(len(b.shape)):
            names.append(f"__{s.target.id}_at{s.lineno}_{k}")
            self.sc.local_names.add(names[-1])
        index = [ast.Name(n, load) for n in names]
        elem = ast.Assign(
            [ast.Name(s.target.id, ast.Store())],
            ast.Subscript(
                ast.Name(src.id, load), ast.Tuple(index, load) if len(index) > 1 else index[0], load
            ),
        )
        body: list[ast.stmt] = [elem, *s.body]
        for n, d in reversed(list(zip(names, b.shape))):
            rng = ast.Call(ast.Name("range", load), [ast.Constant(int(d))], [])
            body = [ast.For(ast.Name(n, ast.Store()), rng, body, [])]
        loop = body[0]
        for node in ast.walk(loop):
            if "lineno" in node._attributes and getattr(node, "lineno", None) is None:
                ast.copy_location(node, s)
        return loop  # type: ignore[return-value]

    def may_write(self, body: list[ast.stmt], b: object) -> bool:
        """True when the statements may write the array `b` names (through any name or a helper)."""
        base = b.base if self.arr.is_view(b) else b  # type: ignore[attr-defined]

        def names_base(root: ast.expr) -> bool:
            if not isinstance(root, ast.Name):
                return True
            other = self.arr.binding(root.id)
            if other is None:
                return True  # a name bound later, possibly to a view of it
            return (other.base if self.arr.is_view(other) else other) is base

        for st in body:
            for n in ast.walk(st):
                if isinstance(n, ast.Call) and self.resolve_helper(n.func) is not None:
                    return True
                if (
                    isinstance(n, ast.AugAssign)
                    and isinstance(n.target, ast.Name)
                    and self.arr.binding(n.target.id) is not None
                    and names_base(n.target)
                ):
                    return True
                targets = (
                    n.targets
                    if isinstance(n, ast.Assign)
                    else [n.target]
                    if isinstance(n, ast.AugAssign)
                    else []
                )
                for t in targets:
                    for x in ast.walk(t):
                        if isinstance(x, ast.Subscript):
                            root = x
                            while isinstance(root, ast.Subscript):
                                root = root.value
                            if names_base(root):
                                return True
        return False

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
        fs, fe = self.fact_range(it.args[0] if len(args) > 1 else None, (lo_s, hi_s), line), (lo_e, hi_e)
        if len(args) > 1:
            fe = self.fact_range(it.args[1], (lo_e, hi_e), line)
        elif args:
            fe = self.fact_range(it.args[0], (lo_e, hi_e), line)
        with self.nested(loop=True), self.loop_fact(s, stepv, fs, fe), self.run_time_bound(s, it.args, stepv):
            body = self.block(s.body)
        self.r.dead_loop_vars.add(var)
        return ir.For(self.irname(var), cast(start.e, vdt), cast(stop.e, vdt), stepv, body, trip, line, label)

    def fact_range(self, node: ast.expr | None, r: tuple[int, int], line: int) -> tuple[int, int]:
        """A range() bound's interval narrowed by what the enclosing loops' facts say of the names
        in it (`range(i + 1, n)` inside `for i in range(n - 1, -1, -1)` starts at 1..n, while
        i's type also holds the -1 it has after its loop)."""
        if node is None or not all(
            isinstance(
                x,
                (
                    ast.Name,
                    ast.Constant,
                    ast.BinOp,
                    ast.UnaryOp,
                    ast.Load,
                    ast.Add,
                    ast.Sub,
                    ast.USub,
                    ast.UAdd,
                ),
            )
            for x in ast.walk(node)
        ):
            return r
        try:
            a, b = self.arr.linear(node, "range()", line).interval()
        except Reject:
            return r
        lo, hi = max(r[0], a), min(r[1], b)
        return (lo, hi) if lo <= hi else r

    @contextmanager
    def loop_fact(
        self, s: ast.For, step: int, start: tuple[int, int], stop: tuple[int, int]
    ) -> Iterator[None]:
        """Inside `for v in range(a, b, step)` v lies in [a, b) (or (b, a] going down), unless the
        body assigns v: a fact for the slices and indices of the body (the variable's type also
        holds the value one step past, which is what it has after the loop)."""
        pyvar = s.target.id  # type: ignore[union-attr]
        assigned = any(
            isinstance(n, ast.Name) and n.id == pyvar and not isinstance(n.ctx, ast.Load)
            for st in s.body
            for n in ast.walk(st)
        )
        key = ast.dump(ast.Name(pyvar, ast.Load()))
        prev = self.facts.get(key)
        if not assigned:
            lo, hi = (start[0], stop[1] - 1) if step > 0 else (stop[0] + 1, start[1])
            if prev is not None:
                lo, hi = max(lo, prev[0]), min(hi, prev[1])
            self.facts[key] = (lo, hi)
        try:
            yield
        finally:
            if prev is None:
                self.facts.pop(key, None)
            else:
                self.facts[key] = prev

    def run_time_bound(self, s: ast.For, args: list[ast.expr], step: int) -> Any:
        """The loop variable's bound by a run-time length (`partition.frontend.lengths`), unless
        the body assigns it."""
        pyvar = s.target.id  # type: ignore[union-attr]
        assigned = any(
            isinstance(n, ast.Name) and n.id == pyvar and not isinstance(n.ctx, ast.Load)
            for st in s.body
            for n in ast.walk(st)
        )
        start = args[0] if len(args) > 1 else ast.Constant(0)
        stop = args[1] if len(args) > 1 else args[0]
        return self.loop_bound(pyvar, None if assigned else stop, None if assigned else start, step)

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
        checked = how != PROVEN  # a bound not proven: one more iteration finds it exceeded
        self.note(f"line {line}: while loop bounded by {bound:,} iterations ({how})")
        outer, self.pending = self.pending, []
        cond = self.truth(self.expr(s.test), s.test)
        before, self.pending = self.pending, outer  # what the condition computes runs every iteration
        self.r.temp_counter += 1
        counter = f"__w{self.r.temp_counter}"
        key = self.key(counter)
        stop = bound + 1 if checked else bound
        pt = PyInt(0, stop)
        self.r.assigned[key] = pt
        self.vars.setdefault(key, VarState(pt=pt))
        dt = ir_dtype(pt)
        self.r.loop_counter += 1
        label = f"L{self.r.loop_counter}"
        leave = ir.If(ir.Un("not", cond.e, BOOL), [ir.Break(line)], [], line)
        exceeded: list[ir.Stmt] = []
        if checked:  # the condition still holds after `bound` iterations: this call runs on the CPU
            hit = ir.Cmp("eq", ir.Var(self.irname(key), dt), const(bound, dt))
            flag = ir.Assign(self.status_name(), const(1, UINT8), line)
            exceeded = [ir.If(hit, [flag, ir.Break(line)], [], line)]
        with self.nested(loop=True):
            body = [*before, leave, *exceeded, *self.block(s.body)]
        return ir.For(self.irname(key), const(0, dt), const(stop, dt), 1, body, stop, line, label)

    def while_bound(self, s: ast.While) -> tuple[int, str]:
        line = s.lineno
        text = read_source(self.src.path).splitlines()[line - 1] if self.src.path.exists() else ""
        mark = re.search(r"#\s*partition:\s*max-iterations\s+(\d+)", text)
        if mark:
            return int(mark.group(1)), "max-iterations mark; beyond it the call runs on the CPU"
        proven = self.proven_while_bound(s)
        if proven is not None:
            return proven, PROVEN
        seen = self.sc.fp.local_ranges.get(while_key(line - self.sc.fn.lineno))
        if seen and isinstance(seen.get("max"), int) and not seen.get("error"):
            most = int(seen["max"])
            bound = most + most // 4 + 8
            return bound, (
                f"at most {most:,} in the profiled calls, with headroom; a call that needs more runs on the CPU"
            )
        raise Reject(
            line,
            "while loop without a provable bound that never ran in the profiled calls (add "
            "`# partition: max-iterations N` on the while line, or write it as a for loop over range())",
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
        if any(jumps(b, (ast.Continue,)) for b in s.body[:idx]):
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
        bound = max(0, -(-span // abs(c)))
        return bound if bound <= MAX_PROVEN_TRIPS else None  # a bound from int64's ends proves nothing useful

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


def _breaks(body: list[ast.stmt]) -> bool:
    """True when a `break` in `body` leaves the loop whose body it is (not a nested one)."""
    for st in body:
        if isinstance(st, ast.Break):
            return True
        if isinstance(st, (ast.For, ast.While)):
            continue
        for child in ast.iter_child_nodes(st):
            if isinstance(child, ast.stmt) and _breaks([child]):
                return True
    return False
