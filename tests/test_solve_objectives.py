"""Variants, the makespan and throughput objectives, two cores: the ILP against exhaustive enumeration."""

from __future__ import annotations

import itertools
import math

import pytest

from partition.errors import PartitionError
from partition.solve import (
    MAX_PAIRS,
    ChainCost,
    EdgeCost,
    Problem,
    TaskCost,
    Variant,
    available_solvers,
    brute_force,
    chain_stages,
    chosen,
    evaluate,
    explain_infeasible,
    feasible,
    heuristic,
    infeasibility_reasons,
    no_kernel_fits,
    optimal_schedule,
    schedule_length,
    solve,
    streamable,
    streamed,
    top_k,
)
from partition.solve.random_problems import (
    board_budget,
    layered_problem,
    random_variant_problem,
    with_chains,
    with_variants,
)

OBJECTIVES = ("latency", "makespan", "throughput")
SEEDS = range(210)
CHUNKS = 3
HAS_HIGHS = "highs" in available_solvers()
needs_highs = pytest.mark.skipif(not HAS_HIGHS, reason="highspy is not installed")


def close(a: float, b: float, rel: float = 1e-9) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def check_schedule(p: Problem, sol) -> None:
    """The makespan schedule is valid (model.schedule_length checks every rule) and as long as the objective."""
    assert close(schedule_length(p, sol.assignment, sol.variant, sol.schedule), sol.objective_s)
    assert sol.schedule == sorted(
        sol.schedule, key=lambda e: (e["start_s"], e["resource"], e["task"], e.get("edge", -1))
    )


def check_throughput_schedule(p: Problem, sol) -> None:
    """One period: every resource's load fits in it, and the busiest one fills it."""
    busiest = 0.0
    for res in {e["resource"] for e in sol.schedule}:
        entries = [e for e in sol.schedule if e["resource"] == res]
        load = (
            max(e["end_s"] for e in entries)
            if res == "fpga"
            else sum(e["end_s"] - e["start_s"] for e in entries)
        )
        assert load <= sol.objective_s * (1 + 1e-9), res
        busiest = max(busiest, load)
    assert close(busiest, sol.objective_s) or (busiest == 0.0 and sol.objective_s == 0.0)


# --------------------------------------------------------------------------- the generator


def test_random_instances_cover_what_they_claim():
    for objective in OBJECTIVES:
        probs = [random_variant_problem(s, objective) for s in SEEDS]
        assert {len(p.tasks) for p in probs} == set(range(1, 15)), objective
        counts = {len(t.variants) for p in probs for t in p.tasks}
        assert {0, 1, 2, 3, 4} <= counts, objective
        assert any(len(p.tasks) >= 12 and max(len(t.variants) for t in p.tasks) >= 2 for p in probs)
        assert {p.cpu_cores for p in probs} == {1, 2}
        assert any(
            v.ii_s is not None and v.ii_s < v.fpga_s for p in probs for t in p.tasks for v in t.variants
        )
        assert any(t.pin == "fpga" for p in probs for t in p.tasks)
        assert any(p.exclusive for p in probs) and any(p.precedence for p in probs)
        verdicts = [brute_force(p).status for p in probs[:50]]
        assert 0.05 < verdicts.count("Infeasible") / len(verdicts) < 0.5, objective
        assert any(p.chains for p in probs) == (objective != "makespan")


def test_the_optimum_streams_some_chains_and_declines_losing_ones():
    used = declined = 0
    for seed in SEEDS:
        p = random_variant_problem(seed, "latency")
        ref = brute_force(p)
        if ref.status != "Optimal":
            continue
        ch = chosen(p, ref.assignment, ref.variant)
        both = [c for c in p.chains if ch[c.src] is not None and ch[c.dst] is not None]
        on = streamed(p, ch)
        used += len(on)
        declined += len(both) - len(on)
        assert all(c.saving(ch[c.src].name, ch[c.dst].name) > 0 for c in on)
        without = Problem(**{**p.__dict__, "chains": []})
        saved = sum(c.saving(ch[c.src].name, ch[c.dst].name) for c in on)
        assert close(evaluate(without, ref.assignment, ref.variant) - saved, ref.objective_s), seed
    assert used >= 10 and declined >= 10, (used, declined)


