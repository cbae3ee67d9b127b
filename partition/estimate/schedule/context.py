"""What scheduling one kernel keeps track of across its statements: `KernelContext`.

The device family, clock budget and bus width the tables are read for; the kernel's RAMs
(with the banks a variant asks for) and variable types; and what the schedule learns as
it goes: register writers, chain registers, the lanes of packed words that compute reads,
and the notes for the estimate. Every region and loop of one schedule shares one context.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from partition import ir
from partition.dtypes import DType
from partition.estimate import tables
from partition.estimate.schedule.analysis import flat_affine
from partition.estimate.schedule.memory import RAM_PORTS, RamInfo, ram_geometry
from partition.estimate.schedule.widths import Widths


class KernelContext:
    """Per-kernel context: tables for the family/clock, arrays, types."""

    def __init__(
        self,
        kernel: ir.Kernel,
        family: str,
        clock_mhz: float,
        bus_bits: int,
        emitter: Any = None,
        banks: dict[str, int] | None = None,
        sequential: frozenset[str] = frozenset(),
        ddr_latency: tuple[int, int] | None = None,
    ):
        self.kernel = kernel
        self.ddr_latency = ddr_latency  # (read, write) cycles of a burst: what a tile's copy costs
        self.emitter = emitter
        self.banks = {a: f for a, f in (banks or {}).items() if f > 1}  # array -> cyclic factor F
        self.sequential = sequential  # labels of innermost loops that are not pipelined
        self.family = family
        self.clock = clock_mhz
        self.budget = tables.budget_ns(clock_mhz)
        self.bus_bits = bus_bits
        self.notes: list[str] = []
        self.rams: dict[str, RamInfo] = {}
        for p in kernel.arrays:
            if not p.tiled:  # a tiled array lives in DDR; its tile buffer is one of the locals
                self.rams[p.name] = ram_geometry(p.name, p.dtype, p.size, "buffer", bus_bits)
        for a in kernel.locals:
            kind = "rom" if a.init is not None and not self._stored(a.name) else "local"
            if a.tile_of:  # filled and drained by the burst engines: laid out as a buffer
                kind = "buffer"
            self.rams[a.name] = ram_geometry(a.name, a.dtype, a.size, kind, bus_bits)
        for a, f in self.banks.items():
            if f & (f - 1) or f > self.rams[a].elems:
                raise ValueError(
                    f"array {a}: {f} banks (a power of two, at most its {self.rams[a].elems} elements)"
                )
            self.rams[a].banks = f
        self.var_types: dict[str, DType] = dict(kernel.scalars)
        for p in kernel.scalar_params:
            self.var_types.setdefault(p.name, p.dtype)
        for s in ir.walk_stmts(kernel.body):
            if isinstance(s, ir.For):
                self.var_types.setdefault(s.var, s.start.dtype)
            elif isinstance(s, ir.Assign):
                self.var_types.setdefault(s.var, s.value.dtype)
        self.chain_ff = 0
        self.writers: dict[str, int] = defaultdict(int)
        # the width synthesis keeps of each operator and register (schedule.widths)
        self.widths = Widths(kernel, self.var_types, {n: r.elems for n, r in self.rams.items()})
        # element lanes of a packed buffer word the compute phase reads (None: any lane)
        self.lanes: dict[str, set[int] | None] = {}

    def read_lanes(self, array: str, index: tuple[ir.Expr, ...]) -> None:
        """Record which element lanes of its packed word a load of `array` can select: a
        flat index whose every variable term is a multiple of the elements per word always
        lands in the same lane, whatever the variables' values."""
        ram = self.rams[array]
        if ram.kind != "buffer" or ram.per_word == 1 or (array in self.lanes and self.lanes[array] is None):
            return
        aff = flat_affine(index, self.kernel.array_shape(array), None)
        if aff is None or any(c % ram.per_word for _n, c in aff[2]):
            self.lanes[array] = None
        else:
            self.lanes.setdefault(array, set()).add(aff[1] % ram.per_word)

    def _stored(self, name: str) -> bool:
        return any(isinstance(s, ir.Store) and s.array == name for s in ir.walk_stmts(self.kernel.body))

    def port_count(self, array: str) -> int:
        """RAM ports of `array`: two, or two per bank of a partitioned array."""
        return RAM_PORTS * self.banks.get(array, 1)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)
