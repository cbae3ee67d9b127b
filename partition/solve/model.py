"""The optimisation problem the solver sees, independent of how it was measured.

`plan` turns profile, estimates and board constants into a `Problem`; the ILP
(`partition.solve.ilp`) and the brute-force reference (`partition.solve.brute`)
both consume only this, and `evaluate` below is the one definition of what a
choice costs, so the two can be compared on random instances.

A choice is, for every task, the CPU or one FPGA implementation variant:
`assignment[name]` is 1 for the FPGA, 0 for the CPU, and `variant[name]`
names the variant of each FPGA task (when left out: the task's first one).

Tasks and variants
------------------
A task has an (inclusive) CPU time `cpu_s` and a list of FPGA `variants`
(HLS settings: pipeline on/off, unroll factor, array partitioning, burst
width), each with its total FPGA time `fpga_s` (compute plus per-call
overhead plus copy-out, all calls), its `resources` and, for streaming, its
initiation interval per frame `ii_s` (None: the same as `fpga_s`). A task
given with `fpga_s`/`resources` and no `variants` has that one variant, named
"default"; `fpga_s` None and no variants means the task cannot run on the
FPGA. A task pinned to the FPGA may use any of its variants.

Edges
-----
An edge's cost depends on where both ends run: c[(a, b)] for x_src = a,
x_dst = b (c00 is normally 0). The <main> node is always on the CPU and is not
a task; edges from/to it use src/dst = "<main>" and only c[(0, 0)] /
c[(0, 1)] (or c[(1, 0)]) matter. `exclusive` lists pairs that may not both be
on the FPGA (a task and a task it calls: when the caller is a kernel the
callee is inlined into it). Budgets bound the sum of the chosen variants'
resources.

Objective `latency` (one run of the app, blocking calls; the default)
---------------------------------------------------------------------
    T = base_s + sum_i [cpu_s(i) if on the CPU else fpga_s(i, v)] + sum_e cost_e(x_src, x_dst)

Everything runs one after the other; `cpu_cores` does not matter.

Chains (latency and throughput)
-------------------------------
`chains` lists task pairs src -> dst whose kernels may run as one AXI-Stream
chain: src streams its result straight into dst (partition.frontend.chains says
when the app allows it). When both are on the FPGA, a chain saves
src_s[src variant] + dst_s[dst variant] - stream_s: each end's share of moving
the array through DDR (the producer's store phase and the consumer's load
phase, their buffers' cache maintenance and pointer registers) minus the
stream's own time, counted once because the two ends overlap. A chain is used
exactly when both ends are on the FPGA and that saving is positive; a task
is the src of at most one chain (it returns one array, all of it to dst), so
chains never compete and the saving of a choice is the sum over its chains.
The throughput model takes chains too (see there); the makespan model runs
one kernel at a time on the FPGA, which a chain's two running ends contradict,
so it takes none (`check_problem` rejects them).

Objective `makespan` (one run, CPU and FPGA overlap)
----------------------------------------------------
The runtime starts a kernel without waiting (non-blocking start) and waits
for it only where a result is needed, so CPU work and FPGA work overlap where
the task graph allows. Assumptions:

* every task is one job (all its calls back to back): on the CPU it takes
  `cpu_s` on one core, on the FPGA `fpga_s` of its variant on the FPGA;
* the task graph is the data edges between tasks (src != dst, neither
  <main>) plus `precedence`; it must be acyclic. A consumer starts after its
  producer has finished;
* every edge is a transfer job of length cost_e(x_src, x_dst) that the host
  performs (a copy into or out of a CMA buffer): it runs on a CPU core, after
  its producer task ends (none for <main>) and before its consumer task
  starts (none for <main>, or for a self-loop);
* the FPGA runs one kernel at a time: the runtime drives kernels from one
  thread, and kernels share the HP port into DDR;
* `cpu_cores` (1 or 2) identical cores run CPU jobs, one job per core at a
  time; a second core is used through a second process (the GIL keeps one
  Python process on one core);
* a job of length zero occupies nothing (it is only a point in time);
* `base_s` (the app's own code outside the tasks) runs first, on its own:
  T = base_s + C, where C is the length of the best schedule of the jobs.
  With one core the tasks in the latency order are such a schedule, so the
  makespan never exceeds the latency.

`evaluate` computes C exactly for the fixed choice (`optimal_schedule`, an
exhaustive search over list schedules with memoisation; see there why it is
exact). That is exponential and meant for small graphs; large ones are
scheduled by the ILP or by list scheduling (`partition.solve.heuristic`), and
`schedule_length` checks any such schedule against the rules above.

Objective `throughput` (a loop over frames, steady state)
---------------------------------------------------------
Every task runs once per frame and all resources work on different frames
at the same time (software pipelining), so the period per frame is the load
of the busiest resource:

    period = max(CPU load of each core, ii of each FPGA task, link load)

* CPU: `base_s` (the main thread's own code) plus the CPU tasks; with two
  cores the CPU tasks are split between them (the best split), `base_s`
  stays on core 0;
* FPGA: every FPGA task is its own pipelined stage (its own IP), so each
  stage bounds the period by its variant's `ii_s`;
* link: every edge's cost_e(x_src, x_dst) is time on one shared link
  (the DMA's MM2S and S2MM channels, and the CPU's copies into CMA, are one
  resource: the HP port into DDR). Edge costs are not charged to a core.

Chains under throughput. What a chain saves (its ends' DDR store and load
phases, their buffers' cache maintenance and pointer-register writes) is
part of its ends' `fpga_s`, which this model charges to the FPGA stages, not
to a core; the array a chain carries already stays in DDR between two
kernels (the edge's c11 holds no copy of it) and the stream runs PL to PL,
not through the HP port, so the CPU load and the link do not change. What
changes is the stages: the runtime starts a chain's producer from its
consumer's call and waits for both (`StreamedResult`), so per frame the
kernels joined by used chains run as one unit and neither takes the next
frame before the other is done. They are one stage, whose time is what the
latency model charges them: the sum of their `fpga_s` minus the used chains'
savings (the ends overlap only while the stream runs; before it the producer
computes, after it the consumer does). Not the max of the two, and not their
ii: a pipelined kernel's ii needs a new frame before the last is done, which
the joined call does not give. So a chain is a choice: it
helps when the joined stage is faster than the slowest of its kernels' own
stages, and it is declined otherwise even with a positive saving (two
balanced stages of 1 s beat one of 2 s - 0.4 s). A chain can be used only when
it is streamable (both ends on the FPGA, positive saving); among those, each
group that shares tasks uses the subset with the shortest slowest stage
(`chain_stages`). The model needs the chains to form no cycle, each end's
shares within its variant's FPGA time and a chained variant's ii within its
FPGA time (`check_problem`).

Pins, budgets and exclusive pairs are the same for every objective.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from partition.errors import PartitionError

OBJECTIVES = ("latency", "makespan", "throughput")
MAIN = "<main>"
DEFAULT_VARIANT = "default"

_FEAS_ABS = 1e-9  # resource budgets are met within this slack
EXACT_STATES = 100_000  # the exact makespan search gives up beyond this many states
EXACT_SPLIT_TASKS = 22  # the exact two-core split enumerates 2^(n-1) subsets up to this many tasks
EXACT_CHAIN_BITS = 16  # throughput: a group of chains sharing tasks is enumerated up to this many chains


@dataclass
class Variant:
    """One FPGA implementation of a task (one set of HLS directives)."""

    name: str
    fpga_s: float
    resources: dict[str, float] = field(default_factory=dict)
    ii_s: float | None = None  # steady-state interval per frame; None: fpga_s

    @property
    def period_s(self) -> float:
        return self.fpga_s if self.ii_s is None else self.ii_s


@dataclass
class TaskCost:
    name: str
    cpu_s: float
    fpga_s: float | None = None  # single-variant shorthand (see `options`)
    resources: dict[str, float] = field(default_factory=dict)
    pin: str | None = None  # "cpu", "fpga" or None
    variants: list[Variant] = field(default_factory=list)

    def options(self) -> list[Variant]:
        """The FPGA variants of the task: `variants`, or the one given by fpga_s/resources."""
        if self.variants:
            return list(self.variants)
        if self.fpga_s is None:
            return []
        return [Variant(DEFAULT_VARIANT, self.fpga_s, dict(self.resources))]


@dataclass
class EdgeCost:
    src: str
    dst: str
    c00: float = 0.0
    c01: float = 0.0
    c10: float = 0.0
    c11: float = 0.0

    def cost(self, xs: int, xd: int) -> float:
        return (self.c00, self.c01, self.c10, self.c11)[2 * xs + xd]


@dataclass
class ChainCost:
    """Kernels src and dst may stream src's result over AXI-Stream (see Chains above)."""

    src: str
    dst: str
    src_s: dict[str, float] = field(default_factory=dict)  # src variant -> its end of the DDR round trip
    dst_s: dict[str, float] = field(default_factory=dict)  # dst variant -> its end
    stream_s: float = 0.0  # the stream itself (all calls)

    def saving(self, vs: str, vd: str) -> float:
        """Seconds the chain saves with src as variant `vs` and dst as `vd` (may be negative)."""
        return self.src_s.get(vs, 0.0) + self.dst_s.get(vd, 0.0) - self.stream_s


