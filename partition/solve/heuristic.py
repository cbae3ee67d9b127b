"""Fast, inexact choices: a greedy start, a Kernighan–Lin style improvement, list scheduling.

The ILP uses them as its warm start (and as the upper bound that makes its
big-M constants tight); the benchmark reports how far they are from the ILP.

* `greedy`: pinned tasks on the FPGA with their fastest variant that fits;
  then "hot functions first": every (task, variant) ranked by the time it
  saves (cpu_s - fpga_s) per unit of resource (the sum over budgeted
  resources of its share of the budget), and taken in that order whenever it
  fits and lowers the objective.
* `improve`: passes of tentative single moves (a task to the CPU or to one of
  its variants): each step takes the best move among tasks not yet moved in
  the pass, even a worsening one, and the pass keeps the best prefix (the
  Kernighan–Lin scheme, which lets a kernel leave the FPGA to make room for a
  better one). Passes repeat while they improve.
* Both compare choices by (objective, latency): among equal objectives (a
  throughput period set by one resource, say) less total work wins.

Objectives are evaluated incrementally for latency and throughput (a move
changes a task's time and its incident edges; for throughput the tasks joined
by chains form a group whose slowest stage `period.chain_stages` recomputes
when one of them moves); makespan uses `list_schedule`
(critical-path list scheduling), with a fixed budget of scheduled jobs so
that the time spent stays bounded and the result deterministic. With two
cores, CPU tasks go to the less loaded core (throughput) and a final
longest-task-first pass rebalances the split.
"""

from __future__ import annotations

import bisect
import dataclasses
import heapq
import math
from dataclasses import dataclass, field

from partition.solve.model import FEAS_ABS, MAIN, Problem, chosen, feasible
from partition.solve.period import chain_stages, throughput_entries
from partition.solve.schedule import Job, entries_from_starts, makespan_jobs

MAKESPAN_JOB_BUDGET = 200_000  # jobs placed by list scheduling during one improvement


@dataclass
class Choice:
    """A heuristic choice: CPU/FPGA, variants, its objective, core split and schedule."""

    assignment: dict[str, int]
    variant: dict[str, str]
    objective_s: float
    cores: dict[str, int] = field(default_factory=dict)  # CPU task -> core (throughput)
    schedule: list[dict] = field(default_factory=list)


# --------------------------------------------------------------------------- list scheduling


def list_schedule(problem: Problem, ch: dict) -> tuple[float, list[dict]]:
    """A valid makespan schedule of a fixed choice (base_s included): critical-path list scheduling.

    Ready jobs are taken by longest remaining path (ties: job order) and
    placed at the earliest time their predecessors and their resource allow.
    """
    jobs = makespan_jobs(problem, ch)
    return _list_schedule(problem, jobs)


def _list_schedule(problem: Problem, jobs: list[Job]) -> tuple[float, list[dict]]:
    n = len(jobs)
    succs: list[list[int]] = [[] for _ in jobs]
    indeg = [len(j.preds) for j in jobs]
    for j, job in enumerate(jobs):
        for p in job.preds:
            succs[p].append(j)
    # bottom level: the longest path from a job's start to the end
    order = _topo(jobs, succs)
    tail = [0.0] * n
    for j in reversed(order):
        tail[j] = jobs[j].duration + max((tail[s] for s in succs[j]), default=0.0)
    ready_at = [0.0] * n
    heap = [(-tail[j], j) for j in range(n) if indeg[j] == 0]
    heapq.heapify(heap)
    cores = [0.0] * problem.cpu_cores
    fpga = 0.0
    start = [0.0] * n
    where = [""] * n
    while heap:
        _, j = heapq.heappop(heap)
        job = jobs[j]
        t = ready_at[j]
        if job.resource == "cpu":
            c = min(range(len(cores)), key=lambda k: (max(cores[k], t), k))
            t = max(t, cores[c])
            cores[c] = t + job.duration
            where[j] = f"cpu{c}"
        elif job.resource == "fpga":
            t = max(t, fpga)
            fpga = t + job.duration
            where[j] = "fpga"
        start[j] = t
        for s in succs[j]:
            ready_at[s] = max(ready_at[s], t + job.duration)
            indeg[s] -= 1
            if indeg[s] == 0:
                heapq.heappush(heap, (-tail[s], s))
    entries = entries_from_starts(problem, jobs, start, where)
    length = max([problem.base_s, *(e["end_s"] for e in entries)])
    return length, entries


def _topo(jobs: list[Job], succs: list[list[int]]) -> list[int]:
    indeg = [len(j.preds) for j in jobs]
    out = [j for j in range(len(jobs)) if indeg[j] == 0]
    k = 0
    while k < len(out):
        for s in succs[out[k]]:
            indeg[s] -= 1
            if indeg[s] == 0:
                out.append(s)
        k += 1
    return out


