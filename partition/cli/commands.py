"""The commands that profile and plan (profile, plan, explain, report, boards): each parses
nothing and decides nothing, it calls the pipeline stages in order and prints what they return."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from partition.errors import PartitionError


def _app_path(app: str) -> Path:
    path = Path(app)
    if not path.exists():
        raise PartitionError(f"{app}: no such file")
    if not path.is_file():
        raise PartitionError(f"{app}: not a file")
    return path


def _run_limits(args: argparse.Namespace) -> dict:
    """run_profile's app_timeout and profile_for from the options (the timeout's default when
    the output is not a terminal: a script or CI job never hangs on an app that does not end)."""
    from partition.cli.parser import APP_TIMEOUT_NONINTERACTIVE_S

    timeout = args.app_timeout
    if timeout is None and not sys.stdout.isatty():
        timeout = APP_TIMEOUT_NONINTERACTIVE_S
    for name, v in (("--app-timeout", args.app_timeout), ("--profile-for", args.profile_for)):
        if v is not None and not v > 0:
            raise PartitionError(f"{name} {v:g}: give a positive number of seconds")
    return {"app_timeout": timeout, "profile_for": args.profile_for}


def _stopped_line(prof) -> str | None:
    if prof.stopped_after_s is None:
        return None
    calls = sum(f.calls for f in prof.functions.values())
    return (
        f"the app was stopped after {prof.stopped_after_s:g} s (--profile-for): the profile holds what it did "
        f"until then, {calls:,} call(s) of {len(prof.functions)} function(s)"
    )


def cmd_profile(args: argparse.Namespace, app_args: list[str]) -> int:
    from partition.plan.preparation import children_warnings
    from partition.profile import run_profile
    from partition.profile.model import save_profile
    from partition.report import progress

    app = _app_path(args.app)
    if args.samples < 0:
        raise PartitionError(f"--samples {args.samples}: give 0 or more")
    limits = _run_limits(args)
    with progress.use(progress.Reporter()), progress.step(f"profiling {app.name}"):
        prof = run_profile(
            app, app_args, samples=args.samples, baseline=not args.no_baseline, echo=args.echo, **limits
        )
    out = Path(args.out) if args.out else Path(f"{app.stem}.profile.json")
    save_profile(prof, out)
    print(
        f"profile of {app.name}: {len(prof.functions)} function(s), {len(prof.edges)} data edge(s) -> {out}"
    )
    if prof.overhead is not None:
        print(
            f"run time {prof.wall_s:.3f} s profiled, {prof.plain_wall_s:.3f} s plain ({prof.overhead:.2f}× overhead)"
        )
    if line := _stopped_line(prof):
        print(line)
    ranked = sorted(prof.functions.values(), key=lambda f: -f.total_s)[:10]
    for f in ranked:
        print(f"  {f.name:<30} {f.calls:>8,} calls  {f.total_s:>9.4f} s incl  {f.self_s:>9.4f} s self")
    for f in sorted((f for f in prof.functions.values() if f.child_calls), key=lambda f: -f.child_s)[:10]:
        print(f"  {f.name:<30} {f.child_calls:>8,} calls  {f.child_s:>9.4f} s incl  in child processes")
    for line in children_warnings(prof):
        print(f"warning: {line}")
    return 0


def _load_profile_or_run(args: argparse.Namespace, app: Path, app_args: list[str]):
    from partition.profile import run_profile
    from partition.profile.model import load_profile
    from partition.report import progress

    if args.samples < 0:  # (checked with --profile too: a wrong option is said, not ignored)
        raise PartitionError(f"--samples {args.samples}: give 0 or more")
    limits = _run_limits(args)
    if args.profile:
        prof = load_profile(Path(args.profile))
        if Path(prof.app).name != app.name:
            raise PartitionError(f"{args.profile}: this profile is of {prof.app}, not {app.name}")
        return prof
    with progress.step(f"profiling {app.name}"):
        return run_profile(app, app_args, samples=args.samples, echo=False, **limits)


def _options(args: argparse.Namespace):
    from partition.plan import Options
    from partition.plan.preparation import check_options
    from partition.plan.shapes import parse_max_shape

    if getattr(args, "workers", 0) < 0:
        raise PartitionError(f"--workers {args.workers}: give a positive number of worker processes")
    opts = Options(
        objective=args.objective,
        max_util=args.max_util,
        pin_cpu=args.pin_cpu,
        pin_fpga=args.pin_fpga,
        solver=args.solver,
        timings=getattr(args, "timings", False),
        cores=args.cores,
        time_limit_s=args.time_limit,
        top_k=getattr(args, "top_k", 1),
        variants=not args.no_variants,
        chains=not args.no_chains,
        int_widths=args.int_widths,
        max_shapes=[parse_max_shape(x) for x in getattr(args, "max_shape", [])],
        calibrate=Path(args.calibrate) if args.calibrate else None,
        workers=getattr(args, "workers", 0) or None,
        scheduler=getattr(args, "scheduler", None),
    )
    check_options(opts)  # before the app is profiled: a bad option costs no run
    return opts


def _boards(args: argparse.Namespace) -> list:
    """The boards to plan for: the one named, or every known one for `--board all`."""
    from partition.boards import list_boards, load_board

    overrides = Path(args.board_overrides) if args.board_overrides else None
    if args.board == "all":
        if overrides is not None:
            raise PartitionError("--board-overrides measures one board; name it instead of --board all")
        return list_boards()
    return [load_board(args.board, overrides=overrides)]


def _planned(args: argparse.Namespace, app: Path, prof, opts):
    """(plan, board) for the board(s) asked for; with --sweep or --board all, the plan has a sweep table."""
    from partition.plan import plan_boards

    return plan_boards(prof, app.parent, _boards(args), opts, getattr(args, "sweep", None))


def cmd_plan(args: argparse.Namespace, app_args: list[str]) -> int:
    from partition.fsutil import check_out, out_lock

    app = _app_path(args.app)
    out = Path(args.out) if args.out else Path("build") / app.stem
    opts = _options(args)
    _boards(args)  # a bad board name fails before profiling
    check_out(out, app)
    with out_lock(out):
        return _plan_locked(args, app_args, app, out, opts)


def _plan_locked(args: argparse.Namespace, app_args: list[str], app: Path, out: Path, opts) -> int:
    from partition.codegen import build_tree, local_modules
    from partition.fsutil import check_user_changes, write_tree
    from partition.report import plan_output, progress, summary

    check_user_changes(out, args.force)
    with progress.use(progress.Reporter(quiet=args.quiet)):
        t0 = time.perf_counter()
        prof = _load_profile_or_run(args, app, app_args)
        t1 = time.perf_counter()
        from partition.solve import default_solver

        # the label names the solver auto picks (CBC instead of CP-SAT only beyond CPSAT_MAX_TASKS)
        solver = default_solver(opts.objective, opts.top_k) if args.solver == "auto" else args.solver
        what = solver if opts.objective == "latency" else f"{opts.objective}, {solver}"
        with progress.step(f"planning: translate, estimate, solve ({what})"):
            plan, board = _planned(args, app, prof, opts)
        with progress.step(f"generating the build tree {out}"):
            files, executable = build_tree(plan, prof, board, app.read_bytes(), local_modules(prof, app))
            write_tree(out, files, executable)
        t2 = time.perf_counter()
    if args.json:
        timings = {
            "profile_s": None if args.profile else t1 - t0,
            "partition_s": t2 - t1,
            "profiler_overhead": None if args.profile else prof.overhead,
        }
        sys.stdout.write(plan_output(plan.data, str(out), timings))
    elif not args.quiet:
        print(summary(plan.data, str(out)))
        took = f"partition itself took {t2 - t1:.2f} s"
        if not args.profile:
            took += f" (profiling the app {t1 - t0:.2f} s"
            if prof.overhead is not None:
                took += f"; profiler overhead {prof.overhead:.2f}× on the app's run"
            took += ")"
        print(took)
        if line := _stopped_line(prof):
            print(line)
    return 0


def cmd_explain(args: argparse.Namespace, app_args: list[str]) -> int:
    from partition.boards import load_board
    from partition.plan import explain_task, make_plan
    from partition.report import explain_text, progress

    app = _app_path(args.app)
    opts = _options(args)
    overrides = Path(args.board_overrides) if args.board_overrides else None
    board = load_board(args.board, overrides=overrides)
    with progress.use(progress.Reporter(quiet=True)):
        prof = _load_profile_or_run(args, app, app_args)
    if args.func not in prof.functions:
        known = ", ".join(sorted(prof.functions)) or "(none)"
        raise PartitionError(f"{args.func}: no such function in the profile of {app.name}; known: {known}")
    plan = make_plan(prof, app.parent, board, opts)
    info = explain_task(plan, args.func)
    if args.json:
        sys.stdout.write(json.dumps(info, indent=1, sort_keys=True, allow_nan=False) + "\n")
    else:
        print(explain_text(info, plan.data))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from partition.report import load_verification, regenerate

    target = regenerate(Path(args.dir), force=args.force)
    if not args.quiet:
        results = load_verification(Path(args.dir))
        n = sum(len(v) for v in results.values())
        print(f"report: {target} ({n} verification result(s) of {len(results)} kernel(s))")
    return 0


def cmd_boards(args: argparse.Namespace) -> int:
    from partition.boards import list_boards

    rows = [("board", "part", "LUT", "FF", "DSP", "BRAM18", "CPU", "description")]
    for b in list_boards():
        r = b.resources
        rows.append(
            (
                b.name,
                b.part,
                f"{r['lut']:,}",
                f"{r['ff']:,}",
                f"{r['dsp']:,}",
                f"{r['bram18']:,}",
                f"{b.cpu['cores']}× {b.cpu['core']} {b.cpu['mhz']:g} MHz",
                b.description,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        print(
            "  ".join(c.ljust(w) if i in (0, 1, 6) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
            + "  "
            + r[-1]
        )
    return 0
