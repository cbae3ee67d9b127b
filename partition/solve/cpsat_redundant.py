"""Redundant constraints of the CP-SAT makespan model: a no-overlap per core, and flow rows.

Neither changes which schedules the model admits; both change how fast
CP-SAT finds and proves the best one. `core_machines` gives every CPU job a
core and each core a no-overlap of its own (the cumulative bounds well but
finds poor two-core schedules); `flow_bounds` adds the work before and after
every job, and on several cores the time the cores wait for FPGA jobs.
Separate from `partition.solve.cpsat` (the model and its search), which adds
them where they pay.
"""

from __future__ import annotations

from partition.solve.model import MAIN, Problem, Variant
from partition.solve.schedule import task_order

_SPILL_VARS = 2000  # spill variables of the flow rows (see _spill_terms)


def core_machines(m, cpu_jobs: list, cores: int) -> None:
    """Every CPU job on one core, a no-overlap per core (redundant next to the cumulative).

    The cumulative alone bounds well but schedules two cores poorly: on the
    40-task benchmark its searches stopped at 0.362507 s, while with a
    disjunctive per core they find the schedule of 0.3625035 s whose two cores
    end together (the bound). Cores are identical, so the first job is put on
    core 0 (any schedule can swap its cores).
    """
    on: dict[object, list] = {}
    for job, _s, _d, _b in cpu_jobs:
        if job not in on:
            on[job] = [m.new_bool_var(f"core_{job}_{c}") for c in range(cores)]
            m.add_exactly_one(on[job])
    per_core: list[list] = [[] for _ in range(cores)]
    for job, s, d, b in cpu_jobs:
        here = []
        for c in range(cores):
            a = m.new_bool_var(f"a_{job}_{c}_{d}")
            m.add_implication(a, on[job][c])
            here.append(a)
            per_core[c].append(m.new_optional_fixed_size_interval_var(s, d, a, f"ic_{job}_{c}"))
        m.add(sum(here) == b)
    if on:
        first = next(iter(on))
        m.add(on[first][0] == 1)
    for ivs in per_core:
        m.add_no_overlap(ivs)


def flow_bounds(
    m, problem: Problem, C, start, end, edge_start, edge_end, cpu_work, fpga_work, cpu_max, window
) -> None:
    """Redundant rows: the work of a job's ancestors precedes it, its descendants' work follows it.

        cores * S_k >= CPU work of anc(k),          S_k >= FPGA work of anc(k),
        cores * (C - E_k) >= CPU work of desc(k),   C - E_k >= FPGA work of desc(k).
    The cumulative and no-overlap propagators see resources and precedences
    one at a time; these rows join them and give the search a far better
    bound from the start (two cores especially).
    """
    names = [t.name for t in problem.tasks]
    succ: dict[str, set[str]] = {n: set() for n in names}
    for a, c in task_order(problem):
        succ[a].add(c)
    desc: dict[str, set[str]] = {}

    def down(n: str) -> set[str]:
        if n not in desc:
            out: set[str] = set()
            for c in succ[n]:
                out |= {c} | down(c)
            desc[n] = out
        return desc[n]

    anc: dict[str, set[str]] = {n: set() for n in names}
    for n in names:
        for c in down(n):
            anc[c].add(n)
    # a transfer into task d comes before d and its descendants,
    # and a transfer out of task s comes after s and its ancestors
    into: dict[str, list[int]] = {n: [] for n in names}
    out_of: dict[str, list[int]] = {n: [] for n in names}
    for k, e in enumerate(problem.edges):
        if e.dst in into and e.dst != e.src:
            into[e.dst].append(k)
        if e.src in out_of:
            out_of[e.src].append(k)

    def work(table: dict, tasks: set[str], edges: set[int]) -> list:
        return [t for n in sorted(tasks) for t in table.get(n, [])] + [
            t for k in sorted(edges) for t in table.get(k, [])
        ]

    cores = problem.cpu_cores
    jobs: list[tuple[object, object, set[str], set[int], set[str], set[int]]] = []
    unrelated: dict[int, list[object]] = {}  # row (index into jobs) -> CPU jobs that may overlap it
    for n in names:
        before = anc[n]
        e_before = {k for a in before | {n} for k in into[a]}
        after = down(n)
        e_after = {k for a in after | {n} for k in out_of[a]}
        unrelated[len(jobs)] = [j for j in names if j not in before | after | {n}] + [
            k for k in range(len(problem.edges)) if k not in e_before | e_after
        ]
        jobs.append((start[n], end[n], before, e_before, after, e_after))
    for k, e in enumerate(problem.edges):
        if k not in cpu_work:
            continue
        before = set() if e.src == MAIN else anc[e.src] | {e.src}
        e_before = {q for a in before for q in into[a]}
        after = set() if e.dst in (MAIN, e.src) else down(e.dst) | {e.dst}
        e_after = {q for a in after for q in out_of[a]}
        jobs.append((edge_start[k], edge_end[k], before, e_before, after, e_after))
    spill = _spill_terms(m, problem, C, jobs, unrelated, cpu_work, cpu_max, window) if cores > 1 else {}
    for r, (s, e, before, e_before, after, e_after) in enumerate(jobs):
        for table, mult in ((cpu_work, cores), (fpga_work, 1)):
            extra = table is cpu_work
            w = work(table, before, e_before) + (spill.get((r, "start"), []) if extra else [])
            if w:
                m.add(mult * s >= sum(w))
            w = work(table, after, e_after) + (spill.get((r, "end"), []) if extra else [])
            if w:
                m.add(mult * (C - e) >= sum(w))
    for table, mult in ((cpu_work, cores), (fpga_work, 1)):
        w = work(table, set(names), set(range(len(problem.edges))))
        if w:
            m.add(mult * C >= sum(w))


