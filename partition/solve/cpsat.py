"""The makespan objective with CP-SAT (OR-tools): optional intervals instead of big-M disjunctions.

The MILP of `partition.solve.ilp` proves optimality only on small graphs:
its big-M orderings leave the LP bound at the CPU's work and miss the time a
core waits for a short FPGA job. A constraint solver reasons on the
intervals themselves (edge finding, energetic reasoning, clause learning),
which is what this scheduling problem needs. Same model (schedule.py), other
formulation:

* every task has one presence literal per option (the CPU, each FPGA variant
  it may use), exactly one true; each option of positive length is an
  optional interval of that length on the CPU or on the FPGA, all sharing
  the task's start;
* every edge is a transfer job on the CPU with its own start: one optional
  interval per placement of its ends with a positive cost (presence: the AND
  of the two placements), after its producer and before its consumer;
* the FPGA is a no-overlap resource; the CPU cores are a cumulative resource
  of capacity `cpu_cores` (intervals that never overlap more than `cores` at
  a time can always be put on that many cores: interval graphs are perfect).
  The searches after the first also give every CPU job a core and each core
  a no-overlap of its own (`cpsat_redundant.core_machines`): the cumulative
  bounds well but finds poor two-core schedules, the per-core disjunctions
  find the ones whose cores end together;
* budgets and exclusive pairs as in the ILP; minimise the largest end;
* redundant flow rows (`cpsat_redundant.flow_bounds`): the work before and after
  every job, and on several cores the time they wait for FPGA jobs.

Time is integral in CP-SAT: durations are rounded to units of
serial / 2^32 (serial: every job at its longest, one after the other), so a
unit is about 2e-10 of the horizon (with units of 2^-40 CP-SAT's presolve
returned a wrong optimum on a 14-task graph: its coefficients overflow). The result is re-timed in floating point
from the solver's order (`schedule.schedule_entries`) and checked by
`schedule.schedule_length`; the proven bound subtracts the rounding of every job
(half a unit each), so the reported gap is honest to the last unit. Resource
amounts that are not integers are scaled by 1e6 and the budget rounded up;
a choice that then breaks a budget by rounding is excluded and the model
solved again (it has not happened on any instance so far).

Closing the gap (`_shave`). CP-SAT presolves once, so a search whose best
schedule improves does not use it to drop choices, and its bound stays near
the root relaxation: on the benchmark's 40 tasks on two cores the parallel
search stopped at 0.362507 s with the bound at 0.362432 s (2e-4), and more
time did not move it. A new search with the cap C <= T presolves with it, and
with the flow rows a cap near the optimum leaves one choice of placements:
capped just above the optimum (0.3625035 s) the per-core model finds its
schedule at once, capped just below it presolve refutes the model. So after
the parallel search the gap is closed by halving: searches for any schedule
under a cap halfway between bound and best (a refutation raises the bound, a
schedule lowers the best), each new best from halving followed by a search
just below it (the proof when it is the optimum).

Determinism. Parallel CP-SAT returns whichever optimal solution a worker
found first, which would make build trees differ between runs. The search
therefore first runs one deterministic worker (no LP, the greedy choice as a
hint) for a quarter of the time limit (a twentieth where capped searches
follow: on several cores and up to _SHAVE_JOBS jobs); only if that does not
prove the optimum do the parallel portfolio (there, a twentieth of the time
left) and the capped searches run, and once they have proven the optimal length one
deterministic worker looks for the first schedule of exactly that length
(its answer is then the same on every run). `stats["deterministic"]` is 0
when neither deterministic pass finished (the time limit cut the search).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from partition.boards import RESOURCES
from partition.errors import PartitionError
from partition.solve import heuristic
from partition.solve.cpsat_redundant import core_machines, flow_bounds, shortest_jobs
from partition.solve.model import (
    MAIN,
    Problem,
    Solution,
    Variant,
    chosen,
    feasible,
    make_solution,
    no_solution,
)
from partition.solve.schedule import (
    longest_paths,
    makespan_jobs,
    schedule_entries,
    schedule_length,
    task_order,
)

_UNIT_BITS = 32  # durations in units of serial / 2^32 (40 bits overflowed inside CP-SAT)
_RES_SCALE = 1_000_000  # non-integral resource amounts
_FIRST_SHARE = 0.25  # share of the time limit for the first, deterministic pass
_FIRST_S = 10.0  # its wall-clock budget without a time limit
_WORKERS = 8  # the parallel portfolio (CP-SAT's subsolvers; threads share the cores)
_FLOW_JOBS = 400  # the flow rows are quadratic in the jobs: only up to this many
_PROVEN_REL = 1e-9  # a schedule this close to the bound is optimal
_ROUND_WORK = 2.0  # deterministic seconds of one capped round (`_shave`), doubled when all are undecided
_ROUND_WORK_MAX = 2.0 * 2**8  # the largest budget of a round (bounds the rounds without a time limit)
_NEAR = 16  # every other capped round: 1/_NEAR of the gap below the best
# with `_shave` the first and the parallel pass only seed the capped rounds, which do the work
# (40 tasks on two cores: first and parallel passes of 10 s and 7.5 s left a gap of 1.2e-7 at the
# 40 s limit in one run; of 2 s each, five runs proved the optimum in 11.5–19.5 s on a loaded machine)
_SHAVE_FIRST_SHARE = 0.05  # of the time limit
_SHAVE_FIRST_S = 2.0  # without a time limit
_PARALLEL_SHARE = 0.05  # of the time left after the first pass
_SHAVE_PARALLEL_S = 2.0  # without a time limit
# `_shave` on several cores and up to this many jobs: it closed 40 tasks (112 jobs) on two cores; at
# 100 tasks (299 jobs) a quarter of the time for the parallel search left a gap of 8.5e-2 (1.2e-2 with
# all of it), and on one core the parallel search alone proves 100 tasks.
_SHAVE_JOBS = 200


def available() -> bool:
    """Whether OR-tools' CP-SAT can be imported here."""
    try:
        from ortools.sat.python import cp_model  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class _Model:
    model: object
    unit: float
    C: object
    lits: dict[str, list[tuple[Variant | None, object]]]  # task -> (option, presence literal)
    task_start: dict[str, object]
    edge_start: dict[int, object]
    n_jobs: int


