"""Slices with run-time bounds and a constant length: windows such as `img[y:y + k, x:x + k]`.

numpy clips a slice's bounds to the dimension (a window at the border is
smaller, a negative start counts from the end), so a window has one shape at
every run only when its bounds stay inside the dimension. The lowering takes
such a slice only when it can prove that:

* its length is a constant: both bounds are sums of multiples of the same
  run-time terms, which cancel in `stop - start` (`(i + 1) * f - i * f` is
  `f` for a constant f; `(y + k) - y` is k);
* its first element is never negative and its last never past the end, from
  the intervals of the terms (a loop variable's interval inside its loop is
  its range's, and `if` guards narrow an expression as for element indices).

Otherwise it says why, naming the slice. The bounds must be Python ints (a
numpy integer's arithmetic wraps, so `v + 3 - v` need not be 3).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from partition import ir
from partition.dtypes import INT64, narrowest_signed
from partition.frontend.arrays.scalars import ScalarLowering
from partition.frontend.arrays.values import Dyn, Ix
from partition.frontend.model import Reject, cast, const
from partition.frontend.syntax import text
from partition.frontend.types import PyBool, PyInt, range_of

# calls a bound may contain: pure builtins of ints (the same value wherever they appear)
_PURE_CALLS = frozenset({"int", "len", "abs", "min", "max"})
_IMPURE = (ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom, ast.ListComp, ast.SetComp)
_IMPURE += (ast.DictComp, ast.GeneratorExp)


@dataclass
class Linear:
    """k + the sum of coefficient * term; each term (by source form) with its interval."""

    k: int
    terms: dict[str, int] = field(default_factory=dict)
    bounds: dict[str, tuple[int, int]] = field(default_factory=dict)

    def plus(self, other: Linear, sign: int = 1) -> Linear:
        terms = dict(self.terms)
        for t, c in other.terms.items():
            terms[t] = terms.get(t, 0) + sign * c
        return Linear(
            self.k + sign * other.k,
            {t: c for t, c in terms.items() if c},
            {**self.bounds, **other.bounds},
        )

    def times(self, m: int) -> Linear:
        return Linear(self.k * m, {t: c * m for t, c in self.terms.items() if c * m}, self.bounds)

    def interval(self) -> tuple[int, int]:
        lo = hi = self.k
        for t, c in self.terms.items():
            a, b = self.bounds[t]
            lo += min(c * a, c * b)
            hi += max(c * a, c * b)
        return lo, hi


class Windows:
    """Slices with run-time bounds (part of `ArrayLowering`)."""

    lw: ScalarLowering  # the function's lowerer, whose tables and scalar rules these methods use

    def window(self, p: ast.Slice, dim: int, node: ast.AST, line: int) -> tuple[int, int, Ix]:
        """x[a:b:step] with run-time a, b and constant b - a: (length, step, the start as an index)."""
        where = text(node)
        step = 1
        if p.step is not None:
            r = self.bound_interval(p.step, line)
            if r is None or r[0] != r[1]:
                raise Reject(line, f"{where}: slice step {text(p.step)} is not a constant")
            step = r[0]
        if step <= 0:
            raise Reject(line, f"{where}: run-time slice bounds with a step of {step}")
        if p.lower is None or p.upper is None:
            if step != 1:
                raise Reject(line, f"{where}: a slice with a run-time bound, an open end and a step")
            return self.run_time_slice(p, dim, where, line)
        lo, hi = self.linear(p.lower, where, line), self.linear(p.upper, where, line)
        length = hi.plus(lo, -1)
        if length.terms:
            if step != 1:
                raise Reject(
                    line,
                    f"{where}: the slice's length ({text(p.upper)}) - ({text(p.lower)}) is not a constant "
                    "and it has a step",
                )
            return self.run_time_slice(p, dim, where, line)
        n = len(range(0, length.k, step))
        if n == 0:
            raise Reject(line, f"{where} is empty (a kernel has no empty arrays)")
        start = self.lw.expr(p.lower)
        s_lo, s_hi = lo.interval()
        r = range_of(start.pt)
        if r is not None:
            s_lo, s_hi = max(s_lo, r[0]), min(s_hi, r[1])
        if s_lo < 0:
            raise Reject(
                line,
                f"{where}: the slice may start at {s_lo} (numpy counts a negative start from the end or "
                "clips it, giving another window; guard it or start the loop later)",
            )
        if s_hi + (n - 1) * step > dim - 1:
            raise Reject(
                line,
                f"{where}: the slice may reach past the end of a dimension of size {dim} (numpy gives a "
                "shorter window there; a kernel's arrays have one shape)",
            )
        dt = narrowest_signed(s_lo, s_hi) or INT64
        return n, step, Ix(cast(start.e, dt), s_lo, s_hi)

    def run_time_slice(self, p: ast.Slice, dim: int, where: str, line: int) -> tuple[Dyn, int, Ix]:
        """x[a:b] whose length b - a is known only at run time (triangular loops: `A[i, :j]`,
        `A[i + 1:, i]`, `C[i, :i + 1]`): a dimension of run-time length max(b - a, 0), Python's
        length where both bounds lie in [0, dim] (proven here; a negative bound counts from the
        end in Python, and one past the end is clipped, which this does not do)."""
        zero, whole = ast.Constant(0, lineno=line), ast.Constant(dim, lineno=line)
        lo_node = p.lower if p.lower is not None else zero
        hi_node = p.upper if p.upper is not None else whole
        lo, hi = self.linear(lo_node, where, line), self.linear(hi_node, where, line)
        dt = narrowest_signed(-2 * dim, 2 * dim) or INT64
        bounds = []
        for lin, node, name in ((lo, lo_node, "start"), (hi, hi_node, "end")):
            a, b = lin.interval()
            r = range_of(self.lw.expr(node).pt) if not isinstance(node, ast.Constant) else None
            if r is not None:
                a, b = max(a, r[0]), min(b, r[1])
            if a < 0:
                raise Reject(
                    line,
                    f"{where}: the slice's {name} may be {a}, below 0 (Python counts a negative bound from the "
                    "end; guard it or bound the loop)",
                )
            e = cast(self.lw.expr(node).e, dt)
            if b > dim:
                # Python clips a bound past the end, which would make this slice shorter than its
                # linear length says (and unequal to a slice it is compared with): such a call is
                # handed back to the CPU; the others never read past the end
                self.lw.fallback_if(ir.Cmp("gt", e, const(dim, dt)), line)
                b = dim
            bounds.append((a, b, e))
        (slo, shi, start_e), (ehi_lo, ehi_hi, end_e) = bounds
        length = hi.plus(lo, -1)
        len_lo, len_hi = length.interval()
        len_lo, len_hi = max(len_lo, ehi_lo - shi), min(len_hi, ehi_hi - slo, dim)
        if len_hi <= 0:
            raise Reject(line, f"{where} is always empty (a kernel has no empty arrays)")
        e: ir.Expr = ir.Bin("sub", end_e, start_e, dt)
        if len_lo < 0:  # Python's empty slice where the end falls before the start
            e = ir.Select(ir.Cmp("lt", e, const(0, dt)), const(0, dt), e, dt)
        key = (tuple(sorted(length.terms.items())), length.k)
        sdt = narrowest_signed(slo, max(shi, dim)) or INT64
        return Dyn(e, len_hi, key), 1, Ix(cast(start_e, sdt), slo, shi)

    def bound_interval(self, node: ast.expr, line: int) -> tuple[int, int] | None:
        """The interval of a Python int (or bool) expression, narrowed by the facts known here."""
        te = self.lw.expr(node)
        if not isinstance(te.pt, (PyInt, PyBool)):
            return None
        lo, hi = range_of(te.pt)  # type: ignore[misc]
        fact = self.lw.facts.get(ast.dump(node))
        if fact is not None:
            lo, hi = max(lo, fact[0]), min(hi, fact[1])
        return lo, hi

    def linear(self, node: ast.expr, where: str, line: int) -> Linear:
        """`node` as k + sum of c * term, terms being the parts that are neither constants nor
        sums, differences or constant multiples."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            a, b = self.linear(node.left, where, line), self.linear(node.right, where, line)
            return a.plus(b, 1 if isinstance(node.op, ast.Add) else -1)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            a = self.linear(node.operand, where, line)
            return a.times(-1) if isinstance(node.op, ast.USub) else a
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            a, b = self.linear(node.left, where, line), self.linear(node.right, where, line)
            if not a.terms:
                return b.times(a.k)
            if not b.terms:
                return a.times(b.k)
        if not self.pure(node):
            raise Reject(line, f"{where}: slice bound part {text(node)} may differ between the two bounds")
        r = self.bound_interval(node, line)
        if r is None:
            raise Reject(
                line,
                f"{where}: slice bound part {text(node)} is not a Python int (numpy integers wrap, so the "
                "window's length is not provably constant)",
            )
        if r[0] == r[1]:
            return Linear(r[0])
        key = ast.dump(node)
        return Linear(0, {key: 1}, {key: r})

    def pure(self, node: ast.expr) -> bool:
        """True when `node` has one value wherever it appears in a subscript (no calls but pure builtins)."""
        for n in ast.walk(node):
            if isinstance(n, ast.Call):
                f = n.func
                if not (isinstance(f, ast.Name) and f.id in _PURE_CALLS and not self.lw.is_local_name(f.id)):
                    return False
            elif isinstance(n, _IMPURE):
                return False
        return True
