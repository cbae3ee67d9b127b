"""The kernel body as C++: statements, and Python range() loops as C++ for loops with the same iterations.

`StatementPrinter.block` turns IR statements into the dicts templates/hls/
kernel.cpp.j2 prints (assign, if, break/continue, const, for); expressions
come from partition.codegen.cexpr's ExprPrinter, loop pragmas from the
variant's `Pragmas`. The loop translation is the subtle part (a counter that
never overflows, Python's last value of a loop variable, 64-bit bounds), so it
has this module to itself.
"""

from __future__ import annotations

from typing import Any

from partition import ir
from partition.codegen.cexpr import ExprPrinter, ctype, literal
from partition.codegen.hls.analysis import Usage, arrays_in, vars_in
from partition.codegen.hls.pragmas import Pragmas
from partition.dtypes import DTYPES, DType
from partition.errors import PartitionError
from partition.estimate.schedule import ram_geometry
from partition.names import CPP_RESERVED


class Names:
    """Fresh C++ identifiers that collide with nothing the kernel already names."""

    def __init__(self, taken: set[str]):
        self.taken = set(taken) | set(CPP_RESERVED)

    def fresh(self, base: str) -> str:
        name, k = base, 2
        while name in self.taken:
            name = f"{base}_{k}"
            k += 1
        self.taken.add(name)
        return name


def _int_range(e: ir.Expr, where: str) -> tuple[int, int]:
    """Values a loop bound can take: exact for constants, the dtype's range otherwise."""
    dt = e.dtype
    if dt.is_float:
        raise PartitionError(f"{where}: loop bound of type {dt} (range() needs integers)")
    if isinstance(e, ir.Const):
        v = int(e.value)
        return v, v
    if dt.is_bool:
        return 0, 1
    return dt.min, dt.max


def _fits(dt: DType, lo: int, hi: int) -> bool:
    return dt.is_int and dt.min <= lo and hi <= dt.max


