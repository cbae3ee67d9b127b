"""The ILP against exhaustive enumeration, plus pins, budgets, explanations and top-k."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from partition.errors import PartitionError
from partition.solve import (
    EdgeCost,
    Problem,
    TaskCost,
    available_solvers,
    brute_force,
    evaluate,
    explain_infeasible,
    feasible,
    infeasibility_reasons,
    no_kernel_fits,
    solve,
    top_k,
)
from partition.solve.random_problems import board_budget, layered_problem, random_problem

SEEDS = range(320)
HAS_HIGHS = "highs" in available_solvers()
needs_highs = pytest.mark.skipif(not HAS_HIGHS, reason="highspy is not installed")


def close(a: float, b: float, rel: float = 1e-9) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def assert_cpu_preferred(p: Problem, sol) -> None:
    """The tie rule: no unpinned FPGA task can go back to the CPU without a cost."""
    for t in p.tasks:
        if sol.assignment[t.name] and t.pin != "fpga":
            moved = {**sol.assignment, t.name: 0}
            assert evaluate(p, moved) > sol.objective_s * (1 + 1e-12) or not feasible(p, moved), t.name


# --------------------------------------------------------------------------- ILP == brute force


def test_random_instances_cover_what_they_claim():
    """The generator must actually produce the hard cases the comparison relies on."""
    probs = [random_problem(s) for s in SEEDS]
    verdicts = [brute_force(p).status for p in probs]
    assert 0.05 < verdicts.count("Infeasible") / len(probs) < 0.4
    assert any(t.fpga_s is None for p in probs for t in p.tasks)
    assert any(t.pin == "fpga" for p in probs for t in p.tasks)
    assert any(p.exclusive for p in probs)
    assert any(e.src == "<main>" and e.c10 > 0 for p in probs for e in p.edges)
    assert any(
        e.c11 - e.c10 - e.c01 + e.c00 > 0 for p in probs for e in p.edges if "<main>" not in (e.src, e.dst)
    )
    assert any(
        e.c11 - e.c10 - e.c01 + e.c00 < 0 for p in probs for e in p.edges if "<main>" not in (e.src, e.dst)
    )
    assert {len(p.tasks) for p in probs} == set(range(1, 13))


@pytest.mark.parametrize("chunk", range(4))
def test_ilp_equals_brute_force(chunk):
    for seed in SEEDS[chunk::4]:
        p = random_problem(seed)
        ref = brute_force(p)
        got = solve(p)
        assert got.status == ref.status, seed
        if ref.status == "Infeasible":
            assert got.assignment == {} and got.objective_s == math.inf and got.gap is None
            continue
        assert close(got.objective_s, ref.objective_s), (seed, got.objective_s, ref.objective_s)
        assert set(got.assignment) == {t.name for t in p.tasks}
        assert feasible(p, got.assignment)
        assert got.objective_s == evaluate(p, got.assignment)
        assert got.gap == 0.0 and got.solver == "cbc"
        assert_cpu_preferred(p, got)


@needs_highs
def test_highs_gives_the_same_optimum_as_cbc():
    for seed in SEEDS[:80]:
        p = random_problem(seed)
        a, b = solve(p, solver="cbc"), solve(p, solver="highs")
        assert a.status == b.status, seed
        if a.status == "Optimal":
            assert close(a.objective_s, b.objective_s), seed
            assert b.solver == "highs" and feasible(p, b.assignment)


def test_explanation_exactly_when_infeasible():
    """explain.py's claim: infeasible iff the pinned-only assignment is."""
    for seed in SEEDS:
        p = random_problem(seed)
        infeasible = brute_force(p).status == "Infeasible"
        assert bool(infeasibility_reasons(p)) == infeasible, seed


def test_same_problem_same_assignment():
    p = layered_problem(60, seed=3)
    first = solve(p)
    for _ in range(2):
        assert solve(p).assignment == first.assignment


# --------------------------------------------------------------------------- the model, case by case


def task(name, cpu, fpga, lut=1000.0, pin=None, **res):
    return TaskCost(name, cpu, fpga, {"lut": lut, **res}, pin)


