"""The `plan` stage: profile + board -> kernels, variant estimates, the ILP's choice, a `Plan`.

`make_plan` is a plain function over artefacts: it translates every profiled
function it can, estimates every implementation variant of each kernel on
the board (partition.estimate.variants; measured figures replace estimated
ones with --calibrate), builds the problem for the chosen objective, solves
it (the k best distinct partitions with --top-k), and explains every
placement. `sweep` re-solves the same problem over utilisation caps and
boards for a Pareto table; `explain_task` says why one function went where it
went. Writing the build tree is `partition.codegen.tree`'s job.

plan.json per FPGA-capable task: `fpga` holds the base variant's figures,
`fpga.variants` every variant's (name, directives, times, estimate), and
`variant` the one the plan chose (FPGA tasks); `rtl` says which variant the
built-in RTL built (the chosen one; base, with a `note`, where the backend lacks its m_axi width)
and its `estimate_cycles`, what simulation is compared with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from partition import ir
from partition.boards import RESOURCES, Board
from partition.errors import PartitionError
from partition.estimate import (
    BASE,
    Directives,
    Estimate,
    KernelVariant,
    calibrate,
    estimate_variant,
    kernel_variants,
)
from partition.frontend import Rejected, Verdict, chainable, translate
from partition.profile.model import MAIN, Profile
from partition.rtl import RtlKernel, RtlUnsupported, RtlVariantUnsupported, generate_rtl
from partition.solve import (
    OBJECTIVES,
    ChainCost,
    Problem,
    ScheduleTooLarge,
    Solution,
    chain_stages,
    chosen,
    costs,
    default_solver,
    evaluate,
    explain_infeasible,
    feasible,
    heuristic,
    no_kernel_fits,
    streamed,
    throughput_entries,
    top_k,
)

FORMAT = "partition-plan/1"
_IN_DDR = (
    "a returned numpy array is the kernel's output buffer, lent to the app (no copy-out); passed as it "
    "is to another FPGA kernel it stays in DDR (flushed, not copied: edges' in_ddr_bytes)"
)

CHAIN_OBJECTIVES = ("latency", "throughput")  # the models that take AXI-Stream chains

ASSUMPTIONS = {
    "latency": [
        "one run of the app; every accelerated call blocks until the kernel is done, so nothing overlaps",
        "time = the app's own code + each task on its side (CPU time, or the FPGA variant's compute, call "
        "overhead and copy-out over all calls) + the copies of array data into FPGA buffers",
        _IN_DDR,
        'an AXI-Stream chain (plan "chains") streams a kernel\'s result straight into the next kernel, '
        "both running at once: each end saves its DDR store or load, its buffer's cache maintenance and "
        "pointer registers, and the stream's 64-bit beats count once; offered only where the app's "
        "source hands that result to the consumer and to nothing else",
    ],
    "makespan": [
        "one run of the app; the runtime starts a kernel without waiting and waits only where a result "
        "is needed, so CPU work, FPGA work and copies overlap where the task graph allows",
        "each task is one job (all its calls back to back) on one CPU core or on the FPGA; a consumer "
        "starts after its producer ends",
        "every copy into an FPGA buffer is a job on a CPU core between its producer and its consumer",
        "the FPGA runs one kernel at a time (one driver thread, one HP port into DDR)",
        "CPU cores run one job each at a time; a second core is used through a second process (the GIL "
        "keeps one Python process on one core)",
        "the app's own code outside the tasks runs first, on its own",
        _IN_DDR,
        "no AXI-Stream chains: both ends of a chain run at once, which one kernel at a time on the FPGA "
        "does not model",
    ],
    "throughput": [
        "a loop over frames in steady state: every task runs once per frame and the CPU cores, each FPGA "
        "stage and the link work on different frames at the same time (software pipelining)",
        "period per frame = the busiest resource: the CPU load of each core (the app's own code on core 0 "
        "plus its CPU tasks), the time of each FPGA stage (each kernel its own IP), the link (all copies "
        "share the HP port into DDR)",
        "predicted times are per frame (the profiled run is one frame)",
        'an AXI-Stream chain (plan "chains") joins its kernels into one FPGA stage: the runtime starts the '
        "producer from the consumer's call and waits for both, so neither takes the next frame before the "
        "other is done; the stage takes both kernels' FPGA times (not their ii) minus what the chain saves "
        "(each end's DDR store or load, cache maintenance and pointer registers; the 64-bit beats count "
        "once); CPU load and link are unchanged (the array stays in DDR between kernels anyway, the stream "
        "does not use the HP port); a chain is used only where the joined stage beats the kernels' own "
        "stages, and offered only where the app's source hands that result to the consumer and to nothing "
        "else",
    ],
}


@dataclass
class Options:
    objective: str = "latency"
    max_util: float = 0.8
    pin_cpu: list[str] = field(default_factory=list)
    pin_fpga: list[str] = field(default_factory=list)
    solver: str = "auto"  # "auto": ilp.default_solver for the objective
    timings: bool = False
    cores: int | None = None  # CPU cores for makespan/throughput (None: the board's, at most 2)
    time_limit_s: float | None = None
    top_k: int = 1
    variants: bool = True  # estimate implementation variants (False: the base one only)
    calibrate: Path | None = None
    chains: bool = True  # offer AXI-Stream chains where the app allows them (CHAIN_OBJECTIVES)


@dataclass
class Plan:
    """The plan artefact (plan.json) plus the in-memory kernels and estimates it refers to."""

    data: dict[str, Any]
    kernels: dict[str, ir.Kernel]
    estimates: dict[str, Estimate]  # the base variant's
    rejected: dict[str, Rejected]
    rtl: dict[str, RtlKernel] = field(default_factory=dict)  # FPGA tasks the RTL backend built
    prepared: Prepared | None = None  # the problem the plan solved (not saved; for explain)

    @property
    def fpga_tasks(self) -> list[str]:
        return [t["name"] for t in self.data["tasks"] if t["placement"] == "fpga"]

    def directives(self, task: str) -> dict[str, Any] | None:
        """The HLS directives of the variant the plan chose for `task` (None: base)."""
        t = next((t for t in self.data["tasks"] if t["name"] == task), None)
        return None if t is None else chosen_directives(t)

    def bus_bits(self, task: str, board: Board) -> int:
        """The m_axi width of the variant the plan chose for `task` (the board's for base)."""
        d = self.directives(task)
        return (Directives.from_json(d) if d else Directives(BASE)).bus(board)


def chosen_directives(task: dict[str, Any]) -> dict[str, Any] | None:
    """The directives (JSON) of the variant a plan.json task chose; None for base or none."""
    if task.get("variant", BASE) == BASE:
        return None
    for v in task["fpga"].get("variants", []):
        if v["name"] == task["variant"]:
            return v["directives"]
    return None


@dataclass
class Prepared:
    """Everything up to the solver for one board: kernels, variant figures, the problem."""

    board: Board
    scaling: costs.Scaling
    kernels: dict[str, ir.Kernel]
    rejected: dict[str, Rejected]
    variants: dict[str, list[KernelVariant]]
    figures: dict[str, dict[str, costs.TaskFigures]]  # task -> variant -> figures
    problem: Problem
    pins: dict[str, str]
    calibrated: int = 0  # measurements applied
    # FPGA -> FPGA array edges considered for an AXI-Stream chain: (src, dst) -> Verdict
    chain_verdicts: dict[tuple[str, str], Verdict] = field(default_factory=dict)

    @property
    def base_estimates(self) -> dict[str, Estimate]:
        return {n: vs[0].estimate for n, vs in self.variants.items()}


def _check_options(profile: Profile, opts: Options) -> dict[str, str]:
    if opts.objective not in OBJECTIVES:
        raise PartitionError(f"--objective {opts.objective}: choose one of {', '.join(OBJECTIVES)}")
    if not 0.0 < opts.max_util <= 1.0:
        raise PartitionError(f"--max-util {opts.max_util}: give a fraction in (0, 1], e.g. 0.8")
    if opts.cores is not None and opts.cores not in (1, 2):
        raise PartitionError(f"--cores {opts.cores}: the model supports 1 or 2 CPU cores")
    if opts.top_k < 1:
        raise PartitionError(f"--top-k {opts.top_k}: give 1 or more")
    if opts.time_limit_s is not None and not opts.time_limit_s > 0:
        raise PartitionError(f"--time-limit {opts.time_limit_s}: give a positive number of seconds")
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


def cores_for(board: Board, opts: Options) -> int:
    """CPU cores the model uses: 1 for latency; else --cores or the board's (at most 2)."""
    if opts.objective == "latency":
        return 1
    if opts.cores is not None:
        return opts.cores
    return max(1, min(2, int(board.cpu.get("cores", 1))))


def translate_all(profile: Profile, app_dir: Path) -> tuple[dict[str, ir.Kernel], dict[str, Rejected]]:
    kernels: dict[str, ir.Kernel] = {}
    rejected: dict[str, Rejected] = {}
    for name in sorted(profile.functions):
        r = translate(profile.functions[name], app_dir, profile.functions)
        if isinstance(r, Rejected):
            rejected[name] = r
        else:
            kernels[name] = r
    return kernels, rejected


def prepare(
    profile: Profile,
    app_dir: Path,
    board: Board,
    opts: Options,
    translated: tuple[dict[str, ir.Kernel], dict[str, Rejected]] | None = None,
) -> Prepared:
    """Translate, estimate every variant (calibrated), and build the problem for `opts.objective`."""
    pins = _check_options(profile, opts)
    scaling = costs.cpu_scaling(profile, board)
    kernels, rejected = translated or translate_all(profile, app_dir)
    for name, where in sorted(pins.items()):
        if where == "fpga" and name in rejected:
            raise PartitionError(f"--pin-fpga {name}: it cannot become a kernel: {rejected[name].reason}")
    ms = (
        calibrate.load_measurements(opts.calibrate, sorted(k.name for k in kernels.values()))
        if opts.calibrate is not None
        else []
    )
    calibrated = 0

    def measured(kernel: ir.Kernel, v: KernelVariant) -> None:
        nonlocal calibrated
        if any(m.kernel == v.estimate.task and m.variant == v.name for m in ms):
            calibrate.apply(
                v.estimate,
                ms,
                streamed=lambda arrays: estimate_variant(
                    ir.with_streams(kernel, arrays), board, v.directives
                ),
            )
            calibrated += 1

    variants: dict[str, list[KernelVariant]] = {
        name: kernel_variants(k, board, base_only=not opts.variants, adjust=partial(measured, k))
        for name, k in sorted(kernels.items())
    }
    figures: dict[str, dict[str, costs.TaskFigures]] = {}
    for name in sorted(kernels):
        fp = profile.functions[name]
        figures[name] = {
            v.name: costs.task_figures(
                name, fp.calls, fp.total_s * scaling.factor, kernels[name], v.estimate, board
            )
            for v in variants[name]
        }
    base_fig = {n: f[BASE] for n, f in figures.items()}
    base_est = {n: vs[0].estimate for n, vs in variants.items()}
    per_task = {n: [(v.name, figures[n][v.name], v.estimate) for v in vs] for n, vs in variants.items()}
    problem = costs.build_problem(
        profile, base_fig, base_est, board, scaling, opts.max_util, pins, variants=per_task
    )
    problem.objective = opts.objective
    problem.cpu_cores = cores_for(board, opts)
    if opts.objective != "latency" and problem.base_s < 0:
        problem.base_s = 0.0  # nested tasks: their inclusive times overlap and already hold it all
    verdicts: dict[tuple[str, str], Verdict] = {}
    if opts.chains and opts.objective in CHAIN_OBJECTIVES:
        problem.chains, verdicts = _chains(profile, app_dir, kernels, variants, board)
    return Prepared(board, scaling, kernels, rejected, variants, figures, problem, pins, calibrated, verdicts)


def _chains(
    profile: Profile,
    app_dir: Path,
    kernels: dict[str, ir.Kernel],
    variants: dict[str, list[KernelVariant]],
    board: Board,
) -> tuple[list[ChainCost], dict[tuple[str, str], Verdict]]:
    """The AXI-Stream chains the app allows between two kernels, with their costs.

    The latency and throughput models take chains (model.py): both charge each
    kernel its own time, so a chain's saving is a sum of per-end shares (for
    throughput the chained kernels are one stage). Whether the app allows a
    chain does not depend on the objective. The makespan model runs one kernel
    at a time and takes none."""
    verdicts: dict[tuple[str, str], Verdict] = {}
    out: list[ChainCost] = []
    for e in sorted(profile.edges, key=lambda e: (e.src, e.dst, e.what)):
        key = (e.src, e.dst)
        if (
            e.src not in kernels
            or e.dst not in kernels
            or e.src == e.dst
            or not e.direct_bytes
            or key in verdicts
        ):
            continue
        try:  # a caller whose source cannot be read only rules the chain out
            v = chainable(profile, app_dir, e.src, e.dst)
        except PartitionError as err:
            v = Verdict((), err.message)
        if v.ok:
            try:
                cost = costs.chain_cost(
                    e.src,
                    e.dst,
                    (kernels[e.src], kernels[e.dst]),
                    v.sites[0].param,
                    (variants[e.src], variants[e.dst]),
                    profile.functions[e.src].calls,
                    board,
                )
            except (ValueError, PartitionError) as err:
                v = Verdict((), f"{e.src} -> {e.dst}: {err}")
            else:
                out.append(cost)
        verdicts[key] = v
    return out, verdicts


def _available(board: Board) -> dict[str, float]:
    return {r: float(board.resources[r]) for r in RESOURCES}


def solve_prepared(prep: Prepared, opts: Options, k: int | None = None) -> list[Solution]:
    """The k best distinct partitions (placements), best first; raises when there is none."""
    problem = prep.problem
    avail = _available(prep.board)
    if problem.tasks:
        msg = no_kernel_fits(problem, available=avail, max_util=opts.max_util)
        if msg and not any(p == "fpga" for p in prep.pins.values()):
            raise PartitionError(
                f"no kernel fits the budget: {msg}; raise --max-util or choose a larger board"
            )
    count = k or opts.top_k
    sols = top_k(
        problem,
        count,
        solver=default_solver(problem.objective, count, len(problem.tasks))
        if opts.solver == "auto"
        else opts.solver,
        time_limit_s=opts.time_limit_s,
        distinct="placement",
    )
    first = sols[0]
    if first.status == "Infeasible":
        raise PartitionError(
            "no plan satisfies the pins and budgets: "
            + explain_infeasible(problem, available=avail, max_util=opts.max_util)
        )
    if first.status not in ("Optimal", "Time limit", "Feasible"):
        raise PartitionError(f"the solver stopped without a plan (status {first.status})")
    return sols


def make_plan(
    profile: Profile, app_dir: Path, board: Board, opts: Options, prepared: Prepared | None = None
) -> Plan:
    prep = prepared or prepare(profile, app_dir, board, opts)
    sols = solve_prepared(prep, opts)
    data = _plan_data(profile, board, opts, prep, sols)
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
    entry: dict[str, Any] = {
        "status": "built",
        "top": built.top,
        "variant": built.variant,
        "estimate_cycles": built.estimate_cycles,
    }
    if note:
        entry["note"] = note
    return entry, built


# ----------------------------------------------------------------------------- objective values


def objective_of(problem: Problem, x: dict[str, int], var: dict[str, str] | None = None) -> float:
    """The model's objective of a choice; for a makespan too large to search exactly, list scheduling.

    (Only where the exact search gives up; the value is then an upper bound.)
    """
    try:
        return evaluate(problem, x, var)
    except ScheduleTooLarge:
        return heuristic.list_schedule(problem, chosen(problem, x, var))[0]


def all_cpu_objective(problem: Problem) -> float:
    return objective_of(problem, {t.name: 0 for t in problem.tasks})


# ----------------------------------------------------------------------------- reasons


def _fmt_s(s: float) -> str:
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
            f"FPGA would be slower: {_fmt_s(fastest.fpga_s)} (compute {_fmt_s(fastest.compute_s)}, "
            f"{fastest.calls} call(s) × {_fmt_s(fastest.call.overhead_s)} overhead) vs "
            f"{_fmt_s(fastest.cpu_s)} on the CPU"
        )
    delta = val - solution.objective_s
    if problem.objective == "latency":
        return f"moving it would cost {_fmt_s(delta)} more overall (data transfers outweigh the gain)"
    return (
        f"moving it ({vname}) would make the {problem.objective} {_fmt_s(delta)} worse "
        f"({_fmt_s(val)} instead of {_fmt_s(solution.objective_s)})"
    )


