"""Proving that the `math` calls of a kernel never raise where Python's would.

`math.sqrt(-1.0)` raises ValueError, `math.exp(1000.0)` OverflowError, `math.floor`
of NaN ValueError; the kernel cannot raise, and its Math node gives NaN or inf
instead (numpy's value). So the frontend records, for each `math` call it
lowers, the domain where Python's call returns (`Requirement`), and after the
last round `check` runs an interval analysis over the kernel's IR: every scalar
and array element gets an interval (`partition.frontend.intervals`) that holds
all values it can take, loops to a fixed point (widened), branches and
conditional expressions refined by their conditions (`if x[i] >= 0:` bounds
`x[i]` inside), and a Math node whose argument interval leaves its domain
rejects the function with the line and the reason. numpy's functions (np.sqrt,
np.exp ...) return NaN or inf instead of raising, so they need no proof.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from partition import ir
from partition.dtypes import DType
from partition.frontend import intervals as iv
from partition.frontend.intervals import Iv

EXP_MAX = 709.78  # math.exp overflows just above log(DBL_MAX) = 709.7827...
HYPERBOLIC_MAX = 710.47  # math.sinh/cosh overflow just above 710.4758...
MAX_PASSES = 12  # over the whole body, until the array element intervals settle
MAX_FLAGS = 4  # bool variables a join keeps the paths of apart (`_State.split`)
WIDEN_AFTER = 2  # loop iterations joined exactly before bounds that still grow are widened


@dataclass(frozen=True)
class Requirement:
    """Python's call at `line` (spelled `call`) returns only when its arguments are in domain `kind`."""

    line: int
    call: str
    kind: str
    exponent: float | None = None  # pow: the constant exponent
    file: str = ""  # the source file of an inlined helper ("": the kernel's own)
    note_only: bool = False  # outside the domain the kernel's value stands, with a note


def _finite(x: Iv) -> bool:
    return x.lo > -iv.INF and x.hi < iv.INF


def _pow_ok(x: Iv, y: float | None) -> bool:
    """Python's float ** y (and math.pow) raise for a zero base to a negative power, a
    negative base to a fractional one (** gives a complex number) and on overflow."""
    if y is None:
        return False
    if y == 0 or x.empty:
        return True
    limit = math.log(1.7976931348623157e308) - 1e-9
    if not float(y).is_integer() and x.lo < 0:
        return False
    if y > 0:
        m = x.magnitude()
        return m == 0 or (math.isfinite(m) and y * math.log(m) < limit)
    m = x.smallest_magnitude()
    return m > 0 and (m >= 1 or -y * -math.log(m) < limit)


DOMAINS = {
    "nonneg": (lambda a, y: a[0].lo >= 0, "the argument may be negative (Python raises ValueError)"),
    "positive": (lambda a, y: a[0].lo > 0, "the argument may be zero or negative (Python raises ValueError)"),
    "above_minus_one": (
        lambda a, y: a[0].lo > -1,
        "the argument may be -1 or less (Python raises ValueError)",
    ),
    "exp": (
        lambda a, y: a[0].hi <= EXP_MAX,
        f"the argument may exceed {EXP_MAX} (Python raises OverflowError)",
    ),
    "hyperbolic": (
        lambda a, y: a[0].lo >= -HYPERBOLIC_MAX and a[0].hi <= HYPERBOLIC_MAX,
        f"the argument may lie beyond +-{HYPERBOLIC_MAX} (Python raises OverflowError)",
    ),
    "finite": (lambda a, y: _finite(a[0]), "the argument may be infinite (Python raises ValueError)"),
    "unit": (
        lambda a, y: a[0].lo >= -1 and a[0].hi <= 1,
        "the argument may lie outside [-1, 1] (Python raises ValueError)",
    ),
    "int64": (
        lambda a, y: not a[0].nan and a[0].lo >= -(2.0**63) and a[0].hi < 2.0**63,
        "the argument may be NaN or infinite (Python raises ValueError or OverflowError) or beyond "
        "64-bit integers (Python returns a wider int)",
    ),
    "fmod": (
        lambda a, y: not a[1].has_zero() and _finite(a[0]),
        "the divisor may be zero or the dividend infinite (Python raises ValueError)",
    ),
    "pow": (
        lambda a, y: _pow_ok(a[0], y),
        "the base may be zero with a negative exponent, negative with a fractional one, or overflow "
        "(Python raises ZeroDivisionError, returns a complex number, or raises OverflowError)",
    ),
}


