"""The throughput objective of a fixed choice: the period per frame, its loads and its stages.

Separate from `partition.solve.model` (the problem every objective shares):
this is the steady-state model of a loop over frames, with the exact
two-core split and the choice of AXI-Stream chains per stage.

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

"""

from __future__ import annotations

import numpy as np

from partition.errors import PartitionError
from partition.solve.model import MAIN, ChainCost, Problem, side, streamable

EXACT_SPLIT_TASKS = 22  # the exact two-core split enumerates 2^(n-1) subsets up to this many tasks
EXACT_CHAIN_BITS = 16  # throughput: a group of chains sharing tasks is enumerated up to this many chains


def throughput_loads(problem: Problem, ch: dict) -> tuple[list[float], float, float]:
    """(CPU task times, slowest FPGA stage, link load) of one frame."""
    cpu = [t.cpu_s for t in problem.tasks if ch[t.name] is None]
    fpga = max((s for _, s in chain_stages(problem, ch)[0]), default=0.0)
    link = 0.0
    for e in problem.edges:
        link += e.cost(side(ch, e.src), side(ch, e.dst))
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


def period(problem: Problem, ch: dict) -> float:
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
        d = e.cost(side(ch, e.src), side(ch, e.dst))
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