def _reason_fpga(name: str, f: costs.TaskFigures, variant: str, several: bool, pinned: bool) -> str:
    speed = f.cpu_s / f.fpga_s if f.fpga_s > 0 else float("inf")
    return (
        f"{_fmt_s(f.cpu_s)} on the CPU -> {_fmt_s(f.fpga_s)} on the FPGA ({speed:,.1f}×)"
        + (f", variant {variant}" if several else "")
        + (", pinned" if pinned else "")
    )


# ----------------------------------------------------------------------------- plan.json


def _used(problem: Problem, sol: Solution) -> dict[str, float]:
    ch = chosen(problem, sol.assignment, sol.variant)
    return {
        r: sum(v.resources.get(r, 0.0) for v in ch.values() if v is not None and not isinstance(v, str))
        for r in RESOURCES
    }


def _schedule(problem: Problem, sol: Solution) -> list[dict[str, Any]]:
    """The solver's schedule (makespan) or one period's loads (throughput), for plan.json."""
    if problem.objective == "latency":
        return []
    entries = sol.schedule
    if problem.objective == "throughput" and not entries:
        ch = chosen(problem, sol.assignment, sol.variant)
        cpu = {t.name: t.cpu_s for t in problem.tasks if ch[t.name] is None}
        from partition.solve import split_cores

        entries = throughput_entries(problem, ch, split_cores(problem.base_s, cpu, problem.cpu_cores))
    out = []
    for e in entries:
        res = e["resource"]
        if problem.objective == "throughput" and res == "fpga":
            res = f"fpga:{e.get('stage', e['task'])}"  # every FPGA stage is its own IP (or chained IPs)
        out.append(
            {
                "task": e["task"],
                "kind": e["kind"],
                "resource": res,
                "start_s": e["start_s"],
                "end_s": e["end_s"],
            }
        )
    return out