@dataclass
class Problem:
    tasks: list[TaskCost]
    edges: list[EdgeCost]
    budget: dict[str, float]  # resource -> usable amount (after cap and shell)
    base_s: float = 0.0  # time not attributable to any task (main's own code)
    exclusive: list[tuple[str, str]] = field(default_factory=list)
    objective: str = "latency"  # one of OBJECTIVES
    cpu_cores: int = 1  # cores for CPU tasks (makespan, throughput)
    precedence: list[tuple[str, str]] = field(default_factory=list)  # extra "a before b" (makespan)
    chains: list[ChainCost] = field(default_factory=list)  # AXI-Stream chains (latency, throughput)


@dataclass
class Solution:
    assignment: dict[str, int]  # task -> 1 (FPGA) / 0 (CPU)
    objective_s: float
    status: str  # "Optimal", "Time limit", "Feasible", "Infeasible", "Not Solved"
    solver: str
    gap: float | None = 0.0
    solve_time_s: float = 0.0
    stats: dict[str, int] = field(default_factory=dict)  # variables, constraints
    variant: dict[str, str] = field(default_factory=dict)  # FPGA task -> variant name
    # makespan: the jobs of one run; throughput: one period's load per resource
    # (entries: task, kind, resource, start_s, end_s; see `schedule_entries`)
    schedule: list[dict] = field(default_factory=list)


