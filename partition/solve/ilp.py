"""The ILP: CPU or one FPGA variant per task, for the latency, makespan or throughput objective.

Variables and common constraints (reference/partitioners.md §4):

    z_iv in {0,1}    task i runs on the FPGA as variant v;  x_i = sum_v z_iv <= 1 (x_i = 1: FPGA)
    sum_i sum_v res_ivk z_iv <= budget_k       for every budgeted resource k
    x_a + x_b <= 1                             for every exclusive pair (a, b)
    x_i fixed by pins (a task pinned to the FPGA chooses among its variants: sum_v z_iv = 1)

Everything decided before solving is folded into constants: `<main>` is
x = 0; tasks without a variant or pinned to the CPU are on the CPU; the
partner of a task pinned to the FPGA in an exclusive pair is on the CPU; a
variant whose resources alone exceed what the pinned tasks leave of a budget
is dropped (a task with no variant left goes to the CPU). If that already
proves infeasibility the solver is not called.

Edge costs. cost_e(x_s, x_d) takes four values c00..c11; with y = x_s AND x_d
it is c00 + (c10 - c00) x_s + (c01 - c00) x_d + q y, q = c11 - c10 - c01 + c00.
Costs only ever push the minimum up (they are added to the objective, or to
a duration that bounds a later start or the period from below), so only one
side of the AND linearisation is needed, the side the sign of q pushes
against: q > 0 -> y >= x_s + x_d - 1; q < 0 -> y <= x_s, y <= x_d. y can be
continuous in [0, 1]: at any integral x its best value is exactly the AND.
Products over the same pair of tasks share one y. The makespan model also
needs "does this transfer exist" indicators and uses the exact AND there.

latency (F1 with FPGA time, blocking calls)
    min  base + sum_i [cpu_i (1 - x_i) + sum_v fpga_iv z_iv] + sum_e cost_e - sum_c g_c
    AXI-Stream chain c = (a, b) (model.py, Chains): s_c in {0,1}, g_c >= 0 the seconds it saves,
    g_c <= M_c s_c,  g_c <= sum_v src_av z_av + sum_w dst_bw z_bw - stream_c s_c,  s_c <= x_a, x_b
    (M_c: the largest saving; chains that can never save are left out)

throughput (F4)
    min  P
    P >= base + sum_i cpu_i (1 - x_i)                     one core, or with two:
    P >= base + sum_i cpu_i (1 - x_i - w_i),  P >= sum_i cpu_i w_i,  w_i <= 1 - x_i
         (w_i = 1: task i on core 1; when base = 0 core 0 is the busier one, by symmetry)
    P >= sum_v ii_iv z_iv                                  for every task (its own stage)
    P >= sum_e cost_e                                      the link
    AXI-Stream chains (model.py, Chains under throughput): s_c, g_c as for latency; a task at a
    possible chain keeps its own-stage row only while no used chain touches it
    (P >= ii_i - ii_i^max sum_{c at i} s_c), and the kernels joined by used chains are one
    stage of their summed FPGA times minus the savings, built up along the chains
    (`_chain_stage_rows`)

makespan (F3, disjunctive). Jobs: the tasks, and a transfer job on the CPU
for every edge that costs something in some placement (model.py). With S_j
the start and d_j the (linear) duration of job j:
    min  base + C
    S_b >= S_a + d_a        for every precedence (task -> task, task -> transfer -> task)
    C >= S_j + d_j,  C <= H
    one core:  S_k >= S_j + d_j - M_jk (1 - o_jk) - M_jk (2 - a_j - a_k)
               S_j >= S_k + d_k - M_kj o_jk       - M_kj (2 - a_j - a_k)
    with a_j = "job j occupies the CPU" (1 - x_j for a task with cpu_s > 0, the
    transfer's positive-cost placements for a transfer); the same on the FPGA
    with f_j = sum of z_jv over variants with fpga_s > 0. Ordering binaries o
    exist only for pairs that the transitive closure of the job graph does not
    order and whose time windows [head, H - tail] overlap; a zero-length job
    occupies nothing (model.py), hence the activity terms. Two cores: binaries
    w_jc (sum_c w_jc = a_j) and the disjunction per core with (2 - w_jc - w_kc);
    restricted growth (core 1 only after core 0 has a job) breaks the symmetry.
    Valid inequalities: cores * C >= CPU work, C >= FPGA work, and per job k
    cores * S_k >= CPU work of its ancestors, S_k >= their FPGA work,
    cores * (C - S_k - d_k) >= CPU work of its descendants (the same for the
    FPGA). With one core a transfer that is free only when both its ends are
    on the CPU keeps no activity term on the CPU (it can sit at its
    producer's end, which no other job on the core straddles).
    M_jk = H - tail_j - head_k with head/tail the shortest possible paths
    before/after a job, and H the greedy's makespan (k = 1) or the length of
    running every job one after the other (top-k). When the disjunctive
    model would need more than MAX_PAIRS ordering binaries, the ILP solves the
    relaxation without them (precedence + load bounds, a valid lower bound),
    list-schedules the best of its choice and the greedy's, and reports the
    gap between the two: status "Feasible".

    `solve` (k = 1) adds the ordering pairs lazily (`_lazy_makespan`): the
    first model has none, and each round adds the pairs whose jobs overlap on
    one resource in the solver's point, until the point is a schedule of the
    full model or the best schedule found (each round's choice, re-timed in
    the solver's order or list-scheduled) meets the bound. Every round is a
    relaxation of the full model, so its bound is valid and the gap at the
    time limit is honest. `top_k` (k > 1) builds the full model at once.

Warm start. `partition.solve.heuristic.greedy` (hot functions first, then a
Kernighan–Lin pass) gives a full solution (for makespan with its list
schedule, for throughput with its core split); CBC receives it through
PuLP's warmStart, HiGHS through setSolution.

Numerics. The objective is handed to the solver in units of 1e-6 of the
greedy's objective (or of a cheap upper bound), the constant part carried by
a variable fixed to 1 (PuLP's HiGHS interface drops objective constants, and
relative gaps are only meaningful on the whole objective). Both solvers are
asked for a zero relative gap. The rounded choice is re-checked with
`model.feasible` and re-evaluated: `model.evaluate` where that is exact and
affordable (always for latency; throughput with one core or at most
model.EXACT_SPLIT_TASKS CPU tasks; makespan while the exact search stays
within model.EXACT_STATES states), otherwise the solver's own core split or
schedule, re-timed and checked with `model.schedule_length`. The solver's
objective must agree with that or the result is rejected. So ILP and brute
force report the same optimum and the same kind of schedule.

Tie rule (determinism). Both solvers are deterministic for the same model,
which is built in task order with index-based names, so the same Problem
always yields the same choice. On top of that, ties are broken towards the
CPU: after solving, each task on the FPGA that is not pinned is moved back
to the CPU, in task order and repeatedly until nothing changes, whenever that
does not make the objective worse (within 1e-12 relative) — for makespan only
where the exact schedule search is affordable. An FPGA kernel that buys
nothing is not worth building.
"""

from __future__ import annotations

import contextlib
import heapq
import math
import os
import re
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import pulp

from partition.errors import PartitionError
from partition.solve import cpsat, heuristic
from partition.solve.evaluate import evaluate, streamed
from partition.solve.model import FEAS_ABS, MAIN, OBJECTIVES, Problem, Solution, Variant, chosen, feasible
from partition.solve.period import EXACT_SPLIT_TASKS as _EXACT_SPLIT
from partition.solve.period import split_cores, throughput_entries, throughput_loads
from partition.solve.schedule import (
    ScheduleTooLarge,
    entries_from_starts,
    longest_paths,
    makespan_jobs,
    optimal_schedule,
    schedule_length,
    task_order,
)

SOLVERS = ("cbc", "highs", "cpsat")
MAX_PAIRS = 4000  # ordering binaries beyond which makespan solves the relaxation

_OBJ_UNITS = 1e6  # solver objective ~ 1e6 at the optimum (see Numerics)
_TIE_REL = 1e-12  # "not worse" for the tie rule
_CHECK_REL = 1e-6  # solver objective vs the model on the rounded choice
_PROVEN_REL = 1e-9  # a schedule this close to the bound is optimal (lazy makespan)
_VALID_ABS = 1e-3  # a solver's point must meet every row within this (solver units, objective ~1e6)


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
    if cpsat.available():
        out.append("cpsat")
    return out


CPSAT_MAX_TASKS = 300  # beyond this CP-SAT found no better schedule than the greedy one in 40 s


def default_solver(objective: str, k: int = 1, tasks: int = 0) -> str:
    """The solver `--solver auto` picks: CP-SAT for one makespan plan where installed, else CBC.

    CP-SAT proves makespan plans the MILP cannot (benchmarks/results/solve.md); on
    graphs of a thousand tasks the MILP's relaxation and list schedule do better.
    """
    if objective == "makespan" and k == 1 and tasks <= CPSAT_MAX_TASKS and "cpsat" in available_solvers():
        return "cpsat"
    return "cbc"


def _check_solver(solver: str) -> None:
    avail = available_solvers()
    if solver not in SOLVERS:
        raise PartitionError(
            f"unknown solver {solver!r}; available here: {', '.join(avail) or 'none'} "
            f"(supported: {', '.join(SOLVERS)})"
        )
    if solver not in avail:
        hint = {
            "highs": " (install the `highs` extra: pip install highspy)",
            "cpsat": " (install the `cpsat` extra: pip install ortools)",
        }.get(solver, "")
        raise PartitionError(
            f"solver {solver!r} is not available{hint}; available here: {', '.join(avail) or 'none'}"
        )


# --------------------------------------------------------------------------- problem checks


