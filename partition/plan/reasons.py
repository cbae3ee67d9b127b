"""Why every task went where it went: the one-line reason in plan.json and the summary."""

from __future__ import annotations

from partition.boards import RESOURCES
from partition.plan.objective import objective_of
from partition.profile.model import Profile
from partition.solve import (
    Problem,
    Solution,
    chosen,
    costs,
    feasible,
)


def fmt_time(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def _best_flip(
    problem: Problem, solution: Solution, name: str
) -> tuple[float | None, str | None, dict[str, float] | None]:
    """(objective, variant) of the plan with `name` moved to the FPGA in its best feasible variant.

    (None, None, usage) when no variant fits beside the chosen kernels; usage is
    the resources with its smallest variant.
    """
    t = next(t for t in problem.tasks if t.name == name)
    best: tuple[float, str] | None = None
    flipped = dict(solution.assignment, **{name: 1})
    for v in t.options():
        var = dict(solution.variant, **{name: v.name})
        if not feasible(problem, flipped, var):
            continue
        val = objective_of(problem, flipped, var)
        if best is None or val < best[0]:
            best = (val, v.name)
    if best is not None:
        return best[0], best[1], None
    return None, None, None


def reason_cpu(
    name: str,
    problem: Problem,
    solution: Solution,
    figures: dict[str, costs.TaskFigures],
    fpga_set: set[str],
    profile: Profile,
) -> str:
    """Why the optimum leaves an FPGA-capable task on the CPU."""
    t = next(t for t in problem.tasks if t.name == name)
    if t.pin == "cpu":
        return "pinned to the CPU"
    for anc in profile.functions[name].ancestors:
        if anc in fpga_set:
            return f"inlined into the {anc} kernel"
    for a, b in problem.exclusive:
        if name in (a, b):
            other = b if a == name else a
            if solution.assignment.get(other):
                return f"its caller/callee {other} is on the FPGA"
    val, vname, _ = _best_flip(problem, solution, name)
    if val is None:
        # no variant fits beside the chosen kernels: name the resource of the smallest one
        smallest = min(t.options(), key=lambda v: sum(v.resources.values()))
        used = {
            r: smallest.resources.get(r, 0.0)
            + sum(
                v.resources.get(r, 0.0)
                for v in chosen(problem, solution.assignment, solution.variant).values()
                if v is not None and not isinstance(v, str)
            )
            for r in RESOURCES
        }
        over = [r for r in RESOURCES if used[r] > problem.budget[r] + 1e-9]
        if over:
            r = over[0]
            return (
                f"does not fit beside the chosen kernels: {r.upper()} {used[r]:,.0f} > budget "
                f"{problem.budget[r]:,.0f}"
            )
        return "infeasible on the FPGA"
    fastest = min(figures.values(), key=lambda f: f.fpga_s)
    if fastest.fpga_s >= fastest.cpu_s:
        return (
            f"FPGA would be slower: {fmt_time(fastest.fpga_s)} (compute {fmt_time(fastest.compute_s)}, "
            f"{fastest.calls} call(s) × {fmt_time(fastest.call.overhead_s)} overhead) vs "
            f"{fmt_time(fastest.cpu_s)} on the CPU"
        )
    delta = val - solution.objective_s
    if problem.objective == "latency":
        return f"moving it would cost {fmt_time(delta)} more overall (data transfers outweigh the gain)"
    return (
        f"moving it ({vname}) would make the {problem.objective} {fmt_time(delta)} worse "
        f"({fmt_time(val)} instead of {fmt_time(solution.objective_s)})"
    )


def reason_fpga(name: str, f: costs.TaskFigures, variant: str, several: bool, pinned: bool) -> str:
    speed = f.cpu_s / f.fpga_s if f.fpga_s > 0 else float("inf")
    return (
        f"{fmt_time(f.cpu_s)} on the CPU -> {fmt_time(f.fpga_s)} on the FPGA ({speed:,.1f}×)"
        + (f", variant {variant}" if several else "")
        + (", pinned" if pinned else "")
    )
