"""The ILP: which tasks run on the FPGA, minimising the `latency` objective.

Formulation (reference/partitioners.md §4.1, F1 with FPGA time, blocking calls):

    min   base + sum_i [cpu_i (1 - x_i) + fpga_i x_i] + sum_e cost_e(x_src, x_dst)
    s.t.  sum_i res_ik x_i <= budget_k        for every budgeted resource k
          x_a + x_b <= 1                      for every exclusive pair (a, b)
          x_i fixed by pins; x_i = 0 when task i has no FPGA implementation

An edge cost takes four values c00..c11 (which side each end runs on). With
y = x_s AND x_d it is linear:

    cost = c00 + (c10 - c00) x_s + (c01 - c00) x_d + (c11 - c10 - c01 + c00) y

and only one side of the AND linearisation is needed, the side the sign of
y's coefficient q pushes against: q > 0 -> y >= x_s + x_d - 1 (the minimiser
wants y low); q < 0 -> y <= x_s, y <= x_d (it wants y high). y can then be
continuous in [0, 1]: at any integral x its optimal value is exactly the AND.
Products over the same pair of tasks (parallel or opposite edges) share one y.
Realistic edges (copies cost c01, c10 > 0, c11 small) all have q < 0.

Everything that is decided before solving is folded into constants: `<main>`
is x = 0, tasks without an FPGA implementation or pinned are fixed, the
partner of a task pinned to the FPGA in an exclusive pair is fixed to the CPU,
a task whose resources alone exceed what is left of a budget is fixed to the
CPU. If that already proves infeasibility the solver is not called.

Numerics. The objective is handed to the solver in units of `_OBJ_UNITS`-ths
of a cheap lower bound on the optimum, with the constant part carried by a
variable fixed to 1 (PuLP's HiGHS interface drops objective constants, and
relative gaps are only meaningful on the whole objective). Both solvers are
asked for a zero relative gap; CBC's absolute "increment" (1e-5 by default)
is then ~1e-11 of the objective. The rounded assignment is re-checked with
`model.feasible` and re-evaluated with `model.evaluate`; the solver's own
objective must agree with that or the result is rejected.

Tie rule (determinism). Both solvers are deterministic for the same model,
and the model is built in task order with index-based names, so the same
Problem always yields the same assignment. On top of that, ties are broken
towards the CPU: after solving, each task on the FPGA that is not pinned is
moved back to the CPU, in task order and repeatedly until nothing changes,
whenever that does not make the objective worse (within 1e-12 relative).
An FPGA kernel that buys nothing is not worth building.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field

import pulp

from partition.errors import PartitionError
from partition.solve.model import Problem, Solution, evaluate, feasible

MAIN = "<main>"
SOLVERS = ("cbc", "highs")

_OBJ_UNITS = 1e6  # solver objective ~ 1e6 at the optimum (see Numerics)
_TIE_REL = 1e-12  # "not worse" for the tie rule
_CHECK_REL = 1e-6  # solver objective vs model.evaluate on the rounded assignment
_FEAS_ABS = 1e-9  # same slack as model.feasible


# --------------------------------------------------------------------------- solvers


def _cbc_cmd() -> type | None:
    """PuLP's bundled CBC; a system CBC (COIN_CMD) when the bundle is gone (PuLP >= 4)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cls = getattr(pulp, "PULP_CBC_CMD", None)
        if cls is not None and cls(msg=False).available():
            return cls
        cls = getattr(pulp, "COIN_CMD", None)
        if cls is not None and cls(msg=False).available():
            return cls
    return None


def available_solvers() -> list[str]:
    """Solvers usable here, in preference order."""
    out = []
    if _cbc_cmd() is not None:
        out.append("cbc")
    if pulp.HiGHS(msg=False).available():
        out.append("highs")
    return out