def _integral(values: list[float]) -> bool:
    return all(float(v).is_integer() for v in values)


def _build(
    problem: Problem, opts: dict[str, list[Variant]], fixed: dict[str, int], machines: bool = False
) -> _Model:
    """The CP-SAT model; `machines`: several cores also as one no-overlap each (`core_machines`)."""
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    serial = sum(max([t.cpu_s] + [v.fpga_s for v in t.options()]) for t in problem.tasks)
    serial += sum(max(e.c00, e.c01, e.c10, e.c11) for e in problem.edges)
    unit = max(serial, 1e-300) / 2**_UNIT_BITS
    horizon = 2**_UNIT_BITS + len(problem.tasks) + len(problem.edges) + 1

    def q(s: float) -> int:
        return round(s / unit)

    cpu_iv: list = []
    cpu_jobs: list = []  # (job, start, length, presence) of every CPU interval
    fpga_iv: list = []
    cpu_work: dict[object, list] = {}  # job (task name or edge index) -> its CPU time terms
    cpu_max: dict[object, int] = {}  # job -> its longest CPU time
    fpga_work: dict[object, list] = {}
    lits: dict[str, list[tuple[Variant | None, object]]] = {}
    start: dict[str, object] = {}
    end: dict[str, object] = {}
    on_fpga: dict[str, object] = {}
    for t in problem.tasks:
        options: list[Variant | None] = []
        if fixed.get(t.name) != 1:
            options.append(None)
        if fixed.get(t.name) != 0:
            options += opts[t.name]
        s = m.new_int_var(0, horizon, f"s_{t.name}")
        e = m.new_int_var(0, horizon, f"e_{t.name}")
        start[t.name], end[t.name] = s, e
        terms = []
        here = []
        for v in options:
            b = m.new_bool_var(f"b_{t.name}_{'cpu' if v is None else v.name}")
            here.append((v, b))
            d = q(t.cpu_s if v is None else v.fpga_s)
            if d > 0:
                terms.append(d * b)
                iv = m.new_optional_fixed_size_interval_var(s, d, b, f"i_{t.name}")
                (cpu_iv if v is None else fpga_iv).append(iv)
                if v is None:
                    cpu_jobs.append((t.name, s, d, b))
                (cpu_work if v is None else fpga_work).setdefault(t.name, []).append(d * b)
                if v is None:
                    cpu_max[t.name] = d
        m.add_exactly_one([b for _, b in here])
        m.add(e == s + sum(terms))
        lits[t.name] = here
        fl = [b for v, b in here if v is not None]
        x = m.new_bool_var(f"x_{t.name}")
        m.add(x == sum(fl))
        on_fpga[t.name] = x

    for r in RESOURCES:
        cap = problem.budget.get(r, math.inf)
        if cap == math.inf:
            continue
        used = [(v.resources.get(r, 0.0), b) for n in lits for v, b in lits[n] if v is not None]
        used = [(a, b) for a, b in used if a]
        if not used:
            continue
        k = 1 if _integral([a for a, _ in used] + [cap]) else _RES_SCALE
        # rounding up the budget by every term's half unit keeps every feasible choice
        limit = math.floor(cap * k) + (0 if k == 1 else len(used))
        m.add(sum(round(a * k) * b for a, b in used) <= limit)
    for a, c in problem.exclusive:
        if a in on_fpga and c in on_fpga:
            m.add_bool_or([on_fpga[a].Not(), on_fpga[c].Not()])
    for a, c in task_order(problem):
        m.add(start[c] >= end[a])

    C = m.new_int_var(0, horizon, "C")
    for t in problem.tasks:
        m.add(end[t.name] <= C)
    edge_start: dict[int, object] = {}
    edge_end: dict[int, object] = {}
    n_jobs = len(problem.tasks)
    for k, e in enumerate(problem.edges):
        placements = [(s_, d_) for s_ in (0, 1) for d_ in (0, 1)]
        if e.src == e.dst:
            placements = [(0, 0), (1, 1)]
        se = m.new_int_var(0, horizon, f"se{k}")
        ee = m.new_int_var(0, horizon, f"ee{k}")
        edge_start[k], edge_end[k] = se, ee
        terms = []
        for s_, d_ in placements:
            d = q(e.cost(s_, d_))
            if d <= 0:
                continue
            conds = []
            possible = True
            for node, val in ((e.src, s_), (e.dst, d_)) if e.src != e.dst else ((e.src, s_),):
                if node == MAIN:
                    possible &= val == 0
                    continue
                conds.append(on_fpga[node] if val else on_fpga[node].Not())
            if not possible:
                continue
            if not conds:
                lit = m.new_constant(1)
            elif len(conds) == 1:
                lit = conds[0]
            else:
                lit = m.new_bool_var(f"p{k}_{s_}{d_}")
                m.add_bool_and(conds).only_enforce_if(lit)
                m.add_bool_or([c.Not() for c in conds] + [lit])
            terms.append(d * lit)
            cpu_work.setdefault(k, []).append(d * lit)
            cpu_max[k] = max(cpu_max.get(k, 0), d)
            cpu_iv.append(m.new_optional_fixed_size_interval_var(se, d, lit, f"t{k}_{s_}{d_}"))
            cpu_jobs.append((k, se, d, lit))
        if terms:
            n_jobs += 1
        m.add(ee == se + sum(terms))
        if e.src != MAIN:
            m.add(se >= end[e.src])
        if e.dst != MAIN and e.dst != e.src:
            m.add(start[e.dst] >= ee)
        m.add(ee <= C)
    if len(problem.tasks) + len(problem.edges) <= _FLOW_JOBS:
        _index, preds, dur = shortest_jobs(problem, opts, fixed)
        _order, head, tail = longest_paths(preds, dur)
        window = [  # per task: its shortest E_k and its shortest C - S_k
            (math.floor((head[k] + dur[k]) / unit), math.floor((dur[k] + tail[k]) / unit))
            for k in range(len(problem.tasks))
        ]
        flow_bounds(m, problem, C, start, end, edge_start, edge_end, cpu_work, fpga_work, cpu_max, window)
    if problem.cpu_cores == 1:
        m.add_no_overlap(cpu_iv)
    else:
        m.add_cumulative(cpu_iv, [1] * len(cpu_iv), problem.cpu_cores)
        if machines:
            core_machines(m, cpu_jobs, problem.cpu_cores)
    m.add_no_overlap(fpga_iv)
    m.minimize(C)
    return _Model(m, unit, C, lits, start, edge_start, n_jobs)