# --------------------------------------------------------------------------- the search state


class _State:
    """The current choice (option per task: -1 CPU, k variant k) with incremental objective terms."""

    def __init__(self, problem: Problem):
        p = self.p = problem
        self.n = len(p.tasks)
        self.index = {t.name: i for i, t in enumerate(p.tasks)}
        self.opts = [t.options() for t in p.tasks]
        self.budget = {r: v for r, v in p.budget.items() if v != math.inf}
        self.inc: list[list[int]] = [[] for _ in p.tasks]
        for k, e in enumerate(p.edges):
            for end in {e.src, e.dst}:
                if end != MAIN:
                    self.inc[self.index[end]].append(k)
        self.chain_inc: list[list[int]] = [[] for _ in p.tasks]
        for k, c in enumerate(p.chains):
            for end in {c.src, c.dst}:
                self.chain_inc[self.index[end]].append(k)
        self.partners: list[list[int]] = [[] for _ in p.tasks]
        for a, b in p.exclusive:
            ia, ib = self.index[a], self.index[b]
            self.partners[ia].append(ib)
            if ib != ia:
                self.partners[ib].append(ia)
        self.opt = [-1] * self.n
        self.used = dict.fromkeys(self.budget, 0.0)
        self.latency = p.base_s + sum(t.cpu_s for t in p.tasks) + sum(e.cost(0, 0) for e in p.edges)
        # throughput terms
        self.core = [0] * self.n
        self.loads = [0.0] * p.cpu_cores
        self.loads[0] = p.base_s
        for t in p.tasks:
            self.loads[0] += t.cpu_s
        self.stages: list[tuple[float, int]] = []  # sorted (ii, task) of FPGA tasks
        # throughput with chains: tasks joined by chains are one group with one entry in
        # `stages` (key n + group, its slowest stage by period.chain_stages)
        self.group = [-1] * self.n
        self.group_problems: list[Problem] = []
        if p.objective == "throughput" and p.chains:
            up = list(range(self.n))

            def root(k: int) -> int:
                while up[k] != k:
                    up[k] = up[up[k]]
                    k = up[k]
                return k

            for c in p.chains:
                up[root(self.index[c.src])] = root(self.index[c.dst])
            roots: dict[int, int] = {}
            for c in p.chains:
                for end in (c.src, c.dst):
                    i = self.index[end]
                    self.group[i] = roots.setdefault(root(i), len(roots))
            for gid in range(len(roots)):
                members = [t for i, t in enumerate(p.tasks) if self.group[i] == gid]
                chains = [c for c in p.chains if self.group[self.index[c.src]] == gid]
                self.group_problems.append(
                    Problem(tasks=members, edges=[], budget={}, objective="throughput", chains=chains)
                )
            self.stages = [(0.0, self.n + gid) for gid in range(len(roots))]
        self.link = sum(e.cost(0, 0) for e in p.edges)
        self.makespan_jobs_placed = 0
        self._mk_cache: dict[tuple[int, ...], float] = {}

    # ---- moves

    def side(self, name: str, i: int | None = None, new: int | None = None) -> int:
        if name == MAIN:
            return 0
        k = self.index[name]
        return int((new if k == i else self.opt[k]) >= 0)

    def allowed(self, i: int, new: int) -> bool:
        t = self.p.tasks[i]
        if new >= 0 and (t.pin == "cpu" or any(self.opt[j] >= 0 and j != i for j in self.partners[i])):
            return False
        if new >= 0 and i in self.partners[i]:
            return False
        if new < 0 and t.pin == "fpga":
            return False
        old_res = self.opts[i][self.opt[i]].resources if self.opt[i] >= 0 else {}
        new_res = self.opts[i][new].resources if new >= 0 else {}
        for r, cap in self.budget.items():
            if self.used[r] - old_res.get(r, 0.0) + new_res.get(r, 0.0) > cap + FEAS_ABS:
                return False
        return True

    def _time(self, i: int, o: int) -> float:
        return self.p.tasks[i].cpu_s if o < 0 else self.opts[i][o].fpga_s

    def _edge_delta(self, i: int, new: int) -> float:
        d = 0.0
        for k in self.inc[i]:
            e = self.p.edges[k]
            d += e.cost(self.side(e.src, i, new), self.side(e.dst, i, new)) - e.cost(
                self.side(e.src), self.side(e.dst)
            )
        return d

    def _gain(self, k: int, i: int, new: int) -> float:
        """What chain k saves with task i at option `new` (0 unless both ends are on the FPGA)."""
        c = self.p.chains[k]
        o = [new if self.index[n] == i else self.opt[self.index[n]] for n in (c.src, c.dst)]
        if o[0] < 0 or o[1] < 0:
            return 0.0
        vs, vd = self.opts[self.index[c.src]][o[0]], self.opts[self.index[c.dst]][o[1]]
        return max(0.0, c.saving(vs.name, vd.name))

    def _chain_delta(self, i: int, new: int) -> float:
        return -sum(self._gain(k, i, new) - self._gain(k, i, self.opt[i]) for k in self.chain_inc[i])

    def key_after(self, i: int, new: int) -> tuple[float, float]:
        """(objective, latency) after moving task i to option `new` (the state is unchanged)."""
        old = self.opt[i]
        edge_d = self._edge_delta(i, new)
        lat = self.latency + self._time(i, new) - self._time(i, old) + edge_d + self._chain_delta(i, new)
        obj = self.p.objective
        if obj == "latency":
            return lat, lat
        if obj == "throughput":
            loads = list(self.loads)
            if old < 0:
                loads[self.core[i]] -= self.p.tasks[i].cpu_s
            if new < 0:
                c = min(range(len(loads)), key=lambda k: (loads[k], k))
                loads[c] += self.p.tasks[i].cpu_s
            key = i if self.group[i] < 0 else self.n + self.group[i]
            stage = 0.0
            for ii, j in reversed(self.stages):
                if j != key:
                    stage = ii
                    break
            if self.group[i] >= 0:
                stage = max(stage, self._group_stage(self.group[i], i, new))
            elif new >= 0:
                stage = max(stage, self.opts[i][new].period_s)
            return max(*loads, stage, self.link + edge_d), lat
        self.opt[i] = new
        try:
            return self.makespan(), lat
        finally:
            self.opt[i] = old

    def apply(self, i: int, new: int) -> None:
        old = self.opt[i]
        if old == new:
            return
        edge_d = self._edge_delta(i, new)
        self.latency += self._time(i, new) - self._time(i, old) + edge_d + self._chain_delta(i, new)
        self.link += edge_d
        gid = self.group[i]
        if gid >= 0:
            self.stages.remove((self._group_stage(gid), self.n + gid))
        if old >= 0:
            for r in self.budget:
                self.used[r] -= self.opts[i][old].resources.get(r, 0.0)
            if gid < 0:
                self.stages.remove((self.opts[i][old].period_s, i))
        else:
            self.loads[self.core[i]] -= self.p.tasks[i].cpu_s
        if new >= 0:
            for r in self.budget:
                self.used[r] += self.opts[i][new].resources.get(r, 0.0)
            if gid < 0:
                bisect.insort(self.stages, (self.opts[i][new].period_s, i))
        else:
            c = min(range(len(self.loads)), key=lambda k: (self.loads[k], k))
            self.core[i] = c
            self.loads[c] += self.p.tasks[i].cpu_s
        self.opt[i] = new
        if gid >= 0:
            bisect.insort(self.stages, (self._group_stage(gid), self.n + gid))

    def _group_stage(self, gid: int, i: int | None = None, new: int | None = None) -> float:
        """The slowest FPGA stage of chain group `gid` (with task i at option `new`)."""
        gp = self.group_problems[gid]
        ch = {}
        for t in gp.tasks:
            k = self.index[t.name]
            o = new if k == i else self.opt[k]
            ch[t.name] = None if o < 0 else self.opts[k][o]
        return max((secs for _, secs in chain_stages(gp, ch)[0]), default=0.0)

    def key(self) -> tuple[float, float]:
        obj = self.p.objective
        if obj == "latency":
            return self.latency, self.latency
        if obj == "throughput":
            return max(*self.loads, self.stages[-1][0] if self.stages else 0.0, self.link), self.latency
        return self.makespan(), self.latency

    def makespan(self) -> float:
        sig = tuple(self.opt)
        hit = self._mk_cache.get(sig)
        if hit is None:
            ch = self.choice_map()
            jobs = makespan_jobs(self.p, ch)
            self.makespan_jobs_placed += len(jobs)
            hit = _list_schedule(self.p, jobs)[0]
            self._mk_cache[sig] = hit
        return hit

    def choice_map(self) -> dict:
        return {
            t.name: (None if o < 0 else self.opts[i][o])
            for i, (t, o) in enumerate(zip(self.p.tasks, self.opt))
        }

    def rebalance(self) -> None:
        """Longest CPU task first onto the less loaded core (throughput, two cores), if that is better."""
        if self.p.cpu_cores == 1:
            return
        cpu = sorted((i for i in range(self.n) if self.opt[i] < 0), key=lambda i: (-self.p.tasks[i].cpu_s, i))
        loads = [0.0] * self.p.cpu_cores
        loads[0] = self.p.base_s
        core = list(self.core)
        for i in cpu:
            c = min(range(len(loads)), key=lambda k: (loads[k], k))
            core[i] = c
            loads[c] += self.p.tasks[i].cpu_s
        if max(loads) < max(self.loads):
            self.core, self.loads = core, loads

    def result(self) -> Choice:
        p = self.p
        x = {t.name: int(o >= 0) for t, o in zip(p.tasks, self.opt)}
        var = {t.name: self.opts[i][o].name for i, (t, o) in enumerate(zip(p.tasks, self.opt)) if o >= 0}
        ch = chosen(p, x, var)
        cores: dict[str, int] = {}
        schedule: list[dict] = []
        if p.objective == "makespan":
            obj, schedule = list_schedule(p, ch)
        elif p.objective == "throughput":
            cores = {t.name: self.core[i] for i, t in enumerate(p.tasks) if self.opt[i] < 0}
            schedule = throughput_entries(p, ch, cores)
            obj = self.key()[0]
        else:
            obj = self.latency
        return Choice(x, var, obj, cores, schedule)


