"""One kernel's RTL in the making: its schedule and the parts built from it, side by side.

A `Design` schedules the kernel once, with a `Recorder` as the schedule's emitter, and
holds what the backend builds from that one schedule: the register map, the datapath
`Netlist`, the `Registers` and `Fsm`, and the `RamPorts`. The phases (partition.rtl.phases)
and the Verilog emission (partition.rtl.verilog) read and extend it; `generate_rtl` passes
its schedule on to the estimate, so the kernel is scheduled once.
"""

from __future__ import annotations

from partition import ir
from partition.boards import Board
from partition.estimate.model import ddr_latency
from partition.estimate.schedule import schedule_kernel
from partition.regmap import register_map
from partition.rtl.datapath import Netlist
from partition.rtl.fsm import Fsm, Registers
from partition.rtl.rams import RamPorts
from partition.rtl.recorder import Recorder


class Design:
    """The schedule of `kernel` on `board` (a variant's loops left `sequential`, its
    arrays cyclic-partitioned into `banks`, its m_axi `bus_bits` wide) and the netlist,
    FSM and RAM ports built from it."""

    def __init__(
        self,
        kernel: ir.Kernel,
        board: Board,
        sequential: frozenset[str],
        bus_bits: int,
        banks: dict[str, int],
    ):
        self.k = kernel
        self.board = board
        self.bus = bus_bits
        self.rec = Recorder(kernel)
        self.sched = schedule_kernel(
            kernel, board.family, board.pl_mhz, bus_bits=bus_bits, emitter=self.rec, banks=banks,
            sequential=sequential, ddr_latency=ddr_latency(board),
        )  # fmt: skip
        self.rmap = register_map(kernel)
        self.rams = self.sched.rams
        self.net = Netlist(kernel, self.rams)
        self.regs = Registers()
        self.mem = RamPorts(kernel, self.rams, self.net, bus_bits, self.regs)
        self.fsm = Fsm(kernel, self.rec, self.net, self.regs, self.rmap)
        self.net.active = self.fsm.active
        self.net.var_value = self.fsm.var_value
        self.net.bus_bits = bus_bits
        self.mem.allocate(self.rec.regions.values())