def _alternative(problem: Problem, sol: Solution, rank: int, all_cpu: float) -> dict[str, Any]:
    fpga = sorted(n for n, v in sol.assignment.items() if v)
    return {
        "rank": rank,
        "plan_s": sol.objective_s,
        "speedup": all_cpu / sol.objective_s if sol.objective_s > 0 else None,
        "fpga": fpga,
        "variants": {n: sol.variant[n] for n in fpga if n in sol.variant},
        "used": _used(problem, sol),
        "status": sol.status,
    }


def _variant_json(v: KernelVariant, f: costs.TaskFigures, problem: Problem, board: Board) -> dict[str, Any]:
    fits = all(getattr(v.estimate, r) <= problem.budget[r] + 1e-9 for r in RESOURCES)
    return {
        "name": v.name,
        "directives": v.directives.to_json(),
        "describe": v.directives.describe(),
        "total_s": f.fpga_s,
        "compute_s": f.compute_s,
        "overhead_s": f.overhead_s,
        "copy_out_s": f.copy_out_s,
        "fits_alone": fits,
        "estimate": v.estimate.to_json(),
    }


def _plan_data(
    profile: Profile, board: Board, opts: Options, prep: Prepared, sols: list[Solution]
) -> dict[str, Any]:
    problem = prep.problem
    solution = sols[0]
    fpga_set = {n for n, v in solution.assignment.items() if v}
    all_cpu_latency = costs.all_cpu_seconds(profile, prep.scaling)
    all_cpu = all_cpu_latency if opts.objective == "latency" else all_cpu_objective(problem)
    tasks = []
    for name in sorted(profile.functions):
        fp = profile.functions[name]
        entry: dict[str, Any] = {
            "name": name,
            "file": fp.file,
            "line": fp.line,
            "calls": fp.calls,
            "host_s": fp.total_s,
            "cpu_s": fp.total_s * prep.scaling.factor,
            "self_cpu_s": fp.self_s * prep.scaling.factor,
            "pin": prep.pins.get(name),
        }
        if name in prep.kernels:
            k = prep.kernels[name]
            figs = prep.figures[name]
            f = figs[BASE]
            vs = prep.variants[name]
            entry["kernel"] = k.name
            entry["fpga"] = {
                "total_s": f.fpga_s,
                "compute_s": f.compute_s,
                "overhead_s": f.overhead_s,
                "copy_out_s": f.copy_out_s,
                "per_call": f.call.to_json(),
                "estimate": vs[0].estimate.to_json(),
                "variants": [_variant_json(v, figs[v.name], problem, board) for v in vs],
            }
            entry["notes"] = list(k.notes)
            if name in fpga_set:
                vname = solution.variant.get(name, BASE)
                entry["placement"] = "fpga"
                entry["variant"] = vname
                entry["reason"] = _reason_fpga(
                    name, figs[vname], vname, len(vs) > 1, prep.pins.get(name) == "fpga"
                )
            else:
                entry["placement"] = "cpu"
                entry["reason"] = _reason_cpu(name, problem, solution, figs, fpga_set, profile)
        else:
            entry["placement"] = "cpu"
            entry["reason"] = f"not translatable: {prep.rejected[name].reason}"
        tasks.append(entry)
    edges = []
    for e in sorted(profile.edges, key=lambda e: (e.src, e.dst, e.what)):
        src_fpga = e.src in fpga_set
        dst_fpga = e.dst in fpga_set
        src_fp = profile.functions.get(e.src)
        internal = src_fp is not None and e.dst in src_fp.ancestors and e.dst in fpga_set
        cost = 0.0
        if dst_fpga and not internal and costs.is_array_edge(e, profile):
            cost = costs.copy_in_s(e, board, src_fpga)
        edges.append(
            {
                "src": e.src,
                "dst": e.dst,
                "bytes": e.bytes,
                "count": e.count,
                "what": e.what,
                "crossing": (src_fpga != dst_fpga) and not internal,
                "cost_s": cost,
                "in_ddr_bytes": e.direct_bytes if src_fpga and dst_fpga and not internal else 0,
            }
        )
    plan_s = solution.objective_s
    solver: dict[str, Any] = {
        "name": solution.solver,
        "status": solution.status,
        "gap": solution.gap,
        **{k: v for k, v in sorted(solution.stats.items())},
    }
    if opts.time_limit_s is not None:
        solver["time_limit_s"] = opts.time_limit_s
    if opts.timings:
        solver["solve_time_s"] = solution.solve_time_s
    data: dict[str, Any] = {
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
        "model": {
            "objective": opts.objective,
            "cpu_cores": problem.cpu_cores,
            "assumptions": list(ASSUMPTIONS[opts.objective]),
            "variants": opts.variants,
            "calibrated": opts.calibrate is not None,
            "measured_estimates": prep.calibrated,
        },
        "scaling": prep.scaling.to_json(),
        "tasks": tasks,
        "edges": edges,
        "resources": {
            "available": {r: board.resources[r] for r in RESOURCES},
            "shell": {r: board.shell.get(r, 0) for r in RESOURCES},
            "budget": problem.budget,
            "used": _used(problem, solution),
        },
        "predicted": {
            "all_cpu_s": all_cpu,
            "plan_s": plan_s,
            "speedup": all_cpu / plan_s if plan_s > 0 else None,
        },
        "solver": solver,
        "main": MAIN,
    }
    data["chains"] = _chain_entries(prep, solution)
    if opts.objective != "latency":
        data["predicted"]["unit"] = "per frame" if opts.objective == "throughput" else "one run"
        data["schedule"] = _schedule(problem, solution)
    if len(sols) > 1 or opts.top_k > 1:
        data["alternatives"] = [_alternative(problem, s, k + 2, all_cpu) for k, s in enumerate(sols[1:])]
    return data