def _spill_terms(m, problem: Problem, C, jobs, unrelated, cpu_work, cpu_max, window) -> dict:
    """Spill variables for the flow rows of the tasks (several cores only).

    In [0, E_k] the cores run only jobs that are not descendants of task k, and
    a core runs one job at a time: an unrelated CPU job j longer than E_k runs
    for at least p_j - E_k after E_k. So

        cores * (C - E_k) >= CPU work of desc(k) + sum_j max(0, p_j - E_k),

    and in mirror image cores * S_k >= CPU work of anc(k) + sum_j max(0, p_j - (C - S_k)).
    This is the idle time of the cores while they wait for an FPGA job: on the
    40-task benchmark it lifts the root bound from the CPU work over the
    cores (0.3560 s) to 0.3624 s, next to the best schedule (0.3625 s).
    Only jobs that can be longer than the shortest possible window get a
    spill (head or tail of shortest jobs), largest possible spill first, at
    most _SPILL_VARS in all: the rows are quadratic in the jobs, and with all
    of them (5,900 variables on the 100-task benchmark) the search slowed more
    than the bound rose (gap 1.7e-2 after 40 s, against 3e-6 without them, in
    one run each; parallel CP-SAT runs vary).
    """
    cands = []
    for r, others in unrelated.items():
        s, e = jobs[r][0], jobs[r][1]
        lo = window[r]
        for side, t0, win in (("end", lo[0], e), ("start", lo[1], C - s)):
            for j in others:
                over = cpu_max.get(j, 0) - t0
                if over > 0:
                    cands.append((-over, r, side, str(j), j, win))
    cands.sort(key=lambda c: c[:4])
    out: dict[tuple[int, str], list] = {}
    for _neg, r, side, _key, j, win in cands[:_SPILL_VARS]:
        o = m.new_int_var(0, cpu_max[j], f"spill_{r}_{side}_{j}")
        m.add(o >= sum(cpu_work[j]) - win)
        out.setdefault((r, side), []).append(o)
    return out


def shortest_jobs(
    problem: Problem, opts: dict[str, list[Variant]], fixed: dict[str, int]
) -> tuple[dict[str, int], list[list[int]], list[float]]:
    """The job graph at every job's shortest length: (task index, predecessors, durations)."""
    index = {t.name: k for k, t in enumerate(problem.tasks)}
    preds: list[list[int]] = [[] for _ in problem.tasks]
    dur = []
    for t in problem.tasks:
        times = ([t.cpu_s] if fixed.get(t.name) != 1 else []) + [v.fpga_s for v in opts[t.name]]
        dur.append(min(times, default=t.cpu_s))
    for a, c in task_order(problem):
        preds[index[c]].append(index[a])
    for e in problem.edges:  # a transfer between two tasks: a job between them
        if e.src in index and e.dst in index and e.src != e.dst:
            preds.append([index[e.src]])
            dur.append(min(e.c00, e.c01, e.c10, e.c11))
            preds[index[e.dst]].append(len(dur) - 1)
    return index, preds, dur