# --------------------------------------------------------------------------- choices


def chosen(problem: Problem, assignment: dict[str, int], variant: dict[str, str] | None = None) -> dict:
    """task name -> the chosen Variant (FPGA) or None (CPU); a missing variant means the first one.

    Raises PartitionError for a variant name the task does not have. A task on
    the FPGA without any variant maps to the string "missing" (infeasible).
    """
    out: dict[str, Variant | str | None] = {}
    variant = variant or {}
    for t in problem.tasks:
        if not assignment.get(t.name, 0):
            out[t.name] = None
            continue
        opts = t.options()
        if not opts:
            out[t.name] = "missing"
            continue
        want = variant.get(t.name)
        if want is None:
            out[t.name] = opts[0]
            continue
        match = next((v for v in opts if v.name == want), None)
        if match is None:
            raise PartitionError(
                f"task {t.name} has no variant {want!r}; its variants: {', '.join(v.name for v in opts)}"
            )
        out[t.name] = match
    return out


def feasible(problem: Problem, assignment: dict[str, int], variant: dict[str, str] | None = None) -> bool:
    x = assignment
    ch = chosen(problem, assignment, variant)
    for t in problem.tasks:
        if ch[t.name] == "missing":
            return False
        if t.pin == "cpu" and x.get(t.name, 0):
            return False
        if t.pin == "fpga" and not x.get(t.name, 0):
            return False
    for a, b in problem.exclusive:
        if x.get(a, 0) and x.get(b, 0):
            return False
    for r, cap in problem.budget.items():
        used = 0.0
        for t in problem.tasks:
            v = ch[t.name]
            if isinstance(v, Variant):
                used += v.resources.get(r, 0.0)
        if used > cap + _FEAS_ABS:
            return False
    return True


def evaluate(problem: Problem, assignment: dict[str, int], variant: dict[str, str] | None = None) -> float:
    """The objective of a choice under `problem.objective` (the reference every solver shares).

    +inf when a task on the FPGA has no FPGA implementation. Budgets, pins and
    exclusive pairs are `feasible`'s business, not this function's.
    """
    ch = chosen(problem, assignment, variant)
    if any(v == "missing" for v in ch.values()):
        return math.inf
    if problem.objective == "latency":
        return _latency(problem, ch)
    if problem.objective == "makespan":
        return problem.base_s + optimal_schedule(problem, ch)[0]
    if problem.objective == "throughput":
        return _period(problem, ch)
    raise PartitionError(f"objective {problem.objective!r}: choose one of {', '.join(OBJECTIVES)}")


def _side(ch: dict, name: str) -> int:
    return 0 if name == MAIN else int(ch[name] is not None)


def _latency(problem: Problem, ch: dict) -> float:
    total = problem.base_s
    for t in problem.tasks:
        v = ch[t.name]
        total += t.cpu_s if v is None else v.fpga_s
    for e in problem.edges:
        total += e.cost(_side(ch, e.src), _side(ch, e.dst))
    for c in streamed(problem, ch):
        total -= c.saving(ch[c.src].name, ch[c.dst].name)
    return total


