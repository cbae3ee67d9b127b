"""Rejecting a malformed Problem with a message naming the bad value.

Separate from the model's definition (`partition.solve.model`): what every
solver may rely on (finite non-negative times, known names, an acyclic graph
for makespan, chains only where their model holds) is checked once, before
solving.
"""

from __future__ import annotations

import math
from typing import Any

from partition.errors import PartitionError
from partition.solve.model import MAIN, OBJECTIVES, Problem
from partition.solve.schedule import task_order


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
    """What the throughput model of chains relies on (period.py, Chains under throughput)."""
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
