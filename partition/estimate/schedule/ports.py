"""The RAM port binder: which port (and bank) of an array each access of a region takes.

Each RAM port of an array serves, in one cycle (pipeline slot), accesses of one bank frame
with different residues (`PortBinder.bank`): a cyclic-partitioned array's accesses share a
cycle only where the schedule can tell they reach different banks, an unpartitioned
array's two at a time. In a pipeline the ports are reserved modulo the II, and an access
that finds none free in II cycles raises `PortsFull` (the II must grow). Binding is a job
of its own beside placing operations in cycles: the RTL backend drives exactly the port
and bank this binder gives.
"""

from __future__ import annotations

from collections import defaultdict

from partition import ir
from partition.estimate.schedule.analysis import Affine
from partition.estimate.schedule.context import KernelContext
from partition.estimate.schedule.memory import OPAQUE, RAM_PORTS


class PortsFull(Exception):
    """Every slot of a pipeline's II has its ports on this array taken: the II must grow."""


class PortBinder:
    """The RAM ports in use by one region: one FSM statement, or one pipelined loop iteration."""

    def __init__(self, ctx: KernelContext, ii: int | None = None, loop: ir.For | None = None):
        self.ctx = ctx
        self.ii = ii  # modulo port reservation when pipelined
        self.loop = loop
        # per (array, cycle or pipeline slot): the RAM ports in use, each [bank frame, banks taken]
        self.ports: dict[tuple[str, int], list[list]] = defaultdict(list)
        # variables an iteration writes: a bank that depends on them is not common to the
        # iterations in flight
        self.written = (
            {x.var for x in ir.walk_stmts(loop.body) if isinstance(x, ir.Assign)} | {loop.var}
            if loop is not None
            else set()
        )

    def bank(self, array: str, aff: Affine | None, cycle: int) -> tuple[tuple, int] | None:
        """(frame, residue) of an access to `array` issued in `cycle`, None when unknown.

        A cyclic-partitioned array's bank is the flat index mod F. Accesses in one frame
        see the same unknown part (the loop-invariant symbols, the iteration count), so
        their banks are (common + residue) mod F: different residues, different banks. The
        frame () is the static one (residue = the bank). In a pipeline, an access `q`
        stages deep belongs to the iteration issued q x II cycles earlier, whose loop
        variable is q x step smaller. An unpartitioned array is one bank, frame ()."""
        f = self.ctx.banks.get(array, 1)
        if f == 1:
            return ((), 0)
        if aff is None:
            return None
        coef, off, syms = aff
        terms = []
        dyn = 0
        if self.ii and self.loop is not None:
            lp = self.loop
            if isinstance(lp.start, ir.Const) and not isinstance(lp.start.value, bool):
                off += coef * int(lp.start.value)
            elif coef % f:
                terms.append(("<start>", coef % f))
            dyn = coef * lp.step % f
            off -= coef * lp.step * (cycle // self.ii)
        elif coef % f:
            return None
        for name, c in syms:
            if c % f:
                if name in self.written:
                    return None
                terms.append((name, c % f))
        return ((dyn, tuple(terms)) if dyn or terms else (), off % f)

    def reserve(self, array: str, cycle: int, aff: Affine | None = None) -> tuple[int, int, tuple | None]:
        """The first cycle from `cycle` with a free port for this access: (cycle, port, bank).

        Each RAM port of an array serves, in one cycle (pipeline slot), accesses of one bank
        frame with different residues (a partitioned array: up to F, each on its own bank;
        an access of unknown bank takes a port of every bank), so the accesses sharing a
        cycle never meet on one bank's port. An unpartitioned array: two accesses a cycle."""
        f = self.ctx.banks.get(array, 1)
        tries = 0
        while True:
            slot = cycle % self.ii if self.ii else cycle
            bank = self.bank(array, aff, cycle)
            ports = self.ports[(array, slot)]
            frame = OPAQUE if bank is None else bank[0]
            for p, (fr, taken) in enumerate(ports):
                if bank is not None and fr == frame and bank[1] not in taken:
                    taken.add(bank[1])
                    return cycle, p, bank
            if len(ports) < RAM_PORTS:
                ports.append([frame, set(range(f)) if bank is None else {bank[1]}])
                return cycle, len(ports) - 1, bank
            cycle += 1
            tries += 1
            if self.ii and tries >= self.ii:
                raise PortsFull(array)