def streamable(problem: Problem, ch: dict) -> list[ChainCost]:
    """The chains a choice may use: both ends on the FPGA and a positive saving."""
    out = []
    for c in problem.chains:
        vs, vd = ch.get(c.src), ch.get(c.dst)
        if isinstance(vs, Variant) and isinstance(vd, Variant) and c.saving(vs.name, vd.name) > 0.0:
            out.append(c)
    return out


def streamed(problem: Problem, ch: dict) -> list[ChainCost]:
    """The chains a choice uses: for latency every streamable one; for throughput those of
    the best stages (`chain_stages`)."""
    if problem.objective == "throughput":
        return chain_stages(problem, ch)[1]
    return streamable(problem, ch)


# --------------------------------------------------------------------------- throughput


def throughput_loads(problem: Problem, ch: dict) -> tuple[list[float], float, float]:
    """(CPU task times, slowest FPGA stage, link load) of one frame."""
    cpu = [t.cpu_s for t in problem.tasks if ch[t.name] is None]
    fpga = max((s for _, s in chain_stages(problem, ch)[0]), default=0.0)
    link = 0.0
    for e in problem.edges:
        link += e.cost(_side(ch, e.src), _side(ch, e.dst))
    return cpu, fpga, link


def chain_stages(problem: Problem, ch: dict) -> tuple[list[tuple[tuple[str, ...], float]], list[ChainCost]]:
    """Throughput: the FPGA stages of a choice, (members, seconds per frame) in task order, and
    the chains it streams (see Chains under throughput).

    A kernel in no used chain is a stage of its own (its variant's ii); the kernels joined
    by used chains are one stage taking the sum of their FPGA times minus the chains'
    savings. The used chains are, in each group of streamable chains that share tasks,
    the subset whose slowest stage is the shortest (ties: fewer chains, then the first
    subset in binary order of the chains' problem order), found by enumeration of at most
    2^EXACT_CHAIN_BITS subsets a group.
    """
    index = {t.name: k for k, t in enumerate(problem.tasks)}
    cand = streamable(problem, ch) if problem.chains else []
    parent = {c.src: c.src for c in cand} | {c.dst: c.dst for c in cand}

    def root(n: str, up: dict[str, str]) -> str:
        while up[n] != n:
            up[n] = up[up[n]]
            n = up[n]
        return n

    for c in cand:
        parent[root(c.src, parent)] = root(c.dst, parent)
    groups: dict[str, list[ChainCost]] = {}
    for c in cand:
        groups.setdefault(root(c.src, parent), []).append(c)
    stages = [
        ((t.name,), ch[t.name].period_s)
        for t in problem.tasks
        if ch[t.name] is not None and t.name not in parent
    ]
    used: list[ChainCost] = []
    for group in groups.values():
        if len(group) > EXACT_CHAIN_BITS:
            raise PartitionError(
                f"{len(group)} streamable chains share tasks ({group[0].src} -> {group[0].dst}, ...); "
                f"the exact throughput model enumerates their subsets up to {EXACT_CHAIN_BITS} chains"
            )
        members = sorted({n for c in group for n in (c.src, c.dst)}, key=index.__getitem__)
        saves = [c.saving(ch[c.src].name, ch[c.dst].name) for c in group]
        best: tuple | None = None
        for mask in range(1 << len(group)):
            up = {n: n for n in members}
            for b, c in enumerate(group):
                if mask >> b & 1:
                    up[root(c.src, up)] = root(c.dst, up)
            comp: dict[str, list[str]] = {}
            for n in members:
                comp.setdefault(root(n, up), []).append(n)
            total = dict.fromkeys(comp, 0.0)
            for names in comp.values():
                r = root(names[0], up)
                if len(names) == 1:
                    total[r] = ch[names[0]].period_s
                else:
                    for n in names:
                        total[r] += ch[n].fpga_s
            for b, c in enumerate(group):
                if mask >> b & 1:
                    total[root(c.src, up)] -= saves[b]
            worst = max(total.values())
            key = (worst, mask.bit_count(), mask)
            if best is None or key < best[0]:
                best = (key, [(tuple(comp[r]), total[r]) for r in comp])
        assert best is not None
        stages += best[1]
        used += [c for b, c in enumerate(group) if best[0][2] >> b & 1]
    stages.sort(key=lambda s: index[s[0][0]])
    order = {id(c): k for k, c in enumerate(problem.chains)}
    used.sort(key=lambda c: order[id(c)])
    return stages, used


def _period(problem: Problem, ch: dict) -> float:
    cpu, fpga, link = throughput_loads(problem, ch)
    return max(best_split(problem.base_s, cpu, problem.cpu_cores), fpga, link)


