"""AXI-Stream ports of chained kernels in the built-in RTL (partition/rtl/): a
streamed input fills its buffer from <arg>_TDATA/TVALID/TREADY, a streamed output drains it,
in the HLS C++'s beat layout (the array's DDR bytes, little-endian 64-bit beats, the last
zero padded), with the estimate's cycles when nothing pauses and the same results under
random backpressure; a chained pair simulated in RTL, the producer's stream straight into the
consumer, computes the Python composition.

Each kernel's Verilator model is built once per session (the build is cached by the hash of
its sources) and runs in both stream modes of the generic testbench.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from ir_kernels import arr, b, c, cast, k_int_scalars, k_vadd, ld, loop, st, v
from test_rtl_kernels import _write

from partition import ir
from partition.boards import load_board
from partition.dtypes import DTYPES as D
from partition.errors import PartitionError
from partition.estimate import Directives, candidate_directives
from partition.rtl import RtlVariantUnsupported, generate_rtl, render_cosim_top, vector_files
from partition.sim import verilator, yosys
from partition.sim.flow import normalised_cycles
from partition.vectors import VectorSet

BOARD = load_board("pynq-z2")
TB = "partition.sim.kernel_tb"
N = 13  # odd: a 4-byte tail beat of int32, an odd word count of the 32-bit buffer


def k_scale(n: int = N) -> ir.Kernel:
    """Producer: y[i] = int32(a[i]) * 3 - 7 (int16 in through m_axi, int32 out)."""
    i = v("i", "int32")
    y = b("sub", b("mul", cast(ld("a", "int16", i), "int32"), c(3, "int32")), c(7, "int32"))
    body = [loop("i", c(0, "int32"), c(n, "int32"), 1, [st("y", (i,), y)], n, "L1")]
    params = [arr("a", "int16", (n,)), arr("y", "int32", (n,), "out")]
    return ir.Kernel("scale", params, {"i": D["int32"]}, [], body, source_file="chain.py", source_line=1)


def k_square(n: int = N) -> ir.Kernel:
    """Consumer: z[i] = int64(y[i]) * y[i] - 1 (int32 in, int64 out: two bus words a word)."""
    i = v("i", "int32")
    yy = cast(ld("y", "int32", i), "int64")
    z = b("sub", b("mul", yy, yy), c(1, "int64"))
    body = [loop("i", c(0, "int32"), c(n, "int32"), 1, [st("z", (i,), z)], n, "L1")]
    params = [arr("y", "int32", (n,)), arr("z", "int64", (n,), "out")]
    return ir.Kernel("square", params, {"i": D["int32"]}, [], body, source_file="chain.py", source_line=9)


def _inputs(rng: np.random.Generator, n: int = N) -> list[np.ndarray]:
    edge = np.array([-32768, 32767, -1, 0, 1], np.int16)
    rand = rng.integers(-32768, 32768, n - len(edge)).astype(np.int16)
    return [np.concatenate([edge, rand]), rng.integers(-32768, 32768, n).astype(np.int16)]


def _vectors(k: ir.Kernel, inputs: list[dict]) -> list[VectorSet]:
    return [VectorSet.from_interpreter(k, x, f"vector {j}") for j, x in enumerate(inputs)]


def cases() -> dict[str, tuple[ir.Kernel, list[VectorSet], Directives | None]]:
    rng = np.random.default_rng(20261203)
    out = {}
    # every array streamed: no m_axi_gmem; 7 int16 = 14 bytes = 2 beats, the last 6 bytes
    k, vecs = k_vadd(rng, 7, "int16")
    out["vadd_all_streamed"] = (ir.with_streams(k, ["a", "b", "c"]), vecs, None)
    # a 128-bit buffer (wide128): two beats a RAM word; 33 int8 = 5 beats, the last 1 byte
    k, vecs = k_vadd(rng, 33, "int8")
    out["vadd_wide128"] = (ir.with_streams(k, ["b", "c"]), vecs, Directives("wide128", bus_bits=128))
    # a 64-bit buffer (wide64): a beat a RAM word; 19 int16 = 38 bytes = 5 beats, the last 6 bytes
    k, vecs = k_vadd(rng, 19, "int16")
    out["vadd_wide64"] = (ir.with_streams(k, ["a", "c"]), vecs, Directives("wide64", bus_bits=64))
    # cyclic banks (unroll4_wide64: 4 banks, a beat a bus word): 33 int8 = 5 beats, each a word
    # of every bank; 13 int32 = 7 beats, each two elements into two of the four banks
    for name, n, dt, streamed in (
        ("vadd_banks_int8", 33, "int8", ["a", "c"]),
        ("vadd_banks_int32", 13, "int32", ["b", "c"]),
    ):
        k, vecs = k_vadd(rng, n, dt)
        d = next(d for d in candidate_directives(k, BOARD) if d.name == "unroll4_wide64")
        assert dict(d.partition) == {"a": 4, "b": 4, "c": 4}, d
        out[name] = (ir.with_streams(k, streamed), vecs, d)
    # the two ends of a chain alone, with m_axi for their other array
    a = _inputs(rng)
    scale = k_scale()
    out["scale"] = (ir.with_streams(scale, ["y"]), _vectors(scale, [{"a": x} for x in a]), None)
    ys = [VectorSet.from_interpreter(scale, {"a": x}, "").outputs["y"] for x in a]
    square = k_square()
    out["square"] = (ir.with_streams(square, ["y"]), _vectors(square, [{"y": y} for y in ys]), None)
    # no array at all: no m_axi_gmem either (the testbench needs none)
    k, vecs = k_int_scalars(rng)
    out["scalars"] = (k, vecs, None)
    return out


CASES = cases()


@pytest.fixture(scope="session")
def work(request, tmp_path_factory) -> Path:
    cache = getattr(request.config, "cache", None)
    if cache is None:
        return tmp_path_factory.mktemp("partition-rtl-streams")
    return Path(cache.mkdir("partition-rtl-streams"))


@pytest.fixture(scope="session")
def generated(work) -> dict:
    out = {}
    for name, (k, vecs, d) in CASES.items():
        rtl = generate_rtl(k, BOARD, d)
        folder = work / name
        _write(folder, {**rtl.files, **vector_files(k, vecs)})
        out[name] = {"kernel": k, "vectors": vecs, "rtl": rtl, "dir": folder}
    return out


@pytest.fixture(scope="session")
def models(verilator_env, generated) -> dict:
    """Every case's Verilator model, built once."""
    return {
        name: verilator.build(
            [g["dir"] / s for s in g["rtl"].sources], g["rtl"].top, g["dir"] / "build_verilator"
        )
        for name, g in generated.items()
    }