def _hint(cm: _Model, problem: Problem, g: heuristic.Choice) -> None:
    for n, here in cm.lits.items():
        want = g.variant.get(n) if g.assignment.get(n) else None
        for v, b in here:
            cm.model.add_hint(b, (v is None and want is None) or (v is not None and v.name == want))


@dataclass
class _Pass:
    status: str  # OPTIMAL, FEASIBLE, INFEASIBLE, UNKNOWN, MODEL_INVALID
    bound: int | None
    found: tuple[dict[str, int], dict[str, str], dict[str, int], dict[int, int]] | None
    objective: int | None


def _run(
    cm: _Model,
    *,
    workers: int,
    wall_s: float | None,
    msg: bool,
    below: int | None = None,
    work: float | None = None,
) -> _Pass:
    """One CP-SAT search. With one worker its result is the same on every run when it ends on its own.

    `below`: only schedules shorter than this (integral length), stopping at
    the first; `work`: a budget of deterministic time (the same on every run,
    unlike wall time).
    """
    from ortools.sat.python import cp_model

    model = cm.model
    sv = cp_model.CpSolver()
    prm = sv.parameters
    prm.num_workers = workers
    prm.random_seed = 0
    prm.log_search_progress = msg
    if workers == 1:
        prm.linearization_level = 0  # a pure CP search proves these instances fastest
    if wall_s is not None:
        prm.max_time_in_seconds = max(wall_s, 0.01)
    if work is not None:
        prm.max_deterministic_time = work
    if below is not None:
        model = cm.model.clone()
        model.add(model.get_int_var_from_proto_index(cm.C.index) <= below - 1)
        prm.stop_after_first_solution = True  # the next cap presolves with what it found
    st = sv.solve(model)
    name = sv.status_name(st)
    if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        b = sv.best_objective_bound  # a search stopped before its first solution may still bound
        ok = st == cp_model.UNKNOWN and math.isfinite(b) and b > 0
        return _Pass(name, math.floor(b + 1e-9) if ok else None, None, None)
    x: dict[str, int] = {}
    var: dict[str, str] = {}
    for n, here in cm.lits.items():
        x[n] = 0
        for v, b in here:
            if sv.boolean_value(b) and v is not None:
                x[n], var[n] = 1, v.name
    starts = {n: sv.value(s) for n, s in cm.task_start.items()}
    estarts = {k: sv.value(s) for k, s in cm.edge_start.items()}
    bound = math.floor(sv.best_objective_bound + 1e-9)
    return _Pass(name, bound, (x, var, starts, estarts), round(sv.objective_value))