def test_throughput_optimum_streams_some_chains_and_declines_others():
    """A used chain joins its kernels into one stage (the sum of their times minus its saving);
    a streamable chain is declined where two separate stages are faster."""
    used = declined = joined = 0
    for seed in SEEDS:
        p = random_variant_problem(seed, "throughput")
        ref = brute_force(p)
        if ref.status != "Optimal":
            continue
        ch = chosen(p, ref.assignment, ref.variant)
        able = streamable(p, ch)
        on = streamed(p, ch)
        used += len(on)
        declined += len(able) - len(on)
        stages, _ = chain_stages(p, ch)
        for members, secs in stages:
            if len(members) == 1:
                assert secs == ch[members[0]].period_s
                continue
            joined += 1
            inside = [c for c in on if c.src in members]
            assert len(inside) == len(members) - 1
            expect = sum(ch[n].fpga_s for n in members)
            expect -= sum(c.saving(ch[c.src].name, ch[c.dst].name) for c in inside)
            assert close(secs, expect), seed
            separate = max(ch[n].period_s for n in members)
            assert secs < separate or close(secs, separate), seed
    assert used >= 8 and declined >= 8 and joined >= 8, (used, declined, joined)


def test_chains_per_objective_and_bad_chains_are_reported():
    tasks = [
        TaskCost("u", 1.0, variants=[Variant("a", 1.0, {"lut": 1.0}, 0.5)]),
        TaskCost("v", 1.0, variants=[Variant("a", 1.0, {"lut": 1.0})]),
    ]

    def problem(objective, chains):
        return Problem(tasks, [], board_budget(), objective=objective, chains=chains)

    ok = [ChainCost("u", "v", {"a": 0.4}, {"a": 0.4}, 0.1)]
    with pytest.raises(PartitionError, match="latency and throughput objectives, not makespan"):
        solve(problem("makespan", ok))
    cycle = [*ok, ChainCost("v", "u", {"a": 0.1}, {"a": 0.1}, 0.1)]
    with pytest.raises(PartitionError, match="chains u -> v -> u form a cycle"):
        solve(problem("throughput", cycle))
    solve(problem("latency", cycle))  # the latency model only adds savings up
    big = [ChainCost("u", "v", {"a": 1.5}, {"a": 0.4}, 0.1)]
    with pytest.raises(PartitionError, match=r"task u variant a: its chains' shares add up to 1.5 s"):
        solve(problem("throughput", big))
    slow = [
        TaskCost("u", 1.0, variants=[Variant("a", 1.0, {"lut": 1.0}, 1.5)]),
        TaskCost("v", 1.0, variants=[Variant("a", 1.0, {"lut": 1.0})]),
    ]
    with pytest.raises(PartitionError, match=r"task u variant a: ii 1.5 s exceeds its FPGA time 1.0 s"):
        solve(Problem(slow, [], board_budget(), objective="throughput", chains=ok))