def simulate(g: dict, model, mode: str, tag: str = "") -> dict:
    run = g["dir"] / f"run_{mode}{tag}"
    results = run / "results.jsonl"
    run.mkdir(parents=True, exist_ok=True)
    results.unlink(missing_ok=True)
    res = verilator.run_test(
        model, TB, run, testcase=["test_vectors"],
        extra_env={"PARTITION_TB_DIR": str(g["dir"]), "PARTITION_RESULTS": str(results), "PARTITION_TB_STREAMS": mode},
    )  # fmt: skip
    entries = [json.loads(x) for x in results.read_text().splitlines()] if results.is_file() else []
    return {"result": res, "runs": entries}


def _normalised(entry: dict) -> int:
    """Simulated cycles at the board's DDR latencies (the AxiRam answers faster)."""
    return normalised_cycles(
        entry, *(int(BOARD.interface[f"ddr_{x}_latency_cycles"]) for x in ("read", "write"))
    )


# ---------------------------------------------------------------------- generation (fast)


def test_ports_and_engines():
    rtl = generate_rtl(CASES["vadd_all_streamed"][0], BOARD)
    top = rtl.files["vadd_int16_7.v"].decode()
    assert "m_axi_gmem" not in top  # every array streams: no AXI4 master at all
    for name, d in (("a", "input "), ("b", "input "), ("c", "output")):
        assert f"{d} wire [63:0]  {name}_TDATA," in top
    assert "TLAST" not in top and "TKEEP" not in top
    assert sorted(rtl.sources) == sorted(
        ["vadd_int16_7.v", "vadd_int16_7_axis_read_engine.v", "vadd_int16_7_axis_write_engine.v",
         "vadd_int16_7_control_s_axi.v", "vadd_int16_7_ram_be.v"]
    )  # fmt: skip
    assert not {"a", "b", "c"} & {r.name for r in rtl.regmap.registers}  # no pointer registers
    # the last beat of c: 14 - 8 = 6 bytes of the array
    assert ".LAST_MASK(64'hffffffffffff)" in top
    again = generate_rtl(CASES["vadd_all_streamed"][0], BOARD)
    assert again.files == rtl.files


def test_scalar_only_kernel_has_no_m_axi():
    k, _ = k_int_scalars(np.random.default_rng(1))
    rtl = generate_rtl(k, BOARD)
    assert "m_axi_gmem" not in rtl.files[f"{k.name}.v"].decode()
    assert not any("axi_read_engine" in s or "axi_write_engine" in s for s in rtl.sources)


