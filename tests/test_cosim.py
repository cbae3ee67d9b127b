"""Co-simulation: the generated host code runs each whole app against its kernels' RTL, and
the app's output equals a plain CPU run; a fault in the RTL or in the host code shows."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES

from partition.sim.cosim import cosim

APPS = Path(__file__).parent / "cli_apps"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def small_tree(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("cosim")
    prof = d / "p.json"
    run = [sys.executable, "-m", "partition"]
    subprocess.run([*run, "profile", str(APPS / "small_app.py"), "--out", str(prof), "--no-baseline", "--", "300"],
                   check=True, capture_output=True, cwd=ROOT)  # fmt: skip
    tree = d / "tree"
    subprocess.run([*run, "plan", str(APPS / "small_app.py"), "--board", "pynq-z2", "--profile", str(prof),
                    "--out", str(tree), "--quiet"], check=True, capture_output=True, cwd=ROOT)  # fmt: skip
    return tree


def test_small_app_cosim_matches_the_cpu(verilator_env, small_tree):
    r = cosim(small_tree)
    assert r["status"] == "pass", r.get("detail")
    assert r["output_matches_cpu_run"] and r["kernels"] == ["scale_add"]
    st = r["run_app"]["tasks"]["scale_add"]
    assert st["calls"] == 3 and st["fallbacks"] == 0
    saved = json.loads((small_tree / "results" / "cosim.json").read_text())
    assert saved["status"] == "pass"


def _copy(tree: Path, tmp: Path) -> Path:
    dst = tmp / "tree"
    shutil.copytree(tree, dst, ignore=shutil.ignore_patterns("results", "cosim_build", "sim_build*"))
    return dst


def test_a_fault_in_the_rtl_fails_cosim(verilator_env, small_tree, tmp_path):
    tree = _copy(small_tree, tmp_path)
    v = tree / "rtl" / "scale_add" / "scale_add.v"
    lines = v.read_text().splitlines(keepends=True)
    # the kernel's datapath adds (not the loop counters', nor the constant offsets an unrolled
    # copy adds to its index): turn the last one into a subtract
    adds = [
        i
        for i, ln in enumerate(lines)
        if ln.lstrip().startswith("assign") and " + " in ln and "cnt_" not in ln and "'h" not in ln
    ]
    assert adds
    lines[adds[-1]] = lines[adds[-1]].replace(" + ", " - ")
    v.write_text("".join(lines))
    r = cosim(tree)
    assert r["status"] == "fail" and not r["output_matches_cpu_run"], r


def test_a_fault_in_the_host_code_fails_cosim(verilator_env, small_tree, tmp_path):
    tree = _copy(small_tree, tmp_path)
    spec = next((tree / "host").glob("*_kernels.json"))
    data = json.loads(spec.read_text())
    # the generated spec with the register offsets of the two input pointers swapped
    regs = data["kernels"][0]["regmap"]["registers"]
    x, y = (r for r in regs if r["name"] in ("x", "y"))
    x["offset"], y["offset"] = y["offset"], x["offset"]
    spec.write_text(json.dumps(data))
    r = cosim(tree)
    assert r["status"] == "fail" and not r["output_matches_cpu_run"], r


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_example_cosim_matches_the_cpu(verilator_env, example_builds, example):
    tree, data = example_builds[example]
    r = cosim(tree)
    assert r["status"] == "pass", r.get("detail")
    # the kernels plan.json says have built-in RTL run in the simulation, the others on the CPU
    fpga = [t for t in data["tasks"] if t["placement"] == "fpga"]
    built = {t["name"] for t in fpga if t["rtl"]["status"] == "built"}
    assert set(r["run_app"]["tasks"]) == built
    assert sorted(r["on_cpu"]) == sorted(t["name"] for t in fpga if t["name"] not in built)
    for task, st in r["run_app"]["tasks"].items():
        assert st["calls"] >= 1 and st["fallbacks"] == 0, (task, st)
    # FPGA -> FPGA edges whose data the plan keeps in DDR, between simulated kernels: the
    # consumer got the producer's device buffer, flushed, without a copy (and the simulation
    # still matches the CPU run); a chain's edge goes through the stream instead, not DDR
    chained = {(c["src"], c["dst"]) for c in data["chains"]}
    in_ddr = {
        e["dst"]
        for e in data["edges"]
        if e["in_ddr_bytes"] and {e["src"], e["dst"]} <= built and (e["src"], e["dst"]) not in chained
    }
    for task in in_ddr:
        assert r["run_app"]["tasks"][task]["handoffs"] >= 1, (task, r["run_app"]["tasks"][task])
    for src, dst in chained:
        if {src, dst} <= built:
            assert r["run_app"]["tasks"][src]["streamed"] >= 1, (src, r["run_app"]["tasks"][src])
    if example == "fir_pipeline":
        assert in_ddr


def test_make_sim_with_waves_writes_fst_and_junit(verilator_env, small_tree):
    """`make sim WAVES=1` in the build tree: FST waveforms per kernel and one JUnit file."""
    from xml.etree import ElementTree

    exe = Path(sys.executable).parent / "partition"
    proc = subprocess.run(
        ["make", "-C", str(small_tree), "sim", "WAVES=1", f"PARTITION={exe}"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    waves = sorted((small_tree / "results" / "scale_add" / "rtl_sim").glob("*.fst"))
    assert waves and waves[0].stat().st_size > 1000
    assert waves[0].read_bytes()[:1] == b"\x00"  # an FST header block starts with type 0
    junit = ElementTree.parse(small_tree / "results" / "junit.xml").getroot()
    suites = {s.get("name"): s for s in junit.iter("testsuite")}
    assert "scale_add" in suites
    cases = [c.get("name") for c in suites["scale_add"].iter("testcase")]
    assert sorted(cases) == ["test_control", "test_vectors"]
    assert not any(c.find("failure") is not None for c in suites["scale_add"].iter("testcase"))


def test_sim_timeout_is_reported(verilator_env, small_tree):
    proc = subprocess.run(
        [sys.executable, "-m", "partition", "sim", str(small_tree), "--timeout-cycles", "50"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 1
    assert "rtl_sim scale_add: FAIL" in proc.stdout
    assert "ap_done not seen within 50 cycles" in proc.stdout