def _time_ok(v: Any) -> bool:
    return isinstance(v, int | float) and math.isfinite(v) and v >= 0


def check_problem(problem: Problem) -> None:
    """Reject a malformed Problem with a message naming the bad value."""
    if problem.objective not in OBJECTIVES:
        raise PartitionError(f"objective {problem.objective!r}: choose one of {', '.join(OBJECTIVES)}")
    if problem.cpu_cores not in (1, 2):
        raise PartitionError(f"cpu_cores = {problem.cpu_cores!r}: the model supports 1 or 2 cores")
    names: set[str] = set()
    for t in problem.tasks:
        if not t.name or t.name == MAIN:
            raise PartitionError(f"task name {t.name!r} is reserved or empty")
        if t.name in names:
            raise PartitionError(f"task {t.name!r} appears twice in the problem")
        names.add(t.name)
        if not _time_ok(t.cpu_s):
            raise PartitionError(f"task {t.name}: CPU time {t.cpu_s!r} must be a finite number >= 0")
        if t.fpga_s is not None and not _time_ok(t.fpga_s):
            raise PartitionError(f"task {t.name}: FPGA time {t.fpga_s!r} must be a finite number >= 0")
        if t.pin not in (None, "cpu", "fpga"):
            raise PartitionError(f"task {t.name}: pin {t.pin!r} must be 'cpu', 'fpga' or none")
        if t.variants and (t.fpga_s is not None or t.resources):
            raise PartitionError(
                f"task {t.name}: give either fpga_s/resources (one variant) or a list of variants, not both"
            )
        seen: set[str] = set()
        for v in t.options():
            if not v.name or v.name in seen:
                raise PartitionError(f"task {t.name}: variant name {v.name!r} is empty or repeated")
            seen.add(v.name)
            if not _time_ok(v.fpga_s):
                raise PartitionError(f"task {t.name} variant {v.name}: FPGA time {v.fpga_s!r} must be >= 0")
            if v.ii_s is not None and not _time_ok(v.ii_s):
                raise PartitionError(f"task {t.name} variant {v.name}: ii {v.ii_s!r} must be >= 0")
            for r, val in v.resources.items():
                if not _time_ok(val):
                    raise PartitionError(
                        f"task {t.name} variant {v.name}: {r} = {val!r} must be a finite number >= 0"
                    )
    for e in problem.edges:
        for end in (e.src, e.dst):
            if end != MAIN and end not in names:
                raise PartitionError(f"edge {e.src} -> {e.dst}: {end!r} is not a task")
        for c in (e.c00, e.c01, e.c10, e.c11):
            if not math.isfinite(c):
                raise PartitionError(f"edge {e.src} -> {e.dst}: cost {c!r} is not finite")
            if c < 0 and problem.objective != "latency":
                raise PartitionError(
                    f"edge {e.src} -> {e.dst}: cost {c!r} is negative; transfers take time >= 0"
                )
    for r, v in problem.budget.items():
        if math.isnan(v) or v == -math.inf:
            raise PartitionError(f"budget for {r} is {v!r}; give a number (or +inf for no limit)")
    for a, b in problem.exclusive:
        for n in (a, b):
            if n not in names:
                raise PartitionError(f"exclusive pair ({a}, {b}): {n!r} is not a task")
    for a, b in problem.precedence:
        for n in (a, b):
            if n not in names:
                raise PartitionError(f"precedence ({a}, {b}): {n!r} is not a task")
    if not math.isfinite(problem.base_s) or (problem.objective != "latency" and problem.base_s < 0):
        raise PartitionError(f"base time {problem.base_s!r} is not a finite number >= 0")
    if problem.objective == "makespan":
        task_order(problem)  # raises on a cycle
    _check_chains(problem, names)


def _check_chains(problem: Problem, names: set[str]) -> None:
    if problem.chains and problem.objective not in ("latency", "throughput"):
        raise PartitionError(
            f"AXI-Stream chains are modelled for the latency and throughput objectives, not {problem.objective}"
        )
    srcs: set[str] = set()
    opts = {t.name: {v.name for v in t.options()} for t in problem.tasks}
    for c in problem.chains:
        for n in (c.src, c.dst):
            if n not in names:
                raise PartitionError(f"chain {c.src} -> {c.dst}: {n!r} is not a task")
        if c.src == c.dst or c.src in srcs:
            raise PartitionError(f"chain {c.src} -> {c.dst}: a task streams its result into one other task")
        srcs.add(c.src)
        for end, times in ((c.src, c.src_s), (c.dst, c.dst_s)):
            for v, s in times.items():
                if v not in opts[end] or not _time_ok(s):
                    raise PartitionError(
                        f"chain {c.src} -> {c.dst}: {end} variant {v!r}: {s!r} (unknown or < 0)"
                    )
        if not _time_ok(c.stream_s):
            raise PartitionError(f"chain {c.src} -> {c.dst}: stream time {c.stream_s!r} must be >= 0")
    if problem.chains and problem.objective == "throughput":
        _check_throughput_chains(problem)


def _check_throughput_chains(problem: Problem) -> None:
    """What the throughput model of chains relies on (model.py, Chains under throughput)."""
    into: dict[str, str] = {c.src: c.dst for c in problem.chains}
    for start in into:
        seen = [start]
        n = into[start]
        while n in into and n not in seen:
            seen.append(n)
            n = into[n]
        if n == start:
            raise PartitionError(
                "chains " + " -> ".join([*seen, start]) + " form a cycle; a kernel cannot stream into "
                "its own producer"
            )
    shares: dict[tuple[str, str], float] = {}
    for c in problem.chains:
        for end, times in ((c.src, c.src_s), (c.dst, c.dst_s)):
            for v, t in times.items():
                shares[end, v] = shares.get((end, v), 0.0) + t
    for t in problem.tasks:
        for v in t.options():
            if (t.name, v.name) not in shares:
                continue
            if shares[t.name, v.name] > v.fpga_s * (1 + 1e-9):
                raise PartitionError(
                    f"task {t.name} variant {v.name}: its chains' shares add up to "
                    f"{shares[t.name, v.name]!r} s, more than its FPGA time {v.fpga_s!r} s"
                )
            if v.ii_s is not None and v.ii_s > v.fpga_s:
                raise PartitionError(
                    f"task {t.name} variant {v.name}: ii {v.ii_s!r} s exceeds its FPGA time "
                    f"{v.fpga_s!r} s; a chained kernel needs ii <= its time per frame"
                )


# --------------------------------------------------------------------------- folding


@dataclass
class _Fold:
    """What is decided before solving: fixed placements and the variants left per task."""

    names: list[str]
    fixed: dict[str, int]  # placement fixed: 0 CPU, 1 FPGA
    opts: dict[str, list[Variant]]  # variants still allowed (tasks that may be on the FPGA)
    free: list[str]  # placement free, problem order
    rows: list[tuple[str, float]] = field(default_factory=list)  # resources that can bind
    pairs: list[tuple[str, str]] = field(default_factory=list)  # exclusive, both free
    infeasible: bool = False


def _fold(problem: Problem) -> _Fold:
    names = [t.name for t in problem.tasks]
    order = {n: i for i, n in enumerate(names)}
    fixed: dict[str, int] = {}
    opts = {t.name: t.options() for t in problem.tasks}
    infeasible = False
    for t in problem.tasks:
        if t.pin == "fpga":
            fixed[t.name] = 1
            infeasible |= not opts[t.name]
        elif t.pin == "cpu" or not opts[t.name]:
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

    budgets = {r: cap for r, cap in sorted(problem.budget.items()) if cap != math.inf}
    changed = True
    while changed and not infeasible:  # drop variants that cannot fit beside the pinned tasks
        changed = False
        for r, cap in budgets.items():
            pinned_min = {
                n: min(v.resources.get(r, 0.0) for v in opts[n]) for n in names if fixed.get(n) == 1
            }
            total_min = sum(pinned_min.values())
            if total_min > cap + FEAS_ABS:
                infeasible = True
                break
            for n in names:
                if fixed.get(n) == 0 or not opts[n]:
                    continue
                room = cap - (total_min - pinned_min.get(n, 0.0))
                keep = [v for v in opts[n] if v.resources.get(r, 0.0) <= room + FEAS_ABS]
                if len(keep) != len(opts[n]):
                    changed = True
                    opts[n] = keep
                    if not keep:
                        if fixed.get(n) == 1:
                            infeasible = True
                        fixed[n] = 0
    for n in names:
        if fixed.get(n) == 0:
            opts[n] = []
    free = [n for n in names if n not in fixed]
    free_set = set(free)
    rows = []
    for r, cap in budgets.items():
        most = sum(max((v.resources.get(r, 0.0) for v in opts[n]), default=0.0) for n in names)
        if most > cap + FEAS_ABS:
            rows.append((r, cap))
    pair_list = sorted(
        (p for p in pairs if p[0] in free_set and p[1] in free_set),
        key=lambda p: (order[p[0]], order[p[1]]),
    )
    return _Fold(names, fixed, opts, free, rows, pair_list, infeasible)


# --------------------------------------------------------------------------- linear expressions

Lin = dict  # variable -> coefficient; the key None holds the constant


def _add(out: Lin, e: Lin, k: float = 1.0) -> Lin:
    for v, c in e.items():
        out[v] = out.get(v, 0.0) + k * c
    return out


def _const(c: float) -> Lin:
    return {None: c}


def _value(e: Lin, values: dict) -> float:
    return sum(c * (1.0 if v is None else values.get(v, 0.0)) for v, c in e.items())


