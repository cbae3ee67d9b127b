"""Objectives, implementation variants, top-k, sweeps, explain and calibration through `partition plan`.

No RTL simulation: the build trees are only written and read. The small app of tests/cli_apps is
profiled once; every plan reuses that profile.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from partition import ir
from partition.boards import RESOURCES, load_board
from partition.estimate import (
    Directives,
    candidate_directives,
    estimate_kernel,
    estimate_variant,
    innermost_loops,
    kernel_variants,
    unroll_kernel,
    unrollable,
)
from partition.interp import run_kernel
from partition.report import SCHEMA_PATH

APPS = Path(__file__).parent / "cli_apps"
CALIBRATION = Path(__file__).parent / "calibration"
ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("PARTITION_DEBUG", None)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "partition", *args], capture_output=True, text=True, env=env, timeout=300
    )


@pytest.fixture(scope="module")
def profile(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("prof") / "small.profile.json"
    r = run("profile", str(APPS / "small_app.py"), "--out", str(out), "--no-baseline", "--", "500")
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))


def plan(tmp: Path, profile: Path, *extra: str, out: str = "b") -> subprocess.CompletedProcess:
    return run(
        "plan",
        str(APPS / "small_app.py"),
        "--profile",
        str(profile),
        "--out",
        str(tmp / out),
        "--force",
        *(() if "--board" in extra else ("--board", "pynq-z2")),
        *extra,
    )


def plan_json(tmp: Path, profile: Path, *extra: str, validator=None) -> dict:
    r = plan(tmp, profile, "--json", *extra)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    if validator is not None:
        validator.validate(doc)
    data = json.loads((tmp / "b" / "plan.json").read_text())
    assert doc["plan"] == data
    return data


def task(data: dict, name: str) -> dict:
    return next(t for t in data["tasks"] if t["name"] == name)


# ----------------------------------------------------------------------------- variants


def _vadd(n: int = 30) -> ir.Kernel:
    from partition.dtypes import DTYPES

    i32 = DTYPES["int32"]
    i16 = DTYPES["int16"]
    i = ir.Var("i", i16)
    body = [
        ir.Store(
            "out",
            (i,),
            ir.Bin(
                "add",
                ir.Load("a", (i,), i32),
                ir.Bin("mul", ir.Load("b", (i,), i32), ir.Const(3, i32), i32),
                i32,
            ),
        )
    ]
    loop = ir.For("i", ir.Const(0, i16), ir.Const(n, i16), 1, body, n, 1, "L1")
    return ir.Kernel(
        name="vadd",
        params=[
            ir.Param("a", "array", i32, (n,), "in"),
            ir.Param("b", "array", i32, (n,), "in"),
            ir.Param("out", "array", i32, (n,), "out"),
        ],
        scalars={"i": i16},
        locals=[],
        body=[loop],
    )


def test_unrolling_keeps_the_semantics_of_every_ir_kernel():
    """Unrolled by 2, 3 and 4 (exact and with exit checks), every test kernel computes what it did."""
    from ir_kernels import CASES

    rng = np.random.default_rng(11)
    checked = 0
    for name, make in sorted(CASES.items()):
        kernel, vectors = make(rng)
        for u in (2, 3, 4):
            factors = {s.label: u for s in innermost_loops(kernel) if unrollable(kernel, s, u)}
            if not factors:
                continue
            unrolled = unroll_kernel(kernel, factors)
            for vs in vectors:
                want_out, want_ret = run_kernel(kernel, vs.inputs)
                got_out, got_ret = run_kernel(unrolled, vs.inputs)
                assert got_ret == want_ret or (got_ret != got_ret and want_ret != want_ret), (name, u)
                for k in want_out:
                    np.testing.assert_array_equal(got_out[k], want_out[k], err_msg=f"{name} ×{u} {k}")
                checked += 1
    assert checked >= 10


def test_variants_trade_resources_for_cycles():
    board = load_board("pynq-z2")
    k = _vadd(32)
    base = estimate_kernel(k, board)
    names = [d.name for d in candidate_directives(k)]
    assert names == ["base", "seq", "unroll2", "unroll4"]
    v = {d.name: estimate_variant(k, board, d) for d in candidate_directives(k)}
    assert v["base"].cycles == base.cycles and v["base"].lut == base.lut  # base is the estimator's own
    assert v["unroll2"].cycles < v["base"].cycles and v["unroll4"].cycles < v["unroll2"].cycles
    assert v["unroll2"].lut > v["base"].lut and v["unroll4"].lut > v["unroll2"].lut
    assert v["seq"].cycles > v["base"].cycles
    assert v["unroll2"].loops["L1"]["trip"] == 16 and v["unroll2"].loops["L1"]["ii"] == 1
    un2 = next(d for d in candidate_directives(k) if d.name == "unroll2")
    assert dict(un2.unroll) == {"L1": 2} and dict(un2.partition) == {"a": 2, "b": 2, "out": 2}
    kept = [x.name for x in kernel_variants(k, board)]
    assert kept[0] == "base" and "unroll2" in kept and "unroll4_wide64" in kept
    # 32 elements are transfer-bound: unroll2_wide64 is faster than unroll4 and needs less
    w2 = estimate_variant(
        k, board, next(d for d in candidate_directives(k, board) if d.name == "unroll2_wide64")
    )
    assert w2.cycles < v["unroll4"].cycles and all(
        getattr(w2, r) <= getattr(v["unroll4"], r) for r in RESOURCES
    )
    assert "unroll4" not in kept


def _scalar_loop() -> ir.Kernel:
    """acc = sum of i * n for i < 16: no array argument."""
    from partition.dtypes import DTYPES

    i32 = DTYPES["int32"]
    body = [ir.Assign("acc", ir.Bin("add", ir.Var("acc", i32), ir.Var("i", i32), i32))]
    loop = ir.For("i", ir.Const(0, i32), ir.Const(16, i32), 1, body, 16, 1, "L1")
    return ir.Kernel(
        name="acc",
        params=[ir.Param("n", "scalar", i32, pytype="int")],
        scalars={"i": i32, "acc": i32},
        locals=[],
        body=[ir.Assign("acc", ir.Var("n", i32)), loop, ir.Return(ir.Var("acc", i32))],
        ret=i32,
        ret_pytype="int",
    )


def test_burst_width_variants_widen_the_m_axi_to_the_ps_port():
    """Zynq-7000 HP ports take 64-bit beats, ZU+ HP_FPD ports 128: the wide variants move that
    many bytes a beat, so their load and store phases take a half (a quarter) of the cycles."""
    k = _vadd(1024)
    for name, wide in (("pynq-z2", 64), ("kv260", 128)):
        board = load_board(name)
        ds = {d.name: d for d in candidate_directives(k, board)}
        assert [n for n in ds if "wide" in n] == [
            f"wide{wide}",
            f"unroll2_wide{wide}",
            f"unroll4_wide{wide}",
            f"tiled_wide{wide}",
        ]
        assert ds[f"wide{wide}"].bus(board) == wide and ds["base"].bus(board) == 32
        assert f"{wide}-bit m_axi" in ds[f"wide{wide}"].describe()
        base = estimate_variant(k, board, ds["base"])
        w = estimate_variant(k, board, ds[f"wide{wide}"])
        for phase in ("load_cycles", "store_cycles"):
            assert base.breakdown[phase] > w.breakdown[phase] >= base.breakdown[phase] * 32 // wide
        # the loop is the same; picking an element out of a packed word may add a stage
        assert 0 <= w.breakdown["compute_cycles"] - base.breakdown["compute_cycles"] <= 2
        assert w.cycles < base.cycles and w.ff > base.ff  # wider data registers in the adapter
        assert Directives.from_json(ds[f"wide{wide}"].to_json()) == ds[f"wide{wide}"]
    # no array argument, nothing to widen
    assert all("wide" not in d.name for d in candidate_directives(_scalar_loop(), load_board("pynq-z2")))


def _built_entry(k: ir.Kernel, board, d: Directives) -> dict:
    """plan.json's `rtl` entry of kernel `k` (vadd) built in variant `d`."""
    return {
        "status": "built",
        "top": k.name,
        "variant": d.name,
        "estimate_cycles": estimate_variant(k, board, d).cycles,
    }


