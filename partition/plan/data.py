"""plan.json: the solved problem written out task by task, with edges, resources, predictions,
the solver's status, the schedule (makespan/throughput), chains and alternatives."""

from __future__ import annotations

from typing import Any

from partition import ir
from partition.boards import RESOURCES, Board
from partition.estimate import (
    BASE,
    KernelVariant,
)
from partition.estimate.roofline import Roofline, configuration, roofline
from partition.plan.artefacts import (
    FORMAT,
    Options,
    Prepared,
)
from partition.plan.objective import all_cpu_objective
from partition.plan.reasons import reason_cpu, reason_fpga
from partition.profile.model import MAIN, Profile
from partition.solve import (
    Problem,
    Solution,
    chosen,
    costs,
    streamed,
    throughput_entries,
)

_IN_DDR = (
    "a returned numpy array is the kernel's output buffer, lent to the app (no copy-out); passed as it "
    "is to another FPGA kernel it stays in DDR (flushed, not copied: edges' in_ddr_bytes)"
)

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


def resources_used(problem: Problem, sol: Solution) -> dict[str, float]:
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
        "used": resources_used(problem, sol),
        "status": sol.status,
    }


def _fastest(vs: list[KernelVariant]) -> KernelVariant:
    return min(vs, key=lambda v: (v.estimate.cycles, v.name))


def _variant_json(
    v: KernelVariant, f: costs.TaskFigures, problem: Problem, board: Board, rl: Roofline
) -> dict[str, Any]:
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
        "roofline_fraction": rl.bound_cycles / v.estimate.cycles if v.estimate.cycles > 0 else 1.0,
        "estimate": v.estimate.to_json(),
    }


def plan_data(
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
            "cpu_s": costs.task_cpu_seconds(profile, prep.scaling, name),
            "self_cpu_s": fp.self_s * prep.scaling.of(fp),
            "pin": prep.pins.get(name),
        }
        if name in prep.kernels:
            k = prep.kernels[name]
            figs = prep.figures[name]
            f = figs[BASE]
            vs = prep.variants[name]
            entry["kernel"] = k.name
            rl = roofline(k, board, int(problem.budget["dsp"]))
            entry["fpga"] = {
                "total_s": f.fpga_s,
                "compute_s": f.compute_s,
                "overhead_s": f.overhead_s,
                "copy_out_s": f.copy_out_s,
                "per_call": f.call.to_json(),
                "estimate": vs[0].estimate.to_json(),
                "variants": [_variant_json(v, figs[v.name], problem, board, rl) for v in vs],
            }
            shown = solution.variant.get(name, BASE) if name in fpga_set else _fastest(vs).name
            est = next(v.estimate for v in vs if v.name == shown)
            entry["fpga"]["roofline"] = {**rl.to_json(), "configuration": configuration(est, rl)}
            entry["notes"] = list(k.notes)
            if name in fpga_set:
                vname = solution.variant.get(name, BASE)
                entry["placement"] = "fpga"
                entry["variant"] = vname
                entry["reason"] = reason_fpga(
                    name, figs[vname], vname, len(vs) > 1, prep.pins.get(name) == "fpga"
                )
            else:
                entry["placement"] = "cpu"
                entry["reason"] = reason_cpu(name, problem, solution, figs, fpga_set, profile)
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
            "used": resources_used(problem, solution),
        },
        "predicted": {
            "all_cpu_s": all_cpu,
            "plan_s": plan_s,
            "speedup": all_cpu / plan_s if plan_s > 0 else None,
            **_speedup_range(profile, prep, fpga_set, all_cpu_latency, plan_s, opts.objective),
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


def _speedup_range(
    profile: Profile, prep: Prepared, fpga: set[str], all_cpu: float, plan_s: float, objective: str
) -> dict[str, Any]:
    """The predicted times and speedup at the low and high ends of the board's CPU figures
    (latency objective: the CPU part of the plan moves with them, the FPGA part does not)."""
    if objective != "latency" or prep.scaling.on_board or not prep.scaling.ratios:
        return {}
    out: dict[str, Any] = {}
    for k, key in ((1, "fast_cpu"), (2, "slow_cpu")):
        cpu_k = costs.all_cpu_seconds(profile, prep.scaling, k)
        moved = sum(costs.task_cpu_seconds(profile, prep.scaling, n, k) for n in sorted(fpga))
        kept = sum(costs.task_cpu_seconds(profile, prep.scaling, n) for n in sorted(fpga))
        plan_k = plan_s + (cpu_k - moved) - (all_cpu - kept)
        out[key] = {"all_cpu_s": cpu_k, "plan_s": plan_k, "speedup": cpu_k / plan_k if plan_k > 0 else None}
    return {"range": out}


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