def best_split(base_s: float, cpu: list[float], cores: int) -> float:
    """The busiest core's load when CPU tasks are split as well as possible (`base_s` on core 0)."""
    return _split(base_s, cpu, cores)[0]


def _split(base_s: float, cpu: list[float], cores: int) -> tuple[float, list[int]]:
    """(busiest core's load, core of each task) for the best split of `cpu` over the cores.

    Two cores: the sum of every subset of tasks put on core 1 is enumerated
    (numpy, 2^n sums; the first task stays on core 0 when `base_s` is 0, by
    symmetry), so the split is exact; it is limited to EXACT_SPLIT_TASKS tasks.
    Among equal splits the first subset in binary order wins.
    """
    total = base_s
    for c in cpu:
        total += c
    if cores == 1 or not cpu:
        return total, [0] * len(cpu)
    if len(cpu) > EXACT_SPLIT_TASKS:
        raise PartitionError(
            f"the exact split of {len(cpu)} CPU tasks over two cores is limited to "
            f"{EXACT_SPLIT_TASKS} tasks; use the ILP's split"
        )
    free = list(range(1 if base_s == 0.0 else 0, len(cpu)))
    sums = np.zeros(1)
    for k in free:  # bit b of an index: task free[b] is on core 1
        sums = np.concatenate([sums, sums + cpu[k]])
    loads = np.maximum(total - sums, sums)
    idx = int(np.argmin(loads))
    core = [0] * len(cpu)
    for b, k in enumerate(free):
        core[k] = (idx >> b) & 1
    return float(loads[idx]), core


# --------------------------------------------------------------------------- makespan


@dataclass(frozen=True)
class Job:
    """One job of a makespan schedule."""

    name: str  # the task, or "src->dst" for a transfer
    kind: str  # "task" or "transfer"
    resource: str | None  # "cpu", "fpga", or None for a job of length zero
    duration: float
    preds: tuple[int, ...]  # jobs that must end before this one starts
    edge: int | None = None  # index into problem.edges for a transfer


def task_order(problem: Problem) -> list[tuple[str, str]]:
    """The precedence pairs between tasks (data edges and `precedence`), checked acyclic."""
    names = {t.name for t in problem.tasks}
    pairs: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for a, b in [(e.src, e.dst) for e in problem.edges] + list(problem.precedence):
        if a == b or a not in names or b not in names or (a, b) in seen:
            continue
        seen.add((a, b))
        pairs.append((a, b))
    succ: dict[str, list[str]] = {t.name: [] for t in problem.tasks}
    for a, b in pairs:
        succ[a].append(b)
    state: dict[str, int] = {}
    for root in succ:
        if state.get(root):
            continue
        stack = [(root, iter(succ[root]))]
        state[root] = 1
        path = [root]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(nxt) == 1:
                cycle = [*path[path.index(nxt) :], nxt]
                raise PartitionError(
                    "the task graph has a cycle " + " -> ".join(cycle) + "; the makespan objective "
                    "needs an acyclic graph (use the latency or throughput objective)"
                )
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(succ[nxt])))
    return pairs


def makespan_jobs(problem: Problem, ch: dict) -> list[Job]:
    """The jobs of one run for a fixed choice: the tasks, then every transfer of positive length.

    A transfer of length zero is left out and its producer precedes its
    consumer directly.
    """
    index = {t.name: k for k, t in enumerate(problem.tasks)}
    preds: list[list[int]] = [[] for _ in problem.tasks]
    jobs: list[Job] = []
    transfers: list[Job] = []
    for a, b in task_order(problem):
        preds[index[b]].append(index[a])
    n = len(problem.tasks)
    for k, e in enumerate(problem.edges):
        d = e.cost(_side(ch, e.src), _side(ch, e.dst))
        if d < 0:
            raise PartitionError(f"edge {e.src} -> {e.dst}: a transfer cannot take {d!r} s")
        if d == 0:
            continue
        src = index.get(e.src)
        dst = index.get(e.dst) if e.dst != e.src else None
        jid = n + len(transfers)
        transfers.append(
            Job(f"{e.src}->{e.dst}", "transfer", "cpu", d, () if src is None else (src,), edge=k)
        )
        if dst is not None:
            preds[dst].append(jid)
    for k, t in enumerate(problem.tasks):
        v = ch[t.name]
        d = t.cpu_s if v is None else v.fpga_s
        res = None if d == 0 else ("cpu" if v is None else "fpga")
        jobs.append(Job(t.name, "task", res, d, tuple(sorted(set(preds[k])))))
    return jobs + transfers