def test_the_built_in_rtl_and_the_hls_build_the_wide_port():
    from partition.codegen import generate_hls
    from partition.plan import build_rtl
    from partition.vectors import VectorSet

    board = load_board("pynq-z2")
    k = _vadd(32)
    d = next(d for d in candidate_directives(k, board) if d.name == "wide64")
    entry, ip = build_rtl(k, board, d)
    assert entry == _built_entry(k, board, d)
    assert ip.variant == "wide64" and ip.data_bits == 64
    top = ip.files["vadd.v"].decode()
    assert "input  wire [63:0]  m_axi_gmem_RDATA" in top and "output wire [7:0]   m_axi_gmem_WSTRB" in top
    # a variant that widens the port and partitions arrays: banks behind the 64-bit engines
    d4 = next(d for d in candidate_directives(k, board) if d.name == "unroll4_wide64")
    un, ip = build_rtl(k, board, d4)
    assert un == _built_entry(k, board, d4)
    assert ip.data_bits == 64 and "a_buf_b3" in ip.files["vadd.v"].decode()
    inputs = {"a": np.arange(32, dtype=np.int32), "b": np.arange(32, dtype=np.int32)}
    vs = [VectorSet.from_interpreter(k, inputs, "v")]
    files = generate_hls(
        k, vs, part="xc7z020clg400-1", clock_mhz=100, directives=d.to_json(), bus_bits=d.bus(board)
    )
    assert "max_widen_bitwidth=64" in files["vadd.cpp"].decode()
    assert "ARRAY_RESHAPE variable=a_buf type=cyclic factor=2" in files["vadd.cpp"].decode()
    assert "-m_axi_alignment_byte_size 8" in files["run_hls.tcl"].decode()


