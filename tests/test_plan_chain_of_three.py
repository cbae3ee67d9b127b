"""A chain of three kernels: the middle one takes a stream and gives one, with no m_axi at all."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from test_plan_chains import APP as PAIR
from test_plan_chains import hand_back_on, planned_tree, run_on_fake_board

APP = (
    PAIR[: PAIR.index("def main")]
    + """\
def clip(z: np.ndarray, lo: int) -> np.ndarray:
    out = np.zeros(z.shape[0], dtype=np.int32)
    for i in range(z.shape[0]):
        out[i] = max(z[i], lo)
    return out


def main() -> None:
    x = (np.arange(1001) * 37 % 2001 - 1000).astype(np.int16)  # odd size, negatives, int16 wrap
    total = 0
    for r in range(3):
        total += int(clip(offset(scale(x, 40 + r), r - 1), -5000).sum())
    print(total)


main()
"""
)


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    tmp, app, _prof, board, plan, files = planned_tree(tmp_path_factory.mktemp("chain3"), APP)
    return tmp, app, board, plan, files


def test_both_links_of_the_chain_are_chosen(three):
    _tmp, _app, _board, plan, files = three
    links = [(c["src"], c["out"], c["dst"], c["in"]) for c in plan.data["chains"]]
    assert sorted(links) == [("offset", "out_r", "clip", "z"), ("scale", "out_r", "offset", "y")]
    spec = json.loads(files["host/app_kernels.json"])
    regs = {k["task"]: [r["name"] for r in k["regmap"]["registers"]] for k in spec["kernels"]}
    assert regs["offset"] == ["c", "fallback"]  # both arrays are streams: no pointer register at all
    header = files["hls/offset/offset.h"].decode()
    assert "hls::stream<uint64_t>& y" in header and "hls::stream<uint64_t>& out_r" in header
    assert "m_axi" not in files["hls/offset/offset.cpp"].decode()


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_three_kernels_pass_c_simulation(three):
    tree = three[0] / "tree"
    r = subprocess.run(["make", "-C", str(tree), "csim"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    for k in ("scale", "offset", "clip"):
        assert f"{k} csim: PASS" in r.stdout


def test_the_unchanged_app_streams_through_all_three_on_a_fake_board(three):
    tmp, app, *_ = three
    code, out, plain, tasks, backend = run_on_fake_board(tmp, app, ["scale", "offset", "clip"])
    assert code == 0 and out == plain
    assert tasks["scale"]["streamed"] == tasks["offset"]["streamed"] == 3
    assert all(tasks[k]["fallbacks"] == 0 for k in ("scale", "offset", "clip"))
    assert {k: backend.ports[k].starts for k in ("scale", "offset", "clip")} == {
        "scale": 3,
        "offset": 3,
        "clip": 3,
    }


@pytest.mark.skipif(shutil.which("tclsh") is None, reason="needs tclsh")
def test_the_block_design_joins_both_links_and_leaves_the_middle_off_the_smartconnect(three, tmp_path):
    from test_examples_vivado import _hls_ip
    from test_vivado import ok, report, run_standin, standin_args

    tree = tmp_path / "tree"
    shutil.copytree(three[0] / "tree", tree)
    assert sorted(_hls_ip(tree)) == ["clip", "offset", "scale"]  # the stand-in's exported IP
    bd = (tree / "vivado/block_design.tcl").read_text()
    assert "connect_bd_intf_net [get_bd_intf_pins scale_0/out_r] [get_bd_intf_pins offset_0/y]" in bd
    assert "connect_bd_intf_net [get_bd_intf_pins offset_0/out_r] [get_bd_intf_pins clip_0/z]" in bd
    assert "offset_0/m_axi_gmem" not in bd
    ok(run_standin(tree, "vivado/build_overlay.tcl", *standin_args(three[2])))
    joined = [" ".join(r) for r in report(tree)]
    assert any("scale_0/out_r" in r and "offset_0/y" in r for r in joined)
    assert any("offset_0/out_r" in r and "clip_0/z" in r for r in joined)


@pytest.mark.sim
def test_cosim_streams_through_all_three_in_rtl(verilator_env, three, tmp_path):
    """The built-in RTL of all three (offset: AXI-Stream in and out, no m_axi_gmem) in one
    cosim_top, both links joined inside it: the app's output equals the CPU run's."""
    from partition.sim.cosim import cosim

    files = three[4]
    offset_v = files["rtl/offset/offset.v"].decode()
    assert "m_axi_gmem" not in offset_v and "input  wire [63:0]  y_TDATA," in offset_v
    assert "output wire [63:0]  out_r_TDATA," in offset_v
    tree = tmp_path / "tree"
    shutil.copytree(three[0] / "tree", tree)
    r = cosim(tree)
    assert r["status"] == "pass", r.get("detail")
    assert sorted(r["kernels"]) == ["clip", "offset", "scale"] and r["on_cpu"] == []
    assert r["run_app"]["tasks"]["offset"]["streamed"] == 3


@pytest.mark.parametrize("task", ["scale", "offset"])  # clip has no fallback status
def test_the_middle_or_an_end_handing_a_call_back_runs_the_chain_on_the_cpu(three, task):
    tmp, app, *_ = three
    code, out, plain, tasks, _ = run_on_fake_board(
        tmp, app, ["scale", "offset", "clip"], {task: hand_back_on(2)}
    )
    assert code == 0 and out == plain
    assert all(tasks[k]["fallbacks"] == 1 for k in ("scale", "offset", "clip")), tasks


@pytest.mark.skipif(shutil.which("tclsh") is None, reason="needs tclsh")
def test_the_builtin_rtl_of_all_three_packages_and_joins_both_links(three, tmp_path):
    from test_vivado import PKG, ok, report, run_standin, standin_args

    tree = tmp_path / "tree"
    shutil.copytree(three[0] / "tree", tree)
    pkg = (tree / PKG).read_text()
    # no m_axi_gmem, two streams; 64 bytes of registers (c and the fallback status)
    assert "/offset.v] 64 0 [list {out_r master} {y slave}]" in pkg
    ok(run_standin(tree, PKG))
    ok(run_standin(tree, "vivado/build_overlay.tcl", *standin_args(three[2]), tclargs=("builtin",)))
    joined = [" ".join(r) for r in report(tree)]
    assert any("scale_0/out_r" in r and "offset_0/y" in r for r in joined)
    assert any("offset_0/out_r" in r and "clip_0/z" in r for r in joined)