def _chain_entries(prep: Prepared, solution: Solution) -> list[dict[str, Any]]:
    """plan.json "chains": the AXI-Stream chains the solution uses, ends named as in the kernels."""
    problem = prep.problem
    ch = chosen(problem, solution.assignment, solution.variant)
    out = []
    for c in streamed(problem, ch):
        v = prep.chain_verdicts[(c.src, c.dst)]
        param = v.sites[0].param
        out_port, in_port = costs.stream_ends(prep.kernels[c.src], prep.kernels[c.dst], param)
        out.append(
            {
                "src": c.src,
                "dst": c.dst,
                "param": param,
                "out": out_port,
                "in": in_port,
                "saving_s": c.saving(ch[c.src].name, ch[c.dst].name),
                "stream_s": c.stream_s,
                "sites": [{"line": s.line, "form": s.form} for s in v.sites],
            }
        )
    return out


def streamed_kernels(data: dict[str, Any], kernels: dict[str, ir.Kernel]) -> dict[str, ir.Kernel]:
    """The kernels as built: the ends of the plan's chains with their streamed arrays marked."""
    ports: dict[str, list[str]] = {}
    for c in data.get("chains", []):
        ports.setdefault(c["src"], []).append(c["out"])
        ports.setdefault(c["dst"], []).append(c["in"])
    return {n: ir.with_streams(k, ports[n]) if n in ports else k for n, k in kernels.items()}


