"""Estimator v1: schedule model (II, depth, cycles), burst math, DSP/BRAM rules, sources."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from partition import ir
from partition.boards import load_board
from partition.dtypes import dtype
from partition.errors import PartitionError
from partition.estimate import Estimate, estimate_kernel, schedule_kernel
from partition.estimate import tables as T
from partition.estimate.schedule import (
    COMPUTE_ENTER_CYCLES,
    DONE_CYCLES,
    START_CYCLES,
    TRANSFER_SETUP_CYCLES,
    burst_count,
    bursts,
    control_cycles,
    transfer_cycles,
)

I8, I16, I32, I64 = dtype("int8"), dtype("int16"), dtype("int32"), dtype("int64")
F32 = dtype("float32")


def C(v, dt=I32):
    return ir.Const(v, dt)


def V(name, dt=I32):
    return ir.Var(name, dt)


def arr(name, dt, shape, direction):
    return ir.Param(name, "array", dt, shape, direction)


@pytest.fixture(scope="module")
def z2():
    return load_board("pynq-z2")


@pytest.fixture(scope="module")
def zcu():
    return load_board("zcu104")


def vadd(n=1024):
    i = V("i")
    body = [
        ir.For(
            "i", C(0), C(n), 1,
            [ir.Store("c", (i,), ir.Bin("add", ir.Load("a", (i,), I32), ir.Load("b", (i,), I32), I32))],
            n, label="L1",
        )
    ]  # fmt: skip
    params = [arr("a", I32, (n,), "in"), arr("b", I32, (n,), "in"), arr("c", I32, (n,), "out")]
    return ir.Kernel("vadd", params, {"i": I32}, [], body)


def dot(n=1024, dt=I32):
    i, acc = V("i"), V("acc", dt)
    prod = ir.Bin("mul", ir.Load("a", (i,), dt), ir.Load("b", (i,), dt), dt)
    zero = ir.Const(0.0 if dt.is_float else 0, dt)
    body = [
        ir.Assign("acc", zero),
        ir.For("i", C(0), C(n), 1, [ir.Assign("acc", ir.Bin("add", acc, prod, dt))], n, label="L1"),
        ir.Return(acc),
    ]
    params = [arr("a", dt, (n,), "in"), arr("b", dt, (n,), "in")]
    return ir.Kernel("dot", params, {"i": I32, "acc": dt}, [], body, ret=dt)


def mul_kernel(src, n=64):
    """c[i] = int(a[i]) * int(b[i]) computed in int64 from `src`-typed inputs."""
    i = V("i")
    prod = ir.Bin("mul", ir.Cast(ir.Load("a", (i,), src), I64), ir.Cast(ir.Load("b", (i,), src), I64), I64)
    body = [ir.For("i", C(0), C(n), 1, [ir.Store("c", (i,), prod)], n, label="L1")]
    params = [arr("a", src, (n,), "in"), arr("b", src, (n,), "in"), arr("c", I64, (n,), "out")]
    return ir.Kernel("mul", params, {"i": I32}, [], body)


def matmul(n=8):
    i, j, k, acc = V("i"), V("j"), V("k"), V("acc")
    prod = ir.Bin("mul", ir.Cast(ir.Load("A", (i, k), I8), I32), ir.Cast(ir.Load("B", (k, j), I8), I32), I32)
    lk = ir.For("k", C(0), C(n), 1, [ir.Assign("acc", ir.Bin("add", acc, prod, I32))], n, label="Lk")
    lj = ir.For("j", C(0), C(n), 1, [ir.Assign("acc", C(0)), lk, ir.Store("C", (i, j), acc)], n, label="Lj")
    li = ir.For("i", C(0), C(n), 1, [lj], n, label="Li")
    params = [arr("A", I8, (n, n), "in"), arr("B", I8, (n, n), "in"), arr("C", I32, (n, n), "out")]
    return ir.Kernel("matmul", params, {"i": I32, "j": I32, "k": I32, "acc": I32}, [], [li])


# ----------------------------------------------------------------- schedule


def test_vector_add_ii1_and_cycles_by_hand(z2):
    n = 1024
    e = estimate_kernel(vadd(n), z2)
    loop = e.loops["L1"]
    assert loop["pipelined"] and loop["ii"] == 1
    # load a/b at cycle 0, data + add at cycle 1, store at cycle 1 -> D = 2
    assert loop["depth"] == 2
    assert loop["cycles"] == (n - 1) * 1 + 2 + 1
    # by hand: 4 KB per array = 4 bursts of 256 32-bit beats; latency 64 per burst
    per_array = 4 * (64 + 256)
    control = START_CYCLES + 3 * TRANSFER_SETUP_CYCLES + COMPUTE_ENTER_CYCLES + DONE_CYCLES
    assert control == control_cycles(3) == 6
    assert e.breakdown["load_cycles"] == 2 * per_array
    assert e.breakdown["store_cycles"] == per_array
    assert e.breakdown["compute_cycles"] == loop["cycles"]
    assert e.cycles == control + 3 * per_array + (n - 1) + 2 + 1 == 4872
    assert e.seconds == pytest.approx(4872 / 100e6)
    assert e.clock_mhz == 100.0 and e.source == "model" and e.variant == "base"


def test_accumulator_recurrence_is_one_add(z2):
    e = estimate_kernel(dot(), z2)
    loop = e.loops["L1"]
    assert loop["ii"] == 1
    assert loop["ii_reasons"]["recurrence"] == 1
    # load (1 cycle) -> 32x32 multiply (8.41 ns, its own cycle) -> add -> commit
    assert loop["depth"] == 4
    assert e.dsp == 3
    sched = schedule_kernel(dot(), "xc7", 100.0)
    adds = [op for op in sched.loops["L1"].body[0].ops if op.kind == "add"]
    assert len(adds) == 1 and adds[0].cost.latency == 0
    assert adds[0].cycle == 3


def test_float_accumulator_recurrence_is_the_adder_latency(z2):
    e = estimate_kernel(dot(256, F32), z2)
    fadd = T.float_cost("fadd", 32, "xc7", 100.0)
    assert e.loops["L1"]["ii"] == fadd.latency == 4
    assert any("floating point" in n for n in e.notes)


def test_nested_loops_fsm_outer_pipelined_inner(z2):
    n = 8
    e = estimate_kernel(matmul(n), z2)
    lk, lj, li = e.loops["Lk"], e.loops["Lj"], e.loops["Li"]
    assert lk["pipelined"] and not lj["pipelined"] and not li["pipelined"]
    assert lk["ii"] == 1 and lk["cycles"] == (n - 1) + lk["depth"] + 1
    assert lk["entries"] == n * n and lj["entries"] == n and li["entries"] == 1
    # FSM loop: trip * (1 + body) + 1; Lj's body = acc = 0 (1) + Lk + store (1)
    assert lj["cycles"] == n * (1 + 1 + lk["cycles"] + 1) + 1
    assert li["cycles"] == n * (1 + lj["cycles"]) + 1
    assert e.breakdown["compute_cycles"] == li["cycles"]
    # an int8 x int8 product (16 bits) goes on one DSP48, as yosys and Vivado map it
    assert e.dsp == 1


def test_division_by_variable_is_sequential(z2):
    i, d = V("i"), V("d")
    body = [
        ir.For("i", C(0), C(64), 1,
               [ir.Store("c", (i,), ir.Bin("floordiv", ir.Load("a", (i,), I32), d, I32))], 64, label="L1")
    ]  # fmt: skip
    params = [arr("a", I32, (64,), "in"), ir.Param("d", "scalar", I32), arr("c", I32, (64,), "out")]
    e = estimate_kernel(ir.Kernel("div", params, {"i": I32}, [], body), z2)
    assert e.loops["L1"]["ii"] == 32 + 2
    assert e.loops["L1"]["ii_reasons"]["unit"] == 34
    assert any("sequential divider" in n for n in e.notes)
    # a power-of-two constant is a shift: no divider
    body2 = [
        ir.For("i", C(0), C(64), 1,
               [ir.Store("c", (i,), ir.Bin("floordiv", ir.Load("a", (i,), I32), C(8), I32))], 64, label="L1")
    ]  # fmt: skip
    params2 = [arr("a", I32, (64,), "in"), arr("c", I32, (64,), "out")]
    e2 = estimate_kernel(ir.Kernel("div8", params2, {"i": I32}, [], body2), z2)
    assert e2.loops["L1"]["ii"] == 1


def test_store_load_same_array(z2):
    i = V("i")
    # prefix sum: a[i] = a[i-1] + a[i] -> RAW distance 1 and three accesses to one RAM
    body = [
        ir.For("i", C(1), C(64), 1, [
            ir.Store("a", (i,), ir.Bin("add", ir.Load("a", (ir.Bin("sub", i, C(1), I32),), I32),
                                       ir.Load("a", (i,), I32), I32))], 63, label="L1")
    ]  # fmt: skip
    e = estimate_kernel(ir.Kernel("prefix", [arr("a", I32, (64,), "inout")], {"i": I32}, [], body), z2)
    reasons = e.loops["L1"]["ii_reasons"]
    assert reasons["memory"] == 2 and reasons["array_raw"] >= 2
    # histogram: data-dependent index -> conservative II >= 2
    idx = ir.Load("x", (i,), I32)
    body2 = [
        ir.For("i", C(0), C(256), 1,
               [ir.Store("h", (idx,), ir.Bin("add", ir.Load("h", (idx,), I32), C(1), I32))], 256, label="L1")
    ]  # fmt: skip
    params2 = [arr("x", I32, (256,), "in"), arr("h", I32, (16,), "inout")]
    e2 = estimate_kernel(ir.Kernel("hist", params2, {"i": I32}, [], body2), z2)
    assert e2.loops["L1"]["ii"] >= 2


def test_if_converted_in_pipeline_and_break(z2):
    i, v = V("i"), V("v")

    def relu(then):
        body = [
            ir.For("i", C(0), C(256), 1, [
                ir.Assign("v", ir.Load("a", (i,), I32)),
                ir.If(ir.Cmp("lt", v, C(0)), then, []),
                ir.Store("b", (i,), v),
            ], 256, label="L1")
        ]  # fmt: skip
        params = [arr("a", I32, (256,), "in"), arr("b", I32, (256,), "out")]
        return ir.Kernel("relu", params, {"i": I32, "v": I32}, [], body)

    e = estimate_kernel(relu([ir.Assign("v", C(0))]), z2)
    assert e.loops["L1"]["pipelined"] and e.loops["L1"]["ii"] == 1
    assert e.loops["L1"]["cycles"] == 255 + e.loops["L1"]["depth"] + 1
    assert e.breakdown["operators"]["select"] == 1
    # a break can leave mid-body: the loop is an FSM loop, costed with its full trip count
    e = estimate_kernel(relu([ir.Assign("v", C(0)), ir.Break(line=7)]), z2)
    loop = e.loops["L1"]
    assert not loop["pipelined"]
    assert loop["cycles"] == 256 * (1 + loop["depth"]) + 1
    assert any("break at line 7" in n for n in e.notes)


def test_if_outside_pipeline_takes_longer_branch(z2):
    x, y = V("x"), V("y")
    body = [
        ir.If(ir.Cmp("gt", x, C(0)),
              [ir.Assign("y", ir.Bin("add", x, C(1), I32)), ir.Assign("y", ir.Bin("add", y, C(2), I32))],
              [ir.Assign("y", C(0))]),
        ir.Return(y),
    ]  # fmt: skip
    k = ir.Kernel("branch", [ir.Param("x", "scalar", I32)], {"y": I32}, [], body, ret=I32)
    sched = schedule_kernel(k, "xc7", 100.0)
    top = sched.body[0]
    assert top.kind == "if" and top.cond_cycles == 1
    assert top.length == 1 + 2  # condition + the longer (then) branch
    assert sched.compute_cycles == 3 + 1


def test_rom_and_local_arrays(z2):
    i = V("i")
    tab = ir.LocalArray("tab", I16, (64,), list(range(64)))
    masked = ir.Bin("and", ir.Load("x", (i,), I32), C(63), I32)
    body = [
        ir.For("i", C(0), C(256), 1,
               [ir.Store("y", (i,), ir.Cast(ir.Load("tab", (masked,), I16), I32))], 256, label="L1")
    ]  # fmt: skip
    k = ir.Kernel("rom", [arr("x", I32, (256,), "in"), arr("y", I32, (256,), "out")], {"i": I32}, [tab], body)
    e = estimate_kernel(k, z2)
    ram = e.breakdown["rams"]["tab"]
    assert ram["kind"] == "rom" and ram["impl"] == "lutram"
    assert ram["lut"] == 16  # 64 x 16 bits: one 64-deep LUT per bit
    assert e.breakdown["init_cycles"] == 0
    assert e.loops["L1"]["ii"] == 1


# ------------------------------------------------------------------ bursts


def test_bursts_256_beat_limit_and_partial_word():
    assert bursts(4096, 4) == [256] * 4
    assert bursts(1030, 4) == [256, 2]  # 257.5 words -> last word partial
    assert bursts(6, 4) == [2]  # int16[3]
    assert bursts(0, 4) == []
    assert bursts(8192, 8) == [256] * 4


def test_bursts_split_at_4kb():
    assert bursts(2048, 4, base=3072) == [256, 256]
    assert bursts(2048, 4, base=4000) == [24, 256, 232]
    assert bursts(100, 8, base=4088) == [1, 12]
    assert transfer_cycles(2048, 4, 64, base=4000) == 3 * 64 + 24 + 256 + 232
    with pytest.raises(ValueError):
        bursts(16, 4, base=2)


@given(
    nbytes=st.integers(0, 200_000),
    bus=st.sampled_from([4, 8, 16, 32]),
    words=st.integers(0, 5000),
    latency=st.integers(0, 100),
)
@settings(max_examples=300, deadline=None)
def test_burst_count_and_transfer_cycles_match_the_burst_list(nbytes, bus, words, latency):
    base = words * bus
    parts = bursts(nbytes, bus, base)
    assert burst_count(nbytes, bus, base) == len(parts)
    assert transfer_cycles(nbytes, bus, latency, base) == sum(latency + b for b in parts)


def test_transfer_cycles_of_a_huge_array_take_no_time():
    # 2 TB in 2 KB bursts: computed, not listed (a profile may describe arrays of any size)
    assert transfer_cycles(2 * 10**12, 8, 30) == 30 * (2 * 10**12 // 2048) + 2 * 10**12 // 8


def test_load_store_cycles_from_burst_math(z2):
    n = 3000  # 12000 bytes: 11 bursts of 256 beats + one of 232, with 4 KB splits aligned
    e = estimate_kernel(vadd(n), z2)
    beats = bursts(n * 4, 4)
    assert sum(beats) == n and max(beats) == 256
    assert e.breakdown["load_cycles"] == 2 * sum(64 + b for b in beats)
    assert e.breakdown["store_cycles"] == sum(64 + b for b in beats)


# ---------------------------------------------------------------- resources


@pytest.mark.parametrize("src,expected", [(I16, 1), (I32, 4), (I64, 10)])
def test_dsp_count_16_32_64(z2, src, expected):
    # int16 x int16 -> 1 slice; int32 x int32 into 64 bits -> 4; int64 x int64 -> 10
    e = estimate_kernel(mul_kernel(src), z2)
    assert e.dsp == expected


def test_dsp_tiling_rules():
    for fam in T.FAMILIES:
        assert T.mul_cost(16, 16, 16, fam, 100.0).dsp == 1
        assert T.mul_cost(32, 32, 32, fam, 100.0).dsp == 3
        assert T.mul_cost(64, 64, 64, fam, 100.0).dsp == 10
        assert T.mul_cost(8, 8, 32, fam, 100.0).dsp == 1  # a 16-bit product: one DSP48
        assert T.mul_cost(8, 8, 32, fam, 100.0).latency == 0  # ... used combinationally
        assert T.mul_cost(4, 4, 8, fam, 100.0).dsp == 0  # an 8-bit product: LUT multiplier
        assert T.mul_cost(32, 32, 32, fam, 100.0, const=12).dsp == 0  # two set bits: shift-add
        assert T.mul_cost(32, 32, 32, fam, 100.0, const=0x55).dsp == 3


def test_xczu_differs_where_dsp_widths_differ():
    # a 26-bit operand exceeds the DSP48E1's 25-bit port but fits the DSP48E2's 27
    assert T.dsp_count(26, 18, 44, "xc7") == 2
    assert T.dsp_count(26, 18, 44, "xczu") == 1
    assert T.mul_cost(26, 18, 44, "xc7", 100.0).dsp == 2
    assert T.mul_cost(26, 18, 44, "xczu", 100.0).dsp == 1
    assert T.dsp_count(25, 18, 43, "xc7") == T.dsp_count(25, 18, 43, "xczu") == 1


@pytest.mark.parametrize(
    "depth,width,bram",
    [(1024, 32, 2), (512, 36, 1), (2048, 9, 1), (4096, 8, 2), (16384, 1, 1), (1025, 18, 2), (8192, 32, 16)],
)
def test_bram18_by_aspect_ratio(depth, width, bram):
    r = T.ram_cost(depth, width)
    assert r.impl == "bram18" and r.bram18 == bram


def test_small_arrays_are_lutram():
    assert T.ram_cost(16, 32) == T.ram_cost(16, 32)
    r = T.ram_cost(16, 32)
    assert r.impl == "lutram" and r.bram18 == 0 and r.lut == 32
    assert T.ram_cost(100, 8).lut == math.ceil(100 / 64) * 8


def test_buffer_bram_counts_in_estimate(z2):
    e = estimate_kernel(vadd(1024), z2)
    assert e.bram18 == 3 * 2
    assert {r["impl"] for r in e.breakdown["rams"].values()} == {"bram18"}
    # int8 arrays are packed four to a 32-bit word: 64x64 int8 -> 1024 x 32 -> 2 BRAM18
    m = estimate_kernel(matmul(64), z2)
    assert m.breakdown["rams"]["A_buf"]["depth"] == 1024 and m.breakdown["rams"]["A_buf"]["bram18"] == 2
    assert m.bram18 == 2 + 2 + 8


def test_every_table_entry_has_a_source():
    entries = T.table_entries()
    assert len(entries) > 100
    for e in entries:
        assert e.source.strip(), e
        assert e.family in T.FAMILIES
    assert T.ram_cost(4096, 32).source and T.ram_cost(8, 8).source
    assert T.SHELL_SOURCE and T.FSM_SOURCE and T.MUX_SOURCE


def test_breakdown_sums_to_totals(z2):
    e = estimate_kernel(dot(), z2)
    res = e.breakdown["resources"]
    for r in ("lut", "ff", "dsp", "bram18"):
        assert getattr(e, r) == sum(v.get(r, 0) for v in res.values())
    assert res["shell"]["lut"] > 0 and res["shell"]["ff"] > 0
    assert e.breakdown["sources"]["shell"] == T.SHELL_SOURCE


def test_families_and_clock(zcu, z2):
    a = estimate_kernel(dot(), z2)
    b = estimate_kernel(dot(), zcu)
    assert b.loops["L1"]["depth"] <= a.loops["L1"]["depth"]
    fast = schedule_kernel(dot(), "xc7", 250.0)
    assert fast.loops["L1"].depth > schedule_kernel(dot(), "xc7", 100.0).loops["L1"].depth
    with pytest.raises(ValueError):
        schedule_kernel(dot(), "xc9", 100.0)


# ---------------------------------------------------------------- artefact


def test_deterministic_and_json_round_trip(z2):
    k = matmul(8)
    a = json.dumps(estimate_kernel(k, z2).to_json(), sort_keys=True)
    b = json.dumps(estimate_kernel(matmul(8), z2).to_json(), sort_keys=True)
    assert a == b
    e = Estimate.from_json(json.loads(a))
    assert json.dumps(e.to_json(), sort_keys=True) == a
    assert e.seconds == pytest.approx(e.cycles / 100e6)


def test_from_json_rejects_bad_data():
    with pytest.raises(PartitionError):
        Estimate.from_json({"task": "x"})
    good = Estimate("t", 10, 100.0, 1, 1, 0, 0).to_json()
    del good["cycles"]
    with pytest.raises(PartitionError, match="missing cycles"):
        Estimate.from_json(good)


def test_casts_do_not_lengthen_the_recurrence(z2):
    # acc = int32(int64(acc) + int64(x[i])): the casts are wiring, the recurrence is one add
    i, acc = V("i"), V("acc")
    wide = ir.Bin("add", ir.Cast(acc, I64), ir.Cast(ir.Load("x", (i,), I16), I64), I64)
    body = [
        ir.Assign("acc", C(0)),
        ir.For("i", C(0), C(128), 1, [ir.Assign("acc", ir.Cast(wide, I32))], 128, label="L1"),
        ir.Return(acc),
    ]
    k = ir.Kernel("acc", [arr("x", I16, (128,), "in")], {"i": I32, "acc": I32}, [], body, ret=I32)
    e = estimate_kernel(k, z2)
    assert e.loops["L1"]["ii"] == 1
    assert e.loops["L1"]["ii_reasons"]["recurrence"] == 1


def test_shell_is_a_formula_of_the_register_map():
    from partition.regmap import register_map

    k = vadd(64)
    base = T.shell_resources(register_map(k), 2, 1, [(6, 32)] * 3, 32)
    k2 = vadd(64)
    k2.params.append(ir.Param("scale", "scalar", I32))
    more = T.shell_resources(register_map(k2), 2, 1, [(6, 32)] * 3, 32)
    assert more["ff"] - base["ff"] == 32  # one more 32-bit argument word
    assert more["lut"] > base["lut"]
    no_store = T.shell_resources(register_map(k), 2, 0, [(6, 32)] * 2, 32)
    assert no_store["lut"] < base["lut"] and no_store["ff"] < base["ff"]  # no write engine


def test_equal_subexpressions_of_a_statement_are_computed_once(z2):
    i = V("i")
    a_i = ir.Load("a", (i,), I32)
    twice = ir.Bin("add", ir.Bin("mul", a_i, a_i, I32), ir.Bin("mul", a_i, a_i, I32), I32)
    body = [ir.For("i", C(0), C(64), 1, [ir.Store("c", (i,), twice)], 64, label="L1")]
    k = ir.Kernel("sq", [arr("a", I32, (64,), "in"), arr("c", I32, (64,), "out")], {"i": I32}, [], body)
    e = estimate_kernel(k, z2)
    ops = e.breakdown["operators"]
    assert ops["load"] == 1 and ops["mul"] == 1
    assert e.dsp == 3