@dataclass
class _Lp:
    prob: pulp.LpProblem
    scale: float  # solver units per second
    z: dict[str, list[tuple[Variant, pulp.LpVariable]]]  # tasks with variant variables
    x: dict[str, Lin]  # every task
    objective: str
    extra: dict[str, Any] = field(default_factory=dict)  # objective-specific handles
    opts: dict[str, list[Variant]] = field(default_factory=dict)
    n_cuts: int = 0
    ands: dict[tuple[str, str], pulp.LpVariable] = field(default_factory=dict)


class _Builder:
    """Builds the PuLP model for one objective over a folded problem."""

    def __init__(self, problem: Problem, fold: _Fold, scale: float):
        self.p = problem
        self.f = fold
        self.u = scale
        self.prob = pulp.LpProblem("partition", pulp.LpMinimize)
        self.z: dict[str, list[tuple[Variant, pulp.LpVariable]]] = {}
        self.x: dict[str, Lin] = {}
        self.ands: dict[tuple[str, str], pulp.LpVariable] = {}
        self.and_sides: dict[tuple[str, str], set[str]] = {}
        self.order = {n: i for i, n in enumerate(fold.names)}
        self.n_rows = 0
        self.pending: list[tuple[Any, float]] = []
        self.chain_vars: dict[str, Any] = {}  # throughput: the stage variables of chains
        k = 0
        for i, t in enumerate(problem.tasks):
            n = t.name
            opts = fold.opts[n]
            if fold.fixed.get(n) == 0:
                self.x[n] = {}
            elif fold.fixed.get(n) == 1 and len(opts) == 1:
                self.x[n] = _const(1.0)
            else:  # free, or on the FPGA with a choice of variants (then x = 1: sum_v z_v = 1)
                zs = []
                for v in opts:
                    zs.append((v, self.prob.add_variable(f"z{i:06d}_{k:06d}", 0, 1, cat=pulp.LpBinary)))
                    k += 1
                self.z[n] = zs
                self.x[n] = _const(1.0) if fold.fixed.get(n) == 1 else {var: 1.0 for _, var in zs}
                lhs = pulp.LpAffineExpression([(var, 1) for _, var in zs])
                if fold.fixed.get(n) == 1:
                    self.row(lhs == 1, "pick")
                elif len(zs) > 1:
                    self.row(lhs <= 1, "one")
        for r, cap in fold.rows:
            terms = []
            for n in fold.names:
                for v, var in self.z.get(n, ()):
                    if v.resources.get(r, 0.0):
                        terms.append((var, v.resources[r]))
            const = sum(
                fold.opts[n][0].resources.get(r, 0.0) for n in fold.names if n not in self.z and self.x[n]
            )
            self.row(
                pulp.LpAffineExpression(terms) <= cap - const + FEAS_ABS,
                f"res_{re.sub(r'[^A-Za-z0-9]', '_', r)}",
            )
        for a, b in fold.pairs:
            self.row(self.expr(_add(dict(self.x[a]), self.x[b])) <= 1, "excl")
        self.one = self.prob.add_variable("k", 1, 1)  # carries constants (see Numerics)

    # ---- helpers

    def row(self, constraint, prefix: str) -> None:
        self.prob.addConstraint(constraint, f"{prefix}{self.n_rows:07d}")
        self.n_rows += 1

    def expr(self, e: Lin, scale: float = 1.0) -> pulp.LpAffineExpression:
        terms = [(v, c * scale) for v, c in e.items() if v is not None and c != 0.0]
        return pulp.LpAffineExpression(terms, constant=e.get(None, 0.0) * scale)

    def side(self, name: str) -> Lin:
        return {} if name == MAIN else self.x[name]

    def fpga_time(self, n: str, attr: str = "fpga_s") -> Lin:
        """sum_v t_v z_v (constant for a task fixed to one variant)."""
        if n in self.z:
            return {var: v.fpga_s if attr == "fpga_s" else v.period_s for v, var in self.z[n]}
        if self.x[n]:
            v = self.f.opts[n][0]
            return _const(v.fpga_s if attr == "fpga_s" else v.period_s)
        return {}

    def product(self, a: str, b: str, side: str) -> Lin:
        """x_a x_b as a linear expression; `side` is "ge", "le" or "both" (see the module docstring)."""
        xa, xb = self.side(a), self.side(b)
        if not xa or not xb:
            return {}
        if set(xa) == {None}:
            return _add({}, xb, xa[None])
        if set(xb) == {None}:
            return _add({}, xa, xb[None])
        if a == b:
            return dict(xa)
        key = tuple(sorted((a, b), key=self.order.__getitem__))
        y = self.ands.get(key)
        if y is None:
            y = self.ands[key] = self.prob.add_variable(f"y{len(self.ands):06d}", 0, 1)
            self.and_sides[key] = set()
        self.and_sides[key] |= {"ge", "le"} if side == "both" else {side}
        return {y: 1.0}

    def edge_cost(self, e, side: str | None) -> Lin:
        """cost_e as a linear expression; side None: decided later from the summed product terms."""
        q = e.c11 - e.c10 - e.c01 + e.c00
        out = _const(e.c00)
        _add(out, self.side(e.src), e.c10 - e.c00)
        _add(out, self.side(e.dst), e.c01 - e.c00)
        if q != 0.0:
            if side is None:
                self.pending.append((e, q))
            else:
                _add(out, self.product(e.src, e.dst, side), q)
        return out

    def settle_products(self, total: Lin) -> None:
        """Add the product terms left pending, each pair's side set by the sign of its summed q."""
        by_pair: dict[tuple[str, str], float] = {}
        first: dict[tuple[str, str], Any] = {}
        for e, q in self.pending:
            key = (e.src, e.dst) if e.src == e.dst else tuple(sorted((e.src, e.dst)))
            by_pair[key] = by_pair.get(key, 0.0) + q
            first.setdefault(key, e)
        for key, q in by_pair.items():
            if q != 0.0:
                e = first[key]
                _add(total, self.product(e.src, e.dst, "ge" if q > 0 else "le"), q)
        self.pending = []

    def finish_ands(self) -> None:
        for k, ((a, b), y) in enumerate(self.ands.items()):
            xa, xb = self.expr(self.x[a]), self.expr(self.x[b])
            sides = self.and_sides[(a, b)]
            if "ge" in sides:
                self.prob.addConstraint(y - xa - xb >= -1, f"and{k:06d}")
            if "le" in sides:
                self.prob.addConstraint(y - xa <= 0, f"anda{k:06d}")
                self.prob.addConstraint(y - xb <= 0, f"andb{k:06d}")


# --------------------------------------------------------------------------- latency and throughput


def _build_latency(b: _Builder) -> dict:
    p = b.p
    b.pending = []
    total = _const(p.base_s)
    for t in p.tasks:
        _add(total, _const(t.cpu_s))
        _add(total, b.x[t.name], -t.cpu_s)
        _add(total, b.fpga_time(t.name))
    for e in p.edges:
        _add(total, b.edge_cost(e, None))
    b.settle_products(total)
    chains = _chain_savings(b)
    for _, _, g in chains:
        _add(total, {g: -1.0})
    b.prob.setObjective(_objective(b, total))
    return {"chains": chains}


def _end_time(b: _Builder, n: str, times: dict[str, float]) -> Lin:
    """sum_v times[v] z_v over task n's variants (constant for a task fixed to one variant)."""
    if n in b.z:
        return {var: times.get(v.name, 0.0) for v, var in b.z[n] if times.get(v.name, 0.0)}
    return _const(times.get(b.f.opts[n][0].name, 0.0)) if b.x[n] else {}


def _chain_savings(b: _Builder, unit: float = 1.0) -> list[tuple[Any, pulp.LpVariable, pulp.LpVariable]]:
    """Per chain that can save time: s (used) and g (the saving, in `unit` per second), g <= saving
    if s, else 0.

        g <= M s,   g <= src_end + dst_end - stream_s s,   s <= x_src,  s <= x_dst

    With s = 0 the second row is slack (both ends are >= 0); the objective
    subtracts g, so at the optimum g is the saving exactly when it is positive.
    """
    out = []
    for c in b.p.chains:
        if not b.x[c.src] or not b.x[c.dst]:
            continue
        most = max((c.src_s.get(v.name, 0.0) for v in b.f.opts[c.src]), default=0.0) + max(
            (c.dst_s.get(v.name, 0.0) for v in b.f.opts[c.dst]), default=0.0
        )
        if most - c.stream_s <= 0.0:
            continue
        k = len(out)
        s = b.prob.add_variable(f"s{k:06d}", 0, 1, cat=pulp.LpBinary)
        g = b.prob.add_variable(f"g{k:06d}", 0, None)
        b.row(g - unit * (most - c.stream_s) * s <= 0, "chm")
        ends = _add(_end_time(b, c.src, c.src_s), _end_time(b, c.dst, c.dst_s))
        b.row(g - b.expr(ends, unit) + unit * c.stream_s * s <= 0, "chs")
        for n in (c.src, c.dst):
            if set(b.x[n]) != {None}:
                b.row(s - b.expr(b.x[n]) <= 0, "chx")
        out.append((c, s, g))
    return out


def _objective(b: _Builder, total: Lin) -> pulp.LpAffineExpression:
    terms = [(v, c * b.u) for v, c in total.items() if v is not None and c != 0.0]
    return pulp.LpAffineExpression([(b.one, total.get(None, 0.0) * b.u), *terms])


