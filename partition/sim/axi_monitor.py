"""The AXI4 monitor of the kernel testbench (partition.sim.kernel_tb): protocol checks and timing.

It samples m_axi_gmem and the block-level handshake at the falling edge of every cycle in
which something happens and checks every burst (INCR, beats as wide as the data bus, <= 256
beats, no 4 KB crossing, one burst outstanding each way); it records each call's start and
done cycles and each burst's slave latency, so the testbench can compare cycles with the
estimate. A build tree ships it beside tests/kernel_tb.py.
"""

from __future__ import annotations

import types

from cocotb.simtime import get_sim_time
from cocotb.triggers import Event, FallingEdge, First, RisingEdge

PERIOD_NS = 10


def hi(sig) -> bool:
    """A 1-bit signal is 1. The monitor samples a dozen signals a cycle while the bus is busy;
    reading the simulator's bit string skips building a Logic object per read (about 5x
    faster in cocotb 2.1), and X or Z reads as not 1."""
    return sig._handle.get_signal_val_binstr() == "1"


def num(sig) -> int:
    """A bus value as an unsigned integer, fast (see `hi`); X or Z bits fail loudly."""
    bits = sig._handle.get_signal_val_binstr()
    try:
        return int(bits, 2)
    except ValueError:
        raise AssertionError(f"{sig._name} is {bits} while its valid is high") from None


# the signals the monitor samples: the block protocol, and m_axi_gmem's where there is one
_GMEM = ["ARADDR", "ARBURST", "ARLEN", "ARLOCK", "ARREADY", "ARSIZE", "ARVALID", "AWADDR", "AWBURST",
         "AWLEN", "AWLOCK", "AWREADY", "AWSIZE", "AWVALID", "BREADY", "BVALID", "RLAST", "RREADY",
         "RVALID", "WLAST", "WREADY", "WVALID"]  # fmt: skip
_MONITORED = ("ap_clk", "ap_done", "ap_idle", "ap_rst_n", "ap_start", *(f"m_axi_gmem_{s}" for s in _GMEM))


