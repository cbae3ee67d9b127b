"""Every integer kernel of every example, through the built-in RTL backend: lint clean,
simulated bit-exactly against Python's results on every vector (cocotb + Verilator, the
same flow as `make sim`), synthesized with yosys, and its simulated cycles equal to the
estimate the plan used (or below it, where control flow depends on the data). The kernels at
the ends of an AXI-Stream chain (fir_pipeline's fir_q15 -> decimate) are built with their
AXI-Stream ports, and the testbench drives those from the same vectors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES


def _fpga_tasks(example_builds, name):
    return [t for t in example_builds[name][1]["tasks"] if t["placement"] == "fpga"]


def _built(example_builds, name):
    """The FPGA tasks whose built-in RTL plan.json says was built."""
    return [t for t in _fpga_tasks(example_builds, name) if t["rtl"]["status"] == "built"]


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_integer_kernel_has_built_in_rtl(example_builds, example):
    for t in _fpga_tasks(example_builds, example):
        if t["rtl"]["status"] == "unsupported":
            # a float kernel (image_pipeline's otsu_level) goes through Vitis HLS only, and the
            # reason names the float variable
            assert "float32/float64 kernels use the Vitis HLS path" in t["rtl"]["reason"], t["rtl"]
            continue
        assert t["rtl"]["status"] == "built", t["rtl"]
        # the chosen variant: wide bus, unrolled loops and arrays in cyclic banks alike, streamed or not
        assert t["rtl"]["variant"] == t["variant"] and "note" not in t["rtl"], t["rtl"]
        tree = example_builds[example][0]
        assert (tree / "rtl" / t["kernel"] / f"{t['kernel']}.v").is_file()


@pytest.mark.timeout(3600)  # waits for the session's RTL run (conftest.py)
@pytest.mark.parametrize("example", EXAMPLES)
def test_kernels_lint_simulate_and_synthesize(example_builds, rtl_results, example):
    assert _built(example_builds, example)
    data = example_builds[example][1]
    for t in _built(example_builds, example):
        k = t["kernel"]
        lint = rtl_results[k, "lint"]
        assert lint["status"] == "pass", lint.get("detail")
        sim = rtl_results[k, "rtl_sim"]
        assert sim["status"] == "pass", sim.get("detail")
        assert sim["vectors"] >= 1
        assert sorted(sim["tests_passed"]) == ["test_control", "test_vectors"]
        est = t["rtl"]["estimate_cycles"]
        assert sim["estimate_cycles"] == est
        built = next(v for v in t["fpga"]["variants"] if v["name"] == t["rtl"]["variant"])
        if any(t["name"] in (c["src"], c["dst"]) for c in data["chains"]):
            # a chain's end is built with the array as a stream: its DDR phase is gone
            assert est < built["estimate"]["cycles"]
        else:
            assert est == built["estimate"]["cycles"]
        assert all(c <= est for c in sim["cycles_per_vector"]), (k, sim["cycles_per_vector"], est)
        syn = rtl_results[k, "yosys"]
        assert syn["status"] == "pass" and syn["lut"] > 0 and syn["ff"] > 0


@pytest.mark.timeout(3600)
def test_results_land_in_the_tree_and_the_report(example_builds, rtl_results):
    tree, _data = example_builds[EXAMPLES[0]]
    k = _built(example_builds, EXAMPLES[0])[0]["kernel"]
    for step in ("rtl_sim", "yosys", "lint"):
        rec = json.loads((Path(tree) / "results" / k / f"{step}.json").read_text())
        assert rec["format"] == "partition-result/1" and rec["status"] == "pass"
    assert (Path(tree) / "results" / k / "rtl_sim" / "results.xml").is_file()