def _build_throughput(b: _Builder) -> dict:
    p = b.p
    period = b.prob.add_variable("P", 0, None)
    pe = pulp.LpAffineExpression([(period, 1.0)])
    b.prob.setObjective(pulp.LpAffineExpression([(period, 1.0)]))
    cpu_able = [t for t in p.tasks if b.x[t.name] != _const(1.0)]
    w: dict[str, pulp.LpVariable] = {}
    core0 = _const(p.base_s)
    for t in cpu_able:
        _add(core0, _const(t.cpu_s))
        _add(core0, b.x[t.name], -t.cpu_s)
    if p.cpu_cores == 2:
        core1: Lin = {}
        for k, t in enumerate(cpu_able):
            if t.cpu_s == 0.0:
                continue
            var = w[t.name] = b.prob.add_variable(f"w{k:06d}", 0, 1, cat=pulp.LpBinary)
            b.row(var + b.expr(b.x[t.name]) <= 1, "core")
            _add(core0, {var: -t.cpu_s})
            _add(core1, {var: t.cpu_s})
        b.row(pe - b.expr(core1, b.u) >= 0, "cpu1_")
        if p.base_s == 0.0 and w:
            b.row(b.expr(core0) - b.expr(core1) >= 0, "sym")
    b.row(pe - b.expr(core0, b.u) >= 0, "cpu0_")
    chains = _chain_savings(b, b.u)  # in solver units, like P (the rows share their big-M values)
    chained = _chain_stage_rows(b, chains, pe)
    for t in p.tasks:
        stage = b.fpga_time(t.name, "ii")
        if any(c for c in stage.values()):
            at = chained.get(t.name)
            if at:  # a stage of its own only while no used chain touches it
                most = max(c for c in stage.values())
                terms = [(s, b.u * most) for s in at]
                b.row(pe - b.expr(stage, b.u) + pulp.LpAffineExpression(terms) >= 0, "stage")
            else:
                b.row(pe - b.expr(stage, b.u) >= 0, "stage")
    b.pending = []
    link: Lin = {}
    for e in p.edges:
        _add(link, b.edge_cost(e, None))
    b.settle_products(link)
    if any(c for c in link.values()):
        b.row(pe - b.expr(link, b.u) >= 0, "link")
    return {"P": period, "w": w, "chains": chains}


def _chain_stage_rows(b: _Builder, chains: list, pe: pulp.LpAffineExpression) -> dict[str, list]:
    """Throughput: the stages joined by used chains (model.chain_stages), exactly.

        L_i >= F_i + sum_{c into i} h_c,   L_i >= 0        i's part of its stage, F_i = sum_v fpga_iv z_iv
        h_c >= L_src - g_c - U_src (1 - s_c),  h_c >= -D_c s_c      h_c = L_src - g_c if used, else 0
        r_i >= s_c for every c into i                        r_i: a used chain ends in i
        P >= L_i - U_i (1 - r_i) - U_i s_out(i)              i ends a stage of two or more kernels

    g, h and L are in solver units, like P. U_i = max F_i + sum of U_src over the chains
    into i bounds L_i. D_c, the largest
    dst share, bounds L_src - g_c from below: every share is part of its end's time
    (check_problem), so L_src >= the src's share and g_c <= both shares. Chains form an
    in-forest (each task the src of at most one, no cycle), so the sums are finite.
    Returns task -> the s of every possible chain at it (its own stage's row is relaxed by them).
    """
    at: dict[str, list] = {}
    if not chains:
        return at
    u = b.u
    into: dict[str, list] = {}
    out_of: dict[str, Any] = {}
    for c, s, g in chains:
        into.setdefault(c.dst, []).append((c, s, g))
        out_of[c.src] = s
        at.setdefault(c.src, []).append(s)
        at.setdefault(c.dst, []).append(s)
    ends = [t.name for t in b.p.tasks if t.name in at]
    # sources first (Kahn's order over the chains)
    pending = {n: len(into.get(n, [])) for n in ends}
    dst_of = {c.src: c.dst for c, _, _ in chains}
    order = [n for n in ends if pending[n] == 0]
    for n in order:
        d = dst_of.get(n)
        if d is not None:
            pending[d] -= 1
            if pending[d] == 0:
                order.append(d)
    upper: dict[str, float] = {}
    L: dict[str, pulp.LpVariable] = {}
    for k, n in enumerate(order):
        f = b.fpga_time(n)
        upper[n] = max(f.values(), default=0.0) + sum(upper[c.src] for c, _, _ in into.get(n, []))
        L[n] = b.prob.add_variable(f"l{k:06d}", 0, None)
    hs = {}
    rs: dict[str, pulp.LpVariable] = {}
    for k, (c, s, g) in enumerate(chains):
        h = hs[c.src] = b.prob.add_variable(f"h{k:06d}", None, None)
        drop = max((c.dst_s.get(v.name, 0.0) for v in b.f.opts[c.dst]), default=0.0)
        b.row(h - L[c.src] + g + u * upper[c.src] * (1 - s) >= 0, "chh")
        b.row(h + u * drop * s >= 0, "chd")
    for k, n in enumerate(order):
        ins = into.get(n, [])
        b.row(L[n] - b.expr(b.fpga_time(n), u) - pulp.lpSum(hs[c.src] for c, _, _ in ins) >= 0, "chl")
        if not ins:
            continue
        r = rs[n] = b.prob.add_variable(f"r{k:06d}", 0, 1)
        for _, s, _ in ins:
            b.row(r - s >= 0, "chr")
        rhs = L[n] - u * upper[n] * (1 - r)
        if n in out_of:
            rhs = rhs - u * upper[n] * out_of[n]
        b.row(pe - rhs >= 0, "chp")
    b.chain_vars = {"L": L, "h": hs, "r": rs, "order": order}
    return at


# --------------------------------------------------------------------------- makespan


@dataclass
class _MJob:
    """A job of the makespan model: duration and activities as linear expressions."""

    name: str
    kind: str
    dur: Lin
    on_cpu: Lin  # 1 when the job occupies a CPU core
    on_fpga: Lin  # 1 when it occupies the FPGA
    dmin: float
    dmax: float
    preds: list[int]
    edge: int | None = None
    point_ok: bool = False  # one core: may be kept out of other CPU jobs even when it lasts 0 (see below)


def _possible(b: _Builder, n: str) -> list[int]:
    if n == MAIN:
        return [0]
    if n in b.f.fixed:
        return [b.f.fixed[n]]
    return [0, 1]


def _makespan_jobs(b: _Builder) -> list[_MJob]:
    p = b.p
    index = {t.name: i for i, t in enumerate(p.tasks)}
    jobs: list[_MJob] = []
    for t in p.tasks:
        n = t.name
        x = b.x[n]
        dur = _add(_add(_const(t.cpu_s), x, -t.cpu_s), b.fpga_time(n))
        on_cpu = _add(_const(1.0), x, -1.0) if t.cpu_s > 0 else {}
        if n in b.z:
            on_fpga = {var: 1.0 for v, var in b.z[n] if v.fpga_s > 0}
        elif x and b.f.opts[n][0].fpga_s > 0:
            on_fpga = _const(1.0)
        else:
            on_fpga = {}
        times = [t.cpu_s] if 0 in _possible(b, n) else []
        times += [v.fpga_s for v in b.f.opts[n]] if 1 in _possible(b, n) else []
        jobs.append(_MJob(n, "task", dur, on_cpu, on_fpga, min(times), max(times), []))
    for a, c in task_order(p):
        jobs[index[c]].preds.append(index[a])
    for k, e in enumerate(p.edges):
        placements = [(s, d) for s in _possible(b, e.src) for d in _possible(b, e.dst)]
        if e.src == e.dst:
            placements = [(s, s) for s in _possible(b, e.src)]
        costs = [e.cost(s, d) for s, d in placements]
        if max(costs) <= 0:
            continue
        # exact indicator of each placement with a positive cost ("the transfer exists")
        dur = b.edge_cost(e, "both")
        active: Lin = {}
        for (s_, d_), c in zip(placements, costs):
            if c > 0:
                _add(active, _indicator(b, e.src, e.dst, s_, d_))
        j = len(jobs)
        # Free only when both ends are on the CPU, after a producer that occupies the core
        # (or <main>): then the free transfer can sit at its producer's end, which no other
        # job on the single core straddles, so ordering it like a real job loses nothing.
        src_busy = e.src == MAIN or next(t.cpu_s for t in p.tasks if t.name == e.src) > 0
        point_ok = src_busy and all(c > 0 or (s_, d_) == (0, 0) for (s_, d_), c in zip(placements, costs))
        jobs.append(
            _MJob(
                f"{e.src}->{e.dst}",
                "transfer",
                dur,
                active,
                {},
                min(costs),
                max(costs),
                [index[e.src]] if e.src != MAIN else [],
                edge=k,
                point_ok=point_ok,
            )
        )
        if e.dst != MAIN and e.dst != e.src:
            jobs[index[e.dst]].preds.append(j)
    for j in jobs:
        j.preds = sorted(set(j.preds))
    return jobs


def _indicator(b: _Builder, src: str, dst: str, s: int, d: int) -> Lin:
    """[x_src = s and x_dst = d] as a linear expression (the exact AND where both ends are free)."""

    def one(e: Lin, v: int) -> Lin:
        return dict(e) if v else _add(_const(1.0), e, -1.0)

    xs, xd = b.side(src), b.side(dst)
    if src == dst:
        return one(xs, s)
    a, c = one(xs, s), one(xd, d)
    if set(a) <= {None}:
        return _add({}, c, a.get(None, 0.0))
    if set(c) <= {None}:
        return _add({}, a, c.get(None, 0.0))
    y = b.product(src, dst, "both")
    if s and d:
        return dict(y)
    if s:
        return _add(dict(xs), y, -1.0)
    if d:
        return _add(dict(xd), y, -1.0)
    return _add(_add(_add(_const(1.0), xs, -1.0), xd, -1.0), y)