def test_a_loop_without_enough_ports_is_not_made_faster_by_partitioning():
    """A loop-invariant address cannot be spread over banks: that array keeps its two ports."""
    from partition.dtypes import DTYPES

    i32, i16 = DTYPES["int32"], DTYPES["int16"]
    k = _vadd(32)
    loop = k.body[0]
    loop.body = [ir.Store("out", (ir.Var("i", i16),), ir.Load("a", (ir.Const(0, i16),), i32))]
    d = next(d for d in candidate_directives(k) if d.name == "unroll4")
    assert "a" not in dict(d.partition) and dict(d.partition)["out"] == 4


def test_the_built_in_rtl_builds_the_chosen_variant_or_says_why_not():
    from partition.plan import build_rtl

    board = load_board("pynq-z2")
    k = _vadd(32)
    ds = {d.name: d for d in candidate_directives(k)}
    seq, ip = build_rtl(k, board, ds["seq"])
    assert seq == _built_entry(k, board, ds["seq"])
    assert ip is not None and ip.variant == "seq"
    un, ip = build_rtl(k, board, ds["unroll4"])
    assert un == _built_entry(k, board, ds["unroll4"])
    assert ip is not None and ip.variant == "unroll4"
    # an m_axi the burst engines do not have: base, and the note says why
    wide = Directives("wide256", bus_bits=256)
    w, ip = build_rtl(k, board, wide)
    assert w["status"] == "built" and w["variant"] == "base"
    assert w["estimate_cycles"] == estimate_kernel(k, board).cycles
    assert "variant wide256 has a 256-bit m_axi" in w["note"] and "base variant" in w["note"]
    assert ip is not None and ip.variant == "base"


def test_hls_carries_the_chosen_variants_pragmas():
    from partition.codegen import generate_hls
    from partition.vectors import VectorSet

    k = _vadd(32)
    inputs = {"a": np.arange(32, dtype=np.int32), "b": np.arange(32, dtype=np.int32)}
    vs = [VectorSet.from_interpreter(k, inputs, "v")]
    d = next(d for d in candidate_directives(k) if d.name == "unroll4")
    cpp = generate_hls(k, vs, part="xc7z020clg400-1", clock_mhz=100, directives=d.to_json())[
        "vadd.cpp"
    ].decode()
    assert "#pragma HLS UNROLL factor=4" in cpp
    assert "#pragma HLS ARRAY_PARTITION variable=a_buf type=cyclic factor=4 dim=1" in cpp
    # a buffer the variant splits into banks keeps them (no reshape); its copy loop is unrolled
    from ir_kernels import CASES  # tests/ is on sys.path (conftest.py)

    k16, vs16 = CASES["vadd_int16_7"](np.random.default_rng(1))
    d16 = next(d for d in candidate_directives(k16) if d.name == "unroll2")
    cpp16 = generate_hls(k16, vs16, part="xc7z020clg400-1", clock_mhz=100, directives=d16.to_json())
    text = cpp16[f"{k16.name}.cpp"].decode()
    assert "ARRAY_RESHAPE" not in text and "variable=a_buf type=cyclic factor=2" in text
    assert text.count("#pragma HLS UNROLL factor=2") == 4  # L1 and the three copy loops
    seq = Directives("seq", sequential=("L1",)).to_json()
    cpp = generate_hls(k, vs, part="xc7z020clg400-1", clock_mhz=100, directives=seq)["vadd.cpp"].decode()
    assert "#pragma HLS PIPELINE off" in cpp and "UNROLL" not in cpp
    base = generate_hls(k, vs, part="xc7z020clg400-1", clock_mhz=100)["vadd.cpp"].decode()
    assert "ARRAY_PARTITION" not in base and "UNROLL" not in base


