"""What the schedule tells the RTL backend: each scheduled region's values as a graph.

`partition.estimate.schedule.schedule_kernel` is run with a `Recorder` as its emitter: every
value the schedule creates (constant, variable read, operation, load) becomes a `Node` of
its `Region` carrying the cycle the schedule gave it, and every RAM access an `Access` with
the port and bank the schedule bound it to. Recording is apart from printing: the
`Netlist` (partition.rtl.datapath) turns these nodes into Verilog, the FSM builder
(partition.rtl.fsm) decides when each region runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from partition import ir
from partition.dtypes import DType
from partition.estimate.schedule import ScheduledOp


@dataclass(eq=False)
class Node:
    """One scheduled value of a region.

    kind: const (value), var (a variable read, resolved per region), op (an operation of
    the schedule, or a wiring-only `virtual` one), load (a RAM read).
    timing: wiring (a function of its operands wherever it is used), comb (computed in
    cycle `ready`), unit (a registered result valid from cycle `ready`).
    """

    id: int
    kind: str
    bits: int
    signed: bool
    region: Region
    ready: int = 0
    timing: str = "wiring"
    node: Any = None  # IR expression or statement
    op_kind: str = ""
    role: Any = None
    operands: list[Node] = field(default_factory=list)
    issue: int = 0  # cycle the operation starts (latency units, loads)
    latency: int = 0
    value: Any = None  # const: the value; var: the variable name
    array: str | None = None
    dtype: DType | None = None
    rdata: str = ""  # loads: the RAM read-data signal of the port it uses
    bank_rdata: list[str] = field(default_factory=list)  # loads of a partitioned array: per bank
    bank_static: int | None = None  # ... the one bank it reads, when the schedule knows it


@dataclass
class Access:
    """A RAM access site: load (node) or store."""

    kind: str
    array: str
    region: Region
    cycle: int
    addr: Node
    data: Node | None = None
    guard: Node | None = None
    node: Node | None = None  # the load's value
    elem_dtype: DType | None = None
    port: str = ""
    plane: int = 0  # the schedule's port (a partitioned array: port `plane` of its banks)
    bank: tuple | None = None  # the schedule's (frame, residue), None when any bank


class Region:
    """The values of one scheduled region: a statement, a branch condition, loop bounds
    (FSM states) or one iteration of a pipelined loop."""

    def __init__(self, path: tuple[int, ...], role: str, ii: int | None = None):
        self.path = path
        self.role = role
        self.ii = ii
        self.length = 1
        self.nodes: list[Node] = []
        self.accesses: list[Access] = []
        self.assigns: list[tuple[str, Node]] = []  # (variable, value) in program order
        self.ret: Node | None = None
        self.conditions: list[Node] = []
        self.first_read: dict[str, int] = {}
        self.final: dict[str, Node] = {}  # pipelined body: variable -> value at the end


class Recorder:
    """The emitter `schedule_kernel` reports to: builds a `Region` per scheduled region."""

    def __init__(self, kernel: ir.Kernel):
        self.kernel = kernel
        self.regions: dict[tuple[tuple[int, ...], str], Region] = {}
        self._next = 0

    def region(self, path: tuple[int, ...], role: str, **info) -> _RegionRecorder:
        reg = Region(path, role, info.get("ii"))
        self.regions[(path, role)] = reg
        return _RegionRecorder(self, reg)

    def new_id(self) -> int:
        self._next += 1
        return self._next


class _RegionRecorder:
    def __init__(self, rec: Recorder, region: Region):
        self.rec = rec
        self.region = region
        self.by_val: dict[int, Node] = {}
        self.keep: list[Any] = []  # keep _Val objects alive so their ids stay unique

    def _node(self, v: Any, **kw) -> Node:
        n = Node(self.rec.new_id(), region=self.region, **kw)
        self.region.nodes.append(n)
        self.by_val[id(v)] = n
        self.keep.append(v)
        return n

    def _of(self, v: Any) -> Node:
        return self.by_val[id(v)]

    def const(self, e: ir.Const, v: Any) -> None:
        dt = e.dtype
        self._node(v, kind="const", bits=dtype_bits(dt), signed=dt.kind == "int", value=e.value, dtype=dt)

    def var(self, name: str, v: Any) -> None:
        dt = var_dtype(self.rec.kernel, name)
        self._node(v, kind="var", bits=dtype_bits(dt), signed=dt.kind == "int", value=name, dtype=dt)

    def op(
        self, node: Any, kind: str, operands: list[Any], v: Any, op: ScheduledOp | None, role: Any
    ) -> None:
        ops = [self._of(x) for x in operands]
        dt = node.dtype if isinstance(node, (ir.Bin, ir.Un, ir.Cmp, ir.Logic, ir.Cast, ir.Select)) else None
        if role in ("guard_then", "guard_else") or kind == "not":
            bits, signed = 1, False
        elif isinstance(role, tuple) and role[0] == "merge":
            vdt = var_dtype(self.rec.kernel, role[1])
            bits, signed, dt = dtype_bits(vdt), vdt.kind == "int", vdt
        elif role == "addr_add" or (isinstance(role, tuple) and role[0] == "addr_mul"):
            bits, signed = v.bits, False
        else:
            bits, signed = dtype_bits(dt), dt.kind == "int"
        if op is None or (op.cost.latency == 0 and op.cost.delay_ns == 0):
            timing, ready, issue, lat = "wiring", 0, 0, 0
        elif op.cost.latency > 0:
            timing, ready, issue, lat = "unit", op.ready_cycle, op.cycle, op.cost.latency
        else:
            timing, ready, issue, lat = "comb", op.ready_cycle, op.ready_cycle, 0
        self._node(
            v, kind="op", bits=bits, signed=signed, timing=timing, ready=ready, issue=issue,
            latency=lat, node=node, op_kind=kind, role=role, operands=ops, dtype=dt,
        )  # fmt: skip

    def load(
        self, e: ir.Load, addr: list[Any], v: Any, cycle: int, port: int = 0, bank: tuple | None = None
    ) -> None:
        dt = e.dtype
        a = self._flat(addr)
        n = self._node(
            v, kind="load", bits=dtype_bits(dt), signed=dt.kind == "int", timing="comb", ready=cycle + 1,
            issue=cycle, node=e, array=e.array, operands=[a], dtype=dt,
        )  # fmt: skip
        self.region.accesses.append(
            Access("load", e.array, self.region, cycle, a, node=n, elem_dtype=dt, plane=port, bank=bank)
        )

    def store(
        self,
        s: ir.Store,
        addr: list[Any],
        val: Any,
        guard: Any,
        cycle: int,
        port: int = 0,
        bank: tuple | None = None,
    ) -> None:
        a = self._flat(addr)
        g = self._of(guard) if guard is not None else None
        dt = self.rec.kernel.array_dtype(s.array)
        self.region.accesses.append(
            Access(
                "store",
                s.array,
                self.region,
                cycle,
                a,
                data=self._of(val),
                guard=g,
                elem_dtype=dt,
                plane=port,
                bank=bank,
            )
        )

    def _flat(self, addr: list[Any]) -> Node:
        if len(addr) != 1:
            raise AssertionError("the schedule flattens multi-dimensional addresses")
        return self._of(addr[0])

    def assign(self, s: ir.Assign, v: Any) -> None:
        self.region.assigns.append((s.var, self._of(v)))

    def ret(self, s: ir.Return, v: Any) -> None:
        self.region.ret = self._of(v)

    def condition(self, e: ir.Expr, v: Any) -> None:
        self.region.conditions.append(self._of(v))

    def finish(self, first_read: dict[str, int], avail: dict[str, Any]) -> None:
        self.region.first_read = dict(first_read)
        self.region.final = {name: self._of(v) for name, v in avail.items()}

    def close(self, length: int) -> None:
        self.region.length = length


def dtype_bits(dt: DType) -> int:
    return 1 if dt.is_bool else dt.bits


def var_dtype(kernel: ir.Kernel, name: str) -> DType:
    if name in kernel.scalars:
        return kernel.scalars[name]
    for p in kernel.scalar_params:
        if p.name == name:
            return p.dtype
    for s in ir.walk_stmts(kernel.body):
        if isinstance(s, ir.For) and s.var == name:
            return s.start.dtype
        if isinstance(s, ir.Assign) and s.var == name:
            return s.value.dtype
    raise KeyError(name)