def _closure(jobs: list[_MJob], order: list[int]) -> tuple[list[int], list[int]]:
    """(descendants bitset, ancestors bitset) of the job graph, given a topological order."""
    n = len(jobs)
    succs: list[list[int]] = [[] for _ in jobs]
    for k, j in enumerate(jobs):
        for p in j.preds:
            succs[p].append(k)
    desc = [0] * n
    for k in reversed(order):
        m = 0
        for s in succs[k]:
            m |= desc[s] | (1 << s)
        desc[k] = m
    anc = [0] * n
    for k in order:
        m = 0
        for p in jobs[k].preds:
            m |= anc[p] | (1 << p)
        anc[k] = m
    return desc, anc


def _build_makespan(
    b: _Builder, horizon: float | None, relax: bool | None, subset: set[tuple[int, int]] | None = None
) -> dict:
    """The F3 model (or its relaxation without ordering binaries); see the module docstring.

    `subset`: only these ordering pairs get their disjunction (the lazy loop,
    `_lazy_makespan`); the others are left out, which relaxes the model.
    """
    p = b.p
    jobs = _makespan_jobs(b)
    n = len(jobs)
    order, head, tail = longest_paths([j.preds for j in jobs], [j.dmin for j in jobs])
    desc, anc = _closure(jobs, order)
    serial = sum(j.dmax for j in jobs)
    H = serial if horizon is None else min(serial, horizon)

    can_cpu = [bool(j.on_cpu) for j in jobs]
    can_fpga = [bool(j.on_fpga) for j in jobs]
    cpu_mask = sum(1 << k for k in range(n) if can_cpu[k])
    fpga_mask = sum(1 << k for k in range(n) if can_fpga[k])
    pairs: list[tuple[int, int]] = []
    count = 0
    for j in range(n):
        later = ~(desc[j] | anc[j] | ((1 << (j + 1)) - 1))
        cand = later & ((cpu_mask if can_cpu[j] else 0) | (fpga_mask if can_fpga[j] else 0))
        count += cand.bit_count()
    if relax is None:
        relax = count > MAX_PAIRS
    if not relax:
        for j in range(n):
            later = ~(desc[j] | anc[j] | ((1 << (j + 1)) - 1))
            cand = later & ((cpu_mask if can_cpu[j] else 0) | (fpga_mask if can_fpga[j] else 0))
            while cand:
                k = (cand & -cand).bit_length() - 1
                cand &= cand - 1
                # time windows: j must end before k can start (or k before j) anyway
                if H - tail[j] <= head[k] + 1e-12 * H or H - tail[k] <= head[j] + 1e-12 * H:
                    continue
                pairs.append((j, k))

    u = b.u
    C = b.prob.add_variable("C", 0, None)
    b.prob.setObjective(pulp.LpAffineExpression([(b.one, p.base_s * u), (C, 1.0)]))
    b.row(H * u * (1 + 1e-9) + 1e-9 >= C, "horizon")
    S = [b.prob.add_variable(f"s{k:06d}", head[k] * u, None) for k in range(n)]
    dur = [b.expr(j.dur, u) for j in jobs]
    for k, j in enumerate(jobs):
        for q in j.preds:
            b.row(S[k] - S[q] - dur[q] >= 0, "prec")
        if not desc[k]:  # no successor
            b.row(C - S[k] - dur[k] >= 0, "end")
    # load bounds (valid inequalities; in the relaxation they are the resource model)
    cpu_work: Lin = {}
    fpga_work: Lin = {}
    for t in p.tasks:
        _add(cpu_work, _add(_const(t.cpu_s), b.x[t.name], -t.cpu_s))
        _add(fpga_work, b.fpga_time(t.name))
    for j in jobs[len(p.tasks) :]:
        _add(cpu_work, j.dur)
    b.row(p.cpu_cores * C - b.expr(cpu_work, u) >= 0, "cpuload")
    if any(fpga_work.values()):
        b.row(C - b.expr(fpga_work, u) >= 0, "fpgaload")
    if not relax:  # quadratic in the jobs: only for the disjunctive model's sizes
        _add_flow_bounds(b, jobs, desc, anc, S, C, dur)

    o: dict[tuple[int, int], pulp.LpVariable] = {}
    w: dict[tuple[int, int], pulp.LpVariable] = {}
    if not relax:
        cores = p.cpu_cores
        if cores == 2:
            prev = None
            for k in range(n):
                if not can_cpu[k]:
                    continue
                w[k, 0] = b.prob.add_variable(f"w{k:06d}_0", 0, 1, cat=pulp.LpBinary)
                w[k, 1] = b.prob.add_variable(f"w{k:06d}_1", 0, 1, cat=pulp.LpBinary)
                b.row(w[k, 0] + w[k, 1] - b.expr(jobs[k].on_cpu) == 0, "core")
                # restricted growth: core 1 only after some earlier job used core 0
                if prev is None:
                    b.row(w[k, 1] <= 0, "rg")
                    prev = pulp.LpAffineExpression([(w[k, 0], 1.0)])
                else:
                    b.row(w[k, 1] - prev <= 0, "rg")
                    prev = prev + w[k, 0]
        for j, k in pairs if subset is None else [q for q in pairs if q in subset]:
            var = o[j, k] = b.prob.add_variable(f"o{j:06d}_{k:06d}", 0, 1, cat=pulp.LpBinary)
            mjk = max(0.0, H - tail[j] - head[k]) * u
            mkj = max(0.0, H - tail[k] - head[j]) * u
            acts = []
            if can_cpu[j] and can_cpu[k]:
                if cores == 1:
                    acts.append(
                        b.expr(_const(1.0) if jobs[j].point_ok else jobs[j].on_cpu)
                        + b.expr(_const(1.0) if jobs[k].point_ok else jobs[k].on_cpu)
                    )
                else:
                    acts += [w[j, c] + w[k, c] for c in range(cores)]
            if can_fpga[j] and can_fpga[k]:
                acts.append(b.expr(jobs[j].on_fpga) + b.expr(jobs[k].on_fpga))
            for both in acts:
                b.row(S[k] - S[j] - dur[j] + mjk * (1 - var) + mjk * (2 - both) >= 0, "djk")
                b.row(S[j] - S[k] - dur[k] + mkj * var + mkj * (2 - both) >= 0, "dkj")
    return {
        "C": C,
        "S": S,
        "o": o,
        "w": w,
        "jobs": jobs,
        "relaxed": relax,
        "pairs": len(pairs),
        "all_pairs": pairs,
        "H": H,
    }


def _job_work(b: _Builder, jobs: list[_MJob]) -> tuple[list[Lin], list[Lin]]:
    """Each job's time on a CPU core and on the FPGA, as linear expressions."""
    n_tasks = len(b.p.tasks)
    cpu: list[Lin] = []
    fpga: list[Lin] = []
    for k, j in enumerate(jobs):
        if k < n_tasks:
            t = b.p.tasks[k]
            cpu.append(_add(_const(t.cpu_s), b.x[t.name], -t.cpu_s) if t.cpu_s > 0 else {})
            fpga.append(b.fpga_time(t.name))
        else:
            cpu.append(dict(j.dur))
            fpga.append({})
    return cpu, fpga


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        k = (mask & -mask).bit_length() - 1
        out.append(k)
        mask &= mask - 1
    return out


def _add_flow_bounds(
    b: _Builder, jobs: list[_MJob], desc: list[int], anc: list[int], S: list, C, dur: list
) -> None:
    """Valid inequalities from the work that must come before or after each job.

    Every ancestor of job k ends before k starts, and the ancestors on the CPU
    share the cores (the ones on the FPGA share the FPGA), so
        cores * S_k >= CPU work of anc(k),   S_k >= FPGA work of anc(k);
    likewise every descendant starts after k ends:
        cores * (C - S_k - d_k) >= CPU work of desc(k),   C - S_k - d_k >= FPGA work of desc(k).
    The plain load bounds ignore precedence and the critical path ignores
    resources; these combine the two and close most of the LP gap.
    """
    cores = b.p.cpu_cores
    u = b.u
    cpu, fpga = _job_work(b, jobs)
    for k in range(len(jobs)):
        for mask, after in ((anc[k], False), (desc[k], True)):
            members = _bits(mask)
            if not members:
                continue
            for work, mult, name in ((cpu, cores, "cpu"), (fpga, 1, "fpga")):
                w: Lin = {}
                for q in members:
                    _add(w, work[q])
                if not any(c for v, c in w.items()):
                    continue
                if after:
                    lhs = mult * (C - S[k] - dur[k])
                    b.row(lhs - b.expr(w, u) >= 0, f"{name}after")
                else:
                    b.row(mult * S[k] - b.expr(w, u) >= 0, f"{name}before")


# --------------------------------------------------------------------------- warm start


def _warm_chain_stages(b: _Builder, lp_extra: dict, start: heuristic.Choice, vals: dict) -> None:
    """Throughput: s, g, L, h, r of the chains as `model.chain_stages` uses them for the start."""
    if not lp_extra.get("chains"):
        return
    ch = chosen(b.p, start.assignment, start.variant)
    used = {id(c) for c in streamed(b.p, ch)}
    cv = b.chain_vars
    into: dict[str, list] = {}
    for c, s, g in lp_extra["chains"]:
        on = id(c) in used
        vals[s] = float(on)
        vals[g] = b.u * c.saving(ch[c.src].name, ch[c.dst].name) if on else 0.0
        into.setdefault(c.dst, []).append((c, s, g))
    load: dict[str, float] = {}
    for n in cv["order"]:
        v = ch[n]
        load[n] = b.u * v.fpga_s if isinstance(v, Variant) else 0.0
        for c, s, g in into.get(n, []):
            h = load[c.src] - vals[g] if vals[s] else 0.0
            vals[cv["h"][c.src]] = h
            load[n] += h
        vals[cv["L"][n]] = load[n]
    for n, r in cv["r"].items():
        vals[r] = max(vals[s] for _, s, _ in into[n])