def test_fpga_only_when_it_pays():
    p = Problem(
        tasks=[task("fast", 1.0, 0.1), task("slow", 1.0, 2.0), task("none", 1.0, None)],
        edges=[],
        budget=board_budget(),
    )
    s = solve(p)
    assert s.assignment == {"fast": 1, "slow": 0, "none": 0}
    assert s.objective_s == pytest.approx(2.1)
    assert s.stats["variables"] >= 1 and s.stats["constraints"] >= 0 and s.solve_time_s > 0


def test_transfer_costs_keep_a_chain_together():
    # a -> b: each alone saves 0.3 s but a crossing copy costs 0.5 s; together they win
    e = EdgeCost("a", "b", c00=0.0, c01=0.5, c10=0.5, c11=0.0)
    p = Problem(tasks=[task("a", 1.0, 0.7), task("b", 1.0, 0.7)], edges=[e], budget=board_budget())
    assert solve(p).assignment == {"a": 1, "b": 1}
    # ... unless only one fits: then the copy makes it not worth it
    p.budget = {"lut": 1500.0}
    s = solve(p)
    assert s.assignment == {"a": 0, "b": 0} and s.objective_s == pytest.approx(2.0)


def test_positive_product_term():
    # both on the FPGA is penalised (c11 large): the solver must not pick both
    e = EdgeCost("a", "b", c00=0.0, c01=0.0, c10=0.0, c11=5.0)
    p = Problem(tasks=[task("a", 1.0, 0.2), task("b", 1.0, 0.1)], edges=[e], budget=board_budget())
    s = solve(p)
    assert s.assignment == {"a": 0, "b": 1} and s.objective_s == pytest.approx(1.1)


def test_main_edges_use_only_the_cpu_side():
    # <main> is always on the CPU: c10/c11 of an edge out of <main> never apply
    e = EdgeCost("<main>", "a", c00=0.0, c01=0.2, c10=100.0, c11=100.0)
    p = Problem(tasks=[task("a", 1.0, 0.5)], edges=[e], budget=board_budget(), base_s=0.25)
    s = solve(p)
    assert s.assignment == {"a": 1} and s.objective_s == pytest.approx(0.25 + 0.5 + 0.2)


def test_pins_override_the_objective():
    p = Problem(
        tasks=[task("a", 1.0, 0.1, pin="cpu"), task("b", 1.0, 3.0, pin="fpga"), task("c", 1.0, 0.1)],
        edges=[],
        budget=board_budget(),
    )
    s = solve(p)
    assert s.assignment == {"a": 0, "b": 1, "c": 1} and s.objective_s == pytest.approx(4.1)


def test_exclusive_pair_keeps_the_better_one():
    p = Problem(
        tasks=[task("caller", 1.0, 0.5), task("callee", 1.0, 0.2)],
        edges=[],
        budget=board_budget(),
        exclusive=[("caller", "callee")],
    )
    assert solve(p).assignment == {"caller": 0, "callee": 1}


def test_budget_per_resource():
    p = Problem(
        tasks=[task("a", 1.0, 0.1, lut=100.0, dsp=30.0), task("b", 1.0, 0.2, lut=100.0, dsp=30.0)],
        edges=[],
        budget={"lut": 1000.0, "dsp": 40.0},
    )
    assert solve(p).assignment == {"a": 1, "b": 0}
    p.budget["dsp"] = 60.0  # exactly both: the boundary is feasible
    assert solve(p).assignment == {"a": 1, "b": 1}


def test_ties_go_to_the_cpu():
    p = Problem(
        tasks=[task("same", 1.0, 1.0), task("free", 0.0, 0.0), task("gain", 1.0, 0.5)],
        edges=[EdgeCost("gain", "same", c01=0.1, c10=0.1, c11=0.0)],  # same on FPGA saves the copy ...
        budget=board_budget(),
    )
    s = solve(p)
    # ... so "same" on the FPGA is strictly better; "free" gains nothing and stays on the CPU
    assert s.assignment == {"same": 1, "free": 0, "gain": 1}
    p.edges = []
    assert solve(p).assignment == {"same": 0, "free": 0, "gain": 1}