# ----------------------------------------------------------------------------- objectives


def test_latency_plan_records_variants_and_the_choice(tmp_path, profile, validator):
    data = plan_json(tmp_path, profile, validator=validator)
    t = task(data, "scale_add")
    names = [v["name"] for v in t["fpga"]["variants"]]
    assert names[0] == "base" and len(names) >= 2
    assert t["placement"] == "fpga" and t["variant"] in names
    chosen = next(v for v in t["fpga"]["variants"] if v["name"] == t["variant"])
    assert chosen["total_s"] == min(v["total_s"] for v in t["fpga"]["variants"])  # latency: the fastest
    assert t["fpga"]["estimate"]["variant"] == "base"
    if t["variant"] != "base":
        # the built-in RTL builds the chosen variant (unrolled, arrays in cyclic banks) too
        assert t["rtl"]["variant"] == t["variant"] and "note" not in t["rtl"]
        cpp = (tmp_path / "b" / "hls" / "scale_add" / "scale_add.cpp").read_text()
        assert "UNROLL factor=" in cpp
    assert data["model"]["objective"] == "latency" and data["model"]["assumptions"]
    assert "schedule" not in data


def test_makespan_gives_a_schedule_and_never_exceeds_latency(tmp_path, profile, validator):
    lat = plan_json(tmp_path, profile)["predicted"]["plan_s"]
    data = plan_json(tmp_path, profile, "--objective", "makespan", validator=validator)
    assert data["objective"] == "makespan" and data["model"]["cpu_cores"] == 2
    assert data["predicted"]["plan_s"] <= lat * (1 + 1e-9)
    sched = data["schedule"]
    assert {e["kind"] for e in sched} >= {"main", "task"}
    assert max(e["end_s"] for e in sched) == pytest.approx(data["predicted"]["plan_s"], rel=1e-9)
    t = next(e for e in sched if e["task"] == "scale_add")
    assert t["resource"] == "fpga" and t["start_s"] >= next(e["end_s"] for e in sched if e["kind"] == "main")


def test_throughput_period_and_cores(tmp_path, profile, validator):
    one = plan_json(tmp_path, profile, "--objective", "throughput", "--cores", "1", validator=validator)
    assert one["model"]["cpu_cores"] == 1 and one["predicted"]["unit"] == "per frame"
    res = {e["resource"] for e in one["schedule"]}
    assert "cpu0" in res and "cpu1" not in res
    busiest = max(sum(e["end_s"] - e["start_s"] for e in one["schedule"] if e["resource"] == r) for r in res)
    assert busiest == pytest.approx(one["predicted"]["plan_s"], rel=1e-9)
    # two cores (in-process: the plan keeps the kernel on the second core, no tree needed)
    from partition.plan import Options, make_plan
    from partition.profile.model import load_profile

    two = make_plan(
        load_profile(profile), APPS, load_board("pynq-z2"), Options(objective="throughput", cores=2)
    )
    assert two.data["model"]["cpu_cores"] == 2
    assert two.data["predicted"]["plan_s"] <= one["predicted"]["plan_s"] * (1 + 1e-12)


def test_top_k_lists_distinct_alternatives_with_predicted_times(tmp_path, profile, validator):
    data = plan_json(tmp_path, profile, "--top-k", "3", validator=validator)
    alts = data["alternatives"]
    assert len(alts) == 1  # one FPGA-capable task: the plan and the all-CPU partition
    assert alts[0]["rank"] == 2 and alts[0]["fpga"] == []
    assert alts[0]["plan_s"] >= data["predicted"]["plan_s"]
    r = plan(tmp_path, profile, "--top-k", "3")
    assert "alternatives (next-best distinct partitions):" in r.stdout and "#2:" in r.stdout


