"""Which rows of each array a loop touches: the analysis tiling decides by.

A top-level loop `for i in range(start, stop)` may run a tile of rows at a time when each
array it touches is indexed, in its leading dimension, by `i + c` for small constants c (a
window's halo: `x[i - 1]`, `img[y + dy]` with `dy` an inner loop over a constant range),
read through scalars assigned once in a block, Python's wrap of a negative index and the
clamp of an index past the end (`candidate`: the offsets c of every array, or why the loop
cannot be tiled). `partition.estimate.tiling` builds the tiles from what this finds.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Iterator

from partition import ir
from partition.estimate.schedule import has_jumps

MAX_HALO = 8  # rows a window may reach beyond the iteration's own row (|c|)


def offset(
    e: ir.Expr, var: str, defs: dict[str, ir.Expr] | None = None, first: int | None = None
) -> int | None:
    """c when `e` is the loop variable `var` plus a constant c (through value-preserving casts,
    and scalars `defs` gives the value of). `first`: the variable's least value, when known:
    Python's negative index wrap of `var + c` (`var + c + n if var + c < 0 else var + c`) is
    then `var + c` when first + c >= 0."""
    defs = defs or {}
    if isinstance(e, ir.Cast) and e.dtype.is_int and e.operand.dtype.is_int:
        src, dst = e.operand.dtype, e.dtype
        if (dst.bits > src.bits and (dst.kind == "int" or src.kind == "uint")) or (
            dst.kind == src.kind and dst.bits >= src.bits
        ):
            return offset(e.operand, var, defs, first)
        return None
    if isinstance(e, ir.Var):
        if e.name in defs:
            return offset(defs[e.name], var, {}, first)
        return 0 if e.name == var else None
    if isinstance(e, ir.Bin) and e.op in ("add", "sub") and isinstance(e.rhs, ir.Const):
        inner = offset(e.lhs, var, defs, first)
        if inner is None or not e.rhs.dtype.is_int:
            return None
        c = int(e.rhs.value) * (1 if e.op == "add" else -1)
        return inner + c if abs(inner + c) <= MAX_HALO else None
    if isinstance(e, ir.Bin) and e.op == "add" and isinstance(e.lhs, ir.Const):
        return offset(ir.Bin("add", e.rhs, e.lhs, e.dtype), var, defs, first)
    if (
        isinstance(e, ir.Select)
        and isinstance(e.cond, ir.Cmp)
        and e.cond.op == "lt"
        and e.cond.lhs == e.orelse
        and isinstance(e.cond.rhs, ir.Const)
        and e.cond.rhs.value == 0
        and first is not None
    ):
        c = offset(e.orelse, var, defs, first)
        return c if c is not None and first + c >= 0 else None
    return None


def window(
    e: ir.Expr, var: str, defs: dict[str, ir.Expr], first: int | None, inner: dict[str, range]
) -> set[int] | None:
    """The offsets c of `e` = `var + c` where c may also run over an inner loop's constant
    range (`img[y + dy, ...]` for dy in range(-1, 2): {-1, 0, 1}), or None."""
    c = offset(e, var, defs, first)
    if c is not None:
        return {c}
    if (
        isinstance(e, ir.Cast)
        and e.dtype.is_int
        and e.operand.dtype.is_int
        and e.dtype.bits >= e.operand.dtype.bits
    ):
        return window(e.operand, var, defs, first, inner) if e.dtype.kind == e.operand.dtype.kind else None
    if isinstance(e, ir.Var) and e.name in defs:
        return window(defs[e.name], var, {}, first, inner)
    if isinstance(e, ir.Select) and isinstance(e.cond, ir.Cmp) and e.cond.lhs == e.orelse:
        got = window(e.orelse, var, defs, first, inner)
        if got is None:
            return None
        if e.cond.op == "lt" and isinstance(e.cond.rhs, ir.Const) and e.cond.rhs.value == 0:
            # Python's wrap of a negative index, never taken when the window starts at row >= 0
            return got if first is not None and first + min(got) >= 0 else None
        if e.cond.op == "ge" and isinstance(e.then, ir.Const) and e.then.value == 0:
            return got  # the clamp of an index past the end (the fallback flag is set): `_row`
        return None
    if isinstance(e, ir.Bin) and e.op in ("add", "sub"):
        pairs = [(e.lhs, e.rhs, 1 if e.op == "add" else -1)]
        if e.op == "add":
            pairs.append((e.rhs, e.lhs, 1))
        for x, y, sign in pairs:
            while (
                isinstance(y, ir.Cast)
                and y.operand.dtype.is_int
                and y.dtype.is_int
                and y.dtype.bits >= y.operand.dtype.bits
            ):
                y = y.operand  # widening: the inner variable's own values (a range within both types)
            if isinstance(y, ir.Var) and y.name in inner:
                base = window(x, var, defs, first, inner)
                if base is None:
                    continue
                got = {b + sign * v for b in base for v in inner[y.name]}
                if all(abs(v) <= MAX_HALO for v in got) and (first is None or first + min(got) >= 0):
                    return got
    return None


def accesses(stmts: list[ir.Stmt]) -> list[tuple[str, tuple[ir.Expr, ...], bool]]:
    """(array, index, is_store) of every load and store in `stmts`, nested ones included."""
    out: list[tuple[str, tuple[ir.Expr, ...], bool]] = []
    for s in ir.walk_stmts(stmts):
        if isinstance(s, ir.Store):
            out.append((s.array, s.index, True))
        if isinstance(s, ir.Copy):
            out.append((s.array, (), True))
        for e in ir.stmt_exprs(s):
            out.extend((x.array, x.index, False) for x in ir.walk_expr(e) if isinstance(x, ir.Load))
    return out


@dataclasses.dataclass
class Loop:
    """A top-level loop that may be tiled, with the row offsets of each array it touches."""

    pos: int
    loop: ir.For
    offsets: dict[str, set[int]]  # array -> the constants c of its accesses (row i + c)
    loaded: set[str]
    stored: set[str]


def candidate(kernel: ir.Kernel, pos: int, s: ir.Stmt) -> Loop | str:
    if not isinstance(s, ir.For):
        return "not a loop"
    if s.step != 1:
        return f"loop {s.label or s.var}: its step is {s.step}"
    if not s.start.dtype.is_int:
        return f"loop {s.label or s.var}: not an integer range"
    if any(isinstance(x, ir.Assign) and x.var == s.var for x in ir.walk_stmts(s.body)):
        return f"loop {s.label or s.var}: the body assigns {s.var}"
    if has_jumps(s.body, (ir.Break,)):
        return f"loop {s.label or s.var}: a break leaves it (a tile would not be written back)"
    offsets: dict[str, set[int]] = {}
    loaded: set[str] = set()
    stored: set[str] = set()
    first = int(s.start.value) if isinstance(s.start, ir.Const) else None
    # scalars the body assigns once, at its top level: an access after that assignment sees its value
    counts = Counter(x.var for x in ir.walk_stmts(s.body) if isinstance(x, ir.Assign))
    # inner loops over a small constant range: a window's rows (`for dy in range(-1, 2)`)
    ranges: dict[str, set[range | None]] = {}
    for x in ir.walk_stmts(s.body):
        if isinstance(x, ir.For):
            const = isinstance(x.start, ir.Const) and isinstance(x.stop, ir.Const)
            r = range(int(x.start.value), int(x.stop.value), x.step) if const else None
            ranges.setdefault(x.var, set()).add(r if r is not None and len(r) <= 2 * MAX_HALO + 1 else None)
    inner = {
        v: next(iter(rs)) for v, rs in ranges.items() if len(rs) == 1 and None not in rs and v not in counts
    }
    for name, index, store, defs in _scopedaccesses(s.body, {}, counts):
        cs = window(index[0], s.var, defs, first, inner) if index else None
        offsets.setdefault(name, set()).update(cs if cs else {math.inf})  # type: ignore[arg-type]
        (stored if store else loaded).add(name)
    return Loop(pos, s, offsets, loaded, stored)


def _scopedaccesses(
    stmts: list[ir.Stmt], defs: dict[str, ir.Expr], counts: Counter
) -> Iterator[tuple[str, tuple[ir.Expr, ...], bool, dict[str, ir.Expr]]]:
    """Every access in `stmts` with the scalars known at it: a scalar the loop body assigns
    once has that value in the statements after the assignment in its block (and in the
    blocks nested in them), in the same iteration of every loop around it."""
    defs = dict(defs)
    for st in stmts:
        if isinstance(st, (ir.For, ir.If)):
            for e in ir.stmt_exprs(st):
                for x in ir.walk_expr(e):
                    if isinstance(x, ir.Load):
                        yield x.array, x.index, False, defs
            blocks = [st.body] if isinstance(st, ir.For) else [st.then, st.orelse]
            for b in blocks:
                yield from _scopedaccesses(b, defs, counts)
            continue
        for name, index, store in accesses([st]):
            yield name, index, store, defs
        if isinstance(st, ir.Assign) and counts[st.var] == 1:
            defs = {**defs, st.var: st.value}
