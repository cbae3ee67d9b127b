"""Everything up to the solver: translate every profiled function, estimate every variant of
each kernel (calibrated), the AXI-Stream chains the app allows, and the problem for the objective."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

from partition import ir
from partition.boards import Board
from partition.errors import PartitionError
from partition.estimate import (
    BASE,
    KernelVariant,
    calibrate,
    estimate_variant,
    kernel_variants,
)
from partition.fmt import fmt_s
from partition.frontend import Rejected, Verdict, chainable, translate
from partition.plan.artefacts import (
    CHAIN_OBJECTIVES,
    Options,
    Prepared,
)
from partition.plan.shapes import MaxShape, with_max_shapes
from partition.profile.model import Profile
from partition.solve import (
    OBJECTIVES,
    ChainCost,
    costs,
)
from partition.vectors import VectorSet, bin_files, interpreter_check, kernel_vectors

UNSEEN_CPU_S = 0.01  # CPU time in children nothing profiled below which nothing is said


def check_options(opts: Options) -> None:
    """The checks of `opts` that need no profile (the CLI makes them before profiling the app)."""
    if opts.objective not in OBJECTIVES:
        raise PartitionError(f"--objective {opts.objective}: choose one of {', '.join(OBJECTIVES)}")
    if not 0.0 < opts.max_util <= 1.0:
        raise PartitionError(f"--max-util {opts.max_util}: give a fraction in (0, 1], e.g. 0.8")
    if opts.cores is not None and opts.cores not in (1, 2):
        raise PartitionError(f"--cores {opts.cores}: the model supports 1 or 2 CPU cores")
    if opts.top_k < 1:
        raise PartitionError(f"--top-k {opts.top_k}: give 1 or more")
    if opts.int_widths not in ("sound", "observed"):
        raise PartitionError(f"--int-widths {opts.int_widths}: choose sound or observed")
    if opts.time_limit_s is not None and not opts.time_limit_s > 0:
        raise PartitionError(f"--time-limit {opts.time_limit_s}: give a positive number of seconds")


def _check_options(profile: Profile, opts: Options) -> dict[str, str]:
    check_options(opts)
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


def translate_all(
    profile: Profile, app_dir: Path, observed_ints: bool = False, max_shapes: list[MaxShape] | None = None
) -> tuple[dict[str, ir.Kernel], dict[str, Rejected]]:
    """Every profiled function as a kernel, or the reason it stays on the CPU.

    Nothing one function does stops the others: a failure inside the frontend
    itself (a bug in partition) keeps that function on the CPU and says so.
    `max_shapes` (--max-shape) widens arguments to the longest arrays the kernels must take."""
    profile = with_max_shapes(profile, list(max_shapes or []))
    kernels: dict[str, ir.Kernel] = {}
    rejected: dict[str, Rejected] = {}
    for name in sorted(profile.functions):
        fp = profile.functions[name]
        try:
            r = translate(fp, app_dir, profile.functions, observed_ints)
        except Exception as e:  # a bug in partition must not cost the user the whole plan
            r = Rejected(name, fp.file, fp.line, internal_failure("translating it", e))
        if isinstance(r, Rejected):
            rejected[name] = r
        else:
            kernels[name] = r
    return kernels, rejected


def internal_failure(doing: str, e: Exception) -> str:
    """The one-line reason for a function that partition itself failed on; with
    PARTITION_DEBUG=1 the exception propagates, with its traceback."""
    if os.environ.get("PARTITION_DEBUG"):
        raise e
    return (
        f"partition failed while {doing} ({type(e).__name__}: {e}); this is a bug in partition, "
        "please report it (PARTITION_DEBUG=1 shows the traceback)"
    )


def checked_vectors(
    profile: Profile, kernels: dict[str, ir.Kernel], rejected: dict[str, Rejected]
) -> dict[str, list[VectorSet]]:
    """Every kernel's test vectors, the recorded calls converted exactly to its types.

    A kernel whose recorded calls do not fit its types (a value outside a
    parameter's or the return's range) would compute something else than Python
    on them, and one whose IR the interpreter finds disagreeing with Python on a
    call it can run quickly was mistranslated: either moves to `rejected` with the
    reason, and stays on the CPU. The interpreter also fixes each vector's expected
    fallback status where the kernel has one."""
    out: dict[str, list[VectorSet]] = {}
    for name in sorted(kernels):
        k = kernels[name]
        fp = profile.functions[name]
        try:
            vectors = kernel_vectors(k, fp)
            bin_files(k, k.ret, vectors)
            wrong = interpreter_check(k, vectors)
        except PartitionError as e:
            reason = f"its recorded calls do not fit the kernel's types: {e.message}"
        except Exception as e:  # a bug in partition must not cost the user the whole plan
            reason = internal_failure("checking its recorded calls", e)
        else:
            if wrong is None:
                out[name] = vectors
                continue
            reason = (
                f"its translation disagrees with Python on a recorded call ({wrong}); this is a bug in "
                "partition, please report it"
            )
        rejected[name] = Rejected(name, fp.file, fp.line, reason)
        del kernels[name]
    return out


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
    kernels, rejected = translated or translate_all(
        profile, app_dir, opts.int_widths == "observed", opts.max_shapes
    )
    kernels, rejected = dict(kernels), dict(rejected)  # `translated` may be shared by several boards
    vectors = checked_vectors(profile, kernels, rejected)
    warnings = children_warnings(profile)
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

    variants: dict[str, list[KernelVariant]] = {}
    for name, k in sorted(kernels.items()):
        try:
            variants[name] = kernel_variants(
                k, board, base_only=not opts.variants, adjust=partial(measured, k)
            )
        except PartitionError:
            raise  # a measurement in --calibrate DIR that does not fit: the user's to fix
        except Exception as e:  # as above: that one kernel stays on the CPU
            fp = profile.functions[name]
            rejected[name] = Rejected(name, fp.file, fp.line, internal_failure("estimating its kernel", e))
    for name in set(kernels) - set(variants):
        del kernels[name]
        vectors.pop(name, None)
    pins = _honoured_pins(pins, kernels, rejected, variants, board, opts, warnings)
    figures: dict[str, dict[str, costs.TaskFigures]] = {}
    for name in sorted(kernels):
        fp = profile.functions[name]
        figures[name] = {
            v.name: costs.task_figures(
                name,
                fp.calls,
                costs.task_cpu_seconds(profile, scaling, name),
                kernels[name],
                v.estimate,
                board,
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
    return Prepared(
        board,
        scaling,
        kernels,
        rejected,
        variants,
        figures,
        problem,
        pins,
        calibrated,
        verdicts,
        vectors,
        warnings,
    )


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


def children_warnings(profile: Profile) -> list[str]:
    """What the app did in child processes, said beside the plan: the functions profiled in
    forked workers (they stay on the CPU), and CPU time in children the profiler could not see."""
    c = profile.children
    if not c:
        return []
    out = []
    ran = sorted((f for f in profile.functions.values() if f.child_calls), key=lambda f: (-f.child_s, f.name))
    if ran:
        listed = ", ".join(f"{f.name} ({f.child_calls:,} call(s), {fmt_s(f.child_s)})" for f in ran[:6])
        more = f" and {len(ran) - 6} more" if len(ran) > 6 else ""
        out.append(
            f"the app ran work in {c['forked']} forked child process(es) (a process pool or os.fork): "
            f"{listed}{more} ran there and stay on the CPU (the FPGA is driven from the main process); "
            "the main process's time waiting for them counts as its own code"
        )
    unseen = c["forked"] - c["reported"]
    if unseen > 0 or (not c["forked"] and c["cpu_s"] >= UNSEEN_CPU_S):
        who = (
            f"{unseen} forked child process(es) wrote no profile (killed by SIGKILL, or ended before "
            "the profiler could write)"
            if unseen > 0
            else "child processes the profiler cannot follow (subprocesses, or workers started with the "
            "spawn or forkserver method)"
        )
        out.append(
            f"{fmt_s(c['cpu_s'])} of CPU time ran in child processes; {who}: what they ran is not in the "
            "profile and the plan leaves it out; use the fork start method or call the work in the "
            "main process to have it profiled"
        )
    return out


def _honoured_pins(
    pins: dict[str, str],
    kernels: dict[str, ir.Kernel],
    rejected: dict[str, Rejected],
    variants: dict[str, list[KernelVariant]],
    board: Board,
    opts: Options,
    warnings: list[str],
) -> dict[str, str]:
    """The pins the plan can honour; an FPGA pin of a function that cannot be a kernel, or whose
    every variant exceeds the budget on its own, is dropped with a warning (the function stays
    on the CPU and its reason says why): one function never stops the plan."""
    budget = costs.budget(board, opts.max_util)
    out = dict(pins)
    for name, where in sorted(pins.items()):
        if where != "fpga":
            continue
        if name in rejected:
            warnings.append(
                f"--pin-fpga {name}: it cannot become a kernel, so it stays on the CPU: "
                f"{rejected[name].reason}"
            )
            del out[name]
            continue
        fits = [v for v in variants[name] if all(getattr(v.estimate, r) <= budget[r] + 1e-9 for r in budget)]
        if not fits:
            smallest = min(
                variants[name],
                key=lambda v: max(getattr(v.estimate, r) / max(budget[r], 1e-9) for r in budget),
            )
            over = next(r for r in budget if getattr(smallest.estimate, r) > budget[r] + 1e-9)
            warnings.append(
                f"--pin-fpga {name}: no variant fits the budget on its own ({over.upper()} "
                f"{getattr(smallest.estimate, over):,.0f} > {budget[over]:,.0f} with {smallest.name}), so it "
                "stays on the CPU; raise --max-util or choose a larger board"
            )
            del out[name]
    return out
