"""What the C++ printer checks and learns about a kernel IR before printing it.

`check_kernel` refuses what the printer could not print faithfully (names that
are not C++ identifiers or clash with the testbench's, shapes, directions,
returns that are not the last statement); `return_dtype` is the type of the
scalar return; `scan_usage` finds which scalars are read and which escape
their loops (so the printer knows where to declare them) and which arrays are
loaded and stored. Kept apart from the printer: none of it prints anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from partition import ir
from partition.codegen.cexpr import check_identifier
from partition.codegen.hls.testbench import testbench_names
from partition.dtypes import DType
from partition.errors import PartitionError


@dataclass
class Usage:
    """Which scalars and arrays a kernel body uses, and how (see `scan_usage`)."""

    read: set[str] = field(default_factory=set)  # scalars read anywhere
    escaped: set[str] = field(default_factory=set)  # scalars used outside every loop over them
    stored: set[str] = field(default_factory=set)  # arrays written
    loaded: set[str] = field(default_factory=set)  # arrays read


def vars_in(exprs: list[ir.Expr]) -> set[str]:
    """The scalars the expressions read."""
    return {x.name for e in exprs for x in ir.walk_expr(e) if isinstance(x, ir.Var)}


def arrays_in(exprs: list[ir.Expr]) -> set[str]:
    """The arrays the expressions load from."""
    return {x.array for e in exprs for x in ir.walk_expr(e) if isinstance(x, ir.Load)}


def uses_math(k: ir.Kernel) -> bool:
    """The kernel calls a math function (its C++ includes partition_math.h)."""
    return any(
        isinstance(x, ir.Math)
        for s in ir.walk_stmts(k.body)
        for e in ir.stmt_exprs(s)
        for x in ir.walk_expr(e)
    )


def check_kernel(k: ir.Kernel, where: str) -> None:
    """Refuse a kernel IR the C++ printer cannot print as it is: bad names, shapes, kinds, returns."""
    check_identifier(k.name, "kernel name")
    if k.name in testbench_names(k):
        raise PartitionError(f"kernel name {k.name} clashes with a name of its testbench; rename the task")
    seen: set[str] = set()
    for p in k.params:
        check_identifier(p.name, f"{where}: parameter")
        if p.name in seen:
            raise PartitionError(f"{where}: parameter {p.name} appears twice")
        seen.add(p.name)
        if p.kind == "array":
            if not p.shape or any(int(d) <= 0 for d in p.shape):
                raise PartitionError(f"{where}: array parameter {p.name} has shape {p.shape}")
            if p.direction not in ("in", "out", "inout"):
                raise PartitionError(f"{where}: array parameter {p.name} has direction {p.direction!r}")
            if p.stream and p.direction == "inout":
                raise PartitionError(f"{where}: inout array {p.name} cannot be an AXI-Stream port")
        elif p.kind != "scalar":
            raise PartitionError(f"{where}: parameter {p.name} has kind {p.kind!r}")
    for a in k.locals:
        check_identifier(a.name, f"{where}: local array")
        if a.name in seen:
            raise PartitionError(f"{where}: local array {a.name} reuses a parameter's name")
        seen.add(a.name)
        if not a.shape or any(int(d) <= 0 for d in a.shape):
            raise PartitionError(f"{where}: local array {a.name} has shape {a.shape}")
        if a.init is not None and len(a.init) != a.size:
            raise PartitionError(
                f"{where}: local array {a.name} has {len(a.init)} initial values for {a.size} elements"
            )
    params = {p.name: p for p in k.params}
    for name, dt in k.scalars.items():
        check_identifier(name, f"{where}: scalar")
        p = params.get(name)
        if (p is not None and (p.kind != "scalar" or p.dtype != dt)) or any(a.name == name for a in k.locals):
            raise PartitionError(f"{where}: scalar {name} clashes with another kernel object")
    for i, s in enumerate(k.body):
        if isinstance(s, ir.Return) and i != len(k.body) - 1:
            raise PartitionError(f"{where}: return at line {s.line} is not the last statement")
    for s in ir.walk_stmts(k.body):
        if isinstance(s, ir.Return) and s is not (k.body[-1] if k.body else None):
            raise PartitionError(f"{where}: return at line {s.line} inside a loop or branch")


def return_dtype(k: ir.Kernel, where: str) -> DType | None:
    """The type of the kernel's scalar return value (None when it returns nothing)."""
    last = k.body[-1] if k.body else None
    value = last.value if isinstance(last, ir.Return) else None
    if k.ret is not None and value is None:
        raise PartitionError(f"{where}: declares a {k.ret} return value but never returns one")
    if value is None:
        return None
    return k.ret or value.dtype


def scan_usage(k: ir.Kernel, where: str) -> Usage:
    """Which scalars are read, and which are used outside every loop over them.

    A loop variable used only inside loops over it (the usual case) is
    declared in the `for` itself; one that is read after its loop (Python
    keeps the last value) or assigned elsewhere is declared at the top.
    """
    u = Usage()

    def visit(body: list[ir.Stmt], loops: frozenset[str]) -> None:
        for s in body:
            exprs = ir.stmt_exprs(s)
            used = vars_in(exprs)
            u.read |= used
            u.escaped |= used - loops
            u.loaded |= arrays_in(exprs)
            if isinstance(s, ir.Assign) and s.var not in loops:
                u.escaped.add(s.var)
            elif isinstance(s, ir.Store):
                u.stored.add(s.array)
            elif isinstance(s, ir.Copy):  # a tile's copy in fills its buffer, a copy out reads it
                (u.stored if s.direction == "in" else u.loaded).add(s.buffer)
            elif isinstance(s, ir.For):
                visit(s.body, loops | {s.var})
            elif isinstance(s, ir.If):
                visit(s.then, loops)
                visit(s.orelse, loops)

    visit(k.body, frozenset())
    if k.status is not None:  # read after the body, into the fallback register
        u.read.add(k.status)
        u.escaped.add(k.status)
    params = {p.name for p in k.scalar_params}
    for v in sorted(u.read - params):
        if v not in k.scalars:
            raise PartitionError(f"{where}: scalar {v} is used but has no type in the kernel IR")
    return u
