"""Every example plans with at least one FPGA kernel and a speedup, and its C-simulation passes."""

from __future__ import annotations

import subprocess

import pytest
from conftest import EXAMPLES


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
