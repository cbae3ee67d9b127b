"""Solving a prepared problem and assembling the `Plan`, the chosen variants' built-in RTL included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from partition import ir
from partition.boards import RESOURCES, Board
from partition.errors import PartitionError
from partition.estimate import (
    BASE,
    Directives,
)
from partition.plan.artefacts import (
    Options,
    Plan,
    Prepared,
    chosen_directives,
)
from partition.plan.data import plan_data, streamed_kernels
from partition.plan.preparation import internal_failure, prepare
from partition.plan.sensitivity import flips, sensitivity
from partition.profile.model import Profile
from partition.rtl import RtlKernel, RtlUnsupported, RtlVariantUnsupported, generate_rtl
from partition.solve import (
    Solution,
    default_solver,
    explain_infeasible,
    no_kernel_fits,
    top_k,
)


def _available(board: Board) -> dict[str, float]:
    return {r: float(board.resources[r]) for r in RESOURCES}


def solve_prepared(
    prep: Prepared, opts: Options, k: int | None = None, warnings: list[str] | None = None
) -> list[Solution]:
    """The k best distinct partitions (placements), best first.

    When no kernel fits the budget the plan keeps everything on the CPU, and when
    the FPGA pins cannot all be honoured together it is made without them; either
    way `warnings` (when given) says so. Raises only when the solver itself fails."""
    problem = prep.problem
    avail = _available(prep.board)
    said = warnings if warnings is not None else []
    short = [r for r in RESOURCES if problem.budget[r] < 0]
    if short:
        said.append(
            f"the overlay's fixed shell alone needs more than --max-util {opts.max_util:g} allows ("
            + ", ".join(f"{r.upper()} budget {problem.budget[r]:,.0f}" for r in short)
            + "): nothing can go on the FPGA, everything stays on the CPU; raise --max-util"
        )
        saved_budget = problem.budget
        problem.budget = {r: max(0.0, b) for r, b in saved_budget.items()}
        try:
            return solve_prepared(prep, opts, k)
        finally:
            problem.budget = saved_budget
    if problem.tasks:
        msg = no_kernel_fits(problem, available=avail, max_util=opts.max_util)
        if msg:
            said.append(
                f"no kernel fits the budget: {msg}; everything stays on the CPU (raise --max-util or "
                "choose a larger board)"
            )
    count = k or opts.top_k
    solver = (
        default_solver(problem.objective, count, len(problem.tasks)) if opts.solver == "auto" else opts.solver
    )
    sols = top_k(problem, count, solver=solver, time_limit_s=opts.time_limit_s, distinct="placement")
    pinned = [t for t in problem.tasks if t.pin == "fpga"]
    if sols[0].status == "Infeasible" and pinned:
        why = explain_infeasible(problem, available=avail, max_util=opts.max_util)
        said.append(
            f"the FPGA pins ({', '.join(t.name for t in pinned)}) cannot all be honoured: {why}; "
            "planned without them"
        )
        saved = {t.name: t.pin for t in pinned}
        for t in pinned:
            t.pin = None
        try:
            sols = top_k(problem, count, solver=solver, time_limit_s=opts.time_limit_s, distinct="placement")
        finally:
            for t in pinned:
                t.pin = saved[t.name]
    first = sols[0]
    if first.status == "Infeasible":
        raise PartitionError(
            "no plan satisfies the pins and budgets: "
            + explain_infeasible(problem, available=avail, max_util=opts.max_util)
        )
    if first.status not in ("Optimal", "Time limit", "Feasible"):
        raise PartitionError(f"the solver stopped without a plan (status {first.status})")
    return sols


SENSITIVITY_WARNINGS = (
    (
        "cpu",
        "the board's CPU figures",
        "calibrate on the board (boards/<board>.calibrate.py, then --board-overrides)",
    ),
    ("fpga_time", "the kernels' time estimates", "measure the kernels (RTL simulation, then --calibrate)"),
    (
        "resources",
        "the kernels' resource estimates",
        "synthesize the kernels (yosys or Vivado, then --calibrate)",
    ),
)


def make_plan(
    profile: Profile, app_dir: Path, board: Board, opts: Options, prepared: Prepared | None = None
) -> Plan:
    prep = prepared or prepare(profile, app_dir, board, opts)
    warnings = list(prep.warnings)
    sols = solve_prepared(prep, opts, warnings=warnings)
    data = plan_data(profile, board, opts, prep, sols)
    if not prep.scaling.on_board and prep.scaling.ratios:
        data["sensitivity"] = sens = sensitivity(prep, sols[0], sols[0].solver, opts.time_limit_s)
        for side, what, remedy in SENSITIVITY_WARNINGS:
            moved = flips(sens, side)
            if moved:
                warnings.append(
                    f"the placement of {', '.join(moved)} changes within the stated range of {what} "
                    f"(plan.json sensitivity.{side}): {remedy} before trusting it"
                )
    data["warnings"] = warnings
    kernels = streamed_kernels(data, prep.kernels)
    rtl: dict[str, RtlKernel] = {}
    for t in data["tasks"]:
        if t["placement"] != "fpga":
            continue
        d = chosen_directives(t)
        t["rtl"], built = build_rtl(kernels[t["name"]], board, Directives.from_json(d) if d else None)
        if built is not None:
            rtl[t["name"]] = built
    return Plan(data, kernels, prep.base_estimates, prep.rejected, rtl, prep)


def build_rtl(
    kernel: ir.Kernel, board: Board, d: Directives | None
) -> tuple[dict[str, Any], RtlKernel | None]:
    """The built-in RTL of variant `d` (None: base; base where the backend cannot build `d`): plan.json's
    `rtl` entry, and the IP (None when the backend cannot build the kernel at all)."""
    note = None
    try:
        try:
            built = generate_rtl(kernel, board, d)
        except RtlVariantUnsupported as e:
            note = f"{e.message}; the built-in RTL implements the base variant"
            built = generate_rtl(kernel, board)
    except RtlUnsupported as e:
        return {"status": "unsupported", "reason": e.message, "variant": BASE}, None
    except Exception as e:  # the HLS C++ path does not depend on the built-in RTL
        return {
            "status": "unsupported",
            "reason": internal_failure("building its RTL", e),
            "variant": BASE,
        }, None
    entry: dict[str, Any] = {
        "status": "built",
        "top": built.top,
        "variant": built.variant,
        "estimate_cycles": built.estimate_cycles,
    }
    if note:
        entry["note"] = note
    return entry, built