def test_a_chain_makes_two_kernels_worth_moving_for_throughput():
    """Each kernel alone is a slower stage than the CPU's whole frame; joined by a chain that
    removes most of their DDR phases, the two are one fast stage."""
    tasks = [
        TaskCost("u", 0.6, variants=[Variant("a", 1.3, {"lut": 10.0})]),
        TaskCost("v", 0.6, variants=[Variant("a", 1.3, {"lut": 10.0})]),
    ]
    edges = [EdgeCost("<main>", "u", c01=0.1), EdgeCost("u", "v", c01=0.3, c10=0.3)]
    chain = ChainCost("u", "v", {"a": 1.2}, {"a": 1.2}, 0.2)
    p = Problem(tasks, edges, board_budget(), objective="throughput", chains=[chain])
    for solver in [s for s in available_solvers() if s != "cpsat"]:
        got = solve(p, solver=solver)
        assert got.assignment == {"u": 1, "v": 1}, solver
        assert close(got.objective_s, 1.3 + 1.3 - (1.2 + 1.2 - 0.2))  # 0.4 s, above the link's 0.1 s
        fpga = [e for e in got.schedule if e["resource"] == "fpga"]
        assert {e.get("stage") for e in fpga} == {"u+v"} and all(close(e["end_s"], 0.4) for e in fpga)
    assert close(brute_force(p).objective_s, 0.4)
    p.chains = []
    assert solve(p).assignment == {"u": 0, "v": 0} and close(solve(p).objective_s, 1.2)


def test_a_chain_that_saves_latency_is_declined_for_throughput():
    """Two balanced stages of 1 s each beat one joined stage of 2 - 0.4 s."""
    tasks = [TaskCost(n, 3.0, variants=[Variant("a", 1.0, {"lut": 10.0})]) for n in ("u", "v")]
    chain = ChainCost("u", "v", {"a": 0.3}, {"a": 0.3}, 0.2)
    p = Problem(tasks, [], board_budget(), objective="throughput", chains=[chain])
    got = solve(p)
    ch = chosen(p, got.assignment, got.variant)
    assert got.assignment == {"u": 1, "v": 1} and close(got.objective_s, 1.0)
    assert streamable(p, ch) == [chain] and streamed(p, ch) == []
    assert all("stage" not in e for e in got.schedule)
    p.objective = "latency"
    assert streamed(p, ch) == [chain] and close(solve(p).objective_s, 2.0 - 0.4)


@pytest.mark.parametrize("solver", ["cbc", pytest.param("highs", marks=needs_highs)])
def test_throughput_chains_at_scale_stay_optimal(solver):
    """A layered graph of 300 tasks with variants and chains along its edges, small kernels so
    that hundreds fit and many chains are streamable: optimal, and the model agrees."""
    p = with_variants(layered_problem(300, seed=2, resource_scale=0.005), seed=2)
    p.objective = "throughput"
    with_chains(p, seed=2)
    got = solve(p, solver=solver)
    assert got.status == "Optimal" and got.gap == 0.0
    ch = chosen(p, got.assignment, got.variant)
    assert len(streamable(p, ch)) >= 20
    assert close(evaluate(p, got.assignment, got.variant), got.objective_s)
    check_throughput_schedule(p, got)


# --------------------------------------------------------------------------- ILP == brute force


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("objective", OBJECTIVES)
def test_ilp_equals_brute_force(objective, chunk):
    for seed in SEEDS[chunk::CHUNKS]:
        p = random_variant_problem(seed, objective)
        ref = brute_force(p)
        got = solve(p)
        assert got.status == ref.status, seed
        assert bool(infeasibility_reasons(p)) == (ref.status == "Infeasible"), seed
        if ref.status == "Infeasible":
            assert got.assignment == {} and got.objective_s == math.inf and got.gap is None
            continue
        assert close(got.objective_s, ref.objective_s), (seed, got.objective_s, ref.objective_s)
        assert got.gap == 0.0
        assert set(got.assignment) == {t.name for t in p.tasks}
        assert set(got.variant) == {n for n, x in got.assignment.items() if x}
        assert feasible(p, got.assignment, got.variant)
        assert close(evaluate(p, got.assignment, got.variant), got.objective_s)
        if objective == "makespan":
            check_schedule(p, got)
            check_schedule(p, ref)
        elif objective == "throughput":
            check_throughput_schedule(p, got)
        else:
            assert got.schedule == []


