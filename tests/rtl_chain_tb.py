"""cocotb test: two built-in RTL kernels chained in one `cosim_top`, the producer's stream
straight into the consumer's, run call by call.

PARTITION_CHAIN_CFG names a JSON file: {"kernels": [names], "chain": [producer, out,
consumer, in], "runs": [{"memory": [[address, hex bytes]], "args": {kernel: {register
offset: value}}, "first": kernel, "delay": cycles before the other kernel starts, "expect":
[[address, hex bytes]]}]}. Each kernel with an m_axi_gmem gets an AXI RAM model, all on one
memory. A run writes the memory and the arguments, starts `first`, waits `delay` cycles,
starts the other, waits for both ap_done and compares the expected bytes; the cycles in
which the producer offered a beat the consumer did not take (backpressure) are written to
PARTITION_CHAIN_OUT with the runs' errors.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiBus, AxiLiteBus, AxiLiteMaster, AxiRam
from cocotbext.axi.axi_channels import AxiARBus, AxiAWBus, AxiBBus, AxiRBus, AxiReadBus, AxiWBus, AxiWriteBus
from cocotbext.axi.sparse_memory import SparseMemory

CTRL, AP_START, AP_DONE = 0x00, 1, 2


class _AWBus(AxiAWBus):
    _optional_signals = [s for s in AxiAWBus._optional_signals if s != "awlock"]


class _ARBus(AxiARBus):
    _optional_signals = [s for s in AxiARBus._optional_signals if s != "arlock"]


@cocotb.test()
async def test_chain(dut):
    cfg = json.loads(Path(os.environ["PARTITION_CHAIN_CFG"]).read_text())
    cocotb.start_soon(Clock(dut.ap_clk, 10, unit="ns", impl="gpi").start())
    dut.ap_rst_n.value = 0
    memory = SparseMemory(1 << 20)
    ctrl, rams = {}, []
    for k in cfg["kernels"]:
        ctrl[k] = AxiLiteMaster(
            AxiLiteBus.from_prefix(dut, f"{k}_s_axi_control"),
            dut.ap_clk,
            dut.ap_rst_n,
            reset_active_level=False,
        )
        p = f"{k}_m_axi_gmem"
        if hasattr(dut, f"{p}_RDATA"):
            bus = AxiBus(
                write=AxiWriteBus(
                    _AWBus.from_prefix(dut, p), AxiWBus.from_prefix(dut, p), AxiBBus.from_prefix(dut, p)
                ),
                read=AxiReadBus(_ARBus.from_prefix(dut, p), AxiRBus.from_prefix(dut, p)),
            )
            rams.append(AxiRam(bus, dut.ap_clk, dut.ap_rst_n, reset_active_level=False, mem=memory))
    await ClockCycles(dut.ap_clk, 5)
    dut.ap_rst_n.value = 1
    await ClockCycles(dut.ap_clk, 2)
    producer, out, _consumer, _in = cfg["chain"]
    valid, ready = getattr(dut, f"{producer}_{out}_TVALID"), getattr(dut, f"{producer}_{out}_TREADY")
    report = []
    for r in cfg["runs"]:
        for addr, data in r["memory"]:
            memory.write(addr, bytes.fromhex(data))
        for k, regs in r["args"].items():
            for off, value in regs.items():
                await ctrl[k].write_dword(int(off), value)
        held = 0

        async def watch() -> None:
            nonlocal held
            while True:
                await RisingEdge(dut.ap_clk)
                held += int(valid.value) and not int(ready.value)

        watcher = cocotb.start_soon(watch())
        other = next(k for k in cfg["kernels"] if k != r["first"])
        await ctrl[r["first"]].write_dword(CTRL, AP_START)
        await ClockCycles(dut.ap_clk, r["delay"])
        await ctrl[other].write_dword(CTRL, AP_START)
        for k in cfg["kernels"]:
            for _ in range(20000):
                if await ctrl[k].read_dword(CTRL) & AP_DONE:
                    break
            else:
                raise AssertionError(f"{k}: no ap_done")
        watcher.cancel()
        errors = [
            f"bytes at 0x{addr:x} differ: got {memory.read(addr, len(want) // 2).hex()}, want {want}"
            for addr, want in r["expect"]
            if memory.read(addr, len(want) // 2).hex() != want
        ]
        report.append({"held": held, "errors": errors})
    Path(os.environ["PARTITION_CHAIN_OUT"]).write_text(json.dumps(report) + "\n")
    assert not any(x["errors"] for x in report), report