def test_solver_choice_and_time_limit_give_the_same_plan(tmp_path, profile):
    cbc = plan_json(tmp_path, profile, "--objective", "makespan")
    highs = plan_json(tmp_path, profile, "--objective", "makespan", "--solver", "highs", "--time-limit", "30")
    assert highs["solver"]["name"] == "highs" and highs["solver"]["time_limit_s"] == 30
    assert highs["predicted"]["plan_s"] == pytest.approx(cbc["predicted"]["plan_s"], rel=1e-9)


def test_bad_solver_options_are_clean_errors(tmp_path, profile):
    for args, needle in (
        (("--cores", "3", "--objective", "makespan"), "--cores 3"),
        (("--top-k", "0"), "--top-k 0"),
        (("--time-limit", "0"), "--time-limit 0"),
        (("--sweep", "max-util=0.9:0.5:0.1"), "--sweep"),
        (("--sweep", "clock=1:2:1"), "only max-util"),
        (("--calibrate", "/nonexistent-folder"), "no such folder"),
    ):
        r = plan(tmp_path, profile, *args)
        assert r.returncode != 0 and "Traceback" not in r.stderr, (args, r.stderr)
        assert needle in r.stderr, (args, r.stderr)


def test_a_pin_that_cannot_fit_names_the_resource_and_the_task(tmp_path, profile):
    r = plan(tmp_path, profile, "--pin-fpga", "scale_add", "--max-util", "0.02")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    data = json.loads((tmp_path / "b" / "plan.json").read_text())
    assert next(t for t in data["tasks"] if t["name"] == "scale_add")["placement"] == "cpu"
    (warning,) = [w for w in data["warnings"] if w.startswith("--pin-fpga scale_add")]
    assert "no variant fits the budget" in warning and "LUT" in warning and "--max-util" in warning


# ----------------------------------------------------------------------------- sweep, boards


def test_sweep_gives_a_pareto_table(tmp_path, profile, validator):
    data = plan_json(tmp_path, profile, "--sweep", "max-util=0.1:0.9:0.2", validator=validator)
    rows = data["sweep"]["rows"]
    assert [r["params"]["max_util"] for r in rows] == [0.1, 0.3, 0.5, 0.7, 0.9]
    assert all(r["params"]["board"] == "pynq-z2" for r in rows)
    assert any(r["pareto"] for r in rows)
    times = [r["plan_s"] for r in rows if r["plan_s"] is not None]
    assert times == sorted(times, reverse=True)  # a larger budget never makes the optimum worse
    r = plan(tmp_path, profile, "--sweep", "max-util=0.5,0.9")
    assert "sweep (latency; * = Pareto-optimal" in r.stdout
    html = (tmp_path / "b" / "report.html").read_text()
    assert 'id="sweep"' in html and "Pareto-optimal" in html


def test_board_all_compares_every_board(tmp_path, profile, validator):
    from partition.boards import list_boards

    data = plan_json(tmp_path, profile, "--board", "all", validator=validator)
    boards = {b.name for b in list_boards()}
    assert {r["params"]["board"] for r in data["sweep"]["rows"]} == boards
    best = min((r["plan_s"], r["params"]["board"]) for r in data["sweep"]["rows"] if r["plan_s"])
    assert data["board"]["name"] == best[1]
    # the boards' estimates and solves ran on a Dask LocalCluster (the default); one after
    # another in this process they give the same plan, byte for byte
    on_cluster = (tmp_path / "b" / "plan.json").read_bytes()
    r = plan(tmp_path, profile, "--board", "all", "--workers", "1")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "b" / "plan.json").read_bytes() == on_cluster


# ----------------------------------------------------------------------------- explain


def test_explain_says_why(profile):
    r = run("explain", str(APPS / "small_app.py"), "scale_add", "--profile", str(profile))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("scale_add (small_app.py:8, 3 call(s)) on pynq-z2")
    assert "CPU time on the board:" in out and "FPGA variants" in out
    assert "base" in out and "unroll2_wide64" in out and "64-bit m_axi" in out and "→" in out
    assert "<main> -> scale_add:" in out
    r = run("explain", str(APPS / "small_app.py"), "describe", "--profile", str(profile))
    assert r.returncode == 0 and "not translatable" in r.stdout
    r = run(
        "explain",
        str(APPS / "small_app.py"),
        "scale_add",
        "--profile",
        str(profile),
        "--pin-cpu",
        "scale_add",
        "--json",
    )
    info = json.loads(r.stdout)
    assert info["placement"] == "cpu" and info["reason"] == "pinned to the CPU"
    assert {v["name"] for v in info["variants"]} >= {"base", "wide64", "unroll4_wide64"}
    r = run("explain", str(APPS / "small_app.py"), "nope", "--profile", str(profile))
    assert r.returncode != 0 and "nope" in r.stderr and "scale_add" in r.stderr