def _better(a: _Pass, b: _Pass) -> _Pass:
    """Two searches of the same model: the better schedule, the higher bound."""
    bound = max([x.bound for x in (a, b) if x.bound is not None], default=None)
    best = min([x for x in (a, b) if x.found is not None], key=lambda x: x.objective, default=a)
    proven = best.found is not None and bound is not None and bound >= best.objective
    return _Pass("OPTIMAL" if proven else best.status, bound, best.found, best.objective)


def _shave(cm: _Model, res: _Pass, left, msg: bool) -> tuple[_Pass, int]:
    """Close the gap by bisection with searches under a cap: C <= T has a schedule or is refuted.

    CP-SAT presolves once: a search that improves its objective does not use
    the new bound to remove choices, and its lower bound stays at the root
    relaxation (on the 40-task, two-core benchmark 2e-4 below the optimum for
    as long as we ran it). A fresh single-worker search with C <= T does
    presolve with the cap, and with the flow rows a cap near the optimum
    leaves few choices: just below the optimum it fixes every placement and
    refutes the rest in presolve, just above it it fixes them and the search
    finds the schedule. The rounds cap C in turn halfway between the proven
    bound and the best schedule, and just below the best (1/_NEAR of the
    way): a refuted round raises the bound, a schedule lowers the best, a
    round that decides nothing in its deterministic budget moves the next
    caps up without raising the bound; once every cap up to the best is
    undecided, the rounds start again from the bound with twice the budget
    (before, the loop stopped there with time left: a gap of 7.9e-8 after
    27 s of a 40 s limit). Each round stops at its first
    schedule, which is often only a little shorter than the cap; the rounds
    just below the best refute most of the gap at once when the best is
    (near) the optimum, as it soon is on the benchmark. Returns the result
    (OPTIMAL when the bound meets the best) and the rounds run.
    """
    lo = res.bound if res.bound is not None else 0  # proven: no schedule shorter
    tried = lo  # caps below this decided nothing in the current budget
    work = _ROUND_WORK
    rounds = 0
    while res.objective is not None and lo < res.objective:
        remaining = left()
        if remaining is not None and remaining <= 0.05:
            break
        hi, base = res.objective, max(lo, tried)
        step = max(1, (hi - base) // (2 if rounds % 2 == 0 else _NEAR))
        cap = hi - step
        if cap < base:  # every cap left is undecided at this budget: again, with more
            if work >= _ROUND_WORK_MAX:
                break
            tried, work = lo, 2 * work
            continue
        run = _run(cm, workers=1, wall_s=remaining, msg=msg, below=cap + 1, work=work)
        rounds += 1
        if run.status == "INFEASIBLE":
            lo = cap + 1
        elif run.found is not None and run.objective < hi:
            res = _Pass("FEASIBLE", lo, run.found, run.objective)
        else:
            tried = cap + 1
    proven = res.objective is not None and lo >= res.objective
    return _Pass("OPTIMAL" if proven else res.status, lo, res.found, res.objective), rounds


def _retime(
    problem: Problem, unit: float, x: dict[str, int], var: dict[str, str], starts, estarts
) -> tuple[float, list]:
    """A floating-point schedule in the solver's order on every resource (and on its cores)."""
    ch = chosen(problem, x, var)
    jobs = makespan_jobs(problem, ch)
    n_tasks = len(problem.tasks)
    at = [starts[j.name] if k < n_tasks else estarts[j.edge] for k, j in enumerate(jobs)]
    depth = [0] * len(jobs)  # ties in start time: predecessors first
    for k in sorted(range(len(jobs)), key=lambda k: at[k]):
        for p in jobs[k].preds:
            depth[k] = max(depth[k], depth[p] + 1)
    order = sorted(range(len(jobs)), key=lambda k: (at[k], depth[k], k))
    cores = problem.cpu_cores
    free_at = [-1] * cores  # integral end of each core's last job (the solver's times)
    placed: list[tuple[int, int]] = []
    for k in order:
        core = 0
        if jobs[k].resource == "cpu" and cores > 1:
            core = min(range(cores), key=lambda c: (free_at[c] > at[k], -free_at[c], c))
            free_at[core] = at[k] + round(jobs[k].duration / unit)
        placed.append((k, core))
    entries = schedule_entries(problem, jobs, placed, cores)
    return schedule_length(problem, x, var, entries), entries


def solve_makespan(
    problem: Problem,
    opts: dict[str, list[Variant]],
    fixed: dict[str, int],
    *,
    time_limit_s: float | None,
    msg: bool,
    greedy: heuristic.Choice | None,
    start: float,
    stats: dict[str, int],
) -> Solution:
    """The makespan optimum (or, at the time limit, the best schedule and its gap)."""
    if not available():
        raise PartitionError("solver 'cpsat' needs OR-tools: pip install ortools")
    deadline = None if time_limit_s is None else start + time_limit_s
    cm = _build(problem, opts, fixed)
    stats["cp_jobs"] = cm.n_jobs
    if greedy is not None:
        _hint(cm, problem, greedy)
    slack = 0.5 * cm.n_jobs * cm.unit  # rounding of every job's length, in seconds

    def left() -> float | None:
        return None if deadline is None else deadline - time.perf_counter()

    deterministic = True
    shave = problem.cpu_cores > 1 and cm.n_jobs <= _SHAVE_JOBS
    if shave:
        first = _SHAVE_FIRST_S if time_limit_s is None else _SHAVE_FIRST_SHARE * time_limit_s
    else:
        first = _FIRST_S if time_limit_s is None else _FIRST_SHARE * time_limit_s
    remaining = left()
    res = _run(cm, workers=1, wall_s=first if remaining is None else min(first, remaining), msg=msg)
    passes = 1
    remaining = left()
    if res.status in ("OPTIMAL", "INFEASIBLE"):
        pass
    elif remaining is not None and remaining <= 0.05:
        deterministic = False
    else:
        if shave:
            par_s = _SHAVE_PARALLEL_S if remaining is None else _PARALLEL_SHARE * remaining
        else:
            par_s = remaining
        res = _better(res, _run(cm, workers=_WORKERS, wall_s=par_s, msg=msg))
        passes += 1
        if shave:
            cm = _build(problem, opts, fixed, machines=True)  # schedules two cores better
            if greedy is not None:
                _hint(cm, problem, greedy)
        if shave and res.status != "OPTIMAL":
            res, shaves = _shave(cm, res, left, msg)
            passes += shaves
        deterministic = False
        if res.status == "OPTIMAL" and res.objective is not None:
            # the optimal length is unique: one deterministic worker finds a schedule of it again
            cm.model.clear_hints()
            again = _run(cm, workers=1, wall_s=left(), msg=msg, below=res.objective + 1)
            passes += 1
            found = again.found if again.objective == res.objective else None
            deterministic = found is not None
            res = _Pass("OPTIMAL", res.bound, found or res.found, res.objective)
    stats["cp_passes"] = passes
    stats["deterministic"] = int(deterministic)
    if res.status == "INFEASIBLE":
        return no_solution("Infeasible", "cpsat", start, stats)
    cands = []
    if res.found is not None:
        x, var, starts, estarts = res.found
        if not feasible(problem, x, var):  # a budget broken only by the scaled resources
            raise RuntimeError(f"cpsat returned a choice that breaks a budget: {x} {var}")
        length, entries = _retime(problem, cm.unit, x, var, starts, estarts)
        cands.append((length, 0, x, var, entries))
    if greedy is not None:
        cands.append((greedy.objective_s, 1, greedy.assignment, greedy.variant, greedy.schedule))
    if not cands:
        return no_solution("Not Solved", "cpsat", start, stats)
    length, _, x, var, entries = min(cands, key=lambda c: (c[0], c[1]))
    bound_s = (
        _path_bound(problem, opts, fixed)
        if res.bound is None
        else problem.base_s + res.bound * cm.unit - slack
    )
    gap = None if bound_s is None else max(0.0, (length - bound_s) / max(length, 1e-300))
    if (
        res.status == "OPTIMAL"
        and bound_s is not None
        and length <= bound_s + 2 * slack + _PROVEN_REL * length
    ):
        gap = 0.0  # the proven optimum, up to the rounding of the integral lengths
    return make_solution(
        problem,
        x,
        var,
        objective_s=length,
        status="Optimal" if gap == 0.0 else "Time limit",
        solver="cpsat",
        gap=gap,
        start=start,
        stats=stats,
        schedule=entries,
    )


def _path_bound(problem: Problem, opts: dict[str, list[Variant]], fixed: dict[str, int]) -> float:
    """base_s plus the longest path of shortest possible jobs: the bound when CP-SAT gave none."""
    _index, preds, dur = shortest_jobs(problem, opts, fixed)
    _order, head, _tail = longest_paths(preds, dur)
    return problem.base_s + max((h + d for h, d in zip(head, dur)), default=0.0)