# ----------------------------------------------------------------------------- sweep


def parse_sweep(spec: str) -> dict[str, list[float]]:
    """'max-util=0.5:0.9:0.1' -> {'max_util': [0.5, 0.6, 0.7, 0.8, 0.9]} (also 'max-util=0.5,0.7')."""
    if "=" not in spec:
        raise PartitionError(f"--sweep {spec}: give NAME=START:STOP:STEP, e.g. max-util=0.5:0.9:0.1")
    name, _, values = spec.partition("=")
    if name.strip() not in ("max-util", "max_util"):
        raise PartitionError(f"--sweep {spec}: only max-util can be swept (boards: --board all)")
    try:
        if ":" in values:
            parts = [float(x) for x in values.split(":")]
            if len(parts) != 3 or parts[2] <= 0 or parts[1] < parts[0]:
                raise ValueError
            start, stop, step = parts
            n = math.floor((stop - start) / step + 1e-9) + 1
            vals = [round(start + i * step, 10) for i in range(n)]
        else:
            vals = [float(x) for x in values.split(",")]
    except ValueError:
        raise PartitionError(
            f"--sweep {spec}: give START:STOP:STEP with STOP >= START and STEP > 0, or a comma list"
        ) from None
    for v in vals:
        if not 0.0 < v <= 1.0:
            raise PartitionError(f"--sweep {spec}: {v} is not a utilisation fraction in (0, 1]")
    if len(vals) > 50:
        raise PartitionError(f"--sweep {spec}: {len(vals)} values; give at most 50")
    return {"max_util": vals}


