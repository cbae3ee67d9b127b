"""What the built-in RTL backend builds, and what it says when it cannot.

Integer kernels only, with non-empty arrays, a return only as the last statement, and
loops of a non-zero integer step: `check` raises `RtlUnsupported` (a PartitionError) naming
the first thing it cannot build, before anything is scheduled; `RtlVariantUnsupported` is
for a kernel it builds, but not in the implementation variant asked for (it is then built
as base by the callers that can).
"""

from __future__ import annotations

from partition import ir
from partition.dtypes import DType
from partition.errors import PartitionError
from partition.rtl import shells

FLOAT_REASON = "the RTL backend builds integer kernels; float32/float64 kernels use the Vitis HLS path"


class RtlUnsupported(PartitionError):
    """The built-in RTL backend cannot build this kernel; the message says why."""


class RtlVariantUnsupported(RtlUnsupported):
    """The backend builds the kernel, but not in the implementation variant asked for."""


def check(kernel: ir.Kernel) -> None:
    """Raise RtlUnsupported when the backend cannot build `kernel`."""
    where = f"kernel {kernel.name}"
    dts: list[tuple[str, DType]] = [(p.name, p.dtype) for p in kernel.params]
    dts += list(kernel.scalars.items()) + [(a.name, a.dtype) for a in kernel.locals]
    if kernel.ret is not None:
        dts.append(("return value", kernel.ret))
    for s in ir.walk_stmts(kernel.body):
        for e in ir.stmt_exprs(s):
            for x in ir.walk_expr(e):
                what = f"math function {x.fn}" if isinstance(x, ir.Math) else type(x).__name__.lower()
                dts.append((what, x.dtype))
                if isinstance(x, ir.Cast):
                    dts.append(("cast operand", x.operand.dtype))
    for what, dt in dts:
        if dt.is_float:
            raise RtlUnsupported(f"{where}: {what} is {dt}: {FLOAT_REASON}")
    for p in kernel.arrays:
        if p.size == 0:
            raise RtlUnsupported(f"{where}: array {p.name} has no elements; give it a non-empty shape")
    for a in kernel.locals:
        if a.size == 0:
            raise RtlUnsupported(f"{where}: local array {a.name} has no elements")
    for i, s in enumerate(kernel.body):
        if isinstance(s, ir.Return) and i != len(kernel.body) - 1:
            raise RtlUnsupported(f"{where}: return at line {s.line} is not the last statement")
    for s in ir.walk_stmts(kernel.body):
        if isinstance(s, ir.Return) and s is not kernel.body[-1]:
            raise RtlUnsupported(f"{where}: return at line {s.line} inside a loop or branch")
        if isinstance(s, ir.For) and (not isinstance(s.step, int) or isinstance(s.step, bool) or s.step == 0):
            raise RtlUnsupported(f"{where}: loop at line {s.line} has step {s.step!r}; a non-zero integer")
    names = [p.name for p in kernel.params] + [a.name for a in kernel.locals] + list(kernel.scalars)
    for n in names:
        shells.check_ident("name", n)
