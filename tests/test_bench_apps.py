"""The benchmark apps (benchmarks/apps/) still provoke the decisions they are built for.

Each app is planned from its saved profile (so the test is as reproducible as the benchmark
that reads the same files) and the test checks the one decision the app's docstring describes,
and that it is close: the losing side within a small factor of the winning one, so an app does
not silently turn into one where every loop wins by 10^3. Also the local-search baseline's
contract: deterministic, feasible, never better than a proven optimum.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from benchmarks.apps import DIR, NAMES, PROFILES
from benchmarks.bench_baselines import LS_RESTARTS, LS_SEED, all_fpga_that_fits, greedy_hot_first
from partition.boards import load_board
from partition.plan import Options, objective_of, prepare, solve_prepared, translate_all
from partition.profile.model import load_profile
from partition.solve import Problem, feasible
from partition.solve.local_search import local_search
from partition.solve.model import EdgeCost, TaskCost, Variant

_translated: dict[str, tuple] = {}


def plan(app: str, board: str = "pynq-z2", objective: str = "latency"):
    """(problem, ILP solution) of `app` from its saved profile."""
    prof = load_profile(PROFILES / f"{app}.json")
    if app not in _translated:
        _translated[app] = translate_all(prof, DIR)
    opts = Options(objective=objective, solver="cbc")
    prep = prepare(prof, DIR, load_board(board), opts, _translated[app])
    return prep.problem, solve_prepared(prep, opts, 1)[0]


def on_fpga(sol) -> set[str]:
    return {n for n, on in sol.assignment.items() if on}


def alone(p: Problem, name: str) -> float:
    """The objective with only `name` on the FPGA (its best variant)."""
    task = next(t for t in p.tasks if t.name == name)
    return min(objective_of(p, {name: 1}, {name: v.name}) for v in task.options())


def all_cpu(p: Problem) -> float:
    return objective_of(p, {t.name: 0 for t in p.tasks}, {})


def test_every_app_has_a_saved_profile() -> None:
    assert len(NAMES) >= 5
    for name in NAMES:
        assert (PROFILES / f"{name}.json").exists(), f"{name}: run benchmarks/bench_baselines.py --reprofile"


def test_numpy_code_stays_on_the_cpu() -> None:
    p, sol = plan("sensor_calibrate")
    assert {t.name for t in p.tasks} == {"calibrate", "detrend_power"}  # both translated
    assert on_fpga(sol) == set()
    base = all_cpu(p)
    for name in ("calibrate", "detrend_power"):
        task = next(t for t in p.tasks if t.name == name)
        loss = alone(p, name) - base
        assert 0 < loss < 3 * task.cpu_s, name  # worse on the FPGA, but not by orders of magnitude


def test_data_movement_outweighs_the_work() -> None:
    p, sol = plan("vibration_monitor")
    scan = next(t for t in p.tasks if t.name == "coarse_scan")
    assert on_fpga(sol) == set()
    fastest = min(v.fpga_s for v in scan.options())
    copy_in = sum(e.c01 for e in p.edges if e.dst == "coarse_scan")
    assert fastest < scan.cpu_s < fastest + copy_in  # the kernel wins, the copy into its buffer loses
    loss = alone(p, "coarse_scan") - all_cpu(p)
    assert 0 < loss < 3 * scan.cpu_s  # the copy into the device buffer is what loses


def test_kernels_compete_for_block_ram() -> None:
    p, sol = plan("sensor_hub")
    assert len(p.tasks) == 7
    hottest = max(p.tasks, key=lambda t: t.cpu_s)
    assert hottest.name == "despike"
    bram = sum(min(v.resources["bram18"] for v in t.options()) for t in p.tasks)
    assert bram > 1.5 * p.budget["bram18"]  # not all of them fit
    chosen = on_fpga(sol)
    assert "despike" not in chosen and len(chosen) >= 3  # several medium kernels beat the hottest
    x, var = greedy_hot_first(p)
    assert x["despike"] == 1
    greedy = objective_of(p, x, var)
    assert sol.objective_s < greedy < 2 * sol.objective_s  # close, and the ILP better
    assert all_fpga_that_fits(p)[0]["despike"] == 1


def test_consumer_pays_off_only_in_a_stream_chain() -> None:
    p, sol = plan("sonar_ranging")
    assert on_fpga(sol) == {"correlate", "strongest_gate"}
    assert [(c.src, c.dst) for c in p.chains] == [("correlate", "strongest_gate")]
    producer = {"correlate": 1}
    pv = {"correlate": sol.variant["correlate"]}
    cpu_consumer = objective_of(p, producer, pv)
    gate = next(t for t in p.tasks if t.name == "strongest_gate")
    unchained = dataclasses.replace(p, chains=[])
    without = min(
        objective_of(unchained, {**producer, "strongest_gate": 1}, {**pv, "strongest_gate": v.name})
        for v in gate.options()
    )
    assert sol.objective_s < cpu_consumer < without  # chained < consumer on the CPU < unchained
    assert without - cpu_consumer < 3 * gate.cpu_s
    _, mk = plan("sonar_ranging", objective="makespan")  # no chains in the makespan model
    assert on_fpga(mk) == {"correlate"}


def test_the_board_changes_the_answer() -> None:
    _, z2 = plan("loudness", "pynq-z2")
    p, kv = plan("loudness", "kv260")
    assert on_fpga(z2) == {"measure", "apply_gain"}
    assert on_fpga(kv) == {"measure"}
    gain = next(t for t in p.tasks if t.name == "apply_gain")
    x = {"measure": 1, "apply_gain": 1}
    worse = min(
        objective_of(p, x, {"measure": kv.variant["measure"], "apply_gain": v.name}) for v in gain.options()
    )
    assert kv.objective_s < worse < kv.objective_s + 3 * gain.cpu_s  # close: within 3x its CPU time


@pytest.mark.parametrize(
    ("app", "board", "kernels"),
    [
        ("machine_monitor", "pynq-z2", 16),
        ("web_inspection", "kv260", 10),
        ("ecg_qrs", "kv260", 14),
        ("seismic_trigger", "pynq-z2", 13),
    ],
)
def test_many_kernels_compete_for_block_ram(app: str, board: str, kernels: int) -> None:
    """A packing of many close kernels, built so that with their arrays on chip well under half
    of them fit: the ILP is never worse than hottest-first and random-restart local search, and
    better than at least one. Tiling through DDR (`tiled` variants) lets kernels trade block RAM
    for LUT and time, so more of them fit than the apps were built for."""
    p, sol = plan(app, board)
    assert len(p.tasks) == kernels  # every stage translated
    assert sol.status == "Optimal"
    whole = sum(min(v.resources["bram18"] for v in t.options() if "tiled" not in v.name) for t in p.tasks)
    assert whole > 2 * p.budget["bram18"]
    assert len(on_fpga(sol)) >= 3
    greedy = objective_of(p, *greedy_hot_first(p))
    ls = local_search(p, objective_of, restarts=LS_RESTARTS, seed=LS_SEED)
    others = (greedy, ls.objective_s, objective_of(p, *all_fpga_that_fits(p)))
    assert all(sol.objective_s <= other * (1 + 1e-9) for other in others), (sol.objective_s, others)
    assert any(sol.objective_s < other for other in others), (sol.objective_s, others)


def _random_problem(rng: random.Random, n: int) -> Problem:
    tasks = [
        TaskCost(
            f"t{i}",
            cpu_s=rng.uniform(1, 10),
            variants=[
                Variant(
                    f"v{k}", rng.uniform(0.1, 8), {"dsp": rng.uniform(5, 60), "bram18": rng.uniform(0, 40)}
                )
                for k in range(rng.randint(1, 3))
            ],
        )
        for i in range(n)
    ]
    edges = [EdgeCost("<main>", f"t{i}", c01=rng.uniform(0, 2)) for i in range(n)]
    edges += [
        EdgeCost(f"t{i}", f"t{i + 1}", c01=rng.uniform(0, 1), c10=rng.uniform(0, 1)) for i in range(n - 1)
    ]
    return Problem(tasks, edges, {"dsp": 100.0, "bram18": 60.0}, base_s=1.0)


@pytest.mark.parametrize("seed", range(6))
def test_local_search_is_feasible_deterministic_and_never_beats_the_ilp(seed: int) -> None:
    from partition.solve import solve

    p = _random_problem(random.Random(seed), 6)
    a = local_search(p, objective_of, restarts=8, seed=3)
    b = local_search(p, objective_of, restarts=8, seed=3)
    assert (a.assignment, a.variant, a.objective_s) == (b.assignment, b.variant, b.objective_s)
    assert feasible(p, a.assignment, a.variant)
    assert a.objective_s == pytest.approx(objective_of(p, a.assignment, a.variant))
    assert a.objective_s <= objective_of(p, {t.name: 0 for t in p.tasks}, {}) + 1e-12
    ilp = solve(p)
    assert ilp.status == "Optimal"
    assert ilp.objective_s <= a.objective_s * (1 + 1e-9) + 1e-12


def test_local_search_honours_pins() -> None:
    p = _random_problem(random.Random(9), 5)
    p.tasks[0].pin = "fpga"
    p.tasks[1].pin = "cpu"
    r = local_search(p, objective_of, restarts=5, seed=1)
    assert r.assignment["t0"] == 1 and r.assignment["t1"] == 0


def test_float_kernels_compete_for_dsp_slices() -> None:
    """camera_isp: every stage fits alone, but their float operators (three DSP48 a multiply,
    two an add) need more slices together than the budget has, whatever the variant; the ILP
    spends nearly all of it and beats hottest-first, which spends it on unrolling the hottest."""
    p, sol = plan("camera_isp")
    assert len(p.tasks) == 8  # every stage translated
    assert sum(min(v.resources["dsp"] for v in t.options()) for t in p.tasks) > p.budget["dsp"]
    chosen = on_fpga(sol)
    assert 3 <= len(chosen) < 8
    used = sum(
        next(v for v in t.options() if v.name == sol.variant[t.name]).resources["dsp"]
        for t in p.tasks
        if t.name in chosen
    )
    assert used > 0.85 * p.budget["dsp"]  # the DSP slices are what binds
    greedy = objective_of(p, *greedy_hot_first(p))
    assert sol.objective_s < greedy < 4 * sol.objective_s  # close, and the ILP better