@needs_highs
@pytest.mark.parametrize("objective", OBJECTIVES)
def test_highs_gives_the_same_optimum_as_cbc(objective):
    for seed in SEEDS[:30]:
        p = random_variant_problem(seed, objective)
        a, b = solve(p, solver="cbc"), solve(p, solver="highs")
        assert a.status == b.status, seed
        if a.status == "Optimal":
            assert close(a.objective_s, b.objective_s), seed
            assert b.solver == "highs" and feasible(p, b.assignment, b.variant)


def test_makespan_never_exceeds_latency_on_one_core():
    for seed in SEEDS[:60]:
        p = random_variant_problem(seed, "makespan")
        p.cpu_cores = 1
        lat = Problem(**{**p.__dict__, "objective": "latency"})
        for x in ({t.name: 0 for t in p.tasks}, brute_force(lat).assignment):
            if x and feasible(p, x):
                assert evaluate(p, x) <= evaluate(lat, x) * (1 + 1e-12), seed


# --------------------------------------------------------------------------- the models, case by case


def v(name, fpga, lut=1000.0, ii=None, **res):
    return Variant(name, fpga, {"lut": lut, **res}, ii)


def test_the_ilp_picks_the_variant_that_fits():
    t = TaskCost("fir", 1.0, variants=[v("unroll8", 0.05, lut=30_000.0), v("plain", 0.3, lut=5_000.0)])
    p = Problem(tasks=[t], edges=[], budget={"lut": 40_000.0})
    s = solve(p)
    assert (
        s.assignment == {"fir": 1}
        and s.variant == {"fir": "unroll8"}
        and s.objective_s == pytest.approx(0.05)
    )
    p.budget["lut"] = 10_000.0
    s = solve(p)
    assert s.variant == {"fir": "plain"} and s.objective_s == pytest.approx(0.3)
    p.budget["lut"] = 100.0
    assert solve(p).assignment == {"fir": 0}


def test_single_variant_shorthand_is_named_default():
    p = Problem(tasks=[TaskCost("a", 1.0, 0.5, {"lut": 10.0})], edges=[], budget={"lut": 100.0})
    s = solve(p)
    assert s.variant == {"a": "default"} and evaluate(p, {"a": 1}) == 0.5 == evaluate(
        p, {"a": 1}, {"a": "default"}
    )
    with pytest.raises(PartitionError, match="no variant 'fast'"):
        evaluate(p, {"a": 1}, {"a": "fast"})


def test_makespan_overlaps_cpu_and_fpga():
    # a -> b and an independent c: with b on the FPGA, c runs on the CPU meanwhile
    tasks = [TaskCost("a", 1.0), TaskCost("b", 4.0, 2.0), TaskCost("c", 2.0)]
    edges = [EdgeCost("a", "b", c01=0.5, c11=0.5)]
    p = Problem(tasks=tasks, edges=edges, budget={}, objective="makespan", base_s=0.25)
    s = solve(p)
    assert s.assignment == {"a": 0, "b": 1, "c": 0}
    # base 0.25, a 1, the copy 0.5 on the CPU, then b on the FPGA (2) while c runs on the CPU (2)
    assert s.objective_s == pytest.approx(0.25 + 1.0 + 0.5 + 2.0)
    check_schedule(p, s)
    by = {e["task"]: e for e in s.schedule}
    assert by["<main>"]["resource"] == "cpu0" and by["a->b"]["resource"] == "cpu0"
    assert by["b"]["resource"] == "fpga" and by["c"]["start_s"] < by["b"]["end_s"]
    lat = solve(Problem(tasks=tasks, edges=edges, budget={}, base_s=0.25))
    assert lat.objective_s == pytest.approx(0.25 + 1.0 + 0.5 + 2.0 + 2.0)


