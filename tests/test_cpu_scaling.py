"""How profiled CPU time becomes the board's: one ratio per class of work (interpreter, numpy on
cached data, numpy beyond the caches), each function split by its measured share of compiled
code, every board figure with a stated range and a source, and the plan's speedup as a range."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from partition.boards import CPU_FIGURES, board_names, load_board
from partition.errors import PartitionError
from partition.profile.model import FunctionProfile, Profile
from partition.report.terminal import scaling_lines
from partition.solve.costs import all_cpu_seconds, cpu_scaling, numpy_class

HOST = {
    "bench_ns": 100.0,
    "bench": {"interp": {"ns": 100.0}, "numpy_compute": {"ns": 1.0}, "numpy_memory": {"ns": 1.0}},
}


def _profile(*functions: FunctionProfile, wall_s: float = 10.0) -> Profile:
    return Profile(app="a.py", argv=[], host=dict(HOST), wall_s=wall_s, plain_wall_s=None,
                   functions={f.name: f for f in functions}, edges=[])  # fmt: skip


def _fp(name: str, total_s: float, nf: float | None, shape=(16,), ancestors=()) -> FunctionProfile:
    sig = {"type": "ndarray", "dtype": "float64", "shape": list(shape)}
    return FunctionProfile(name=name, qualname=name, file="a.py", line=1, total_s=total_s,
                           arg_sigs=[sig], native_fraction=nf, ancestors=list(ancestors))  # fmt: skip


@pytest.mark.parametrize("name", board_names())
def test_every_board_states_each_cpu_figure_with_a_range_and_a_source(name):
    b = load_board(name)
    for key in CPU_FIGURES:
        lo, hi = b.cpu[f"{key}_range"]
        assert lo <= b.cpu[key] <= hi
        for k in (key, f"{key}_range"):
            src = b.source("cpu", k)
            assert src.startswith(("estimate:", "measured:")) and len(src) > 40, (name, k)


def test_each_class_scales_by_its_own_ratio():
    b = load_board("pynq-z2")
    cpu = b.cpu
    python_only = _fp("loop", 1.0, 0.0)
    half = _fp("mixed", 1.0, 0.5)
    big = _fp("stream", 1.0, 1.0, shape=(1 << 20,))  # 8 MB per call: beyond the caches
    sc = cpu_scaling(_profile(python_only, half, big), b)
    interp = cpu["bench_ns"] / 100.0
    assert sc.of(python_only) == pytest.approx(interp)
    assert sc.of(half) == pytest.approx(0.5 * interp + 0.5 * cpu["numpy_compute_ns"])
    assert numpy_class(big) == "numpy_memory" and sc.of(big) == pytest.approx(cpu["numpy_memory_ns"])
    lo, hi = cpu["bench_ns_range"]
    assert sc.of(python_only, 1) == pytest.approx(lo / 100.0) and sc.of(python_only, 2) == pytest.approx(
        hi / 100.0
    )


def test_the_app_counts_the_outermost_measured_calls_once():
    b = load_board("pynq-z2")
    outer = _fp("outer", 4.0, 0.5)
    inner = _fp("inner", 2.0, 1.0, ancestors=["outer"])  # inside outer: already in its share
    sc = cpu_scaling(_profile(outer, inner), b)
    interp, numpy = sc.of(_fp("x", 0, 0.0)), b.cpu["numpy_compute_ns"]
    assert all_cpu_seconds(_profile(outer, inner), sc) == pytest.approx(
        10 * interp + 4 * 0.5 * (numpy - interp)
    )


def test_an_old_profile_without_class_figures_scales_like_the_interpreter():
    b = load_board("pynq-z2")
    p = _profile(_fp("f", 1.0, 0.9))
    p.host = {"bench_ns": 100.0}
    sc = cpu_scaling(p, b)
    assert sc.of(p.functions["f"]) == pytest.approx(b.cpu["bench_ns"] / 100.0)


def test_the_summary_names_each_ratio_its_range_and_its_source():
    sc = cpu_scaling(_profile(_fp("f", 1.0, 0.2)), load_board("pynq-z2")).to_json()
    text = "\n".join(scaling_lines(sc))
    assert "interpreter ×64.0 (×43.0–×87.0)" in text
    assert "numpy (cached data) ×9.0" in text and "numpy (DDR-bound) ×32.0" in text
    assert "boards/pynq-z2.toml [cpu]" in text and "estimates unless measured" in text


def test_a_measured_override_brings_its_own_range(tmp_path: Path):
    cal = tmp_path / "cal.toml"
    cal.write_text("[cpu]\nbench_ns = 5000\nnumpy_memory_ns = 40\nnumpy_memory_ns_range = [38, 45]\n")
    b = load_board("pynq-z2", overrides=cal)
    assert b.cpu["bench_ns_range"] == [4750.0, 5250.0]
    assert b.source("cpu", "bench_ns_range").startswith("measured: cal.toml")
    assert b.cpu["numpy_memory_ns_range"] == [38.0, 45.0]
    cal.write_text("[cpu]\nnumpy_memory_ns = 60\nnumpy_memory_ns_range = [38, 45]\n")
    with pytest.raises(PartitionError, match=r"numpy_memory_ns = 60 lies outside numpy_memory_ns_range"):
        load_board("pynq-z2", overrides=cal)
    cal.write_text("[cpu]\nbench_ns_range = [5, 1]\n")
    with pytest.raises(PartitionError, match=r"bench_ns_range must be \[low, high\]"):
        load_board("pynq-z2", overrides=cal)


def _python_loop(n):
    acc = 0
    for i in range(n):
        acc = (acc * 31 + i) & 0xFFFF
    return acc


def _numpy_scalar_loop(x):
    acc = np.int64(0)
    for i in range(len(x)):
        acc += np.int64(x[i]) * np.int64(3)
    return acc


def _numpy_heavy(x):
    for _ in range(20):
        x = np.sqrt(x * x + 1.0)
    return x


def _timed(fn, *args) -> float:
    import time

    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t)
    return best


def test_the_native_share_of_a_call_is_measured():
    from partition.profile.native import MAX_INSTRUCTIONS, native_fraction

    # (instructions cost what the benchmark's do, on average)
    assert native_fraction(_python_loop, [20000], _timed(_python_loop, 20000)) < 0.35
    x = np.ones(200_000)
    assert native_fraction(_numpy_heavy, [x], _timed(_numpy_heavy, x)) > 0.8
    assert native_fraction(lambda: 1 / 0, [], 1.0) is None  # a call that raises gives no figure
    # numpy scalars in a Python loop: compiled code entered for a few hundred ns each time,
    # dispatch overhead that scales like the interpreter
    y = np.arange(2000, dtype=np.int32)
    assert native_fraction(_numpy_scalar_loop, [y], _timed(_numpy_scalar_loop, y)) == 0.0
    # past the counting cap: all interpreter when the counted part covers the call's time
    assert native_fraction(_python_loop, [MAX_INSTRUCTIONS], 1e-6) == 0.0
    assert native_fraction(_python_loop, [MAX_INSTRUCTIONS], 1e3) is None


def test_sensitivity_finds_where_a_decision_flips():
    from types import SimpleNamespace

    from partition.plan.sensitivity import flips, sensitivity
    from partition.solve import Problem, TaskCost, top_k

    res = {"lut": 10.0, "ff": 10.0, "dsp": 0.0, "bram18": 0.0}
    problem = Problem(
        tasks=[
            TaskCost("close", cpu_s=1.0, fpga_s=0.6, resources=dict(res)),  # FPGA; CPU below ×0.6
            TaskCost("clear", cpu_s=100.0, fpga_s=0.01, resources=dict(res)),  # FPGA at every multiplier
        ],
        edges=[],
        budget={"lut": 100.0, "ff": 100.0, "dsp": 10.0, "bram18": 10.0},
        base_s=1.0,
    )
    sol = top_k(problem, 1, solver="cbc", distinct="placement")[0]

    def prep(lo, hi):
        return SimpleNamespace(problem=problem, scaling=SimpleNamespace(spread=lambda: (lo, hi)))

    wide = sensitivity(prep(0.4, 2.0), sol, "cbc", None)
    by = {t["name"]: t for t in wide["cpu"]["tasks"]}
    assert by["close"]["placement"] == "fpga" and by["close"]["holds_from"] == 1.0
    assert by["close"]["flips_within_range"] and flips(wide) == ["close"]
    assert by["clear"]["below_grid"] and by["clear"]["above_grid"] and not by["clear"]["flips_within_range"]
    narrow = sensitivity(prep(0.7, 1.5), sol, "cbc", None)
    assert (
        flips(narrow) == [] and {t["name"]: t for t in narrow["cpu"]["tasks"]}["close"]["holds_from"] == 0.7
    )
    # the kernels' side: close's FPGA time x1.1 (0.66) still beats the CPU's 1.0, x2 does not
    fpga = {t["name"]: t for t in wide["fpga_time"]["tasks"]}
    assert fpga["close"]["holds_to"] == 1.1 and fpga["clear"]["above_grid"] and flips(wide, "fpga_time") == []
    # resources x2 (20 LUT each) still fit the budget of 100 together: nothing changes
    assert flips(wide, "resources") == [] and all(t["above_grid"] for t in wide["resources"]["tasks"])


def test_a_driver_without_its_own_split_takes_its_callees():
    """`main` is not replayed (it runs the app), but the functions it calls were: its board time is
    its interpreter time corrected by their compiled-code share, never more than the app's."""
    from partition.solve.costs import task_cpu_seconds

    b = load_board("pynq-z2")
    main = _fp("main", 9.0, None)
    work = _fp("work", 8.0, 1.0, ancestors=["main"])  # all numpy, inside main
    p = _profile(main, work, wall_s=9.5)
    sc = cpu_scaling(p, b)
    interp, numpy = sc.of(_fp("x", 0, 0.0)), b.cpu["numpy_compute_ns"]
    assert task_cpu_seconds(p, sc, "main") == pytest.approx(1.0 * interp + 8.0 * numpy)
    assert task_cpu_seconds(p, sc, "work") == pytest.approx(8.0 * numpy)
    assert task_cpu_seconds(p, sc, "main") < all_cpu_seconds(p, sc)
