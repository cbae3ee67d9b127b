"""The Vivado scripts of every example's build tree pass the TCL check (tests/vivado_standin):
on pynq-z2 (PS7) as planned, and on an UltraScale+ board (kv260, PS8) re-planned from the
same profile; from Vitis HLS IP and from the packaged built-in RTL (whose IPs declare the
AXI-Stream ports of chained kernels, so the same connect_bd_intf_net finds them)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES
from test_vivado import STANDIN, ok, report, run_standin, standin_args

from partition.boards import load_board
from partition.codegen import kernel_cell, overlay_files

ROOT = Path(__file__).resolve().parent.parent


def _hls_ip(tree: Path) -> list[str]:
    """Stand-in Vitis HLS exports for every FPGA kernel of the tree; the kernels' names.

    Each export has the kernel's interfaces as the host spec (host/<app>_kernels.json) lists
    its parameters: an AXI-Stream port per streamed array, m_axi_gmem only when some array is
    not streamed."""
    (spec_file,) = (tree / "host").glob("*_kernels.json")
    names = []
    for k in json.loads(spec_file.read_text())["kernels"]:
        arrays = [p for p in k["params"] if p["kind"] == "array"]
        extra = [f"{p['name']}:{p['direction']}" for p in arrays if p.get("stream")]
        if all(p.get("stream") for p in arrays):  # Vitis HLS makes no m_axi_gmem without a DDR array
            extra.insert(0, "-no-gmem")
        ip_dir = tree / "hls" / k["name"] / "prj" / "sol1" / "impl" / "ip"
        size = str(k["regmap"]["size"])
        subprocess.run(
            ["tclsh", str(STANDIN), "-export-hls-ip", str(ip_dir), k["name"], size, *extra], check=True
        )
        names.append(k["name"])
    return names


def _check(tree: Path, board_name: str, app: str) -> None:
    board = load_board(board_name)
    names = _hls_ip(tree)
    assert names
    bit, hwh = overlay_files(app)
    args = [*standin_args(board), "-expect-file", bit, "-expect-file", hwh]
    chains = json.loads((tree / "plan.json").read_text())["chains"]
    bd = (tree / "vivado/block_design.tcl").read_text()
    for c in chains:
        src, dst = f"{kernel_cell(c['src'])}/{c['out']}", f"{kernel_cell(c['dst'])}/{c['in']}"
        assert f"connect_bd_intf_net [get_bd_intf_pins {src}] [get_bd_intf_pins {dst}]" in bd
    tasks = json.loads((tree / "plan.json").read_text())["tasks"]
    no_rtl = [t["name"] for t in tasks if t["placement"] == "fpga" and t["rtl"]["status"] != "built"]
    packaged = run_standin(tree, "vivado/package_builtin_ip.tcl")
    if no_rtl:
        # a kernel the RTL backend cannot build (a float kernel): packaging stops and names it,
        # and the overlay is built from Vitis HLS IP only
        assert packaged.returncode != 0
        assert f"kernel {no_rtl[0]} has no built-in RTL" in packaged.stdout + packaged.stderr
        assert "make bitstream" in packaged.stdout + packaged.stderr
    else:
        ok(packaged)
    for builtin in (False,) if no_rtl else (False, True):
        ok(run_standin(tree, "vivado/build_overlay.tcl", *args, tclargs=("builtin",) if builtin else ()))
        cells = {r[1] for r in report(tree) if r[0] == "cell"}
        assert {kernel_cell(k) for k in names} <= cells
        for c in chains:  # the stream net joins the two ends, HLS IP or built-in alike
            rows = [
                " ".join(r)
                for r in report(tree)
                if r and f"{kernel_cell(c['src'])}/{c['out']}" in " ".join(r)
            ]
            assert any(f"{kernel_cell(c['dst'])}/{c['in']}" in r for r in rows), rows


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_vivado_scripts_pass_on_pynq_z2(example_builds, example, tmp_path):
    tree = tmp_path / example
    shutil.copytree(example_builds[example][0], tree, ignore=shutil.ignore_patterns("results", "sim_build*"))
    _check(tree, "pynq-z2", example)


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_vivado_scripts_pass_on_kv260(example_builds, example, tmp_path):
    src = example_builds[example][0]
    tree = tmp_path / example
    subprocess.run(
        [sys.executable, "-m", "partition", "plan", str(ROOT / "examples" / f"{example}.py"), "--board", "kv260",
         "--profile", str(src / "profile.json"), "--out", str(tree), "--quiet"],
        check=True, capture_output=True, cwd=ROOT,
    )  # fmt: skip
    assert json.loads((tree / "plan.json").read_text())["board"]["name"] == "kv260"
    _check(tree, "kv260", example)