def sweep(preps: list[Prepared], utils: list[float], opts: Options) -> dict[str, Any]:
    """Plans over boards × utilisation caps, with the Pareto-optimal rows marked.

    A row is Pareto-optimal when no other row is at least as fast and uses at
    most as many LUT, DSP and BRAM18, being better in one of them.
    """
    rows: list[dict[str, Any]] = []
    for prep in preps:
        for u in utils:
            problem = prep.problem
            saved = problem.budget
            problem.budget = costs.budget(prep.board, u)
            row: dict[str, Any] = {"params": {"board": prep.board.name, "max_util": u}}
            try:
                o = Options(**{**opts.__dict__, "max_util": u, "top_k": 1})
                sol = solve_prepared(prep, o, 1)[0]
                all_cpu = all_cpu_objective(problem)
                fpga = sorted(n for n, v in sol.assignment.items() if v)
                used = _used(problem, sol)
                row.update(
                    plan_s=sol.objective_s,
                    speedup=all_cpu / sol.objective_s if sol.objective_s > 0 else None,
                    fpga=fpga,
                    variants={n: sol.variant[n] for n in fpga if n in sol.variant},
                    used=used,
                    used_fraction={
                        r: (used[r] + float(prep.board.shell.get(r, 0))) / float(prep.board.resources[r])
                        for r in RESOURCES
                    },
                    status=sol.status,
                )
            except PartitionError as e:
                row.update(plan_s=None, speedup=None, fpga=[], status=f"no plan: {e.message}")
            finally:
                problem.budget = saved
            rows.append(row)
    keys = ("lut", "dsp", "bram18")
    for r in rows:
        if r["plan_s"] is None:
            r["pareto"] = False
            continue
        me = (r["plan_s"], *(r["used"][k] for k in keys))
        r["pareto"] = not any(
            o is not r
            and o["plan_s"] is not None
            and all(a <= b for a, b in zip((o["plan_s"], *(o["used"][k] for k in keys)), me))
            and (o["plan_s"], *(o["used"][k] for k in keys)) != me
            for o in rows
        )
    params = ["board", "max_util"]
    return {"parameters": params, "objective": opts.objective, "rows": rows}