def test_a_streamed_array_in_banks_needs_the_64_bit_bus():
    """A beat scatters into the banks as a bus word does: only where the bus is 64 bits."""
    k, _ = k_vadd(np.random.default_rng(1), 8, "int8")
    ks = ir.with_streams(k, ["c"])
    d = Directives("unroll2", unroll=(("L1", 2),), partition=(("a", 2), ("b", 2), ("c", 2)))
    with pytest.raises(
        RtlVariantUnsupported, match=r"kernel vadd_int8_8: array c is an AXI-Stream port .* not 32"
    ):
        generate_rtl(ks, BOARD, d)
    rtl = generate_rtl(
        ks, BOARD, Directives("unroll2_wide64", unroll=d.unroll, partition=d.partition, bus_bits=64)
    )
    assert rtl.variant == "unroll2_wide64" and "c_buf_b1" in rtl.files["vadd_int8_8.v"].decode()


# ------------------------------------------------------------------------------ simulation


def _check(g: dict, run: dict, exact: bool) -> list[int]:
    res = run["result"]
    assert not res.error, f"{res.error}\n{res.log_tail()}"
    assert res.passed == ["test_vectors"], res.log_tail()
    assert len(run["runs"]) == len(g["vectors"])
    est = g["rtl"].estimate_cycles
    sims, total = [], 0
    for e in run["runs"]:
        assert not e["errors"], e
        sim = _normalised(e)
        sims.append(sim)
        if exact:
            assert e["unstalled"], e
            assert sim == est, f"vector {e['vector']}: simulated {sim} cycles, estimated {est}"
        else:
            # every cycle a side paused while the kernel was ready costs exactly one cycle
            stalls = sum(e["stream_stalls"].values())
            assert sim == est + stalls, (sim, est, e["stream_stalls"])
            total += stalls
    if not exact:
        assert total > 0, "no backpressure happened"
    return sims


@pytest.mark.sim
@pytest.mark.parametrize("name", sorted(CASES))
def test_streams_steady_match_the_estimate(models, generated, name):
    _check(generated[name], simulate(generated[name], models[name], "steady"), exact=True)


@pytest.mark.sim
@pytest.mark.parametrize(
    "name", sorted(n for n, (k, _v, _d) in CASES.items() if any(p.stream for p in k.arrays))
)
def test_streams_under_random_backpressure(models, generated, name):
    _check(generated[name], simulate(generated[name], models[name], "random"), exact=False)


# ----------------------------------------------------------------- a chained pair in RTL


@pytest.fixture(scope="session")
def pair(verilator_env, work) -> dict:
    """scale -> square in one cosim_top (render_cosim_top), its Verilator model built once."""
    folder = work / "pair"
    rtls = [generate_rtl(CASES[name][0], BOARD) for name in ("scale", "square")]
    files = {f"{r.top}/{rel}": data for r in rtls for rel, data in r.files.items()}
    files["cosim_top.v"] = render_cosim_top("chain.py", rtls, [("scale", "y", "square", "y")]).encode()
    _write(folder, files)
    srcs = [folder / r.top / s for r in rtls for s in r.sources] + [folder / "cosim_top.v"]
    model = verilator.build(srcs, "cosim_top", folder / "build_verilator")
    return {
        "dir": folder,
        "model": model,
        "rtl": {r.top: r for r in rtls},
        "top": files["cosim_top.v"].decode(),
    }


def test_cosim_top_joins_the_chain():
    rtls = [generate_rtl(CASES[name][0], BOARD) for name in ("scale", "square")]
    top = render_cosim_top("chain.py", rtls, [("scale", "y", "square", "y")])
    assert ".y_TDATA(scale_y_TDATA)," in top and top.count("scale_y_TDATA") == 3  # a net, two pins
    assert "square_y_T" not in top  # joined inside, not exposed
    alone = render_cosim_top("chain.py", rtls[:1], [("scale", "y", "square", "y")])
    assert "output wire [63:0] scale_y_TDATA," in alone  # the other end is not here: a top port
    with pytest.raises(PartitionError, match=r"chain square.y -> scale.y: the built-in RTL of square"):
        render_cosim_top("chain.py", rtls, [("square", "y", "scale", "y")])


def _composition(a: np.ndarray) -> np.ndarray:
    """The Python the pair computes: y = int32(a) * 3 - 7, then z = int64(y) * y - 1."""
    with np.errstate(over="ignore"):
        y = a.astype(np.int32) * np.int32(3) - np.int32(7)
        return y.astype(np.int64) * y.astype(np.int64) - np.int64(1)