def _warm_values(b: _Builder, lp_extra: dict, start: heuristic.Choice) -> None:
    """Set every variable's initial value from the heuristic choice."""
    p = b.p
    vals: dict = {}
    for n, zs in b.z.items():
        for v, var in zs:
            vals[var] = 1.0 if start.variant.get(n) == v.name else 0.0
    xv = {n: _value(b.x[n], vals) for n in b.x}
    for (a, c), y in b.ands.items():
        vals[y] = xv[a] * xv[c]
    vals[b.one] = 1.0
    for c, s, g in lp_extra.get("chains", ()):
        vs, vd = start.variant.get(c.src), start.variant.get(c.dst)
        gain = c.saving(vs, vd) if vs is not None and vd is not None else 0.0
        vals[s], vals[g] = float(gain > 0.0), max(0.0, gain)
    if p.objective == "throughput":
        _warm_chain_stages(b, lp_extra, start, vals)
        on1 = {n: float(start.cores.get(n, 0) == 1 and not xv[n]) for n in lp_extra["w"]}
        load = [p.base_s, 0.0]
        for t in p.tasks:
            if not xv[t.name]:
                load[int(on1.get(t.name, 0.0))] += t.cpu_s
        flip = p.base_s == 0.0 and load[1] > load[0]  # the model wants core 0 the busier
        for n, var in lp_extra["w"].items():
            vals[var] = (1.0 - on1[n]) * (1.0 - xv[n]) if flip else on1[n]
        vals[lp_extra["P"]] = start.objective_s * b.u
    elif p.objective == "makespan":
        jobs: list[_MJob] = lp_extra["jobs"]
        ent = {(e["task"], e.get("edge")): e for e in start.schedule if e["kind"] != "main"}
        starts = []
        for k, j in enumerate(jobs):
            e = ent.get((j.name, j.edge))
            st = (e["start_s"] - p.base_s) if e is not None else None
            if st is None:  # a zero-length transfer in this choice: right after its producer
                st = max((starts[q] + _value(jobs[q].dur, vals) for q in j.preds if q < k), default=0.0)
            starts.append(st)
            vals[lp_extra["S"][k]] = st * b.u
        for (j, k), var in lp_extra["o"].items():
            vals[var] = 1.0 if (starts[j], j) <= (starts[k], k) else 0.0
        core: dict[int, int] = {}
        for k, j in enumerate(jobs):
            e = ent.get((j.name, j.edge))
            if e is not None and e["resource"].startswith("cpu") and _value(j.on_cpu, vals) > 0.5:
                core[k] = int(e["resource"][3:])
        flip = bool(core) and core[min(core)] == 1  # restricted growth: the first job on core 0
        for (k, c), var in lp_extra["w"].items():
            vals[var] = float(k in core and (core[k] ^ flip) == c)
        vals[lp_extra["C"]] = (start.objective_s - p.base_s) * b.u
    for var, v in vals.items():  # within the bounds (rounding of the heuristic's sums)
        if var.lowBound is not None:
            v = max(v, var.lowBound)
        if var.upBound is not None:
            v = min(v, var.upBound)
        var.setInitialValue(v)


# --------------------------------------------------------------------------- running a solver


@dataclass
class _Run:
    status: str  # Optimal, Time limit, Infeasible, Not Solved
    values: dict | None  # variable -> value
    solver_obj_s: float | None
    bound_s: float | None
    slack_s: float = 0.0  # how much the solver's objective may move when its values are rounded


class _HighsWarm(pulp.HiGHS):  # type: ignore[misc,valid-type]
    """PuLP's HiGHS interface, handing the variables' initial values to HiGHS as a start."""

    def callSolver(self, lp):
        import highspy

        if getattr(self, "warm", False):
            sol = highspy.HighsSolution()
            sol.col_value = [float(v.varValue or 0.0) for v in lp.variables()]
            lp.solverModel.setSolution(sol)
        lp.solverModel.run()


def _run(lp: _Lp, solver: str, time_limit_s: float | None, msg: bool, warm: bool) -> _Run:
    prob = lp.prob
    log = ""
    try:
        if solver == "cbc":
            log = _run_cbc(prob, time_limit_s, msg, warm)
            if prob.status == pulp.LpStatusOptimal and not prob.valid(_VALID_ABS):
                # CBC's preprocessing can return a point its postsolve found infeasible
                # ("possible tolerance issue - try without preprocessing"): do just that
                log = _run_cbc(prob, time_limit_s, msg, False, ["preprocess off"])
        else:
            if not msg:
                _quiet_highs_banner()
            cmd = _HighsWarm(msg=msg, timeLimit=time_limit_s, gapRel=0.0, threads=1)
            cmd.warm = warm
            prob.solve(cmd)
    except pulp.PulpSolverError as exc:
        if time_limit_s is not None:  # CBC stopped by the limit before it wrote a solution
            return _Run("Not Solved", None, None, None)
        raise PartitionError(
            f"the {solver} solver failed: {exc}; run again with the solver log shown, or try the other solver"
        ) from exc

    st, sol = prob.status, prob.sol_status
    if st == pulp.LpStatusInfeasible or sol == pulp.LpSolutionInfeasible:
        return _Run("Infeasible", None, None, None)
    if st != pulp.LpStatusOptimal or sol not in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible):
        return _Run("Not Solved", None, None, None)
    values = {v: (v.varValue or 0.0) for v in prob.variables()}
    solver_obj_s = pulp.value(prob.objective) / lp.scale
    slack_s = sum(
        abs(c) * abs(values.get(v, 0.0) - round(values.get(v, 0.0))) for v, c in prob.objective.items()
    )
    slack_s /= lp.scale
    if sol == pulp.LpSolutionOptimal:
        return _Run("Optimal", values, solver_obj_s, solver_obj_s, slack_s)
    return _Run("Time limit", values, solver_obj_s, _bound(prob, solver, log, lp.scale), slack_s)


def _run_cbc(
    prob: pulp.LpProblem, time_limit_s: float | None, msg: bool, warm: bool, options: list[str] | None = None
) -> str:
    """Run CBC with its log captured (the bound after a time limit is only in the log)."""
    cls = _cbc_cmd()
    assert cls is not None
    fd, log_path = tempfile.mkstemp(prefix="partition-cbc-", suffix=".log")
    os.close(fd)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            cmd = cls(
                msg=False,
                timeLimit=time_limit_s,
                gapRel=0.0,
                threads=1,
                logPath=log_path,
                warmStart=warm,
                options=options or [],
            )
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


# --------------------------------------------------------------------------- evaluating a solver's choice


@dataclass
class _Eval:
    objective_s: float
    schedule: list[dict]
    exact: bool  # computed by model.evaluate's exact method
    cores: dict[str, int] = field(default_factory=dict)


def _evaluate_choice(
    problem: Problem, x: dict[str, int], var: dict[str, str], hint: dict | None = None
) -> _Eval:
    """The objective and schedule of a choice: exact where affordable, else from `hint`.

    hint (from the solver): "cores" (task -> core, throughput) or "schedule"
    (entries, makespan); a list schedule is the fallback for makespan.
    """
    ch = chosen(problem, x, var)
    if problem.objective == "latency":
        return _Eval(evaluate(problem, x, var), [], True)
    if problem.objective == "throughput":
        cpu = {t.name: t.cpu_s for t in problem.tasks if ch[t.name] is None}
        if problem.cpu_cores == 1 or len(cpu) <= _EXACT_SPLIT:
            cores = split_cores(problem.base_s, cpu, problem.cpu_cores)
            return _Eval(evaluate(problem, x, var), throughput_entries(problem, ch, cores), True, cores)
        cores = {n: (hint or {}).get("cores", {}).get(n, 0) for n in cpu}
        _, fpga, link = throughput_loads(problem, ch)
        loads = [problem.base_s, 0.0]
        for n, c in cpu.items():
            loads[cores[n]] += c
        return _Eval(max(*loads, fpga, link), throughput_entries(problem, ch, cores), False, cores)
    try:
        length, entries = optimal_schedule(problem, ch)
        return _Eval(problem.base_s + length, entries, True)
    except ScheduleTooLarge:
        pass
    best = heuristic.list_schedule(problem, ch)
    sched = (hint or {}).get("schedule")
    if sched is not None:
        length = schedule_length(problem, x, var, sched)
        if length < best[0]:
            best = (length, sched)
    schedule_length(problem, x, var, best[1])
    return _Eval(best[0], best[1], False)


def _ilp_schedule(problem: Problem, lp: _Lp, values: dict, x: dict[str, int], var: dict[str, str]) -> list:
    """The solver's makespan schedule, re-timed: each resource's jobs in the solver's order, as early as possible."""
    ch = chosen(problem, x, var)
    jobs = makespan_jobs(problem, ch)
    mjobs: list[_MJob] = lp.extra["jobs"]
    where_m = {(j.name, j.edge): k for k, j in enumerate(mjobs)}
    S = lp.extra["S"]
    s_val = [values.get(S[where_m[(j.name, j.edge)]], 0.0) / lp.scale for j in jobs]
    res = []
    for j in jobs:
        if j.resource == "cpu":
            c = 0
            mk = where_m[(j.name, j.edge)]
            if (
                problem.cpu_cores == 2
                and (mk, 1) in lp.extra["w"]
                and values.get(lp.extra["w"][mk, 1], 0.0) > 0.5
            ):
                c = 1
            res.append(f"cpu{c}")
        elif j.resource == "fpga":
            res.append("fpga")
        else:
            res.append("")
    # a topological order that follows the solver's start times as closely as it can
    succs: list[list[int]] = [[] for _ in jobs]
    indeg = [len(j.preds) for j in jobs]
    for k, j in enumerate(jobs):
        for q in j.preds:
            succs[q].append(k)
    heap = [(s_val[k], k) for k in range(len(jobs)) if indeg[k] == 0]
    heapq.heapify(heap)
    start = [0.0] * len(jobs)
    free: dict[str, float] = {}
    while heap:
        _, k = heapq.heappop(heap)
        j = jobs[k]
        t = max((start[q] + jobs[q].duration for q in j.preds), default=0.0)
        if res[k]:
            t = max(t, free.get(res[k], 0.0))
            free[res[k]] = t + j.duration
        start[k] = t
        for q in succs[k]:
            indeg[q] -= 1
            if indeg[q] == 0:
                heapq.heappush(heap, (s_val[q], q))
    return entries_from_starts(problem, jobs, start, res)


