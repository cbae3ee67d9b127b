"""The makespan objective's rows: the disjunctive model of one run, CPU and FPGA overlapping.

makespan (F3, disjunctive). Jobs: the tasks, and a transfer job on the CPU
for every edge that costs something in some placement (`partition.solve.schedule`). With S_j
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
    occupies nothing (schedule.py), hence the activity terms. Two cores: binaries
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

Also the warm start of this model's own variables and the solver's point read
back as a schedule (`ilp_schedule`). How the model is solved (its ordering
pairs added lazily, or relaxed) is `partition.solve.ilp.makespan_solve`.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import pulp

from partition.solve import heuristic
from partition.solve.ilp.builder import Builder, Lin, Lp, add, constant, value
from partition.solve.model import MAIN, Problem, chosen
from partition.solve.schedule import entries_from_starts, longest_paths, makespan_jobs, task_order

MAX_PAIRS = 4000  # ordering binaries beyond which makespan solves the relaxation


@dataclass
class MJob:
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


def _possible(b: Builder, n: str) -> list[int]:
    if n == MAIN:
        return [0]
    if n in b.f.fixed:
        return [b.f.fixed[n]]
    return [0, 1]


def _makespan_jobs(b: Builder) -> list[MJob]:
    p = b.p
    index = {t.name: i for i, t in enumerate(p.tasks)}
    jobs: list[MJob] = []
    for t in p.tasks:
        n = t.name
        x = b.x[n]
        dur = add(add(constant(t.cpu_s), x, -t.cpu_s), b.fpga_time(n))
        on_cpu = add(constant(1.0), x, -1.0) if t.cpu_s > 0 else {}
        if n in b.z:
            on_fpga = {var: 1.0 for v, var in b.z[n] if v.fpga_s > 0}
        elif x and b.f.opts[n][0].fpga_s > 0:
            on_fpga = constant(1.0)
        else:
            on_fpga = {}
        times = [t.cpu_s] if 0 in _possible(b, n) else []
        times += [v.fpga_s for v in b.f.opts[n]] if 1 in _possible(b, n) else []
        jobs.append(MJob(n, "task", dur, on_cpu, on_fpga, min(times), max(times), []))
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
                add(active, _indicator(b, e.src, e.dst, s_, d_))
        j = len(jobs)
        # Free only when both ends are on the CPU, after a producer that occupies the core
        # (or <main>): then the free transfer can sit at its producer's end, which no other
        # job on the single core straddles, so ordering it like a real job loses nothing.
        src_busy = e.src == MAIN or next(t.cpu_s for t in p.tasks if t.name == e.src) > 0
        point_ok = src_busy and all(c > 0 or (s_, d_) == (0, 0) for (s_, d_), c in zip(placements, costs))
        jobs.append(
            MJob(
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


def _indicator(b: Builder, src: str, dst: str, s: int, d: int) -> Lin:
    """[x_src = s and x_dst = d] as a linear expression (the exact AND where both ends are free)."""

    def one(e: Lin, v: int) -> Lin:
        return dict(e) if v else add(constant(1.0), e, -1.0)

    xs, xd = b.side(src), b.side(dst)
    if src == dst:
        return one(xs, s)
    a, c = one(xs, s), one(xd, d)
    if set(a) <= {None}:
        return add({}, c, a.get(None, 0.0))
    if set(c) <= {None}:
        return add({}, a, c.get(None, 0.0))
    y = b.product(src, dst, "both")
    if s and d:
        return dict(y)
    if s:
        return add(dict(xs), y, -1.0)
    if d:
        return add(dict(xd), y, -1.0)
    return add(add(add(constant(1.0), xs, -1.0), xd, -1.0), y)


def _closure(jobs: list[MJob], order: list[int]) -> tuple[list[int], list[int]]:
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


def build_makespan(
    b: Builder, horizon: float | None, relax: bool | None, subset: set[tuple[int, int]] | None = None
) -> dict:
    """The F3 model (or its relaxation without ordering binaries); see the module docstring.

    `subset`: only these ordering pairs get their disjunction (the lazy loop,
    `lazy_makespan`); the others are left out, which relaxes the model.
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
        add(cpu_work, add(constant(t.cpu_s), b.x[t.name], -t.cpu_s))
        add(fpga_work, b.fpga_time(t.name))
    for j in jobs[len(p.tasks) :]:
        add(cpu_work, j.dur)
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
                        b.expr(constant(1.0) if jobs[j].point_ok else jobs[j].on_cpu)
                        + b.expr(constant(1.0) if jobs[k].point_ok else jobs[k].on_cpu)
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


def _job_work(b: Builder, jobs: list[MJob]) -> tuple[list[Lin], list[Lin]]:
    """Each job's time on a CPU core and on the FPGA, as linear expressions."""
    n_tasks = len(b.p.tasks)
    cpu: list[Lin] = []
    fpga: list[Lin] = []
    for k, j in enumerate(jobs):
        if k < n_tasks:
            t = b.p.tasks[k]
            cpu.append(add(constant(t.cpu_s), b.x[t.name], -t.cpu_s) if t.cpu_s > 0 else {})
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
    b: Builder, jobs: list[MJob], desc: list[int], anc: list[int], S: list, C, dur: list
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
                    add(w, work[q])
                if not any(c for v, c in w.items()):
                    continue
                if after:
                    lhs = mult * (C - S[k] - dur[k])
                    b.row(lhs - b.expr(w, u) >= 0, f"{name}after")
                else:
                    b.row(mult * S[k] - b.expr(w, u) >= 0, f"{name}before")


def warm_makespan(b: Builder, lp_extra: dict, start: heuristic.Choice, vals: dict) -> None:
    """The makespan variables' start values (S, o, w, C) from the heuristic choice and its schedule."""
    p = b.p
    jobs: list[MJob] = lp_extra["jobs"]
    ent = {(e["task"], e.get("edge")): e for e in start.schedule if e["kind"] != "main"}
    starts = []
    for k, j in enumerate(jobs):
        e = ent.get((j.name, j.edge))
        st = (e["start_s"] - p.base_s) if e is not None else None
        if st is None:  # a zero-length transfer in this choice: right after its producer
            st = max((starts[q] + value(jobs[q].dur, vals) for q in j.preds if q < k), default=0.0)
        starts.append(st)
        vals[lp_extra["S"][k]] = st * b.u
    for (j, k), var in lp_extra["o"].items():
        vals[var] = 1.0 if (starts[j], j) <= (starts[k], k) else 0.0
    core: dict[int, int] = {}
    for k, j in enumerate(jobs):
        e = ent.get((j.name, j.edge))
        if e is not None and e["resource"].startswith("cpu") and value(j.on_cpu, vals) > 0.5:
            core[k] = int(e["resource"][3:])
    flip = bool(core) and core[min(core)] == 1  # restricted growth: the first job on core 0
    for (k, c), var in lp_extra["w"].items():
        vals[var] = float(k in core and (core[k] ^ flip) == c)
    vals[lp_extra["C"]] = (start.objective_s - p.base_s) * b.u


def ilp_schedule(problem: Problem, lp: Lp, values: dict, x: dict[str, int], var: dict[str, str]) -> list:
    """The solver's makespan schedule, re-timed: each resource's jobs in the solver's order, as early as possible."""
    ch = chosen(problem, x, var)
    jobs = makespan_jobs(problem, ch)
    mjobs: list[MJob] = lp.extra["jobs"]
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