# --------------------------------------------------------------------------- greedy and improvement


def greedy(problem: Problem, *, improve_pass: bool = True) -> Choice | None:
    """A feasible choice by hot-function-first greedy (and `improve`); None if none is found.

    None means the greedy found no feasible choice (it could not place the
    pinned tasks, or a budget is below zero); the problem may still be
    feasible (the ILP decides).
    """
    st = _State(problem)
    # pinned tasks first, each with its fastest variant that fits
    for i, t in enumerate(problem.tasks):
        if t.pin != "fpga":
            continue
        fits = [k for k in range(len(st.opts[i])) if st.allowed(i, k)]
        if not fits:
            return None
        st.apply(i, min(fits, key=lambda k: (st.opts[i][k].fpga_s, k)))
    if problem.objective == "makespan":
        # rank with the latency objective (cheap, and less work is what a schedule needs),
        # then let the improvement pass judge by the makespan
        lat = dataclasses.replace(problem, objective="latency")
        start = greedy(lat, improve_pass=False)
        if start is not None:
            for i, t in enumerate(problem.tasks):
                name = start.variant.get(t.name)
                want = -1 if name is None else next(k for k, v in enumerate(st.opts[i]) if v.name == name)
                if st.opt[i] != want:
                    st.apply(i, -1)
            for i, t in enumerate(problem.tasks):
                name = start.variant.get(t.name)
                if name is not None and st.opt[i] < 0:
                    k = next(k for k, v in enumerate(st.opts[i]) if v.name == name)
                    if st.allowed(i, k):
                        st.apply(i, k)
    else:
        shares = {r: cap for r, cap in st.budget.items() if cap > 0}
        cands = []
        for i, t in enumerate(problem.tasks):
            if t.pin is not None:
                continue
            for k, v in enumerate(st.opts[i]):
                gain = t.cpu_s - v.fpga_s
                if gain <= 0 and problem.objective == "latency":
                    continue
                use = sum(v.resources.get(r, 0.0) / cap for r, cap in shares.items())
                cands.append((-gain / (use + 1e-9), i, k))
        cands.sort()
        for _, i, k in cands:
            if st.opt[i] == k or not st.allowed(i, k):
                continue
            if st.key_after(i, k) < st.key():
                st.apply(i, k)
    if improve_pass:
        improve(st)
    st.rebalance()
    out = st.result()
    if not feasible(problem, out.assignment, out.variant):
        return None  # e.g. a budget below zero: not even the CPU-only choice is feasible
    return out


