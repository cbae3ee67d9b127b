"""The command line's grammar: every subcommand, its options and their help text."""

from __future__ import annotations

import argparse

from partition import __version__

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
  partition measure build/app --workers 2    # every variant through Verilator and yosys
  partition plan app.py --board pynq-z2 --calibrate build/app      # re-plan with measured figures
  partition explain app.py fir_q15 --board pynq-z2
  partition report build/fir_pipeline               # refresh report.html after make sim
  partition boards
"""


def split_app_args(argv: list[str]) -> tuple[list[str], list[str]]:
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
    _run_options(pr)

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
        "--workers",
        type=int,
        default=0,
        metavar="N",
        help="--sweep / --board all: Dask LocalCluster processes for the boards' estimates and the solves "
        "(default: the cores; 1: one after another here)",
    )
    pl.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="--sweep / --board all: a running Dask scheduler (tcp://host:8786) instead of a LocalCluster",
    )
    pl.add_argument(
        "--samples",
        type=int,
        default=3,
        metavar="N",
        help="calls recorded per function when profiling (default 3)",
    )
    _run_options(pl)
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
    _run_options(ex)
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
                default=None,
                metavar="N",
                help="fail a call that has not signalled ap_done after N cycles (default: 4× the "
                "variant's estimate, at least 5,000,000)",
            )
        if name == "synth":
            sp.add_argument(
                "--family",
                default=None,
                choices=["xc7", "xcup"],
                help="default: the board's (xc7 for Zynq-7000)",
            )

    me = sub.add_parser(
        "measure",
        help="simulate and synthesize every kernel variant of a build tree (Verilator, yosys) on Dask, "
        "for --calibrate",
        description="Measure the kernel variants of build tree DIR with the real tools: each variant's "
        "built-in RTL simulated by Verilator on the kernel's vectors (cycles per call) and synthesized by "
        "yosys (LUT, FF, DSP, BRAM18). The jobs run on Dask distributed: a LocalCluster on this machine, "
        "or the workers of --scheduler. Results go to DIR/results/<kernel>/variants/<variant>/ (and "
        "DIR/results/measure.json); `partition plan ... --calibrate DIR` re-plans with them.",
        usage="partition measure DIR [--variants all|chosen] [--tools verilator,yosys,vitis] [--kernel K] "
        "[--scheduler ADDRESS] [--workers N] [--cache DIR]",
    )
    me.add_argument("dir", metavar="DIR", help="a build tree written by `partition plan`")
    me.add_argument(
        "--variants",
        default="all",
        choices=["all", "chosen"],
        help="every variant of every kernel the plan could place on the FPGA (default), or the chosen "
        "variant of each FPGA kernel",
    )
    me.add_argument(
        "--tools",
        default="verilator,yosys",
        metavar="T,T",
        help="verilator (RTL simulation: cycles), yosys (synthesis: resources), vitis (Vitis HLS csynth of "
        "the variant's C++, where vitis_hls or vitis-run is on PATH; else skipped and named); default "
        "verilator,yosys",
    )
    me.add_argument("--kernel", action="append", default=[], metavar="K", help="only kernel K (repeatable)")
    me.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="a running Dask scheduler (tcp://host:8786), e.g. dask-jobqueue's on Slurm; default: a "
        "LocalCluster on this machine",
    )
    me.add_argument(
        "--workers",
        type=int,
        default=0,
        metavar="N",
        help="LocalCluster worker processes (default: the cores; 1: one job after another in this process)",
    )
    me.add_argument(
        "--cache",
        metavar="DIR",
        help="results of earlier jobs by content hash (default: $PARTITION_MEASURE_CACHE or "
        "~/.cache/partition/measure)",
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


APP_TIMEOUT_NONINTERACTIVE_S = 3600.0  # --app-timeout's default when the output is not a terminal


def _run_options(p: argparse.ArgumentParser) -> None:
    """How long the app may run while it is profiled (profile and plan)."""
    p.add_argument(
        "--app-timeout",
        type=float,
        default=None,
        metavar="S",
        help="stop and fail when a run of the app (with the profiler's work after it) takes longer than S "
        f"seconds (default: no limit on a terminal, {APP_TIMEOUT_NONINTERACTIVE_S:g} s when the output is not one)",
    )
    p.add_argument(
        "--profile-for",
        type=float,
        default=None,
        metavar="S",
        help="stop the app after S seconds and use what it did until then (for an app that runs until "
        "stopped, e.g. a polling main loop)",
    )


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
        "--max-shape",
        action="append",
        default=[],
        metavar="F:ARG=DIMS",
        help="build F's kernel for arrays ARG of up to DIMS (e.g. blur:img=1080x1920): the first length "
        "becomes a run-time register, so any number of rows up to it runs on the FPGA (repeatable)",
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
    p.add_argument(
        "--int-widths",
        choices=("sound", "observed"),
        default="sound",
        help="how Python int arguments travel to a kernel: sound (default) in int64, so every value "
        "up to 64 bits works; observed in the narrowest type covering the profiled values (smaller "
        "kernels; the host runs a call with any other value on the CPU). Either way a value the "
        "kernel computes that would need more than 64 bits sends that call to the CPU",
    )