class ScheduleTooLarge(PartitionError):
    """The exact makespan search would visit more than EXACT_STATES states."""


def longest_paths(preds: list[list[int]], dur: list[float]) -> tuple[list[int], list[float], list[float]]:
    """(topological order, head, tail) of a job graph: head[j] is the longest chain of
    durations that must end before job j starts, tail[j] the longest that must follow its end.

    head + duration + tail is the lower bound every makespan search here starts
    from (the exact search's cuts, the MILP's release dates and big-M values,
    CP-SAT's fallback bound)."""
    n = len(preds)
    succs: list[list[int]] = [[] for _ in range(n)]
    for j, ps in enumerate(preds):
        for p in ps:
            succs[p].append(j)
    indeg = [len(ps) for ps in preds]
    topo: list[int] = []
    stack = [j for j in range(n) if indeg[j] == 0]
    while stack:  # depth first: the order the exact search tries ready jobs in
        j = stack.pop()
        topo.append(j)
        for q in succs[j]:
            indeg[q] -= 1
            if indeg[q] == 0:
                stack.append(q)
    head = [0.0] * n
    for j in topo:
        head[j] = max((head[p] + dur[p] for p in preds[j]), default=0.0)
    tail = [0.0] * n
    for j in reversed(topo):
        tail[j] = max((dur[q] + tail[q] for q in succs[j]), default=0.0)
    return topo, head, tail


def optimal_schedule(
    problem: Problem, ch: dict, *, below: float = math.inf, max_states: int = EXACT_STATES
) -> tuple[float, list[dict]]:
    """The shortest schedule of the jobs of a fixed choice: (length C, entries).

    Why the search is exact. Some optimal schedule is semi-active: every job
    starts as soon as its predecessors have ended and the job before it on its
    core (on the FPGA) has ended — shifting jobs left never lengthens a
    schedule. A semi-active schedule is fixed by the order of the jobs on each
    core and on the FPGA, and it is rebuilt by placing its jobs one by one, in
    any order that respects both the precedences and those per-resource
    orders, each appended to its resource as early as possible. The search
    tries every such placement: which ready job next and, with two cores, on
    which core. After a set of placed jobs the future depends only on the time
    each core and the FPGA becomes free and the end of each placed job with an
    unplaced successor, so that state is memoised with the best makespan so
    far that reached it (a state reached again with no better makespan is
    cut: same future, no better past).

    It is a depth-first branch and bound: a branch is cut when a lower bound
    (the longest remaining path from each job's earliest start; the remaining
    CPU work spread over the cores; the remaining FPGA work) reaches the best
    length found. A ready job of length zero is placed at once (it occupies
    nothing, so its start is fixed by its predecessors alone), and with two
    cores a job that is ready after both are free goes to the one that became
    free later (the other choice leaves strictly less room).

    `below`: only schedules strictly shorter than this are of interest; when
    there is none the result is (inf, []). Raises ScheduleTooLarge beyond
    `max_states` search nodes.
    """
    jobs = makespan_jobs(problem, ch)
    cores = problem.cpu_cores
    n = len(jobs)
    succs: list[list[int]] = [[] for _ in jobs]
    for j, job in enumerate(jobs):
        for p in job.preds:
            succs[p].append(j)
    topo, _head, tail = longest_paths([job.preds for job in jobs], [job.duration for job in jobs])
    pred_mask = [sum(1 << p for p in job.preds) for job in jobs]
    full = (1 << n) - 1
    seen: dict[tuple, float] = {}
    best_len = below
    best_order: list[tuple[int, int]] | None = None
    nodes = 0
    order: list[tuple[int, int]] = []

    def bound(done: int, cpu: list[float], fpga: float, ends: list[float]) -> float:
        est = list(ends)
        lb = 0.0
        cpu_work = 0.0
        fpga_work = 0.0
        first_fpga = math.inf
        first_cpu = min(cpu)
        for j in topo:
            if done >> j & 1:
                continue
            job = jobs[j]
            e = 0.0
            for p in job.preds:
                e = max(e, est[p])
            if job.resource == "cpu":
                e = max(e, first_cpu)
                cpu_work += job.duration
            elif job.resource == "fpga":
                e = max(e, fpga)
                fpga_work += job.duration
                first_fpga = min(first_fpga, e)
            est[j] = e + job.duration
            lb = max(lb, e + job.duration + tail[j])
        if cpu_work:
            lb = max(lb, (sum(cpu) + cpu_work) / cores)
        if fpga_work:
            lb = max(lb, first_fpga + fpga_work)
        return lb

    def search(done: int, cpu: list[float], fpga: float, ends: list[float], cmax: float) -> None:
        nonlocal best_len, best_order, nodes
        if done == full:
            if cmax < best_len:
                best_len, best_order = cmax, list(order)
            return
        nodes += 1
        if nodes > max_states:
            raise ScheduleTooLarge(
                f"the exact schedule search exceeded {max_states:,} states for {n} jobs; "
                "schedule with the ILP or with list scheduling instead"
            )
        live = tuple(ends[p] for p in range(n) if done >> p & 1 and any(not done >> q & 1 for q in succs[p]))
        key = (done, tuple(sorted(cpu)), fpga, live)
        prev = seen.get(key)
        if prev is not None and prev <= cmax:
            return
        seen[key] = cmax
        if max(cmax, bound(done, cpu, fpga, ends)) >= best_len:
            return
        ready = [j for j in range(n) if not done >> j & 1 and pred_mask[j] & done == pred_mask[j]]
        moves = []
        for j in ready:
            job = jobs[j]
            r = max((ends[p] for p in job.preds), default=0.0)
            if job.resource is None:
                moves = [(r, 0.0, j, -1)]
                break
            if job.resource == "fpga":
                moves.append((max(r, fpga), -tail[j] - job.duration, j, -1))
                continue
            later = max(range(cores), key=lambda c: (cpu[c], -c))
            options = [later] if r >= cpu[later] else range(cores)
            tried: set[float] = set()
            for c in options:
                if cpu[c] in tried:  # two cores free at the same time are interchangeable
                    continue
                tried.add(cpu[c])
                moves.append((max(r, cpu[c]), -tail[j] - job.duration, j, c))
        moves.sort()
        for start, _, j, c in moves:
            end = start + jobs[j].duration
            ends[j] = end
            order.append((j, c))
            if jobs[j].resource == "cpu":
                old = cpu[c]
                cpu[c] = end
                search(done | 1 << j, cpu, fpga, ends, max(cmax, end))
                cpu[c] = old
            elif jobs[j].resource == "fpga":
                search(done | 1 << j, cpu, end, ends, max(cmax, end))
            else:
                search(done | 1 << j, cpu, fpga, ends, max(cmax, end))
            order.pop()
            ends[j] = 0.0

    search(0, [0.0] * cores, 0.0, [0.0] * n, 0.0)
    if best_order is None:
        return math.inf, []
    return best_len, schedule_entries(problem, jobs, best_order, cores)


