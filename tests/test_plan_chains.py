"""AXI-Stream chains through the whole plan: choice, build tree, C simulation, the app on a fake board."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from partition.boards import load_board
from partition.codegen import build_tree
from partition.fsutil import write_tree
from partition.plan import Options, explain_task, make_plan, prepare
from partition.profile import run_profile
from partition.report import explain_text

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT / "host", ROOT / "tests" / "host_pynq"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from fake_device import FakeBackend, HandBack  # noqa: E402
from partition_runtime.app import main as run_app_main  # noqa: E402

APP = """\
import numpy as np


def scale(x: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros(x.shape[0], dtype=np.int16)
    for i in range(x.shape[0]):
        out[i] = x[i] * k
    return out


def offset(y: np.ndarray, c: int) -> np.ndarray:
    out = np.zeros(y.shape[0], dtype=np.int32)
    for i in range(y.shape[0]):
        out[i] = (y[i] + c) // 3
    return out


def main() -> None:
    x = (np.arange(1001) * 37 % 2001 - 1000).astype(np.int16)  # odd size, negatives, int16 wrap
    total = 0
    for r in range(3):
        s = scale(x, 40 + r)
        x[0] = r  # the input changes after the call: the streamed producer must not see it
        total += int(offset(s, r - 1).sum())
    {extra}
    print(total)


main()
"""


def _plan(tmp: Path, extra: str = "", source: str | None = None, **opts):
    """Profile and plan APP (its `{extra}` line filled in), or `source`, written to tmp/app.py."""
    app = tmp / "app.py"
    app.write_text(source if source is not None else APP.replace("{extra}", extra or "pass"))
    prof = run_profile(app, [], cwd=tmp, baseline=False, replay=False)
    board = load_board("pynq-z2")
    plan = make_plan(prof, tmp, board, Options(**opts))
    return app, prof, board, plan


def planned_tree(tmp: Path, source: str | None = None):
    """_plan, then the build tree in tmp/tree: (tmp, app, profile, board, plan, files)."""
    app, prof, board, plan = _plan(tmp, source=source)
    files, executable = build_tree(plan, prof, board, app.read_bytes())
    write_tree(tmp / "tree", files, executable)
    return tmp, app, prof, board, plan, files


def run_on_fake_board(tmp: Path, app: Path, tasks: list[str], wrap: dict | None = None):
    """The unchanged app through the host runtime of tmp/tree on a fake board whose kernels are
    the app's own functions (`wrap`: task -> a function of the model giving the kernel's own):
    (exit code, its output, the plain run's output, per-task stats, backend)."""
    plain = subprocess.run([sys.executable, str(app)], capture_output=True, text=True, timeout=120, cwd=tmp)
    spec_mod = importlib.util.spec_from_file_location(f"chain_app_models_{len(tasks)}", app)
    mod = importlib.util.module_from_spec(spec_mod)
    with contextlib.redirect_stdout(io.StringIO()):
        spec_mod.loader.exec_module(mod)  # type: ignore[union-attr]
    wrap = wrap or {}
    backend = FakeBackend({t: wrap.get(t, lambda f: f)(getattr(mod, t)) for t in tasks})
    out, stats = io.StringIO(), tmp / "stats.json"
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = run_app_main(
            ["--quiet", "--stats", str(stats)], tmp / "tree/host/app_kernels.json", app, backend
        )
    return code, out.getvalue(), plain.stdout, json.loads(stats.read_text())["tasks"], backend


@pytest.fixture(scope="module")
def chained(tmp_path_factory):
    return planned_tree(tmp_path_factory.mktemp("chain"))


def test_the_plan_chains_the_producer_into_its_consumer(chained):
    _tmp, _app, _prof, _board, plan, files = chained
    assert plan.fpga_tasks == ["offset", "scale"]
    (c,) = plan.data["chains"]
    assert (c["src"], c["dst"], c["param"], c["out"], c["in"]) == ("scale", "offset", "y", "out_r", "y")
    assert c["sites"] == [{"line": 22, "form": "named"}] and c["saving_s"] > c["stream_s"] > 0
    # the kernels as built: an AXI-Stream port each, no register for it, built-in RTL with it
    assert "hls::stream<uint64_t>& out_r" in files["hls/scale/scale.h"].decode()
    assert "#pragma HLS INTERFACE mode=axis port=y" in files["hls/offset/offset.cpp"].decode()
    spec = json.loads(files["host/app_kernels.json"])
    assert spec["chains"] == [{"producer": "scale", "out": "out_r", "consumer": "offset", "in": "y"}]
    regs = {k["task"]: [r["name"] for r in k["regmap"]["registers"]] for k in spec["kernels"]}
    # the fallback status: k and c are Python ints (int64), which NumPy refuses to meet int16 with
    # beyond its range, so an unseen k or c hands the call back
    assert regs == {"offset": ["c", "out_r", "fallback"], "scale": ["x", "k", "fallback"]}
    for t in plan.data["tasks"]:
        if t["placement"] == "fpga":
            assert t["rtl"]["status"] == "built", t["rtl"]
    scale_v, offset_v = (files[f"rtl/{k}/{k}.v"].decode() for k in ("scale", "offset"))
    assert "output wire [63:0]  out_r_TDATA," in scale_v and "input  wire [63:0]  y_TDATA," in offset_v
    assert "m_axi_gmem_ARADDR" in scale_v and "m_axi_gmem_AWADDR" in offset_v  # x in, the result out
    top = files["rtl/cosim_top.v"].decode()
    assert ".out_r_TDATA(scale_out_r_TDATA)," in top and ".y_TDATA(scale_out_r_TDATA)," in top
    # the reports name the chain and what it saves
    md = files["report.md"].decode()
    assert "| `scale` | `offset` | `y` |" in md
    assert "`make sim`, `make synth`)\n- note: k: Python int" in md  # one item per line
    assert 'data-path="plan.chains.0.saving_s"' in files["report.html"].decode()


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_both_chained_kernels_pass_c_simulation(chained):
    tmp = chained[0]
    r = subprocess.run(["make", "-C", str(tmp / "tree"), "csim"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "scale csim: PASS" in r.stdout and "offset csim: PASS" in r.stdout


def test_the_unchanged_app_runs_the_chain_on_a_fake_board(chained):
    tmp, app, *_ = chained
    code, out, plain, tasks, backend = run_on_fake_board(tmp, app, ["scale", "offset"])
    assert code == 0 and out == plain
    assert tasks["scale"]["streamed"] == 3 and tasks["scale"]["fallbacks"] == 0
    assert tasks["offset"]["calls"] == 3 and tasks["offset"]["fallbacks"] == 0
    assert backend.ports["scale"].starts == backend.ports["offset"].starts == 3


def hand_back_on(call: int):
    """A kernel model that hands its `call`-th call (from 0) back to the CPU."""

    def wrap(fn):
        n = [0]

        def kernel(*args):
            n[0] += 1
            if n[0] - 1 == call:
                raise HandBack()
            return fn(*args)

        return kernel

    return wrap


@pytest.mark.parametrize("task", ["scale", "offset"])
def test_a_kernel_of_the_chain_handing_a_call_back_runs_the_chain_on_the_cpu(chained, task):
    """The producer's stream carried zeros (what its kernel left), or the consumer stopped: the
    chain's call is computed by Python from the inputs the producer captured."""
    tmp, app, *_ = chained
    code, out, plain, tasks, _backend = run_on_fake_board(
        tmp, app, ["scale", "offset"], {task: hand_back_on(1)}
    )
    assert code == 0 and out == plain
    assert tasks["scale"]["fallbacks"] == 1 and tasks["offset"]["fallbacks"] == 1, tasks


def test_no_chains_without_the_option_or_for_makespan(tmp_path):
    _app, _prof, _board, plan = _plan(tmp_path, chains=False)
    assert plan.data["chains"] == []
    assert all(t["rtl"]["status"] == "built" for t in plan.data["tasks"] if t["placement"] == "fpga")
    _app, _prof, _board, plan = _plan(tmp_path, objective="makespan")
    assert plan.data["chains"] == [] and plan.prepared.problem.chains == []
    assert any("no AXI-Stream chains" in a for a in plan.data["model"]["assumptions"])


def _stages(plan) -> set[str]:
    return {e["resource"] for e in plan.data["schedule"] if e["resource"].startswith("fpga")}


def test_throughput_offers_the_chain_and_declines_it_where_separate_stages_are_faster(tmp_path):
    """Each kernel here is mostly call overhead, which a chain keeps: one stage of both would
    take longer than either kernel's own stage, so the period model keeps them apart."""
    _app, _prof, _board, plan = _plan(tmp_path, objective="throughput", cores=1)
    assert [(c.src, c.dst) for c in plan.prepared.problem.chains] == [("scale", "offset")]
    assert plan.fpga_tasks == ["offset", "scale"] and plan.data["chains"] == []
    assert _stages(plan) == {"fpga:offset", "fpga:scale"}
    assert any("joins its kernels into one FPGA stage" in a for a in plan.data["model"]["assumptions"])
    info = explain_task(plan, "scale")
    (c,) = info["chains"]
    assert not c["used"] and c["would_save_s"] > 0
    text = explain_text(info, plan.data)
    assert (
        "AXI-Stream chain scale -> offset: possible, not used: one stage of offset + scale would take" in text
    )
    assert "separate stages are faster" in text


def test_throughput_streams_a_chain_that_makes_one_faster_stage(tmp_path):
    """The same app with the chain's shares raised to 90 % of each kernel's time (a kernel whose
    time is its DDR phases): the joined stage beats both, and plan, tree and explain say so."""
    app = tmp_path / "app.py"
    app.write_text(APP.replace("{extra}", "pass"))
    prof = run_profile(app, [], cwd=tmp_path, baseline=False, replay=False)
    board = load_board("pynq-z2")
    opts = Options(objective="throughput", cores=1)
    prep = prepare(prof, tmp_path, board, opts)
    (chain,) = prep.problem.chains
    times = {t.name: {v.name: v.fpga_s for v in t.options()} for t in prep.problem.tasks}
    chain.src_s = {v: 0.9 * s for v, s in times["scale"].items()}
    chain.dst_s = {v: 0.9 * s for v, s in times["offset"].items()}
    plan = make_plan(prof, tmp_path, board, opts, prepared=prep)
    (c,) = plan.data["chains"]
    assert (c["src"], c["dst"]) == ("scale", "offset") and c["saving_s"] > 0
    assert _stages(plan) == {"fpga:offset+scale"}
    var = {t["name"]: t["variant"] for t in plan.data["tasks"] if t.get("variant")}
    joined = times["scale"][var["scale"]] + times["offset"][var["offset"]] - c["saving_s"]
    ends = [e["end_s"] for e in plan.data["schedule"] if e["resource"] == "fpga:offset+scale"]
    assert ends == pytest.approx([joined, joined], rel=1e-12)
    assert joined < min(times["scale"][var["scale"]], times["offset"][var["offset"]])
    assert "AXI-Stream chain scale -> offset: used, saves" in explain_text(
        explain_task(plan, "offset"), plan.data
    )
    files, _executable = build_tree(plan, prof, board, app.read_bytes())
    spec = json.loads(files["host/app_kernels.json"])
    assert spec["chains"] == [{"producer": "scale", "out": "out_r", "consumer": "offset", "in": "y"}]
    assert "| `scale` | `offset` | `y` |" in files["report.md"].decode()


@pytest.mark.parametrize(
    "extra, why",
    [
        ("print(int(s[0]))", "app.py:22: s is used 2 times"),  # the source reads the result again
        ("print(int(scale(x, 2)[0]))", "the results of scale do not all go to offset"),  # the profile sees it
    ],
)
def test_a_result_the_app_also_reads_is_not_streamed(tmp_path, extra, why):
    _app, _prof, _board, plan = _plan(tmp_path, extra=extra)
    assert plan.data["chains"] == []
    text = explain_text(explain_task(plan, "scale"), plan.data)
    assert f"AXI-Stream chain scale -> offset: not possible: {why}" in text


@pytest.mark.skipif(shutil.which("tclsh") is None, reason="needs tclsh")
def test_the_block_design_connects_the_chain(chained, tmp_path):
    """The overlay's TCL passes the Vivado stand-in with the two kernels' AXI-Stream ports joined."""
    from test_examples_vivado import _hls_ip
    from test_vivado import ok, report, run_standin, standin_args

    tree = tmp_path / "tree"
    shutil.copytree(chained[0] / "tree", tree)
    assert sorted(_hls_ip(tree)) == ["offset", "scale"]
    bd = (tree / "vivado/block_design.tcl").read_text()
    assert "connect_bd_intf_net [get_bd_intf_pins scale_0/out_r] [get_bd_intf_pins offset_0/y]" in bd
    ok(run_standin(tree, "vivado/build_overlay.tcl", *standin_args(chained[3])))
    nets = [r for r in report(tree) if r and "scale_0/out_r" in " ".join(r)]
    assert nets and any("offset_0/y" in " ".join(r) for r in nets), nets


def test_a_caller_whose_source_moved_rules_the_chain_out_not_the_plan(tmp_path):
    app = tmp_path / "app.py"
    app.write_text(APP.replace("{extra}", "pass"))
    prof = run_profile(app, [], cwd=tmp_path, baseline=False, replay=False)
    app.write_text(APP.replace("{extra}", "pass").replace("def main()", "# edited\ndef main()"))
    plan = make_plan(prof, tmp_path, load_board("pynq-z2"), Options())
    assert plan.data["chains"] == [] and plan.fpga_tasks == ["offset", "scale"]
    text = explain_text(explain_task(plan, "offset"), plan.data)
    assert (
        "AXI-Stream chain scale -> offset: not possible: app.py:18: no function main there; re-run `partition profile`"
        in text
    )


@pytest.mark.sim
def test_both_chained_kernels_pass_rtl_simulation_in_the_estimated_cycles(verilator_env, chained):
    from partition.sim.flow import sim_kernel

    tree = chained[0] / "tree"
    for k in ("scale", "offset"):
        r = sim_kernel(tree, k)
        assert r["status"] == "pass", r.get("detail")
        # three profiled calls (and the control test's repeat of the first)
        assert r["vectors"] >= 3 and set(r["cycles_per_vector"]) == {r["estimate_cycles"]}, r
        print(k, "estimate", r["estimate_cycles"], "simulated", r["cycles_per_vector"])


@pytest.mark.sim
def test_cosim_runs_the_chain_in_rtl(verilator_env, chained, tmp_path):
    """Both ends in RTL, the producer streaming into the consumer inside cosim_top."""
    from partition.sim.cosim import cosim

    tree = tmp_path / "tree"
    shutil.copytree(chained[0] / "tree", tree)
    r = cosim(tree)
    assert r["status"] == "pass", r.get("detail")
    assert sorted(r["kernels"]) == ["offset", "scale"] and r["on_cpu"] == []
    assert r["output_matches_cpu_run"]
    assert r["run_app"]["tasks"]["scale"]["streamed"] == 3


@pytest.mark.skipif(shutil.which("tclsh") is None, reason="needs tclsh")
def test_the_builtin_rtl_packages_the_chain_and_the_block_design_connects_it(chained, tmp_path):
    """RTL=builtin: each IP declares its AXI-Stream interface from the real ports, and the
    block design's connect_bd_intf_net finds them."""
    from test_vivado import PKG, ok, report, run_standin, standin_args

    tree = tmp_path / "tree"
    shutil.copytree(chained[0] / "tree", tree)
    ok(run_standin(tree, PKG))
    pkg = (tree / "vivado" / "package_builtin_ip.tcl").read_text()
    assert "package_kernel offset [list" in pkg and "{y slave}]" in pkg and "{out_r master}]" in pkg
    ok(run_standin(tree, "vivado/build_overlay.tcl", *standin_args(chained[3]), tclargs=("builtin",)))
    nets = [r for r in report(tree) if r and "scale_0/out_r" in " ".join(r)]
    assert nets and any("offset_0/y" in " ".join(r) for r in nets), nets


def test_cosim_runs_a_chained_kernel_on_the_cpu_when_its_partner_has_no_rtl():
    from partition.sim.cosim import _simulated

    def task(name, status):
        return {"name": name, "kernel": f"k_{name}", "placement": "fpga", "rtl": {"status": status}}

    plan = {
        "tasks": [task("a", "built"), task("b", "built"), task("c", "built"), task("d", "unsupported"),
                  task("e", "built"), {"name": "f", "kernel": "f", "placement": "cpu"}],
        "chains": [{"src": "a", "dst": "b"}, {"src": "c", "dst": "d"}, {"src": "e", "dst": "c"}],
    }  # fmt: skip
    built, why = _simulated(plan)
    assert built == ["k_a", "k_b"]
    assert why == {
        "c": "chained to d, which runs on the CPU",
        "d": "no built-in RTL",
        "e": "chained to c, which runs on the CPU",
    }


def test_calibration_moves_a_streamed_builds_figures_to_the_array_in_ddr(chained, tmp_path):
    """A csynth report of a chained kernel describes its streamed build: re-planning adds the model's
    difference back, so the chained plan predicts what was measured."""
    from partition.errors import PartitionError
    from partition.estimate import candidate_directives, estimate_variant
    from partition.ir import with_streams
    from partition.plan import translate_all

    tmp, _app, prof, board, plan, _files = chained
    t = next(t for t in plan.data["tasks"] if t["name"] == "scale")
    calib = tmp_path / "calib"
    report = calib / "hls" / "scale" / "proj" / "solution1" / "syn" / "report" / "scale_csynth.xml"
    report.parent.mkdir(parents=True)
    xml = next((ROOT / "tests" / "calibration").rglob("*_csynth.xml")).read_text()
    report.write_text(xml.replace("scale_add", "scale"))  # 1234 cycles, 999 LUT, 777 FF, 0 DSP, 4 BRAM18
    (calib / "plan.json").write_text(json.dumps(plan.data))
    again = make_plan(prof, tmp, board, Options(calibrate=calib))
    assert [c["src"] + "->" + c["dst"] for c in again.data["chains"]] == ["scale->offset"]

    est = next(
        v["estimate"]
        for x in again.data["tasks"]
        if x["name"] == "scale"
        for v in x["fpga"]["variants"]
        if v["name"] == t["variant"]
    )
    kernel = translate_all(prof, tmp)[0]["scale"]
    d = next(d for d in candidate_directives(kernel, board) if d.name == t["variant"])
    ddr = estimate_variant(kernel, board, d)
    streamed = estimate_variant(with_streams(kernel, ["out_r"]), board, d)
    assert ddr.cycles > streamed.cycles  # the store phase the stream removes
    assert est["cycles"] == 1234 + ddr.cycles - streamed.cycles
    assert est["lut"] == 999 + ddr.lut - streamed.lut and est["bram18"] == 4 + ddr.bram18 - streamed.bram18
    assert "built with out_r as AXI-Stream" in est["breakdown"]["measured"]["cycles"]
    # a plan.json whose chain names a task it does not have is refused, naming the file
    bad = dict(plan.data, chains=[dict(plan.data["chains"][0], src="nowhere")])
    (calib / "plan.json").write_text(json.dumps(bad))
    with pytest.raises(PartitionError, match=r"plan\.json: chain nowhere -> offset"):
        make_plan(prof, tmp, board, Options(calibrate=calib))