def test_degenerate_problems():
    empty = Problem(tasks=[], edges=[EdgeCost("<main>", "<main>", c00=0.5)], budget={}, base_s=1.0)
    s = solve(empty)
    assert s.status == "Optimal" and s.assignment == {} and s.objective_s == 1.5
    no_edges = Problem(tasks=[task("a", 1.0, 0.5)], edges=[], budget={})
    assert solve(no_edges).assignment == {"a": 1}
    pinned = Problem(
        tasks=[task("a", 1.0, 0.5, pin="cpu"), task("b", 1.0, 2.0, pin="fpga")],
        edges=[EdgeCost("a", "b", c01=0.25)],
        budget=board_budget(),
    )
    s = solve(pinned)
    assert s.status == "Optimal" and s.assignment == {"a": 0, "b": 1} and s.objective_s == 3.25
    assert s.stats["variables"] == 0
    nothing_fits = Problem(tasks=[task("a", 1.0, 0.5, lut=9e9)], edges=[], budget=board_budget())
    assert solve(nothing_fits).assignment == {"a": 0}


def test_infeasible_problems_do_not_reach_the_solver_or_are_reported():
    p = Problem(
        tasks=[
            task("fir", 1.0, 0.1, lut=40_000.0, pin="fpga"),
            task("blur", 1.0, 0.1, lut=21_200.0, pin="fpga"),
        ],
        edges=[],
        budget=board_budget(0.8),
    )
    s = solve(p)
    assert s.status == "Infeasible" and s.assignment == {} and s.objective_s == math.inf and s.gap is None
    assert brute_force(p).status == "Infeasible"


def test_time_limit_reports_a_gap():
    # a 4-dimensional knapsack with correlated weights: hard enough not to be closed in 0.3 s
    r = random.Random(0)
    tasks = []
    for i in range(80):
        w = {k: float(r.randint(1000, 9999)) for k in ("lut", "ff", "dsp", "bram18")}
        tasks.append(TaskCost(f"t{i}", 1.0 + (sum(w.values()) / 4 + r.randint(-50, 50)) * 1e-4, 1.0, w))
    budget = {k: sum(t.resources[k] for t in tasks) / 2 for k in ("lut", "ff", "dsp", "bram18")}
    p = Problem(tasks=tasks, edges=[], budget=budget)
    for solver in ["cbc", "highs"] if HAS_HIGHS else ["cbc"]:
        s = solve(p, solver=solver, time_limit_s=0.3)
        assert s.status == "Time limit", solver
        assert s.gap is not None and 0 < s.gap < 0.1
        assert feasible(p, s.assignment) and s.objective_s == evaluate(p, s.assignment)


# --------------------------------------------------------------------------- errors


def test_unknown_solver_names_the_available_ones():
    p = Problem(tasks=[task("a", 1.0, 0.5)], edges=[], budget={})
    with pytest.raises(PartitionError, match="available here: cbc"):
        solve(p, solver="gurobi")


@pytest.mark.parametrize(
    "bad, match",
    [
        (Problem([task("a", 1, 1), task("a", 1, 1)], [], {}), "appears twice"),
        (Problem([task("a", 1, 1)], [EdgeCost("a", "zz")], {}), "'zz' is not a task"),
        (Problem([task("a", -1, 1)], [], {}), "CPU time -1"),
        (Problem([task("a", 1, 1, pin="gpu")], [], {}), "pin 'gpu'"),
        (Problem([task("a", 1, 1)], [], {}, exclusive=[("a", "b")]), "'b' is not a task"),
        (Problem([task("a", 1, 1)], [], {"lut": math.nan}), "budget for lut"),
        (
            Problem([task("a", 1, 1)], [], {}, objective="speed"),
            "choose one of latency, makespan, throughput",
        ),
    ],
)
def test_malformed_problems(bad, match):
    with pytest.raises(PartitionError, match=match):
        solve(bad)


# --------------------------------------------------------------------------- explanations


