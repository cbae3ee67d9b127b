"""cocotb test of the RAM shells against a Python model: random traffic on both ports of the
true dual-port RAM and on the simple dual-port RAM, checking read latency (1 cycle),
read-first on a port that writes, data held while a port is disabled, and both TDP ports
writing. Same-address collisions between ports are undefined (block RAM) and not generated.
"""

from __future__ import annotations

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge

DEPTH = 40
MASK = 0xFFFF


@cocotb.test()
async def test_ram_model(dut):
    rng = random.Random(11)
    cocotb.start_soon(Clock(dut.ap_clk, 10, unit="ns").start())
    tdp = [None] * DEPTH  # None: never written, its read value is not checked
    sdp = [None] * DEPTH
    out = {"a": None, "b": None, "r": None}
    checked = 0
    for sig in ("a_en", "a_we", "b_en", "b_we", "w_en", "r_en"):
        getattr(dut, sig).value = 0
    await FallingEdge(dut.ap_clk)
    for cycle in range(600):
        # inputs for the next rising edge
        a = {
            "en": rng.random() < 0.7,
            "we": rng.random() < 0.5,
            "addr": rng.randrange(DEPTH),
            "d": rng.getrandbits(16),
        }
        b = {
            "en": rng.random() < 0.7,
            "we": rng.random() < 0.5,
            "addr": rng.randrange(DEPTH),
            "d": rng.getrandbits(16),
        }
        if a["addr"] == b["addr"]:
            b["addr"] = (a["addr"] + 1 + rng.randrange(DEPTH - 1)) % DEPTH
        w = {"en": rng.random() < 0.6, "addr": rng.randrange(DEPTH), "d": rng.getrandbits(16)}
        r = {"en": rng.random() < 0.7, "addr": rng.randrange(DEPTH)}
        if r["addr"] == w["addr"]:
            r["addr"] = (w["addr"] + 1) % DEPTH
        for p, v in (("a", a), ("b", b)):
            getattr(dut, f"{p}_en").value = int(v["en"])
            getattr(dut, f"{p}_we").value = int(v["we"])
            getattr(dut, f"{p}_addr").value = v["addr"]
            getattr(dut, f"{p}_wdata").value = v["d"]
        dut.w_en.value = int(w["en"])
        dut.w_addr.value = w["addr"]
        dut.w_data.value = w["d"]
        dut.r_en.value = int(r["en"])
        dut.r_addr.value = r["addr"]
        # model of the rising edge: reads see the old contents (read-first)
        for p, v in (("a", a), ("b", b)):
            if v["en"]:
                out[p] = tdp[v["addr"]]
        if r["en"]:
            out["r"] = sdp[r["addr"]]
        for v in (a, b):
            if v["en"] and v["we"]:
                tdp[v["addr"]] = v["d"]
        if w["en"]:
            sdp[w["addr"]] = w["d"]
        await FallingEdge(dut.ap_clk)
        for p, sig in (("a", dut.a_rdata), ("b", dut.b_rdata), ("r", dut.r_data)):
            if out[p] is not None:
                got = int(sig.value) & MASK
                assert got == out[p], f"cycle {cycle}: {p} read 0x{got:04x}, model 0x{out[p]:04x}"
                checked += 1
    assert checked > 1000, f"only {checked} reads checked"