def _check_solver(solver: str) -> None:
    avail = available_solvers()
    if solver not in SOLVERS:
        raise PartitionError(
            f"unknown solver {solver!r}; available here: {', '.join(avail) or 'none'} "
            f"(supported: {', '.join(SOLVERS)})"
        )
    if solver not in avail:
        hint = " (install the `highs` extra: pip install highspy)" if solver == "highs" else ""
        raise PartitionError(
            f"solver {solver!r} is not available{hint}; available here: {', '.join(avail) or 'none'}"
        )


# --------------------------------------------------------------------------- problem checks


def check_problem(problem: Problem) -> None:
    """Reject a malformed Problem with a message naming the bad value."""
    if problem.objective != "latency":
        raise PartitionError(
            f"objective {problem.objective!r} is not supported by the ILP yet; use 'latency'"
        )
    names: set[str] = set()
    for t in problem.tasks:
        if not t.name or t.name == MAIN:
            raise PartitionError(f"task name {t.name!r} is reserved or empty")
        if t.name in names:
            raise PartitionError(f"task {t.name!r} appears twice in the problem")
        names.add(t.name)
        if not (math.isfinite(t.cpu_s) and t.cpu_s >= 0):
            raise PartitionError(f"task {t.name}: CPU time {t.cpu_s!r} must be a finite number >= 0")
        if t.fpga_s is not None and not (math.isfinite(t.fpga_s) and t.fpga_s >= 0):
            raise PartitionError(f"task {t.name}: FPGA time {t.fpga_s!r} must be a finite number >= 0")
        if t.pin not in (None, "cpu", "fpga"):
            raise PartitionError(f"task {t.name}: pin {t.pin!r} must be 'cpu', 'fpga' or none")
        for r, v in t.resources.items():
            if not (math.isfinite(v) and v >= 0):
                raise PartitionError(f"task {t.name}: {r} = {v!r} must be a finite number >= 0")
    for e in problem.edges:
        for end in (e.src, e.dst):
            if end != MAIN and end not in names:
                raise PartitionError(f"edge {e.src} -> {e.dst}: {end!r} is not a task")
        for c in (e.c00, e.c01, e.c10, e.c11):
            if not math.isfinite(c):
                raise PartitionError(f"edge {e.src} -> {e.dst}: cost {c!r} is not finite")
    for r, v in problem.budget.items():
        if math.isnan(v) or v == -math.inf:
            raise PartitionError(f"budget for {r} is {v!r}; give a number (or +inf for no limit)")
    for a, b in problem.exclusive:
        for n in (a, b):
            if n not in names:
                raise PartitionError(f"exclusive pair ({a}, {b}): {n!r} is not a task")
    if not math.isfinite(problem.base_s):
        raise PartitionError(f"base time {problem.base_s!r} is not finite")


# --------------------------------------------------------------------------- model


@dataclass
class _Model:
    """The problem after constant folding: only free tasks remain as variables."""

    names: list[str]  # all tasks, problem order
    fixed: dict[str, int]
    free: list[str]  # problem order
    const: float = 0.0  # seconds
    lin: dict[str, float] = field(default_factory=dict)  # seconds per x_i
    quad: dict[tuple[str, str], float] = field(default_factory=dict)  # seconds per x_a x_b
    rows: list[tuple[str, dict[str, float], float]] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    infeasible: bool = False