def test_explain_pinned_over_budget():
    p = Problem(
        tasks=[
            task("fir", 1.0, 0.1, lut=40_000.0, pin="fpga"),
            task("blur", 1.0, 0.1, lut=21_200.0, pin="fpga"),
            task("other", 1.0, 0.1, lut=500.0),
        ],
        edges=[],
        budget=board_budget(0.8),
    )
    msg = explain_infeasible(p, available={"lut": 53_200.0}, max_util=0.8)
    assert (
        "tasks pinned to the FPGA (fir, blur) need 61,200 LUT; the budget is 42,560 LUT (80 % of 53,200)"
        in msg
    )
    assert "other" not in msg
    p.budget["lut"] = 40_000.0  # cap minus a static shell
    msg = explain_infeasible(p, available={"lut": 53_200.0}, max_util=0.8)
    assert "the budget is 40,000 LUT (80 % of 53,200 minus 2,560 for the static shell)" in msg
    assert "budget is 40,000 LUT;" in explain_infeasible(p)  # without context: just the number
    p.tasks[1].resources["dsp"] = 300.0
    assert (
        "also the task pinned to the FPGA (blur) needs 300 DSP; the budget is 176 DSP"
        in explain_infeasible(p)
    )


def test_explain_exclusive_and_missing_implementation():
    p = Problem(
        tasks=[
            task("outer", 1, 0.5, pin="fpga"),
            task("inner", 1, 0.5, pin="fpga"),
            task("py", 1, None, pin="fpga"),
        ],
        edges=[],
        budget=board_budget(),
        exclusive=[("outer", "inner")],
    )
    msg = explain_infeasible(p)
    assert "tasks outer and inner are both pinned to the FPGA" in msg
    assert "task py is pinned to the FPGA but has no FPGA implementation" in msg
    assert solve(p).status == "Infeasible"


def test_explain_negative_budget_and_feasible():
    p = Problem(tasks=[task("a", 1, 0.5)], edges=[], budget={"lut": -100.0})
    assert "LUT budget is negative (-100 LUT)" in explain_infeasible(p)
    assert solve(p).status == "Infeasible"
    with pytest.raises(ValueError):
        explain_infeasible(Problem(tasks=[task("a", 1, 0.5)], edges=[], budget={}))


def test_no_kernel_fits():
    p = Problem(
        tasks=[
            task("fir", 1.0, 0.1, lut=1234.0),
            task("big", 1.0, 0.1, lut=10.0, dsp=500.0),
            task("py", 1.0, None, lut=1.0),
            task("kept", 1.0, 0.1, lut=1.0, pin="cpu"),
        ],
        edges=[],
        budget={"lut": 532.0, "dsp": 220.0},
    )
    msg = no_kernel_fits(p)
    assert msg is not None
    assert "fir needs 1,234 LUT, budget 532 LUT" in msg
    assert "big needs 500 DSP, budget 220 DSP" in msg
    assert "py" not in msg and "kept" not in msg
    assert solve(p).assignment == {"fir": 0, "big": 0, "py": 0, "kept": 0}
    p.tasks[0].resources["lut"] = 500.0
    assert no_kernel_fits(p) is None
    assert no_kernel_fits(Problem(tasks=[task("py", 1.0, None)], edges=[], budget={})) is None


# --------------------------------------------------------------------------- top-k


def all_feasible_objectives(p: Problem) -> list[float]:
    names = [t.name for t in p.tasks]
    out = []
    for bits in itertools.product((0, 1), repeat=len(names)):
        x = dict(zip(names, bits))
        if feasible(p, x):
            out.append(evaluate(p, x))
    return sorted(out)


def test_top_k_against_enumeration():
    checked = 0
    for seed in SEEDS[:60]:
        p = random_problem(seed, max_tasks=8)
        k = 6
        sols = top_k(p, k)
        first = solve(p)
        assert sols[0].assignment == first.assignment and sols[0].status == first.status
        if first.status == "Infeasible":
            assert len(sols) == 1
            continue
        objs = all_feasible_objectives(p)
        assert len(sols) == min(k, len(objs))
        assigns = [tuple(sorted(s.assignment.items())) for s in sols]
        assert len(set(assigns)) == len(assigns)
        for a, b in itertools.pairwise(sols):
            assert b.objective_s >= a.objective_s * (1 - 1e-9)
        for s, want in zip(sols, objs):
            assert close(s.objective_s, want), seed
            assert feasible(p, s.assignment)
        checked += 1
    assert checked > 30


def test_quiet_by_default(capfd):
    p = random_problem(5)
    solve(p)
    if HAS_HIGHS:
        solve(p, solver="highs")
    out, err = capfd.readouterr()
    assert out == "" and err == ""