# ----------------------------------------------------------------------------- calibration


def test_calibrate_reads_csynth_and_rtl_results(tmp_path, profile, validator):
    """Fixture: tests/calibration (a Vitis HLS csynth report of the unroll2 variant — see its plan.json —
    and built-in RTL results of the base variant)."""
    model = plan_json(tmp_path, profile)
    data = plan_json(tmp_path, profile, "--calibrate", str(CALIBRATION), validator=validator)
    assert data["model"]["calibrated"] and data["model"]["measured_estimates"] == 2
    vs = {v["name"]: v["estimate"] for v in task(data, "scale_add")["fpga"]["variants"]}
    u2 = vs["unroll2"]
    assert u2["source"] == "vitis" and u2["cycles"] == 1234 and u2["lut"] == 999 and u2["bram18"] == 4
    assert "scale_add_csynth.xml" in u2["breakdown"]["measured"]["cycles"]
    base = vs["base"]
    assert base["source"] == "rtl" and base["cycles"] == 2310 and base["lut"] == 700 and base["ff"] == 655
    assert "results/scale_add/yosys.json" in base["breakdown"]["measured"]["lut"]
    before = {v["name"]: v["estimate"] for v in task(model, "scale_add")["fpga"]["variants"]}
    assert vs["wide64"] == before["wide64"]  # not measured: the model's figures, untouched
    # measured variants are kept with their measured figures
    assert "unroll2" in vs
    # the plan uses the measured figures
    t = task(data, "scale_add")
    total = next(v["total_s"] for v in t["fpga"]["variants"] if v["name"] == t["variant"])
    assert total == min(v["total_s"] for v in t["fpga"]["variants"])
    r = run(
        "explain",
        str(APPS / "small_app.py"),
        "scale_add",
        "--profile",
        str(profile),
        "--calibrate",
        str(CALIBRATION),
    )
    assert "[measured: bram18, cycles, dsp, ff, lut]" in r.stdout


def test_rtl_measurements_belong_to_the_variant_the_rtl_built(tmp_path):
    """Built-in RTL results replace the figures of plan.json's `rtl.variant` (base without it)."""
    import shutil

    from partition.estimate.calibrate import load_measurements

    folder = tmp_path / "calib"
    shutil.copytree(CALIBRATION / "results", folder / "results")
    rtl = [m for m in load_measurements(folder, ["scale_add"]) if m.source == "rtl"]
    assert [m.variant for m in rtl] == ["base"] and rtl[0].cycles == 2310
    plan = {"tasks": [{"kernel": "scale_add", "variant": "unroll2", "rtl": {"variant": "seq"}}]}
    (folder / "plan.json").write_text(json.dumps(plan))
    rtl = [m for m in load_measurements(folder, ["scale_add"]) if m.source == "rtl"]
    assert [m.variant for m in rtl] == ["seq"] and rtl[0].resources["lut"] == 700


def test_csynth_reader_rejects_what_is_not_a_report(tmp_path):
    from partition.errors import PartitionError
    from partition.estimate.calibrate import read_csynth

    r = read_csynth(next(CALIBRATION.rglob("*_csynth.xml")))
    assert r["top"] == "scale_add" and r["cycles"] == 1234 and r["ii"] == 1235 and r["clock_mhz"] == 100
    assert r["resources"] == {"lut": 999, "ff": 777, "dsp": 0, "bram18": 4}
    bad = tmp_path / "x_csynth.xml"
    bad.write_text("<profile><Other/></profile>")
    with pytest.raises(PartitionError, match="csynth"):
        read_csynth(bad)
    bad.write_text(
        "<profile><PerformanceEstimates><SummaryOfOverallLatency><Worst-caseLatency>lots"
        "</Worst-caseLatency></SummaryOfOverallLatency></PerformanceEstimates></profile>"
    )
    with pytest.raises(PartitionError, match="Worst-caseLatency"):
        read_csynth(bad)
    bad.write_text(
        "<profile><PerformanceEstimates><SummaryOfOverallLatency><Worst-caseLatency>undef"
        "</Worst-caseLatency></SummaryOfOverallLatency></PerformanceEstimates></profile>"
    )
    assert read_csynth(bad)["cycles"] is None