def schedule_entries(
    problem: Problem, jobs: list[Job], order: list[tuple[int, int]], cores: int
) -> list[dict]:
    """Append jobs in `order` ((job, core) pairs) to their resources, each as early as possible.

    Each entry: task (the task, or "src->dst"), kind ("task", "transfer" or
    "main"), resource ("cpu0", "cpu1", "fpga", or "" for a job of length
    zero), edge (index into problem.edges, transfers only), start_s, end_s —
    in seconds from the start of the run, `base_s` first on cpu0. Sorted by
    start, then resource, then name.
    """
    base = problem.base_s
    out: list[dict] = []
    if base > 0:
        out.append({"task": MAIN, "kind": "main", "resource": "cpu0", "start_s": 0.0, "end_s": base})
    free = [0.0] * cores
    fpga = 0.0
    ends: dict[int, float] = {}
    for j, core in order:
        job = jobs[j]
        start = max((ends[p] for p in job.preds), default=0.0)
        res = ""
        if job.resource == "cpu":
            start = max(start, free[core])
            free[core] = start + job.duration
            res = f"cpu{core}"
        elif job.resource == "fpga":
            start = max(start, fpga)
            fpga = start + job.duration
            res = "fpga"
        ends[j] = start + job.duration
        entry = {
            "task": job.name,
            "kind": job.kind,
            "resource": res,
            "start_s": base + start,
            "end_s": base + start + job.duration,
        }
        if job.edge is not None:
            entry["edge"] = job.edge
        out.append(entry)
    out.sort(key=lambda e: (e["start_s"], e["resource"], e["task"], e.get("edge", -1)))
    return out