class StatementPrinter:
    """Prints one kernel's statements; remembers the loop variables it must declare at the top."""

    def __init__(
        self,
        kernel: ir.Kernel,
        printer: ExprPrinter,
        names: Names,
        labels: Names,
        usage: Usage,
        pragmas: Pragmas,
        where: str,
        source_file: str,
        bus_bits: int = 32,
    ):
        self.k = kernel
        self.printer = printer
        self.names = names  # fresh C++ identifiers
        self.labels = labels  # fresh loop labels
        self.read = usage.read
        self.escaped = usage.escaped
        self.pragmas = pragmas
        self.where = where
        self.source_file = source_file
        self.declared: set[str] = set()  # loop variables a wider counter assigns (declared at the top)
        self.bus_bits = bus_bits

    def block(self, body: list[ir.Stmt], loops: tuple[str, ...]) -> list[dict[str, Any]]:
        """Statements as template dicts; `loops` are the variables of the enclosing loops."""
        out: list[dict[str, Any]] = []
        for s in body:
            out.extend(self._stmt(s, loops))
        return out

    def _stmt(self, s: ir.Stmt, loops: tuple[str, ...]) -> list[dict[str, Any]]:
        p = self.printer
        p.where = f"{self.where} line {s.line}" if s.line else self.where
        if isinstance(s, ir.Assign):
            if s.var not in self.k.scalars:
                raise PartitionError(f"{self.where}: line {s.line} assigns {s.var}, which has no type")
            if s.var not in self.read:
                return []  # never read: the (pure) value is dead
            return [{"kind": "assign", "target": s.var, "value": p.converted(s.value, self.k.scalars[s.var])}]
        if isinstance(s, ir.Store):
            target = p.element(s.array, s.index)
            return [
                {
                    "kind": "assign",
                    "target": target,
                    "value": p.converted(s.value, self.k.array_dtype(s.array)),
                }
            ]
        if isinstance(s, ir.If):
            return [
                {
                    "kind": "if",
                    "cond": p.expr(s.cond),
                    "then": self.block(s.then, loops),
                    "orelse": self.block(s.orelse, loops),
                }
            ]
        if isinstance(s, (ir.Break, ir.Continue)):
            if not loops:
                raise PartitionError(
                    f"{self.where}: line {s.line}: {type(s).__name__.lower()} outside a loop"
                )
            return [{"kind": type(s).__name__.lower()}]
        if isinstance(s, ir.For):
            return self._for(s, loops)
        if isinstance(s, ir.Copy):
            return [self._copy(s)]
        raise PartitionError(f"{self.where}: unexpected statement {type(s).__name__} in the kernel IR")

    def _copy(self, s: ir.Copy) -> dict[str, Any]:
        """A tile's rows between DDR and its buffer (`ir.Copy`): a pipelined loop of element
        copies, unrolled by the elements of a bus word as the load and store loops are, so
        Vitis HLS infers one burst of them."""
        p = self.k.param(s.array)
        row = p.size // p.shape[0]
        j = self.names.fresh("j")
        count = self.printer.expr(s.count)
        n = count if row == 1 else f"({count}) * {row}"
        base = self.printer.expr(s.row)
        base = base if row == 1 else f"({base}) * {row}"
        per_word = ram_geometry(s.buffer, p.dtype, 1, "buffer", self.bus_bits).per_word
        rows = next(a.shape[0] for a in self.k.locals if a.name == s.buffer)
        pragmas = ["PIPELINE II=1", f"LOOP_TRIPCOUNT max={rows * row} avg={s.rows_max * row}"]
        if per_word > 1:
            pragmas.append(f"UNROLL factor={per_word}")
        ddr, buf = f"{s.array}[{base} + {j}]", f"{s.buffer}[{j}]"
        return {
            "kind": "for",
            "label": self.labels.fresh(f"copy_{s.direction}_{s.buffer}"),
            "init": f"int64_t {j} = 0",
            "cond": f"{j} < {n}",
            "incr": f"++{j}",
            "pragmas": pragmas,
            "body": [
                {
                    "kind": "assign",
                    "target": buf if s.direction == "in" else ddr,
                    "value": ddr if s.direction == "in" else buf,
                }
            ],
            "comment": f"tile of {s.array}, rows {base} on",
        }

    def _for(self, s: ir.For, loops: tuple[str, ...]) -> list[dict[str, Any]]:
        """A Python range() loop as a C++ for loop with the same iterations.

        The counter must never overflow: its type covers the start, the stop and
        the one step past the last iteration. If the loop variable's own type
        does and the variable lives only inside this loop (it is read only inside
        loops over it, assigned only by them, and no enclosing loop has the same
        variable, whose body could read it after this loop), it is the counter;
        otherwise a wider counter runs the loop and the variable gets
        its (wrapped) value at the top of each iteration, as Python's range does.
        """
        where = f"{self.where} line {s.line}"
        if s.var not in self.k.scalars:
            raise PartitionError(f"{where}: loop variable {s.var} has no type in the kernel IR")
        if not isinstance(s.step, int) or isinstance(s.step, bool) or s.step == 0:
            raise PartitionError(f"{where}: loop step {s.step!r} (a non-zero integer constant)")
        step = s.step
        vdt = self.k.scalars[s.var]
        (lo_a, hi_a), (lo_b, hi_b) = _int_range(s.start, where), _int_range(s.stop, where)
        # the counter holds the start, the stop (it is compared with it) and one step past the last value
        lo, hi = min(lo_a, lo_b), max(hi_a, hi_b)
        if step > 0:
            hi = max(hi, hi_b - 1 + step)
        else:
            lo = min(lo, lo_b + 1 + step)
        label = s.label or self.labels.fresh(f"L{s.line}" if s.line else "L")
        self.labels.taken.add(label)

        written = {x.var for x in ir.walk_stmts(s.body) if isinstance(x, (ir.Assign, ir.For))}
        in_place = (
            s.var not in self.escaped
            and s.var not in written
            and s.var not in loops
            and s.var not in {p.name for p in self.k.scalar_params}
            and _fits(vdt, lo, hi)
        )
        if in_place:
            counter_dt, counter = vdt, s.var
        else:
            counter_dt = next(
                (d for d in (vdt, DTYPES["int32"], DTYPES["int64"], DTYPES["uint64"]) if _fits(d, lo, hi)),
                None,
            )
            if counter_dt is None:
                return self._for_counted(s, loops, label, where)
            counter = self.names.fresh(f"{label}_{s.var}")

        out: list[dict[str, Any]] = []
        stop_reads = vars_in([s.stop]) | arrays_in([s.stop])
        stored_in_body = {x.array for x in ir.walk_stmts(s.body) if isinstance(x, ir.Store)}
        if isinstance(s.stop, ir.Const):
            stop = literal(int(s.stop.value), counter_dt)
        elif stop_reads & (written | stored_in_body | {s.var}):
            stop = self.names.fresh(f"{label}_stop")
            out.append(
                {
                    "kind": "const",
                    "ctype": ctype(counter_dt),
                    "name": stop,
                    "value": self._bound(s.stop, counter_dt),
                }
            )
        else:
            stop = self._bound(s.stop, counter_dt, operand=True)

        if isinstance(s.start, ir.Const):
            start = literal(int(s.start.value), counter_dt)
        else:
            start = self._bound(s.start, counter_dt)
        body: list[dict[str, Any]] = []
        if not in_place and s.var in self.read:
            self.declared.add(s.var)
            value = counter if counter_dt == vdt else f"pt::cast<{ctype(vdt)}>({counter})"
            body.append({"kind": "assign", "target": s.var, "value": value})
        body.extend(self.block(s.body, (*loops, s.var)))

        if step == 1:
            incr = f"++{counter}"
        elif step == -1:
            incr = f"--{counter}"
        else:
            incr = f"{counter} {'+' if step > 0 else '-'}= {abs(step)}"
        out.append(
            {
                "kind": "for",
                "label": label,
                "init": f"{ctype(counter_dt)} {counter} = {start}",
                "cond": f"{counter} {'<' if step > 0 else '>'} {stop}",
                "incr": incr,
                "pragmas": self.pragmas.loop(s),
                "body": body,
                "comment": f"{self.source_file}:{s.line}" if self.source_file and s.line else "",
            }
        )
        return out

    def _for_counted(self, s: ir.For, loops: tuple[str, ...], label: str, where: str) -> list[dict[str, Any]]:
        """A range() over 64-bit bounds whose last step would overflow any counter:
        iterate over the precomputed trip count, the value running modulo 2**64."""
        base = next(
            (
                d
                for d in (DTYPES["int64"], DTYPES["uint64"])
                if all(_fits(d, *_int_range(e, where)) for e in (s.start, s.stop))
            ),
            None,
        )
        if base is None:
            raise PartitionError(
                f"{where}: range() from {s.start.dtype} to {s.stop.dtype} mixes bounds no 64-bit type holds; "
                "cast both bounds to one type"
            )
        trips, n, value = (self.names.fresh(f"{label}_{x}") for x in ("trips", "n", s.var))
        start, stop = self._bound(s.start, base), self._bound(s.stop, base)
        body: list[dict[str, Any]] = []
        if s.var in self.read:
            self.declared.add(s.var)
            vdt = self.k.scalars[s.var]
            wrapped = value if vdt.name == "uint64" else f"pt::cast<{ctype(vdt)}>({value})"
            body.append({"kind": "assign", "target": s.var, "value": wrapped})
        body.extend(self.block(s.body, (*loops, s.var)))
        return [
            {
                "kind": "const",
                "ctype": "uint64_t",
                "name": trips,
                "value": f"pt::range_trips<{ctype(base)}>({start}, {stop}, {literal(s.step, DTYPES['int64'])})",
            },
            {
                "kind": "for",
                "label": label,
                "init": f"uint64_t {n} = 0, {value} = static_cast<uint64_t>({start})",
                "cond": f"{n} < {trips}",
                "incr": f"++{n}, {value} {'+' if s.step > 0 else '-'}= {abs(s.step)}U",
                "pragmas": self.pragmas.loop(s),
                "body": body,
                "comment": f"{self.source_file}:{s.line}" if self.source_file and s.line else "",
            },
        ]

    def _bound(self, e: ir.Expr, dt: DType, operand: bool = False) -> str:
        """A loop bound in the counter's type (the counter's range covers the bound's)."""
        if e.dtype == dt:
            return self.printer.operand(e) if operand else self.printer.expr(e)
        return f"static_cast<{ctype(dt)}>({self.printer.expr(e)})"