def test_two_cores_run_cpu_tasks_side_by_side():
    tasks = [TaskCost("a", 1.0), TaskCost("b", 1.0), TaskCost("c", 1.0), TaskCost("d", 1.0)]
    one = Problem(tasks=tasks, edges=[], budget={}, objective="makespan")
    two = Problem(tasks=tasks, edges=[], budget={}, objective="makespan", cpu_cores=2)
    assert solve(one).objective_s == pytest.approx(4.0)
    s = solve(two)
    assert s.objective_s == pytest.approx(2.0)
    assert {e["resource"] for e in s.schedule} == {"cpu0", "cpu1"}
    check_schedule(two, s)
    thr = Problem(tasks=tasks, edges=[], budget={}, objective="throughput", cpu_cores=2, base_s=1.0)
    assert solve(thr).objective_s == pytest.approx(
        3.0
    )  # core 0: base + 1 task, core 1: 3 tasks (or 2 / 2 + base)


def test_throughput_is_the_busiest_resource():
    tasks = [
        TaskCost("src", 0.2),
        TaskCost("fir", 1.0, variants=[v("pipelined", 0.8, ii=0.1), v("plain", 0.4)]),
        TaskCost("sink", 0.1),
    ]
    edges = [EdgeCost("src", "fir", c01=0.05, c10=0.05), EdgeCost("fir", "sink", c01=0.05, c10=0.05)]
    p = Problem(tasks=tasks, edges=edges, budget={}, objective="throughput")
    s = solve(p)
    # the pipelined variant's ii (0.1) beats the plain one's 0.4 although its latency is longer
    assert s.assignment["fir"] == 1 and s.variant["fir"] == "pipelined"
    assert s.objective_s == pytest.approx(0.3)  # the CPU: 0.2 + 0.1; link 0.1
    check_throughput_schedule(p, s)
    p.cpu_cores = 2
    s = solve(p)
    assert s.objective_s == pytest.approx(0.2)  # CPU 0.2 | 0.1
    assert {e["resource"] for e in s.schedule} == {"cpu0", "cpu1", "fpga", "link"}
    p.tasks[1].variants = [v("plain", 0.4)]
    assert solve(p).objective_s == pytest.approx(0.4)  # the FPGA stage (fir on the CPU: 1.0)


def test_makespan_cycle_and_bad_inputs_are_reported():
    tasks = [TaskCost("a", 1.0, 0.5), TaskCost("b", 1.0, 0.5)]
    cyc = Problem(
        tasks=tasks, edges=[EdgeCost("a", "b"), EdgeCost("b", "a")], budget={}, objective="makespan"
    )
    with pytest.raises(PartitionError, match="cycle a -> b -> a"):
        solve(cyc)
    cyc.objective = "latency"
    assert solve(cyc).status == "Optimal"  # a cycle only matters for scheduling
    for bad, match in [
        (Problem(tasks=tasks, edges=[], budget={}, cpu_cores=4), "1 or 2 cores"),
        (Problem([TaskCost("a", 1.0, 0.5, variants=[v("x", 0.1)])], [], {}), "either fpga_s"),
        (Problem([TaskCost("a", 1.0, variants=[v("x", 0.1), v("x", 0.2)])], [], {}), "repeated"),
        (Problem([TaskCost("a", 1.0, variants=[v("x", -0.1)])], [], {}), "FPGA time -0.1"),
        (Problem(tasks, [EdgeCost("a", "b", c01=-1.0)], {}, objective="makespan"), "negative"),
        (Problem(tasks, [], {}, precedence=[("a", "zz")]), "'zz' is not a task"),
    ]:
        with pytest.raises(PartitionError, match=match):
            solve(bad)


def test_exact_schedule_search_can_say_nothing_is_shorter():
    p = random_variant_problem(0, "makespan")
    x = {t.name: 0 for t in p.tasks}
    ch = chosen(p, x)
    length, entries = optimal_schedule(p, ch)
    assert entries and optimal_schedule(p, ch, below=length) == (math.inf, [])
    assert optimal_schedule(p, ch, below=length * (1 + 1e-6))[0] == length


# --------------------------------------------------------------------------- top-k


