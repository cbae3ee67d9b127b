"""A typical call of a kernel with run-time lengths (`ir.Param.dyn`), for its cycle estimate.

Such a kernel is built for the longest arrays (its buffers and so its resources are
the longest's), but a call moves and computes only the rows of its own length: its
loops that run to a length register run that many times, its transfers move that
many rows. The estimate of a call is made at the length profiled calls passed on
average (`ir.Kernel.lengths`); the notes say so.
"""

from __future__ import annotations

import dataclasses

from partition import ir


def uses_length(e: ir.Expr, regs: set[str]) -> bool:
    return any(isinstance(x, ir.Var) and x.name in regs for x in ir.walk_expr(e))


def typical_loops(kernel: ir.Kernel) -> ir.Kernel:
    """`kernel` with each loop bounded by a length register estimated at the typical length:
    its iteration bound scaled by typical / longest (what the schedule counts cycles from)."""
    scale = {reg: n / longest(kernel, reg) for reg, n in kernel.lengths.items()}
    if not scale:
        return kernel

    def walk(body: list[ir.Stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for s in body:
            if isinstance(s, ir.For):
                inner = walk(s.body)
                f = min(
                    (scale[r] for r in scale if uses_length(s.start, {r}) or uses_length(s.stop, {r})),
                    default=1.0,
                )
                trip = max(1, round(s.trip_max * f)) if s.trip_max else s.trip_max
                out.append(dataclasses.replace(s, body=inner, trip_max=trip))
            elif isinstance(s, ir.If):
                out.append(dataclasses.replace(s, then=walk(s.then), orelse=walk(s.orelse)))
            else:
                out.append(s)
        return out

    return dataclasses.replace(kernel, body=walk(kernel.body))


def longest(kernel: ir.Kernel, reg: str) -> int:
    """The longest length the kernel takes in register `reg` (its arrays' leading length)."""
    return max(p.shape[0] - p.dyn_offset for p in kernel.arrays if p.dyn == reg)


def moved_bytes(kernel: ir.Kernel, p: ir.Param) -> int:
    """Bytes a typical call moves of array `p` each way."""
    if not p.dyn or p.dyn not in kernel.lengths:
        return p.nbytes
    return ir.dyn_rows(p, kernel.lengths[p.dyn]) * (p.nbytes // p.shape[0])


def note(kernel: ir.Kernel) -> str | None:
    if not kernel.lengths:
        return None
    parts = ", ".join(
        f"{reg} = {n:,} (up to {longest(kernel, reg):,})" for reg, n in sorted(kernel.lengths.items())
    )
    return (
        f"cycles of a call at the profiled average length {parts}: loops to that length and its "
        "transfers scale with it; buffers and resources are for the longest"
    )