# ----------------------------------------------------------------------------- explain


def explain_task(plan: Plan, name: str) -> dict[str, Any]:
    """Why `name` went where it went, as data (the CLI prints it): CPU time, every variant, transfers."""
    data = plan.data
    t = next((t for t in data["tasks"] if t["name"] == name), None)
    if t is None:
        known = ", ".join(x["name"] for x in data["tasks"])
        raise PartitionError(f"{name}: no such function in the profile; known: {known}")
    out: dict[str, Any] = {
        "task": name,
        "source": f"{t['file']}:{t['line']}",
        "calls": t["calls"],
        "cpu_s": t["cpu_s"],
        "placement": t["placement"],
        "variant": t.get("variant"),
        "reason": t["reason"],
        "objective": data["objective"],
        "plan_s": data["predicted"]["plan_s"],
        "budget": data["resources"]["budget"],
        "used": data["resources"]["used"],
        "edges_in": [e for e in data["edges"] if e["dst"] == name],
        "edges_out": [e for e in data["edges"] if e["src"] == name],
    }
    fpga = t.get("fpga")
    if fpga:
        rows = []
        for v in fpga["variants"]:
            est = v["estimate"]
            limits = []
            for label, lp in sorted(est.get("loops", {}).items()):
                if lp.get("pipelined") and lp.get("ii_reasons") and lp["ii"] > 1:
                    why = sorted(k for k, n in lp["ii_reasons"].items() if n == lp["ii"])
                    limits.append(f"loop {label}: II {lp['ii']} set by {' and '.join(why)}")
            over = [r for r in RESOURCES if est[r] > data["resources"]["budget"][r] + 1e-9]
            rows.append(
                {
                    "name": v["name"],
                    "describe": v["describe"],
                    "cycles": est["cycles"],
                    "total_s": v["total_s"],
                    "compute_s": v["compute_s"],
                    "overhead_s": v["overhead_s"],
                    "copy_out_s": v["copy_out_s"],
                    "resources": {r: est[r] for r in RESOURCES},
                    "source": est.get("source", "model"),
                    "measured": est.get("breakdown", {}).get("measured", {}),
                    "over_budget": over,
                    "ii_limits": limits,
                    "chosen": t.get("variant") == v["name"] and t["placement"] == "fpga",
                }
            )
        out["variants"] = rows
    prep = plan.prepared
    if prep is not None and any(x.name == name for x in prep.problem.tasks):
        x = plan_assignment(plan)
        moved = []
        for e in prep.problem.edges:
            if name not in (e.src, e.dst):
                continue
            xs = 0 if e.src == MAIN else x.get(e.src, 0)
            xd = 0 if e.dst == MAIN else x.get(e.dst, 0)
            here = e.cost(xs, xd)
            if e.src == name:
                there = e.cost(1 - xs, xd)
            else:
                there = e.cost(xs, 1 - xd)
            moved.append({"src": e.src, "dst": e.dst, "now_s": here, "moved_s": there})
        out["transfers"] = moved
        used = {(c["src"], c["dst"]): c for c in data.get("chains", [])}
        out["chains"] = [
            {
                "src": a,
                "dst": b,
                "used": (a, b) in used,
                "saving_s": used[(a, b)]["saving_s"] if (a, b) in used else 0.0,
                "reason": v.reason,
                **({} if (a, b) in used or v.reason else _chain_unused(plan, a, b)),
            }
            for (a, b), v in sorted(prep.chain_verdicts.items())
            if name in (a, b)
        ]
    return out