def all_choices(p: Problem, distinct: str) -> list[float]:
    """Objectives of every feasible choice (distinct="placement": the best variant per placement)."""
    best: dict[tuple, float] = {}
    opts = [[None, *(o.name for o in t.options())] for t in p.tasks]
    for combo in itertools.product(*opts):
        x = {t.name: int(c is not None) for t, c in zip(p.tasks, combo)}
        var = {t.name: c for t, c in zip(p.tasks, combo) if c is not None}
        if not feasible(p, x, var):
            continue
        key = tuple(x.values()) if distinct == "placement" else combo
        best[key] = min(best.get(key, math.inf), evaluate(p, x, var))
    return sorted(best.values())


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("distinct", ["choice", "placement"])
def test_top_k_against_enumeration(objective, distinct):
    checked = 0
    for seed in SEEDS[:30]:
        p = random_variant_problem(seed, objective, max_tasks=5)
        k = 5
        sols = top_k(p, k, distinct=distinct)
        if sols[0].status == "Infeasible":
            assert len(sols) == 1
            continue
        objs = all_choices(p, distinct)
        assert len(sols) == min(k, len(objs)), seed
        keys = [
            tuple(sorted(s.assignment.items()))
            + (() if distinct == "placement" else tuple(sorted(s.variant.items())))
            for s in sols
        ]
        assert len(set(keys)) == len(keys)
        for a, b in itertools.pairwise(sols):
            assert b.objective_s >= a.objective_s * (1 - 1e-9)
        for s, want in zip(sols, objs):
            assert close(s.objective_s, want), (seed, s.objective_s, want)
            assert feasible(p, s.assignment, s.variant)
        checked += 1
    assert checked > 12


# --------------------------------------------------------------------------- explanations with variants


def test_no_kernel_fits_names_the_smallest_variant():
    p = Problem(
        tasks=[
            TaskCost("fir", 1.0, variants=[v("wide", 0.1, lut=9_000.0), v("narrow", 0.2, lut=1_234.0)]),
            TaskCost("one", 1.0, 0.1, {"lut": 10.0, "dsp": 500.0}),
        ],
        edges=[],
        budget={"lut": 532.0, "dsp": 220.0},
    )
    msg = no_kernel_fits(p)
    assert msg == (
        "fir needs 1,234 LUT with its smallest variant, narrow, budget 532 LUT; one needs 500 DSP, budget 220 DSP"
    )
    p.tasks[0].variants.append(v("tiny", 0.9, lut=500.0))
    assert no_kernel_fits(p) is None  # one variant fits: a kernel is possible


def test_explain_pinned_variants():
    a = TaskCost("a", 1.0, pin="fpga", variants=[v("big", 0.1, lut=30_000.0), v("small", 0.2, lut=20_000.0)])
    b = TaskCost("b", 1.0, pin="fpga", variants=[v("only", 0.1, lut=25_000.0)])
    p = Problem(tasks=[a, b], edges=[], budget={"lut": 40_000.0})
    assert solve(p).status == "Infeasible" and brute_force(p).status == "Infeasible"
    assert "need 45,000 LUT even with the smallest variants; the budget is 40,000 LUT" in explain_infeasible(
        p
    )
    # each resource fits on its own, no combination fits both
    a.variants = [v("l", 0.1, lut=30_000.0, dsp=60.0), v("d", 0.1, lut=10.0, dsp=150.0)]
    b.variants = [v("l", 0.1, lut=30_000.0, dsp=60.0), v("d", 0.1, lut=10.0, dsp=150.0)]
    p.budget = {"lut": 40_000.0, "dsp": 200.0}
    assert solve(p).status == "Infeasible" and brute_force(p).status == "Infeasible"
    assert "no combination of the variants of the tasks pinned to the FPGA (a, b)" in explain_infeasible(p)
    p.budget["dsp"] = 210.0  # one "l" and one "d"
    s = solve(p)
    assert s.status == "Optimal" and sorted(s.variant.values()) == ["d", "l"]