@dataclass
class _State:
    """Intervals at one point: scalars by name, refined loads by expression.

    `split`: for a bool variable set differently on the paths that met here (the flag of
    an early `return` folded into the end), the state of the paths where it is False and
    where it is True (None: no such path), so that `if not flag:` right after sees only
    its own paths. A state is never changed once built; any change drops the split."""

    env: dict[str, Iv]
    facts: dict[ir.Expr, Iv] = field(default_factory=dict)
    split: dict[str, tuple[_State | None, _State | None]] = field(default_factory=dict)

    def copy(self) -> _State:
        return _State(dict(self.env), dict(self.facts))

    def where(self, flag: str, value: bool) -> _State | None:
        """This state on the paths where the bool variable `flag` is `value`."""
        x = self.env.get(flag)
        if x is not None and x.lo == x.hi:
            return self if bool(x.lo) == value else None
        if flag in self.split:
            return self.split[flag][int(value)]
        return self


@dataclass
class _Loop:
    breaks: list[_State] = field(default_factory=list)
    continues: list[_State] = field(default_factory=list)


_NEGATED = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}
_FLIPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


class RangeAnalysis:
    """Intervals of a kernel's values, and the `Requirement`s they break."""

    def __init__(self, kernel: ir.Kernel, requirements: dict[ir.Expr, list[Requirement]]):
        self.k = kernel
        self.reqs = requirements
        self.failures: dict[Requirement, str] = {}
        self.dtypes: dict[str, DType] = dict(kernel.scalars)
        self.dtypes.update({p.name: p.dtype for p in kernel.scalar_params})
        self.arrays: dict[str, Iv] = {p.name: iv.top(p.dtype) for p in kernel.arrays}
        for a in kernel.locals:
            if a.init is None:
                self.arrays[a.name] = iv.top(a.dtype)
            else:
                vals = [iv.const(x, a.dtype) for x in a.init] or [iv.EMPTY]
                acc = vals[0]
                for x in vals[1:]:
                    acc = iv.join(acc, x)
                self.arrays[a.name] = acc

    def run(self) -> dict[Requirement, str]:
        for n in range(MAX_PASSES):
            before = dict(self.arrays)
            start = _State({p.name: iv.top(p.dtype) for p in self.k.scalar_params})
            self.block(self.k.body, start, None)
            if self.arrays == before:
                break
            if n >= WIDEN_AFTER:
                for name, now in self.arrays.items():
                    self.arrays[name] = iv.widen(before[name], now, self.k.array_dtype(name))
        else:  # not settled: every element may hold anything, and one more pass under that
            self.arrays = {name: iv.top(self.k.array_dtype(name)) for name in self.arrays}
            start = _State({p.name: iv.top(p.dtype) for p in self.k.scalar_params})
            self.block(self.k.body, start, None)
        return self.failures

    # ---------------------------------------------------------- statements

    def block(self, body: list[ir.Stmt], st: _State | None, loop: _Loop | None) -> _State | None:
        for s in body:
            if st is None:
                return None
            st = self.stmt(s, st, loop)
        return st

    def stmt(self, s: ir.Stmt, st: _State, loop: _Loop | None) -> _State | None:
        if isinstance(s, ir.Assign):
            v = iv.cast(self.eval(s.value, st), s.value.dtype, self.dtypes[s.var])
            return self.assign(st, s.var, v)
        if isinstance(s, ir.Store):
            for i in s.index:
                self.eval(i, st)
            dt = self.k.array_dtype(s.array)
            v = iv.cast(self.eval(s.value, st), s.value.dtype, dt)
            self.arrays[s.array] = iv.join(self.arrays[s.array], v)
            out = st.copy()
            out.facts = {e: x for e, x in st.facts.items() if not _loads(e, s.array)}
            return out
        if isinstance(s, ir.If):
            self.eval(s.cond, st)
            t, f = self.refine(s.cond, True, st), self.refine(s.cond, False, st)
            a = self.block(s.then, t, loop) if t is not None else None
            b = self.block(s.orelse, f, loop) if f is not None else None
            return self.join(a, b)
        if isinstance(s, ir.For):
            return self.loop(s, st)
        if isinstance(s, ir.Break):
            if loop is not None:
                loop.breaks.append(st)
            return None
        if isinstance(s, ir.Continue):
            if loop is not None:
                loop.continues.append(st)
            return None
        if isinstance(s, ir.Return):
            if s.value is not None:
                self.eval(s.value, st)
            return st
        raise TypeError(f"unknown statement {type(s).__name__}")

    def loop(self, s: ir.For, st: _State) -> _State:
        start, stop = self.eval(s.start, st), self.eval(s.stop, st)
        dt = self.dtypes.get(s.var, s.start.dtype)
        var = Iv(start.lo, stop.hi - 1) if s.step > 0 else Iv(stop.lo + 1, start.hi)
        var = iv.meet(var, iv.top(dt))
        if var.empty:
            return st
        head = st
        ctx = _Loop()
        for n in range(MAX_PASSES + 1):
            ctx = _Loop()
            out = self.block(s.body, self.assign(head, s.var, var), ctx)
            nxt = self.join(st, out, *ctx.continues)
            assert nxt is not None
            if self.within(nxt, head):
                break
            if n == MAX_PASSES - 1:  # not settled: every scalar the loop changes may hold anything
                nxt = _State({k: iv.top(self.dtypes[k]) for k in nxt.env})
            head = self.widen(head, nxt) if n >= WIDEN_AFTER else self.join(head, nxt)
        exit_state = self.join(head, *ctx.breaks)
        assert exit_state is not None
        return exit_state

    def assign(self, st: _State, var: str, v: Iv) -> _State:
        out = _State(dict(st.env), {e: x for e, x in st.facts.items() if not _reads(e, var)})
        out.env[var] = v
        return out

    # -------------------------------------------------------------- states

    def join(self, *states: _State | None, split: bool = True) -> _State | None:
        live = [s for s in states if s is not None]
        if not live:
            return None
        acc = live[0]
        for s in live[1:]:
            env = {}
            for k in set(acc.env) | set(s.env):
                top = iv.top(self.dtypes[k])
                env[k] = iv.join(acc.env.get(k, top), s.env.get(k, top))
            facts = {e: iv.join(x, s.facts[e]) for e, x in acc.facts.items() if e in s.facts}
            joined = _State(env, facts)
            if split:
                for f in self.flags(acc, s):
                    joined.split[f] = (
                        self.join(acc.where(f, False), s.where(f, False), split=False),
                        self.join(acc.where(f, True), s.where(f, True), split=False),
                    )
            acc = joined
        return acc

    def flags(self, a: _State, b: _State) -> list[str]:
        """Bool variables known on at least one side (a constant, or split there)."""
        out = []
        for st in (a, b):
            for k, x in st.env.items():
                if self.dtypes[k].is_bool and (x.lo == x.hi or k in st.split) and k not in out:
                    out.append(k)
        return out[:MAX_FLAGS]

    def widen(self, old: _State, new: _State) -> _State:
        env = {}
        for k, x in new.env.items():
            env[k] = iv.widen(old.env[k], x, self.dtypes[k]) if k in old.env else x
        return _State(env, {e: x for e, x in new.facts.items() if e in old.facts and old.facts[e] == x})

    def within(self, a: _State, b: _State) -> bool:
        for k, x in a.env.items():
            if not iv.within(x, b.env.get(k, iv.top(self.dtypes[k]))):
                return False
        return all(e in a.facts and iv.within(a.facts[e], x) for e, x in b.facts.items())

    # ------------------------------------------------------------ conditions

    def refine(self, cond: ir.Expr, truth: bool, st: _State) -> _State | None:
        """`st` where `cond` is `truth`, or None when it cannot be."""
        if isinstance(cond, ir.Const):
            return st if bool(cond.value) == truth else None
        if isinstance(cond, ir.Un) and cond.op == "not":
            return self.refine(cond.operand, not truth, st)
        if isinstance(cond, ir.Var) and cond.dtype.is_bool:
            part = st.where(cond.name, truth)
            if part is None:
                return None
            out = part.copy()
            out.env[cond.name] = Iv(int(truth), int(truth))
            return out
        if isinstance(cond, ir.Logic):
            both = (cond.op == "land") == truth
            if both:
                first = self.refine(cond.lhs, truth, st)
                return None if first is None else self.refine(cond.rhs, truth, first)
            return self.join(self.refine(cond.lhs, truth, st), self.refine(cond.rhs, truth, st))
        if not isinstance(cond, ir.Cmp):
            return st
        op = cond.op if truth else _NEGATED[cond.op]
        left, right = self.eval(cond.lhs, st), self.eval(cond.rhs, st)
        new_left = _constrain(left, op, right, cond.lhs.dtype, truth)
        new_right = _constrain(right, _FLIPPED[op], left, cond.rhs.dtype, truth)
        if (new_left.empty and not new_left.nan) or (new_right.empty and not new_right.nan):
            return None
        out = st.copy()
        self.store_fact(out, cond.lhs, new_left)
        self.store_fact(out, cond.rhs, new_right)
        return out

    def store_fact(self, st: _State, e: ir.Expr, x: Iv) -> None:
        if isinstance(e, ir.Cast) and _exact_cast(e):
            inner = e.operand
            if not inner.dtype.is_float:
                x = Iv(math.ceil(x.lo), math.floor(x.hi)) if not x.empty else x
            e = inner
        if isinstance(e, ir.Var):
            st.env[e.name] = iv.meet(st.env.get(e.name, iv.top(e.dtype)), x)
        elif isinstance(e, ir.Load):
            prev = st.facts.get(e, self.arrays.get(e.array, iv.top(e.dtype)))
            st.facts[e] = iv.meet(prev, x)

    # ----------------------------------------------------------- expressions

    def eval(self, e: ir.Expr, st: _State) -> Iv:
        if isinstance(e, ir.Const):
            return iv.const(e.value, e.dtype)
        if isinstance(e, ir.Var):
            return st.env.get(e.name, iv.top(e.dtype))
        if isinstance(e, ir.Load):
            for i in e.index:
                self.eval(i, st)
            whole = self.arrays.get(e.array, iv.top(e.dtype))
            fact = st.facts.get(e)
            return iv.meet(whole, fact) if fact is not None else whole
        if isinstance(e, (ir.Cmp, ir.Logic)):
            self.eval(e.lhs, st)
            self.eval(e.rhs, st)
            return Iv(0, 1)
        if isinstance(e, ir.Cast):
            return iv.cast(self.eval(e.operand, st), e.operand.dtype, e.dtype)
        if isinstance(e, ir.Select):
            self.eval(e.cond, st)
            t, f = self.refine(e.cond, True, st), self.refine(e.cond, False, st)
            parts = [self.eval(arm, s) for arm, s in ((e.then, t), (e.orelse, f)) if s is not None]
            acc = parts[0] if parts else iv.EMPTY
            for p in parts[1:]:
                acc = iv.join(acc, p)
            return acc
        if isinstance(e, ir.Un):
            a = self.eval(e.operand, st)
            if e.op == "not" or e.dtype.is_bool:
                return Iv(0, 1)
            if e.dtype.is_float:
                return iv.fneg(a) if e.op == "neg" else iv.fabs(a)
            return iv.int_un(e.op, a, e.dtype)
        if isinstance(e, ir.Bin):
            return self.binary(e, st)
        if isinstance(e, ir.Math):
            return self.call(e, st)
        raise TypeError(f"unknown expression {type(e).__name__}")

    def binary(self, e: ir.Bin, st: _State) -> Iv:
        a, b = self.eval(e.lhs, st), self.eval(e.rhs, st)
        dt = e.dtype
        if dt.is_bool:
            return Iv(0, 1)
        if e.op == "mul" and self.reqs:
            self.check_requirements(e, [a, b], None)
        if not dt.is_float:
            if e.op == "mul" and e.lhs == e.rhs:
                return iv.fit(iv.int_square(a), dt)
            return iv.int_bin(e.op, a, b, dt)
        if e.op in ("min", "max"):  # one of the operands: nothing is rounded
            return (iv.fmin if e.op == "min" else iv.fmax)(a, b)
        if e.op == "mul" and e.lhs == e.rhs:
            r = iv.fsquare(a)
        elif e.op in ("add", "sub"):
            r = iv.fadd(a, b if e.op == "add" else iv.fneg(b))
        else:
            rule = {"mul": iv.fmul, "div": iv.fdiv}.get(e.op)
            r = rule(a, b) if rule is not None else iv.fremainder(a, b)
        return iv.fit(r, dt)

    def check_requirements(self, e: ir.Expr, args: list[Iv], exponent: float | None) -> None:
        for req in self.reqs.get(e, ()):
            ok, why = DOMAINS[req.kind]
            if not ok(args, req.exponent if req.exponent is not None else exponent):
                self.failures.setdefault(req, why)

    def call(self, e: ir.Math, st: _State) -> Iv:
        args = [self.eval(a, st) for a in e.args]
        exponent = None
        if e.fn == "pow" and isinstance(e.args[1], ir.Const):
            exponent = float(e.args[1].value)
        self.check_requirements(e, args, exponent)
        r = iv.math_fn(e.fn, args, exponent)
        if e.fn not in ir.EXACT_MATH:
            return iv.fit(r, e.dtype, iv.APPROX)
        # exact functions computed on double bounds are the double results; a float32
        # result is rounded once more
        return iv.fit(r, e.dtype, iv.ROUNDING if e.dtype.bits == 32 else 0.0)