def improve(st: _State, *, max_steps: int = 25, max_passes: int = 4) -> None:
    """Kernighan–Lin style passes over single moves (see the module docstring)."""
    free = [i for i, t in enumerate(st.p.tasks) if st.opts[i] and t.pin != "cpu"]
    budget = MAKESPAN_JOB_BUDGET if st.p.objective == "makespan" else math.inf
    for _ in range(max_passes):
        start_key = best_key = st.key()
        history: list[tuple[int, int]] = []
        best_len = 0
        locked: set[int] = set()
        for _ in range(min(max_steps, len(free))):
            move = None
            move_key = (math.inf, math.inf)
            for i in free:
                if i in locked:
                    continue
                for new in range(-1, len(st.opts[i])):
                    if new == st.opt[i] or not st.allowed(i, new):
                        continue
                    if st.makespan_jobs_placed > budget:
                        break
                    k = st.key_after(i, new)
                    if k < move_key:
                        move, move_key = (i, new), k
            if move is None:
                break
            i, new = move
            history.append((i, st.opt[i]))
            st.apply(i, new)
            locked.add(i)
            if move_key < best_key:
                best_key, best_len = move_key, len(history)
        for i, old in reversed(history[best_len:]):
            st.apply(i, old)
        if not best_key < start_key or st.makespan_jobs_placed > budget:
            break