def schedule_length(
    problem: Problem,
    assignment: dict[str, int],
    variant: dict[str, str] | None,
    schedule: list[dict],
) -> float:
    """Check a makespan schedule against the model and return its length (base_s included).

    Raises ValueError naming the first broken rule: a missing or extra job, a
    wrong duration or resource, a predecessor that ends after its successor
    starts, two jobs overlapping on one core or on the FPGA, a job before
    base_s.
    """
    ch = chosen(problem, assignment, variant)
    jobs = makespan_jobs(problem, ch)
    base = problem.base_s
    by_job: dict[tuple[str, int | None], dict] = {}
    for e in schedule:
        if e["kind"] == "main":
            continue
        k = (e["task"], e.get("edge"))
        if k in by_job:
            raise ValueError(f"job {k[0]} appears twice in the schedule")
        by_job[k] = e
    if len(by_job) != len(jobs):
        raise ValueError(f"the schedule has {len(by_job)} jobs, the model {len(jobs)}")
    cores = {f"cpu{c}" for c in range(problem.cpu_cores)}
    placed: list[dict] = []
    for job in jobs:
        e = by_job.get((job.name, job.edge))
        if e is None:
            raise ValueError(f"job {job.name} is missing from the schedule")
        tol = 1e-9 * max(1.0, abs(e["end_s"]))
        if abs(e["end_s"] - e["start_s"] - job.duration) > tol:
            raise ValueError(f"job {job.name} lasts {e['end_s'] - e['start_s']!r} s, not {job.duration!r} s")
        if e["start_s"] < base - tol:
            raise ValueError(f"job {job.name} starts before the app's own code has run")
        ok = (
            (job.resource == "cpu" and e["resource"] in cores)
            or (job.resource == "fpga" and e["resource"] == "fpga")
            or (job.resource is None)
        )
        if not ok:
            raise ValueError(f"job {job.name} runs on {e['resource']!r}, the model says {job.resource}")
        placed.append(e)
    for job, e in zip(jobs, placed):
        for p in job.preds:
            if placed[p]["end_s"] > e["start_s"] + 1e-9 * max(1.0, abs(e["start_s"])):
                raise ValueError(f"job {job.name} starts before its predecessor {jobs[p].name} ends")
    for a, b in itertools.combinations(range(len(jobs)), 2):
        ea, eb = placed[a], placed[b]
        if not ea["resource"] or ea["resource"] != eb["resource"]:
            continue
        if jobs[a].resource is None or jobs[b].resource is None:
            continue
        lo = max(ea["start_s"], eb["start_s"])
        hi = min(ea["end_s"], eb["end_s"])
        if hi - lo > 1e-9 * max(1.0, abs(hi)):
            raise ValueError(f"jobs {jobs[a].name} and {jobs[b].name} overlap on {ea['resource']}")
    return max([base, *(e["end_s"] for e in placed)])


def throughput_entries(problem: Problem, ch: dict, core_of: dict[str, int]) -> list[dict]:
    """One period's load per resource: each core's work back to back, each FPGA stage, the link.

    `core_of` gives the core of each CPU task. Entries as in `schedule_entries`;
    FPGA stages are separate IPs working at the same time, so their entries
    overlap (each from 0 to its ii). The kernels of one stage joined by AXI-Stream
    chains run at the same time too: each has an entry from 0 to the stage's time,
    with "stage" naming the stage (its kernels joined by "+").
    """
    stage_of: dict[str, tuple[tuple[str, ...], float]] = {}
    for members, secs in chain_stages(problem, ch)[0]:
        for n in members:
            stage_of[n] = (members, secs)
    out: list[dict] = []
    t = [0.0] * problem.cpu_cores
    if problem.base_s > 0:
        out.append(
            {"task": MAIN, "kind": "main", "resource": "cpu0", "start_s": 0.0, "end_s": problem.base_s}
        )
        t[0] = problem.base_s
    for task in problem.tasks:
        v = ch[task.name]
        if v is None:
            c = core_of.get(task.name, 0)
            out.append(
                {
                    "task": task.name,
                    "kind": "task",
                    "resource": f"cpu{c}",
                    "start_s": t[c],
                    "end_s": t[c] + task.cpu_s,
                }
            )
            t[c] += task.cpu_s
        else:
            members, secs = stage_of[task.name]
            entry = {"task": task.name, "kind": "task", "resource": "fpga", "start_s": 0.0, "end_s": secs}
            if len(members) > 1:
                entry["stage"] = "+".join(members)
            out.append(entry)
    link = 0.0
    for k, e in enumerate(problem.edges):
        d = e.cost(_side(ch, e.src), _side(ch, e.dst))
        if d:
            out.append(
                {
                    "task": f"{e.src}->{e.dst}",
                    "kind": "transfer",
                    "resource": "link",
                    "edge": k,
                    "start_s": link,
                    "end_s": link + d,
                }
            )
            link += d
    return out


def split_cores(base_s: float, cpu: dict[str, float], cores: int) -> dict[str, int]:
    """A best split of CPU tasks over the cores (see `_split`): task -> core."""
    _, core = _split(base_s, list(cpu.values()), cores)
    return dict(zip(cpu, core))