def _constrain(x: Iv, op: str, y: Iv, dt: DType, truth: bool) -> Iv:
    """The values of x for which `x op y` can hold. `truth`: the comparison as written is
    true (so neither operand is NaN); otherwise the negated relation `op` holds, or x or y is
    NaN (a NaN y leaves x unconstrained, a NaN x stays possible)."""
    if op == "ne" or (not truth and y.nan):
        return x
    if y.empty:
        return iv.EMPTY  # y can only be NaN: no ordered comparison holds
    if dt.is_float:
        below = math.nextafter(y.hi, -iv.INF) if y.hi > -iv.INF else -iv.INF
        above = math.nextafter(y.lo, iv.INF) if y.lo < iv.INF else iv.INF
    else:
        below, above = y.hi - 1, y.lo + 1
    bound = {
        "lt": Iv(-iv.INF, below),
        "le": Iv(-iv.INF, y.hi),
        "gt": Iv(above, iv.INF),
        "ge": Iv(y.lo, iv.INF),
        "eq": Iv(y.lo, y.hi),
    }[op]
    r = iv.meet(Iv(x.lo, x.hi), bound)
    return Iv(r.lo, r.hi, x.nan and not truth)


def _exact_cast(e: ir.Cast) -> bool:
    """A conversion that keeps every value (a bound on the result is one on the operand)."""
    src, dst = e.operand.dtype, e.dtype
    if not dst.is_float:
        return src == dst or (src.is_int and dst.is_int and dst.min <= src.min and src.max <= dst.max)
    if src.is_float:
        return src.bits <= dst.bits
    if src.is_bool:
        return False
    digits = 24 if dst.bits == 32 else 53  # significand bits, the implicit one included
    return (src.bits - 1 if src.kind == "int" else src.bits) <= digits