def _fold(problem: Problem) -> _Model:
    names = [t.name for t in problem.tasks]
    order = {n: i for i, n in enumerate(names)}
    fixed: dict[str, int] = {}
    infeasible = False
    for t in problem.tasks:
        if t.pin == "fpga":
            fixed[t.name] = 1
            infeasible |= t.fpga_s is None
        elif t.pin == "cpu" or t.fpga_s is None:
            fixed[t.name] = 0

    pairs: set[tuple[str, str]] = set()
    for a, b in problem.exclusive:
        a, b = sorted((a, b), key=order.__getitem__)
        fa, fb = fixed.get(a), fixed.get(b)
        if a == b:
            if fa == 1:
                infeasible = True
            fixed.setdefault(a, 0)
        elif fa == 1 and fb == 1:
            infeasible = True
        elif fa == 1:
            fixed.setdefault(b, 0)
        elif fb == 1:
            fixed.setdefault(a, 0)
        elif fa is None and fb is None:
            pairs.add((a, b))

    rows: list[tuple[str, dict[str, float], float]] = []
    by_name = {t.name: t for t in problem.tasks}
    for r in sorted(problem.budget):
        cap = problem.budget[r]
        if cap == math.inf:
            continue
        used = 0.0
        for t in problem.tasks:
            if fixed.get(t.name) == 1:
                used += t.resources.get(r, 0.0)
        room = cap - used
        if room < -_FEAS_ABS:
            infeasible = True
            continue
        coeffs = {}
        for n in names:
            if n in fixed:
                continue
            v = by_name[n].resources.get(r, 0.0)
            if v > room + _FEAS_ABS:
                fixed[n] = 0  # cannot fit even alone
            elif v > 0:
                coeffs[n] = v
        rows.append((r, coeffs, room))
    # drop tasks fixed by the resource pass from rows and pairs; drop redundant rows
    free = [n for n in names if n not in fixed]
    free_set = set(free)
    rows = [
        (r, c2, room)
        for r, c, room in rows
        if (c2 := {n: v for n, v in c.items() if n in free_set}) and sum(c2.values()) > room + _FEAS_ABS
    ]
    pair_list = sorted(
        (p for p in pairs if p[0] in free_set and p[1] in free_set),
        key=lambda p: (order[p[0]], order[p[1]]),
    )

    m = _Model(names=names, fixed=fixed, free=free, rows=rows, pairs=pair_list, infeasible=infeasible)
    m.const = problem.base_s
    for t in problem.tasks:
        if t.name in free_set:
            m.const += t.cpu_s
            m.lin[t.name] = m.lin.get(t.name, 0.0) + (t.fpga_s - t.cpu_s)  # type: ignore[operator]
        elif fixed[t.name] == 1:
            m.const += t.fpga_s if t.fpga_s is not None else 0.0
        else:
            m.const += t.cpu_s

    def side(n: str) -> int | None:
        if n == MAIN:
            return 0
        return None if n in free_set else fixed[n]

    for e in problem.edges:
        s, d = side(e.src), side(e.dst)
        if s is not None and d is not None:
            m.const += e.cost(s, d)
        elif s is not None:
            m.const += e.cost(s, 0)
            m.lin[e.dst] = m.lin.get(e.dst, 0.0) + e.cost(s, 1) - e.cost(s, 0)
        elif d is not None:
            m.const += e.cost(0, d)
            m.lin[e.src] = m.lin.get(e.src, 0.0) + e.cost(1, d) - e.cost(0, d)
        elif e.src == e.dst:
            m.const += e.c00
            m.lin[e.src] = m.lin.get(e.src, 0.0) + e.c11 - e.c00
        else:
            m.const += e.c00
            m.lin[e.src] = m.lin.get(e.src, 0.0) + e.c10 - e.c00
            m.lin[e.dst] = m.lin.get(e.dst, 0.0) + e.c01 - e.c00
            key = tuple(sorted((e.src, e.dst), key=order.__getitem__))
            m.quad[key] = m.quad.get(key, 0.0) + (e.c11 - e.c10 - e.c01 + e.c00)  # type: ignore[index]
    m.quad = {k: v for k, v in m.quad.items() if v != 0.0}
    return m


def _lower_bound(m: _Model) -> float:
    """A cheap bound on the optimum: every linear saving and every negative product taken."""
    return m.const + sum(min(0.0, v) for v in m.lin.values()) + sum(min(0.0, v) for v in m.quad.values())


def _scale(m: _Model) -> float:
    """Solver units per second: the optimum lands near _OBJ_UNITS (see Numerics)."""
    mags = [abs(v) for v in (*m.lin.values(), *m.quad.values()) if v]
    if not mags:
        return 1.0
    ref = _lower_bound(m)
    if ref <= 0:  # unusual costs (negative edges): fall back to the coefficient range
        ref = max(mags)
    return _OBJ_UNITS / max(ref, 1e-9 * max(mags))  # keep coefficients finite and < ~1e15


