"""Unrolling on the kernel IR: what the unroll variants build (`partition.estimate.variants`).

`unroll_kernel` repeats an innermost loop's body U times with the loop variable
offset (the same iterations in the same order; copies past the end guarded), or
a small nest whole with each copy's loop values as constants, so the loop around
it is the one pipelined; the copies' integer accumulations are added as balanced
trees and their fallback checks or-ed. `unroll_plan` says which loops a factor
applies to and how each array they reach is cyclic-partitioned so the copies'
accesses fall on different banks. Both backends build the unrolled IR (the
built-in RTL directly, the HLS C++ through the same pragmas), and the estimate
schedules it.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

from partition import ir
from partition.dtypes import BOOL, DType
from partition.estimate.schedule import flat_affine, has_jumps

FULL_UNROLL_MAX = 32  # innermost loops of up to this many (constant) iterations may unroll whole
MAX_PARTITION = 64  # banks of one array beyond which an unroll variant is not offered


def innermost_loops(kernel: ir.Kernel) -> list[ir.For]:
    """The loops the base schedule pipelines: no loop inside, no break/continue of their own."""
    return [
        s
        for s in ir.walk_stmts(kernel.body)
        if isinstance(s, ir.For)
        and not any(isinstance(x, ir.For) for x in ir.walk_stmts(s.body))
        and not has_jumps(s.body)
    ]


def _trip(s: ir.For) -> int | None:
    if not (isinstance(s.start, ir.Const) and isinstance(s.stop, ir.Const)):
        return None
    return len(range(int(s.start.value), int(s.stop.value), s.step))


def unrollable(kernel: ir.Kernel, s: ir.For, u: int) -> bool:
    """Whether `unroll_kernel` can unroll innermost loop `s` by u: constant bounds, at least u
    iterations, a loop variable the body does not assign and whose type holds every value of the
    range plus u - 1 steps (so copy m's value, var + m × step, is exact)."""
    trip = _trip(s)
    if trip is None or trip < u:
        return False
    if any(isinstance(x, ir.Assign) and x.var == s.var for x in ir.walk_stmts(s.body)):
        return False
    vdt = kernel.scalars.get(s.var, s.start.dtype)
    if not vdt.is_int:
        return False
    lo, hi = int(s.start.value), int(s.start.value) + (trip - 1 + u - 1) * s.step
    return vdt.min <= min(lo, hi) and max(lo, hi) <= vdt.max


def _reads_outside(kernel: ir.Kernel, loop: ir.For, var: str) -> bool:
    """Whether `var` is read by a statement outside `loop`."""

    def walk(stmts: list[ir.Stmt]) -> bool:
        for s in stmts:
            if s is loop:
                continue
            for e in ir.stmt_exprs(s):
                if any(isinstance(x, ir.Var) and x.name == var for x in ir.walk_expr(e)):
                    return True
            if isinstance(s, ir.For) and walk(s.body):
                return True
            if isinstance(s, ir.If) and (walk(s.then) or walk(s.orelse)):
                return True
        return False

    return walk(kernel.body)


def _subst(e: ir.Expr, var: str, repl: ir.Expr) -> ir.Expr:
    if isinstance(e, ir.Var):
        return repl if e.name == var else e
    if isinstance(e, ir.Const):
        return e
    if isinstance(e, ir.Load):
        return replace(e, index=tuple(_subst(i, var, repl) for i in e.index))
    if isinstance(e, (ir.Bin, ir.Cmp, ir.Logic)):
        return replace(e, lhs=_subst(e.lhs, var, repl), rhs=_subst(e.rhs, var, repl))
    if isinstance(e, (ir.Un, ir.Cast)):
        return replace(e, operand=_subst(e.operand, var, repl))
    if isinstance(e, ir.Select):
        return replace(
            e,
            cond=_subst(e.cond, var, repl),
            then=_subst(e.then, var, repl),
            orelse=_subst(e.orelse, var, repl),
        )
    if isinstance(e, ir.Math):
        return replace(e, args=tuple(_subst(a, var, repl) for a in e.args))
    raise TypeError(f"unknown expression {type(e).__name__}")


def _subst_stmt(s: ir.Stmt, var: str, repl: ir.Expr) -> ir.Stmt:
    if isinstance(s, ir.Assign):
        return replace(s, value=_subst(s.value, var, repl))
    if isinstance(s, ir.Store):
        return replace(
            s, index=tuple(_subst(i, var, repl) for i in s.index), value=_subst(s.value, var, repl)
        )
    if isinstance(s, ir.If):
        return replace(
            s,
            cond=_subst(s.cond, var, repl),
            then=[_subst_stmt(x, var, repl) for x in s.then],
            orelse=[_subst_stmt(x, var, repl) for x in s.orelse],
        )
    if isinstance(s, ir.Return):
        return replace(s, value=None if s.value is None else _subst(s.value, var, repl))
    return s  # Break/Continue do not occur in an unrolled loop (see innermost_loops)


def unroll_kernel(kernel: ir.Kernel, factors: dict[str, int]) -> ir.Kernel:
    """`kernel` with each loop labelled in `factors` unrolled by its factor.

    The loop must be innermost with constant bounds and at least `factor`
    iterations; copy m of the body sees the loop variable plus m × step, so
    the iterations run in the original order. When the factor does not divide
    the trip count, copies m >= 1 run only while the variable plus m × step
    is still inside the range (an `If` around them).
    """

    inner = innermost_loops(kernel)
    flags: dict[str, ir.DType] = {}  # bool temporaries of `_flags_ored`

    def walk(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for s in stmts:
            if isinstance(s, ir.For) and s.label in factors:
                u = factors[s.label]
                trip = _trip(s)
                # a loop unrolled whole may hold loops unrolled whole themselves (a 3 x 3 window)
                inside = walk(s.body) if u == trip else s.body
                nested = any(isinstance(x, ir.For) for x in ir.walk_stmts(inside))
                if trip is None or not unrollable(kernel, s, u) or (s not in inner and (u != trip or nested)):
                    raise ValueError(f"loop {s.label} cannot be unrolled by {u}")
                s = replace(s, body=inside)
                vdt = kernel.scalars.get(s.var, s.start.dtype)
                body: list[ir.Stmt] = []
                for m in range(u):
                    if u == trip:  # whole: no loop left, copy m sees its constant (the loop around pipelines)
                        value = ir.Const(int(s.start.value) + m * s.step, vdt)
                        body.extend(_subst_stmt(x, s.var, value) for x in s.body)
                        continue
                    if m == 0:
                        body.extend(s.body)
                        continue
                    off = ir.Bin("add", ir.Var(s.var, vdt), ir.Const(m * s.step, vdt), vdt)
                    copy = [_subst_stmt(x, s.var, off) for x in s.body]
                    if trip % u:
                        # the copy's value `off` in the variable's own type: `unrollable` checked
                        # that it holds every value up to u - 1 steps past the range, the stop
                        # included, so the check cannot wrap and needs no wider adder/comparator
                        # (and shares the adder of the copy's indices)
                        cond = ir.Cmp("lt" if s.step > 0 else "gt", off, ir.Const(int(s.stop.value), vdt))
                        copy = [ir.If(cond, copy, [], s.line)]
                    body.extend(copy)
                body = _reassociated(body, u)
                if kernel.status is not None:
                    body = _flags_ored(body, kernel.status, s.label, flags)
                if u == trip:
                    out.extend(body)
                else:
                    out.append(replace(s, step=s.step * u, body=body, trip_max=math.ceil(trip / u)))
                if _reads_outside(kernel, s, s.var):
                    # after the loop the variable holds the last value of the range, as in Python
                    last = int(s.start.value) + (trip - 1) * s.step
                    out.append(ir.Assign(s.var, ir.Const(last, vdt), s.line))
            elif isinstance(s, ir.For):
                out.append(replace(s, body=walk(s.body)))
            elif isinstance(s, ir.If):
                out.append(replace(s, then=walk(s.then), orelse=walk(s.orelse)))
            else:
                out.append(s)
        return out

    body = walk(kernel.body)
    return replace(kernel, body=body, scalars={**kernel.scalars, **flags})


def _flags_ored(body: list[ir.Stmt], status: str, label: str, flags: dict[str, DType]) -> list[ir.Stmt]:
    """An unrolled body's checks that set the fallback status (`if c: status = 1`, one per copy)
    as flags computed where the checks stood and one `if f0 | f1 | ...: status = 1` after them:
    the status is only ever set, never read in the body, so this is the same, and the copies'
    checks no longer chain through it (a chain the loop around would carry from one iteration
    to the next)."""

    def is_check(x: ir.Stmt) -> bool:
        return (
            isinstance(x, ir.If)
            and not x.orelse
            and len(x.then) == 1
            and isinstance(x.then[0], ir.Assign)
            and x.then[0].var == status
        )

    checks = [x for x in body if is_check(x)]
    if len(checks) < 2 or any(
        isinstance(v, ir.Var) and v.name == status
        for x in body
        for e in ir.stmt_exprs(x)
        for v in ir.walk_expr(e)
    ):
        return body
    out: list[ir.Stmt] = []
    names = []
    for x in body:
        if is_check(x):
            name = f"{status}_{label}_{len(names)}"
            flags[name] = BOOL
            names.append(name)
            out.append(ir.Assign(name, x.cond if x.cond.dtype == BOOL else ir.Cast(x.cond, BOOL), x.line))  # type: ignore[union-attr]
        else:
            out.append(x)
    terms: list[ir.Expr] = [ir.Var(n, BOOL) for n in names]
    while len(terms) > 1:
        terms = [
            ir.Logic("lor", terms[k], terms[k + 1], BOOL) if k + 1 < len(terms) else terms[k]
            for k in range(0, len(terms), 2)
        ]
    out.append(ir.If(terms[0], [checks[0].then[0]], [], checks[0].line))  # type: ignore[union-attr]
    return out


def _accumulation(s: ir.Stmt) -> tuple[str, ir.Expr] | None:
    """(v, X) for `v = v + X` (or `X + v`) on integers, X not reading v."""
    if not (isinstance(s, ir.Assign) and isinstance(s.value, ir.Bin) and s.value.op == "add"):
        return None
    e = s.value
    if not e.dtype.is_int:
        return None
    for acc, term in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
        if acc == ir.Var(s.var, e.dtype) and not any(
            isinstance(x, ir.Var) and x.name == s.var for x in ir.walk_expr(term)
        ):
            return s.var, term
    return None


def _reassociated(body: list[ir.Stmt], u: int) -> list[ir.Stmt]:
    """The u copies of an unrolled body that each add one term to an integer accumulator
    (`acc = acc + x[i] * h[i]`) as one addition of the terms' balanced sum: integer addition
    wraps, so any order gives the same bits, and the loop-carried chain is one adder instead
    of u (an unrolled reduction runs at one iteration a cycle). Only the last u statements are
    merged, and only when they are such consecutive additions (nothing else runs between them);
    other bodies stay as they are."""
    pre = body[: len(body) - u] if len(body) > u else []
    copies = body[len(pre) :]
    if len(copies) != u or u < 2:
        return body
    found = [_accumulation(c) for c in copies]
    if any(f is None for f in found) or len({f[0] for f in found}) != 1:  # type: ignore[index]
        return body
    terms = [f[1] for f in found]  # type: ignore[index]
    dt = copies[0].value.dtype  # type: ignore[union-attr]
    while len(terms) > 1:
        terms = [
            ir.Bin("add", terms[k], terms[k + 1], dt) if k + 1 < len(terms) else terms[k]
            for k in range(0, len(terms), 2)
        ]
    v = found[0][0]  # type: ignore[index]
    return [*pre, ir.Assign(v, ir.Bin("add", ir.Var(v, dt), terms[0], dt), copies[0].line)]  # type: ignore[union-attr]


def _accesses(stmts: list[ir.Stmt]) -> list[tuple[str, tuple[ir.Expr, ...]]]:
    out = []
    for s in ir.walk_stmts(stmts):
        for e in ir.stmt_exprs(s):
            for x in ir.walk_expr(e):
                if isinstance(x, ir.Load):
                    out.append((x.array, x.index))
        if isinstance(s, ir.Store):
            out.append((s.array, s.index))
    return out


def _banks(stride: int, u: int, size: int) -> int | None:
    """Smallest cyclic factor F (a multiple of u) that puts u consecutive copies in u banks."""
    f = 1 << (u - 1).bit_length()  # banks come in powers of two
    while f <= min(size, MAX_PARTITION):
        if len({(m * stride) % f for m in range(u)}) == u:
            return f
        f *= 2
    return None


def unroll_plan(kernel: ir.Kernel, factor: int | None) -> tuple[dict[str, int], dict[str, int]] | None:
    """(loop label -> factor, array -> cyclic factor) for unrolling innermost loops by `factor`
    (None: whole, each loop of 3 to FULL_UNROLL_MAX constant iterations inside another loop,
    which then pipelines over the copies), or None when no loop qualifies."""
    if factor is None:
        return whole_plan(kernel)
    loops = {}
    need: dict[str, int] = {}
    refused: set[str] = set()
    for s in innermost_loops(kernel):
        u = factor
        if not unrollable(kernel, s, u):
            continue
        loops[s.label] = u
        strides: dict[str, set[int | None]] = {}
        for array, index in _accesses(s.body):
            aff = flat_affine(index, kernel.array_shape(array), s.var)
            strides.setdefault(array, set()).add(None if aff is None else aff[0] * s.step)
        for array, st in strides.items():
            size = math.prod(kernel.array_shape(array)) or 1
            f = None
            if len(st) == 1 and None not in st and 0 not in st:
                f = _banks(abs(next(iter(st))), u, size)  # type: ignore[arg-type]
            if f is None:
                refused.add(array)
            else:
                need[array] = max(need.get(array, 0), f)
    if not loops:
        return None
    return loops, {a: f for a, f in sorted(need.items()) if a not in refused}


def _whole_nest(kernel: ir.Kernel, s: ir.For) -> list[ir.For] | None:
    """The loops of nest `s` (itself first) when it can be unrolled whole: constant trips, no
    jumps, each loop unrollable, at most FULL_UNROLL_MAX copies of the innermost body."""
    nest = [s, *(x for x in ir.walk_stmts(s.body) if isinstance(x, ir.For))]
    copies = 1
    for loop in nest:
        trip = _trip(loop)
        if trip is None or trip < 2 or has_jumps(loop.body) or not unrollable(kernel, loop, trip):
            return None
        copies *= trip
    return nest if 2 < copies <= FULL_UNROLL_MAX else None


def _bank_factor(offsets: list[int], size: int) -> int:
    """The cyclic factor (a power of two up to MAX_PARTITION and the array's size) that spreads
    the addresses one iteration reads most evenly (the fewest on one bank; the smaller factor on
    a tie); 1 when none beats one bank."""
    distinct = set(offsets)  # one address read twice is one read
    best, load = 1, len(distinct)
    f = 2
    while f <= min(size, MAX_PARTITION):
        most = max(Counter(o % f for o in distinct).values())
        if most < load:
            best, load = f, most
        f *= 2
    return best


def whole_plan(kernel: ir.Kernel) -> tuple[dict[str, int], dict[str, int]] | None:
    """(loop label -> its trip, array -> cyclic factor) for unrolling whole each outermost small
    loop nest inside another loop (a 32-tap filter's taps, a 3 x 3 window): the loop around it
    then pipelines over all the copies, each array partitioned so that its accesses of one
    iteration fall on as few banks as possible. None when no nest qualifies."""
    loops: dict[str, int] = {}
    need: dict[str, int] = {}

    def visit(stmts: list[ir.Stmt], inside: bool) -> None:
        for s in stmts:
            if isinstance(s, ir.For):
                nest = _whole_nest(kernel, s) if inside else None
                if nest is None:
                    visit(s.body, True)
                    continue
                for loop in nest:
                    loops[loop.label] = _trip(loop) or 0
                for array, offsets in _nest_offsets(kernel, nest).items():
                    size = math.prod(kernel.array_shape(array)) or 1
                    f = _bank_factor(offsets, size)
                    if f > 1:
                        need[array] = max(need.get(array, 1), f)
            elif isinstance(s, ir.If):
                visit(s.then, inside)
                visit(s.orelse, inside)

    visit(kernel.body, False)
    if not loops:
        return None
    return loops, dict(sorted(need.items()))


def _nest_offsets(kernel: ir.Kernel, nest: list[ir.For]) -> dict[str, list[int]]:
    """For each array the nest accesses affinely in its variables: the flat offsets of those
    accesses over all the nest's copies (the rest of each address is common to them)."""
    out: dict[str, list[int]] = {}
    values = [[int(loop.start.value) + m * loop.step for m in range(_trip(loop) or 0)] for loop in nest]  # type: ignore[union-attr]
    for array, index in _accesses(nest[0].body):
        shape = kernel.array_shape(array)
        coefs = []
        for loop in nest:
            aff = flat_affine(index, shape, loop.var)
            if aff is None:
                break
            coefs.append(aff[0])
        else:
            offs = [0]
            for c, vals in zip(coefs, values):
                offs = [o + c * v for o in offs for v in vals]
            out.setdefault(array, []).extend(offs)
    return out