def _chain_unused(plan: Plan, src: str, dst: str) -> dict[str, Any]:
    """Why a chain the app allows is not used: an end on the CPU, no saving with the chosen
    variants, or (throughput) the joined stage slower than the kernels' own stages."""
    prep = plan.prepared
    assert prep is not None
    problem = prep.problem
    variant = {t["name"]: t["variant"] for t in plan.data["tasks"] if t.get("variant")}
    ch = chosen(problem, plan_assignment(plan), variant)
    vs, vd = ch.get(src), ch.get(dst)
    c = next((c for c in problem.chains if (c.src, c.dst) == (src, dst)), None)
    if c is None or vs is None or vd is None:
        return {"why_unused": "not both ends on the FPGA"}
    saving = c.saving(vs.name, vd.name)
    if saving <= 0:
        return {
            "why_unused": f"with variants {vs.name} and {vd.name} the stream saves nothing",
            "would_save_s": saving,
        }
    stages, used = chain_stages(problem, ch)
    now = {n: (members, secs) for members, secs in stages for n in members}
    members = sorted({*now[src][0], *now[dst][0]}, key=[t.name for t in problem.tasks].index)
    joined = sum(ch[n].fpga_s for n in members) - saving
    joined -= sum(u.saving(ch[u.src].name, ch[u.dst].name) for u in used if u.src in members)
    return {
        "why_unused": f"one stage of {' + '.join(members)} would take {_fmt_s(joined)} per frame (their FPGA "
        f"times minus the chains' savings, this one {_fmt_s(saving)}), their stages now "
        f"{_fmt_s(max(now[src][1], now[dst][1]))}: separate stages are faster",
        "would_save_s": saving,
    }


def plan_assignment(plan: Plan) -> dict[str, int]:
    return {t["name"]: int(t["placement"] == "fpga") for t in plan.data["tasks"]}