@dataclass
class _Lp:
    prob: pulp.LpProblem
    x: dict[str, pulp.LpVariable]
    scale: float
    n_cuts: int = 0


def _build_lp(m: _Model) -> _Lp:
    scale = _scale(m)
    prob = pulp.LpProblem("partition", pulp.LpMinimize)
    x = {n: prob.add_variable(f"x{i:06d}", 0, 1, cat=pulp.LpBinary) for i, n in enumerate(m.free)}
    one = prob.add_variable("k", 1, 1)  # carries the constant (see Numerics)
    terms = [(one, m.const * scale)]
    terms += [(x[n], m.lin[n] * scale) for n in m.free if m.lin.get(n, 0.0) != 0.0]
    for k, ((a, b), q) in enumerate(m.quad.items()):
        y = prob.add_variable(f"y{k:06d}", 0, 1)
        terms.append((y, q * scale))
        if q > 0:
            prob.addConstraint(pulp.LpAffineExpression([(y, 1), (x[a], -1), (x[b], -1)]) >= -1, f"and{k:06d}")
        else:
            prob.addConstraint(pulp.LpAffineExpression([(y, 1), (x[a], -1)]) <= 0, f"anda{k:06d}")
            prob.addConstraint(pulp.LpAffineExpression([(y, 1), (x[b], -1)]) <= 0, f"andb{k:06d}")
    prob.setObjective(pulp.LpAffineExpression(terms))
    for r, coeffs, room in m.rows:
        expr = pulp.LpAffineExpression([(x[n], v) for n, v in coeffs.items()])
        prob.addConstraint(expr <= room + _FEAS_ABS, f"res_{re.sub(r'[^A-Za-z0-9]', '_', r)}")
    for k, (a, b) in enumerate(m.pairs):
        prob.addConstraint(pulp.LpAffineExpression([(x[a], 1), (x[b], 1)]) <= 1, f"excl{k:06d}")
    return _Lp(prob=prob, x=x, scale=scale)


# --------------------------------------------------------------------------- running a solver


@dataclass
class _Run:
    status: str  # Optimal, Time limit, Infeasible, Not Solved
    values: dict[str, int] | None  # free task -> 0/1
    solver_obj_s: float | None
    bound_s: float | None
    slack_s: float = 0.0  # how much the solver's objective may move when its values are rounded


def _run(lp: _Lp, solver: str, time_limit_s: float | None, msg: bool) -> _Run:
    prob = lp.prob
    log = ""
    try:
        if solver == "cbc":
            log = _run_cbc(prob, time_limit_s, msg)
        else:
            if not msg:
                _quiet_highs_banner()
            prob.solve(pulp.HiGHS(msg=msg, timeLimit=time_limit_s, gapRel=0.0))
    except pulp.PulpSolverError as exc:
        raise PartitionError(
            f"the {solver} solver failed: {exc}; run again with the solver log shown, or try the other solver"
        ) from exc

    st, sol = prob.status, prob.sol_status
    if st == pulp.LpStatusInfeasible or sol == pulp.LpSolutionInfeasible:
        return _Run("Infeasible", None, None, None)
    if st != pulp.LpStatusOptimal or sol not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        return _Run("Not Solved", None, None, None)
    values = {n: int((v.varValue or 0.0) > 0.5) for n, v in lp.x.items()}
    solver_obj_s = pulp.value(prob.objective) / lp.scale
    # x within the integrality tolerance of 0/1 and y within it of the AND
    slack_s = sum(
        abs(c) * abs((v.varValue or 0.0) - round(v.varValue or 0.0)) for v, c in prob.objective.items()
    )
    slack_s /= lp.scale
    if sol == pulp.LpSolutionOptimal:
        return _Run("Optimal", values, solver_obj_s, solver_obj_s, slack_s)
    return _Run("Time limit", values, solver_obj_s, _bound(prob, solver, log, lp.scale), slack_s)


