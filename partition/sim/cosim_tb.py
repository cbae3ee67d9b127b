"""cocotb test: the generated host code runs the whole, unmodified app against the RTL.

The build tree's `cosim_top` holds every FPGA kernel side by side (the ends of an AXI-Stream
chain joined inside it); this test gives each one an AXI4-Lite master (cocotbext-axi) and,
when it has an m_axi_gmem, an AXI RAM model, all RAM models sharing one memory, and hands them to the host runtime's `sim` backend. The app then runs in a thread
started with cocotb's `bridge` — as `host/run_app.py` runs it on the board, with the
accelerated functions swapped in by name — and every kernel call becomes simulated
cycles. The app's standard output goes to a file for the caller to compare with a plain
CPU run.

Environment: PARTITION_COSIM_TREE (the build tree, required), PARTITION_COSIM_SPEC (the
kernel spec of the simulated kernels), PARTITION_COSIM_OUT (the app's stdout), PARTITION_COSIM_STATS (run_app's statistics JSON), PARTITION_COSIM_ARGS
(a JSON list: the app's arguments).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.task import bridge, resume
from cocotb.triggers import ClockCycles, First, RisingEdge, Timer
from cocotbext.axi import AxiBus, AxiLiteBus, AxiLiteMaster, AxiRam
from cocotbext.axi.axi_channels import AxiARBus, AxiAWBus, AxiBBus, AxiRBus, AxiReadBus, AxiWBus, AxiWriteBus
from cocotbext.axi.sparse_memory import SparseMemory

TREE = Path(os.environ["PARTITION_COSIM_TREE"])
sys.path.insert(0, str(TREE / "host"))

from partition_runtime.app import main as run_app  # noqa: E402
from partition_runtime.sim_backend import SimBackend, SimKernel, SimMemory  # noqa: E402

PERIOD_NS = 10
MEMORY_BASE = 0x1000_0000
MEMORY_SIZE = 0x1000_0000  # 256 MiB of simulated DDR for device buffers


class _AWBus(AxiAWBus):
    # Vitis declares AWLOCK/ARLOCK 2 bits wide; cocotbext-axi expects AXI4's 1 bit
    _optional_signals = [s for s in AxiAWBus._optional_signals if s != "awlock"]


class _ARBus(AxiARBus):
    _optional_signals = [s for s in AxiARBus._optional_signals if s != "arlock"]


def _spec_path() -> Path:
    if os.environ.get("PARTITION_COSIM_SPEC"):
        return Path(os.environ["PARTITION_COSIM_SPEC"])
    specs = sorted((TREE / "host").glob("*_kernels.json"))
    if len(specs) != 1:
        raise FileNotFoundError(f"{TREE / 'host'}: expected one *_kernels.json, found {len(specs)}")
    return specs[0]


def _kernel(dut, name: str, memory: SparseMemory, budget: int) -> tuple[SimKernel, AxiRam | None]:
    """The kernel's control master, and an AXI RAM model on its m_axi_gmem (None for a kernel
    whose arrays all stream: it has no AXI4 master)."""
    axil = AxiLiteMaster(
        AxiLiteBus.from_prefix(dut, f"{name}_s_axi_control"),
        dut.ap_clk,
        dut.ap_rst_n,
        reset_active_level=False,
    )
    prefix = f"{name}_m_axi_gmem"
    ram = None
    if hasattr(dut, f"{prefix}_RDATA"):
        bus = AxiBus(
            write=AxiWriteBus(
                _AWBus.from_prefix(dut, prefix),
                AxiWBus.from_prefix(dut, prefix),
                AxiBBus.from_prefix(dut, prefix),
            ),
            read=AxiReadBus(_ARBus.from_prefix(dut, prefix), AxiRBus.from_prefix(dut, prefix)),
        )
        ram = AxiRam(bus, dut.ap_clk, dut.ap_rst_n, reset_active_level=False, mem=memory)
    irq = getattr(dut, f"{name}_interrupt")

    async def write(offset: int, value: int) -> None:
        await axil.write_dword(offset, value)

    async def read(offset: int) -> int:
        return await axil.read_dword(offset)

    async def wait_interrupt(cycles: int) -> bool:
        if not int(irq.value):
            await First(RisingEdge(irq), Timer(cycles * PERIOD_NS, "ns"))
        return bool(int(irq.value))

    return SimKernel(write, read, wait_interrupt, budget), ram


@cocotb.test()
async def test_app(dut):
    """The whole app, through the generated host code, with its kernels in simulation."""
    spec_path = _spec_path()
    spec = json.loads(spec_path.read_text())
    cocotb.start_soon(Clock(dut.ap_clk, PERIOD_NS, unit="ns", impl="gpi").start())
    dut.ap_rst_n.value = 0
    await ClockCycles(dut.ap_clk, 5)
    dut.ap_rst_n.value = 1
    await ClockCycles(dut.ap_clk, 2)
    memory = SparseMemory(MEMORY_BASE + MEMORY_SIZE)
    kernels: dict[str, SimKernel] = {}
    rams = []
    for k in spec["kernels"]:
        pl_hz = float(spec["clock"]["pl_mhz"]) * 1e6
        predicted = float(k.get("predicted", {}).get("compute_s", 0.0)) * pl_hz
        budget = int(4 * predicted) + 1_000_000
        kernels[k["name"]], ram = _kernel(dut, k["name"], memory, budget)
        rams.append(ram)
    shared = SimMemory(memory.read, memory.write, MEMORY_BASE, MEMORY_SIZE)
    backend = SimBackend(kernels, shared, resume)
    app = TREE / "host" / spec["app"]["file"]
    args = json.loads(os.environ.get("PARTITION_COSIM_ARGS", "[]"))
    out = Path(os.environ.get("PARTITION_COSIM_OUT", "app_stdout.txt"))
    stats = os.environ.get("PARTITION_COSIM_STATS", "")
    ours = ["--stats", stats] if stats else []

    def run() -> int:
        os.chdir(TREE / "host")  # where the app runs on the board, and the plain CPU run
        with out.open("w") as f, contextlib.redirect_stdout(f):
            return run_app([*ours, "--", *args], spec_path, app, backend=backend)

    rc = await bridge(run)()
    assert rc == 0, f"run_app exited with status {rc}"
