"""The `plan` stage: profile + board -> kernels, estimates, the ILP's choice, a `Plan`.

`make_plan` is a plain function over artefacts: it translates every profiled
function it can, estimates each kernel on the board, builds the latency
problem, solves it, and explains every placement. Writing the build tree is
`partition.codegen.tree`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from partition import ir
from partition.boards import Board
from partition.errors import PartitionError
from partition.estimate import estimate_kernel
from partition.estimate.model import Estimate
from partition.frontend import Rejected, translate
from partition.profile.model import MAIN, Profile
from partition.rtl.kernel import RtlKernel, RtlUnsupported, generate_rtl
from partition.solve import costs
from partition.solve.explain import explain_infeasible, no_kernel_fits
from partition.solve.ilp import solve
from partition.solve.model import RESOURCES, Problem, Solution, evaluate, feasible

FORMAT = "partition-plan/1"


@dataclass
class Options:
    objective: str = "latency"
    max_util: float = 0.8
    pin_cpu: list[str] = field(default_factory=list)
    pin_fpga: list[str] = field(default_factory=list)
    solver: str = "cbc"
    timings: bool = False


@dataclass
class Plan:
    """The plan artefact (plan.json) plus the in-memory kernels and estimates it refers to."""

    data: dict[str, Any]
    kernels: dict[str, ir.Kernel]
    estimates: dict[str, Estimate]
    rejected: dict[str, Rejected]
    rtl: dict[str, RtlKernel] = field(default_factory=dict)  # FPGA tasks the RTL backend built

    @property
    def fpga_tasks(self) -> list[str]:
        return [t["name"] for t in self.data["tasks"] if t["placement"] == "fpga"]


def _check_options(profile: Profile, opts: Options) -> dict[str, str]:
    if opts.objective != "latency":
        raise PartitionError(f"--objective {opts.objective}: only 'latency' is available")
    if not 0.0 < opts.max_util <= 1.0:
        raise PartitionError(f"--max-util {opts.max_util}: give a fraction in (0, 1], e.g. 0.8")
    known = sorted(profile.functions)
    pins: dict[str, str] = {}
    for where, names in (("cpu", opts.pin_cpu), ("fpga", opts.pin_fpga)):
        for n in names:
            if n not in profile.functions:
                raise PartitionError(
                    f"--pin-{where} {n}: no such function in the profile; known: {', '.join(known) or '(none)'}"
                )
            if pins.get(n, where) != where:
                raise PartitionError(f"{n} is pinned to both the CPU and the FPGA")
            pins[n] = where
    return pins


def make_plan(profile: Profile, app_dir: Path, board: Board, opts: Options) -> Plan:
    pins = _check_options(profile, opts)
    scaling = costs.cpu_scaling(profile, board)
    kernels: dict[str, ir.Kernel] = {}
    rejected: dict[str, Rejected] = {}
    for name in sorted(profile.functions):
        r = translate(profile.functions[name], app_dir, profile.functions)
        if isinstance(r, Rejected):
            rejected[name] = r
        else:
            kernels[name] = r
    for name, where in sorted(pins.items()):
        if where == "fpga" and name in rejected:
            raise PartitionError(f"--pin-fpga {name}: it cannot become a kernel: {rejected[name].reason}")
    estimates = {name: estimate_kernel(k, board) for name, k in sorted(kernels.items())}
    figures = {
        name: costs.task_figures(
            name,
            profile.functions[name].calls,
            profile.functions[name].total_s * scaling.factor,
            kernels[name],
            estimates[name],
            board,
        )
        for name in sorted(kernels)
    }
    problem = costs.build_problem(profile, figures, estimates, board, scaling, opts.max_util, pins)
    avail = {r: float(board.resources[r]) for r in RESOURCES}
    if problem.tasks:
        msg = no_kernel_fits(problem, available=avail, max_util=opts.max_util)
        if msg and not any(p == "fpga" for p in pins.values()):
            raise PartitionError(
                f"no kernel fits the budget: {msg}; raise --max-util or choose a larger board"
            )
    solution = solve(problem, solver=opts.solver)
    if solution.status == "Infeasible":
        raise PartitionError(
            "no plan satisfies the pins and budgets: "
            + explain_infeasible(problem, available=avail, max_util=opts.max_util)
        )
    if solution.status != "Optimal":
        raise PartitionError(f"the solver stopped without a plan (status {solution.status})")
    data = _plan_data(
        profile, board, opts, scaling, kernels, rejected, estimates, figures, problem, solution, pins
    )
    rtl: dict[str, RtlKernel] = {}
    for t in data["tasks"]:
        if t["placement"] != "fpga":
            continue
        try:
            rtl[t["name"]] = generate_rtl(kernels[t["name"]], board)
            t["rtl"] = {"status": "built", "top": rtl[t["name"]].top}
        except RtlUnsupported as e:
            t["rtl"] = {"status": "unsupported", "reason": e.message}
    return Plan(data, kernels, estimates, rejected, rtl)


def _fmt_s(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def _reason_cpu(
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
    flipped = dict(solution.assignment)
    flipped[name] = 1
    f = figures[name]
    if not feasible(problem, flipped):
        for a, b in problem.exclusive:
            if name in (a, b) and flipped.get(a) and flipped.get(b):
                other = b if a == name else a
                return f"its caller/callee {other} is on the FPGA"
        used = {
            r: sum(x.resources.get(r, 0) for x in problem.tasks if flipped.get(x.name)) for r in RESOURCES
        }
        over = [r for r in RESOURCES if used[r] > problem.budget[r] + 1e-9]
        if over:
            r = over[0]
            return f"does not fit beside the chosen kernels: {r.upper()} {used[r]:,.0f} > budget {problem.budget[r]:,.0f}"
        return "infeasible on the FPGA"
    delta = evaluate(problem, flipped) - solution.objective_s
    if f.fpga_s >= f.cpu_s:
        return (
            f"FPGA would be slower: {_fmt_s(f.fpga_s)} (compute {_fmt_s(f.compute_s)}, "
            f"{f.calls} call(s) × {_fmt_s(f.call.overhead_s)} overhead) vs {_fmt_s(f.cpu_s)} on the CPU"
        )
    return f"moving it would cost {_fmt_s(delta)} more overall (data transfers outweigh the gain)"


def _plan_data(
    profile: Profile,
    board: Board,
    opts: Options,
    scaling: costs.Scaling,
    kernels: dict[str, ir.Kernel],
    rejected: dict[str, Rejected],
    estimates: dict[str, Estimate],
    figures: dict[str, costs.TaskFigures],
    problem: Problem,
    solution: Solution,
    pins: dict[str, str],
) -> dict[str, Any]:
    fpga_set = {n for n, v in solution.assignment.items() if v}
    all_cpu = costs.all_cpu_seconds(profile, scaling)
    tasks = []
    for name in sorted(profile.functions):
        fp = profile.functions[name]
        entry: dict[str, Any] = {
            "name": name,
            "file": fp.file,
            "line": fp.line,
            "calls": fp.calls,
            "host_s": fp.total_s,
            "cpu_s": fp.total_s * scaling.factor,
            "self_cpu_s": fp.self_s * scaling.factor,
            "pin": pins.get(name),
        }
        if name in kernels:
            k = kernels[name]
            f = figures[name]
            e = estimates[name]
            entry["kernel"] = k.name
            entry["fpga"] = {
                "total_s": f.fpga_s,
                "compute_s": f.compute_s,
                "overhead_s": f.overhead_s,
                "copy_out_s": f.copy_out_s,
                "per_call": f.call.to_json(),
                "estimate": e.to_json(),
            }
            entry["notes"] = list(k.notes)
            if name in fpga_set:
                entry["placement"] = "fpga"
                speed = f.cpu_s / f.fpga_s if f.fpga_s > 0 else float("inf")
                entry["reason"] = (
                    f"{_fmt_s(f.cpu_s)} on the CPU -> {_fmt_s(f.fpga_s)} on the FPGA ({speed:,.1f}×)"
                    + (", pinned" if pins.get(name) == "fpga" else "")
                )
            else:
                entry["placement"] = "cpu"
                entry["reason"] = _reason_cpu(name, problem, solution, figures, fpga_set, profile)
        else:
            entry["placement"] = "cpu"
            entry["reason"] = f"not translatable: {rejected[name].reason}"
        tasks.append(entry)
    edges = []
    for e in sorted(profile.edges, key=lambda e: (e.src, e.dst, e.what)):
        src_fpga = e.src in fpga_set
        dst_fpga = e.dst in fpga_set
        src_fp = profile.functions.get(e.src)
        internal = src_fp is not None and e.dst in src_fp.ancestors and e.dst in fpga_set
        cost = 0.0
        if dst_fpga and not internal and costs.is_array_edge(e, profile):
            cost = costs.copy_to_fpga_s(e.bytes, board)
        edges.append(
            {
                "src": e.src,
                "dst": e.dst,
                "bytes": e.bytes,
                "count": e.count,
                "what": e.what,
                "crossing": (src_fpga != dst_fpga) and not internal,
                "cost_s": cost,
            }
        )
    used = {r: sum(t.resources.get(r, 0) for t in problem.tasks if t.name in fpga_set) for r in RESOURCES}
    plan_s = solution.objective_s
    solver: dict[str, Any] = {
        "name": solution.solver,
        "status": solution.status,
        "gap": solution.gap,
        **{k: v for k, v in sorted(solution.stats.items())},
    }
    if opts.timings:
        solver["solve_time_s"] = solution.solve_time_s
    return {
        "format": FORMAT,
        "app": profile.app,
        "argv": list(profile.argv),
        "board": {
            "name": board.name,
            "part": board.part,
            "family": board.family,
            "pl_mhz": float(board.clocks["pl_mhz"]),
            "ddr_read_latency_cycles": int(board.interface["ddr_read_latency_cycles"]),
            "ddr_write_latency_cycles": int(board.interface["ddr_write_latency_cycles"]),
        },
        "objective": opts.objective,
        "max_util": opts.max_util,
        "scaling": scaling.to_json(),
        "tasks": tasks,
        "edges": edges,
        "resources": {
            "available": {r: board.resources[r] for r in RESOURCES},
            "shell": {r: board.shell.get(r, 0) for r in RESOURCES},
            "budget": problem.budget,
            "used": used,
        },
        "predicted": {
            "all_cpu_s": all_cpu,
            "plan_s": plan_s,
            "speedup": all_cpu / plan_s if plan_s > 0 else None,
        },
        "solver": solver,
        "main": MAIN,
    }