def _run_cbc(prob: pulp.LpProblem, time_limit_s: float | None, msg: bool) -> str:
    """Run CBC with its log captured (the bound after a time limit is only in the log)."""
    cls = _cbc_cmd()
    assert cls is not None
    fd, log_path = tempfile.mkstemp(prefix="partition-cbc-", suffix=".log")
    os.close(fd)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            cmd = cls(msg=False, timeLimit=time_limit_s, gapRel=0.0, threads=1, logPath=log_path)
        prob.solve(cmd)
        with open(log_path, encoding="utf-8", errors="replace") as f:
            log = f.read()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(log_path)
    if msg:
        sys.stdout.write(log)
    return log


_highs_banner_done = False


def _quiet_highs_banner() -> None:
    """HiGHS prints a copyright banner on stdout (from C++) the first time a model is made.

    `msg=False` promises a quiet solve, so the first instance is created with
    file descriptor 1 pointed at /dev/null.
    """
    global _highs_banner_done
    if _highs_banner_done:
        return
    import highspy

    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
    _highs_banner_done = True


def _bound(prob: pulp.LpProblem, solver: str, log: str, scale: float) -> float | None:
    """Best proven lower bound (seconds) when the solver stopped early."""
    if solver == "highs":
        info = prob.solverModel.getInfo()
        b = info.mip_dual_bound
        return b / scale if math.isfinite(b) else None
    for pat in (r"Lower bound:\s*(-?[0-9.eE+-]+)", r"best possible\s*(-?[0-9.eE+-]+)"):
        found = re.findall(pat, log)
        if found:
            try:
                return float(found[-1]) / scale
            except ValueError:
                continue
    return None


# --------------------------------------------------------------------------- public API


def solve(
    problem: Problem, *, solver: str = "cbc", time_limit_s: float | None = None, msg: bool = False
) -> Solution:
    """Optimal CPU/FPGA assignment of `problem` (see the module docstring for the model)."""
    return top_k(problem, 1, solver=solver, time_limit_s=time_limit_s, msg=msg)[0]