# --------------------------------------------------------------------------- public API


def solve(
    problem: Problem, *, solver: str = "cbc", time_limit_s: float | None = None, msg: bool = False
) -> Solution:
    """Optimal choice for `problem` (see the module docstring for the model)."""
    return top_k(problem, 1, solver=solver, time_limit_s=time_limit_s, msg=msg)[0]


def top_k(
    problem: Problem,
    k: int,
    *,
    solver: str = "cbc",
    time_limit_s: float | None = None,
    msg: bool = False,
    distinct: str = "choice",
    warm_start: bool = True,
) -> list[Solution]:
    """The k best distinct choices, best first; the first is what `solve` returns.

    After each solution a no-good cut excludes it (reference/partitioners.md
    §4.6): sum_{z*=1} (1 - z) + sum_{z*=0} z >= 1 over the variant binaries
    (`distinct="choice"`: another placement or another variant), or over the
    placements x alone (`distinct="placement"`: another set of FPGA tasks, each
    with its best variant). The list stops early when no further feasible
    choice exists, or when a solve does not end with one. If the problem is
    infeasible the list holds one Solution with status "Infeasible".
    `time_limit_s` applies to each solve; after a "Time limit" solve the order
    is only as good as its gap.
    """
    if k < 1:
        raise PartitionError(f"top-k needs k >= 1, got {k}")
    if distinct not in ("choice", "placement"):
        raise PartitionError(f"distinct={distinct!r}: choose 'choice' or 'placement'")
    if time_limit_s is not None and not time_limit_s > 0:
        raise PartitionError(f"solver time limit {time_limit_s!r} s must be a positive number of seconds")
    check_problem(problem)
    _check_solver(solver)
    if solver == "cpsat" and (problem.objective != "makespan" or k != 1):
        raise PartitionError(
            "solver 'cpsat' finds one plan for the makespan objective; use cbc or highs for "
            + ("the " + problem.objective + " objective" if problem.objective != "makespan" else "--top-k")
        )
    start = time.perf_counter()
    fold = _fold(problem)
    stats = {"variables": 0, "constraints": 0, "free_tasks": len(fold.free), "fixed_tasks": len(fold.fixed)}
    if fold.infeasible:
        return [_no_solution("Infeasible", solver, start, stats)]

    greedy = heuristic.greedy(problem) if warm_start or problem.objective != "latency" else None
    if greedy is not None and not feasible(problem, greedy.assignment, greedy.variant):
        greedy = None  # cannot happen; keep the warm start honest
    if solver == "cpsat":
        sol = cpsat.solve_makespan(
            problem,
            fold.opts,
            fold.fixed,
            time_limit_s=time_limit_s,
            msg=msg,
            greedy=greedy,
            start=start,
            stats=stats,
        )
        if sol.status == "Optimal":
            ev = _evaluate_choice(problem, sol.assignment, sol.variant, {"schedule": sol.schedule})
            x, var, ev = _prefer_cpu(problem, fold, sol.assignment, sol.variant, ev, set(), "choice")
            sol.assignment, sol.variant, sol.objective_s, sol.schedule = x, var, ev.objective_s, ev.schedule
        return [sol]
    ref = greedy.objective_s if greedy is not None else _serial_bound(problem)
    scale = _OBJ_UNITS / max(ref, 1e-12)
    b = _Builder(problem, fold, scale)
    horizon = None
    if problem.objective == "latency":
        extra = _build_latency(b)
    elif problem.objective == "throughput":
        extra = _build_throughput(b)
    else:
        if k == 1 and greedy is not None:
            horizon = (greedy.objective_s - problem.base_s) * (1 + 1e-6)  # a thin slab is numerically fragile
        extra = _build_makespan(b, horizon, None, set() if k == 1 else None)
    b.finish_ands()
    lp = _Lp(b.prob, scale, b.z, b.x, problem.objective, extra, opts=fold.opts, ands=b.ands)
    stats["variables"] = len(lp.prob.variables()) - 1  # without the constant carrier
    stats["constraints"] = lp.prob.numConstraints()
    if problem.objective == "makespan":
        stats["ordering_pairs"] = extra["pairs"]

    if problem.objective == "makespan" and extra["relaxed"]:
        return [_relaxed_makespan(problem, lp, solver, time_limit_s, msg, greedy, start, stats)]
    if problem.objective == "makespan" and k == 1:
        return [_lazy_makespan(problem, fold, scale, solver, time_limit_s, msg, greedy, start, stats)]

    out: list[Solution] = []
    seen: set[tuple] = set()
    while len(out) < k:
        t0 = time.perf_counter() if out else start
        warm = bool(greedy is not None and not out)
        if warm:
            _warm_values(b, extra, greedy)  # type: ignore[arg-type]
        run = _run(lp, solver, time_limit_s, msg, warm)
        if run.values is None:
            if not out and run.status == "Not Solved" and time_limit_s is not None and greedy is not None:
                out.append(_from_heuristic(problem, greedy, solver, t0, stats))
            elif not out:
                out.append(_no_solution(run.status, solver, t0, stats))
            break
        x, var = _choice(problem, lp, run.values)
        if not feasible(problem, x, var):
            raise RuntimeError(f"{solver} returned a choice that violates the model: {x} {var}")
        hint = _hint(problem, lp, run.values, x, var)
        ev = _evaluate_choice(problem, x, var, hint)
        assert run.solver_obj_s is not None
        tol = _CHECK_REL * max(abs(ev.objective_s), abs(run.solver_obj_s)) + run.slack_s
        if problem.objective == "makespan":
            tol += _CHECK_REL * extra["H"]
        too_high = ev.objective_s > run.solver_obj_s + tol
        too_low = run.status == "Optimal" and ev.objective_s < run.solver_obj_s - tol
        if too_high or too_low:
            raise RuntimeError(
                f"{solver} objective {run.solver_obj_s!r} s disagrees with the model's "
                f"{ev.objective_s!r} s for {x} {var}"
            )
        x, var, ev = _prefer_cpu(problem, fold, x, var, ev, seen, distinct)
        seen.add(_signature(fold, x, var, distinct))
        gap: float | None = 0.0
        status = run.status
        if status == "Time limit":
            gap = (
                None
                if run.bound_s is None
                else max(0.0, (ev.objective_s - run.bound_s) / max(ev.objective_s, 1e-300))
            )
        out.append(
            Solution(
                assignment={n: int(x[n]) for n in fold.names},
                objective_s=ev.objective_s,
                status=status,
                solver=solver,
                gap=gap,
                solve_time_s=time.perf_counter() - t0,
                stats=dict(stats),
                variant={n: var[n] for n in fold.names if n in var},
                schedule=ev.schedule,
            )
        )
        if len(out) < k:
            _cut(lp, fold, x, var, distinct)
    return out


def _serial_bound(problem: Problem) -> float:
    """Every task at its slowest and every edge at its dearest, one after the other (> 0)."""
    total = abs(problem.base_s)
    for t in problem.tasks:
        total += max([t.cpu_s, *(v.fpga_s for v in t.options()), *(v.period_s for v in t.options())])
    for e in problem.edges:
        total += max(abs(e.c00), abs(e.c01), abs(e.c10), abs(e.c11))
    return total if total > 0 else 1.0


def _choice(problem: Problem, lp: _Lp, values: dict) -> tuple[dict[str, int], dict[str, str]]:
    x: dict[str, int] = {}
    var: dict[str, str] = {}
    for t in problem.tasks:
        n = t.name
        if n in lp.z:
            picked = [v for v, zv in lp.z[n] if values.get(zv, 0.0) > 0.5]
            x[n] = int(bool(picked))
            if picked:
                var[n] = picked[0].name
        else:
            x[n] = int(bool(lp.x[n]))
            if x[n]:  # on the FPGA with the one variant left after folding
                var[n] = lp.opts[n][0].name
    return x, var


def _hint(problem: Problem, lp: _Lp, values: dict, x: dict[str, int], var: dict[str, str]) -> dict:
    if problem.objective == "throughput":
        return {"cores": {n: int(values.get(w, 0.0) > 0.5) for n, w in lp.extra["w"].items()}}
    if problem.objective == "makespan" and not lp.extra["relaxed"]:
        return {"schedule": _ilp_schedule(problem, lp, values, x, var)}
    return {}


def _signature(fold: _Fold, x: dict[str, int], var: dict[str, str], distinct: str) -> tuple:
    if distinct == "placement":
        return tuple(x[n] for n in fold.free)
    return tuple(var.get(n) for n in fold.names)


