"""Every example plans with at least one FPGA kernel and a speedup, its C-simulation passes, and
the unchanged app runs through the generated host code on a fake board (AXI-Stream chains
included) with the plain run's output."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES
from test_examples_run import load_example

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT / "host", ROOT / "tests" / "host_pynq"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from fake_device import FakeBackend  # noqa: E402
from partition_runtime.app import main as run_app_main  # noqa: E402


@pytest.mark.parametrize("example", EXAMPLES)
def test_plan_puts_a_kernel_on_the_fpga_with_a_speedup(example_builds, example):
    out, data = example_builds[example]
    fpga = [t for t in data["tasks"] if t["placement"] == "fpga"]
    assert fpga, f"{example}: nothing on the FPGA"
    assert data["predicted"]["speedup"] > 1
    assert data["solver"]["status"] == "Optimal"
    for t in data["tasks"]:
        assert t["reason"]
    for t in fpga:
        assert (out / "hls" / t["kernel"] / f"{t['kernel']}.cpp").exists()
    used, budget = data["resources"]["used"], data["resources"]["budget"]
    assert all(used[r] <= budget[r] for r in used)


@pytest.mark.parametrize("example", EXAMPLES)
def test_csim_matches_python_on_every_vector(example_builds, example):
    out, data = example_builds[example]
    r = subprocess.run(["make", "-C", str(out), "csim"], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for t in data["tasks"]:
        if t["placement"] == "fpga":
            assert f"{t['kernel']} csim: PASS" in r.stdout
    assert "FAIL" not in r.stdout


def test_fir_pipeline_chains_the_low_pass_into_the_decimator(example_builds):
    """The example that shows a chain: `decimate(fir_q15(x, taps), ...)` hands the low-pass output
    to the decimator and nowhere else, and on pynq-z2 with the default options the plan streams it."""
    out, data = example_builds["fir_pipeline"]
    fpga = sorted(t["kernel"] for t in data["tasks"] if t["placement"] == "fpga")
    assert fpga == ["bandpass_q15", "decimate", "detect_frames", "fir_q15", "frame_energy"]
    (c,) = data["chains"]
    assert (c["src"], c["dst"], c["param"], c["out"], c["in"]) == ("fir_q15", "decimate", "y", "y", "y")
    (site,) = c["sites"]
    app_lines = (ROOT / "examples" / "fir_pipeline.py").read_text().splitlines()
    assert site["form"] == "nested" and "decimate(fir_q15(x, taps)" in app_lines[site["line"] - 1]
    assert c["saving_s"] > c["stream_s"] > 0
    # the chain's ends stream in the HLS C++; everything else moves through DDR as before
    assert "#pragma HLS INTERFACE mode=axis port=y" in (out / "hls/decimate/decimate.cpp").read_text()
    assert "hls::stream<uint64_t>& y" in (out / "hls/fir_q15/fir_q15.h").read_text()
    (spec,) = (out / "host").glob("*_kernels.json")
    chains = json.loads(spec.read_text())["chains"]
    assert chains == [{"producer": "fir_q15", "out": "y", "consumer": "decimate", "in": "y"}]


@pytest.mark.parametrize("example", EXAMPLES)
def test_the_unchanged_app_runs_on_a_fake_board(example_builds, example, tmp_path):
    """run_app.py's runtime with a fake device whose kernels compute with the app's own functions:
    the printed text equals the plain run's, no call falls back to the CPU, and every call of a
    chain's producer is streamed into its consumer (both kernels started together)."""
    out, data = example_builds[example]
    app = ROOT / "examples" / f"{example}.py"
    plain = subprocess.run(
        [sys.executable, str(app)], capture_output=True, text=True, timeout=300, cwd=tmp_path, check=True
    )
    (spec_file,) = (out / "host").glob("*_kernels.json")
    module = load_example(example)
    spec = json.loads(spec_file.read_text())
    backend = FakeBackend({k["task"]: getattr(module, k["function"]) for k in spec["kernels"]})
    printed, stats = io.StringIO(), tmp_path / "stats.json"
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
        code = run_app_main(["--quiet", "--stats", str(stats)], spec_file, app, backend)
    assert code == 0 and printed.getvalue() == plain.stdout
    tasks = json.loads(stats.read_text())["tasks"]
    fpga = {t["name"]: t for t in data["tasks"] if t["placement"] == "fpga"}
    assert set(tasks) == set(fpga)
    for name, st in tasks.items():
        assert st["calls"] == fpga[name]["calls"] and st["fallbacks"] == 0, (name, st)
    streamed = {c["src"]: c["dst"] for c in data["chains"]}
    for name, st in tasks.items():
        assert st.get("streamed", 0) == (st["calls"] if name in streamed else 0), (name, st)
    for src, dst in streamed.items():
        assert backend.ports[src].starts == backend.ports[dst].starts == tasks[src]["calls"]