def top_k(
    problem: Problem,
    k: int,
    *,
    solver: str = "cbc",
    time_limit_s: float | None = None,
    msg: bool = False,
) -> list[Solution]:
    """The k best distinct assignments, best first; the first is what `solve` returns.

    After each solution a no-good cut excludes it (reference/partitioners.md
    §4.6): sum_{x*_i=1} (1 - x_i) + sum_{x*_i=0} x_i >= 1 over the free tasks.
    The list stops early when no further feasible assignment exists, or when a
    solve does not end with an assignment. If the problem is infeasible the
    list holds one Solution with status "Infeasible". `time_limit_s` applies to
    each solve; after a "Time limit" solve the order is only as good as its gap.
    """
    if k < 1:
        raise PartitionError(f"top-k needs k >= 1, got {k}")
    if time_limit_s is not None and not time_limit_s > 0:
        raise PartitionError(f"solver time limit {time_limit_s!r} s must be a positive number of seconds")
    check_problem(problem)
    _check_solver(solver)
    start = time.perf_counter()
    m = _fold(problem)
    stats = {"variables": 0, "constraints": 0, "free_tasks": len(m.free), "fixed_tasks": len(m.fixed)}
    if m.infeasible:
        return [_no_solution(m, "Infeasible", solver, start, stats)]

    if not m.free:  # everything decided: no solver needed
        x = dict(m.fixed)
        if not feasible(problem, x):  # cannot happen after folding; keep the model honest
            return [_no_solution(m, "Infeasible", solver, start, stats)]
        return [
            Solution(
                assignment=_ordered(m, x),
                objective_s=evaluate(problem, x),
                status="Optimal",
                solver=solver,
                gap=0.0,
                solve_time_s=time.perf_counter() - start,
                stats=stats,
            )
        ]

    lp = _build_lp(m)
    stats["variables"] = len(lp.prob.variables()) - 1  # without the constant carrier
    stats["constraints"] = lp.prob.numConstraints()
    out: list[Solution] = []
    seen: set[tuple[int, ...]] = set()
    while len(out) < k:
        t0 = time.perf_counter() if out else start
        run = _run(lp, solver, time_limit_s, msg)
        if run.values is None:
            if not out:
                out.append(_no_solution(m, run.status, solver, t0, stats))
            break
        x = {**m.fixed, **run.values}
        if not feasible(problem, x):
            raise RuntimeError(f"{solver} returned an assignment that violates the model: {_ordered(m, x)}")
        obj = evaluate(problem, x)
        assert run.solver_obj_s is not None
        if abs(obj - run.solver_obj_s) > _CHECK_REL * max(abs(obj), abs(run.solver_obj_s)) + run.slack_s:
            raise RuntimeError(
                f"{solver} objective {run.solver_obj_s!r} s disagrees with the model's {obj!r} s "
                f"for {_ordered(m, x)}"
            )
        x, obj = _prefer_cpu(problem, m, x, obj, seen)
        seen.add(tuple(x[n] for n in m.free))
        gap: float | None = 0.0
        if run.status == "Time limit":
            gap = None if run.bound_s is None else max(0.0, (obj - run.bound_s) / max(abs(obj), 1e-300))
        out.append(
            Solution(
                assignment=_ordered(m, x),
                objective_s=obj,
                status=run.status,
                solver=solver,
                gap=gap,
                solve_time_s=time.perf_counter() - t0,
                stats=dict(stats),
            )
        )
        if len(out) < k:
            lhs = [(lp.x[n], -1 if x[n] else 1) for n in m.free]
            ones = sum(x[n] for n in m.free)
            lp.prob.addConstraint(pulp.LpAffineExpression(lhs) >= 1 - ones, f"cut{lp.n_cuts:06d}")
            lp.n_cuts += 1
    return out


def _prefer_cpu(
    problem: Problem, m: _Model, x: dict[str, int], obj: float, avoid: set[tuple[int, ...]]
) -> tuple[dict[str, int], float]:
    """The tie rule: move free FPGA tasks back to the CPU while that costs nothing.

    Moving a task to the CPU keeps every budget, exclusive pair and pin
    satisfied, so only the objective needs checking; its change is computed
    from the task's own times and incident edges, and the final objective is
    re-evaluated with `model.evaluate`.
    """
    by_name = {t.name: t for t in problem.tasks}
    incident: dict[str, list] = {}
    for e in problem.edges:
        for end in (e.src,) if e.src == e.dst else (e.src, e.dst):
            if x.get(end):
                incident.setdefault(end, []).append(e)
    limit = obj + _TIE_REL * abs(obj)
    current = obj
    x = dict(x)
    changed = True
    while changed:
        changed = False
        for n in m.free:
            if not x[n]:
                continue
            if avoid and tuple(0 if f == n else x[f] for f in m.free) in avoid:
                continue
            t = by_name[n]
            delta = t.cpu_s - t.fpga_s  # type: ignore[operator]
            for e in incident.get(n, ()):
                before = e.cost(x.get(e.src, 0), x.get(e.dst, 0))
                x[n] = 0
                delta += e.cost(x.get(e.src, 0), x.get(e.dst, 0)) - before
                x[n] = 1
            if current + delta <= limit:
                x[n] = 0
                current += delta
                changed = True
    return x, evaluate(problem, x)


def _ordered(m: _Model, x: dict[str, int]) -> dict[str, int]:
    return {n: int(x[n]) for n in m.names}


def _no_solution(m: _Model, status: str, solver: str, start: float, stats: dict[str, int]) -> Solution:
    return Solution(
        assignment={},
        objective_s=math.inf,
        status=status,
        solver=solver,
        gap=None,
        solve_time_s=time.perf_counter() - start,
        stats=dict(stats),
    )
