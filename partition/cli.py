"""Command line: parses arguments and wires the pipeline stages together, nothing more."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from partition import __version__
from partition.errors import PartitionError

DESCRIPTION = """\
partition: profile a Python app, choose which functions become FPGA kernels
(an ILP over measured CPU time, estimated kernel time, data movement and the
board's LUT/FF/DSP/BRAM budget), and write the build tree: Vitis HLS C++ with
C-simulation testbenches, a Makefile and a report."""

EPILOG = """\
examples:
  partition plan examples/fir_pipeline.py --board pynq-z2
  make -C build/fir_pipeline csim
  partition profile app.py -- --frames 10      # arguments after -- go to the app
  partition plan app.py --board pynq-z2 --profile app.profile.json --out build/app2
  partition plan app.py --board pynq-z2 --objective makespan --top-k 3
  partition plan app.py --board all --sweep max-util=0.5:0.9:0.1   # Pareto table
  partition plan app.py --board pynq-z2 --calibrate build/app      # re-plan with measured figures
  partition explain app.py fir_q15 --board pynq-z2
  partition report build/fir_pipeline               # refresh report.html after make sim
  partition boards
"""


def _split_app_args(argv: list[str]) -> tuple[list[str], list[str]]:
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1 :]
    return argv, []


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="partition",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"partition {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    pr = sub.add_parser(
        "profile",
        help="run the app and record where its time goes",
        description="Run APP (as __main__, with the arguments after --) under partition's profiler and "
        "write the profile: per function calls, inclusive/exclusive time, argument and return "
        "signatures, sample vectors, and the data flowing between functions. The app also runs once "
        "without the profiler so the profiler's own overhead is reported.",
        usage="partition profile APP [--out PROFILE.json] [--samples N] [--no-baseline] [-- ARGS...]",
    )
    pr.add_argument("app", metavar="APP", help="the Python application (a .py file)")
    pr.add_argument(
        "--out", metavar="PROFILE.json", help="where to write the profile (default: APP_STEM.profile.json)"
    )
    pr.add_argument(
        "--samples",
        type=int,
        default=3,
        metavar="N",
        help="calls recorded per function as test vectors (default 3)",
    )
    pr.add_argument(
        "--no-baseline", action="store_true", help="skip the uninstrumented run (no overhead figure)"
    )
    pr.add_argument("--echo", action="store_true", help="show the app's own output")

    pl = sub.add_parser(
        "plan",
        help="profile (or load a profile), partition, and write the build tree",
        description="Profile APP (or reuse --profile), translate every function it can into a kernel, "
        "estimate each kernel's implementation variants on the board, choose the CPU/FPGA split and each "
        "kernel's variant with an ILP for the chosen objective, and write the build tree (plan.json, "
        "profile.json, graph.json/.dot, report.md, report.html, Makefile, hls/<task>/, rtl/<task>/, ...).",
        usage="partition plan APP --board B [--out DIR] [options] [-- ARGS...]",
    )
    pl.add_argument("app", metavar="APP", help="the Python application (a .py file)")
    pl.add_argument(
        "--board",
        required=True,
        metavar="B",
        help="board name (see `partition boards`) or a board TOML file; `all`: plan for every known board, "
        "tabulate them (Pareto table) and write the tree for the one with the best predicted time",
    )
    pl.add_argument(
        "--board-overrides",
        metavar="FILE.toml",
        help="board figures measured on the board (the build tree's boards/B.calibrate.py writes "
        "B.measured.toml); its values replace the board file's and are reported as measured",
    )
    pl.add_argument("--out", metavar="DIR", help="build tree folder (default: build/APP_STEM)")
    _solver_options(pl)
    pl.add_argument(
        "--top-k",
        type=int,
        default=1,
        metavar="K",
        help="also find the K-1 next-best distinct partitions (no-good cuts) and report their predicted times",
    )
    pl.add_argument(
        "--sweep",
        metavar="max-util=A:B:STEP",
        help="re-solve over utilisation caps (e.g. max-util=0.5:0.9:0.1) and add a Pareto table of "
        "predicted time against LUT/DSP/BRAM use to plan.json and the reports",
    )
    pl.add_argument(
        "--samples",
        type=int,
        default=3,
        metavar="N",
        help="calls recorded per function when profiling (default 3)",
    )
    pl.add_argument(
        "--force",
        action="store_true",
        help="overwrite generated files even if they were edited since the last run",
    )
    pl.add_argument(
        "--timings",
        action="store_true",
        help="record the solve time in plan.json (the tree is then not reproducible)",
    )
    pl.add_argument(
        "--calibrate",
        metavar="DIR",
        help="replace estimates by measured figures found in DIR (normally the build tree): Vitis HLS "
        "csynth reports (<kernel>_csynth.xml) and the built-in RTL's results/<kernel>/rtl_sim.json and "
        "yosys.json; the reports mark which figures are measured",
    )
    pl.add_argument("--quiet", action="store_true", help="print only errors")
    pl.add_argument(
        "--json",
        action="store_true",
        help="print the plan and a summary as one JSON document on stdout (schema: "
        "partition/schemas/plan-output.schema.json) and nothing else there",
    )

    ex = sub.add_parser(
        "explain",
        help="say why a function went where it went (CPU time, FPGA estimate per variant, transfers, limits)",
        description="Plan APP as `partition plan` would (nothing is written) and explain the placement of "
        "function FUNC: its CPU time, the FPGA estimate of each implementation variant with what limits "
        "it (II, budget), the transfers it causes or saves, and the reason the solver gives.",
        usage="partition explain APP FUNC --board B [--profile PROFILE.json] [plan options] [-- ARGS...]",
    )
    ex.add_argument("app", metavar="APP", help="the Python application (a .py file)")
    ex.add_argument("func", metavar="FUNC", help="a function of the app (as named in the profile)")
    ex.add_argument(
        "--board", default="pynq-z2", metavar="B", help="board name or TOML file (default pynq-z2)"
    )
    ex.add_argument("--board-overrides", metavar="FILE.toml", help="measured board figures (see plan)")
    ex.add_argument(
        "--profile", metavar="PROFILE.json", help="reuse a saved profile instead of running the app"
    )
    ex.add_argument(
        "--samples", type=int, default=3, metavar="N", help="calls recorded per function (default 3)"
    )
    _solver_options(ex)
    ex.add_argument("--calibrate", metavar="DIR", help="measured figures, as for plan")
    ex.add_argument("--json", action="store_true", help="print the explanation as JSON")

    rp = sub.add_parser(
        "report",
        help="rewrite DIR/report.html from the build tree (after simulation or synthesis results)",
        description="Rewrite DIR/report.html from DIR/plan.json, DIR/graph.json and the verification "
        "results under DIR/results/<kernel>/<step>.json (csim, rtl_sim, cosim, yosys), which the "
        "build tree's make targets write.",
        usage="partition report DIR [--force] [--quiet]",
    )
    rp.add_argument("dir", metavar="DIR", help="a build tree written by `partition plan`")
    rp.add_argument("--force", action="store_true", help="overwrite report.html even if it was edited")
    rp.add_argument("--quiet", action="store_true", help="print only errors")

    for name, what in (("sim", "simulate"), ("synth", "synthesize"), ("lint", "lint")):
        sp = sub.add_parser(
            name,
            help={
                "sim": "simulate every FPGA kernel's built-in RTL against the Python results (cocotb + Verilator)",
                "synth": "synthesize every FPGA kernel's built-in RTL with yosys and count its resources",
                "lint": "lint every FPGA kernel's built-in RTL with verilator --lint-only -Wall",
            }[name],
            description=f"{what.capitalize()} the built-in RTL of the FPGA kernels of build tree DIR; results go "
            "to DIR/results/<kernel>/ and DIR/report.html is refreshed.",
        )
        sp.add_argument("dir", metavar="DIR", help="a build tree written by `partition plan`")
        sp.add_argument(
            "--kernel", action="append", default=[], metavar="K", help="only kernel K (repeatable)"
        )
        sp.add_argument("--jobs", type=int, default=0, metavar="N", help="parallel jobs (default: up to 4)")
        if name == "sim":
            sp.add_argument(
                "--waves", action="store_true", help="write FST waveforms (results/<kernel>/rtl_sim/)"
            )
            sp.add_argument(
                "--simulator", default="verilator", choices=["verilator", "icarus"], help="default verilator"
            )
            sp.add_argument(
                "--timeout-cycles",
                type=int,
                default=5_000_000,
                metavar="N",
                help="fail a call that has not signalled ap_done after N cycles (default 5,000,000)",
            )
        if name == "synth":
            sp.add_argument(
                "--family",
                default=None,
                choices=["xc7", "xcup"],
                help="default: the board's (xc7 for Zynq-7000)",
            )

    cs = sub.add_parser(
        "cosim",
        help="run the app through the generated host code against the kernels' RTL (cocotb + Verilator)",
        description="Co-simulate build tree DIR: the unmodified app runs through the generated host code "
        "(host/run_app.py) with the runtime's sim backend, every FPGA kernel's built-in RTL simulated by "
        "Verilator; its output must equal a plain CPU run. Result in DIR/results/cosim.json.",
        usage="partition cosim DIR [--waves] [-- APP ARGS...]",
    )
    cs.add_argument("dir", metavar="DIR", help="a build tree written by `partition plan`")
    cs.add_argument("--waves", action="store_true", help="write FST waveforms (results/cosim/)")

    sub.add_parser(
        "boards",
        help="list the known boards",
        description="List the boards partition knows, with their FPGA resources.",
    )
    return p


def _solver_options(p: argparse.ArgumentParser) -> None:
    """The options `plan` and `explain` share: objective, budgets, pins, solver."""
    p.add_argument(
        "--objective",
        default="latency",
        choices=["latency", "makespan", "throughput"],
        help="what to minimise: latency (one run, blocking calls; default), makespan (one run, CPU and "
        "FPGA overlap where the task graph allows), throughput (period of a loop over frames in "
        "steady state)",
    )
    p.add_argument(
        "--cores",
        type=int,
        default=None,
        metavar="N",
        help="CPU cores for makespan/throughput, 1 or 2 (default: the board's, at most 2)",
    )
    p.add_argument(
        "--max-util",
        type=float,
        default=0.8,
        metavar="F",
        help="fraction of each FPGA resource the plan may use, shell included (default 0.8)",
    )
    p.add_argument(
        "--pin-cpu", action="append", default=[], metavar="F", help="keep function F on the CPU (repeatable)"
    )
    p.add_argument(
        "--pin-fpga",
        action="append",
        default=[],
        metavar="F",
        help="put function F on the FPGA (repeatable; an error if it cannot be translated)",
    )
    if "--profile" not in p._option_string_actions:
        p.add_argument(
            "--profile",
            metavar="PROFILE.json",
            help="reuse a saved profile (made earlier, or on the board) instead of running the app",
        )
    p.add_argument(
        "--solver",
        default="auto",
        choices=["auto", "cbc", "highs", "cpsat"],
        help="solver: cbc (bundled with PuLP), highs (needs highspy), cpsat (OR-tools, makespan only); "
        "auto (default): cpsat for the makespan objective where installed, cbc otherwise",
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="S",
        help="stop each solve after S seconds and report the gap to the best bound",
    )
    p.add_argument(
        "--no-variants",
        action="store_true",
        help="estimate only the base implementation of each kernel (no pipeline, unroll or burst-width variants)",
    )
    p.add_argument(
        "--no-chains",
        action="store_true",
        help="never chain two kernels by AXI-Stream (by default, with --objective latency or throughput, a "
        "kernel whose result the app hands only to the next kernel may stream it into that kernel)",
    )


def _app_path(app: str) -> Path:
    path = Path(app)
    if not path.exists():
        raise PartitionError(f"{app}: no such file")
    if not path.is_file():
        raise PartitionError(f"{app}: not a file")
    return path


def cmd_profile(args: argparse.Namespace, app_args: list[str]) -> int:
    from partition.profile import run_profile
    from partition.profile.model import save_profile
    from partition.report import progress

    app = _app_path(args.app)
    if args.samples < 0:
        raise PartitionError(f"--samples {args.samples}: give 0 or more")
    with progress.use(progress.Reporter()), progress.step(f"profiling {app.name}"):
        prof = run_profile(app, app_args, samples=args.samples, baseline=not args.no_baseline, echo=args.echo)
    out = Path(args.out) if args.out else Path(f"{app.stem}.profile.json")
    save_profile(prof, out)
    print(
        f"profile of {app.name}: {len(prof.functions)} function(s), {len(prof.edges)} data edge(s) -> {out}"
    )
    if prof.overhead is not None:
        print(
            f"run time {prof.wall_s:.3f} s profiled, {prof.plain_wall_s:.3f} s plain ({prof.overhead:.2f}× overhead)"
        )
    ranked = sorted(prof.functions.values(), key=lambda f: -f.total_s)[:10]
    for f in ranked:
        print(f"  {f.name:<30} {f.calls:>8,} calls  {f.total_s:>9.4f} s incl  {f.self_s:>9.4f} s self")
    return 0


def _load_profile_or_run(args: argparse.Namespace, app: Path, app_args: list[str]):
    from partition.profile import run_profile
    from partition.profile.model import load_profile
    from partition.report import progress

    if args.profile:
        prof = load_profile(Path(args.profile))
        if Path(prof.app).name != app.name:
            raise PartitionError(f"{args.profile}: this profile is of {prof.app}, not {app.name}")
        return prof
    if args.samples < 0:
        raise PartitionError(f"--samples {args.samples}: give 0 or more")
    with progress.step(f"profiling {app.name}"):
        return run_profile(app, app_args, samples=args.samples, echo=False)


def _options(args: argparse.Namespace):
    from partition.plan import Options

    return Options(
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
        calibrate=Path(args.calibrate) if args.calibrate else None,
    )


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
    from partition.plan import make_plan, parse_sweep, prepare, sweep, translate_all

    boards = _boards(args)
    utils = parse_sweep(args.sweep)["max_util"] if getattr(args, "sweep", None) else [opts.max_util]
    if len(boards) == 1 and not getattr(args, "sweep", None):
        return make_plan(prof, app.parent, boards[0], opts), boards[0]
    translated = translate_all(prof, app.parent)
    preps = []
    failed = []
    for b in boards:
        try:
            preps.append(prepare(prof, app.parent, b, opts, translated))
        except PartitionError as e:
            if len(boards) == 1:
                raise
            failed.append((b.name, e.message))
    table = sweep(preps, utils, opts)
    for name, why in failed:
        for u in utils:
            table["rows"].append(
                {
                    "params": {"board": name, "max_util": u},
                    "plan_s": None,
                    "speedup": None,
                    "fpga": [],
                    "status": f"no plan: {why}",
                    "pareto": False,
                }
            )
    best = preps[0] if preps else None
    if len(preps) > 1:
        scored = [
            (r["plan_s"], i)
            for i, p in enumerate(preps)
            for r in table["rows"]
            if r["params"]["board"] == p.board.name
            and r["params"]["max_util"] == opts.max_util
            and r["plan_s"]
        ]
        if scored:
            best = preps[min(scored)[1]]
    if best is None:
        raise PartitionError("no board could be planned: " + "; ".join(f"{n}: {w}" for n, w in failed))
    plan = make_plan(prof, app.parent, best.board, opts, prepared=best)
    plan.data["sweep"] = table
    return plan, best.board


def cmd_plan(args: argparse.Namespace, app_args: list[str]) -> int:
    from partition.codegen import build_tree
    from partition.fsutil import check_user_changes, write_tree
    from partition.report import plan_output, progress, summary

    app = _app_path(args.app)
    out = Path(args.out) if args.out else Path("build") / app.stem
    opts = _options(args)
    _boards(args)  # a bad board name fails before profiling
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
            files, executable = build_tree(plan, prof, board, app.read_bytes())
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


def cmd_verify(args: argparse.Namespace) -> int:
    """partition sim / synth / lint DIR: one step over the tree's RTL kernels."""
    from partition.report import regenerate
    from partition.sim import flow

    tree = Path(args.dir)
    tasks = flow.rtl_kernels(tree, args.kernel)
    jobs = []
    skipped = []
    for t in tasks:
        rtl = t.get("rtl", {})
        if rtl.get("status") != "built":
            skipped.append(f"{t['kernel']}: {rtl.get('reason', 'no built-in RTL')}")
            continue
        if args.command == "sim":
            jobs.append(
                (
                    flow.sim_kernel,
                    (tree, t["kernel"]),
                    {"simulator": args.simulator, "waves": args.waves, "timeout_cycles": args.timeout_cycles},
                ),
            )
        elif args.command == "synth":
            family = args.family or (
                "xcup" if json.loads((tree / "plan.json").read_text())["board"]["family"] == "xczu" else "xc7"
            )
            jobs.append((flow.synth_kernel, (tree, t["kernel"], family), {}))
        else:
            jobs.append((flow.lint_kernel, (tree, t["kernel"]), {}))
    for line in skipped:
        print(f"skipped {line}")
    results = flow.run_jobs(jobs, args.jobs or None)
    bad = 0
    for r in results:
        status = r["status"]
        bad += status != "pass"
        extra = ""
        if r["step"] == "rtl_sim" and r.get("cycles") is not None:
            of = f" of the {r['variant']} variant" if r.get("variant", "base") != "base" else ""
            extra = (
                f"  {r['vectors']} vectors, {r['cycles']:,} cycles (estimate{of} {r['estimate_cycles']:,})"
            )
        elif r["step"] == "yosys":
            extra = f"  {r['lut']:,} LUT  {r['ff']:,} FF  {r['dsp']} DSP  {r['bram18']} BRAM18"
        elif r["step"] == "lint" and r.get("detail"):
            extra = "\n    " + "\n    ".join(r["detail"])
        print(f"{r['step']} {r['kernel']}: {status.upper()}{extra}")
        if status != "pass" and r["step"] != "lint" and r.get("detail"):
            print("    " + str(r["detail"])[-3000:].replace("\n", "\n    "))
    if args.command == "sim" and (junit := flow.write_junit(tree)):
        print(f"JUnit: {junit}")
    if (tree / "report.html").exists():
        regenerate(tree, force=False)
    return 1 if bad else 0


def cmd_cosim(args: argparse.Namespace, app_args: list[str]) -> int:
    from partition.report import regenerate
    from partition.sim import flow
    from partition.sim.cosim import cosim

    tree = Path(args.dir)
    r = cosim(tree, args=app_args or None, waves=args.waves)
    line = f"cosim {', '.join(r['kernels'])}: {r['status'].upper()}"
    if r["on_cpu"]:
        why = r.get("on_cpu_why", {})
        line += (
            " (on the CPU: " + ", ".join(f"{t} ({why.get(t, 'no built-in RTL')})" for t in r["on_cpu"]) + ")"
        )
    print(line)
    calls = r["run_app"].get("tasks", {}) if isinstance(r["run_app"], dict) else {}
    for task, st in sorted(calls.items()):
        if isinstance(st, dict):
            print(f"  {task}: {st.get('calls', 0)} call(s) simulated, {st.get('fallbacks', 0)} on the CPU")
    print(f"  app output {'equals' if r['output_matches_cpu_run'] else 'DIFFERS FROM'} the plain CPU run")
    if r.get("detail"):
        print("  " + r["detail"].replace("\n", "\n  "))
    if junit := flow.write_junit(tree):
        print(f"JUnit: {junit}")
    if (tree / "report.html").exists():
        regenerate(tree, force=False)
    return 0 if r["status"] == "pass" else 1


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


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ours, app_args = _split_app_args(argv)
    parser = build_parser()
    args = parser.parse_args(ours)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "profile":
            return cmd_profile(args, app_args)
        if args.command == "plan":
            return cmd_plan(args, app_args)
        if args.command == "explain":
            return cmd_explain(args, app_args)
        if args.command == "report":
            return cmd_report(args)
        if args.command == "boards":
            return cmd_boards(args)
        if args.command in ("sim", "synth", "lint"):
            return cmd_verify(args)
        if args.command == "cosim":
            return cmd_cosim(args, app_args)
    except PartitionError as e:
        print(f"partition: error: {e.message}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("partition: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug in partition itself, not in the user's input
        if os.environ.get("PARTITION_DEBUG"):
            raise
        print(
            f"partition: internal error: {type(e).__name__}: {e}\n"
            "  this is a bug in partition; run again with PARTITION_DEBUG=1 for the traceback and report it",
            file=sys.stderr,
        )
        return 70
    return 2