# --------------------------------------------------------------------------- heuristics, time limits, scale


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_greedy_is_feasible_and_no_better_than_the_optimum(objective):
    for seed in SEEDS[:40]:
        p = random_variant_problem(seed, objective)
        g = heuristic.greedy(p)
        ref = brute_force(p)
        if g is None:
            continue
        assert feasible(p, g.assignment, g.variant)
        assert g.objective_s >= ref.objective_s * (1 - 1e-9), seed
        if objective == "makespan":
            assert close(schedule_length(p, g.assignment, g.variant, g.schedule), g.objective_s)


def test_lazy_makespan_pairs_agree_with_the_full_model():
    """`solve` adds ordering pairs lazily; `top_k` builds them all: the same optimum."""
    for seed in SEEDS[:25]:
        p = random_variant_problem(seed, "makespan")
        lazy = solve(p)
        full = top_k(p, 2)[0]
        assert lazy.status == full.status, seed
        if lazy.status == "Optimal":
            assert close(lazy.objective_s, full.objective_s), (seed, lazy.objective_s, full.objective_s)
            assert lazy.stats["lazy_pairs"] <= lazy.stats["ordering_pairs"]
            check_schedule(p, lazy)


def test_makespan_time_limit_reports_a_gap():
    p = layered_problem(16, seed=2, resource_scale=0.1)
    p.objective, p.cpu_cores = "makespan", 2
    s = solve(p, time_limit_s=0.5)
    assert s.stats["ordering_pairs"] <= MAX_PAIRS  # the disjunctive model, not the relaxation
    assert s.status in ("Optimal", "Time limit"), s.status
    if s.status == "Time limit":  # gap None: the solver had no point of its own, the greedy's is kept
        assert s.gap is None or 0 <= s.gap < 1
    check_schedule(p, s)
    assert feasible(p, s.assignment, s.variant)


def test_large_makespan_solves_the_relaxation_and_bounds_the_gap():
    p = layered_problem(300, seed=4, resource_scale=0.2)
    p.objective = "makespan"
    s = solve(p, time_limit_s=20)
    assert s.stats["ordering_pairs"] > MAX_PAIRS or s.stats["ordering_pairs"] == 0
    assert s.status in ("Feasible", "Optimal") and s.gap is not None and 0 <= s.gap < 1
    check_schedule(p, s)
    g = heuristic.greedy(p)
    assert g is not None and s.objective_s <= g.objective_s * (1 + 1e-12)


def test_same_problem_same_choice():
    for objective in OBJECTIVES:
        p = layered_problem(30 if objective != "makespan" else 7, seed=3)
        p.objective = objective
        first = solve(p)
        again = solve(p)
        assert (again.assignment, again.variant, again.schedule) == (
            first.assignment,
            first.variant,
            first.schedule,
        )


def test_board_budget_unchanged():
    assert board_budget(0.8)["lut"] == pytest.approx(42_560.0)


def test_a_chain_can_be_what_makes_two_kernels_worth_it():
    """Alone each kernel is slower than the CPU; streamed into each other they win."""
    tasks = [
        TaskCost("u", 1.0, variants=[Variant("a", 1.05, {"lut": 10.0}), Variant("b", 1.2, {"lut": 5.0})]),
        TaskCost("v", 1.0, variants=[Variant("a", 1.05, {"lut": 10.0})]),
    ]
    p = Problem(
        tasks, [], board_budget(), chains=[ChainCost("u", "v", {"a": 0.2, "b": 0.5}, {"a": 0.2}, 0.01)]
    )
    for solver in available_solvers():
        if solver == "cpsat":
            continue
        got = solve(p, solver=solver)
        assert got.assignment == {"u": 1, "v": 1} and got.variant == {"u": "b", "v": "a"}, solver
        assert close(got.objective_s, 1.2 + 1.05 - (0.5 + 0.2 - 0.01))
    p.chains = []
    assert solve(p).assignment == {"u": 0, "v": 0}
