"""Generic cocotb testbench of a kernel IP (either backend's interface, DESIGN.md §4).

It needs nothing but the task folder: the register map (`<task>_regmap.json`,
partition.regmap.RegisterMap.to_json) and the vectors (`vectors/`, format in
partition.rtl.vectors). For every vector, in order and back to back without a reset, it
places the input arrays in an AxiRam (cocotbext-axi) at distinct 4 KB-aligned addresses
(out-only arrays are filled with random bytes, so an element the kernel fails to write
shows), writes the arguments at their register offsets through an AxiLiteMaster, starts
the kernel with ap_start, polls CTRL until ap_done (with a cycle timeout), and compares
every out/inout array (and the bytes around it) and ap_return bit for bit. A monitor
checks every AXI burst (INCR, beats as wide as the data bus, <= 256 beats, no 4 KB crossing,
one burst outstanding) and measures the cycles from the cycle ap_start is seen while idle to the
cycle ap_done is high, with each burst's slave latency (AR -> first R beat, last W beat ->
B), so a caller can compare with the estimate at the board's DDR latencies. A second test
checks ap_idle / ap_ready / ap_done (clear on read) and the interrupt path (GIE, IER, ISR
toggle on write).

An AXI-Stream port of a chain (a streamed array, "stream" in the manifest) has no register
and no place in the AxiRam: a streamed input is sent from its input file as 64-bit beats
(the array's bytes little-endian, the last beat zero padded: the HLS C++'s pack_beat) on
<arg>_TDATA/TVALID, a streamed output is taken from <arg>_TDATA/TREADY and compared with its
expected file, padding included, and exactly as many beats as the array takes must pass.
PARTITION_TB_STREAMS=random pauses TVALID and TREADY at random (backpressure), holding every
offered beat until it is taken; the default, "steady", offers and takes a beat every cycle, so
the cycles are exact. A kernel whose arrays all stream has no m_axi_gmem.

Environment: PARTITION_TB_DIR (task folder, required), PARTITION_RESULTS (JSON lines
appended per run), PARTITION_TIMEOUT_CYCLES (default 2,000,000 per call),
PARTITION_TB_STREAMS ("steady" or "random").
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import cocotb
import numpy as np
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, First, RisingEdge, Timer
from cocotbext.axi import AxiBus, AxiLiteBus, AxiLiteMaster, AxiRam
from cocotbext.axi.axi_channels import AxiARBus, AxiAWBus, AxiBBus, AxiRBus, AxiReadBus, AxiWBus, AxiWriteBus

try:  # in a build tree, the file beside this one
    from axi_monitor import PERIOD_NS, Monitor, has_gmem, hi, num
except ImportError:  # as partition.sim.kernel_tb
    from partition.sim.axi_monitor import PERIOD_NS, Monitor, has_gmem, hi, num

CTRL, GIE, IER, ISR = 0x00, 0x04, 0x08, 0x0C
AP_START, AP_DONE, AP_IDLE, AP_READY, INTERRUPT = 1, 2, 4, 8, 1 << 9
BASE = 0x10000
MASK32 = 0xFFFFFFFF


class _AWBus(AxiAWBus):
    # Vitis declares AWLOCK/ARLOCK 2 bits wide (AXI3 heritage); cocotbext-axi expects the
    # 1-bit AXI4 signal, so the lock signals stay out of the model (the monitor checks 0).
    _optional_signals = [s for s in AxiAWBus._optional_signals if s != "awlock"]


class _ARBus(AxiARBus):
    _optional_signals = [s for s in AxiARBus._optional_signals if s != "arlock"]


def _v(sig) -> int:
    return int(sig.value)


class Task:
    """The register map and vectors of the kernel under test."""

    def __init__(self, folder: Path):
        maps = sorted(folder.glob("*_regmap.json"))
        if len(maps) != 1:
            raise FileNotFoundError(f"{folder}: expected one *_regmap.json, found {len(maps)}")
        self.regmap = json.loads(maps[0].read_text())
        vdir = folder / "vectors"
        self.manifest = json.loads((vdir / "manifest.json").read_text())
        self.vdir = vdir / self.manifest.get("data", ".")  # where the .bin files are
        self.regs = {r["name"]: r for r in self.regmap["registers"]}
        self.params = self.manifest["params"]
        addr = BASE
        self.addr: dict[str, int] = {}
        for p in self.params:
            if p["kind"] == "array" and not p.get("stream"):
                self.addr[p["name"]] = addr
                addr += (p["nbytes"] + 64 + 4095) // 4096 * 4096 + 4096
        self.mem_size = addr + 4096

    def data(self, name: str) -> bytes:
        return (self.vdir / name).read_bytes()

    def moved(self, p: dict, vec: dict) -> int:
        """Bytes of array `p` a call moves each way: all, or the rows of its run-time length."""
        if not p.get("dyn"):
            return p["nbytes"]
        n = int.from_bytes(self.data(vec["inputs"][p["dyn"]]), "little", signed=True)
        return max(n + p.get("dyn_offset", 0), 0) * p["row_bytes"]

    def traffic(self, vec: dict, beat: int) -> tuple[int, int] | None:
        """(beats read, beats written) a call of a kernel with run-time lengths must make: each
        array's bytes it moves, in whole beats (None for other kernels)."""
        if "traffic" in vec:  # tiles through DDR: the manifest counted their copies
            return vec["traffic"][0], vec["traffic"][1]
        mem = [p for p in self.params if p["kind"] == "array" and not p.get("stream")]
        if not any(p.get("dyn") for p in mem):
            return None
        reads = sum(-(-self.moved(p, vec) // beat) for p in mem if p["direction"] in ("in", "inout"))
        writes = sum(-(-self.moved(p, vec) // beat) for p in mem if p["direction"] in ("out", "inout"))
        return reads, writes


class Stream:
    """One AXI-Stream port of the kernel: a source (streamed input) or a sink (output)
    driven cycle by cycle; `pause` (random mode) is the chance of a cycle without TVALID
    (source) or TREADY (sink). Handshakes are sampled right after the rising edge, where
    cocotb reads the values the edge saw."""

    def __init__(self, dut, name: str, rng: random.Random, pause: float):
        self.clk = dut.ap_clk
        self.name = name
        self.data, self.valid, self.ready = (
            getattr(dut, f"{name}_{s}") for s in ("TDATA", "TVALID", "TREADY")
        )
        self.rng = rng
        self.pause = pause
        self.stalls = 0  # cycles the kernel was ready but this side paused (each one costs a cycle)

    def _go(self) -> bool:
        return self.pause == 0 or self.rng.random() >= self.pause

    async def send(self, data: bytes) -> None:
        beats = [int.from_bytes(data[i : i + 8].ljust(8, b"\0"), "little") for i in range(0, len(data), 8)]
        i, offered = 0, False
        while i < len(beats):
            if not offered and self._go():
                offered = True
                self.data.value = beats[i]
                self.valid.value = 1
            await RisingEdge(self.clk)
            if offered and hi(self.ready):
                i += 1
                offered = False
                self.valid.value = 0
            elif not offered and hi(self.ready):
                self.stalls += 1

    async def receive(self, n: int, out: list[int]) -> None:
        while len(out) < n:
            take = self._go()
            self.ready.value = int(take)
            await RisingEdge(self.clk)
            if take and hi(self.valid):
                out.append(num(self.data))
            elif hi(self.valid):
                self.stalls += 1
        self.ready.value = 0


class TB:
    def __init__(self, dut):
        self.dut = dut
        self.task = Task(Path(os.environ["PARTITION_TB_DIR"]))
        self.timeout = int(os.environ.get("PARTITION_TIMEOUT_CYCLES", "2000000"))
        self.rng = random.Random(12345)
        # Verilator: the clock toggled by the simulator interface in C++ (cocotb's default is a
        # Python coroutine, several times slower); Icarus: the Python clock, whose first edge
        # comes after reset is driven (the C++ one's first edge meets X on the bus at time 0)
        impl = "gpi" if cocotb.SIM_NAME.lower().startswith("verilator") else "py"
        cocotb.start_soon(Clock(dut.ap_clk, PERIOD_NS, unit="ns", impl=impl).start())
        self.axil = AxiLiteMaster(
            AxiLiteBus.from_prefix(dut, "s_axi_control"), dut.ap_clk, dut.ap_rst_n, reset_active_level=False
        )
        self.ram = None
        if has_gmem(dut):
            bus = AxiBus(
                write=AxiWriteBus(
                    _AWBus.from_prefix(dut, "m_axi_gmem"),
                    AxiWBus.from_prefix(dut, "m_axi_gmem"),
                    AxiBBus.from_prefix(dut, "m_axi_gmem"),
                ),
                read=AxiReadBus(
                    _ARBus.from_prefix(dut, "m_axi_gmem"), AxiRBus.from_prefix(dut, "m_axi_gmem")
                ),
            )
            self.ram = AxiRam(
                bus, dut.ap_clk, dut.ap_rst_n, reset_active_level=False, size=self.task.mem_size
            )
        mode = os.environ.get("PARTITION_TB_STREAMS", "steady")
        if mode not in ("steady", "random"):
            raise ValueError(f"PARTITION_TB_STREAMS={mode!r}: steady or random")
        pause = 0.35 if mode == "random" else 0.0
        self.streams: dict[str, Stream] = {}
        for p in self.task.params:
            if p.get("stream"):
                s = self.streams[p["name"]] = Stream(
                    dut, p["name"], random.Random(f"{p['name']}/{mode}"), pause
                )
                (s.valid if p["direction"] == "in" else s.ready).value = 0  # nothing offered, nothing taken
        self.mon = Monitor(dut)
        cocotb.start_soon(self.mon.run())

    async def reset(self) -> None:
        self.dut.ap_rst_n.value = 0
        await ClockCycles(self.dut.ap_clk, 5)
        self.dut.ap_rst_n.value = 1
        await ClockCycles(self.dut.ap_clk, 2)

    async def wr(self, off: int, value: int) -> None:
        await self.axil.write_dword(off, value & MASK32)

    async def rd(self, off: int) -> int:
        return await self.axil.read_dword(off)

    async def write_reg(self, name: str, value: int) -> None:
        r = self.task.regs[name]
        v = value & ((1 << r["bits"]) - 1)
        for i in range(r["words"]):
            await self.wr(r["offset"] + 4 * i, v >> (32 * i))

    async def read_reg(self, name: str) -> int:
        r = self.task.regs[name]
        v = 0
        for i in range(r["words"]):
            v |= (await self.rd(r["offset"] + 4 * i)) << (32 * i)
        return v & ((1 << r["bits"]) - 1)

    async def prepare(self, k: int) -> dict:
        """Memory and arguments of vector k; returns what the checks need."""
        t = self.task
        vec = t.manifest["vectors"][k]
        guards = {}
        streamed: dict[str, tuple] = {}
        for p in t.params:
            name = p["name"]
            if p["kind"] == "scalar":
                raw = t.data(vec["inputs"][name])
                await self.write_reg(name, int.from_bytes(raw, "little"))
                continue
            if p.get("stream"):
                s = self.streams[name]
                s.stalls = 0
                if p["direction"] == "in":
                    data = t.data(vec["inputs"][name])
                    assert len(data) == p["nbytes"], f"{vec['inputs'][name]}: {len(data)} bytes"
                    streamed[name] = (cocotb.start_soon(s.send(data)), None)
                else:
                    beats: list[int] = []
                    streamed[name] = (cocotb.start_soon(s.receive(-(-p["nbytes"] // 8), beats)), beats)
                continue
            addr, n = t.addr[name], p["nbytes"]
            if name in vec["inputs"]:
                data = t.data(vec["inputs"][name])
                assert len(data) == n, f"{vec['inputs'][name]}: {len(data)} bytes, expected {n}"
            else:
                data = bytes(self.rng.getrandbits(8) for _ in range(n))
                if p.get("dyn"):  # the rows past a run-time length stay as the expected outputs
                    # have them (zeros): a store past the length shows as a difference
                    keep = t.moved(p, vec)
                    data = data[:keep] + bytes(n - keep)
            # guard bytes after the array: at least the rest of its last beat (WSTRB)
            tail = bytes(self.rng.getrandbits(8) for _ in range(8 + (-n) % self.mon.beat))
            self.ram.write(addr, data + tail)
            guards[name] = tail
            await self.write_reg(name, addr)
        return {"vec": vec, "guards": guards, "streamed": streamed}

    def check(self, k: int, prep: dict, outputs: bool = True) -> list[str]:
        """Every output as expected (with `outputs` False, only the bytes around them: a call
        the kernel hands back to the CPU leaves its outputs meaningless)."""
        t, vec = self.task, prep["vec"]
        errors = []
        for p in t.params:
            name = p["name"]
            if p.get("stream"):
                if outputs:
                    errors += self._check_stream(p, vec, prep["streamed"][name])
                continue
            if name not in vec["outputs"]:
                continue
            want = t.data(vec["outputs"][name])
            addr, n = t.addr[name], p["nbytes"]
            got = self.ram.read(addr, n)
            if outputs and got != want:
                dt = np.dtype("u1" if p["dtype"] == "bool" else p["dtype"]).newbyteorder("<")
                g, w = np.frombuffer(got, dt), np.frombuffer(want, dt)
                bad = np.flatnonzero(g != w)
                i = int(bad[0])
                errors.append(
                    f"{name}: {len(bad)} of {len(w)} elements differ; first at flat index {i}: got {g[i]}, want {w[i]}"
                )
            tail = self.ram.read(addr + n, len(prep["guards"][name]))
            if tail != prep["guards"][name]:
                errors.append(f"{name}: bytes after the array were written (WSTRB)")
        return errors

    def _check_stream(self, p: dict, vec: dict, streamed: tuple) -> list[str]:
        """A streamed input was taken whole; a streamed output sent exactly its beats, the
        array's bytes as expected and the padding zero; no beat is pending after ap_done."""
        name, n = p["name"], p["nbytes"]
        task, beats = streamed
        s = self.streams[name]
        if p["direction"] == "in":
            if not task.done():
                task.cancel()
                s.valid.value = 0
                return [f"{name}: the kernel finished without taking every beat of its input stream"]
            return []
        if not task.done():
            task.cancel()
            s.ready.value = 0
            return [f"{name}: the kernel sent {len(beats)} of the {-(-n // 8)} beats of its output stream"]
        if hi(s.valid):
            return [f"{name}: TVALID still high after the array's last beat"]
        got = b"".join(x.to_bytes(8, "little") for x in beats)
        want = self.task.data(vec["outputs"][name])
        if got[:n] != want:
            dt = np.dtype("u1" if p["dtype"] == "bool" else p["dtype"]).newbyteorder("<")
            g, w = np.frombuffer(got[:n], dt), np.frombuffer(want, dt)
            bad = np.flatnonzero(g != w)
            i = int(bad[0])
            return [
                f"{name}: {len(bad)} of {len(w)} streamed elements differ; first at flat index {i}: "
                f"got {g[i]}, want {w[i]}"
            ]
        if any(got[n:]):
            return [f"{name}: the padding of the last beat is not zero ({got[n:].hex()})"]
        return []

    async def sleep_until_done(self) -> None:
        """Sleep until the core signals ap_done (or the cycle timeout passes)."""
        await First(self.mon.done_event.wait(), Timer(self.timeout * PERIOD_NS, "ns"))
        if not self.mon.dones:
            raise AssertionError(f"ap_done not seen within {self.timeout} cycles")

    async def wait_done(self) -> int:
        """Wait for the core to finish, then poll CTRL until it shows ap_done; that CTRL value."""
        await self.sleep_until_done()
        for _ in range(16):
            ctrl = await self.rd(CTRL)
            if ctrl & AP_DONE:
                return ctrl
        raise AssertionError("the core finished but CTRL never showed ap_done")

    async def run(self, k: int) -> dict:
        prep = await self.prepare(k)
        self.mon.new_run()
        await self.wr(CTRL, AP_START)
        await self.wait_done()
        t, vec = self.task, prep["vec"]
        errors: list[str] = []
        fallback = 0
        status = t.manifest.get("status")
        if status:  # the kernel's fallback register: nonzero hands this call back to the CPU
            name = status["name"]
            fallback = await self.read_reg(name)
            if not (await self.rd(t.regs[name]["offset"] + 4)) & 1:
                errors.append(f"{name}_ap_vld is not set after ap_done")
            if await self.rd(t.regs[name]["offset"] + 4):
                errors.append(f"{name}_ap_vld is not cleared by reading it")
            want = t.data(vec["status"])[0]
            if want != status["either"] and fallback != want:
                errors.append(f"{name}: got {fallback}, want {want}")
        errors = self.check(k, prep, outputs=not fallback) + errors
        ret = None
        if vec.get("return") and not fallback:
            raw = t.data(vec["return"])
            bits = t.regs["ap_return"]["bits"]
            want = int.from_bytes(raw, "little") & ((1 << bits) - 1)
            ret = await self.read_reg("ap_return")
            if ret != want:
                errors.append(f"ap_return: got 0x{ret:x}, want 0x{want:x}")
        errors += self.mon.errors
        want_traffic = t.traffic(vec, self.mon.beat)
        if want_traffic is not None and self.mon.gmem:
            got = (sum(r["beats"] for r in self.mon.reads), sum(w["beats"] for w in self.mon.writes))
            if got != want_traffic:
                errors.append(f"beats read, written: {got}, the call's lengths and tiles move {want_traffic}")
        label = vec["label"]
        assert len(self.mon.starts) >= 1 and len(self.mon.dones) == 1, (self.mon.starts, self.mon.dones)
        entry = {
            "vector": k,
            "label": label,
            "cycles": self.mon.dones[0] - self.mon.starts[0],
            "read_bursts": [[r["beats"], r["first"] - r["ar"]] for r in self.mon.reads],
            "write_bursts": [[w["beats"], w["b"] - w["last"]] for w in self.mon.writes],
            "unstalled": self.mon.unstalled() and not any(s.stalls for s in self.streams.values()),
            "stream_stalls": {n: s.stalls for n, s in sorted(self.streams.items())},
            "errors": errors,
            "fallback": fallback,
        }
        path = os.environ.get("PARTITION_RESULTS")
        if path:
            with open(path, "a") as f:
                f.write(json.dumps(entry, sort_keys=True) + "\n")
        assert not errors, f"vector {k} ({label}): " + "; ".join(errors)
        return entry


@cocotb.test()
async def test_vectors(dut):
    """Every vector, back to back: outputs and return bit-exact, bursts well formed."""
    tb = TB(dut)
    await tb.reset()
    assert await tb.rd(CTRL) == AP_IDLE, "CTRL after reset is not just ap_idle"
    for k in range(len(tb.task.manifest["vectors"])):
        await tb.run(k)


@cocotb.test()
async def test_control(dut):
    """ap_idle/ap_done/ap_ready (clear on read) and the interrupt path (GIE, IER, ISR)."""
    tb = TB(dut)
    await tb.reset()
    for reg in (GIE, IER, ISR):
        assert await tb.rd(reg) == 0, f"register 0x{reg:x} not 0 after reset"
    await tb.prepare(0)
    tb.mon.new_run()
    await tb.wr(CTRL, AP_START)
    await tb.sleep_until_done()
    first = await tb.rd(CTRL)
    want = AP_DONE | AP_READY | AP_IDLE
    assert first == want, f"CTRL after the run 0x{first:x}, expected 0x{want:x}"
    second = await tb.rd(CTRL)
    assert second == AP_IDLE, f"ap_done/ap_ready not cleared on read: 0x{second:x}"
    assert await tb.rd(ISR) == 0 and not _v(dut.interrupt), "ISR set without IER"
    # done and ready interrupts in one run (a run is as long as the kernel's vectors make it)
    await tb.wr(IER, 0b11)
    await tb.wr(GIE, 1)
    await tb.run(0)
    assert await tb.rd(ISR) == 0b11, "ISR bits 0 (ap_done) and 1 (ap_ready) not both set"
    assert _v(dut.interrupt) == 1, "interrupt line low with GIE and ISR set"
    assert await tb.rd(CTRL) & INTERRUPT, "CTRL bit 9 does not show the interrupt"
    await tb.wr(ISR, 0b01)  # toggle on write: clears bit 0 only
    assert await tb.rd(ISR) == 0b10, "writing 1 to ISR bit 0 did not clear just that bit"
    assert _v(dut.interrupt) == 1, "interrupt line low while ISR bit 1 is still set"
    await tb.wr(GIE, 0)
    await ClockCycles(dut.ap_clk, 1)
    assert not _v(dut.interrupt), "interrupt with GIE off"
    await tb.wr(ISR, 0b10)
    assert await tb.rd(ISR) == 0, "ISR bit 1 not cleared by writing 1"
    await tb.wr(IER, 0b01)
    assert await tb.rd(IER) == 0b01, "IER does not read back what was written"