@pytest.mark.sim
def test_a_chained_pair_in_rtl_computes_the_python_composition(pair):
    a_addr, z_addr = 0x1000, 0x3000
    rtl = pair["rtl"]
    a_reg = rtl["scale"].regmap.by_name("a").offset
    z_reg = rtl["square"].regmap.by_name("z").offset
    runs = []
    for j, (a, first, delay) in enumerate(
        zip(_inputs(np.random.default_rng(7)), ("square", "scale"), (5, 400))
    ):
        assert len(a) % 2 and (a < 0).any()
        junk = bytes(range(j, j + 8 * N))  # what z holds before the call
        runs.append(
            {
                "memory": [[a_addr, a.astype("<i2").tobytes().hex()], [z_addr, junk.hex()]],
                "args": {
                    "scale": {str(a_reg): a_addr, str(a_reg + 4): 0},
                    "square": {str(z_reg): z_addr, str(z_reg + 4): 0},
                },
                "first": first,
                "delay": delay,
                "expect": [[z_addr, _composition(a).astype("<i8").tobytes().hex()]],
            }
        )
    cfg, out = pair["dir"] / "chain.json", pair["dir"] / "chain_out.json"
    cfg.write_text(
        json.dumps({"kernels": ["scale", "square"], "chain": ["scale", "y", "square", "y"], "runs": runs})
    )
    out.unlink(missing_ok=True)
    res = verilator.run_test(
        pair["model"], "rtl_chain_tb", pair["dir"] / "run", module_dir=Path(__file__).parent,
        extra_env={"PARTITION_CHAIN_CFG": str(cfg), "PARTITION_CHAIN_OUT": str(out)},
    )  # fmt: skip
    assert not res.error and res.passed == ["test_chain"], res.log_tail()
    report = json.loads(out.read_text())
    # the consumer waiting first takes every beat at once; started 400 cycles late, it holds
    # the producer's first beat back (TVALID high, TREADY low) until it reaches its stream phase
    assert report[0]["held"] == 0 and report[1]["held"] > 100, report


# ------------------------------------------------------------------------- faults show


def _faulty(g: dict, work: Path, tag: str, file: str, old: str, new: str):
    files = dict(g["rtl"].files)
    text = files[file].decode()
    assert text.count(old) == 1, (file, old)
    files[file] = text.replace(old, new).encode()
    folder = work / f"fault_{tag}"
    _write(folder, {**files, **vector_files(g["kernel"], g["vectors"])})
    model = verilator.build([folder / s for s in g["rtl"].sources], g["rtl"].top, folder / "build_verilator")
    return {**g, "dir": folder}, model


@pytest.mark.sim
def test_a_byte_order_fault_is_caught(verilator_env, generated, work):
    """The two 32-bit halves of each input beat swapped into the buffer: results differ."""
    g = generated["square"]
    top = g["rtl"].files["square.v"].decode()
    lo, hi = "si_y_wdata[31:0]", "si_y_wdata[63:32]"
    assert top.count(lo) == 1 and top.count(hi) == 1
    files_top = top.replace(lo, "§").replace(hi, lo).replace("§", hi)
    bad, model = _faulty(g, work, "byte_order", "square.v", top, files_top)
    run = simulate(bad, model, "steady")
    assert run["result"].failed == ["test_vectors"]
    assert "z: 13 of 13 elements differ" in run["result"].log_tail(20000)


@pytest.mark.sim
@pytest.mark.parametrize(
    "engine, old, new, message",
    [
        ("axis_read_engine", "wire         hs = active & s_TVALID;", "wire         hs = active;",
         "c: .* streamed elements differ"),
        ("axis_write_engine", "wire         hs   = active & m_TREADY;", "wire         hs   = active;",
         "c: the kernel sent [01] of the 2 beats of its output stream|c: .* streamed elements differ"),
    ],
)  # fmt: skip
def test_ignoring_backpressure_is_caught(verilator_env, generated, work, engine, old, new, message):
    """An engine that ignores TVALID (slave) or TREADY (master) passes when nothing pauses and
    fails under random backpressure."""
    g = generated["vadd_all_streamed"]
    bad, model = _faulty(g, work, engine, f"vadd_int16_7_{engine}.v", old, new)
    assert simulate(bad, model, "steady")["result"].passed == ["test_vectors"]
    run = simulate(bad, model, "random")
    assert run["result"].failed == ["test_vectors"], run["result"].log_tail()
    assert re.search(message, run["result"].log_tail(20000)), run["result"].log_tail()


@pytest.mark.slow
def test_streamed_kernels_synthesize(yosys_exe, generated):
    """The AXI-Stream engines map to Xilinx cells like the rest of the IP (yosys synth_xilinx)."""
    for name in ("vadd_all_streamed", "square"):
        g = generated[name]
        r = yosys.synth([g["dir"] / s for s in g["rtl"].sources], g["rtl"].top, "xc7")
        assert r["lut"] > 0 and r["ff"] > 0, (name, r)
    assert r["dsp"] > 0  # square's 64-bit product


@pytest.mark.parametrize("name", sorted(CASES))
def test_lint_clean(verilator_env, generated, name):
    g = generated[name]
    assert verilator.lint([g["dir"] / s for s in g["rtl"].sources], g["rtl"].top) == []