class Monitor:
    """Checks the AXI4 protocol and times each call.

    It samples the bus at the falling edge of every cycle in which something happens (a
    valid is high, ap_start or ap_done) and sleeps through the others, so a long compute
    phase runs at the simulator's own speed; cycles are counted from simulation time.
    """

    def __init__(self, dut):
        self.dut = dut
        self.gmem = has_gmem(dut)
        # bytes a beat: the m_axi data width (32 bits, or 64 / 128 for a wide burst variant)
        self.beat = len(dut.m_axi_gmem_RDATA) // 8 if self.gmem else 4
        self.size = self.beat.bit_length() - 1
        self.errors: list[str] = []
        self.done_event = Event()
        self.new_run()

    @property
    def cycle(self) -> int:
        return int(get_sim_time("ns")) // PERIOD_NS

    def new_run(self) -> None:
        self.reads: list[dict] = []
        self.writes: list[dict] = []
        self.r_open = None
        self.aw_open = None
        self.w_cur = None
        self.w_done: list[dict] = []
        self.starts: list[int] = []
        self.dones: list[int] = []
        self.done_event.clear()

    def error(self, msg: str) -> None:
        if len(self.errors) < 20:
            self.errors.append(f"cycle {self.cycle}: {msg}")

    def _addr(self, ch: str, addr: int, length: int, size: int, burst: int, lock: int) -> None:
        if size != self.size or burst != 1 or lock != 0:
            self.error(f"{ch}SIZE {size} / {ch}BURST {burst} / {ch}LOCK {lock}: want {self.size} / INCR / 0")
        if addr % self.beat:
            self.error(f"{ch}ADDR 0x{addr:x} not word aligned")
        if (addr & 0xFFF) + self.beat * (length + 1) > 4096:
            self.error(f"{ch} burst 0x{addr:x} + {length + 1} beats crosses a 4 KB boundary")

    async def run(self) -> None:
        # handles looked up once: a dut attribute lookup costs more than the read itself
        names = [n for n in _MONITORED if self.gmem or not n.startswith("m_axi_gmem_")]
        h = types.SimpleNamespace(**{n.removeprefix("m_axi_gmem_"): getattr(self.dut, n) for n in names})
        valids = [h.ARVALID, h.RVALID, h.AWVALID, h.WVALID, h.BVALID] if self.gmem else []
        # before and during reset the outputs may be X: start watching once reset is released
        while not (h.ap_rst_n.value.is_resolvable and hi(h.ap_rst_n)):
            await FallingEdge(h.ap_clk)
        while True:
            # ap_start stays high through a call (until ap_ready): only a start while idle counts
            starting = hi(h.ap_start) and hi(h.ap_idle)
            quiet = not any(hi(v) for v in valids) and not starting and not hi(h.ap_done)
            if quiet and self.r_open is None and self.aw_open is None and self.w_cur is None:
                await First(
                    *(RisingEdge(v) for v in valids),
                    RisingEdge(h.ap_start),
                    RisingEdge(h.ap_idle),
                    RisingEdge(h.ap_done),
                )
            await FallingEdge(h.ap_clk)
            c = self.cycle
            if not hi(h.ap_rst_n):
                continue
            if hi(h.ap_idle) and hi(h.ap_start):
                self.starts.append(c)
            if hi(h.ap_done):
                self.dones.append(c)
                self.done_event.set()
            if not self.gmem:
                continue
            if hi(h.ARVALID) and hi(h.ARREADY):
                length = num(h.ARLEN)
                self._addr(
                    "AR", num(h.ARADDR), length, num(h.ARSIZE), num(h.ARBURST),
                    num(h.ARLOCK),
                )  # fmt: skip
                if self.r_open is not None:
                    self.error("AR accepted while a read burst is outstanding")
                self.r_open = {"beats": length + 1, "ar": c, "first": None, "last": None, "n": 0}
            if hi(h.RVALID) and hi(h.RREADY):
                b = self.r_open
                if b is None:
                    self.error("R beat without a burst")
                else:
                    b["first"] = c if b["first"] is None else b["first"]
                    b["n"] += 1
                    if hi(h.RLAST):
                        b["last"] = c
                        if b["n"] != b["beats"]:
                            self.error(f"read burst of {b['beats']} beats got {b['n']}")
                        self.reads.append(b)
                        self.r_open = None
            if hi(h.AWVALID) and hi(h.AWREADY):
                length = num(h.AWLEN)
                self._addr(
                    "AW", num(h.AWADDR), length, num(h.AWSIZE), num(h.AWBURST),
                    num(h.AWLOCK),
                )  # fmt: skip
                if self.aw_open is not None:
                    self.error("AW accepted while a write burst is outstanding")
                self.aw_open = {"beats": length + 1, "aw": c}
            if hi(h.WVALID) and hi(h.WREADY):
                if self.w_cur is None:
                    self.w_cur = {"first": c, "n": 0}
                self.w_cur["n"] += 1
                if hi(h.WLAST):
                    self.w_cur["last"] = c
                    self.w_done.append(self.w_cur)
                    self.w_cur = None
            if hi(h.BVALID) and hi(h.BREADY):
                if self.aw_open is None or not self.w_done:
                    self.error("B response before both AW and the last W beat")
                else:
                    burst = self.aw_open | self.w_done.pop(0) | {"b": c}
                    if burst["n"] != burst["beats"]:
                        self.error(f"write burst of {burst['beats']} beats had {burst['n']} W beats")
                    self.writes.append(burst)
                    self.aw_open = None

    def unstalled(self) -> bool:
        """No burst stalled besides the slave's latency (then the cycle count is exact)."""
        for r in self.reads:
            if r["last"] - r["first"] != r["beats"] - 1:
                return False
        for w in self.writes:
            if w["first"] != w["aw"] or w["last"] - w["first"] != w["beats"] - 1:
                return False
        return True


def has_gmem(dut) -> bool:
    try:
        dut.m_axi_gmem_RDATA  # noqa: B018 (a lookup: the port exists)
    except AttributeError:
        return False
    return True