def _cut(lp: _Lp, fold: _Fold, x: dict[str, int], var: dict[str, str], distinct: str) -> None:
    terms = []
    ones = 0
    if distinct == "placement":
        for n in fold.free:
            for _, zv in lp.z[n]:
                terms.append((zv, -1.0 if x[n] else 1.0))
            ones += x[n]
    else:
        for n, zs in lp.z.items():
            for v, zv in zs:
                on = var.get(n) == v.name
                terms.append((zv, -1.0 if on else 1.0))
                ones += on
    lp.prob.addConstraint(pulp.LpAffineExpression(terms) >= 1 - ones, f"cut{lp.n_cuts:06d}")
    lp.n_cuts += 1


def _prefer_cpu(
    problem: Problem,
    fold: _Fold,
    x: dict[str, int],
    var: dict[str, str],
    ev: _Eval,
    avoid: set[tuple],
    distinct: str,
) -> tuple[dict[str, int], dict[str, str], _Eval]:
    """The tie rule: move free FPGA tasks back to the CPU while that costs nothing.

    Moving a task to the CPU keeps every budget, exclusive pair and pin
    satisfied, so only the objective needs checking. Only where the objective
    is evaluated exactly (a heuristic schedule could look worse than the
    solver's own and hide a tie).
    """
    if not ev.exact:
        return x, var, ev
    limit = ev.objective_s + _TIE_REL * abs(ev.objective_s)
    x, var = dict(x), dict(var)
    changed = True
    while changed:
        changed = False
        for n in fold.free:
            if not x[n]:
                continue
            x2 = {**x, n: 0}
            var2 = {m: v for m, v in var.items() if m != n}
            if avoid and _signature(fold, x2, var2, distinct) in avoid:
                continue
            try:
                value = evaluate(problem, x2, var2)
            except ScheduleTooLarge:
                return x, var, _evaluate_choice(problem, x, var)
            if value <= limit:
                x, var = x2, var2
                changed = True
    return x, var, _evaluate_choice(problem, x, var)


def _overlaps(lp: _Lp, values: dict, cores: int, subset: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Ordering pairs left out of the model that share a resource and overlap in the solver's point."""
    ex = lp.extra
    jobs: list[_MJob] = ex["jobs"]
    H = ex["H"]
    s = [values.get(v, 0.0) / lp.scale for v in ex["S"]]
    d = [_value(j.dur, values) for j in jobs]
    cpu = [_value(j.on_cpu, values) > 0.5 for j in jobs]
    fpga = [_value(j.on_fpga, values) > 0.5 for j in jobs]
    core = [int(values.get(ex["w"].get((k, 1)), 0.0) > 0.5) if cores == 2 else 0 for k in range(len(jobs))]
    tol = 1e-9 * H  # far above the solvers' tolerances (objective ~1e6 units)
    out = set()
    for j, k in ex["all_pairs"]:
        if (j, k) in subset:
            continue
        shared = (cpu[j] and cpu[k] and core[j] == core[k]) or (fpga[j] and fpga[k])
        if shared and min(s[j] + d[j], s[k] + d[k]) - max(s[j], s[k]) > tol:
            out.add((j, k))
    return out


def _lazy_makespan(
    problem: Problem,
    fold: _Fold,
    scale: float,
    solver: str,
    time_limit_s: float | None,
    msg: bool,
    greedy: heuristic.Choice | None,
    start: float,
    stats: dict[str, int],
) -> Solution:
    """The disjunctive makespan model with its ordering pairs added lazily (row generation).

    The first model has no ordering pair at all: choices, precedence, the load
    and flow bounds (a relaxation, usually within a few per cent). Its optimum
    is a lower bound; its choice, re-timed in the order of its start times,
    is a valid schedule and an upper bound. Every pair of jobs that overlaps on
    one resource in the solver's point gets its disjunction and the model is
    solved again (with the best schedule so far as its warm start and horizon).
    It stops when the bound meets the best schedule (Optimal), when the solver's
    point overlaps nowhere (then it is a schedule of the full model: Optimal),
    or at the time limit (the best schedule with the last bound: its gap).
    Every model is a relaxation of the full one, so the bound is always valid
    and the result is the full model's optimum.
    """
    deadline = None if time_limit_s is None else start + time_limit_s
    cores = problem.cpu_cores
    subset: set[tuple[int, int]] = set()
    best = (
        None if greedy is None else (greedy.objective_s, greedy.assignment, greedy.variant, greedy.schedule)
    )
    bound: float | None = None
    proven = False
    rounds = 0
    while True:
        horizon = None if best is None else (best[0] - problem.base_s) * (1 + 1e-6)
        b = _Builder(problem, fold, scale)
        extra = _build_makespan(b, horizon, False, subset)
        b.finish_ands()
        lp = _Lp(b.prob, scale, b.z, b.x, problem.objective, extra, opts=fold.opts, ands=b.ands)
        if best is not None:
            _warm_values(b, extra, heuristic.Choice(best[1], best[2], best[0], schedule=best[3]))
        rounds += 1
        remaining = None if deadline is None else deadline - time.perf_counter()
        if remaining is not None and remaining <= 0.05:
            break
        run = _run(lp, solver, remaining, msg, best is not None)
        if run.values is None:
            if run.status == "Infeasible" and best is None:
                return _no_solution("Infeasible", solver, start, stats)
            break
        if run.bound_s is not None:
            bound = run.bound_s if bound is None else max(bound, run.bound_s)
        x, var = _choice(problem, lp, run.values)
        if not feasible(problem, x, var):
            raise RuntimeError(f"{solver} returned a choice that violates the model: {x} {var}")
        sched = _ilp_schedule(problem, lp, run.values, x, var)
        length = schedule_length(problem, x, var, sched)
        ls_len, ls_sched = heuristic.list_schedule(problem, chosen(problem, x, var))
        if ls_len < length:
            length, sched = ls_len, ls_sched
        if best is None or length < best[0]:
            best = (length, x, var, sched)
        if bound is not None and best[0] <= bound + _PROVEN_REL * best[0]:
            proven = True
            break
        if run.status != "Optimal":  # the time limit stopped this round
            break
        more = _overlaps(lp, run.values, cores, subset)
        if not more:  # the point is a schedule of the full model
            proven = True
            break
        subset |= more
    stats["lazy_pairs"] = len(subset)
    stats["rounds"] = rounds
    if best is None:
        return _no_solution("Not Solved", solver, start, stats)
    length, x, var, sched = best
    # the exact search costs seconds on schedules it cannot finish: only for a proven optimum
    ev = _evaluate_choice(problem, x, var, {"schedule": sched}) if proven else _Eval(length, sched, False)
    if bound is not None and ev.objective_s < bound - _CHECK_REL * max(abs(bound), ev.objective_s):
        raise RuntimeError(
            f"{solver}'s bound {bound!r} s exceeds the model's {ev.objective_s!r} s for {x} {var}"
        )
    if proven:
        x, var, ev = _prefer_cpu(problem, fold, x, var, ev, set(), "choice")
    gap: float | None = 0.0
    if not proven:
        gap = None if bound is None else max(0.0, (ev.objective_s - bound) / max(ev.objective_s, 1e-300))
    return Solution(
        assignment={n: int(x[n]) for n in fold.names},
        objective_s=ev.objective_s,
        status="Optimal" if proven else "Time limit",
        solver=solver,
        gap=gap,
        solve_time_s=time.perf_counter() - start,
        stats=dict(stats),
        variant={n: var[n] for n in fold.names if n in var},
        schedule=ev.schedule,
    )


def _relaxed_makespan(
    problem: Problem,
    lp: _Lp,
    solver: str,
    time_limit_s: float | None,
    msg: bool,
    greedy: heuristic.Choice | None,
    start: float,
    stats: dict[str, int],
) -> Solution:
    """Makespan beyond MAX_PAIRS: the relaxation's bound, the best list schedule, the gap."""
    run = _run(lp, solver, time_limit_s, msg, False)
    if run.values is None:
        return _no_solution(run.status, solver, start, stats)
    bound = run.bound_s if run.status == "Time limit" else run.solver_obj_s
    x, var = _choice(problem, lp, run.values)
    cands = []
    if feasible(problem, x, var):
        length, entries = heuristic.list_schedule(problem, chosen(problem, x, var))
        cands.append((length, 0, x, var, entries))
    if greedy is not None:
        cands.append((greedy.objective_s, 1, greedy.assignment, greedy.variant, greedy.schedule))
    length, _, x, var, entries = min(cands, key=lambda c: (c[0], c[1]))
    schedule_length(problem, x, var, entries)
    gap = None if bound is None else max(0.0, (length - bound) / max(length, 1e-300))
    status = "Optimal" if gap is not None and gap <= 1e-9 else "Feasible"
    return Solution(
        assignment={t.name: int(x[t.name]) for t in problem.tasks},
        objective_s=length,
        status=status,
        solver=solver,
        gap=gap,
        solve_time_s=time.perf_counter() - start,
        stats=dict(stats),
        variant=dict(var),
        schedule=entries,
    )


def _from_heuristic(
    problem: Problem, g: heuristic.Choice, solver: str, start: float, stats: dict[str, int]
) -> Solution:
    """The warm start as the answer when the solver found nothing better within its time limit."""
    ev = _evaluate_choice(problem, g.assignment, g.variant, {"cores": g.cores, "schedule": g.schedule})
    return Solution(
        assignment=dict(g.assignment),
        objective_s=ev.objective_s,
        status="Time limit",
        solver=solver,
        gap=None,
        solve_time_s=time.perf_counter() - start,
        stats=dict(stats),
        variant=dict(g.variant),
        schedule=ev.schedule,
    )


def _no_solution(status: str, solver: str, start: float, stats: dict[str, int]) -> Solution:
    return Solution(
        assignment={},
        objective_s=math.inf,
        status=status,
        solver=solver,
        gap=None,
        solve_time_s=time.perf_counter() - start,
        stats=dict(stats),
    )
