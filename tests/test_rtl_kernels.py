"""The built-in RTL backend (partition/rtl/): generated IP cores compute exactly what
the IR computes, in exactly the cycles the estimator predicts.

Kernels: the integer kernels of tests/test_hls_codegen.py and their integer counterparts in
tests/ir_kernels.py (every operation on every dtype, edge and random inputs), plus one
kernel per example app from the frontend (tests/frontend_util.profile_calls on small calls).
Expected outputs come from partition.interp. Every kernel is generated once into the pytest
cache, linted with `verilator --lint-only -Wall`, simulated with Icarus (the generic cocotb
testbench partition.sim.kernel_tb: bit-exact outputs and return, back-to-back runs; the
control/interrupt test on a subset), a representative set also under Verilator (and the
large `intops` only there), and a representative set synthesized with yosys `synth_xilinx`
(every kernel with PARTITION_RTL_FULL=1). Simulated cycles, normalised to the board's
DDR latencies, must equal the estimate where the control flow is static, and stay below it
where loops leave early or have data-dependent bounds.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from ir_kernels import CASES, intops_slices

from partition import ir
from partition.boards import load_board
from partition.dtypes import DTYPES as D
from partition.errors import PartitionError
from partition.estimate import BASE, Directives, candidate_directives, estimate_kernel, estimate_variant
from partition.estimate.schedule import control_cycles, transfer_cycles
from partition.rtl import FLOAT_REASON, RtlUnsupported, RtlVariantUnsupported, generate_rtl, vector_files
from partition.sim import icarus, verilator, yosys
from partition.vectors import VectorSet

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
BOARD = load_board("pynq-z2")
TB = "partition.sim.kernel_tb"

# kernels whose loops have data-dependent bounds or leave early: simulation <= estimate
DYNAMIC = {"control", "bigloop"}
# the control/interrupt test runs on these (it repeats vector 0 three times)
CONTROL_TEST = {"vadd_int8", "vadd_int32_1", "int_scalars", "control", "recur", "dense_relu_int8"}
# representative set for Verilator, also run under Icarus (the two must agree)
VERILATOR = ("vadd_int8", "control", "dense_relu_int8", "vadd_int16_7__wide128", "int_arrays__wide64")
VERILATOR += ("fir_q15__unroll4_wide64", "int_arrays__unroll2")
# `intops` (every operation on every dtype: 20 k cycles a vector) runs under Verilator only:
# Icarus needs minutes for it, Verilator seconds (and its C++ build is cached by ccache)
VERILATOR_ONLY = ("intops",)


# ----------------------------------------------------------------------------- kernels


def example_kernels() -> dict[str, tuple[ir.Kernel, list[VectorSet]]]:
    """One kernel per example app (two for the image pipeline), from the frontend."""
    sys.path.insert(0, str(EXAMPLES))
    import fir_pipeline as F
    import image_pipeline as I
    import matmul_layer as M
    from frontend_util import profile_calls

    from partition.frontend import Rejected, translate

    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (9, 7)).astype(np.uint8)
    calls = {
        "fir_q15": (F.fir_q15, (rng.integers(-32768, 32767, 48).astype(np.int16), rng.integers(-20000, 20000, 8).astype(np.int16))),
        "sobel_magnitude": (I.sobel_magnitude, (img, 2)),
        "histogram256": (I.histogram256, (img,)),
        "dense_relu_int8": (
            M.dense_relu_int8,
            (rng.integers(-128, 127, (3, 8)).astype(np.int8), rng.integers(-128, 127, (8, 5)).astype(np.int8),
             rng.integers(-3000, 3000, 5).astype(np.int32), 6),
        ),
    }  # fmt: skip
    out = {}
    for name, (fn, args) in calls.items():
        k = translate(profile_calls(fn, [args], EXAMPLES), EXAMPLES)
        assert not isinstance(k, Rejected), k.reason
        inputs = {p.name: args[p.origin[1]] for p in k.params if p.origin[0] == "arg"}
        vs = VectorSet.from_interpreter(k, inputs, "profiled call")
        # the IR's outputs are the Python function's
        want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        (res,) = [p.name for p in k.params if p.origin == ("return", 0)]
        np.testing.assert_array_equal(vs.outputs[res], want)
        out[name] = (k, [vs])
    return out


def _write(folder: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.is_file() or p.read_bytes() != data:
            p.write_bytes(data)


@pytest.fixture(scope="module")
def work(request, tmp_path_factory) -> Path:
    cache = getattr(request.config, "cache", None)
    if cache is None:
        return tmp_path_factory.mktemp("partition-rtl-kernels")
    return Path(cache.mkdir("partition-rtl-kernels"))


@pytest.fixture(scope="module")
def generated(work) -> dict:
    """Every kernel generated (RTL + vectors) into work/<name>/."""
    out = {}
    kernels = {name: make(np.random.default_rng(20240611)) for name, make in CASES.items()}
    kernels.update(example_kernels())
    for name in NAMES:
        base, _, variant = name.partition(SEP)
        k, vecs = kernels[base]
        rtl = generate_rtl(k, BOARD, directives(k, variant) if variant else None)
        folder = work / name
        _write(folder, {**rtl.files, **vector_files(k, vecs)})
        out[name] = {"kernel": k, "vectors": vecs, "rtl": rtl, "dir": folder}
    return out


def directives(k: ir.Kernel, variant: str) -> Directives:
    """The directives of `variant`: a candidate of the kernel on pynq-z2, or `wideW` (the W-bit
    m_axi of any board; pynq-z2's own candidates stop at its 64-bit HP port)."""
    if variant.startswith("wide"):
        return Directives(variant, bus_bits=int(variant.removeprefix("wide")))
    return next((d for d in candidate_directives(k, BOARD) if d.name == variant), Directives(BASE))


SEP = "__"  # <kernel>__<variant>: that kernel built in another implementation variant
# kernels also built in their `seq` variant (innermost loops as FSM loops, not pipelines):
# recurrences, dividers, data-dependent control, packed narrow elements, an example
SEQ = ("control", "recur", "divs", "vadd_int16_7", "dense_relu_int8")
NAMES = [*CASES, "fir_q15", "sobel_magnitude", "histogram256", "dense_relu_int8"]
NAMES += [f"{n}{SEP}seq" for n in SEQ]
# kernels also built with a 64- and a 128-bit m_axi (wide burst variants): packed int8 /
# int16 buffers, byte counts not a multiple of the beat (14 and 4 bytes), int64 / uint64
# elements (a word a beat at 64 bits, two a word at 128), an inout array, a reduction, an
# example
WIDE = ("vadd_int8", "vadd_int16_7", "vadd_int32_1", "int_arrays", "recur", "dot", "dense_relu_int8")
NAMES += [f"{n}{SEP}wide{w}" for n in WIDE for w in (64, 128)]
# kernels also built in variants that unroll and cyclic-partition their arrays into banks (with
# the 32- and the 64-bit m_axi): packed int8/int16/uint8 buffers whose bus words scatter over
# 2 or 4 banks (a beat a word of every bank, or a beat into some of them), lengths that are no
# multiple of the banks (7, 33, 9 x 7), int64 elements (two beats each on the 32-bit bus), bool,
# inout arrays, a re-initialised local and ROMs in banks, banks that depend on an outer loop
# variable (fir_q15's x[n - k], dense_relu_int8), data-dependent control
PARTITIONED = {
    "vadd_int8": ("unroll2", "unroll4_wide64"),
    "vadd_int16_7": ("unroll2", "unroll4", "unroll4_wide64"),
    "int_arrays": ("unroll2", "unroll4", "unroll2_wide64"),
    "recur": ("unroll2", "unroll4_wide64"),
    "dot": ("unroll4",),
    "boolops": ("unroll4",),
    "control": ("unroll2",),
    "fir_q15": ("unroll2", "unroll4", "unroll4_wide64"),
    "dense_relu_int8": ("unroll2", "unroll4_wide64"),
    "sobel_magnitude": ("unroll2", "unroll4"),
    "histogram256": ("unroll4_wide64",),
}
NAMES += [f"{n}{SEP}{v}" for n, vs in PARTITIONED.items() for v in vs]
ICARUS = [n for n in NAMES if n not in VERILATOR_ONLY]


def sources(g: dict) -> list[Path]:
    return [g["dir"] / s for s in g["rtl"].sources]


# ------------------------------------------------------------------- generation (fast)


def test_generation_is_deterministic_and_complete():
    k, _ = CASES["int_arrays"](np.random.default_rng(1))
    a, b = generate_rtl(k, BOARD), generate_rtl(k, BOARD)
    assert a.files == b.files and a.sources == b.sources
    assert a.top == "int_arrays" and a.sources[-1] == "int_arrays.v"
    assert sorted(a.files) == sorted(
        [
            "int_arrays.v", "int_arrays_axi_read_engine.v", "int_arrays_axi_write_engine.v",
            "int_arrays_control_s_axi.v", "int_arrays_div.v", "int_arrays_ram_be.v", "int_arrays_rom_rom.v",
            "int_arrays_regmap.json", "int_arrays_regmap.h",
        ]
    )  # fmt: skip
    for name, data in a.files.items():
        text = data.decode()
        assert "/work/" not in text and "/tmp/" not in text, name
        if name.endswith(".v"):
            assert re.search(rf"^module {name[:-2]}\b", text, re.M), name
    top = a.files["int_arrays.v"].decode()
    assert "L2: pipelined, II 66" in top  # the int64 floor division by 3 uses the divider
    assert "L1_1: pipelined, II 1" in top
    assert "mem[0] = 16'h1;" in a.files["int_arrays_rom_rom.v"].decode()
    assert "mem[3] = 16'hfffc;" in a.files["int_arrays_rom_rom.v"].decode()


def test_variants_the_backend_builds():
    """`seq` is built as its estimate assumes (FSM loops), `wide64` with a 64-bit m_axi, `unroll2`
    with its arrays in cyclic banks; an m_axi the engines do not have is refused with its reason,
    as its own RtlUnsupported subclass (the plan falls back to base)."""
    k, _ = CASES["dot"](np.random.default_rng(1))
    ds = {d.name: d for d in candidate_directives(k)}
    base, seq = generate_rtl(k, BOARD), generate_rtl(k, BOARD, ds["seq"])
    assert (base.variant, seq.variant) == ("base", "seq")
    assert base.estimate_cycles == estimate_kernel(k, BOARD).cycles
    assert seq.estimate_cycles == estimate_variant(k, BOARD, ds["seq"]).cycles > base.estimate_cycles
    top = seq.files["dot.v"].decode()
    assert "Implementation variant: seq." in top and "pipelined" not in top
    assert "pipelined, II 1" in base.files["dot.v"].decode()
    assert generate_rtl(k, BOARD, ds["seq"]).files == seq.files
    # unroll variants: the arrays in cyclic banks, each its own dual-port RAM
    un = generate_rtl(k, BOARD, ds["unroll2"])
    assert ds["unroll2"].partition == (("a", 2), ("b", 2))
    assert un.estimate_cycles == estimate_variant(k, BOARD, ds["unroll2"]).cycles
    top = un.files["dot.v"].decode()
    assert "Implementation variant: unroll2." in top and "a_buf:" not in top
    for arr in "ab":
        assert f"// {arr}_buf_b0: buffer, bank 0 of 2 (elements i with i mod 2 == 0), 17 x 16" in top
        assert f"// {arr}_buf_b1: buffer, bank 1 of 2 (elements i with i mod 2 == 1), 17 x 16" in top
    # wide burst variants: the m_axi, the engines and the packed buffers as wide as the bus
    wide = {d.name: d for d in candidate_directives(k, BOARD) if d.bus_bits}
    w64 = generate_rtl(k, BOARD, wide["wide64"])
    assert (w64.variant, w64.data_bits) == ("wide64", 64)
    assert w64.estimate_cycles == estimate_variant(k, BOARD, wide["wide64"]).cycles < base.estimate_cycles
    top = w64.files["dot.v"].decode()
    assert "Implementation variant: wide64." in top and "input  wire [63:0]  m_axi_gmem_RDATA" in top
    assert "m_axi_ARSIZE   = 3'd3;" in w64.files["dot_axi_read_engine.v"].decode()
    assert base.data_bits == 32 and "input  wire [31:0]  m_axi_gmem_RDATA" in base.files["dot.v"].decode()
    # with the 64-bit bus, a beat of four int16 is a word of two elements in each bank
    uw = generate_rtl(k, BOARD, wide["unroll2_wide64"])
    assert uw.estimate_cycles == estimate_variant(k, BOARD, wide["unroll2_wide64"]).cycles
    assert (
        "// a_buf_b1: buffer, bank 1 of 2 (elements i with i mod 2 == 1), 9 x 32"
        in uw.files["dot.v"].decode()
    )
    with pytest.raises(RtlVariantUnsupported, match="256-bit m_axi"):
        generate_rtl(k, BOARD, Directives("wide256", bus_bits=256))
    assert issubclass(RtlVariantUnsupported, RtlUnsupported)


def test_register_map_files():
    k, _ = CASES["control"](np.random.default_rng(1))
    rtl = generate_rtl(k, BOARD)
    data = json.loads(rtl.files["control_regmap.json"])
    assert data == json.loads(json.dumps(rtl.regmap.to_json()))
    assert [r["name"] for r in data["registers"]] == ["ap_return", "x", "n", "m", "out", "res"]
    header = rtl.files["control_regmap.h"].decode()
    assert "#define CONTROL_AP_RETURN 0x10" in header
    assert "#define CONTROL_X 0x1C" in header and "#define CONTROL_N 0x28" in header
    assert "#define CONTROL_CTRL 0x00" in header and "#define CONTROL_ISR 0x0C" in header


def test_vectors_manifest():
    k, vecs = CASES["int_scalars"](np.random.default_rng(1))
    files = vector_files(k, vecs)
    m = json.loads(files["vectors/manifest.json"])
    assert m["format"] == "partition-rtl-vectors/1" and m["kernel"] == "int_scalars"
    assert [p["name"] for p in m["params"]] == ["a", "b", "h", "flag"]
    assert m["ret"] == {"dtype": "int16", "nbytes": 2}
    v0 = m["vectors"][0]
    assert v0["inputs"]["a"] == "0_a.in.bin" and v0["return"] == "0_return.bin" and v0["outputs"] == {}
    assert files["vectors/0_a.in.bin"] == np.int64(2**62 + 7).tobytes()


def test_float_and_other_unsupported_kernels_are_named():
    i = ir.Var("i", D["int32"])
    body = [
        ir.For("i", ir.Const(0, D["int32"]), ir.Const(4, D["int32"]), 1,
               [ir.Store("y", (i,), ir.Bin("mul", ir.Load("x", (i,), D["float32"]), ir.Const(2.0, D["float32"]), D["float32"]))],
               4, label="L1")
    ]  # fmt: skip
    params = [ir.Param("x", "array", D["float32"], (4,)), ir.Param("y", "array", D["float32"], (4,), "out")]
    k = ir.Kernel("scale", params, {"i": D["int32"]}, [], body)
    with pytest.raises(RtlUnsupported, match="float32") as e:
        generate_rtl(k, BOARD)
    assert FLOAT_REASON in str(e.value) and isinstance(e.value, PartitionError)
    empty = ir.Kernel("empty", [ir.Param("x", "array", D["int8"], (0,))], {}, [], [])
    with pytest.raises(RtlUnsupported, match="array x has no elements"):
        generate_rtl(empty, BOARD)


# -------------------------------------------------------------------------------- lint


@pytest.mark.parametrize("name", NAMES)
def test_lint_clean(verilator_env, generated, name):
    g = generated[name]
    assert verilator.lint(sources(g), g["rtl"].top) == []


def test_every_lint_waiver_is_justified(generated):
    for name in ("control", "int_arrays", "bigloop"):
        for fname, data in generated[name]["rtl"].files.items():
            lines = data.decode().splitlines()
            for i, line in enumerate(lines):
                if "lint_off" in line:
                    around = [lines[j].strip() for j in range(max(0, i - 3), min(len(lines), i + 2))]
                    assert any(x.startswith("//") and "verilator" not in x for x in around), (
                        f"{fname}:{i + 1}"
                    )


# -------------------------------------------------------------------------- simulation


def _normalised(entry: dict) -> int:
    """Cycles of a run with the board's DDR latencies in place of the AxiRam's."""
    lr = int(BOARD.interface["ddr_read_latency_cycles"])
    lb = int(BOARD.interface["ddr_write_latency_cycles"])
    return (
        entry["cycles"]
        + sum(lr - lat for _beats, lat in entry["read_bursts"])
        + sum(lb - lat for _beats, lat in entry["write_bursts"])
    )


def _simulate(g: dict, name: str, sim: str) -> dict:
    folder = g["dir"]
    run = folder / f"run_{sim}"
    results = run / "results.jsonl"
    run.mkdir(parents=True, exist_ok=True)
    results.unlink(missing_ok=True)
    if sim == "icarus":
        tool, model = icarus, icarus.build(sources(g), g["rtl"].top, folder / "build_icarus")
    else:
        # one C++ file: Verilator's precompiled header of a split model does not survive ccache
        tool = verilator
        model = verilator.build(sources(g), g["rtl"].top, folder / "build_verilator")
    tests = ["test_vectors"] + (["test_control"] if name in CONTROL_TEST else [])
    res = tool.run_test(
        model, TB, run, testcase=tests,
        extra_env={"PARTITION_TB_DIR": str(folder), "PARTITION_RESULTS": str(results), "PARTITION_TIMEOUT_CYCLES": "500000"},
    )  # fmt: skip
    entries = [json.loads(x) for x in results.read_text().splitlines()] if results.is_file() else []
    return {"result": res, "tests": tests, "runs": entries}


def _synthesize(k: ir.Kernel, rtl, folder: Path) -> tuple[dict, object]:
    d = directives(k, rtl.variant)
    return yosys.synth([folder / s for s in rtl.sources], rtl.top, "xc7"), estimate_variant(k, BOARD, d)


@pytest.fixture(scope="module")
def jobs(generated, work):
    """Icarus runs and yosys syntheses, started together on two workers (the longest
    first); tests wait for their own result."""
    pool = ThreadPoolExecutor(max_workers=2)
    futures: dict[tuple[str, str], object] = {}
    if icarus.available():
        for name in ICARUS:
            futures["icarus", name] = pool.submit(_simulate, generated[name], name, "icarus")
    if shutil.which("yosys"):
        kernels = {name: (g["kernel"], g["rtl"], g["dir"]) for name, g in generated.items()}
        for name, (k, _vecs) in intops_slices(np.random.default_rng(20240611)).items():
            if name in SYNTH:
                rtl = generate_rtl(k, BOARD)
                _write(work / name, rtl.files)
                kernels[name] = (k, rtl, work / name)
        for name in SYNTH:
            futures["yosys", name] = pool.submit(_synthesize, *kernels[name])
    yield futures
    pool.shutdown(wait=False, cancel_futures=True)


@pytest.fixture(scope="module")
def icarus_runs(jobs) -> dict:
    if not icarus.available():
        pytest.skip(icarus.ICARUS_MISSING)
    return {name: jobs["icarus", name].result() for name in ICARUS}


def _check(generated: dict, name: str, run: dict) -> None:
    """All tests passed; every run's cycles, at the board's DDR latencies, are the estimate's
    (or below it, for the kernels with dynamic control flow)."""
    res = run["result"]
    assert not res.error, f"{res.error}\n{res.log_tail()}"
    assert sorted(res.passed) == sorted(run["tests"]), f"failed {res.failed}:\n{res.log_tail()}"
    g = generated[name]
    est = g["rtl"].estimate_cycles  # the built variant's
    if SEP not in name:
        assert est == estimate_kernel(g["kernel"], BOARD).cycles
    assert len(run["runs"]) >= len(g["vectors"])
    for e in run["runs"]:
        assert not e["errors"] and e["unstalled"], e
        sim = _normalised(e)
        if name.partition(SEP)[0] in DYNAMIC:
            assert sim <= est, (e, est)
        else:
            assert sim == est, f"{name} vector {e['vector']}: simulated {sim} cycles, estimated {est}"


@pytest.mark.sim
@pytest.mark.parametrize("name", ICARUS)
def test_icarus_simulation(generated, icarus_runs, name):
    _check(generated, name, icarus_runs[name])


@pytest.mark.sim
def test_pipeline_without_recurrence_runs_at_ii_1(generated, icarus_runs):
    """c[i] = a[i] + b[i] over 64 int8: trip + depth + burst transfers + control, no more."""
    g = generated["vadd_int8"]
    k = g["kernel"]
    est = estimate_kernel(k, BOARD)
    loop = est.loops["L1"]
    assert loop["pipelined"] and loop["ii"] == 1
    bus = 4
    lr, lb = (int(BOARD.interface[f"ddr_{x}_latency_cycles"]) for x in ("read", "write"))
    transfers = sum(transfer_cycles(p.nbytes, bus, lr if p.direction == "in" else lb) for p in k.arrays)
    bound = loop["trip"] + loop["depth"] + transfers + control_cycles(len(k.arrays))
    for e in icarus_runs["vadd_int8"]["runs"]:
        assert _normalised(e) <= bound, (e, bound)
        assert _normalised(e) == est.cycles


@pytest.mark.sim
def test_fault_injection_is_caught(generated, work):
    """Turn the adder of vadd into a subtractor: the testbench must fail."""
    g = generated["vadd_int8"]
    folder = work / "fault_vadd"
    files = dict(g["rtl"].files)
    top = files["vadd_int8_64.v"].decode()
    (wire,) = re.findall(r"wire \[7:0\] (t\d+);  // add int8", top)
    line = next(ln for ln in top.splitlines() if ln.strip().startswith(f"assign {wire} = "))
    assert line.count(" + ") == 1, line
    files["vadd_int8_64.v"] = top.replace(line, line.replace(" + ", " - ")).encode()
    shutil.rmtree(folder, ignore_errors=True)
    _write(folder, {**files, **vector_files(g["kernel"], g["vectors"])})
    run = _simulate({**g, "dir": folder}, "fault", "icarus")
    assert run["result"].failed == ["test_vectors"], (run["result"].passed, run["result"].failed)
    assert "elements differ" in run["result"].log_tail(20000)


@pytest.mark.sim
@pytest.mark.parametrize("name", VERILATOR + VERILATOR_ONLY)
def test_verilator_simulation(verilator_env, generated, icarus_runs, name):
    run = _simulate(generated[name], name, "verilator")
    _check(generated, name, run)
    if name in icarus_runs:  # both simulators see the same cycles
        assert [e["cycles"] for e in run["runs"]] == [e["cycles"] for e in icarus_runs[name]["runs"]]


# ---------------------------------------------------------------------------- synthesis


# yosys takes 8 to 110 s per kernel here (minutes on the whole `intops` kernel, which is
# synthesized as one kernel per dtype instead): a representative set by default, every
# kernel with PARTITION_RTL_FULL=1.
SYNTH = ["vadd_int8", "vadd_int16_7", "dot", "int_scalars", "fir_q15", "sobel_magnitude", "histogram256"]
SYNTH += ["dense_relu_int8", "vadd_int16_7__unroll4"]
if os.environ.get("PARTITION_RTL_FULL") == "1":
    SYNTH = [n for n in NAMES if n != "intops"]
    SYNTH += [
        f"intops_{t}" for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
    ]


@pytest.fixture(scope="module")
def synthesized(yosys_exe, jobs) -> dict:
    return {name: jobs["yosys", name].result() for name in SYNTH}


@pytest.mark.slow
def test_yosys_synthesis(synthesized):
    rows = []
    for name in SYNTH:
        r, e = synthesized[name]
        assert r["lut"] > 0 and r["ff"] > 0, name
        rows.append(
            f"{name:16s} LUT {r['lut']:6d} / {e.lut:6d}  FF {r['ff']:6d} / {e.ff:6d}  "
            f"DSP {r['dsp']:3d} / {e.dsp:3d}  BRAM18 {r['bram18']:3d} / {e.bram18:3d}"
        )
    print("\n".join(["yosys synth_xilinx -family xc7 vs the model estimate (yosys / model):", *rows]))
