"""The makespan objective of a fixed choice: its jobs, the exact schedule search, schedule entries.

Separate from `partition.solve.model` (the problem every objective shares):
this is the scheduling model of one run, with its exact search and the
checker every makespan solver's schedule passes through.

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

"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from partition.errors import PartitionError
from partition.solve.model import MAIN, Problem, chosen, side

EXACT_STATES = 100_000  # the exact makespan search gives up beyond this many states


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
        d = e.cost(side(ch, e.src), side(ch, e.dst))
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
    first_len, first_order = _list_order(jobs, succs, tail, cores)
    if first_len < best_len:  # a good first schedule: the bounds cut from the first node on
        best_len, best_order = first_len, first_order
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


def _list_order(
    jobs: list[Job], succs: list[list[int]], tail: list[float], cores: int
) -> tuple[float, list[tuple[int, int]]]:
    """A list schedule in the exact search's own terms: (its length, its (job, core) order).

    Ready jobs are taken longest remaining path first (ties: job order), each placed as
    early as its predecessors and resource allow (on the core free first), with the same
    arithmetic as the search's placements, so the search starts from its length and only
    looks for strictly shorter schedules."""
    n = len(jobs)
    indeg = [len(job.preds) for job in jobs]
    ready = [j for j in range(n) if indeg[j] == 0]
    ends = [0.0] * n
    cpu = [0.0] * cores
    fpga = 0.0
    cmax = 0.0
    order: list[tuple[int, int]] = []
    while ready:
        j = min(ready, key=lambda k: (-(tail[k] + jobs[k].duration), k))
        ready.remove(j)
        job = jobs[j]
        r = max((ends[p] for p in job.preds), default=0.0)
        c = -1
        if job.resource == "cpu":
            c = min(range(cores), key=lambda k: (cpu[k], k))
            start = max(r, cpu[c])
            cpu[c] = start + job.duration
        elif job.resource == "fpga":
            start = max(r, fpga)
            fpga = start + job.duration
        else:
            start = r
        ends[j] = start + job.duration
        cmax = max(cmax, ends[j])
        order.append((j, c))
        for q in succs[j]:
            indeg[q] -= 1
            if indeg[q] == 0:
                ready.append(q)
    return cmax, order


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
    free = [0.0] * cores
    fpga = 0.0
    ends: dict[int, float] = {}
    start = [0.0] * len(jobs)
    where = [""] * len(jobs)
    for j, core in order:
        job = jobs[j]
        t = max((ends[p] for p in job.preds), default=0.0)
        if job.resource == "cpu":
            t = max(t, free[core])
            free[core] = t + job.duration
            where[j] = f"cpu{core}"
        elif job.resource == "fpga":
            t = max(t, fpga)
            fpga = t + job.duration
            where[j] = "fpga"
        start[j] = t
        ends[j] = t + job.duration
    return entries_from_starts(problem, jobs, start, where)


def entries_from_starts(
    problem: Problem, jobs: list[Job], start: list[float], where: list[str]
) -> list[dict]:
    """Schedule entries (see `schedule_entries`) from start times relative to the end of base_s."""
    base = problem.base_s
    out: list[dict] = []
    if base > 0:
        out.append({"task": MAIN, "kind": "main", "resource": "cpu0", "start_s": 0.0, "end_s": base})
    for j, job in enumerate(jobs):
        e = {
            "task": job.name,
            "kind": job.kind,
            "resource": where[j],
            "start_s": base + start[j],
            "end_s": base + start[j] + job.duration,
        }
        if job.edge is not None:
            e["edge"] = job.edge
        out.append(e)
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