def _reads(e: ir.Expr, var: str) -> bool:
    return any(isinstance(x, ir.Var) and x.name == var for x in ir.walk_expr(e))


def _loads(e: ir.Expr, array: str) -> bool:
    return any(isinstance(x, ir.Load) and x.array == array for x in ir.walk_expr(e))


def check(
    kernel: ir.Kernel, requirements: dict[ir.Expr, list[Requirement]], checked: set[Requirement] = frozenset()
) -> tuple[tuple[Requirement, str] | None, list[str], set[Requirement]]:
    """The first call (by line) that may raise in Python and has no run-time check (`checked`:
    the requirements whose call sends the call to the CPU outside the domain) and why (None
    when none), the notes of the note-only requirements that do not hold, and the checked
    requirements proven to hold (their checks are not needed)."""
    if not requirements:
        return None, [], set()
    failures = RangeAnalysis(kernel, requirements).run()
    every = {r for reqs in requirements.values() for r in reqs}
    proven = {r for r in checked if r in every and r not in failures}
    hard = [r for r in failures if not r.note_only and r not in checked]
    notes = [
        f"line {r.line}: {r.call}: {failures[r]}; the kernel gives inf or NaN there"
        for r in sorted(failures, key=lambda r: (r.line, r.call))
        if r.note_only
    ]
    if not hard:
        return None, notes, proven
    req = min(hard, key=lambda r: (r.line, r.call))
    return (req, failures[req]), notes, proven
